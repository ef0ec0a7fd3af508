//! Method-I (seed 002, sec. 4, Fig. 3): iteration i of FIOS (Alg. 1) runs on core
//! i mod p over all s words, and Z goes from core to core through the data memory, "each
//! word is transferred to core-2 as soon as it is generated".
//!
//! The next iteration can start as soon as the lowest new word Z'_0 has arrived, so the
//! program is built to make the low words early. One iteration, with one carry flag
//! (seed 002, Table 1), on positions 0..=s:
//!
//! ```text
//! P = X Y_i       s Mul, s additions (P_t = L_t + H_(t-1) + Ca; no Z needed)
//! U = Z + P       s + 1 additions; U_0 = (Z_0 + P_0) mod 2^w is T's addition
//! T = U_0 M'      1 Mul (Alg. 1, line 3)
//! Q = M T         s Mul, s additions
//! W = U + Q       s + 1 additions; W_0 = 0, Z'_(t-1) = W_t (the division by 2^w)
//! ```
//!
//! The row P needs neither Z nor T, so it (and the loads of M and of the next Y_i) goes
//! ahead of the wait for the previous core's words. The chains U, Q and W are cut into
//! blocks of [`BLOCK`] positions: the low block of each runs first (U, then Q, then W),
//! so that Z'_0, Z'_1, ... leave after about 2 [`BLOCK`] additions, not after three whole
//! chains. At a cut a chain's carry is captured (`Adc c = 0 + 0 + Ca`) and put back at
//! the start of its next block (`Sub n = 0 - c`; `Add n + n` carries exactly when
//! c = 1). The row Q is cut once, after its low block, and its carry is folded into the
//! high half H_(k-1) (`Adc H = H + 0 + Ca`, no overflow: a high half is at most
//! 2^w - 2). The rest of Q runs right after the low block of W; U and W then go block by
//! block.
//!
//! Z's extra bit. When n = w s, Z < 2M can reach R = 2^(w s), so an iteration makes a
//! bit e of weight r^s (r = 2^w) beside its s words: the carries out of the top of U and
//! of W (their sum is at most 1, because Z + P + Q < 2 M r < 2 r^(s+1)). The core keeps
//! that bit and adds it in its own next iteration, i + p, instead of sending it along
//! (see `generate_rows` for the bound); the bits of the last p - 1 iterations, which have
//! no later iteration on their core, go to the next core through memory as Z_s.
//!
//! The first iteration (Z = 0, so U = P) runs its row P in blocks beside Q and W, its
//! `Mul`s one word ahead, so that T (which needs only X_0 Y_0) and the first words of Z
//! come first; each core loads X (when it stays in registers) two words ahead of its
//! `Mul`s in its first iteration, and M' with its first Y.
//!
//! From 3 cores the last iteration is split over the cores that have finished, as
//! method-II splits every iteration, and the conditional subtraction runs on its parts
//! (module `split`). Otherwise the conditional subtraction (seed 002, sec. 4: "After
//! sixteen iterations and a conditional substraction") is shared by the p cores
//! (p >= 2, s >= 2p; one core otherwise): core q takes the result words
//! [q s / p, (q + 1) s / p), and the last iteration's core takes the top part, whose
//! words it holds in its registers. It sends the lower words to the other cores as it
//! makes them (the last iteration stores no other word). Each core makes its words of
//! 2^(w s) - M from the words of M in its registers (2^w - 1 is the low half of M_0 M',
//! since M' M_0 = -1 mod 2^w; 2^w - M_0, then (2^w - 1) - M_j, one `Sub` each), runs
//! the carry chain D = Z + (2^(w s) - M) on its words, from the carry of the core below
//! and to the core above, through memory; the last core's carry out of
//! Z + (2^(w(s+1)) - M) is 1 exactly when Z >= M, and is sent to every core as the
//! selector c. Each result word is Z_j + c (D_j - Z_j) mod 2^w (`Sub`, `Mul` by c,
//! `Add`: no carry crosses a word), made in a register of its core, where it stays;
//! with write-back ([`Config::write_back`]) the core also stores it. Its top word is 0
//! (the result is below M): it is not made, and the data memory already holds it.

