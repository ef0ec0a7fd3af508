//! The IFMA kernels' registers: the operations a step needs, over 256-bit and 512-bit
//! registers of 52-bit digits, so that a step is written once for both widths: the
//! pair kernel's (`x2/step.rs`) and the multi-buffer kernel's (`mb8.rs`, eight lanes
//! on 512-bit registers or four on 256-bit ones).

use core::arch::x86_64::*;

use super::digits::DIGIT;

/// [`DIGIT`] as a lane value.
const DIGIT52: i64 = DIGIT as i64;

/// Lane 1 of `x` through memory: a 16-byte store and an 8-byte load that the store
/// forwards, neither a uop on the ports of the vector arithmetic, where `vpextrq`
/// takes two of them (one on the shuffle port, which on an Intel Xeon also runs the
/// 512-bit multiply-adds). The load is volatile so that the compiler does not fold the
/// pair back into `vpextrq`. On that Xeon a 1024-bit product's step measured about 15%
/// shorter this way (`docs/PERFORMANCE.md`).
#[inline(always)]
fn lane1_through_memory(x: __m128i) -> u64 {
    let mut buf = [0u64; 2];
    // SAFETY: a 16-byte unaligned store (SSE2, part of x86-64) into a local of 16 bytes.
    unsafe { _mm_storeu_si128(buf.as_mut_ptr().cast(), x) };
    // SAFETY: a read of an initialised local.
    unsafe { core::ptr::read_volatile(&buf[1]) }
}

/// Lane `lane` (0 ..= 7) of `x`, as a scalar, through memory as
/// [`lane1_through_memory`]: the 256-bit half that holds the lane is stored (from the
/// upper half by `vextracti64x4` to memory, no shuffle) and the lane read back. Not
/// the whole register: on the Intel Xeon measured a 64-byte store is not forwarded to
/// a load from its upper half, and the packed pair (`x2/packed.rs`) took 1.3x the
/// time.
///
/// # Safety
/// The CPU has AVX-512F.
#[inline(always)]
pub(super) unsafe fn lane_through_memory(x: __m512i, lane: usize) -> u64 {
    debug_assert!(lane < 8);
    // Aligned: a store that crosses a cache line is not forwarded.
    #[repr(align(32))]
    struct Half([u64; 4]);
    let mut buf = Half([0; 4]);
    // SAFETY: a 32-byte aligned store into a local of 32 bytes; the caller enables
    // AVX-512F.
    unsafe {
        let half = if lane < 4 {
            _mm512_castsi512_si256(x)
        } else {
            _mm512_extracti64x4_epi64::<1>(x)
        };
        _mm256_store_si256(buf.0.as_mut_ptr().cast(), half)
    };
    // SAFETY: a read of an initialised local (the index is in bounds).
    unsafe { core::ptr::read_volatile(&buf.0[lane % 4]) }
}

