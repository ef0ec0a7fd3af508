//! `amm52-ifma`: almost-Montgomery multiplication in radix 2^52 on AVX-512 IFMA.
//!
//! Montgomery, *Modular multiplication without trial division*, Math. Comp. 44 (1985);
//! the 52-bit digit layout and the almost-Montgomery loop are those of Gueron and
//! Krasnov, *Accelerating big integer arithmetic using Intel IFMA extensions*, ARITH 23
//! (2016), and Drucker and Gueron, *Fast modular squaring with AVX512IFMA*, ITNG 2019
//! (OpenSSL's `ossl_rsaz_amm52x20_x1_ifma256`). `vpmadd52luq`/`vpmadd52huq` multiply
//! the low 52 bits of two 64-bit lanes and add the low or the high 52 bits of the
//! 104-bit product to a third lane, eight lanes at a time.
//!
//! # The computation
//!
//! montmul's R is 2^(64 s) for s 64-bit limbs. The operands and n are split into
//! d = ceil(64 s / 52) digits of 52 bits, held one per 64-bit lane, eight lanes per
//! vector, V = ceil(d / 8) vectors. The loop does d word-serial Montgomery steps, each
//! dividing by 2^52, so it divides by 2^(52 d) = 2^(64 s + e), e = 52 d - 64 s in
//! [0, 52). To land on R exactly, `b` is converted shifted left by e bits:
//! b' = b 2^e < 2^(52 d) still fits in d digits, and
//! (a b' + Q n) / 2^(52 d) = (a b + Q n 2^-e) / 2^(64 s) is congruent to a b R^-1.
//! Bound: Q < 2^(52 d) and a b < n R (both operands below n, or below 2n with
//! R > 4n), so the result is below a b / R + n < 2n, as after REDC
//! ([`crate::mpn::redc`]); the final subtraction takes n off once, with a mask, for
//! [`Reduction::Full`].
//!
//! One step, for digit b'_i (all digits below 2^52):
//!
//! 1. q = (A_0 + a_0 b'_i) n0' mod 2^52, in scalar registers (n0' = -n^-1 mod 2^52, the
//!    low 52 bits of [`Modulus::n0`]);
//! 2. A += lo52(a b'_i) + lo52(n q), lane by lane (`vpmadd52luq`); lane 0 is now
//!    0 mod 2^52 and its high 12 bits carry into lane 1;
//! 3. shift every lane down one (`valignq`);
//! 4. A += hi52(a b'_i) + hi52(n q) (`vpmadd52huq`): the high half of the product at
//!    lane j belongs to lane j + 1, which is lane j after the shift.
//!
//! Lane 0 lives in a scalar register: the next step's A_0 is the old lane 1 plus
//! lo52(a_1 b'_i) + lo52(n_1 q) + hi52(a_0 b'_i) + hi52(n_0 q) + the carry, computed
//! with scalar multiplications, so the next q waits for neither the vectors nor a lane
//! extraction (lane 1 is read one step ahead). q is computed as q 2^12 = t (n0' 2^12)
//! mod 2^64: then hi52(n_0 q) is the high word of n_0 (q 2^12), lo52(n_1 q) the low
//! word of n_1 (q 2^12) shifted right 12, and the carry out of lane 0 is read off t
//! alone (t + lo52(n_0 q) is t rounded up to a multiple of 2^52). Up to
//! `mul::CHAINED_VECTORS` vectors each vector's four halves are chained into one sum
//! off the accumulator (the low halves taken with a and n shifted down one lane, so
//! that they land where the shift puts the lanes), and the accumulator's chain is the
//! shift and one add; above, where those two copies would spill, the low halves go
//! into the accumulator before the shift and the high halves after it (multiply-added
//! onto the shifted accumulator from `mul::ONTO_SHIFT_VECTORS`, where the step is bound
//! by the multiply-add ports and not by that longer chain).
//!
//! The lanes are never normalised inside the loop: the 12 bits above each digit absorb
//! the carries. Bound: one step adds to a lane at most 4 (2^52 - 1) < 2^54 (two low
//! and two high halves, each below 2^52), and a lane takes part in at most d steps, so
//! every lane stays below d 2^54 + 2^12 (the carry into lane 0 is the top 12 bits of a
//! 64-bit lane). That is below 2^64 while d <= 1023; montmul's largest modulus
//! (16384 bits, 257 limbs under lazy reduction) has d = 317, below 2^63. Lanes from
//! d upward stay 0: the digits of `a` and `n` there are 0. After the loop the carries
//! are propagated with vector operations (`finish::normalise_vectors`, after OpenSSL's
//! `rsaz-avx512`) and the digits packed back into 64-bit limbs.
//!
//! The conversions 64 -> 52 -> 64 bits cost O(s) per call (groups of 13 words and 16
//! digits, [`digits::split_group`], [`digits::join_group`]), against d^2 / 2 vector multiply-adds (4
//! per vector per step). A product keeps everything between its input and output
//! words in registers: the operands are split with masked loads straight from the
//! words, permutes and variable shifts (`digits::split`; b's shift by e is done on the
//! digits, `digits::shift_up`), and after the loop the carries are propagated, n
//! subtracted in the digit domain (the borrows rippled as the carries are,
//! `finish::finish_digits`) and the digits joined and stored masked to the output words
//! (`digits::join_store`). `montmul tune` measures where the kernel
//! starts to win (`ifma_from` in `crate::thresholds`). Exponentiation avoids the
//! conversions between products: [`exp`].
//!
//! Squaring: `sqr::sqr_wide` (core `sqr::sqr_lanes`, on digits) computes each
//! off-diagonal digit product once, against a copy of the operand doubled as a number:
//! it first builds the whole square by output vector (no serial dependency), then
//! reduces it in a window that moves one whole vector every 8 steps (8 shifted copies
//! of n, the phases unrolled: no per-step shift or add). It is used from 30 vectors
//! (`sqr::SQR_WIDE_VECTORS`, 189 limbs), where it measured 0.94-0.99x of `mul`; below,
//! down to 19 vectors, 1.01-1.07x. Elsewhere, and for `Full` when 52 d = 64 s, the
//! squaring is the multiplication, with the operand split into digits once
//! (`mul::sqr_by_mul`). On Zen 4 the loop is bound by `vpmadd52` throughput
//! from about 5 vectors (one 512-bit multiply-add a cycle, measured) and below by the
//! chain of q and the next lane 0: `mul` does 4 V multiply-adds a step, a square at
//! best 2 V for q n plus the triangle's rows, which at vector granularity come to
//! about 8 V (V + 1) over the d steps (0.87x of `mul`'s at 3 vectors, 1024 bits; 0.78x
//! at 10), so the 0.8x goal is out of reach at 1024-4096 bits this way.
//!
//! Words: 64. Reduction: `Full` and `Lazy`. Constant-time: yes. The loop
//! counts and every address depend on the limb count only; the digits are split and
//! joined with shifts and masks; the final subtraction is masked, the mask hidden from
//! the optimiser (`finish::finish_digits`, and [`finish::finish`] for the exponentiation's
//! words). Needs AVX-512F and AVX-512 IFMA: the kernels are handed out only in
//! exchange for the [`Avx512Ifma`] token, which they hold.
//!
//! The stages, one file each: [`digits`] (64 <-> 52-bit conversion, vector loads and
//! stores), [`mul`](mod@mul) (the word-serial loop), [`finish`] (the carry pass and the final
//! subtraction), [`sqr`] (the squarings), [`exp`] (the exponentiation's digit
//! domain) and [`x2`] (two products, and two exponentiations, in lockstep).
//! Measurements of variants not kept are in `docs/PERFORMANCE.md`.

