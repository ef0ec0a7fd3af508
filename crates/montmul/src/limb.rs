//! Machine words ("limbs") of 8, 16, 32 and 64 bits.
//!
//! The seeds use every one of these widths: w = 8 for MMX (seed 004), w = 16 for the
//! Cell SPE, the multi-core platform and the systolic arrays (seeds 000, 002, 003),
//! w = 32 for SSE/NEON (seed 001), and w = 64 is today's word. Every algorithm in
//! [`crate::algo`] is written once, generic over [`Limb`].
//!
//! All primitives here are branch-free: they are built from double-width products and
//! shifts, so they are safe to use on secret data.

use core::fmt::Debug;

/// An unsigned machine word with double-width multiply and carry/borrow arithmetic.
///
/// Every operation is total (no overflow panics) and branch-free. What differs per limb
/// type beyond arithmetic (its list of kernels) is [`crate::lab::PerWord`].
///
/// [`zeroize::DefaultIsZeroes`] lets every limb vector that may hold a secret (residues,
/// RSA's p and q as moduli) be wiped on drop with the `zeroize` crate.
pub trait Limb:
    Copy
    + Clone
    + Debug
    + Default
    + Eq
    + Ord
    + Send
    + Sync
    + zeroize::DefaultIsZeroes
    + 'static
    + crate::kernel::traits::PerWord
{
    /// Width of the word in bits (`w` in the seeds).
    const BITS: u32;
    /// The value 0.
    const ZERO: Self;
    /// The value 1.
    const ONE: Self;
    /// The value 2^w - 1 (all bits set).
    const MAX: Self;

    /// Truncates a `u64` to this width.
    fn from_u64(x: u64) -> Self;
    /// Widens this word to a `u64`.
    fn to_u64(self) -> u64;

    /// `a + b + carry`, returned as `(low word, carry out)`; `carry` must be 0 or 1.
    ///
    /// Bound: `(2^w - 1) + (2^w - 1) + 1 = 2^(w+1) - 1`, so the carry out is 0 or 1.
    fn adc(a: Self, b: Self, carry: Self) -> (Self, Self);

    /// `a - b - borrow`, returned as `(low word, borrow out)`; `borrow` must be 0 or 1.
    fn sbb(a: Self, b: Self, borrow: Self) -> (Self, Self);

    /// `acc + a * b + carry`, returned as `(low word, high word)`.
    ///
    /// Bound: `(2^w - 1) + (2^w - 1)^2 + (2^w - 1) = 2^(2w) - 1`, so the result always
    /// fits in two words, whatever the inputs.
    fn mac(acc: Self, a: Self, b: Self, carry: Self) -> (Self, Self);

    /// `a * b` as `(low word, high word)`.
    fn mul_wide(a: Self, b: Self) -> (Self, Self);

    /// `a * b mod 2^w`.
    fn wrapping_mul(self, rhs: Self) -> Self;
    /// `a + b mod 2^w`.
    fn wrapping_add(self, rhs: Self) -> Self;
    /// `a - b mod 2^w`.
    fn wrapping_sub(self, rhs: Self) -> Self;
    /// `-a mod 2^w`.
    fn wrapping_neg(self) -> Self;
    /// Bitwise and.
    fn and(self, rhs: Self) -> Self;
    /// Bitwise or.
    fn or(self, rhs: Self) -> Self;
    /// Bitwise xor.
    fn xor(self, rhs: Self) -> Self;
    /// Logical shift left by `s < w` bits.
    fn shl(self, s: u32) -> Self;
    /// Logical shift right by `s < w` bits.
    fn shr(self, s: u32) -> Self;

    /// Turns a 0/1 flag into a mask: 0 -> 0, 1 -> all ones. Branch-free.
    #[inline(always)]
    fn mask_from_bit(bit: Self) -> Self {
        bit.wrapping_neg()
    }

    /// `n^-1 mod 2^w` for odd `n` (Newton-Hensel iteration, each step doubles the
    /// number of correct low bits: 1 -> 2 -> 4 -> ... -> 64).
    ///
    /// The result is unspecified for even `n`.
    fn inv_mod_word(n: Self) -> Self {
        // x = n is correct to 3 bits for odd n (n*n = 1 mod 8).
        let two = Self::ONE.wrapping_add(Self::ONE);
        let mut x = n;
        let mut correct = 3;
        while correct < Self::BITS {
            // x <- x * (2 - n*x)
            x = x.wrapping_mul(two.wrapping_sub(n.wrapping_mul(x)));
            correct *= 2;
        }
        x
    }
}

