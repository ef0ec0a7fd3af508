//! The RSA key types: [`RsaPublicKey`] (n, e) and [`RsaPrivateKey`] (n, e, d, p, q and
//! the CRT numbers), their checks, and the raw public operation.
//!
//! Seed: RFC 8017 (PKCS #1 v2.2) sections 3.1-3.2 (key representations) and 5.1.1
//! (RSAEP: `c = m^e mod n`, with `m` refused unless below n). A key builds its
//! [`Modulus`] for n (and, private, for p and q) once and keeps it.

use std::fmt;
use std::sync::Mutex;

use montmul::{ct, Modulus, Residue};
use zeroize::Zeroizing;

use super::keygen::{div_rem, eq, limbs, minus_one, mul, to_be};
use super::private::{declassify, Blinding, CrtHalves};
use crate::Error;

/// The smallest modulus a key may have when it is read or built, in bits.
pub const LOAD_MIN_BITS: usize = 1024;
/// The largest modulus a key may have, in bits (the core's limit).
pub const LOAD_MAX_BITS: usize = montmul::MAX_BITS as usize;

/// `x` without its leading zero bytes. Variable-time in the length of the value only.
pub(crate) fn trim(x: &[u8]) -> &[u8] {
    let start = x.iter().position(|&b| b != 0).unwrap_or(x.len());
    &x[start..]
}

/// An RSA public key (n, e).
#[derive(Clone)]
pub struct RsaPublicKey {
    pub(super) n: Modulus<u64>,
    n_be: Vec<u8>,
    e_be: Vec<u8>,
}

impl RsaPublicKey {
    /// The key with modulus `n_be` and public exponent `e_be` (big-endian, leading zeros
    /// allowed). Fails with [`Error::KeySize`] for a modulus outside 1024..=16384 bits,
    /// and with [`Error::InvalidKey`] for an even modulus or an exponent that is even,
    /// below 3, or not below n.
    pub fn new(n_be: &[u8], e_be: &[u8]) -> Result<Self, Error> {
        let (n_be, e_be) = (trim(n_be), trim(e_be));
        let bits = n_be
            .first()
            .map_or(0, |b| n_be.len() * 8 - b.leading_zeros() as usize);
        if !(LOAD_MIN_BITS..=LOAD_MAX_BITS).contains(&bits) {
            return Err(Error::KeySize {
                bits,
                min: LOAD_MIN_BITS,
                max: LOAD_MAX_BITS,
            });
        }
        if n_be[n_be.len() - 1] & 1 == 0 {
            return Err(Error::InvalidKey("the modulus is even"));
        }
        let e_ok = !e_be.is_empty()
            && e_be[e_be.len() - 1] & 1 == 1
            && (e_be.len() > 1 || e_be[0] >= 3)
            && (e_be.len() < n_be.len() || (e_be.len() == n_be.len() && e_be < n_be));
        if !e_ok {
            return Err(Error::InvalidKey(
                "the public exponent must be odd, at least 3 and below n",
            ));
        }
        Ok(RsaPublicKey {
            n: Modulus::from_be_bytes(n_be)?,
            n_be: n_be.to_vec(),
            e_be: e_be.to_vec(),
        })
    }

    /// The modulus n, big-endian without leading zeros.
    pub fn n(&self) -> &[u8] {
        &self.n_be
    }

    /// The public exponent e, big-endian without leading zeros.
    pub fn e(&self) -> &[u8] {
        &self.e_be
    }

    /// The modulus' length in bytes, k of RFC 8017: the length of every signature and
    /// ciphertext.
    pub fn size(&self) -> usize {
        self.n_be.len()
    }

    /// The modulus' length in bits.
    pub fn bits(&self) -> usize {
        self.n.bits() as usize
    }

    /// The residue of a k-byte string below n: how a signature or ciphertext enters.
    /// [`Error::InvalidLength`] when it is not exactly k bytes or not below n (public
    /// conditions).
    pub(crate) fn residue(&self, x: &[u8]) -> Result<Residue<u64>, Error> {
        if x.len() != self.size() {
            return Err(Error::InvalidLength);
        }
        Residue::from_be_bytes(&self.n, x).map_err(|_| Error::InvalidLength)
    }

