//! RSA key generation, and the constant-time integer arithmetic that derives a key's
//! private numbers (d, dp, dq) from its primes.
//!
//! Seed: FIPS 186-5 Appendix A.1.3 (random probable primes p and q of nlen/2 bits, each
//! at least sqrt(2) 2^(nlen/2 - 1), gcd(e, p - 1) = gcd(e, q - 1) = 1,
//! |p - q| > 2^(nlen/2 - 100)) and section 5.1 (d = e^-1 mod lcm(p - 1, q - 1), with
//! d > 2^(nlen/2)).
//!
//! The moduli p - 1, q - 1 and lcm(p - 1, q - 1) are even, outside what Montgomery
//! arithmetic reduces by, and secret. So the reductions here are bit-serial
//! shift-and-subtract divisions whose every step is masked ([`div_rem`]), the gcd is a
//! bit-serial binary gcd with a fixed step count ([`gcd_odd`]), and the inverse of e
//! modulo an even secret m comes from one modulo the public e: with
//! `k = -(m mod e)^-1 mod e`, `d = (1 + k m) / e` is exact and is `e^-1 mod m`.
//! The cost is a few million word operations per key, nothing beside the prime search.

use montmul::{ct, Modulus, Residue};
use rand_core::CryptoRngCore;
use zeroize::Zeroizing;

use super::key::RsaPrivateKey;
use super::private::declassify;
use crate::dh::ffc::declassify_bytes;
use crate::prime::random_prime;
use crate::Error;

/// The smallest key size [`RsaPrivateKey::generate`] makes, in bits.
pub const GENERATE_MIN_BITS: usize = 2048;
/// The largest key size [`RsaPrivateKey::generate`] makes, in bits.
pub const GENERATE_MAX_BITS: usize = 8192;

/// Little-endian limbs, constant-time in the values (lengths are public).
pub(crate) type Limbs = Zeroizing<Vec<u64>>;

/// `x` as little-endian limbs (leading zero bytes allowed).
pub(crate) fn limbs(x_be: &[u8]) -> Limbs {
    Zeroizing::new(montmul::encoding::be_bytes_to_limbs(x_be))
}

/// `x` as exactly `len` big-endian bytes; the value must fit. Constant-time.
pub(crate) fn to_be(x: &[u64], len: usize) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(vec![0u8; len]);
    for (i, o) in out.iter_mut().rev().enumerate() {
        *o = x.get(i / 8).map_or(0, |l| (l >> (8 * (i % 8))) as u8);
    }
    out
}

/// `x` resized to `len` limbs (the value must fit).
fn resized(x: &[u64], len: usize) -> Limbs {
    let mut v = Zeroizing::new(x.to_vec());
    v.resize(len, 0);
    v
}

/// `a * b`, schoolbook, `a.len() + b.len()` limbs. Constant-time.
pub(crate) fn mul(a: &[u64], b: &[u64]) -> Limbs {
    let mut out = Zeroizing::new(vec![0u64; a.len() + b.len()]);
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u64;
        for (j, &y) in b.iter().enumerate() {
            // x y + out + carry <= (2^64 - 1)^2 + 2 (2^64 - 1) = 2^128 - 1: no overflow.
            let t = u128::from(x) * u128::from(y) + u128::from(out[i + j]) + u128::from(carry);
            out[i + j] = t as u64;
            carry = (t >> 64) as u64;
        }
        out[i + b.len()] = carry;
    }
    out
}

