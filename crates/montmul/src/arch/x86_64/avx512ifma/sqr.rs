//! `amm52-ifma`, the squarings: the wide squaring (`sqr_wide`, core `sqr_lanes`)
//! from `SQR_WIDE_VECTORS` vectors, where it measured faster than the product of the
//! operand by itself, and `sqr_digits` for the exponentiation.

use core::arch::x86_64::*;

use super::digits::*;
use super::finish::*;
use super::mul::*;
use crate::Reduction;

/// The square of `a` in the digit domain, as [`mul_digits`] with b = a (same
/// contract), for `a` below 2^(52 d - 1) (the exponentiation's values are below
/// 2n < R' / 2): [`sqr_lanes`] at [`SQR_WIDE_VECTORS`], where it measured faster,
/// else the multiplication.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
pub(super) unsafe fn sqr_digits<const V: usize>(
    a: &[u64],
    n: &[u64],
    n0: u64,
    d: usize,
    out: &mut [u64],
) -> u64 {
    // `sqr_lanes` takes its window width W = V + 1 as a second constant, so each
    // vector count it serves is named once here; V is a constant, the match
    // resolves at compile time.
    macro_rules! wide {
        ($($v:literal)*) => {
            match V {
                $($v => {
                    // SAFETY: the caller guarantees the CPU features and the
                    // contract of `mul_digits` (8 V digits each, d > 8 (V - 1) as
                    // V = ceil(d / 8), a < 2^(52 d - 1)); `sqr_lanes` checks the
                    // lengths.
                    let lanes = unsafe { sqr_lanes::<$v, { $v + 1 }>(a, n, d, n0 & DIGIT) };
                    // SAFETY: as above; lanes holds 8 V words.
                    let x = unsafe { load_vectors::<V>(lanes.as_flattened()) };
                    let (digits, c) = normalise_vectors::<V>(&x);
                    store_vectors(&digits, out);
                    c
                })*
                // SAFETY: as above.
                _ => unsafe { mul_digits::<V>(a, a, n, n0, d, out) },
            }
        };
    }
    debug_assert!(!SQR_WIDE_VECTORS.contains(&V) || d > 8 * (V - 1));
    wide!(30 31 32 33 34 35 36 37 38 39 40)
}

/// The digits of both squarings' operands: a'' = a 2^(e/2) (e = 52 d - 64 s is a
/// multiple of 4, so that a''^2 2^-(52 d) = a^2 2^-(64 s); a''^2 < n 2^(52 d) when
/// a < n), and n; with d. Checks the lengths against V.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn square_operands<const V: usize>(
    a: &[u64],
    n: &[u64],
    out: &[u64],
) -> (usize, [__m512i; V], [__m512i; V]) {
    let (d, v, e) = shape(n.len());
    assert!(v == V && a.len() == n.len() && out.len() == n.len());
    // SAFETY: AVX-512F is enabled here; 64 s <= 52 d <= 52 8 V.
    unsafe { (d, shift_up(&split::<V>(a), e / 2), split::<V>(n)) }
}

/// The digits of the number 2 x, y_j = (2 x_j mod 2^52) + (bit 51 of x_{j-1}), and
/// the digits doubled without the carry from below, z_j = 2 x_j mod 2^52, for the
/// digit vectors of x (each digit below 2^52; 2 x_j mod 2^52 is even, so y_j <
/// 2^52: y is a whole multiply-add input). y is 2 x only while x < 2^(52 d - 1).
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn doubled<const V: usize>(xv: &[__m512i; V]) -> ([__m512i; V], [__m512i; V]) {
    let zero = _mm512_setzero_si512();
    let one = _mm512_set1_epi64(1);
    let digit = _mm512_set1_epi64(DIGIT as i64);
    let z: [__m512i; V] =
        core::array::from_fn(|v| _mm512_and_si512(_mm512_add_epi64(xv[v], xv[v]), digit));
    let y = core::array::from_fn(|v| {
        let prev = if v > 0 { xv[v - 1] } else { zero };
        let carry = _mm512_and_si512(
            _mm512_srli_epi64::<51>(_mm512_alignr_epi64::<7>(xv[v], prev)),
            one,
        );
        _mm512_add_epi64(z[v], carry)
    });
    (y, z)
}

