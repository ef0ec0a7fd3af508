//! `amm52x2-ifma`: two independent almost-Montgomery products at once, and the
//! constant-time exponentiation that runs two exponentiations in lockstep on them (the
//! two CRT halves of an RSA private operation).
//!
//! After OpenSSL's `ossl_rsaz_amm52x20_x2_ifma256` and `rsaz_exp_x2` (Drucker and
//! Gueron, *Fast modular squaring with AVX512IFMA*, ITNG 2019; Gueron and Krasnov,
//! ARITH 23, 2016), which do this for two 1024-bit halves; here for every digit count
//! from 2 to [`X2_MAX_VECTORS`] vectors (385 to 4096 bits per half), from one
//! implementation generic over the vector count.
//!
//! # Why two at once
//!
//! One product of `amm52-ifma` ([`super`]) is d word-serial steps, and each step waits
//! for the previous one's lane 0 to compute its q: a scalar chain of a multiplication
//! by n0', a 128-bit product and a few additions. At 1024 bits (20 digits, 3 vectors)
//! a step has 12 multiply-adds, 12 cycles of this CPU's IFMA units (one 512-bit or two
//! 256-bit multiply-adds a cycle, measured), against a chain of about 17, so the
//! multipliers idle. Two products with nothing in common fill each other's gaps: each
//! step of the loop here does one step of each (`Half::step`), the two chains run
//! side by side in the out-of-order window, and the multiply-adds of one cover the
//! latency of the other. The two halves have their own modulus, n0' and operands but
//! the same digit count d (the loop count), so nothing in the loop branches on which
//! half. Two steps are then bound by the multiply-adds, not by the chain: the pair
//! costs what its multiply-adds cost, which is why it runs on as few lanes as hold the
//! digits (below).
//!
//! [`crate::lanes`] picks the pair up to [`X2_PICKED_VECTORS`] vectors per half, where
//! it measured faster than the two exponentiations one after the other; [`pow_x2`]
//! here runs it at every size it covers.
//!
//! # The step
//!
//! One implementation over the register width (`Reg`: 256-bit registers of 4 digits
//! or 512-bit ones of 8) and the register count W, in two forms; both keep the exact
//! lane 0 in a scalar (`r0`), compute q = (r0 + a_0 b_i) n0' mod 2^52 from it, and
//! carry lane 0 out with t = r0 + a_0 b_i + n_0 q computed in full (two 64 x 64-bit
//! products, 128-bit sums): t is 0 mod 2^52 and t / 2^52 is the carry together with
//! lane 0's high halves.
//!
//! - The chained form, on 512-bit registers (`mul_x2_zmm`): the step of
//!   `mul::mul_vectors` (module doc of [`super`]). Lane 1 is read from the
//!   accumulator at the start of the step and the next lane 0 formed in scalar
//!   (lo52(a_1 b_i) and lo52(n_1 q) with two more scalar multiplications), so the next
//!   q waits for no vector op; each register's four halves are summed off the
//!   accumulator (low halves with a and n shifted down one lane) and added after its
//!   shift, up to [`X2_CHAINED_VECTORS`] registers (above, the low halves go into the
//!   accumulator before the shift).
//! - The low-first form, on 256-bit registers (`mul_x2_ymm`), after OpenSSL's
//!   `amm52x20_x1` step (`rsaz-2k-avx512.pl`): lo52(a b_i) and lo52(n q) straight into
//!   the accumulator, one lane shift, then hi52(a b_i) and hi52(n q) into it. Fewer
//!   instructions (no shifted copies, no sum registers). The next lane 0 is formed in
//!   scalar as in the chained form up to [`X2_CHAINED_VECTORS`] registers; above, it is
//!   read off the shifted accumulator (one `vmovq`) plus t / 2^52, with three scalar
//!   multiplications instead of five and a longer chain (q waits for a broadcast, a
//!   multiply-add and the read back), which the other half covers.
//!
//! - The packed form (`x2/packed.rs`): the chained step with both halves in one run
//!   of 512-bit registers, half 1 in the lanes above half 0's digits, where that
//!   takes fewer registers than two halves side by side (9 to 12 and 17 to 20
//!   digits: 3 registers instead of 4, 5 instead of 6); the register both halves
//!   share takes b_i and q blended.
//!
//! Which form, on which width, depends on the CPU (`instances`):
//!
//! - Where 512-bit multiply-adds are split in two ([`Avx512Ifma::splits_512`], Zen 4),
//!   a lane costs the same at either width and the pair is bound by its multiply-adds'
//!   lanes: [`X2_YMM_DIGITS`] runs the low-first form on 256 bits where five registers
//!   hold the 17 to 20 digits that take three 512-bit ones (1024-bit halves have 20),
//!   and the chained form on 512 bits elsewhere.
//! - Elsewhere (the Intel Xeons measured) a 512-bit multiply-add costs what a 256-bit
//!   one does, so the pair stays on 512-bit registers, and there the two issue ports
//!   that run the multiply-adds also run every other vector instruction. The low-first
//!   form, with a fifth fewer of those instructions, then wins where its longer chain
//!   is covered: from [`X2_LOW_FIRST_VECTORS`] vectors per half, with its squaring at
//!   4 vectors. Against the 256-bit form at 1024 bits the 512-bit one measured
//!   0.79-0.86x of the time; against the chained form the low-first one 0.77-0.84x at
//!   1536 and 2048 bits (`docs/PERFORMANCE.md`, "An Intel Xeon for a session"), and
//!   0.94x at 2048 bits once the chained form read lane 1 through memory, which made
//!   that form the faster one at 2 and 3 vectors. There the packed form runs where it
//!   applies: 0.91-0.94x of the chained form's time at 12 and 20 digits, a sixth
//!   fewer instructions on those ports.
//!
//! The vector's lane 0 is never read as a value: in the chained form it misses lane
//! 0's carry, in the low-first form it takes the high halves that t already holds, and
//! each step's shift drops it; `Half::finish` puts `r0` in its place. q is the q of
//! `mul_vectors` at every step (the same value mod 2^52 of the same r0 + a_0 b_i), so
//! each half's result is the very value that `amm52-ifma` computes, the same normalised
//! digits (the unit test below compares them digit for digit, both widths). Bounds: a
//! lane j >= 1 takes at most four halves (2^52 - 1 each) a step, in either form (two
//! low halves of digit j + 1 before the shift, two high halves of digit j after, or
//! their sum), so every lane stays below d 2^54 + 2^54; `r0` is such a lane plus t /
//! 2^52 < 2^12 + 2^53. All below 2^64 for d <= 80; t < 2^64 + 2^105 fits in 128 bits.
//!
//! # The squaring
//!
//! On 256-bit registers (the digit counts of [`X2_YMM_DIGITS`]) the pair squares with
//! its own step (`SquareHalf::step`, `sqr_x2`), the low-first step with the row of
//! the square in place of a b_i: step i adds x_i (x_i B^i + 2 x_(>i)) (B = 2^52), so
//! each digit product x_i x_j (i < j) is formed once, against the digits of the
//! number 2 x (y_j = (2 x_j mod 2^52) + bit 51 of x_(j-1), below 2^52 when x <
//! 2^(52 d - 1), which the digit domain's values are). At accumulator lane j (position
//! i + j) the multiplier x_i meets x_i at j = i, z_(i+1) = 2 x_(i+1) mod 2^52 at j =
//! i + 1 (the carry of x_i's own doubling is not part of 2 x_(>i)) and y_j above;
//! the lanes below i are 0, so the registers wholly below lane i are skipped. Each
//! step is compiled on its own (the row's register and masks are constants). A
//! step's row costs 2 (W - floor(i / 4)) multiply-adds instead of 2 W, 120 instead
//! of 200 per half at 20 digits; the reduction's 2 W stay. q is computed from the
//! same low 52 bits of lane i as in the product (the terms at positions up to i are
//! the same numbers, the y digits only move carries up), so the result is the very
//! value, and the digits, of the product of x by itself (the unit test below compares
//! them). Bounds: a lane still takes at most four halves a step.
//!
//! The same squaring runs on 512-bit registers (up to 4 of them) on a CPU that does
//! not split them, beside the low-first product. Otherwise the pair squares with its
//! product, the operand doubling as its own multiplier, as `amm52-ifma` does for
//! these vector counts (`sqr::sqr_digits`): on the Zen 4 the low-first squaring on
//! 512-bit registers measured slower than the chained product (`docs/PERFORMANCE.md`).
//!
//! # The exponentiation
//!
//! [`pow_x2`] runs [`crate::exp::fixed_window`] on a [`Ladder`] whose value is a pair:
//! both halves' digit vectors in the digit domain of [`super::exp`] (each half entered
//! and left through its own `exp::Digits`, so the values are the ones the
//! single ladder computes). The exponents are padded with leading zero bytes to the
//! longer one's length (public), which changes neither result; the ladder's window
//! index carries both digits ([`Ladder::window`]) and its table read splits them and
//! keeps each half's entry with its own mask, reading every entry of both halves in
//! full.
//!
//! Constant-time: yes, by construction. The loop counts depend on the digit count, the
//! table size and the exponents' byte lengths only; the only secrets are the digits,
//! the exponent digits and the masks made from them; no branch and no address depends on
//! them; the register width is chosen by the digit count and the CPU. The valgrind
//! harness (`tests/ct_valgrind.rs`) cannot run AVX-512; the statistical timing check
//! times the pair itself (`montmul ct-check --paths pow-x2`, `docs/SECURITY.md`).
//!
//! The stages, one file each: `reg.rs` beside it (the registers' operations over
//! both widths, shared with the 8-lane kernel), `x2/step.rs` (the steps of a product
//! and of a square, two at once, and their instances), `x2/packed.rs` (the packed
//! product and its instances); here the choice of instances,
//! the table read and the ladder.

