//! Constant-time arithmetic on secret numbers held as little-endian limbs, for RSA keys:
//! conversions from and to big-endian bytes, products, divisions, comparisons, gcd,
//! Carmichael's lambda and the inverse of e that gives a key's private exponent from its
//! primes. Key loading checks a key's numbers with it (`key.rs`); key generation derives
//! d with it and compares primes (`keygen.rs`).
//!
//! Seeds: RFC 8017 3.1-3.2 (`lambda(n) = lcm(r_1 - 1, ..., r_u - 1)`, `e d = 1 mod
//! lambda(n)`) and FIPS 186-5 section 5.1 (`d = e^-1 mod lcm(p - 1, q - 1)`).
//!
//! The moduli p - 1, q - 1 and lcm(p - 1, q - 1) are even, outside what Montgomery
//! arithmetic reduces by, and secret. So the reductions here are divisions whose every
//! step is masked: a word of the quotient a step where only the remainder is needed and
//! the divisor's bit length is public ([`rem`]), else a bit a step ([`div_rem`]). The
//! gcd is a bit-serial binary gcd with a fixed step count ([`gcd_odd`]), and the
//! inverse of e modulo an even secret m comes from one modulo the public e: with
//! `k = -(m mod e)^-1 mod e`, `d = (1 + k m) / e` is exact and is `e^-1 mod m`.
//! The cost is a few million word operations per key, nothing beside the prime search.

use montmul::{ct, Limb, Modulus, Residue};
use zeroize::Zeroizing;

use crate::prime::{shift_right, trailing_zeros};

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
pub(crate) fn resized(x: &[u64], len: usize) -> Limbs {
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
    let mut r = Zeroizing::new(vec![0u64; m.len()]);
    let mut q = Zeroizing::new(vec![0u64; x.len()]);
    shift_subtract(x, 64 * x.len(), m, &mut r, Some(&mut q));
    (q, r)
}

/// `x mod m` for `m > 0` and `x < 2^k m` (a quotient below 2^k, `k` public): x >> k is
/// already below m, so only x's low k bits take a step of [`div_rem`] each. For a
/// product `y e` with `y < m` and e of k bits, k steps instead of one per bit of x.
/// Constant-time in both values; the remainder has `m.len()` limbs.
pub(crate) fn rem_small_quotient(x: &[u64], m: &[u64], k: usize) -> Limbs {
    let high = shift_right(x, k as u64, 64 * x.len() as u64);
    // Below m, so it fits in m's limbs: the limbs cut off are 0.
    let mut r = resized(&high, m.len());
    shift_subtract(x, k, m, &mut r, None);
    r
}

