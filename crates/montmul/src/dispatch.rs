//! The `auto` kernel: picks the fastest kernel for the limb type, the limb count and the
//! CPU, once per [`Modulus`].
//!
//! The choice is a short chain, as in OpenSSL's `bn_mul_mont` dispatch and GMP's
//! threshold tables:
//!
//! 1. limbs other than 64 bits: [`crate::algo::cios`];
//! 2. a limb count in [`Thresholds::mulx_cios`] on a CPU with BMI2 and ADX: the
//!    unrolled `mulx`/`adcx`/`adox` CIOS of that size ([`crate::simd::mulx_cios`]);
//! 3. a limb count in [`Thresholds::generated`]: the generated, fully unrolled
//!    `gen-cios` code of that size ([`crate::generated`]);
//! 4. from [`Thresholds::ifma_from`] limbs on a CPU with AVX-512 IFMA:
//!    [`crate::simd::ifma::Amm52Ifma`] (radix-2^52 almost-Montgomery on
//!    `vpmadd52luq`/`vpmadd52huq`);
//! 5. from [`Thresholds::karatsuba_from`] limbs: [`crate::algo::karatsuba`] (separated
//!    Karatsuba product and REDC);
//! 6. from [`Thresholds::mulx_from`] limbs on a CPU with BMI2 and ADX:
//!    [`crate::simd::mulx::MulxRedc`] (schoolbook product and REDC on `mulx` rows),
//!    in its stack-array form [`crate::fixed::FixedMulx`] at the specialised sizes;
//! 7. a limb count with a size-specialised instance: [`crate::fixed::Fixed`];
//! 8. otherwise the same code with run-time lengths, [`crate::fixed::Words`].
//!
//! [`Modulus::with_kernel`](crate::Modulus::with_kernel) asks [`Kernel::resolve`] once
//! and keeps the answer, so each product is one indirect call straight into the chosen
//! code. The sizes come from [`crate::thresholds`], a table that `montmul tune`
//! measures on the machine at hand and rewrites.
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` and `Lazy`. Constant-time: yes (every kernel
//! it can pick is; the pick depends on the limb count only).

use crate::algo::cios::Cios;
use crate::algo::karatsuba::Karatsuba;
use crate::fixed::{self, Words};
use crate::generated;
use crate::kernel::{portable, Kernel, KernelInfo};
use crate::simd::ifma::{self, Amm52Ifma};
use crate::simd::mulx::{self, MulxRedc};
use crate::simd::mulx_cios;
use crate::{thresholds, Limb, Modulus, Reduction};

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
    summary: "picks the fastest kernel for the limb type, limb count and CPU (tuned table)",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

/// The kernel `auto` picks for `limbs` limbs of type `L` under thresholds `th`.
pub fn pick<L: Limb>(th: &Thresholds, limbs: usize) -> &'static dyn Kernel<L> {
    if L::BITS != 64 {
        &Cios
    } else if let Some(k) = mulx_cios::specialised::<L>(limbs)
        .filter(|_| th.mulx_cios.contains(&limbs) && mulx::is_available())
    {
        k
    } else if let Some(k) =
        generated::specialised::<L>(limbs).filter(|_| th.generated.contains(&limbs))
    {
        k
    } else if limbs >= th.ifma_from && ifma::is_available() {
        &Amm52Ifma
    } else if limbs >= th.karatsuba_from {
        &Karatsuba
    } else if limbs >= th.mulx_from && mulx::is_available() {
        fixed::specialised_mulx::<L>(limbs).unwrap_or(&MulxRedc)
    } else {
        fixed::specialised::<L>(limbs).unwrap_or(&Words)
    }
}

impl<L: Limb> Kernel<L> for Auto {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn resolve(&self, limbs: usize) -> Option<&'static dyn Kernel<L>> {
        Some(pick::<L>(&thresholds::TUNED, limbs))
    }

    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        pick::<L>(&thresholds::TUNED, m.limbs()).mul(m, a, b, out);
    }

    fn sqr(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        pick::<L>(&thresholds::TUNED, m.limbs()).sqr(m, a, out);
    }
}
