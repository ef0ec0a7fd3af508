//! The Digital Signature Algorithm (FIPS 186-4 Section 4; FIPS 186-5 keeps it for
//! verification only, OpenSSL 3.0 still signs): parameters (p, q, g), keys (x, y =
//! g^x mod p), signatures (r, s) with RFC 6979 deterministic nonces, keys and
//! signatures in the forms OpenSSL writes.
//!
//! Signing is constant-time in x and k: g^k by `Residue::pow` (work set by q's byte
//! length), k^-1 by the constant-time `Residue::inv`, the products mod q on residues.
//! Verification works on public data only and is variable-time (`pow_vartime`,
//! `inv_vartime`). Keys are checked when built (q | p - 1, 1 < g < p, g^q = 1,
//! y = g^x, 0 < x < q); the primality of p and q is not retested on load (OpenSSL does
//! not either), and is by [`DsaParams::generate`].

mod encoding;
mod generate;
mod sign;

use core::cmp::Ordering;
use core::fmt;

use montmul::{Modulus, Residue};
use rand_core::CryptoRngCore;
use zeroize::Zeroizing;

pub use generate::{DsaSeed, SIZES};
pub use sign::DsaSignature;

use crate::dh::ffc;
use crate::Error;

/// The smallest p read, in bits (the 1024-bit keys of FIPS 186-2 and RFC 6979 A.2.1).
pub const MIN_P_BITS: usize = 1024;
/// The largest p read, in bits (OpenSSL's `OPENSSL_DSA_MAX_MODULUS_BITS`).
pub const MAX_P_BITS: usize = 10_000;
/// The smallest q read, in bits (FIPS 186-2's 160).
pub const MIN_Q_BITS: usize = 160;
/// The largest q read, in bits.
pub const MAX_Q_BITS: usize = 512;

/// DSA domain parameters p, q, g.
#[derive(Clone)]
pub struct DsaParams {
    p: Modulus<u64>,
    q: Modulus<u64>,
    p_be: Vec<u8>,
    q_be: Vec<u8>,
    g_be: Vec<u8>,
    g: Residue<u64>,
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
        })
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
    fn q_len(&self) -> usize {
        self.q.byte_len()
    }
}

/// A DSA private key: parameters, x and y = g^x mod p. Its `Debug` prints no secret;
/// x is zeroized on drop.
#[derive(Clone)]
pub struct DsaPrivateKey {
    params: DsaParams,
    /// x as exactly `q_len` big-endian bytes.
    x: Zeroizing<Vec<u8>>,
    public: DsaPublicKey,
}

impl fmt::Debug for DsaPrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DsaPrivateKey")
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

/// A DSA public key: parameters and y.
#[derive(Clone)]
pub struct DsaPublicKey {
    params: DsaParams,
    y: Residue<u64>,
    y_be: Vec<u8>,
}

impl fmt::Debug for DsaPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DsaPublicKey")
            .field("params", &self.params)
            .field("y", &montmul::encoding::be_bytes_to_hex_vartime(&self.y_be))
            .finish()
    }
}

impl PartialEq for DsaPublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.params == other.params && self.y_be == other.y_be
    }
}

impl Eq for DsaPublicKey {}

impl DsaPrivateKey {
    /// A fresh key with `params`: x uniformly in [1, q - 1] (FIPS 186-4 B.1.2, by
    /// rejection sampling), y = g^x mod p. Constant-time in x.
    pub fn generate(params: &DsaParams, rng: &mut impl CryptoRngCore) -> Result<Self, Error> {
        loop {
            let x = Residue::random(&params.q, rng);
            // x = 0 has probability 1/q: retried, as B.1.2 does.
            if x.ct_is_zero() == 0 {
                let x = Zeroizing::new(x.to_be_bytes_padded(params.q_len())?);
                return Ok(Self::from_valid_x(params.clone(), x));
            }
        }
    }

    /// The key of parameters and x; [`Error::InvalidKey`] when x is not in
    /// [1, q - 1] (a check whose result only is revealed). y is computed.
    pub fn from_components(params: DsaParams, x: &[u8]) -> Result<Self, Error> {
        let x = ffc::left_pad(x, params.q_len())
            .ok_or(Error::InvalidKey("the DSA x is not below q"))?;
        match Residue::from_be_bytes(&params.q, &x) {
            Ok(r) if crate::rsa::declassify(r.ct_is_zero()) == 0 => {
                Ok(Self::from_valid_x(params, x))
            }
            _ => Err(Error::InvalidKey("the DSA x is not in 1..q-1")),
        }
    }

    /// [`Self::from_components`] with y given too, checked against g^x
    /// ([`Error::InvalidKey`] when it differs).
    pub fn from_components_with_y(params: DsaParams, x: &[u8], y: &[u8]) -> Result<Self, Error> {
        let key = Self::from_components(params, x)?;
        if ffc::cmp_vartime(&key.public.y_be, y) != Ordering::Equal {
            return Err(Error::InvalidKey("the DSA y is not g^x mod p"));
        }
        Ok(key)
    }

    fn from_valid_x(params: DsaParams, x: Zeroizing<Vec<u8>>) -> Self {
        // y is the public key: declassified as it leaves the constant-time power, and
        // rebuilt from the public bytes, so that verification works on public data.
        let y_be = ffc::declassify_residue(&params.g.pow(&x));
        let y = Residue::from_be_bytes_reduced(&params.p, &y_be);
        DsaPrivateKey {
            public: DsaPublicKey {
                params: params.clone(),
                y,
                y_be,
            },
            params,
            x,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &DsaParams {
        &self.params
    }

    /// The public key.
    pub fn public_key(&self) -> DsaPublicKey {
        self.public.clone()
    }

    /// x, as many big-endian bytes as q has.
    pub fn x(&self) -> &[u8] {
        &self.x
    }
}

impl DsaPublicKey {
    /// The public key y with `params`, checked (FIPS 186-4 does not require it; SP
    /// 800-89 5.3.2 does): 1 < y < p and y^q = 1 mod p, else [`Error::InvalidKey`].
    /// Variable-time (public data).
    pub fn new(params: DsaParams, y: &[u8]) -> Result<Self, Error> {
        let y = ffc::trim_vartime(y);
        if ffc::cmp_vartime(y, &[1]) != Ordering::Greater
            || ffc::cmp_vartime(y, &params.p_be) != Ordering::Less
        {
            return Err(Error::InvalidKey("the DSA y is not in 2..p-1"));
        }
        let yr = Residue::from_be_bytes(&params.p, y)?;
        if !ffc::in_subgroup_vartime(&yr, &params.q_be) {
            return Err(Error::InvalidKey(
                "the DSA y is not in the subgroup of order q",
            ));
        }
        Ok(DsaPublicKey {
            params,
            y: yr,
            y_be: y.to_vec(),
        })
    }

    /// The parameters.
    pub fn params(&self) -> &DsaParams {
        &self.params
    }

    /// y, big-endian without leading zeros.
    pub fn y(&self) -> &[u8] {
        &self.y_be
    }
}
