//! The pair's chained product with both halves packed into one run of 512-bit
//! registers: half 0's d digits in lanes 0 .. d, half 1's in lanes d .. 2 d, so that
//! ceil(2 d / 8) registers hold what 2 ceil(d / 8) hold side by side (5 instead of 6
//! at 17 to 20 digits, the 1024-bit halves of RSA-2048; 3 instead of 4 at 9 to 12).
//!
//! The step is the chained step of `step.rs` (`Half::step`) on the packed registers:
//! each register's four halves, lo52(a_(j+1) b_i) + hi52(a_j b_i) + lo52(n_(j+1) q) +
//! hi52(n_j q) at lane j, summed off the accumulator and added after its shift, and
//! both halves' lanes 0 and 1 in scalar (`r0`, the lane-1 reads). What packing adds:
//!
//! - b_i and q differ between the halves, so the register that holds both (register
//!   d / 8, half 1 from lane d mod 8) takes b_i and q blended from both;
//! - a and n shifted down one lane are shifted within each half (half 0's top lane
//!   takes 0, not half 1's digit 0);
//! - the accumulator's shift must not move half 1's lane 0 into half 0's top lane: the
//!   shift of that register zeroes the lane (a zero-masked `valignq`, no extra uop).
//!
//! Against two halves side by side this does a sixth fewer multiply-adds, shifts and
//! adds at 20 digits (20 + 5 + 5 against 24 + 6 + 6 a step), for two more uops on
//! those ports (the blends). On an Intel Xeon those ports run the 512-bit
//! multiply-adds and every other vector instruction, and bound the pair
//! (`docs/PERFORMANCE.md`). Each half's value is the very value `Half::step` computes
//! (the same q, the same lanes), so the result is the same normalised digits (the unit
//! test compares them).
//!
//! Constant-time: yes, as the other steps (no branch or address depends on a value).

use core::arch::x86_64::*;

use super::step::{finish_lanes, in_gpr, Lane0, MulX2};
use crate::arch::x86_64::avx512ifma::digits::{load_vectors, shifted_down};
use crate::arch::x86_64::avx512ifma::reg::{lane_through_memory, Reg};

/// Whether `d` digits per half pack into fewer registers than two halves side by side
/// (so d is not a multiple of 8).
const fn packs(d: usize) -> bool {
    (2 * d).div_ceil(8) < 2 * d.div_ceil(8)
}

/// The packed register count from which each half's q is broadcast from memory (a
/// store and a load: `Reg::splat_at`) rather than from its general register (a uop
/// on a port that also runs the multiply-adds). With 5 registers (17 to 20 digits)
/// the pair of 1024-bit exponentiations took about 0.96x of the time so; with 3 (9 to
/// 12 digits) the 512- and 576-bit pairs took 1.02x (`docs/PERFORMANCE.md`, "What
/// binds the packed pair's step").
const Q_FROM_MEMORY: usize = 5;

/// The packed pair product for `d` digits per half where it has an instance: 9 to 12
/// and 17 to 20 digits (2 and 3 vectors per half, packed into 3 and 5 registers), the
/// sizes where the chained form runs on the CPUs that do not split 512-bit
/// multiply-adds (`super::instances`).
pub(super) fn instance(d: usize) -> Option<MulX2> {
    macro_rules! by_digits {
        ($($v:literal $p:literal [$($d:literal)*])*) => {
            match d {
                $($($d => Some(mul_x2_packed::<$v, $p, $d> as MulX2),)*)*
                _ => None,
            }
        };
    }
    by_digits!(2 3 [9 10 11 12] 3 5 [17 18 19 20])
}

/// The two halves' registers (`V` each, digits from `D` up 0) packed into `P`: half 1
/// moved up `D` lanes into the lanes above half 0's digits.
///
/// # Safety
/// AVX-512F.
#[inline(always)]
unsafe fn pack<const V: usize, const P: usize, const D: usize>(
    lo: &[__m512i; V],
    hi: &[__m512i; V],
) -> [__m512i; P] {
    let (m, o) = (D / 8, D % 8);
    // SAFETY: the caller enables AVX-512F.
    unsafe {
        // Lane i of register j of half 1 moved up o lanes: lane i + 8 - o of (register
        // j - 1, register j), as `vpermt2q` indexes a pair.
        let up = _mm512_set_epi64(15, 14, 13, 12, 11, 10, 9, 8);
        let up = _mm512_sub_epi64(up, _mm512_set1_epi64(o as i64));
        let zero = _mm512_setzero_si512();
        let low_lanes = (1u8 << o) - 1;
        // (Loops, not `array::from_fn`: its closure is not compiled with the
        // features enabled, and its intrinsics become calls.)
        let mut out = [zero; P];
        for (v, out) in out.iter_mut().enumerate() {
            *out = if v < m {
                lo[v]
            } else {
                let j = v - m;
                let prev = if j >= 1 { hi[j - 1] } else { zero };
                let cur = if j < V { hi[j] } else { zero };
                let moved = _mm512_permutex2var_epi64(prev, up, cur);
                if v == m {
                    _mm512_or_si512(_mm512_maskz_mov_epi64(low_lanes, lo[m]), moved)
                } else {
                    moved
                }
            };
        }
        out
    }
}

