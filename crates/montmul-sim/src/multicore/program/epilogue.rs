//! The epilogue after the loop: the carries added in and passed up from core to core,
//! and the conditional subtraction of M selected word by word.

use super::builder::{
    Builder, Layout, Src, BT, DC, DC2, EHI, ELO, NC, PAIR_D, PAIR_M, PAIR_S, PAIR_U, PAIR_X, S, U,
};
use crate::multicore::config::Config;
use crate::multicore::emit::Emit;
use crate::multicore::isa::{Addr, Reg, Traffic};
use crate::multicore::registers::{SCRATCH_REGISTERS, ZERO};

/// What one core holds of Z after the loop: the words [a, b), the stored part of its top
/// word b - 1 (the boundary word from the next core, or nothing), and its E.
pub(super) struct Part {
    pub(super) core: usize,
    pub(super) a: usize,
    pub(super) b: usize,
    /// Words a..b-1 (the top word is `top` plus E_lo).
    pub(super) words: Vec<Src>,
    pub(super) top: Src,
    pub(super) e_lo: Src,
    pub(super) e_hi: Src,
}

impl Builder {
    /// After the loop: every core adds its E into its words and passes the carry up
    /// (stage 1), computes the carry of Z + (2^(w(s+1)) - M) over its words and passes
    /// it up (stage 2); the top core's carry, 1 exactly when Z >= M, goes back to every
    /// core (stage 3), which recomputes its words of Z - M and makes, word by word,
    /// Z + carry (Z - M - Z) (stage 4: a `Mul` by the carry selects, since the ISA has
    /// no branch; `Sub`s keep the carry flag of the chain intact) in the register
    /// `result_base` + its position, where it stays; with write-back it stores it too.
    /// Returns the address of the s + 1 result words in memory (with write-back) and
    /// their registers.
    pub(super) fn epilogue(
        &mut self,
        parts: &[Part],
        s: usize,
        config: &Config,
        layout: &Layout,
        result_base: Reg,
    ) -> (Option<Addr>, Vec<(usize, Reg)>) {
        let (n, registers) = (parts.len(), config.registers);
        let result = config.write_back.then(|| self.alloc(s + 1));
        let mut result_regs = vec![(0, ZERO); s + 1];
        let carry_slot: Vec<Addr> = (0..n).map(|_| self.alloc(1)).collect();
        let borrow_slot: Vec<Addr> = (0..n).map(|_| self.alloc(1)).collect();
        let select_slot = self.alloc(1);
        // Where each core keeps its normalised words V (positions a..last).
        let mut values: Vec<Vec<Src>> = Vec::new();
        for (k, part) in parts.iter().enumerate() {
            let (c, top_core) = (part.core, k + 1 == n);
            let last = if top_core { s } else { part.b - 1 };
            let count = last + 1 - part.a;
            // The data registers are free now. Writing V_pos into register pos - a never
            // clobbers a word of Z still to be read: Z's registers start at the same
            // index or later, and the chain reads them in increasing order.
            let v: Vec<Src> = (0..count)
                .map(|i| {
                    if registers >= count {
                        Src::Reg(SCRATCH_REGISTERS as Reg + i as Reg)
                    } else {
                        Src::Mem(self.alloc(1), Traffic::Epilogue)
                    }
                })
                .collect();
            // Stage 1. The top word first (its addition needs the flag).
            self.fetch_into(c, part.e_lo, ELO);
            self.fetch_into(c, part.e_hi, EHI);
            let top = if matches!(part.top, Src::Zero) {
                ELO
            } else {
                let br = self.fetch(c, part.top, BT);
                self.add(c, BT, br, ELO);
                self.adc(c, EHI, EHI, ZERO);
                BT
            };
            if k > 0 {
                self.load(c, NC, carry_slot[k], Traffic::Epilogue);
            }
            // Two words at a time: both loads before both additions, so that no
            // addition waits on its load.
            let positions: Vec<usize> = (part.a..part.b).collect();
            for chunk in positions.chunks(2) {
                let ws: Vec<Reg> = chunk
                    .iter()
                    .zip(PAIR_X)
                    .map(|(&pos, temp)| {
                        if pos + 1 == part.b {
                            top
                        } else {
                            self.fetch(c, part.words[pos - part.a], temp)
                        }
                    })
                    .collect();
                for (t, &pos) in chunk.iter().enumerate() {
                    let rd = Self::target_of(v[pos - part.a], PAIR_S[t]);
                    match (pos == part.a, k > 0) {
                        (true, true) => self.add(c, rd, ws[t], NC),
                        (true, false) => self.add(c, rd, ws[t], ZERO),
                        (false, _) => self.adc(c, rd, ws[t], ZERO),
                    }
                    self.put_src(c, v[pos - part.a], rd);
                }
            }
            // The carry out, with E_hi (weight b), is small: it never carries out.
            let rd = if top_core {
                Self::target_of(v[count - 1], S)
            } else {
                NC
            };
            self.adc(c, rd, EHI, ZERO);
            if top_core {
                self.put_src(c, v[count - 1], rd);
            } else {
                self.store(c, NC, carry_slot[k + 1], Traffic::Epilogue);
            }
            values.push(v);
        }
        // Stage 2: the carry of Z + (2^(w(s+1)) - M), rippling up the cores.
        for (k, part) in parts.iter().enumerate() {
            let c = part.core;
            self.chain_start(c, k, borrow_slot[k]);
            for (chunk_index, chunk) in values[k].chunks(2).enumerate() {
                self.neg_m_pair(c, k, part.a + 2 * chunk_index, chunk, layout);
            }
            self.adc(c, DC2, ZERO, ZERO);
            if k + 1 < n {
                self.store(c, DC2, borrow_slot[k + 1], Traffic::Epilogue);
            } else if n > 1 {
                self.store(c, DC2, select_slot, Traffic::Epilogue);
            }
        }
        // Stages 3 and 4.
        for (k, part) in parts.iter().enumerate() {
            let c = part.core;
            if k + 1 < n {
                self.load(c, DC2, select_slot, Traffic::Epilogue);
            }
            self.chain_flag(c, k);
            for (chunk_index, chunk) in values[k].chunks(2).enumerate() {
                let first = part.a + 2 * chunk_index;
                let dv = self.neg_m_pair(c, k, first, chunk, layout);
                // result = V + carry (D - V), two words interleaved; Sub and Mul leave
                // the chain's carry flag alone.
                let us = &PAIR_U[..dv.len()];
                let rs: Vec<Reg> = (0..dv.len())
                    .map(|t| result_base + (first + t) as Reg)
                    .collect();
                for (&u, &(d, v)) in us.iter().zip(&dv) {
                    self.sub(c, u, d, v);
                }
                for &u in us {
                    self.mul(c, u, u, DC2);
                }
                for &u in us {
                    self.sub(c, u, ZERO, u);
                }
                for ((&r, &u), &(_, v)) in rs.iter().zip(us).zip(&dv) {
                    self.sub(c, r, v, u);
                }
                for (t, &r) in rs.iter().enumerate() {
                    result_regs[first + t] = (c, r);
                    if let Some(at) = result {
                        self.store(c, r, at + (first + t) as Addr, Traffic::Epilogue);
                    }
                }
            }
        }
        (result, result_regs)
    }

