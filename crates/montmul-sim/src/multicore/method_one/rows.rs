//! Method-I in row form: each iteration's row P ahead of the wait for Z, then its
//! chains U, Q and W block by block, cut every so many positions.

use std::collections::VecDeque;

use super::code::Code;
use super::registers::{Regs, CHAIN_D, CHAIN_U, CHAIN_W, CTOP, EKEEP, EOUT, JUNK, ONES, SEL};
use super::setup::Setup;
use super::split;
use crate::multicore::code::{Operands, Program};
use crate::multicore::config::Config;
use crate::multicore::emit::Emit;
use crate::multicore::isa::{Addr, Instr, Reg, Traffic};
use crate::multicore::registers::{MP, T, Y, ZERO};
use crate::SimError;

/// Method-I in row form with its chains cut every `block` (>= 2) positions: each
/// iteration runs its row P ([`RowIteration::row_p`]), then block by block its chains U,
/// Q and W ([`RowIteration::block`]); the last one also the final subtraction's carry
/// chain, and the other cores their parts of it.
///
/// Z's extra bit (n = w s): the core of iteration i keeps its bit e and adds it in its
/// iteration i + p, when there is one. Until then the iterations i + 1 .. i + p - 1 run
/// on a Z that lacks e r^s; T depends on Z mod r only, so it does not change, and each
/// iteration divides the missing amount by r: iteration i + p's input lacks
/// e r^(s-p+1), with s - p + 1 >= 1 (p <= s), so T is still exact there. That
/// iteration adds e to H_(s-p), the high half of X_(s-p) Y_i, before its row P runs:
/// H <= 2^w - 2, so H + e fits in a word, and X Y_i + e r^(s-p+1) < r^(s+1), so the row
/// still ends in its top word. Every value computed meanwhile is at most the exact one,
/// so Z + P + Q < 2 M r still holds and the carries out of the top stay one bit in all.
/// The bits of iterations s - p .. s - 2 have no later iteration on their core: they
/// go through memory to the next iteration, which adds them as its Z_s; the last one
/// stays for the final subtraction.
pub(super) fn generate_rows(
    config: &Config,
    ops: &Operands<'_>,
    block: usize,
) -> Result<Program, SimError> {
    let (set, mut memory, mut c) = Setup::new(config, ops)?;
    let (s, p) = (set.s, set.p);
    // The last iteration split over the free cores, where it is (`split`).
    let tail = split::plan(s, p, block);
    let tail_at = memory.len() as Addr;
    memory.resize(memory.len() + split::tail_words(p), 0);
    for i in 0..s {
        if let (Some(parts), true) = (&tail, i + 1 == s) {
            split::emit(&set, &mut c, parts, ops.top_bit, tail_at);
            break;
        }
        let mut it = RowIteration::begin(&set, &mut c, i, ops.top_bit, block);
        it.row_p(&mut c);
        it.negation(&mut c, tail.is_none());
        for k in 0..it.starts.len() {
            it.block(&mut c, k);
        }
        it.finish(&mut c);
    }
    if tail.is_none() {
        set.other_parts(&mut c);
    }
    Ok(Program {
        cores: c.code,
        memory,
        result_regs: c.result_regs,
        result: set.result,
        registers: set.regs.total,
        in_loop: c.marks,
        urgency: c.ages,
    })
}

