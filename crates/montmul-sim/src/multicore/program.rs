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

use super::code::{Operands, Program};
use super::config::{Config, Method};
use super::method_one;
use crate::SimError;

mod builder;
mod epilogue;
mod iteration;
mod residency;
mod sliced;

use builder::{Builder, Layout};
use iteration::Blocks;

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
