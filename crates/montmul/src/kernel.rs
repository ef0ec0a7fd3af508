//! The [`Kernel`] trait, the list of kernels per limb type, and lookup by name.
//!
//! A kernel is one way of computing the Montgomery product `a * b * R^-1 mod n`. Every
//! algorithm of the seeds is one kernel, so the command line, the tests, the benchmarks
//! and the report all iterate over one list per limb type ([`all`]) and a new algorithm
//! is one new file plus one line here. Kernels written for 64-bit words implement only
//! `Kernel<u64>` and appear only in the list of `u64` ([`PerWord`]); [`by_name`] tells a
//! name that exists for other words only with [`Error::UnsupportedWord`].

use crate::algo;
use crate::arch::{self, Avx2};
use crate::trace::Trace;
use crate::{dispatch, Error, Limb, Modulus, Reduction, Residue};

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

    /// The constant-time table read ([`crate::arch::masked_or`]): `out` = the OR over j
    /// of `table[j] & masks[j]` (masks 0 or all ones).
    fn masked_or(table: &[Vec<Self>], masks: &[u64], out: &mut [Self])
    where
        Self: Limb;

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
    /// `amm52x8-ifma` (public: the lane count, the moduli's sizes and the CPU). Only
    /// `u64` has it; the default is `false`.
    fn mb8_picked(lanes: &[Residue<Self>]) -> bool
    where
        Self: Limb,
    {
        let _ = lanes;
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
            algo: crate::lanes::MB8,
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
            algo: crate::lanes::MB8,
            word: Self::BITS,
        })
    }
}

/// The list of one limb type: the portable seed algorithms every limb type has, then
/// the kernels of this type only (`$extra`, comma after each: for 16-bit words the
/// seed algorithm `columns`, defined for them only), then `auto`, in the order the
/// command line lists them.
macro_rules! kernel_list {
    ($($extra:tt)*) => {
        &[
            &algo::sos::Sos,
            &algo::cios::Cios,
            &algo::fios::Fios,
            &algo::fips::Fips,
            &algo::cihs::Cihs,
            &algo::radix2::Radix2,
            &algo::mwr2mm::Mwr2mm,
            &algo::two_way::TwoWay,
            $($extra)*
            &dispatch::Auto,
        ]
    };
}

/// The limb types that have the portable kernels only; `auto` is CIOS for them.
macro_rules! portable_words {
    ($($t:ty),*) => {$(
        impl PerWord for $t {
            fn kernels() -> &'static [&'static dyn Kernel<Self>] {
                kernel_list![]
            }

            fn auto(_: usize, _: Reduction) -> &'static dyn Kernel<Self> {
                &algo::cios::Cios
            }

            fn masked_or(table: &[Vec<Self>], masks: &[u64], out: &mut [Self]) {
                arch::generic::masked_or(table, masks, out);
            }
        }
    )*};
}

portable_words!(u8);

impl PerWord for u16 {
    fn kernels() -> &'static [&'static dyn Kernel<u16>] {
        kernel_list![
            &algo::columns::Columns,
            #[cfg(target_arch = "x86_64")]
            &arch::x86_64::columns::ColumnsSse2,
            #[cfg(target_arch = "x86_64")]
            &arch::x86_64::columns::ColumnsAvx2,
            #[cfg(target_arch = "x86_64")]
            &arch::x86_64::columns::ColumnsAvx512,
        ]
    }

    fn auto(_: usize, _: Reduction) -> &'static dyn Kernel<u16> {
        &algo::cios::Cios
    }

    fn masked_or(table: &[Vec<u16>], masks: &[u64], out: &mut [u16]) {
        arch::generic::masked_or(table, masks, out);
    }
}

