//! Portable fallbacks of the architecture-specific code: what runs where a CPU feature
//! is missing, and on every limb type the vector code is not written for.

use crate::exp::{entry_mask_plain, MAX_WINDOW};
use crate::Limb;

/// `out = table[index]` for the exponentiations, without vector intrinsics
/// ([`crate::arch::select`]): a mask per entry ([`crate::exp::entry_mask`]), then
/// [`masked_or`]. The masks are made first and hidden from the optimiser all at once
/// (one [`core::hint::black_box`] on the slice): it must assume the words behind the
/// reference changed, so it cannot see they are 0 or all ones and turn their use into
/// a branch. Constant-time in `index`.
///
/// The table holds its entries one after another, each `out.len()` words long.
///
/// # Panics
/// If the table's length is not a multiple of `out`'s, or it has more than
/// 2^[`MAX_WINDOW`] entries.
pub fn select<L: Limb>(table: &[L], index: usize, out: &mut [L]) {
    let entries = entry_count(table, out.len());
    let mut masks = [0u64; 1 << MAX_WINDOW];
    assert!(entries <= masks.len());
    for (j, mask) in masks.iter_mut().enumerate().take(entries) {
        *mask = entry_mask_plain(j, index);
    }
    masked_or(table, core::hint::black_box(&masks[..entries]), out);
}

/// The number of entries of `words` words in a table that holds them one after
/// another (0 when `words` is 0: there is nothing to read).
///
/// # Panics
/// If the table's length is not a multiple of `words`.
pub(crate) fn entry_count<L>(table: &[L], words: usize) -> usize {
    if words == 0 {
        return 0;
    }
    assert!(
        table.len().is_multiple_of(words),
        "a table of {} words holds no whole number of {words}-word entries",
        table.len()
    );
    table.len() / words
}

/// The exponentiations' constant-time table read without vector intrinsics
/// ([`select`]): `out` = the OR over j of `table[j] & masks[j]`
/// (each mask 0 or all ones, truncated to the limb), 8 limbs at a time in scalar
/// registers, which the compiler may vectorise with the CPU's baseline instructions.
/// Every entry is read in full, in order; nothing branches on the masks.
///
/// The table holds its entries one after another, each `out.len()` words long.
///
/// # Panics
/// If the table's length is not a multiple of `out`'s, or there are fewer masks than
/// entries.
pub fn masked_or<L: Limb>(table: &[L], masks: &[u64], out: &mut [L]) {
    let words = out.len();
    assert!(masks.len() >= entry_count(table, words));
    const BLOCK: usize = 8;
    for (b, chunk) in out.chunks_mut(BLOCK).enumerate() {
        let at = b * BLOCK;
        let mut acc = [L::ZERO; BLOCK];
        for (entry, &mask) in table.chunks_exact(words).zip(masks) {
            // Truncating all ones or 0 to L keeps it all ones or 0.
            let mask = L::from_u64(mask);
            for (a, &x) in acc.iter_mut().zip(&entry[at..at + chunk.len()]) {
                *a = a.or(x.and(mask));
            }
        }
        chunk.copy_from_slice(&acc[..chunk.len()]);
    }
}
