//! montmul-sim: cycle-level models of the machines the seed documents build Montgomery
//! multiplication on, run on real operands and checked against montmul's core.
//!
//! - [`systolic`]: the word-serial MWR2MM processing-element arrays of seed 003 (Huang,
//!   Gaj, Kwon, El-Ghazawi): the Tenca-Koc pipeline and the optimized architecture that
//!   computes both values of the missing most significant bit, radix 2 and radix 4.
//! - [`multicore`]: the VLIW multi-core platform of seed 002 (Fan, Sakiyama,
//!   Verbauwhede): w-bit cores with a 7-instruction ISA and a 4-stage pipeline behind one
//!   single-port data memory, with program generators for single-core FIOS, method-I and
//!   method-II.
//!
//! Every model computes the product on the data it is given, word by word, as the
//! hardware would, and counts clock cycles by stepping its pipeline; [`check`] compares
//! the product with the CIOS kernel of montmul's core.

pub mod check;
mod error;
pub mod multicore;

pub mod systolic;

pub use error::SimError;