pub mod digits;
pub mod exp;
pub mod finish;
pub mod mb8;
pub mod mb8_exp;
pub mod mul;
mod reg;
pub mod sqr;
pub mod x2;

use digits::{shape, MAX_VECTORS};
use mul::{mul, sqr_by_mul, Mul};
use sqr::{sqr_wide, Sqr, SQR_WIDE_VECTORS};

use crate::arch::cpu::Avx512Ifma;
use crate::kernel::traits::{Kernel, KernelInfo, PowDomain};
use crate::{Modulus, Reduction};

/// The `amm52-ifma` kernel.
pub struct Amm52Ifma;

/// Whether the [`Avx512Ifma`] token exists on this CPU.
pub fn is_available() -> bool {
    Avx512Ifma::new().is_some()
}

/// The kernel of one vector count: its multiplication and its squaring, chosen when
/// the modulus is built ([`for_limbs`]); it holds the token.
pub(crate) struct Ifma {
    /// The proof that the CPU has AVX-512F and AVX-512 IFMA.
    token: Avx512Ifma,
    mul: Mul,
    sqr: Sqr,
}

impl Ifma {
    /// `out = a b R^-1 mod n` (operands of s limbs, the count it was chosen for).
    fn mul(&self, a: &[u64], b: &[u64], n: &[u64], n0: u64, red: Reduction, out: &mut [u64]) {
        // SAFETY: the token proves AVX-512F and IFMA; the lengths are checked inside.
        unsafe { (self.mul)(a, b, n, n0, red, out) }
    }

