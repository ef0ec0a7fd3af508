//! Finite-field Diffie-Hellman (PKCS #3, SP 800-56A's FFC DH primitive) over the named
//! groups of RFC 7919 and RFC 3526, or over parameters read from a PEM file.
//!
//! A private key is an exponent x, its public value y = g^x mod p; the shared secret
//! with a peer's y' is y'^x mod p, written as exactly as many bytes as p has (I2OSP,
//! leading zeros kept, as TLS 1.3 and RFC 7919 want). Every operation on x is
//! constant-time (`Residue::pow`, whose work depends on the exponent's byte length
//! only). Peer values are checked before use (SP 800-56A 5.6.2.3.1): 2 <= y' <= p - 2,
//! and y'^q = 1 mod p where q is known, which it is for every named group (their
//! primes are safe: q = (p - 1) / 2, so the test is whether y' is a square mod p, and
//! the Legendre symbol answers it). Those checks are on public data and variable-time.
//!
//! Private exponents are drawn as OpenSSL 3.0 draws them (`ossl_ffc_generate_private_key`
//! and `dh_key.c`): in a named group, uniformly in [1, 2^N - 1] with N the group's
//! length ([`DhGroup::private_bits`]); with a `privateValueLength` in the parameters, N
//! is that; else with q known, uniformly in [1, q - 1]; else N = bits(p) - 1.
//!
//! From the second key made with one [`DhParams`] (or its clones) on, y = g^x reads g's
//! precomputed powers instead of squaring ([`montmul::FixedBase`]; 32 values for each 5
//! bits of the private exponent's length).

mod encoding;
pub(crate) mod ffc;
mod groups;
mod jacobi;

use core::fmt;
use std::sync::Arc;

use montmul::{Modulus, Residue};
use rand_core::CryptoRngCore;
use zeroize::Zeroizing;

pub use groups::DhGroup;

use crate::generator_powers::GeneratorPowers;
use crate::Error;
use montmul::ct::declassify;

/// The smallest prime accepted, in bits (OpenSSL 3.0's `DH_MIN_MODULUS_BITS` is 512).
pub const MIN_BITS: usize = 512;
/// The largest prime accepted, in bits (OpenSSL's `OPENSSL_DH_MAX_MODULUS_BITS`).
pub const MAX_BITS: usize = 10_000;

/// Domain parameters: a prime p, a generator g, and where known the order q of g.
#[derive(Clone)]
pub struct DhParams {
    p: Modulus<u64>,
    p_be: Vec<u8>,
    g_be: Vec<u8>,
    q_be: Option<Vec<u8>>,
    group: Option<DhGroup>,
    private_len: Option<usize>,
    /// g's powers, made at the second key generated (`generator_powers.rs`).
    g_powers: Arc<GeneratorPowers>,
}

impl fmt::Debug for DhParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DhParams")
            .field("bits", &self.bits())
            .field("group", &self.group)
            .field("q_known", &self.q_be.is_some())
            .finish()
    }
}

impl PartialEq for DhParams {
    fn eq(&self, other: &Self) -> bool {
        self.p_be == other.p_be && self.g_be == other.g_be && self.q_be == other.q_be
    }
}

impl Eq for DhParams {}

impl DhParams {
    /// The parameters of a named group, q = (p - 1) / 2 included.
    pub fn group(group: DhGroup) -> Self {
        let p_be = group.prime();
        // q = (p - 1) / 2 = p >> 1 for an odd p.
        let mut q = Vec::with_capacity(p_be.len());
        let mut carry = 0u8;
        for &b in &p_be {
            q.push(carry << 7 | b >> 1);
            carry = b & 1;
        }
        let q = ffc::trim_vartime(&q).to_vec();
        // The named primes are valid odd moduli (checked by the tests for every group).
        let p = Modulus::from_be_bytes(&p_be).unwrap_or_else(|e| unreachable!("{e}"));
        DhParams {
            p,
            p_be,
            g_be: vec![group.generator()],
            q_be: Some(q),
            group: Some(group),
            private_len: Some(group.private_bits()),
            g_powers: Arc::default(),
        }
    }

