//! `amm52-ifma`, digit conversion: 64-bit words to 52-bit digits and back, in scalar
//! groups of 13 words and 16 digits ([`split_group`], [`join_group`]) and in registers
//! (`split`, `shift_up`, `join_store`), and the vector loads and stores the other
//! stages share. Shifts, permutes and masks only: constant-time.

use core::arch::x86_64::*;

/// Lane `$l` (a constant expression, 0 ..= 7) of the vector `$v`, as a scalar.
macro_rules! lane {
    ($v:expr, $l:expr) => {{
        let l = $l;
        _mm_cvtsi128_si64(_mm512_castsi512_si128(_mm512_permutexvar_epi64(
            _mm512_set1_epi64(l as i64),
            $v,
        ))) as u64
    }};
}
pub(super) use lane;

/// Mask of one 52-bit digit.
pub const DIGIT: u64 = (1 << 52) - 1;

/// The largest number of vectors (8 digits each) a modulus of
/// [`crate::MAX_BITS`] bits needs: 257 limbs under lazy reduction, 317 digits.
pub const MAX_VECTORS: usize = 40;

/// The digit counts of a modulus of `s` limbs: (d, V, e) with d = ceil(64 s / 52)
/// digits, V = ceil(d / 8) vectors and e = 52 d - 64 s, the shift applied to `b`.
pub fn shape(s: usize) -> (usize, usize, u32) {
    let d = (64 * s).div_ceil(52);
    (d, d.div_ceil(8), (52 * d - 64 * s) as u32)
}

/// Splits 13 64-bit words into 16 digits of 52 bits (16 * 52 = 13 * 64 = 832 bits):
/// digit k is bits 52 k .. 52 k + 52, from word 52 k / 64 at offset 52 k % 64 and, when
/// that offset is above 12, the next word. Straight-line code, constant shifts.
#[inline(always)]
pub fn split_group(w: &[u64; 13]) -> [u64; 16] {
    [
        w[0] & DIGIT,
        (w[0] >> 52 | w[1] << 12) & DIGIT,
        (w[1] >> 40 | w[2] << 24) & DIGIT,
        (w[2] >> 28 | w[3] << 36) & DIGIT,
        (w[3] >> 16 | w[4] << 48) & DIGIT,
        (w[4] >> 4) & DIGIT,
        (w[4] >> 56 | w[5] << 8) & DIGIT,
        (w[5] >> 44 | w[6] << 20) & DIGIT,
        (w[6] >> 32 | w[7] << 32) & DIGIT,
        (w[7] >> 20 | w[8] << 44) & DIGIT,
        (w[8] >> 8) & DIGIT,
        (w[8] >> 60 | w[9] << 4) & DIGIT,
        (w[9] >> 48 | w[10] << 16) & DIGIT,
        (w[10] >> 36 | w[11] << 28) & DIGIT,
        (w[11] >> 24 | w[12] << 40) & DIGIT,
        (w[12] >> 12) & DIGIT,
    ]
}

/// Joins 16 digits of 52 bits (each below 2^52) into 13 64-bit words: word k starts at
/// bit 64 k % 52 of digit 64 k / 52, takes the next digit whole and, when it started
/// above bit 40, the low bits of the one after.
#[inline(always)]
pub fn join_group(d: &[u64; 16]) -> [u64; 13] {
    [
        d[0] | d[1] << 52,
        d[1] >> 12 | d[2] << 40,
        d[2] >> 24 | d[3] << 28,
        d[3] >> 36 | d[4] << 16,
        d[4] >> 48 | d[5] << 4 | d[6] << 56,
        d[6] >> 8 | d[7] << 44,
        d[7] >> 20 | d[8] << 32,
        d[8] >> 32 | d[9] << 20,
        d[9] >> 44 | d[10] << 8 | d[11] << 60,
        d[11] >> 4 | d[12] << 48,
        d[12] >> 16 | d[13] << 36,
        d[13] >> 28 | d[14] << 24,
        d[14] >> 40 | d[15] << 12,
    ]
}

