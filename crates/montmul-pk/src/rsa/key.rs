//! The RSA key types: [`RsaPublicKey`] (n, e) and [`RsaPrivateKey`] (n, e, d, p, q and
//! the CRT numbers, and for a multi-prime key its further primes r_i with their d_i and
//! t_i), their checks, and the raw public operation.
//!
//! Seed: RFC 8017 (PKCS #1 v2.2) sections 3.1-3.2 (key representations, the
//! `otherPrimeInfos` of a multi-prime key) and 5.1.1
//! (RSAEP: `c = m^e mod n`, with `m` refused unless below n). A key builds its
//! [`Modulus`] for n (and, private, for p and q) once and keeps it.

use std::fmt;
use std::sync::Mutex;

use montmul::{ct, Modulus, Residue};
use zeroize::Zeroizing;

use super::arith::{eq, limbs, minus_one, mul, rem, rem_small_quotient, to_be};
use super::blinding::Blinding;
use super::crt_halves::CrtHalves;
use crate::dh::ffc::bits_vartime;
use crate::Error;
use montmul::ct::declassify;

/// The smallest modulus a key may have when it is read or built, in bits.
pub const LOAD_MIN_BITS: usize = 1024;
/// The largest modulus a key may have, in bits (the core's limit).
pub const LOAD_MAX_BITS: usize = montmul::MAX_BITS as usize;
/// The largest modulus, in bits, whose public exponent may have any length below n.
/// Above it e has at most [`LARGE_MODULUS_MAX_E_BITS`] bits: OpenSSL's rule
/// (`OPENSSL_RSA_SMALL_MODULUS_BITS`, `OPENSSL_RSA_MAX_PUBEXP_BITS`), which keeps a key
/// from a stranger from asking a verification for a private-size exponentiation, and
/// keeps every key montmul loads one that OpenSSL can use.
pub const SMALL_MODULUS_BITS: usize = 3072;
/// The longest public exponent, in bits, of a modulus above [`SMALL_MODULUS_BITS`].
pub const LARGE_MODULUS_MAX_E_BITS: usize = 64;

/// Whether the public exponent `e_be` (big-endian) may go with a modulus of `n_bits`
/// bits: at most [`LARGE_MODULUS_MAX_E_BITS`] bits above [`SMALL_MODULUS_BITS`]. Only
/// the length is checked here. Variable-time (both are public).
pub(crate) fn exponent_length_ok(n_bits: usize, e_be: &[u8]) -> bool {
    n_bits <= SMALL_MODULUS_BITS || bits_vartime(e_be) <= LARGE_MODULUS_MAX_E_BITS
}