/// One iteration i of the row form being built: its core, where it stands in the
/// schedule, and how far its rows have got; the steps of [`generate_rows`] are its
/// methods.
pub(super) struct RowIteration<'a> {
    pub(super) set: &'a Setup,
    /// Whether Z can reach R (n = w s), so that the iterations make an extra bit.
    pub(super) top_bit: bool,
    pub(super) i: usize,
    pub(super) core: usize,
    /// The first iteration (Z = 0, so U = P).
    pub(super) fresh: bool,
    /// The last iteration (i = s - 1), which starts the final subtraction.
    pub(super) last: bool,
    /// Whether X is loaded here, two words ahead of its `Mul`: every iteration when it
    /// does not stay in registers, in the core's first iteration when it does.
    pub(super) load_x: bool,
    /// The `Mul`s of the row P emitted so far.
    pub(super) p_muls: usize,
    /// The `Mul`s of the row Q emitted so far.
    pub(super) q_muls: usize,
    /// Words of M loaded so far (the first iteration loads them two ahead of their
    /// `Mul`; the others before the wait).
    pub(super) m_loaded: usize,
    /// The first position of each block: the cuts are at the positions c with
    /// c + i = 0 mod block, so that they move down one position per iteration, as Z
    /// does (block k of U needs the words of the previous iteration up to the last one
    /// its block k made).
    pub(super) starts: Vec<usize>,
    /// The last iteration's instructions that make the words of 2^(w s) - M, not yet
    /// emitted, and how many were.
    pub(super) negate: VecDeque<Instr>,
    pub(super) negated: usize,
    /// Whether the chain D has a captured carry.
    pub(super) d_open: bool,
    /// Whether the first iteration's row P has a captured carry.
    pub(super) p_open: bool,
}

impl<'a> RowIteration<'a> {
    /// Starts iteration i (seed 002 sec. 4, Fig. 3: iteration i on core i mod p): its
    /// Y_i and M' on the core's first iteration, and the first two words of X.
    pub(super) fn begin(
        set: &'a Setup,
        c: &mut Code,
        i: usize,
        top_bit: bool,
        block: usize,
    ) -> Self {
        let core = set.begin(c, i);
        let (s, p) = (set.s, set.p);
        let fresh = i == 0;
        let it = RowIteration {
            set,
            top_bit,
            i,
            core,
            fresh,
            last: i + 1 == s,
            load_x: !set.res.x || i < p,
            p_muls: 0,
            q_muls: 0,
            m_loaded: if fresh && !set.res.m { 0 } else { s },
            starts: std::iter::once(0)
                .chain((1..=s).filter(|&t| (t + i).is_multiple_of(block)))
                .collect(),
            negate: VecDeque::new(),
            negated: 0,
            d_open: false,
            p_open: false,
        };
        if it.load_x {
            for j in 0..s.min(2) {
                it.x_load(c, j);
            }
        }
        it
    }

    /// Whether iteration i's bit is kept by its core, which runs iteration i + p.
    pub(super) fn kept(&self, i: usize) -> bool {
        self.top_bit && i + self.set.p < self.set.s
    }

    /// One past the last position of block k.
    pub(super) fn end(&self, k: usize) -> usize {
        self.starts.get(k + 1).copied().unwrap_or(self.set.s + 1)
    }

    pub(super) fn x_load(&self, c: &mut Code, j: usize) {
        let set = self.set;
        c.load(
            self.core,
            set.x_reg(j),
            set.x_at + j as Addr,
            Traffic::Operand,
        );
    }

    /// The row P's `Mul`s up to word `upto`, each X word loaded two ahead.
    pub(super) fn p_mul(&mut self, c: &mut Code, upto: usize) {
        let s = self.set.s;
        while self.p_muls < s && self.p_muls <= upto {
            let j = self.p_muls;
            c.mul(
                self.core,
                Regs::low(self.set.regs.p, j),
                self.set.x_reg(j),
                Y,
            );
            if self.load_x && j + 2 < s {
                self.x_load(c, j + 2);
            }
            self.p_muls += 1;
        }
    }

    /// The words of M up to `upto`.
    pub(super) fn m_load(&mut self, c: &mut Code, upto: usize) {
        let set = self.set;
        while self.m_loaded < set.s && self.m_loaded <= upto {
            let j = self.m_loaded;
            c.load(
                self.core,
                set.m_reg(j),
                set.m_at + j as Addr,
                Traffic::Operand,
            );
            self.m_loaded += 1;
        }
    }

    pub(super) fn p_word(&self, t: usize) -> Reg {
        self.set.regs.row_word(self.set.regs.p, t)
    }

    pub(super) fn q_word(&self, t: usize) -> Reg {
        self.set.regs.row_word(self.set.regs.q, t)
    }

    pub(super) fn u_word(&self, t: usize) -> Reg {
        if self.fresh {
            self.p_word(t)
        } else {
            self.set.regs.u + t as Reg
        }
    }

