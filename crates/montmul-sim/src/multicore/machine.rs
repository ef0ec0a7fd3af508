//! The cycle-level machine: p cores in lockstep behind one main controller (seed 002,
//! sec. 3, Fig. 1).
//!
//! Every cycle the controller issues one bundle, one instruction per core. Each core
//! has a 4-stage pipeline (fetch, decode and register read, execute, write back) without
//! forwarding: a register written by one instruction can be read by an instruction
//! issued two cycles later, so a dependent instruction right behind its producer waits
//! one cycle; the carry flag is written and read in the execute stage, so `Adc` can
//! follow `Add` at once. A waiting core holds the whole bundle (VLIW lockstep). The data
//! memory has one port: one load or store per cycle for the whole chip, read and written
//! in the execute stage, so a load issued the cycle after a store sees the stored word.
//! A bundle with more than one access is serialised, one extra cycle per access.

use super::isa::{Instr, Reg, Traffic};
use crate::SimError;

/// Pipeline stages of a core.
pub const PIPELINE_STAGES: u64 = 4;

/// Cycles from the issue of an instruction until an instruction that reads its result
/// register can issue (write back in stage 4, register read in stage 2).
pub const RESULT_LATENCY: u64 = 2;

/// Loads or stores, split by what they move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accesses {
    /// Words of X, Y and M.
    pub operand: u64,
    /// Words moved between cores or spilled between iterations.
    pub transfer: u64,
    /// Constants of the modulus (M').
    pub constant: u64,
    /// The final normalisation and conditional subtraction.
    pub epilogue: u64,
}

impl Accesses {
    /// All of them.
    pub fn total(&self) -> u64 {
        self.operand + self.transfer + self.constant + self.epilogue
    }

    fn count(&mut self, traffic: Traffic) {
        match traffic {
            Traffic::Operand => self.operand += 1,
            Traffic::Transfer => self.transfer += 1,
            Traffic::Constant => self.constant += 1,
            Traffic::Epilogue => self.epilogue += 1,
        }
    }
}

/// What one run of the machine counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Clock cycles from the first fetch until the last instruction has written back.
    pub cycles: u64,
    /// Bundles issued.
    pub bundles: u64,
    /// Cycles the controller waited on a hazard or on the memory port.
    pub stalls: u64,
    /// Loads executed.
    pub loads: Accesses,
    /// Stores executed.
    pub stores: Accesses,
    /// `Mul` instructions executed.
    pub muls: u64,
    /// `Add` and `Adc` instructions executed.
    pub adds: u64,
    /// `Sub` instructions executed.
    pub subs: u64,
    /// `Mul` instructions executed in the loop (seed 002's N_mul; the epilogue's are not).
    pub loop_muls: u64,
    /// `Add` and `Adc` instructions executed in the loop (seed 002's N_add).
    pub loop_adds: u64,
}

/// The cores' registers and carry flags and the data memory.
#[derive(Clone, Debug)]
pub struct Machine {
    word: u32,
    regs: Vec<Vec<u64>>,
    ready: Vec<Vec<u64>>,
    carry: Vec<u64>,
    memory: Vec<u64>,
}

impl Machine {
    /// `cores` cores of `registers` w-bit registers each (all zero), and the data memory.
    pub fn new(cores: usize, registers: usize, word: u32, memory: Vec<u64>) -> Self {
        Machine {
            word,
            regs: vec![vec![0; registers]; cores],
            ready: vec![vec![0; registers]; cores],
            carry: vec![0; cores],
            memory,
        }
    }

    /// The data memory.
    pub fn memory(&self) -> &[u64] {
        &self.memory
    }

    /// Register `r` of core `core`.
    pub fn register(&self, core: usize, r: Reg) -> u64 {
        self.regs[core][usize::from(r)]
    }

    /// Runs `bundles` (one instruction per core each) from cycle 0; every instruction
    /// counts as part of the loop.
    pub fn run(&mut self, bundles: &[Vec<Instr>]) -> Result<Stats, SimError> {
        let in_loop: Vec<Vec<bool>> = bundles.iter().map(|b| vec![true; b.len()]).collect();
        self.run_marked(bundles, &in_loop)
    }

