//! The pair kernel's steps: one product's (`Half`, in the chained and the low-first
//! form) and one square's (`SquareHalf`), two of each side by side in `mul_x2` and
//! `sqr_x2`, and their instances per register width and count. The module doc of
//! [`super`] says what each form does and why.

use core::arch::x86_64::*;

use crate::arch::x86_64::avx512ifma::digits::{load_vectors, store_vectors, DIGIT};
use crate::arch::x86_64::avx512ifma::finish::normalise_vectors;
use crate::arch::x86_64::avx512ifma::reg::Reg;
use crate::arch::x86_64::avx512ifma::sqr::doubled;

/// `x`, kept in a general-purpose register and hidden from the optimiser. Without it
/// the SLP vectoriser fuses the two halves' scalar chains (lane 0 and q, which are
/// alike statement for statement) into one chain in 128-bit registers, and every step
/// then waits on moves between those and the general registers for its
/// multiplications: measured about as slow as the two products one after the other.
#[inline(always)]
pub(super) fn in_gpr(mut x: u64) -> u64 {
    // SAFETY: an empty instruction sequence that takes and returns `x` in one
    // register; it touches no memory, no stack and no flags.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}

/// The largest register count for which the chained step sums each register's four
/// halves off the accumulator (as `mul::CHAINED_VECTORS` for one product,
/// which holds twice the registers per product); above, the low halves go into the
/// accumulator before the shift.
pub const X2_CHAINED_VECTORS: usize = crate::arch::x86_64::avx512ifma::mul::CHAINED_VECTORS;

/// The largest register count for which a step reads lane 1 by `vpextrq`
/// ([`Reg::lane1_extract`]) rather than through memory ([`Reg::lane1`]): at 2
/// registers (13 to 16 digits, the 768-bit halves of RSA-1536, in the chained form) the
/// pair of exponentiations measured 2.5-4% faster so (`docs/PERFORMANCE.md`).
const X2_EXTRACT_LANE1: usize = 2;

/// q = t n0' mod 2^52 for lane 0's value `t` (the exact lane 0 plus this step's
/// product there, in full: below 2^64 + 2^104), and lane 0's carry: (t + n_0 q) / 2^52,
/// which holds lane 0's high halves too (t + n_0 q is below 2^64 + 2^105, and 0 mod
/// 2^52, so the carry is below 2^12 + 2^53).
#[inline(always)]
pub(super) fn q_and_carry(t: u128, k0: u64, n0: u64) -> (u64, u64) {
    let q = in_gpr((t as u64).wrapping_mul(k0) & DIGIT);
    let t = t + u128::from(n0) * u128::from(q);
    (q, (t >> 52) as u64)
}

/// A half's digits 0 and 1 of its operand and modulus, and its n0': what the scalar
/// part of a product's step reads (q, lane 0's carry, and the next lane 0 formed from
/// lane 1), for `Half::step` and the packed step (`x2/packed.rs`) alike.
#[derive(Clone, Copy)]
pub(super) struct Lane0 {
    a0: u64,
    a1: u64,
    n0: u64,
    n1: u64,
    /// -n^-1 mod 2^52 in the low 52 bits (the bits above are not used).
    k0: u64,
}

impl Lane0 {
    /// From a half's operand and modulus digits (at least 2 each) and its n0'.
    #[inline(always)]
    pub(super) fn new(a: &[u64], n: &[u64], k0: u64) -> Self {
        Lane0 {
            a0: a[0],
            a1: a[1],
            n0: n[0],
            n1: n[1],
            k0,
        }
    }

    /// q and lane 0's carry ([`q_and_carry`]) of the step with b's digit `bi` on the
    /// exact lane 0 `r0`: t = r0 + a_0 b_i in full.
    #[inline(always)]
    pub(super) fn q_and_carry_at(&self, r0: u64, bi: u64) -> (u64, u64) {
        let t = u128::from(r0) + u128::from(self.a0) * u128::from(bi);
        q_and_carry(t, self.k0, self.n0)
    }

    /// Lane 1 `x1` (as read before the step) plus the step's low halves there,
    /// lo52(a_1 b_i) + lo52(n_1 q): after the shift, the next lane 0 but for lane 0's
    /// carry.
    #[inline(always)]
    pub(super) fn lane1_with_lows(&self, x1: u64, bi: u64, q: u64) -> u64 {
        x1 + (self.a1.wrapping_mul(bi) & DIGIT) + (self.n1.wrapping_mul(q) & DIGIT)
    }
}

/// The accumulator moved down one lane across its registers (lane j <- lane j + 1, 0
/// into the top lane).
///
/// # Safety
/// As [`Reg`]'s methods.
#[inline(always)]
unsafe fn shift_down<T: Reg, const W: usize>(acc: &mut [T; W]) {
    // SAFETY: the caller enables the features.
    unsafe {
        for v in 0..W {
            let next = if v + 1 < W { acc[v + 1] } else { T::zero() };
            acc[v] = T::down(next, acc[v]);
        }
    }
}

/// One product of the pair inside the loop: its operand and modulus in `W` registers,
/// their digits 0 and 1 in scalar ([`Lane0`]), and its accumulator (whose exact lane
/// 0, `r0`, the loop holds as a local: kept in this struct, the SLP vectoriser packed
/// it with the scalars of `Lane0` into one vector, and every step extracted them and
/// inserted it back).
struct Half<T: Reg, const W: usize> {
    av: [T; W],
    nv: [T; W],
    ad1: [T; W],
    nd1: [T; W],
    lane0: Lane0,
    acc: [T; W],
}

impl<T: Reg, const W: usize> Half<T, W> {
    /// The state before the first step of a times b modulo n: `a` and `n` hold at
    /// least `W T::LANES` digits.
    ///
    /// # Safety
    /// As [`Reg`]'s methods.
    #[inline(always)]
    unsafe fn new(a: &[u64], n: &[u64], k0: u64) -> Self {
        // SAFETY: the caller enables the features; `Reg::load` checks the lengths.
        unsafe {
            let load = |x: &[u64]| core::array::from_fn(|v| T::load(&x[v * T::LANES..]));
            let (av, nv): ([T; W], [T; W]) = (load(a), load(n));
            let down = |x: &[T; W]| {
                core::array::from_fn(|v| {
                    T::down(if v + 1 < W { x[v + 1] } else { T::zero() }, x[v])
                })
            };
            Half {
                lane0: Lane0::new(a, n, k0),
                ad1: down(&av),
                nd1: down(&nv),
                av,
                nv,
                acc: [T::zero(); W],
            }
        }
    }

    /// One word-serial step with b's digit at `bi_at` and the exact lane 0 `r0`; returns the
    /// next lane 0. `LOW_FIRST` picks the form (module doc, "The step"): the low halves
    /// into the accumulator, the shift, the high halves (scalar lane 0 only), or else
    /// the chained form (scalar lanes 0 and 1, one sum per register added after the
    /// shift, chained up to [`X2_CHAINED_VECTORS`] registers).
    ///
    /// # Safety
    /// As [`Reg`]'s methods.
    #[inline(always)]
    unsafe fn step<const LOW_FIRST: bool>(&mut self, bi_at: &u64, r0: u64) -> u64 {
        // SAFETY: the caller enables the features; the rest is register arithmetic.
        unsafe {
            let (zero, bi) = (T::zero(), *bi_at);
            let bv = T::splat_at(bi_at);
            // Lane 1, which the shift makes the next lane 0, where the next lane 0 is
            // formed in scalar (a volatile read: not made where it is not used).
            let x1 = if LOW_FIRST && W > X2_CHAINED_VECTORS {
                0
            } else if W <= X2_EXTRACT_LANE1 {
                T::lane1_extract(self.acc[0])
            } else {
                T::lane1(self.acc[0])
            };
            // Lane 0 plus a_0 b_i in full.
            let (q, carry) = self.lane0.q_and_carry_at(r0, bi);
            let qv = T::splat(q);
            if LOW_FIRST {
                for (x, (&a, &n)) in self.acc.iter_mut().zip(self.av.iter().zip(&self.nv)) {
                    *x = T::madd_lo(T::madd_lo(*x, a, bv), n, qv);
                }
                shift_down(&mut self.acc);
                // The new lane 0: the old lane 1 with its low halves, plus the carry.
                // Up to X2_CHAINED_VECTORS registers formed in scalar from lane 1 as
                // read before the step, as the chained form does (the next q then
                // waits for no vector op: 0.97x of the time at 5 registers); above,
                // read off the shifted accumulator (there the scalar form measured
                // 1.02-1.05x, its extra multiplications no longer hidden).
                let lane0 = if W <= X2_CHAINED_VECTORS {
                    self.lane0.lane1_with_lows(x1, bi, q)
                } else {
                    T::low(self.acc[0])
                };
                let r0 = in_gpr(lane0 + carry);
                for (x, (&a, &n)) in self.acc.iter_mut().zip(self.av.iter().zip(&self.nv)) {
                    *x = T::madd_hi(T::madd_hi(*x, a, bv), n, qv);
                }
                return r0;
            }
            // The new lane 0 in scalar: lane 1 plus its low halves, plus the carry.
            let r0 = in_gpr(self.lane0.lane1_with_lows(x1, bi, q) + carry);
            let mut h = [zero; W];
            for (v, h) in h.iter_mut().enumerate() {
                *h = if W <= X2_CHAINED_VECTORS {
                    let s = T::madd_hi(T::madd_lo(zero, self.ad1[v], bv), self.av[v], bv);
                    T::madd_hi(T::madd_lo(s, self.nd1[v], qv), self.nv[v], qv)
                } else {
                    let x = T::madd_lo(self.acc[v], self.av[v], bv);
                    self.acc[v] = T::madd_lo(x, self.nv[v], qv);
                    T::madd_hi(T::madd_hi(zero, self.av[v], bv), self.nv[v], qv)
                };
            }
            for (v, &h) in h.iter().enumerate() {
                let next = if v + 1 < W { self.acc[v + 1] } else { zero };
                self.acc[v] = T::add(T::down(next, self.acc[v]), h);
            }
            r0
        }
    }

    /// The normalised digits of the value after the last step ([`finish_lanes`]).
    ///
    /// # Safety
    /// As [`Reg`]'s methods.
    #[inline(always)]
    unsafe fn finish<const V: usize>(&self, r0: u64, out: &mut [u64]) -> u64 {
        // SAFETY: the caller enables the features.
        unsafe { finish_lanes::<T, W, V>(&self.acc, r0, out) }
    }
}

/// The normalised digits of an accumulator after its last step, its exact lane 0
/// being `r0`, stored to `out` (8 V digits, V 512-bit vectors holding the W
/// registers); returns the part from 2^(52 8 V) up.
///
/// # Safety
/// As [`Reg`]'s methods.
#[inline(always)]
pub(super) unsafe fn finish_lanes<T: Reg, const W: usize, const V: usize>(
    acc: &[T; W],
    r0: u64,
    out: &mut [u64],
) -> u64 {
    // SAFETY: the caller enables the features.
    let mut acc = unsafe { T::widen::<W, V>(acc) };
    // The vector's lane 0 is stale (module doc): the scalar one replaces it.
    acc[0] = _mm512_mask_set1_epi64(acc[0], 1, r0 as i64);
    let (digits, c) = normalise_vectors::<V>(&acc);
    store_vectors(&digits, out);
    c
}

/// One square of the pair inside the loop, in the low-first step (module doc, "The
/// squaring"): the digits of the number 2 x (`y`) and of 2 x without the carries
/// between digits (`z`), the modulus, and the accumulator.
struct SquareHalf<T: Reg, const W: usize> {
    y: [T; W],
    z: [T; W],
    nv: [T; W],
    n0: u64,
    /// -n^-1 mod 2^52 in the low 52 bits (the bits above are not used).
    k0: u64,
    acc: [T; W],
}

impl<T: Reg, const W: usize> SquareHalf<T, W> {
    /// The state before the first step of x^2 modulo n: `x` and `n` hold 8 V digits
    /// (V 512-bit vectors hold the W registers), x below 2^(52 d - 1).
    ///
    /// # Safety
    /// As [`Reg`]'s methods.
    #[inline(always)]
    unsafe fn new<const V: usize>(x: &[u64], n: &[u64], k0: u64) -> Self {
        // y_j = (2 x_j mod 2^52) + (bit 51 of x_(j-1)) and z_j = 2 x_j mod 2^52
        // (`sqr::doubled`, on 512-bit vectors), stored and reloaded by register.
        let (mut y, mut z) = ([[0u64; 8]; V], [[0u64; 8]; V]);
        // SAFETY: the caller enables the features; x holds 8 V digits.
        let (yv, zv) = doubled::<V>(&unsafe { load_vectors::<V>(x) });
        store_vectors(&yv, y.as_flattened_mut());
        store_vectors(&zv, z.as_flattened_mut());
        // SAFETY: as above; each run holds 8 V >= W T::LANES digits.
        unsafe {
            let load = |x: &[u64]| core::array::from_fn(|v| T::load(&x[v * T::LANES..]));
            SquareHalf {
                y: load(y.as_flattened()),
                z: load(z.as_flattened()),
                nv: load(n),
                n0: n[0],
                k0,
                acc: [T::zero(); W],
            }
        }
    }

    /// Step `I` of the square with x's digit at `xi_at` (x_I) and the exact lane 0 `r0`;
    /// returns the next lane 0. Row I is x_I (x_I B^I + 2 x_(>I)), B = 2^52: at
    /// accumulator lane j (position I + j) the multiplier x_I meets x_I at j = I,
    /// z_(I+1) at j = I + 1 (2 x_(I+1) without the carry of x_I, which is part of
    /// x_I's own doubling) and y_j above; lanes below I are 0, so the registers below
    /// lane I's are skipped. Otherwise the low-first step of [`Half::step`].
    ///
    /// # Safety
    /// As [`Reg`]'s methods.
    #[inline(always)]
    unsafe fn step<const I: usize>(&mut self, xi_at: &u64, r0: u64) -> u64 {
        // SAFETY: the caller enables the features; the rest is register arithmetic.
        unsafe {
            // Lane I's register and its lane in it.
            let (r, p) = (I / T::LANES, I % T::LANES);
            let (xi, xv) = (*xi_at, T::splat_at(xi_at));
            // Lane 0 plus its part of the row (x_0^2, in step 0 only), in full.
            let t = u128::from(r0)
                + if I == 0 {
                    u128::from(xi) * u128::from(xi)
                } else {
                    0
                };
            let (q, carry) = q_and_carry(t, self.k0, self.n0);
            let qv = T::splat(q);
            // The row in register r: y above lane p + 1, z_(I+1) at p + 1, x_I at p,
            // 0 below; and in register r + 1 when lane I + 1 is its lane 0.
            let all = ((1u32 << T::LANES) - 1) as u8;
            let above = all & !((2u32 << (p + 1)) - 1) as u8;
            let mut here = T::blend(T::maskz(above, self.y[r]), 1 << p, xv);
            if p + 1 < T::LANES {
                here = T::blend(here, 1 << (p + 1), self.z[r]);
            }
            let row = |v: usize| match v {
                _ if v == r => here,
                _ if v == r + 1 && p + 1 == T::LANES => T::blend(self.y[v], 1, self.z[v]),
                _ => self.y[v],
            };
            for v in 0..W {
                let x = if v >= r {
                    T::madd_lo(self.acc[v], row(v), xv)
                } else {
                    self.acc[v]
                };
                self.acc[v] = T::madd_lo(x, self.nv[v], qv);
            }
            shift_down(&mut self.acc);
            // The new lane 0: the old lane 1 with its low halves, plus the carry.
            // (Formed in scalar as in `Half::step` it measured 1.03-1.07x of the time
            // at 3 and 4 registers.)
            let r0 = in_gpr(T::low(self.acc[0]) + carry);
            for v in 0..W {
                let x = if v >= r {
                    T::madd_hi(self.acc[v], row(v), xv)
                } else {
                    self.acc[v]
                };
                self.acc[v] = T::madd_hi(x, self.nv[v], qv);
            }
            r0
        }
    }
}

/// Two squares at once on `W` registers of type `T` per half, in the low-first step:
/// `out[h] = (x[h]^2 + Q_h n[h]) / 2^(52 d)`, the value (and the digits) that
/// [`mul_x2`] gives with a = b = x, for x below 2^(52 d - 1) in both halves (the
/// digit domain's values are below 2n < 2^(52 d) / 2). `x`, `n`, `out` and `n0` as in
/// [`mul_x2`].
///
/// # Safety
/// As [`Reg`]'s methods.
#[inline(always)]
unsafe fn sqr_x2<T: Reg, const W: usize, const V: usize>(
    x: &[u64],
    n: &[u64],
    n0: [u64; 2],
    d: usize,
    out: &mut [u64],
) {
    let len = 8 * V;
    assert!(W * T::LANES <= len && x.len() == 2 * len && n.len() == 2 * len);
    assert!(out.len() == 2 * len && 2 <= d && d <= W * T::LANES);
    let (x_lo, x_hi) = x.split_at(len);
    let (n_lo, n_hi) = n.split_at(len);
    let (o0, o1) = out.split_at_mut(len);
    // SAFETY: the caller enables the features; each slice holds 8 V >= W T::LANES
    // digits.
    let carries = unsafe {
        let (mut h0, mut h1) = (
            SquareHalf::<T, W>::new::<V>(x_lo, n_lo, n0[0]),
            SquareHalf::<T, W>::new::<V>(x_hi, n_hi, n0[1]),
        );
        let (mut r0, mut r1) = (0, 0);
        // Each step its own code (the row's registers and masks are constants); the
        // steps past d, a public count, are skipped.
        macro_rules! steps {
            ($($i:literal)*) => {$(
                if $i < W * T::LANES && $i < d {
                    r0 = h0.step::<$i>(&x_lo[$i], r0);
                    r1 = h1.step::<$i>(&x_hi[$i], r1);
                }
            )*};
        }
        const { assert!(X2_MAX_SQR_DIGITS == 32) };
        steps!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
        (
            finish_lanes::<T, W, V>(&h0.acc, r0, o0),
            finish_lanes::<T, W, V>(&h1.acc, r1, o1),
        )
    };
    debug_assert_eq!(carries, (0, 0));
}

/// The most digits per half [`sqr_x2`] has steps for.
const X2_MAX_SQR_DIGITS: usize = 32;

/// Two products at once on `W` registers of type `T` per half: `out[h] = (a[h] b[h] +
/// Q_h n[h]) / 2^(52 d)`, normalised, for the halves h = 0, 1, each of `a`, `b`, `n`,
/// `out` being two runs of 8 V digits (half 0, then half 1), every digit below 2^52,
/// digits from `d` up 0 in `a` and `n`, `d` at most `W T::LANES`. With both halves'
/// values below 2n < 2^(52 d) (the digit domain's contract) nothing carries out. `n0`
/// holds each half's -n^-1 mod 2^52 in its low 52 bits.
///
/// # Safety
/// As [`Reg`]'s methods.
#[inline(always)]
unsafe fn mul_x2<T: Reg, const W: usize, const V: usize, const LOW_FIRST: bool>(
    a: &[u64],
    b: &[u64],
    n: &[u64],
    n0: [u64; 2],
    d: usize,
    out: &mut [u64],
) {
    let len = 8 * V;
    assert!(W * T::LANES <= len && a.len() == 2 * len && b.len() == 2 * len);
    assert!(n.len() == 2 * len && out.len() == 2 * len && 2 <= d && d <= W * T::LANES);
    let (a_lo, a_hi) = a.split_at(len);
    let (n_lo, n_hi) = n.split_at(len);
    let (b_lo, b_hi) = (&b[..d], &b[len..len + d]);
    let (o0, o1) = out.split_at_mut(len);
    // SAFETY: the caller enables the features; each slice holds 8 V >= W T::LANES
    // digits.
    let carries = unsafe {
        let (mut h0, mut h1) = (
            Half::<T, W>::new(a_lo, n_lo, n0[0]),
            Half::<T, W>::new(a_hi, n_hi, n0[1]),
        );
        let (mut r0, mut r1) = (0, 0);
        for (x, y) in b_lo.iter().zip(b_hi) {
            r0 = h0.step::<LOW_FIRST>(x, r0);
            r1 = h1.step::<LOW_FIRST>(y, r1);
        }
        (h0.finish::<V>(r0, o0), h1.finish::<V>(r1, o1))
    };
    debug_assert_eq!(carries, (0, 0));
}

/// `mul_x2` on `V` 512-bit registers per half, in the low-first form where
/// `LOW_FIRST`, else in the chained one.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) unsafe fn mul_x2_zmm<const V: usize, const LOW_FIRST: bool>(
    a: &[u64],
    b: &[u64],
    n: &[u64],
    n0: [u64; 2],
    d: usize,
    out: &mut [u64],
) {
    // SAFETY: the features are enabled here.
    unsafe { mul_x2::<__m512i, V, V, LOW_FIRST>(a, b, n, n0, d, out) }
}

