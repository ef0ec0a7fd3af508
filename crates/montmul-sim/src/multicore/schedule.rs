//! The VLIW packer: turns one instruction stream per core into bundles.
//!
//! The main controller issues what the packer put in each bundle, so the packer plays
//! the compiler of a statically scheduled machine. Every cycle it walks the cores
//! (starting from a different core each cycle, so none starves) and gives each one its
//! next instruction, in program order, when
//!
//! - the registers it reads are ready (the pipeline's [`RESULT_LATENCY`]),
//! - it is a load or store and the memory port is still free in this cycle,
//! - it loads a word another instruction stores (a transfer between cores) and that
//!   store was issued in an earlier cycle;
//!
//! otherwise the core gets a `Nop`. Where the generator marks how urgent each
//! instruction is (method-I: the number of its iteration, since every later iteration
//! waits on the earlier ones), the cores are walked most urgent first, so that the
//! memory port goes to the oldest iteration. The machine runs the bundles with its own interlocks,
//! so a packing mistake would cost stall cycles, never a wrong result.

use std::collections::{HashMap, HashSet};

use super::isa::{Addr, Instr};
use super::machine::RESULT_LATENCY;
use crate::SimError;

/// Cycles without any issue after which the packer reports a deadlock.
const DEADLOCK_CYCLES: u64 = 10_000;

/// Bundles, and for each slot whether its instruction belongs to the loop.
pub(crate) type Packed = (Vec<Vec<Instr>>, Vec<Vec<bool>>);

/// Packs `programs` (one per core, `registers` registers each) into bundles;
/// `in_loop[c][k]` says whether instruction k of core c belongs to the loop, and
/// `urgency[c][k]` orders the cores each cycle: the core whose next instruction has the
/// lowest value goes first (ties, and instructions without a value, in the rotating
/// order).
pub(crate) fn pack(
    programs: &[Vec<Instr>],
    registers: usize,
    in_loop: &[Vec<bool>],
    urgency: &[Vec<u32>],
) -> Result<Packed, SimError> {
    let cores = programs.len();
    let produced: HashSet<Addr> = programs
        .iter()
        .flatten()
        .filter_map(|i| match i.memory() {
            Some((addr, true, _)) => Some(addr),
            _ => None,
        })
        .collect();
    let mut stored_at: HashMap<Addr, u64> = HashMap::new();
    let mut pc = vec![0usize; cores];
    let mut ready = vec![vec![0u64; registers]; cores];
    let mut bundles = Vec::new();
    let mut marks = Vec::new();
    let mut idle = 0u64;
    let mut cycle = 0u64;
    while (0..cores).any(|c| pc[c] < programs[c].len()) {
        let mut bundle = vec![Instr::Nop; cores];
        let mut mark = vec![false; cores];
        let mut port_busy = false;
        let mut issued = false;
        let mut order: Vec<usize> = (0..cores).map(|o| (cycle as usize + o) % cores).collect();
        order.sort_by_key(|&c| {
            urgency
                .get(c)
                .and_then(|u| u.get(pc[c]))
                .copied()
                .unwrap_or(u32::MAX)
        });
        for c in order {
            let Some(instr) = programs[c].get(pc[c]) else {
                continue;
            };
            let regs_ready = instr
                .sources()
                .iter()
                .all(|&r| ready[c].get(usize::from(r)).is_some_and(|&t| t <= cycle));
            let memory_ok = match instr.memory() {
                None => true,
                Some(_) if port_busy => false,
                Some((addr, false, _)) if produced.contains(&addr) => {
                    stored_at.get(&addr).is_some_and(|&t| t < cycle)
                }
                Some(_) => true,
            };
            if !(regs_ready && memory_ok) {
                continue;
            }
            for r in instr.destinations() {
                if let Some(t) = ready[c].get_mut(usize::from(r)) {
                    *t = cycle + RESULT_LATENCY;
                }
            }
            if let Some((addr, is_store, _)) = instr.memory() {
                port_busy = true;
                if is_store {
                    stored_at.insert(addr, cycle);
                }
            }
            bundle[c] = *instr;
            mark[c] = in_loop.get(c).and_then(|m| m.get(pc[c])) == Some(&true);
            pc[c] += 1;
            issued = true;
        }
        idle = if issued { 0 } else { idle + 1 };
        if idle > DEADLOCK_CYCLES {
            return Err(SimError::Deadlock { cycle });
        }
        bundles.push(bundle);
        marks.push(mark);
        cycle += 1;
    }
    Ok((bundles, marks))
}
