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

use super::code::{Operands, Program};
use super::config::Config;
use crate::SimError;

mod code;
mod columns;
mod registers;
mod rows;
mod setup;
mod split;
mod subtraction;

pub use columns::generate_columns;
use rows::generate_rows;

/// Positions per carry block of an iteration. The smallest size with the fewest cycles
/// on 4 cores at n = 256, w = 16, S_rf = 16, over 2..=32 (test
/// `method_i_block_is_the_best_on_4_cores`, docs/ARCHITECTURES.md).
pub const BLOCK: usize = 7;

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
