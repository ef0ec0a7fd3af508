//! Program generators: FIOS (seed 002, Alg. 1) for one core, method-I and method-II.
//!
//! All three are built from one routine, `Builder::iteration`: one core runs one
//! iteration of the outer loop on a slice [a, b) of the words of Z, X and M. Per word j
//! it forms the two products X_j Y_i = (H1, L1) and M_j T = (H2, L2) with `Mul` and
//! adds them, Z_j and the carry C^(j) into one word, in seven additions:
//!
//! ```text
//! Adc H1 = H1 + 0 + Ca      the carry's bit of weight j+1 (left in the flag)
//! Add S  = C + L1           C: the carry's low word (weight j)
//! Adc H1 = H1 + 0 + Ca
//! Add S  = S + L2
//! Adc H2 = H2 + 0 + Ca
//! Add Z' = S + Z_j          the new word (Z'_(j-1) after the shift)
//! Adc C  = H1 + H2 + Ca     the new carry: low word in C, bit of weight j+2 in the flag
//! ```
//!
//! None of the `Adc`s into H1 and H2 can carry out (the bounds are beside them), and the
//! carry stays below 2^(w+1) - 1: (2^w - 1) + 2 (2^w - 1)^2 + 2^(w+1) - 2 < (2^(w+1) - 1)
//! 2^w. Seven is the fewest with one carry flag: three additions make the word, one
//! makes the carry, and of the four carry bits of weight j + 1 only one can ride on an
//! addition that is needed anyway. The seed's N_add = 4s^2 + s counts word additions,
//! not the instructions that move carries into registers (which its sec. 4 says a
//! general-purpose core needs), so the model runs more instructions than the seed's
//! figures imply.
//!
//! Carries stay in the core that made them (seed 002, sec. 4): the carry out of a
//! slice's top word is kept as E = (E_lo, E_hi) in that core and added into the same
//! word position (the slice's top word, after the shift) in the next iteration. For the
//! top slice this E is Z's top word and its extra bit Z_s (Z < 2M may exceed R when
//! n = w s). After the loop an epilogue (`Builder::epilogue`) adds the E's in, with
//! the carries rippling up from core to core, subtracts M when Z >= M (the carry of
//! Z + (2^(w(s+1)) - M), rippling up the same way and sent back to every core, which
//! selects each of its words with a `Mul`, since the ISA has no branch) and stores the
//! s + 1 words of the result. Method-I's Z is in memory by then; core 0 finishes it.

use super::isa::{Addr, Instr, Reg, Traffic};
use super::{Config, Method};
use crate::SimError;

/// Registers of the datapath in every core, beside the S_rf registers that hold words
/// of X, M and Z (the seed's S_rf counts only those).
pub const SCRATCH_REGISTERS: usize = 24;

// The scratch registers. `Mul` writes a pair (r, r + 1).
const ZERO: Reg = 0;
const MP: Reg = 1;
const Y: Reg = 2;
const T: Reg = 3; // and 4: the high word of (Z_0 + X_0 Y_i) M', unused
const L1: Reg = 5;
const H1: Reg = 6;
const L2: Reg = 7;
const H2: Reg = 8;
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
    /// s/p = `words`): above 3s/p registers X, M and Z stay; above 2s/p, X and Z; above
    /// s/p, Z; otherwise nothing.
    pub fn sliced(registers: usize, words: usize) -> Self {
        let r = registers;
        Residency {
            x: r > 2 * words,
            m: r > 3 * words,
            z: r > words,
        }
    }

    /// Method-I (Table 3: thresholds 2s, s; Z always travels through memory).
    pub fn whole(registers: usize, words: usize) -> Self {
        Residency {
            x: registers > words,
            m: registers > 2 * words,
            z: false,
        }
    }
}

/// One iteration of one core on the words [a, b).
struct Iteration {
    i: usize,
    a: usize,
    b: usize,
    x: Vec<Src>,
    m: Vec<Src>,
    /// Z_j for j in a..b-1 (the top word is `top` plus E).
    z: Vec<Src>,
    /// The stored part of the top word (the boundary word from the next core), if any.
    top: Src,
    e_lo: Src,
    e_hi: Src,
    /// T: computed here (with M' in `MP`) or loaded.
    t_load: Option<Addr>,
    t_store: Option<Addr>,
    /// New words a-1 (`low`) and a..b-2 (`z_out`).
    low: Dst,
    z_out: Vec<Dst>,
    e_lo_out: Dst,
    e_hi_out: Dst,
}