    /// `x^e mod n`. Variable-time in the public exponent only: the products' order
    /// depends on e, each product is the core's constant-time one, so x may be secret.
    pub(crate) fn public_op(&self, x: &Residue<u64>) -> Residue<u64> {
        x.pow_vartime(&self.e_be)
    }

    /// RSAEP (RFC 8017 5.1.1): `m^e mod n` for `m` of exactly k bytes, as k bytes.
    /// Fails with [`Error::InvalidLength`] when `m` is not k bytes long or not below n.
    /// Constant-time in m (see [`Self::public_op`]), variable-time in e.
    pub fn encrypt_raw(&self, m: &[u8]) -> Result<Vec<u8>, Error> {
        let x = self.residue(m)?;
        Ok(self.public_op(&x).to_be_bytes_padded(self.size())?)
    }
}

impl PartialEq for RsaPublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.n_be == other.n_be && self.e_be == other.e_be
    }
}

impl Eq for RsaPublicKey {}

impl fmt::Debug for RsaPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaPublicKey")
            .field("bits", &self.bits())
            .field("e", &montmul::encoding::be_bytes_to_hex_vartime(&self.e_be))
            .finish()
    }
}

/// An RSA private key with two primes: n, e, d, p, q, the CRT exponents
/// `dp = d mod (p - 1)`, `dq = d mod (q - 1)` and the coefficient `qinv = q^-1 mod p`,
/// with the moduli of n, p and q built once, and the blinding pair of its private
/// operation. Every secret number is wiped when the key is dropped (`Zeroizing`
/// buffers, and residues and moduli that wipe themselves); `Debug` prints the size and
/// e only.
pub struct RsaPrivateKey {
    pub(super) public: RsaPublicKey,
    /// d as k bytes.
    pub(super) d: Zeroizing<Vec<u8>>,
    /// p, q, dp, dq and qinv, each as many bytes as the longer of p and q.
    pub(super) p: Zeroizing<Vec<u8>>,
    pub(super) q: Zeroizing<Vec<u8>>,
    pub(super) dp: Zeroizing<Vec<u8>>,
    pub(super) dq: Zeroizing<Vec<u8>>,
    pub(super) qinv: Zeroizing<Vec<u8>>,
    pub(super) p_mod: Modulus<u64>,
    pub(super) q_mod: Modulus<u64>,
    /// qinv as a residue mod p, and q as a residue mod n (Garner's step).
    pub(super) qinv_p: Residue<u64>,
    pub(super) q_n: Residue<u64>,
    pub(super) blinding: Mutex<Option<Blinding>>,
    /// How the private operation runs its CRT halves.
    pub(super) crt_halves: CrtHalves,
}

