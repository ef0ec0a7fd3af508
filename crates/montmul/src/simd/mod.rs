//! Kernels built on instructions that not every CPU has, behind run-time feature
//! detection, each with a portable fallback; the one module where `unsafe` is allowed
//! (every block says why it is sound).
//!
//! - [`mulx`]: the multiply-accumulate row on BMI2 `mulx` and ADX `adcx`/`adox`
//!   (two independent carry chains), x86-64 only.
//! - [`mulx_cios`]: CIOS fully unrolled for 4 to 8 limbs on `mulx`/`adcx`/`adox`,
//!   the accumulator in registers, x86-64 only.
//! - [`ifma`]: almost-Montgomery multiplication in radix 2^52 on AVX-512 IFMA
//!   (`vpmadd52luq`/`vpmadd52huq`), x86-64 only.
//! - [`ifma_exp`]: constant-time exponentiation on the IFMA kernel's 52-bit digits,
//!   without converting between the products.
//! - [`select`]: the exponentiations' constant-time table reads (AVX2 where the
//!   CPU has it).

#![allow(unsafe_code)]

pub mod ifma;
pub mod ifma_exp;
// The straight-line triangle and diagonal macros are shared with `mulx_cios`.
#[macro_use]
pub mod mulx;
pub mod mulx_cios;
pub mod select;