/// The halves of a packed accumulator, each in `V` registers: the reverse of [`pack`].
///
/// # Safety
/// AVX-512F.
#[inline(always)]
unsafe fn unpack<const V: usize, const P: usize, const D: usize>(
    acc: &[__m512i; P],
) -> ([__m512i; V], [__m512i; V]) {
    let (m, o) = (D / 8, D % 8);
    // SAFETY: the caller enables AVX-512F.
    unsafe {
        let down = _mm512_add_epi64(
            _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
            _mm512_set1_epi64(o as i64),
        );
        let zero = _mm512_setzero_si512();
        let low_lanes = (1u8 << o) - 1;
        let (mut lo, mut hi) = ([zero; V], [zero; V]);
        for (v, lo) in lo.iter_mut().enumerate() {
            *lo = match v.cmp(&m) {
                core::cmp::Ordering::Less => acc[v],
                core::cmp::Ordering::Equal => _mm512_maskz_mov_epi64(low_lanes, acc[m]),
                core::cmp::Ordering::Greater => zero,
            };
        }
        for (j, hi) in hi.iter_mut().enumerate() {
            let cur = if m + j < P { acc[m + j] } else { zero };
            let next = if m + j + 1 < P { acc[m + j + 1] } else { zero };
            *hi = _mm512_permutex2var_epi64(cur, down, next);
        }
        (lo, hi)
    }
}

// Three masked instructions in inline assembly: the compiler makes the intrinsics
// (`_mm512_mask_set1_epi64`, `_mm512_maskz_alignr_epi64`) into two broadcasts and a
// permute, and a shift and an `and`: one more uop each on the multiply-add ports.
// Together 4% of the 20-digit pair (measured).

/// `x` with the lanes in `mask` set to `*p` (`vpbroadcastq` from memory, merged).
///
/// # Safety
/// The CPU has AVX-512F.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn splat_at_into(x: __m512i, mask: u8, p: &u64) -> __m512i {
    let r: __m512i;
    // SAFETY: an 8-byte load from a reference, merged into a register under a mask
    // register; the caller enables AVX-512F.
    unsafe {
        core::arch::asm!("vpbroadcastq {r} {{{k}}}, qword ptr [{p}]", r = inout(zmm_reg) x => r,
            k = in(kreg) mask, p = in(reg) p, options(pure, readonly, nostack, preserves_flags));
    }
    r
}

