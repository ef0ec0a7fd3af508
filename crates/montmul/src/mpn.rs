//! Multiprecision primitives on 64-bit words: the building blocks of the fast kernels.
//!
//! Named after GMP's `mpn` layer (`mpn/generic/{addmul_1,mul_basecase,sqr_basecase,
//! redc_1}.c`): little-endian `u64` slices, products through `u128` so that LLVM picks
//! `mul` and `adc` chains. The functions are `#[inline(always)]`: called with lengths
//! that are compile-time constants (the size-specialised kernels of [`crate::fixed`])
//! LLVM unrolls their loops and drops the bounds checks (completely up to 4 limbs, the
//! inner loops beyond, by its own cost model); called with run-time lengths (Karatsuba,
//! the sizes without a specialisation) they are ordinary loops.
//!
//! Constant-time: yes. Loop bounds depend on lengths only, never on values, and every
//! choice on values is made with masks.

use crate::Reduction;

/// `acc + a * b + c` as `(low, high)`.
///
/// Bound: `(2^64 - 1) + (2^64 - 1)^2 + (2^64 - 1) = 2^128 - 1`: never overflows.
#[inline(always)]
pub fn mac(acc: u64, a: u64, b: u64, c: u64) -> (u64, u64) {
    let t = acc as u128 + (a as u128) * (b as u128) + c as u128;
    (t as u64, (t >> 64) as u64)
}

/// `a + b + c` as `(low, carry)` for any three words; the carry is at most 2.
///
/// Bound: `3 * (2^64 - 1) < 2^66`.
#[inline(always)]
pub fn add3(a: u64, b: u64, c: u64) -> (u64, u64) {
    let t = a as u128 + b as u128 + c as u128;
    (t as u64, (t >> 64) as u64)
}

/// The passes the products and the reduction below are built from, as a value of size
/// zero: [`Portable`] is plain Rust; [`crate::arch::Mulx`] uses the
/// `mulx`/`adcx`/`adox` instructions, and exists only with their capability token.
pub trait AddMul: Copy {
    /// `r[..a.len()] += a * b` (`r` at least as long as `a`); returns the carry word.
    fn addmul_1(self, r: &mut [u64], a: &[u64], b: u64) -> u64;

    /// The off-diagonal triangle of a squaring: `r[1 .. 2n-1] = sum_{i<j} a[i] a[j]
    /// 2^(64(i+j))` over `r.len() == 2 * a.len()` words, `n = a.len() >= 2`; `r[0]` and
    /// `r[2n-1]` are set to 0 ([`sqr_basecase`]).
    #[inline(always)]
    fn sqr_triangle(self, r: &mut [u64], a: &[u64]) {
        sqr_triangle(self, r, a);
    }

    /// The last pass of a squaring: `r = 2 r + sum a[i]^2 2^(128 i)` over
    /// `r.len() == 2 * a.len()` words, where the result fits in `r`
    /// ([`sqr_basecase`]).
    #[inline(always)]
    fn double_add_diagonal(self, r: &mut [u64], a: &[u64]) {
        double_add_diagonal(r, a);
    }

    /// The product `r = a b` as [`mul_basecase`] (its contract); rows with a faster
    /// form override it.
    #[inline(always)]
    fn mul_basecase(self, r: &mut [u64], a: &[u64], b: &[u64]) {
        mul_basecase(self, r, a, b);
    }

    /// Montgomery reduction of the `2s`-word `t` into `out`, returning `top`, as
    /// [`redc`] (its contract and bounds); rows with a faster form override it.
    #[inline(always)]
    fn redc(self, t: &mut [u64], n: &[u64], n0: u64, out: &mut [u64]) -> u64 {
        redc(self, t, n, n0, out)
    }
}

/// Rows in plain Rust ([`addmul_1`]), for every target.
#[derive(Clone, Copy, Debug)]
pub struct Portable;

impl AddMul for Portable {
    #[inline(always)]
    fn addmul_1(self, r: &mut [u64], a: &[u64], b: u64) -> u64 {
        addmul_1(r, a, b)
    }
}

/// `r[..a.len()] += a * b`; returns the carry word out of `r[a.len() - 1]`.
///
/// Each step: `r[j] + a[j] * b + c <= 2^128 - 1` ([`mac`]), so the carry is one word.
#[inline(always)]
pub fn addmul_1(r: &mut [u64], a: &[u64], b: u64) -> u64 {
    let r = &mut r[..a.len()];
    let mut c = 0;
    for (r_j, &a_j) in r.iter_mut().zip(a) {
        (*r_j, c) = mac(*r_j, a_j, b, c);
    }
    c
}

