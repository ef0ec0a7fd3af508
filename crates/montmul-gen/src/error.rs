//! [`GenError`]: every way a generator request can fail.

use core::fmt;

use crate::sizes::{MAX_BITS, MIN_BITS};

/// Why a kernel could not be generated or written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenError {
    /// The modulus size is outside [`MIN_BITS`]..=[`MAX_BITS`].
    BitsOutOfRange {
        /// The size asked for.
        bits: u32,
    },
    /// The output language is neither `rust` nor `c`.
    UnknownLanguage {
        /// The name asked for.
        name: String,
    },
    /// The algorithm is not one the generator knows.
    UnknownAlgorithm {
        /// The name asked for.
        name: String,
    },
    /// The word size is neither 32 nor 64.
    UnsupportedWord {
        /// The size asked for, in bits.
        word: u32,
    },
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::BitsOutOfRange { bits } => write!(
                f,
                "modulus size must be from {} to {} bits, not {bits}",
                MIN_BITS, MAX_BITS
            ),
            GenError::UnknownLanguage { name } => {
                write!(f, "unknown language '{name}' (rust or c)")
            }
            GenError::UnknownAlgorithm { name } => {
                write!(f, "unknown algorithm '{name}' (cios, fios or sos)")
            }
            GenError::UnsupportedWord { word } => {
                write!(f, "word size must be 32 or 64, not {word}")
            }
        }
    }
}

impl std::error::Error for GenError {}
