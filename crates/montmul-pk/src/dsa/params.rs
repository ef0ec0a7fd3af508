//! DSA domain parameters (p, q, g), FIPS 186-4 Sections 4.1 and 4.3: the type, the
//! sizes read, and the checks a set read from outside passes (variable-time: the
//! parameters are public). Generation is `generate.rs`; the DER forms `encoding.rs`.

use core::cmp::Ordering;
use core::fmt;
use std::sync::Arc;

use montmul::{Modulus, Residue};

use crate::dh::ffc;
use crate::generator_powers::GeneratorPowers;
use crate::Error;

/// The smallest p read, in bits (the 1024-bit keys of FIPS 186-2 and RFC 6979 A.2.1).
pub const MIN_P_BITS: usize = 1024;
/// The largest p read, in bits (OpenSSL's `OPENSSL_DSA_MAX_MODULUS_BITS`).
pub const MAX_P_BITS: usize = 10_000;
/// The smallest q read, in bits (FIPS 186-2's 160).
pub const MIN_Q_BITS: usize = 160;
/// The largest q read, in bits.
pub const MAX_Q_BITS: usize = 512;

/// DSA domain parameters p, q, g. Clones share g's precomputed powers, which signing
/// makes at its second signature ([`montmul::FixedBase`]).
#[derive(Clone)]
pub struct DsaParams {
    pub(super) p: Modulus<u64>,
    pub(super) q: Modulus<u64>,
    pub(super) p_be: Vec<u8>,
    pub(super) q_be: Vec<u8>,
    pub(super) g_be: Vec<u8>,
    pub(super) g: Residue<u64>,
    g_powers: Arc<GeneratorPowers>,
}

impl fmt::Debug for DsaParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DsaParams")
            .field("p_bits", &self.p_bits())
            .field("q_bits", &self.q_bits())
            .finish()
    }
}

impl PartialEq for DsaParams {
    fn eq(&self, other: &Self) -> bool {
        self.p_be == other.p_be && self.q_be == other.q_be && self.g_be == other.g_be
    }
}

impl Eq for DsaParams {}

impl DsaParams {
    /// Parameters from big-endian p, q, g, checked (variable-time, public data): p of
    /// [`MIN_P_BITS`]..=[`MAX_P_BITS`] bits and q of [`MIN_Q_BITS`]..=[`MAX_Q_BITS`]
    /// bits, both odd, q | p - 1, 1 < g < p and g^q = 1 mod p.
    pub fn new(p: &[u8], q: &[u8], g: &[u8]) -> Result<Self, Error> {
        let (p, q, g) = (
            ffc::trim_vartime(p),
            ffc::trim_vartime(q),
            ffc::trim_vartime(g),
        );
        let (pb, qb) = (ffc::bits_vartime(p), ffc::bits_vartime(q));
        if !(MIN_P_BITS..=MAX_P_BITS).contains(&pb) {
            return Err(Error::KeySize {
                bits: pb,
                min: MIN_P_BITS,
                max: MAX_P_BITS,
            });
        }
        if !(MIN_Q_BITS..=MAX_Q_BITS).contains(&qb) {
            return Err(Error::KeySize {
                bits: qb,
                min: MIN_Q_BITS,
                max: MAX_Q_BITS,
            });
        }
        let pm = ffc::modulus_vartime(p, "the DSA prime p is even")?;
        let qm = ffc::modulus_vartime(q, "the DSA prime q is even")?;
        if !ffc::divides_p_minus_one_vartime(&qm, p) {
            return Err(Error::InvalidKey("the DSA q does not divide p - 1"));
        }
        if ffc::cmp_vartime(g, &[1]) != Ordering::Greater
            || ffc::cmp_vartime(g, p) != Ordering::Less
        {
            return Err(Error::InvalidKey("the DSA generator is not in 2..p-1"));
        }
        let gr = Residue::from_be_bytes(&pm, g)?;
        if !ffc::in_subgroup_vartime(&gr, q) {
            return Err(Error::InvalidKey("the DSA generator's order is not q"));
        }
        Ok(DsaParams {
            p: pm,
            q: qm,
            p_be: p.to_vec(),
            q_be: q.to_vec(),
            g_be: g.to_vec(),
            g: gr,
            g_powers: Arc::default(),
        })
    }

    /// `g^k mod p` for an exponent of at most q's length (a nonce), constant-time in k:
    /// from the second call on these parameters (or a clone of them), by g's
    /// precomputed powers (`generator_powers.rs`; 416 KiB at p = 2048, q = 256 bits).
    pub(super) fn g_pow(&self, k: &[u8]) -> Residue<u64> {
        self.g_powers.pow(&self.g, self.q_len(), k)
    }

    /// p, big-endian without leading zeros.
    pub fn p(&self) -> &[u8] {
        &self.p_be
    }

    /// q, big-endian without leading zeros.
    pub fn q(&self) -> &[u8] {
        &self.q_be
    }

    /// g, big-endian without leading zeros.
    pub fn g(&self) -> &[u8] {
        &self.g_be
    }

    /// The size of p in bits (L).
    pub fn p_bits(&self) -> usize {
        self.p.bits() as usize
    }

    /// The size of q in bits (N).
    pub fn q_bits(&self) -> usize {
        self.q.bits() as usize
    }

    /// The byte length of q: of x, k, r and s.
    pub(super) fn q_len(&self) -> usize {
        self.q.byte_len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `g_pow` equals `Residue::pow` on every call; the powers are made by the second
    /// call and shared by clones.
    #[test]
    fn g_pow_makes_the_powers_at_the_second_call() {
        let params = DsaParams::from_pem(include_str!("../../tests/data/dsa_2048_256.params.pem"))
            .expect("the committed parameters");
        let clone = params.clone();
        let exps: [Vec<u8>; 4] = [
            vec![0x5a; 32],
            vec![0xff; 32],
            vec![0; 32],
            (1..=32).collect(),
        ];
        for (i, k) in exps.iter().enumerate() {
            assert_eq!(params.g_pow(k), params.g.pow(k), "call {i}");
            assert_eq!(params.g_powers.made(), i >= 1, "call {i}");
        }
        assert!(clone.g_powers.made());
        assert_eq!(clone.g_pow(&exps[0]), params.g.pow(&exps[0]));
        // A longer exponent than q's length takes the ladder.
        assert_eq!(params.g_pow(&[0x77; 40]), params.g.pow(&[0x77; 40]));
    }
}
