//! Constant-time reduction of a value of any length modulo n, straight into Montgomery
//! form: `c mod p` for a CRT half, a hash output reduced into a field.
//!
//! Horner's rule over digits of `c = bits(n) - 1` bits (HAC 14.3.1's idea of reducing
//! a long value by a few multiplications with a precomputed power of the radix, here
//! with Montgomery products, as BearSSL's `br_i31_decode_reduce` does word by word):
//! the value is `x = sum x_j 2^(c j)` with every digit `x_j < 2^c < n`, so each digit is
//! a valid kernel input as it is. With `K = 2^c R mod n`, the Montgomery product
//! `MontMul(acc, K) = acc * 2^c mod n`: one product and one modular addition per digit,
//! so the work is about `len(x) / bits(n)` products, never a bit-serial loop over x. A
//! last product with `R^2 mod n` turns the plain result `x mod n` into `x R mod n`.
//!
//! Constant-time: the digit count, every digit's position and the sequence of products
//! depend only on the lengths of x and n (public); the additions reduce with masks.

use zeroize::Zeroize;

use crate::{ct, Limb, Modulus};

/// `out = x R mod n` (Montgomery form, below [`Modulus::bound`]) for little-endian `x`
/// of any length (empty is 0); `out` has [`Modulus::limbs`] limbs.
///
/// Constant-time in the values of x and n; its work depends on `x.len()` and the
/// modulus' size only: `ceil(w x.len() / (bits - 1)) + 1` Montgomery products.
pub(crate) fn reduce_wide<L: Limb>(m: &Modulus<L>, x: &[L], out: &mut [L]) {
    let s = m.limbs();
    // n is odd and > 1, so bits >= 2 and c >= 1; 2^c < n because n is not a power of 2.
    let c = m.bits() as usize - 1;
    let digits = (x.len() * L::BITS as usize).div_ceil(c).max(1);
    // K = MontMul(2^c, R^2) = 2^c R mod n (2^c < n is a valid input).
    let mut k = vec![L::ZERO; s];
    let mut pow = vec![L::ZERO; s];
    let w = L::BITS as usize;
    pow[c / w] = L::ONE.shl((c % w) as u32);
    m.mont_mul(&pow, m.r2(), &mut k);
    let mut acc = vec![L::ZERO; s];
    let mut digit = vec![L::ZERO; s];
    let mut tmp = vec![L::ZERO; s];
    digit_at(x, (digits - 1) * c, c, &mut acc);
    for j in (0..digits - 1).rev() {
        // acc < B (the bound) is a valid input; the product is acc 2^c mod n, below B.
        m.mont_mul(&acc, &k, &mut tmp);
        digit_at(x, j * c, c, &mut digit);
        // tmp < B and digit < n <= B: the sum is below 2B (a carry out of the top limb
        // is possible for Full, where B = n may fill every bit), and one masked
        // subtraction of B lands it below B.
        let carry = ct::add(&mut acc, &tmp, &digit);
        ct::reduce_once(&mut acc, carry, m.bound());
    }
    // x mod n (plain) times R^2 / R: the Montgomery form.
    m.mont_mul(&acc, m.r2(), out);
    acc.zeroize();
    digit.zeroize();
    tmp.zeroize();
}

/// `out = floor(x / 2^lo) mod 2^c` (bits `lo .. lo + c` of x, zero past its end), with
/// `c <= w out.len()`. Every index and shift depends on `lo`, `c` and the lengths only.
fn digit_at<L: Limb>(x: &[L], lo: usize, c: usize, out: &mut [L]) {
    let w = L::BITS as usize;
    let (word, sh) = (lo / w, (lo % w) as u32);
    let at = |i: usize| x.get(i).copied().unwrap_or(L::ZERO);
    for (k, o) in out.iter_mut().enumerate() {
        let low = at(word + k);
        *o = if sh == 0 {
            low
        } else {
            low.shr(sh).or(at(word + k + 1).shl(L::BITS - sh))
        };
        // Keep the bits below c: whole limbs below it, part of the limb that holds it.
        let start = k * w;
        if start >= c {
            *o = L::ZERO;
        } else if c - start < w {
            *o = o.and(L::MAX.shr((w - (c - start)) as u32));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_across_limbs() {
        // x = 0x0403_0201 in u8 limbs.
        let x = [0x01u8, 0x02, 0x03, 0x04];
        let mut out = [0u8; 2];
        digit_at(&x, 4, 12, &mut out);
        // (0x04030201 >> 4) & 0xfff = 0x020
        assert_eq!(out, [0x20, 0x00]);
        digit_at(&x, 8, 16, &mut out);
        assert_eq!(out, [0x02, 0x03]);
        digit_at(&x, 28, 9, &mut out);
        // Past the end: only bits 28..32 = 0x0.
        assert_eq!(out, [0x00, 0x00]);
        digit_at(&x, 26, 9, &mut out);
        // bits 26..35: 0x04 >> 2 = 0x01.
        assert_eq!(out, [0x01, 0x00]);
    }
}
