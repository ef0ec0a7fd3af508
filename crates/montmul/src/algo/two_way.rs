//! 2-way interleaved Montgomery multiplication: two independent product streams.
//!
//! Seed 001 (Bos, Montgomery, Shumow, Zaverucha, *Montgomery Multiplication Using Vector
//! Instructions*, SAC 2013), "2-way SIMD Interleaved Montgomery Multiplication". In the
//! classic interleaved form `C = (C + a_j B + q M) / r` the quotient digit q depends on
//! `C + a_j B`, so the two 1 x s products run one after the other. Flipping the sign of
//! mu (mu = +M^-1 mod r instead of -M^-1) and computing q from the low words alone,
//!
//! ```text
//! q = ((mu * b_0) * a_j + mu * (d_0 - e_0)) mod r        (mu * b_0 computed once)
//! ```
//!
//! makes them independent: two accumulators D and E, and per word a_j of A
//!
//! ```text
//! D = (D + a_j * B) div r          lane 0 of a 2-way SIMD unit
//! E = (E + q   * M) div r          lane 1
//! ```
//!
//! with C = D - E throughout, and one final `C += M` when C < 0. Here r = 2^w.
//!
//! Why it is exact: q makes `D + a_j B = E + q M (mod r)`, so the two low words that
//! the divisions drop are equal and `D' - E' = (D - E + a_j B - q M) / r` exactly: the
//! Montgomery step of C with -q M in place of +q M. After s steps
//! `C * R = A*B - Q*M` with Q = sum q_j r^j, so `C = A*B*R^-1 (mod M)`.
//!
//! Bounds: D <= max(B - 1, 0) by induction, since D + a_j B <= (B - 1) + (r - 1) B
//! < r B; likewise 0 <= E <= M - 1. Hence C = D - E lies in (-M, B):
//! - `Full`: B < M, so C is in (-M, M) and one masked addition of M lands in [0, M).
//! - `Lazy`: B < 2M, so C is in (-M, 2M) and the same masked addition lands in [0, 2M);
//!   D < 2M < R fits in s words. Nothing else changes, so `Lazy` is offered: it saves
//!   nothing here (the final correction is needed anyway) but lets two-way run in
//!   subtraction-less chains. A only has to fit in s words under either policy.
//!
//! This is the portable scalar form; the streams are kept apart (one helper,
//! `mul_add_shift`, called once per stream) so that a 2-lane vector kernel maps onto
//! it one to one. [`streams`] exposes D and E for tests of such kernels.
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` and `Lazy`. Constant-time: yes (fixed loop
//! bounds; the final correction is a masked addition).

use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{ct, Limb, Modulus, Reduction};

/// The 2-way (D - E) kernel.
pub struct TwoWay;

static INFO: KernelInfo = KernelInfo {
    name: "two-way",
    seed: "001 (2-way SIMD interleaved)",
    summary: "mu sign flipped: independent D = sum a_j B and E = sum q M streams, C = D - E",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

impl<L: Limb> Kernel<L> for TwoWay {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let mut e = vec![L::ZERO; m.limbs()];
        // D lives in `out` and becomes C.
        streams(m, a, b, out, &mut e);
        // C = D - E in (-M, B): a borrow means C < 0, and adding M (mod R) fixes it.
        let borrow = ct::sub_masked(out, &e, L::MAX);
        ct::add_masked(out, m.n(), ct::mask(borrow));
    }
}

/// The two streams of the 2-way algorithm after all s steps: `d = floor(A*B / R)` and
/// `e = floor(Q*M / R)`, where Q = A*B*M^-1 mod R is the quotient the q digits build.
///
/// `d - e` is congruent to `A*B*R^-1` mod M and lies in (-M, B). Same contract as
/// [`Kernel::mul`]: `a`, `b`, `d`, `e` are exactly `m.limbs()` limbs, `a`, `b` below
/// [`Modulus::bound`]. `d` and `e` are overwritten.
pub fn streams<L: Limb>(m: &Modulus<L>, a: &[L], b: &[L], d: &mut [L], e: &mut [L]) {
    let n = m.n();
    let s = n.len();
    // mu = +M^-1 mod r: montmul stores n0' = -M^-1.
    let mu = m.n0().wrapping_neg();
    let mu_b0 = mu.wrapping_mul(b[0]);
    d.fill(L::ZERO);
    e.fill(L::ZERO);
    for &a_j in &a[..s] {
        // The one extra 1x1 product of the seed: q from the low words of D, E and B.
        let q = mu_b0
            .wrapping_mul(a_j)
            .wrapping_add(mu.wrapping_mul(d[0].wrapping_sub(e[0])));
        let low_d = mul_add_shift(d, a_j, &b[..s]);
        let low_e = mul_add_shift(e, q, n);
        debug_assert!(low_d == low_e, "q makes the dropped words equal");
    }
}

/// One stream step: `acc = (acc + x * v) div r`, returning the dropped low word.
///
/// Each `mac` is at most `(r-1) + (r-1)^2 + (r-1) = r^2 - 1` (see [`Limb::mac`]); the
/// last carry becomes the top word, which fits because `acc < max(v, 1)` before and
/// after (see the module bounds).
fn mul_add_shift<L: Limb>(acc: &mut [L], x: L, v: &[L]) -> L {
    let (low, mut carry) = L::mac(acc[0], x, v[0], L::ZERO);
    for i in 1..acc.len() {
        (acc[i - 1], carry) = L::mac(acc[i], x, v[i], carry);
    }
    let top = acc.len() - 1;
    acc[top] = carry;
    low
}
