//! RSASSA-PSS signatures (RFC 8017 section 8.1, EMSA-PSS of 9.1) with MGF1.
//!
//! Salt length: [`RsaPrivateKey::sign_pss`] uses a salt as long as the hash, the
//! choice RFC 8017 and FIPS 186-5 recommend and what `openssl dgst -sigopt
//! rsa_padding_mode:pss -sigopt rsa_pss_saltlen:digest` writes. OpenSSL 3.0's own default
//! when signing is the longest salt that fits (`rsa_pss_saltlen:max`), so
//! [`RsaPublicKey::verify_pss`] recovers the salt length from the block, as
//! `rsa_pss_saltlen:auto` does, and accepts both; [`RsaPublicKey::verify_pss_with`]
//! checks one length exactly.
//!
//! Signing is constant-time in the key; the salt is random and public once the
//! signature is. Verification is variable-time in public data only.

use rand_core::CryptoRngCore;
use sha2::Digest;
use zeroize::Zeroizing;

use super::{RsaPrivateKey, RsaPublicKey};
use crate::mgf::mgf1_xor;
use crate::Error;

/// `H = Hash(00 x 8 || mHash || salt)`, M' of RFC 8017 9.1.1 step 5.
fn m_prime_hash<D: Digest>(m_hash: &[u8], salt: &[u8]) -> Vec<u8> {
    let mut h = D::new();
    h.update([0u8; 8]);
    h.update(m_hash);
    h.update(salt);
    h.finalize().to_vec()
}

/// EMSA-PSS-ENCODE (RFC 8017 9.1.1) into `em_bits` bits, hash `D`, MGF1 with `M`.
fn encode<D: Digest, M: Digest>(
    m_hash: &[u8],
    em_bits: usize,
    salt: &[u8],
) -> Result<Vec<u8>, Error> {
    let h_len = <D as Digest>::output_size();
    let em_len = em_bits.div_ceil(8);
    if m_hash.len() != h_len {
        return Err(Error::InvalidLength);
    }
    if em_len < h_len + salt.len() + 2 {
        return Err(Error::MessageTooLong);
    }
    let h = m_prime_hash::<D>(m_hash, salt);
    let db_len = em_len - h_len - 1;
    // DB = PS || 01 || salt, masked.
    let mut em = vec![0u8; em_len];
    em[db_len - salt.len() - 1] = 1;
    em[db_len - salt.len()..db_len].copy_from_slice(salt);
    mgf1_xor::<M>(&mut em[..db_len], &h);
    em[0] &= 0xff >> (8 * em_len - em_bits);
    em[db_len..em_len - 1].copy_from_slice(&h);
    em[em_len - 1] = 0xbc;
    Ok(em)
}

/// EMSA-PSS-VERIFY (RFC 8017 9.1.2): whether `em` (em_bits bits) encodes `m_hash`, with
/// a salt of `salt_len` bytes, or of any length when `None`.
fn verify<D: Digest, M: Digest>(
    m_hash: &[u8],
    em: &[u8],
    em_bits: usize,
    salt_len: Option<usize>,
) -> bool {
    let h_len = <D as Digest>::output_size();
    let em_len = em_bits.div_ceil(8);
    if m_hash.len() != h_len
        || em.len() != em_len
        || em_len < h_len + salt_len.unwrap_or(0) + 2
        || em[em_len - 1] != 0xbc
    {
        return false;
    }
    let top_mask = 0xffu8 >> (8 * em_len - em_bits);
    if em[0] & !top_mask != 0 {
        return false;
    }
    let db_len = em_len - h_len - 1;
    let h = &em[db_len..em_len - 1];
    let mut db = em[..db_len].to_vec();
    mgf1_xor::<M>(&mut db, h);
    db[0] &= top_mask;
    // DB = 00..00 01 salt.
    let Some(one) = db.iter().position(|&b| b != 0) else {
        return false;
    };
    if db[one] != 1 {
        return false;
    }
    let salt = &db[one + 1..];
    if salt_len.is_some_and(|s| s != salt.len()) {
        return false;
    }
    m_prime_hash::<D>(m_hash, salt) == h
}

impl RsaPrivateKey {
    /// RSASSA-PSS-SIGN of `msg` with hash `D`, MGF1 with `D`, and a random salt as
    /// long as the hash (RFC 8017 8.1.1). Constant-time in the key.
    pub fn sign_pss<D: Digest>(
        &self,
        msg: &[u8],
        rng: &mut impl CryptoRngCore,
    ) -> Result<Vec<u8>, Error> {
        self.sign_pss_with::<D, D>(&D::digest(msg), <D as Digest>::output_size(), rng)
    }

    /// RSASSA-PSS-SIGN of a hash value `m_hash` of `D`, MGF1 with `M`, with a random
    /// salt of `salt_len` bytes. [`Error::MessageTooLong`] when the salt does not fit
    /// the key, [`Error::InvalidLength`] when `m_hash` is not `D`'s output length.
    pub fn sign_pss_with<D: Digest, M: Digest>(
        &self,
        m_hash: &[u8],
        salt_len: usize,
        rng: &mut impl CryptoRngCore,
    ) -> Result<Vec<u8>, Error> {
        let mut salt = vec![0u8; salt_len];
        rng.try_fill_bytes(&mut salt).map_err(|_| Error::Rng)?;
        let em_bits = self.bits() - 1;
        let em = encode::<D, M>(m_hash, em_bits, &salt)?;
        // EM has em_bits < bits(n) bits: below n once padded to k bytes.
        let mut padded = Zeroizing::new(vec![0u8; self.size() - em.len()]);
        padded.extend_from_slice(&em);
        let x = self.public_key().residue(&padded)?;
        Ok(self.private_op(&x, rng)?.to_be_bytes_padded(self.size())?)
    }
}

impl RsaPublicKey {
    /// RSASSA-PSS-VERIFY of `sig` on `msg` with hash `D` and MGF1 with `D`, the salt
    /// length recovered from the signature (any length, as OpenSSL's
    /// `rsa_pss_saltlen:auto`). `Ok(())` when valid, [`Error::Verification`] when not,
    /// [`Error::InvalidLength`] for a signature that is not k bytes or not below n.
    pub fn verify_pss<D: Digest>(&self, msg: &[u8], sig: &[u8]) -> Result<(), Error> {
        self.verify_pss_with::<D, D>(&D::digest(msg), sig, None)
    }

    /// RSASSA-PSS-VERIFY of `sig` on the hash value `m_hash` of `D`, MGF1 with `M`,
    /// with a salt of exactly `salt_len` bytes, or any length when `None`.
    /// Variable-time (public data).
    pub fn verify_pss_with<D: Digest, M: Digest>(
        &self,
        m_hash: &[u8],
        sig: &[u8],
        salt_len: Option<usize>,
    ) -> Result<(), Error> {
        let s = self.residue(sig)?;
        let m = self.public_op(&s).to_be_bytes_padded(self.size())?;
        let em_bits = self.bits() - 1;
        let em_len = em_bits.div_ceil(8);
        // m < 2^em_bits is checked by `verify` on em's top bits; the bytes above em_len
        // (one when bits(n) = 1 mod 8) must be zero.
        let (high, em) = m.split_at(m.len() - em_len);
        if high.iter().any(|&b| b != 0) || !verify::<D, M>(m_hash, em, em_bits, salt_len) {
            return Err(Error::Verification);
        }
        Ok(())
    }
}