    /// `out = a^2 R^-1 mod n`.
    fn sqr(&self, a: &[u64], n: &[u64], n0: u64, red: Reduction, out: &mut [u64]) {
        // SAFETY: as in `mul`.
        unsafe { (self.sqr)(a, n, n0, red, out) }
    }
}

/// The token inside the statics below, handed out only in exchange for one.
const TOKEN: Avx512Ifma = Avx512Ifma(());

/// `[Ifma]` for each listed vector count, squaring with [`sqr_by_mul`].
macro_rules! by_mul {
    ($($v:literal)*) => {
        [$(Ifma { token: TOKEN, mul: mul::<$v>, sqr: sqr_by_mul::<$v> },)*]
    };
}

/// `[Ifma]` for each listed vector count, squaring with [`sqr_wide`].
macro_rules! wide {
    ($($v:literal)*) => {
        [$(Ifma {
            token: TOKEN,
            mul: mul::<$v>,
            sqr: sqr_wide::<$v, { ($v as usize).div_ceil(2) }, { $v + 1 }>,
        },)*]
    };
}

/// The kernels of 1 ..= [`MAX_VECTORS`] vectors, squaring by the product.
static BY_MUL: [Ifma; MAX_VECTORS] = by_mul!(
    1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
    21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40);

/// The kernels of [`SQR_WIDE_VECTORS`] vectors with the wide squaring.
static WIDE: [Ifma; 11] = wide!(30 31 32 33 34 35 36 37 38 39 40);

/// The kernel for moduli of `s` limbs under `reduction`: [`sqr_wide`] where it
/// measured faster than [`mul()`], else [`sqr_by_mul`]. With 52 d = 64 s and
/// [`Reduction::Full`], a < n < 2^(52 d) may set bit 51 of the top digit, and 2 a
/// would need digit d: the multiplication's squaring there.
///
/// # Panics
/// When `s` needs more than [`MAX_VECTORS`] vectors (more than
/// [`crate::MAX_BITS`] bits).
fn kernel_for(_: Avx512Ifma, s: usize, reduction: Reduction) -> &'static Ifma {
    let (_, v, e) = shape(s);
    assert!(
        (1..=MAX_VECTORS).contains(&v),
        "{s} limbs: too many for IFMA"
    );
    if SQR_WIDE_VECTORS.contains(&v) && !(e == 0 && reduction == Reduction::Full) {
        &WIDE[v - *SQR_WIDE_VECTORS.start()]
    } else {
        &BY_MUL[v - 1]
    }
}

