//! Seed 001's 2-way interleaved Montgomery multiplication on x86 vector units:
//! `two-way-sse2` (one limb of both streams per 128-bit `pmuludq`) and `two-way-avx2`
//! (two limbs of both streams per 256-bit `vpmuludq`), on 32-bit limbs.
//!
//! Seed 001 (Bos, Montgomery, Shumow, Zaverucha, SAC 2013), Algorithm 2, "2-way SIMD
//! interleaved Montgomery multiplication": the sign of mu flipped makes the product
//! stream `D = (D + a_j B) / r` and the reduction stream `E = (E + q M) / r`
//! independent (the portable form, its proof and its bounds: [`crate::algo::two_way`]),
//! so one vector instruction advances both. A 64-bit lane holds one 32-bit word of a
//! stream (zero-extended) and the multiplier of that stream (a_j for D, q for E) in
//! its low half; `pmuludq` multiplies the low halves of each 64-bit lane, 32 x 32 -> 64
//! bits, as the seed's SSE2/NEON code does.
//!
//! Per word i of a step, in each lane: `t = x v_i + acc_i + c`, `acc_(i-1) = t mod 2^32`,
//! `c = t >> 32`. Bound: x, v_i, acc_i, c are below 2^32, so
//! `t <= (2^32 - 1)^2 + 2 (2^32 - 1) = 2^64 - 1`: no lane overflows.
//!
//! - `two-way-sse2`: one vector `[D_i, E_i]` per word, the carry chain word by word.
//! - `two-way-avx2`: one vector `[D_i, E_i, D_(i+1), E_(i+1)]` per two words. The
//!   carry out of word i (lower 128 bits) is moved up into word i+1's lanes inside the
//!   step: `t_(i+1) + (t_i >> 32) <= (2^32 - 1)^2 + (2^32 - 1) + (2^32 - 1)`, the same
//!   bound. The result of the two words is stored one word (128 bits) lower, which is
//!   the division by r: an unaligned store, no shuffle. An odd word count is padded
//!   with a zero word of B and M, whose D and E word stays 0 by the bounds.
//!
//! The q of each step needs the low words of D and E (`q = mu b_0 a_j + mu (d_0 - e_0)`
//! mod r): a scalar read of the first vector, which puts a store-to-load round trip on
//! every step's critical path. That, and that 64-bit `mulx` does four times the work per
//! multiplication, is why these kernels lose to the scalar 64-bit ones on this CPU
//! (`docs/PERFORMANCE.md`), as the seed found them losing on the Xeon it measured.
//!
//! Constant-time: yes (loop counts from the limb count only; the final correction is
//! the portable kernel's masked addition).

use core::arch::x86_64::*;

use crate::arch::cpu::Avx2;
use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{ct, Modulus, Reduction, MAX_BITS};

/// The most 32-bit limbs a modulus has: ceil((MAX_BITS + 2) / 32) under the lazy
/// policy (R > 4n), one more than the full policy's.
const MAX_LIMBS: usize = (MAX_BITS as usize + 2).div_ceil(32);

/// Slots of the stream buffer: a pair of 64-bit lanes `[D_i, E_i]` per word, one spare
/// pair below word 0 (where the AVX2 step stores the dropped word) and one above the
/// last for the odd-count padding.
const SLOTS: usize = 2 * (MAX_LIMBS + 2);

/// `two-way-sse2`: the D/E streams on SSE2, one word of each per `pmuludq`.
pub struct TwoWaySse2;

/// `two-way-avx2`: the D/E streams on AVX2, two words of each per `vpmuludq`.
pub struct TwoWayAvx2;

static INFO_SSE2: KernelInfo = KernelInfo {
    name: "two-way-sse2",
    seed: "001 (2-way SIMD interleaved)",
    summary: "the D and E streams in the two 64-bit lanes of SSE2 pmuludq, 32-bit limbs",
    words: &[32],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    // SSE2 is part of x86-64.
    available: portable,
};

