//! The intermediate form every kernel is built in before it is printed: a straight-line
//! list of word operations ([`Op`]) over values ([`Val`]) that are assigned exactly once.
//!
//! The algorithms in [`crate::algo`] are written against [`Program`]'s builder methods,
//! which read like the `(C,S) := t[j] + a[j]*b[i] + C` lines of seed 004's appendix; the
//! emitters (`emit`) print the list as C or Rust. The list has no branches and
//! no loops, and every array index is a constant: the straight-line form is what makes
//! the kernels constant-time.

/// One of the kernel's argument arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arg {
    /// The first operand `a`.
    A,
    /// The second operand `b`.
    B,
    /// The modulus `n`.
    N,
}

impl Arg {
    /// The parameter's name in the emitted code.
    pub fn name(self) -> &'static str {
        match self {
            Arg::A => "a",
            Arg::B => "b",
            Arg::N => "n",
        }
    }
}

/// A value computed by the kernel, assigned exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Local(usize);

impl Local {
    /// Its position among the program's locals, in order of creation.
    pub fn index(self) -> usize {
        self.0
    }
}

/// A word-sized value that an operation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Val {
    /// The constant 0 (the builder folds it away wherever it can).
    Zero,
    /// Limb `i` of an argument array.
    Limb(Arg, usize),
    /// The run-time argument n0' = -n^-1 mod 2^w.
    N0,
    /// A local computed earlier.
    Local(Local),
}

/// One straight-line operation on words of w bits; "wide" is 2w bits.
///
/// An output that nothing reads is `None` (see [`Program::drop_dead_code`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// A comment naming the step of the algorithm that follows.
    Note(String),
    /// `(hi, lo) = x * y + addends` with at most two addends. Bound:
    /// (2^w - 1)^2 + 2 (2^w - 1) = 2^(2w) - 1, so the sum always fits in two words.
    MulAdd {
        /// The low word of the sum.
        lo: Option<Local>,
        /// The high word of the sum.
        hi: Option<Local>,
        /// First factor.
        x: Val,
        /// Second factor.
        y: Val,
        /// Zero, one or two words added to the product.
        addends: Vec<Val>,
    },
    /// `(hi, lo) = sum of two or three words`; hi is at most 2.
    Add {
        /// The low word of the sum.
        lo: Option<Local>,
        /// The high word (the carry).
        hi: Option<Local>,
        /// The words added.
        addends: Vec<Val>,
    },
    /// `dst = x * y mod 2^w`.
    MulLow {
        /// The product's low word.
        dst: Local,
        /// First factor.
        x: Val,
        /// Second factor.
        y: Val,
    },
    /// `(borrow, diff) = x - y - borrow_in`, with `borrow_in` and `borrow` 0 or 1.
    Sub {
        /// The difference mod 2^w.
        diff: Option<Local>,
        /// 1 when the subtraction went below zero, else 0.
        borrow: Option<Local>,
        /// Minuend.
        x: Val,
        /// Subtrahend.
        y: Val,
        /// Incoming borrow (0 or 1).
        borrow_in: Val,
    },
    /// `dst = 0 - bit`: all ones when `bit` is 1, zero when it is 0.
    Mask {
        /// The mask.
        dst: Local,
        /// A 0/1 value.
        bit: Val,
    },
    /// `dst = mask ? x : y`, computed as `y ^ (mask & (x ^ y))`.
    Select {
        /// The chosen word.
        dst: Local,
        /// All ones or zero.
        mask: Val,
        /// Taken when the mask is all ones.
        x: Val,
        /// Taken when the mask is zero.
        y: Val,
    },
    /// `r[index] = src`: one word of the result.
    Store {
        /// Limb index in `r`.
        index: usize,
        /// The word stored.
        src: Val,
    },
}

