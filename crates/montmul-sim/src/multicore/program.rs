//! Program generators: FIOS (seed 002, Alg. 1) for one core and method-II; method-I has
//! its own generator, [`super::method_one`], which [`generate`] calls.
//!
//! Both are built from one routine, `Builder::iteration`: one core runs one
//! iteration of the outer loop on a slice [a, b) of q words of Z, X and M, row by row,
//! with the one carry flag of the ISA (seed 002, Table 1):
//!
//! ```text
//! P = X Y_i     q Mul (each a double word), q additions: P_t = L_t + H_(t-1) + Ca
//! S = Z_0 + P_0 one Add; T = S M' mod 2^w: one Mul (Alg. 1, line 3; core 0 only)
//! Q = M T       q Mul, q additions
//! V = P + Q     q + 1 additions (Add, then Adc)
//! Z' = Z + V    q additions and one for the carry into the top word
//! ```
//!
//! That is 2 `Mul` and 4 additions per word, as the seed counts (N_mul = 2s^2 + s, N_add
//! = 4s^2 + s), and 3 more additions per iteration: T's, and the carries out of the top
//! words of P, Q and Z + V less the one the top word of V absorbs. Fewer is not possible
//! with one flag: every word position between 1 and q - 1 gathers five words (Z, two
//! low and two high halves of products), so four additions, each with a carry into the
//! position above, and the top position needs one addition per incoming carry. In the
//! first iteration Z = 0: no S and no Z + V (3q + 1 additions).
//!
//! A row's additions cannot carry out of its top word (a high half is at most 2^w - 2);
//! nor can the top addition of V or of Z + V when the slice is the top one and n < w s
//! (then the whole sum is below 2^(w(s+1))). Otherwise the carry past the top goes into
//! E_hi, a register of the core.
//!
//! Carries stay in the core that made them (seed 002, sec. 4): the slice's top word and
//! E_hi (weight b) stay in that core as its own words, and the boundary word from the
//! core above (its lowest new word, which has the weight of this core's top word) is
//! added at the end of the next iteration (3 additions). The accumulator is a window of
//! q + 1 registers that turns by one register per iteration, so that the shift of Z
//! (the division by r) moves nothing. For the top slice E_hi is Z's extra bit Z_s (Z <
//! 2M may exceed R when n = w s).
//!
//! After the loop an epilogue (`Builder::epilogue`) adds the carries in, with the
//! carries rippling up from core to core, subtracts M when Z >= M (the carry of Z +
//! (2^(w(s+1)) - M), rippling up the same way and sent back to every core, which
//! selects each of its words with a `Mul`, since the ISA has no branch) into registers
//! of its own, where the s + 1 words of the result stay (and, with write-back, are
//! stored).

use super::emit::Emit;
use super::isa::{Addr, Instr, Reg, Traffic};
use super::{method_one, Config, Method};
use crate::SimError;

/// Named registers of the datapath in every core, beside the S_rf registers that hold
/// words of X and M and the blocks for the accumulator and the rows (the seed's S_rf
/// counts only words of X, M and Z).
pub const SCRATCH_REGISTERS: usize = 24;

// The scratch registers. `Mul` writes a pair (r, r + 1).
pub(super) const ZERO: Reg = 0;
pub(super) const MP: Reg = 1;
pub(super) const Y: Reg = 2;
pub(super) const T: Reg = 3; // and 4: the high word of (Z_0 + X_0 Y_i) M', unused
const L1: Reg = 5;
const L2: Reg = 7;
const S: Reg = 9;
const C: Reg = 10;
const BB: Reg = 11;
const ELO: Reg = 12;
const EHI: Reg = 13;
const XT: Reg = 14;
const MT: Reg = 15;
const ZT: Reg = 16;
const BT: Reg = 17;
const U: Reg = 18; // and 19
const NC: Reg = 20;
const DC: Reg = 21;
const DC2: Reg = 22;
const D: Reg = 23;
/// V's carry past the slice's top word, until it joins E_hi (the epilogue's DC is free
/// during the loop).
const VH: Reg = DC;

