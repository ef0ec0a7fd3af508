//! CPU features as capability tokens, detected once.
//!
//! As in memchr's `arch` module: a token ([`Adx`], [`Avx2`], [`Avx512Ifma`], [`Avx512Bw`]) is a value
//! of size zero that exists only when the CPU has the feature, so code that takes one
//! needs no check of its own. [`Adx::new`] and the others ask the CPU once, cache the
//! answer in an atomic, and from then on only read it; no kernel and no row detects
//! anything. On other architectures they always return `None`.

use core::sync::atomic::{AtomicU8, Ordering};

/// Not asked yet.
const UNKNOWN: u8 = 0;
/// The CPU lacks the feature.
const ABSENT: u8 = 1;
/// The CPU has the feature.
const PRESENT: u8 = 2;

/// The cached answer in `state`, asking `detect` the first time.
#[inline]
fn cached(state: &AtomicU8, detect: fn() -> bool) -> bool {
    match state.load(Ordering::Relaxed) {
        PRESENT => true,
        ABSENT => false,
        _ => {
            let yes = detect();
            // Two threads may both detect; they store the same answer. A store of
            // PRESENT by `assume_adx` in between wins only if it comes last, which the
            // test that uses it arranges by calling it first.
            let _ = state.compare_exchange(
                UNKNOWN,
                if yes { PRESENT } else { ABSENT },
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            state.load(Ordering::Relaxed) == PRESENT
        }
    }
}

static ADX: AtomicU8 = AtomicU8::new(UNKNOWN);
static AVX2: AtomicU8 = AtomicU8::new(UNKNOWN);
static AVX512_IFMA: AtomicU8 = AtomicU8::new(UNKNOWN);
static AVX512_BW: AtomicU8 = AtomicU8::new(UNKNOWN);
static SPLITS_512: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Proof that the CPU has BMI2 (`mulx`, `shrx`) and ADX (`adcx`, `adox`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adx(pub(in crate::arch) ());

impl Adx {
    /// The token, when this CPU has BMI2 and ADX (detected once, then cached).
    #[inline]
    pub fn new() -> Option<Self> {
        cached(&ADX, detect_adx).then_some(Adx(()))
    }
}

/// Proof that the CPU has AVX2.
#[derive(Clone, Copy, Debug)]
pub struct Avx2(pub(in crate::arch) ());

impl Avx2 {
    /// The token, when this CPU has AVX2 (detected once, then cached).
    #[inline]
    pub fn new() -> Option<Self> {
        cached(&AVX2, detect_avx2).then_some(Avx2(()))
    }
}

/// Proof that the CPU has AVX-512F and AVX-512 IFMA (`vpmadd52luq`/`vpmadd52huq`).
#[derive(Clone, Copy, Debug)]
pub struct Avx512Ifma(pub(in crate::arch) ());

impl Avx512Ifma {
    /// The token, when this CPU has AVX-512F and AVX-512 IFMA (detected once, then
    /// cached).
    #[inline]
    pub fn new() -> Option<Self> {
        cached(&AVX512_IFMA, detect_avx512_ifma).then_some(Avx512Ifma(()))
    }

    /// Whether this CPU runs a 512-bit multiply-add as two 256-bit halves, so that it
    /// issues twice as many 256-bit `vpmadd52` a cycle as 512-bit ones and a lane costs
    /// the same at either width (detected once, then cached).
    ///
    /// Yes on AMD's family 0x19 (Zen 4: one 512-bit or two 256-bit multiply-adds a
    /// cycle, measured). No elsewhere, as on the Intel Xeons measured (about two of
    /// either width a cycle, `docs/PERFORMANCE.md`, "An Intel Xeon for a session"),
    /// where a 512-bit register does twice the work of a 256-bit one. Kernels that can
    /// run on either width ask this to choose; both widths give the same results.
    #[inline]
    pub fn splits_512(self) -> bool {
        cached(&SPLITS_512, detect_splits_512)
    }
}

/// Proof that the CPU has AVX-512F and AVX-512BW (16-bit lanes on 512 bits:
/// `vpmullw`, `vpmulhuw`, `vpunpcklwd` on zmm).
#[derive(Clone, Copy, Debug)]
pub struct Avx512Bw(pub(in crate::arch) ());

impl Avx512Bw {
    /// The token, when this CPU has AVX-512F and AVX-512BW (detected once, then cached).
    #[inline]
    pub fn new() -> Option<Self> {
        cached(&AVX512_BW, detect_avx512_bw).then_some(Avx512Bw(()))
    }
}

#[cfg(target_arch = "x86_64")]
fn detect_adx() -> bool {
    std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("adx")
}

#[cfg(target_arch = "x86_64")]
fn detect_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

#[cfg(target_arch = "x86_64")]
fn detect_avx512_ifma() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512ifma")
}

#[cfg(target_arch = "x86_64")]
fn detect_avx512_bw() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_avx512_bw() -> bool {
    false
}

/// AMD's family 0x19 (Zen 3 and Zen 4; of these only Zen 4 has AVX-512), from CPUID
/// leaves 0 (the vendor) and 1 (the family: base, plus the extended one where the base
/// is 0xF).
#[cfg(target_arch = "x86_64")]
fn detect_splits_512() -> bool {
    use core::arch::x86_64::__cpuid;
    let vendor = __cpuid(0);
    let amd = [vendor.ebx, vendor.edx, vendor.ecx] == [0x6874_7541, 0x6974_6e65, 0x444d_4163];
    let eax = __cpuid(1).eax;
    let base = (eax >> 8) & 0xf;
    let family = if base == 0xf {
        base + ((eax >> 20) & 0xff)
    } else {
        base
    };
    amd && family == 0x19
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_splits_512() -> bool {
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_adx() -> bool {
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_avx2() -> bool {
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_avx512_ifma() -> bool {
    false
}

/// Makes [`Adx::new`] answer yes from now on, whatever the CPU says (x86-64 only; a
/// no-op elsewhere). For the valgrind constant-time test only: valgrind 3.19 runs
/// `mulx`/`adcx`/`adox` correctly but hides ADX from CPUID, so without this the kernels
/// production uses would never be chosen under it. On a CPU without BMI2/ADX the
/// kernels it enables die on an illegal instruction.
pub(crate) fn assume_adx() {
    #[cfg(target_arch = "x86_64")]
    ADX.store(PRESENT, Ordering::Relaxed);
}
