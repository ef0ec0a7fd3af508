//! The pair kernel's registers: the operations a step needs, over 256-bit and 512-bit
//! registers of 52-bit digits, so that the steps (`step.rs`) are written once for both
//! widths.

use core::arch::x86_64::*;

/// A register of 52-bit digits, one per 64-bit lane: the operations a step of the pair
/// needs, for 256-bit (`__m256i`, AVX-512VL) and 512-bit (`__m512i`) registers. The
/// step is written once over this trait; which width a size runs on is
/// [`super::X2_YMM_DIGITS`]' choice.
///
/// # Safety
/// Every method needs AVX-512F and AVX-512 IFMA, and for `__m256i` AVX-512VL; they are
/// only called from functions that enable those features (`step::mul_x2_zmm`,
/// `step::mul_x2_ymm`, `step::sqr_x2_ymm`), into which they are inlined.
pub(super) trait Reg: Copy {
    /// Lanes (digits) per register.
    const LANES: usize;
    /// All lanes 0.
    unsafe fn zero() -> Self;
    /// Every lane `x`.
    unsafe fn splat(x: u64) -> Self;
    /// `acc + lo52(a b)`, lane by lane (`vpmadd52luq`).
    unsafe fn madd_lo(acc: Self, a: Self, b: Self) -> Self;
    /// `acc + hi52(a b)`, lane by lane (`vpmadd52huq`).
    unsafe fn madd_hi(acc: Self, a: Self, b: Self) -> Self;
    /// `a + b`, lane by lane.
    unsafe fn add(a: Self, b: Self) -> Self;
    /// The lanes of `x` shifted down one, lane 0 of `next` in the top lane (`valignq`).
    unsafe fn down(next: Self, x: Self) -> Self;
    /// `a` with the lanes set in `mask` taken from `b` (`vpblendmq`).
    unsafe fn blend(a: Self, mask: u8, b: Self) -> Self;
    /// `a` with the lanes not set in `mask` zeroed.
    unsafe fn maskz(mask: u8, a: Self) -> Self;
    /// Lane 0, as a scalar.
    unsafe fn low(x: Self) -> u64;
    /// Lane 1, as a scalar.
    unsafe fn lane1(x: Self) -> u64;
    /// The first `LANES` digits of `x`.
    unsafe fn load(x: &[u64]) -> Self;
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
        _mm_extract_epi64::<1>(_mm512_castsi512_si128(x)) as u64
    }
    #[inline(always)]
    unsafe fn load(x: &[u64]) -> Self {
        assert!(x.len() >= 8);
        // SAFETY: 8 words in bounds (checked); loadu has no alignment requirement.
        unsafe { _mm512_loadu_si512(x.as_ptr().cast()) }
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
        _mm_extract_epi64::<1>(_mm256_castsi256_si128(x)) as u64
    }
    #[inline(always)]
    unsafe fn load(x: &[u64]) -> Self {
        assert!(x.len() >= 4);
        // SAFETY: 4 words in bounds (checked); loadu has no alignment requirement.
        unsafe { _mm256_loadu_si256(x.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn widen<const W: usize, const V: usize>(x: &[Self; W]) -> [__m512i; V] {
        let half = |i: usize| if i < W { x[i] } else { _mm256_setzero_si256() };
        core::array::from_fn(|v| {
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(2 * v)), half(2 * v + 1))
        })
    }
}