static INFO: KernelInfo = KernelInfo {
    name: "amm52-ifma",
    seed: "AMM52: Drucker-Gueron 2019",
    summary: "word-serial Montgomery in radix 2^52 on AVX-512 IFMA vpmadd52luq/huq, \
              8 digits per vector",
    words: &[64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: is_available,
};

/// The kernel of one modulus' vector count, as `amm52-ifma` resolves it: handed out
/// only in exchange for the [`Avx512Ifma`] token.
pub(crate) fn for_limbs(
    token: Avx512Ifma,
    limbs: usize,
    reduction: Reduction,
) -> &'static dyn Kernel<u64> {
    kernel_for(token, limbs, reduction)
}

impl Kernel<u64> for Amm52Ifma {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn resolve(&self, limbs: usize, reduction: Reduction) -> Option<&'static dyn Kernel<u64>> {
        Avx512Ifma::new().map(|token| for_limbs(token, limbs, reduction))
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        m.engine().mul_exact(m, a, b, out);
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        m.engine().sqr_exact(m, a, out);
    }
}

impl Kernel<u64> for Ifma {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        self.mul(a, b, m.n(), m.n0(), m.reduction(), out);
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        self.sqr(a, m.n(), m.n0(), m.reduction(), out);
    }

    /// The 52-bit digits: the ladder converts once in, once out ([`exp`]).
    fn pow_domain(&self, m: &Modulus<u64>) -> Option<Box<dyn PowDomain<u64>>> {
        Some(Box::new(exp::Digits::new(self.token, m)))
    }
}

#[cfg(test)]
mod tests {
    use super::digits::{join_group, split_group, DIGIT};
    use super::*;