/// `(x^2 + Q n) / 2^(52 d)` as `d` unnormalised lanes (each below 2^63; lanes from
/// d up are 0), for the digits `xd` of x and `nd` of n (at least 8 V each, each
/// below 2^52, 0 from d up), `k0 = -n^-1 mod 2^52`, d in 8 (V - 1) + 1 ..= 8 V,
/// `W = V + 1`. Needs x < 2^(52 d - 1) (the doubled operand keeps d digits); the
/// value is then below x^2 / 2^(52 d) + n. The core of [`sqr_wide`], on digits, for a
/// caller that works in radix 2^52 throughout.
///
/// Two phases, where [`mul`] interleaves them. First the square, with no serial
/// dependency: x^2 = sum_i x_i^2 B^(2 i) + sum_i x_i B^i 2 x_{>i} (B = 2^52, x_{>i}
/// the digits of x above i), built by output vector t (digit positions 8 t ..
/// 8 t + 8) from the rows that reach it, four multiply-add chains at a time. The
/// digits of 2 x_{>i} are y_j = (2 x_j mod 2^52) + (bit 51 of x_{j-1}), the digits
/// of the number 2 x, for j > i + 1, and z_{i+1} = y_{i+1} - (bit 51 of x_i) at
/// j = i + 1 (2 x_j mod 2^52 is even, so y_j < 2^52: a whole multiply-add input).
/// Row i = 8 b + p meets vector t in vector t - b of y shifted up by p lanes (8
/// shifted copies of y and of n are made once per call); rows i < 4 t cover the
/// vector whole, rows 4 t .. 4 t + 4 from lane 2 (i - 4 t) + 1 on (masked), earlier
/// rows do not reach it. The low halves go to `tl`, the high halves to `th`, whose
/// lane l stands for position 8 t + l + 1: one multiplicand serves both halves.
///
/// Then the d reduction steps, q_i n at position i. Unlike [`mul`], the accumulator
/// does not slide one lane a step: it is a window of W vectors over `tl` / `th`, in
/// place, that moves one whole vector every 8 steps (block k covers positions 8 k ..
/// 8 k + 8 W), so step 8 k + p multiplies n shifted up by p lanes: 2 W multiply-adds
/// a step, no shift, no vector add, no branch but the public step count. A block runs
/// its 8 steps on the window's two low vectors first (the next q reads only those),
/// then adds the same 8 q n to each vector above, so that a vector of the window is
/// loaded and stored once a block, not once a step (it spills from about 15 vectors).
///
/// The exact lane i (with its carries) is `r0`, in scalar, as in [`mul`]; lane i + 1
/// is predicted two steps ahead: `ahead` is lane i + 2 read from the window at the
/// start of step i - 1 plus what that step added there, so the next q waits for no
/// vector at all. (The square is complete before the reduction starts, so only
/// q n's halves are predicted.)
///
/// Lane bound: a lane takes at most one low and one high half (each below 2^52) from
/// each of the d rows and of the d steps, and the diagonal's one half once: below
/// d 2^54 + 2^52 + 2^12 < 2^63 for d <= 317 (the carry from lane i - 1 is the top 12
/// bits of a 64-bit lane); `tl` and `th` alone below d 2^53 + 2^52.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) unsafe fn sqr_lanes<const V: usize, const W: usize>(
    xd: &[u64],
    nd: &[u64],
    d: usize,
    k0: u64,
) -> [[u64; 8]; V] {
    assert!(W == V + 1 && xd.len() >= 8 * V && nd.len() >= 8 * V);
    assert!(d > 8 * (V - 1) && d <= 8 * V);
    let zero = _mm512_setzero_si512();
    // SAFETY: xd and nd hold at least 8 V digits.
    let (xv, n_vectors) = unsafe { (load_vectors::<V>(xd), load_vectors::<V>(nd)) };
    // y: the digits of the number 2 x (2 x < 2^(52 d): x < 2^(52 d - 1)); vector V
    // of n and y is 0.
    let (y_vectors, _) = doubled(&xv);
    let (mut nv, mut yv) = ([zero; W], [zero; W]);
    nv[..V].copy_from_slice(&n_vectors);
    yv[..V].copy_from_slice(&y_vectors);
    // nsh[p][m], ysh[p][m]: vector m of n and y shifted up by p lanes (lane l is
    // digit 8 m + l - p, 0 below digit 0); vector V is 0 in nv and yv.
    let mut nsh = [[zero; W]; 8];
    let mut ysh = [[zero; W]; 8];
    macro_rules! shifted {
        ($($p:literal)*) => {$(
            for m in 0..W {
                let (n_lo, y_lo) = if m > 0 { (nv[m - 1], yv[m - 1]) } else { (zero, zero) };
                nsh[$p][m] = _mm512_alignr_epi64::<{ 8 - $p }>(nv[m], n_lo);
                ysh[$p][m] = _mm512_alignr_epi64::<{ 8 - $p }>(yv[m], y_lo);
            }
        )*};
    }
    nsh[0] = nv;
    ysh[0] = yv;
    shifted!(1 2 3 4 5 6 7);
    // Vector t of the diagonal x_j^2 (t < 2 V): low half of x_j^2 at lane 2 j, high
    // half at lane 2 j + 1, so vector t holds x_{4 t} .. x_{4 t + 3}.
    let lo_idx = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0);
    let hi_idx = _mm512_set_epi64(7, 7, 6, 6, 5, 5, 4, 4);
    let diag = |t: usize| {
        let idx = if t.is_multiple_of(2) { lo_idx } else { hi_idx };
        let sp = _mm512_permutexvar_epi64(idx, xv[t / 2]);
        let lo = _mm512_maskz_madd52lo_epu64(0x55, zero, sp, sp);
        _mm512_mask_madd52hi_epu64(lo, 0xaa, sp, sp)
    };
    // The triangle, by output vector t (digit positions 8 t .. 8 t + 8; 2 V of them):
    // tl[t] the low halves and the diagonal, th[t] the high halves (lane l of th[t]
    // stands for position 8 t + l + 1). Row i = 8 b + p reaches vector t through
    // ysh[p][t - b], so t - b <= V: i >= 8 (t - V); it starts at position 2 i + 1,
    // so rows i < 4 t cover the vector whole and rows 4 t .. 4 t + 4 in part (from
    // lane 2 (i - 4 t) + 1, z there). Rows from d up have x_i = 0. The loop bounds
    // depend on V only.
    let mut tl = [[zero; W]; 2];
    let mut th = [[zero; W]; 2];
    let (tl, th) = (tl.as_flattened_mut(), th.as_flattened_mut());
    for t in 0..2 * V {
        let (mut l0, mut h0, mut l1, mut h1) = (diag(t), zero, zero, zero);
        // An even count: 4 t, or 8 V - 4 t.
        let mut i = (8 * t).saturating_sub(8 * V);
        while i < 4 * t {
            let (w0, w1) = (ysh[i % 8][t - i / 8], ysh[(i + 1) % 8][t - (i + 1) / 8]);
            let (x0, x1) = (
                _mm512_set1_epi64(xd[i] as i64),
                _mm512_set1_epi64(xd[i + 1] as i64),
            );
            l0 = _mm512_madd52lo_epu64(l0, w0, x0);
            h0 = _mm512_madd52hi_epu64(h0, w0, x0);
            l1 = _mm512_madd52lo_epu64(l1, w1, x1);
            h1 = _mm512_madd52hi_epu64(h1, w1, x1);
            i += 2;
        }
        macro_rules! part {
            ($($c:literal)*) => {$(
                // Row i = 4 t + c: vector t - i / 8 = t - t / 2 of its shifted copy,
                // lanes from 2 c + 1, z_{i+1} = y_{i+1} - (bit 51 of x_i) there.
                let i = 4 * t + $c;
                let xi = xd[i];
                let w = _mm512_maskz_mov_epi64((0xffu32 << (2 * $c + 1)) as u8, ysh[i % 8][t - t / 2]);
                let w = _mm512_mask_sub_epi64(
                    w,
                    (1u32 << (2 * $c + 1)) as u8,
                    w,
                    _mm512_set1_epi64((xi >> 51) as i64),
                );
                let xiv = _mm512_set1_epi64(xi as i64);
                if $c % 2 == 0 {
                    l0 = _mm512_madd52lo_epu64(l0, w, xiv);
                    h0 = _mm512_madd52hi_epu64(h0, w, xiv);
                } else {
                    l1 = _mm512_madd52lo_epu64(l1, w, xiv);
                    h1 = _mm512_madd52hi_epu64(h1, w, xiv);
                }
            )*};
        }
        part!(0 1 2 3);
        tl[t] = _mm512_add_epi64(l0, l1);
        th[t] = _mm512_add_epi64(h0, h1);
    }

    // The reduction, in place: block k's window is tl[k .. k + W], th[k .. k + W].
    let (n0, n1, n2) = (nd[0], nd[1], nd[2]);
    let k0s = k0 << 12;
    // The exact lane 0 (x_0^2's low half) and lane 1.
    let mut r0 = lane!(tl[0], 0);
    let mut ahead = lane!(tl[0], 1) + lane!(th[0], 0);
    for k in 0..V {
        let (mut a0, mut a1, mut h0v, mut h1v) = (tl[k], tl[k + 1], th[k], th[k + 1]);
        // q_(8 k + p) as vectors; 0 for the steps from d up (the last block).
        let mut qv = [zero; 8];
        macro_rules! step {
            ($p:literal) => {
                if 8 * k + $p < d {
                    // Lane i + 2 now, before this step's additions (th's lane L
                    // is lane L + 1).
                    let x2 = lane!(if $p + 2 < 8 { a0 } else { a1 }, ($p + 2) & 7)
                        + lane!(if $p + 1 < 8 { h0v } else { h1v }, ($p + 1) & 7);
                    let qs = r0.wrapping_mul(k0s);
                    let q = qs >> 12;
                    let c = (r0 >> 52) + (((r0 & DIGIT) + DIGIT) >> 52);
                    let h0 = ((u128::from(n0) * u128::from(qs)) >> 64) as u64;
                    let h1 = ((u128::from(n1) * u128::from(qs)) >> 64) as u64;
                    // This step's additions to lane i + 1 and to lane i + 2.
                    r0 = (ahead + c) + (n1.wrapping_mul(qs) >> 12) + h0;
                    ahead = x2 + (n2.wrapping_mul(qs) >> 12) + h1;
                    qv[$p] = _mm512_set1_epi64(q as i64);
                    a0 = _mm512_madd52lo_epu64(a0, nsh[$p][0], qv[$p]);
                    h0v = _mm512_madd52hi_epu64(h0v, nsh[$p][0], qv[$p]);
                    a1 = _mm512_madd52lo_epu64(a1, nsh[$p][1], qv[$p]);
                    h1v = _mm512_madd52hi_epu64(h1v, nsh[$p][1], qv[$p]);
                }
            };
        }
        step!(0);
        step!(1);
        step!(2);
        step!(3);
        step!(4);
        step!(5);
        step!(6);
        step!(7);
        (tl[k], tl[k + 1], th[k], th[k + 1]) = (a0, a1, h0v, h1v);
        for m in 2..W {
            let (mut l, mut h) = (tl[k + m], th[k + m]);
            for (p, &q) in qv.iter().enumerate() {
                l = _mm512_madd52lo_epu64(l, nsh[p][m], q);
                h = _mm512_madd52hi_epu64(h, nsh[p][m], q);
            }
            (tl[k + m], th[k + m]) = (l, h);
        }
    }
    // The window is at block V - 1: digit position d + t is window lane
    // R = d + t - 8 (V - 1), R >= 1; lane d itself is r0.
    let (mut la, mut lh) = ([[0u64; 8]; W], [[0u64; 8]; W]);
    for m in 0..W {
        // SAFETY: la[m] and lh[m] are 8 words; storeu has no alignment requirement.
        unsafe {
            _mm512_storeu_si512(la[m].as_mut_ptr().cast(), tl[V - 1 + m]);
            _mm512_storeu_si512(lh[m].as_mut_ptr().cast(), th[V - 1 + m]);
        }
    }
    let (la, lh) = (la.as_flattened(), lh.as_flattened());
    let base = d - 8 * (V - 1);
    let mut lanes = [[0u64; 8]; V];
    let out = lanes.as_flattened_mut();
    out[0] = r0;
    for t in 1..d {
        // Both below d 2^53 + 2^52: the sum is below 2^63.
        out[t] = la[base + t] + lh[base + t - 1];
    }
    lanes
}