/// `r = a + b` over `r.len()` words, `a` and `b` zero-extended; returns the carry (0/1).
#[inline(always)]
pub fn add_n(r: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
    let mut c = 0;
    for (j, r_j) in r.iter_mut().enumerate() {
        let x = a.get(j).copied().unwrap_or(0);
        let y = b.get(j).copied().unwrap_or(0);
        // x + y + c <= 2^65 - 1: the carry stays 0 or 1.
        (*r_j, c) = add3(x, y, c);
    }
    c
}

/// `r += a` in place, `a` zero-extended to `r.len()`; returns the carry (0/1).
#[inline(always)]
pub fn add_assign(r: &mut [u64], a: &[u64]) -> u64 {
    let mut c = 0;
    for (j, r_j) in r.iter_mut().enumerate() {
        let x = a.get(j).copied().unwrap_or(0);
        (*r_j, c) = add3(*r_j, x, c);
    }
    c
}

/// `r = a - b` over equal lengths; returns the borrow (0/1).
#[inline(always)]
pub fn sub_n(r: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
    let mut borrow = 0u64;
    for ((r_j, &x), &y) in r.iter_mut().zip(a).zip(b) {
        let (d1, b1) = x.overflowing_sub(y);
        let (d2, b2) = d1.overflowing_sub(borrow);
        *r_j = d2;
        // At most one of the two subtractions borrows.
        borrow = (b1 | b2) as u64;
    }
    borrow
}

/// `r = a * b` by rows of `R::addmul_1` (schoolbook); `r.len() == a.len() + b.len()`,
/// both non-empty.
#[inline(always)]
pub fn mul_basecase<R: AddMul>(rows: R, r: &mut [u64], a: &[u64], b: &[u64]) {
    let na = a.len();
    r[..na].fill(0);
    for (i, &b_i) in b.iter().enumerate() {
        r[na + i] = rows.addmul_1(&mut r[i..], a, b_i);
    }
}

/// `r = a^2`, `r.len() == 2 * a.len()`: every off-diagonal product `a[i] * a[j]`
/// (i < j) once, the sum doubled by a one-bit shift, then the diagonal `a[i]^2` added
/// (HAC 14.16, arranged as GMP's `sqr_basecase`). About half the products of
/// [`mul_basecase`].
#[inline(always)]
pub fn sqr_basecase<R: AddMul>(rows: R, r: &mut [u64], a: &[u64]) {
    let n = a.len();
    if n == 1 {
        r[0] = 0;
        r[1] = 0;
    } else {
        rows.sqr_triangle(r, a);
    }
    // The triangle is below 2^(64(2n-1)) / 2, so doubling it cannot overflow r.
    rows.double_add_diagonal(r, a);
}

/// The off-diagonal triangle by rows of `R::addmul_1` ([`AddMul::sqr_triangle`]): row
/// `i` adds `a[i+1..] a[i]` at word `2i + 1`; its carry word is `r[n + i]`, which no
/// earlier row reaches.
#[inline(always)]
pub fn sqr_triangle<R: AddMul>(rows: R, r: &mut [u64], a: &[u64]) {
    let n = a.len();
    r[..n].fill(0);
    r[2 * n - 1] = 0;
    for i in 0..n - 1 {
        r[n + i] = rows.addmul_1(&mut r[2 * i + 1..], &a[i + 1..], a[i]);
    }
}

/// `r = 2 r + sum a[i]^2 2^(128 i)`, `r.len() == 2 * a.len()`, the result below
/// `2^(64 r.len())`: a one-bit shift of `r`, then the diagonal added with the carry
/// running through.
#[inline(always)]
pub fn double_add_diagonal(r: &mut [u64], a: &[u64]) {
    let mut top = 0;
    for r_j in r.iter_mut() {
        let next = *r_j >> 63;
        *r_j = *r_j << 1 | top;
        top = next;
    }
    let mut c = 0u64;
    for (i, &a_i) in a.iter().enumerate() {
        let (lo, hi) = mac(0, a_i, a_i, 0);
        let (s0, c0) = add3(r[2 * i], lo, c);
        let (s1, c1) = add3(r[2 * i + 1], hi, c0);
        r[2 * i] = s0;
        r[2 * i + 1] = s1;
        // The result fits in r, so the final carry is 0; meanwhile c <= 1
        // (r + hi + c0 <= 2^64 - 1 + 2^64 - 2 + 2 < 2^65).
        c = c1;
    }
    debug_assert_eq!(c, 0);
}

