//! CIOS, Coarsely Integrated Operand Scanning, unrolled.
//!
//! Seed 004 (Koc 1997), appendix, "CIOS"; seed 002 (Fan et al.), Alg. 2. Per word `b[i]`:
//! a multiply pass `t += a * b[i]`, then a reduce pass `t = (t + m * n) / 2^w` with
//! `m = t[0] * n0' mod 2^w`. The accumulator is s + 2 words; the words that are known to
//! be zero (all of t in the first pass, t[s+1] before each pass) are folded away by the
//! builder, so the unrolled code has no operation on a constant.

use super::Unreduced;
use crate::ir::{Arg, Program, Val};

/// `(a * y + m * n) / R` with y = b (product) or a (square).
pub(super) fn build(p: &mut Program, s: usize, y: Arg) -> Unreduced {
    let mut t = vec![Val::Zero; s + 2];
    for i in 0..s {
        let y_i = Val::Limb(y, i);
        p.note(format!("i = {i}: t += a * {}[{i}]", y.name()));
        let mut c = Val::Zero;
        for (j, t_j) in t[..s].iter_mut().enumerate() {
            // t[j] + a[j] * y[i] + c <= 2^(2w) - 1.
            (*t_j, c) = p.mul_add(Val::Limb(Arg::A, j), y_i, &[*t_j, c], &format!("t{j}"), "c");
        }
        (t[s], t[s + 1]) = p.add(&[t[s], c], &format!("t{s}"), &format!("t{}", s + 1));

        p.note(format!("i = {i}: m = t[0] * n0'; t = (t + m * n) / 2^w"));
        let m = p.mul_low(t[0], Val::N0, "m");
        // The low word is 0 by the choice of m; only the carry is kept.
        let (_, mut c) = p.mul_add(m, Val::Limb(Arg::N, 0), &[t[0]], "t0", "c");
        for j in 1..s {
            (t[j - 1], c) = p.mul_add(
                m,
                Val::Limb(Arg::N, j),
                &[t[j], c],
                &format!("t{}", j - 1),
                "c",
            );
        }
        let (lo, hi) = p.add(&[t[s], c], &format!("t{}", s - 1), "c");
        t[s - 1] = lo;
        // Each pass keeps t < a + n < 2R (by induction: (t + a y[i] + m n) / 2^w with
        // t < a + n), so t[s+1] + hi <= 1: this sum has no carry.
        (t[s], _) = p.add(&[t[s + 1], hi], &format!("t{s}"), "c");
        t[s + 1] = Val::Zero;
    }
    Unreduced {
        words: t[..s].to_vec(),
        top: t[s],
    }
}