    /// Parameters from big-endian p, g and optionally q, checked (variable-time, public
    /// data): p odd of [`MIN_BITS`]..=[`MAX_BITS`] bits, 1 < g < p - 1, and where q is
    /// given, 1 < q < p, q | p - 1 and g^q = 1 mod p. The primality of p and q is not
    /// tested (as OpenSSL does not on load). Parameters equal to a named group's are
    /// that group (its q and private-key length included).
    pub fn new(p: &[u8], g: &[u8], q: Option<&[u8]>) -> Result<Self, Error> {
        let p = ffc::trim_vartime(p);
        let g = ffc::trim_vartime(g);
        let bits = ffc::bits_vartime(p);
        if !(MIN_BITS..=MAX_BITS).contains(&bits) {
            return Err(Error::KeySize {
                bits,
                min: MIN_BITS,
                max: MAX_BITS,
            });
        }
        if let Some(group) = DhGroup::ALL.into_iter().find(|gr| gr.prime() == p) {
            let named = Self::group(group);
            let q_matches =
                q.is_none_or(|q| ffc::trim_vartime(q) == named.q_be.as_deref().unwrap_or(&[]));
            if g == named.g_be.as_slice() && q_matches {
                return Ok(named);
            }
        }
        let modulus = ffc::modulus_vartime(p, "the DH prime p is even")?;
        if !ffc::in_open_range_vartime(g, p) {
            return Err(Error::InvalidKey("the DH generator is not in 2..p-2"));
        }
        let q_be = match q {
            None => None,
            Some(q) => {
                let q = ffc::trim_vartime(q);
                if ffc::cmp_vartime(q, p) != core::cmp::Ordering::Less {
                    return Err(Error::InvalidKey("the DH subgroup order q is not below p"));
                }
                let qm = ffc::modulus_vartime(q, "the DH subgroup order q is even")?;
                if !ffc::divides_p_minus_one_vartime(&qm, p) {
                    return Err(Error::InvalidKey(
                        "the DH subgroup order q does not divide p - 1",
                    ));
                }
                let gr = Residue::from_be_bytes(&modulus, g)?;
                if !ffc::in_subgroup_vartime(&gr, q) {
                    return Err(Error::InvalidKey("the DH generator's order is not q"));
                }
                Some(q.to_vec())
            }
        };
        Ok(DhParams {
            p: modulus,
            p_be: p.to_vec(),
            g_be: g.to_vec(),
            q_be,
            group: None,
            private_len: None,
            g_powers: Arc::default(),
        })
    }

    /// The named group these parameters are, if any.
    pub fn named_group(&self) -> Option<DhGroup> {
        self.group
    }

    /// The prime p, big-endian without leading zeros.
    pub fn p(&self) -> &[u8] {
        &self.p_be
    }

    /// The generator g, big-endian without leading zeros.
    pub fn g(&self) -> &[u8] {
        &self.g_be
    }

    /// The order q of g where known, big-endian without leading zeros.
    pub fn q(&self) -> Option<&[u8]> {
        self.q_be.as_deref()
    }

    /// The size of p in bits.
    pub fn bits(&self) -> usize {
        self.p.bits() as usize
    }

    /// The size of p in bytes: the length of every shared secret.
    pub fn size(&self) -> usize {
        self.p.byte_len()
    }

    /// The `privateValueLength` of PKCS #3, as read or as the named group sets it.
    pub fn private_value_length(&self) -> Option<usize> {
        self.private_len
    }

    /// Sets the length in bits of the private exponents drawn with these parameters
    /// (PKCS #3 `privateValueLength`); [`Error::KeySize`] outside 2..bits(p).
    pub fn with_private_value_length(mut self, bits: usize) -> Result<Self, Error> {
        let max = self.bits() - 1;
        if !(2..=max).contains(&bits) {
            return Err(Error::KeySize { bits, min: 2, max });
        }
        self.private_len = Some(bits);
        // g's powers are made for the exponents' length: made again for the new one.
        self.g_powers = Arc::default();
        Ok(self)
    }
}

