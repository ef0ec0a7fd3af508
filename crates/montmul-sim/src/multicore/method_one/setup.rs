//! What both forms of method-I share before their iterations: the registers, the data
//! memory's layout, and the final subtraction split between the cores.

use super::code::Code;
use super::registers::{Regs, CARRY, CHAIN_D, FLAG, ONES, SEL};
use super::subtraction::{differences, select};
use crate::multicore::code::Operands;
use crate::multicore::config::Config;
use crate::multicore::emit::Emit;
use crate::multicore::isa::{Addr, Instr, Reg, Traffic};
use crate::multicore::registers::{Residency, MP, SCRATCH_REGISTERS, Y, ZERO};
use crate::SimError;

/// What both forms of method-I share before their iterations: the registers, the data
/// memory's layout, and how the final subtraction is split between the cores.
pub(super) struct Setup {
    pub(super) s: usize,
    pub(super) p: usize,
    pub(super) res: Residency,
    pub(super) regs: Regs,
    pub(super) x_at: Addr,
    pub(super) y_at: Addr,
    pub(super) m_at: Addr,
    pub(super) mp_at: Addr,
    pub(super) z_at0: Addr,
    pub(super) e_at0: Addr,
    /// The result in memory, with write-back.
    pub(super) result: Option<Addr>,
    pub(super) carry_at0: Addr,
    pub(super) sel_at: Addr,
    /// Whether the final subtraction is split between the cores.
    pub(super) split: bool,
    /// How many cores take part in the final subtraction.
    pub(super) parts: usize,
    /// The first result word of the last iteration's core.
    pub(super) own_from: usize,
}

impl Setup {
    /// The layout for `config` and `ops`, the data memory, and the code with each core's
    /// loads of its resident words of M (resident X and M' are loaded in the core's first
    /// iteration, as its row P and T need them).
    pub(super) fn new(
        config: &Config,
        ops: &Operands<'_>,
    ) -> Result<(Self, Vec<u64>, Code), SimError> {
        let s = ops.m.len();
        let p = config.cores;
        let res = Residency::whole(config.registers, s);
        let needed = (usize::from(res.x) + usize::from(res.m)) * s;
        if needed > config.registers {
            return Err(SimError::InvalidProgram {
                reason: format!("{needed} resident words for {} registers", config.registers),
            });
        }
        let regs = Regs::new(config.registers, s);
        let mut memory: Vec<u64> = Vec::new();
        let mut place = |words: &[u64]| {
            let at = memory.len() as Addr;
            memory.extend_from_slice(words);
            at
        };
        let x_at = place(ops.x);
        let y_at = place(ops.y);
        let m_at = place(ops.m);
        let mp_at = place(&[ops.m_prime]);
        // Z_0..Z_(s-1) of iterations 0..s-2, the bits that travel, and the result.
        let z_at0 = place(&vec![0; s * s]);
        let e_at0 = place(&vec![0; s]);
        let result = config.write_back.then(|| place(&vec![0; s + 1]));
        // The final subtraction's carries between cores, and its selector.
        let carry_at0 = place(&vec![0; p + 1]);
        let sel_at = place(&[0]);
        // Participant q of the final subtraction (q = p - 1: the last iteration's core)
        // takes the words [q s / p, (q + 1) s / p) of the result; one core does it all
        // when p = 1 or s < 2p.
        let split = p >= 2 && s >= 2 * p;
        let parts = if split { p } else { 1 };
        let mut set = Setup {
            s,
            p,
            res,
            regs,
            x_at,
            y_at,
            m_at,
            mp_at,
            z_at0,
            e_at0,
            result,
            carry_at0,
            sel_at,
            split,
            parts,
            own_from: 0,
        };
        set.own_from = set.range(parts - 1).0;
        let mut c = Code {
            code: vec![Vec::new(); p],
            marks: vec![Vec::new(); p],
            in_loop: true,
            ages: vec![Vec::new(); p],
            age: 0,
            pending: vec![Vec::new(); p],
            result_regs: vec![(0, ZERO); s],
        };
        for core in 0..p {
            c.age = core as u32;
            for j in 0..s {
                if res.m {
                    c.load(core, set.m_reg(j), m_at + j as Addr, Traffic::Operand);
                }
            }
        }
        Ok((set, memory, c))
    }