macro_rules! impl_limb {
    ($t:ty, $wide:ty) => {
        impl Limb for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const MAX: Self = <$t>::MAX;

            #[inline(always)]
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn adc(a: Self, b: Self, carry: Self) -> (Self, Self) {
                let s = a as $wide + b as $wide + carry as $wide;
                (s as $t, (s >> <$t>::BITS) as $t)
            }
            #[inline(always)]
            fn sbb(a: Self, b: Self, borrow: Self) -> (Self, Self) {
                let d = (a as $wide).wrapping_sub(b as $wide + borrow as $wide);
                // The high half is all ones exactly when the difference went negative.
                (d as $t, ((d >> <$t>::BITS) as $t) & 1)
            }
            #[inline(always)]
            fn mac(acc: Self, a: Self, b: Self, carry: Self) -> (Self, Self) {
                let s = acc as $wide + (a as $wide) * (b as $wide) + carry as $wide;
                (s as $t, (s >> <$t>::BITS) as $t)
            }
            #[inline(always)]
            fn mul_wide(a: Self, b: Self) -> (Self, Self) {
                let p = (a as $wide) * (b as $wide);
                (p as $t, (p >> <$t>::BITS) as $t)
            }
            #[inline(always)]
            fn wrapping_mul(self, rhs: Self) -> Self {
                <$t>::wrapping_mul(self, rhs)
            }
            #[inline(always)]
            fn wrapping_add(self, rhs: Self) -> Self {
                <$t>::wrapping_add(self, rhs)
            }
            #[inline(always)]
            fn wrapping_sub(self, rhs: Self) -> Self {
                <$t>::wrapping_sub(self, rhs)
            }
            #[inline(always)]
            fn wrapping_neg(self) -> Self {
                <$t>::wrapping_neg(self)
            }
            #[inline(always)]
            fn and(self, rhs: Self) -> Self {
                self & rhs
            }
            #[inline(always)]
            fn or(self, rhs: Self) -> Self {
                self | rhs
            }
            #[inline(always)]
            fn xor(self, rhs: Self) -> Self {
                self ^ rhs
            }
            #[inline(always)]
            fn shl(self, s: u32) -> Self {
                self << s
            }
            #[inline(always)]
            fn shr(self, s: u32) -> Self {
                self >> s
            }
        }
    };
}

impl_limb!(u8, u16);
impl_limb!(u16, u32);
impl_limb!(u32, u64);
impl_limb!(u64, u128);

/// Word widths the generic algorithms are built for, as the CLI names them.
pub const WORD_SIZES: [u32; 4] = [8, 16, 32, 64];

#[cfg(test)]
mod tests {
    use super::*;

    fn check_inverse<L: Limb>() {
        for n in [1u64, 3, 5, 0x7f, 0xff, 0x1234_5679, u64::MAX] {
            let n = L::from_u64(n).or(L::ONE);
            assert_eq!(n.wrapping_mul(L::inv_mod_word(n)), L::ONE, "n = {n:?}");
        }
    }

    #[test]
    fn inverse_mod_word_all_widths() {
        check_inverse::<u8>();
        check_inverse::<u16>();
        check_inverse::<u32>();
        check_inverse::<u64>();
    }

    #[test]
    fn carries_at_the_extremes() {
        assert_eq!(u8::adc(0xff, 0xff, 1), (0xff, 1));
        assert_eq!(u8::sbb(0, 0xff, 1), (0, 1));
        assert_eq!(u8::sbb(5, 3, 1), (1, 0));
        assert_eq!(u8::mac(0xff, 0xff, 0xff, 0xff), (0xff, 0xff));
        assert_eq!(
            u64::mac(u64::MAX, u64::MAX, u64::MAX, u64::MAX),
            (u64::MAX, u64::MAX)
        );
        for x in [0u16, 1, 2, 0x8000, 0xffff] {
            let (lo, hi) = u16::mul_wide(x, x);
            assert_eq!((hi as u32) << 16 | lo as u32, x as u32 * x as u32);
        }
    }
}
