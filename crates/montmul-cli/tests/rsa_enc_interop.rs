//! `montmul rsa encrypt` / `montmul rsa decrypt` against the `openssl` command, both ways:
//! each decrypts what the other encrypts, for PKCS #1 v1.5 (both tools' default) and OAEP
//! (SHA-1 by default as `pkeyutl`, and SHA-256/384/512 with `--hash`), at 2048, 3072 and
//! 4096 bits with the test keys committed under `crates/montmul-pk/tests/data`. Bad inputs give one `error:` line, exit
//! status 2 and no output file.
//!
//! Skipped with a loud `SKIPPED:` line where `openssl` is absent.

use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};

mod common;

use common::{
    have_openssl, montmul_command, montmul_output as montmul, openssl, pk_data_path as data,
    refused,
};

fn ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {:?} {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The padding as `montmul` flags and as `openssl pkeyutl` options.
struct Scheme {
    name: &'static str,
    montmul: &'static [&'static str],
    openssl: &'static [&'static str],
}

const SCHEMES: [Scheme; 5] = [
    Scheme {
        name: "PKCS#1 v1.5",
        montmul: &[],
        openssl: &[],
    },
    Scheme {
        name: "OAEP SHA-1",
        montmul: &["--oaep"],
        openssl: &["-pkeyopt", "rsa_padding_mode:oaep"],
    },
    Scheme {
        name: "OAEP SHA-256",
        montmul: &["--oaep", "--hash", "sha256"],
        openssl: &[
            "-pkeyopt",
            "rsa_padding_mode:oaep",
            "-pkeyopt",
            "rsa_oaep_md:sha256",
            "-pkeyopt",
            "rsa_mgf1_md:sha256",
        ],
    },
    Scheme {
        name: "OAEP SHA-384",
        montmul: &["--oaep", "--hash", "sha384"],
        openssl: &[
            "-pkeyopt",
            "rsa_padding_mode:oaep",
            "-pkeyopt",
            "rsa_oaep_md:sha384",
            "-pkeyopt",
            "rsa_mgf1_md:sha384",
        ],
    },
    Scheme {
        name: "OAEP SHA-512",
        montmul: &["--oaep", "--hash", "sha512"],
        openssl: &[
            "-pkeyopt",
            "rsa_padding_mode:oaep",
            "-pkeyopt",
            "rsa_oaep_md:sha512",
            "-pkeyopt",
            "rsa_mgf1_md:sha512",
        ],
    },
];

#[test]
fn each_decrypts_what_the_other_encrypts() {
    if !have_openssl("RSA encryption interop") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let msg = dir.path().join("msg");
    let message: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37)).collect();
    fs::write(&msg, &message).expect("write");
    let mut crossed = 0;
    for bits in [2048, 3072, 4096] {
        let key = data(&format!("rsa{bits}.pem"));
        let public = dir.path().join(format!("rsa{bits}-pub.pem"));
        ok(
            &openssl(&["pkey", "-in", s(&key), "-pubout", "-out", s(&public)]),
            "openssl pkey -pubout",
        );
        for scheme in &SCHEMES {
            let what = format!("{bits} bits, {}", scheme.name);
            // montmul encrypts, openssl decrypts.
            let ct = dir.path().join("ct.montmul");
            let back = dir.path().join("back.openssl");
            let mut args = vec!["rsa", "encrypt", "--pub", s(&public)];
            args.extend_from_slice(&["--in", s(&msg), "--out", s(&ct)]);
            args.extend_from_slice(scheme.montmul);
            ok(&montmul(&args), &format!("montmul encrypt, {what}"));
            assert_eq!(fs::read(&ct).unwrap().len(), bits / 8, "{what}");
            let mut args = vec!["pkeyutl", "-decrypt", "-inkey", s(&key)];
            args.extend_from_slice(&["-in", s(&ct), "-out", s(&back)]);
            args.extend_from_slice(scheme.openssl);
            ok(&openssl(&args), &format!("openssl decrypt, {what}"));
            assert_eq!(fs::read(&back).unwrap(), message, "{what}");

            // openssl encrypts, montmul decrypts.
            let ct = dir.path().join("ct.openssl");
            let back = dir.path().join("back.montmul");
            let mut args = vec!["pkeyutl", "-encrypt", "-pubin", "-inkey", s(&public)];
            args.extend_from_slice(&["-in", s(&msg), "-out", s(&ct)]);
            args.extend_from_slice(scheme.openssl);
            ok(&openssl(&args), &format!("openssl encrypt, {what}"));
            let mut args = vec!["rsa", "decrypt", "--key", s(&key)];
            args.extend_from_slice(&["--in", s(&ct), "--out", s(&back)]);
            args.extend_from_slice(scheme.montmul);
            ok(&montmul(&args), &format!("montmul decrypt, {what}"));
            assert_eq!(fs::read(&back).unwrap(), message, "{what}");
            crossed += 2;
        }
    }
    montmul_testkit::shown!("{crossed} ciphertexts crossed between montmul and openssl");
}

