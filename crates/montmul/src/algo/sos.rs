//! SOS, Separated Operand Scanning, with a dedicated squaring.
//!
//! Seed 004 (Koc 1997), appendix, "Separated Operand Scanning (SOS) Method"; originally
//! Koc, Acar and Kaliski, *Analyzing and comparing Montgomery multiplication algorithms*,
//! IEEE Micro 1996. Multiplication and reduction are separated: first the whole product
//! t = a*b (2s words, operand scanning: one row `a*b[i]` per outer step), then the
//! reduction u = (t + m*n) / R with m = t*n' mod R, one word of m per outer step (again
//! operand scanning), and u is the upper half of t. Memory: t of 2s words besides the
//! operands.
//!
//! Squaring ([`Kernel::sqr`]): separating the product from the reduction is what lets
//! SOS square faster (the appendix says so): the off-diagonal products `a[i]*a[j]`, i < j,
//! are computed once and doubled, then the squares `a[i]^2` are added on the diagonal.
//! That is s(s-1)/2 + s = s(s+1)/2 word products for the square instead of s^2, so
//! s(s+1)/2 + s^2 for the whole Montgomery square instead of 2s^2 (about 25% fewer;
//! the reduction is unchanged).
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` (final subtraction with masks) and `Lazy`.
//! Constant-time: yes (fixed loop bounds, the carry propagation of the reduction and the
//! final subtraction are branch-free).

use super::scratch;
use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{ct, Limb, Modulus, Reduction};

/// The SOS kernel.
pub struct Sos;

static INFO: KernelInfo = KernelInfo {
    name: "sos",
    seed: "004 appendix (SOS)",
    summary: "separated operand scanning: whole product a*b, then word-by-word reduction; \
              dedicated squaring",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

impl<L: Limb> Kernel<L> for Sos {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let s = m.limbs();
        scratch::with_zeroed(2 * s, |t| {
            multiply(t, &a[..s], &b[..s]);
            reduce(m, t, out);
        });
    }

    fn sqr_exact(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        let s = m.limbs();
        scratch::with_zeroed(2 * s, |t| {
            square(t, &a[..s]);
            reduce(m, t, out);
        });
    }
}

/// `t = a * b` into the 2s zeroed words of `t`, one row `a * b[i]` per step.
fn multiply<L: Limb>(t: &mut [L], a: &[L], b: &[L]) {
    let s = a.len();
    for (i, &b_i) in b.iter().enumerate() {
        let mut c = L::ZERO;
        for (t_ij, &a_j) in t[i..i + s].iter_mut().zip(a) {
            // (C,S) := t[i+j] + a[j]*b[i] + C <= 2^(2w) - 1 (Limb::mac).
            (*t_ij, c) = L::mac(*t_ij, a_j, b_i, c);
        }
        // Rows before this one reached word i + s - 1 at most: t[i+s] is still zero.
        t[i + s] = c;
    }
}

/// `t = a * a` into the 2s zeroed words of `t`: off-diagonal products once, then
/// doubled and the diagonal added in one pass.
fn square<L: Limb>(t: &mut [L], a: &[L]) {
    let s = a.len();
    // Off-diagonal: row i adds a[i] * a[i+1..s] at word 2i + 1.
    for (i, &a_i) in a.iter().enumerate() {
        let mut c = L::ZERO;
        for (t_ij, &a_j) in t[2 * i + 1..i + s].iter_mut().zip(&a[i + 1..]) {
            // t[i+j] + a[j]*a[i] + C <= 2^(2w) - 1 (Limb::mac).
            (*t_ij, c) = L::mac(*t_ij, a_j, a_i, c);
        }
        // Rows before this one reached word i + s - 1 at most: t[i+s] is still zero.
        t[i + s] = c;
    }
    // One pass doubles the off-diagonal sum and adds a[i]^2 at word 2i, two words at a
    // time. The off-diagonal sum is (a^2 - sum a[i]^2 W^(2i)) / 2 < R^2 / 2, so twice
    // it still fits in 2s words (the bit shifted out of the top word is 0); the carry
    // is 0 or 1 (Limb::adc), and the total is a^2 < R^2, so none leaves word 2s - 1.
    let mut bit = L::ZERO;
    let mut c = L::ZERO;
    for (pair, &a_i) in t.chunks_exact_mut(2).zip(a) {
        let (lo, hi) = L::mul_wide(a_i, a_i);
        let doubled_lo = pair[0].shl(1).or(bit);
        let doubled_hi = pair[1].shl(1).or(pair[0].shr(L::BITS - 1));
        bit = pair[1].shr(L::BITS - 1);
        (pair[0], c) = L::adc(doubled_lo, lo, c);
        (pair[1], c) = L::adc(doubled_hi, hi, c);
    }
    debug_assert!(bit == L::ZERO);
    debug_assert!(c == L::ZERO);
}

/// The reduction half of SOS: `out = (t + m*n) / R` for the 2s-word `t`, then the final
/// step of the policy.
fn reduce<L: Limb>(m: &Modulus<L>, t: &mut [L], out: &mut [L]) {
    let n = m.n();
    let s = n.len();
    // The appendix's ADD(t[i+s], C) propagates the carry "until no further carry is
    // generated": a data-dependent loop. Here it is branch-free and O(1) per step: the
    // carry out of t[i+s] (0 or 1) is held in `ripple` and added at step i + 1 together
    // with that step's C into t[i+s+1], the very word the propagation would reach
    // next. After the last step it is word 2s, the top word of u.
    let mut ripple = L::ZERO;
    for i in 0..s {
        // The appendix's m: t + m*n*W^i is divisible by W^(i+1).
        let q = t[i].wrapping_mul(m.n0());
        let mut c = L::ZERO;
        for (t_ij, &n_j) in t[i..i + s].iter_mut().zip(n) {
            // (C,S) := t[i+j] + m*n[j] + C <= 2^(2w) - 1 (Limb::mac).
            (*t_ij, c) = L::mac(*t_ij, q, n_j, c);
        }
        // t[i+s] + C + ripple <= 2(2^w - 1) + 1: the new ripple is 0 or 1.
        (t[i + s], ripple) = L::adc(t[i + s], c, ripple);
    }
    // u = (t + m*n) / R is words s..2s of t, and `ripple` is its word s.
    // Bound: Full: a, b < n, so u < (n^2 + R n) / R < 2n. Lazy: a, b < 2n and 4n < R, so
    // t < 4n^2 < R n and u < (R n + R n) / R = 2n.
    out.copy_from_slice(&t[s..]);
    match m.reduction() {
        // u < 2n: one masked subtraction lands in [0, n).
        Reduction::Full => ct::reduce_once(out, ripple, n),
        // u < 2n < R/2: the top word is 0 and u is already in [0, 2n).
        Reduction::Lazy => debug_assert!(ripple == L::ZERO),
    }
}
