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
//! alone (t + lo52(n_0 q) is t rounded up to a multiple of 2^52). Two variants were
//! measured slower (four alternating runs each): lane 1 kept in scalar too, predicted
//! from lane 2 two steps ahead so that the next q waits for no vector at all (two more
//! scalar multiplications a step and two made 128-bit): 1.1-1.4x at 1024-4096 bits;
//! and lo52(a_0 b'_i), hi52(a_0 b'_i), lo52(a_1 b'_i) for every i made with vector
//! multiply-adds ahead of the loop, leaving the scalar multiplier to q's chain: 0.94x
//! at 1024 bits but 1.1-1.17x at 1536-3072 bits in the exponentiation. Up to
//! `x86::CHAINED_VECTORS` vectors each vector's four halves are chained into one sum
//! off the accumulator (the low halves taken with a and n shifted down one lane, so
//! that they land where the shift puts the lanes), and the accumulator's chain is the
//! shift and one add; above, where those two copies would spill, the low halves go
//! into the accumulator before the shift and the high halves after it.
//!
//! The lanes are never normalised inside the loop: the 12 bits above each digit absorb
//! the carries. Bound: one step adds to a lane at most 4 (2^52 - 1) < 2^54 (two low
//! and two high halves, each below 2^52), and a lane takes part in at most d steps, so
//! every lane stays below d 2^54 + 2^12 (the carry into lane 0 is the top 12 bits of a
//! 64-bit lane). That is below 2^64 while d <= 1023; montmul's largest modulus
//! (16384 bits, 257 limbs under lazy reduction) has d = 317, below 2^63. Lanes from
//! d upward stay 0: the digits of `a` and `n` there are 0. After the loop the carries
//! are propagated with vector operations (`x86::normalise_vectors`, after OpenSSL's
//! `rsaz-avx512`) and the digits packed back into 64-bit limbs.
//!
//! The conversions 64 -> 52 -> 64 bits cost O(s) per call (groups of 13 words and 16
//! digits, [`split_group`], [`join_group`]), against d^2 / 2 vector multiply-adds (4
//! per vector per step). A product keeps everything between its input and output
//! words in registers: the operands are split with masked loads straight from the
//! words, permutes and variable shifts (`x86::split`; b's shift by e is done on the
//! digits, `x86::shift_up`), and after the loop the carries are propagated, n
//! subtracted in the digit domain (the borrows rippled as the carries are,
//! `x86::finish_digits`) and the digits joined and stored masked to the output words
//! (`x86::join_store`). When each of those stages stored a buffer that the next one
//! loaded back (the loads waiting on stores they only partly overlapped), they cost
//! about 40% of a 1024-bit product; in registers, about 23% of it and 13% of a
//! 4096-bit one (measured). `montmul tune` measures where the kernel
//! starts to win (`ifma_from` in [`crate::thresholds`]). Exponentiation avoids the
//! conversions between products: [`exp`].
//!
//! Squaring: `x86::sqr_wide` (core `x86::sqr_lanes`, on digits) computes each
//! off-diagonal digit product once, against a copy of the operand doubled as a number:
//! it first builds the whole square by output vector (no serial dependency), then
//! reduces it in a window that moves one whole vector every 8 steps (8 shifted copies
//! of n, the phases unrolled: no per-step shift or add). It is used from 19 vectors
//! (`x86::SQR_WIDE_VECTORS`, 118 limbs), where `mul`'s operands and accumulators no
//! longer fit the registers and it costs about 0.6x of `mul`; at 14-18 vectors it
//! measured 0.98-1.69x of `mul`. Elsewhere, and for `Full` when 52 d = 64 s, the
//! squaring is the multiplication, with the operand split into digits once
//! (`x86::sqr_by_mul`). On Zen 4 the loop is bound by `vpmadd52` throughput
//! from about 5 vectors (one 512-bit multiply-add a cycle, measured) and below by the
//! chain of q and the next lane 0: `mul` does 4 V multiply-adds a step, a square at
//! best 2 V for q n plus the triangle's rows, which at vector granularity come to
//! about 8 V (V + 1) over the d steps (0.87x of `mul`'s at 3 vectors, 1024 bits; 0.78x
//! at 10), so the 0.8x goal is out of reach at 1024-4096 bits this way. Measured and
//! not kept:
//! - the rows interleaved with the reduction in the sliding accumulator (`mul` with the
//!   row x_i (2 x_{>i}) in place of a b_i, vectors wholly below lane i skipped): used
//!   for 7 ..= 10 vectors until the conversions were done in registers, it then
//!   measured 1.05-1.26x of `mul` per call at 2560-4096 bits (four alternating runs);
//! - the rows of the square in the sliding loop with its band along the diagonal
//!   computed first (no per-step shift of the square, the row masks on the
//!   multiply-adds): 0.84-0.93x of `mul`'s loop in a throughput test on digits, but
//!   1.05-1.38x of it in chained products and exponentiations (its start waits for the
//!   band, and its per-vector branches mispredict once each per product);
//! - a squaring in `mul`'s chained form for 2 ..= 6 vectors: per vector, row i as x_i
//!   times x itself with the lanes j <= i masked out of the multiply-adds and the row's
//!   sum doubled as lanes (so any a below n, no doubled operand), then q_i n, one sum
//!   off the accumulator; in phases of 8 steps, each a constant, so the vectors wholly
//!   below the row skip it without a branch; lane 1 predicted two steps ahead. It
//!   does 2 V d + about 8 V (V + 1) multiply-adds against 4 V d, but measured
//!   1.00-1.04x of the multiplication's time per call at 1024-2048 bits and made the
//!   1024-bit exponentiation 7% slower (four alternating runs of each build, medians).
//!
//! Words: 64 (instantiated for other limb types it falls back to
//! [`crate::algo::cios`]). Reduction: `Full` and `Lazy`. Constant-time: yes. The loop
//! counts and every address depend on the limb count only; the digits are split and
//! joined with shifts and masks; the final subtraction is masked, the mask hidden from
//! the optimiser (`x86::finish_digits`, and [`finish`] for the exponentiation's
//! words). Available on x86-64
//! CPUs with AVX-512F and AVX-512 IFMA (detected at run time; std caches the answer).

pub mod exp;

use crate::arch::Avx512Ifma;
use crate::kernel::{Kernel, KernelInfo, PowDomain};
use crate::{Modulus, Reduction};

/// The `amm52-ifma` kernel.
pub struct Amm52Ifma;

/// Mask of one 52-bit digit.
pub(super) const DIGIT: u64 = (1 << 52) - 1;

/// The largest number of vectors (8 digits each) a modulus of
/// [`crate::MAX_BITS`] bits needs: 257 limbs under lazy reduction, 317 digits.
pub const MAX_VECTORS: usize = 40;

/// Whether the [`Avx512Ifma`] token exists on this CPU.
pub fn is_available() -> bool {
    Avx512Ifma::new().is_some()
}

/// The digit counts of a modulus of `s` limbs: (d, V, e) with d = ceil(64 s / 52)
/// digits, V = ceil(d / 8) vectors and e = 52 d - 64 s, the shift applied to `b`.
pub fn shape(s: usize) -> (usize, usize, u32) {
    let d = (64 * s).div_ceil(52);
    (d, d.div_ceil(8), (52 * d - 64 * s) as u32)
}