static INFO_AVX2: KernelInfo = KernelInfo {
    name: "two-way-avx2",
    seed: "001 (2-way SIMD interleaved)",
    summary: "the D and E streams of two words at once in AVX2 vpmuludq, 32-bit limbs",
    words: &[32],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: avx2_available,
};

/// Whether this CPU has AVX2.
fn avx2_available() -> bool {
    Avx2::new().is_some()
}

/// The streams' inputs, interleaved: lane pair i is `[b_i, n_i]`, padded with zero
/// pairs; and the stream buffer, zeroed. Public layout, constant-time copies.
struct Buffers {
    bm: [u64; SLOTS],
    de: [u64; SLOTS],
}

impl Buffers {
    fn new(b: &[u32], n: &[u32]) -> Self {
        let mut bm = [0u64; SLOTS];
        for (pair, (&bi, &ni)) in bm.chunks_exact_mut(2).zip(b.iter().zip(n)) {
            pair[0] = u64::from(bi);
            pair[1] = u64::from(ni);
        }
        Buffers {
            bm,
            de: [0u64; SLOTS],
        }
    }

    /// `out = D - E`, plus M when that is negative: the portable kernel's finish, with
    /// D and E read from the pairs from `first` on.
    fn finish(&self, n: &[u32], first: usize, out: &mut [u32]) {
        let s = n.len();
        let mut e = [0u32; MAX_LIMBS];
        for (i, (o, ei)) in out.iter_mut().zip(&mut e[..s]).enumerate() {
            *o = self.de[2 * (first + i)] as u32;
            *ei = self.de[2 * (first + i) + 1] as u32;
        }
        // C = D - E in (-M, B): a borrow means C < 0, and adding M (mod R) fixes it.
        let borrow = ct::sub_masked(out, &e[..s], u32::MAX);
        ct::add_masked(out, n, ct::mask(borrow));
    }
}

/// `q` of the step with word `a_j`, from the low words of D and E (`d0`, `e0`):
/// `mu b_0 a_j + mu (d_0 - e_0)` mod 2^32.
#[inline(always)]
fn quotient(mu: u32, mu_b0: u32, a_j: u32, d0: u64, e0: u64) -> u32 {
    mu_b0
        .wrapping_mul(a_j)
        .wrapping_add(mu.wrapping_mul((d0 as u32).wrapping_sub(e0 as u32)))
}

/// The two streams on SSE2, word i in pair i (the dropped word is not stored).
///
/// # Safety
/// The CPU has SSE2 (every x86-64 CPU does).
#[target_feature(enable = "sse2")]
unsafe fn streams_sse2(a: &[u32], b: &[u32], n: &[u32], mu: u32, bufs: &mut Buffers) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && (1..=MAX_LIMBS).contains(&s));
    let mu_b0 = mu.wrapping_mul(b[0]);
    let low = _mm_set1_epi64x(0xffff_ffff);
    let (bm, de) = (bufs.bm.as_ptr(), bufs.de.as_mut_ptr());
    for &a_j in a {
        let q = quotient(mu, mu_b0, a_j, bufs.de[0], bufs.de[1]);
        let x = _mm_set_epi64x(i64::from(q), i64::from(a_j));
        let mut c = _mm_setzero_si128();
        for i in 0..s {
            // SAFETY: pairs 0..s lie inside both buffers (s <= MAX_LIMBS); unaligned
            // loads and stores of 16 bytes.
            unsafe {
                let v = _mm_loadu_si128(bm.add(2 * i).cast());
                let acc = _mm_loadu_si128(de.add(2 * i).cast());
                let t = _mm_add_epi64(_mm_add_epi64(_mm_mul_epu32(x, v), acc), c);
                if i > 0 {
                    _mm_storeu_si128(de.add(2 * (i - 1)).cast(), _mm_and_si128(t, low));
                }
                c = _mm_srli_epi64::<32>(t);
            }
        }
        // SAFETY: pair s - 1 lies inside the buffer.
        unsafe { _mm_storeu_si128(de.add(2 * (s - 1)).cast(), c) };
    }
}