/// `x` with the lanes in `mask` set to `q` (`vpbroadcastq` from a general register,
/// merged).
///
/// # Safety
/// The CPU has AVX-512F.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn splat_into(x: __m512i, mask: u8, q: u64) -> __m512i {
    let r: __m512i;
    // SAFETY: register operations only; the caller enables AVX-512F.
    unsafe {
        core::arch::asm!("vpbroadcastq {r} {{{k}}}, {q}", r = inout(zmm_reg) x => r,
            k = in(kreg) mask, q = in(reg) q, options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `x` shifted down one lane, lane 0 of `next` in the top lane, then the lanes not in
/// `mask` zeroed (`valignq` under a zeroing mask).
///
/// # Safety
/// The CPU has AVX-512F.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn down_maskz(mask: u8, next: __m512i, x: __m512i) -> __m512i {
    let r: __m512i;
    // SAFETY: register operations only; the caller enables AVX-512F.
    unsafe {
        core::arch::asm!("valignq {r} {{{k}}}{{z}}, {hi}, {lo}, 1", r = out(zmm_reg) r,
            k = in(kreg) mask, hi = in(zmm_reg) next, lo = in(zmm_reg) x,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// The pair product a b (both halves, as `step::mul_x2`'s contract: `a`, `b`, `n`,
/// `out` of 2 8 V digits, half 1 from 8 V, digits from d up 0) in the packed chained
/// step: `D` digits per half, `V` = ceil(D / 8) vectors per half, `P` = ceil(2 D / 8)
/// packed registers.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) unsafe fn mul_x2_packed<const V: usize, const P: usize, const D: usize>(
    a: &[u64],
    b: &[u64],
    n: &[u64],
    n0: [u64; 2],
    d: usize,
    out: &mut [u64],
) {
    const { assert!(packs(D) && V == D.div_ceil(8) && P == (2 * D).div_ceil(8)) };
    let len = 8 * V;
    assert!(d == D && a.len() == 2 * len && b.len() == 2 * len);
    assert!(n.len() == 2 * len && out.len() == 2 * len);
    let (m, o) = (D / 8, D % 8);
    // Half 1's lanes in the register both share; half 0's top lane in it, which the
    // shift zeroes.
    let half1: u8 = 0xff << o;
    let keep: u8 = !(1u8 << (o - 1));
    let (o0, o1) = out.split_at_mut(len);
    // SAFETY: the features are enabled here; a and n hold 2 8 V digits (checked), b 2
    // 8 V >= len + D.
    let carries = unsafe {
        let (alo, ahi) = (load_vectors::<V>(&a[..len]), load_vectors::<V>(&a[len..]));
        let (nlo, nhi) = (load_vectors::<V>(&n[..len]), load_vectors::<V>(&n[len..]));
        let av = pack::<V, P, D>(&alo, &ahi);
        let nv = pack::<V, P, D>(&nlo, &nhi);
        let ad1 = pack::<V, P, D>(&shifted_down(&alo), &shifted_down(&ahi));
        let nd1 = pack::<V, P, D>(&shifted_down(&nlo), &shifted_down(&nhi));
        let lanes0 = [
            Lane0::new(&a[..len], &n[..len], n0[0]),
            Lane0::new(&a[len..], &n[len..], n0[1]),
        ];
        let zero = _mm512_setzero_si512();
        let mut acc = [zero; P];
        let mut r = [0u64; 2];
        for i in 0..D {
            let (b0, b1) = (&b[i], &b[len + i]);
            let bv0 = __m512i::splat_at(b0);
            let bv1 = __m512i::splat_at(b1);
            // Lane 1 of each half, read before the step (the next lane 0 is formed
            // in scalar from it).
            let x1 = [
                __m512i::lane1(acc[0]),
                lane_through_memory(acc[(D + 1) / 8], (D + 1) % 8),
            ];
            let mut q = [0u64; 2];
            let mut next = [0u64; 2];
            for (h, bi) in [*b0, *b1].into_iter().enumerate() {
                let (qh, carry) = lanes0[h].q_and_carry_at(r[h], bi);
                q[h] = qh;
                next[h] = in_gpr(lanes0[h].lane1_with_lows(x1[h], bi, qh) + carry);
            }
            let (qv0, qv1) = if P >= Q_FROM_MEMORY {
                (__m512i::splat_at(&q[0]), __m512i::splat_at(&q[1]))
            } else {
                (__m512i::splat(q[0]), __m512i::splat(q[1]))
            };
            let bvm = splat_at_into(bv0, half1, b1);
            let qvm = splat_into(qv0, half1, q[1]);
            let mut h = [zero; P];
            for (v, h) in h.iter_mut().enumerate() {
                let (bv, qv) = match v.cmp(&m) {
                    core::cmp::Ordering::Less => (bv0, qv0),
                    core::cmp::Ordering::Equal => (bvm, qvm),
                    core::cmp::Ordering::Greater => (bv1, qv1),
                };
                let s = __m512i::madd_hi(__m512i::madd_lo(zero, ad1[v], bv), av[v], bv);
                *h = __m512i::madd_hi(__m512i::madd_lo(s, nd1[v], qv), nv[v], qv);
            }
            for (v, &h) in h.iter().enumerate() {
                let above = if v + 1 < P { acc[v + 1] } else { zero };
                let shifted = if v == m {
                    down_maskz(keep, above, acc[v])
                } else {
                    _mm512_alignr_epi64::<1>(above, acc[v])
                };
                acc[v] = _mm512_add_epi64(shifted, h);
            }
            r = next;
        }
        let (lo, hi) = unpack::<V, P, D>(&acc);
        (
            finish_lanes::<__m512i, V, V>(&lo, r[0], o0),
            finish_lanes::<__m512i, V, V>(&hi, r[1], o1),
        )
    };
    debug_assert_eq!(carries, (0, 0));
}