mod packed;
mod step;

use core::arch::x86_64::*;

use zeroize::Zeroizing;

use super::digits::{load_vectors, store_vectors};
use super::exp::{shape as domain_shape, Digits};
use crate::arch::cpu::Avx512Ifma;
use crate::dispatch::Auto;
use crate::exp::{digit, entry_mask_plain, fixed_window, Ladder, Step, Trace, Work, MAX_WINDOW};
use crate::kernel::traits::PowDomain;
use crate::{Kernel, Modulus};
pub use step::X2_CHAINED_VECTORS;
use step::{mul_x2_ymm, mul_x2_zmm, sqr_x2_ymm, sqr_x2_zmm, MulX2, SqrX2};

/// The most vectors per half the pair kernel is built for: 10 vectors, 80 digits,
/// moduli up to 4096 bits (79 digits) under either reduction.
pub const X2_MAX_VECTORS: usize = 10;

/// The pair's table read: `out` = half 0 of the entry whose mask `masks[j][0]` is all
/// ones and half 1 of the one whose `masks[j][1]` is, every entry read in full (both
/// halves) and gathered in registers with one AND-OR (`vpternlogq`) a vector. The
/// entries lie one after another, each as long as `out`. Each mask is 0 or all ones
/// and exactly one per half is set; nothing branches on them and no address depends
/// on them.
///
/// # Safety
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn gather_x2<const V: usize>(table: &[u64], masks: &[[u64; 2]], out: &mut [u64]) {
    let len = 8 * V;
    assert!(out.len() == 2 * len && table.len().is_multiple_of(2 * len));
    assert!(masks.len() >= table.len() / (2 * len));
    let zero = _mm512_setzero_si512();
    let mut acc = [[zero; V]; 2];
    for (entry, m) in table.chunks_exact(2 * len).zip(masks) {
        for (h, (acc, run)) in acc.iter_mut().zip(entry.chunks_exact(len)).enumerate() {
            let mask = _mm512_set1_epi64(m[h] as i64);
            // SAFETY: the caller guarantees AVX-512F; run holds 8 V digits.
            let e = unsafe { load_vectors::<V>(run) };
            for (x, y) in acc.iter_mut().zip(e) {
                // x | (y & mask) in one instruction (truth table 0xf8 of x, y, mask).
                *x = _mm512_ternarylogic_epi64::<0xf8>(*x, y, mask);
            }
        }
    }
    for (acc, o) in acc.iter().zip(out.chunks_exact_mut(len)) {
        store_vectors(acc, o);
    }
}