    #[test]
    fn groups_round_trip() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for pattern in 0..3 {
            let mut w = [0u64; 13];
            for w_k in &mut w {
                x = x.rotate_left(23).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 5;
                *w_k = [u64::MAX, x, 1 << 63 | 1][pattern];
            }
            let d = split_group(&w);
            assert!(d.iter().all(|&g| g <= DIGIT));
            // Digit k is bits 52 k .. 52 k + 52 of the words.
            for (k, &d_k) in d.iter().enumerate() {
                let bits = (0..52).map(|b| {
                    let p = 52 * k + b;
                    (w[p / 64] >> (p % 64)) & 1
                });
                assert_eq!(d_k, bits.enumerate().map(|(b, v)| v << b).sum::<u64>());
            }
            assert_eq!(join_group(&d), w, "pattern {pattern}");
        }
    }

    /// Pseudo-random words in four patterns: all ones, random, top and bottom bit set,
    /// runs of zeros.
    #[cfg(target_arch = "x86_64")]
    fn words(seed: &mut u64, len: usize, pattern: usize) -> Vec<u64> {
        (0..len)
            .map(|_| {
                *seed = seed.rotate_left(23).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 5;
                [u64::MAX, *seed, 1 << 63 | 1, *seed & 0xffff_0000_ffff][pattern]
            })
            .collect()
    }

    /// The digits of the first `8 V` of a number's scalar split (`split_group` on its
    /// words, zero-padded to whole groups).
    #[cfg(target_arch = "x86_64")]
    fn scalar_digits(x: &[u64], v: usize) -> Vec<u64> {
        let mut padded = x.to_vec();
        padded.resize(13 * v.div_ceil(2), 0);
        let mut d: Vec<u64> = padded
            .chunks(13)
            .flat_map(|g| split_group(g.try_into().unwrap()))
            .collect();
        d.truncate(8 * v);
        d
    }

    #[cfg(target_arch = "x86_64")]
    fn to_words<const V: usize>(x: &[core::arch::x86_64::__m512i; V]) -> Vec<u64> {
        x.iter()
            // SAFETY: __m512i and [u64; 8] have the same size, any bits valid.
            .flat_map(|&v| unsafe { core::mem::transmute::<_, [u64; 8]>(v) })
            .collect()
    }

    #[cfg(target_arch = "x86_64")]
    fn from_words<const V: usize>(x: &[u64]) -> [core::arch::x86_64::__m512i; V] {
        core::array::from_fn(|v| {
            let w: [u64; 8] = x[8 * v..8 * v + 8].try_into().unwrap();
            // SAFETY: as above.
            unsafe { core::mem::transmute::<[u64; 8], core::arch::x86_64::__m512i>(w) }
        })
    }

    /// The vector split (masked loads from s words), its shift by e bits and the join
    /// (masked stores of s words) agree with the scalar split and join and with a shift
    /// of the words, for every word count that fits V vectors.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_split_shift_and_join_match_the_scalar_ones() {
        if !is_available() {
            montmul_testkit::skipped!(
                "vector_split_shift_and_join_match_the_scalar_ones: SKIPPED: no AVX-512 IFMA"
            );
            return;
        }
        fn check<const V: usize>(seed: u64) {
            let mut seed = seed;
            for s in 1..=(52 * 8 * V) / 64 {
                for pattern in 0..4 {
                    let x = words(&mut seed, s, pattern);
                    // SAFETY: AVX-512F is present (checked); 64 s <= 52 8 V.
                    let d = unsafe { digits::split::<V>(&x) };
                    let digits = to_words(&d);
                    assert_eq!(digits, scalar_digits(&x, V), "split V={V} s={s} {pattern}");
                    let mut back = vec![0u64; s];
                    // SAFETY: as above.
                    unsafe { digits::join_store::<V>(&d, &mut back) };
                    assert_eq!(back, x, "join V={V} s={s} pattern {pattern}");
                    // x 2^sh, for every shift that keeps it within the 8 V digits.
                    let room = 52 * 8 * V - 64 * s;
                    for sh in (0..52u32).filter(|&sh| (sh as usize) <= room) {
                        let mut shifted = vec![0u64; s + 1];
                        for (i, &w) in x.iter().enumerate() {
                            shifted[i] |= w << sh;
                            if sh > 0 {
                                shifted[i + 1] |= w >> (64 - sh);
                            }
                        }
                        // SAFETY: AVX-512F is present (checked).
                        let up = unsafe { digits::shift_up::<V>(&d, sh) };
                        assert_eq!(
                            to_words(&up),
                            scalar_digits(&shifted, V),
                            "shift V={V} s={s} sh={sh} pattern {pattern}"
                        );
                    }
                }
            }
        }
        check::<1>(1);
        check::<2>(2);
        check::<3>(3);
        check::<4>(4);
        check::<5>(5);
    }

    /// The digit-domain final subtraction against num-bigint: values c 2^(52 8 V) + x
    /// below 2n, at n, at n - 1, 0, with long runs of digits equal to n's (a borrow
    /// rippling across vectors and mask words), under both policies.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn finish_digits_matches_the_oracle() {
        use num_bigint::BigUint;
        if !is_available() {
            montmul_testkit::skipped!("finish_digits_matches_the_oracle: SKIPPED: no AVX-512 IFMA");
            return;
        }
        let value = |digits: &[u64], c: u64| {
            digits.iter().rev().fold(BigUint::from(c), |acc, &d| {
                (acc << 52u32) + BigUint::from(d)
            })
        };
        fn check<const V: usize>(value: &dyn Fn(&[u64], u64) -> BigUint) {
            let mut seed = 7u64;
            let mut rnd = move || {
                seed = seed.rotate_left(17).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 3;
                seed
            };
            for case in 0..40 {
                // n: 8 V digits, the top one at most 2^51 - 1 so that 2n fits (c = 0),
                // or all ones for the c = 1 cases.
                let mut n: Vec<u64> = (0..8 * V).map(|_| rnd() & DIGIT).collect();
                n[0] |= 1;
                let wide = case % 4 == 3;
                n[8 * V - 1] = if wide { DIGIT } else { n[8 * V - 1] >> 1 };
                let nn = value(&n, 0);
                let target = match case % 8 {
                    0 => nn.clone(),
                    1 => &nn - 1u32,
                    2 => BigUint::from(0u32),
                    3 => &nn + &nn - 1u32,
                    // n with its low digits lowered: x and n agree on every digit
                    // above, the borrow ripples through all of them.
                    4 => &nn - 1u32 - BigUint::from(rnd() % 1000),
                    5 => &nn + BigUint::from(rnd() % 1000),
                    _ => {
                        (value(&(0..8 * V).map(|_| rnd() & DIGIT).collect::<Vec<_>>(), 0)
                            + &nn * 2u32)
                            % (&nn * 2u32)
                    }
                };
                let mut x = vec![0u64; 8 * V];
                for (j, xj) in x.iter_mut().enumerate() {
                    *xj = ((&target >> (52 * j)) & BigUint::from(DIGIT))
                        .iter_u64_digits()
                        .next()
                        .unwrap_or(0);
                }
                let c = (&target >> (52 * 8 * V))
                    .iter_u64_digits()
                    .next()
                    .unwrap_or(0);
                let (xv, nv) = (from_words::<V>(&x), from_words::<V>(&n));
                // SAFETY: AVX-512F is present (checked).
                let full = unsafe { finish::finish_digits::<V>(&xv, c, &nv, Reduction::Full) };
                let full = to_words(&full);
                let expect = if target >= nn {
                    &target - &nn
                } else {
                    target.clone()
                };
                assert_eq!(value(&full, 0), expect, "V={V} case {case}");
                assert!(full.iter().all(|&d| d <= DIGIT));
                if c == 0 {
                    // SAFETY: as above.
                    let lazy = unsafe { finish::finish_digits::<V>(&xv, 0, &nv, Reduction::Lazy) };
                    assert_eq!(to_words(&lazy), x, "lazy V={V} case {case}");
                }
            }
        }
        check::<1>(&value);
        check::<3>(&value);
        check::<8>(&value);
        check::<9>(&value);
        check::<40>(&value);
    }

    /// `normalise_vectors` against a scalar carry pass, the carry out of the top included:
    /// long runs of 2^52 - 1 that one carry ripples through (across vectors and mask
    /// words, and out of the top), big lanes, and pseudo-random ones.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn normalise_matches_the_scalar_pass() {
        if !is_available() {
            montmul_testkit::skipped!(
                "normalise_matches_the_scalar_pass: SKIPPED: no AVX-512 IFMA"
            );
            return;
        }
        fn scalar(lanes: &[u64]) -> (Vec<u64>, u64) {
            let mut c = 0u64;
            let digits = lanes
                .iter()
                .map(|&x| {
                    let t = x + c;
                    c = t >> 52;
                    t & DIGIT
                })
                .collect();
            (digits, c)
        }
        fn check<const V: usize>() {
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            for p in 0..16 {
                let mut l = [[0u64; 8]; V];
                for (j, lane) in l.as_flattened_mut().iter_mut().enumerate() {
                    x = x.rotate_left(17).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ j as u64;
                    *lane = match p % 8 {
                        0 => DIGIT,
                        1 => DIGIT + u64::from(j == 0),
                        2 => (1 << 52) + (1 << 11) - 1,
                        3 => x >> 1,
                        4 => x & DIGIT,
                        5 => [DIGIT, x >> 2, DIGIT][j % 3],
                        6 => (x >> 60) + DIGIT - 3,
                        _ => x >> (x % 64),
                    };
                }
                if p < 8 {
                    // The top two lanes 0: no carry out.
                    let flat = l.as_flattened_mut();
                    let len = flat.len();
                    flat[len - 2..].fill(0);
                }
                // SAFETY: AVX-512F is present (checked).
                let (digits, carry) =
                    unsafe { finish::normalise_vectors::<V>(&from_words::<V>(l.as_flattened())) };
                let out = to_words(&digits);
                assert_eq!((out, carry), scalar(l.as_flattened()), "V={V} pattern {p}");
            }
        }
        check::<1>();
        check::<3>();
        check::<8>();
        check::<9>();
        check::<40>();
    }

    #[test]
    fn shapes() {
        for s in 1..=257 {
            let (d, v, e) = shape(s);
            assert!(52 * d >= 64 * s && 52 * (d - 1) < 64 * s && e < 52);
            assert!(v <= MAX_VECTORS && 8 * v >= d && 13 * v.div_ceil(2) >= s);
        }
    }
}
