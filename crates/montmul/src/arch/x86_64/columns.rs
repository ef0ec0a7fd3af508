//! Seed 000's column-wise Montgomery multiplication on x86 vector units:
//! `columns-sse2` (4 lanes of 32 bits in 128 bits), `columns-avx2` (8 lanes, 256 bits)
//! and `columns-avx512` (16 lanes, 512 bits; AVX-512F and AVX-512BW), 16-bit words.
//!
//! Seed 000 (Bos and Kaihara, *Montgomery Multiplication on the Cell*), Alg. 2 and
//! Fig. 1, with the portable kernel's reading of the garbled algorithm and its proof
//! ([`crate::algo::columns`]), generalised from 4 to `LANES` lanes. A number of K
//! 16-bit digits, laid out over K+1 digits, is cut into `LANES` consecutive parts, one
//! per lane of s = ceil((K+1) / LANES) vectors: digit i sits in lane i / s of vector
//! i mod s. The division by r = 2^16 is one lane shift (down) of one vector and a
//! circular change of the indices; the carry save shifts the last vector's carries up
//! one lane. Subtraction-less: R > 4M, values in [0, 2M), `Reduction::Lazy` only; the
//! results are the portable `columns` kernel's, bit for bit.
//!
//! One source for the three widths: the trait `Lanes` names the dozen instructions
//! the algorithm needs (implemented for `__m128i`, `__m256i` and `__m512i`), and one
//! generic function (`montgomery`) is the algorithm; each width is that function
//! compiled inside a wrapper that enables its target features.
//!
//! The multiply-and-add. The Cell's `mpyhhau` is a 16 x 16 -> 32-bit unsigned multiply
//! with a 32-bit add. x86 has no unsigned 16-bit multiply-add into 32-bit lanes
//! (`pmaddwd` is signed: a digit of 2^15 or more would be negative), so each product is
//! taken in halves: `pmullw` and `pmulhuw` give the low and high 16 bits of eight
//! 16 x 16-bit products per 128 bits, and `punpcklwd`/`punpckhwd` put the halves
//! together into 32-bit lanes. To use all eight 16-bit multipliers of each 128 bits,
//! two multiplicand vectors X_(2t), X_(2t+1) are kept packed in one vector of 16-bit
//! words (`pack`): the unpack of the low words gives X_(2t) y, that of the high words
//! X_(2t+1) y. Four instructions for two vectors of products, then two adds. Bound per
//! lane: the product of two digits below 2^16 is below 2^32 and exact in its two halves;
//! the lane before the add is at most 2^17 - 2 (a digit plus one carry, the portable
//! module's invariant, which holds for any lane count), so the sum is at most
//! (2^17 - 2) + (2^16 - 1)^2 = 2^32 - 1.
//!
//! The passes. Alg. 2 reads and writes the whole accumulator five times a step (two
//! multiply-adds, two carry saves, the shift of one vector). Here a step is two
//! passes, with the same operations in the same order on every lane, so the same
//! results: the carry save of line 9 fused with the multiply-add of q M (lines
//! 12-14), and the carry save of line 15 and the shift of line 16 fused with the next
//! step's multiply-add of y X (lines 5-8). q needs only the low 16 bits of lane 0 of
//! U_(i mod s), which the carry save of line 9 does not change (lane 0 receives no
//! carry), so it is taken before that pass, off its path.
//!
//! The accumulator needs K+1 digits (its value is below (3/4) r^(K+1)); s vectors of
//! `LANES` lanes hold `LANES` s >= K+1 of them, so no carry leaves the top lane, as in
//! the portable module's argument with 4 replaced by `LANES`.
//!
//! Constant-time: yes (loop counts and indices from the limb count only; the quotient
//! digit goes through a multiply and a mask, no branch; no table read).

use core::arch::x86_64::*;

use crate::arch::cpu::{Avx2, Avx512Bw};
use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{Modulus, Reduction};

/// `columns-sse2`: 4 lanes of 32 bits per 128-bit vector.
pub struct ColumnsSse2;

/// `columns-avx2`: 8 lanes of 32 bits per 256-bit vector.
pub struct ColumnsAvx2;

