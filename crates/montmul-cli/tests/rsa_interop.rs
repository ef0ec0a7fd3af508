//! `montmul rsa` against the `openssl` command, both ways: montmul's keys load in
//! OpenSSL and OpenSSL's in montmul, montmul's signatures verify with `openssl dgst
//! -verify` and OpenSSL's with `montmul rsa verify`, for PKCS #1 v1.5 and PSS with
//! SHA-256/384/512; and bad inputs end with one `error:` line and exit status 2.
//! Skipped, with a loud message, where `openssl` is not installed.

mod common;

use common::*;

/// The flags of `openssl dgst` for one signature scheme.
fn dgst_flags(hash: &str, pss: bool) -> Vec<String> {
    let mut v = vec![format!("-{hash}")];
    if pss {
        v.extend(["-sigopt".into(), "rsa_padding_mode:pss".into()]);
    }
    v
}

fn montmul_flags(hash: &str, pss: bool) -> Vec<&str> {
    let mut v = vec!["--hash", hash];
    if pss {
        v.push("--pss");
    }
    v
}

#[test]
fn signatures_cross_both_ways() {
    let dir = Dir::new();
    let key = dir.at("key.pem");
    let public = dir.at("pub.pem");
    let msg = dir.at("msg");
    std::fs::write(&msg, b"signed by one, verified by the other\n".repeat(1000)).expect("write");
    let out = montmul_output(&["rsa", "keygen", "--bits", "2048", "--out", &key]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = montmul_output(&["rsa", "pub", "--key", &key, "--out", &public]);
    assert!(out.status.success(), "{}", stderr(&out));
    // OpenSSL checks the generated key.
    if !have_openssl("signatures_cross_both_ways") {
        return;
    }
    let check = openssl(&["rsa", "-check", "-noout", "-in", &key]);
    assert!(stdout(&check).contains("RSA key ok"), "{}", stderr(&check));
    // The public key montmul wrote is the one OpenSSL derives.
    let derived = openssl(&["pkey", "-in", &key, "-pubout"]);
    assert_eq!(derived.stdout, std::fs::read(&public).expect("pub"));

    // An OpenSSL key, for the other direction.
    let ossl_key = pk_data("rsa3072.pem");
    let ossl_pub = dir.at("ossl-pub.pem");
    let out = openssl(&["pkey", "-in", &ossl_key, "-pubout", "-out", &ossl_pub]);
    assert!(out.status.success());

    for hash in ["sha256", "sha384", "sha512"] {
        for pss in [false, true] {
            let what = format!("{hash} pss={pss}");
            // montmul signs, OpenSSL verifies.
            let sig = dir.at("sig");
            let mut args = vec!["rsa", "sign", "--key", &key, "--in", &msg, "--out", &sig];
            args.extend(montmul_flags(hash, pss));
            let out = montmul_output(&args);
            assert!(out.status.success(), "{what}: {}", stderr(&out));
            let mut args: Vec<String> = vec!["dgst".into()];
            args.extend(dgst_flags(hash, pss));
            args.extend([
                "-verify".into(),
                public.clone(),
                "-signature".into(),
                sig.clone(),
            ]);
            args.push(msg.clone());
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = openssl(&refs);
            assert!(
                stdout(&out).contains("Verified OK"),
                "{what}: {}",
                stderr(&out)
            );

            // OpenSSL signs, montmul verifies (PSS: OpenSSL's default salt length).
            let ossl_sig = dir.at("ossl.sig");
            let mut args: Vec<String> = vec!["dgst".into()];
            args.extend(dgst_flags(hash, pss));
            args.extend([
                "-sign".into(),
                ossl_key.clone(),
                "-out".into(),
                ossl_sig.clone(),
            ]);
            args.push(msg.clone());
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            assert!(openssl(&refs).status.success(), "{what}");
            let mut args = vec![
                "rsa", "verify", "--pub", &ossl_pub, "--in", &msg, "--sig", &ossl_sig,
            ];
            args.extend(montmul_flags(hash, pss));
            let out = montmul_output(&args);
            assert_eq!(stdout(&out), "Verified OK\n", "{what}: {}", stderr(&out));
            assert_eq!(out.status.code(), Some(0));

            // The message changed: Verification failure, exit 1.
            let mut args = vec![
                "rsa", "verify", "--pub", &ossl_pub, "--in", &key, "--sig", &ossl_sig,
            ];
            args.extend(montmul_flags(hash, pss));
            let out = montmul_output(&args);
            assert_eq!(stdout(&out), "Verification failure\n", "{what}");
            assert_eq!(out.status.code(), Some(1));
        }
    }
}

#[test]
fn keys_cross_in_every_form() {
    let dir = Dir::new();
    let key = dir.at("key.der");
    let out = montmul_output(&["rsa", "keygen", "--bits", "2048", "--der", "--out", &key]);
    assert!(out.status.success(), "{}", stderr(&out));
    if !have_openssl("keys_cross_in_every_form") {
        return;
    }
    let out = openssl(&["pkey", "-inform", "DER", "-in", &key, "-check", "-noout"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pub_der = dir.at("pub.der");
    let out = montmul_output(&["rsa", "pub", "--key", &key, "--der", "--out", &pub_der]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = openssl(&[
        "pkey", "-pubin", "-inform", "DER", "-in", &pub_der, "-noout",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Every form OpenSSL writes of a private key, read back by `montmul rsa pub`: the
    // same public key each time.
    let reference = montmul_output(&["rsa", "pub", "--key", &key]);
    assert!(reference.status.success());
    let forms: [&[&str]; 5] = [
        &["pkey"],
        &["pkey", "-outform", "DER"],
        &["pkcs8", "-topk8", "-nocrypt", "-outform", "DER"],
        &["rsa", "-traditional"],
        &["rsa", "-traditional", "-outform", "DER"],
    ];
    for (i, form) in forms.iter().enumerate() {
        let file = dir.at(&format!("form{i}"));
        let mut args = form.to_vec();
        args.extend(["-inform", "DER", "-in", &key, "-out", &file]);
        let out = openssl(&args);
        assert!(out.status.success(), "{form:?}: {}", stderr(&out));
        let out = montmul_output(&["rsa", "pub", "--key", &file]);
        assert!(out.status.success(), "{form:?}: {}", stderr(&out));
        assert_eq!(out.stdout, reference.stdout, "{form:?}");
    }
    // Public forms: SPKI and PKCS #1, PEM and DER, used by `montmul rsa verify`.
    let msg = dir.at("msg");
    std::fs::write(&msg, b"x").expect("write");
    let sig = dir.at("sig");
    let out = montmul_output(&["rsa", "sign", "--key", &key, "--in", &msg, "--out", &sig]);
    assert!(out.status.success());
    let pub_forms: [&[&str]; 4] = [
        &["rsa", "-pubout"],
        &["rsa", "-pubout", "-outform", "DER"],
        &["rsa", "-RSAPublicKey_out"],
        &["rsa", "-RSAPublicKey_out", "-outform", "DER"],
    ];
    for (i, form) in pub_forms.iter().enumerate() {
        let file = dir.at(&format!("pub{i}"));
        let mut args = form.to_vec();
        args.extend(["-inform", "DER", "-in", &key, "-out", &file]);
        let out = openssl(&args);
        assert!(out.status.success(), "{form:?}: {}", stderr(&out));
        let out = montmul_output(&["rsa", "verify", "--pub", &file, "--in", &msg, "--sig", &sig]);
        assert_eq!(stdout(&out), "Verified OK\n", "{form:?}: {}", stderr(&out));
    }
}

#[test]
fn bad_inputs_give_one_error_line_and_status_2() {
    let dir = Dir::new();
    let msg = dir.at("msg");
    std::fs::write(&msg, b"m").expect("write");
    let truncated = dir.at("truncated.pem");
    let full = std::fs::read_to_string(pk_data("rsa2048.pem")).expect("key");
    std::fs::write(&truncated, &full[..full.len() - 40]).expect("write");
    let truncated_der = dir.at("truncated.der");
    let der = std::fs::read(pk_data("rsa2048.der")).expect("key");
    std::fs::write(&truncated_der, &der[..der.len() / 2]).expect("write");
    let short_sig = dir.at("short.sig");
    std::fs::write(&short_sig, [1u8; 255]).expect("write");
    let (key, public, ec, dsa) = (
        pk_data("rsa2048.pem"),
        pk_data("rsa2048-pub.pem"),
        pk_data("ec.pem"),
        pk_data("dsa.pem"),
    );
    let high = pk_data("sig-ff-256.bin");
    let cases: Vec<Vec<&str>> = vec![
        vec!["rsa", "sign", "--key", &truncated, "--in", &msg],
        vec!["rsa", "sign", "--key", &truncated_der, "--in", &msg],
        vec!["rsa", "sign", "--key", &ec, "--in", &msg],
        vec!["rsa", "sign", "--key", &dsa, "--in", &msg],
        vec![
            "rsa", "verify", "--pub", &ec, "--in", &msg, "--sig", &short_sig,
        ],
        vec![
            "rsa", "verify", "--pub", &public, "--in", &msg, "--sig", &short_sig,
        ],
        vec![
            "rsa", "verify", "--pub", &public, "--in", &msg, "--sig", &high,
        ],
        vec![
            "rsa", "verify", "--pub", &public, "--in", &msg, "--sig", &high, "--pss",
        ],
        vec!["rsa", "verify", "--pub", &key, "--in", &msg, "--sig", &high],
        vec!["rsa", "keygen", "--bits", "9000"],
    ];
    for args in cases {
        refused(&args);
    }
    // EC and DSA keys made by `openssl genpkey` now, not only the committed ones.
    let fresh = dir.at("fresh-ec.pem");
    if !have_openssl("bad_inputs_give_one_error_line_and_status_2 (fresh keys)") {
        return;
    }
    let out = openssl(&[
        "genpkey",
        "-algorithm",
        "EC",
        "-pkeyopt",
        "ec_paramgen_curve:P-384",
        "-out",
        &fresh,
    ]);
    assert!(out.status.success());
    let out = montmul_output(&["rsa", "pub", "--key", &fresh]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not an RSA key"), "{}", stderr(&out));
}

#[test]
fn a_private_key_file_is_readable_by_its_owner_only() {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let dir = Dir::new();
        let key = dir.at("key.pem");
        let out = montmul_output(&["rsa", "keygen", "--out", &key]);
        assert!(out.status.success(), "{}", stderr(&out));
        let mode = std::fs::metadata(&key).expect("key").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn keygen_primes_makes_multi_prime_keys_and_refuses_counts_past_the_cap() {
    let dir = Dir::new();
    let openssl_here = have_openssl("keygen --primes (OpenSSL's check of the keys)");
    for (bits, primes, der) in [
        ("2048", "3", false),
        ("4096", "4", false),
        ("2048", "2", false),
        ("3072", "3", true),
    ] {
        let what = format!("--bits {bits} --primes {primes} der={der}");
        let key = dir.at(&format!("key-{bits}-{primes}"));
        let mut args = vec!["rsa", "keygen", "--bits", bits, "--primes", primes];
        args.extend(["--out", &key]);
        if der {
            args.push("--der");
        }
        let out = montmul_output(&args);
        assert!(out.status.success(), "{what}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{what}");
        // Read by the library, and by OpenSSL, which counts the primes itself.
        let read = montmul_pk::rsa::RsaPrivateKey::from_any(&std::fs::read(&key).expect("key"))
            .expect("montmul reads the key");
        assert_eq!(read.prime_count().to_string(), primes, "{what}");
        assert_eq!(read.bits().to_string(), bits, "{what}");
        // The key signs through the CLI, and `montmul rsa verify` accepts its signature.
        let (public, sig) = (dir.at("pub.pem"), dir.at("sig"));
        ok(&["rsa", "pub", "--key", &key, "--out", &public]);
        ok(&["rsa", "sign", "--key", &key, "--in", &key, "--out", &sig]);
        let verified = ok(&[
            "rsa", "verify", "--pub", &public, "--in", &key, "--sig", &sig,
        ]);
        assert_eq!(verified.trim(), "Verified OK", "{what}");
        if openssl_here {
            let form = if der { "DER" } else { "PEM" };
            let text = openssl_ok(&["pkey", "-inform", form, "-in", &key, "-noout", "-text"]);
            let head = format!("Private-Key: ({bits} bit, {primes} primes)");
            assert!(
                String::from_utf8_lossy(&text).starts_with(&head),
                "{what}: {}",
                String::from_utf8_lossy(&text).lines().next().unwrap_or("")
            );
            let check = openssl_ok(&["pkey", "-inform", form, "-in", &key, "-check", "-noout"]);
            assert!(
                String::from_utf8_lossy(&check).contains("Key is valid"),
                "{what}"
            );
            let out = openssl(&[
                "dgst",
                "-sha256",
                "-verify",
                &public,
                "-signature",
                &sig,
                &key,
            ]);
            assert!(
                stdout(&out).contains("Verified OK"),
                "{what}: {}",
                stderr(&out)
            );
        }
    }
    // Counts outside 2..=cap: one error line naming the limit, exit 2, no file written.
    for (bits, primes, max) in [
        ("2048", "1", 3),
        ("2048", "0", 3),
        ("2048", "4", 3),
        ("4096", "5", 4),
        ("8192", "6", 5),
        ("8192", "17", 5),
    ] {
        let key = dir.at("refused.pem");
        let args = [
            "rsa", "keygen", "--bits", bits, "--primes", primes, "--out", &key,
        ];
        let (code, out, err) = montmul(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(
            err,
            format!("error: prime count {primes} is outside 2..={max} for {bits}-bit keys\n"),
            "{args:?}"
        );
        assert!(out.is_empty(), "{args:?}");
        assert!(!dir.path("refused.pem").exists(), "{args:?}");
    }
    // Not a number: clap's one line.
    let (code, _, err) = montmul(&["rsa", "keygen", "--primes", "three"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: ") && err.lines().count() == 1,
        "{err}"
    );
}

/// Key and parameter generation show a spinner only on a terminal: piped, standard
/// error stays empty; on a pseudo-terminal (util-linux `script`), the spinner's message
/// is drawn and its line cleared before the program ends, so nothing of it is left
/// before the prompt or an `error:` line. Skipped, loudly, where `script` is missing.
#[test]
fn generation_spins_on_a_terminal_only() {
    let dir = Dir::new();
    let key = dir.at("key.pem");
    let params = dir.at("params.pem");
    let piped = montmul_output(&["rsa", "keygen", "--bits", "2048", "--out", &key]);
    assert!(piped.status.success(), "{}", stderr(&piped));
    assert_eq!(stderr(&piped), "", "nothing on a piped standard error");
    let exe = env!("CARGO_BIN_EXE_montmul");
    let cases = [
        (
            format!("{exe} rsa keygen --bits 2048 --out {key}"),
            "generating a 2048-bit RSA key",
            0,
        ),
        (
            format!("{exe} dsa params --bits 2048 --qbits 224 --out {params}"),
            "generating 2048-bit DSA parameters",
            0,
        ),
        (
            format!("{exe} rsa keygen --bits 1024 --out {key}"),
            "generating a 1024-bit RSA key",
            2,
        ),
    ];
    for (command, message, status) in cases {
        let Some(run) = on_a_terminal(&command, &dir.at("typescript")) else {
            montmul_testkit::skipped!(
                "SKIPPED: generation_spins_on_a_terminal_only (no `script` command)"
            );
            return;
        };
        assert_eq!(run.status.code(), Some(status), "{command}");
        let seen = String::from_utf8_lossy(&run.stdout).into_owned();
        assert!(seen.contains(message), "{command}: no spinner in {seen:?}");
        // Every frame is followed by the erase of its line; the last one too.
        let last_frame = seen.rfind(message).expect("found above");
        let after = &seen[last_frame..];
        assert!(
            after.contains("\r\u{1b}[2K"),
            "{command}: line left drawn: {after:?}"
        );
        if status == 2 {
            let error = after.rsplit("\u{1b}[2K").next().unwrap_or_default();
            assert!(error.starts_with("error: key size 1024"), "{error:?}");
        }
    }
    // What the terminal run wrote is a key OpenSSL's format has.
    assert!(std::fs::read_to_string(&key)
        .expect("key")
        .starts_with("-----BEGIN PRIVATE KEY-----"));
}