/// Montgomery reduction (REDC, Montgomery 1985; GMP's `redc_1`): `out = t * R^-1 mod n`
/// for `t` of `2s` words with `t < n * R`, `R = 2^(64 s)`, `s = n.len()`. `t` is used as
/// scratch.
///
/// Returns `top` with `top * R + out = (t + q n) / R < 2n`; the caller subtracts n once
/// (full reduction) or keeps the value below 2n (lazy: then `R > 4n` makes `top` 0).
#[inline(always)]
pub fn redc<R: AddMul>(rows: R, t: &mut [u64], n: &[u64], n0: u64, out: &mut [u64]) -> u64 {
    let s = n.len();
    let mut top = 0u64;
    for i in 0..s {
        // q makes word i of t + q n 2^(64 i) zero.
        let q = t[i].wrapping_mul(n0);
        let c = rows.addmul_1(&mut t[i..], n, q);
        // Word i + s takes the row's carry and the carry left from the previous row:
        // t[i+s] + c + top <= 2 (2^64 - 1) + 1 < 2^65, so `top` stays 0 or 1.
        let (v, carry) = add3(t[i + s], c, top);
        t[i + s] = v;
        top = carry;
    }
    out.copy_from_slice(&t[s..2 * s]);
    top
}

/// `a - b - borrow` and the borrow out. On x86-64 through the `sbb` intrinsic: LLVM
/// then keeps the borrow in the carry flag from one word to the next (one `sbb` per
/// word), where the portable form below becomes a chain of `setb`/`or` on a byte
/// register, three times as long.
#[inline(always)]
pub fn sbb(a: u64, b: u64, borrow: u8) -> (u64, u8) {
    #[cfg(target_arch = "x86_64")]
    {
        let mut d = 0;
        let borrow = core::arch::x86_64::_subborrow_u64(borrow, a, b, &mut d);
        (d, borrow)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (d, b1) = a.overflowing_sub(b);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        (d, (b1 | b2) as u8)
    }
}

/// `t = t - n` if `top * 2^(64 len) + t >= n`, else unchanged; the value must be below
/// `2n`, `top` 0 or 1. The same two passes as [`crate::ct::reduce_once`]: the borrow of
/// `t - n`, then `t -= n & mask`, on [`sbb`], with the masked words of `n` made 16 at
/// a time before their chain (an `and` between two `sbb`s would clobber the carry
/// flag). Constant-time: yes (the subtraction is always computed; the choice is a
/// mask).
#[inline(always)]
pub fn reduce_once(t: &mut [u64], top: u64, n: &[u64]) {
    let mut borrow = 0;
    for (&x, &y) in t.iter().zip(n) {
        (_, borrow) = sbb(x, y, borrow);
    }
    // Subtract when the value is >= n: the top bit is set, or t - n did not borrow.
    let mask = (top | (borrow as u64 ^ 1)).wrapping_neg();
    let mut borrow = 0;
    for (t, n) in t.chunks_mut(16).zip(n.chunks(16)) {
        let mut masked = [0u64; 16];
        for (m, &y) in masked.iter_mut().zip(n) {
            *m = y & mask;
        }
        for (x, &m) in t.iter_mut().zip(&masked) {
            (*x, borrow) = sbb(*x, m, borrow);
        }
    }
}

/// Finishes a Montgomery product `top * R + t < 2n` under the modulus' policy: one
/// masked subtraction for [`Reduction::Full`]; nothing for [`Reduction::Lazy`], where
/// R > 4n puts the value below 2n < R/2, so `top` is 0 and `t` is the result.
#[inline(always)]
pub fn finish(t: &mut [u64], top: u64, n: &[u64], reduction: Reduction) {
    match reduction {
        Reduction::Full => reduce_once(t, top, n),
        Reduction::Lazy => debug_assert_eq!(top, 0),
    }
}

/// The Montgomery product `out = a b R^-1 mod n` (or the square, `b` = `None`) by the
/// separated method (seed 004 appendix, SOS): the whole product by `product` into `2s`
/// words, then [`redc`] and the policy's [`finish`], all on the rows `rows`. `product`
/// gets the `2s`-word destination and `scratch_len` words of scratch; operands and
/// output have `s = n.len()` words, below n (full) or 2n with R > 4n (lazy).
#[inline(always)]
pub fn mont_separated<R: AddMul>(
    rows: R,
    n: &[u64],
    n0: u64,
    reduction: Reduction,
    scratch_len: usize,
    out: &mut [u64],
    product: impl FnOnce(&mut [u64], &mut [u64]),
) {
    let s = n.len();
    with_scratch(2 * s + scratch_len, |buf| {
        let (wide, scratch) = buf.split_at_mut(2 * s);
        product(wide, &mut scratch[..scratch_len]);
        // Inputs below n (full) or 2n with R > 4n (lazy): the product is below n R.
        let top = rows.redc(wide, n, n0, out);
        finish(out, top, n, reduction);
    });
}

