//! The instruction helpers shared by the program builders ([`super::program`] and
//! [`super::method_one`]): each builder says how one instruction is appended to a
//! core's stream, and gets the named forms of the instructions it writes.

use super::isa::{Addr, Instr, Reg, Traffic};

/// A builder of per-core instruction streams.
pub(super) trait Emit {
    /// Appends `instr` to the stream of `core`.
    fn emit(&mut self, core: usize, instr: Instr);

    fn load(&mut self, core: usize, rd: Reg, addr: Addr, traffic: Traffic) {
        self.emit(core, Instr::Load { rd, addr, traffic });
    }

    fn store(&mut self, core: usize, rs: Reg, addr: Addr, traffic: Traffic) {
        self.emit(core, Instr::Store { rs, addr, traffic });
    }

    fn add(&mut self, core: usize, rd: Reg, rj: Reg, rk: Reg) {
        self.emit(core, Instr::Add { rd, rj, rk });
    }

    fn adc(&mut self, core: usize, rd: Reg, rj: Reg, rk: Reg) {
        self.emit(core, Instr::Adc { rd, rj, rk });
    }

    fn mul(&mut self, core: usize, rd: Reg, rj: Reg, rk: Reg) {
        self.emit(core, Instr::Mul { rd, rj, rk });
    }

    fn sub(&mut self, core: usize, rd: Reg, rj: Reg, rk: Reg) {
        self.emit(core, Instr::Sub { rd, rj, rk });
    }
}
