//! Column-wise radix-2^16 Montgomery multiplication for 4-lane SIMD units.
//!
//! Seed 000 (Bos and Kaihara, *Montgomery Multiplication on the Cell*), Alg. 2 and
//! Fig. 1. A number of K 16-bit digits is cut into four consecutive parts, one per lane
//! of s vectors: digit x_i sits in lane floor(i/s) of vector i mod s. With 10 digits
//! and s = 3:
//!
//! ```text
//!              lane 0   lane 1   lane 2   lane 3
//!   vector 0     x0       x3       x6       x9
//!   vector 1     x1       x4       x7       0
//!   vector 2     x2       x5       x8       0
//! ```
//!
//! Each lane is 32 bits wide: a 16-bit digit and 16 bits of carry room, so a digit
//! product plus two more digits never overflows (a*b + c + d < 2^32 for a, b, c, d <
//! 2^16). One 4-lane multiply-and-add `U_j += X_j * y_i` then handles four columns of
//! the schoolbook product at once, and consecutive vectors hold consecutive digits of
//! each quarter of the number.
//!
//! The division of the accumulator U by r = 2^16 moves every digit down one place. In
//! this layout digit k (relative to iteration i) lives in vector (i + k) mod s, lane
//! floor(k/s): moving to iteration i + 1 keeps every digit in its vector and lane, except
//! the digits of vector i mod s, which move down one lane. So the division is one lane
//! shift of one vector plus a circular change of the indices, no data movement.
//!
//! Reading of the garbled Alg. 2, derived from the mathematics:
//!
//! - Line 7, `U_(i+j) mod s += X_j * y_i`: lane l of X_j is digit j + l*s of X, and
//!   `U_(i+j) mod s` lane l is relative digit j + l*s of U: the column it belongs to.
//! - Line 11, `q = u_0 * mu mod r` with mu = -M^-1 mod r, u_0 = lane 0 of `U_(i mod s)`
//!   (relative digit 0); lane 0 never receives a carry, so it is a plain digit.
//! - Lines 9 and 15, the 16-bit carry propagation: the high halves of all vectors are
//!   taken out first and then added to the next vector's lanes (`U_(i+j+1) mod s`), in
//!   parallel; the high halves of the last vector (j = s-1) belong to digit l*s + s =
//!   (l+1)*s, which is lane l+1 of vector i mod s: they are shifted up one lane and added
//!   there. This is one level of carry-save propagation, not a ripple: afterwards every
//!   lane is at most (2^16 - 1) + (2^16 - 1) = 2^17 - 2, so the next multiply-and-add
//!   stays within (2^17 - 2) + (2^16 - 1)^2 = 2^32 - 1. (With a ripple instead, a lane
//!   that already holds a digit plus the wrap-around carry could take a second carry
//!   on top of a full product and pass 2^32.)
//! - Line 16, the division: after line 15 lane 0 of `U_(i mod s)` is zero (q was chosen
//!   for it); the vector is shifted down one lane.
//! - Lines 18-21: a final sequential carry propagation over the digits, and the result's
//!   vector j is `U_(K+j) mod s` (the seed's `U_(n+1+j) mod s`).
//!
//! Sizes. The seed works with an n-digit modulus, operands of n+1 digits (values below
//! 2M) and R = r^(n+1). montmul's `Lazy` modulus at w = 16 has K = ceil((bits+2)/16)
//! limbs and R = r^K; K is the seed's n+1 when M's top digit is at least r/4, and n
//! when it is smaller (R > 4M holds either way), so the loop runs exactly K times and
//! the results agree with every other kernel. Before each division the accumulator
//! holds U + y_i X + q M < r(X + M) < (3/4) r^(K+1): one digit more than the operands.
//! With K = n+1, the seed's s = ceil((n+1)/4) vectors have room for that digit unless
//! n+1 is a multiple of 4, where it would be shifted out of lane 3 in line 15; and it
//! is not always zero (M = 2^48 - 1, n = 3, X and Y near 2M: one vector would give a
//! wrong product; `tests/algorithm_structure.rs` covers K = 4, 8, 12 at the top of
//! both cases). So the layout here holds K+1 digits in
//! s = ceil((K+1)/4) vectors: exactly the seed's s when K = n, and one vector more than
//! the seed's only when K = n+1 is a multiple of 4.
//!
//! The Cell keeps multiplicand digits in the upper half of each lane because its
//! multiply-and-add instruction reads them there; this portable form keeps every digit
//! as its plain value in a `u32`.
//!
//! Words: 16 only. Reduction: `Lazy` only (subtraction-less, seed 000 sec. 3: R > 4M,
//! inputs and output in [0, 2M)). Constant-time: yes (the only indices are the loop
//! counters; no branch on data).

