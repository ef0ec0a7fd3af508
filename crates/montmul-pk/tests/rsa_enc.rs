//! RSA encryption with keys: OAEP and PKCS #1 v1.5 round trips at 2048, 3072 and 4096
//! bits with the committed test keys (made by `openssl genpkey`, shared with the key tests), tampered ciphertexts,
//! and every bad-input class (wrong length, not below n, message too long). The raw RSA
//! step is checked against num-bigint's `modpow`, the independent oracle.

use montmul_pk::rsa::{oaep, pkcs1v15_enc, RsaPrivateKey, RsaPublicKey};
use montmul_pk::Error;
use num_bigint::BigUint;
use rand_core::{OsRng, RngCore};
use sha2::{Sha256, Sha384, Sha512};

const KEYS: [&str; 3] = [
    include_str!("data/rsa2048.pem"),
    include_str!("data/rsa3072.pem"),
    include_str!("data/rsa4096.pem"),
];

/// The private keys, and their public keys read back from SubjectPublicKeyInfo PEM.
fn keys() -> Vec<(RsaPrivateKey, RsaPublicKey)> {
    KEYS.iter()
        .map(|pem| {
            let private = RsaPrivateKey::from_pkcs8_pem(pem).expect("private key");
            let spki = private.to_public_key().to_public_key_pem().expect("SPKI");
            let public = RsaPublicKey::from_public_key_pem(&spki).expect("public key");
            (private, public)
        })
        .collect()
}

/// `m^e mod n` by num-bigint, as `k` bytes.
fn oracle_encrypt(key: &RsaPublicKey, m: &[u8]) -> Vec<u8> {
    let n = BigUint::from_bytes_be(key.n());
    let e = BigUint::from_bytes_be(key.e());
    let c = BigUint::from_bytes_be(m).modpow(&e, &n).to_bytes_be();
    let mut out = vec![0u8; key.size() - c.len()];
    out.extend_from_slice(&c);
    out
}

fn random_message(len: usize) -> Vec<u8> {
    let mut m = vec![0u8; len];
    OsRng.fill_bytes(&mut m);
    m
}

#[test]
fn pkcs1v15_round_trips() {
    for (private, public) in keys() {
        let k = public.size();
        let max = pkcs1v15_enc::max_message_len(k).unwrap();
        for len in [0, 1, 32, max] {
            let msg = random_message(len);
            let ct = public.encrypt_pkcs1v15(&mut OsRng, &msg).unwrap();
            assert_eq!(ct.len(), k);
            let out = private.decrypt_pkcs1v15(&mut OsRng, &ct).unwrap();
            assert_eq!(&out[..], &msg[..], "{} bits, {len} bytes", 8 * k);
        }
        // Two encryptions of one message differ (random padding).
        let a = public.encrypt_pkcs1v15(&mut OsRng, b"same").unwrap();
        let b = public.encrypt_pkcs1v15(&mut OsRng, b"same").unwrap();
        assert_ne!(a, b);
        assert_eq!(
            public
                .encrypt_pkcs1v15(&mut OsRng, &random_message(max + 1))
                .unwrap_err(),
            Error::MessageTooLong
        );
    }
}

/// A ciphertext made by the oracle from a hand-encoded message decrypts: the raw step
/// agrees with num-bigint.
#[test]
fn decryption_matches_the_num_bigint_oracle() {
    for (private, public) in keys() {
        let k = public.size();
        let em = pkcs1v15_enc::encode(&mut OsRng, b"oracle", k).unwrap();
        let ct = oracle_encrypt(&public, &em);
        assert_eq!(
            &private.decrypt_pkcs1v15(&mut OsRng, &ct).unwrap()[..],
            b"oracle"
        );
        let em = oaep::encode::<Sha256, Sha256>(&mut OsRng, b"oracle", b"L", k).unwrap();
        let ct = oracle_encrypt(&public, &em);
        assert_eq!(
            &private
                .decrypt_oaep::<Sha256>(&mut OsRng, &ct, b"L")
                .unwrap()[..],
            b"oracle"
        );
    }
}