/// `(x / m, x mod m)` for `m > 0`: one shift-and-subtract step per bit of x, each
/// subtraction kept or not with a mask. Constant-time in both values; the quotient has
/// `x.len()` limbs, the remainder `m.len()`.
pub(crate) fn div_rem(x: &[u64], m: &[u64]) -> (Limbs, Limbs) {
    let s = m.len();
    // r < m before each step, so 2r + 1 < 2m fits in s limbs plus one top bit.
    let mut r = Zeroizing::new(vec![0u64; s]);
    let mut diff = Zeroizing::new(vec![0u64; s]);
    let mut q = Zeroizing::new(vec![0u64; x.len()]);
    for i in (0..64 * x.len()).rev() {
        let bit = (x[i / 64] >> (i % 64)) & 1;
        // r = 2 r + bit, with the bit shifted out of the top kept in `top`.
        let top = r[s - 1] >> 63;
        for j in (1..s).rev() {
            r[j] = (r[j] << 1) | (r[j - 1] >> 63);
        }
        r[0] = (r[0] << 1) | bit;
        // Subtract m when top:r >= m.
        let borrow = ct::sub(&mut diff, &r, m);
        let take = top | (borrow ^ 1);
        ct::conditional_assign(&mut r, &diff, ct::mask(take));
        q[i / 64] |= take << (i % 64);
    }
    (q, r)
}

/// `x - 1` for `x >= 1`, same length.
pub(crate) fn minus_one(x: &[u64]) -> Limbs {
    let mut out = Zeroizing::new(vec![0u64; x.len()]);
    let mut one = vec![0u64; x.len()];
    one[0] = 1;
    ct::sub(&mut out, x, &one);
    out
}

/// 1 when `a == b` as numbers (lengths may differ), else 0. Constant-time.
pub(crate) fn eq(a: &[u64], b: &[u64]) -> u64 {
    let len = a.len().max(b.len());
    ct::eq(&resized(a, len), &resized(b, len))
}

/// gcd(a, b) for an odd `a`, as `a.len()` limbs (b no longer than a): the bit-serial
/// binary gcd, `2 * 64 a.len()` steps whatever the values. Each step: when b is odd and
/// below a, swap them; when b is odd, b -= a; then b /= 2. `a` stays odd, and each step
/// takes at least one bit off the total length of a and b, so b ends at 0 and a at the
/// gcd.
fn gcd_odd(a: &[u64], b: &[u64]) -> Limbs {
    let s = a.len();
    let mut a = resized(a, s);
    let mut b = resized(b, s);
    let mut diff = Zeroizing::new(vec![0u64; s]);
    for _ in 0..2 * 64 * s {
        let odd = b[0] & 1;
        let below = ct::sub(&mut diff, &b, &a);
        let swap = ct::mask(odd & below);
        for (x, y) in a.iter_mut().zip(b.iter_mut()) {
            let t = (*x ^ *y) & swap;
            *x ^= t;
            *y ^= t;
        }
        ct::sub_masked(&mut b, &a, ct::mask(odd));
        for j in 0..s {
            b[j] = (b[j] >> 1) | (b.get(j + 1).copied().unwrap_or(0) << 63);
        }
    }
    a
}

/// The odd part of x (x > 0), and its number of trailing zeros; constant-time (a
/// barrel shifter over the bits of the count).
fn odd_part(x: &[u64]) -> (Limbs, u64) {
    let mut count = 0u64;
    let mut all_zero = 1u64;
    for &limb in x {
        for bit in 0..64 {
            all_zero &= ((limb >> bit) & 1) ^ 1;
            count += all_zero;
        }
    }
    let mut cur = Zeroizing::new(x.to_vec());
    let mut shifted = Zeroizing::new(vec![0u64; x.len()]);
    let mut k = 0;
    while (1usize << k) < 64 * x.len() {
        let amount = 1usize << k;
        let (whole, within) = (amount / 64, amount % 64);
        for (i, out) in shifted.iter_mut().enumerate() {
            let lo = cur.get(i + whole).copied().unwrap_or(0);
            let hi = cur.get(i + whole + 1).copied().unwrap_or(0);
            *out = if within == 0 {
                lo
            } else {
                (lo >> within) | (hi << (64 - within))
            };
        }
        ct::conditional_assign(&mut cur, &shifted, ct::mask((count >> k) & 1));
        k += 1;
    }
    (cur, count)
}