/// A generated program: one instruction stream per core, the initial data memory, and
/// where the s + 1 words of the result will be.
#[derive(Clone, Debug)]
pub struct Program {
    /// One instruction stream per core.
    pub cores: Vec<Vec<Instr>>,
    /// The data memory before the run.
    pub memory: Vec<u64>,
    /// Address of the result (s + 1 words, the top one zero).
    pub result: Addr,
    /// Registers per core: [`SCRATCH_REGISTERS`] + S_rf.
    pub registers: usize,
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

/// Generates the program of `config` for these operands.
pub fn generate(config: &Config, ops: &Operands<'_>) -> Result<Program, SimError> {
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
        Method::SingleCore | Method::MethodII => b.sliced(config, s, &layout)?,
        Method::MethodI => b.whole(config, s, &layout, ops.top_bit)?,
    };
    let result = b.epilogue(&parts, s, config.registers, &layout);
    Ok(Program {
        cores: b.code,
        memory: b.memory,
        result,
        registers: SCRATCH_REGISTERS + config.registers,
    })
}

/// Where a core finds the words of its slice of X and M, and the registers of its Z.
struct Placement {
    x: Vec<Src>,
    m: Vec<Src>,
    z: Vec<Reg>,
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

    fn emit(&mut self, core: usize, instr: Instr) {
        self.code[core].push(instr);
    }

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

    /// The register an output word is computed into.
    fn target(dst: Dst) -> Reg {
        match dst {
            Dst::Reg(r) => r,
            Dst::Drop | Dst::Mem(..) => S,
        }
    }

    fn put(&mut self, core: usize, dst: Dst, reg: Reg) {
        if let Dst::Mem(addr, traffic) = dst {
            self.store(core, reg, addr, traffic);
        }
    }

    /// One iteration of the outer loop on one core's slice (see the module doc).
    fn iteration(&mut self, core: usize, it: &Iteration, y: Addr) {
        self.load(core, Y, y + it.i as Addr, Traffic::Operand);
        if let Some(addr) = it.t_load {
            self.load(core, T, addr, Traffic::Transfer);
        }
        // Between words the carry C^(j) <= 2^(w+1) - 2 lives in C (low word, weight j)
        // and the carry flag (weight j + 1); only Mul, Load and Store, which leave the
        // flag alone, come between the word that sets it and the word that reads it.
        let mut flag_saved = false;
        for j in it.a..it.b {
            let k = j - it.a;
            let xr = self.fetch(core, it.x[k], XT);
            let mr = self.fetch(core, it.m[k], MT);
            if j + 1 == it.b {
                // E is only needed at the top word: fetching it there lets the next
                // iteration start (method-I) before this one has finished.
                self.fetch_into(core, it.e_lo, ELO);
                self.fetch_into(core, it.e_hi, EHI);
            }
            let zr = if j + 1 < it.b {
                self.fetch(core, it.z[k], ZT)
            } else if matches!(it.top, Src::Zero) {
                ELO
            } else {
                // Top word: the stored word plus E_lo, whose carry joins E_hi (weight
                // b). That addition needs the flag, so the carry bit moves to a register.
                if j > it.a {
                    self.adc(core, BB, ZERO, ZERO);
                    flag_saved = true;
                }
                let br = self.fetch(core, it.top, BT);
                self.add(core, ZT, br, ELO);
                self.adc(core, EHI, EHI, ZERO);
                ZT
            };
            let out = if j == it.a { it.low } else { it.z_out[k - 1] };
            let rd = Self::target(out);
            self.mul(core, L1, xr, Y);
            if j == it.a {
                // The carry in is 0.
                self.add(core, S, zr, L1);
                self.adc(core, H1, H1, ZERO);
                if it.t_load.is_none() {
                    // T = (Z_0 + X_0 Y_i) M' mod 2^w (Alg. 1, line 3).
                    self.mul(core, T, S, MP);
                    if let Some(addr) = it.t_store {
                        self.store(core, T, addr, Traffic::Transfer);
                    }
                }
                self.mul(core, L2, mr, T);
                self.add(core, rd, S, L2);
                self.adc(core, C, H1, H2);
            } else {
                self.mul(core, L2, mr, T);
                // H1 <= 2^w - 2; taking the carry bit b of weight j + 1 cannot overflow.
                if flag_saved {
                    self.add(core, H1, H1, BB);
                } else {
                    self.adc(core, H1, H1, ZERO);
                }
                self.add(core, S, C, L1);
                // H1 + b + carry <= 2^w - 1: H1 = 2^w - 2 only when L1 = 1, and b = 1
                // only when C <= 2^w - 2 (C^(j) <= 2^(w+1) - 2), so then C + L1 < 2^w.
                self.adc(core, H1, H1, ZERO);
                self.add(core, S, S, L2);
                // H2 <= 2^w - 2.
                self.adc(core, H2, H2, ZERO);
                self.add(core, rd, S, zr);
                // C^(j+1) = H1 + H2 + carry, its bit of weight j + 2 left in the flag.
                self.adc(core, C, H1, H2);
            }
            self.put(core, out, rd);
        }
        // The carry out of the top word (C and the flag) and E_hi all weigh 2^(w b):
        // their sum is the new E, at word b - 1 after the shift. It is below
        // 2^(w+1) + 4, so the new E_hi is at most 2 and the last `Adc` cannot carry out.
        self.adc(core, U, ZERO, ZERO);
        self.add(core, ELO, C, EHI);
        self.adc(core, EHI, U, ZERO);
        self.put(core, it.e_lo_out, ELO);
        self.put(core, it.e_hi_out, EHI);
    }