// The epilogue works on two words at a time; the loop's registers are free by then.
// Temporaries for loaded words, constants, sums, selection products (with r + 1) and
// results, for the first and the second word.
const PAIR_X: [Reg; 2] = [XT, ZT];
const PAIR_M: [Reg; 2] = [MT, BT];
const PAIR_D: [Reg; 2] = [D, C];
const PAIR_U: [Reg; 2] = [U, L1];
const PAIR_S: [Reg; 2] = [S, BB];

/// Where an input word comes from.
#[derive(Clone, Copy, Debug)]
enum Src {
    Zero,
    Reg(Reg),
    Mem(Addr, Traffic),
}

/// Where an output word goes.
#[derive(Clone, Copy, Debug)]
enum Dst {
    Drop,
    Reg(Reg),
    Mem(Addr, Traffic),
}

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

/// One iteration of one core on the words [a, b) (q = b - a words).
struct Iteration {
    i: usize,
    /// The iteration this core runs next, whose Y_i it loads as soon as the row P no
    /// longer needs the register.
    next: Option<usize>,
    /// Whether this is the core's first iteration (whose Y_i is loaded at its start).
    first: bool,
    x: Vec<Src>,
    m: Vec<Src>,
    /// Z_j for j in a..b: q words, the top one the core's own carry word.
    z: Vec<Src>,
    /// The boundary word from the core above, of weight b - 1 (Zero for the top core).
    top: Src,
    /// The core's carry bits of weight b (E_hi), or Zero where none can exist.
    e_hi: Src,
    /// Whether the slice's sum can carry past its top word (so that E_hi is made).
    overflow: bool,
    /// T: computed here (with M' in `MP`) or loaded.
    t_load: Option<Addr>,
    t_store: Option<Addr>,
    /// The accumulator: q + 1 registers for the positions a..=b.
    acc: Vec<Reg>,
    /// First register of the two row buffers (q + 1 contiguous registers each).
    rows: [Reg; 2],
    /// New word a - 1 (`low`) and new words a..b (`z_out`, q of them).
    low: Dst,
    z_out: Vec<Dst>,
    e_hi_out: Dst,
}

/// The registers of the accumulator, the two row buffers and the result, after the
/// S_rf registers.
#[derive(Clone, Copy)]
struct Blocks {
    /// The first registers of the rows P and Q (s + 1 each).
    rows: [Reg; 2],
    /// The first register of the accumulator window (s + 1).
    window: Reg,
    /// The first register of the result words (s + 1; a core uses those of its slice).
    result: Reg,
}

impl Blocks {
    fn new(registers: usize, s: usize) -> Self {
        let base = (SCRATCH_REGISTERS + registers) as Reg;
        let len = (s + 1) as Reg;
        Blocks {
            rows: [base, base + len],
            window: base + 2 * len,
            result: base + 3 * len,
        }
    }

    /// Register t of a window of q + 1 registers (taken modulo q + 1).
    fn window(&self, t: usize, q: usize) -> Reg {
        self.window + (t % (q + 1)) as Reg
    }

    /// Registers per core for S_rf = `registers` and s words.
    fn total(registers: usize, s: usize) -> usize {
        SCRATCH_REGISTERS + registers + 4 * (s + 1)
    }
}

/// A generated program: one instruction stream per core, the initial data memory, and
/// where the words of the result will be.
#[derive(Clone, Debug)]
pub struct Program {
    /// One instruction stream per core.
    pub cores: Vec<Vec<Instr>>,
    /// The data memory before the run.
    pub memory: Vec<u64>,
    /// The registers that hold the result's words when the program ends, lowest word
    /// first: (core, register) (s or s + 1 words; a top word, when there is one, is 0).
    pub result_regs: Vec<(usize, Reg)>,
    /// With write-back ([`Config::write_back`]): the address of the result in the data
    /// memory (s + 1 words, the top one zero).
    pub result: Option<Addr>,
    /// Registers per core (single core and method-II: [`SCRATCH_REGISTERS`] + S_rf +
    /// 4 (s + 1), the accumulator, the two rows of products and the result).
    pub registers: usize,
    /// Per core and instruction, whether it belongs to the loop (seed 002's counts) or
    /// to the epilogue (the final carries and conditional subtraction).
    pub in_loop: Vec<Vec<bool>>,
    /// Per core and instruction, how urgent it is for the packer (lower first; empty:
    /// all alike, the cores take turns).
    pub urgency: Vec<Vec<u32>>,
}