/// The two streams on AVX2, word i in pair i + 1 (pair 0 takes the dropped word).
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
unsafe fn streams_avx2(a: &[u32], b: &[u32], n: &[u32], mu: u32, bufs: &mut Buffers) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && (1..=MAX_LIMBS).contains(&s));
    // Words padded to an even count; the padding word of B and M is 0.
    let words = s.next_multiple_of(2);
    let mu_b0 = mu.wrapping_mul(b[0]);
    let low = _mm256_set1_epi64x(0xffff_ffff);
    let (bm, de) = (bufs.bm.as_ptr(), bufs.de.as_mut_ptr());
    for &a_j in a {
        let q = quotient(mu, mu_b0, a_j, bufs.de[2], bufs.de[3]);
        let (a_j, q) = (i64::from(a_j), i64::from(q));
        let x = _mm256_set_epi64x(q, a_j, q, a_j);
        // The carry into the lower word of a vector, in the lower 128 bits.
        let mut c = _mm256_setzero_si256();
        for k in (0..words).step_by(2) {
            // SAFETY: words k, k + 1 are pairs k + 1, k + 2 < SLOTS / 2 of `de` and k,
            // k + 1 of `bm` (words <= MAX_LIMBS + 1); unaligned 32-byte loads/stores.
            unsafe {
                let v = _mm256_loadu_si256(bm.add(2 * k).cast());
                let acc = _mm256_loadu_si256(de.add(2 * (k + 1)).cast());
                let t = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(x, v), acc), c);
                // Word k's carry into word k + 1: the lower half moved up.
                let up = _mm256_permute2x128_si256::<0x08>(_mm256_srli_epi64::<32>(t), t);
                let t = _mm256_add_epi64(t, up);
                // Stored one word lower: the division by r.
                _mm256_storeu_si256(de.add(2 * k).cast(), _mm256_and_si256(t, low));
                // Word k + 1's carry, moved down into the lower half for the next pair.
                c = _mm256_permute2x128_si256::<0x81>(_mm256_srli_epi64::<32>(t), t);
            }
        }
        // The top word: pair `words` (word words - 1).
        // SAFETY: pair `words` <= MAX_LIMBS + 1 lies inside the buffer.
        unsafe { _mm_storeu_si128(de.add(2 * words).cast(), _mm256_castsi256_si128(c)) };
    }
}

impl Kernel<u32> for TwoWaySse2 {
    fn info(&self) -> &'static KernelInfo {
        &INFO_SSE2
    }

    fn mul_exact(&self, m: &Modulus<u32>, a: &[u32], b: &[u32], out: &mut [u32]) {
        let mut bufs = Buffers::new(b, m.n());
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { streams_sse2(a, b, m.n(), m.n0().wrapping_neg(), &mut bufs) };
        bufs.finish(m.n(), 0, out);
    }
}

impl Kernel<u32> for TwoWayAvx2 {
    fn info(&self) -> &'static KernelInfo {
        &INFO_AVX2
    }

    /// # Panics
    /// On a CPU without AVX2: a modulus is not built for a kernel the CPU lacks
    /// ([`Modulus::with_kernel`] refuses it), so this is never reached there.
    fn mul_exact(&self, m: &Modulus<u32>, a: &[u32], b: &[u32], out: &mut [u32]) {
        let Some(_token) = Avx2::new() else {
            panic!("two-way-avx2 on a CPU without AVX2");
        };
        let mut bufs = Buffers::new(b, m.n());
        // SAFETY: the token proves AVX2.
        unsafe { streams_avx2(a, b, m.n(), m.n0().wrapping_neg(), &mut bufs) };
        bufs.finish(m.n(), 1, out);
    }
}
