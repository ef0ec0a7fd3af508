//! The laboratory: every Montgomery multiplication kernel by name, the algorithms of the
//! seed documents, the thresholds `auto` chooses by, and the exponentiation's ladder and
//! steps, for the command line, the report, the benchmarks and the tests to iterate
//! over. The engine ([`crate::Modulus`], [`crate::Residue`]) picks from here once per
//! modulus; applications need nothing of this module.
//!
//! - [`Kernel`], [`KernelInfo`] and the list per limb type: [`all`], [`by_name`],
//!   [`default`], [`catalog`], [`PerWord`];
//! - [`algo`]: one module per seed algorithm;
//! - [`Auto`], the kernel that picks, and its [`Thresholds`];
//! - [`exp`]: the fixed-window and sliding-window exponentiations with their
//!   [`exp::Trace`] and [`exp::Ladder`];
//! - [`Counted`], a machine word that counts the operations a portable kernel executes
//!   ([`count_product`]), for seed 001's instruction-count table.

#[doc(inline)]
pub use crate::algo;
pub use crate::dispatch::{Auto, Thresholds};
#[doc(inline)]
pub use crate::exp;
pub use crate::kernel::{
    all, by_name, catalog, default, portable, Kernel, KernelInfo, PerWord, PowDomain,
};

/// The 64-bit kernel `auto` picks under the given thresholds (what `montmul tune`
/// compares against).
#[doc(hidden)]
pub use crate::dispatch::pick;
/// The thresholds measured for this machine (`montmul tune` rewrites them).
#[doc(hidden)]
pub use crate::thresholds::TUNED;

mod counted;
pub use counted::{count, count_product, Counted, Counts};