/// The words of the operands, as the generator needs them (little-endian, s words).
pub struct Operands<'a> {
    /// X.
    pub x: &'a [u64],
    /// Y.
    pub y: &'a [u64],
    /// M.
    pub m: &'a [u64],
    /// M' = -M^-1 mod 2^w.
    pub m_prime: u64,
    /// 2^(w(s+1)) - M, s + 1 words.
    pub neg_m: &'a [u64],
    /// Whether Z can reach R (n = w s), so that its extra top bit must travel.
    pub top_bit: bool,
}

/// Generates the program of `config` for these operands (method-I with its carry chains
/// in the form `block` says: [`super::method_one`]).
pub fn generate(
    config: &Config,
    ops: &Operands<'_>,
    block: method_one::Block,
) -> Result<Program, SimError> {
    let s = ops.m.len();
    let mut b = Builder {
        memory: Vec::new(),
        code: vec![Vec::new(); config.cores],
    };
    let x = b.place(ops.x);
    let y = b.place(ops.y);
    let m = b.place(ops.m);
    let mp = b.place(&[ops.m_prime]);
    let neg_m = b.place(ops.neg_m);
    let layout = Layout { x, y, m, mp, neg_m };
    let parts = match config.method {
        Method::SingleCore | Method::MethodII => b.sliced(config, s, &layout, ops.top_bit)?,
        Method::MethodI => return method_one::generate(config, ops, block),
    };
    let loop_end: Vec<usize> = b.code.iter().map(Vec::len).collect();
    let blocks = Blocks::new(config.registers, s);
    let (result, result_regs) = b.epilogue(&parts, s, config, &layout, blocks.result);
    let in_loop = b
        .code
        .iter()
        .zip(loop_end)
        .map(|(code, end)| (0..code.len()).map(|k| k < end).collect())
        .collect();
    Ok(Program {
        cores: b.code,
        memory: b.memory,
        result_regs,
        result,
        registers: Blocks::total(config.registers, s),
        in_loop,
        urgency: Vec::new(),
    })
}

/// Where a core finds the words of its slice of X and M.
struct Placement {
    x: Vec<Src>,
    m: Vec<Src>,
}

/// One core's share of a sliced schedule.
struct SlicePlan {
    a: usize,
    b: usize,
    res: Residency,
    place: Placement,
}

struct Layout {
    x: Addr,
    y: Addr,
    m: Addr,
    mp: Addr,
    neg_m: Addr,
}

/// What one core holds of Z after the loop: the words [a, b), the stored part of its top
/// word b - 1 (the boundary word from the next core, or nothing), and its E.
struct Part {
    core: usize,
    a: usize,
    b: usize,
    /// Words a..b-1 (the top word is `top` plus E_lo).
    words: Vec<Src>,
    top: Src,
    e_lo: Src,
    e_hi: Src,
}

struct Builder {
    memory: Vec<u64>,
    code: Vec<Vec<Instr>>,
}

impl Emit for Builder {
    fn emit(&mut self, core: usize, instr: Instr) {
        self.code[core].push(instr);
    }
}

impl Builder {
    fn alloc(&mut self, words: usize) -> Addr {
        let at = self.memory.len() as Addr;
        self.memory.resize(self.memory.len() + words, 0);
        at
    }

    fn place(&mut self, words: &[u64]) -> Addr {
        let at = self.memory.len() as Addr;
        self.memory.extend_from_slice(words);
        at
    }

    /// The register holding `src` (loading it into `temp` if it is in memory).
    fn fetch(&mut self, core: usize, src: Src, temp: Reg) -> Reg {
        match src {
            Src::Zero => ZERO,
            Src::Reg(r) => r,
            Src::Mem(addr, traffic) => {
                self.load(core, temp, addr, traffic);
                temp
            }
        }
    }

