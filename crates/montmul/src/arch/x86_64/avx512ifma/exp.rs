//! Constant-time exponentiation in the 52-bit digit domain of `amm52-ifma`.
//!
//! Every product of `amm52-ifma` ([`super`]) converts its operands from 64-bit limbs into
//! 52-bit digits, runs the word-serial loop, propagates the carries, converts back and
//! subtracts n once with a mask; at 1024 bits the conversions and the subtraction take
//! about 30% of the time of the loop. An exponentiation chains a thousand products on
//! the same values, so here the fixed-window ladder of [`crate::exp`] runs on digit
//! vectors from the first product to the last: the base is converted once, the result
//! once, and each product in between is the kernel's loop and its carry pass done
//! with vector operations, after OpenSSL's `rsaz-avx512` code, in registers
//! (`mul_digits`, or `sqr_digits` for a square): no conversion, no
//! subtraction.
//!
//! # The digit domain
//!
//! n has s limbs, R = 2^(64 s). The ladder uses d' digits and R' = 2^(52 d'), with
//! d' = ceil(64 s / 52) (the kernel's digit count), plus one when 52 d' < bits(n) + 2,
//! so that R' > 4n. Its product is mont'(x, y) = x y R'^-1 mod n, computed lazily:
//! for x, y < 2n, (x y + Q n) / R' < 4n^2 / R' + n < 2n, so every value stays in
//! [0, 2n) (d' digits, each below 2^52 after the carry pass) and nothing is
//! subtracted inside the ladder. Let e = 52 d' - 64 s (0 <= e < 104), R' = R 2^e.
//!
//! The map phi(x) = x 2^e mod n takes montmul's Montgomery form (x R) to the digit
//! domain's (x R'), and commutes with the product:
//! mont'(x 2^e, y 2^e) = x y 2^(2e) / (R 2^e) = (x y R^-1) 2^e. The constants, from
//! the modulus' R^2 mod n ([`scaled_ones`]):
//!
//! - in: phi(b) = mont'(b, C_in) with C_in = R 2^(2e) mod n
//!   (b C_in / R' = b R 2^(2e) / (R 2^e) = b 2^e);
//! - one: phi(R mod n) = R 2^e mod n = R' mod n;
//! - out: for y = phi(z) = z 2^e, mont'(y, R mod n) = z 2^e R / (R 2^e) = z mod n:
//!   back in montmul's form. The result is below 2n; for
//!   [`Reduction::Full`](crate::Reduction::Full) one masked subtraction brings it below
//!   n.
//!
//! Table reads are masked copies of whole digit vectors, the trace is the limb
//! ladder's ([`crate::exp::fixed_window`] is shared, through
//! [`crate::kernel::Kernel::pow_domain`]): constant-time as [`crate::exp::pow`]; the
//! table reads are masked ORs of whole entries (AVX2), as the limb ladder's. Squarings call the kernel's
//! `sqr_digits`: its wide squaring from 30 digit vectors (moduli above 12032 bits), the
//! multiplication below.

use super::digits::{join_group, split_group, MAX_VECTORS};
use super::finish::finish;
use super::mul::mul_digits;
use super::sqr::sqr_digits;
use crate::arch::cpu::Avx512Ifma;
use crate::arch::x86_64::domain::scaled_ones;
use crate::kernel::traits::PowDomain;
use crate::{Modulus, Reduction};
use zeroize::Zeroize;

/// The digit domain for a modulus of `s` limbs and `bits` bits: (d', V', e) with d'
/// digits (R' = 2^(52 d') > 4n), V' = ceil(d' / 8) vectors, e = 52 d' - 64 s.
pub fn shape(s: usize, bits: u32) -> (usize, usize, u32) {
    let d = (64 * s).div_ceil(52);
    let d = if 52 * d < bits as usize + 2 { d + 1 } else { d };
    (d, d.div_ceil(8), (52 * d - 64 * s) as u32)
}

/// A digit-domain product for one vector count: `out` = the normalised digits of
/// mont'(a, b) (the squaring ignores `b`).
type MulFn = unsafe fn(&[u64], &[u64], &[u64], u64, usize, &mut [u64]);

/// mont'(a, b): [`mul_digits`] (the value is below 2n < 2^(52 d'): no carry
/// out).
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn mul<const V: usize>(a: &[u64], b: &[u64], n: &[u64], n0: u64, d: usize, out: &mut [u64]) {
    // SAFETY: the caller guarantees the CPU features; the lengths are checked inside.
    let carry = unsafe { mul_digits::<V>(a, b, n, n0, d, out) };
    debug_assert_eq!(carry, 0);
}

/// mont'(a, a): [`sqr_digits`].
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn sqr<const V: usize>(a: &[u64], _: &[u64], n: &[u64], n0: u64, d: usize, out: &mut [u64]) {
    // SAFETY: the caller guarantees the CPU features; the lengths are checked inside.
    let carry = unsafe { sqr_digits::<V>(a, n, n0, d, out) };
    debug_assert_eq!(carry, 0);
}

/// The multiplication and the squaring for `v` vectors.
fn products(v: usize) -> (MulFn, MulFn) {
    macro_rules! by_vectors {
        ($v:expr, $($n:literal)*) => {
            match $v {
                $($n => (mul::<$n> as MulFn, sqr::<$n> as MulFn),)*
                _ => unreachable!("more vectors than the largest modulus needs"),
            }
        };
    }
    by_vectors!(v,
        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
        21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40)
}