    /// Loads the core's resident words of X and M; says where each word of the slice
    /// comes from in every iteration, and which registers hold Z.
    fn residents(
        &mut self,
        core: usize,
        res: Residency,
        words: std::ops::Range<usize>,
        layout: &Layout,
        registers: usize,
    ) -> Result<Placement, SimError> {
        let n = words.len();
        let needed = (res.x as usize + res.m as usize) * n + res.z as usize * n.saturating_sub(1);
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
        let z = if res.z {
            (0..n.saturating_sub(1)).map(|k| next + k as Reg).collect()
        } else {
            Vec::new()
        };
        Ok(Placement { x, m, z })
    }

    /// Single core (p = 1) and method-II: core k owns the words [a_k, b_k) for the whole
    /// loop; T is broadcast from core 0, each core's new low word goes to the core below.
    fn sliced(
        &mut self,
        config: &Config,
        s: usize,
        layout: &Layout,
    ) -> Result<Vec<Part>, SimError> {
        let p = config.cores;
        let bounds: Vec<usize> = (0..=p).map(|k| k * s / p).collect();
        // Per core: operand sources, Z registers, residency.
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
        let spill: Vec<Addr> = (0..s * (s + 1)).map(|_| self.alloc(1)).collect();
        let spill_at = |i: usize, pos: usize| spill[i * (s + 1) + pos];
        for i in 0..s {
            for (k, plan) in plans.iter().enumerate() {
                let (a, b, res) = (plan.a, plan.b, plan.res);
                let zregs = &plan.place.z;
                let top_core = k + 1 == p;
                let z_src = |j: usize| -> Src {
                    if i == 0 {
                        Src::Zero
                    } else if res.z {
                        Src::Reg(zregs[j - a])
                    } else {
                        Src::Mem(spill_at(i - 1, j), Traffic::Transfer)
                    }
                };
                let z_dst = |pos: usize| -> Dst {
                    if res.z {
                        Dst::Reg(zregs[pos - a])
                    } else {
                        Dst::Mem(spill_at(i, pos), Traffic::Transfer)
                    }
                };
                // The top slice keeps Z's top word (its E_lo) in memory too when Z is not
                // resident, like every other word of Z.
                let spill_top = top_core && !res.z;
                let it = Iteration {
                    i,
                    a,
                    b,
                    x: plan.place.x.clone(),
                    m: plan.place.m.clone(),
                    z: (a..b - 1).map(z_src).collect(),
                    top: if top_core || i == 0 {
                        Src::Zero
                    } else {
                        Src::Mem(bnd[(i - 1) * p + k + 1], Traffic::Transfer)
                    },
                    e_lo: match (i, spill_top) {
                        (0, _) => Src::Zero,
                        (_, true) => Src::Mem(spill_at(i - 1, s), Traffic::Transfer),
                        (_, false) => Src::Reg(ELO),
                    },
                    e_hi: if i == 0 { Src::Zero } else { Src::Reg(EHI) },
                    t_load: (k > 0).then(|| t_slot[i]),
                    t_store: (k == 0 && p > 1).then(|| t_slot[i]),
                    low: if k == 0 {
                        Dst::Drop
                    } else {
                        Dst::Mem(bnd[i * p + k], Traffic::Transfer)
                    },
                    z_out: (a..b - 1).map(z_dst).collect(),
                    e_lo_out: if spill_top {
                        Dst::Mem(spill_at(i, s), Traffic::Transfer)
                    } else {
                        Dst::Reg(ELO)
                    },
                    e_hi_out: Dst::Reg(EHI),
                };
                self.iteration(k, &it, layout.y);
            }
        }
        let parts = plans
            .iter()
            .enumerate()
            .map(|(k, plan)| {
                let (a, b) = (plan.a, plan.b);
                let top_core = k + 1 == p;
                Part {
                    core: k,
                    a,
                    b,
                    words: (a..b - 1)
                        .map(|pos| {
                            if plan.res.z {
                                Src::Reg(plan.place.z[pos - a])
                            } else {
                                Src::Mem(spill_at(s - 1, pos), Traffic::Epilogue)
                            }
                        })
                        .collect(),
                    // The last boundary word is a transfer like the others (Table 2
                    // counts (p - 1) s of them).
                    top: if top_core {
                        Src::Zero
                    } else {
                        Src::Mem(bnd[(s - 1) * p + k + 1], Traffic::Transfer)
                    },
                    e_lo: if top_core && !plan.res.z {
                        Src::Mem(spill_at(s - 1, s), Traffic::Epilogue)
                    } else {
                        Src::Reg(ELO)
                    },
                    e_hi: Src::Reg(EHI),
                }
            })
            .collect();
        Ok(parts)
    }

