//! CIOS, Coarsely Integrated Operand Scanning.
//!
//! Seed 004 (Koc 1997), appendix, "CIOS"; the same as seed 002 (Fan et al.), Alg. 2.
//! Originally Koc, Acar and Kaliski, *Analyzing and comparing Montgomery multiplication
//! algorithms*, IEEE Micro 1996. One outer loop over the words of `b`; inside it, one
//! pass multiplies `a * b[i]` into the accumulator and a second pass adds `q * n` and
//! shifts one word down. The accumulator is s + 2 words.
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` (final subtraction with masks) and `Lazy`.
//! Constant-time: yes (fixed loop bounds, masked final subtraction).

use crate::kernel::{portable, Kernel, KernelInfo};
use crate::{ct, Limb, Modulus, Reduction};

/// The CIOS kernel.
pub struct Cios;

static INFO: KernelInfo = KernelInfo {
    name: "cios",
    seed: "004 appendix (CIOS); 002 Alg. 2",
    summary: "coarsely integrated operand scanning: multiply pass, then reduce-and-shift pass",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

impl<L: Limb> Kernel<L> for Cios {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
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
            // t < 2n < 2R before the shift, so t[s+1] + carry <= 1.
            t_s = t_s1.wrapping_add(hi);
        }
        match m.reduction() {
            // t < 2n: one masked subtraction lands in [0, n).
            Reduction::Full => ct::reduce_once(t, t_s, n),
            // t < 2n < R/2, so t_s is 0 and nothing is left to do.
            Reduction::Lazy => debug_assert!(t_s == L::ZERO),
        }
    }
}
