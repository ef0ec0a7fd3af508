//! The final subtraction's last steps on a core's result words: the differences of
//! Z + (2^(w s) - M) from Z, and the words selected by the carry out.

use super::code::Code;
use super::registers::{Regs, SEL};
use crate::multicore::emit::Emit;
use crate::multicore::isa::{Addr, Instr, Reg, Traffic};

/// The final subtraction's differences E_j = D_j - Z_j mod 2^w for the result words
/// [a, b) (`z`: the registers of Z's words).
pub(super) fn differences(
    c: &mut Code,
    regs: &Regs,
    core: usize,
    (a, b): (usize, usize),
    z: &dyn Fn(usize) -> Reg,
) {
    for j in a..b {
        c.emit(
            core,
            Instr::Sub {
                rd: regs.e + j as Reg,
                rj: regs.d + j as Reg,
                rk: z(j),
            },
        );
    }
}

/// The result words [a, b) = Z_j + SEL E_j mod 2^w (one `Mul` by the selector, one
/// `Add`) in the core's result registers, where they stay; with write-back also stored
/// at `result` (`z`: the registers of Z's words).
pub(super) fn select(
    c: &mut Code,
    regs: &Regs,
    result: Option<Addr>,
    core: usize,
    (a, b): (usize, usize),
    z: &dyn Fn(usize) -> Reg,
) {
    let v = |j: usize| regs.v + 2 * j as Reg;
    for j in a..b {
        c.mul(core, v(j), SEL, regs.e + j as Reg);
    }
    let store = |c: &mut Code, j: usize| {
        if let Some(result) = result {
            let at = result + j as Addr;
            c.store(core, regs.r + j as Reg, at, Traffic::Epilogue);
        }
    };
    for j in a..b {
        c.add(core, regs.r + j as Reg, z(j), v(j));
        c.result_regs[j] = (core, regs.r + j as Reg);
        if j > a {
            store(c, j - 1);
        }
    }
    if b > a {
        store(c, b - 1);
    }
}
