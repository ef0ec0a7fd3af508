//! `montmul dsa` against the `openssl` command, both ways: signatures made by each
//! verify with the other, keys cross in every form each writes, and bad input gives
//! one `error:` line and exit status 2. Skipped, loudly, where `openssl` is absent.

mod common;

use common::*;

#[test]
fn signatures_verify_both_ways() {
    if !have_openssl("signatures_verify_both_ways") {
        return;
    }
    let d = Dir::new();
    std::fs::write(d.path("msg"), b"signed on both sides\n").unwrap();
    ok(&[
        "dsa",
        "keygen",
        "--params",
        &pk_data("dsa_2048_224.params.pem"),
        "--out",
        &d.at("k.pem"),
    ]);
    ok(&[
        "dsa",
        "pub",
        "--key",
        &d.at("k.pem"),
        "--out",
        &d.at("k.pub"),
    ]);
    for hash in ["sha224", "sha256", "sha384", "sha512"] {
        // montmul signs, OpenSSL verifies.
        ok(&[
            "dsa",
            "sign",
            "--key",
            &d.at("k.pem"),
            "--in",
            &d.at("msg"),
            "--out",
            &d.at("sig"),
            "--hash",
            hash,
        ]);
        let out = openssl_ok(&[
            "dgst",
            &format!("-{hash}"),
            "-verify",
            &d.at("k.pub"),
            "-signature",
            &d.at("sig"),
            &d.at("msg"),
        ]);
        assert_eq!(
            String::from_utf8_lossy(&out).trim(),
            "Verified OK",
            "{hash}"
        );
        assert_eq!(
            ok(&[
                "dsa",
                "verify",
                "--pub",
                &d.at("k.pub"),
                "--in",
                &d.at("msg"),
                "--sig",
                &d.at("sig"),
                "--hash",
                hash
            ]),
            "Verified OK\n"
        );
        // OpenSSL signs with montmul's key, montmul verifies.
        openssl_ok(&[
            "dgst",
            &format!("-{hash}"),
            "-sign",
            &d.at("k.pem"),
            "-out",
            &d.at("osig"),
            &d.at("msg"),
        ]);
        assert_eq!(
            ok(&[
                "dsa",
                "verify",
                "--pub",
                &d.at("k.pub"),
                "--in",
                &d.at("msg"),
                "--sig",
                &d.at("osig"),
                "--hash",
                hash
            ]),
            "Verified OK\n"
        );
    }
    // OpenSSL's key signs, montmul verifies with OpenSSL's public key; and the reverse.
    let theirs = pk_data("dsa_2048_256.pem");
    let theirs_pub = pk_data("dsa_2048_256.pub.pem");
    openssl_ok(&[
        "dgst",
        "-sha256",
        "-sign",
        &theirs,
        "-out",
        &d.at("osig2"),
        &d.at("msg"),
    ]);
    assert_eq!(
        ok(&[
            "dsa",
            "verify",
            "--pub",
            &theirs_pub,
            "--in",
            &d.at("msg"),
            "--sig",
            &d.at("osig2")
        ]),
        "Verified OK\n"
    );
    ok(&[
        "dsa",
        "sign",
        "--key",
        &theirs,
        "--in",
        &d.at("msg"),
        "--out",
        &d.at("sig2"),
    ]);
    let out = openssl_ok(&[
        "dgst",
        "-sha256",
        "-verify",
        &theirs_pub,
        "-signature",
        &d.at("sig2"),
        &d.at("msg"),
    ]);
    assert_eq!(String::from_utf8_lossy(&out).trim(), "Verified OK");
    // A changed message, a wrong hash, a garbled signature: failure, exit 1.
    std::fs::write(d.path("other"), b"signed on one side\n").unwrap();
    std::fs::write(d.path("junk"), b"\x30\x03\x02\x01").unwrap();
    for (msg, sig, hash) in [
        ("other", "sig2", "sha256"),
        ("msg", "sig2", "sha512"),
        ("msg", "junk", "sha256"),
    ] {
        let (code, out, err) = montmul(&[
            "dsa",
            "verify",
            "--pub",
            &theirs_pub,
            "--in",
            &d.at(msg),
            "--sig",
            &d.at(sig),
            "--hash",
            hash,
        ]);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (1, "Verification failure\n", "")
        );
    }
}

