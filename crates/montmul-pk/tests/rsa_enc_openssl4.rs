//! Implicit rejection cross-checked against OpenSSL 4.0, the one bundled in Python's
//! `cryptography` wheel (the system OpenSSL 3.0 predates implicit rejection): for random
//! ciphertexts (almost all with a bad padding) and well-formed ones, montmul's PKCS #1 v1.5
//! decryption returns the same bytes as `private_key.decrypt(ct, PKCS1v15())`.
//!
//! Skipped with a loud `SKIPPED:` line where `python3` or `cryptography` is absent, or
//! where its OpenSSL does not do implicit rejection (it raises on a bad padding).

use std::io::Write;
use std::process::{Command, Stdio};

use montmul_pk::rsa::{RsaPrivateKey, RsaPublicKey};
use num_bigint::BigUint;
use rand_core::{OsRng, RngCore};

const SCRIPT: &str = r#"
import sys
try:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import padding
except ImportError:
    print("SKIP no cryptography module"); sys.exit(0)
key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), None)
for line in sys.stdin:
    try:
        print(key.decrypt(bytes.fromhex(line.strip()), padding.PKCS1v15()).hex() or "-")
    except ValueError:
        print("SKIP this OpenSSL reports bad padding: no implicit rejection"); sys.exit(0)
"#;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn synthetic_messages_equal_openssl_4() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/rsa2048.pem");
    let pem = std::fs::read_to_string(path).unwrap();
    let key = RsaPrivateKey::from_pkcs8_pem(&pem).unwrap();
    let public: RsaPublicKey = key.to_public_key();
    let k = public.size();
    let n = BigUint::from_bytes_be(public.n());

    // 40 random values below n (bad paddings but for a 2^-16 chance), and 4 good ones.
    let mut cts = Vec::new();
    for _ in 0..40 {
        let mut c = vec![0u8; k];
        OsRng.fill_bytes(&mut c);
        let c = (BigUint::from_bytes_be(&c) % &n).to_bytes_be();
        let mut padded = vec![0u8; k - c.len()];
        padded.extend_from_slice(&c);
        cts.push(padded);
    }
    for msg in [&b""[..], b"x", b"interop", &[0u8; 245]] {
        cts.push(public.encrypt_pkcs1v15(&mut OsRng, msg).unwrap());
    }

    let child = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let Ok(mut child) = child else {
        montmul_testkit::skipped!(
            "SKIPPED: python3 not found: implicit rejection not cross-checked with OpenSSL 4"
        );
        return;
    };
    let input: String = cts.iter().map(|c| hex(c) + "\n").collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python3 failed");
    let text = String::from_utf8(out.stdout).unwrap();
    if let Some(why) = text.lines().find_map(|l| l.strip_prefix("SKIP ")) {
        montmul_testkit::skipped!(
            "SKIPPED: {why}: implicit rejection not cross-checked with OpenSSL 4"
        );
        return;
    }
    let theirs: Vec<&str> = text.lines().collect();
    assert_eq!(theirs.len(), cts.len());
    for (ct, want) in cts.iter().zip(theirs) {
        let ours = key.decrypt_pkcs1v15(&mut OsRng, ct).unwrap();
        let ours = if ours.is_empty() {
            "-".to_string()
        } else {
            hex(&ours)
        };
        assert_eq!(ours, want, "ciphertext {}", hex(ct));
    }
    montmul_testkit::shown!(
        "{} ciphertexts decrypt to the same bytes as OpenSSL 4's",
        cts.len()
    );
}
