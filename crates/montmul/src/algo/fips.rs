//! FIPS, Finely Integrated Product Scanning.
//!
//! Seed 004 (Koc 1997), appendix, "Finely Integrated Product Scanning (FIPS) Method",
//! and sec. 5.2; originally Koc, Acar and Kaliski, *Analyzing and comparing Montgomery
//! multiplication algorithms*, IEEE Micro 1996. Both a*b and m*n are computed in product
//! scanning form, interleaved: the outer loop walks the 2s columns of the product (one
//! power of W = 2^w each), the inner loop adds every `a[j]*b[i-j]` and `m[j]*n[i-j]` of
//! that column into a multi-word accumulator, then the accumulator's low word leaves and
//! the rest shifts down. In the first s columns the low word yields the next word of m;
//! in the last s it is the next word of the result. m and the result share one s-word
//! array (the result's word i-s is written after column i last reads `m[i-s]`), so the
//! kernel needs no memory besides `out` and the accumulator.
//!
//! The accumulator is the appendix's three words (t, u, v), with a fourth at w = 8:
//! three words hold any column sum only while 2s <= 2^w, which at w = 8 stops at
//! 1024-bit moduli (see `algo/accumulator.rs` for the bound).
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` (final subtraction with masks) and `Lazy`.
//! Constant-time: yes (fixed loop bounds, branch-free carry propagation in the
//! accumulator, masked final subtraction).

use super::accumulator::Accumulator;
use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{ct, Limb, Modulus, Reduction};

/// The FIPS kernel.
pub struct Fips;

static INFO: KernelInfo = KernelInfo {
    name: "fips",
    seed: "004 appendix (FIPS)",
    summary: "finely integrated product scanning: one column of a*b and m*n at a time, \
              multi-word accumulator",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

impl<L: Limb> Kernel<L> for Fips {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let n = m.n();
        let s = n.len();
        // The appendix's array t: words of m first, then words of the result.
        let t = out;
        let mut acc = Accumulator::<L>::new();
        // Columns 0..s: finish column i, pick m[i] so that its low word vanishes.
        for i in 0..s {
            for j in 0..i {
                // (C,S) := m[0] + a[j]*b[i-j]; ADD(m[1],C);
                // (C,S) := S + t[j]*n[i-j]; m[0] := S; ADD(m[1],C)
                acc.mul_add(a[j], b[i - j]);
                acc.mul_add(t[j], n[i - j]);
            }
            acc.mul_add(a[i], b[0]);
            // t[i] := S*n'[0] mod W
            let q = acc.low().wrapping_mul(m.n0());
            t[i] = q;
            // (C,S) := S + t[i]*n[0]; ADD(m[1],C): S becomes 0 by the choice of q.
            acc.mul_add(q, n[0]);
            debug_assert!(acc.low() == L::ZERO);
            acc.shift();
        }
        // Columns s..2s: the result, one word per column.
        for i in s..2 * s {
            for j in i - s + 1..s {
                acc.mul_add(a[j], b[i - j]);
                acc.mul_add(t[j], n[i - j]);
            }
            // Column i read t[j] for j > i - s only, so word i - s is free.
            t[i - s] = acc.shift();
        }
        // What is left is word s of u = (a*b + m*n) / R. Bound: u < 2n under both
        // policies (Full: a, b < n, u < (n^2 + R n) / R; Lazy: a, b < 2n, 4n < R,
        // u < (4n^2 + R n) / R), so that word is 0 or 1 and nothing is above it.
        let top = acc.low();
        debug_assert!(acc.high_is_zero());
        match m.reduction() {
            // u < 2n: one masked subtraction lands in [0, n).
            Reduction::Full => ct::reduce_once(t, top, n),
            // u < 2n < R/2: the top word is 0 and u is already in [0, 2n).
            Reduction::Lazy => debug_assert!(top == L::ZERO),
        }
    }
}