/// A Diffie-Hellman private key: the parameters and the exponent x. Its `Debug` prints
/// no secret; x is zeroized on drop.
#[derive(Clone)]
pub struct DhPrivateKey {
    params: DhParams,
    /// x, big-endian, at a length that depends on the parameters only (see
    /// [`exponent_len`]).
    x: Zeroizing<Vec<u8>>,
    y: Vec<u8>,
}

impl fmt::Debug for DhPrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DhPrivateKey")
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

/// A Diffie-Hellman public key: the parameters and y = g^x mod p, checked.
#[derive(Clone)]
pub struct DhPublicKey {
    params: DhParams,
    y: Residue<u64>,
    y_be: Vec<u8>,
}

/// The byte length at which exponents are stored and raised: the bound of the
/// private-key range of the parameters, so that the time of `pow` depends on the
/// parameters only.
fn exponent_len(params: &DhParams) -> usize {
    match (params.private_len, &params.q_be) {
        (Some(bits), _) => bits.div_ceil(8),
        (None, Some(q)) => q.len(),
        (None, None) => (params.bits() - 1).div_ceil(8),
    }
}

/// A uniformly random exponent in [1, 2^bits - 1], as `len >= ceil(bits / 8)` bytes.
/// Constant-time in the value: the only branch is on whether the draw was zero (a
/// retry with probability 2^-bits).
fn random_bits(
    bits: usize,
    len: usize,
    rng: &mut impl CryptoRngCore,
) -> Result<Zeroizing<Vec<u8>>, Error> {
    let n = bits.div_ceil(8);
    let mut x = Zeroizing::new(vec![0u8; len]);
    loop {
        rng.try_fill_bytes(&mut x[len - n..])
            .map_err(|_| Error::Rng)?;
        x[len - n] &= (0xffu16 >> (8 * n - bits)) as u8;
        let any = x.iter().fold(0u8, |acc, &b| acc | b);
        if core::hint::black_box(any) != 0 {
            return Ok(x);
        }
    }
}

impl DhPrivateKey {
    /// A fresh key pair with `params` (the exponent drawn as the module documentation
    /// says). Constant-time in the exponent.
    pub fn generate(params: &DhParams, rng: &mut impl CryptoRngCore) -> Result<Self, Error> {
        let len = exponent_len(params);
        let x = match (params.private_len, &params.q_be) {
            (Some(bits), _) => random_bits(bits, len, rng)?,
            (None, Some(q)) => {
                let qm = Modulus::<u64>::from_be_bytes(q)?;
                loop {
                    let r = Residue::random(&qm, rng);
                    if r.ct_is_zero() == 0 {
                        break Zeroizing::new(r.to_be_bytes_padded(len)?);
                    }
                }
            }
            (None, None) => random_bits(params.bits() - 1, len, rng)?,
        };
        Ok(Self::from_exponent(params.clone(), x))
    }

    /// The key of parameters and a big-endian exponent x; [`Error::InvalidKey`] when
    /// x is 0 or not below q (where known), else not below p - 1. Constant-time in x:
    /// the range check is on residues, and only its outcome is revealed; the exponent
    /// is kept at the longer of the parameters' length and x's encoded length.
    pub fn from_components(params: DhParams, x: &[u8]) -> Result<Self, Error> {
        let invalid = Error::InvalidKey("the DH private value is out of range");
        let in_range = match &params.q_be {
            Some(q) => {
                let qm = Modulus::<u64>::from_be_bytes(q)?;
                Residue::from_be_bytes(&qm, x).is_ok_and(|r| declassify(r.ct_is_zero()) == 0)
            }
            None => {
                let pm1 = Residue::from_be_bytes_reduced(&params.p, &ffc::minus_one(&params.p_be));
                Residue::from_be_bytes(&params.p, x)
                    .is_ok_and(|r| declassify(r.ct_is_zero() | r.ct_eq(&pm1)) == 0)
            }
        };
        if !in_range {
            return Err(invalid);
        }
        let len = exponent_len(&params).max(x.len());
        let x = ffc::left_pad(x, len).ok_or(invalid)?;
        Ok(Self::from_exponent(params, x))
    }