use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::{Limb, Modulus, Reduction};

/// The column-wise 4-lane kernel.
pub struct Columns;

static INFO: KernelInfo = KernelInfo {
    name: "columns",
    seed: "000 Alg. 2, Fig. 1",
    summary: "radix-2^16 digits split column-wise over 4 lanes, rotated accumulator indices",
    words: &[16],
    reductions: &[Reduction::Lazy],
    constant_time: true,
    available: portable,
};

/// Lanes per vector: the four 32-bit elements of a 128-bit register.
pub const LANES: usize = 4;

/// One 128-bit vector: four lanes, each a 16-bit digit with 16 bits of carry room.
pub type Vector = [u32; LANES];

const DIGIT_BITS: u32 = 16;
const DIGIT_MASK: u32 = 0xffff;

/// A number stored column-wise as in seed 000 Fig. 1: digit i in lane `i / s` of
/// vector `i % s`, with s = ceil(digits / 4) vectors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnLayout {
    vectors: Vec<Vector>,
    digits: usize,
}

impl ColumnLayout {
    /// The layout of these 16-bit digits (little-endian); unused lanes are zero.
    pub fn from_digits(digits: &[u16]) -> Self {
        let s = digits.len().div_ceil(LANES).max(1);
        let mut vectors = vec![[0u32; LANES]; s];
        for (i, &x) in digits.iter().enumerate() {
            vectors[i % s][i / s] = u32::from(x);
        }
        ColumnLayout {
            vectors,
            digits: digits.len(),
        }
    }

    /// The digits back, in little-endian order, as many as were laid out.
    pub fn to_digits(&self) -> Vec<u16> {
        let s = self.vectors.len();
        (0..self.digits)
            .map(|i| self.vectors[i % s][i / s] as u16)
            .collect()
    }

    /// The vectors X_0 .. X_(s-1).
    pub fn vectors(&self) -> &[Vector] {
        &self.vectors
    }

    /// Digit i (0 when i is past the end).
    pub fn digit(&self, i: usize) -> u32 {
        let s = self.vectors.len();
        self.vectors
            .get(i % s)
            .and_then(|v| v.get(i / s))
            .copied()
            .unwrap_or(0)
    }
}

impl<L: Limb> Kernel<L> for Columns {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        debug_assert_eq!(L::BITS, 16, "columns is defined for 16-bit words only");
        debug_assert_eq!(m.reduction(), Reduction::Lazy);
        let k = m.limbs();
        // Operands and modulus laid out over K+1 digits (see the module's "Sizes").
        let layout = |v: &[L]| {
            let mut digits: Vec<u16> = v[..k].iter().map(|l| l.to_u64() as u16).collect();
            digits.push(0);
            ColumnLayout::from_digits(&digits)
        };
        let mu = m.n0().to_u64() as u32 & DIGIT_MASK;
        let z = montgomery(&layout(a), &layout(b), &layout(m.n()), mu, k);
        for (o, d) in out.iter_mut().zip(z.to_digits()) {
            *o = L::from_u64(u64::from(d));
        }
    }
}