    /// Stage 2's start: core `k > 0` loads the carry from the core below into DC and
    /// puts it in the flag.
    pub(super) fn chain_start(&mut self, core: usize, k: usize, slot: Addr) {
        if k > 0 {
            self.load(core, DC, slot, Traffic::Epilogue);
        }
        self.chain_flag(core, k);
    }

    /// Sets the carry flag to DC (0 or 1) for `k > 0`: (0 - DC) + (0 - DC) carries
    /// exactly when DC = 1. Core 0's chain starts with `Add` instead.
    pub(super) fn chain_flag(&mut self, core: usize, k: usize) {
        if k > 0 {
            self.sub(core, U, ZERO, DC);
            self.add(core, U, U, U);
        }
    }

    /// D = V + (2^(w(s+1)) - M)_pos + carry for one or two consecutive words from
    /// position `first` (both loads before both additions); returns (D, V) registers.
    pub(super) fn neg_m_pair(
        &mut self,
        core: usize,
        k: usize,
        first: usize,
        values: &[Src],
        layout: &Layout,
    ) -> Vec<(Reg, Reg)> {
        let mut regs = Vec::new();
        for (t, &v) in values.iter().enumerate() {
            let pos = (first + t) as Addr;
            self.load(core, PAIR_M[t], layout.neg_m + pos, Traffic::Epilogue);
            regs.push(self.fetch(core, v, PAIR_X[t]));
        }
        values
            .iter()
            .enumerate()
            .map(|(t, _)| {
                if k == 0 && first == 0 && t == 0 {
                    self.add(core, PAIR_D[t], regs[t], PAIR_M[t]);
                } else {
                    self.adc(core, PAIR_D[t], regs[t], PAIR_M[t]);
                }
                (PAIR_D[t], regs[t])
            })
            .collect()
    }

    /// The register a value kept in `v` is computed into (`temp` when it goes to memory).
    pub(super) fn target_of(v: Src, temp: Reg) -> Reg {
        match v {
            Src::Reg(r) => r,
            Src::Zero | Src::Mem(..) => temp,
        }
    }

    /// Stores `reg` when `v` is a memory slot.
    pub(super) fn put_src(&mut self, core: usize, v: Src, reg: Reg) {
        if let Src::Mem(addr, traffic) = v {
            self.store(core, reg, addr, traffic);
        }
    }
}
