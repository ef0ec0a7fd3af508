//! What a program generator takes and gives, whichever it is ([`super::program`] for one
//! core and method-II, [`super::method_one`] for method-I): the operands' words it is
//! generated for ([`Operands`]) and the program it makes ([`Program`]), which the packer
//! and the machine then run.

use super::isa::{Addr, Instr, Reg};

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
    /// With write-back ([`Config::write_back`](super::Config::write_back)): the address
    /// of the result in the data memory (s + 1 words, the top one zero).
    pub result: Option<Addr>,
    /// Registers per core (single core and method-II:
    /// [`SCRATCH_REGISTERS`](super::registers::SCRATCH_REGISTERS) + S_rf + 4 (s + 1), the
    /// accumulator, the two rows of products and the result).
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
