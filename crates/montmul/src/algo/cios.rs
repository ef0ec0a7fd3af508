//! CIOS, Coarsely Integrated Operand Scanning.
//!
//! Seed 004 (Koc 1997), appendix, "CIOS"; the same as seed 002 (Fan et al.), Alg. 2.
//! Originally Koc, Acar and Kaliski, *Analyzing and comparing Montgomery multiplication
//! algorithms*, IEEE Micro 1996. One outer loop over the words of `b`; inside it, one
//! pass multiplies `a * b[i]` into the accumulator and a second pass adds `q * n` and
//! shifts one word down. The accumulator is s + 2 words.
//!
//! Squaring ([`Kernel::sqr`]) has its own row pass: only the products `a[i]*a[j]`,
//! j >= i, doubled on the fly off the diagonal, about half the word products of the
//! multiplication pass.
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` (final subtraction with masks) and `Lazy`.
//! Constant-time: yes (fixed loop bounds, masked final subtraction).

use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{ct, Limb, Modulus, Reduction};

/// The CIOS kernel.
pub struct Cios;

static INFO: KernelInfo = KernelInfo {
    name: "cios",
    seed: "004 appendix (CIOS); 002 Alg. 2",
    summary: "coarsely integrated operand scanning: multiply pass, then reduce-and-shift pass; \
              dedicated squaring",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

impl<L: Limb> Kernel<L> for Cios {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let n = m.n();
        let s = n.len();
        // t[0..s] lives in `out`; t[s] and t[s+1] in `t_s`, `t_s1`.
        let t = out;
        t.fill(L::ZERO);
        let mut t_s = L::ZERO;
        for &b_i in &b[..s] {
            // t += a * b[i]. Each step: t[j] + a[j]*b[i] + c <= 2^(2w) - 1 (Limb::mac).
            let mut c = L::ZERO;
            for (t_j, &a_j) in t.iter_mut().zip(a) {
                (*t_j, c) = L::mac(*t_j, a_j, b_i, c);
            }
            let (sum, t_s1) = L::adc(t_s, c, L::ZERO);
            t_s = sum;

            t_s = reduce_and_shift(m, t, t_s, t_s1);
        }
        finish(m, t, t_s);
    }

    /// Dedicated squaring: row i of the multiplication, `a * a[i]`, is replaced by the
    /// part of a^2 that no earlier row added: `a[i]^2` at word i and `2*a[i]*a[j]` for
    /// j > i at word j (in the shifted frame of step i). That is s(s+1)/2 word products
    /// for the square instead of s^2 (s(s+1)/2 + s^2 + s in all instead of 2s^2 + s).
    /// Every product of weight <= i is in t before step i computes its m from `t[0]`,
    /// and later rows only add at higher weights, so the reduction is unchanged.
    fn sqr_exact(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        let s = m.limbs();
        let t = out;
        t.fill(L::ZERO);
        let mut t_s = L::ZERO;
        for (i, &a_i) in a[..s].iter().enumerate() {
            // t[i] + a[i]^2 <= (2^w - 1) + (2^w - 1)^2 < 2^(2w) (Limb::mac).
            let (lo, mut c) = L::mac(t[i], a_i, a_i, L::ZERO);
            t[i] = lo;
            // a[i] times the words of 2 * (a[i+1] + a[i+2] W + ...), each formed on the fly
            // from a[j] shifted left by one and the top bit of a[j-1]; `bit` is that top
            // bit, and after the loop it is the last word of the doubled number (0 or 1).
            let mut bit = L::ZERO;
            for (t_j, &a_j) in t[i + 1..].iter_mut().zip(&a[i + 1..s]) {
                let doubled = a_j.shl(1).or(bit);
                bit = a_j.shr(L::BITS - 1);
                // t[j] + a[i]*d + c <= 2^(2w) - 1 (Limb::mac).
                (*t_j, c) = L::mac(*t_j, a_i, doubled, c);
            }
            // t[s] + a[i]*bit + c <= 3(2^w - 1): t[s+1] is at most 2.
            let (sum, t_s1) = L::mac(t_s, a_i, bit, c);
            t_s = reduce_and_shift(m, t, sum, t_s1);
        }
        finish(m, t, t_s);
    }
}

/// The reduction half of one CIOS step: t = (t + q*n) / 2^w with q = `t[0]` * n0' mod 2^w,
/// for t held as `t` (words 0..s), `t_s` and `t_s1`; returns the new word s.
#[inline(always)]
fn reduce_and_shift<L: Limb>(m: &Modulus<L>, t: &mut [L], t_s: L, t_s1: L) -> L {
    let n = m.n();
    let s = n.len();
    // q = t[0] * n0' mod 2^w makes t + q*n divisible by 2^w.
    let q = t[0].wrapping_mul(m.n0());
    let (_, mut c) = L::mac(t[0], q, n[0], L::ZERO);
    for j in 1..s {
        let (lo, hi) = L::mac(t[j], q, n[j], c);
        t[j - 1] = lo;
        c = hi;
    }
    let (lo, hi) = L::adc(t_s, c, L::ZERO);
    t[s - 1] = lo;
    // After the shift t < 2n (multiplication, Full) or < 3n < R (Lazy), so word s is
    // at most 1; squaring keeps t < 3R: with t < 3R before step i, the step adds
    // a[i] * (a[i] W^i + 2 a[i+1] W^(i+1) + ...) < (2^w - 1) * 2R and q*n < (2^w - 1) * R,
    // and dividing t + both by 2^w leaves t < 3R, so word s is at most 2. Either way
    // t[s+1] + carry is that word and cannot wrap.
    t_s1.wrapping_add(hi)
}

/// The final step of the policy for the result `t` with top word `t_s`.
#[inline(always)]
fn finish<L: Limb>(m: &Modulus<L>, t: &mut [L], t_s: L) {
    match m.reduction() {
        // t < 2n: one masked subtraction lands in [0, n).
        Reduction::Full => ct::reduce_once(t, t_s, m.n()),
        // t < 2n < R/2, so t_s is 0 and nothing is left to do.
        Reduction::Lazy => debug_assert!(t_s == L::ZERO),
    }
}