    fn from_exponent(params: DhParams, x: Zeroizing<Vec<u8>>) -> Self {
        let g = Residue::from_be_bytes_reduced(&params.p, &params.g_be);
        // y is the public key: declassified as it leaves the constant-time power (by
        // g's precomputed powers from the second key of these parameters on).
        let gx = params.g_powers.pow(&g, exponent_len(&params), &x);
        let y = ffc::declassify_residue(&gx);
        DhPrivateKey { params, x, y }
    }

    /// The parameters.
    pub fn params(&self) -> &DhParams {
        &self.params
    }

    /// The public key y = g^x mod p.
    pub fn public_key(&self) -> DhPublicKey {
        let y = Residue::from_be_bytes_reduced(&self.params.p, &self.y);
        DhPublicKey {
            params: self.params.clone(),
            y,
            y_be: self.y.clone(),
        }
    }

    /// The exponent x, big-endian (padded to a length set by the parameters).
    pub fn x(&self) -> &[u8] {
        &self.x
    }

    /// The shared secret with a peer: peer_y^x mod p as exactly [`DhParams::size`]
    /// bytes (leading zeros kept). The peer's value was checked when its
    /// [`DhPublicKey`] was built; the parameters must be equal, else
    /// [`Error::InvalidKey`]. Constant-time in x and in the secret.
    pub fn derive(&self, peer: &DhPublicKey) -> Result<Zeroizing<Vec<u8>>, Error> {
        if peer.params != self.params {
            return Err(Error::InvalidKey(
                "the peer's DH parameters differ from ours",
            ));
        }
        let z = peer.y.pow(&self.x);
        // z = 1 only for a y of small order, which the checks exclude where q is known;
        // SP 800-56A 5.7.1.1 still asks for the test. It reveals nothing of x but that
        // the peer is malicious.
        if declassify(z.ct_eq(&Residue::one(&self.params.p))) == 1 {
            return Err(Error::OutOfRange);
        }
        Ok(Zeroizing::new(z.to_be_bytes_padded(self.params.size())?))
    }
}

impl fmt::Debug for DhPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DhPublicKey")
            .field("params", &self.params)
            .field("y", &montmul::encoding::be_bytes_to_hex_vartime(&self.y_be))
            .finish()
    }
}

impl PartialEq for DhPublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.params == other.params && self.y_be == other.y_be
    }
}

impl Eq for DhPublicKey {}

impl DhPublicKey {
    /// The public key y with `params`, checked (SP 800-56A 5.6.2.3.1, variable-time on
    /// public data): 2 <= y <= p - 2, and where q is known, y^q = 1 mod p (in a named
    /// group, whose p is 2q + 1, by the Legendre symbol: y is a square mod p); else
    /// [`Error::OutOfRange`].
    pub fn new(params: DhParams, y: &[u8]) -> Result<Self, Error> {
        let y = ffc::trim_vartime(y);
        if !ffc::in_open_range_vartime(y, &params.p_be) {
            return Err(Error::OutOfRange);
        }
        let yr = Residue::from_be_bytes(&params.p, y)?;
        if let Some(q) = &params.q_be {
            // A named group's p is a safe prime, 2q + 1: y^q = 1 exactly when y is a
            // square mod p (Euler's criterion), which the Legendre symbol tells faster.
            let in_subgroup = match params.group {
                Some(_) => ffc::is_square_mod_prime_vartime(y, &params.p_be),
                None => ffc::in_subgroup_vartime(&yr, q),
            };
            if !in_subgroup {
                return Err(Error::OutOfRange);
            }
        }
        Ok(DhPublicKey {
            params,
            y: yr,
            y_be: y.to_vec(),
        })
    }

    /// The parameters.
    pub fn params(&self) -> &DhParams {
        &self.params
    }

    /// y, big-endian without leading zeros.
    pub fn y(&self) -> &[u8] {
        &self.y_be
    }
}