/// The refusal of a public exponent that [`exponent_length_ok`] does not take.
pub(crate) const LONG_EXPONENT: Error =
    Error::InvalidKey("a modulus above 3072 bits takes a public exponent of at most 64 bits");

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
    /// below 3, not below n, or (a modulus above [`SMALL_MODULUS_BITS`]) longer than
    /// [`LARGE_MODULUS_MAX_E_BITS`].
    pub fn new(n_be: &[u8], e_be: &[u8]) -> Result<Self, Error> {
        let (n_be, e_be) = (trim(n_be), trim(e_be));
        let bits = bits_vartime(n_be);
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
        if !exponent_length_ok(bits, e_be) {
            return Err(LONG_EXPONENT);
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
    /// Constant-time in m (see `public_op`), variable-time in e.
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

/// The most primes a key may have when it is read or built: RFC 8017 sets no limit,
/// OpenSSL makes at most 5; the bound keeps the work of loading a key small.
pub const MAX_PRIMES: usize = 16;

/// A prime past the second of a multi-prime key (RFC 8017 3.2, `OtherPrimeInfo`): r_i,
/// `d_i = d mod (r_i - 1)` and `t_i = (r_1 ... r_(i-1))^-1 mod r_i` (each as many bytes
/// as r_i), its modulus, t_i as a residue mod r_i and `r_1 ... r_(i-1)` as a residue
/// mod n (the CRT's steps for r_i, RFC 8017 5.1.2 step 2.b.v).
pub(super) struct OtherPrime {
    pub(super) r: Zeroizing<Vec<u8>>,
    pub(super) d: Zeroizing<Vec<u8>>,
    pub(super) t: Zeroizing<Vec<u8>>,
    pub(super) r_mod: Modulus<u64>,
    pub(super) t_r: Residue<u64>,
    pub(super) prefix_n: Residue<u64>,
}

/// The error of a stored key whose CRT exponents or coefficients are not those of its
/// primes and d.
const CRT_MISMATCH: Error =
    Error::InvalidKey("the CRT exponents or coefficient do not match p, q and d");

/// The CRT coefficient `x^-1 mod r`, x a residue mod r. Without `given`, derived by
/// inversion; none exists when x shares a factor with r (`inconsistent`). A coefficient
/// `given` by a stored key is instead checked, by one product rather than an inversion:
/// it must be below r and its product with x must be 1 mod r, which only the inverse is
/// ([`CRT_MISMATCH`] otherwise). Constant-time, except that
/// the result says whether the check passed.
fn coefficient(
    x: &Residue<u64>,
    given: Option<&[u8]>,
    inconsistent: &Error,
) -> Result<Residue<u64>, Error> {
    let Some(given) = given else {
        return x.inv().map_err(|_| inconsistent.clone());
    };
    let c = Residue::from_be_bytes(x.modulus(), given).map_err(|_| CRT_MISMATCH)?;
    if declassify((&c * x).ct_eq(&Residue::one(x.modulus()))) != 1 {
        return Err(CRT_MISMATCH);
    }
    Ok(c)
}

/// An RSA private key: n, e, d, p, q and the CRT exponents `dp = d mod (p - 1)`,
/// `dq = d mod (q - 1)` and the coefficient `qinv = q^-1 mod p`, with the moduli of n,
/// p and q built once, and the blinding pair of its private operation; a multi-prime
/// key (RFC 8017 3.2, `version` multi) also has its further primes r_3, ..., r_u with
/// their exponents and coefficients (`OtherPrime`). Every secret number is wiped when
/// the key is dropped (`Zeroizing` buffers, and residues and moduli that wipe
/// themselves); `Debug` prints the size, the number of primes and e only.
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
    /// The primes past the second, in order; empty for a two-prime key.
    pub(super) others: Vec<OtherPrime>,
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
        Self::from_multi_prime_components(n_be, e_be, d_be, &[p_be, q_be])
    }

    /// The key from n, e, d and its primes r_1 = p, r_2 = q, r_3, ..., r_u (RFC 8017
    /// 3.2; big-endian, leading zeros allowed; 2 to [`MAX_PRIMES`] of them, in the order
    /// the key's CRT coefficients follow), checked: the product of the primes is n, each
    /// is odd and above 1, they are pairwise coprime (each coefficient exists), `d < n`
    /// and `d e = 1 mod (r_i - 1)` for every i; the CRT exponents and coefficients are
    /// derived. With two primes, the same key as [`Self::from_components`]. Fails with
    /// [`Error::InvalidKey`] (or [`Error::KeySize`], as [`RsaPublicKey::new`]).
    ///
    /// Constant-time in the secret numbers, except that whether the key is consistent is
    /// revealed, and the number of primes and their byte lengths.
    pub fn from_multi_prime_components(
        n_be: &[u8],
        e_be: &[u8],
        d_be: &[u8],
        primes: &[&[u8]],
    ) -> Result<Self, Error> {
        Self::build(n_be, e_be, d_be, primes, None)
    }

    /// As [`Self::from_multi_prime_components`]; with `coefficients` (qinv, then each
    /// further prime's t_i, as a stored key gives them), each coefficient is checked by
    /// [`coefficient`] instead of derived.
    fn build(
        n_be: &[u8],
        e_be: &[u8],
        d_be: &[u8],
        primes: &[&[u8]],
        coefficients: Option<&[&[u8]]>,
    ) -> Result<Self, Error> {
        if !(2..=MAX_PRIMES).contains(&primes.len()) {
            return Err(Error::InvalidKey("a key has from 2 to 16 primes"));
        }
        let public = RsaPublicKey::new(n_be, e_be)?;
        let k = public.size();
        let inconsistent = Error::InvalidKey("the private numbers do not match the modulus");
        let primes: Vec<&[u8]> = primes.iter().map(|r| trim(r)).collect();
        if primes.iter().any(|r| r.is_empty() || r.len() > k) {
            return Err(inconsistent);
        }
        let pad = |x: &[u8], len: usize| {
            let mut v = Zeroizing::new(vec![0u8; len - x.len()]);
            v.extend_from_slice(x);
            v
        };
        // p and q as long as the longer of them (the halves' exponents share a length);
        // each further prime as long as itself.
        let len = primes[0].len().max(primes[1].len());
        let (p, q) = (pad(primes[0], len), pad(primes[1], len));
        let rs: Vec<Zeroizing<Vec<u8>>> = primes[2..].iter().map(|r| pad(r, r.len())).collect();
        let (pl, ql) = (limbs(&p), limbs(&q));
        // The product of all primes, and r_1 ... r_(i-1) for each further prime r_i (its
        // CRT step's prefix).
        let mut product = mul(&pl, &ql);
        let mut prefixes = Vec::with_capacity(rs.len());
        for r in &rs {
            let next = mul(&product, &limbs(r));
            prefixes.push(std::mem::replace(&mut product, next));
        }
        // r_1 ... r_u = n (which also rules out a prime equal to 1 or n).
        if declassify(eq(&product, &limbs(&public.n_be))) != 1 {
            return Err(inconsistent);
        }
        let p_mod = Modulus::from_be_bytes(&p).map_err(|_| inconsistent.clone())?;
        let q_mod = Modulus::from_be_bytes(&q).map_err(|_| inconsistent.clone())?;
        let r_mods = rs
            .iter()
            .map(|r| Modulus::<u64>::from_be_bytes(r))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| inconsistent.clone())?;
        // d as k bytes: bytes past k must be zero. Tested with masks, not trimmed, so that
        // the number of d's leading zero bytes (secret for a generated key) decides no
        // branch.
        let (excess, d_low) = d_be.split_at(d_be.len().saturating_sub(k));
        let excess_bits = excess.iter().fold(0u8, |acc, &b| acc | b);
        if declassify(u64::from(excess_bits)) != 0 {
            return Err(inconsistent);
        }
        let mut d = Zeroizing::new(vec![0u8; k - d_low.len()]);
        d.extend_from_slice(d_low);
        // d < n, and d e = 1 modulo r_i - 1 for every i.
        let dl = limbs(&d);
        if declassify(ct::borrow_of_sub(&dl, &limbs(&public.n_be)[..])) != 1 {
            return Err(inconsistent);
        }
        let el = limbs(&public.e_be);
        // d mod (r - 1), and 1 when its product with e is 1 mod (r - 1): that product is
        // below e (r - 1), its quotient below 2^(bits of e) (e is public).
        let e_bits = montmul::encoding::bit_length_vartime(&el) as usize;
        let exponent = |rl: &[u64]| {
            let rm1 = minus_one(rl);
            let dr = rem(&dl, &rm1);
            let dre = rem_small_quotient(&mul(&dr, &el), &rm1, e_bits);
            let ok = eq(&dre, &[1]);
            (dr, ok)
        };
        let (dp, dp_ok) = exponent(&pl);
        let (dq, dq_ok) = exponent(&ql);
        let mut ok = dp_ok & dq_ok;
        let mut ds = Vec::with_capacity(rs.len());
        for r in &rs {
            let (dr, dr_ok) = exponent(&limbs(r));
            ok &= dr_ok;
            ds.push(to_be(&dr, r.len()));
        }
        if declassify(ok) != 1 {
            return Err(Error::InvalidKey(if rs.is_empty() {
                "d is not the inverse of e modulo lcm(p - 1, q - 1)"
            } else {
                "d is not the inverse of e modulo lcm(r_i - 1)"
            }));
        }
        let given = |i: usize| coefficients.and_then(|c| c.get(i).copied());
        let qinv_p = coefficient(
            &Residue::from_be_bytes_reduced(&p_mod, &q),
            given(0),
            &inconsistent,
        )?;
        let qinv = Zeroizing::new(qinv_p.to_be_bytes_padded(len)?);
        let q_n = Residue::from_be_bytes_reduced(&public.n, &q);
        let mut others = Vec::with_capacity(rs.len());
        let further = rs.into_iter().zip(r_mods).zip(ds).zip(&prefixes);
        for (i, (((r, r_mod), d_i), prefix)) in further.enumerate() {
            // t_i = (r_1 ... r_(i-1))^-1 mod r_i: none when r_i shares a factor with an
            // earlier prime.
            let t_r = coefficient(
                &Residue::from_limbs_reduced(&r_mod, prefix),
                given(i + 1),
                &inconsistent,
            )?;
            let t = Zeroizing::new(t_r.to_be_bytes_padded(r.len())?);
            others.push(OtherPrime {
                prefix_n: Residue::from_limbs_reduced(&public.n, prefix),
                r,
                d: d_i,
                t,
                r_mod,
                t_r,
            });
        }
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
            others,
            public,
            blinding: Mutex::new(None),
            crt_halves: CrtHalves::default(),
        })
    }

    /// The key from every number RFC 8017 3.2 stores (a PKCS #1 document, a JSON Web
    /// Key's `dp`, `dq`, `qi` and `oth`): n, e, d and the primes as for
    /// [`Self::from_multi_prime_components`], `crt` = [dp, dq, qinv], and for each
    /// further prime r_i (primes\[2..\], in order) its `[d_i, t_i]`. Each given CRT
    /// number must be the one the key's primes and d make, else
    /// [`Error::InvalidKey`]: the exponents are derived and compared, the coefficients
    /// checked by one product each (below their prime, and their product with q, or with
    /// r_1 ... r_(i-1), is 1 there), which is faster than deriving them.
    ///
    /// Constant-time in the secret numbers, except that whether the key is consistent is
    /// revealed, and the number of primes and their byte lengths.
    pub fn from_crt_components(
        n_be: &[u8],
        e_be: &[u8],
        d_be: &[u8],
        primes: &[&[u8]],
        crt: [&[u8]; 3],
        others_crt: &[[&[u8]; 2]],
    ) -> Result<Self, Error> {
        // The numbers of further primes agree (primes.len() - 2 of each).
        if others_crt.len() != primes.len().saturating_sub(2) {
            return Err(CRT_MISMATCH);
        }
        let coefficients: Vec<&[u8]> = std::iter::once(crt[2])
            .chain(others_crt.iter().map(|[_, t_i]| *t_i))
            .collect();
        let key = Self::build(n_be, e_be, d_be, primes, Some(&coefficients))?;
        let mut same = 1u64;
        for (given, derived) in crt[..2].iter().zip([&key.dp, &key.dq]) {
            same &= eq(&limbs(given), &limbs(derived));
        }
        for ([d_i, _], o) in others_crt.iter().zip(&key.others) {
            same &= eq(&limbs(d_i), &limbs(&o.d));
        }
        if declassify(same) != 1 {
            return Err(CRT_MISMATCH);
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

    /// The number of primes of n: 2, or more for a multi-prime key (RFC 8017 3.2).
    pub fn prime_count(&self) -> usize {
        2 + self.others.len()
    }

    /// The private exponent d, p, q, dp, dq and qinv as stored (big-endian, padded):
    /// for writing the key.
    pub(crate) fn secrets(&self) -> [&[u8]; 6] {
        [&self.d, &self.p, &self.q, &self.dp, &self.dq, &self.qinv]
    }

    /// Each further prime's r_i, d_i and t_i as stored (big-endian, as long as r_i):
    /// for writing a multi-prime key. Empty for a two-prime key.
    pub(crate) fn other_secrets(&self) -> impl Iterator<Item = [&[u8]; 3]> {
        self.others.iter().map(|o| [&o.r[..], &o.d[..], &o.t[..]])
    }
}

impl fmt::Debug for RsaPrivateKey {
    /// The size, the number of primes and e only: no secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaPrivateKey")
            .field("bits", &self.bits())
            .field("primes", &self.prime_count())
            .field(
                "e",
                &montmul::encoding::be_bytes_to_hex_vartime(&self.public.e_be),
            )
            .finish_non_exhaustive()
    }
}
