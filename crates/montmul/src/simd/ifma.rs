//! `amm52-ifma`: almost-Montgomery multiplication in radix 2^52 on AVX-512 IFMA.
//!
//! Montgomery, *Modular multiplication without trial division*, Math. Comp. 44 (1985);
//! the 52-bit digit layout and the almost-Montgomery loop are those of Gueron and
//! Krasnov, *Fast modular squaring with AVX512IFMA* (2018), and Drucker and Gueron,
//! *Fast modular squaring with AVX512IFMA*, ITNG 2019 (OpenSSL's
//! `ossl_rsaz_amm52x20_x1_ifma256`). `vpmadd52luq`/`vpmadd52huq` multiply the low 52
//! bits of two 64-bit lanes and add the low or the high 52 bits of the 104-bit product
//! to a third lane, eight lanes at a time.
//!
//! # The computation
//!
//! montmul's R is 2^(64 s) for s 64-bit limbs. The operands and n are split into
//! d = ceil(64 s / 52) digits of 52 bits, held one per 64-bit lane, eight lanes per
//! vector, V = ceil(d / 8) vectors. The loop does d word-serial Montgomery steps, each
//! dividing by 2^52, so it divides by 2^(52 d) = 2^(64 s + e), e = 52 d - 64 s in
//! [0, 52). To land on R exactly, `b` is converted shifted left by e bits:
//! b' = b 2^e < 2^(52 d) still fits in d digits, and
//! (a b' + Q n) / 2^(52 d) = (a b + Q n 2^-e) / 2^(64 s) is congruent to a b R^-1.
//! Bound: Q < 2^(52 d) and a b < n R (both operands below n, or below 2n with
//! R > 4n), so the result is below a b / R + n < 2n, as after REDC
//! ([`crate::mpn::redc`]); [`crate::mpn::finish`] subtracts n once, with a mask, for
//! [`Reduction::Full`].
//!
//! One step, for digit b'_i (all digits below 2^52):
//!
//! 1. q = (A_0 + a_0 b'_i) n0' mod 2^52, in scalar registers (n0' = -n^-1 mod 2^52, the
//!    low 52 bits of [`Modulus::n0`]);
//! 2. A += lo52(a b'_i) + lo52(n q), lane by lane (`vpmadd52luq`); lane 0 is now
//!    0 mod 2^52 and its high 12 bits carry into lane 1;
//! 3. shift every lane down one (`valignq`);
//! 4. A += hi52(a b'_i) + hi52(n q) (`vpmadd52huq`): the high half of the product at
//!    lane j belongs to lane j + 1, which is lane j after the shift.
//!
//! Lane 0 lives in a scalar register: the next step's A_0 is the old lane 1 plus
//! lo52(a_1 b'_i) + lo52(n_1 q) + hi52(a_0 b'_i) + hi52(n_0 q) + the carry, computed
//! with scalar multiplications, so the next q waits for neither the vectors nor a lane
//! extraction (lane 1 is read one step ahead). The high halves are summed off the
//! accumulator and added after the shift, so one step's chain through the accumulator
//! is two multiply-adds, the shift and an add.
//!
//! The lanes are never normalised inside the loop: the 12 bits above each digit absorb
//! the carries. Bound: one step adds to a lane at most 4 (2^52 - 1) < 2^54 (two low
//! and two high halves, each below 2^52), and a lane takes part in at most d steps, so
//! every lane stays below d 2^54 + 2^12 (the carry into lane 0 is the top 12 bits of a
//! 64-bit lane). That is below 2^64 while d <= 1023; montmul's largest modulus
//! (16384 bits, 257 limbs under lazy reduction) has d = 317, below 2^63. Lanes from
//! d upward stay 0: the digits of `a` and `n` there are 0. After the loop one scalar
//! pass propagates the carries (digit + carry < 2^63 + 2^12) and packs the digits back
//! into 64-bit limbs.
//!
//! The conversions 64 -> 52 -> 64 bits cost O(s) per call, small next to the d^2 / 4
//! vector multiply-adds from about 1024 bits on; `montmul tune` measures where the
//! kernel starts to win (`ifma_from` in [`crate::thresholds`]).
//!
//! Words: 64 (instantiated for other limb types it falls back to
//! [`crate::algo::cios`]). Reduction: `Full` and `Lazy`. Constant-time: yes. The loop
//! counts and every address depend on the limb count only; the digits are split and
//! joined with shifts and masks; the final subtraction is masked. Available on x86-64
//! CPUs with AVX-512F and AVX-512 IFMA (detected at run time; std caches the answer).

