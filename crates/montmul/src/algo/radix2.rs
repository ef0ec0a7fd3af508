//! Bit-serial radix-2 Montgomery multiplication.
//!
//! Seed 003 (Huang, Gaj, Kwon, El-Ghazawi), Alg. 1, "Radix-2 Montgomery Multiplication";
//! originally Montgomery, *Modular multiplication without trial division*, Math. Comp.
//! 1985. The multiplier `x` is scanned one bit at a time, least significant first:
//!
//! ```text
//! S = 0
//! for i = 0 .. k-1:             k = w * s, so that R = 2^k as in every montmul kernel
//!     q_i = (S + x_i * Y) mod 2
//!     S   = (S + x_i * Y + q_i * M) / 2
//! ```
//!
//! The seed iterates over the n bits of M (R = 2^n); montmul's R is 2^(w*s), so the loop
//! runs over all w*s bits of the multiplier, the high ones being zero when `x < 2^n`.
//! This is the hardware designers' reference form: one addition of at most two
//! multiples per bit, no word multiplication. It is slow in software (w*s passes over
//! s words) and kept for the laboratory and as the oracle of the bit-level models.
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` (masked final subtraction) and `Lazy`.
//! Constant-time: yes. `x_i` and `q_i` become masks, `Y` and `M` are always added
//! (masked to zero when their bit is 0), and the loop bounds depend only on s.

use crate::encoding::bit;
use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{ct, Limb, Modulus, Reduction};

/// The radix-2 bit-serial kernel.
pub struct Radix2;

static INFO: KernelInfo = KernelInfo {
    name: "radix2",
    seed: "003 Alg. 1",
    summary: "bit-serial radix-2 Montgomery: one masked add of Y and M and a 1-bit shift per bit",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

impl<L: Limb> Kernel<L> for Radix2 {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let n = m.n();
        let s = n.len();
        let (x, y) = (&a[..s], &b[..s]);
        // S = top * 2^(w*s) + out[..s].
        let acc = out;
        acc.fill(L::ZERO);
        let mut top = L::ZERO;
        for i in 0..L::BITS as usize * s {
            let x_i = bit(x, i);
            // Parity of S + x_i * Y: only the low bits of S[0] and Y[0] matter.
            let q_i = acc[0].xor(y[0].and(ct::mask(x_i))).and(L::ONE);
            // Invariant: S < Y + M before each step, because
            // (S + Y + M) / 2 < (Y + M + Y + M) / 2 = Y + M.
            // Full: Y < M < 2^(w*s), so S + Y + M < 2(Y + M) < 4 * 2^(w*s): top <= 3.
            // Lazy: Y < 2M and 4M < R, so S + Y + M < 6M < 2R: top <= 1.
            let c_y = ct::add_masked(acc, y, ct::mask(x_i));
            let c_m = ct::add_masked(acc, n, ct::mask(q_i));
            top = top.wrapping_add(c_y).wrapping_add(c_m);
            debug_assert!(acc[0].and(L::ONE) == L::ZERO, "S + x_i Y + q_i M is even");
            shift_right_one(acc, &mut top);
        }
        match m.reduction() {
            // S < Y + M < 2M: top is 0 or 1, one masked subtraction lands in [0, n).
            Reduction::Full => ct::reduce_once(acc, top, n),
            // S = (X*Y + Q*M) / R with Q < R: S < XY/R + M < 4M^2/R + M < 2M < R,
            // because X, Y < 2M and R > 4M (Walter 1999).
            Reduction::Lazy => debug_assert!(top == L::ZERO),
        }
    }
}

/// `(top, acc) >>= 1`: the low bit of `acc` is dropped, the low bit of `top` enters at
/// the top of `acc`.
fn shift_right_one<L: Limb>(acc: &mut [L], top: &mut L) {
    let w = L::BITS;
    for j in 0..acc.len() {
        let next = match acc.get(j + 1) {
            Some(&hi) => hi,
            None => *top,
        };
        acc[j] = acc[j].shr(1).or(next.shl(w - 1));
    }
    *top = top.shr(1);
}