/// `sqr_x2` on `V` 512-bit registers per half (at most 32 digits: 2 ..= 4).
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) unsafe fn sqr_x2_zmm<const V: usize>(
    x: &[u64],
    n: &[u64],
    n0: [u64; 2],
    d: usize,
    out: &mut [u64],
) {
    const { assert!(8 * V <= X2_MAX_SQR_DIGITS) };
    // SAFETY: the features are enabled here.
    unsafe { sqr_x2::<__m512i, V, V>(x, n, n0, d, out) }
}

/// `mul_x2` on `W` 256-bit registers per half, in values of `V` = ceil(W / 2)
/// 512-bit vectors.
///
/// # Safety
/// The CPU has AVX-512F, AVX-512 IFMA and AVX-512VL.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) unsafe fn mul_x2_ymm<const W: usize, const V: usize>(
    a: &[u64],
    b: &[u64],
    n: &[u64],
    n0: [u64; 2],
    d: usize,
    out: &mut [u64],
) {
    const { assert!(V == W.div_ceil(2)) };
    // SAFETY: the features are enabled here.
    unsafe { mul_x2::<__m256i, W, V, true>(a, b, n, n0, d, out) }
}

/// `sqr_x2` on `W` 256-bit registers per half, in values of `V` = ceil(W / 2)
/// 512-bit vectors.
///
/// # Safety
/// The CPU has AVX-512F, AVX-512 IFMA and AVX-512VL.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) unsafe fn sqr_x2_ymm<const W: usize, const V: usize>(
    x: &[u64],
    n: &[u64],
    n0: [u64; 2],
    d: usize,
    out: &mut [u64],
) {
    const { assert!(V == W.div_ceil(2) && 4 * W <= X2_MAX_SQR_DIGITS) };
    // SAFETY: the features are enabled here.
    unsafe { sqr_x2::<__m256i, W, V>(x, n, n0, d, out) }
}

/// One instance of `mul_x2`.
pub(super) type MulX2 = unsafe fn(&[u64], &[u64], &[u64], [u64; 2], usize, &mut [u64]);
/// One instance of `sqr_x2`.
pub(super) type SqrX2 = unsafe fn(&[u64], &[u64], [u64; 2], usize, &mut [u64]);
