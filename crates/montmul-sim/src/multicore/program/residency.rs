//! The loads of the words of X and M a core keeps in its S_rf registers for the whole
//! loop ([`Residency`]), and where each word of its slice comes from in every iteration.

use super::builder::{Builder, Layout, Src};
use crate::multicore::emit::Emit;
use crate::multicore::isa::{Addr, Reg, Traffic};
use crate::multicore::registers::Residency;
use crate::multicore::registers::SCRATCH_REGISTERS;
use crate::SimError;

/// Where a core finds the words of its slice of X and M.
pub(super) struct Placement {
    pub(super) x: Vec<Src>,
    pub(super) m: Vec<Src>,
}

impl Builder {
    /// Loads the core's resident words of X and M and says where each word of the slice
    /// comes from in every iteration.
    pub(super) fn residents(
        &mut self,
        core: usize,
        res: Residency,
        words: std::ops::Range<usize>,
        layout: &Layout,
        registers: usize,
    ) -> Result<Placement, SimError> {
        let n = words.len();
        let needed = (res.x as usize + res.m as usize + res.z as usize) * n;
        if needed > registers {
            return Err(SimError::InvalidProgram {
                reason: format!("{needed} resident words for {registers} registers"),
            });
        }
        let mut next = SCRATCH_REGISTERS as Reg;
        let mut column = |b: &mut Builder, keep: bool, base: Addr| -> Vec<Src> {
            words
                .clone()
                .map(|j| {
                    let addr = base + j as Addr;
                    if keep {
                        let r = next;
                        next += 1;
                        b.load(core, r, addr, Traffic::Operand);
                        Src::Reg(r)
                    } else {
                        Src::Mem(addr, Traffic::Operand)
                    }
                })
                .collect()
        };
        let x = column(self, res.x, layout.x);
        let m = column(self, res.m, layout.m);
        Ok(Placement { x, m })
    }
}
