//! Modular inverse modulo an odd n: a constant-time binary extended GCD for secrets, and
//! a variable-time one for public values.
//!
//! Both keep `a = u x (mod n)` and `b = v x (mod n)`, starting from `a = x, u = 1` and
//! `b = n, v = 0`, and shrink `a` and `b` by binary steps (halving the even one, or
//! replacing the larger of two odd ones by their difference) until `a = 0`; then
//! `b = gcd(x, n)`, and when it is 1, `v = x^-1 mod n`. Dividing a coefficient by 2
//! mod n is `u / 2` for even u and `(u - 1) / 2 + (n + 1) / 2` for odd u (n is odd).
//!
//! [`inv_ct`] is Niels Möller's constant-time variant, GMP's `mpn_sec_invert`
//! (`mpn/generic/sec_invert.c`, 2013; the same scheme as BoringSSL's
//! `bn_mod_inverse_consttime` with one coefficient pair): one step per iteration, every
//! step computed in full and kept with masks, and a fixed count of `2 * bits(n)`
//! iterations. Why that count suffices: each iteration at least halves the product
//! `a b` (`a' = (a - b)/2` with `b` kept, `a' = (b - a)/2, b' = a` after a swap, or
//! `a' = a/2`), and `a b < n^2 < 2^(2 bits)` at the start, so after `2 bits` iterations
//! `a b < 1`, i.e. `a = 0`. Extra iterations once `a = 0` change neither `b` nor `v`.
//!
//! [`inv_vartime`] is the plain loop (HAC 14.61 with the coefficients kept mod n), which
//! stops when `a = 0` and branches on the values: for public inputs only.

use crate::{ct, Limb};

/// `x^-1 mod n` for `x < n` and odd `n`, both `s` limbs; `bits` is n's bit length.
/// Returns the inverse (0 when there is none) and 1 when it exists, else 0 (for x = 0
/// and whenever gcd(x, n) > 1).
///
/// Constant-time in x and n: `2 * bits` iterations of the same word operations, all
/// choices by masks. Only `bits` and the limb count are public.
pub(crate) fn inv_ct<L: Limb>(x: &[L], n: &[L], bits: u32) -> (Vec<L>, L) {
    let s = n.len();
    let mut a = x.to_vec();
    let mut b = n.to_vec();
    let mut u = vec![L::ZERO; s];
    u[0] = L::ONE;
    let mut v = vec![L::ZERO; s];
    let half = half_up(n);
    for _ in 0..2 * bits as usize {
        let odd = ct::mask(a[0].and(L::ONE));
        // If a is odd: a -= b. A borrow means a < b: then swap roles (below).
        let swap = ct::sub_masked(&mut a, &b, odd);
        let swap_mask = ct::mask(swap);
        // b + (a - b) = a (mod 2^(w s)): b takes the old a.
        ct::add_masked(&mut b, &a, swap_mask);
        // a - b < 0 became 2^(w s) - (b - a): negate it to b - a.
        negate_masked(&mut a, swap_mask);
        // The coefficients follow: after the swap, v holds the old u ...
        swap_masked(&mut u, &mut v, swap_mask);
        // ... and u - v is the old v - u (swap) or the old u - v (no swap), mod n.
        // Both below n, so the difference is above -n: one masked addition of n.
        let borrow = ct::sub_masked(&mut u, &v, odd);
        ct::add_masked(&mut u, n, ct::mask(borrow));
        // a is even now (odd - odd, or already even): halve it and u.
        shr1(&mut a, L::ZERO);
        halve_mod(&mut u, &half);
    }
    // b = gcd(x, n): 1 exactly when the inverse exists.
    let mut one = vec![L::ZERO; s];
    one[0] = L::ONE;
    let ok = ct::eq(&b, &one);
    ct::conditional_assign(&mut v, &vec![L::ZERO; s], ct::mask(ok.xor(L::ONE)));
    wipe(&mut [&mut a, &mut b, &mut u]);
    (v, ok)
}

