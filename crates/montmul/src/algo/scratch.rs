//! Scratch words for kernels that need more than the s words of their output (SOS keeps
//! the whole 2s-word product, FIOS the s + 1 words of its running sum).
//!
//! Short buffers live on the stack so that a small multiplication does not pay for a
//! heap allocation; long ones go to the heap. Which of the two is used depends only on
//! the length, a public value, so the choice leaks nothing about the operands.

use crate::Limb;

/// Buffers up to this many words are taken from the stack: enough for SOS at
/// 2048 bits with 64-bit words under lazy reduction (s = 33, 2s = 66 words).
const INLINE_WORDS: usize = 72;

/// Calls `f` with `len` words, all zero, and returns what it returns.
#[inline(always)]
pub(crate) fn with_zeroed<L: Limb, R>(len: usize, f: impl FnOnce(&mut [L]) -> R) -> R {
    if len <= INLINE_WORDS {
        let mut buf = [L::ZERO; INLINE_WORDS];
        f(&mut buf[..len])
    } else {
        f(&mut vec![L::ZERO; len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_on_the_stack_and_on_the_heap() {
        for len in [1, INLINE_WORDS, INLINE_WORDS + 1, 5000] {
            let (got_len, all_zero) = with_zeroed::<u64, _>(len, |t| {
                let zero = t.iter().all(|&x| x == 0);
                t.fill(u64::MAX);
                (t.len(), zero)
            });
            assert_eq!(got_len, len);
            assert!(all_zero, "buffer of {len} words was not zeroed");
        }
    }
}