impl PerWord for u32 {
    fn kernels() -> &'static [&'static dyn Kernel<u32>] {
        kernel_list![
            #[cfg(target_arch = "x86_64")]
            &arch::x86_64::two_way::TwoWaySse2,
            #[cfg(target_arch = "x86_64")]
            &arch::x86_64::two_way::TwoWayAvx2,
        ]
    }

    fn auto(_: usize, _: Reduction) -> &'static dyn Kernel<u32> {
        &algo::cios::Cios
    }

    fn masked_or(table: &[Vec<u32>], masks: &[u64], out: &mut [u32]) {
        arch::generic::masked_or(table, masks, out);
    }
}

impl PerWord for u64 {
    fn kernels() -> &'static [&'static dyn Kernel<u64>] {
        kernel_list![
            &crate::fixed::CiosFixed,
            &algo::karatsuba::Karatsuba,
            #[cfg(target_arch = "x86_64")]
            &arch::x86_64::adx::MulxRedc,
            #[cfg(target_arch = "x86_64")]
            &arch::x86_64::adx::cios::MulxCios,
            &crate::generated::GenCios,
            #[cfg(target_arch = "x86_64")]
            &arch::x86_64::avx512ifma::Amm52Ifma,
        ]
    }

    fn auto(limbs: usize, reduction: Reduction) -> &'static dyn Kernel<u64> {
        dispatch::pick(&crate::thresholds::TUNED, limbs, reduction)
    }

    fn masked_or(table: &[Vec<u64>], masks: &[u64], out: &mut [u64]) {
        arch::masked_or(Avx2::new(), table, masks, out);
    }

    #[cfg(target_arch = "x86_64")]
    fn pair_picked(a: &Modulus<u64>, b: &Modulus<u64>) -> bool {
        arch::x86_64::avx512ifma::x2::picked(a, b)
    }

    #[cfg(target_arch = "x86_64")]
    fn pow_pair<T: Trace>(
        a: (&Modulus<u64>, &[u64], &[u8]),
        b: (&Modulus<u64>, &[u64], &[u8]),
        trace: &mut T,
    ) -> Option<(Vec<u64>, Vec<u64>)> {
        arch::x86_64::avx512ifma::x2::pow_x2(a, b, trace)
    }

    #[cfg(target_arch = "x86_64")]
    fn mb8_picked(lanes: &[Residue<u64>]) -> bool {
        crate::lanes::mb8::picked(lanes)
    }

    #[cfg(target_arch = "x86_64")]
    fn pow_mb8(bases: &[Residue<u64>], exponents: &[&[u8]]) -> Result<Vec<Residue<u64>>, Error> {
        crate::lanes::mb8::pow(bases, exponents)
    }

    #[cfg(target_arch = "x86_64")]
    fn mul_mb8(a: &[Residue<u64>], b: &[Residue<u64>]) -> Result<Vec<Residue<u64>>, Error> {
        crate::lanes::mb8::mul(a, b)
    }
}

/// Every kernel instantiated for `L`, in the order the command line lists them.
pub fn all<L: Limb>() -> &'static [&'static dyn Kernel<L>] {
    L::kernels()
}

/// The kernel called `name`. A kernel that exists for other word sizes only is
/// [`Error::UnsupportedWord`]; a name no list has, [`Error::UnknownAlgorithm`].
pub fn by_name<L: Limb>(name: &str) -> Result<&'static dyn Kernel<L>, Error> {
    if let Some(k) = all::<L>().iter().copied().find(|k| k.info().name == name) {
        return Ok(k);
    }
    match catalog().into_iter().find(|info| info.name == name) {
        Some(info) => Err(Error::UnsupportedWord {
            algo: info.name,
            word: L::BITS,
        }),
        None => Err(Error::UnknownAlgorithm {
            name: name.to_string(),
        }),
    }
}

/// The kernel [`Modulus::new`] uses when none is named.
pub fn default<L: Limb>() -> &'static dyn Kernel<L> {
    &dispatch::Auto
}

