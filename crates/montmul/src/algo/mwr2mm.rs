//! MWR2MM, the Multiple-Word Radix-2 Montgomery Multiplication of Tenca and Koc.
//!
//! Seed 003 (Huang, Gaj, Kwon, El-Ghazawi), Alg. 2; originally Tenca and Koc, *A scalable
//! architecture for Montgomery multiplication*, CHES 1999. The multiplier X is scanned
//! bit by bit (outer loop, one processing element per bit in the systolic array), the
//! multiplicand Y, the modulus M and the partial sum S word by word (inner loop, one
//! w-bit word per clock in a processing element):
//!
//! ```text
//!  1: S = 0
//!  2: for i = 0 .. k-1:
//!  3:     q_i = (x_i * Y_0^(0)) xor S_0^(0)
//!  4:     (C^(1), S^(0)) = x_i * Y^(0) + q_i * M^(0) + S^(0)
//!  5:     for j = 1 .. e-1:
//!  6:         (C^(j+1), S^(j)) = C^(j) + x_i * Y^(j) + q_i * M^(j) + S^(j)
//!  7:         S^(j-1) = (S_0^(j), S_{w-1..1}^(j-1))
//!  9:     S^(e-1) = (C_0^(e), S_{w-1..1}^(e-1))
//! ```
//!
//! Superscripts are words, subscripts bits. Line 7 is the division by 2 done one word
//! late: word j-1 can only be shifted once the low bit of word j is known. The carry C
//! is at most 2 (two bits): `C + Y^(j) + M^(j) + S^(j) <= 2 + 3(2^w - 1) < 3 * 2^w`.
//!
//! montmul's R is 2^(w*s), so the outer loop runs over k = w*s bits of X (the seed runs
//! over the n bits of M; for the seed's table sizes, 1024..4096 bits with w = 16, the
//! two are the same). The seed takes e = ceil((n+1)/w) words so that S < 2M fits; here
//! e = ceil((bits+1)/w) under `Full` (s or s+1 words) and e = s under `Lazy` (s words
//! already hold 4M). [`trace`] returns S after every outer iteration, the values the
//! systolic-array model's processing elements must reproduce.
//!
//! Words: 8, 16, 32, 64. Reduction: `Full` (masked final subtraction) and `Lazy`.
//! Constant-time: yes (bits of X and q become masks; fixed loop bounds).

use crate::encoding::bit;
use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{ct, Error, Limb, Modulus, Reduction};

/// The MWR2MM kernel.
pub struct Mwr2mm;

static INFO: KernelInfo = KernelInfo {
    name: "mwr2mm",
    seed: "003 Alg. 2",
    summary: "Tenca-Koc multiple-word radix-2: bit-serial over X, word-serial over Y, M, S",
    words: &[8, 16, 32, 64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

impl<L: Limb> Kernel<L> for Mwr2mm {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let s = m.limbs();
        let e = words(m);
        let y = padded(&b[..s], e);
        let n = padded(m.n(), e);
        let mut acc = vec![L::ZERO; e];
        outer_loop(
            &a[..s],
            &y,
            &n,
            L::BITS as usize * s,
            &mut acc,
            |_, _, _| {},
        );
        out.copy_from_slice(&acc[..s]);
        // Full: S < Y + M < 2M < 2^(w*s + 1), so a word s, when there is one, is 0 or 1.
        let top = acc.get(s).copied().unwrap_or(L::ZERO);
        match m.reduction() {
            Reduction::Full => ct::reduce_once(out, top, m.n()),
            // S = (XY + QM)/R < 4M^2/R + M < 2M because R > 4M (Walter 1999).
            Reduction::Lazy => {}
        }
    }
}

/// One outer iteration of MWR2MM, as [`trace`] reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step<L> {
    /// Bit i of X (0 or 1).
    pub x_i: L,
    /// q_i: 1 when M was added in this iteration.
    pub q_i: L,
    /// S after the iteration, e little-endian words: `(S + x_i Y + q_i M) / 2`.
    pub s: Vec<L>,
}

