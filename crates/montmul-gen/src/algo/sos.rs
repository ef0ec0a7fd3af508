//! SOS, Separated Operand Scanning, unrolled, with its dedicated squaring.
//!
//! Seed 004 (Koc 1997), appendix, "SOS": first the whole 2s-word product t = a * b,
//! then s reduction rows `t += m * n * 2^(w i)` with `m = t[i] * n0' mod 2^w`; u is the
//! upper s words. The appendix ends each row with `ADD(t[i+s], C)`, a carry ripple of
//! data-dependent length; here the carry out of word i+s is kept in `k` and added to
//! word i+s+1 by the next row, which is where the ripple would first reach, and nothing
//! reads that word before. The last `k` is the top word of u.
//!
//! Separating the product is what allows the squaring the seed points out: each cross
//! product `a[i] * a[j]`, i < j, is computed once, the sum is doubled, and the squares
//! `a[i]^2` are added on the diagonal: s (s + 1) / 2 word products instead of s^2.

use super::Unreduced;
use crate::ir::{Arg, Program, Val};

/// `(a * b + m * n) / R`.
pub(super) fn build_mul(p: &mut Program, s: usize) -> Unreduced {
    let mut t = vec![Val::Zero; 2 * s];
    for i in 0..s {
        p.note(format!("product row {i}: t += a * b[{i}] * 2^(w*{i})"));
        let mut c = Val::Zero;
        for j in 0..s {
            (t[i + j], c) = p.mul_add(
                Val::Limb(Arg::A, j),
                Val::Limb(Arg::B, i),
                &[t[i + j], c],
                &format!("t{}", i + j),
                "c",
            );
        }
        t[i + s] = c;
    }
    reduce(p, s, t)
}

/// `(a * a + m * n) / R`.
pub(super) fn build_sqr(p: &mut Program, s: usize) -> Unreduced {
    let mut t = vec![Val::Zero; 2 * s];
    for i in 0..s {
        if i + 1 < s {
            p.note(format!(
                "cross products row {i}: t += a[{}..] * a[{i}] * 2^(w*{})",
                i + 1,
                2 * i + 1
            ));
        }
        let mut c = Val::Zero;
        for j in i + 1..s {
            (t[i + j], c) = p.mul_add(
                Val::Limb(Arg::A, j),
                Val::Limb(Arg::A, i),
                &[t[i + j], c],
                &format!("t{}", i + j),
                "c",
            );
        }
        t[i + s] = c;
    }
    p.note("double the cross products: their sum is below R^2 / 2, so nothing leaves t");
    let mut c = Val::Zero;
    for (k, word) in t.iter_mut().enumerate() {
        (*word, c) = p.add(&[*word, *word, c], &format!("t{k}"), "c");
    }
    p.note("add the squares a[i]^2 on the diagonal");
    let mut c = Val::Zero;
    for i in 0..s {
        // t[2i] + a[i]^2 + c <= 2^(2w) - 1; then t[2i+1] + hi carries at most 1.
        let (lo, hi) = p.mul_add(
            Val::Limb(Arg::A, i),
            Val::Limb(Arg::A, i),
            &[t[2 * i], c],
            &format!("t{}", 2 * i),
            "h",
        );
        t[2 * i] = lo;
        (t[2 * i + 1], c) = p.add(&[t[2 * i + 1], hi], &format!("t{}", 2 * i + 1), "c");
    }
    // a^2 < R^2: the last carry is 0.
    reduce(p, s, t)
}

/// The reduction rows of SOS over the 2s-word product `t`.
fn reduce(p: &mut Program, s: usize, mut t: Vec<Val>) -> Unreduced {
    let mut k = Val::Zero;
    for i in 0..s {
        p.note(format!(
            "reduction row {i}: m = t[{i}] * n0'; t += m * n * 2^(w*{i})"
        ));
        let m = p.mul_low(t[i], Val::N0, "m");
        // The low word is 0 by the choice of m; only the carry is kept.
        let (_, mut c) = p.mul_add(m, Val::Limb(Arg::N, 0), &[t[i]], &format!("t{i}"), "c");
        for j in 1..s {
            (t[i + j], c) = p.mul_add(
                m,
                Val::Limb(Arg::N, j),
                &[t[i + j], c],
                &format!("t{}", i + j),
                "c",
            );
        }
        // t[i+s] + c + k <= 2 (2^w - 1) + 1: the carry k is 0 or 1.
        (t[i + s], k) = p.add(&[t[i + s], c, k], &format!("t{}", i + s), "k");
    }
    Unreduced {
        words: t[s..].to_vec(),
        top: k,
    }
}