/// `columns-avx512`: 16 lanes of 32 bits per 512-bit vector (AVX-512F and AVX-512BW).
pub struct ColumnsAvx512;

const SEED: &str = "000 Alg. 2, Fig. 1";

static INFO_SSE2: KernelInfo = KernelInfo {
    name: "columns-sse2",
    seed: SEED,
    summary: "radix-2^16 digits column-wise over the 4 lanes of SSE2, rotated indices",
    words: &[16],
    reductions: &[Reduction::Lazy],
    constant_time: true,
    // SSE2 is part of x86-64.
    available: portable,
};

static INFO_AVX2: KernelInfo = KernelInfo {
    name: "columns-avx2",
    seed: SEED,
    summary: "radix-2^16 digits column-wise over the 8 lanes of AVX2, rotated indices",
    words: &[16],
    reductions: &[Reduction::Lazy],
    constant_time: true,
    available: avx2_available,
};

static INFO_AVX512: KernelInfo = KernelInfo {
    name: "columns-avx512",
    seed: SEED,
    summary: "radix-2^16 digits column-wise over the 16 lanes of AVX-512BW, rotated indices",
    words: &[16],
    reductions: &[Reduction::Lazy],
    constant_time: true,
    available: avx512_available,
};

/// Whether this CPU has AVX2.
fn avx2_available() -> bool {
    Avx2::new().is_some()
}

/// Whether this CPU has AVX-512F and AVX-512BW.
fn avx512_available() -> bool {
    Avx512Bw::new().is_some()
}

/// The instructions of the algorithm on one vector type of `LANES` 32-bit lanes.
///
/// Every method is `unsafe`: the CPU must have the type's target features, and each
/// is only called from [`montgomery`] compiled inside a wrapper that enables them.
/// They are `#[inline(always)]` so that they compile into that wrapper.
trait Lanes: Copy {
    /// 32-bit lanes per vector.
    const LANES: usize;
    /// All lanes zero.
    unsafe fn zero() -> Self;
    /// Every 32-bit lane `x`.
    unsafe fn splat(x: u32) -> Self;
    /// `2 LANES` 16-bit words from `src` (unaligned).
    unsafe fn load(src: &[u16]) -> Self;
    /// The lanes into `dst` (unaligned).
    unsafe fn store(self, dst: &mut [u32]);
    /// Lane by lane, wrapping: `self + o`.
    unsafe fn add(self, o: Self) -> Self;
    /// Lane by lane: `self & o`.
    unsafe fn and(self, o: Self) -> Self;
    /// Lane by lane: `self >> 16`.
    unsafe fn high(self) -> Self;
    /// 16-bit word by word: the low and the high halves of the products `self * o`.
    unsafe fn mul16(self, o: Self) -> (Self, Self);
    /// Per 128 bits: words 0..4 of `lo` and `hi` interleaved into 32-bit lanes, and
    /// words 4..8 likewise (`punpcklwd`, `punpckhwd`).
    unsafe fn unpack16(lo: Self, hi: Self) -> (Self, Self);
    /// Lane l + 1 takes lane l; lane 0 becomes zero.
    unsafe fn lanes_up(self) -> Self;
    /// Lane l takes lane l + 1; the top lane becomes zero.
    unsafe fn lanes_down(self) -> Self;
    /// Lane 0.
    unsafe fn lane0(self) -> u32;
}

