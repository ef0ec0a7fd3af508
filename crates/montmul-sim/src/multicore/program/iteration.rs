//! One iteration of the outer loop on one core's slice, row by row (see the module doc
//! of `program`), and the register blocks of the accumulator, the rows and the result.

use super::builder::{Builder, Dst, Src, BB, BT, D, EHI, ELO, L1, L2, MT, NC, S, VH, XT, ZT};
use crate::multicore::emit::Emit;
use crate::multicore::isa::{Addr, Instr, Reg, Traffic};
use crate::multicore::registers::{MP, SCRATCH_REGISTERS, T, Y, ZERO};

/// One iteration of one core on the words [a, b) (q = b - a words).
pub(super) struct Iteration {
    pub(super) i: usize,
    /// The iteration this core runs next, whose Y_i it loads as soon as the row P no
    /// longer needs the register.
    pub(super) next: Option<usize>,
    /// Whether this is the core's first iteration (whose Y_i is loaded at its start).
    pub(super) first: bool,
    pub(super) x: Vec<Src>,
    pub(super) m: Vec<Src>,
    /// Z_j for j in a..b: q words, the top one the core's own carry word.
    pub(super) z: Vec<Src>,
    /// The boundary word from the core above, of weight b - 1 (Zero for the top core).
    pub(super) top: Src,
    /// The core's carry bits of weight b (E_hi), or Zero where none can exist.
    pub(super) e_hi: Src,
    /// Whether the slice's sum can carry past its top word (so that E_hi is made).
    pub(super) overflow: bool,
    /// T: computed here (with M' in `MP`) or loaded.
    pub(super) t_load: Option<Addr>,
    pub(super) t_store: Option<Addr>,
    /// The accumulator: q + 1 registers for the positions a..=b.
    pub(super) acc: Vec<Reg>,
    /// First register of the two row buffers (q + 1 contiguous registers each).
    pub(super) rows: [Reg; 2],
    /// New word a - 1 (`low`) and new words a..b (`z_out`, q of them).
    pub(super) low: Dst,
    pub(super) z_out: Vec<Dst>,
    pub(super) e_hi_out: Dst,
}

/// The registers of the accumulator, the two row buffers and the result, after the
/// S_rf registers.
#[derive(Clone, Copy)]
pub(super) struct Blocks {
    /// The first registers of the rows P and Q (s + 1 each).
    pub(super) rows: [Reg; 2],
    /// The first register of the accumulator window (s + 1).
    pub(super) window: Reg,
    /// The first register of the result words (s + 1; a core uses those of its slice).
    pub(super) result: Reg,
}

impl Blocks {
    pub(super) fn new(registers: usize, s: usize) -> Self {
        let base = (SCRATCH_REGISTERS + registers) as Reg;
        let len = (s + 1) as Reg;
        Blocks {
            rows: [base, base + len],
            window: base + 2 * len,
            result: base + 3 * len,
        }
    }

    /// Register t of a window of q + 1 registers (taken modulo q + 1).
    pub(super) fn window(&self, t: usize, q: usize) -> Reg {
        self.window + (t % (q + 1)) as Reg
    }

    /// Registers per core for S_rf = `registers` and s words.
    pub(super) fn total(registers: usize, s: usize) -> usize {
        SCRATCH_REGISTERS + registers + 4 * (s + 1)
    }
}

impl Builder {
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
    pub(super) fn row(
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
    pub(super) fn iteration(&mut self, core: usize, it: &Iteration, y: Addr) {
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
    pub(super) fn output(&mut self, core: usize, it: &Iteration, t: usize) {
        let dst = if t == 0 { it.low } else { it.z_out[t - 1] };
        match dst {
            Dst::Mem(addr, traffic) => self.store(core, it.acc[t], addr, traffic),
            Dst::Reg(r) => debug_assert_eq!(r, it.acc[t], "accumulator words stay in place"),
            Dst::Drop => {}
        }
    }
}