/// `out = a a R^-1 mod n` (below 2n before the policy's finish), as [`mul`] with
/// b = a, by [`sqr_lanes`]. Both factors are a'' = a 2^(e/2) (e = 52 d - 64 s is a
/// multiple of 4: 52 d and 64 s are), so the d steps that divide by 2^(52 d) leave
/// a''^2 2^-(52 d) = a^2 2^-(64 s). Bound: a''^2 = a^2 2^e < n R 2^e = n 2^(52 d),
/// so the result is below n + n. [`sqr_lanes`] needs a'' < 2^(52 d - 1): true when
/// e > 0 (a'' < 2^(64 s + e/2)) and for `Lazy` (a < R / 2); the kernel's choice
/// (`super::kernel_for`) sends the rest to [`mul`]. Only one operand is converted.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) unsafe fn sqr_wide<const V: usize, const G: usize, const W: usize>(
    a: &[u64],
    n: &[u64],
    n0: u64,
    reduction: Reduction,
    out: &mut [u64],
) {
    let (d, xv, nv) = square_operands::<V>(a, n, out);
    let (mut xm, mut nm) = ([[0u64; 8]; V], [[0u64; 8]; V]);
    store_vectors(&xv, xm.as_flattened_mut());
    store_vectors(&nv, nm.as_flattened_mut());
    // SAFETY: the caller guarantees the CPU features; 8 V digits each, 0 from d
    // up; a'' < 2^(52 d - 1) (see above).
    let lanes = unsafe { sqr_lanes::<V, W>(xm.as_flattened(), nm.as_flattened(), d, n0 & DIGIT) };
    // SAFETY: as above; lanes holds 8 V words; out has s words.
    unsafe {
        finish_store::<V>(
            &load_vectors::<V>(lanes.as_flattened()),
            &nv,
            reduction,
            out,
        )
    };
}

/// The vector counts that use [`sqr_wide`]: 30 ..= 40 vectors (moduli of 189 limbs,
/// 12096 bits, and up), where it measured faster than the multiplication, 0.94-0.99x
/// of it. At 19-29 vectors it measured 1.01-1.07x (`docs/PERFORMANCE.md`).
pub(super) const SQR_WIDE_VECTORS: core::ops::RangeInclusive<usize> = 30..=40;

/// One instance of [`sqr_wide`] or [`sqr_by_mul`].
pub(super) type Sqr = unsafe fn(&[u64], &[u64], u64, Reduction, &mut [u64]);