/// The 8 V digits of `x` (s words, 64 s <= 52 8 V), in registers: [`split_group`]
/// one vector at a time. Vector v is half k = v mod 2 of group g = v / 2 (13 words,
/// 16 digits); its digit l (bit 52 (8 k + l) of the group) is word i_l of the 8
/// loaded from word 13 g + 6 k on, shifted right by r_l, or-ed with word i_l + 1
/// shifted left by 64 - r_l (a shift by 64 gives 0), both gathered with a permute.
/// The loads are masked to the s words of `x`, so no copy into a padded buffer
/// (and no store for the load to wait on) is needed; digits from ceil(64 s / 52) up
/// are 0.
///
/// # Safety
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn split<const V: usize>(x: &[u64]) -> [__m512i; V] {
    let s = x.len();
    assert!(64 * s <= 52 * 8 * V);
    let digit = _mm512_set1_epi64(DIGIT as i64);
    let word = [
        _mm512_set_epi64(5, 4, 4, 3, 2, 1, 0, 0),
        _mm512_set_epi64(6, 5, 4, 3, 2, 2, 1, 0),
    ];
    let shift = [
        _mm512_set_epi64(44, 56, 4, 16, 28, 40, 52, 0),
        _mm512_set_epi64(12, 24, 36, 48, 60, 8, 20, 32),
    ];
    let one = _mm512_set1_epi64(1);
    let sixty_four = _mm512_set1_epi64(64);
    core::array::from_fn(|v| {
        let (k, first) = (v % 2, 13 * (v / 2) + 6 * (v % 2));
        if first >= s {
            // (The limb count is public.)
            return _mm512_setzero_si512();
        }
        let mask = (0xffu32 >> 8usize.saturating_sub(s - first)) as __mmask8;
        // SAFETY: the mask covers words first .. min(first + 8, s) of x, all in
        // bounds; the masked-out lanes are not read.
        let w = unsafe { _mm512_maskz_loadu_epi64(mask, x[first..].as_ptr().cast()) };
        let low = _mm512_srlv_epi64(_mm512_permutexvar_epi64(word[k], w), shift[k]);
        let high = _mm512_sllv_epi64(
            _mm512_permutexvar_epi64(_mm512_add_epi64(word[k], one), w),
            _mm512_sub_epi64(sixty_four, shift[k]),
        );
        _mm512_and_si512(_mm512_or_si512(low, high), digit)
    })
}

/// The digits of x 2^sh for the digits of x (each below 2^52) and sh < 52, when
/// x 2^sh < 2^(52 8 V): digit j is the low 52 - sh bits of x_j moved up, or-ed with
/// the top sh bits of x_{j-1}.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn shift_up<const V: usize>(x: &[__m512i; V], sh: u32) -> [__m512i; V] {
    debug_assert!(sh < 52);
    let digit = _mm512_set1_epi64(DIGIT as i64);
    let up = _mm_cvtsi64_si128(i64::from(sh));
    let down = _mm_cvtsi64_si128(i64::from(52 - sh));
    core::array::from_fn(|v| {
        let prev = if v > 0 {
            x[v - 1]
        } else {
            _mm512_setzero_si512()
        };
        // Lane j of `below` is digit j - 1.
        let below = _mm512_alignr_epi64::<7>(x[v], prev);
        _mm512_or_si512(
            _mm512_and_si512(_mm512_sll_epi64(x[v], up), digit),
            _mm512_srl_epi64(below, down),
        )
    })
}