/// `2^t x` as `out_len` limbs, for a secret shift `t < 64 out_len` (the result must
/// fit): a product with the power of two `2^t`, whose bits are set by masks.
fn shl_secret(x: &[u64], t: u64, out_len: usize) -> Limbs {
    let mut pow = Zeroizing::new(vec![0u64; out_len]);
    for (i, limb) in pow.iter_mut().enumerate() {
        for bit in 0..64u64 {
            let here = (i as u64) * 64 + bit;
            let x = here ^ t;
            let is = ((x | x.wrapping_neg()) >> 63) ^ 1;
            *limb |= is << bit;
        }
    }
    let p = mul(x, &pow);
    resized(&p[..out_len.min(p.len())], out_len)
}

/// `2^i` as `len` limbs (`i < 64 len`).
fn power_of_two(i: usize, len: usize) -> Vec<u64> {
    let mut v = vec![0u64; len];
    v[i / 64] = 1 << (i % 64);
    v
}

/// gcd(a, b) for a, b > 0 of at most `len` limbs; constant-time.
fn gcd(a: &[u64], b: &[u64], len: usize) -> Limbs {
    let (oa, ta) = odd_part(&resized(a, len));
    let (_, tb) = odd_part(&resized(b, len));
    // gcd(a, b) = 2^min(ta, tb) gcd(odd(a), b), and gcd(odd(a), b) = gcd(odd(a), odd(b));
    // the odd part of b is not needed: the binary gcd takes b as it is.
    let g = gcd_odd(&oa, &resized(b, len));
    let lt = ((ta.wrapping_sub(tb)) >> 63) & 1;
    let t = ct::select(ct::mask(lt), ta, tb);
    shl_secret(&g, t, len)
}

/// `e^-1 mod m` for a public odd `e >= 3` and a secret `m > 1` coprime to it, as
/// `m.len()` limbs; `None` when they are not coprime (revealed). Constant-time in m.
pub(crate) fn inv_public_mod_secret(e_be: &[u8], m: &[u64]) -> Option<Limbs> {
    let em = Modulus::<u64>::from_be_bytes(e_be).ok()?;
    let e = limbs(e_be);
    // m mod e, then k = -(m mod e)^-1 mod e.
    let (_, m_mod_e) = div_rem(m, &e);
    let r = Residue::from_limbs_reduced(&em, &m_mod_e);
    let k = r.inv().ok()?.neg().to_limbs();
    // 1 + k m < e m: the quotient by e fits m's length.
    let mut t = mul(m, &k);
    let one = {
        let mut v = vec![0u64; t.len()];
        v[0] = 1;
        v
    };
    let t_copy = Zeroizing::new(t.to_vec());
    ct::add(&mut t, &t_copy, &one);
    let (d, rem) = div_rem(&t, &e);
    debug_assert_eq!(ct::is_zero(&rem), 1);
    Some(resized(&d[..m.len()], m.len()))
}

/// The private numbers of a key from its primes: `(d, dp, dq)` with
/// `d = e^-1 mod lcm(p - 1, q - 1)` (as `len(n)` limbs) and `dp = d mod (p - 1)`,
/// `dq = d mod (q - 1)`; `None` when e is not coprime to p - 1 or q - 1. Constant-time
/// in p and q.
pub(crate) fn private_exponents(
    e_be: &[u8],
    p: &[u64],
    q: &[u64],
    n_len: usize,
) -> Option<(Limbs, Limbs, Limbs)> {
    let len = p.len().max(q.len());
    let (pm1, qm1) = (resized(&minus_one(p), len), resized(&minus_one(q), len));
    let g = gcd(&pm1, &qm1, len);
    // lcm = (p - 1) ((q - 1) / g).
    let (qg, _) = div_rem(&qm1, &g);
    let lcm = mul(&pm1, &qg);
    let d = inv_public_mod_secret(e_be, &lcm)?;
    let d = resized(&d[..n_len.min(d.len())], n_len);
    let (_, dp) = div_rem(&d, &pm1);
    let (_, dq) = div_rem(&d, &qm1);
    Some((d, resized(&dp, p.len()), resized(&dq, q.len())))
}