/// Splits 13 64-bit words into 16 digits of 52 bits (16 * 52 = 13 * 64 = 832 bits):
/// digit k is bits 52 k .. 52 k + 52, from word 52 k / 64 at offset 52 k % 64 and, when
/// that offset is above 12, the next word. Straight-line code, constant shifts.
#[inline(always)]
pub fn split_group(w: &[u64; 13]) -> [u64; 16] {
    [
        w[0] & DIGIT,
        (w[0] >> 52 | w[1] << 12) & DIGIT,
        (w[1] >> 40 | w[2] << 24) & DIGIT,
        (w[2] >> 28 | w[3] << 36) & DIGIT,
        (w[3] >> 16 | w[4] << 48) & DIGIT,
        (w[4] >> 4) & DIGIT,
        (w[4] >> 56 | w[5] << 8) & DIGIT,
        (w[5] >> 44 | w[6] << 20) & DIGIT,
        (w[6] >> 32 | w[7] << 32) & DIGIT,
        (w[7] >> 20 | w[8] << 44) & DIGIT,
        (w[8] >> 8) & DIGIT,
        (w[8] >> 60 | w[9] << 4) & DIGIT,
        (w[9] >> 48 | w[10] << 16) & DIGIT,
        (w[10] >> 36 | w[11] << 28) & DIGIT,
        (w[11] >> 24 | w[12] << 40) & DIGIT,
        (w[12] >> 12) & DIGIT,
    ]
}

/// Joins 16 digits of 52 bits (each below 2^52) into 13 64-bit words: word k starts at
/// bit 64 k % 52 of digit 64 k / 52, takes the next digit whole and, when it started
/// above bit 40, the low bits of the one after.
#[inline(always)]
pub fn join_group(d: &[u64; 16]) -> [u64; 13] {
    [
        d[0] | d[1] << 52,
        d[1] >> 12 | d[2] << 40,
        d[2] >> 24 | d[3] << 28,
        d[3] >> 36 | d[4] << 16,
        d[4] >> 48 | d[5] << 4 | d[6] << 56,
        d[6] >> 8 | d[7] << 44,
        d[7] >> 20 | d[8] << 32,
        d[8] >> 32 | d[9] << 20,
        d[9] >> 44 | d[10] << 8 | d[11] << 60,
        d[11] >> 4 | d[12] << 48,
        d[12] >> 16 | d[13] << 36,
        d[13] >> 28 | d[14] << 24,
        d[14] >> 40 | d[15] << 12,
    ]
}

/// Writes `top 2^(64 s) + t < 2n` finished under the policy to `out`, as
/// [`crate::mpn::finish`]: for [`Reduction::Full`], t - n is computed in full and kept
/// with a mask when `top 2^(64 s) + t >= n`. On x86-64 the subtraction is one `sbb`
/// chain in inline asm (LLVM compiles a loop of borrows, `overflowing_sub` or
/// `_subborrow_u64` alike, into `setb` and flag-rebuilding pairs: about 6 cycles a word
/// against 2.4, measured at 64 words) and the choice a masked blend; the mask passes
/// through [`core::hint::black_box`] so that the optimiser, which can see that it is 0
/// or all ones, does not turn the blend back into a branch.
#[inline(always)]
pub fn finish(t: &[u64], top: u64, n: &[u64], reduction: Reduction, out: &mut [u64]) {
    assert!(t.len() == n.len() && out.len() == n.len());
    if reduction == Reduction::Lazy {
        // R > 4n: the value is below 2n < R, so top is 0 and t is the result.
        debug_assert_eq!(top, 0);
        out.copy_from_slice(t);
        return;
    }
    assert!(!t.is_empty() && t.len() <= FINISH_WORDS);
    {
        let mut diff = [core::mem::MaybeUninit::<u64>::uninit(); FINISH_WORDS];
        let borrow: u64;
        // SAFETY: the loop reads t.len() words of `t` and `n` and writes as many of
        // `diff` (FINISH_WORDS >= t.len(), checked above); `inc` and `dec` leave the
        // carry flag alone, so it chains the borrow through the `sbb`s. No stack use.
        unsafe {
            core::arch::asm!(
                "xor {i:e}, {i:e}",
                "2:",
                "mov {x}, qword ptr [{t} + 8*{i}]",
                "sbb {x}, qword ptr [{n} + 8*{i}]",
                "mov qword ptr [{d} + 8*{i}], {x}",
                "inc {i}",
                "dec {c}",
                "jnz 2b",
                "sbb {b}, {b}",
                t = in(reg) t.as_ptr(),
                n = in(reg) n.as_ptr(),
                d = in(reg) diff.as_mut_ptr(),
                c = inout(reg) t.len() => _,
                i = out(reg) _,
                x = out(reg) _,
                b = out(reg) borrow,
                options(nostack),
            );
        }
        // Subtract when the top word is set or t - n did not borrow (borrow is all
        // ones when it did).
        let keep = core::hint::black_box((top & 1).wrapping_neg() | !borrow);
        for ((o, &x), d) in out.iter_mut().zip(t).zip(&diff) {
            // SAFETY: the first t.len() words of diff were written above.
            let d = unsafe { d.assume_init() };
            *o = (d & keep) | (x & !keep);
        }
    }
}

/// The most words [`finish`] takes: a modulus of [`crate::MAX_BITS`] bits under lazy
/// reduction has 257 limbs.
const FINISH_WORDS: usize = 264;

// The AVX-512 intrinsics are stable since Rust 1.89, the workspace's `rust-version`.
mod x86 {
    use core::arch::x86_64::*;

    use super::{shape, DIGIT};
    use crate::arch::Avx512Ifma;
    use crate::Reduction;

    /// `out = a b R^-1 mod n` for `V` vectors of digits: the conversions and the
    /// word-serial loop of the module doc, then the policy's finish, in registers
    /// ([`split`], [`shift_up`], [`product`]). `a`, `b`, `n`, `out` have s limbs, and
    /// `shape(s)` gives V vectors.
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn mul<const V: usize>(
        a: &[u64],
        b: &[u64],
        n: &[u64],
        n0: u64,
        reduction: Reduction,
        out: &mut [u64],
    ) {
        let (d, v, e) = shape(n.len());
        assert!(v == V && a.len() == n.len() && b.len() == n.len() && out.len() == n.len());
        // b' = b 2^e < 2^(52 d): d digits, as a and n.
        // SAFETY: the caller guarantees the CPU features; 64 s <= 52 d <= 52 8 V.
        let (av, bv, nv) = unsafe { (split::<V>(a), shift_up(&split::<V>(b), e), split::<V>(n)) };
        // SAFETY: the caller guarantees the CPU features; out has s words.
        unsafe { product::<V>(&av, &bv, &nv, n0, d, reduction, out) };
    }

    /// `out = a a R^-1 mod n` as [`mul`] computes it, with a split into digits once:
    /// b' = a 2^e is shifted from a's digits, so no second load and split of the same
    /// words lies between the previous product's store and this one's loop (in a chain
    /// of squarings both operands wait on that store; measured 2-6% faster than
    /// [`mul`] with b = a at 640-4096 bits, three alternating runs). Below
    /// [`SQR_WIDE_VECTORS`], and where [`sqr_wide`] cannot run, this is the squaring:
    /// the dedicated ones measured slower there (module doc).
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn sqr_by_mul<const V: usize>(
        a: &[u64],
        n: &[u64],
        n0: u64,
        reduction: Reduction,
        out: &mut [u64],
    ) {
        let (d, v, e) = shape(n.len());
        assert!(v == V && a.len() == n.len() && out.len() == n.len());
        // SAFETY: the caller guarantees the CPU features; 64 s <= 52 d <= 52 8 V.
        let (av, nv) = unsafe { (split::<V>(a), split::<V>(n)) };
        let bv = shift_up(&av, e);
        // SAFETY: the caller guarantees the CPU features; out has s words.
        unsafe { product::<V>(&av, &bv, &nv, n0, d, reduction, out) };
    }