#[cfg(target_arch = "x86_64")]
use core::any::TypeId;

use crate::algo::cios::Cios;
use crate::kernel::{Kernel, KernelInfo};
use crate::{Limb, Modulus, Reduction};

/// The `amm52-ifma` kernel.
pub struct Amm52Ifma;

/// Mask of one 52-bit digit.
const DIGIT: u64 = (1 << 52) - 1;

/// The largest number of vectors (8 digits each) a modulus of
/// [`crate::MAX_BITS`] bits needs: 257 limbs under lazy reduction, 317 digits.
const MAX_VECTORS: usize = 40;

/// Whether this CPU has AVX-512F and AVX-512 IFMA (std caches the detection).
pub fn is_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512ifma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The digit counts of a modulus of `s` limbs: (d, V, e) with d = ceil(64 s / 52)
/// digits, V = ceil(d / 8) vectors and e = 52 d - 64 s, the shift applied to `b`.
pub fn shape(s: usize) -> (usize, usize, u32) {
    let d = (64 * s).div_ceil(52);
    (d, d.div_ceil(8), (52 * d - 64 * s) as u32)
}

/// `out[j]` = digit j (52 bits) of `x 2^shift`, for `out.len()` digits, `x` little-endian
/// limbs and `shift < 52`. Which words each digit reads depends on `j` and `shift` only.
pub fn to_digits<L: Limb>(x: &[L], shift: u32, out: &mut [u64]) {
    let word = |i: usize| x.get(i).map_or(0, |w| w.to_u64());
    for (j, o) in out.iter_mut().enumerate() {
        let pos = 52 * j as u64;
        *o = if pos < u64::from(shift) {
            // Only digit 0 when shift > 0: its low `shift` bits are the zeros shifted in.
            (word(0) << shift) & DIGIT
        } else {
            let bit = (pos - u64::from(shift)) as usize;
            let (w, off) = (bit / 64, bit % 64);
            let pair = u128::from(word(w)) | u128::from(word(w + 1)) << 64;
            (pair >> off) as u64 & DIGIT
        };
    }
}

/// Propagates the carries of `lanes` (unnormalised digits, each below 2^63) and packs
/// the value into `out` (64-bit limbs); returns the bits above `out`.
pub fn from_lanes(lanes: &[u64], out: &mut [u64]) -> u64 {
    let (mut acc, mut bits, mut w) = (0u128, 0u32, 0usize);
    let mut carry = 0u64;
    for &lane in lanes.iter().chain(core::iter::once(&0)) {
        // lane + carry < 2^63 + 2^12: no overflow; the new carry is below 2^12.
        let t = lane + carry;
        carry = t >> 52;
        acc |= u128::from(t & DIGIT) << bits;
        bits += 52;
        // Below 64 bits were pending before this digit (or, once `out` is full, the
        // e + 52 < 104 bits above it): acc never loses a bit.
        while bits >= 64 && w < out.len() {
            out[w] = acc as u64;
            acc >>= 64;
            bits -= 64;
            w += 1;
        }
    }
    // The last (zero) lane took the final carry; everything left is above `out`.
    debug_assert_eq!(carry, 0);
    acc as u64
}

// The AVX-512 intrinsics are stable since Rust 1.89, above the workspace's declared
// `rust-version`: this module needs 1.89 to build on x86-64.
#[cfg(target_arch = "x86_64")]
#[clippy::msrv = "1.89"]
mod x86 {
    use core::arch::x86_64::*;

    use super::{from_lanes, shape, to_digits, DIGIT};
    use crate::{mpn, Reduction};

