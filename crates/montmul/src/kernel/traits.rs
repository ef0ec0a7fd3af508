//! The interface of a kernel: the [`Kernel`] trait (one Montgomery multiplication
//! algorithm, for one limb type) and its description [`KernelInfo`], [`PowDomain`] (a
//! kernel's own domain for exponentiation) and [`PerWord`] (what differs per limb type:
//! its list of kernels, `auto`'s pick, the table read, the multi-buffer hooks). The
//! kernels and `auto` (`dispatch.rs`) implement these; the lists in `kernel.rs`, which
//! re-exports them, gather the kernels.

use crate::trace::Trace;
use crate::{Error, Limb, Modulus, Reduction, Residue};

/// The 8-lane kernel's name ([`crate::lanes`]), here because [`PerWord`]'s default
/// `pow_mb8` and `mul_mb8` name it when they refuse; `lanes` takes it from here, so
/// neither file imports the other.
pub(crate) const MB8: &str = "amm52x8-ifma";

/// The pair kernel's name ([`crate::lanes::pow_x2`]), beside [`MB8`].
pub(crate) const PAIR: &str = "amm52x2-ifma";

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
/// `m.limbs()` limbs (checked there, once, before the kernel's own code runs); with
/// [`Reduction::Full`] the inputs are below n and so is the output, with
/// [`Reduction::Lazy`] inputs and output are below 2n (and R > 4n). The output is
/// `a * b * R^-1 mod n` (for `Lazy`, congruent to it), R = 2^(w * m.limbs()).
///
/// A kernel implements [`Kernel::mul_exact`] and [`Kernel::sqr_exact`], which may rely
/// on those lengths; callers use [`Kernel::mul`] and [`Kernel::sqr`].
pub trait Kernel<L: Limb>: Send + Sync {
    /// The kernel's description.
    fn info(&self) -> &'static KernelInfo;

    /// `out = a * b * R^-1 mod n`, the lengths already checked by [`Kernel::mul`].
    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]);

    /// `out = a * a * R^-1 mod n`, the lengths already checked by [`Kernel::sqr`].
    /// Kernels with a dedicated squaring override this.
    fn sqr_exact(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        self.mul_exact(m, a, a, out);
    }

    /// `out = a * b * R^-1 mod n`.
    ///
    /// # Panics
    /// When `a`, `b` or `out` has not exactly `m.limbs()` limbs: nothing is computed on
    /// a slice of the wrong length.
    #[inline]
    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let s = m.limbs();
        assert!(
            a.len() == s && b.len() == s && out.len() == s,
            "Kernel::mul: operands of {}, {} and {} limbs for a modulus of {s}",
            a.len(),
            b.len(),
            out.len()
        );
        self.mul_exact(m, a, b, out);
    }

    /// `out = a * a * R^-1 mod n`.
    ///
    /// # Panics
    /// When `a` or `out` has not exactly `m.limbs()` limbs: nothing is computed on a
    /// slice of the wrong length.
    #[inline]
    fn sqr(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        let s = m.limbs();
        assert!(
            a.len() == s && out.len() == s,
            "Kernel::sqr: operands of {} and {} limbs for a modulus of {s}",
            a.len(),
            out.len()
        );
        self.sqr_exact(m, a, out);
    }

    /// The kernel that does the work for moduli of `limbs` limbs under `reduction`,
    /// asked once when a [`Modulus`] is built and kept there ([`Modulus::engine`]).
    /// Dispatchers (`auto`, `cios-fixed`, the size-specialised and CPU-specific kernels)
    /// return the kernel they pick, and their own products go to the modulus' engine;
    /// `None`, the default, means this kernel itself.
    fn resolve(&self, limbs: usize, reduction: Reduction) -> Option<&'static dyn Kernel<L>> {
        let _ = (limbs, reduction);
        None
    }

    /// The limb counts the kernel has code for, when it is made for some sizes only
    /// (`gen-cios`: generated, fully unrolled code per size); `None`, the default, means
    /// every count. [`Modulus::with_kernel`] refuses a modulus of another limb count
    /// with [`Error::UnsupportedSize`].
    fn limb_counts(&self) -> Option<&'static [usize]> {
        None
    }

    /// The domain the exponentiation's ladder runs in for `m`, when this kernel has one
    /// of its own (the 52-bit digits of `amm52-ifma`: no conversion between the
    /// products); `None`, the default, means the modulus' limbs through [`Kernel::mul`].
    /// Asked of the modulus' engine once per [`crate::PowScratch`], which keeps it, so
    /// that the exponentiations that reuse the scratch allocate nothing.
    fn pow_domain(&self, m: &Modulus<L>) -> Option<Box<dyn PowDomain<L>>> {
        let _ = m;
        None
    }
}