    /// The loop and the finish of [`mul`] on split operands: a's and n's digits, b's
    /// (shifted by e) as vectors.
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512 IFMA; `out` has s words (`shape(s)` gives V
    /// vectors and d digits).
    #[target_feature(enable = "avx512f,avx512ifma")]
    #[inline]
    unsafe fn product<const V: usize>(
        av: &[__m512i; V],
        bv: &[__m512i; V],
        nv: &[__m512i; V],
        n0: u64,
        d: usize,
        reduction: Reduction,
        out: &mut [u64],
    ) {
        // b's digits are read one a step, as scalars.
        let mut bd = [[0u64; 8]; V];
        store_vectors(bv, bd.as_flattened_mut());
        let acc = mul_vectors::<V>(av, &bd.as_flattened()[..d], nv, n0, d);
        // SAFETY: the caller guarantees the CPU features; out has s words.
        unsafe { finish_store::<V>(&acc, nv, reduction, out) };
    }

    /// The digit-domain core of [`mul`], the `d` word-serial steps of the module doc
    /// and the carry pass: writes the 8 V normalised digits of (a b + Q n) / 2^(52 d)
    /// to `out` and returns its part from 2^(52 8 V) up. `a`, `n` and `out` are 8 V
    /// digits, `b` at least `d`; every digit below 2^52, digits from `d` up 0 (in `a`
    /// and `n`). With a b < n 2^(52 d) the value is below 2n. `n0` is -n^-1 mod 2^52 in
    /// its low 52 bits (or more bits of it).
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    #[inline]
    pub unsafe fn mul_digits<const V: usize>(
        a: &[u64],
        b: &[u64],
        n: &[u64],
        n0: u64,
        d: usize,
        out: &mut [u64],
    ) -> u64 {
        assert!(a.len() == 8 * V && n.len() == 8 * V && out.len() == 8 * V);
        // SAFETY: the caller guarantees the CPU features; a and n hold 8 V digits.
        let (av, nv) = unsafe { (load_vectors::<V>(a), load_vectors::<V>(n)) };
        let (digits, c) = normalise_vectors::<V>(&mul_vectors::<V>(&av, b, &nv, n0, d));
        store_vectors(&digits, out);
        c
    }

    /// The word-serial loop of [`mul_digits`] in registers: the digits of a and n as
    /// vectors, b's as words (at least d, read one a step); returns the accumulator's
    /// lanes, not normalised (each below 2^63, the value's digit j at lane j plus the
    /// carries of the lanes below; lanes from d up 0).
    #[target_feature(enable = "avx512f,avx512ifma")]
    #[inline]
    fn mul_vectors<const V: usize>(
        av: &[__m512i; V],
        bd: &[u64],
        nv: &[__m512i; V],
        n0: u64,
        d: usize,
    ) -> [__m512i; V] {
        assert!(2 <= d && d <= 8 * V && bd.len() >= d);
        let k0s = (n0 & DIGIT) << 12;

        let zero = _mm512_setzero_si512();
        // Read only up to CHAINED_VECTORS vectors (above, the optimiser drops them).
        let (ad1, nd1) = (shifted_down(av), shifted_down(nv));
        let low = |x: __m512i| _mm_cvtsi128_si64(_mm512_castsi512_si128(x)) as u64;
        let (a0, a1) = (low(av[0]), low(ad1[0]));
        let (n0, n1) = (low(nv[0]), low(nd1[0]));
        let mut acc = [zero; V];
        // The true lane 0 is kept in scalar, `r0`: the vector's lane 0 is never read.
        // Lanes 1 and up are exact in the vectors.
        let mut r0 = 0u64;
        for &bi in &bd[..d] {
            let bv = _mm512_set1_epi64(bi as i64);
            // Lane 1 now, which the shift below makes lane 0 of the next step.
            let x1 = _mm_extract_epi64::<1>(_mm512_castsi512_si128(acc[0])) as u64;
            // All four 52 x 52-bit products are below 2^104.
            let pa0 = u128::from(a0) * u128::from(bi);
            let t = r0 + (pa0 as u64 & DIGIT);
            // q 2^12 (module doc); t + lo52(n_0 q) = 0 mod 2^52 is t rounded up to a
            // multiple of 2^52, whose high 12 bits carry into lane 1.
            let qs = t.wrapping_mul(k0s);
            let q = qs >> 12;
            let c = (t >> 52) + (((t & DIGIT) + DIGIT) >> 52);
            let h0 = ((u128::from(n0) * u128::from(qs)) >> 64) as u64;
            // The next lane 0, in scalar, so that the next q need not wait for the
            // vectors: lane 1 plus its low halves, plus lane 0's high halves and carry.
            // Every sum here is a lane value, below the bound of the module doc.
            r0 = (x1 + (a1.wrapping_mul(bi) & DIGIT) + (pa0 >> 52) as u64 + c)
                + (n1.wrapping_mul(qs) >> 12)
                + h0;
            let qv = _mm512_set1_epi64(q as i64);
            // The sum to add after the shift (the high halves, and up to
            // CHAINED_VECTORS the low halves, one lane down, too).
            let mut hi = [zero; V];
            for v in 0..V {
                if V <= CHAINED_VECTORS {
                    let mut s = _mm512_madd52lo_epu64(zero, ad1[v], bv);
                    s = _mm512_madd52hi_epu64(s, av[v], bv);
                    s = _mm512_madd52lo_epu64(s, nd1[v], qv);
                    hi[v] = _mm512_madd52hi_epu64(s, nv[v], qv);
                } else {
                    acc[v] = _mm512_madd52lo_epu64(acc[v], av[v], bv);
                    acc[v] = _mm512_madd52lo_epu64(acc[v], nv[v], qv);
                    hi[v] = _mm512_madd52hi_epu64(zero, av[v], bv);
                    hi[v] = _mm512_madd52hi_epu64(hi[v], nv[v], qv);
                }
            }
            // Lane j <- lane j + 1 across the vectors, then the sum: the high halves of
            // lane j (which belong one lane up) land on lane j.
            for v in 0..V {
                let next = if v + 1 < V { acc[v + 1] } else { zero };
                acc[v] = _mm512_add_epi64(_mm512_alignr_epi64::<1>(next, acc[v]), hi[v]);
            }
        }
        // Lane 0 from r0, in the vector: a word stored alone inside a vector that the
        // carry pass then loads whole would stall that load until the store retires.
        acc[0] = _mm512_mask_set1_epi64(acc[0], 1, r0 as i64);
        acc
    }

    /// The square of `a` in the digit domain, as [`mul_digits`] with b = a (same
    /// contract), for `a` below 2^(52 d - 1) (the exponentiation's values are below
    /// 2n < R' / 2): [`sqr_lanes`] at [`SQR_WIDE_VECTORS`], where it measured faster,
    /// else the multiplication.
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    #[inline]
    pub unsafe fn sqr_digits<const V: usize>(
        a: &[u64],
        n: &[u64],
        n0: u64,
        d: usize,
        out: &mut [u64],
    ) -> u64 {
        // `sqr_lanes` takes its window width W = V + 1 as a second constant, so each
        // vector count it serves is named once here; V is a constant, the match
        // resolves at compile time.
        macro_rules! wide {
            ($($v:literal)*) => {
                match V {
                    $($v => {
                        // SAFETY: the caller guarantees the CPU features and the
                        // contract of `mul_digits` (8 V digits each, d > 8 (V - 1) as
                        // V = ceil(d / 8), a < 2^(52 d - 1)); `sqr_lanes` checks the
                        // lengths.
                        let lanes = unsafe { sqr_lanes::<$v, { $v + 1 }>(a, n, d, n0 & DIGIT) };
                        // SAFETY: as above; lanes holds 8 V words.
                        let x = unsafe { load_vectors::<V>(lanes.as_flattened()) };
                        let (digits, c) = normalise_vectors::<V>(&x);
                        store_vectors(&digits, out);
                        c
                    })*
                    // SAFETY: as above.
                    _ => unsafe { mul_digits::<V>(a, a, n, n0, d, out) },
                }
            };
        }
        debug_assert!(!SQR_WIDE_VECTORS.contains(&V) || d > 8 * (V - 1));
        wide!(19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40)
    }

    /// The 8 V digits of `x` (s words, 64 s <= 52 8 V), in registers: [`super::split_group`]
    /// one vector at a time. Vector v is half k = v mod 2 of group g = v / 2 (13 words,
    /// 16 digits); its digit l (bit 52 (8 k + l) of the group) is word i_l of the 8
    /// loaded from word 13 g + 6 k on, shifted right by r_l, or-ed with word i_l + 1
    /// shifted left by 64 - r_l (a shift by 64 gives 0), both gathered with a permute.
    /// The loads are masked to the s words of `x`, so no copy into a padded buffer
    /// (and no store for the load to wait on) is needed; digits from ceil(64 s / 52) up
    /// are 0.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) unsafe fn split<const V: usize>(x: &[u64]) -> [__m512i; V] {
        let s = x.len();
        assert!(64 * s <= 52 * 8 * V);
        let digit = _mm512_set1_epi64(DIGIT as i64);
        let word = [
            _mm512_set_epi64(5, 4, 4, 3, 2, 1, 0, 0),
            _mm512_set_epi64(6, 5, 4, 3, 2, 2, 1, 0),
        ];
        let shift = [
            _mm512_set_epi64(44, 56, 4, 16, 28, 40, 52, 0),
            _mm512_set_epi64(12, 24, 36, 48, 60, 8, 20, 32),
        ];
        let one = _mm512_set1_epi64(1);
        let sixty_four = _mm512_set1_epi64(64);
        core::array::from_fn(|v| {
            let (k, first) = (v % 2, 13 * (v / 2) + 6 * (v % 2));
            if first >= s {
                // (The limb count is public.)
                return _mm512_setzero_si512();
            }
            let mask = (0xffu32 >> 8usize.saturating_sub(s - first)) as __mmask8;
            // SAFETY: the mask covers words first .. min(first + 8, s) of x, all in
            // bounds; the masked-out lanes are not read.
            let w = unsafe { _mm512_maskz_loadu_epi64(mask, x[first..].as_ptr().cast()) };
            let low = _mm512_srlv_epi64(_mm512_permutexvar_epi64(word[k], w), shift[k]);
            let high = _mm512_sllv_epi64(
                _mm512_permutexvar_epi64(_mm512_add_epi64(word[k], one), w),
                _mm512_sub_epi64(sixty_four, shift[k]),
            );
            _mm512_and_si512(_mm512_or_si512(low, high), digit)
        })
    }

