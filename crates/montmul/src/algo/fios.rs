//! FIOS, Finely Integrated Operand Scanning.
//!
//! Seed 004 (Koc 1997), appendix, "Finely Integrated Operand Scanning (FIOS) Method",
//! and sec. 5.5; the same as seed 002 (Fan et al.), Alg. 1. Originally Koc, Acar and
//! Kaliski, *Analyzing and comparing Montgomery multiplication algorithms*, IEEE Micro
//! 1996. One outer loop over the words of `b`, and a single inner loop that adds both
//! `a[j]*b[i]` and `m*n[j]` and shifts one word down; m is computed from `t[0] + a[0]*b[i]`
//! before the inner loop starts. The price of the single loop is a second carry: the
//! carry of the a*b product is added into `t[j+1]` (the appendix's ADD), the carry of the
//! m*n product goes on in C. Memory: t of s + 1 words besides the operands (the
//! appendix's `t[s+1]` is only ever the pending carry bit, held in a register here).
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` (final subtraction with masks) and `Lazy`.
//! Constant-time: yes (fixed loop bounds, branch-free carry propagation, masked final
//! subtraction).

use super::scratch;
use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{ct, Limb, Modulus, Reduction};

/// The FIOS kernel.
pub struct Fios;

static INFO: KernelInfo = KernelInfo {
    name: "fios",
    seed: "004 appendix (FIOS); 002 Alg. 1",
    summary: "finely integrated operand scanning: one inner loop adds a*b[i] and m*n, two carries",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

impl<L: Limb> Kernel<L> for Fios {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let n = m.n();
        let s = n.len();
        // t[0..=s] as in the appendix.
        let top = scratch::with_zeroed(s + 1, |t| {
            for &b_i in &b[..s] {
                // The appendix's ADD(t[j+1], C) propagates the carry as far as it goes, a
                // data-dependent loop. Here it is branch-free: the carry out of t[j+1]
                // (0 or 1) is held in `ripple` and added into t[j+2] by the next step's
                // ADD, the very word the propagation would reach next; after the last
                // step it is the appendix's t[s+1].

                // (C,S) := t[0] + a[0]*b[i] <= (2^w - 1) + (2^w - 1)^2 < 2^(2w).
                let (s0, c) = L::mac(t[0], a[0], b_i, L::ZERO);
                // ADD(t[1], C)
                let (t1, mut ripple) = L::adc(t[1], c, L::ZERO);
                t[1] = t1;
                // The appendix's m: S + m*n[0] = 0 mod W.
                let q = s0.wrapping_mul(m.n0());
                // (C,S) := S + m*n[0] <= (2^w - 1) + (2^w - 1)^2; S is 0.
                let (_, mut c) = L::mac(s0, q, n[0], L::ZERO);
                for j in 1..s {
                    // (C,S) := t[j] + a[j]*b[i] + C <= 2^(2w) - 1 (Limb::mac).
                    let (sum, c_ab) = L::mac(t[j], a[j], b_i, c);
                    // ADD(t[j+1], C): t[j+1] + C + ripple <= 2(2^w - 1) + 1, the new
                    // ripple is 0 or 1.
                    (t[j + 1], ripple) = L::adc(t[j + 1], c_ab, ripple);
                    // (C,S) := S + m*n[j] <= (2^w - 1) + (2^w - 1)^2 < 2^(2w).
                    let (lo, hi) = L::mac(sum, q, n[j], L::ZERO);
                    t[j - 1] = lo;
                    c = hi;
                }
                // (C,S) := t[s] + C; t[s-1] := S; t[s] := t[s+1] + C; t[s+1] := 0, with
                // t[s+1] = ripple. After the shift t < 2n (Full: the step adds at most
                // (2^w - 1)(a + n) < 2^w * 2n to t < 2n before dividing by 2^w) or
                // t < 3n (Lazy: a < 2n, the same argument with 3n) < R: so t[s] <= 1
                // and the addition below cannot wrap.
                let (lo, hi) = L::adc(t[s], c, L::ZERO);
                t[s - 1] = lo;
                t[s] = ripple.wrapping_add(hi);
            }
            out.copy_from_slice(&t[..s]);
            t[s]
        });
        // Bound: u < 2n under both policies (Full: a, b < n, u < (n^2 + R n) / R;
        // Lazy: a, b < 2n, 4n < R, u < (4n^2 + R n) / R).
        match m.reduction() {
            // u < 2n: one masked subtraction lands in [0, n).
            Reduction::Full => ct::reduce_once(out, top, n),
            // u < 2n < R/2: the top word is 0 and u is already in [0, 2n).
            Reduction::Lazy => debug_assert!(top == L::ZERO),
        }
    }
}
