//! CIHS, Coarsely Integrated Hybrid Scanning.
//!
//! Seed 004 (Koc 1997), appendix, "Coarsely Integrated Hybrid Scanning (CIHS) Method",
//! and sec. 5.3; originally Koc, Acar and Kaliski, *Analyzing and comparing Montgomery
//! multiplication algorithms*, IEEE Micro 1996. A modification of SOS that mixes the two
//! scanning forms: the product a*b is split in two. The first loop adds, in operand
//! scanning form, the lower triangle of a*b (the products `a[j]*b[i]` with i + j < s, the
//! first s - i words of row i) into t; their carries collect in the top words `t[s]`,
//! `t[s+1]`. The second loop is CIOS's reduce-and-shift step, one word of m at a time,
//! each followed by one column s + i of the upper triangle in product scanning form,
//! added at word s - 1 (where column s + i sits after i + 1 shifts). Memory: t of
//! s + 2 words (s in `out`, the top words in a small accumulator).
//!
//! The conversion of the appendix garbles two lines, read here from the mathematics:
//! after each row of the first loop the row's carry is added into `t[s]` with the carry
//! of that addition *added* into `t[s+1]` (the text says `t[s+1] := C`, which would drop
//! the carries of earlier rows: the lower triangle over W^s is up to s(2^w - 1), so `t[s]`
//! overflows many times), and the second loop begins where the text runs
//! `t[s+1] := C for i=0 to s-1` into one line.
//!
//! The top words are an accumulator of three words (`t[s-1]`, `t[s]`, `t[s+1]`) while a
//! column is added, with a fourth at w = 8. The value held in t stays below
//! 2s * W^(s+1): the lower triangle is below s(W-1) * W^s; a reduce step maps
//! T < 2s W^(s+1) to (T + m*n)/W < (2s + 1) W^s, and the column then adds at most
//! (s-1)(W-1)^2 W^(s-1), a total below 2s W^(s+1). So the words from s - 1 up hold less
//! than 2s * W^2, the bound of `algo/accumulator.rs`.
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` (final subtraction with masks) and `Lazy`.
//! Constant-time: yes (fixed loop bounds, branch-free carry propagation, masked final
//! subtraction).

use super::accumulator::Accumulator;
use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{ct, Limb, Modulus, Reduction};

/// The CIHS kernel.
pub struct Cihs;

static INFO: KernelInfo = KernelInfo {
    name: "cihs",
    seed: "004 appendix (CIHS)",
    summary: "coarsely integrated hybrid scanning: lower half of a*b by rows, upper half by \
              columns between reduce-and-shift steps",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

impl<L: Limb> Kernel<L> for Cihs {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let n = m.n();
        let s = n.len();
        // t[0..s] lives in `out`; `top` holds t[s], t[s+1] (and t[s+2] at w = 8), and
        // while a column of the second loop is added, t[s-1] below them.
        let t = out;
        t.fill(L::ZERO);
        let mut top = Accumulator::<L>::new();

        // Lower triangle, by rows: t[i..s] += a[0..s-i] * b[i].
        for (i, &b_i) in b[..s].iter().enumerate() {
            let mut c = L::ZERO;
            for (t_ij, &a_j) in t[i..].iter_mut().zip(a) {
                // (C,S) := t[i+j] + a[j]*b[i] + C <= 2^(2w) - 1 (Limb::mac).
                (*t_ij, c) = L::mac(*t_ij, a_j, b_i, c);
            }
            // (C,S) := t[s] + C; t[s] := S; t[s+1] := t[s+1] + C
            top.add(c);
        }

        for i in 0..s {
            // Reduce and shift, as in CIOS. The appendix's m:
            let q = t[0].wrapping_mul(m.n0());
            // (C,S) := t[0] + m*n[0]; S is 0 by the choice of q.
            let (_, mut c) = L::mac(t[0], q, n[0], L::ZERO);
            for j in 1..s {
                // (C,S) := t[j] + m*n[j] + C <= 2^(2w) - 1 (Limb::mac); t[j-1] := S
                (t[j - 1], c) = L::mac(t[j], q, n[j], c);
            }
            // (C,S) := t[s] + C; t[s-1] := S; t[s] := t[s+1] + C; t[s+1] := 0. Adding C
            // at t[s] and renaming the words one down is the shift: `top` now starts at
            // word s - 1.
            top.add(c);
            // Column s + i of a*b, at word s - 1:
            // (C,S) := t[s-1] + b[j]*a[s-j+i]; t[s-1] := S; (C,S) := t[s] + C; ...
            for j in i + 1..s {
                top.mul_add(b[j], a[s - j + i]);
            }
            // t[s-1] back into the array; `top` starts at word s again.
            t[s - 1] = top.shift();
        }

        // u = (a*b + m*n) / R is t[0..s] and t[s]. Bound: u < 2n under both policies
        // (Full: a, b < n, u < (n^2 + R n) / R; Lazy: a, b < 2n, 4n < R,
        // u < (4n^2 + R n) / R), so t[s] is 0 or 1 and nothing is above it.
        let t_s = top.low();
        debug_assert!(top.high_is_zero());
        match m.reduction() {
            // u < 2n: one masked subtraction lands in [0, n).
            Reduction::Full => ct::reduce_once(t, t_s, n),
            // u < 2n < R/2: the top word is 0 and u is already in [0, 2n).
            Reduction::Lazy => debug_assert!(t_s == L::ZERO),
        }
    }
}