use std::collections::VecDeque;

use super::emit::Emit;
use super::isa::{Addr, Instr, Reg, Traffic};
use super::program::{Operands, Program, Residency, MP, SCRATCH_REGISTERS, T, Y, ZERO};
use super::Config;
use crate::SimError;

mod split;

/// Positions per carry block of an iteration. The smallest size with the fewest cycles
/// on 4 cores at n = 256, w = 16, S_rf = 16, over 2..=32 (test
/// `method_i_block_is_the_best_on_4_cores`, docs/ARCHITECTURES.md).
pub const BLOCK: usize = 7;

// Named datapath registers (outside S_rf): ZERO, MP, Y and T as in `program`, then
// method-I's own.
const ONES: Reg = 5; // and 6, the high half of M_0 M' (unused)
const JUNK: Reg = 7;
const FLAG: Reg = 8;
const CTOP: Reg = 9;
const EKEEP: Reg = 10;
const EOUT: Reg = 11;
const SEL: Reg = 12;
/// Captured carries of the chains U, W and D at a cut, and their negations.
const CARRY: [Reg; 3] = [13, 14, 15];
const NEG: [Reg; 3] = [16, 17, 18];
const CHAIN_U: usize = 0;
const CHAIN_W: usize = 1;
const CHAIN_D: usize = 2;

/// The register blocks after the S_rf registers.
#[derive(Clone, Copy)]
struct Regs {
    s: usize,
    /// X words loaded for the row P (when X does not stay), s.
    x: Reg,
    /// M words loaded for the row Q (when M does not stay), s.
    m: Reg,
    /// Products of the row P (L_t, H_t), 2s, then P_s.
    p: Reg,
    /// Products of the row Q, 2s, then Q_s.
    q: Reg,
    /// Z words from the previous iteration, and its top bit: s + 1.
    z: Reg,
    /// U, s + 1.
    u: Reg,
    /// W, s + 1 (W_t is Z'_(t-1)).
    w: Reg,
    /// The words of 2^(w s) - M, s.
    n: Reg,
    /// Products carry (2^(w s) - M)_j, 2s.
    v: Reg,
    /// Result words, s.
    r: Reg,
    /// Words of Z received for the final subtraction, s.
    zl: Reg,
    /// Words of Z + (2^(w s) - M), s.
    d: Reg,
    /// Their differences from Z's words, s.
    e: Reg,
    total: usize,
}