/// One instance of [`gather_x2`].
type GatherX2 = unsafe fn(&[u64], &[[u64; 2]], &mut [u64]);

/// The digit counts per half for which the pair runs on 256-bit registers in the
/// low-first form (`mul_x2_ymm`) rather than on 512-bit ones in the chained form
/// (`mul_x2_zmm`), on a CPU that [splits 512-bit multiply-adds](Avx512Ifma::splits_512):
/// 17 ..= 20, where five 256-bit registers hold the digits that take three 512-bit ones
/// (20 lanes, not 24). There the pair is bound by its multiply-adds' lanes, and it does
/// 5/6 of them; where both widths need the same lanes the 512-bit chained form measured
/// as fast or faster (`docs/PERFORMANCE.md`, "Two exponentiations in lockstep"). On other
/// CPUs a 512-bit multiply-add does twice the lanes in the same time and the pair stays
/// on 512-bit registers.
pub const X2_YMM_DIGITS: core::ops::RangeInclusive<usize> = 17..=20;

/// The vector count per half from which the pair runs in the low-first form on
/// 512-bit registers, with its own squaring up to 4 vectors, on a CPU that does not
/// split 512-bit multiply-adds (module doc, "The step"). Below it the chained form,
/// which also squares: with lane 1 read through memory (`Reg::lane1`) a chained pair
/// product took 0.86x of the low-first one's time at 3 vectors (1024 bits) and 0.89x
/// of its squaring's, 0.87x of the low-first product at 2; at 4 vectors the low-first
/// squaring is the fastest of the three (0.95x), and from 5 the low-first product
/// (0.94x at 5, 0.88x at 8; `docs/PERFORMANCE.md`).
pub const X2_LOW_FIRST_VECTORS: usize = 4;