/// Runs `f` on a zeroed stack buffer of at least `len` words, from tiers of 32 to 4096
/// words doubling in size, so that no size pays for clearing more than twice what it
/// needs.
///
/// # Panics
/// When `len > 4096` words: montmul's largest modulus (16384 bits, 256 limbs) needs far
/// less scratch than that.
#[inline]
pub fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [u64]) -> R) -> R {
    /// One tier: a buffer of `W` words in its own stack frame.
    #[inline(never)]
    fn tier<const W: usize, R>(f: impl FnOnce(&mut [u64]) -> R) -> R {
        f(&mut [0u64; W])
    }
    match len {
        0..=32 => tier::<32, R>(f),
        33..=64 => tier::<64, R>(f),
        65..=128 => tier::<128, R>(f),
        129..=256 => tier::<256, R>(f),
        257..=512 => tier::<512, R>(f),
        513..=1024 => tier::<1024, R>(f),
        1025..=2048 => tier::<2048, R>(f),
        _ => {
            assert!(len <= 4096, "scratch of {len} words requested");
            tier::<4096, R>(f)
        }
    }
}

/// The value of little-endian 64-bit words as a num-bigint integer: the oracle's view
/// of a result, for the tests of every 64-bit pass.
#[cfg(test)]
pub(crate) fn oracle_value(words: &[u64]) -> num_bigint::BigUint {
    num_bigint::BigUint::from_slice(
        &words
            .iter()
            .flat_map(|&x| [x as u32, (x >> 32) as u32])
            .collect::<Vec<_>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to_u128(x: &[u64]) -> u128 {
        x.iter().rev().fold(0u128, |acc, &w| acc << 64 | w as u128)
    }

    #[test]
    fn products_of_two_words() {
        for &(a0, b0) in &[(u64::MAX, u64::MAX), (3, 5), (u64::MAX, 1)] {
            let mut r = [0u64; 2];
            mul_basecase(Portable, &mut r, &[a0], &[b0]);
            assert_eq!(to_u128(&r), a0 as u128 * b0 as u128);
        }
    }

    #[test]
    fn squaring_equals_multiplication() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in 1..=9 {
            for pattern in 0..3 {
                let a: Vec<u64> = (0..len)
                    .map(|_| {
                        x = x.rotate_left(17).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ 1;
                        [u64::MAX, x, 1 << 63][pattern]
                    })
                    .collect();
                let (mut sq, mut pr) = (vec![7u64; 2 * len], vec![0u64; 2 * len]);
                sqr_basecase(Portable, &mut sq, &a);
                mul_basecase(Portable, &mut pr, &a, &a);
                assert_eq!(sq, pr, "len {len} pattern {pattern}");
            }
        }
    }

    #[test]
    fn reduce_once_at_the_edges() {
        let n = [5u64, 1];
        let mut t = [4u64, 1];
        reduce_once(&mut t, 0, &n);
        assert_eq!(t, [4, 1]);
        let mut t = [5u64, 1];
        reduce_once(&mut t, 0, &n);
        assert_eq!(t, [0, 0]);
        let mut t = [0u64, 0];
        reduce_once(&mut t, 1, &n);
        // 2^128 - (2^64 + 5)
        assert_eq!(t, [u64::MAX - 4, u64::MAX - 1]);
    }

    /// Against num-bigint, at every length 1..=70 (across the 16-word chunks of the
    /// masked pass), on values at the edges of [0, 2n) and random ones, with words of
    /// all ones and zeros where the borrows run longest.
    #[test]
    fn reduce_once_equals_the_oracle() {
        use num_bigint::BigUint;
        let value = oracle_value;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut word = |pattern: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match pattern {
                0 => x,
                1 => [0, u64::MAX, x][(x % 3) as usize],
                _ => u64::MAX,
            }
        };
        for len in 1..=70usize {
            for pattern in 0..3 {
                let mut n: Vec<u64> = (0..len).map(|_| word(pattern)).collect();
                n[len - 1] |= 1 << 63;
                let big_n = value(&n);
                let r = value(&(0..len).map(|_| word(pattern)).collect::<Vec<_>>()) % &big_n;
                let one = BigUint::from(1u8);
                let two_n = &big_n << 1;
                for v in [
                    BigUint::ZERO,
                    &big_n - &one,
                    big_n.clone(),
                    &two_n - &one,
                    r.clone(),
                    &big_n + &r,
                ] {
                    let mut digits = v.to_u64_digits();
                    digits.resize(len + 1, 0);
                    let top = digits[len];
                    let mut t = digits[..len].to_vec();
                    reduce_once(&mut t, top, &n);
                    let want = if v >= big_n { &v - &big_n } else { v.clone() };
                    assert_eq!(value(&t), want, "len {len} pattern {pattern} value {v:x}");
                }
            }
        }
    }
}