    /// `out = a b R^-1 mod n` (with `top`, the bits above `out`, returned: below 2n in
    /// all) for `V` vectors of digits: the conversions and the word-serial loop of the
    /// module doc, then the policy's finish. `a`, `b`, `n`, `out` have s limbs, and
    /// `shape(s)` gives V vectors.
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn mul<const V: usize>(
        a: &[u64],
        b: &[u64],
        n: &[u64],
        n0: u64,
        reduction: Reduction,
        out: &mut [u64],
    ) {
        let (d, v, e) = shape(n.len());
        assert!(v == V && a.len() == n.len() && b.len() == n.len() && out.len() == n.len());
        // Digits d .. 8 V of a and n stay 0; b' has d digits.
        let (mut ad, mut bd, mut nd) = ([[0u64; 8]; V], [[0u64; 8]; V], [[0u64; 8]; V]);
        to_digits(a, 0, &mut ad.as_flattened_mut()[..d]);
        to_digits(b, e, &mut bd.as_flattened_mut()[..d]);
        to_digits(n, 0, &mut nd.as_flattened_mut()[..d]);
        let k0 = n0 & DIGIT;

        let zero = _mm512_setzero_si512();
        let mut av = [zero; V];
        let mut nv = [zero; V];
        for v in 0..V {
            // SAFETY: ad[v] and nd[v] are 8 words each; loadu has no alignment
            // requirement.
            unsafe {
                av[v] = _mm512_loadu_si512(ad[v].as_ptr().cast());
                nv[v] = _mm512_loadu_si512(nd[v].as_ptr().cast());
            }
        }
        let (a0, a1, n0, n1) = (ad[0][0], ad[0][1], nd[0][0], nd[0][1]);
        let mut acc = [zero; V];
        // The true lane 0 is kept in scalar, `r0`: the vector's lane 0 is never read.
        // Lanes 1 and up are exact in the vectors.
        let mut r0 = 0u64;
        for &bi in &bd.as_flattened()[..d] {
            let bv = _mm512_set1_epi64(bi as i64);
            // Lane 1 now, which the shift below makes lane 0 of the next step.
            let x1 = _mm_extract_epi64::<1>(_mm512_castsi512_si128(acc[0])) as u64;
            // All four 52 x 52-bit products are below 2^104.
            let pa0 = u128::from(a0) * u128::from(bi);
            let t = r0 + (pa0 as u64 & DIGIT);
            let q = t.wrapping_mul(k0) & DIGIT;
            let pn0 = u128::from(n0) * u128::from(q);
            // t + lo52(n_0 q) = 0 mod 2^52; its high 12 bits carry into lane 1.
            let c = (t + (pn0 as u64 & DIGIT)) >> 52;
            // The next lane 0, in scalar, so that the next q need not wait for the
            // vectors: lane 1 plus its low halves, plus lane 0's high halves and carry.
            // Every sum here is a lane value, below the bound of the module doc.
            r0 = x1
                + (a1.wrapping_mul(bi) & DIGIT)
                + (n1.wrapping_mul(q) & DIGIT)
                + (pa0 >> 52) as u64
                + (pn0 >> 52) as u64
                + c;
            let qv = _mm512_set1_epi64(q as i64);
            let mut hi = [zero; V];
            for v in 0..V {
                acc[v] = _mm512_madd52lo_epu64(acc[v], av[v], bv);
                acc[v] = _mm512_madd52lo_epu64(acc[v], nv[v], qv);
                // The high halves off the accumulator's dependency chain.
                hi[v] = _mm512_madd52hi_epu64(zero, av[v], bv);
                hi[v] = _mm512_madd52hi_epu64(hi[v], nv[v], qv);
            }
            // Lane j <- lane j + 1 across the vectors, then the high halves of lane j
            // (which belong one lane up) land on lane j.
            for v in 0..V {
                let next = if v + 1 < V { acc[v + 1] } else { zero };
                acc[v] = _mm512_add_epi64(_mm512_alignr_epi64::<1>(next, acc[v]), hi[v]);
            }
        }
        let mut lanes = [[0u64; 8]; V];
        for v in 0..V {
            // SAFETY: lanes[v] is 8 words; storeu has no alignment requirement.
            unsafe { _mm512_storeu_si512(lanes[v].as_mut_ptr().cast(), acc[v]) };
        }
        lanes[0][0] = r0;
        let top = from_lanes(&lanes.as_flattened()[..d], out);
        mpn::finish(out, top, n, reduction);
    }

