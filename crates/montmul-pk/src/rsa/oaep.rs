//! RSAES-OAEP encoding and decoding (RFC 8017, section 7.1, EME-OAEP in 7.1.1 step 2 and
//! 7.1.2 step 3), as pure functions on byte strings of the modulus length `k`.
//!
//! Decoding is the place of Manger's attack (CRYPTO 2001): a decoder that tells, by its
//! error or its timing, whether the first byte was zero lets an attacker decrypt. So
//! [`decode`] reads the whole encoded message, combines every check into one mask with
//! the constant-time helpers below, and returns a single [`Error::Decryption`] whatever
//! failed. The message is moved to the front of the buffer with a constant-time shift, so
//! that no memory index depends on where the separator was.
//!
//! The hash of the label and the hash inside MGF1 are separate type parameters: OpenSSL's
//! `pkeyutl` default is SHA-1 for both, and `rsa_oaep_md`/`rsa_mgf1_md` change them
//! apart.

use rand_core::CryptoRngCore;
use sha2::Digest;
use zeroize::Zeroizing;

use montmul::ct::declassify;

use super::{RsaPrivateKey, RsaPublicKey};
use crate::mgf::mgf1_xor;
use crate::Error;

impl RsaPublicKey {
    /// RSAES-OAEP encryption (RFC 8017 7.1.1) of `msg` under `label`, with hash `D` for
    /// both the label and MGF1 (OpenSSL's `pkeyutl` default is SHA-1: `D = sha1::Sha1`).
    ///
    /// Returns the `k`-byte ciphertext. Fails with [`Error::MessageTooLong`] when `msg` is
    /// longer than `k - 2 hLen - 2` bytes. Constant-time in the message's contents.
    pub fn encrypt_oaep<D: Digest>(
        &self,
        rng: &mut impl CryptoRngCore,
        msg: &[u8],
        label: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.encrypt_oaep_with_mgf::<D, D>(rng, msg, label)
    }

    /// RSAES-OAEP encryption with hash `D` for the label and `M` for MGF1 (OpenSSL's
    /// `rsa_oaep_md` and `rsa_mgf1_md`). As [`RsaPublicKey::encrypt_oaep`] otherwise.
    pub fn encrypt_oaep_with_mgf<D: Digest, M: Digest>(
        &self,
        rng: &mut impl CryptoRngCore,
        msg: &[u8],
        label: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let em = encode::<D, M>(rng, msg, label, self.size())?;
        self.encrypt_raw(&em)
    }
}

impl RsaPrivateKey {
    /// RSAES-OAEP decryption (RFC 8017 7.1.2) of the `k`-byte `ciphertext` under `label`,
    /// with hash `D` for both the label and MGF1; `rng` blinds the private operation.
    ///
    /// Fails with [`Error::InvalidLength`] when the ciphertext is not `k` bytes or not
    /// below n (public facts), and with the one [`Error::Decryption`] for any padding
    /// failure, whose timing does not say which check failed (Manger's attack).
    /// Constant-time in the key and the decrypted bytes.
    pub fn decrypt_oaep<D: Digest>(
        &self,
        rng: &mut impl CryptoRngCore,
        ciphertext: &[u8],
        label: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        self.decrypt_oaep_with_mgf::<D, D>(rng, ciphertext, label)
    }

    /// RSAES-OAEP decryption with hash `D` for the label and `M` for MGF1. As
    /// [`RsaPrivateKey::decrypt_oaep`] otherwise.
    pub fn decrypt_oaep_with_mgf<D: Digest, M: Digest>(
        &self,
        rng: &mut impl CryptoRngCore,
        ciphertext: &[u8],
        label: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        let em = self.decrypt_raw(ciphertext, rng)?;
        decode::<D, M>(&em, label, self.size())
    }
}

/// The longest message OAEP with hash `D` carries in a `k`-byte modulus:
/// `k - 2 hLen - 2` (RFC 8017 7.1.1 step 1b), or `None` when the modulus is too small
/// for the hash.
pub fn max_message_len<D: Digest>(k: usize) -> Option<usize> {
    k.checked_sub(2 * <D as Digest>::output_size() + 2)
}

