//! The multi-word accumulator of product scanning: the three-word array (`m[0]`, `m[1]`,
//! `m[2]`) of seed 004's FIPS (appendix), also the top words `t[s-1]`, `t[s]`, `t[s+1]` of CIHS.
//!
//! A product-scanning kernel adds every double-word product of one column (one power of
//! W = 2^w) into the accumulator's lowest word, rippling the carries upward, then emits
//! the lowest word and shifts the rest down by one word.
//!
//! How many words are needed. A column holds at most 2s products, each at most
//! (W-1)^2, plus the carry-in from the column before (the accumulator shifted down by
//! one word). If that carry-in is at most 2s(W-1), the column sum is at most
//! 2s(W-1)^2 + 2s(W-1) = 2s(W-1)W, and its carry-out (the sum shifted by w bits) is
//! again at most 2s(W-1): by induction every column sum stays below 2s * W^2. So
//! k words suffice when 2s <= W^(k-2):
//!
//! - three words, as in the appendix, when 2s <= W. That holds for every modulus montmul
//!   accepts at w >= 16 (w = 16: s <= 1025, 2s = 2050 <= 65536), but at w = 8 only up to
//!   s = 128, i.e. 1024-bit moduli (the size seed 004 timed on MMX);
//! - four words at w = 8: 16384-bit moduli under lazy reduction have s = 2049 limbs,
//!   2s = 4098 <= 2^16.
//!
//! The test `capacity_covers_the_largest_modulus` checks this for every word size.

use crate::Limb;

/// Storage for the widest accumulator (w = 8).
const MAX_WORDS: usize = 4;

/// A non-negative integer of [`Accumulator::WORDS`] words, little-endian.
///
/// Every operation runs a fixed sequence of word operations (no branch on the value),
/// so it is constant-time.
pub(crate) struct Accumulator<L: Limb> {
    words: [L; MAX_WORDS],
}

impl<L: Limb> Accumulator<L> {
    /// Words in use: 3 (the appendix's t, u, v) for w >= 16, 4 for w = 8 (see the module
    /// documentation for the bound).
    pub(crate) const WORDS: usize = if L::BITS <= 8 { 4 } else { 3 };

    /// Zero.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Accumulator {
            words: [L::ZERO; MAX_WORDS],
        }
    }

    /// The lowest word, m[0].
    #[inline(always)]
    pub(crate) fn low(&self) -> L {
        self.words[0]
    }

    /// `self += x * y`: `(C,S) := m[0] + x*y; m[0] := S; ADD(m[1], C)`.
    ///
    /// Bound: m[0] + x*y <= (2^w - 1) + (2^w - 1)^2 < 2^(2w) (Limb::mac).
    #[inline(always)]
    pub(crate) fn mul_add(&mut self, x: L, y: L) {
        let (lo, hi) = L::mac(self.words[0], x, y, L::ZERO);
        self.words[0] = lo;
        self.ripple_from(1, hi);
    }

    /// `self += c` for one word `c`, added at m[0].
    #[inline(always)]
    pub(crate) fn add(&mut self, c: L) {
        self.ripple_from(0, c);
    }

    /// Removes and returns the lowest word: `m[0] := m[1]; m[1] := m[2]; m[2] := 0`.
    #[inline(always)]
    pub(crate) fn shift(&mut self) -> L {
        let low = self.words[0];
        for k in 1..Self::WORDS {
            self.words[k - 1] = self.words[k];
        }
        self.words[Self::WORDS - 1] = L::ZERO;
        low
    }

    /// The words above the lowest, which must be zero once the last column is out.
    #[inline(always)]
    pub(crate) fn high_is_zero(&self) -> bool {
        self.words[1..Self::WORDS].iter().all(|&x| x == L::ZERO)
    }

    /// The appendix's ADD(m[from], c), written branch-free: the carry goes through every
    /// word up to the top whether or not it is zero, a fixed number of `adc`s. The bound
    /// in the module documentation keeps the carry out of the top word at 0.
    #[inline(always)]
    fn ripple_from(&mut self, from: usize, c: L) {
        let (first, mut carry) = L::adc(self.words[from], c, L::ZERO);
        self.words[from] = first;
        for k in from + 1..Self::WORDS {
            (self.words[k], carry) = L::adc(self.words[k], L::ZERO, carry);
        }
        debug_assert!(carry == L::ZERO, "accumulator overflow");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MAX_BITS;

    fn capacity<L: Limb>() {
        // The most limbs any modulus has: MAX_BITS plus the two bits of lazy headroom.
        let s_max = (MAX_BITS as u128 + 2).div_ceil(L::BITS as u128);
        let room = 1u128 << (L::BITS as usize * (Accumulator::<L>::WORDS - 2));
        assert!(
            2 * s_max <= room,
            "w = {}: 2s = {} exceeds W^(k-2) = {room}",
            L::BITS,
            2 * s_max
        );
    }

    #[test]
    fn capacity_covers_the_largest_modulus() {
        capacity::<u8>();
        capacity::<u16>();
        capacity::<u32>();
        capacity::<u64>();
        // And three words would not do at w = 8.
        assert!(2 * (MAX_BITS + 2).div_ceil(8) > 256);
    }

    #[test]
    fn matches_wide_integer_arithmetic() {
        // Four 8-bit words against u32: the largest column sums of a 16384-bit modulus.
        let mut acc = Accumulator::<u8>::new();
        let mut want: u32 = 0;
        let mut x: u32 = 0x1234_5678;
        for step in 0..40_000u32 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let (a, b) = ((x >> 24) as u8 | 0xc0, (x >> 16) as u8 | 0xc0);
            acc.mul_add(a, b);
            want += a as u32 * b as u32;
            if step % 97 == 0 {
                acc.add(x as u8);
                want += x as u8 as u32;
            }
            if step % 4096 == 4095 {
                assert_eq!(acc.shift(), want as u8);
                want >>= 8;
            }
            let got = acc.words[..4]
                .iter()
                .rev()
                .fold(0u32, |v, &w| v << 8 | w as u32);
            assert_eq!(got, want, "step {step}");
        }
        while want != 0 {
            assert_eq!(acc.shift(), want as u8);
            want >>= 8;
        }
        assert!(acc.high_is_zero() && acc.low() == 0);
    }
}