/// Alg. 2: `X * Y * r^-k mod M` in [0, 2M) for X, Y < 2M, r^k > 4M, all three laid
/// out over the same number of vectors, with room for k+1 digits; mu = -M^-1 mod r.
fn montgomery(
    x: &ColumnLayout,
    y: &ColumnLayout,
    m: &ColumnLayout,
    mu: u32,
    k: usize,
) -> ColumnLayout {
    let s = x.vectors.len();
    // Lines 1-3.
    let mut u = vec![[0u32; LANES]; s];
    // Invariant at the top of each iteration: U < X + M (value), and every lane is at
    // most 2^17 - 2 (a digit plus one carry).
    for i in 0..k {
        // Lines 5-8: U += y_i * X. Each lane: (2^17 - 2) + (2^16 - 1)^2 = 2^32 - 1.
        let y_i = y.digit(i);
        for (j, x_j) in x.vectors.iter().enumerate() {
            muladd(&mut u[(i + j) % s], x_j, y_i);
        }
        // Line 9.
        propagate_carries(&mut u, i % s);
        // Lines 10-11: u_0 <= 2^16 - 1, so u_0 * mu < 2^32.
        let u_0 = u[i % s][0];
        let q = (u_0 * mu) & DIGIT_MASK;
        // Lines 12-14: U += q * M, same bound as above.
        for (j, m_j) in m.vectors.iter().enumerate() {
            muladd(&mut u[(i + j) % s], m_j, q);
        }
        // Line 15.
        propagate_carries(&mut u, i % s);
        // Line 16: digit 0 is zero now; dividing by r drops it. The value becomes
        // (U + y_i X + q M) / r < (X + M + (r-1)(X + M)) / r = X + M.
        debug_assert_eq!(u[i % s][0], 0, "q * M cancels digit 0");
        let v = &mut u[i % s];
        *v = [v[1], v[2], v[3], 0];
    }
    // Lines 19-21 first (rename, so that relative digit j sits in vector j mod s), then
    // line 18 on the renamed vectors: the same operations in the seed's order reversed,
    // since renaming moves no data.
    let mut z: Vec<Vector> = (0..s).map(|j| u[(k + j) % s]).collect();
    // Line 18: sequential carry propagation over the 4s digits. The result is below 2M
    // < r^k (Walter 1999: XY/R + QM/R < 4M^2/R + M < 2M), so no carry leaves the top.
    let mut carry = 0u32;
    for i in 0..LANES * s {
        let lane = &mut z[i % s][i / s];
        let v = *lane + carry;
        *lane = v & DIGIT_MASK;
        carry = v >> DIGIT_BITS;
    }
    debug_assert_eq!(carry, 0, "the result is below 2M < r^k");
    ColumnLayout {
        vectors: z,
        digits: x.digits,
    }
}

/// `acc += x * c` in every lane (the SPE's multiply-and-add), `c` a 16-bit digit.
/// The caller guarantees the bound: lane <= 2^17 - 2 before, x and c < 2^16.
fn muladd(acc: &mut Vector, x: &Vector, c: u32) {
    for (a, &x) in acc.iter_mut().zip(x) {
        *a += x * c;
    }
}

/// Lines 9 and 15: one level of 16-bit carry propagation over the accumulator whose
/// relative vector j is `u[(base + j) % s]`. Every lane keeps its low 16 bits and
/// receives the high 16 bits of the digit below it: from the same lane of the previous
/// vector, or, for vector `base` (relative 0), from the lane below in the last vector.
///
/// Afterwards every lane is at most (2^16 - 1) + (2^16 - 1), and lane 0 of `u[base]`
/// (relative digit 0, which has no digit below it) at most 2^16 - 1.
fn propagate_carries(u: &mut [Vector], base: usize) {
    let s = u.len();
    let last = u[(base + s - 1) % s];
    // The last lane's carry would be digit 4s, past the accumulator. The accumulator's
    // value is below (3/4) r^(k+1) <= (3/4) r^(4s), and its top digit times r^(4s-1) is
    // at most that value, so the top digit is below r: its carry is zero.
    debug_assert_eq!(
        last[LANES - 1] >> DIGIT_BITS,
        0,
        "nothing leaves the top digit"
    );
    // The wrap-around of j = s-1: the carry vector shifted up one lane.
    let mut incoming: Vector = [
        0,
        last[0] >> DIGIT_BITS,
        last[1] >> DIGIT_BITS,
        last[2] >> DIGIT_BITS,
    ];
    for j in 0..s {
        let v = &mut u[(base + j) % s];
        let outgoing = v.map(|lane| lane >> DIGIT_BITS);
        for (lane, c) in v.iter_mut().zip(incoming) {
            *lane = (*lane & DIGIT_MASK) + c;
        }
        incoming = outgoing;
    }
}