/// The pair product, squaring and table read for `d` digits in `v` vectors per half,
/// 2 ..= [`X2_MAX_VECTORS`] (module doc, "The step"). Where the CPU splits 512-bit
/// multiply-adds: the product and the squaring on ceil(d / 4) 256-bit registers for
/// the digit counts of [`X2_YMM_DIGITS`] where the CPU has AVX-512VL, else the chained
/// product on `v` 512-bit ones and no squaring of its own (the product squares).
/// Elsewhere on `v` 512-bit registers: the chained product below
/// [`X2_LOW_FIRST_VECTORS`], the low-first one from there, with the squaring up to 4
/// vectors.
fn instances(token: Avx512Ifma, d: usize, v: usize) -> Option<(MulX2, Option<SqrX2>, GatherX2)> {
    macro_rules! by_vectors {
        ($($n:literal)*) => {
            match v {
                $($n => (
                    mul_x2_zmm::<$n, false> as MulX2,
                    mul_x2_zmm::<$n, true> as MulX2,
                    gather_x2::<$n> as GatherX2,
                ),)*
                _ => return None,
            }
        };
    }
    const { assert!(X2_MAX_VECTORS == 10) };
    let (chained, low_first, gather) = by_vectors!(2 3 4 5 6 7 8 9 10);
    if !token.splits_512() {
        if v < X2_LOW_FIRST_VECTORS {
            return Some((packed::instance(d).unwrap_or(chained), None, gather));
        }
        return Some((low_first, zmm_square(v), gather));
    }
    let ymm = (X2_YMM_DIGITS.contains(&d) && std::arch::is_x86_feature_detected!("avx512vl"))
        .then(|| ymm_instances(d.div_ceil(4)))
        .flatten();
    Some(match ymm {
        Some((mul, sqr)) => (mul, Some(sqr), gather),
        None => (chained, None, gather),
    })
}

/// [`sqr_x2_zmm`] on `v` registers, 2 ..= 4 (32 digits, the most it has steps for).
fn zmm_square(v: usize) -> Option<SqrX2> {
    Some(match v {
        2 => sqr_x2_zmm::<2>,
        3 => sqr_x2_zmm::<3>,
        4 => sqr_x2_zmm::<4>,
        _ => return None,
    })
}