impl RsaPrivateKey {
    /// The key from n, e, d, p and q (big-endian, leading zeros allowed), checked:
    /// `p q = n`, p and q odd and distinct, `d < n` and `d e = 1 mod (p - 1)` and
    /// `mod (q - 1)` (so mod lcm(p - 1, q - 1)); the CRT numbers are derived. Fails with
    /// [`Error::InvalidKey`] (or [`Error::KeySize`], as [`RsaPublicKey::new`]).
    ///
    /// Constant-time in the secret numbers, except that whether the key is consistent is
    /// revealed, and the byte lengths of p and q.
    pub fn from_components(
        n_be: &[u8],
        e_be: &[u8],
        d_be: &[u8],
        p_be: &[u8],
        q_be: &[u8],
    ) -> Result<Self, Error> {
        let public = RsaPublicKey::new(n_be, e_be)?;
        let k = public.size();
        let (p_be, q_be) = (trim(p_be), trim(q_be));
        let inconsistent = Error::InvalidKey("the private numbers do not match the modulus");
        if p_be.is_empty() || q_be.is_empty() || p_be.len() > k || q_be.len() > k {
            return Err(inconsistent);
        }
        let len = p_be.len().max(q_be.len());
        let pad = |x: &[u8]| {
            let mut v = Zeroizing::new(vec![0u8; len - x.len()]);
            v.extend_from_slice(x);
            v
        };
        let (p, q) = (pad(p_be), pad(q_be));
        let (pl, ql) = (limbs(&p), limbs(&q));
        // p q = n (which also rules out p or q equal to 1 or n).
        if declassify(eq(&mul(&pl, &ql), &limbs(&public.n_be))) != 1 {
            return Err(inconsistent);
        }
        let (p_mod, q_mod) = match (Modulus::from_be_bytes(&p), Modulus::from_be_bytes(&q)) {
            (Ok(a), Ok(b)) => (a, b),
            _ => return Err(inconsistent),
        };
        // d < n, and d e = 1 modulo p - 1 and q - 1.
        let d_be = trim(d_be);
        if d_be.len() > k {
            return Err(inconsistent);
        }
        let mut d = Zeroizing::new(vec![0u8; k - d_be.len()]);
        d.extend_from_slice(d_be);
        let dl = limbs(&d);
        if declassify(ct::borrow_of_sub(&dl, &limbs(&public.n_be)[..])) != 1 {
            return Err(inconsistent);
        }
        let el = limbs(&public.e_be);
        let (pm1, qm1) = (minus_one(&pl), minus_one(&ql));
        let (_, dp) = div_rem(&dl, &pm1);
        let (_, dq) = div_rem(&dl, &qm1);
        let (_, dpe) = div_rem(&mul(&dp, &el), &pm1);
        let (_, dqe) = div_rem(&mul(&dq, &el), &qm1);
        if declassify(eq(&dpe, &[1]) & eq(&dqe, &[1])) != 1 {
            return Err(Error::InvalidKey(
                "d is not the inverse of e modulo lcm(p - 1, q - 1)",
            ));
        }
        let qinv_p = Residue::from_be_bytes_reduced(&p_mod, &q)
            .inv()
            .map_err(|_| inconsistent.clone())?;
        let qinv = Zeroizing::new(qinv_p.to_be_bytes_padded(len)?);
        let q_n = Residue::from_be_bytes_reduced(&public.n, &q);
        Ok(RsaPrivateKey {
            d,
            dp: to_be(&dp, len),
            dq: to_be(&dq, len),
            qinv,
            p,
            q,
            p_mod,
            q_mod,
            qinv_p,
            q_n,
            public,
            blinding: Mutex::new(None),
            crt_halves: CrtHalves::default(),
        })
    }

    /// As [`Self::from_components`], and the given CRT numbers (from a PKCS #1 key)
    /// must equal the derived ones: [`Error::InvalidKey`] otherwise. Constant-time
    /// comparisons.
    pub(crate) fn from_crt_components(
        n_be: &[u8],
        e_be: &[u8],
        d_be: &[u8],
        p_be: &[u8],
        q_be: &[u8],
        crt: [&[u8]; 3],
    ) -> Result<Self, Error> {
        let key = Self::from_components(n_be, e_be, d_be, p_be, q_be)?;
        let mut same = 1u64;
        for (given, derived) in crt.iter().zip([&key.dp, &key.dq, &key.qinv]) {
            same &= eq(&limbs(given), &limbs(derived));
        }
        if declassify(same) != 1 {
            return Err(Error::InvalidKey(
                "the CRT exponents or coefficient do not match p, q and d",
            ));
        }
        Ok(key)
    }

    /// The public half.
    pub fn public_key(&self) -> &RsaPublicKey {
        &self.public
    }

    /// The public half, owned.
    pub fn to_public_key(&self) -> RsaPublicKey {
        self.public.clone()
    }

    /// The modulus' length in bytes (k).
    pub fn size(&self) -> usize {
        self.public.size()
    }

    /// The modulus' length in bits.
    pub fn bits(&self) -> usize {
        self.public.bits()
    }

    /// The private exponent d, p, q, dp, dq and qinv as stored (big-endian, padded):
    /// for writing the key.
    pub(crate) fn secrets(&self) -> [&[u8]; 6] {
        [&self.d, &self.p, &self.q, &self.dp, &self.dq, &self.qinv]
    }
}

impl fmt::Debug for RsaPrivateKey {
    /// The size and e only: no secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaPrivateKey")
            .field("bits", &self.bits())
            .field(
                "e",
                &montmul::encoding::be_bytes_to_hex_vartime(&self.public.e_be),
            )
            .finish_non_exhaustive()
    }
}
