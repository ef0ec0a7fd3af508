//! [`be_bytes_to_words`]: big-endian bytes as a fixed number of little-endian words,
//! how both a [`FieldModulus`](super::FieldModulus) and a
//! [`FieldElement`](super::FieldElement) are read from bytes.

/// Big-endian bytes as `N` little-endian words, and the OR of every byte that does not
/// fit (non-zero when the value needs more than `N` words). Constant-time: every index
/// depends on the position only.
pub(super) fn be_bytes_to_words<const N: usize>(bytes: &[u8]) -> ([u64; N], u64) {
    let mut x = [0u64; N];
    let mut overflow = 0u64;
    for (k, &b) in bytes.iter().rev().enumerate() {
        match x.get_mut(k / 8) {
            Some(w) => *w |= (b as u64) << (8 * (k % 8)),
            None => overflow |= b as u64,
        }
    }
    (x, overflow)
}
