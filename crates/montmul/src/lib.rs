//! montmul: Montgomery multiplication for any odd modulus from a few bits to 16384 bits.
//!
//! ```
//! use montmul::{Modulus, Residue};
//!
//! let m = Modulus::<u64>::from_hex("0xfffffffffffffffffffffffffffffffeffffffffffffffff")?;
//! let a = Residue::from_hex(&m, "1234567890abcdef")?;
//! let b = Residue::from_hex(&m, "fedcba0987654321")?;
//! assert_eq!((&a * &b).to_hex_vartime(), "121fa000a3723a57c24a442fe55618cf");
//! # Ok::<(), montmul::Error>(())
//! ```
//!
//! The engine, at the crate root: [`Limb`] (machine words of 8 to 64 bits),
//! [`Modulus`] (validated modulus, Montgomery constants and the kernel chosen for it,
//! once), [`Residue`] (a value in Montgomery form), [`PowScratch`] (the buffers of
//! exponentiations that allocate nothing), [`FixedBase`] (the powers of a base raised
//! many times), [`Reduction`], [`Error`], with
//! [`ct`] (constant-time helpers), [`encoding`] and [`parallel`]. The laboratory, in
//! [`lab`]: every kernel by name, the seed algorithms, the thresholds of `auto` and the
//! exponentiation's steps. The map of the layers is `docs/ARCHITECTURE.md`.

pub mod ct;
pub mod encoding;
mod error;
mod fixed_base;
mod inverse;
pub mod lab;
pub mod lanes;
mod limb;
mod modulus;
mod multi_exp;
pub mod parallel;
mod reduce;
mod residue;
mod small;

// The laboratory's layers: public through `lab`, and under their own paths (hidden) for
// the workspace's tools.
#[doc(hidden)]
pub mod algo;
mod dispatch;
#[doc(hidden)]
pub mod exp;
#[doc(hidden)]
pub mod kernel;
mod thresholds;
mod trace;

// Internal layers, reachable (hidden) for the workspace's own tools and tests only:
// `montmul tune` times the rows and thresholds, `montmul-gen` checks the committed
// generated files.
#[doc(hidden)]
pub mod arch;
#[doc(hidden)]
pub mod fixed;
#[doc(hidden)]
pub mod generated;
#[doc(hidden)]
pub mod mpn;

pub use error::Error;
pub use exp::PowScratch;
pub use fixed_base::FixedBase;
#[doc(hidden)]
pub use kernel::{Kernel, KernelInfo};
pub use limb::{Limb, WORD_SIZES};
pub use modulus::{Modulus, Reduction, MAX_BITS};
pub use residue::Residue;
pub use small::{FieldElement, FieldKernel, FieldModulus, FIELD_MAX_LIMBS};

/// Overrides for tests that run montmul under tools which hide CPU features.
#[doc(hidden)]
pub mod testing {
    /// Makes the cached BMI2+ADX detection answer yes, so that `auto` and the
    /// `mulx-*` kernels run the `mulx`/`adcx`/`adox` code: for the valgrind
    /// constant-time test only. Valgrind 3.19 runs those instructions correctly but
    /// hides ADX from CPUID. Call it before the first modulus is built; on a CPU without
    /// BMI2/ADX the code it enables dies on an illegal instruction. A no-op off x86-64.
    pub fn assume_adx() {
        crate::arch::assume_adx();
    }
}
