//! The algorithms, each written once over [`Program`]'s builder, and the final
//! reduction they share.
//!
//! Every algorithm computes `u = (a * b + m * n) / R` with `m = -a * b * n^-1 mod R`,
//! as s words plus a top word: with inputs below n the value is below 2n, so one masked
//! subtraction of n lands in [0, n) (`reduce_once`); with lazy reduction (inputs below
//! 2n, R > 4n) the value is already below 2n < R/2 and is stored as it is (seed 000,
//! sec. 3). Because m is the unique such value below R, every algorithm returns the same
//! words for the same inputs, lazy or not.

mod cios;
mod fios;
mod sos;

use crate::ir::{Arg, Program, Val};
use crate::{Algo, Function, Spec};

/// A Montgomery product before its final reduction: `top * R + words`.
struct Unreduced {
    /// The s low words.
    words: Vec<Val>,
    /// The word above them (0 or 1).
    top: Val,
}

/// The limbs of the second factor: `b` for a product, `a` again for a square.
fn second_factor(function: Function) -> Arg {
    match function {
        Function::Mul => Arg::B,
        Function::Sqr => Arg::A,
    }
}

/// The body of `function` for `spec`, dead code removed.
pub fn build(spec: &Spec, function: Function) -> Program {
    let s = spec.limbs();
    let mut p = Program::new();
    let u = match spec.algo() {
        Algo::Cios => cios::build(&mut p, s, second_factor(function)),
        Algo::Fios => fios::build(&mut p, s, second_factor(function)),
        Algo::Sos => match function {
            Function::Mul => sos::build_mul(&mut p, s),
            Function::Sqr => sos::build_sqr(&mut p, s),
        },
    };
    if spec.lazy() {
        p.note("lazy reduction: u < 2n < R/2, so the top word is 0 and u is the result");
        for (j, &w) in u.words.iter().enumerate() {
            p.store(j, w);
        }
    } else {
        reduce_once(&mut p, &u);
    }
    p.drop_dead_code();
    p
}

/// Stores `u - n` if `u >= n`, else `u`, choosing with a mask (seed 004, appendix,
/// Step 3, without its branch): d = u - n over s + 1 words; its borrow is 1 exactly when
/// u < n; the mask made from it picks u or d word by word.
fn reduce_once(p: &mut Program, u: &Unreduced) {
    p.note("final subtraction: d = u - n; keep u when that borrows, with a mask");
    let mut borrow = Val::Zero;
    let mut diff = Vec::with_capacity(u.words.len());
    for (j, &w) in u.words.iter().enumerate() {
        let (d, b) = p.sub(w, Val::Limb(Arg::N, j), borrow, &format!("d{j}"), "borrow");
        diff.push(d);
        borrow = b;
    }
    let (_, below) = p.sub(u.top, Val::Zero, borrow, "d_top", "borrow");
    let keep_u = p.mask(below, "keep_u");
    for (j, (&w, &d)) in u.words.iter().zip(&diff).enumerate() {
        let r = p.select(keep_u, w, d, &format!("r{j}"));
        p.store(j, r);
    }
}