    /// Sets `reg` to `src`.
    fn fetch_into(&mut self, core: usize, src: Src, reg: Reg) {
        match src {
            Src::Zero => self.sub(core, reg, ZERO, ZERO),
            Src::Reg(r) if r == reg => {}
            Src::Reg(r) => self.add(core, reg, r, ZERO),
            Src::Mem(addr, traffic) => self.load(core, reg, addr, traffic),
        }
    }

    fn put(&mut self, core: usize, dst: Dst, reg: Reg) {
        if let Dst::Mem(addr, traffic) = dst {
            self.store(core, reg, addr, traffic);
        }
    }

    /// One row of products: the q + 1 words of V f into the q + 1 contiguous registers
    /// from `dest`, for the words V of `words` (q of them) and the factor in `f`. Every
    /// `Mul` gives a double word (seed 002, Table 1: {R(i+1), Ri} = Rj Rk); one carry chain
    /// adds each high word to the next low word: q `Mul`s and, for q >= 2, q additions
    /// (the last, high word + carry, cannot carry out: a high word is at most 2^w - 2).
    /// Each `Mul` is issued one step ahead of the addition that reads it, and each word
    /// in memory is loaded two steps ahead of its `Mul`.
    /// `hook` is code that needs the first low word (T's computation): its instructions
    /// go one per step from the second `Mul` on, before the chain's first addition
    /// (they may clobber the flag) when there is room, so that their latencies overlap
    /// with the row.
    fn row(
        &mut self,
        core: usize,
        words: &[Src],
        f: Reg,
        dest: Reg,
        temps: [Reg; 3],
        hook: &[Instr],
    ) {
        let q = words.len();
        let mut hook = hook.iter();
        let mut regs: Vec<Reg> = vec![ZERO; q];
        let fetch = |b: &mut Builder, t: usize, regs: &mut [Reg]| {
            if t < q {
                regs[t] = b.fetch(core, words[t], temps[t % 3]);
            }
        };
        let pairs = [L1, L2, S];
        let pair = |t: usize| if t == 0 { dest } else { pairs[t % 3] };
        fetch(self, 0, &mut regs);
        fetch(self, 1, &mut regs);
        fetch(self, 2, &mut regs);
        self.mul(core, pair(0), regs[0], f);
        if q > 1 {
            self.mul(core, pair(1), regs[1], f);
            fetch(self, 3, &mut regs);
        }
        // The hook's flag-setting instruction goes before the chain starts.
        if let Some(&instr) = hook.next() {
            self.emit(core, instr);
        }
        for t in 1..=q {
            if t > 1 || q < 2 {
                for &instr in hook.by_ref() {
                    self.emit(core, instr);
                    if !matches!(instr, Instr::Load { .. }) {
                        break;
                    }
                }
            }
            if t + 1 < q {
                self.mul(core, pair(t + 1), regs[t + 1], f);
                fetch(self, t + 3, &mut regs);
            }
            if t == 1 && q >= 2 {
                self.add(core, dest + 1, dest + 1, pair(1));
            } else if t >= 2 && t < q {
                self.adc(core, dest + t as Reg, pair(t - 1) + 1, pair(t));
            } else if t == q && q >= 2 {
                self.adc(core, dest + q as Reg, pair(q - 1) + 1, ZERO);
            }
        }
        for &instr in hook {
            self.emit(core, instr);
        }
    }