    /// The digits of x 2^sh for the digits of x (each below 2^52) and sh < 52, when
    /// x 2^sh < 2^(52 8 V): digit j is the low 52 - sh bits of x_j moved up, or-ed with
    /// the top sh bits of x_{j-1}.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) fn shift_up<const V: usize>(x: &[__m512i; V], sh: u32) -> [__m512i; V] {
        debug_assert!(sh < 52);
        let digit = _mm512_set1_epi64(DIGIT as i64);
        let up = _mm_cvtsi64_si128(i64::from(sh));
        let down = _mm_cvtsi64_si128(i64::from(52 - sh));
        core::array::from_fn(|v| {
            let prev = if v > 0 {
                x[v - 1]
            } else {
                _mm512_setzero_si512()
            };
            // Lane j of `below` is digit j - 1.
            let below = _mm512_alignr_epi64::<7>(x[v], prev);
            _mm512_or_si512(
                _mm512_and_si512(_mm512_sll_epi64(x[v], up), digit),
                _mm512_srl_epi64(below, down),
            )
        })
    }

    /// Writes the s = `out.len()` words of the value of the digits `x` (each below 2^52,
    /// the value below 2^(64 s)): [`super::join_group`] one group (two vectors) at a time.
    /// Word l of a group is digit j_l shifted right by r_l, or-ed with digit j_l + 1
    /// shifted left by 52 - r_l and digit j_l + 2 shifted left by 104 - r_l (shifts of
    /// 64 or more give 0), gathered from the group's 16 digits with two-source
    /// permutes; words 0 .. 8 and 8 .. 13 of the group are stored masked to `out`.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) unsafe fn join_store<const V: usize>(x: &[__m512i; V], out: &mut [u64]) {
        let s = out.len();
        assert!(64 * s <= 52 * 8 * V);
        let digit_of = [
            _mm512_set_epi64(8, 7, 6, 4, 3, 2, 1, 0),
            // Words 8 .. 13 (lanes 5 .. 8 unused: index 0, shifted out).
            _mm512_set_epi64(0, 0, 0, 14, 13, 12, 11, 9),
        ];
        let shift = [
            _mm512_set_epi64(32, 20, 8, 48, 36, 24, 12, 0),
            _mm512_set_epi64(0, 0, 0, 40, 28, 16, 4, 44),
        ];
        let one = _mm512_set1_epi64(1);
        let two = _mm512_set1_epi64(2);
        let c52 = _mm512_set1_epi64(52);
        let c104 = _mm512_set1_epi64(104);
        for g in 0..V.div_ceil(2) {
            let x0 = x[2 * g];
            let x1 = if 2 * g + 1 < V {
                x[2 * g + 1]
            } else {
                _mm512_setzero_si512()
            };
            for k in 0..2 {
                let (first, width) = (13 * g + 8 * k, [8, 5][k]);
                if first >= s {
                    break;
                }
                let (j, r) = (digit_of[k], shift[k]);
                let a = _mm512_srlv_epi64(_mm512_permutex2var_epi64(x0, j, x1), r);
                let b = _mm512_sllv_epi64(
                    _mm512_permutex2var_epi64(x0, _mm512_add_epi64(j, one), x1),
                    _mm512_sub_epi64(c52, r),
                );
                // Index j + 2 is 16 for word 12 (r = 40, shift 64: 0); permutex2var
                // takes indices mod 16, and the shift clears the lane.
                let c = _mm512_sllv_epi64(
                    _mm512_permutex2var_epi64(x0, _mm512_add_epi64(j, two), x1),
                    _mm512_sub_epi64(c104, r),
                );
                let w = _mm512_or_si512(_mm512_or_si512(a, b), c);
                let mask = (0xffu32 >> (8 - width.min(s - first))) as __mmask8;
                // SAFETY: the mask covers words first .. min(first + width, s) of out,
                // all in bounds; the masked-out lanes are not written.
                unsafe { _mm512_mask_storeu_epi64(out[first..].as_mut_ptr().cast(), mask, w) };
            }
        }
    }

    /// The lanes that receive a carry when each lane of V vectors generates one (bit of
    /// `g`) or passes one on (bit of `p`), one bit per lane, 8 per vector, 64 per word:
    /// ((G << 1) + P) ^ P, the addition rippling the carries through runs of P as a
    /// multi-word addition (at most 5 words: 320 lanes). Returns those lanes and the
    /// carry out of the top lane. No lane may both generate and pass one on; then at
    /// most one carry reaches any lane. Branch-free.
    #[inline(always)]
    fn ripple<const V: usize>(g: &[u64; 5], p: &[u64; 5]) -> ([u64; 5], u64) {
        let words = V.div_ceil(8);
        let mut cin = [0u64; 5];
        let (mut carry, mut g_below) = (0u64, 0u64);
        for k in 0..words {
            let shifted = g[k] << 1 | g_below >> 63;
            g_below = g[k];
            let (s1, c1) = shifted.overflowing_add(p[k]);
            let (s2, c2) = s1.overflowing_add(carry);
            carry = u64::from(c1 | c2);
            cin[k] = s2 ^ p[k];
        }
        // The carry out of lane 8 V - 1: the bit past the top word, or (the lanes above
        // 8 V having no G or P bit) bit 8 V of the sum.
        let past = if V.is_multiple_of(8) {
            (g_below >> 63) + carry
        } else {
            (cin[words - 1] >> (8 * (V % 8))) & 1
        };
        (cin, past)
    }

    /// The 8 bits of vector v in a mask of [`ripple`].
    #[inline(always)]
    fn lanes_of(m: &[u64; 5], v: usize) -> __mmask8 {
        (m[v / 8] >> (8 * (v % 8))) as __mmask8
    }

    /// The 8 V normalised digits (each below 2^52) of the value of the lanes `x` (lane
    /// j weighs 2^(52 j), any 64-bit values), with vector operations only, as OpenSSL's
    /// `rsaz-avx512` normalisation, and the carry out of the top digit (the value over
    /// 2^(52 8 V)):
    ///
    /// 1. each lane keeps its low 52 bits and adds the bits above of the lane below (one
    ///    lane shift across the vectors): now every lane is below 2^52 + 2^12, so each
    ///    carries at most 1;
    /// 2. a lane generates a carry when it is above 2^52 - 1 and passes one on when it
    ///    equals 2^52 - 1: with these as bit masks G and P (one bit per lane), the lanes
    ///    that receive a carry are ((G << 1) + P) ^ P, the addition rippling the carries
    ///    through runs of P (a multi-word addition of at most 5 words, as there are at
    ///    most 320 lanes); those lanes add 1, and every lane keeps its low 52 bits.
    ///
    /// A lane generating a carry is not one passing one on (it is at most 2^12 - 1 after
    /// its low 52 bits), so at most one carry reaches any lane, the one past the top
    /// included. No branch, no address depends on the values: constant-time.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) fn normalise_vectors<const V: usize>(x: &[__m512i; V]) -> ([__m512i; V], u64) {
        const { assert!(V <= super::MAX_VECTORS) };
        let digit = _mm512_set1_epi64(DIGIT as i64);
        let one = _mm512_set1_epi64(1);
        let zero = _mm512_setzero_si512();
        let mut y = [zero; V];
        let mut below = zero;
        for v in 0..V {
            let c = _mm512_srli_epi64::<52>(x[v]);
            // Lane j gets the carry of lane j - 1 (lane 7 of the vector below for j = 0).
            let up = _mm512_alignr_epi64::<7>(c, below);
            y[v] = _mm512_add_epi64(_mm512_and_si512(x[v], digit), up);
            below = c;
        }
        // The first pass's carry out of the top lane: lane 7 of the last carries.
        let top = _mm256_extract_epi64::<3>(_mm512_extracti64x4_epi64::<1>(below)) as u64;
        let (mut g, mut p) = ([0u64; 5], [0u64; 5]);
        for v in 0..V {
            g[v / 8] |= u64::from(_mm512_cmpgt_epu64_mask(y[v], digit)) << (8 * (v % 8));
            p[v / 8] |= u64::from(_mm512_cmpeq_epu64_mask(y[v], digit)) << (8 * (v % 8));
        }
        let (cin, past) = ripple::<V>(&g, &p);
        let z = core::array::from_fn(|v| {
            _mm512_and_si512(
                _mm512_mask_add_epi64(y[v], lanes_of(&cin, v), y[v], one),
                digit,
            )
        });
        (z, top + past)
    }

    /// The policy's finish of c 2^(52 8 V) + x < 2n in the digit domain (x normalised
    /// digits, n's digits `nv`, both 0 from 8 V up): for [`Reduction::Full`], x - n is
    /// computed in full, the borrows rippled as [`normalise_vectors`]'s carries (a lane
    /// generates one when x_j < n_j and passes one on when x_j = n_j), and kept with a
    /// mask when the value is at least n (c set, or no borrow out of the top). The
    /// mask passes through [`core::hint::black_box`] so that the optimiser does not
    /// turn the select into a branch. For [`Reduction::Lazy`] (R > 4n) the value is
    /// below R: x itself, c 0.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) fn finish_digits<const V: usize>(
        x: &[__m512i; V],
        c: u64,
        nv: &[__m512i; V],
        reduction: Reduction,
    ) -> [__m512i; V] {
        if reduction == Reduction::Lazy {
            debug_assert_eq!(c, 0);
            return *x;
        }
        let digit = _mm512_set1_epi64(DIGIT as i64);
        let one = _mm512_set1_epi64(1);
        let (mut g, mut p) = ([0u64; 5], [0u64; 5]);
        for v in 0..V {
            g[v / 8] |= u64::from(_mm512_cmplt_epu64_mask(x[v], nv[v])) << (8 * (v % 8));
            p[v / 8] |= u64::from(_mm512_cmpeq_epu64_mask(x[v], nv[v])) << (8 * (v % 8));
        }
        let (bin, borrow) = ripple::<V>(&g, &p);
        // All ones when the value is at least n.
        let keep = core::hint::black_box(u64::from((c != 0) | (borrow == 0)).wrapping_neg());
        let keep = _mm512_set1_epi64(keep as i64);
        core::array::from_fn(|v| {
            let diff = _mm512_sub_epi64(x[v], nv[v]);
            let diff = _mm512_and_si512(
                _mm512_mask_sub_epi64(diff, lanes_of(&bin, v), diff, one),
                digit,
            );
            // x ^ ((x ^ diff) & keep): diff where kept, x elsewhere.
            _mm512_xor_si512(x[v], _mm512_and_si512(_mm512_xor_si512(x[v], diff), keep))
        })
    }

    /// The lanes `acc` of a value below 2n (n's digits `nv`) normalised, finished under
    /// the policy and written to the s = `out.len()` words of `out`: [`normalise_vectors`],
    /// [`finish_digits`], [`join_store`], all in registers.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) unsafe fn finish_store<const V: usize>(
        acc: &[__m512i; V],
        nv: &[__m512i; V],
        reduction: Reduction,
        out: &mut [u64],
    ) {
        let (x, c) = normalise_vectors::<V>(acc);
        let x = finish_digits::<V>(&x, c, nv, reduction);
        // SAFETY: the caller guarantees the CPU features; join_store checks the length.
        unsafe { join_store::<V>(&x, out) };
    }

    /// The digits of both squarings' operands: a'' = a 2^(e/2) (e = 52 d - 64 s is a
    /// multiple of 4, so that a''^2 2^-(52 d) = a^2 2^-(64 s); a''^2 < n 2^(52 d) when
    /// a < n), and n; with d. Checks the lengths against V.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn square_operands<const V: usize>(
        a: &[u64],
        n: &[u64],
        out: &[u64],
    ) -> (usize, [__m512i; V], [__m512i; V]) {
        let (d, v, e) = shape(n.len());
        assert!(v == V && a.len() == n.len() && out.len() == n.len());
        // SAFETY: AVX-512F is enabled here; 64 s <= 52 d <= 52 8 V.
        unsafe { (d, shift_up(&split::<V>(a), e / 2), split::<V>(n)) }
    }

    /// Stores the vectors `x` to the 8 V words of `out`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn store_vectors<const V: usize>(x: &[__m512i; V], out: &mut [u64]) {
        assert!(out.len() == 8 * V);
        for (o, &xv) in out.chunks_exact_mut(8).zip(x) {
            // SAFETY: o is 8 words; storeu has no alignment requirement.
            unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast(), xv) };
        }
    }

    /// The first 8 V digits of `x` as V vectors.
    ///
    /// # Safety
    /// The CPU has AVX-512F; `x` holds at least 8 V digits.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn load_vectors<const V: usize>(x: &[u64]) -> [__m512i; V] {
        assert!(x.len() >= 8 * V);
        // SAFETY: 8 v .. 8 v + 8 is in bounds (checked above); loadu has no alignment
        // requirement.
        core::array::from_fn(|v| unsafe { _mm512_loadu_si512(x[8 * v..].as_ptr().cast()) })
    }

    /// The digits of `w` shifted down one lane across the vectors: lane j of vector v
    /// is digit 8 v + j + 1 (0 past the top).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn shifted_down<const V: usize>(w: &[__m512i; V]) -> [__m512i; V] {
        core::array::from_fn(|v| {
            let next = if v + 1 < V {
                w[v + 1]
            } else {
                _mm512_setzero_si512()
            };
            _mm512_alignr_epi64::<1>(next, w[v])
        })
    }

    /// The digits of the number 2 x, y_j = (2 x_j mod 2^52) + (bit 51 of x_{j-1}), and
    /// the digits doubled without the carry from below, z_j = 2 x_j mod 2^52, for the
    /// digit vectors of x (each digit below 2^52; 2 x_j mod 2^52 is even, so y_j <
    /// 2^52: y is a whole multiply-add input). y is 2 x only while x < 2^(52 d - 1).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn doubled<const V: usize>(xv: &[__m512i; V]) -> ([__m512i; V], [__m512i; V]) {
        let zero = _mm512_setzero_si512();
        let one = _mm512_set1_epi64(1);
        let digit = _mm512_set1_epi64(DIGIT as i64);
        let z: [__m512i; V] =
            core::array::from_fn(|v| _mm512_and_si512(_mm512_add_epi64(xv[v], xv[v]), digit));
        let y = core::array::from_fn(|v| {
            let prev = if v > 0 { xv[v - 1] } else { zero };
            let carry = _mm512_and_si512(
                _mm512_srli_epi64::<51>(_mm512_alignr_epi64::<7>(xv[v], prev)),
                one,
            );
            _mm512_add_epi64(z[v], carry)
        });
        (y, z)
    }

    /// One instance of [`mul`].
    type Mul = unsafe fn(&[u64], &[u64], &[u64], u64, Reduction, &mut [u64]);

    /// Lane `$l` (a constant expression, 0 ..= 7) of the vector `$v`, as a scalar.
    macro_rules! lane {
        ($v:expr, $l:expr) => {{
            let l = $l;
            _mm_cvtsi128_si64(_mm512_castsi512_si128(_mm512_permutexvar_epi64(
                _mm512_set1_epi64(l as i64),
                $v,
            ))) as u64
        }};
    }

    /// `(x^2 + Q n) / 2^(52 d)` as `d` unnormalised lanes (each below 2^63; lanes from
    /// d up are 0), for the digits `xd` of x and `nd` of n (at least 8 V each, each
    /// below 2^52, 0 from d up), `k0 = -n^-1 mod 2^52`, d in 8 (V - 1) + 1 ..= 8 V,
    /// `W = V + 1`. Needs x < 2^(52 d - 1) (the doubled operand keeps d digits); the
    /// value is then below x^2 / 2^(52 d) + n. The core of [`sqr_wide`], on digits, for a
    /// caller that works in radix 2^52 throughout.
    ///
    /// Two phases, where [`mul`] interleaves them. First the square, with no serial
    /// dependency: x^2 = sum_i x_i^2 B^(2 i) + sum_i x_i B^i 2 x_{>i} (B = 2^52, x_{>i}
    /// the digits of x above i), built by output vector t (digit positions 8 t ..
    /// 8 t + 8) from the rows that reach it, four multiply-add chains at a time. The
    /// digits of 2 x_{>i} are y_j = (2 x_j mod 2^52) + (bit 51 of x_{j-1}), the digits
    /// of the number 2 x, for j > i + 1, and z_{i+1} = y_{i+1} - (bit 51 of x_i) at
    /// j = i + 1 (2 x_j mod 2^52 is even, so y_j < 2^52: a whole multiply-add input).
    /// Row i = 8 b + p meets vector t in vector t - b of y shifted up by p lanes (8
    /// shifted copies of y and of n are made once per call); rows i < 4 t cover the
    /// vector whole, rows 4 t .. 4 t + 4 from lane 2 (i - 4 t) + 1 on (masked), earlier
    /// rows do not reach it. The low halves go to `tl`, the high halves to `th`, whose
    /// lane l stands for position 8 t + l + 1: one multiplicand serves both halves.
    ///
    /// Then the d reduction steps, q_i n at position i. Unlike [`mul`], the accumulator
    /// does not slide one lane a step: it is a window of W vectors over `tl` / `th`
    /// that moves one whole vector every 8 steps (block k covers positions 8 k ..
    /// 8 k + 8 W), so step 8 k + p multiplies n shifted up by p lanes, and the 8 phases
    /// are unrolled (every shift and lane index a constant): 2 W multiply-adds a step,
    /// no shift, no vector add, no branch but the public step count.
    ///
    /// The exact lane i (with its carries) is `r0`, in scalar, as in [`mul`]; lane i + 1
    /// is predicted two steps ahead: `ahead` is lane i + 2 read from the window at the
    /// start of step i - 1 plus what that step added there, so the next q waits for no
    /// vector at all. (The square is complete before the reduction starts, so only
    /// q n's halves are predicted.)
    ///
    /// Lane bound: a lane takes at most one low and one high half (each below 2^52) from
    /// each of the d rows and of the d steps, and the diagonal's one half once: below
    /// d 2^54 + 2^52 + 2^12 < 2^63 for d <= 317 (the carry from lane i - 1 is the top 12
    /// bits of a 64-bit lane); `tl`, `th`, `acc` and `hac` alone below d 2^53 + 2^52.
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) unsafe fn sqr_lanes<const V: usize, const W: usize>(
        xd: &[u64],
        nd: &[u64],
        d: usize,
        k0: u64,
    ) -> [[u64; 8]; V] {
        assert!(W == V + 1 && xd.len() >= 8 * V && nd.len() >= 8 * V);
        assert!(d > 8 * (V - 1) && d <= 8 * V);
        let zero = _mm512_setzero_si512();
        // SAFETY: xd and nd hold at least 8 V digits.
        let (xv, n_vectors) = unsafe { (load_vectors::<V>(xd), load_vectors::<V>(nd)) };
        // y: the digits of the number 2 x (2 x < 2^(52 d): x < 2^(52 d - 1)); vector V
        // of n and y is 0.
        let (y_vectors, _) = doubled(&xv);
        let (mut nv, mut yv) = ([zero; W], [zero; W]);
        nv[..V].copy_from_slice(&n_vectors);
        yv[..V].copy_from_slice(&y_vectors);
        // nsh[p][m], ysh[p][m]: vector m of n and y shifted up by p lanes (lane l is
        // digit 8 m + l - p, 0 below digit 0); vector V is 0 in nv and yv.
        let mut nsh = [[zero; W]; 8];
        let mut ysh = [[zero; W]; 8];
        macro_rules! shifted {
            ($($p:literal)*) => {$(
                for m in 0..W {
                    let (n_lo, y_lo) = if m > 0 { (nv[m - 1], yv[m - 1]) } else { (zero, zero) };
                    nsh[$p][m] = _mm512_alignr_epi64::<{ 8 - $p }>(nv[m], n_lo);
                    ysh[$p][m] = _mm512_alignr_epi64::<{ 8 - $p }>(yv[m], y_lo);
                }
            )*};
        }
        nsh[0] = nv;
        ysh[0] = yv;
        shifted!(1 2 3 4 5 6 7);
        // Vector t of the diagonal x_j^2 (t < 2 V): low half of x_j^2 at lane 2 j, high
        // half at lane 2 j + 1, so vector t holds x_{4 t} .. x_{4 t + 3}.
        let lo_idx = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0);
        let hi_idx = _mm512_set_epi64(7, 7, 6, 6, 5, 5, 4, 4);
        let diag = |t: usize| {
            let idx = if t.is_multiple_of(2) { lo_idx } else { hi_idx };
            let sp = _mm512_permutexvar_epi64(idx, xv[t / 2]);
            let lo = _mm512_maskz_madd52lo_epu64(0x55, zero, sp, sp);
            _mm512_mask_madd52hi_epu64(lo, 0xaa, sp, sp)
        };
        // The triangle, by output vector t (digit positions 8 t .. 8 t + 8; 2 V of them):
        // tl[t] the low halves and the diagonal, th[t] the high halves (lane l of th[t]
        // stands for position 8 t + l + 1). Row i = 8 b + p reaches vector t through
        // ysh[p][t - b], so t - b <= V: i >= 8 (t - V); it starts at position 2 i + 1,
        // so rows i < 4 t cover the vector whole and rows 4 t .. 4 t + 4 in part (from
        // lane 2 (i - 4 t) + 1, z there). Rows from d up have x_i = 0. The loop bounds
        // depend on V only.
        let mut tl = [[zero; W]; 2];
        let mut th = [[zero; W]; 2];
        let (tl, th) = (tl.as_flattened_mut(), th.as_flattened_mut());
        for t in 0..2 * V {
            let (mut l0, mut h0, mut l1, mut h1) = (diag(t), zero, zero, zero);
            // An even count: 4 t, or 8 V - 4 t.
            let mut i = (8 * t).saturating_sub(8 * V);
            while i < 4 * t {
                let (w0, w1) = (ysh[i % 8][t - i / 8], ysh[(i + 1) % 8][t - (i + 1) / 8]);
                let (x0, x1) = (
                    _mm512_set1_epi64(xd[i] as i64),
                    _mm512_set1_epi64(xd[i + 1] as i64),
                );
                l0 = _mm512_madd52lo_epu64(l0, w0, x0);
                h0 = _mm512_madd52hi_epu64(h0, w0, x0);
                l1 = _mm512_madd52lo_epu64(l1, w1, x1);
                h1 = _mm512_madd52hi_epu64(h1, w1, x1);
                i += 2;
            }
            macro_rules! part {
                ($($c:literal)*) => {$(
                    // Row i = 4 t + c: vector t - i / 8 = t - t / 2 of its shifted copy,
                    // lanes from 2 c + 1, z_{i+1} = y_{i+1} - (bit 51 of x_i) there.
                    let i = 4 * t + $c;
                    let xi = xd[i];
                    let w = _mm512_maskz_mov_epi64((0xffu32 << (2 * $c + 1)) as u8, ysh[i % 8][t - t / 2]);
                    let w = _mm512_mask_sub_epi64(
                        w,
                        (1u32 << (2 * $c + 1)) as u8,
                        w,
                        _mm512_set1_epi64((xi >> 51) as i64),
                    );
                    let xiv = _mm512_set1_epi64(xi as i64);
                    if $c % 2 == 0 {
                        l0 = _mm512_madd52lo_epu64(l0, w, xiv);
                        h0 = _mm512_madd52hi_epu64(h0, w, xiv);
                    } else {
                        l1 = _mm512_madd52lo_epu64(l1, w, xiv);
                        h1 = _mm512_madd52hi_epu64(h1, w, xiv);
                    }
                )*};
            }
            part!(0 1 2 3);
            tl[t] = _mm512_add_epi64(l0, l1);
            th[t] = _mm512_add_epi64(h0, h1);
        }

        // `$body` for `$m` = 0 .. W in straight-line code (W is at most MAX_VECTORS + 1),
        // so that the window stays in registers where it fits.
        macro_rules! unrolled {
            ($m:ident, $body:block) => {
                unrolled!(@ $m, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
                    21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40);
            };
            (@ $m:ident, $body:block, $($i:literal)*) => {
                $(if $i < W {
                    let $m: usize = $i;
                    $body
                })*
            };
        }
        // The reduction: acc and hac, the window of W vectors over tl and th.
        let mut acc: [__m512i; W] = core::array::from_fn(|m| tl[m]);
        let mut hac: [__m512i; W] = core::array::from_fn(|m| th[m]);
        let (n0, n1, n2) = (nd[0], nd[1], nd[2]);
        let k0s = k0 << 12;
        // The exact lane 0 (x_0^2's low half) and lane 1.
        let mut r0 = lane!(acc[0], 0);
        let mut ahead = lane!(acc[0], 1) + lane!(hac[0], 0);
        for k in 0..V {
            if k > 0 {
                // The window moves up one vector: digit positions below 8 k are done
                // (their values went into r0), vector k + V of the square enters.
                unrolled!(m, {
                    if m < V {
                        acc[m] = acc[m + 1];
                        hac[m] = hac[m + 1];
                    }
                });
                acc[V] = tl[k + V];
                hac[V] = th[k + V];
            }
            macro_rules! step {
                ($p:literal) => {
                    if 8 * k + $p < d {
                        // Lane i + 2 now, before this step's additions (hac's lane L
                        // is lane L + 1).
                        let x2 = lane!(acc[($p + 2) >> 3], ($p + 2) & 7)
                            + lane!(hac[($p + 1) >> 3], ($p + 1) & 7);
                        let qs = r0.wrapping_mul(k0s);
                        let q = qs >> 12;
                        let c = (r0 >> 52) + (((r0 & DIGIT) + DIGIT) >> 52);
                        let h0 = ((u128::from(n0) * u128::from(qs)) >> 64) as u64;
                        let h1 = ((u128::from(n1) * u128::from(qs)) >> 64) as u64;
                        // This step's additions to lane i + 1 and to lane i + 2.
                        r0 = (ahead + c) + (n1.wrapping_mul(qs) >> 12) + h0;
                        ahead = x2 + (n2.wrapping_mul(qs) >> 12) + h1;
                        let qv = _mm512_set1_epi64(q as i64);
                        unrolled!(m, {
                            acc[m] = _mm512_madd52lo_epu64(acc[m], nsh[$p][m], qv);
                            hac[m] = _mm512_madd52hi_epu64(hac[m], nsh[$p][m], qv);
                        });
                    }
                };
            }
            step!(0);
            step!(1);
            step!(2);
            step!(3);
            step!(4);
            step!(5);
            step!(6);
            step!(7);
        }
        // The window is at block V - 1: digit position d + t is window lane
        // R = d + t - 8 (V - 1), R >= 1; lane d itself is r0.
        let (mut la, mut lh) = ([[0u64; 8]; W], [[0u64; 8]; W]);
        for m in 0..W {
            // SAFETY: la[m] and lh[m] are 8 words; storeu has no alignment requirement.
            unsafe {
                _mm512_storeu_si512(la[m].as_mut_ptr().cast(), acc[m]);
                _mm512_storeu_si512(lh[m].as_mut_ptr().cast(), hac[m]);
            }
        }
        let (la, lh) = (la.as_flattened(), lh.as_flattened());
        let base = d - 8 * (V - 1);
        let mut lanes = [[0u64; 8]; V];
        let out = lanes.as_flattened_mut();
        out[0] = r0;
        for t in 1..d {
            // Both below d 2^53 + 2^52: the sum is below 2^63.
            out[t] = la[base + t] + lh[base + t - 1];
        }
        lanes
    }

    /// `out = a a R^-1 mod n` (below 2n before the policy's finish), as [`mul`] with
    /// b = a, by [`sqr_lanes`]. Both factors are a'' = a 2^(e/2) (e = 52 d - 64 s is a
    /// multiple of 4: 52 d and 64 s are), so the d steps that divide by 2^(52 d) leave
    /// a''^2 2^-(52 d) = a^2 2^-(64 s). Bound: a''^2 = a^2 2^e < n R 2^e = n 2^(52 d),
    /// so the result is below n + n. [`sqr_lanes`] needs a'' < 2^(52 d - 1): true when
    /// e > 0 (a'' < 2^(64 s + e/2)) and for `Lazy` (a < R / 2); [`mont_sqr`] sends the
    /// rest to [`mul`]. Only one operand is converted.
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn sqr_wide<const V: usize, const G: usize, const W: usize>(
        a: &[u64],
        n: &[u64],
        n0: u64,
        reduction: Reduction,
        out: &mut [u64],
    ) {
        let (d, xv, nv) = square_operands::<V>(a, n, out);
        let (mut xm, mut nm) = ([[0u64; 8]; V], [[0u64; 8]; V]);
        store_vectors(&xv, xm.as_flattened_mut());
        store_vectors(&nv, nm.as_flattened_mut());
        // SAFETY: the caller guarantees the CPU features; 8 V digits each, 0 from d
        // up; a'' < 2^(52 d - 1) (see above).
        let lanes =
            unsafe { sqr_lanes::<V, W>(xm.as_flattened(), nm.as_flattened(), d, n0 & DIGIT) };
        // SAFETY: as above; lanes holds 8 V words; out has s words.
        unsafe {
            finish_store::<V>(
                &load_vectors::<V>(lanes.as_flattened()),
                &nv,
                reduction,
                out,
            )
        };
    }

    /// The largest vector count for which [`mul_vectors`] chains each vector's four
    /// halves into one sum off the accumulator (with the low halves' operands shifted
    /// down one lane): above it the two extra copies spill.
    const CHAINED_VECTORS: usize = 6;

    /// The vector counts that use [`sqr_wide`]: 19 ..= 40 vectors (moduli of 118 limbs,
    /// 7552 bits, and up), where it measured faster than the multiplication, about 0.6x:
    /// from 19 vectors [`mul`]'s operands and accumulators spill. At 14-18 vectors it
    /// measured 0.98-1.69x of [`mul`] per call.
    pub const SQR_WIDE_VECTORS: core::ops::RangeInclusive<usize> = 19..=40;

    /// One instance of [`sqr_wide`] or [`sqr_by_mul`].
    type Sqr = unsafe fn(&[u64], &[u64], u64, Reduction, &mut [u64]);

    /// The kernel of one vector count: its multiplication and its squaring, chosen when
    /// the modulus is built ([`for_limbs`]); it holds the token.
    pub(super) struct Ifma {
        /// The proof that the CPU has AVX-512F and AVX-512 IFMA.
        pub(super) token: Avx512Ifma,
        mul: Mul,
        sqr: Sqr,
    }

    impl Ifma {
        /// `out = a b R^-1 mod n` (operands of s limbs, the count it was chosen for).
        pub(super) fn mul(
            &self,
            a: &[u64],
            b: &[u64],
            n: &[u64],
            n0: u64,
            red: Reduction,
            out: &mut [u64],
        ) {
            // SAFETY: the token proves AVX-512F and IFMA; the lengths are checked inside.
            unsafe { (self.mul)(a, b, n, n0, red, out) }
        }

        /// `out = a^2 R^-1 mod n`.
        pub(super) fn sqr(&self, a: &[u64], n: &[u64], n0: u64, red: Reduction, out: &mut [u64]) {
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

    /// The kernels of 1 ..= [`super::MAX_VECTORS`] vectors, squaring by the product.
    static BY_MUL: [Ifma; super::MAX_VECTORS] = by_mul!(
        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
        21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40);

    /// The kernels of [`SQR_WIDE_VECTORS`] vectors with the wide squaring.
    static WIDE: [Ifma; 22] = wide!(
        19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40);

    /// The kernel for moduli of `s` limbs under `reduction`: [`sqr_wide`] where it
    /// measured faster than [`mul`], else [`sqr_by_mul`]. With 52 d = 64 s and
    /// [`Reduction::Full`], a < n < 2^(52 d) may set bit 51 of the top digit, and 2 a
    /// would need digit d: the multiplication's squaring there.
    ///
    /// # Panics
    /// When `s` needs more than [`super::MAX_VECTORS`] vectors (more than
    /// [`crate::MAX_BITS`] bits).
    pub(super) fn for_limbs(_: Avx512Ifma, s: usize, reduction: Reduction) -> &'static Ifma {
        let (_, v, e) = shape(s);
        assert!(
            (1..=super::MAX_VECTORS).contains(&v),
            "{s} limbs: too many for IFMA"
        );
        if SQR_WIDE_VECTORS.contains(&v) && !(e == 0 && reduction == Reduction::Full) {
            &WIDE[v - *SQR_WIDE_VECTORS.start()]
        } else {
            &BY_MUL[v - 1]
        }
    }
}

