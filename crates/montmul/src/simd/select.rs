//! Constant-time table reads for the fixed-window exponentiations: `out` is the OR of
//! every entry AND-ed with its mask, where exactly one mask is all ones and the others
//! are 0. Every entry is read in full, in order, whatever the masks; nothing branches
//! on them and no address depends on them (the masks carry the secret).
//!
//! The accumulators stay in registers and `out` is written once. Reading `out` back
//! for every entry (a read-modify-write per word and entry, as [`crate::ct`]'s
//! `conditional_assign` does) measured several times slower: at 512 bits the 103 table
//! reads of a 5-bit window took a fifth of the exponentiation.
//!
//! With AVX2: 4 words per vector, up to 4 vectors gathered per pass over the table, an
//! AND and an OR per vector and entry, the last vector of a length that is not a
//! multiple of 4 loaded and stored masked. Elsewhere: blocks of 8 words in scalar
//! registers (which the compiler may vectorise with the CPU's baseline instructions).
//! An AVX-512F version (8 words per vector, one `vpternlogq` per vector and entry)
//! measured slower on this Zen 4: in the 512-bit exponentiation (8 limbs, 103 reads of
//! 32 entries) the reads took 4.3 us of 42.7 with it and about 3.4 with AVX2, and
//! `montmul bench --peers --ops exp` put montmul's exponentiation 3-4% closer to
//! OpenSSL's at 512 bits and 10-15% further ahead at 256 (four alternating runs).

use core::any::TypeId;

use crate::Limb;

/// `out` = the OR over j of `table[j] & masks[j]` on the first `out.len()` words of
/// every entry: the one entry whose mask is all ones, when the others are 0.
/// Constant-time in the masks.
///
/// # Panics
/// If an entry is shorter than `out` or there are fewer masks than entries.
pub fn masked_or(table: &[Vec<u64>], masks: &[u64], out: &mut [u64]) {
    assert!(masks.len() >= table.len());
    assert!(table.iter().all(|entry| entry.len() >= out.len()));
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked, std caches the answer); every entry holds
        // at least out.len() words and there are enough masks (checked above).
        unsafe { x86::masked_or(table, masks, out) };
        return;
    }
    portable(table, masks, out);
}

/// [`masked_or`] on limb vectors of any width (each mask 0 or all ones, truncated to
/// the limb): through [`masked_or`] when `L` is `u64`, else 8 limbs at a time in
/// scalar registers.
///
/// # Panics
/// As [`masked_or`].
pub fn masked_or_limbs<L: Limb>(table: &[Vec<L>], masks: &[u64], out: &mut [L]) {
    if TypeId::of::<L>() == TypeId::of::<u64>() {
        // SAFETY: L is u64 (same TypeId), so these are the same types: Vec<L> is
        // Vec<u64> and [L] is [u64], with the same lengths.
        let (table, out) = unsafe {
            (
                &*(table as *const [Vec<L>] as *const [Vec<u64>]),
                &mut *(out as *mut [L] as *mut [u64]),
            )
        };
        masked_or(table, masks, out);
        return;
    }
    assert!(masks.len() >= table.len());
    portable(table, masks, out);
}

/// [`masked_or`] without vector intrinsics, on limbs of any width, 8 at a time.
fn portable<L: Limb>(table: &[Vec<L>], masks: &[u64], out: &mut [L]) {
    const BLOCK: usize = 8;
    for (b, chunk) in out.chunks_mut(BLOCK).enumerate() {
        let at = b * BLOCK;
        let mut acc = [L::ZERO; BLOCK];
        for (entry, &mask) in table.iter().zip(masks) {
            // Truncating all ones or 0 to L keeps it all ones or 0.
            let mask = L::from_u64(mask);
            for (a, &x) in acc.iter_mut().zip(&entry[at..at + chunk.len()]) {
                *a = a.or(x.and(mask));
            }
        }
        chunk.copy_from_slice(&acc[..chunk.len()]);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    /// Vectors (4 words each) gathered per pass over the table.
    const PASS: usize = 4;

    /// [`super::masked_or`] on AVX2: passes of [`PASS`] whole vectors, then one pass
    /// over the words left (public lengths), its last vector loaded and stored masked.
    /// The counts of each pass are constants, so the accumulators stay in registers.
    ///
    /// # Safety
    /// The CPU has AVX2; every entry holds at least `out.len()` words and there are at
    /// least as many masks as entries.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn masked_or(table: &[Vec<u64>], masks: &[u64], out: &mut [u64]) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry, every length from 1 to 40 words, against a plain copy; the
    /// portable path too.
    #[test]
    fn reads_the_one_entry_whose_mask_is_set() {
        for s in 1..=40usize {
            let table: Vec<Vec<u64>> = (0..32u64)
                .map(|j| {
                    (0..s as u64)
                        .map(|k| (j + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ k << 7)
                        .collect()
                })
                .collect();
            for index in [0, 1, 17, 31] {
                let masks: Vec<u64> = (0..32)
                    .map(|j| if j == index { u64::MAX } else { 0 })
                    .collect();
                let mut out = vec![0xdead; s];
                masked_or(&table, &masks, &mut out);
                assert_eq!(out, table[index], "s = {s}, index = {index}");
                let mut out = vec![0xdead; s];
                portable(&table, &masks, &mut out);
                assert_eq!(out, table[index], "portable, s = {s}, index = {index}");
                let t32: Vec<Vec<u32>> = table
                    .iter()
                    .map(|e| e.iter().map(|&x| x as u32).collect())
                    .collect();
                let mut out = vec![7u32; s];
                masked_or_limbs(&t32, &masks, &mut out);
                assert_eq!(out, t32[index], "u32 limbs, s = {s}, index = {index}");
            }
        }
    }
}
