//! `amm52-ifma`, the carry pass and the finish: the lanes' carries propagated with
//! vector compares and mask arithmetic (`normalise_vectors`, after OpenSSL's
//! `rsaz-avx512`), n subtracted once in the digit domain with the borrows rippled the
//! same way (`finish_digits`), and the scalar finish of the exponentiation's words
//! ([`finish`]). The final subtraction is always computed and kept with a mask.

use core::arch::x86_64::*;

use super::digits::*;
use crate::Reduction;

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

/// The lanes that receive a carry when each lane of V vectors generates one (bit of
/// `g`) or passes one on (bit of `p`), one bit per lane, 8 per vector, 64 per word:
/// ((G << 1) + P) ^ P, the addition rippling the carries through runs of P as a
/// multi-word addition (at most 5 words: 320 lanes). Returns those lanes and the
/// carry out of the top lane. No lane may both generate and pass one on; then at
/// most one carry reaches any lane. Branch-free.
#[inline(always)]
pub(super) fn ripple<const V: usize>(g: &[u64; 5], p: &[u64; 5]) -> ([u64; 5], u64) {
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
pub(super) fn lanes_of(m: &[u64; 5], v: usize) -> __mmask8 {
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