/// [`mul_x2_ymm`] and [`sqr_x2_ymm`] on `w` registers, 3 ..= 8 (32 digits, the
/// most [`X2_YMM_DIGITS`] may reach).
fn ymm_instances(w: usize) -> Option<(MulX2, SqrX2)> {
    const { assert!(*X2_YMM_DIGITS.end() <= 32) };
    Some(match w {
        3 => (mul_x2_ymm::<3, 2>, sqr_x2_ymm::<3, 2>),
        4 => (mul_x2_ymm::<4, 2>, sqr_x2_ymm::<4, 2>),
        5 => (mul_x2_ymm::<5, 3>, sqr_x2_ymm::<5, 3>),
        6 => (mul_x2_ymm::<6, 3>, sqr_x2_ymm::<6, 3>),
        7 => (mul_x2_ymm::<7, 4>, sqr_x2_ymm::<7, 4>),
        8 => (mul_x2_ymm::<8, 4>, sqr_x2_ymm::<8, 4>),
        _ => return None,
    })
}

/// The digit domain's shape (d', V') of a modulus, when the pair kernel covers it: its
/// engine is `amm52-ifma`, or its kernel is `auto` (which gives 7 and 8 limbs, 385 to
/// 512 bits, to `mulx-cios` where the CPU has BMI2 and ADX: the pair measured
/// 1.23-1.32x faster than two of its exponentiations one after the other on a Zen 4,
/// `docs/PERFORMANCE.md`, "The pair at 385 to 512 bits"). A modulus given another
/// kernel by name keeps it.
fn pair_shape(m: &Modulus<u64>) -> Option<(usize, usize)> {
    let on_ifma = core::ptr::eq(m.engine().info(), &super::INFO);
    let auto = core::ptr::eq(m.kernel().info(), Kernel::<u64>::info(&Auto));
    if !on_ifma && !auto {
        return None;
    }
    let (d, v, _) = domain_shape(m.limbs(), m.bits());
    (2..=X2_MAX_VECTORS).contains(&v).then_some((d, v))
}

/// Whether [`pow_x2`] runs the two moduli in lockstep: this CPU has AVX-512 IFMA, each
/// modulus' engine is `amm52-ifma` or its kernel `auto` (not another kernel given by
/// name), and their digit domains have the same digit count, 2 to [`X2_MAX_VECTORS`]
/// vectors. (All public.)
pub fn fits(a: &Modulus<u64>, b: &Modulus<u64>) -> bool {
    Avx512Ifma::new().is_some() && pair_shape(a).is_some() && pair_shape(a) == pair_shape(b)
}

/// The most vectors per half for which [`crate::lanes`] picks the pair kernel on a CPU
/// that splits 512-bit multiply-adds: where [`pow_x2`] measured faster than two single
/// exponentiations on the Zen 4 (0.74x of their time at 1024 bits, 0.93x at 1536;
/// `docs/PERFORMANCE.md`, "Two exponentiations in lockstep"). From 5 vectors (2048
/// bits) the pair, bound by its multiply-adds, gains nothing there over two products
/// each bound by its chain: 1.06x at 2048 bits, 1.03-1.05x at 3072 and 4096 in
/// earlier runs.
pub const X2_PICKED_VECTORS_SPLIT: usize = 4;

/// The most vectors per half for which [`crate::lanes`] picks the pair kernel on other
/// CPUs: on the Intel Xeon measured the low-first pair took 0.81-0.85x of two single
/// exponentiations' time at 2048 bits per half (5 vectors) in four runs, and in
/// batches of 3 to 7 jobs (pairs and a single) 0.79-0.91x. At 3072 bits (8 vectors) it
/// took 0.87-0.96x of two alone, but the batches of 3 to 7 took 1.03-1.10x of the jobs
/// one by one; at 4096 (10) 1.00-1.05x (`docs/PERFORMANCE.md`, "An Intel Xeon for a
/// session").
pub const X2_PICKED_VECTORS: usize = 5;