    /// One iteration of the outer loop on one core's slice (see the module doc): the row
    /// P = X Y_i, T from Z_0 + P_0, the row Q = M T, the chain V = P + Q, the chain
    /// Z + V (which makes the new words, lowest first), then the boundary word from the
    /// core above.
    fn iteration(&mut self, core: usize, it: &Iteration, y: Addr) {
        let q = it.z.len();
        let acc = &it.acc;
        let [pb, qb] = it.rows;
        if it.first {
            self.load(core, Y, y + it.i as Addr, Traffic::Operand);
        }
        let fresh = it.z.iter().all(|z| matches!(z, Src::Zero)) && matches!(it.e_hi, Src::Zero);
        // T = (Z_0 + X_0 Y_i) M' mod 2^w (Alg. 1, line 3): one addition (none while Z = 0),
        // then the low word of a Mul, issued among the row's instructions.
        let mut zr: Vec<Reg> = Vec::with_capacity(q);
        let mut hook = Vec::new();
        let mut b_early = false;
        // A Z_0 that comes from memory (method-I: from another core) is waited for after
        // the row, which does not need it.
        let late = matches!(it.z[0], Src::Mem(..));
        if it.t_load.is_none() {
            let s0 = if fresh {
                pb
            } else {
                let z0 = match it.z[0] {
                    Src::Reg(r) => r,
                    Src::Zero | Src::Mem(..) => acc[0],
                };
                zr.push(z0);
                hook.push(Instr::Add {
                    rd: D,
                    rj: z0,
                    rk: pb,
                });
                if q == 1 {
                    // A one-word slice's Z_0 is also its top word: the boundary word is
                    // part of it.
                    if let Src::Mem(addr, traffic) = it.top {
                        self.load(core, ELO, addr, traffic);
                        b_early = true;
                        hook.push(Instr::Add {
                            rd: D,
                            rj: D,
                            rk: ELO,
                        });
                    }
                }
                D
            };
            hook.push(Instr::Mul {
                rd: T,
                rj: s0,
                rk: MP,
            });
            if let Some(addr) = it.t_store {
                hook.push(Instr::Store {
                    rs: T,
                    addr,
                    traffic: Traffic::Transfer,
                });
            }
        }
        if late && !fresh {
            self.row(core, &it.x, Y, pb, [XT, ZT, BB], &[]);
            if let Src::Mem(addr, traffic) = it.z[0] {
                self.load(core, acc[0], addr, traffic);
            }
            if zr.is_empty() {
                zr.push(acc[0]);
            }
            for &instr in &hook {
                self.emit(core, instr);
            }
        } else {
            self.row(core, &it.x, Y, pb, [XT, ZT, BB], &hook);
        }
        let fetch_z = |b: &mut Builder, t: usize| -> Reg {
            match it.z[t] {
                Src::Zero => ZERO,
                Src::Reg(r) => r,
                Src::Mem(addr, traffic) => {
                    b.load(core, acc[t], addr, traffic);
                    acc[t]
                }
            }
        };
        if let Some(addr) = it.t_load {
            self.load(core, T, addr, Traffic::Transfer);
        }
        if let Some(next) = it.next {
            self.load(core, Y, y + next as Addr, Traffic::Operand);
        }
        if let (Src::Mem(addr, traffic), false) = (it.top, b_early) {
            self.load(core, ELO, addr, traffic);
            b_early = true;
        }
        self.row(core, &it.m, T, qb, [MT, BT, NC], &[]);
        // V = P + Q (into the accumulator straight away when Z = 0). P + Q < 2^(w(q+1))
        // whenever the slice cannot overflow; otherwise its carry goes to E_hi.
        let v = if fresh {
            acc.clone()
        } else {
            (0..=q).map(|t| pb + t as Reg).collect()
        };
        let has_top = !matches!(it.top, Src::Zero);
        let pending = |t: usize| has_top && t + 1 >= q;
        for t in 0..=q {
            if t == 0 {
                self.add(core, v[0], pb, qb);
            } else {
                self.adc(core, v[t], pb + t as Reg, qb + t as Reg);
            }
            if fresh && !pending(t) {
                self.output(core, it, t);
            }
        }
        let mut e_live = false;
        if it.overflow {
            // In the first iteration E_hi is made here; later V's carry waits in VH.
            let rd = if fresh { EHI } else { VH };
            self.adc(core, rd, ZERO, ZERO);
            e_live = fresh;
        }
        if !fresh {
            // The new words: Z + V, each sent on as soon as it is made.
            if zr.is_empty() {
                zr.push(fetch_z(self, 0));
            }
            for t in 0..q {
                if t + 1 < q {
                    zr.push(fetch_z(self, t + 1));
                }
                if t == 0 {
                    self.add(core, acc[0], zr[0], pb);
                } else {
                    self.adc(core, acc[t], zr[t], pb + t as Reg);
                }
                if !pending(t) {
                    self.output(core, it, t);
                }
            }
            if it.overflow {
                let e = self.fetch(core, it.e_hi, EHI);
                self.adc(core, acc[q], pb + q as Reg, e);
                self.adc(core, EHI, VH, ZERO);
                e_live = true;
            } else {
                // Z + V < 2^(w(q+1)): no carry out.
                self.adc(core, acc[q], pb + q as Reg, ZERO);
            }
            if !pending(q) {
                self.output(core, it, q);
            }
        }
        if has_top {
            let br = if b_early {
                ELO
            } else {
                self.fetch(core, it.top, BT)
            };
            self.add(core, acc[q - 1], acc[q - 1], br);
            self.adc(core, acc[q], acc[q], ZERO);
            self.adc(core, EHI, EHI, ZERO);
            for t in q.saturating_sub(1)..=q {
                self.output(core, it, t);
            }
        }
        if e_live {
            self.put(core, it.e_hi_out, EHI);
        }
    }