/// `x mod m` for `m > 0`, a word of the quotient at a time: Knuth's Algorithm D (*The
/// Art of Computer Programming*, vol. 2, sec. 4.3.1) with every choice made by a mask.
/// m is shifted left until its top bit is set, x by as much; then for each word of x
/// from the top, the running remainder takes the word in, the quotient word is
/// estimated from the remainder's top two words and m's top word ([`Reciprocal`]),
/// that multiple of m is subtracted, and m is added back twice at most: with m's top
/// bit set the estimate is never low and at most 2 too high (Knuth's Theorem 4.3.1B).
/// About 4 s word operations per word of x, where [`div_rem`] takes about 3 s per bit
/// (s the limbs of m); a key's d mod (p - 1) costs a few microseconds instead of a
/// hundred.
///
/// Constant-time in the values of x and m, except m's bit length, which sets the shift
/// and is public here as it is for a [`Modulus`] (a key's prime has the length its
/// modulus gives it). The remainder has `m.len()` limbs.
///
/// # Panics
/// When m is zero (key loading divides by r - 1 for primes r >= 3 only).
pub(crate) fn rem(x: &[u64], m: &[u64]) -> Limbs {
    let bits = montmul::encoding::bit_length_vartime(m) as usize;
    assert!(bits > 0, "rem: division by zero");
    // m's significant limbs, and the shift that sets the top bit of the last of them.
    let s = bits.div_ceil(64);
    let shift = (64 * s - bits) as u32;
    // v = m << shift, one zero limb above it for the add-backs; u = x << shift. (The
    // shifts here take secret counts; this count is public, which they serve as well.)
    let v = shl_secret(&m[..s], u64::from(shift), s + 1);
    let u = shl_secret(x, u64::from(shift), x.len() + 1);
    let top = Reciprocal::new(v[s - 1]);
    // The running remainder below v (its limb s zero) before each step, then the
    // remainder times 2^64 plus the next word of u.
    let mut r = Zeroizing::new(vec![0u64; s + 1]);
    for &word in u.iter().rev() {
        r.copy_within(0..s, 1);
        r[0] = word;
        // r < v 2^64, so the quotient word fits in 64 bits, and r's top word is at most
        // v's: where they are equal, the estimate is 2^64 - 1 (the division is skipped
        // by giving it a 0 in place of r's top word).
        let equal = ct::mask(ct::eq(&[r[s]], &[top.d]));
        let n1 = ct::select(equal, 0, r[s]);
        let q = ct::select(equal, u64::MAX, top.quotient(n1, r[s - 1]));
        // r -= q v: below zero by at most 2 v, which s + 1 limbs hold in two's complement.
        let mut mul_carry = 0u64;
        let mut borrow = 0u64;
        for (rj, &vj) in r.iter_mut().zip(v.iter()) {
            // q v_j + carry <= (2^64 - 1)^2 + 2^64 - 1 < 2^128.
            let p = u128::from(q) * u128::from(vj) + u128::from(mul_carry);
            mul_carry = (p >> 64) as u64;
            (*rj, borrow) = <u64 as Limb>::sbb(*rj, p as u64, borrow);
        }
        // Negative: add v back; a carry out of the addition means the sum reached 0 or
        // more. Still negative after one: add it again.
        let carry = ct::add_masked(&mut r, &v, ct::mask(borrow));
        ct::add_masked(&mut r, &v, ct::mask(borrow & (carry ^ 1)));
    }
    // r = (x mod m) << shift, below 2^(64 s).
    let out = shift_right(&r, u64::from(shift), 64);
    resized(&out[..s], m.len())
}

/// A word d with its top bit set and its reciprocal `floor((2^128 - 1) / d) - 2^64`,
/// for quotients by d without `div` (whose time depends on its operands on many x86
/// CPUs): Möller and Granlund, "Improved division by invariant integers" (IEEE Trans.
/// Computers, 2011), Algorithm 4.
struct Reciprocal {
    d: u64,
    v: u64,
}

impl Reciprocal {
    /// The reciprocal by one bit-serial division of `2^128 - 1 - 2^64 d` by d (its top
    /// word `2^64 - 1 - d` is below d, as the top bit of d is set), a masked step per bit.
    fn new(d: u64) -> Self {
        let (mut r, mut v) = (!d, 0u64);
        for i in (0..64).rev() {
            // r < d before the step, so 2 r + 1 < 2 d < 2^65: the bit shifted out and r.
            let out = r >> 63;
            r = (r << 1) | 1;
            let (diff, borrow) = <u64 as Limb>::sbb(r, d, 0);
            let take = out | (borrow ^ 1);
            r = ct::select(ct::mask(take), diff, r);
            v |= take << i;
        }
        Reciprocal { d, v }
    }

    /// `(n1 2^64 + n0) / d` for `n1 < d` (so the quotient fits a word): a product by the
    /// reciprocal, then two corrections chosen by masks.
    fn quotient(&self, n1: u64, n0: u64) -> u64 {
        let d = self.d;
        // (q1 : q0) = (2^64 + v) n1 + n0 <= (2^64 + v)(d - 1) + 2^64 - 1
        // < (2^64 + v) d <= 2^128 - 1: no overflow.
        let p = u128::from(self.v) * u128::from(n1) + ((u128::from(n1) << 64) | u128::from(n0));
        let (mut q1, q0) = (((p >> 64) as u64).wrapping_add(1), p as u64);
        let mut r = n0.wrapping_sub(q1.wrapping_mul(d));
        // r > q0: one too many (the paper's "likely" branch), r += d.
        let over = ct::mask(<u64 as Limb>::sbb(q0, r, 0).1);
        q1 = q1.wrapping_sub(over & 1);
        r = r.wrapping_add(d & over);
        // r >= d: one too few.
        let under = <u64 as Limb>::sbb(r, d, 0).1 ^ 1;
        q1.wrapping_add(under)
    }
}

