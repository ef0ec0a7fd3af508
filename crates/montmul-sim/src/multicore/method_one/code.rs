//! The instruction streams of method-I being built: each instruction's loop mark and
//! urgency, and the chains' carries captured at a cut and restored after it.

use super::registers::{CARRY, FLAG, NEG};
use crate::multicore::emit::Emit;
use crate::multicore::isa::{Instr, Reg};
use crate::multicore::registers::ZERO;

/// The instruction streams being built, with each instruction's loop/epilogue mark.
pub(super) struct Code {
    pub(super) code: Vec<Vec<Instr>>,
    pub(super) marks: Vec<Vec<bool>>,
    /// Whether instructions emitted now belong to the loop.
    pub(super) in_loop: bool,
    /// Each instruction's urgency for the packer: the iteration it serves.
    pub(super) ages: Vec<Vec<u32>>,
    /// The iteration the instructions emitted now serve.
    pub(super) age: u32,
    /// Per core: `Sub`s that wait one instruction before they are emitted (so that the
    /// captured carry they read is ready).
    pub(super) pending: Vec<Vec<Instr>>,
    /// Where each of the s result words is made: (core, register).
    pub(super) result_regs: Vec<(usize, Reg)>,
}

impl Emit for Code {
    fn emit(&mut self, core: usize, instr: Instr) {
        self.code[core].push(instr);
        self.marks[core].push(self.in_loop);
        self.ages[core].push(self.age);
    }
}

impl Code {
    pub(super) fn flush(&mut self, core: usize) {
        let pending = std::mem::take(&mut self.pending[core]);
        for instr in pending {
            self.emit(core, instr);
        }
    }

    /// `Add` or `Adc` (`first`: the chain starts here, no carry in).
    pub(super) fn chain(&mut self, core: usize, first: bool, rd: Reg, rj: Reg, rk: Reg) {
        if first {
            self.add(core, rd, rj, rk);
        } else {
            self.adc(core, rd, rj, rk);
        }
    }

    /// Saves chain k's carry at a cut: `Adc c = 0 + 0 + Ca`, and (one instruction
    /// later) n = 0 - c, for [`Code::restore`].
    pub(super) fn capture(&mut self, core: usize, k: usize) {
        self.adc(core, CARRY[k], ZERO, ZERO);
        self.pending[core].push(Instr::Sub {
            rd: NEG[k],
            rj: ZERO,
            rk: CARRY[k],
        });
    }

    /// Puts chain k's saved carry back into the flag: n + n with n = 0 - c carries
    /// exactly when c = 1 (2 (2^w - 1) >= 2^w; 0 + 0 does not).
    pub(super) fn restore(&mut self, core: usize, k: usize) {
        self.flush(core);
        self.add(core, FLAG, NEG[k], NEG[k]);
    }
}