pub(super) use x86::{mul_digits, sqr_digits};

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
    x86::for_limbs(token, limbs, reduction)
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

impl Kernel<u64> for x86::Ifma {
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
            eprintln!(
                "vector_split_shift_and_join_match_the_scalar_ones: skipped: no AVX-512 IFMA"
            );
            return;
        }
        fn check<const V: usize>(seed: u64) {
            let mut seed = seed;
            for s in 1..=(52 * 8 * V) / 64 {
                for pattern in 0..4 {
                    let x = words(&mut seed, s, pattern);
                    // SAFETY: AVX-512F is present (checked); 64 s <= 52 8 V.
                    let d = unsafe { x86::split::<V>(&x) };
                    let digits = to_words(&d);
                    assert_eq!(digits, scalar_digits(&x, V), "split V={V} s={s} {pattern}");
                    let mut back = vec![0u64; s];
                    // SAFETY: as above.
                    unsafe { x86::join_store::<V>(&d, &mut back) };
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
                        let up = unsafe { x86::shift_up::<V>(&d, sh) };
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
            eprintln!("finish_digits_matches_the_oracle: skipped: no AVX-512 IFMA");
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
                let full = unsafe { x86::finish_digits::<V>(&xv, c, &nv, Reduction::Full) };
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
                    let lazy = unsafe { x86::finish_digits::<V>(&xv, 0, &nv, Reduction::Lazy) };
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
            eprintln!("normalise_matches_the_scalar_pass: skipped: no AVX-512 IFMA");
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
                    unsafe { x86::normalise_vectors::<V>(&from_words::<V>(l.as_flattened())) };
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