/// Whether [`crate::lanes`] runs `a` and `b` in lockstep: [`fits`], at most
/// [`X2_PICKED_VECTORS_SPLIT`] or [`X2_PICKED_VECTORS`] vectors per half, as the CPU
/// splits 512-bit multiply-adds or not.
pub fn picked(a: &Modulus<u64>, b: &Modulus<u64>) -> bool {
    let most = if Avx512Ifma::new().is_some_and(|t| t.splits_512()) {
        X2_PICKED_VECTORS_SPLIT
    } else {
        X2_PICKED_VECTORS
    };
    fits(a, b) && pair_shape(a).is_some_and(|(_, v)| v <= most)
}

/// The ladder on pairs: values are both halves' 8 V' digits, half 0 first.
struct PairLadder<'e> {
    /// The proof that the CPU has AVX-512F and AVX-512 IFMA.
    _token: Avx512Ifma,
    /// Digits d' of both domains.
    d: usize,
    /// Both moduli's digits.
    n: Vec<u64>,
    /// Both moduli's -n^-1 mod 2^64.
    n0: [u64; 2],
    /// Both domains' 1.
    one: Vec<u64>,
    /// Half 1's exponent, as long as the one [`fixed_window`] is given.
    second: &'e [u8],
    mul: MulX2,
    /// The pair squaring, where the register width has one.
    sqr: Option<SqrX2>,
    gather: GatherX2,
}

impl Ladder for PairLadder<'_> {
    type Word = u64;

    fn one(&self, out: &mut [u64]) {
        out.copy_from_slice(&self.one);
    }

    fn sqr(&self, a: &[u64], out: &mut [u64]) {
        // SAFETY: the token proves AVX-512F and IFMA; every value is 2 x 8 V' digits
        // below 2^52, each half below 2n < 2^(52 d') (the digit domain's contract);
        // `mul_x2` and `sqr_x2` check the lengths.
        unsafe {
            match self.sqr {
                Some(sqr) => sqr(a, &self.n, self.n0, self.d, out),
                None => (self.mul)(a, a, &self.n, self.n0, self.d, out),
            }
        };
    }

    fn mul(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        // SAFETY: as in `sqr`.
        unsafe { (self.mul)(a, b, &self.n, self.n0, self.d, out) };
    }

    /// Half 0's digit below, half 1's above it: a table index of 2w bits.
    #[inline]
    fn window(&self, exp_be: &[u8], lo: usize, w: u32) -> usize {
        digit(exp_be, lo, w) | digit(self.second, lo, w) << w
    }

    /// Splits the index of [`PairLadder::window`] (the table has 2^w entries) and
    /// gathers each half with its own masks, every entry of both halves read in full.
    fn read<T: Trace>(&self, table: &[u64], index: usize, out: &mut [u64], trace: &mut T) {
        let size = table.len() / out.len();
        assert!(size.is_power_of_two() && size <= 1 << MAX_WINDOW);
        // Shift and mask by the public table size: no division on the secret.
        let (i0, i1) = (index & (size - 1), index >> size.trailing_zeros());
        let mut masks = [[0u64; 2]; 1 << MAX_WINDOW];
        for (j, m) in masks.iter_mut().enumerate().take(size) {
            trace.step(Step::Read(j));
            *m = [entry_mask_plain(j, i0), entry_mask_plain(j, i1)];
        }
        // Hidden from the optimiser all at once (as `exp::masked_read` does): it must
        // assume the words behind the reference changed, so it cannot see they are 0
        // or all ones and turn their use into a branch.
        let masks = core::hint::black_box(&masks[..size]);
        // SAFETY: the token proves AVX-512F; `gather_x2` checks the lengths.
        unsafe { (self.gather)(table, masks, out) };
    }
}

