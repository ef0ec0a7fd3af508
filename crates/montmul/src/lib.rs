//! montmul: Montgomery multiplication for any odd modulus from a few bits to 16384 bits.
//!
//! ```
//! use montmul::{Modulus, Residue};
//!
//! let m = Modulus::<u64>::from_hex("0xfffffffffffffffffffffffffffffffeffffffffffffffff")?;
//! let a = Residue::from_hex(&m, "1234567890abcdef")?;
//! let b = Residue::from_hex(&m, "fedcba0987654321")?;
//! assert_eq!((&a * &b).to_hex(), "121fa000a3723a57c24a442fe55618cf");
//! # Ok::<(), montmul::Error>(())
//! ```
//!
//! The pieces, one file per idea: [`Limb`] (machine words of 8 to 64 bits),
//! [`Modulus`] (validated modulus and Montgomery constants), [`Residue`] (a value in
//! Montgomery form tied to its modulus), [`kernel`] (the [`Kernel`] trait and the list
//! of every algorithm), [`algo`] (the algorithms of the seed documents), [`ct`]
//! (constant-time helpers).

pub mod algo;
pub mod ct;
pub mod encoding;
mod error;
pub mod kernel;
mod limb;
mod modulus;
pub mod parallel;
mod residue;
mod small;

pub mod dispatch;
pub mod exp;
pub mod fixed;
pub mod generated;
pub mod mpn;
pub mod simd;
pub mod thresholds;

pub use error::Error;
pub use kernel::{Kernel, KernelInfo};
pub use limb::{Limb, WORD_SIZES};
pub use modulus::{Modulus, Reduction, MAX_BITS};
pub use residue::Residue;
pub use small::{FieldElement, FieldKernel, FieldModulus, FIELD_MAX_LIMBS};