#[test]
fn keys_cross_in_every_form() {
    if !have_openssl("keys_cross_in_every_form") {
        return;
    }
    let d = Dir::new();
    let theirs = pk_data("dsa_2048_256.pem");
    let want_pub = std::fs::read_to_string(pk_data("dsa_2048_256.pub.pem")).unwrap();
    // Every form OpenSSL writes, read by montmul.
    openssl_ok(&[
        "pkey",
        "-in",
        &theirs,
        "-outform",
        "DER",
        "-out",
        &d.at("k8.der"),
    ]);
    openssl_ok(&[
        "pkey",
        "-in",
        &theirs,
        "-traditional",
        "-out",
        &d.at("trad.pem"),
    ]);
    openssl_ok(&[
        "pkey",
        "-in",
        &theirs,
        "-traditional",
        "-outform",
        "DER",
        "-out",
        &d.at("trad.der"),
    ]);
    openssl_ok(&[
        "pkey",
        "-in",
        &theirs,
        "-pubout",
        "-outform",
        "DER",
        "-out",
        &d.at("pub.der"),
    ]);
    for form in [
        theirs.clone(),
        d.at("k8.der"),
        d.at("trad.pem"),
        d.at("trad.der"),
    ] {
        ok(&["dsa", "pub", "--key", &form, "--out", &d.at("p.pem")]);
        assert_eq!(
            std::fs::read_to_string(d.path("p.pem")).unwrap(),
            want_pub,
            "{form}"
        );
    }
    ok(&[
        "dsa",
        "sign",
        "--key",
        &theirs,
        "--in",
        &theirs,
        "--out",
        &d.at("s"),
    ]);
    assert_eq!(
        ok(&[
            "dsa",
            "verify",
            "--pub",
            &d.at("pub.der"),
            "--in",
            &theirs,
            "--sig",
            &d.at("s")
        ]),
        "Verified OK\n"
    );
    // montmul's forms, read by OpenSSL: PKCS #8 PEM and DER, public PEM and DER.
    ok(&[
        "dsa",
        "keygen",
        "--params",
        &pk_data("dsa_3072_256.params.pem"),
        "--out",
        &d.at("m.pem"),
    ]);
    ok(&[
        "dsa",
        "keygen",
        "--params",
        &pk_data("dsa_3072_256.params.pem"),
        "--der",
        "--out",
        &d.at("m.der"),
    ]);
    ok(&[
        "dsa",
        "pub",
        "--key",
        &d.at("m.pem"),
        "--out",
        &d.at("m.pub"),
    ]);
    ok(&[
        "dsa",
        "pub",
        "--key",
        &d.at("m.der"),
        "--der",
        "--out",
        &d.at("m.pub.der"),
    ]);
    let pem = std::fs::read_to_string(d.path("m.pem")).unwrap();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----\n"));
    let theirs_says = openssl_ok(&["pkey", "-in", &d.at("m.pem"), "-pubout"]);
    assert_eq!(theirs_says, std::fs::read(d.path("m.pub")).unwrap());
    // OpenSSL writes our PKCS #8 back byte for byte.
    assert_eq!(openssl_ok(&["pkey", "-in", &d.at("m.pem")]), pem.as_bytes());
    let der_pub = openssl_ok(&[
        "pkey",
        "-inform",
        "DER",
        "-in",
        &d.at("m.der"),
        "-pubout",
        "-outform",
        "DER",
    ]);
    assert_eq!(der_pub, std::fs::read(d.path("m.pub.der")).unwrap());
    openssl_ok(&[
        "pkey",
        "-pubin",
        "-inform",
        "DER",
        "-in",
        &d.at("m.pub.der"),
        "-noout",
    ]);
    // Parameters: montmul's from `dsa params` are not generated here (seconds); OpenSSL
    // reads those montmul-pk's test writes.
}

#[test]
fn bad_input_is_one_error_line_and_status_2() {
    let d = Dir::new();
    let key = std::fs::read_to_string(pk_data("dsa_2048_256.pem")).unwrap();
    std::fs::write(d.path("cut.pem"), &key[..key.len() / 2]).unwrap();
    std::fs::write(d.path("msg"), b"m").unwrap();
    let dh_key = pk_data("dh_ffdhe2048_a.pem");
    let public = pk_data("dsa_2048_256.pub.pem");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "dsa".into(),
                "sign".into(),
                "--key".into(),
                d.at("cut.pem"),
                "--in".into(),
                d.at("msg"),
                "--out".into(),
                d.at("s"),
            ],
            "cannot read key or parameters: PEM",
        ),
        (
            vec![
                "dsa".into(),
                "sign".into(),
                "--key".into(),
                dh_key.clone(),
                "--in".into(),
                d.at("msg"),
                "--out".into(),
                d.at("s"),
            ],
            "not a DSA key",
        ),
        (
            vec![
                "dsa".into(),
                "sign".into(),
                "--key".into(),
                public.clone(),
                "--in".into(),
                d.at("msg"),
                "--out".into(),
                d.at("s"),
            ],
            "expected a DSA private key, found PUBLIC KEY",
        ),
        (
            vec![
                "dsa".into(),
                "verify".into(),
                "--pub".into(),
                dh_key.clone(),
                "--in".into(),
                d.at("msg"),
                "--sig".into(),
                d.at("msg"),
            ],
            "expected PUBLIC KEY, found PRIVATE KEY",
        ),
        (
            vec![
                "dsa".into(),
                "keygen".into(),
                "--params".into(),
                public.clone(),
                "--out".into(),
                d.at("k"),
            ],
            "expected DSA PARAMETERS, found PUBLIC KEY",
        ),
        (
            vec![
                "dsa".into(),
                "keygen".into(),
                "--bits".into(),
                "3072".into(),
                "--qbits".into(),
                "224".into(),
                "--out".into(),
                d.at("k"),
            ],
            "key size 224 bits is outside 256..=256",
        ),
    ];
    for (args, part) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused_saying(&args, part);
    }
    // Nothing was written.
    assert!(!d.path("s").exists() && !d.path("k").exists());
}