    /// Starts iteration i on its core (returned): code in the loop, serving iteration
    /// i; a core's first iteration loads its Y_i and M' (later ones find Y_i loaded by
    /// the core's previous iteration).
    pub(super) fn begin(&self, c: &mut Code, i: usize) -> usize {
        let core = i % self.p;
        c.in_loop = true;
        c.age = i as u32;
        if i < self.p {
            c.load(core, Y, self.y_at + i as Addr, Traffic::Operand);
            c.load(core, MP, self.mp_at, Traffic::Constant);
        }
        core
    }

    /// The result words [a, b) of participant `q` of the final subtraction.
    pub(super) fn range(&self, q: usize) -> (usize, usize) {
        (q * self.s / self.parts, (q + 1) * self.s / self.parts)
    }

    /// Where iteration i's word Z'_j goes.
    pub(super) fn z_at(&self, i: usize, j: usize) -> Addr {
        self.z_at0 + (i * self.s + j) as Addr
    }

    /// Where iteration i's bit e goes.
    pub(super) fn e_at(&self, i: usize) -> Addr {
        self.e_at0 + i as Addr
    }

    /// Where the final subtraction's carry into participant q goes.
    pub(super) fn carry_at(&self, q: usize) -> Addr {
        self.carry_at0 + q as Addr
    }

    /// The register of X_j.
    pub(super) fn x_reg(&self, j: usize) -> Reg {
        if self.res.x {
            SCRATCH_REGISTERS as Reg + j as Reg
        } else {
            self.regs.x + j as Reg
        }
    }

    /// The register of M_j.
    pub(super) fn m_reg(&self, j: usize) -> Reg {
        if self.res.m {
            SCRATCH_REGISTERS as Reg + (usize::from(self.res.x) * self.s + j) as Reg
        } else {
            self.regs.m + j as Reg
        }
    }

    /// Word j of 2^(w s) - M: N_0 = 0 - M_0, N_j = (2^w - 1) - M_j (ONES holds 2^w - 1).
    pub(super) fn neg_m_word(&self, j: usize) -> Instr {
        Instr::Sub {
            rd: self.regs.n + j as Reg,
            rj: if j == 0 { ZERO } else { ONES },
            rk: self.m_reg(j),
        }
    }

    /// The carry from the part below (participant q - 1) into the flag:
    /// c + (2^w - 1) carries exactly when c = 1.
    pub(super) fn carry_in(&self, c: &mut Code, core: usize, q: usize) {
        c.load(core, CARRY[CHAIN_D], self.carry_at(q), Traffic::Epilogue);
        c.add(core, FLAG, CARRY[CHAIN_D], ONES);
    }

    /// The last iteration's core's result words [own_from, s), from its differences and
    /// the selector (`z`: the registers of Z's words).
    pub(super) fn own_result(&self, c: &mut Code, core: usize, z: &dyn Fn(usize) -> Reg) {
        let words = (self.own_from, self.s);
        differences(c, &self.regs, core, words, z);
        select(c, &self.regs, self.result, core, words, z);
    }

    /// The other cores' part of the final subtraction, on the last iteration's words
    /// [a, b): their words of 2^(w s) - M (from their own words of M), the carry chain
    /// of Z + (2^(w s) - M) on them, from and to the neighbouring parts, then the
    /// selector from the last core and the result words.
    pub(super) fn other_parts(&self, c: &mut Code) {
        let (s, p, regs) = (self.s, self.p, &self.regs);
        for q in 0..self.parts - 1 {
            let core = (s + q) % p;
            let (a, b) = self.range(q);
            c.in_loop = false;
            c.age = s as u32;
            if a > 0 || b > 1 {
                c.mul(core, ONES, self.m_reg(0), MP);
            }
            for j in a..b {
                c.emit(core, self.neg_m_word(j));
            }
            for j in a..b {
                let at = self.z_at(s - 1, j);
                c.load(core, regs.zl + j as Reg, at, Traffic::Epilogue);
            }
            if a > 0 {
                self.carry_in(c, core, q);
            }
            for j in a..b {
                let rd = regs.d + j as Reg;
                c.chain(core, j == 0, rd, regs.zl + j as Reg, regs.n + j as Reg);
            }
            c.adc(core, CARRY[CHAIN_D], ZERO, ZERO);
            c.store(
                core,
                CARRY[CHAIN_D],
                self.carry_at(q + 1),
                Traffic::Epilogue,
            );
            let z = |j: usize| regs.zl + j as Reg;
            differences(c, regs, core, (a, b), &z);
            c.load(core, SEL, self.sel_at, Traffic::Epilogue);
            select(c, regs, self.result, core, (a, b), &z);
        }
    }
}
