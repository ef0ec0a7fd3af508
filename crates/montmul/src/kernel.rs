//! The list of kernels per limb type, and lookup by name. The interface they implement
//! ([`Kernel`], [`KernelInfo`], [`PowDomain`], [`PerWord`]) is `kernel/traits.rs`,
//! re-exported here.
//!
//! A kernel is one way of computing the Montgomery product `a * b * R^-1 mod n`. Every
//! algorithm of the seeds is one kernel, so the command line, the tests, the benchmarks
//! and the report all iterate over one list per limb type ([`all`]) and a new algorithm
//! is one new file plus one line here. Kernels written for 64-bit words implement only
//! `Kernel<u64>` and appear only in the list of `u64` ([`PerWord`]); [`by_name`] tells a
//! name that exists for other words only with [`Error::UnsupportedWord`].

pub(crate) mod traits;

pub use traits::{portable, Kernel, KernelInfo, PerWord, PowDomain};

use crate::algo;
use crate::arch::{self, Avx2};
#[cfg(target_arch = "x86_64")]
use crate::trace::Trace;
use crate::{dispatch, Error, Limb, Reduction};
#[cfg(target_arch = "x86_64")]
use crate::{Modulus, Residue};

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
            #[cfg(target_arch = "x86_64")]
            &arch::x86_64::amm28::Amm28Avx2,
        ]
    }

    fn auto(limbs: usize, reduction: Reduction) -> &'static dyn Kernel<u64> {
        dispatch::pick(&crate::thresholds::TUNED, limbs, reduction)
    }

    fn select(table: &[u64], index: usize, out: &mut [u64]) {
        arch::select(Avx2::new(), table, index, out);
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
    fn mb8_picked(lanes: &[Residue<u64>], paired: bool) -> bool {
        crate::lanes::mb8::picked(lanes, paired)
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
    use crate::{Modulus, Residue};

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
