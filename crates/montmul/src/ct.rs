//! Constant-time helpers over limb slices.
//!
//! Every function here runs the same instructions and touches the same memory whatever
//! the values: lengths are public, contents may be secret. Choices are made with masks
//! (`0` or all ones), never with branches.

use crate::Limb;

/// Mask of all ones when `bit == 1`, zero when `bit == 0`.
///
/// The mask passes through [`core::hint::black_box`]: an optimiser that can see a value
/// is 0 or all ones may turn `x & mask` back into a branch (LLVM did so for an inlined
/// masked subtraction), and black_box hides what the value can be.
#[inline(always)]
pub fn mask<L: Limb>(bit: L) -> L {
    core::hint::black_box(L::mask_from_bit(bit))
}

/// `value`, declared public: a flag computed from secrets in constant time whose value
/// the API reveals by design (whether a value is below n, whether an inverse exists), about
/// to be branched on. The identity; with the `ct-valgrind` feature it also tells
/// memcheck the value is defined, so that the constant-time harness
/// (`examples/ct_valgrind/`) reports every other secret-dependent branch
/// (BoringSSL's `CONSTTIME_DECLASSIFY`). Every such branch in the library goes through
/// here, so that the places where a secret-derived bit leaves are easy to find; so
/// does every such branch of `montmul-pk` (a key is consistent, a result passed its
/// fault check), whose own harness relies on the same marking.
#[inline(always)]
pub fn declassify<L: Limb>(value: L) -> L {
    #[cfg(feature = "ct-valgrind")]
    {
        let cell = [value];
        // Not under valgrind: a no-op (the client request is a few instructions).
        let _ = crabgrind::memcheck::mark_memory(
            cell.as_ptr().cast(),
            core::mem::size_of_val(&cell),
            crabgrind::memcheck::MemState::Defined,
        );
        core::hint::black_box(cell)[0]
    }
    #[cfg(not(feature = "ct-valgrind"))]
    value
}

/// `mask ? a : b` per word.
#[inline(always)]
pub fn select<L: Limb>(mask: L, a: L, b: L) -> L {
    b.xor(mask.and(a.xor(b)))
}

/// `dst = mask ? src : dst`, word by word.
#[inline]
pub fn conditional_assign<L: Limb>(dst: &mut [L], src: &[L], mask: L) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = select(mask, s, *d);
    }
}

/// `out = a + b` over equal lengths; returns the carry out (0 or 1).
#[inline]
pub fn add<L: Limb>(out: &mut [L], a: &[L], b: &[L]) -> L {
    let mut carry = L::ZERO;
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        (*o, carry) = L::adc(x, y, carry);
    }
    carry
}

/// `out = a - b` over equal lengths; returns the borrow out (0 or 1).
#[inline]
pub fn sub<L: Limb>(out: &mut [L], a: &[L], b: &[L]) -> L {
    let mut borrow = L::ZERO;
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        (*o, borrow) = L::sbb(x, y, borrow);
    }
    borrow
}

/// The borrow of `a - b` (1 when `a < b`) without writing the difference.
#[inline(always)]
pub fn borrow_of_sub<L: Limb>(a: &[L], b: &[L]) -> L {
    let mut borrow = L::ZERO;
    for (&x, &y) in a.iter().zip(b) {
        (_, borrow) = L::sbb(x, y, borrow);
    }
    borrow
}

/// `t -= m & mask` in place; returns the borrow out.
#[inline(always)]
pub fn sub_masked<L: Limb>(t: &mut [L], m: &[L], mask: L) -> L {
    let mut borrow = L::ZERO;
    for (x, &y) in t.iter_mut().zip(m) {
        (*x, borrow) = L::sbb(*x, y.and(mask), borrow);
    }
    borrow
}

/// `t += m & mask` in place; returns the carry out.
#[inline]
pub fn add_masked<L: Limb>(t: &mut [L], m: &[L], mask: L) -> L {
    let mut carry = L::ZERO;
    for (x, &y) in t.iter_mut().zip(m) {
        (*x, carry) = L::adc(*x, y.and(mask), carry);
    }
    carry
}

/// The final subtraction of Montgomery multiplication, in constant time.
///
/// The value is `top * 2^(w*len) + t` with `top` in {0, 1}, and must be below `2m`.
/// Leaves `t` holding the value reduced into `[0, m)`: `m` is subtracted when
/// `top == 1` or `t >= m`, chosen with a mask (two passes, no branch, no scratch).
#[inline(always)]
pub fn reduce_once<L: Limb>(t: &mut [L], top: L, m: &[L]) {
    let borrow = borrow_of_sub(t, m);
    // Subtract when the value is >= m: either the top bit is set, or t - m did not borrow.
    let take = top.or(borrow.xor(L::ONE));
    sub_masked(t, m, mask(take));
}

/// 1 when every word of `a` is zero, else 0.
#[inline]
pub fn is_zero<L: Limb>(a: &[L]) -> L {
    let acc = a.iter().fold(L::ZERO, |acc, &x| acc.or(x));
    // acc == 0  <=>  (acc | -acc) has its top bit clear.
    acc.or(acc.wrapping_neg()).shr(L::BITS - 1).xor(L::ONE)
}

/// 1 when `a == b` (equal lengths), else 0.
#[inline]
pub fn eq<L: Limb>(a: &[L], b: &[L]) -> L {
    let acc = a
        .iter()
        .zip(b)
        .fold(L::ZERO, |acc, (&x, &y)| acc.or(x.xor(y)));
    is_zero(&[acc])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_once_cases() {
        let m = [7u8, 1];
        let mut t = [6u8, 1];
        reduce_once(&mut t, 0, &m);
        assert_eq!(t, [6, 1]);
        let mut t = [7u8, 1];
        reduce_once(&mut t, 0, &m);
        assert_eq!(t, [0, 0]);
        // 2^16 + 3 - 263 = 65276 = 0xfefc
        let mut t = [3u8, 0];
        reduce_once(&mut t, 1, &m);
        assert_eq!(t, [0xfc, 0xfe]);
    }

    #[test]
    fn zero_and_equality() {
        assert_eq!(is_zero(&[0u16, 0]), 1);
        assert_eq!(is_zero(&[0u16, 0x8000]), 0);
        assert_eq!(eq(&[1u64, 2], &[1, 2]), 1);
        assert_eq!(eq(&[1u64, 2], &[1, 3]), 0);
        assert_eq!(select(u32::MAX, 5, 9), 5);
        assert_eq!(select(0u32, 5, 9), 9);
    }
}