    /// One instance of [`mul`].
    type Mul = unsafe fn(&[u64], &[u64], &[u64], u64, Reduction, &mut [u64]);

    macro_rules! by_vectors {
        ($v:expr, $($n:literal)*) => {
            match $v {
                $($n => mul::<$n>,)*
                _ => unreachable!("more vectors than the largest modulus needs"),
            }
        };
    }

    /// [`mul`] for moduli of `n.len()` limbs (at most 40 vectors of digits:
    /// [`super::MAX_VECTORS`]).
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512 IFMA.
    pub unsafe fn mont_mul(
        a: &[u64],
        b: &[u64],
        n: &[u64],
        n0: u64,
        reduction: Reduction,
        out: &mut [u64],
    ) {
        debug_assert!(shape(n.len()).1 <= super::MAX_VECTORS);
        let f: Mul = by_vectors!(shape(n.len()).1,
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
            21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40);
        // SAFETY: the caller guarantees the CPU features; the lengths are checked inside.
        unsafe { f(a, b, n, n0, reduction, out) }
    }
}

/// `x` as 64-bit words, when `L` is `u64`.
#[cfg(target_arch = "x86_64")]
fn as_words<L: Limb>(x: &[L]) -> Option<&[u64]> {
    if TypeId::of::<L>() != TypeId::of::<u64>() {
        return None;
    }
    // SAFETY: L is u64 (same TypeId), so `x` is `x.len()` initialised u64 words.
    Some(unsafe { core::slice::from_raw_parts(x.as_ptr().cast::<u64>(), x.len()) })
}

/// `x` as mutable 64-bit words, when `L` is `u64`.
#[cfg(target_arch = "x86_64")]
fn as_words_mut<L: Limb>(x: &mut [L]) -> Option<&mut [u64]> {
    if TypeId::of::<L>() != TypeId::of::<u64>() {
        return None;
    }
    // SAFETY: L is u64 (same TypeId), so `x` is `x.len()` u64 words, borrowed uniquely.
    Some(unsafe { core::slice::from_raw_parts_mut(x.as_mut_ptr().cast::<u64>(), x.len()) })
}

static INFO: KernelInfo = KernelInfo {
    name: "amm52-ifma",
    seed: "Montgomery 1985; Gueron-Krasnov 2018, Drucker-Gueron 2019 (AMM, 52-bit digits)",
    summary: "word-serial Montgomery in radix 2^52 on AVX-512 IFMA vpmadd52luq/huq, \
              8 digits per vector",
    words: &[64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: is_available,
};

impl<L: Limb> Kernel<L> for Amm52Ifma {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        #[cfg(target_arch = "x86_64")]
        if is_available() {
            if let (Some(aw), Some(bw), Some(nw)) = (as_words(a), as_words(b), as_words(m.n())) {
                if let Some(ow) = as_words_mut(out) {
                    // SAFETY: AVX-512F and IFMA are present (checked).
                    unsafe { x86::mont_mul(aw, bw, nw, m.n0().to_u64(), m.reduction(), ow) };
                    return;
                }
            }
        }
        // Other limb types, or a direct call on a CPU without IFMA (`Modulus` refuses
        // the kernel there): the same product by CIOS.
        Cios.mul(m, a, b, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_round_trip() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for s in 1..=20 {
            let (d, _, e) = shape(s);
            assert!(52 * d >= 64 * s && e < 52);
            let words: Vec<u64> = (0..s)
                .map(|_| {
                    x = x.rotate_left(23).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 5;
                    x
                })
                .collect();
            let mut digits = vec![0u64; d];
            to_digits(&words, 0, &mut digits);
            assert!(digits.iter().all(|&g| g <= DIGIT));
            let mut back = vec![0u64; s];
            assert_eq!(from_lanes(&digits, &mut back), 0, "s {s}");
            assert_eq!(back, words, "s {s}");
            // Shifted by e: the value times 2^e, whose top e bits spill over.
            to_digits(&words, e, &mut digits);
            let top = from_lanes(&digits, &mut back);
            let hi = if e == 0 { 0 } else { words[s - 1] >> (64 - e) };
            assert_eq!(top, hi, "s {s}");
            assert_eq!(back[0], words[0] << e, "s {s}");
        }
    }
}