/// Writes the s = `out.len()` words of the value of the digits `x` (each below 2^52,
/// the value below 2^(64 s)): [`join_group`] one group (two vectors) at a time.
/// Word l of a group is digit j_l shifted right by r_l, or-ed with digit j_l + 1
/// shifted left by 52 - r_l and digit j_l + 2 shifted left by 104 - r_l (shifts of
/// 64 or more give 0), gathered from the group's 16 digits with two-source
/// permutes; words 0 .. 8 and 8 .. 13 of the group are stored masked to `out`.
///
/// # Safety
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn join_store<const V: usize>(x: &[__m512i; V], out: &mut [u64]) {
    let s = out.len();
    assert!(64 * s <= 52 * 8 * V);
    let digit_of = [
        _mm512_set_epi64(8, 7, 6, 4, 3, 2, 1, 0),
        // Words 8 .. 13 (lanes 5 .. 8 unused: index 0, shifted out).
        _mm512_set_epi64(0, 0, 0, 14, 13, 12, 11, 9),
    ];
    let shift = [
        _mm512_set_epi64(32, 20, 8, 48, 36, 24, 12, 0),
        _mm512_set_epi64(0, 0, 0, 40, 28, 16, 4, 44),
    ];
    let one = _mm512_set1_epi64(1);
    let two = _mm512_set1_epi64(2);
    let c52 = _mm512_set1_epi64(52);
    let c104 = _mm512_set1_epi64(104);
    for g in 0..V.div_ceil(2) {
        let x0 = x[2 * g];
        let x1 = if 2 * g + 1 < V {
            x[2 * g + 1]
        } else {
            _mm512_setzero_si512()
        };
        for k in 0..2 {
            let (first, width) = (13 * g + 8 * k, [8, 5][k]);
            if first >= s {
                break;
            }
            let (j, r) = (digit_of[k], shift[k]);
            let a = _mm512_srlv_epi64(_mm512_permutex2var_epi64(x0, j, x1), r);
            let b = _mm512_sllv_epi64(
                _mm512_permutex2var_epi64(x0, _mm512_add_epi64(j, one), x1),
                _mm512_sub_epi64(c52, r),
            );
            // Index j + 2 is 16 for word 12 (r = 40, shift 64: 0); permutex2var
            // takes indices mod 16, and the shift clears the lane.
            let c = _mm512_sllv_epi64(
                _mm512_permutex2var_epi64(x0, _mm512_add_epi64(j, two), x1),
                _mm512_sub_epi64(c104, r),
            );
            let w = _mm512_or_si512(_mm512_or_si512(a, b), c);
            let mask = (0xffu32 >> (8 - width.min(s - first))) as __mmask8;
            // SAFETY: the mask covers words first .. min(first + width, s) of out,
            // all in bounds; the masked-out lanes are not written.
            unsafe { _mm512_mask_storeu_epi64(out[first..].as_mut_ptr().cast(), mask, w) };
        }
    }
}

/// Stores the vectors `x` to the 8 V words of `out`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn store_vectors<const V: usize>(x: &[__m512i; V], out: &mut [u64]) {
    assert!(out.len() == 8 * V);
    for (o, &xv) in out.chunks_exact_mut(8).zip(x) {
        // SAFETY: o is 8 words; storeu has no alignment requirement.
        unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast(), xv) };
    }
}

/// The first 8 V digits of `x` as V vectors.
///
/// # Safety
/// The CPU has AVX-512F; `x` holds at least 8 V digits.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn load_vectors<const V: usize>(x: &[u64]) -> [__m512i; V] {
    assert!(x.len() >= 8 * V);
    // SAFETY: 8 v .. 8 v + 8 is in bounds (checked above); loadu has no alignment
    // requirement.
    core::array::from_fn(|v| unsafe { _mm512_loadu_si512(x[8 * v..].as_ptr().cast()) })
}

/// The digits of `w` shifted down one lane across the vectors: lane j of vector v
/// is digit 8 v + j + 1 (0 past the top).
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn shifted_down<const V: usize>(w: &[__m512i; V]) -> [__m512i; V] {
    core::array::from_fn(|v| {
        let next = if v + 1 < V {
            w[v + 1]
        } else {
            _mm512_setzero_si512()
        };
        _mm512_alignr_epi64::<1>(next, w[v])
    })
}
