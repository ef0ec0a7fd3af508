//! Size thresholds of the `auto` kernel, in 64-bit limbs.
//!
//! Written by `montmul tune`; edit by re-running it, not by hand.
//! Machine: AMD EPYC, 2 CPUs, x86_64, bmi2 adx avx512ifma
//! Date: 2026-11-22
//! Sizes tried: up to 128 limbs; `usize::MAX` means never within them.

use crate::dispatch::Thresholds;

/// The thresholds `auto` and `karatsuba` use.
pub const TUNED: Thresholds = Thresholds {
    ifma_from: 8,
    karatsuba_from: 116,
    mulx_from: 14,
    mulx_redc: &[12],
    karatsuba_mul_base: 78,
    karatsuba_sqr_base: 96,
    generated: &[4, 6, 8],
    mulx_cios: &[4, 5, 6, 7, 8],
};
