//! FIOS, Finely Integrated Operand Scanning, unrolled.
//!
//! Seed 004 (Koc 1997), appendix, "FIOS"; seed 002 (Fan et al.), Alg. 1. Per word `b[i]`,
//! one pass computes both `a[j] * b[i]` and `m * n[j]`. The appendix propagates the
//! first product's carry into t[j+1] with `ADD`, a ripple of data-dependent length; here
//! that carry is kept in a word of its own instead (derived from the mathematics, as the
//! seed's text is garbled there): `c` carries the chain of `t + a * b[i]` and `k` the
//! chain of `+ m * n`, and both land in `t[s-1]`, `t[s]` at the end of the pass. The two
//! chains are the "extra carry" the seed says FIOS pays for its single loop.

use super::Unreduced;
use crate::ir::{Arg, Program, Val};

/// `(a * y + m * n) / R` with y = b (product) or a (square).
pub(super) fn build(p: &mut Program, s: usize, y: Arg) -> Unreduced {
    let mut t = vec![Val::Zero; s + 1];
    for i in 0..s {
        let y_i = Val::Limb(y, i);
        p.note(format!(
            "i = {i}: t = (t + a * {}[{i}] + m * n) / 2^w, m = (t[0] + a[0] * {}[{i}]) * n0'",
            y.name(),
            y.name()
        ));
        let (sum, mut c) = p.mul_add(Val::Limb(Arg::A, 0), y_i, &[t[0]], "s", "c");
        let m = p.mul_low(sum, Val::N0, "m");
        // The low word is 0 by the choice of m; only the carry is kept.
        let (_, mut k) = p.mul_add(m, Val::Limb(Arg::N, 0), &[sum], "t0", "k");
        for j in 1..s {
            // Both sums <= (2^w - 1) + (2^w - 1)^2 + (2^w - 1) = 2^(2w) - 1.
            let (sum, c_next) = p.mul_add(Val::Limb(Arg::A, j), y_i, &[t[j], c], "s", "c");
            (t[j - 1], k) = p.mul_add(
                m,
                Val::Limb(Arg::N, j),
                &[sum, k],
                &format!("t{}", j - 1),
                "k",
            );
            c = c_next;
        }
        // t[s] + c + k < 3 * 2^w, so the carry fits a word; t < a + n < 2R keeps it <= 1.
        (t[s - 1], t[s]) = p.add(&[t[s], c, k], &format!("t{}", s - 1), &format!("t{s}"));
    }
    Unreduced {
        words: t[..s].to_vec(),
        top: t[s],
    }
}
