//! The exponentiations' constant-time table read on AVX2 ([`crate::arch::select`]):
//! 4 words per vector, up to 4 vectors gathered per pass over the table, an AND and an
//! OR per vector and entry, the last vector of a length that is not a multiple of 4
//! loaded and stored masked.
//!
//! The masks are made in vector registers, as OpenSSL's `bn_gather5` makes them: a
//! counter vector holds the entry number j, and `vpcmpeqq` against the wanted index,
//! broadcast, gives all ones for the entry to keep and 0 for the others. The index
//! vector passes through [`core::hint::black_box`], so the optimiser cannot see that
//! its lanes are equal and turn the compare into one scalar condition (which it could
//! then branch on). A compare, an AND and an OR are data-independent in time.

use core::arch::x86_64::*;

use crate::arch::cpu::Avx2;

/// Vectors (4 words each) gathered per pass over the table.
const PASS: usize = 4;

/// `out = table[index]` ([`crate::arch::select`]) on AVX2, every entry read in full:
/// the token proves the CPU has it. The table holds its entries one after another,
/// each `out.len()` words long. Constant-time in `index`.
///
/// # Panics
/// If the table's length is not a multiple of `out`'s.
pub(crate) fn select(_: Avx2, table: &[u64], index: usize, out: &mut [u64]) {
    crate::arch::generic::entry_count(table, out.len());
    // SAFETY: the token proves AVX2; the table is whole entries of out.len() words
    // (checked above), which is what each pass reads.
    unsafe { select_avx2(table, index, out) }
}

/// [`select`] on AVX2: passes of [`PASS`] whole vectors, then one pass over the words
/// left (public lengths), its last vector loaded and stored masked. The counts of each
/// pass are constants, so the accumulators stay in registers.
///
/// # Safety
/// The CPU has AVX2.
///
/// # Panics
/// If the table's length is not a multiple of `out`'s.
#[target_feature(enable = "avx2")]
unsafe fn select_avx2(table: &[u64], index: usize, out: &mut [u64]) {
    // Lanes the optimiser cannot see are equal (module doc).
    let index = core::hint::black_box(_mm256_set1_epi64x(index as i64));
    let s = out.len();
    let mut at = 0;
    while s - at >= 4 * PASS {
        // SAFETY: AVX2 (our contract); words at .. at + 4 PASS <= s lie within out.
        unsafe { pass::<PASS, false>(table, index, out, at, 4) };
        at += 4 * PASS;
    }
    let left = s - at;
    let last = left % 4;
    // SAFETY: AVX2 (our contract); words at .. at + left = s lie within out.
    unsafe {
        match (left.div_ceil(4), last == 0) {
            (0, _) => {}
            (1, true) => pass::<1, false>(table, index, out, at, 4),
            (2, true) => pass::<2, false>(table, index, out, at, 4),
            (3, true) => pass::<3, false>(table, index, out, at, 4),
            (1, false) => pass::<1, true>(table, index, out, at, last),
            (2, false) => pass::<2, true>(table, index, out, at, last),
            (3, false) => pass::<3, true>(table, index, out, at, last),
            // 13 to 15 words: 16 would have made a whole pass above.
            (_, _) => pass::<4, true>(table, index, out, at, last),
        }
    }
}

/// One pass over the table gathering `K` vectors from word `at`; with `TAIL` the
/// last one holds `last` (1 to 3) words and is loaded and stored masked (masked
/// loads cost more than plain ones, so whole vectors use plain ones).
///
/// # Safety
/// The CPU has AVX2; words `at .. at + 4 (K - 1) + last` lie within `out`.
///
/// # Panics
/// If the table's length is not a multiple of `out`'s.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pass<const K: usize, const TAIL: bool>(
    table: &[u64],
    index: __m256i,
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
    // j in every lane: all ones in `m` exactly for the entry `index`.
    let mut j = _mm256_setzero_si256();
    for entry in table.chunks_exact(out.len()) {
        // The words this pass reads, checked (a public length).
        let entry = &entry[at..at + 4 * (K - 1) + last];
        let m = _mm256_cmpeq_epi64(j, index);
        j = _mm256_add_epi64(j, _mm256_set1_epi64x(1));
        for (v, acc) in acc.iter_mut().enumerate() {
            // SAFETY: word 4 v lies within `entry` (v < K, checked above).
            let p = unsafe { entry.as_ptr().add(4 * v) }.cast::<i64>();
            let x = if !TAIL || v + 1 < K {
                // SAFETY: words 4 v .. 4 v + 4 lie within `entry` (v + 1 < K, or no
                // tail and `last` = 4: checked above).
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