/// The digit domain of one modulus: n's digits, the constants of the module doc, and
/// the products for its vector count. Values are 8 V' digits, each below 2^52, the
/// digits from d' up 0. Built with the [`Avx512Ifma`] token, which it holds.
pub(super) struct Digits {
    /// The proof that the CPU has AVX-512F and AVX-512 IFMA.
    _token: Avx512Ifma,
    /// The policy of the modulus, for the way out.
    reduction: Reduction,
    /// Limbs s.
    s: usize,
    /// Digits d'.
    d: usize,
    /// n as 8 V' digits.
    n: Vec<u64>,
    /// n as s limbs (for the final subtraction).
    n_words: Vec<u64>,
    /// -n^-1 mod 2^64 (its low 52 bits are -n^-1 mod 2^52).
    n0: u64,
    /// R' mod n: the domain's 1.
    one: Vec<u64>,
    /// C_in = R 2^(2e) mod n.
    c_in: Vec<u64>,
    /// R mod n, as digits.
    r1: Vec<u64>,
    mul: MulFn,
    sqr: MulFn,
}

impl Digits {
    /// The domain of the modulus `m`.
    pub(super) fn new(token: Avx512Ifma, m: &Modulus<u64>) -> Self {
        let (n, r1, n0) = (m.n(), m.r1(), m.n0());
        let s = n.len();
        let bits = 64 * s as u32 - n[s - 1].leading_zeros();
        let (d, v, e) = shape(s, bits);
        assert!(v <= MAX_VECTORS);
        let (mul, sqr) = products(v);
        // R 2^e and R 2^(2e) mod n (`one`, `x`), fully reduced.
        let (one, x) = scaled_ones(m, e);
        let digits = |x: &[u64]| {
            let mut out = vec![0; 8 * v];
            Digits::to_digits(x, &mut out);
            out
        };
        Digits {
            _token: token,
            reduction: m.reduction(),
            s,
            d,
            n: digits(n),
            n_words: n.to_vec(),
            n0,
            one: digits(&one),
            c_in: digits(&x),
            r1: digits(r1),
            mul,
            sqr,
        }
    }

    /// `out` (8 V' digits) = the digits of `x` (s limbs, below 2^(52 d')), by groups
    /// of 13 words on the stack. Shifts and masks only: constant-time; allocates nothing.
    pub(super) fn to_digits(x: &[u64], out: &mut [u64]) {
        // 16 digits a group; 13 G >= s words since 52 d' >= 64 s.
        for (g, digits) in out.chunks_mut(16).enumerate() {
            let mut w = [0u64; 13];
            let from = (13 * g).min(x.len());
            let to = (13 * g + 13).min(x.len());
            w[..to - from].copy_from_slice(&x[from..to]);
            let split = split_group(&w);
            digits.copy_from_slice(&split[..digits.len()]);
        }
    }

    /// `out` (s limbs) = the value of the digits `z` (each below 2^52, value below 2n),
    /// reduced under `reduction` with one masked subtraction; `words` holds
    /// [`Digits::word_len`] words. Allocates nothing.
    fn to_words(&self, z: &[u64], out: &mut [u64], words: &mut [u64], reduction: Reduction) {
        for (digits, w) in z.chunks(16).zip(words.chunks_mut(13)) {
            let mut g = [0u64; 16];
            g[..digits.len()].copy_from_slice(digits);
            w.copy_from_slice(&join_group(&g));
        }
        // The value is below 2n < 2^(64 s + 1): the bits above `out` are word s, if any.
        let top = words.get(self.s).copied().unwrap_or(0);
        finish(&words[..self.s], top, &self.n_words, reduction, out);
    }

    /// The words [`Digits::to_words`] joins the digits into: 13 per group of 16
    /// digits.
    fn word_len(&self) -> usize {
        13 * self.n.len().div_ceil(16)
    }
}

/// The constants of a secret modulus (RSA's p and q) are wiped with the domain.
impl Drop for Digits {
    fn drop(&mut self) {
        for v in [
            &mut self.n,
            &mut self.n_words,
            &mut self.one,
            &mut self.c_in,
            &mut self.r1,
        ] {
            v.zeroize();
        }
        self.n0.zeroize();
    }
}

impl PowDomain<u64> for Digits {
    fn words(&self) -> usize {
        self.n.len()
    }

    /// The digits of the value entering or leaving, then the words they join into.
    fn scratch_words(&self) -> usize {
        self.n.len() + self.word_len()
    }

    fn one(&self, out: &mut [u64]) {
        out.copy_from_slice(&self.one);
    }

    /// phi(x) = mont'(x, C_in).
    fn enter(&self, x: &[u64], out: &mut [u64], scratch: &mut [u64]) {
        let digits = &mut scratch[..self.n.len()];
        Digits::to_digits(x, digits);
        self.mul(digits, &self.c_in, out);
    }

    /// mont'(y, R mod n), below 2n, then the policy's finish.
    fn leave(&self, y: &[u64], out: &mut [u64], scratch: &mut [u64]) {
        let (z, words) = scratch.split_at_mut(self.n.len());
        self.mul(y, &self.r1, z);
        self.to_words(z, out, &mut words[..self.word_len()], self.reduction);
    }

    fn sqr(&self, a: &[u64], out: &mut [u64]) {
        // SAFETY: the token proves AVX-512F and IFMA; every value is 8 V' digits below
        // 2^52 and d' <= 8 V' (the functions' asserts check the lengths); the values
        // are below 2n < 2^(52 d'), so nothing carries past the digits.
        unsafe { (self.sqr)(a, a, &self.n, self.n0, self.d, out) };
    }

    fn mul(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        // SAFETY: as in `sqr`.
        unsafe { (self.mul)(a, b, &self.n, self.n0, self.d, out) };
    }
}
