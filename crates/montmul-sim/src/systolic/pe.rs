//! What every processing element computes: one word of one MWR2MM iteration.
//!
//! Seed 003, Alg. 2, lines 3-9, for radix 2^k: with x the k-bit digit of X of this
//! iteration,
//!
//! - task A (word 0): q = (S^(0) + x Y^(0)) * (-M^-1) mod 2^k (for k = 1 this is the
//!   seed's q = x Y_0^(0) xor S_0^(0)), then (C^(1), S^(0)) = S^(0) + x Y^(0) + q M^(0);
//! - task B (word j): (C^(j+1), S^(j)) = C^(j) + x Y^(j) + q M^(j) + S^(j), and the
//!   shifted word S^(j-1) = (low k bits of S^(j), high w - k bits of S^(j-1));
//! - task C: S^(e-1) = (low k bits of C^(e), high w - k bits of S^(e-1)).

use montmul_testkit::num_bigint::BigUint;

use super::Config;
use crate::SimError;

/// The operands of one multiplication, cut into the words and digits the PEs see.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    /// w.
    pub word: u32,
    /// k.
    pub digit_bits: u32,
    /// Y^(0..e).
    pub y: Vec<u64>,
    /// M^(0..e).
    pub m: Vec<u64>,
    /// The D digits of X, least significant first.
    pub x: Vec<u64>,
    /// -M^-1 mod 2^k.
    pub m_prime: u64,
}

impl Problem {
    /// Cuts `x`, `y`, `m` for `config`; fails on an even or short modulus, a modulus of
    /// another length than `config.bits`, or an operand not below `m`.
    pub fn new(config: &Config, m: &BigUint, x: &BigUint, y: &BigUint) -> Result<Self, SimError> {
        crate::check::operands_fit(config.bits, m, x, y)?;
        let (w, k) = (config.word, config.digit_bits());
        let e = config.words();
        let digits = |v: &BigUint, width: u32, count: usize| -> Vec<u64> {
            (0..count)
                .map(|i| {
                    (0..width).fold(0u64, |acc, b| {
                        acc | (u64::from(v.bit(i as u64 * u64::from(width) + u64::from(b))) << b)
                    })
                })
                .collect()
        };
        let m0 = m.iter_u64_digits().next().unwrap_or(0) & ((1 << k) - 1);
        // For k <= 2 every odd m0 is its own inverse mod 2^k (1*1 = 1, 3*3 = 9 = 1 mod 4),
        // so -M^-1 mod 2^k = -m0 mod 2^k.
        let m_prime = m0.wrapping_neg() & ((1 << k) - 1);
        Ok(Problem {
            word: w,
            digit_bits: k,
            y: digits(y, w, e),
            m: digits(m, w, e),
            x: digits(x, k, config.digits()),
            m_prime,
        })
    }

    /// e.
    pub fn words(&self) -> usize {
        self.m.len()
    }

    /// D.
    pub fn digits(&self) -> usize {
        self.x.len()
    }

    /// 2^k - 1.
    pub fn digit_mask(&self) -> u64 {
        (1 << self.digit_bits) - 1
    }

    /// 2^w - 1.
    pub fn word_mask(&self) -> u64 {
        (1 << self.word) - 1
    }

    /// Task A's quotient digit q for the low word `s0` of S and the digit `x`.
    pub fn quotient(&self, s0: u64, x: u64) -> u64 {
        // (s0 mod 2^k) + x Y^(0) < 2^k + 3 * 2^32: no overflow in u64.
        ((s0 & self.digit_mask()) + x * self.y[0]).wrapping_mul(self.m_prime) & self.digit_mask()
    }

    /// One word step: (C^(j+1), U^(j)) = S^(j) + C^(j) + x Y^(j) + q M^(j), split at w
    /// bits; word `j == e` is task C (Y and M words are zero there).
    ///
    /// Bound: S, Y, M <= 2^w - 1, x, q <= 2^k - 1 and C <= 2^(k+1) - 2, so the sum is at
    /// most (2^w - 1)(2^(k+1) - 1) + 2^(k+1) - 2 = 2^w (2^(k+1) - 1) - 1 < 2^35 for
    /// w <= 32, and C^(j+1) <= 2^(k+1) - 2 again (2 for radix 2, 6 for radix 4).
    pub fn word_step(&self, j: usize, s: u64, c: u64, x: u64, q: u64) -> (u64, u64) {
        let (y, m) = if j < self.words() {
            (self.y[j], self.m[j])
        } else {
            (0, 0)
        };
        let sum = s + c + x * y + q * m;
        (sum & self.word_mask(), sum >> self.word)
    }

    /// The shifted word: the low k bits of `next` above the high w - k bits of `word`.
    pub fn shifted(&self, word: u64, next: u64) -> u64 {
        ((next & self.digit_mask()) << (self.word - self.digit_bits)) | (word >> self.digit_bits)
    }

    /// The integer whose w-bit words these are.
    pub fn to_integer(&self, words: &[u64]) -> BigUint {
        words
            .iter()
            .rev()
            .fold(BigUint::default(), |acc, &v| (acc << self.word) + v)
    }
}