/// `--in -` reads standard input, and a decryption with the wrong OAEP hash fails with
/// one line.
#[test]
fn stdin_and_wrong_hash() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = data("rsa2048.pem");
    let public = data("rsa2048-pub.pem");
    let ct = dir.path().join("ct");
    let mut child = montmul_command()
        .args(["rsa", "encrypt", "--pub", s(&public), "--in", "-"])
        .args(["--out", s(&ct), "--oaep", "--hash", "sha256"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("montmul runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"from stdin")
        .unwrap();
    assert!(child.wait().unwrap().success());
    let back = dir.path().join("back");
    let out = montmul(&[
        "rsa",
        "decrypt",
        "--key",
        s(&key),
        "--in",
        s(&ct),
        "--out",
        s(&back),
        "--oaep",
        "--hash",
        "sha256",
    ]);
    ok(&out, "decrypt");
    assert_eq!(fs::read(&back).unwrap(), b"from stdin");

    let err = refused(&[
        "rsa",
        "decrypt",
        "--key",
        s(&key),
        "--in",
        s(&ct),
        "--out",
        s(&back),
        "--oaep",
    ]);
    assert_eq!(err, "error: decryption error");
}

/// Bad inputs: one `error:` line, exit status 2, nothing on stdout, no output file.
#[test]
fn bad_inputs_give_one_error_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = data("rsa2048.pem");
    let public = data("rsa2048-pub.pem");
    let out_path = dir.path().join("out");
    let short = dir.path().join("short");
    fs::write(&short, [1u8; 255]).unwrap();
    let long = dir.path().join("long");
    fs::write(&long, [1u8; 257]).unwrap();
    let too_big = dir.path().join("too_big");
    fs::write(&too_big, [0xffu8; 256]).unwrap();
    let msg_too_long = dir.path().join("msg_too_long");
    fs::write(&msg_too_long, [7u8; 246]).unwrap();
    let oaep_too_long = dir.path().join("oaep_too_long");
    fs::write(&oaep_too_long, [7u8; 215]).unwrap(); // SHA-1: at most 256 - 42 = 214
    let not_a_key = dir.path().join("not_a_key.pem");
    fs::write(
        &not_a_key,
        "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
    )
    .unwrap();
    let length = "error: signature or ciphertext has the wrong length or is not below the modulus";
    let too_long = "error: message too long for this key and padding";
    let cases: Vec<(Vec<&str>, Option<&str>)> = vec![
        (
            vec!["rsa", "decrypt", "--key", s(&key), "--in", s(&short)],
            Some(length),
        ),
        (
            vec!["rsa", "decrypt", "--key", s(&key), "--in", s(&long)],
            Some(length),
        ),
        (
            vec!["rsa", "decrypt", "--key", s(&key), "--in", s(&too_big)],
            Some(length),
        ),
        (
            vec![
                "rsa",
                "decrypt",
                "--key",
                s(&key),
                "--in",
                s(&too_big),
                "--oaep",
            ],
            Some(length),
        ),
        (
            vec![
                "rsa",
                "encrypt",
                "--pub",
                s(&public),
                "--in",
                s(&msg_too_long),
            ],
            Some(too_long),
        ),
        (
            vec![
                "rsa",
                "encrypt",
                "--pub",
                s(&public),
                "--in",
                s(&oaep_too_long),
                "--oaep",
            ],
            Some(too_long),
        ),
        (
            vec!["rsa", "encrypt", "--pub", s(&not_a_key), "--in", s(&short)],
            None,
        ),
        (
            vec!["rsa", "decrypt", "--key", s(&public), "--in", s(&short)],
            None,
        ),
        (
            vec![
                "rsa",
                "encrypt",
                "--pub",
                s(&public),
                "--in",
                s(&short),
                "--hash",
                "md5",
            ],
            None,
        ),
    ];
    for (mut args, want) in cases {
        args.extend_from_slice(&["--out", s(&out_path)]);
        let err = refused(&args);
        if let Some(want) = want {
            assert_eq!(err, want, "{args:?}");
        }
        assert!(!out_path.exists(), "{args:?} left an output file");
    }
}