/// The steps of [`div_rem`] for bits `bits - 1` down to 0 of `x`, on the running
/// remainder `r` (below m, `m.len()` limbs), setting those bits of the quotient `q`
/// where one is asked for.
fn shift_subtract(x: &[u64], bits: usize, m: &[u64], r: &mut [u64], mut q: Option<&mut [u64]>) {
    let s = m.len();
    // r < m before each step, so 2r + 1 < 2m fits in s limbs plus one top bit.
    let mut diff = Zeroizing::new(vec![0u64; s]);
    for i in (0..bits).rev() {
        let bit = (x[i / 64] >> (i % 64)) & 1;
        // r = 2 r + bit, with the bit shifted out of the top kept in `top`.
        let top = r[s - 1] >> 63;
        for j in (1..s).rev() {
            r[j] = (r[j] << 1) | (r[j - 1] >> 63);
        }
        r[0] = (r[0] << 1) | bit;
        // Subtract m when top:r >= m.
        let borrow = ct::sub(&mut diff, r, m);
        let take = top | (borrow ^ 1);
        ct::conditional_assign(r, &diff, ct::mask(take));
        if let Some(q) = q.as_deref_mut() {
            q[i / 64] |= take << (i % 64);
        }
    }
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

/// The odd part of x (x > 0), and its number of trailing zeros; constant-time (the
/// count and the barrel shifter of [`crate::prime`]).
fn odd_part(x: &[u64]) -> (Limbs, u64) {
    let count = trailing_zeros(x);
    (shift_right(x, count, 64 * x.len() as u64), count)
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
pub(crate) fn shifted_word(w: u64, shift: usize, len: usize) -> Vec<u64> {
    let mut v = vec![0u64; len];
    let (limb, within) = (shift / 64, shift % 64);
    v[limb] = w << within;
    if within != 0 && limb + 1 < len {
        v[limb + 1] = w >> (64 - within);
    }
    v
}

/// `2^i` as `len` limbs (`i < 64 len`).
pub(crate) fn power_of_two(i: usize, len: usize) -> Vec<u64> {
    shifted_word(1, i, len)
}

/// 1 when `|a - b| > 2^t` (lengths may differ, `t < 64 max(len)`), else 0.
/// Constant-time in both values.
pub(crate) fn far_apart(a: &[u64], b: &[u64], t: usize) -> u64 {
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
                // x mod m again from x = y e + c (y < m, c < e, so x < e m <= 2^k m).
                let k = 1 + OsRng.next_u32() as usize % 20;
                let e = u64::from(OsRng.next_u32()) >> (32 - k) | 1 << (k - 1);
                let y = big(&r);
                let c = BigUint::from(OsRng.next_u64() % e);
                let xe = &y * e + &c;
                let xel = resized(&limbs(&xe.to_bytes_be()), ml + 1);
                let re = rem_small_quotient(&xel, &m, k);
                assert_eq!(big(&re), &xe % big(&m), "k {k} e {e}");
                assert_eq!(big(&mul(&x, &m)), big(&x) * big(&m));
            }
        }
    }

    /// A limb that steers Algorithm D into its corners: 0, 1, all ones, the top bit
    /// alone, the top bit less one, or random.
    fn edgy_limb() -> u64 {
        match OsRng.next_u32() % 8 {
            0 => 0,
            1 => 1,
            2 | 3 => u64::MAX,
            4 => 1 << 63,
            5 => (1 << 63) - 1,
            _ => OsRng.next_u64(),
        }
    }

    #[test]
    fn reciprocal_quotients_against_u128_division() {
        let edges = [0, 1, 2, 1 << 63, (1 << 63) + 1, u64::MAX - 1, u64::MAX];
        for case in 0..20_000 {
            let d = match case % 4 {
                0 => edges[case % edges.len()] | 1 << 63,
                _ => OsRng.next_u64() | 1 << 63,
            };
            let recip = Reciprocal::new(d);
            assert_eq!(
                u128::from(recip.v),
                u128::MAX / u128::from(d) - (1 << 64),
                "d {d:x}"
            );
            let pick = |i: usize| match (case / 4 + i) % 3 {
                0 => edges[(case + i) % edges.len()],
                _ => OsRng.next_u64(),
            };
            let n1 = pick(0) % d;
            let n1 = if case % 5 == 0 { d - 1 } else { n1 };
            let n0 = pick(1);
            let n = (u128::from(n1) << 64) | u128::from(n0);
            assert_eq!(
                u128::from(recip.quotient(n1, n0)),
                n / u128::from(d),
                "n1 {n1:x} n0 {n0:x} d {d:x}"
            );
        }
    }

    #[test]
    fn rem_against_num_bigint() {
        // (x limbs, m limbs): m of one limb, m longer than x, x a multiple of m's length.
        let shapes: [(usize, usize); 9] = [
            (1, 1),
            (2, 1),
            (5, 1),
            (3, 2),
            (4, 4),
            (2, 5),
            (8, 3),
            (32, 16),
            (48, 16),
        ];
        // How often the estimate was corrected by one and by two, to show the test
        // reaches both add-backs.
        let (mut once, mut twice) = (0, 0);
        for (xl, ml) in shapes {
            for case in 0..400 {
                let edgy = case % 2 == 0;
                let limb = || if edgy { edgy_limb() } else { OsRng.next_u64() };
                let x: Vec<u64> = (0..xl).map(|_| limb()).collect();
                let mut m: Vec<u64> = (0..ml).map(|_| limb()).collect();
                // Leading zero limbs and bits in m, its top bit set, or m = 1.
                match case % 5 {
                    0 => m[ml - 1] = 0,
                    1 => m[ml - 1] >>= OsRng.next_u32() % 64,
                    2 => m[ml - 1] |= 1 << 63,
                    3 if case % 7 == 0 => {
                        m = vec![0; ml];
                        m[0] = 1;
                    }
                    _ => {}
                }
                if big(&m) == BigUint::from(0u32) {
                    continue;
                }
                let got = rem(&x, &m);
                assert_eq!(got.len(), ml);
                assert_eq!(big(&got), big(&x) % big(&m), "x {x:x?} m {m:x?}");
                // The same remainder from a multiple of m plus it, and from m - 1 (below m).
                let k: Vec<u64> = (0..xl.saturating_sub(ml).max(1)).map(|_| limb()).collect();
                let y = big(&m) * big(&k) + big(&got);
                let yl = limbs(&y.to_bytes_be());
                assert_eq!(big(&rem(&yl, &m)), big(&got));
                let below = big(&m) - 1u32;
                assert_eq!(big(&rem(&limbs(&below.to_bytes_be()), &m)), below);
                let (o, t) = corrections(&x, &m);
                once += o;
                twice += t;
            }
        }
        println!("rem: the estimate corrected once {once} times, twice {twice} times");
        assert!(once > 0 && twice > 0, "once {once}, twice {twice}");
    }

    /// How many quotient words of `x / m` Algorithm D's estimate overshoots by one and by
    /// two (the quotient and the estimates from num-bigint, as [`rem`] forms them).
    fn corrections(x: &[u64], m: &[u64]) -> (usize, usize) {
        let (m, x) = (big(m), big(x));
        let shift = (64 - m.bits() % 64) % 64;
        let (v, u) = (&m << shift, &x << shift);
        let s = v.bits().div_ceil(64);
        let top = &v >> (64 * (s - 1));
        let word = BigUint::from(u64::MAX) + 1u32;
        let mut r = BigUint::from(0u32);
        let (mut once, mut twice) = (0, 0);
        for j in (0..u.bits().div_ceil(64) + 1).rev() {
            r = &r * &word + ((&u >> (64 * j)) % &word);
            let estimate = (&r >> (64 * (s - 1))) / &top;
            let estimate = estimate.min(&word - 1u32);
            let q = &r / &v;
            match u64::try_from(&estimate - &q).unwrap() {
                0 => {}
                1 => once += 1,
                _ => twice += 1,
            }
            r %= &v;
        }
        (once, twice)
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