/// EME-OAEP encoding (RFC 8017 7.1.1 step 2) of `msg` under `label` into `k` bytes, with
/// label hash `D` and mask hash `M` (MGF1), the seed drawn from `rng`.
///
/// Returns `EM = 0x00 || maskedSeed || maskedDB`. Fails with [`Error::MessageTooLong`]
/// when `msg` is longer than [`max_message_len`] (or the modulus is too small for the
/// hash). Constant-time in the message's contents; the work depends on the lengths.
pub fn encode<D: Digest, M: Digest>(
    rng: &mut impl CryptoRngCore,
    msg: &[u8],
    label: &[u8],
    k: usize,
) -> Result<Zeroizing<Vec<u8>>, Error> {
    let h_len = <D as Digest>::output_size();
    let max = max_message_len::<D>(k).ok_or(Error::MessageTooLong)?;
    if msg.len() > max {
        return Err(Error::MessageTooLong);
    }
    let mut em = Zeroizing::new(vec![0u8; k]);
    let (_, rest) = em.split_at_mut(1);
    let (seed, db) = rest.split_at_mut(h_len);
    // DB = lHash || PS (zeros) || 0x01 || M, of length k - hLen - 1.
    db[..h_len].copy_from_slice(&D::digest(label));
    let sep = db.len() - msg.len() - 1;
    db[sep] = 0x01;
    db[sep + 1..].copy_from_slice(msg);
    rng.try_fill_bytes(seed).map_err(|_| Error::Rng)?;
    mgf1_xor::<M>(db, seed);
    mgf1_xor::<M>(seed, db);
    Ok(em)
}

/// EME-OAEP decoding (RFC 8017 7.1.2 step 3) of the `k`-byte `em` under `label`, with
/// label hash `D` and mask hash `M`.
///
/// Constant-time: every byte of `em` is read and every check is folded into one mask; the
/// only branch is on the final verdict, and any failure (first byte not zero, label hash
/// different, no 0x01 separator after the zero padding, wrong length) is the same
/// [`Error::Decryption`]. On success the length of the message is, of course, revealed.
pub fn decode<D: Digest, M: Digest>(
    em: &[u8],
    label: &[u8],
    k: usize,
) -> Result<Zeroizing<Vec<u8>>, Error> {
    let h_len = <D as Digest>::output_size();
    // Public checks on lengths only.
    if em.len() != k || max_message_len::<D>(k).is_none() {
        return Err(Error::Decryption);
    }
    let mut buf = Zeroizing::new(em.to_vec());
    let (first, rest) = buf.split_at_mut(1);
    let (seed, db) = rest.split_at_mut(h_len);
    mgf1_xor::<M>(seed, db);
    mgf1_xor::<M>(db, seed);

    let l_hash = D::digest(label);
    let mut good = ct_is_zero_u8(first[0]);
    good &= ct_bytes_eq(&db[..h_len], &l_hash);

    // After lHash: zeros, then 0x01, then the message. `looking` stays all-ones while only
    // zeros have been seen; the first non-zero byte must be 0x01 and its index is kept.
    let mut looking = u64::MAX;
    let mut one_index = 0u64;
    let mut bad = 0u64;
    for (i, &b) in db.iter().enumerate().skip(h_len) {
        let is_zero = ct_is_zero_u8(b);
        let is_one = ct_is_zero_u8(b ^ 1);
        one_index = montmul::ct::select(looking & is_one, i as u64, one_index);
        bad |= looking & !is_zero & !is_one;
        looking &= is_zero;
    }
    good &= !looking & !bad;

    // The message starts after the separator; on failure take an empty tail (the index
    // is only used when `good` is set, but it is chosen by mask all the same).
    let start = montmul::ct::select(good, one_index + 1, db.len() as u64);
    let msg_len = ct_shift_to_front(db, start);
    // The verdict is the one secret-derived value revealed on failure; on success the
    // message, and so its length, is the output.
    if declassify(good) == 0 {
        return Err(Error::Decryption);
    }
    let msg_len = declassify(msg_len as u64) as usize;
    Ok(Zeroizing::new(db[..msg_len].to_vec()))
}

