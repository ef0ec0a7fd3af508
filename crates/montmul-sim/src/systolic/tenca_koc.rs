//! The Tenca-Koc MWR2MM pipeline (CHES 1999; seed 003, "Data Dependency Graph by Tenca &
//! Koc").
//!
//! One PE runs one iteration i of the outer loop: in e + 1 consecutive steps it runs
//! task A on word 0, task B on words 1..e-1 and task C, and from step 1 on it passes one
//! shifted word of the new S per cycle to the PE of iteration i + 1 through a register.
//! Word j of S_(i+1) is only complete when word j + 1 of iteration i has been computed,
//! so iteration i + 1 starts two cycles after iteration i: that is the "two clock cycles
//! between adjacent PEs" of the seed, and it comes out of the register timing below,
//! not out of a constant.
//!
//! P PEs take the iterations round-robin (PE i mod P), the last one handing its words
//! back to the first through a queue. A PE is busy e + 1 cycles per iteration, so when
//! P < (e + 1) / 2 the first PE is not free when its next iteration could start, and
//! the pipeline stalls.
//!
//! Modelling assumption (the one cycle the seed's formula 2n + e - 1 leaves out): Y and
//! M are not stored in the PEs (the array is scalable: any P serves any e) but stream
//! word by word from the operand memory into the first PE together with S = 0; the read
//! of a word takes one cycle, so the first PE computes word 0 in cycle 1, not cycle 0.
//! The last word of Z leaves the last PE at the end of cycle 2 (D - 1) + e + 1, which
//! makes 2D + e cycles in all: 2n + e = 2113 for n = 1024, w = 16, the seed's table.

use super::pe::Problem;
use crate::SimError;

/// A word in a register between two PEs: its value and the first cycle it can be read.
#[derive(Clone, Copy, Debug)]
struct Latched {
    value: u64,
    ready: u64,
}

/// What one PE is doing.
#[derive(Clone, Copy, Debug)]
struct Active {
    /// The iteration (digit of X).
    iteration: usize,
    /// The next step: word index 0..=e, e being task C.
    step: usize,
    /// The digit x_i and the quotient digit q_i.
    x: u64,
    q: u64,
    /// C^(step) and the unshifted previous word U^(step - 1).
    carry: u64,
    previous: u64,
}

/// Runs the pipeline with `pes` PEs; returns the cycle count and the e words of Z.
pub(crate) fn run(p: &Problem, pes: usize) -> Result<(u64, Vec<u64>), SimError> {
    let (e, d) = (p.words(), p.digits());
    // streams[i]: the words of S that iteration i reads, in order, as they are latched.
    // streams[d] collects Z.
    let mut streams: Vec<Vec<Latched>> = vec![Vec::new(); d + 1];
    // The iteration each PE takes next, and what it is doing now.
    let mut next: Vec<usize> = (0..pes).collect();
    let mut active: Vec<Option<Active>> = vec![None; pes];
    let limit = 4 * (d as u64 + 2) * (e as u64 + 2) + 16;
    let mut cycle = 0u64;
    loop {
        // The operand memory streams Y^(j), M^(j) (and S^(j) = 0) into the first PE's
        // input register: word j is read in cycle j and can be used from cycle j + 1.
        if (cycle as usize) < e {
            streams[0].push(Latched {
                value: 0,
                ready: cycle + 1,
            });
        }
        for k in 0..pes {
            if active[k].is_none() {
                let i = next[k];
                if i < d && streams[i].first().is_some_and(|w| w.ready <= cycle) {
                    active[k] = Some(Active {
                        iteration: i,
                        step: 0,
                        x: p.x[i],
                        q: 0,
                        carry: 0,
                        previous: 0,
                    });
                    next[k] += pes;
                }
            }
            let Some(mut a) = active[k] else { continue };
            let (i, j) = (a.iteration, a.step);
            let s = if j < e {
                match streams[i].get(j) {
                    Some(w) if w.ready <= cycle => w.value,
                    // The word from the previous PE is not there yet: stall this cycle.
                    _ => continue,
                }
            } else {
                0
            };
            if j == 0 {
                a.q = p.quotient(s, a.x);
            }
            let (u, carry) = p.word_step(j, s, a.carry, a.x, a.q);
            if j > 0 {
                let value = p.shifted(a.previous, u);
                streams[i + 1].push(Latched {
                    value,
                    ready: cycle + 1,
                });
            }
            a.carry = carry;
            a.previous = u;
            a.step += 1;
            if a.step == e + 1 {
                // Iteration done: its input words are no longer needed.
                streams[i] = Vec::new();
                active[k] = None;
            } else {
                active[k] = Some(a);
            }
        }
        cycle += 1;
        if streams[d].len() == e {
            return Ok((cycle, streams[d].iter().map(|w| w.value).collect()));
        }
        if cycle > limit {
            return Err(SimError::Deadlock { cycle });
        }
    }
}
