//! `amm52-ifma`, the main loop: the word-serial almost-Montgomery steps of the module
//! doc on vectors of 8 digits (`mul_vectors`), for a product of words (`mul`,
//! `sqr_by_mul`) or of digits (`mul_digits`, for the exponentiation).

use core::arch::x86_64::*;

use super::digits::*;
use super::finish::*;
use super::reg::Reg;
use crate::Reduction;

/// `out = a b R^-1 mod n` for `V` vectors of digits: the conversions and the
/// word-serial loop of the module doc, then the policy's finish, in registers
/// ([`split`], [`shift_up`], [`product`]). `a`, `b`, `n`, `out` have s limbs, and
/// `shape(s)` gives V vectors.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) unsafe fn mul<const V: usize>(
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
/// [`SQR_WIDE_VECTORS`](super::sqr::SQR_WIDE_VECTORS), and where
/// [`sqr_wide`](super::sqr::sqr_wide) cannot run, this is the squaring:
/// the dedicated ones measured slower there (module doc).
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) unsafe fn sqr_by_mul<const V: usize>(
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
pub(super) unsafe fn product<const V: usize>(
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
pub(super) unsafe fn mul_digits<const V: usize>(
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
pub(super) fn mul_vectors<const V: usize>(
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
    for bi_at in &bd[..d] {
        let bi = *bi_at;
        // b_i broadcast from memory (`Reg::splat_at`: one uop fewer on the port of
        // the multiply-adds).
        // SAFETY: the features are enabled here.
        let bv = unsafe { <__m512i as Reg>::splat_at(bi_at) };
        // Lane 1 now, which the shift below makes lane 0 of the next step.
        // SAFETY: the features are enabled here.
        let x1 = unsafe { <__m512i as Reg>::lane1(acc[0]) };
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
        if V <= CHAINED_VECTORS {
            // The sum to add after the shift: the high halves, and the low halves one
            // lane down. Lane j <- lane j + 1 across the vectors, then the sum: the
            // high halves of lane j (which belong one lane up) land on lane j.
            let mut hi = [zero; V];
            for v in 0..V {
                let mut s = _mm512_madd52lo_epu64(zero, ad1[v], bv);
                s = _mm512_madd52hi_epu64(s, av[v], bv);
                s = _mm512_madd52lo_epu64(s, nd1[v], qv);
                hi[v] = _mm512_madd52hi_epu64(s, nv[v], qv);
            }
            for v in 0..V {
                let next = if v + 1 < V { acc[v + 1] } else { zero };
                acc[v] = _mm512_add_epi64(_mm512_alignr_epi64::<1>(next, acc[v]), hi[v]);
            }
        } else {
            // The low halves go into the accumulator before its shift. One pass up
            // the vectors, each sum formed as the pass reaches it: an array of them
            // zeroed each step measured 2x slower from 19 vectors, where the compiler
            // no longer unrolls the pass and zeroed the array with a call to memset
            // every step. The high halves then go onto the shifted accumulator,
            // from ONTO_SHIFT_VECTORS on directly, below that summed apart and added.
            let low_halves = |x: __m512i, v: usize| {
                let x = _mm512_madd52lo_epu64(x, av[v], bv);
                _mm512_madd52lo_epu64(x, nv[v], qv)
            };
            let mut here = low_halves(acc[0], 0);
            for v in 0..V {
                let next = if v + 1 < V {
                    low_halves(acc[v + 1], v + 1)
                } else {
                    zero
                };
                let shifted = _mm512_alignr_epi64::<1>(next, here);
                acc[v] = if V >= ONTO_SHIFT_VECTORS {
                    let x = _mm512_madd52hi_epu64(shifted, av[v], bv);
                    _mm512_madd52hi_epu64(x, nv[v], qv)
                } else {
                    let hi = _mm512_madd52hi_epu64(zero, av[v], bv);
                    _mm512_add_epi64(shifted, _mm512_madd52hi_epu64(hi, nv[v], qv))
                };
                here = next;
            }
        }
    }
    // Lane 0 from r0, in the vector: a word stored alone inside a vector that the
    // carry pass then loads whole would stall that load until the store retires.
    acc[0] = _mm512_mask_set1_epi64(acc[0], 1, r0 as i64);
    acc
}

/// One instance of [`mul`].
pub(super) type Mul = unsafe fn(&[u64], &[u64], &[u64], u64, Reduction, &mut [u64]);

/// The largest vector count for which [`mul_vectors`] chains each vector's four
/// halves into one sum off the accumulator (with the low halves' operands shifted
/// down one lane): above it the two extra copies spill.
pub(super) const CHAINED_VECTORS: usize = 6;

/// The smallest vector count for which [`mul_vectors`] multiply-adds each vector's
/// high halves onto the shifted accumulator, instead of summing them apart and adding
/// the sum: one vector add fewer a vector a step, where the step is bound by the
/// multiply-add ports rather than by its chain through the accumulator (two
/// multiply-adds longer this way, 19 cycles). Where vector adds and shifts share the
/// two ports of the 512-bit multiply-adds (an Intel Xeon) it measured 3-14% faster at
/// 3072-6144 bits and 1.25-1.3x at 8192; at 7 vectors (2560 bits) 0-3% slower
/// (`docs/PERFORMANCE.md`).
pub(super) const ONTO_SHIFT_VECTORS: usize = 8;
