//! The exponentiations' constant-time table read on AVX2 ([`crate::arch::masked_or`]):
//! 4 words per vector, up to 4 vectors gathered per pass over the table, an AND and an
//! OR per vector and entry, the last vector of a length that is not a multiple of 4
//! loaded and stored masked.

use core::arch::x86_64::*;

use crate::arch::cpu::Avx2;

/// Vectors (4 words each) gathered per pass over the table.
const PASS: usize = 4;

/// `out` = the OR over j of `table[j] & masks[j]` ([`crate::arch::masked_or`]), on
/// AVX2: the token proves the CPU has it.
///
/// # Panics
/// If an entry is shorter than `out` or there are fewer masks than entries.
pub(crate) fn masked_or(_: Avx2, table: &[Vec<u64>], masks: &[u64], out: &mut [u64]) {
    assert!(masks.len() >= table.len());
    assert!(table.iter().all(|entry| entry.len() >= out.len()));
    // SAFETY: the token proves AVX2; every entry holds at least out.len() words and
    // there are enough masks (checked above).
    unsafe { masked_or_avx2(table, masks, out) }
}

/// [`masked_or`] on AVX2: passes of [`PASS`] whole vectors, then one pass
/// over the words left (public lengths), its last vector loaded and stored masked.
/// The counts of each pass are constants, so the accumulators stay in registers.
///
/// # Safety
/// The CPU has AVX2; every entry holds at least `out.len()` words and there are at
/// least as many masks as entries.
#[target_feature(enable = "avx2")]
unsafe fn masked_or_avx2(table: &[Vec<u64>], masks: &[u64], out: &mut [u64]) {
    let s = out.len();
    let mut at = 0;
    while s - at >= 4 * PASS {
        // SAFETY: words at .. at + 4 PASS <= s, as the caller's contract needs.
        unsafe { pass::<PASS, false>(table, masks, out, at, 4) };
        at += 4 * PASS;
    }
    let left = s - at;
    let last = left % 4;
    // SAFETY: words at .. at + left = s, as the caller's contract needs.
    unsafe {
        match (left.div_ceil(4), last == 0) {
            (0, _) => {}
            (1, true) => pass::<1, false>(table, masks, out, at, 4),
            (2, true) => pass::<2, false>(table, masks, out, at, 4),
            (3, true) => pass::<3, false>(table, masks, out, at, 4),
            (1, false) => pass::<1, true>(table, masks, out, at, last),
            (2, false) => pass::<2, true>(table, masks, out, at, last),
            (3, false) => pass::<3, true>(table, masks, out, at, last),
            // 13 to 15 words: 16 would have made a whole pass above.
            (_, _) => pass::<4, true>(table, masks, out, at, last),
        }
    }
}

/// One pass over the table gathering `K` vectors from word `at`; with `TAIL` the
/// last one holds `last` (1 to 3) words and is loaded and stored masked (masked
/// loads cost more than plain ones, so whole vectors use plain ones).
///
/// # Safety
/// The CPU has AVX2; words `at .. at + 4 (K - 1) + last` lie within `out` and
/// within every entry, and there are at least as many masks as entries.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pass<const K: usize, const TAIL: bool>(
    table: &[Vec<u64>],
    masks: &[u64],
    out: &mut [u64],
    at: usize,
    last: usize,
) {
    // Lane i of the last vector is read and written when i < last: the top bit of
    // each lane of `lanes` (maskload/maskstore read only that bit).
    let lanes = _mm256_cmpgt_epi64(
        _mm256_set1_epi64x(last as i64),
        _mm256_set_epi64x(3, 2, 1, 0),
    );
    let mut acc = [_mm256_setzero_si256(); K];
    for (entry, &mask) in table.iter().zip(masks) {
        let m = _mm256_set1_epi64x(mask as i64);
        for (v, acc) in acc.iter_mut().enumerate() {
            // SAFETY: word at + 4 v lies within the entry (the caller's contract).
            let p = unsafe { entry.as_ptr().add(at + 4 * v) }.cast::<i64>();
            let x = if !TAIL || v + 1 < K {
                // SAFETY: words at + 4 v .. at + 4 v + 4 lie within the entry (the
                // caller's contract).
                unsafe { _mm256_loadu_si256(p.cast()) }
            } else {
                // SAFETY: lanes below `last` lie within the entry; masked-off
                // lanes are not read.
                unsafe { _mm256_maskload_epi64(p, lanes) }
            };
            *acc = _mm256_or_si256(*acc, _mm256_and_si256(x, m));
        }
    }
    for (v, acc) in acc.iter().enumerate() {
        // SAFETY: word at + 4 v lies within out (the caller's contract).
        let p = unsafe { out.as_mut_ptr().add(at + 4 * v) }.cast::<i64>();
        if !TAIL || v + 1 < K {
            // SAFETY: as for the loads, within out.
            unsafe { _mm256_storeu_si256(p.cast(), *acc) };
        } else {
            // SAFETY: as for the loads, within out; masked-off lanes are not
            // written.
            unsafe { _mm256_maskstore_epi64(p, lanes, *acc) };
        }
    }
}