/// S after each of the w*s outer iterations of MWR2MM on `x` and `y` modulo `m`, with
/// the e words ([`Step::s`]) this kernel uses for `m`'s reduction policy.
///
/// The last step's S is the kernel's result before the final subtraction (under
/// `Full`, S < 2n; the kernel then subtracts n once when S >= n). `x` and `y` are
/// little-endian limbs of any length, below [`Modulus::bound`]; otherwise
/// [`Error::OperandTooLarge`]. Costs w*s*e words of memory: meant for tests and models.
pub fn trace<L: Limb>(m: &Modulus<L>, x: &[L], y: &[L]) -> Result<Vec<Step<L>>, Error> {
    let e = words(m);
    let x = operand(m, x)?;
    let y = padded(&operand(m, y)?, e);
    let n = padded(m.n(), e);
    let k = L::BITS as usize * m.limbs();
    let mut steps = Vec::with_capacity(k);
    let mut acc = vec![L::ZERO; e];
    outer_loop(&x, &y, &n, k, &mut acc, |x_i, q_i, s| {
        steps.push(Step {
            x_i,
            q_i,
            s: s.to_vec(),
        })
    });
    Ok(steps)
}

/// Number of words e of S: enough for Y + M, the bound of S (see [`outer_loop`]).
fn words<L: Limb>(m: &Modulus<L>) -> usize {
    match m.reduction() {
        // Y + M < 2M < 2^(bits+1).
        Reduction::Full => (m.bits() + 1).div_ceil(L::BITS) as usize,
        // Y + M < 3M < R = 2^(w*s).
        Reduction::Lazy => m.limbs(),
    }
}

/// `v` zero-extended to `e` words.
fn padded<L: Limb>(v: &[L], e: usize) -> Vec<L> {
    let mut out = v.to_vec();
    out.resize(e, L::ZERO);
    out
}

/// `x` as exactly `m.limbs()` limbs, or an error when it is not below the bound.
fn operand<L: Limb>(m: &Modulus<L>, x: &[L]) -> Result<Vec<L>, Error> {
    let s = m.limbs();
    if x.len() > s && ct::is_zero(&x[s..]) == L::ZERO {
        return Err(Error::OperandTooLarge);
    }
    let xs = padded(&x[..x.len().min(s)], s);
    if ct::borrow_of_sub(&xs, m.bound()) == L::ZERO {
        return Err(Error::OperandTooLarge);
    }
    Ok(xs)
}

/// Alg. 2 over the first `k` bits of `x`, with `y`, `m` and `acc` (S, zeroed) all e
/// words long and `Y + M <= 2^(w*e)`. Calls `observe(x_i, q_i, S)` after each outer
/// iteration.
///
/// Bound: S < Y + M before every iteration, since (S + Y + M)/2 < Y + M. So the sum of
/// line 6 stays below 2(Y + M) <= 2^(w*e + 1) and the last carry C^(e) is 0 or 1: line 9
/// loses nothing when it keeps only C_0^(e).
fn outer_loop<L: Limb>(
    x: &[L],
    y: &[L],
    m: &[L],
    k: usize,
    acc: &mut [L],
    mut observe: impl FnMut(L, L, &[L]),
) {
    let w = L::BITS;
    let e = acc.len();
    for i in 0..k {
        let x_i = bit(x, i);
        let x_mask = ct::mask(x_i);
        // Line 3: the parity of S + x_i Y decides whether M is added.
        let q_i = y[0].and(x_mask).xor(acc[0]).and(L::ONE);
        let q_mask = ct::mask(q_i);
        // Lines 4-8; line 4 is line 6 with C^(0) = 0.
        let mut c = L::ZERO;
        for j in 0..e {
            // C + x_i Y^(j) + q_i M^(j) + S^(j) <= 2 + 3(2^w - 1) = 3 * 2^w - 1,
            // so the new C = c_y + c_m + c_c <= 2.
            let (sum, c_y) = L::adc(acc[j], y[j].and(x_mask), L::ZERO);
            let (sum, c_m) = L::adc(sum, m[j].and(q_mask), L::ZERO);
            let (sum, c_c) = L::adc(sum, c, L::ZERO);
            acc[j] = sum;
            c = c_y.wrapping_add(c_m).wrapping_add(c_c);
            if j == 0 {
                debug_assert!(sum.and(L::ONE) == L::ZERO, "q_i makes S^(0) even");
            } else {
                // Line 7: S^(j-1) = (S_0^(j), S_{w-1..1}^(j-1)).
                acc[j - 1] = acc[j - 1].shr(1).or(sum.shl(w - 1));
            }
        }
        // Line 9: S^(e-1) = (C_0^(e), S_{w-1..1}^(e-1)); C^(e) <= 1 (see above).
        debug_assert!(c.shr(1) == L::ZERO, "C^(e) is one bit");
        acc[e - 1] = acc[e - 1].shr(1).or(c.shl(w - 1));
        observe(x_i, q_i, acc);
    }
}
