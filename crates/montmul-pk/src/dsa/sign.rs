//! DSA signing and verification, FIPS 186-4 Sections 4.6 and 4.7, with the nonce of
//! RFC 6979 (`crate::rfc6979`); signatures as DER `SEQUENCE { r INTEGER, s INTEGER }`
//! (RFC 3279 `Dss-Sig-Value`, what `openssl dgst -sign` writes) or as IEEE P1363
//! `r || s`.

use core::cmp::Ordering;

use der::asn1::UintRef;
use der::{Decode, Encode, Sequence};
use hmac::digest::core_api::BlockSizeUser;
use hmac::digest::Digest;
use montmul::Residue;

use super::key::{DsaPrivateKey, DsaPublicKey};
use crate::dh::ffc;
use crate::rfc6979;
use crate::Error;

/// RFC 3279 `Dss-Sig-Value`.
#[derive(Sequence)]
struct DssSigValue<'a> {
    r: UintRef<'a>,
    s: UintRef<'a>,
}

/// A DSA signature (r, s), as big-endian values without leading zeros.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DsaSignature {
    r: Vec<u8>,
    s: Vec<u8>,
}

impl DsaSignature {
    /// The signature of r and s (big-endian; leading zeros dropped). Their range is
    /// checked by verification.
    pub fn new(r: &[u8], s: &[u8]) -> Self {
        DsaSignature {
            r: ffc::trim_vartime(r).to_vec(),
            s: ffc::trim_vartime(s).to_vec(),
        }
    }

    /// r, big-endian without leading zeros.
    pub fn r(&self) -> &[u8] {
        &self.r
    }

    /// s, big-endian without leading zeros.
    pub fn s(&self) -> &[u8] {
        &self.s
    }

    /// A DER `Dss-Sig-Value`. Strict DER: a BER form (long lengths, leading zeros, a
    /// negative integer, trailing bytes) is [`Error::Encoding`].
    pub fn from_der(der_bytes: &[u8]) -> Result<Self, Error> {
        let v = DssSigValue::from_der(der_bytes)?;
        Ok(Self::new(v.r.as_bytes(), v.s.as_bytes()))
    }

    /// The DER `Dss-Sig-Value`, as OpenSSL writes it.
    pub fn to_der(&self) -> Result<Vec<u8>, Error> {
        Ok(DssSigValue {
            r: UintRef::new(&self.r)?,
            s: UintRef::new(&self.s)?,
        }
        .to_der()?)
    }

    /// IEEE P1363 `r || s`, each `q_len` bytes; [`Error::InvalidLength`] for any other
    /// length.
    pub fn from_p1363(bytes: &[u8], q_len: usize) -> Result<Self, Error> {
        if bytes.len() != 2 * q_len || q_len == 0 {
            return Err(Error::InvalidLength);
        }
        let (r, s) = bytes.split_at(q_len);
        Ok(Self::new(r, s))
    }

    /// IEEE P1363 `r || s`, each `q_len` bytes; [`Error::InvalidLength`] when r or s
    /// does not fit.
    pub fn to_p1363(&self, q_len: usize) -> Result<Vec<u8>, Error> {
        let r = ffc::left_pad(&self.r, q_len).ok_or(Error::InvalidLength)?;
        let s = ffc::left_pad(&self.s, q_len).ok_or(Error::InvalidLength)?;
        Ok([r.as_slice(), s.as_slice()].concat())
    }
}

impl DsaPrivateKey {
    /// Signs `msg` hashed with `D`, the nonce by RFC 6979 with HMAC-`D`.
    /// Constant-time in x and k (module documentation of `dsa`).
    pub fn sign<D: Digest + BlockSizeUser>(&self, msg: &[u8]) -> Result<DsaSignature, Error> {
        self.sign_prehash::<D>(&D::digest(msg))
    }

    /// Signs a message hash computed with `D` (any length: its leftmost N bits are
    /// used, FIPS 186-4 4.6). Constant-time in x and k.
    ///
    /// r or s = 0 (probability about 2^-N each) is [`Error::FaultDetected`] rather
    /// than a retry with the next RFC 6979 nonce.
    ///
    /// From the second signature with the same parameters (the key's, shared by its
    /// clones), g^k reads g's precomputed powers instead of squaring: the second call
    /// makes them (416 KiB at p = 2048 bits, q = 256 bits).
    pub fn sign_prehash<D: Digest + BlockSizeUser>(
        &self,
        hash: &[u8],
    ) -> Result<DsaSignature, Error> {
        let params = &self.params;
        let (q, n) = (&params.q, params.q_bits());
        let (k, k_res) = rfc6979::generate_k::<D>(q, &self.x, hash);
        // r = (g^k mod p) mod q; g^k has p's byte length, reduced in constant time.
        let gk = zeroize::Zeroizing::new(params.g_pow(&k).to_be_bytes());
        let r = Residue::from_be_bytes_reduced(q, &gk);
        // z = the leftmost N bits of the hash, mod q.
        let z = Residue::from_be_bytes_reduced(q, &rfc6979::bits2int(hash, n));
        let x = Residue::from_be_bytes_reduced(q, &self.x);
        // 1 <= k < q and q prime: k is invertible.
        let k_inv = k_res.inv()?;
        let mut s = x.try_mul(&r)?;
        s.try_add_assign(&z)?;
        s.try_mul_assign(&k_inv)?;
        // r and s leave as the public signature: declassified here, at the end, so their
        // zero tests and their trimmed encoding reveal nothing more.
        let r = ffc::declassify_residue(&r);
        let s = ffc::declassify_residue(&s);
        if r.is_empty() || s.is_empty() {
            return Err(Error::FaultDetected);
        }
        Ok(DsaSignature { r, s })
    }
}

impl DsaPublicKey {
    /// Verifies a signature of `msg` hashed with `D`: `Ok(())`, or
    /// [`Error::Verification`]. Variable-time (public data).
    pub fn verify<D: Digest>(&self, msg: &[u8], sig: &DsaSignature) -> Result<(), Error> {
        self.verify_prehash(&D::digest(msg), sig)
    }

    /// Verifies a signature of a message hash (FIPS 186-4 4.7): 0 < r, s < q, w =
    /// s^-1, u1 = z w, u2 = r w mod q, v = (g^u1 y^u2 mod p) mod q = r. Variable-time
    /// (`verify` with `_vartime` arithmetic: public data only).
    pub fn verify_prehash(&self, hash: &[u8], sig: &DsaSignature) -> Result<(), Error> {
        let params = &self.params;
        let q = &params.q;
        let in_range = |v: &[u8]| {
            !ffc::trim_vartime(v).is_empty() && ffc::cmp_vartime(v, &params.q_be) == Ordering::Less
        };
        if !in_range(&sig.r) || !in_range(&sig.s) {
            return Err(Error::Verification);
        }
        let r = Residue::from_be_bytes(q, &sig.r)?;
        let s = Residue::from_be_bytes(q, &sig.s)?;
        let w = s.inv_vartime().map_err(|_| Error::Verification)?;
        let z = Residue::from_be_bytes_reduced(q, &rfc6979::bits2int(hash, params.q_bits()));
        let u1 = z.try_mul(&w)?.to_be_bytes_vartime();
        let u2 = r.try_mul(&w)?.to_be_bytes_vartime();
        // g^u1 y^u2 with one chain of squarings.
        let v = params.g.pow2_vartime(&u1, &self.y, &u2)?;
        let v = Residue::from_be_bytes_reduced(q, &v.to_be_bytes_vartime());
        if v.ct_eq(&r) == 1 {
            Ok(())
        } else {
            Err(Error::Verification)
        }
    }
}