#[test]
fn oaep_round_trips_over_hashes_and_labels() {
    for (private, public) in keys() {
        let k = public.size();
        for label in [&b""[..], b"a label"] {
            let max = oaep::max_message_len::<Sha256>(k).unwrap();
            for len in [0, 1, max] {
                let msg = random_message(len);
                let ct = public
                    .encrypt_oaep::<Sha256>(&mut OsRng, &msg, label)
                    .unwrap();
                let out = private
                    .decrypt_oaep::<Sha256>(&mut OsRng, &ct, label)
                    .unwrap();
                assert_eq!(&out[..], &msg[..]);
            }
            assert_eq!(
                public
                    .encrypt_oaep::<Sha256>(&mut OsRng, &random_message(max + 1), label)
                    .unwrap_err(),
                Error::MessageTooLong
            );
        }
        // OpenSSL's default: SHA-1 for the label and MGF1.
        let ct = public
            .encrypt_oaep::<sha1::Sha1>(&mut OsRng, b"sha1", b"")
            .unwrap();
        assert_eq!(
            &private
                .decrypt_oaep::<sha1::Sha1>(&mut OsRng, &ct, b"")
                .unwrap()[..],
            b"sha1"
        );
        // Label hash and MGF1 hash apart.
        let ct = public
            .encrypt_oaep_with_mgf::<Sha512, sha1::Sha1>(&mut OsRng, b"mixed", b"")
            .unwrap();
        assert_eq!(
            &private
                .decrypt_oaep_with_mgf::<Sha512, sha1::Sha1>(&mut OsRng, &ct, b"")
                .unwrap()[..],
            b"mixed"
        );
        assert_eq!(
            private
                .decrypt_oaep::<Sha512>(&mut OsRng, &ct, b"")
                .unwrap_err(),
            Error::Decryption
        );
        assert_eq!(
            private
                .decrypt_oaep::<Sha384>(&mut OsRng, &ct, b"")
                .unwrap_err(),
            Error::Decryption
        );
    }
}

/// Flipping any one of several bits of an OAEP ciphertext gives the one decryption error;
/// for PKCS #1 v1.5 it gives a message (implicit rejection), not the original one, and the
/// same message each time for the same ciphertext.
#[test]
fn tampered_ciphertexts() {
    let (private, public) = keys().remove(0);
    let k = public.size();
    let ct = public
        .encrypt_oaep::<Sha256>(&mut OsRng, b"tamper", b"")
        .unwrap();
    for i in [k - 1, k / 2, 1] {
        let mut bad = ct.clone();
        bad[i] ^= 0x04;
        assert_eq!(
            private
                .decrypt_oaep::<Sha256>(&mut OsRng, &bad, b"")
                .unwrap_err(),
            Error::Decryption,
            "byte {i}"
        );
    }
    let ct = public.encrypt_pkcs1v15(&mut OsRng, b"tamper").unwrap();
    for i in [k - 1, k / 2, 1] {
        let mut bad = ct.clone();
        bad[i] ^= 0x04;
        let first = private.decrypt_pkcs1v15(&mut OsRng, &bad).unwrap();
        let again = private.decrypt_pkcs1v15(&mut OsRng, &bad).unwrap();
        assert_ne!(&first[..], b"tamper");
        assert_eq!(first, again, "deterministic synthetic message");
        assert!(first.len() <= k - 11);
    }
}

/// Ciphertexts of the wrong length or not below n are refused with `InvalidLength`, in
/// both schemes; a message too long for the key is `MessageTooLong`.
#[test]
fn bad_lengths_and_values() {
    let (private, public) = keys().remove(0);
    let k = public.size();
    let n = public.n().to_vec();
    let mut n_padded = vec![0u8; k - n.len()];
    n_padded.extend_from_slice(&n);
    let mut n_plus_one = n_padded.clone();
    *n_plus_one.last_mut().unwrap() += 1; // n is odd: no carry
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("one byte short", vec![1u8; k - 1]),
        ("one byte long", vec![0u8; k + 1]),
        ("equal to n", n_padded),
        ("n + 1", n_plus_one),
        ("all ones", vec![0xff; k]),
    ];
    for (what, ct) in &cases {
        assert_eq!(
            private.decrypt_pkcs1v15(&mut OsRng, ct).unwrap_err(),
            Error::InvalidLength,
            "v1.5 {what}"
        );
        assert_eq!(
            private
                .decrypt_oaep::<Sha256>(&mut OsRng, ct, b"")
                .unwrap_err(),
            Error::InvalidLength,
            "OAEP {what}"
        );
    }
    // Zero and one are below n: they decrypt (to a synthetic message / an OAEP error).
    let zero = vec![0u8; k];
    assert!(private.decrypt_pkcs1v15(&mut OsRng, &zero).is_ok());
    assert_eq!(
        private
            .decrypt_oaep::<Sha256>(&mut OsRng, &zero, b"")
            .unwrap_err(),
        Error::Decryption
    );
    let long = vec![0u8; k];
    assert_eq!(
        public.encrypt_pkcs1v15(&mut OsRng, &long).unwrap_err(),
        Error::MessageTooLong
    );
    assert_eq!(
        public
            .encrypt_oaep::<Sha512>(&mut OsRng, &long, b"")
            .unwrap_err(),
        Error::MessageTooLong
    );
}