    /// Method-I: iteration i runs on core i mod p over all s words; Z goes from core to
    /// core through memory, one word as soon as it is made.
    fn whole(
        &mut self,
        config: &Config,
        s: usize,
        layout: &Layout,
        top_bit: bool,
    ) -> Result<Vec<Part>, SimError> {
        let p = config.cores;
        let res = Residency::whole(config.registers, s);
        let mut sources = Vec::new();
        for k in 0..p.min(s) {
            let place = self.residents(k, res, 0..s, layout, config.registers)?;
            self.load(k, MP, layout.mp, Traffic::Constant);
            sources.push(place);
        }
        // Z_0..Z_(s-1) of every iteration, and the extra top bit when it can be set.
        let z_slot: Vec<Addr> = (0..s * s).map(|_| self.alloc(1)).collect();
        let hi_slot: Vec<Addr> = (0..s).map(|_| self.alloc(1)).collect();
        let z_at = |i: usize, j: usize| z_slot[i * s + j];
        for i in 0..s {
            let k = i % p;
            let place = &sources[k];
            let it = Iteration {
                i,
                a: 0,
                b: s,
                x: place.x.clone(),
                m: place.m.clone(),
                z: (0..s - 1)
                    .map(|j| {
                        if i == 0 {
                            Src::Zero
                        } else {
                            Src::Mem(z_at(i - 1, j), Traffic::Transfer)
                        }
                    })
                    .collect(),
                top: Src::Zero,
                e_lo: if i == 0 {
                    Src::Zero
                } else {
                    Src::Mem(z_at(i - 1, s - 1), Traffic::Transfer)
                },
                e_hi: if i == 0 || !top_bit {
                    Src::Zero
                } else {
                    Src::Mem(hi_slot[i - 1], Traffic::Transfer)
                },
                t_load: None,
                t_store: None,
                low: Dst::Drop,
                z_out: (0..s - 1)
                    .map(|pos| Dst::Mem(z_at(i, pos), Traffic::Transfer))
                    .collect(),
                e_lo_out: Dst::Mem(z_at(i, s - 1), Traffic::Transfer),
                e_hi_out: if top_bit {
                    Dst::Mem(hi_slot[i], Traffic::Transfer)
                } else {
                    // n < w s: Z < 2M < R, so the bit is provably 0.
                    Dst::Drop
                },
            };
            self.iteration(k, &it, layout.y);
        }
        // Z is in memory after the last iteration; core 0 finishes it.
        Ok(vec![Part {
            core: 0,
            a: 0,
            b: s,
            words: (0..s - 1)
                .map(|j| Src::Mem(z_at(s - 1, j), Traffic::Epilogue))
                .collect(),
            top: Src::Zero,
            e_lo: Src::Mem(z_at(s - 1, s - 1), Traffic::Epilogue),
            e_hi: if top_bit {
                Src::Mem(hi_slot[s - 1], Traffic::Epilogue)
            } else {
                Src::Zero
            },
        }])
    }

    /// After the loop: every core adds its E into its words and passes the carry up
    /// (stage 1), computes the carry of Z + (2^(w(s+1)) - M) over its words and passes
    /// it up (stage 2); the top core's carry, 1 exactly when Z >= M, goes back to every
    /// core (stage 3), which recomputes its words of Z - M and stores, word by word,
    /// Z + carry (Z - M - Z) (stage 4: a `Mul` by the carry selects, since the ISA has
    /// no branch; `Sub`s keep the carry flag of the chain intact). Returns the address
    /// of the s + 1 result words.
    fn epilogue(&mut self, parts: &[Part], s: usize, registers: usize, layout: &Layout) -> Addr {
        let n = parts.len();
        let result = self.alloc(s + 1);
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
                let (us, rs) = (&PAIR_U[..dv.len()], &PAIR_S[..dv.len()]);
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
                    self.store(c, r, result + (first + t) as Addr, Traffic::Epilogue);
                }
            }
        }
        result
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