impl Op {
    /// The values this operation reads.
    pub fn inputs(&self) -> Vec<Val> {
        match self {
            Op::Note(_) => Vec::new(),
            Op::MulAdd { x, y, addends, .. } => [*x, *y]
                .into_iter()
                .chain(addends.iter().copied())
                .collect(),
            Op::Add { addends, .. } => addends.clone(),
            Op::MulLow { x, y, .. } => vec![*x, *y],
            Op::Sub {
                x, y, borrow_in, ..
            } => vec![*x, *y, *borrow_in],
            Op::Mask { bit, .. } => vec![*bit],
            Op::Select { mask, x, y, .. } => vec![*mask, *x, *y],
            Op::Store { src, .. } => vec![*src],
        }
    }

    /// The outputs this operation still writes (dead ones are `None` and left out).
    pub fn outputs(&self) -> Vec<Local> {
        match self {
            Op::Note(_) | Op::Store { .. } => Vec::new(),
            Op::MulAdd { lo, hi, .. } | Op::Add { lo, hi, .. } => {
                lo.iter().chain(hi).copied().collect()
            }
            Op::Sub { diff, borrow, .. } => diff.iter().chain(borrow).copied().collect(),
            Op::MulLow { dst, .. } | Op::Mask { dst, .. } | Op::Select { dst, .. } => vec![*dst],
        }
    }
}

/// A straight-line function body under construction, then finished.
///
/// Every builder method takes the base name of its outputs (`"t3"`, `"c"`): the name of
/// the variable of the pseudocode the value belongs to. Each call creates new locals;
/// [`crate::variables`] later gives them the base name back, reusing one variable for
/// successive values wherever their lifetimes allow.
#[derive(Clone, Debug, Default)]
pub struct Program {
    ops: Vec<Op>,
    bases: Vec<String>,
}

impl Program {
    /// An empty program.
    pub fn new() -> Self {
        Self::default()
    }

    /// The operations, in order.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// Number of locals ever created (dead ones included).
    pub fn locals(&self) -> usize {
        self.bases.len()
    }

    /// The base name a local was created with.
    pub fn base(&self, local: Local) -> &str {
        &self.bases[local.0]
    }

    fn fresh(&mut self, base: &str) -> Local {
        self.bases.push(base.to_string());
        Local(self.bases.len() - 1)
    }

    /// A comment line before the next operations.
    pub fn note(&mut self, text: impl Into<String>) {
        self.ops.push(Op::Note(text.into()));
    }

    /// `(hi, lo) = x * y + addends` (at most two addends); zero addends are dropped.
    pub fn mul_add(&mut self, x: Val, y: Val, addends: &[Val], lo: &str, hi: &str) -> (Val, Val) {
        let addends: Vec<Val> = addends
            .iter()
            .copied()
            .filter(|v| *v != Val::Zero)
            .collect();
        assert!(
            addends.len() <= 2,
            "x * y + three words may not fit in two words"
        );
        let (l, h) = (self.fresh(lo), self.fresh(hi));
        self.ops.push(Op::MulAdd {
            lo: Some(l),
            hi: Some(h),
            x,
            y,
            addends,
        });
        (Val::Local(l), Val::Local(h))
    }

    /// `(hi, lo) = sum of addends` (at most three words). Zeros are dropped; a sum of
    /// one word is that word with a zero carry, and no operation is emitted.
    pub fn add(&mut self, addends: &[Val], lo: &str, hi: &str) -> (Val, Val) {
        let addends: Vec<Val> = addends
            .iter()
            .copied()
            .filter(|v| *v != Val::Zero)
            .collect();
        assert!(
            addends.len() <= 3,
            "more than three words may carry more than 2"
        );
        match addends[..] {
            [] => (Val::Zero, Val::Zero),
            [only] => (only, Val::Zero),
            _ => {
                let (l, h) = (self.fresh(lo), self.fresh(hi));
                self.ops.push(Op::Add {
                    lo: Some(l),
                    hi: Some(h),
                    addends,
                });
                (Val::Local(l), Val::Local(h))
            }
        }
    }