/// Descriptions of every kernel of every limb type, each name once.
pub fn catalog() -> Vec<&'static KernelInfo> {
    let mut out: Vec<&'static KernelInfo> = Vec::new();
    // The widest word first, then each narrower word's own kernels after it.
    let lists = [
        all::<u64>().iter().map(|k| k.info()).collect::<Vec<_>>(),
        all::<u32>().iter().map(|k| k.info()).collect(),
        all::<u16>().iter().map(|k| k.info()).collect(),
        all::<u8>().iter().map(|k| k.info()).collect(),
    ];
    for info in lists.into_iter().flatten() {
        if !out.iter().any(|o| o.name == info.name) {
            out.push(info);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A modulus of `s` limbs for `L` that every policy keeps at `s` limbs: its top
    /// limb is 2^(w-3) (bits = w s - 2, so R > 4n with `s` limbs), the others odd
    /// patterns.
    fn modulus_limbs<L: Limb>(s: usize) -> Vec<L> {
        let mut n: Vec<L> = (0..s)
            .map(|i| L::from_u64(0x9e37_79b9_7f4a_7c15u64.rotate_left(i as u32) | 1))
            .collect();
        n[s - 1] = L::from_u64(1 << (L::BITS - 3));
        n[0] = n[0].or(L::ONE);
        n
    }

    /// Every kernel of `L`'s list is defined for `L`, builds a modulus under each of its
    /// policies (at a limb count it has code for), and multiplies 3 by 5 there.
    fn every_listed_kernel_builds<L: Limb>() {
        for &k in all::<L>() {
            let info = k.info();
            assert!(
                info.words.contains(&L::BITS),
                "{} is listed for {}-bit words but defined for {:?}",
                info.name,
                L::BITS,
                info.words
            );
            let s = k.limb_counts().map_or(3, |counts| counts[0]);
            let n = modulus_limbs::<L>(s);
            for &r in info.reductions {
                let built = Modulus::with_kernel(&n, k, r);
                if !(info.available)() {
                    assert!(matches!(built, Err(Error::Unavailable { .. })));
                    montmul_testkit::skipped!(
                        "{} ({}-bit): SKIPPED: not on this CPU",
                        info.name,
                        L::BITS
                    );
                    continue;
                }
                let m = built.unwrap_or_else(|e| panic!("{} {r:?}: {e}", info.name));
                assert_eq!(m.limbs(), s, "{} {r:?}", info.name);
                let x = Residue::new(&m, &[L::from_u64(3)]).unwrap();
                let y = Residue::new(&m, &[L::from_u64(5)]).unwrap();
                let z: Vec<u64> = (&x * &y).to_limbs().iter().map(|l| l.to_u64()).collect();
                assert_eq!(z[0], 15, "{} {r:?}", info.name);
                assert!(z[1..].iter().all(|&l| l == 0), "{} {r:?}", info.name);
            }
        }
    }

    #[test]
    fn every_listed_kernel_of_every_word_builds() {
        every_listed_kernel_builds::<u8>();
        every_listed_kernel_builds::<u16>();
        every_listed_kernel_builds::<u32>();
        every_listed_kernel_builds::<u64>();
    }

    /// `columns` is in the 16-bit list only; the others name it as another word's.
    #[test]
    fn columns_is_listed_for_16_bit_words_only() {
        let listed = |names: Vec<&str>| names.contains(&"columns");
        assert!(listed(all::<u16>().iter().map(|k| k.info().name).collect()));
        assert!(!listed(all::<u8>().iter().map(|k| k.info().name).collect()));
        assert!(!listed(
            all::<u32>().iter().map(|k| k.info().name).collect()
        ));
        assert!(!listed(
            all::<u64>().iter().map(|k| k.info().name).collect()
        ));
        assert!(matches!(
            by_name::<u64>("columns"),
            Err(Error::UnsupportedWord { word: 64, .. })
        ));
        assert!(catalog().iter().any(|i| i.name == "columns"));
    }
}