impl RsaPrivateKey {
    /// A new key of `bits` bits (2048 to 8192, a multiple of 2) with public exponent
    /// 65537: FIPS 186-5 A.1.3 probable primes.
    pub fn generate(bits: usize, rng: &mut impl CryptoRngCore) -> Result<Self, Error> {
        Self::generate_with_exponent(bits, &[0x01, 0x00, 0x01], rng)
    }

    /// A new key of `bits` bits (2048 to 8192, even) with the public exponent `e_be`
    /// (big-endian; odd, from 3 to 2^256 - 1; FIPS 186-5 asks for 2^16 < e < 2^256).
    /// The primes are FIPS 186-5 A.1.3 probable primes of `bits / 2` bits with their top
    /// two bits set, `gcd(e, p - 1) = gcd(e, q - 1) = 1` and `|p - q| > 2^(bits/2 - 100)`;
    /// `d = e^-1 mod lcm(p - 1, q - 1)`, and a key whose d is not above `2^(bits/2)` is
    /// drawn again.
    ///
    /// Constant-time in the primes kept (see `prime.rs`); rejected candidates take
    /// variable time. Every verdict branched on (a candidate or a key rejected) is
    /// declassified where it is tested, and so is n: the valgrind harness runs this with
    /// every random byte marked secret. Fails with [`Error::KeySize`] outside the sizes, and with
    /// [`Error::InvalidKey`] for an exponent that is even, below 3 or above 256 bits.
    pub fn generate_with_exponent(
        bits: usize,
        e_be: &[u8],
        rng: &mut impl CryptoRngCore,
    ) -> Result<Self, Error> {
        if !(GENERATE_MIN_BITS..=GENERATE_MAX_BITS).contains(&bits) || !bits.is_multiple_of(2) {
            return Err(Error::KeySize {
                bits,
                min: GENERATE_MIN_BITS,
                max: GENERATE_MAX_BITS,
            });
        }
        let e_be = super::key::trim(e_be);
        let e_ok = !e_be.is_empty()
            && e_be.len() <= 32
            && e_be[e_be.len() - 1] & 1 == 1
            && (e_be.len() > 1 || e_be[0] >= 3);
        if !e_ok {
            return Err(Error::InvalidKey(
                "public exponent must be odd and from 3 to 256 bits",
            ));
        }
        let e = Modulus::<u64>::from_be_bytes(e_be)?;
        let half = bits / 2;
        // gcd(e, p - 1) = 1: p - 1 invertible mod e. A candidate that fails is thrown
        // away; its test's time tells nothing of the prime kept.
        let coprime = |c: &[u8]| {
            let pm1 = minus_one(&limbs(c));
            let r = Residue::from_limbs_reduced(&e, &pm1);
            r.inv().is_ok()
        };
        loop {
            let p = random_prime(half, rng, coprime);
            let p_l = limbs(&p);
            // |p - q| > 2^(half - 100), compared in constant time.
            let threshold = power_of_two(half - 100, p_l.len());
            let q = random_prime(half, rng, |c| {
                let c_l = limbs(c);
                let mut diff = Zeroizing::new(vec![0u64; c_l.len()]);
                let borrow = ct::sub(&mut diff, &c_l, &p_l);
                let mut neg = Zeroizing::new(vec![0u64; c_l.len()]);
                ct::sub(&mut neg, &p_l, &c_l);
                ct::conditional_assign(&mut diff, &neg, ct::mask(borrow));
                // The verdict rejects a candidate: public (declassified).
                declassify(ct::borrow_of_sub(&threshold, &diff)) == 1 && coprime(c)
            });
            // p > q by convention, swapped with masks.
            let (mut pl, mut ql) = (limbs(&p), limbs(&q));
            let swap = ct::mask(ct::borrow_of_sub(&pl, &ql));
            for (x, y) in pl.iter_mut().zip(ql.iter_mut()) {
                let t = (*x ^ *y) & swap;
                *x ^= t;
                *y ^= t;
            }
            let n = mul(&pl, &ql);
            let k = bits.div_ceil(8);
            let Some((d, _, _)) = private_exponents(e_be, &pl, &ql, n.len()) else {
                continue;
            };
            // d > 2^(bits/2), compared in constant time; a failure draws a new key (the
            // verdict is public, declassified).
            if declassify(ct::borrow_of_sub(&power_of_two(half, d.len()), &d)) == 0 {
                continue;
            }
            let plen = half.div_ceil(8);
            let (p, q) = (to_be(&pl, plen), to_be(&ql, plen));
            // n is the public key: declassified before it is parsed in variable time.
            let mut n_be = to_be(&n, k);
            declassify_bytes(&mut n_be);
            return RsaPrivateKey::from_components(&n_be, e_be, &to_be(&d, k), &p, &q);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use rand_core::{OsRng, RngCore};

    fn big(x: &[u64]) -> BigUint {
        BigUint::from_bytes_be(&to_be(x, 8 * x.len()))
    }

    fn random_limbs(n: usize) -> Vec<u64> {
        (0..n).map(|_| OsRng.next_u64()).collect()
    }

    #[test]
    fn div_rem_and_mul_against_num_bigint() {
        for (xl, ml) in [(1, 1), (4, 2), (8, 3), (3, 3), (2, 5)] {
            for _ in 0..50 {
                let x = random_limbs(xl);
                let mut m = random_limbs(ml);
                // Edge moduli: 1, a single small limb, all ones.
                match OsRng.next_u32() % 4 {
                    0 => m = vec![1],
                    1 => m[ml - 1] = u64::MAX,
                    2 => m[ml - 1] >>= 40,
                    _ => {}
                }
                if big(&m) == BigUint::from(0u32) {
                    continue;
                }
                let (q, r) = div_rem(&x, &m);
                assert_eq!(big(&q), big(&x) / big(&m));
                assert_eq!(big(&r), big(&x) % big(&m));
                assert_eq!(big(&mul(&x, &m)), big(&x) * big(&m));
            }
        }
    }

    #[test]
    fn gcd_against_num_bigint() {
        use num_integer::Integer;
        for _ in 0..100 {
            let shared = BigUint::from(OsRng.next_u32()) << (OsRng.next_u32() % 40);
            let a = BigUint::from_bytes_be(&to_be(&random_limbs(2), 16)) * &shared + 0u32;
            let b = BigUint::from_bytes_be(&to_be(&random_limbs(1), 8)) * &shared;
            if a == BigUint::from(0u32) || b == BigUint::from(0u32) {
                continue;
            }
            let g = gcd(&limbs(&a.to_bytes_be()), &limbs(&b.to_bytes_be()), 5);
            assert_eq!(big(&g), a.gcd(&b), "gcd({a}, {b})");
        }
    }

    #[test]
    fn inverse_of_e_modulo_even_secret() {
        let e = [0x01, 0x00, 0x01];
        for _ in 0..50 {
            let m = BigUint::from_bytes_be(&to_be(&random_limbs(3), 24)) << 1u32;
            let got = inv_public_mod_secret(&e, &limbs(&m.to_bytes_be()));
            let e_big = BigUint::from(65537u32);
            match got {
                Some(d) => assert_eq!((big(&d) * &e_big) % &m, BigUint::from(1u32)),
                None => assert_eq!(&m % &e_big, BigUint::from(0u32)),
            }
        }
    }
}
