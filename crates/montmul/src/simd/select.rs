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
//! With AVX-512F: 8 words per vector, up to 4 vectors gathered per pass over the table,
//! one `vpternlogq` per vector and entry. Elsewhere: blocks of 8 words in scalar
//! registers (which the compiler may vectorise with the CPU's baseline instructions).

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
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: AVX-512F is present (checked, std caches the answer); every entry
        // holds at least out.len() words (checked above).
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

    /// Vectors gathered per pass over the table.
    const PASS: usize = 4;

    /// [`super::masked_or`] on AVX-512F: passes of 4 whole vectors, then one
    /// vector at a time, the last one masked to the words left (public lengths). The
    /// counts of each pass are constants, so the accumulators stay in registers.
    ///
    /// # Safety
    /// The CPU has AVX-512F; every entry holds at least `out.len()` words and there
    /// are at least as many masks as entries.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn masked_or(table: &[Vec<u64>], masks: &[u64], out: &mut [u64]) {
        let s = out.len();
        let mut at = 0;
        while s - at >= 8 * PASS {
            let mut acc = [_mm512_setzero_si512(); PASS];
            for (entry, &mask) in table.iter().zip(masks) {
                let m = _mm512_set1_epi64(mask as i64);
                for (v, acc) in acc.iter_mut().enumerate() {
                    // SAFETY: words at + 8 v .. at + 8 v + 8 <= s <= entry.len().
                    let x = unsafe { _mm512_loadu_si512(entry.as_ptr().add(at + 8 * v).cast()) };
                    // acc | (x & mask).
                    *acc = _mm512_ternarylogic_epi64::<0xf8>(*acc, x, m);
                }
            }
            for (v, acc) in acc.iter().enumerate() {
                // SAFETY: as for the loads, within out (s words).
                unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(at + 8 * v).cast(), *acc) };
            }
            at += 8 * PASS;
        }
        while s - at >= 8 {
            // Two accumulators, even and odd entries, for two independent chains.
            let mut acc = [_mm512_setzero_si512(); 2];
            for (j, (entry, &mask)) in table.iter().zip(masks).enumerate() {
                let m = _mm512_set1_epi64(mask as i64);
                // SAFETY: words at .. at + 8 <= s <= entry.len().
                let x = unsafe { _mm512_loadu_si512(entry.as_ptr().add(at).cast()) };
                acc[j % 2] = _mm512_ternarylogic_epi64::<0xf8>(acc[j % 2], x, m);
            }
            let acc = _mm512_or_si512(acc[0], acc[1]);
            // SAFETY: as for the loads, within out (s words).
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(at).cast(), acc) };
            at += 8;
        }
        if at < s {
            let lanes = ((1u32 << (s - at)) - 1) as __mmask8;
            let mut acc = _mm512_setzero_si512();
            for (entry, &mask) in table.iter().zip(masks) {
                let m = _mm512_set1_epi64(mask as i64);
                // SAFETY: the lanes of the mask are words at .. s <= entry.len();
                // masked-off lanes are not read.
                let x = unsafe { _mm512_maskz_loadu_epi64(lanes, entry.as_ptr().add(at).cast()) };
                acc = _mm512_ternarylogic_epi64::<0xf8>(acc, x, m);
            }
            // SAFETY: as for the loads, within out; masked-off lanes are not written.
            unsafe { _mm512_mask_storeu_epi64(out.as_mut_ptr().add(at).cast(), lanes, acc) };
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
