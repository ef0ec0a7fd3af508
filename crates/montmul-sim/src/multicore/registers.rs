//! The registers every core's program names alike, whichever generator built it
//! ([`super::program`] for one core and method-II, [`super::method_one`] for method-I):
//! the first scratch registers of the datapath, and which words of X, M and Z a core keeps
//! in its S_rf registers (after the [`SCRATCH_REGISTERS`]) for the whole loop (seed 002,
//! Table 3).

use super::isa::Reg;

/// Named registers of the datapath in every core, beside the S_rf registers that hold
/// words of X and M and the blocks for the accumulator and the rows (the seed's S_rf
/// counts only words of X, M and Z).
pub const SCRATCH_REGISTERS: usize = 24;

// The scratch registers both generators name alike; each names the rest up to
// `SCRATCH_REGISTERS` for itself. `Mul` writes a pair (r, r + 1).
pub(super) const ZERO: Reg = 0;
pub(super) const MP: Reg = 1;
pub(super) const Y: Reg = 2;
pub(super) const T: Reg = 3; // and 4: the high word of (Z_0 + X_0 Y_i) M', unused

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
    /// s/p = `words`, each range closed below): from 3s/p registers on X, M and Z stay;
    /// from 2s/p, X and Z; from s/p, Z; below, nothing.
    pub fn sliced(registers: usize, words: usize) -> Self {
        let r = registers;
        Residency {
            x: r >= 2 * words,
            m: r >= 3 * words,
            z: r >= words,
        }
    }

    /// Method-I (Table 3: from 2s registers X and M stay, from s X; Z always travels
    /// through memory).
    pub fn whole(registers: usize, words: usize) -> Self {
        Residency {
            x: registers >= words,
            m: registers >= 2 * words,
            z: false,
        }
    }
}