    /// Where Z_t of the previous iteration is (t = s: its bit, when it travels).
    pub(super) fn z_src(&self, t: usize) -> Option<Addr> {
        if t < self.set.s {
            Some(self.set.z_at(self.i - 1, t))
        } else if self.top_bit && !self.kept(self.i - 1) {
            Some(self.set.e_at(self.i - 1))
        } else {
            None
        }
    }

    /// The register of Z_t (ZERO when it does not come).
    pub(super) fn z_reg(&self, t: usize) -> Reg {
        if self.z_src(t).is_some() {
            self.set.regs.z + t as Reg
        } else {
            ZERO
        }
    }

    /// The row P = X Y_i, which needs no word of Z and so runs while the core waits for
    /// the previous one (seed 002 sec. 4, Table 1's `Mul`s and additions of X Y_i): its
    /// `Mul`s, the bit this core kept from iteration i - p, the chain; then the next Y
    /// and the words of M. The first iteration runs its row P with the other chains
    /// instead ([`RowIteration::u_block`]).
    pub(super) fn row_p(&mut self, c: &mut Code) {
        let (set, core, i) = (self.set, self.core, self.i);
        let (s, p) = (set.s, set.p);
        if self.fresh {
            return;
        }
        self.p_mul(c, s);
        if i >= p && self.kept(i - p) {
            // H_(s-p) + e <= 2^w - 1 (see `generate_rows`).
            let h = Regs::high(set.regs.p, s - p);
            c.add(core, h, h, EKEEP);
        }
        for t in 1..=s {
            c.emit(core, set.regs.row_op(set.regs.p, t, t == 1));
        }
        if i + p < s {
            c.load(core, Y, set.y_at + (i + p) as Addr, Traffic::Operand);
        }
        if !set.res.m {
            for j in 0..s {
                c.load(core, set.m_reg(j), set.m_at + j as Addr, Traffic::Operand);
            }
        }
    }

    /// The words of 2^(w s) - M of the last iteration's core, for its part of the
    /// conditional subtraction (seed 002 sec. 4, "a conditional substraction"), made
    /// while it waits for the words of Z: 2^w - 1 is the low half of M_0 M'
    /// (M_0 M' = -1 mod 2^w), then N_0 = 2^w - M_0, N_j = (2^w - 1) - M_j. In the last
    /// iteration each block's go just ahead of that block ([`RowIteration::block`]);
    /// when the last iteration's core has an earlier iteration (i = s - 1 - p), they
    /// are made there instead, after its loads of M (M does not change), where the core
    /// waits anyway. `shared`: the last iteration is not split ([`split`]).
    pub(super) fn negation(&mut self, c: &mut Code, shared: bool) {
        let set = self.set;
        let (s, p) = (set.s, set.p);
        let early = s > p + 1;
        let here = shared && ((self.last && !early) || (early && self.i + p + 1 == s));
        if here {
            self.negate = std::iter::once(Instr::Mul {
                rd: ONES,
                rj: set.m_reg(0),
                rk: MP,
            })
            .chain((set.own_from..s).map(|j| set.neg_m_word(j)))
            .collect();
        }
        if !self.last {
            c.in_loop = false;
            while let Some(instr) = self.negate.pop_front() {
                c.emit(self.core, instr);
            }
            c.in_loop = true;
        }
    }

    /// Block k of the iteration (positions [lo, hi)), low blocks first so that Z'_0,
    /// Z'_1, ... leave early (seed 002 sec. 4: "each word is transferred to core-2 as
    /// soon as it is generated"): the words of 2^(w s) - M it needs, U, the first block
    /// of Q when k = 0, W, the last iteration's chain D, and the next block of Q before
    /// the wait for the next words of Z.
    pub(super) fn block(&mut self, c: &mut Code, k: usize) {
        let hi = self.end(k);
        let final_block = hi == self.set.s + 1;
        // The last iteration: ONES and N_0 .. N_(hi-2), which this block's carry chain
        // reads, ahead of the wait.
        c.in_loop = false;
        while self.negated < hi {
            let Some(instr) = self.negate.pop_front() else {
                break;
            };
            c.emit(self.core, instr);
            self.negated += 1;
        }
        c.in_loop = true;
        self.u_block(c, k);
        if k == 0 {
            self.q_block(c, 0);
        }
        self.w_block(c, k);
        if self.last {
            self.d_block(c, k);
        }
        if !final_block {
            self.q_block(c, k + 1);
        }
    }

