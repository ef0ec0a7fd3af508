//! Which words of X, M and Z a core keeps in its S_rf registers for the whole loop, and
//! where each word of its slice comes from in every iteration.

use super::{Builder, Layout, Src, SCRATCH_REGISTERS};
use crate::multicore::emit::Emit;
use crate::multicore::isa::{Addr, Reg, Traffic};
use crate::SimError;

/// Which words a core keeps in its S_rf registers for the whole loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Residency {
    /// The core's words of X.
    pub x: bool,
    /// The core's words of M.
    pub m: bool,
    /// The core's words of Z.
    pub z: bool,
}

impl Residency {
    /// Single core and method-II, for a slice of `words` words (seed 002, Table 3, with
    /// s/p = `words`, each range closed below): from 3s/p registers on X, M and Z stay;
    /// from 2s/p, X and Z; from s/p, Z; below, nothing.
    pub fn sliced(registers: usize, words: usize) -> Self {
        let r = registers;
        Residency {
            x: r >= 2 * words,
            m: r >= 3 * words,
            z: r >= words,
        }
    }

    /// Method-I (Table 3: from 2s registers X and M stay, from s X; Z always travels
    /// through memory).
    pub fn whole(registers: usize, words: usize) -> Self {
        Residency {
            x: registers >= words,
            m: registers >= 2 * words,
            z: false,
        }
    }
}

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
