//! The [`Kernel`] trait, the list of every kernel, and lookup by name.
//!
//! A kernel is one way of computing the Montgomery product `a * b * R^-1 mod n`. Every
//! algorithm of the seeds is one kernel, so the command line, the tests, the benchmarks
//! and the report all iterate over one list ([`all`]) and a new algorithm is one new file
//! plus one line here.

use crate::algo;
use crate::{Error, Limb, Modulus, Reduction};

/// What a kernel is, independent of the limb type it is instantiated for.
#[derive(Debug)]
pub struct KernelInfo {
    /// The name the command line and the benchmarks use (`cios`, `two-way`, ...).
    pub name: &'static str,
    /// Where the algorithm comes from (seed file and algorithm number).
    pub seed: &'static str,
    /// One line: what the kernel does.
    pub summary: &'static str,
    /// Word sizes, in bits, the kernel is defined for.
    pub words: &'static [u32],
    /// Reduction policies the kernel offers; the first is its default.
    pub reductions: &'static [Reduction],
    /// Whether the kernel's instruction sequence and memory accesses are independent of
    /// the operand values.
    pub constant_time: bool,
    /// Whether this CPU can run the kernel (always true for portable kernels).
    pub available: fn() -> bool,
}

/// Always available: portable code.
pub fn portable() -> bool {
    true
}

/// One Montgomery multiplication algorithm, for one limb type.
///
/// Contract for [`Kernel::mul`] and [`Kernel::sqr`]: every slice has exactly
/// `m.limbs()` limbs; with [`Reduction::Full`] the inputs are below n and so is the
/// output, with [`Reduction::Lazy`] inputs and output are below 2n (and R > 4n). The
/// output is `a * b * R^-1 mod n` (for `Lazy`, congruent to it), R = 2^(w * m.limbs()).
pub trait Kernel<L: Limb>: Send + Sync {
    /// The kernel's description.
    fn info(&self) -> &'static KernelInfo;

    /// `out = a * b * R^-1 mod n`.
    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]);

    /// `out = a * a * R^-1 mod n`. Kernels with a dedicated squaring override this.
    fn sqr(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        self.mul(m, a, a, out);
    }

    /// The kernel that does the work for moduli of `limbs` limbs, asked once when a
    /// [`Modulus`] is built and kept there. Dispatchers (`auto`, `cios-fixed`) return the
    /// kernel they pick; `None`, the default, means this kernel itself.
    fn resolve(&self, limbs: usize) -> Option<&'static dyn Kernel<L>> {
        let _ = limbs;
        None
    }

    /// The limb counts the kernel has code for, when it is made for some sizes only
    /// (`gen-cios`: generated, fully unrolled code per size); `None`, the default, means
    /// every count. [`Modulus::with_kernel`] refuses a modulus of another limb count
    /// with [`Error::UnsupportedSize`].
    fn limb_counts(&self) -> Option<&'static [usize]> {
        None
    }
}

/// The [`Kernel`] impl of a kernel made for some limb counts only (`gen-cios`,
/// `mulx-cios`): `$info` describes it, `$counts` lists the counts it has code for, and
/// `$specialised::<L>(limbs)` is the code of one count (a kernel of its own), which
/// [`Kernel::resolve`] hands to the [`Modulus`]. Called directly at another count, it
/// falls back to [`crate::algo::cios`].
macro_rules! size_specialised_kernel {
    ($kernel:ty, $info:expr, $counts:expr, $specialised:ident) => {
        impl<L: $crate::Limb> $crate::kernel::Kernel<L> for $kernel {
            fn info(&self) -> &'static $crate::kernel::KernelInfo {
                &$info
            }

            fn limb_counts(&self) -> Option<&'static [usize]> {
                Some($counts)
            }

            fn resolve(&self, limbs: usize) -> Option<&'static dyn $crate::kernel::Kernel<L>> {
                $specialised::<L>(limbs)
            }

            fn mul(&self, m: &$crate::Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
                $specialised::<L>(m.limbs())
                    .unwrap_or(&$crate::algo::cios::Cios)
                    .mul(m, a, b, out);
            }

            fn sqr(&self, m: &$crate::Modulus<L>, a: &[L], out: &mut [L]) {
                $specialised::<L>(m.limbs())
                    .unwrap_or(&$crate::algo::cios::Cios)
                    .sqr(m, a, out);
            }
        }
    };
}
pub(crate) use size_specialised_kernel;

struct Registry<L>(core::marker::PhantomData<L>);

impl<L: Limb> Registry<L> {
    const ALL: &'static [&'static dyn Kernel<L>] = &[
        &algo::sos::Sos,
        &algo::cios::Cios,
        &algo::fios::Fios,
        &algo::fips::Fips,
        &algo::cihs::Cihs,
        &algo::radix2::Radix2,
        &algo::mwr2mm::Mwr2mm,
        &algo::two_way::TwoWay,
        &algo::columns::Columns,
        &crate::fixed::CiosFixed,
        &algo::karatsuba::Karatsuba,
        &crate::simd::mulx::MulxRedc,
        &crate::simd::mulx_cios::MulxCios,
        &crate::generated::GenCios,
        &crate::simd::ifma::Amm52Ifma,
        &crate::dispatch::Auto,
    ];
}

/// Every kernel instantiated for `L`, in the order the command line lists them.
pub fn all<L: Limb>() -> &'static [&'static dyn Kernel<L>] {
    Registry::<L>::ALL
}

/// The kernel called `name`.
pub fn by_name<L: Limb>(name: &str) -> Result<&'static dyn Kernel<L>, Error> {
    all::<L>()
        .iter()
        .copied()
        .find(|k| k.info().name == name)
        .ok_or_else(|| Error::UnknownAlgorithm {
            name: name.to_string(),
        })
}

/// The kernel [`Modulus::new`] uses when none is named.
pub fn default<L: Limb>() -> &'static dyn Kernel<L> {
    &crate::dispatch::Auto
}

/// Descriptions of every kernel of every limb type, each name once.
pub fn catalog() -> Vec<&'static KernelInfo> {
    let mut out: Vec<&'static KernelInfo> = Vec::new();
    let lists = [
        all::<u8>().iter().map(|k| k.info()).collect::<Vec<_>>(),
        all::<u16>().iter().map(|k| k.info()).collect(),
        all::<u32>().iter().map(|k| k.info()).collect(),
        all::<u64>().iter().map(|k| k.info()).collect(),
    ];
    for info in lists.into_iter().flatten() {
        if !out.iter().any(|o| o.name == info.name) {
            out.push(info);
        }
    }
    out
}
