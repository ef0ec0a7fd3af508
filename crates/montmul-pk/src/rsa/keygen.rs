//! RSA key generation, of two primes or of more (multi-prime keys, RFC 8017 3.2), and
//! the constant-time integer arithmetic that derives a key's private exponent from its
//! primes.
//!
//! Seed: FIPS 186-5 Appendix A.1.3 (random probable primes p and q of nlen/2 bits, each
//! at least sqrt(2) 2^(nlen/2 - 1), gcd(e, p - 1) = gcd(e, q - 1) = 1,
//! |p - q| > 2^(nlen/2 - 100)) and section 5.1 (d = e^-1 mod lcm(p - 1, q - 1), with
//! d > 2^(nlen/2)). FIPS 186-5 has no multi-prime keys; those follow OpenSSL's
//! `rsa_multiprime_keygen` (`crypto/rsa/rsa_gen.c`: at most 3, 4 or 5 primes by modulus
//! size, the bits split evenly, n's top four bits at least 0x9) with FIPS's rules applied
//! to every prime and every pair.
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

/// `x` resized to `len` limbs (the value must fit). Allocated at its final capacity, so
/// that no copy of x is freed unwiped by a reallocation.
fn resized(x: &[u64], len: usize) -> Limbs {
    let mut v = Zeroizing::new(Vec::with_capacity(len.max(x.len())));
    v.extend_from_slice(x);
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

/// `w 2^shift` as `len` limbs (`w < 2^64`, the value must fit).
fn shifted_word(w: u64, shift: usize, len: usize) -> Vec<u64> {
    let mut v = vec![0u64; len];
    let (limb, within) = (shift / 64, shift % 64);
    v[limb] = w << within;
    if within != 0 && limb + 1 < len {
        v[limb + 1] = w >> (64 - within);
    }
    v
}

/// `2^i` as `len` limbs (`i < 64 len`).
fn power_of_two(i: usize, len: usize) -> Vec<u64> {
    shifted_word(1, i, len)
}

/// 1 when `|a - b| > 2^t` (lengths may differ, `t < 64 max(len)`), else 0.
/// Constant-time in both values.
fn far_apart(a: &[u64], b: &[u64], t: usize) -> u64 {
    let len = a.len().max(b.len());
    let (a, b) = (resized(a, len), resized(b, len));
    let mut diff = Zeroizing::new(vec![0u64; len]);
    let borrow = ct::sub(&mut diff, &a, &b);
    let mut neg = Zeroizing::new(vec![0u64; len]);
    ct::sub(&mut neg, &b, &a);
    ct::conditional_assign(&mut diff, &neg, ct::mask(borrow));
    ct::borrow_of_sub(&power_of_two(t, len), &diff)
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

/// Carmichael's `lambda(n) = lcm(r_1 - 1, ..., r_u - 1)` of the primes `r_i` (at least
/// one, each at least 3), folded one prime at a time: `l = l ((r - 1) / gcd(l, r - 1))`.
/// The result has as many limbs as all the primes together (lengths are public).
/// Constant-time in the primes.
pub(crate) fn lambda(primes: &[&[u64]]) -> Limbs {
    let mut l = minus_one(primes[0]);
    for r in &primes[1..] {
        let rm1 = minus_one(r);
        let len = l.len().max(rm1.len());
        let g = gcd(&l, &rm1, len);
        // (r - 1) / g, as many limbs as r - 1.
        let (rg, _) = div_rem(&rm1, &g);
        l = mul(&l, &rg);
    }
    l
}

/// The private exponent of a key from its primes: `d = e^-1 mod lambda(n)`
/// ([`lambda`]), as `n_len` limbs; `None` when e is not coprime to some `r_i - 1`.
/// Constant-time in the primes.
pub(crate) fn private_exponent(e_be: &[u8], primes: &[&[u64]], n_len: usize) -> Option<Limbs> {
    let d = inv_public_mod_secret(e_be, &lambda(primes))?;
    Some(resized(&d[..n_len.min(d.len())], n_len))
}

/// The most primes [`RsaPrivateKey::generate_multi_prime`] puts in a key of `bits` bits:
/// OpenSSL's cap (`ossl_rsa_multip_cap`, `crypto/rsa/rsa_mp.c`), 2 below 1024 bits, 3
/// below 4096, 4 below 8192 and 5 from 8192, which keeps each prime at 1024 bits or
/// more from 3072-bit keys up. The reason for a cap: the more primes, the smaller each,
/// and the elliptic-curve method's work grows with the size of the factor it finds, not
/// with that of n.
pub fn max_generated_primes(bits: usize) -> usize {
    match bits {
        0..=1023 => 2,
        1024..=4095 => 3,
        4096..=8191 => 4,
        _ => 5,
    }
}

/// The least 16-bit `c` with `c^u >= 9 2^(16u - 4)`, for `2 <= u <= 5`: a key of `u`
/// primes draws each prime of `b` bits at least `c 2^(b - 16)`, so that n has exactly
/// the bits asked for and begins with 0x9 or more (see
/// [`RsaPrivateKey::generate_multi_prime`]). For two primes it is 0xc000: the top two bits that [`random_prime`] sets anyway.
fn top_bits_floor(u: usize) -> u64 {
    // c^u < 2^80 and 9 2^(16u - 4) < 2^80 for u <= 5: no overflow in u128.
    let target = 9u128 << (16 * u - 4);
    // c = 2^16 - 1 always passes: (1 - 2^-16)^5 > 9/16.
    (0x8000u64..0xffff)
        .find(|&c| u128::from(c).pow(u as u32) >= target)
        .unwrap_or(0xffff)
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
        Self::generate_multi_prime(bits, 2, e_be, rng)
    }

    /// A new key of `bits` bits (2048 to 8192, even) made of `primes` primes (RFC 8017
    /// 3.2; from 2 to [`max_generated_primes`]`(bits)`, OpenSSL's cap: 3 below 4096
    /// bits, 4 below 8192, 5 at 8192) with the public exponent `e_be` (as
    /// [`Self::generate_with_exponent`]). With two primes, the key of
    /// [`Self::generate_with_exponent`].
    ///
    /// As OpenSSL's `rsa_multiprime_keygen` does, the bits are split evenly: with
    /// `bits = u s + m` (`0 <= m < u`), the first `m` primes have `s + 1` bits and the
    /// others `s`. Each prime of `b` bits is at least `c 2^(b - 16)`, where `c` is the
    /// least integer with `c^u >= 9 2^(16u - 4)` (0xc000 for two primes, 0xd353 for
    /// three; a candidate below is drawn again before its primality test), so that
    /// `n >= c^u 2^(bits - 16u) >= 9 2^(bits - 4)` while `n < 2^bits`: n has exactly
    /// `bits` bits and begins with 0x9 or more, as OpenSSL requires of its multi-prime
    /// moduli and as every two-prime modulus does (a modulus beginning with 0x8 would
    /// give a multi-prime key away: OpenSSL's reason). Every two primes are more than
    /// `2^(s - 100)` apart (FIPS 186-5's `|p - q|` rule, for every pair; so they are
    /// distinct), `gcd(e, r_i - 1) = 1` for each, p > q (the first two), a key whose
    /// `d = e^-1 mod lcm(r_i - 1)` is not above `2^(bits/2)` is drawn again, and the key
    /// is built by [`Self::from_multi_prime_components`], with the checks of a key read
    /// from a file.
    ///
    /// Constant-time in the primes kept, as [`Self::generate_with_exponent`]: each
    /// verdict branched on (a candidate below its floor, too close to an earlier prime,
    /// not coprime to e or composite; a key whose d is too small) is declassified where
    /// it is tested, and so is n. Fails with [`Error::KeySize`] outside the sizes, with
    /// [`Error::PrimeCount`] outside 2 to [`max_generated_primes`]`(bits)` primes, and
    /// with [`Error::InvalidKey`] for an exponent that is even, below 3 or above 256 bits.
    pub fn generate_multi_prime(
        bits: usize,
        primes: usize,
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
        let max = max_generated_primes(bits);
        if !(2..=max).contains(&primes) {
            return Err(Error::PrimeCount { primes, bits, max });
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
        // gcd(e, r - 1) = 1: r - 1 invertible mod e. A candidate that fails is thrown
        // away; its test's time tells nothing of the prime kept.
        let coprime = |c: &[u8]| {
            let rm1 = minus_one(&limbs(c));
            let r = Residue::from_limbs_reduced(&e, &rm1);
            r.inv().is_ok()
        };
        // The split: `primes` sizes summing to `bits`, the longer ones first; each at
        // least 682 bits (2048 / 3: the cap allows more primes only to longer keys), far
        // more than the 16 top bits of the floor and the 100 of the distance rule.
        let (quo, rmd) = (bits / primes, bits % primes);
        let sizes: Vec<usize> = (0..primes).map(|i| quo + usize::from(i < rmd)).collect();
        let floor = top_bits_floor(primes);
        loop {
            let mut found: Vec<Limbs> = Vec::with_capacity(primes);
            for &b in &sizes {
                let least = shifted_word(floor, b - 16, b.div_ceil(64));
                let r = random_prime(b, rng, |c| {
                    let c_l = limbs(c);
                    // c >= floor 2^(b - 16), and far from every prime drawn before; the
                    // verdict rejects a candidate: public (declassified).
                    let ok = found
                        .iter()
                        .fold(ct::borrow_of_sub(&c_l, &least) ^ 1, |ok, r| {
                            ok & far_apart(&c_l, r, quo - 100)
                        });
                    declassify(ok) == 1 && coprime(c)
                });
                found.push(limbs(&r));
            }
            // p > q by convention, swapped with masks, at p's length (q's is at most
            // that: the sizes go down).
            if let [p, q, ..] = &mut found[..] {
                *q = resized(q, p.len());
                let swap = ct::mask(ct::borrow_of_sub(p, q));
                for (x, y) in p.iter_mut().zip(q.iter_mut()) {
                    let t = (*x ^ *y) & swap;
                    *x ^= t;
                    *y ^= t;
                }
            }
            let refs: Vec<&[u64]> = found.iter().map(|r| &r[..]).collect();
            let n = refs[1..]
                .iter()
                .fold(Zeroizing::new(refs[0].to_vec()), |n, r| mul(&n, r));
            let k = bits.div_ceil(8);
            let Some(d) = private_exponent(e_be, &refs, n.len()) else {
                continue;
            };
            // d > 2^(bits/2), compared in constant time; a failure draws a new key (the
            // verdict is public, declassified).
            if declassify(ct::borrow_of_sub(&power_of_two(bits / 2, d.len()), &d)) == 0 {
                continue;
            }
            // Each prime as its size's bytes; p and q both as p's.
            let primes_be: Vec<Zeroizing<Vec<u8>>> = found
                .iter()
                .enumerate()
                .map(|(i, r)| to_be(r, sizes[if i < 2 { 0 } else { i }].div_ceil(8)))
                .collect();
            let primes_be: Vec<&[u8]> = primes_be.iter().map(|r| &r[..]).collect();
            // n is the public key: declassified before it is parsed in variable time.
            let mut n_be = to_be(&n, k);
            declassify_bytes(&mut n_be);
            return RsaPrivateKey::from_multi_prime_components(
                &n_be,
                e_be,
                &to_be(&d, k),
                &primes_be,
            );
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

    #[test]
    fn lambda_against_num_bigint() {
        use num_integer::Integer;
        // Odd values >= 3 (primality does not matter to the lcm) of 1 to 4 limbs, with
        // all-ones limbs and shared factors among them.
        for count in 1..=5 {
            for _ in 0..20 {
                let shared = BigUint::from(OsRng.next_u32() | 1) << (OsRng.next_u32() % 70);
                let values: Vec<BigUint> = (0..count)
                    .map(|i| {
                        let len = 1 + (OsRng.next_u32() % 4) as usize;
                        let mut v = random_limbs(len);
                        if i == 1 {
                            v.iter_mut().for_each(|l| *l = u64::MAX);
                        }
                        let x = big(&v);
                        let x = if i == 2 {
                            &x % (BigUint::from(1u32) << 200u32) * &shared
                        } else {
                            x
                        };
                        (x >> 1u32 << 1u32) + 3u32
                    })
                    .collect();
                let ls: Vec<Limbs> = values.iter().map(|v| limbs(&v.to_bytes_be())).collect();
                let refs: Vec<&[u64]> = ls.iter().map(|l| &l[..]).collect();
                let want = values
                    .iter()
                    .fold(BigUint::from(1u32), |acc, v| acc.lcm(&(v - 1u32)));
                let got = lambda(&refs);
                assert_eq!(got.len(), refs.iter().map(|r| r.len()).sum::<usize>());
                assert_eq!(big(&got), want, "lambda of {values:?}");
            }
        }
    }

    #[test]
    fn private_exponent_of_three_small_primes() {
        // 65537 is prime and does not divide r - 1 for these primes.
        let primes: [u64; 3] = [1_000_000_007, 998_244_353, 4_294_967_291];
        let ls: Vec<Vec<u64>> = primes.iter().map(|&p| vec![p]).collect();
        let refs: Vec<&[u64]> = ls.iter().map(|l| &l[..]).collect();
        let d = private_exponent(&[1, 0, 1], &refs, 3).expect("coprime");
        assert_eq!(d.len(), 3);
        for &p in &primes {
            let dp = big(&d) % BigUint::from(p - 1);
            assert_eq!(
                dp * 65537u32 % BigUint::from(p - 1),
                BigUint::from(1u32),
                "{p}"
            );
        }
        // e = 7 divides 998_244_353 - 1 = 2^23 7 17: no inverse.
        assert!(private_exponent(&[7], &refs, 3).is_none());
    }

    #[test]
    fn prime_count_cap_is_openssls() {
        for (bits, cap) in [
            (512, 2),
            (1023, 2),
            (1024, 3),
            (2048, 3),
            (4095, 3),
            (4096, 4),
            (8191, 4),
            (8192, 5),
            (16384, 5),
        ] {
            assert_eq!(max_generated_primes(bits), cap, "{bits}");
        }
    }

    #[test]
    fn top_bits_floor_is_the_least_that_keeps_n_at_its_length() {
        for u in 2..=5 {
            let c = top_bits_floor(u);
            let target = BigUint::from(9u32) << (16 * u - 4);
            assert!(BigUint::from(c).pow(u as u32) >= target, "u = {u}");
            assert!(BigUint::from(c - 1).pow(u as u32) < target, "u = {u}");
        }
        assert_eq!(top_bits_floor(2), 0xc000);
    }

    #[test]
    fn far_apart_and_shifted_word_against_num_bigint() {
        for (la, lb) in [(1, 1), (3, 2), (2, 3), (4, 4)] {
            for _ in 0..50 {
                let a = random_limbs(la);
                let mut b = random_limbs(lb);
                if OsRng.next_u32() & 1 == 0 {
                    // Close values: b = a plus or minus a little.
                    b = resized(&a, lb).to_vec();
                    b[0] ^= u64::from(OsRng.next_u32()) >> (OsRng.next_u32() % 32);
                }
                let t = (OsRng.next_u32() % (64 * la.max(lb) as u32)) as usize;
                let (x, y) = (big(&a), big(&b));
                let diff = if x > y { &x - &y } else { &y - &x };
                let want = diff > (BigUint::from(1u32) << t);
                assert_eq!(far_apart(&a, &b, t) == 1, want, "{x} {y} 2^{t}");
                let w = OsRng.next_u64() >> 48;
                let len = (t + 16).div_ceil(64).max(1);
                assert_eq!(big(&shifted_word(w, t, len)), BigUint::from(w) << t);
            }
        }
    }
}
