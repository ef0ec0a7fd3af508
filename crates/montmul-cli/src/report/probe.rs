//! Probes of this CPU for the report's header and its efficiency figure: the clock,
//! from a chain of dependent 64-bit register-to-register additions (one per cycle on
//! every x86-64 core of the last twenty years), and the throughput of AVX-512 IFMA's
//! `vpmadd52luq` / `vpmadd52huq` on 16 independent accumulators (so that their latency
//! is hidden): the method of `shared/tools/ifma-throughput.c`, in Rust, with the
//! chain's addend in a register.
//!
//! The chain adds a register, not an immediate. A chain of `add x, 3` (the loop of
//! `ifma-throughput.c`) read 14.7 GHz on a Xeon with 300 MiB of L3 (Sapphire Rapids
//! class): several dependent additions a cycle, which a core can only do by folding
//! the immediates at register renaming, as Intel's cores from Golden Cove on are
//! reported to. A register's value is not known at renaming, so each `add x, y`
//! waits for the one before.
//!
//! On a shared machine a long loop is interrupted by other processes, so each probe is
//! many short samples (well under a scheduler's time slice) and keeps the fastest.
//!
//! Architecture-specific code: x86-64 only, with inline assembly; elsewhere, and on an
//! x86-64 without IFMA, the probes return `None` and the report says so.

use std::time::Instant;

/// Samples per probe; the fastest is kept.
const SAMPLES: usize = 100;

/// The measured clock in GHz, when this architecture has a probe: the fastest of
/// [`SAMPLES`] runs of `iters` iterations of 16 dependent register additions.
pub fn clock_ghz(iters: u64) -> Option<f64> {
    best(|| imp::add_chain_seconds(iters)).map(|secs| 16.0 * iters as f64 / secs / 1e9)
}

/// IFMA instructions per cycle on 512-bit registers, half `vpmadd52luq` and half
/// `vpmadd52huq` (a Montgomery product needs both), the fastest of [`SAMPLES`] runs of
/// `iters` iterations, when the CPU has AVX-512 IFMA. Each instruction does 8
/// lane-products of 52 x 52 bits.
pub fn ifma_per_cycle(iters: u64, ghz: f64) -> Option<f64> {
    best(|| imp::ifma_seconds(iters)).map(|secs| 16.0 * iters as f64 / (secs * ghz * 1e9))
}

/// The shortest of [`SAMPLES`] runs of `f`, if it runs here.
fn best(mut f: impl FnMut() -> Option<f64>) -> Option<f64> {
    (0..SAMPLES)
        .map(|_| f())
        .collect::<Option<Vec<f64>>>()?
        .into_iter()
        .filter(|&s| s > 0.0)
        .min_by(f64::total_cmp)
}

/// Seconds of `f`.
fn seconds(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod imp {
    use std::arch::asm;

    use super::seconds;

    pub fn add_chain_seconds(iters: u64) -> Option<f64> {
        let mut x = 1u64;
        let n = iters.max(1);
        // The addend comes through a register (see the module doc); black_box keeps
        // it from being a constant the compiler could fold into an immediate.
        let step = std::hint::black_box(3u64);
        let secs = seconds(|| {
            // SAFETY: a counted loop of register additions on `x` and the counter,
            // both in-out operands the asm owns, and `step`, an input it only reads;
            // no memory, no stack. The loop's own `dec`/`jnz` run beside the chain of
            // 16 dependent additions.
            unsafe {
                asm!(
                    "2:",
                    ".rept 16",
                    "add {x}, {step}",
                    ".endr",
                    "dec {n}",
                    "jnz 2b",
                    x = inout(reg) x,
                    n = inout(reg) n => _,
                    step = in(reg) step,
                    options(nomem, nostack),
                );
            }
        });
        std::hint::black_box(x);
        Some(secs)
    }

    pub fn ifma_seconds(iters: u64) -> Option<f64> {
        if !(std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512ifma"))
        {
            return None;
        }
        // SAFETY: the CPU has AVX-512F and AVX-512 IFMA, checked just above.
        Some(seconds(|| unsafe { ifma_loop(iters) }))
    }

    /// # Safety
    /// The CPU must have AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn ifma_loop(iters: u64) {
        // SAFETY: a counted loop of register-only IFMA instructions on zmm0..zmm15
        // (accumulators, declared clobbered) and zmm30/zmm31 (sources, read whatever
        // they hold: only the timing matters); the caller guarantees the features.
        unsafe {
            asm!(
                "2:",
                "vpmadd52luq zmm0, zmm31, zmm30",
                "vpmadd52huq zmm1, zmm31, zmm30",
                "vpmadd52luq zmm2, zmm31, zmm30",
                "vpmadd52huq zmm3, zmm31, zmm30",
                "vpmadd52luq zmm4, zmm31, zmm30",
                "vpmadd52huq zmm5, zmm31, zmm30",
                "vpmadd52luq zmm6, zmm31, zmm30",
                "vpmadd52huq zmm7, zmm31, zmm30",
                "vpmadd52luq zmm8, zmm31, zmm30",
                "vpmadd52huq zmm9, zmm31, zmm30",
                "vpmadd52luq zmm10, zmm31, zmm30",
                "vpmadd52huq zmm11, zmm31, zmm30",
                "vpmadd52luq zmm12, zmm31, zmm30",
                "vpmadd52huq zmm13, zmm31, zmm30",
                "vpmadd52luq zmm14, zmm31, zmm30",
                "vpmadd52huq zmm15, zmm31, zmm30",
                "dec {n}",
                "jnz 2b",
                n = inout(reg) iters.max(1) => _,
                out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
                out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
                out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
                out("zmm12") _, out("zmm13") _, out("zmm14") _, out("zmm15") _,
                options(nomem, nostack),
            );
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    pub fn add_chain_seconds(_: u64) -> Option<f64> {
        None
    }

    pub fn ifma_seconds(_: u64) -> Option<f64> {
        None
    }
}
