//! The optimized MWR2MM array of Huang, Gaj, Kwon and El-Ghazawi (seed 003, Alg. 3,
//! "Main Processing Element Type E", types D and F for the first and last PE).
//!
//! PE j owns word j of Y, M and S and runs every iteration on it. In iteration i it needs
//! C^(j) of the same iteration from PE j - 1, and its own word of S_i, whose low w - k
//! bits it computed itself one cycle earlier but whose high k bits are the low bits of
//! the word PE j + 1 is computing in this very cycle. Rather than wait (which gives
//! Tenca-Koc's two cycles per iteration), PE j computes the word for every value of the
//! missing bits (2 for radix 2, 4 for radix 4) and, one cycle later, when PE j + 1's
//! low bits are in its register, a multiplexer selects the right candidate: the carry
//! for PE j + 1 and the word for PE j's own next iteration. The low k bits of every
//! candidate agree (w >= 2k), so they can be passed on at once.
//!
//! - PE 0 (type D) computes q_i and passes x_i and q_i along the array, one PE per cycle.
//! - PE e - 1 (type F) knows its missing bits (the low bits of its own carry out of the
//!   previous iteration), so it computes one candidate only.
//!
//! The model fires PE j in a cycle when the registers it reads hold the iteration it
//! needs; PE j then runs iteration i in cycle i + j, and the last word of Z is selected
//! in cycle D + e - 2: D + e - 1 cycles in all, counted from the first one. The operands
//! are in the PEs' registers before the start signal (one PE per word, so no streaming).

use super::pe::Problem;
use crate::SimError;

/// Most candidates a PE computes: 2^k for k <= 2.
const MAX_CANDIDATES: usize = 4;

/// The registers of one PE at the end of a cycle.
#[derive(Clone, Copy, Debug)]
struct Pe {
    /// The last iteration computed (-1: none yet).
    done: i64,
    /// Low k bits of that iteration's word (the same in every candidate).
    low: u64,
    /// Word and carry out for each value of the missing high bits.
    words: [u64; MAX_CANDIDATES],
    carries: [u64; MAX_CANDIDATES],
    /// The last iteration whose candidate has been selected, and the selected word.
    resolved: i64,
    selected: u64,
    /// x_i and q_i of iteration `done`, passed to the next PE.
    x: u64,
    q: u64,
}

impl Pe {
    const RESET: Pe = Pe {
        done: -1,
        low: 0,
        words: [0; MAX_CANDIDATES],
        carries: [0; MAX_CANDIDATES],
        resolved: -1,
        selected: 0,
        x: 0,
        q: 0,
    };
}

/// Runs the array (e PEs); returns the cycle count and the e words of Z.
pub(crate) fn run(p: &Problem) -> Result<(u64, Vec<u64>), SimError> {
    let (e, d) = (p.words(), p.digits() as i64);
    let last = e - 1;
    let candidates = 1usize << p.digit_bits;
    let mut pes = vec![Pe::RESET; e];
    let limit = 4 * (d as u64 + e as u64) + 16;
    let mut cycle = 0u64;
    while pes.iter().any(|pe| pe.resolved < d - 1) {
        if cycle > limit {
            return Err(SimError::Deadlock { cycle });
        }
        // Every PE reads the registers as they were at the end of the previous cycle.
        let old = pes.clone();
        for j in 0..e {
            let mut pe = old[j];
            // The multiplexer: select the word of iteration `done` by the low bits PE
            // j + 1 computed for iteration done - 1 (the high bits that were missing).
            if j != last && pe.resolved < pe.done && old[j + 1].done == pe.done - 1 {
                pe.selected = pe.words[old[j + 1].low as usize];
                pe.resolved = pe.done;
            }
            let i = pe.done + 1;
            let upstream_ready = j == 0 || old[j - 1].done == i;
            if i >= d || pe.resolved != i - 1 || !upstream_ready {
                pes[j] = pe;
                continue;
            }
            // S_i^(j) without its high k bits.
            let base = pe.selected >> p.digit_bits;
            let (x, q, carry) = if j == 0 {
                let x = p.x[i as usize];
                (x, p.quotient(base, x), 0)
            } else {
                // PE j - 1 guessed the high bits of its word, which are the low bits of
                // this PE's word of iteration i - 1: they select the carry.
                let up = &old[j - 1];
                (up.x, up.q, up.carries[pe.low as usize])
            };
            if j == last {
                // Type F: the missing bits are the low bits of its own last carry out.
                let top = pe.carries[0] & p.digit_mask();
                let s = (top << (p.word - p.digit_bits)) | base;
                let (u, c) = p.word_step(j, s, carry, x, q);
                pe.words = [u; MAX_CANDIDATES];
                pe.carries = [c; MAX_CANDIDATES];
                pe.selected = u;
                pe.resolved = i;
            } else {
                for g in 0..candidates {
                    let s = ((g as u64) << (p.word - p.digit_bits)) | base;
                    (pe.words[g], pe.carries[g]) = p.word_step(j, s, carry, x, q);
                }
            }
            pe.low = pe.words[0] & p.digit_mask();
            debug_assert!(pe.words[..candidates]
                .iter()
                .all(|u| u & p.digit_mask() == pe.low));
            pe.done = i;
            pe.x = x;
            pe.q = q;
            pes[j] = pe;
        }
        cycle += 1;
    }
    // Z^(j) = (low bits of U^(j+1), high bits of U^(j)); above the top word, C^(e).
    let z = (0..e)
        .map(|j| {
            let next = if j == last {
                pes[last].carries[0]
            } else {
                pes[j + 1].low
            };
            p.shifted(pes[j].selected, next)
        })
        .collect();
    Ok((cycle, z))
}