// Constant-time byte helpers, shared with the PKCS #1 v1.5 decoder. Masks are u64: all
// ones for true, zero for false, built on `montmul::ct` (which hides them from the
// optimiser).

/// All ones when `b == 0`, else zero. Constant-time.
#[inline]
pub(crate) fn ct_is_zero_u8(b: u8) -> u64 {
    montmul::ct::mask(montmul::ct::is_zero(&[u64::from(b)]))
}

/// All ones when `a < b`, else zero. Constant-time.
#[inline]
pub(crate) fn ct_lt(a: u64, b: u64) -> u64 {
    montmul::ct::mask(montmul::ct::borrow_of_sub(&[a], &[b]))
}

/// All ones when the equal-length slices are equal, else zero. Constant-time.
pub(crate) fn ct_bytes_eq(a: &[u8], b: &[u8]) -> u64 {
    debug_assert_eq!(a.len(), b.len());
    montmul::ct::mask(u64::from(montmul::ct::eq(a, b)))
}

/// Moves `buf[start..]` to the front of `buf` and returns its length `buf.len() - start`,
/// without a memory index that depends on `start`: `log2(len)` passes, each of which reads
/// every byte and shifts by `2^j` under a mask from bit `j` of `start` (the technique of
/// BoringSSL's RSA padding checks). Requires `start <= buf.len()`. Constant-time in
/// `start`; the returned length is the caller's to reveal.
pub(crate) fn ct_shift_to_front(buf: &mut [u8], start: u64) -> usize {
    let len = buf.len();
    debug_assert!(start <= len as u64);
    let mut shift = 1usize;
    let mut bit = 0u32;
    while shift < len {
        let take = montmul::ct::mask((start >> bit) & 1) as u8;
        for i in 0..len {
            let moved = if i + shift < len { buf[i + shift] } else { 0 };
            buf[i] = montmul::ct::select(take, moved, buf[i]);
        }
        shift <<= 1;
        bit += 1;
    }
    len - start as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Sha256;

    #[test]
    fn shift_to_front_matches_a_slice_copy() {
        for len in [1usize, 2, 3, 7, 8, 33, 256, 257] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 + 1) as u8).collect();
            for start in 0..=len {
                let mut buf = data.clone();
                let n = ct_shift_to_front(&mut buf, start as u64);
                assert_eq!(n, len - start);
                assert_eq!(&buf[..n], &data[start..], "len {len} start {start}");
            }
        }
    }

    #[test]
    fn masks() {
        assert_eq!(ct_is_zero_u8(0), u64::MAX);
        assert_eq!(ct_is_zero_u8(0x80), 0);
        assert_eq!(ct_lt(3, 4), u64::MAX);
        assert_eq!(ct_lt(4, 4), 0);
        assert_eq!(ct_lt(u64::MAX, 0), 0);
        assert_eq!(ct_bytes_eq(b"ab", b"ab"), u64::MAX);
        assert_eq!(ct_bytes_eq(b"ab", b"aa"), 0);
    }

    /// Round trips over hash pairs, labels and message lengths up to the maximum; one
    /// byte more is refused.
    #[test]
    fn round_trips_and_limits() {
        let k = 256;
        for len in [0usize, 1, 100, max_message_len::<Sha256>(k).unwrap()] {
            let msg: Vec<u8> = (0..len).map(|i| i as u8).collect();
            for label in [&b""[..], b"label"] {
                let em =
                    encode::<Sha256, sha1::Sha1>(&mut rand_core::OsRng, &msg, label, k).unwrap();
                let out = decode::<Sha256, sha1::Sha1>(&em, label, k).unwrap();
                assert_eq!(&out[..], &msg[..]);
            }
        }
        let long = vec![0u8; max_message_len::<sha2::Sha512>(k).unwrap() + 1];
        assert_eq!(
            encode::<sha2::Sha512, sha2::Sha512>(&mut rand_core::OsRng, &long, b"", k).unwrap_err(),
            Error::MessageTooLong
        );
        // A modulus too small for the hash: 2 * 64 + 2 > 129.
        assert_eq!(
            encode::<sha2::Sha512, sha2::Sha512>(&mut rand_core::OsRng, b"", b"", 129).unwrap_err(),
            Error::MessageTooLong
        );
        assert_eq!(
            decode::<sha2::Sha512, sha2::Sha512>(&[0u8; 129], b"", 129).unwrap_err(),
            Error::Decryption
        );
    }

    /// Re-masks a hand-built `DB` and seed into an encoded message.
    fn mask(seed: &[u8], db: &[u8]) -> Vec<u8> {
        let (mut seed, mut db) = (seed.to_vec(), db.to_vec());
        mgf1_xor::<Sha256>(&mut db, &seed);
        mgf1_xor::<Sha256>(&mut seed, &db);
        [&[0u8][..], &seed, &db].concat()
    }

    /// Every single corruption class gives the one error: first byte, label hash, a
    /// nonzero byte before the separator, separator missing, wrong label, wrong hash,
    /// wrong length.
    #[test]
    fn every_corruption_class_is_one_error() {
        let k = 128;
        let msg = b"secret";
        let seed = [0x5au8; 32];
        let mut db = vec![0u8; k - 33];
        db[..32].copy_from_slice(&Sha256::digest(b""));
        let sep = db.len() - msg.len() - 1;
        db[sep] = 1;
        db[sep + 1..].copy_from_slice(msg);
        let good = mask(&seed, &db);
        assert_eq!(&decode::<Sha256, Sha256>(&good, b"", k).unwrap()[..], msg);

        let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
        let mut bad = good.clone();
        bad[0] = 1;
        cases.push(("first byte", bad));
        for i in [0, 31] {
            let mut bad_db = db.clone();
            bad_db[i] ^= 1;
            cases.push(("label hash", mask(&seed, &bad_db)));
        }
        let mut bad_db = db.clone();
        bad_db[40] = 2;
        cases.push(("nonzero padding byte", mask(&seed, &bad_db)));
        let mut bad_db = db.clone();
        bad_db[sep] = 2;
        cases.push(("separator 0x02", mask(&seed, &bad_db)));
        let mut bad_db = db.clone();
        bad_db[sep] = 0;
        bad_db[sep + 1..].fill(0);
        cases.push(("no separator", mask(&seed, &bad_db)));
        for (what, bad) in &cases {
            assert_eq!(
                decode::<Sha256, Sha256>(bad, b"", k).unwrap_err(),
                Error::Decryption,
                "{what}"
            );
        }
        assert_eq!(
            decode::<Sha256, Sha256>(&good, b"x", k).unwrap_err(),
            Error::Decryption
        );
        assert_eq!(
            decode::<Sha256, sha1::Sha1>(&good, b"", k).unwrap_err(),
            Error::Decryption
        );
        assert_eq!(
            decode::<Sha256, Sha256>(&good[1..], b"", k).unwrap_err(),
            Error::Decryption
        );
    }

    /// The encoding has the layout of RFC 8017 7.1.1: unmasking it by hand with MGF1
    /// shows 0x00, lHash, zeros, 0x01, M.
    #[test]
    fn encoding_layout() {
        let k = 128;
        let msg = b"layout";
        let em = encode::<Sha256, Sha256>(&mut rand_core::OsRng, msg, b"L", k).unwrap();
        assert_eq!(em.len(), k);
        assert_eq!(em[0], 0);
        let mut seed = em[1..33].to_vec();
        let mut db = em[33..].to_vec();
        mgf1_xor::<Sha256>(&mut seed, &db);
        mgf1_xor::<Sha256>(&mut db, &seed);
        assert_eq!(&db[..32], &Sha256::digest(b"L")[..]);
        let sep = db.len() - msg.len() - 1;
        assert!(db[32..sep].iter().all(|&b| b == 0));
        assert_eq!(db[sep], 1);
        assert_eq!(&db[sep + 1..], msg);
    }
}
