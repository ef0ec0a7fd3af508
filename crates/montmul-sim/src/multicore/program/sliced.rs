//! The sliced schedule of a single core and of method-II: core k owns the words
//! [a_k, b_k) for the whole loop.

use super::builder::{Builder, Dst, Layout, Src, EHI};
use super::epilogue::Part;
use super::iteration::{Blocks, Iteration};
use super::residency::Placement;
use crate::multicore::config::Config;
use crate::multicore::emit::Emit;
use crate::multicore::isa::{Addr, Reg, Traffic};
use crate::multicore::registers::Residency;
use crate::multicore::registers::MP;
use crate::SimError;

/// One core's share of a sliced schedule.
pub(super) struct SlicePlan {
    pub(super) a: usize,
    pub(super) b: usize,
    pub(super) res: Residency,
    pub(super) place: Placement,
}

impl Builder {
    /// Single core (p = 1) and method-II: core k owns the words [a_k, b_k) for the whole
    /// loop; T is broadcast from core 0, each core's new low word goes to the core below.
    pub(super) fn sliced(
        &mut self,
        config: &Config,
        s: usize,
        layout: &Layout,
        top_bit: bool,
    ) -> Result<Vec<Part>, SimError> {
        let p = config.cores;
        let bounds: Vec<usize> = (0..=p).map(|k| k * s / p).collect();
        let blocks = Blocks::new(config.registers, s);
        // Per core: operand sources and residency.
        let mut plans = Vec::new();
        for k in 0..p {
            let (a, b) = (bounds[k], bounds[k + 1]);
            let res = Residency::sliced(config.registers, b - a);
            let place = self.residents(k, res, a..b, layout, config.registers)?;
            if k == 0 {
                self.load(0, MP, layout.mp, Traffic::Constant);
            }
            plans.push(SlicePlan { a, b, res, place });
        }
        // Transfer and spill slots, one word each, never reused.
        let t_slot: Vec<Addr> = (0..s).map(|_| self.alloc(1)).collect();
        let bnd: Vec<Addr> = (0..s * p).map(|_| self.alloc(1)).collect();
        let spill: Vec<Addr> = (0..s * s).map(|_| self.alloc(1)).collect();
        let spill_at = |i: usize, pos: usize| spill[i * s + pos];
        for i in 0..s {
            for (k, plan) in plans.iter().enumerate() {
                let (a, b, res) = (plan.a, plan.b, plan.res);
                let q = b - a;
                let top_core = k + 1 == p;
                // The accumulator turns by one register per iteration, so that the new
                // word a + t lands where the old word a + t + 1 was: Z never moves.
                let acc: Vec<Reg> = (0..=q).map(|t| blocks.window(t + i, q)).collect();
                // Words a..b-2 of Z, and the top word of the top core, go through memory
                // every iteration unless Z stays in registers; a lower core's top word
                // (its own carry) stays in its registers.
                let spilled = |t: usize| !res.z && (t + 1 < q || top_core);
                let z_src = |t: usize| -> Src {
                    if i == 0 {
                        Src::Zero
                    } else if spilled(t) {
                        Src::Mem(spill_at(i - 1, a + t), Traffic::Transfer)
                    } else {
                        Src::Reg(acc[t])
                    }
                };
                let z_dst = |t: usize| -> Dst {
                    if spilled(t) {
                        Dst::Mem(spill_at(i, a + t), Traffic::Transfer)
                    } else {
                        Dst::Reg(acc[t + 1])
                    }
                };
                let overflow = !top_core || top_bit;
                let z = (0..q).map(z_src).collect();
                let z_out = (0..q).map(z_dst).collect();
                let it = Iteration {
                    i,
                    next: (i + 1 < s).then_some(i + 1),
                    first: i == 0,
                    x: plan.place.x.clone(),
                    m: plan.place.m.clone(),
                    z,
                    top: if top_core || i == 0 {
                        Src::Zero
                    } else {
                        Src::Mem(bnd[(i - 1) * p + k + 1], Traffic::Transfer)
                    },
                    e_hi: if i == 0 || !overflow {
                        Src::Zero
                    } else {
                        Src::Reg(EHI)
                    },
                    overflow,
                    t_load: (k > 0).then(|| t_slot[i]),
                    t_store: (k == 0 && p > 1).then(|| t_slot[i]),
                    acc,
                    rows: blocks.rows,
                    low: if k == 0 {
                        Dst::Drop
                    } else {
                        Dst::Mem(bnd[i * p + k], Traffic::Transfer)
                    },
                    z_out,
                    e_hi_out: if overflow { Dst::Reg(EHI) } else { Dst::Drop },
                };
                self.iteration(k, &it, layout.y);
            }
        }
        let parts = plans
            .iter()
            .enumerate()
            .map(|(k, plan)| {
                let (a, b) = (plan.a, plan.b);
                let q = b - a;
                let top_core = k + 1 == p;
                let spilled = |t: usize| !plan.res.z && (t + 1 < q || top_core);
                let word = |t: usize| {
                    if spilled(t) {
                        Src::Mem(spill_at(s - 1, a + t), Traffic::Epilogue)
                    } else {
                        Src::Reg(blocks.window(t + s, q))
                    }
                };
                Part {
                    core: k,
                    a,
                    b,
                    words: (0..q - 1).map(word).collect(),
                    // The last boundary word is a transfer like the others (Table 2
                    // counts (p - 1) s of them).
                    top: if top_core {
                        Src::Zero
                    } else {
                        Src::Mem(bnd[(s - 1) * p + k + 1], Traffic::Transfer)
                    },
                    e_lo: word(q - 1),
                    e_hi: if top_core && !top_bit {
                        Src::Zero
                    } else {
                        Src::Reg(EHI)
                    },
                }
            })
            .collect();
        Ok(parts)
    }
}
