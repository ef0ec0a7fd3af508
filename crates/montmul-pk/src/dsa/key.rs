//! DSA keys, FIPS 186-4 Sections 4.1 and 4.4: the private key (x, with y = g^x mod p)
//! and the public key (y) over their [`DsaParams`], their generation (FIPS 186-4 B.1.2)
//! and the checks of a key read from outside. Signing and verification are `sign.rs`;
//! the PEM/DER forms `encoding.rs`.

use core::cmp::Ordering;
use core::fmt;

use montmul::Residue;
use rand_core::CryptoRngCore;
use zeroize::Zeroizing;

use super::params::DsaParams;
use crate::dh::ffc;
use crate::Error;

/// A DSA private key: parameters, x and y = g^x mod p. Its `Debug` prints no secret;
/// x is zeroized on drop.
#[derive(Clone)]
pub struct DsaPrivateKey {
    pub(super) params: DsaParams,
    /// x as exactly `q_len` big-endian bytes.
    pub(super) x: Zeroizing<Vec<u8>>,
    pub(super) public: DsaPublicKey,
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
    pub(super) params: DsaParams,
    pub(super) y: Residue<u64>,
    pub(super) y_be: Vec<u8>,
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
            Ok(r) if montmul::ct::declassify(r.ct_is_zero()) == 0 => {
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