    /// `x * y mod 2^w`.
    pub fn mul_low(&mut self, x: Val, y: Val, name: &str) -> Val {
        let dst = self.fresh(name);
        self.ops.push(Op::MulLow { dst, x, y });
        Val::Local(dst)
    }

    /// `(borrow, diff) = x - y - borrow_in`.
    pub fn sub(&mut self, x: Val, y: Val, borrow_in: Val, diff: &str, borrow: &str) -> (Val, Val) {
        let (d, b) = (self.fresh(diff), self.fresh(borrow));
        self.ops.push(Op::Sub {
            diff: Some(d),
            borrow: Some(b),
            x,
            y,
            borrow_in,
        });
        (Val::Local(d), Val::Local(b))
    }

    /// `0 - bit`: all ones when `bit` is 1.
    pub fn mask(&mut self, bit: Val, name: &str) -> Val {
        let dst = self.fresh(name);
        self.ops.push(Op::Mask { dst, bit });
        Val::Local(dst)
    }

    /// `mask ? x : y` with masks, no branch.
    pub fn select(&mut self, mask: Val, x: Val, y: Val, name: &str) -> Val {
        let dst = self.fresh(name);
        self.ops.push(Op::Select { dst, mask, x, y });
        Val::Local(dst)
    }

    /// `r[index] = src`.
    pub fn store(&mut self, index: usize, src: Val) {
        self.ops.push(Op::Store { index, src });
    }

    /// Removes every operation whose outputs nothing reads, and marks unread outputs of
    /// the others as `None` (the low word of `t[0] + m * n[0]`, which is 0 by the choice
    /// of m; carries out of the last step). A Note before a removed run stays.
    pub fn drop_dead_code(&mut self) {
        let mut live = vec![false; self.bases.len()];
        let mut kept = Vec::with_capacity(self.ops.len());
        for mut op in self.ops.drain(..).rev() {
            let keep_output = |o: &mut Option<Local>| {
                if o.is_some_and(|l| !live[l.0]) {
                    *o = None;
                }
            };
            match &mut op {
                Op::MulAdd { lo, hi, .. } | Op::Add { lo, hi, .. } => {
                    keep_output(lo);
                    keep_output(hi);
                }
                Op::Sub { diff, borrow, .. } => {
                    keep_output(diff);
                    keep_output(borrow);
                }
                _ => {}
            }
            let needed = match &op {
                Op::Note(_) | Op::Store { .. } => true,
                Op::MulLow { dst, .. } | Op::Mask { dst, .. } | Op::Select { dst, .. } => {
                    live[dst.0]
                }
                _ => !op.outputs().is_empty(),
            };
            if needed {
                for v in op.inputs() {
                    if let Val::Local(l) = v {
                        live[l.0] = true;
                    }
                }
                kept.push(op);
            }
        }
        kept.reverse();
        self.ops = kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_zeros_and_drops_dead_code() {
        let mut p = Program::new();
        // A sum with one non-zero word is that word: no operation.
        assert_eq!(p.add(&[Val::Zero, Val::N0], "s", "c"), (Val::N0, Val::Zero));
        assert!(p.ops().is_empty());

        let (a0, b0) = (Val::Limb(Arg::A, 0), Val::Limb(Arg::B, 0));
        let (lo, hi) = p.mul_add(a0, b0, &[Val::Zero], "t0", "c");
        // Nothing reads m, and then nothing reads lo: both go.
        let _m = p.mul_low(lo, Val::N0, "m");
        p.store(0, hi);
        p.drop_dead_code();
        let Val::Local(hi) = hi else {
            panic!("a product is a local")
        };
        assert_eq!(
            p.ops(),
            [
                Op::MulAdd {
                    lo: None,
                    hi: Some(hi),
                    x: a0,
                    y: b0,
                    addends: Vec::new(),
                },
                Op::Store {
                    index: 0,
                    src: Val::Local(hi),
                },
            ]
        );
        assert_eq!(p.base(hi), "c");
    }
}