/// A register of 52-bit digits, one per 64-bit lane: the operations the steps of the
/// pair and of the multi-buffer kernel need, for 256-bit (`__m256i`, AVX-512VL) and
/// 512-bit (`__m512i`) registers. The steps are written once over this trait; which
/// width a size or a batch runs on is the caller's choice (`x2::instances`,
/// `mb8::amm`).
///
/// # Safety
/// Every method needs AVX-512F and AVX-512 IFMA, and for `__m256i` AVX-512VL; they are
/// only called from functions that enable those features, into which they are inlined.
pub(super) trait Reg: Copy {
    /// Lanes (digits) per register.
    const LANES: usize;
    /// All lanes 0.
    unsafe fn zero() -> Self;
    /// Every lane `x`.
    unsafe fn splat(x: u64) -> Self;
    /// Every lane `*x`, broadcast from memory: a load. [`Self::splat`] of a value that
    /// is also used as a scalar (and a vector load of the same word, which the compiler
    /// merges with the scalar one) is a move from a general register, a uop on the
    /// shuffle port, which on an Intel Xeon also runs the 512-bit multiply-adds: one
    /// uop fewer a step measured 3-5% faster products at 1536-2560 and 8192 bits there
    /// (`docs/PERFORMANCE.md`). Inline assembly, as the compiler has no other way to
    /// keep the load.
    unsafe fn splat_at(x: &u64) -> Self;
    /// `acc + lo52(a b)`, lane by lane (`vpmadd52luq`).
    unsafe fn madd_lo(acc: Self, a: Self, b: Self) -> Self;
    /// `acc + hi52(a b)`, lane by lane (`vpmadd52huq`).
    unsafe fn madd_hi(acc: Self, a: Self, b: Self) -> Self;
    /// `a + b`, lane by lane.
    unsafe fn add(a: Self, b: Self) -> Self;
    /// `x >> 52`, lane by lane: the carries above the digits.
    unsafe fn shr52(x: Self) -> Self;
    /// `x mod 2^52`, lane by lane: the digits.
    unsafe fn low52(x: Self) -> Self;
    /// The lanes of `x` shifted down one, lane 0 of `next` in the top lane (`valignq`).
    unsafe fn down(next: Self, x: Self) -> Self;
    /// `a` with the lanes set in `mask` taken from `b` (`vpblendmq`).
    unsafe fn blend(a: Self, mask: u8, b: Self) -> Self;
    /// `a` with the lanes not set in `mask` zeroed.
    unsafe fn maskz(mask: u8, a: Self) -> Self;
    /// Lane 0, as a scalar.
    unsafe fn low(x: Self) -> u64;
    /// Lane 1, as a scalar (through memory: [`lane1_through_memory`]).
    unsafe fn lane1(x: Self) -> u64;
    /// Lane 1, as a scalar, by `vpextrq`: a uop on the shuffle port, but no store on the
    /// path ([`Self::lane1`]).
    unsafe fn lane1_extract(x: Self) -> u64;
    /// The first `LANES` digits of `x`.
    unsafe fn load(x: &[u64]) -> Self;
    /// The `LANES` words at `p`, unchecked (the hot loops of `mb8.rs`, whose
    /// offsets are bounded by their loop counts).
    ///
    /// # Safety
    /// As the other methods, and `LANES` words at `p` are readable.
    unsafe fn load_at(p: *const u64) -> Self;
    /// Stores `x` to the 8 words at `p`, lanes past `LANES` as 0.
    ///
    /// # Safety
    /// As the other methods, and 8 words at `p` are writable.
    unsafe fn store8_at(x: Self, p: *mut u64);
    /// The registers `x` as 512-bit vectors: `V` of them, lanes past the last register 0.
    unsafe fn widen<const W: usize, const V: usize>(x: &[Self; W]) -> [__m512i; V];
}