impl Lanes for __m128i {
    const LANES: usize = 4;
    #[inline(always)]
    unsafe fn zero() -> Self {
        _mm_setzero_si128()
    }
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        _mm_set1_epi32(x as i32)
    }
    #[inline(always)]
    unsafe fn load(src: &[u16]) -> Self {
        assert!(src.len() >= 8);
        // SAFETY: 16 bytes inside `src` (checked above); unaligned load.
        unsafe { _mm_loadu_si128(src.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, dst: &mut [u32]) {
        assert!(dst.len() >= 4);
        // SAFETY: 16 bytes inside `dst` (checked above); unaligned store.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        _mm_add_epi32(self, o)
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        _mm_and_si128(self, o)
    }
    #[inline(always)]
    unsafe fn high(self) -> Self {
        _mm_srli_epi32::<16>(self)
    }
    #[inline(always)]
    unsafe fn mul16(self, o: Self) -> (Self, Self) {
        (_mm_mullo_epi16(self, o), _mm_mulhi_epu16(self, o))
    }
    #[inline(always)]
    unsafe fn unpack16(lo: Self, hi: Self) -> (Self, Self) {
        (_mm_unpacklo_epi16(lo, hi), _mm_unpackhi_epi16(lo, hi))
    }
    #[inline(always)]
    unsafe fn lanes_up(self) -> Self {
        _mm_slli_si128::<4>(self)
    }
    #[inline(always)]
    unsafe fn lanes_down(self) -> Self {
        _mm_srli_si128::<4>(self)
    }
    #[inline(always)]
    unsafe fn lane0(self) -> u32 {
        _mm_cvtsi128_si32(self) as u32
    }
}

impl Lanes for __m256i {
    const LANES: usize = 8;
    #[inline(always)]
    unsafe fn zero() -> Self {
        _mm256_setzero_si256()
    }
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        _mm256_set1_epi32(x as i32)
    }
    #[inline(always)]
    unsafe fn load(src: &[u16]) -> Self {
        assert!(src.len() >= 16);
        // SAFETY: 32 bytes inside `src` (checked above); unaligned load.
        unsafe { _mm256_loadu_si256(src.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, dst: &mut [u32]) {
        assert!(dst.len() >= 8);
        // SAFETY: 32 bytes inside `dst` (checked above); unaligned store.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        _mm256_add_epi32(self, o)
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        _mm256_and_si256(self, o)
    }
    #[inline(always)]
    unsafe fn high(self) -> Self {
        _mm256_srli_epi32::<16>(self)
    }
    #[inline(always)]
    unsafe fn mul16(self, o: Self) -> (Self, Self) {
        (_mm256_mullo_epi16(self, o), _mm256_mulhi_epu16(self, o))
    }
    #[inline(always)]
    unsafe fn unpack16(lo: Self, hi: Self) -> (Self, Self) {
        (_mm256_unpacklo_epi16(lo, hi), _mm256_unpackhi_epi16(lo, hi))
    }
    #[inline(always)]
    unsafe fn lanes_up(self) -> Self {
        // The lower 128 bits moved up, zero below: per 128 bits, (self : that) >> 12
        // bytes gives [0, x0, x1, x2] and [x3, x4, x5, x6].
        let below = _mm256_permute2x128_si256::<0x08>(self, self);
        _mm256_alignr_epi8::<12>(self, below)
    }
    #[inline(always)]
    unsafe fn lanes_down(self) -> Self {
        // The upper 128 bits moved down, zero above: per 128 bits, (that : self) >> 4
        // bytes gives [x1, x2, x3, x4] and [x5, x6, x7, 0].
        let above = _mm256_permute2x128_si256::<0x81>(self, self);
        _mm256_alignr_epi8::<4>(above, self)
    }
    #[inline(always)]
    unsafe fn lane0(self) -> u32 {
        _mm_cvtsi128_si32(_mm256_castsi256_si128(self)) as u32
    }
}

impl Lanes for __m512i {
    const LANES: usize = 16;
    #[inline(always)]
    unsafe fn zero() -> Self {
        _mm512_setzero_si512()
    }
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        _mm512_set1_epi32(x as i32)
    }
    #[inline(always)]
    unsafe fn load(src: &[u16]) -> Self {
        assert!(src.len() >= 32);
        // SAFETY: 64 bytes inside `src` (checked above); unaligned load.
        unsafe { _mm512_loadu_si512(src.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, dst: &mut [u32]) {
        assert!(dst.len() >= 16);
        // SAFETY: 64 bytes inside `dst` (checked above); unaligned store.
        unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        _mm512_add_epi32(self, o)
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        _mm512_and_si512(self, o)
    }
    #[inline(always)]
    unsafe fn high(self) -> Self {
        _mm512_srli_epi32::<16>(self)
    }
    #[inline(always)]
    unsafe fn mul16(self, o: Self) -> (Self, Self) {
        (_mm512_mullo_epi16(self, o), _mm512_mulhi_epu16(self, o))
    }
    #[inline(always)]
    unsafe fn unpack16(lo: Self, hi: Self) -> (Self, Self) {
        (_mm512_unpacklo_epi16(lo, hi), _mm512_unpackhi_epi16(lo, hi))
    }
    #[inline(always)]
    unsafe fn lanes_up(self) -> Self {
        // (self : 0) >> 15 lanes: lane 0 is the zero vector's top lane.
        _mm512_alignr_epi32::<15>(self, _mm512_setzero_si512())
    }
    #[inline(always)]
    unsafe fn lanes_down(self) -> Self {
        // (0 : self) >> 1 lane: the top lane is the zero vector's lane 0.
        _mm512_alignr_epi32::<1>(_mm512_setzero_si512(), self)
    }
    #[inline(always)]
    unsafe fn lane0(self) -> u32 {
        _mm_cvtsi128_si32(_mm512_castsi512_si128(self)) as u32
    }
}

/// The 16-bit word of pair `t`'s packed vector that holds lane `l` of vector 2t + p
/// (p = 0 or 1): [`Lanes::unpack16`] takes words 0..4 of each 128 bits into the first
/// vector's lanes and words 4..8 into the second's.
#[inline(always)]
fn packed_word(p: usize, l: usize) -> usize {
    8 * (l / 4) + 4 * p + l % 4
}

/// `digits` (K of them, below 2^16 each) laid out column-wise over s vectors of
/// `lanes` lanes (digit i in lane i / s of vector i mod s; digits K and above zero),
/// vectors 2t and 2t+1 packed into 16-bit words `dst[2 lanes t..2 lanes (t + 1)]`.
fn pack(digits: &[u16], s: usize, lanes: usize, dst: &mut [u16]) {
    dst.fill(0);
    // Digit l s + j, by lane and vector (no division per digit).
    for (l, part) in digits.chunks(s).enumerate() {
        for (j, &d) in part.iter().enumerate() {
            dst[2 * lanes * (j / 2) + packed_word(j % 2, l)] = d;
        }
    }
}

/// `u[(base + j) mod s] += X_j * y` for the s vectors X_j packed in pairs in `x`
/// (`y` in every 16-bit word). Bound: every lane at most 2^17 - 2 before, so at most
/// 2^32 - 1 after (module doc).
#[inline(always)]
unsafe fn muladd<V: Lanes>(u: &mut [V], base: usize, x: &[u16], y: V) {
    let s = u.len();
    let width = 2 * V::LANES;
    // The vector index base + j, wrapped: each computed on its own, no chain.
    let at = |j: usize| {
        if base + j >= s {
            base + j - s
        } else {
            base + j
        }
    };
    // SAFETY: the caller enables V's target features; `load` checks its slice's
    // length and the indices are bounds-checked.
    unsafe {
        for (t, pair) in x.chunks_exact(width).enumerate() {
            let (lo, hi) = V::load(pair).mul16(y);
            let (even, odd) = V::unpack16(lo, hi);
            let j = 2 * t;
            u[at(j)] = u[at(j)].add(even);
            // An odd s pads the last pair with a zero vector: nothing to add.
            if j + 1 < s {
                u[at(j + 1)] = u[at(j + 1)].add(odd);
            }
        }
    }
}

/// Lines 9 and 15 of Alg. 2: one level of 16-bit carry save over the accumulator
/// whose relative vector j is `u[(base + j) mod s]` (the portable
/// `propagate_carries`). Afterwards every lane is at most (2^16 - 1) + (2^16 - 1), and
/// lane 0 of `u[base]` at most 2^16 - 1. The top lane's carry is zero (module doc), so
/// nothing is lost by shifting it out.
#[inline(always)]
unsafe fn propagate<V: Lanes>(u: &mut [V], base: usize, low: V) {
    let s = u.len();
    let last = u[if base == 0 { s - 1 } else { base - 1 }];
    // SAFETY: the caller enables V's target features; indices are bounds-checked.
    unsafe {
        // The wrap-around of j = s-1: its carries shifted up one lane.
        let mut incoming = last.high().lanes_up();
        // Relative vectors 0, 1, .., s-1: u[base..], then u[..base].
        let (below, from_base) = u.split_at_mut(base);
        for v in from_base.iter_mut().chain(below) {
            let outgoing = v.high();
            *v = v.and(low).add(incoming);
            incoming = outgoing;
        }
    }
}

/// Line 15 of one step and lines 12-14 of the next in one pass: the carry save of
/// [`propagate`] on each vector, then `+= X_j * y` ([`muladd`]) on it, so the
/// accumulator is read and written once. Every lane ends the same as after the two
/// passes: (2^16 - 1) + (2^16 - 1) after the carry save, at most 2^32 - 1 after the add.
#[inline(always)]
unsafe fn propagate_muladd<V: Lanes>(u: &mut [V], base: usize, low: V, x: &[u16], y: V) {
    let s = u.len();
    let width = 2 * V::LANES;
    let at = |j: usize| {
        if base + j >= s {
            base + j - s
        } else {
            base + j
        }
    };
    // SAFETY: the caller enables V's target features; `load` checks its slice's
    // length and the indices are bounds-checked.
    unsafe {
        // The wrap-around of j = s-1, read before the pass changes it.
        let mut incoming = u[at(s - 1)].high().lanes_up();
        for (t, pair) in x.chunks_exact(width).enumerate() {
            let (lo, hi) = V::load(pair).mul16(y);
            let (even, odd) = V::unpack16(lo, hi);
            let j = 2 * t;
            let v = u[at(j)];
            u[at(j)] = v.and(low).add(incoming).add(even);
            incoming = v.high();
            // An odd s pads the last pair with a zero vector: nothing to add.
            if j + 1 < s {
                let v = u[at(j + 1)];
                u[at(j + 1)] = v.and(low).add(incoming).add(odd);
                incoming = v.high();
            }
        }
    }
}

/// Lines 15-16 of step i and lines 5-8 of step i + 1 in one pass: the carry save of
/// [`propagate`], the lane shift of `u[base]` (the division by r), and `+= X_j * y`
/// on the accumulator renamed for step i + 1 (relative vector j is then
/// `u[(base + 1 + j) mod s]`), each vector read and written once. Every lane ends as
/// after the three passes: at most 2^17 - 2 after the carry save, 2^32 - 1 after the
/// add.
#[inline(always)]
unsafe fn propagate_shift_muladd<V: Lanes>(u: &mut [V], base: usize, low: V, x: &[u16], y: V) {
    let s = u.len();
    let width = 2 * V::LANES;
    let at = |j: usize| {
        if base + j >= s {
            base + j - s
        } else {
            base + j
        }
    };
    // SAFETY: the caller enables V's target features; `load` checks its slice's
    // length and the indices are bounds-checked.
    unsafe {
        // Step i's relative vector 0 and the wrap-around carry into it, read before
        // the pass changes them.
        let first = u[base];
        let wrap = u[at(s - 1)].high().lanes_up();
        let mut incoming = first.high();
        // Step i + 1's relative vector j is step i's j + 1, except the last (s - 1),
        // which is step i's vector 0 after its carry save and the shift.
        let mut last = first.and(low).add(wrap);
        debug_assert_eq!(last.lane0(), 0, "q * M cancels digit 0");
        last = last.lanes_down();
        let mut update = |j: usize, product: V| {
            if j + 1 < s {
                let v = u[at(j + 1)];
                u[at(j + 1)] = v.and(low).add(incoming).add(product);
                incoming = v.high();
            } else {
                u[base] = last.add(product);
            }
        };
        for (t, pair) in x.chunks_exact(width).enumerate() {
            let (lo, hi) = V::load(pair).mul16(y);
            let (even, odd) = V::unpack16(lo, hi);
            update(2 * t, even);
            // An odd s pads the last pair with a zero vector: nothing to add.
            if 2 * t + 1 < s {
                update(2 * t + 1, odd);
            }
        }
    }
}

/// Alg. 2 on vectors `V`: `out = a b r^-K mod n` in [0, 2n), K = `n.len()`, for
/// a, b < 2n and r^K > 4n; mu = -n^-1 mod 2^16. The portable `columns` kernel's
/// result, bit for bit.
///
/// # Safety
/// The CPU has V's target features, and this is compiled inside a function that
/// enables them.
#[inline(always)]
unsafe fn montgomery<V: Lanes>(a: &[u16], b: &[u16], n: &[u16], mu: u16, out: &mut [u16]) {
    let k = n.len();
    assert!(k >= 1 && a.len() == k && b.len() == k && out.len() == k);
    let lanes = V::LANES;
    let s = (k + 1).div_ceil(lanes);
    let pairs = s.div_ceil(2);
    // The packed multiplicand and modulus (one allocation for both).
    let mut packed = vec![0u16; 2 * 2 * lanes * pairs];
    let (xw, mw) = packed.split_at_mut(2 * lanes * pairs);
    pack(a, s, lanes, xw);
    pack(n, s, lanes, mw);
    let mu = u32::from(mu);
    let mut z = vec![0u32; lanes * s];
    // SAFETY: the caller enables V's target features; every load and store is of a
    // chunk of exactly one vector's size, and indices are bounds-checked.
    unsafe {
        let low = V::splat(0xffff);
        // Lines 1-3.
        let mut u = vec![V::zero(); s];
        // base = i mod s, kept without a division.
        let mut base = 0;
        // Lines 5-8 of step 0: U += y_0 X.
        muladd(&mut u, base, xw, V::splat(u32::from(b[0]) * 0x1_0001));
        for i in 0..k {
            // Lines 10-11: u_0 is the low 16 bits of lane 0 of U_(i mod s), with or
            // without line 9's carry save (lane 0 there receives none), so q is taken
            // first, off the carry save's path. The low 16 bits' product is below 2^32.
            let q = ((u[base].lane0() & 0xffff) * mu) & 0xffff;
            // Line 9, then lines 12-14 (U += q M), in one pass.
            propagate_muladd(&mut u, base, low, mw, V::splat(q * 0x1_0001));
            if let Some(&y) = b.get(i + 1) {
                // Lines 15-16, then lines 5-8 of step i + 1 (U += y_(i+1) X).
                propagate_shift_muladd(&mut u, base, low, xw, V::splat(u32::from(y) * 0x1_0001));
            } else {
                // Line 15.
                propagate(&mut u, base, low);
                // Line 16: digit 0 is zero; the division by r is one lane shift down.
                debug_assert_eq!(u[base].lane0(), 0, "q * M cancels digit 0");
                u[base] = u[base].lanes_down();
            }
            base = if base + 1 == s { 0 } else { base + 1 };
        }
        // Lines 19-21: the rename, relative vector j is u[(K + j) mod s].
        for (j, zj) in z.chunks_exact_mut(lanes).enumerate() {
            u[(k + j) % s].store(zj);
        }
    }
    // Line 18: the sequential carry propagation over the lanes * s digits, in scalar
    // code.
    let mut carry = 0u32;
    let z = &z;
    let mut digits = (0..lanes).flat_map(|l| (0..s).map(move |j| z[j * lanes + l]));
    // Digit i = l s + j: lane l of relative vector j. Each lane is at most 2^17 - 2 and
    // the carry at most 2, so the sum fits.
    for o in out.iter_mut() {
        let v = digits.next().expect("lanes * s > K digits") + carry;
        *o = v as u16;
        carry = v >> 16;
    }
    // Digits K and above: only their carry matters.
    for d in digits {
        carry = (d + carry) >> 16;
    }
    // The result is below 2M < r^K (seed 000 sec. 3), so no carry leaves the top and
    // digit K, the layout's extra one, is zero.
    debug_assert_eq!(carry, 0, "the result is below 2M < r^K");
}

/// Alg. 2 on SSE2.
///
/// # Safety
/// The CPU has SSE2 (every x86-64 CPU does).
#[target_feature(enable = "sse2")]
unsafe fn montgomery_sse2(a: &[u16], b: &[u16], n: &[u16], mu: u16, out: &mut [u16]) {
    // SAFETY: SSE2 is enabled here.
    unsafe { montgomery::<__m128i>(a, b, n, mu, out) }
}

/// Alg. 2 on AVX2.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
unsafe fn montgomery_avx2(a: &[u16], b: &[u16], n: &[u16], mu: u16, out: &mut [u16]) {
    // SAFETY: AVX2 is enabled here.
    unsafe { montgomery::<__m256i>(a, b, n, mu, out) }
}

/// Alg. 2 on AVX-512.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn montgomery_avx512(a: &[u16], b: &[u16], n: &[u16], mu: u16, out: &mut [u16]) {
    // SAFETY: AVX-512F and AVX-512BW are enabled here.
    unsafe { montgomery::<__m512i>(a, b, n, mu, out) }
}

/// mu = -n^-1 mod 2^16, the low digit of the modulus' n0.
fn mu(m: &Modulus<u16>) -> u16 {
    m.n0()
}

impl Kernel<u16> for ColumnsSse2 {
    fn info(&self) -> &'static KernelInfo {
        &INFO_SSE2
    }

    fn mul_exact(&self, m: &Modulus<u16>, a: &[u16], b: &[u16], out: &mut [u16]) {
        debug_assert_eq!(m.reduction(), Reduction::Lazy);
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { montgomery_sse2(a, b, m.n(), mu(m), out) }
    }
}

impl Kernel<u16> for ColumnsAvx2 {
    fn info(&self) -> &'static KernelInfo {
        &INFO_AVX2
    }

    /// # Panics
    /// On a CPU without AVX2: a modulus is not built for a kernel the CPU lacks
    /// ([`Modulus::with_kernel`] refuses it), so this is never reached there.
    fn mul_exact(&self, m: &Modulus<u16>, a: &[u16], b: &[u16], out: &mut [u16]) {
        debug_assert_eq!(m.reduction(), Reduction::Lazy);
        let Some(_token) = Avx2::new() else {
            panic!("columns-avx2 on a CPU without AVX2");
        };
        // SAFETY: the token proves AVX2.
        unsafe { montgomery_avx2(a, b, m.n(), mu(m), out) }
    }
}

