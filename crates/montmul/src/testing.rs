//! Test-only overrides of the run-time CPU detection: hidden from the documentation,
//! not part of the engine API.
//!
//! Valgrind executes BMI2 `mulx` and ADX `adcx`/`adox` but hides ADX from CPUID, so
//! under it the detection alone would never pick the `mulx` kernels. The valgrind
//! constant-time harness (`examples/ct_valgrind.rs`) calls [`assume_adx`] so that the
//! kernels production uses on an ADX machine are the ones it checks.

use core::sync::atomic::{AtomicBool, Ordering};

static ASSUME_ADX: AtomicBool = AtomicBool::new(false);

/// From now on, answer "yes" wherever montmul asks whether the CPU has BMI2 and ADX
/// ([`crate::simd::mulx::is_available`]), whatever the detection says; there is no way
/// back. For tests only: call it under valgrind (which runs these instructions on any
/// x86-64 host) or on a CPU that has them, or the `mulx` kernels stop the process with
/// an illegal instruction. It changes nothing on other architectures.
pub fn assume_adx() {
    ASSUME_ADX.store(true, Ordering::Relaxed);
}

/// Whether [`assume_adx`] was called.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn adx_assumed() -> bool {
    ASSUME_ADX.load(Ordering::Relaxed)
}