/// `a^ea` and `b^eb` (Montgomery form, below each modulus' bound, big-endian
/// exponents) in lockstep on `mul_x2`: the values [`crate::exp::pow`] gives for each,
/// or `None` where the pair kernel does not apply ([`fits`]). The shorter exponent is
/// padded with leading zero bytes; the steps, told to `trace`, are those of one
/// [`crate::exp::pow`] with an exponent of the longer length. Constant-time in the
/// bases' and the exponents' values (module doc).
pub fn pow_x2<T: Trace>(
    (ma, a, ea): (&Modulus<u64>, &[u64], &[u8]),
    (mb, b, eb): (&Modulus<u64>, &[u64], &[u8]),
    trace: &mut T,
) -> Option<(Vec<u64>, Vec<u64>)> {
    let token = Avx512Ifma::new()?;
    let (d, v) = pair_shape(ma)?;
    if pair_shape(mb)? != (d, v) {
        return None;
    }
    let (mul, sqr, gather) = instances(token, d, v)?;
    let halves = [Digits::new(token, ma), Digits::new(token, mb)];
    let len = 8 * v;
    debug_assert!(halves.iter().all(|h| h.words() == len));
    // Both halves' values side by side, half 0 first.
    let pair = |f: &dyn Fn(&Digits, &mut [u64])| {
        let mut out = Zeroizing::new(vec![0u64; 2 * len]);
        for (h, o) in halves.iter().zip(out.chunks_exact_mut(len)) {
            f(h, o);
        }
        out
    };
    let e_len = ea.len().max(eb.len());
    let padded = |e: &[u8]| {
        let mut p = Zeroizing::new(vec![0u8; e_len]);
        p[e_len - e.len()..].copy_from_slice(e);
        p
    };
    let (ea, eb) = (padded(ea), padded(eb));
    let mut n = vec![0u64; 2 * len];
    Digits::to_digits(ma.n(), &mut n[..len]);
    Digits::to_digits(mb.n(), &mut n[len..]);
    let ladder = PairLadder {
        _token: token,
        d,
        n,
        n0: [ma.n0(), mb.n0()],
        one: pair(&|h, o| h.one(o)).to_vec(),
        second: &eb,
        mul,
        sqr,
        gather,
    };
    let scratch_len = halves.iter().map(|h| h.scratch_words()).max().unwrap_or(0);
    let mut scratch = Zeroizing::new(vec![0u64; scratch_len]);
    let mut base = Zeroizing::new(vec![0u64; 2 * len]);
    for ((h, x), o) in halves.iter().zip([a, b]).zip(base.chunks_exact_mut(len)) {
        h.enter(x, o, &mut scratch);
    }
    let mut work = Work::new(2 * len, e_len);
    fixed_window(&ladder, &base, &ea, &mut work, trace);
    let (mut ya, mut yb) = (vec![0; ma.limbs()], vec![0; mb.limbs()]);
    let (y0, y1) = work.result().split_at(len);
    halves[0].leave(y0, &mut ya, &mut scratch);
    halves[1].leave(y1, &mut yb, &mut scratch);
    Some((ya, yb))
}

#[cfg(test)]
mod tests {
    use super::super::digits::DIGIT;
    use super::*;