impl Kernel<u16> for ColumnsAvx512 {
    fn info(&self) -> &'static KernelInfo {
        &INFO_AVX512
    }

    /// # Panics
    /// On a CPU without AVX-512F and AVX-512BW: a modulus is not built for a kernel
    /// the CPU lacks ([`Modulus::with_kernel`] refuses it), so this is never reached
    /// there.
    fn mul_exact(&self, m: &Modulus<u16>, a: &[u16], b: &[u16], out: &mut [u16]) {
        debug_assert_eq!(m.reduction(), Reduction::Lazy);
        let Some(_token) = Avx512Bw::new() else {
            panic!("columns-avx512 on a CPU without AVX-512F and AVX-512BW");
        };
        // SAFETY: the token proves AVX-512F and AVX-512BW.
        unsafe { montgomery_avx512(a, b, m.n(), mu(m), out) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::columns::Columns;

    /// Every SIMD form against the portable `columns`, bit for bit, on `n` with
    /// operands `a`, `b` below 2n.
    fn agree(n: &[u16], ops: &[Vec<u16>]) {
        let kernels: [&dyn Kernel<u16>; 3] = [&ColumnsSse2, &ColumnsAvx2, &ColumnsAvx512];
        let portable = Modulus::with_kernel(n, &Columns, Reduction::Lazy).unwrap();
        let k = portable.limbs();
        for &kern in &kernels {
            if !(kern.info().available)() {
                skipped_once(kern.info().name);
                continue;
            }
            let m = Modulus::with_kernel(n, kern, Reduction::Lazy).unwrap();
            for a in ops {
                for b in ops {
                    let (mut want, mut got) = (vec![0u16; k], vec![0u16; k]);
                    portable.mont_mul(a, b, &mut want);
                    m.mont_mul(a, b, &mut got);
                    assert_eq!(got, want, "{} K = {k} n = {n:x?}", kern.info().name);
                }
            }
        }
    }

    /// Says once per kernel that it did not run: `agree` is called for every modulus.
    fn skipped_once(name: &'static str) {
        static SAID: std::sync::Mutex<Vec<&str>> = std::sync::Mutex::new(Vec::new());
        let mut said = SAID.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !said.contains(&name) {
            said.push(name);
            montmul_testkit::skipped!("{name}: SKIPPED: not on this CPU");
        }
    }

    /// A xorshift stream of digits.
    struct Rng(u64);

    impl Rng {
        fn digits(&mut self, len: usize) -> Vec<u16> {
            (0..len)
                .map(|_| {
                    self.0 ^= self.0 << 13;
                    self.0 ^= self.0 >> 7;
                    self.0 ^= self.0 << 17;
                    self.0 as u16
                })
                .collect()
        }
    }

    /// `x` (K digits) as a value of K digits plus a carry: `2x - 1` etc. in digits.
    fn two_n_minus(n: &[u16], d: u16) -> Vec<u16> {
        let mut out = Vec::with_capacity(n.len());
        let mut carry = 0u32;
        for &x in n {
            let v = 2 * u32::from(x) + carry;
            out.push(v as u16);
            carry = v >> 16;
        }
        let mut borrow = u32::from(d);
        for o in &mut out {
            let v = u32::from(*o).wrapping_sub(borrow);
            *o = v as u16;
            borrow = u32::from(v > 0xffff);
        }
        out
    }

    /// Moduli of `k` lazy limbs: random, all-ones digits below the lazy bound, and the
    /// largest and smallest top digits; operands 0, 1, n-1, 2n-1, all-ones digits
    /// (where below 2n) and random ones below 2n.
    fn check_size(rng: &mut Rng, k: usize, random_ops: usize) {
        // The largest modulus of K lazy limbs is below 2^(16K - 2).
        let mut moduli = Vec::new();
        let mut random = rng.digits(k);
        random[k - 1] &= 0x3fff;
        random[k - 1] |= 0x2000;
        moduli.push(random);
        let mut ones = vec![0xffffu16; k];
        ones[k - 1] = 0x3fff;
        moduli.push(ones);
        if k > 1 {
            // The smallest top digit that still needs K limbs: 16(K-1) - 1 bits.
            let mut small = rng.digits(k);
            small[k - 1] = 0;
            small[k - 2] |= 0x4000;
            small[k - 2] &= 0x7fff;
            moduli.push(small);
            // All-ones digits of 16(K-1) bits: K = n + 1 as in the seed.
            let mut full_top = vec![0xffffu16; k];
            full_top[k - 1] = 0;
            moduli.push(full_top);
        }
        for mut n in moduli {
            n[0] |= 1;
            // Past the size limit (the largest K holds 16(K-1)-bit moduli only).
            let Ok(m) = Modulus::with_kernel(&n, &Columns, Reduction::Lazy) else {
                continue;
            };
            assert_eq!(m.limbs(), k);
            let mut ops = vec![
                vec![0u16; k],
                {
                    let mut one = vec![0u16; k];
                    one[0] = 1;
                    one
                },
                {
                    let mut n1 = n.clone();
                    n1[0] -= 1;
                    n1
                },
                two_n_minus(&n, 1),
                two_n_minus(&n, 2),
            ];
            // All-ones digits below the top digit of 2n - 1, that digit less one.
            let top = two_n_minus(&n, 1)[k - 1];
            if top > 0 {
                let mut ones = vec![0xffffu16; k];
                ones[k - 1] = top - 1;
                ops.push(ones);
            }
            // Random operands below n: n's top nonzero digit h, digit h reduced mod
            // n_h, the digits above it zero.
            let h = n.iter().rposition(|&d| d != 0).expect("n is odd");
            for _ in 0..random_ops {
                let mut r = rng.digits(k);
                r[h] %= n[h];
                r[h + 1..].fill(0);
                ops.push(r);
            }
            agree(&n, &ops);
        }
    }

    #[test]
    fn simd_forms_equal_the_portable_kernel() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for k in 1..=40 {
            check_size(&mut rng, k, 4);
        }
        for k in [63, 64, 65, 128, 255, 256, 257, 511, 512] {
            check_size(&mut rng, k, 2);
        }
    }

    #[test]
    fn simd_forms_at_the_largest_size() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        // 16384 bits: K = ceil((16384 + 2) / 16) = 1025 lazy limbs.
        let k = (crate::MAX_BITS as usize + 2).div_ceil(16);
        check_size(&mut rng, k, 1);
    }
}