impl Regs {
    fn new(registers: usize, s: usize) -> Self {
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
    fn low(base: Reg, t: usize) -> Reg {
        base + 2 * t as Reg
    }

    /// High half of row product t.
    fn high(base: Reg, t: usize) -> Reg {
        base + 2 * t as Reg + 1
    }

    /// Row word t of a row at `base` (t = s: the top word).
    fn row_word(&self, base: Reg, t: usize) -> Reg {
        base + 2 * t as Reg
    }

    /// The chain instruction that makes row word t (1 <= t <= s): L_t + H_(t-1) + Ca,
    /// or H_(s-1) + Ca for the top word. `first`: `Add` instead of `Adc`.
    fn row_op(&self, base: Reg, t: usize, first: bool) -> Instr {
        self.row_op_to(base, t, self.s, first)
    }

    /// [`Regs::row_op`] for a row whose products end below position `top` (a part of
    /// the split last iteration): H_(top-1) + Ca at t = top.
    fn row_op_to(&self, base: Reg, t: usize, top: usize, first: bool) -> Instr {
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

/// The instruction streams being built, with each instruction's loop/epilogue mark.
struct Code {
    code: Vec<Vec<Instr>>,
    marks: Vec<Vec<bool>>,
    /// Whether instructions emitted now belong to the loop.
    in_loop: bool,
    /// Each instruction's urgency for the packer: the iteration it serves.
    ages: Vec<Vec<u32>>,
    /// The iteration the instructions emitted now serve.
    age: u32,
    /// Per core: `Sub`s that wait one instruction before they are emitted (so that the
    /// captured carry they read is ready).
    pending: Vec<Vec<Instr>>,
    /// Where each of the s result words is made: (core, register).
    result_regs: Vec<(usize, Reg)>,
}

impl Emit for Code {
    fn emit(&mut self, core: usize, instr: Instr) {
        self.code[core].push(instr);
        self.marks[core].push(self.in_loop);
        self.ages[core].push(self.age);
    }
}

impl Code {
    fn flush(&mut self, core: usize) {
        let pending = std::mem::take(&mut self.pending[core]);
        for instr in pending {
            self.emit(core, instr);
        }
    }

    /// `Add` or `Adc` (`first`: the chain starts here, no carry in).
    fn chain(&mut self, core: usize, first: bool, rd: Reg, rj: Reg, rk: Reg) {
        if first {
            self.add(core, rd, rj, rk);
        } else {
            self.adc(core, rd, rj, rk);
        }
    }

    /// Saves chain k's carry at a cut: `Adc c = 0 + 0 + Ca`, and (one instruction
    /// later) n = 0 - c, for [`Code::restore`].
    fn capture(&mut self, core: usize, k: usize) {
        self.adc(core, CARRY[k], ZERO, ZERO);
        self.pending[core].push(Instr::Sub {
            rd: NEG[k],
            rj: ZERO,
            rk: CARRY[k],
        });
    }

    /// Puts chain k's saved carry back into the flag: n + n with n = 0 - c carries
    /// exactly when c = 1 (2 (2^w - 1) >= 2^w; 0 + 0 does not).
    fn restore(&mut self, core: usize, k: usize) {
        self.flush(core);
        self.add(core, FLAG, NEG[k], NEG[k]);
    }
}

/// What both forms of method-I share before their iterations: the registers, the data
/// memory's layout, and how the final subtraction is split between the cores.
struct Setup {
    s: usize,
    p: usize,
    res: Residency,
    regs: Regs,
    x_at: Addr,
    y_at: Addr,
    m_at: Addr,
    mp_at: Addr,
    z_at0: Addr,
    e_at0: Addr,
    /// The result in memory, with write-back.
    result: Option<Addr>,
    carry_at0: Addr,
    sel_at: Addr,
    /// Whether the final subtraction is split between the cores.
    split: bool,
    /// How many cores take part in the final subtraction.
    parts: usize,
    /// The first result word of the last iteration's core.
    own_from: usize,
}

impl Setup {
    /// The layout for `config` and `ops`, the data memory, and the code with each core's
    /// loads of its resident words of M (resident X and M' are loaded in the core's first
    /// iteration, as its row P and T need them).
    fn new(config: &Config, ops: &Operands<'_>) -> Result<(Self, Vec<u64>, Code), SimError> {
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
    fn begin(&self, c: &mut Code, i: usize) -> usize {
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
    fn range(&self, q: usize) -> (usize, usize) {
        (q * self.s / self.parts, (q + 1) * self.s / self.parts)
    }

    /// Where iteration i's word Z'_j goes.
    fn z_at(&self, i: usize, j: usize) -> Addr {
        self.z_at0 + (i * self.s + j) as Addr
    }

    /// Where iteration i's bit e goes.
    fn e_at(&self, i: usize) -> Addr {
        self.e_at0 + i as Addr
    }

    /// Where the final subtraction's carry into participant q goes.
    fn carry_at(&self, q: usize) -> Addr {
        self.carry_at0 + q as Addr
    }

    /// The register of X_j.
    fn x_reg(&self, j: usize) -> Reg {
        if self.res.x {
            SCRATCH_REGISTERS as Reg + j as Reg
        } else {
            self.regs.x + j as Reg
        }
    }

    /// The register of M_j.
    fn m_reg(&self, j: usize) -> Reg {
        if self.res.m {
            SCRATCH_REGISTERS as Reg + (usize::from(self.res.x) * self.s + j) as Reg
        } else {
            self.regs.m + j as Reg
        }
    }

    /// Word j of 2^(w s) - M: N_0 = 0 - M_0, N_j = (2^w - 1) - M_j (ONES holds 2^w - 1).
    fn neg_m_word(&self, j: usize) -> Instr {
        Instr::Sub {
            rd: self.regs.n + j as Reg,
            rj: if j == 0 { ZERO } else { ONES },
            rk: self.m_reg(j),
        }
    }

    /// The carry from the part below (participant q - 1) into the flag:
    /// c + (2^w - 1) carries exactly when c = 1.
    fn carry_in(&self, c: &mut Code, core: usize, q: usize) {
        c.load(core, CARRY[CHAIN_D], self.carry_at(q), Traffic::Epilogue);
        c.add(core, FLAG, CARRY[CHAIN_D], ONES);
    }

    /// The last iteration's core's result words [own_from, s), from its differences and
    /// the selector (`z`: the registers of Z's words).
    fn own_result(&self, c: &mut Code, core: usize, z: &dyn Fn(usize) -> Reg) {
        let words = (self.own_from, self.s);
        differences(c, &self.regs, core, words, z);
        select(c, &self.regs, self.result, core, words, z);
    }

    /// The other cores' part of the final subtraction, on the last iteration's words
    /// [a, b): their words of 2^(w s) - M (from their own words of M), the carry chain
    /// of Z + (2^(w s) - M) on them, from and to the neighbouring parts, then the
    /// selector from the last core and the result words.
    fn other_parts(&self, c: &mut Code) {
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

/// Which form of method-I to build: the row form with its chains cut into blocks
/// ([`generate`]), or the column form ([`generate_columns`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// The row form, its carry chains cut every so many positions (at least 2; 2s or
    /// more means no cut, since the cuts move down one position per iteration).
    Rows(usize),
    /// The column form, word by word.
    Columns,
}

impl Default for Block {
    /// The row form cut every [`BLOCK`] positions.
    fn default() -> Self {
        Block::Rows(BLOCK)
    }
}

/// Generates method-I for `config`: the row form with its chains cut every `n`
/// positions for [`Block::Rows`]`(n)`, the column form ([`generate_columns`]) for
/// [`Block::Columns`].
pub fn generate(config: &Config, ops: &Operands<'_>, block: Block) -> Result<Program, SimError> {
    match block {
        Block::Rows(block) => generate_rows(config, ops, block.max(2)),
        Block::Columns => generate_columns(config, ops),
    }
}

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
fn generate_rows(config: &Config, ops: &Operands<'_>, block: usize) -> Result<Program, SimError> {
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
struct RowIteration<'a> {
    set: &'a Setup,
    /// Whether Z can reach R (n = w s), so that the iterations make an extra bit.
    top_bit: bool,
    i: usize,
    core: usize,
    /// The first iteration (Z = 0, so U = P).
    fresh: bool,
    /// The last iteration (i = s - 1), which starts the final subtraction.
    last: bool,
    /// Whether X is loaded here, two words ahead of its `Mul`: every iteration when it
    /// does not stay in registers, in the core's first iteration when it does.
    load_x: bool,
    /// The `Mul`s of the row P emitted so far.
    p_muls: usize,
    /// The `Mul`s of the row Q emitted so far.
    q_muls: usize,
    /// Words of M loaded so far (the first iteration loads them two ahead of their
    /// `Mul`; the others before the wait).
    m_loaded: usize,
    /// The first position of each block: the cuts are at the positions c with
    /// c + i = 0 mod block, so that they move down one position per iteration, as Z
    /// does (block k of U needs the words of the previous iteration up to the last one
    /// its block k made).
    starts: Vec<usize>,
    /// The last iteration's instructions that make the words of 2^(w s) - M, not yet
    /// emitted, and how many were.
    negate: VecDeque<Instr>,
    negated: usize,
    /// Whether the chain D has a captured carry.
    d_open: bool,
    /// Whether the first iteration's row P has a captured carry.
    p_open: bool,
}

impl<'a> RowIteration<'a> {
    /// Starts iteration i (seed 002 sec. 4, Fig. 3: iteration i on core i mod p): its
    /// Y_i and M' on the core's first iteration, and the first two words of X.
    fn begin(set: &'a Setup, c: &mut Code, i: usize, top_bit: bool, block: usize) -> Self {
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
    fn kept(&self, i: usize) -> bool {
        self.top_bit && i + self.set.p < self.set.s
    }

    /// One past the last position of block k.
    fn end(&self, k: usize) -> usize {
        self.starts.get(k + 1).copied().unwrap_or(self.set.s + 1)
    }

    fn x_load(&self, c: &mut Code, j: usize) {
        let set = self.set;
        c.load(
            self.core,
            set.x_reg(j),
            set.x_at + j as Addr,
            Traffic::Operand,
        );
    }

    /// The row P's `Mul`s up to word `upto`, each X word loaded two ahead.
    fn p_mul(&mut self, c: &mut Code, upto: usize) {
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
    fn m_load(&mut self, c: &mut Code, upto: usize) {
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

    fn p_word(&self, t: usize) -> Reg {
        self.set.regs.row_word(self.set.regs.p, t)
    }

    fn q_word(&self, t: usize) -> Reg {
        self.set.regs.row_word(self.set.regs.q, t)
    }

    fn u_word(&self, t: usize) -> Reg {
        if self.fresh {
            self.p_word(t)
        } else {
            self.set.regs.u + t as Reg
        }
    }

    /// Where Z_t of the previous iteration is (t = s: its bit, when it travels).
    fn z_src(&self, t: usize) -> Option<Addr> {
        if t < self.set.s {
            Some(self.set.z_at(self.i - 1, t))
        } else if self.top_bit && !self.kept(self.i - 1) {
            Some(self.set.e_at(self.i - 1))
        } else {
            None
        }
    }

    /// The register of Z_t (ZERO when it does not come).
    fn z_reg(&self, t: usize) -> Reg {
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
    fn row_p(&mut self, c: &mut Code) {
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
    fn negation(&mut self, c: &mut Code, shared: bool) {
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
    fn block(&mut self, c: &mut Code, k: usize) {
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
    fn u_block(&mut self, c: &mut Code, k: usize) {
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
    fn q_block(&mut self, c: &mut Code, k: usize) {
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
    fn send(&self, c: &mut Code, t: usize) {
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
    fn w_block(&mut self, c: &mut Code, k: usize) {
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
    fn d_block(&mut self, c: &mut Code, k: usize) {
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
    fn finish(&mut self, c: &mut Code) {
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

/// Method-I in column form (seed 002, Alg. 1 word by word, as sec. 4 describes core-1
/// making "Z_0 to Z_15 one by one"): iteration i runs on core i mod p, word j by word j,
/// with two carry words, C1 for X Y_i and C2 for M T (each word's sum is below r^2,
/// so a carry word never overflows):
///
/// ```text
/// word 0:  t = P_0 + Z_0; C1 = PH_0 + Ca; T = t M'; C2 = QH_0 + carry(t + QL_0)
/// word j:  u = QL_j + C2; C2' = QH_j + Ca; t = PL_j + C1; C1' = PH_j + Ca;
///          t = t + Z_j; C1 = C1' + Ca; u = u + t; C2 = C2' + Ca; store u (Z'_(j-1))
/// top:     Z'_(s-1) = C1 + C2 (+ Z_s), and Z'_s its carry
/// ```
///
/// 8 additions, 2 `Mul`s, 2 loads (M_j, Z_j) and a store per word, ordered so that the
/// next word's loads and products fill the slots between the dependent additions. The
/// first iteration (Z = 0) and the shared final subtraction are as in [`generate`];
/// X is loaded word by word in the first iteration and up front in each core's first
/// iteration otherwise. Z's extra bit (n = w s) goes to the next core through memory
/// with the words, in every iteration: a core cannot keep it as in [`generate`], since
/// here Z and X Y_i share the carry word C1, and a bit added to a high half could make
/// C1 reach 2^w.
pub fn generate_columns(config: &Config, ops: &Operands<'_>) -> Result<Program, SimError> {
    let (set, memory, mut c) = Setup::new(config, ops)?;
    let (s, p, res) = (set.s, set.p, set.res);
    let regs = &set.regs;
    // Carry words: C1 and C2 out of each word, and their first halves.
    let k1 = regs.total as Reg;
    let k1n = k1 + s as Reg;
    let k2 = k1n + s as Reg;
    let k2n = k2 + s as Reg;
    let total = regs.total + 4 * s;
    let (result, sel_at) = (set.result, set.sel_at);
    let (split, parts, own_from) = (set.split, set.parts, set.own_from);
    let top_bit = ops.top_bit;
    let pl = |j: usize| Regs::low(regs.p, j);
    let ph = |j: usize| Regs::high(regs.p, j);
    let ql = |j: usize| Regs::low(regs.q, j);
    let qh = |j: usize| Regs::high(regs.q, j);
    let tr = |j: usize| regs.u + j as Reg;
    // u(j) is Z'_(j-1); u(s) is Z'_(s-1).
    let ur = |j: usize| regs.w + j as Reg;
    let zr = |j: usize| regs.z + j as Reg;
    for i in 0..s {
        let core = set.begin(&mut c, i);
        let fresh = i == 0;
        let last = i + 1 == s;
        let c1 = |j: usize| {
            if fresh && j == 0 {
                ph(0)
            } else {
                k1 + j as Reg
            }
        };
        let load_x = !res.x || i < p;
        let load_m = !res.m;
        // X is loaded word by word in the first iteration, which waits for nothing,
        // and up front (while the core waits for the previous iteration) elsewhere.
        let x_ahead = load_x && !fresh;
        if x_ahead {
            for j in 0..s {
                c.load(core, set.x_reg(j), set.x_at + j as Addr, Traffic::Operand);
            }
        }
        let lx = |c: &mut Code, j: usize| {
            if load_x && !x_ahead && j < s {
                c.load(core, set.x_reg(j), set.x_at + j as Addr, Traffic::Operand);
            }
        };
        let lm = |c: &mut Code, j: usize| {
            if load_m && j < s {
                c.load(core, set.m_reg(j), set.m_at + j as Addr, Traffic::Operand);
            }
        };
        let lz = |c: &mut Code, j: usize| {
            if !fresh {
                c.load(core, zr(j), set.z_at(i - 1, j), Traffic::Transfer);
            }
        };
        let mul_p = |c: &mut Code, j: usize| {
            if j < s {
                c.mul(core, pl(j), set.x_reg(j), Y);
            }
        };
        let mul_q = |c: &mut Code, j: usize| {
            if j < s {
                c.mul(core, ql(j), set.m_reg(j), T);
            }
        };
        // Z'_(j-1) = u(j): sent on, or (last iteration) kept or sent for the final
        // subtraction.
        let send = |c: &mut Code, j: usize| {
            if !last {
                c.store(core, ur(j), set.z_at(i, j - 1), Traffic::Transfer);
            } else if j - 1 < own_from {
                c.in_loop = false;
                c.store(core, ur(j), set.z_at(i, j - 1), Traffic::Epilogue);
                c.in_loop = true;
            }
        };
        // Word 0 and T.
        lx(&mut c, 0);
        lx(&mut c, 1);
        lm(&mut c, 0);
        mul_p(&mut c, 0);
        lz(&mut c, 0);
        lm(&mut c, 1);
        let t0 = if fresh {
            pl(0)
        } else {
            c.add(core, tr(0), pl(0), zr(0));
            c.adc(core, c1(0), ph(0), ZERO);
            tr(0)
        };
        mul_p(&mut c, 1);
        c.mul(core, T, t0, MP);
        lx(&mut c, 2);
        lm(&mut c, 2);
        mul_q(&mut c, 0);
        mul_q(&mut c, 1);
        lx(&mut c, 3);
        c.add(core, JUNK, ql(0), t0);
        c.adc(core, k2, qh(0), ZERO);
        for j in 1..s {
            c.add(core, ur(j), ql(j), k2 + (j - 1) as Reg);
            c.adc(core, k2n + j as Reg, qh(j), ZERO);
            c.add(core, tr(j), pl(j), c1(j - 1));
            if fresh {
                c.adc(core, c1(j), ph(j), ZERO);
            } else {
                lz(&mut c, j);
                c.adc(core, k1n + j as Reg, ph(j), ZERO);
                c.add(core, tr(j), tr(j), zr(j));
                c.adc(core, c1(j), k1n + j as Reg, ZERO);
            }
            c.add(core, ur(j), ur(j), tr(j));
            c.adc(core, k2 + j as Reg, k2n + j as Reg, ZERO);
            send(&mut c, j);
            mul_q(&mut c, j + 1);
            mul_p(&mut c, j + 1);
            lm(&mut c, j + 2);
            lx(&mut c, j + 3);
        }
        // The top: Z'_(s-1) = C1 + C2 (+ Z_s when it travels), Z'_s its carry.
        let c2_top = k2 + (s - 1) as Reg;
        let travels = !fresh && top_bit;
        let e_dst = EOUT;
        if travels {
            c.load(core, zr(s), set.e_at(i - 1), Traffic::Transfer);
            c.add(core, ur(s), c1(s - 1), zr(s));
            c.adc(core, e_dst, ZERO, ZERO);
            c.add(core, ur(s), ur(s), c2_top);
            c.adc(core, e_dst, e_dst, ZERO);
        } else {
            c.add(core, ur(s), c1(s - 1), c2_top);
            if top_bit {
                c.adc(core, e_dst, ZERO, ZERO);
            }
        }
        send(&mut c, s);
        if top_bit && !last {
            c.store(core, EOUT, set.e_at(i), Traffic::Transfer);
        }
        if i + p < s {
            c.load(core, Y, set.y_at + (i + p) as Addr, Traffic::Operand);
        }
        if last {
            // The last core's part of the final subtraction: its words of 2^(w s) - M,
            // the carry chain of Z + (2^(w(s+1)) - M) from the part below, the selector.
            c.in_loop = false;
            c.age = s as u32;
            c.mul(core, ONES, set.m_reg(0), MP);
            for j in own_from..s {
                c.emit(core, set.neg_m_word(j));
            }
            if own_from > 0 {
                set.carry_in(&mut c, core, parts - 1);
            }
            for j in own_from..s {
                c.chain(
                    core,
                    j == 0,
                    regs.d + j as Reg,
                    ur(j + 1),
                    regs.n + j as Reg,
                );
            }
            let e = if top_bit { EOUT } else { ZERO };
            c.adc(core, JUNK, e, ONES);
            c.adc(core, SEL, ZERO, ZERO);
            if split {
                c.store(core, SEL, sel_at, Traffic::Epilogue);
            }
            let z = |j: usize| ur(j + 1);
            set.own_result(&mut c, core, &z);
        }
    }
    set.other_parts(&mut c);
    Ok(Program {
        cores: c.code,
        memory,
        result_regs: c.result_regs,
        result,
        registers: total,
        in_loop: c.marks,
        urgency: c.ages,
    })
}

/// The final subtraction's differences E_j = D_j - Z_j mod 2^w for the result words
/// [a, b) (`z`: the registers of Z's words).
fn differences(
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
fn select(
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
