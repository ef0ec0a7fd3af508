//! The `auto` kernel: picks the fastest kernel for the limb type, the limb count, the
//! reduction policy and the CPU, once per [`Modulus`].
//!
//! The choice is a short chain, as in OpenSSL's `bn_mul_mont` dispatch and GMP's
//! threshold tables:
//!
//! 1. limbs other than 64 bits: [`crate::algo::cios`];
//! 2. a limb count in [`Thresholds::mulx_cios`] with the [`arch::Adx`](crate::arch::Adx) token (BMI2 and
//!    ADX): the unrolled `mulx`/`adcx`/`adox` CIOS of that size (`mulx-cios`);
//! 3. [`Reduction::Full`] and a limb count in [`Thresholds::generated`]: the
//!    generated, fully unrolled `gen-cios` code of that size (full-reduction code only);
//! 4. from [`Thresholds::ifma_from`] limbs with the [`arch::Avx512Ifma`](crate::arch::Avx512Ifma) token: `amm52-ifma`
//!    (radix-2^52 almost-Montgomery on `vpmadd52luq`/`vpmadd52huq`), its vector count
//!    fixed here;
//! 5. from [`Thresholds::karatsuba_from`] limbs: [`crate::algo::karatsuba`] (separated
//!    Karatsuba product and REDC);
//! 6. from [`Thresholds::mulx_from`] limbs, or at a limb count in
//!    [`Thresholds::mulx_redc`], with the [`arch::Adx`](crate::arch::Adx) token: `mulx-redc`
//!    (schoolbook product and REDC on `mulx` rows), on stack arrays at the
//!    specialised sizes;
//! 7. a limb count with a size-specialised instance: [`crate::fixed::Fixed`];
//! 8. otherwise the same code with run-time lengths, [`crate::fixed::Words`].
//!
//! [`Modulus::with_kernel`](crate::Modulus::with_kernel) asks [`Kernel::resolve`] once
//! and keeps the answer, so each product is one indirect call straight into the chosen
//! code; `auto`'s own `mul` goes to that answer and picks nothing. The sizes come from
//! [`crate::thresholds`], a table that `montmul tune` measures on the machine at hand
//! and rewrites.
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` and `Lazy`. Constant-time: yes (every kernel
//! it can pick is; the pick depends on the limb count, the policy and the CPU only).

use crate::algo::karatsuba::Karatsuba;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{adx, avx512ifma};
#[cfg(target_arch = "x86_64")]
use crate::arch::{Adx, Avx512Ifma};
use crate::fixed::{self, Words};
use crate::generated;
use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{Limb, Modulus, Reduction};

/// Size thresholds of the 64-bit kernels, in limbs. [`crate::thresholds::TUNED`] holds
/// the values measured for this machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    /// From this many limbs, `auto` uses the AVX-512 IFMA kernel where the CPU has it
    /// (before every other choice below).
    pub ifma_from: usize,
    /// From this many limbs, `auto` uses Karatsuba + REDC instead of CIOS and SOS.
    pub karatsuba_from: usize,
    /// From this many limbs (and below `karatsuba_from`), `auto` uses the schoolbook
    /// product and REDC on `mulx`/`adcx`/`adox` rows where the CPU has them.
    pub mulx_from: usize,
    /// Limb counts below `mulx_from` at which `auto` uses `mulx-redc` all the same,
    /// where the CPU has BMI2 and ADX (where it measured faster than `cios-fixed`: its
    /// four rows per pass at 12 limbs).
    pub mulx_redc: &'static [usize],
    /// Karatsuba multiplication recurses while the operands have at least this many
    /// limbs, and uses the schoolbook product below (GMP's `MUL_TOOM22_THRESHOLD`).
    pub karatsuba_mul_base: usize,
    /// The same for squaring (GMP's `SQR_TOOM2_THRESHOLD`).
    pub karatsuba_sqr_base: usize,
    /// Limb counts at which `auto` uses the generated kernels of `gen-cios` (where they
    /// measured faster than the rest of this chain).
    pub generated: &'static [usize],
    /// Limb counts at which `auto` uses the unrolled `mulx`/`adcx`/`adox` CIOS of
    /// `mulx-cios` where the CPU has BMI2 and ADX (checked before `generated`).
    pub mulx_cios: &'static [usize],
}

/// The `auto` kernel.
pub struct Auto;

static INFO: KernelInfo = KernelInfo {
    name: "auto",
    seed: "dispatch, tuned thresholds",
    summary: "picks the fastest kernel for the limb type, limb count, policy and CPU (tuned table)",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

/// The 64-bit kernel `auto` picks for `limbs` limbs under `reduction` and thresholds
/// `th`, on this CPU (other limb types: [`crate::lab::PerWord::auto`]).
pub fn pick(th: &Thresholds, limbs: usize, reduction: Reduction) -> &'static dyn Kernel<u64> {
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = Adx::new().filter(|_| th.mulx_cios.contains(&limbs)) {
        if let Some(k) = adx::cios::specialised(adx, limbs) {
            return k;
        }
    }
    if reduction == Reduction::Full && th.generated.contains(&limbs) {
        if let Some(k) = generated::specialised(limbs) {
            return k;
        }
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(ifma) = Avx512Ifma::new().filter(|_| limbs >= th.ifma_from) {
        return avx512ifma::for_limbs(ifma, limbs, reduction);
    }
    if limbs >= th.karatsuba_from {
        return Karatsuba.resolve(limbs, reduction).unwrap_or(&Karatsuba);
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = Adx::new().filter(|_| limbs >= th.mulx_from || th.mulx_redc.contains(&limbs))
    {
        return adx::mulx_redc(adx, limbs);
    }
    fixed::specialised(limbs).unwrap_or(&Words)
}

impl<L: Limb> Kernel<L> for Auto {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn resolve(&self, limbs: usize, reduction: Reduction) -> Option<&'static dyn Kernel<L>> {
        Some(L::auto(limbs, reduction))
    }

    /// Through the kernel picked for the modulus ([`Modulus::engine`]): nothing is
    /// picked per product.
    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        m.engine().mul_exact(m, a, b, out);
    }

    fn sqr_exact(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        m.engine().sqr_exact(m, a, out);
    }
}
