//! The one error type of the simulators: bad parameters or operands, never a panic.

use core::fmt;

/// Everything that can go wrong when setting up or running a simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SimError {
    /// A parameter is outside the range the model supports.
    InvalidParameter {
        /// The parameter's name as the command line spells it (`word`, `radix`, ...).
        name: &'static str,
        /// Why the value was refused, in a few words.
        reason: String,
    },
    /// The modulus is not odd, or not greater than one.
    InvalidModulus,
    /// An operand is not below the modulus.
    OperandTooLarge,
    /// The modelled machine stopped making progress: a scheduling bug in the model or
    /// the program generator, reported instead of looping forever.
    Deadlock {
        /// The cycle at which the model gave up.
        cycle: u64,
    },
    /// A generated program breaks a rule of the machine (register or address out of
    /// range): a bug in the generator, reported instead of a panic.
    InvalidProgram {
        /// What is wrong.
        reason: String,
    },
    /// The simulated product differs from montmul's core.
    Mismatch {
        /// Which model produced the wrong product.
        model: String,
    },
    /// montmul's core refused the operands.
    Core(montmul::Error),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::InvalidParameter { name, reason } => write!(f, "--{name}: {reason}"),
            SimError::InvalidModulus => write!(f, "modulus must be odd and greater than one"),
            SimError::OperandTooLarge => write!(f, "operand must be smaller than the modulus"),
            SimError::Deadlock { cycle } => {
                write!(
                    f,
                    "the modelled machine stopped making progress at cycle {cycle}"
                )
            }
            SimError::InvalidProgram { reason } => write!(f, "invalid program: {reason}"),
            SimError::Mismatch { model } => {
                write!(f, "{model}: simulated product differs from montmul's core")
            }
            SimError::Core(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<montmul::Error> for SimError {
    fn from(e: montmul::Error) -> Self {
        SimError::Core(e)
    }
}

impl SimError {
    /// Shorthand for [`SimError::InvalidParameter`].
    pub(crate) fn param(name: &'static str, reason: impl Into<String>) -> Self {
        SimError::InvalidParameter {
            name,
            reason: reason.into(),
        }
    }
}