impl Reg for __m512i {
    const LANES: usize = 8;
    #[inline(always)]
    unsafe fn zero() -> Self {
        _mm512_setzero_si512()
    }
    #[inline(always)]
    unsafe fn splat(x: u64) -> Self {
        _mm512_set1_epi64(x as i64)
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn splat_at(x: &u64) -> Self {
        let v: Self;
        // SAFETY: an 8-byte load from a reference into a register; the caller enables
        // AVX-512F (trait doc).
        unsafe {
            core::arch::asm!("vpbroadcastq {0}, qword ptr [{1}]", out(zmm_reg) v, in(reg) x,
                options(pure, readonly, nostack, preserves_flags));
        }
        v
    }
    #[inline(always)]
    unsafe fn madd_lo(acc: Self, a: Self, b: Self) -> Self {
        // SAFETY: the caller enables AVX-512F and IFMA (trait doc).
        unsafe { _mm512_madd52lo_epu64(acc, a, b) }
    }
    #[inline(always)]
    unsafe fn madd_hi(acc: Self, a: Self, b: Self) -> Self {
        // SAFETY: as in `madd_lo`.
        unsafe { _mm512_madd52hi_epu64(acc, a, b) }
    }
    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        _mm512_add_epi64(a, b)
    }
    #[inline(always)]
    unsafe fn shr52(x: Self) -> Self {
        _mm512_srli_epi64::<52>(x)
    }
    #[inline(always)]
    unsafe fn low52(x: Self) -> Self {
        _mm512_and_si512(x, _mm512_set1_epi64(DIGIT52))
    }
    #[inline(always)]
    unsafe fn down(next: Self, x: Self) -> Self {
        _mm512_alignr_epi64::<1>(next, x)
    }
    #[inline(always)]
    unsafe fn blend(a: Self, mask: u8, b: Self) -> Self {
        _mm512_mask_mov_epi64(a, mask, b)
    }
    #[inline(always)]
    unsafe fn maskz(mask: u8, a: Self) -> Self {
        _mm512_maskz_mov_epi64(mask, a)
    }
    #[inline(always)]
    unsafe fn low(x: Self) -> u64 {
        _mm_cvtsi128_si64(_mm512_castsi512_si128(x)) as u64
    }
    #[inline(always)]
    unsafe fn lane1(x: Self) -> u64 {
        lane1_through_memory(_mm512_castsi512_si128(x))
    }
    #[inline(always)]
    unsafe fn lane1_extract(x: Self) -> u64 {
        // SAFETY: SSE4.1, implied by the AVX-512F the caller enables (trait doc).
        unsafe { _mm_extract_epi64::<1>(_mm512_castsi512_si128(x)) as u64 }
    }
    #[inline(always)]
    unsafe fn load(x: &[u64]) -> Self {
        assert!(x.len() >= 8);
        // SAFETY: 8 words in bounds (checked); loadu has no alignment requirement.
        unsafe { _mm512_loadu_si512(x.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn load_at(p: *const u64) -> Self {
        // SAFETY: the caller guarantees 8 readable words; no alignment needed.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }
    #[inline(always)]
    unsafe fn store8_at(x: Self, p: *mut u64) {
        // SAFETY: the caller guarantees 8 writable words; no alignment needed.
        unsafe { _mm512_storeu_si512(p.cast(), x) }
    }
    #[inline(always)]
    unsafe fn widen<const W: usize, const V: usize>(x: &[Self; W]) -> [__m512i; V] {
        core::array::from_fn(|v| if v < W { x[v] } else { _mm512_setzero_si512() })
    }
}

impl Reg for __m256i {
    const LANES: usize = 4;
    #[inline(always)]
    unsafe fn zero() -> Self {
        _mm256_setzero_si256()
    }
    #[inline(always)]
    unsafe fn splat(x: u64) -> Self {
        _mm256_set1_epi64x(x as i64)
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn splat_at(x: &u64) -> Self {
        let v: Self;
        // SAFETY: an 8-byte load from a reference into a register (AVX2's form).
        unsafe {
            core::arch::asm!("vpbroadcastq {0}, qword ptr [{1}]", out(ymm_reg) v, in(reg) x,
                options(pure, readonly, nostack, preserves_flags));
        }
        v
    }
    #[inline(always)]
    unsafe fn madd_lo(acc: Self, a: Self, b: Self) -> Self {
        // SAFETY: the caller enables AVX-512F, IFMA and VL (trait doc).
        unsafe { _mm256_madd52lo_epu64(acc, a, b) }
    }
    #[inline(always)]
    unsafe fn madd_hi(acc: Self, a: Self, b: Self) -> Self {
        // SAFETY: as in `madd_lo`.
        unsafe { _mm256_madd52hi_epu64(acc, a, b) }
    }
    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        _mm256_add_epi64(a, b)
    }
    #[inline(always)]
    unsafe fn shr52(x: Self) -> Self {
        _mm256_srli_epi64::<52>(x)
    }
    #[inline(always)]
    unsafe fn low52(x: Self) -> Self {
        _mm256_and_si256(x, _mm256_set1_epi64x(DIGIT52))
    }
    #[inline(always)]
    unsafe fn down(next: Self, x: Self) -> Self {
        // SAFETY: the caller enables AVX-512F and VL (trait doc).
        unsafe { _mm256_alignr_epi64::<1>(next, x) }
    }
    #[inline(always)]
    unsafe fn blend(a: Self, mask: u8, b: Self) -> Self {
        // SAFETY: as in `down`.
        unsafe { _mm256_mask_mov_epi64(a, mask, b) }
    }
    #[inline(always)]
    unsafe fn maskz(mask: u8, a: Self) -> Self {
        // SAFETY: as in `down`.
        unsafe { _mm256_maskz_mov_epi64(mask, a) }
    }
    #[inline(always)]
    unsafe fn low(x: Self) -> u64 {
        _mm_cvtsi128_si64(_mm256_castsi256_si128(x)) as u64
    }
    #[inline(always)]
    unsafe fn lane1(x: Self) -> u64 {
        lane1_through_memory(_mm256_castsi256_si128(x))
    }
    #[inline(always)]
    unsafe fn lane1_extract(x: Self) -> u64 {
        // SAFETY: SSE4.1, implied by the AVX-512F the caller enables (trait doc).
        unsafe { _mm_extract_epi64::<1>(_mm256_castsi256_si128(x)) as u64 }
    }
    #[inline(always)]
    unsafe fn load(x: &[u64]) -> Self {
        assert!(x.len() >= 4);
        // SAFETY: 4 words in bounds (checked); loadu has no alignment requirement.
        unsafe { _mm256_loadu_si256(x.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn load_at(p: *const u64) -> Self {
        // SAFETY: the caller guarantees 4 readable words; no alignment needed.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }
    #[inline(always)]
    unsafe fn store8_at(x: Self, p: *mut u64) {
        // SAFETY: the caller guarantees 8 writable words; no alignment needed.
        unsafe { _mm512_storeu_si512(p.cast(), _mm512_zextsi256_si512(x)) }
    }
    #[inline(always)]
    unsafe fn widen<const W: usize, const V: usize>(x: &[Self; W]) -> [__m512i; V] {
        let half = |i: usize| if i < W { x[i] } else { _mm256_setzero_si256() };
        core::array::from_fn(|v| {
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(2 * v)), half(2 * v + 1))
        })
    }
}