    /// Runs `bundles` from cycle 0; `in_loop[c][k]` says whether instruction k of bundle
    /// c belongs to the loop (for [`Stats::loop_muls`] and [`Stats::loop_adds`]).
    pub fn run_marked(
        &mut self,
        bundles: &[Vec<Instr>],
        in_loop: &[Vec<bool>],
    ) -> Result<Stats, SimError> {
        let mut stats = Stats::default();
        let mut now = 0u64;
        for (c, bundle) in bundles.iter().enumerate() {
            self.check(bundle)?;
            // Interlock: wait until every source register of the bundle can be read.
            let mut issue = now;
            for (core, instr) in bundle.iter().enumerate() {
                for r in instr.sources() {
                    issue = issue.max(self.ready[core][usize::from(r)]);
                }
            }
            let accesses = bundle.iter().filter(|i| i.memory().is_some()).count() as u64;
            issue += accesses.saturating_sub(1);
            stats.stalls += issue - now;
            for (core, instr) in bundle.iter().enumerate() {
                self.execute(core, instr, issue, &mut stats);
                if in_loop.get(c).and_then(|b| b.get(core)) == Some(&true) {
                    match instr {
                        Instr::Mul { .. } => stats.loop_muls += 1,
                        Instr::Add { .. } | Instr::Adc { .. } => stats.loop_adds += 1,
                        _ => {}
                    }
                }
            }
            stats.bundles += 1;
            now = issue + 1;
        }
        // The last bundle, fetched in cycle now - 1, writes back PIPELINE_STAGES - 1 later.
        stats.cycles = if bundles.is_empty() {
            0
        } else {
            now - 1 + PIPELINE_STAGES
        };
        Ok(stats)
    }

    fn check(&self, bundle: &[Instr]) -> Result<(), SimError> {
        if bundle.len() != self.regs.len() {
            return Err(SimError::InvalidProgram {
                reason: format!("a bundle of {} for {} cores", bundle.len(), self.regs.len()),
            });
        }
        let registers = self.regs.first().map_or(0, Vec::len);
        for instr in bundle {
            let regs = instr.sources().into_iter().chain(instr.destinations());
            if let Some(r) = regs.into_iter().find(|&r| usize::from(r) >= registers) {
                return Err(SimError::InvalidProgram {
                    reason: format!("register {r} of {registers} in {instr:?}"),
                });
            }
            if let Some((addr, _, _)) = instr.memory() {
                if addr as usize >= self.memory.len() {
                    return Err(SimError::InvalidProgram {
                        reason: format!("address {addr} of {}", self.memory.len()),
                    });
                }
            }
        }
        Ok(())
    }

    fn execute(&mut self, core: usize, instr: &Instr, issue: u64, stats: &mut Stats) {
        let mask = (1u64 << self.word) - 1;
        let regs = &mut self.regs[core];
        let get = |r: u16| regs[usize::from(r)];
        let mut writes: Vec<(u16, u64)> = Vec::new();
        match *instr {
            Instr::Nop => {}
            Instr::Load { rd, addr, traffic } => {
                writes.push((rd, self.memory[addr as usize]));
                stats.loads.count(traffic);
            }
            Instr::Store { rs, addr, traffic } => {
                self.memory[addr as usize] = get(rs);
                stats.stores.count(traffic);
            }
            Instr::Mul { rd, rj, rk } => {
                // (2^w - 1)^2 < 2^64 for w <= 32.
                let p = get(rj) * get(rk);
                writes.push((rd, p & mask));
                writes.push((rd + 1, p >> self.word));
                stats.muls += 1;
            }
            Instr::Add { rd, rj, rk } | Instr::Adc { rd, rj, rk } => {
                let carry_in = if matches!(instr, Instr::Adc { .. }) {
                    self.carry[core]
                } else {
                    0
                };
                let sum = get(rj) + get(rk) + carry_in;
                writes.push((rd, sum & mask));
                self.carry[core] = sum >> self.word;
                stats.adds += 1;
            }
            Instr::Sub { rd, rj, rk } => {
                writes.push((rd, get(rj).wrapping_sub(get(rk)) & mask));
                stats.subs += 1;
            }
        }
        for (r, v) in writes {
            regs[usize::from(r)] = v;
            self.ready[core][usize::from(r)] = issue + RESULT_LATENCY;
        }
    }
}
