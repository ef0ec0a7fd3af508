//! Method-I's register plan: the named datapath registers outside S_rf (the carry
//! flag's stand-ins, the selector, the captured carries of the cut chains) and the
//! register blocks after the S_rf registers, with the row words' places in them.

use crate::multicore::isa::{Instr, Reg};
use crate::multicore::registers::{SCRATCH_REGISTERS, ZERO};

// Named datapath registers (outside S_rf): ZERO, MP, Y and T of `multicore::registers`,
// then method-I's own.
pub(super) const ONES: Reg = 5; // and 6, the high half of M_0 M' (unused)
pub(super) const JUNK: Reg = 7;
pub(super) const FLAG: Reg = 8;
pub(super) const CTOP: Reg = 9;
pub(super) const EKEEP: Reg = 10;
pub(super) const EOUT: Reg = 11;
pub(super) const SEL: Reg = 12;
/// Captured carries of the chains U, W and D at a cut, and their negations.
pub(super) const CARRY: [Reg; 3] = [13, 14, 15];
pub(super) const NEG: [Reg; 3] = [16, 17, 18];
pub(super) const CHAIN_U: usize = 0;
pub(super) const CHAIN_W: usize = 1;
pub(super) const CHAIN_D: usize = 2;

/// The register blocks after the S_rf registers.
#[derive(Clone, Copy)]
pub(super) struct Regs {
    pub(super) s: usize,
    /// X words loaded for the row P (when X does not stay), s.
    pub(super) x: Reg,
    /// M words loaded for the row Q (when M does not stay), s.
    pub(super) m: Reg,
    /// Products of the row P (L_t, H_t), 2s, then P_s.
    pub(super) p: Reg,
    /// Products of the row Q, 2s, then Q_s.
    pub(super) q: Reg,
    /// Z words from the previous iteration, and its top bit: s + 1.
    pub(super) z: Reg,
    /// U, s + 1.
    pub(super) u: Reg,
    /// W, s + 1 (W_t is Z'_(t-1)).
    pub(super) w: Reg,
    /// The words of 2^(w s) - M, s.
    pub(super) n: Reg,
    /// Products carry (2^(w s) - M)_j, 2s.
    pub(super) v: Reg,
    /// Result words, s.
    pub(super) r: Reg,
    /// Words of Z received for the final subtraction, s.
    pub(super) zl: Reg,
    /// Words of Z + (2^(w s) - M), s.
    pub(super) d: Reg,
    /// Their differences from Z's words, s.
    pub(super) e: Reg,
    pub(super) total: usize,
}

impl Regs {
    pub(super) fn new(registers: usize, s: usize) -> Self {
        let mut next = SCRATCH_REGISTERS + registers;
        let mut take = |k: usize| {
            let at = next as Reg;
            next += k;
            at
        };
        let x = take(s);
        let m = take(s);
        let p = take(2 * s + 1);
        let q = take(2 * s + 1);
        let z = take(s + 1);
        let u = take(s + 1);
        let w = take(s + 1);
        let n = take(s);
        let v = take(2 * s);
        let r = take(s);
        let zl = take(s);
        let d = take(s);
        let e = take(s);
        Regs {
            s,
            x,
            m,
            p,
            q,
            z,
            u,
            w,
            n,
            v,
            r,
            zl,
            d,
            e,
            total: next,
        }
    }

    /// Low half of row product t (the row word t once the chain has run).
    pub(super) fn low(base: Reg, t: usize) -> Reg {
        base + 2 * t as Reg
    }

    /// High half of row product t.
    pub(super) fn high(base: Reg, t: usize) -> Reg {
        base + 2 * t as Reg + 1
    }

    /// Row word t of a row at `base` (t = s: the top word).
    pub(super) fn row_word(&self, base: Reg, t: usize) -> Reg {
        base + 2 * t as Reg
    }

    /// The chain instruction that makes row word t (1 <= t <= s): L_t + H_(t-1) + Ca,
    /// or H_(s-1) + Ca for the top word. `first`: `Add` instead of `Adc`.
    pub(super) fn row_op(&self, base: Reg, t: usize, first: bool) -> Instr {
        self.row_op_to(base, t, self.s, first)
    }

    /// [`Regs::row_op`] for a row whose products end below position `top` (a part of
    /// the split last iteration): H_(top-1) + Ca at t = top.
    pub(super) fn row_op_to(&self, base: Reg, t: usize, top: usize, first: bool) -> Instr {
        let (rd, rj, rk) = if t < top {
            (
                Self::low(base, t),
                Self::low(base, t),
                Self::high(base, t - 1),
            )
        } else {
            (self.row_word(base, t), Self::high(base, t - 1), ZERO)
        };
        if first {
            Instr::Add { rd, rj, rk }
        } else {
            Instr::Adc { rd, rj, rk }
        }
    }
}
