//! The one error type of the library: every bad input becomes one of these, never a panic.

use core::fmt;

/// Everything that can go wrong when building a modulus or a residue from outside data.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The modulus has no digits at all.
    EmptyModulus,
    /// The modulus is zero.
    ZeroModulus,
    /// The modulus is one: every residue would be zero.
    ModulusIsOne,
    /// The modulus is even: Montgomery multiplication needs gcd(n, 2^w) = 1.
    EvenModulus,
    /// The modulus is longer than the supported maximum.
    ModulusTooLarge {
        /// Bit length of the modulus that was given.
        bits: u32,
        /// The largest supported bit length.
        max: u32,
    },
    /// A string that should be hexadecimal is not.
    InvalidHex {
        /// What was wrong, in a few words.
        reason: String,
    },
    /// An operand in normal form is not below the modulus.
    OperandTooLarge,
    /// No algorithm or kernel has this name.
    UnknownAlgorithm {
        /// The name that was asked for.
        name: String,
    },
    /// The algorithm does not work with this word size.
    UnsupportedWord {
        /// The algorithm's name.
        algo: &'static str,
        /// The word size in bits that was asked for.
        word: u32,
    },
    /// The algorithm does not offer this reduction policy.
    UnsupportedReduction {
        /// The algorithm's name.
        algo: &'static str,
        /// The policy that was asked for.
        reduction: crate::Reduction,
    },
    /// The kernel has no code for moduli of this many limbs (a size-specialised kernel,
    /// see [`crate::Kernel::limb_counts`]).
    UnsupportedSize {
        /// The kernel's name.
        algo: &'static str,
        /// The modulus' limb count under the policy asked for.
        limbs: usize,
    },
    /// The kernel needs a CPU feature this machine does not have.
    Unavailable {
        /// The kernel's name.
        algo: &'static str,
    },
    /// Two residues of different moduli were combined.
    ModulusMismatch,
    /// A limb vector does not have the length the modulus needs (e.g. a Montgomery form
    /// given to [`crate::Residue::from_montgomery`]).
    WrongLength {
        /// The length needed, in limbs.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// An output buffer or a requested output length is too short for the modulus
    /// (fixed-length output: [`crate::Residue::write_be_bytes`]).
    OutputTooShort {
        /// The least length that holds every residue, in bytes.
        needed: usize,
        /// The length given.
        got: usize,
    },
    /// The residue has no inverse: it shares a factor with the modulus (or is zero).
    NotInvertible,
    /// More independent operations were handed over at once than the lanes take
    /// ([`crate::lanes::MAX_LANES`]).
    TooManyLanes {
        /// The number of operations given.
        lanes: usize,
        /// The most one call takes.
        max: usize,
    },
    /// An exponent is longer than the [`crate::PowScratch`] or [`crate::FixedBase`] it
    /// is run on was made for, or a [`crate::FixedBase`] was asked for exponents longer
    /// than its table can take ([`crate::FixedBase::MAX_TABLE_BYTES`]).
    ExponentTooLong {
        /// The exponent's length, in bytes.
        len: usize,
        /// The longest taken, in bytes.
        max: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::EmptyModulus => write!(f, "modulus is empty"),
            Error::ZeroModulus => write!(f, "modulus must not be zero"),
            Error::ModulusIsOne => write!(f, "modulus must be greater than one"),
            Error::EvenModulus => write!(f, "modulus must be odd"),
            Error::ModulusTooLarge { bits, max } => {
                write!(f, "modulus has {bits} bits; at most {max} are supported")
            }
            Error::InvalidHex { reason } => write!(f, "not a hexadecimal number: {reason}"),
            Error::OperandTooLarge => write!(f, "operand must be smaller than the modulus"),
            Error::UnknownAlgorithm { name } => {
                write!(f, "unknown algorithm '{name}' (see `montmul algos`)")
            }
            Error::UnsupportedWord { algo, word } => {
                write!(f, "algorithm '{algo}' does not support {word}-bit words")
            }
            Error::UnsupportedReduction { algo, reduction } => {
                write!(
                    f,
                    "algorithm '{algo}' does not support {reduction} reduction"
                )
            }
            Error::UnsupportedSize { algo, limbs } => {
                write!(
                    f,
                    "algorithm '{algo}' has no code for moduli of {limbs} limbs (see `montmul algos`)"
                )
            }
            Error::Unavailable { algo } => {
                write!(
                    f,
                    "algorithm '{algo}' needs a CPU feature this machine lacks"
                )
            }
            Error::ModulusMismatch => write!(f, "residues belong to different moduli"),
            Error::WrongLength { expected, got } => {
                write!(f, "expected {expected} limbs, got {got}")
            }
            Error::OutputTooShort { needed, got } => {
                write!(
                    f,
                    "output of {got} bytes is too short: the modulus needs {needed}"
                )
            }
            Error::NotInvertible => write!(f, "value has no inverse modulo the modulus"),
            Error::TooManyLanes { lanes, max } => {
                write!(
                    f,
                    "{lanes} operations given at once; at most {max} are taken"
                )
            }
            Error::ExponentTooLong { len, max } => {
                write!(f, "exponent of {len} bytes; at most {max} are taken here")
            }
        }
    }
}

impl std::error::Error for Error {}
