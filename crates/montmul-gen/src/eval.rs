//! Running an operation list directly, word by word: the meaning of [`Op`] in a few lines
//! of Rust, so that the algorithms can be checked at every size (4096 bits included)
//! without compiling the emitted code, and the printers can be checked against it.

use crate::ir::{Arg, Op, Program, Val};
use crate::Word;

/// The arguments of a kernel, as limbs (u32 limbs are held in u64s).
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    /// First operand.
    pub a: &'a [u64],
    /// Second operand (ignored by a square).
    pub b: &'a [u64],
    /// Modulus.
    pub n: &'a [u64],
    /// -n^-1 mod 2^w.
    pub n0: u64,
}

/// Runs `program` on `inputs` with `word`-bit arithmetic; returns `r` (`limbs` words).
///
/// Panics if the program reads a limb past the inputs or stores past `limbs`: both are
/// generator bugs, not bad input.
pub fn evaluate(program: &Program, word: Word, inputs: Inputs<'_>, limbs: usize) -> Vec<u64> {
    let w = word.bits();
    let mask = u64::MAX >> (64 - w);
    let mut locals = vec![0u64; program.locals()];
    let mut r = vec![0u64; limbs];
    let val = |locals: &[u64], v: Val| -> u128 {
        u128::from(match v {
            Val::Zero => 0,
            Val::Limb(Arg::A, i) => inputs.a[i],
            Val::Limb(Arg::B, i) => inputs.b[i],
            Val::Limb(Arg::N, i) => inputs.n[i],
            Val::N0 => inputs.n0,
            Val::Local(l) => locals[l.index()],
        })
    };
    for op in program.ops() {
        let (wide, lo, hi) = match op {
            Op::Note(_) => continue,
            Op::MulAdd {
                lo,
                hi,
                x,
                y,
                addends,
            } => {
                let sum = val(&locals, *x) * val(&locals, *y)
                    + addends.iter().map(|&v| val(&locals, v)).sum::<u128>();
                (sum, lo, hi)
            }
            Op::Add { lo, hi, addends } => (addends.iter().map(|&v| val(&locals, v)).sum(), lo, hi),
            Op::Sub {
                diff,
                borrow,
                x,
                y,
                borrow_in,
            } => {
                let d = val(&locals, *x).wrapping_sub(val(&locals, *y) + val(&locals, *borrow_in));
                if let Some(l) = diff {
                    locals[l.index()] = d as u64 & mask;
                }
                // As printed: bit w of the wrapped difference, set exactly when it wrapped.
                if let Some(b) = borrow {
                    locals[b.index()] = (d >> w) as u64 & 1;
                }
                continue;
            }
            Op::MulLow { dst, x, y } => {
                locals[dst.index()] = (val(&locals, *x) * val(&locals, *y)) as u64 & mask;
                continue;
            }
            Op::Mask { dst, bit } => {
                locals[dst.index()] = (val(&locals, *bit) as u64).wrapping_neg() & mask;
                continue;
            }
            Op::Select { dst, mask: m, x, y } => {
                let (m, x, y) = (val(&locals, *m), val(&locals, *x), val(&locals, *y));
                locals[dst.index()] = (y ^ (m & (x ^ y))) as u64;
                continue;
            }
            Op::Store { index, src } => {
                r[*index] = val(&locals, *src) as u64;
                continue;
            }
        };
        // The bounds in the algorithms' comments: every sum fits in two words.
        assert!(
            wide.checked_shr(2 * w).unwrap_or(0) == 0,
            "a double-width sum overflowed 2w bits"
        );
        if let Some(l) = lo {
            locals[l.index()] = wide as u64 & mask;
        }
        if let Some(h) = hi {
            locals[h.index()] = (wide >> w) as u64 & mask;
        }
    }
    r
}