    /// Sends accumulator word t (position a + t) where the iteration says.
    fn output(&mut self, core: usize, it: &Iteration, t: usize) {
        let dst = if t == 0 { it.low } else { it.z_out[t - 1] };
        match dst {
            Dst::Mem(addr, traffic) => self.store(core, it.acc[t], addr, traffic),
            Dst::Reg(r) => debug_assert_eq!(r, it.acc[t], "accumulator words stay in place"),
            Dst::Drop => {}
        }
    }

    /// Loads the core's resident words of X and M and says where each word of the slice
    /// comes from in every iteration.
    fn residents(
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

    /// Single core (p = 1) and method-II: core k owns the words [a_k, b_k) for the whole
    /// loop; T is broadcast from core 0, each core's new low word goes to the core below.
    fn sliced(
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

    /// After the loop: every core adds its E into its words and passes the carry up
    /// (stage 1), computes the carry of Z + (2^(w(s+1)) - M) over its words and passes
    /// it up (stage 2); the top core's carry, 1 exactly when Z >= M, goes back to every
    /// core (stage 3), which recomputes its words of Z - M and makes, word by word,
    /// Z + carry (Z - M - Z) (stage 4: a `Mul` by the carry selects, since the ISA has
    /// no branch; `Sub`s keep the carry flag of the chain intact) in the register
    /// `result_base` + its position, where it stays; with write-back it stores it too.
    /// Returns the address of the s + 1 result words in memory (with write-back) and
    /// their registers.
    fn epilogue(
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
    fn chain_start(&mut self, core: usize, k: usize, slot: Addr) {
        if k > 0 {
            self.load(core, DC, slot, Traffic::Epilogue);
        }
        self.chain_flag(core, k);
    }

    /// Sets the carry flag to DC (0 or 1) for `k > 0`: (0 - DC) + (0 - DC) carries
    /// exactly when DC = 1. Core 0's chain starts with `Add` instead.
    fn chain_flag(&mut self, core: usize, k: usize) {
        if k > 0 {
            self.sub(core, U, ZERO, DC);
            self.add(core, U, U, U);
        }
    }

    /// D = V + (2^(w(s+1)) - M)_pos + carry for one or two consecutive words from
    /// position `first` (both loads before both additions); returns (D, V) registers.
    fn neg_m_pair(
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
    fn target_of(v: Src, temp: Reg) -> Reg {
        match v {
            Src::Reg(r) => r,
            Src::Zero | Src::Mem(..) => temp,
        }
    }

    /// Stores `reg` when `v` is a memory slot.
    fn put_src(&mut self, core: usize, v: Src, reg: Reg) {
        if let Src::Mem(addr, traffic) = v {
            self.store(core, reg, addr, traffic);
        }
    }
}