    /// U = Z + P on block k (seed 002 Table 1, the addition of Z), with T = U_0 M'
    /// (Alg. 1, line 3) as soon as U_0 is made. The first iteration (Z = 0, U = P) runs
    /// the row P's chain here instead, cut as U would be, its `Mul`s one word ahead, so
    /// that T and the first words come first.
    pub(super) fn u_block(&mut self, c: &mut Code, k: usize) {
        let (set, core) = (self.set, self.core);
        let regs = &set.regs;
        let (lo, hi) = (self.starts[k], self.end(k));
        let final_block = hi == set.s + 1;
        if self.fresh {
            if k == 0 {
                self.p_mul(c, 1);
                c.mul(core, T, self.p_word(0), MP);
            }
            let from = lo.max(1);
            if from < hi {
                if self.p_open {
                    c.restore(core, CHAIN_U);
                }
                for t in from..hi {
                    self.p_mul(c, t + 1);
                    c.emit(core, regs.row_op(regs.p, t, t == 1));
                    if t == from {
                        c.flush(core);
                    }
                }
                if !final_block {
                    c.capture(core, CHAIN_U);
                    self.p_open = true;
                }
            }
            return;
        }
        if lo > 0 {
            c.restore(core, CHAIN_U);
        }
        let load = |c: &mut Code, t: usize| {
            if t < hi {
                if let Some(addr) = self.z_src(t) {
                    c.load(core, regs.z + t as Reg, addr, Traffic::Transfer);
                }
            }
        };
        load(c, lo);
        load(c, lo + 1);
        for t in lo..hi {
            c.chain(core, t == 0, self.u_word(t), self.z_reg(t), self.p_word(t));
            if t == lo {
                c.flush(core);
            }
            if t == 1 && lo == 0 {
                c.mul(core, T, self.u_word(0), MP);
            }
            load(c, t + 2);
        }
        if !final_block {
            c.capture(core, CHAIN_U);
        } else if self.top_bit {
            c.adc(core, CTOP, ZERO, ZERO);
        }
        if k == 0 && hi == 1 {
            c.mul(core, T, self.u_word(0), MP);
        }
    }

    /// Q = M T on block k (seed 002 Table 1, the `Mul`s and additions of M T): its
    /// `Mul`s one step ahead, its chain, and its carry folded into H_(hi-1) <= 2^w - 2
    /// (no overflow) for the next block.
    pub(super) fn q_block(&mut self, c: &mut Code, k: usize) {
        let (set, core) = (self.set, self.core);
        let regs = &set.regs;
        let (lo, hi) = (self.starts[k], self.end(k));
        if k == 0 {
            self.m_load(c, 2);
            c.mul(core, Regs::low(regs.q, 0), set.m_reg(0), T);
            self.q_muls = 1;
        }
        let from = lo.max(1);
        for t in from..hi {
            while self.q_muls < set.s && self.q_muls <= t + 1 {
                let j = self.q_muls;
                self.m_load(c, j + 2);
                c.mul(core, Regs::low(regs.q, j), set.m_reg(j), T);
                self.q_muls += 1;
            }
            c.emit(core, regs.row_op(regs.q, t, t == from));
            if t == from {
                c.flush(core);
            }
        }
        if hi <= set.s && from < hi {
            let h = Regs::high(regs.q, hi - 1);
            c.adc(core, h, h, ZERO);
        }
    }

    /// Sends W_t = Z'_(t-1) to the next iteration's core (seed 002 sec. 4: Z goes from
    /// core to core through the data memory); in the last iteration, the words below
    /// its own part of the final subtraction, to the cores that take them.
    pub(super) fn send(&self, c: &mut Code, t: usize) {
        let (set, core) = (self.set, self.core);
        if t >= 1 && !self.last {
            c.store(
                core,
                set.regs.w + t as Reg,
                set.z_at(self.i, t - 1),
                Traffic::Transfer,
            );
        } else if t >= 1 && t - 1 < set.own_from {
            c.in_loop = false;
            c.store(
                core,
                set.regs.w + t as Reg,
                set.z_at(self.i, t - 1),
                Traffic::Epilogue,
            );
            c.in_loop = true;
        }
    }