    /// The pair product equals two single products of the digit domain
    /// (`mul_digits`), digit for digit, at every vector count, in every form on both
    /// register widths (whichever this CPU would pick), with different moduli and edge
    /// digits; the pair squarings equal the product with b = a.
    #[test]
    fn pair_product_matches_two_single_products() {
        let Some(_token) = Avx512Ifma::new() else {
            montmul_testkit::skipped!(
                "pair_product_matches_two_single_products: SKIPPED: no AVX-512 IFMA"
            );
            return;
        };
        let has_vl = std::arch::is_x86_feature_detected!("avx512vl");
        if !has_vl {
            montmul_testkit::skipped!(
                "pair_product_matches_two_single_products: 256-bit forms SKIPPED: no AVX-512VL"
            );
        }
        fn check<const V: usize>(seed: &mut u64, has_vl: bool) {
            let mut rnd = || {
                *seed = seed.rotate_left(17).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 3;
                *seed
            };
            for d in [8 * V - 7, 8 * V - 6, 8 * V - 4, 8 * V - 1, 8 * V]
                .into_iter()
                .filter(|&d| d >= 2)
            {
                for pattern in 0..4 {
                    // n odd with d digits, below 2^(52 d - 2) as the digit domain's
                    // (R' > 4n); a, b below n (top digit below n's).
                    let mut halves = Vec::new();
                    for _ in 0..2 {
                        let mut n: Vec<u64> = (0..8 * V)
                            .map(|j| if j < d { rnd() & DIGIT } else { 0 })
                            .collect();
                        n[0] |= 1;
                        n[d - 1] = n[d - 1] >> 2 | 1 << 49;
                        let mut x = || -> Vec<u64> {
                            (0..8 * V)
                                .map(|j| match (j < d, pattern) {
                                    (false, _) => 0,
                                    (_, 0) => DIGIT,
                                    (_, 1) => 0,
                                    (_, 2) => u64::from(j == 0),
                                    _ => rnd() & DIGIT,
                                })
                                .collect()
                        };
                        let (mut a, mut b) = (x(), x());
                        a[d - 1] = (a[d - 1] & n[d - 1]) >> 1;
                        b[d - 1] = (b[d - 1] & n[d - 1]) >> 1;
                        let n0 = (1..52).fold(1u64, |inv, _| {
                            inv.wrapping_mul(2u64.wrapping_sub(n[0].wrapping_mul(inv)))
                        });
                        halves.push((a, b, n, n0.wrapping_neg()));
                    }
                    let mut want = Vec::new();
                    for (a, b, n, n0) in &halves {
                        let mut o = vec![0u64; 8 * V];
                        // SAFETY: the CPU has AVX-512F and IFMA (checked).
                        let c =
                            unsafe { super::super::mul::mul_digits::<V>(a, b, n, *n0, d, &mut o) };
                        assert_eq!(c, 0);
                        want.extend(o);
                    }
                    let (a, b, n) = (
                        [halves[0].0.clone(), halves[1].0.clone()].concat(),
                        [halves[0].1.clone(), halves[1].1.clone()].concat(),
                        [halves[0].2.clone(), halves[1].2.clone()].concat(),
                    );
                    let n0 = [halves[0].3, halves[1].3];
                    // Every form wherever it applies: both forms on 512-bit registers
                    // at every d, 256-bit ones where ceil(d / 4) has an instance.
                    let ymm = ymm_instances(d.div_ceil(4)).filter(|_| has_vl);
                    let products = [
                        ("zmm chained", Some(mul_x2_zmm::<V, false> as MulX2)),
                        ("zmm low-first", Some(mul_x2_zmm::<V, true> as MulX2)),
                        ("ymm low-first", ymm.map(|(mul, _)| mul)),
                        ("zmm packed", packed::instance(d)),
                    ];
                    for (form, mul) in products {
                        let Some(mul) = mul else { continue };
                        let mut out = vec![u64::MAX; 16 * V];
                        // SAFETY: as above, and AVX-512VL where `ymm` is given.
                        unsafe { mul(&a, &b, &n, n0, d, &mut out) };
                        assert_eq!(out, want, "{form} V={V} d={d} pattern {pattern}");
                    }
                    // The squarings give the product's digits with b = a.
                    let squares = [("zmm", zmm_square(V)), ("ymm", ymm.map(|(_, sqr)| sqr))];
                    for (width, sqr) in squares {
                        let Some(sqr) = sqr else { continue };
                        let (mut want, mut out) = (vec![0u64; 16 * V], vec![u64::MAX; 16 * V]);
                        // SAFETY: as above; both halves of a below 2^(52 d - 1).
                        unsafe {
                            mul_x2_zmm::<V, false>(&a, &a, &n, n0, d, &mut want);
                            sqr(&a, &n, n0, d, &mut out);
                        }
                        assert_eq!(out, want, "{width} square V={V} d={d} pattern {pattern}");
                    }
                }
            }
        }
        let mut seed = 0x5eed;
        check::<2>(&mut seed, has_vl);
        check::<3>(&mut seed, has_vl);
        check::<4>(&mut seed, has_vl);
        check::<5>(&mut seed, has_vl);
        check::<6>(&mut seed, has_vl);
        check::<7>(&mut seed, has_vl);
        check::<8>(&mut seed, has_vl);
        check::<9>(&mut seed, has_vl);
        check::<10>(&mut seed, has_vl);
    }
}