/// `x^-1 mod n` for `x < n` and odd `n`, both `s` limbs, or `None` when gcd(x, n) > 1
/// (x = 0 included). Variable-time: the iteration count and every branch depend on x
/// and n. For public values only.
pub(crate) fn inv_vartime<L: Limb>(x: &[L], n: &[L]) -> Option<Vec<L>> {
    let s = n.len();
    let mut a = x.to_vec();
    let mut b = n.to_vec();
    let mut u = vec![L::ZERO; s];
    u[0] = L::ONE;
    let mut v = vec![L::ZERO; s];
    let half = half_up(n);
    while a.iter().any(|&l| l != L::ZERO) {
        while a[0].and(L::ONE) == L::ZERO {
            shr1(&mut a, L::ZERO);
            halve_mod(&mut u, &half);
        }
        // Both odd: subtract the smaller from the larger (b stays odd).
        if ct::borrow_of_sub(&a, &b) == L::ONE {
            core::mem::swap(&mut a, &mut b);
            core::mem::swap(&mut u, &mut v);
        }
        ct::sub_masked(&mut a, &b, L::MAX);
        let borrow = ct::sub_masked(&mut u, &v, L::MAX);
        ct::add_masked(&mut u, n, ct::mask(borrow));
    }
    let is_one = b[0] == L::ONE && b[1..].iter().all(|&l| l == L::ZERO);
    is_one.then_some(v)
}

/// `(n + 1) / 2` for odd n: `n >> 1` plus one (no carry out: n >> 1 < 2^(w s - 1)).
fn half_up<L: Limb>(n: &[L]) -> Vec<L> {
    let mut h = n.to_vec();
    shr1(&mut h, L::ZERO);
    let mut one = vec![L::ZERO; n.len()];
    one[0] = L::ONE;
    ct::add_masked(&mut h, &one, L::MAX);
    h
}

/// `u = u / 2 mod n` for `u < n`, n odd, given `half = (n + 1) / 2`: `u >> 1`, plus
/// `half` when u was odd. The sum is `(u + n) / 2 < n`: no carry out.
fn halve_mod<L: Limb>(u: &mut [L], half: &[L]) {
    let odd = ct::mask(u[0].and(L::ONE));
    shr1(u, L::ZERO);
    ct::add_masked(u, half, odd);
}

/// `x = (top * 2^(w len) + x) >> 1`, `top` 0 or 1.
fn shr1<L: Limb>(x: &mut [L], top: L) {
    let mut carry = top;
    for limb in x.iter_mut().rev() {
        let next = limb.and(L::ONE);
        *limb = limb.shr(1).or(carry.shl(L::BITS - 1));
        carry = next;
    }
}

/// `x = -x mod 2^(w len)` where `mask` is all ones, unchanged where it is 0: the
/// two's complement `(x ^ mask) - mask`, with the borrow running through.
fn negate_masked<L: Limb>(x: &mut [L], mask: L) {
    // (x ^ m) + (m & 1) with the carry chained = -x when m is all ones, x when m = 0.
    let mut carry = mask.and(L::ONE);
    for limb in x.iter_mut() {
        (*limb, carry) = L::adc(limb.xor(mask), L::ZERO, carry);
    }
}

/// Swaps `a` and `b` where `mask` is all ones, leaves them where it is 0.
fn swap_masked<L: Limb>(a: &mut [L], b: &mut [L], mask: L) {
    for (x, y) in a.iter_mut().zip(b.iter_mut()) {
        let t = mask.and(x.xor(*y));
        *x = x.xor(t);
        *y = y.xor(t);
    }
}

/// Zeroizes the working vectors (they held values derived from a secret).
fn wipe<L: Limb>(vs: &mut [&mut Vec<L>]) {
    use zeroize::Zeroize;
    for v in vs.iter_mut() {
        v.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_inverses_by_brute_force() {
        // Every x modulo a few small odd n, one-limb u8.
        for n in [3u8, 9, 15, 77, 127, 255] {
            let bits = 8 - n.leading_zeros();
            for x in 0..n {
                let want = (1..n).find(|&y| (x as u32 * y as u32) % n as u32 == 1);
                let (got, ok) = inv_ct(&[x], &[n], bits);
                assert_eq!(ok == 1, want.is_some(), "n {n} x {x}");
                assert_eq!(got[0], want.unwrap_or(0), "n {n} x {x}");
                assert_eq!(inv_vartime(&[x], &[n]).map(|v| v[0]), want, "n {n} x {x}");
            }
        }
    }

    #[test]
    fn masked_helpers() {
        let mut x = [1u8, 0];
        negate_masked(&mut x, 0xff);
        assert_eq!(x, [0xff, 0xff]);
        negate_masked(&mut x, 0);
        assert_eq!(x, [0xff, 0xff]);
        let (mut a, mut b) = ([1u16, 2], [3u16, 4]);
        swap_masked(&mut a, &mut b, 0xffff);
        assert_eq!((a, b), ([3, 4], [1, 2]));
        swap_masked(&mut a, &mut b, 0);
        assert_eq!((a, b), ([3, 4], [1, 2]));
        let mut y = [0u8, 1];
        shr1(&mut y, 1);
        assert_eq!(y, [0x80, 0x80]);
    }
}