/// A kernel's own domain for exponentiation ([`Kernel::pow_domain`]): values are
/// [`PowDomain::words`] words of the kernel's choosing (for `amm52-ifma`, 52-bit
/// digits), in a Montgomery form of its own, related to the modulus' by
/// [`PowDomain::enter`] and [`PowDomain::leave`]. Nothing here allocates: every buffer
/// is the caller's (the [`crate::PowScratch`]). Every operation must be constant-time
/// in the values; the lengths are public.
pub trait PowDomain<L: Limb>: Send + Sync {
    /// The length of one value, in words.
    fn words(&self) -> usize;
    /// The length of the scratch [`PowDomain::enter`] and [`PowDomain::leave`] need, in
    /// words.
    fn scratch_words(&self) -> usize;
    /// `out` ([`PowDomain::words`] words) = the domain's 1.
    fn one(&self, out: &mut [u64]);
    /// `out` = a value of the modulus' Montgomery form (below its bound) in this
    /// domain; `scratch` holds [`PowDomain::scratch_words`] words.
    fn enter(&self, x: &[L], out: &mut [u64], scratch: &mut [u64]);
    /// `out` (`m.limbs()` limbs) = `y` back in the modulus' Montgomery form, reduced
    /// under its policy; `scratch` holds [`PowDomain::scratch_words`] words.
    fn leave(&self, y: &[u64], out: &mut [L], scratch: &mut [u64]);
    /// `out = a b`, the domain's Montgomery product.
    fn mul(&self, a: &[u64], b: &[u64], out: &mut [u64]);
    /// `out = a^2`, the domain's Montgomery square.
    fn sqr(&self, a: &[u64], out: &mut [u64]);
}

/// What differs per limb type: the list of kernels, the kernel `auto` picks, the
/// exponentiations' table read, and the multi-buffer kernels of [`crate::lanes`] (the
/// pair `amm52x2-ifma` and the 8-lane `amm52x8-ifma`, `u64` only). Implemented for
/// `u8`, `u16`, `u32` and `u64` (every [`Limb`]); the 64-bit kernels (`cios-fixed`,
/// `karatsuba`, `mulx-redc`, `mulx-cios`, `gen-cios`, `amm52-ifma`) are only in the
/// list of `u64`.
pub trait PerWord: Sized + 'static {
    /// Every kernel for this limb type, in the order the command line lists them.
    fn kernels() -> &'static [&'static dyn Kernel<Self>]
    where
        Self: Limb;

    /// The kernel `auto` uses for `limbs` limbs under `reduction`, on this CPU.
    fn auto(limbs: usize, reduction: Reduction) -> &'static dyn Kernel<Self>
    where
        Self: Limb;

    /// The exponentiations' constant-time table read: `out = table[index]`, every
    /// entry read in full whatever the index; the entries lie one after another, each
    /// `out.len()` words long. Portable by default ([`crate::arch::generic::select`]);
    /// `u64` has AVX2 ([`crate::arch::select`]).
    ///
    /// # Panics
    /// If the table's length is not a multiple of `out`'s, or it has more than
    /// 2^[`crate::exp::MAX_WINDOW`] entries.
    fn select(table: &[Self], index: usize, out: &mut [Self])
    where
        Self: Limb,
    {
        crate::arch::generic::select(table, index, out);
    }

    /// Whether [`crate::lanes`] runs `a` and `b` in lockstep (public: the moduli's
    /// sizes, engines and the CPU): where [`PerWord::pow_pair`] runs them and lockstep
    /// measured faster than one after the other. Only `u64` has a pair kernel
    /// (`amm52x2-ifma`); the default is `false`.
    fn pair_picked(a: &Modulus<Self>, b: &Modulus<Self>) -> bool
    where
        Self: Limb,
    {
        let _ = (a, b);
        false
    }

    /// `a^ea` and `b^eb` (Montgomery form, each below its modulus' bound) in lockstep,
    /// telling `trace` the steps of one exponentiation of the longer exponent's length,
    /// wherever the pair kernel covers the two moduli (also where
    /// [`PerWord::pair_picked`] would not pick it); `None` where it does not (the
    /// default).
    fn pow_pair<T: Trace>(
        a: (&Modulus<Self>, &[Self], &[u8]),
        b: (&Modulus<Self>, &[Self], &[u8]),
        trace: &mut T,
    ) -> Option<(Vec<Self>, Vec<Self>)>
    where
        Self: Limb,
    {
        let _ = (a, b, trace);
        None
    }

    /// Whether [`crate::lanes`] runs this batch of exponentiations on the 8-lane kernel
    /// `amm52x8-ifma` (public: the lane count, the moduli's sizes and the CPU), against
    /// the jobs two by two in lockstep where `paired` (some two of them
    /// [`PerWord::pair_picked`]), else one by one. Only `u64` has it; the default is
    /// `false`.
    fn mb8_picked(lanes: &[Residue<Self>], paired: bool) -> bool
    where
        Self: Limb,
    {
        let _ = (lanes, paired);
        false
    }

    /// `bases[i] ^ exponents[i]` on `amm52x8-ifma`, wherever it covers the lanes (also
    /// where [`PerWord::mb8_picked`] would not pick it): [`crate::lanes::pow_lanes_mb8`].
    /// The default refuses with [`Error::UnsupportedWord`].
    fn pow_mb8(bases: &[Residue<Self>], exponents: &[&[u8]]) -> Result<Vec<Residue<Self>>, Error>
    where
        Self: Limb,
    {
        let _ = (bases, exponents);
        Err(Error::UnsupportedWord {
            algo: MB8,
            word: Self::BITS,
        })
    }

    /// `a[i] * b[i]` on `amm52x8-ifma`, words in and out: [`crate::lanes::mul_lanes_mb8`].
    /// The default refuses with [`Error::UnsupportedWord`].
    fn mul_mb8(a: &[Residue<Self>], b: &[Residue<Self>]) -> Result<Vec<Residue<Self>>, Error>
    where
        Self: Limb,
    {
        let _ = (a, b);
        Err(Error::UnsupportedWord {
            algo: MB8,
            word: Self::BITS,
        })
    }
}