    /// W = U + Q on block k (seed 002 Table 1, Alg. 1's division by 2^w): W_t is
    /// Z'_(t-1), sent as soon as it is made; the final block makes the iteration's bit
    /// e and sends it when its core does not keep it.
    pub(super) fn w_block(&mut self, c: &mut Code, k: usize) {
        let (set, core) = (self.set, self.core);
        let regs = &set.regs;
        let (lo, hi) = (self.starts[k], self.end(k));
        let final_block = hi == set.s + 1;
        if lo > 0 {
            c.restore(core, CHAIN_W);
        }
        for t in lo..hi {
            let rd = if t == 0 { JUNK } else { regs.w + t as Reg };
            c.chain(core, t == 0, rd, self.u_word(t), self.q_word(t));
            if t == lo {
                c.flush(core);
            }
            if t > lo {
                self.send(c, t - 1);
            }
        }
        let kept = self.kept(self.i);
        if !final_block {
            c.capture(core, CHAIN_W);
        } else if self.top_bit {
            let from = if self.fresh { ZERO } else { CTOP };
            c.adc(core, if kept { EKEEP } else { EOUT }, from, ZERO);
        }
        self.send(c, hi - 1);
        if final_block && self.top_bit && !kept && !self.last {
            c.store(core, EOUT, set.e_at(self.i), Traffic::Transfer);
        }
    }

    /// The last iteration's part of the conditional subtraction on block k (seed 002
    /// sec. 4): the carry chain of Z + (2^(w(s+1)) - M) on the new words, whose carry
    /// out of the top is the selector.
    pub(super) fn d_block(&mut self, c: &mut Code, k: usize) {
        let (set, core) = (self.set, self.core);
        let regs = &set.regs;
        let (lo, hi) = (self.starts[k], self.end(k));
        let final_block = hi == set.s + 1;
        c.in_loop = false;
        let from = lo.max(1).max(set.own_from + 1);
        if self.d_open && from < hi {
            c.restore(core, CHAIN_D);
        } else if from < hi && set.own_from > 0 {
            set.carry_in(c, core, set.parts - 1);
        }
        for t in from..hi {
            let j = t - 1;
            let rd = regs.d + j as Reg;
            c.chain(core, j == 0, rd, regs.w + t as Reg, regs.n + j as Reg);
            if t == from {
                c.flush(core);
            }
        }
        if final_block {
            let e = if self.top_bit { EOUT } else { ZERO };
            // Z_s + (2^w - 1): the top word of 2^(w(s+1)) - M.
            c.adc(core, JUNK, e, ONES);
            c.adc(core, SEL, ZERO, ZERO);
            if set.split {
                c.store(core, SEL, set.sel_at, Traffic::Epilogue);
            }
        } else if from < hi {
            c.capture(core, CHAIN_D);
            self.d_open = true;
        }
        c.in_loop = true;
    }

    /// Ends the iteration: the first iteration's load of its core's next Y, and in the
    /// last iteration its core's result words (seed 002 sec. 4, "a conditional
    /// substraction"): Result = Z + SEL (2^(w s) - M) mod 2^(w s), Z - M when Z >= M,
    /// else Z. The words of Z + (2^(w s) - M) are made, so each result word is
    /// Z_j + SEL E_j with E_j = D_j - Z_j mod 2^w: no carry, one `Mul`, one `Add` (and a
    /// store with write-back).
    pub(super) fn finish(&mut self, c: &mut Code) {
        let (set, core, i) = (self.set, self.core, self.i);
        if self.fresh && i + set.p < set.s {
            c.load(core, Y, set.y_at + (i + set.p) as Addr, Traffic::Operand);
        }
        c.flush(core);
        if self.last {
            c.in_loop = false;
            c.age = set.s as u32;
            let z = |j: usize| set.regs.w + (j + 1) as Reg;
            set.own_result(c, core, &z);
        }
        c.age = i as u32;
    }
}
