//! Size-specialised Montgomery kernels for 64-bit limbs: one generic implementation,
//! instantiated through const generics for the common limb counts.
//!
//! The multiplication is CIOS (seed 004 appendix; seed 002 Alg. 2), the same algorithm
//! as [`crate::algo::cios`], on `u64` words with `u128` products, its accumulator an
//! array on the stack of exactly `N` words. With `N` a compile-time constant LLVM
//! unrolls the loops (fully for small `N`, where the whole accumulator lives in
//! registers) and drops every bounds check. The squaring is SOS-style (seed 004
//! appendix, "SOS"): the product `a^2` with each off-diagonal term once, doubled, plus
//! the diagonal ([`mpn::sqr_basecase`]), then a separate Montgomery reduction
//! ([`mpn::redc`]): `N^2 / 2 + N^2` word products instead of `2 N^2`.
//!
//! `mulx-redc` uses the same specialisation ([`mul_redc`], [`sqr`] on its rows) for the
//! same sizes.
//!
//! [`SIZES`] lists the specialised limb counts: 1 to 13 (up to 832 bits: every size
//! below `mulx-redc`'s threshold, where `auto` picks these on a CPU without AVX-512
//! IFMA), and 16, 24, 32, 48, 64 (1024 to 4096 bits) each with its `+ 1` neighbour,
//! which lazy reduction needs for a modulus of full width (R > 4n takes two extra
//! bits). Other limb counts run the same code with run-time lengths ([`Words`]).
//!
//! Words: 64 only. Reduction: `Full` and `Lazy`. Constant-time: yes (fixed loop
//! bounds, masked final subtraction).

use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::mpn::{self, AddMul, Portable};
use crate::{Modulus, Reduction};

/// The named kernel `cios-fixed`: for each modulus it resolves to the size-specialised
/// [`Fixed`] instance, or to [`Words`] for limb counts without one.
pub struct CiosFixed;

/// The CIOS multiplication and SOS squaring specialised for `N` limbs of 64 bits. A
/// modulus of another limb count is refused with it ([`Kernel::limb_counts`]).
pub struct Fixed<const N: usize>;

/// The same code as [`Fixed`] with run-time lengths, for limb counts without a
/// specialisation (the accumulator is the output itself).
pub struct Words;

static INFO: KernelInfo = KernelInfo {
    name: "cios-fixed",
    seed: "004 app. (CIOS, SOS); 002 Alg. 2",
    summary: "CIOS multiply and SOS square on 64-bit words, specialised per limb count",
    words: &[64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

/// A family of kernels with one instance per specialised size ([`SIZES`]): `cios-fixed`
/// here, `mulx-redc` on its rows.
pub(crate) trait PerSize {
    /// The instance for `N` limbs.
    fn kernel<const N: usize>(&self) -> &'static dyn Kernel<u64>;
}

macro_rules! specialised_sizes {
    ($($n:literal),*) => {
        /// Limb counts with a size-specialised instance ([`Fixed`]).
        pub const SIZES: &[usize] = &[$($n),*];

        /// The instance of `family` for `limbs` limbs, if [`SIZES`] has that count.
        pub(crate) fn at_size(family: &impl PerSize, limbs: usize) -> Option<&'static dyn Kernel<u64>> {
            match limbs {
                $($n => Some(family.kernel::<$n>()),)*
                _ => None,
            }
        }
    };
}

/// The `cios-fixed` family.
struct FixedCios;

impl PerSize for FixedCios {
    fn kernel<const N: usize>(&self) -> &'static dyn Kernel<u64> {
        &Fixed::<N>
    }
}

/// The specialised `cios-fixed` kernel for `limbs` limbs, if there is one.
pub fn specialised(limbs: usize) -> Option<&'static dyn Kernel<u64>> {
    at_size(&FixedCios, limbs)
}

specialised_sizes!(
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 24, 25, 32, 33, 48, 49, 64, 65
);

/// CIOS on words: `top * R + t = a * b * R^-1 (mod n)`, below 2n; returns `top`.
/// `t` is the accumulator (its old contents are ignored), `n.len()` words like `a`, `b`.
#[inline(always)]
fn cios(a: &[u64], b: &[u64], n: &[u64], n0: u64, t: &mut [u64]) -> u64 {
    let s = n.len();
    let (a, b, t) = (&a[..s], &b[..s], &mut t[..s]);
    t.fill(0);
    // t_hi is word s of the accumulator; word s+1 is folded in each round.
    let mut t_hi = 0u64;
    for &b_i in b {
        // t += a * b[i]: t < 2n before, so t + a b[i] < 2n + n 2^64 < 2^64 R + R.
        let c = mpn::addmul_1(t, a, b_i);
        let (t_s, t_s1) = mpn::add3(t_hi, c, 0);
        // q makes t + q n divisible by 2^64; then shift down one word.
        let q = t[0].wrapping_mul(n0);
        let (_, mut c) = mpn::mac(t[0], q, n[0], 0);
        for j in 1..s {
            (t[j - 1], c) = mpn::mac(t[j], q, n[j], c);
        }
        let (lo, hi) = mpn::add3(t_s, c, 0);
        t[s - 1] = lo;
        // (t + a b[i] + q n) / 2^64 < 2n < 2R, so word s+1 after the shift is 0/1.
        t_hi = t_s1 + hi;
    }
    t_hi
}

/// `a * b * R^-1 mod n` for `N`-limb operands (below n, or 2n with lazy reduction),
/// R = 2^(64 N).
pub fn mul<const N: usize>(
    a: &[u64; N],
    b: &[u64; N],
    n: &[u64; N],
    n0: u64,
    reduction: Reduction,
) -> [u64; N] {
    let mut t = [0u64; N];
    let top = cios(a, b, n, n0, &mut t);
    mpn::finish(&mut t, top, n, reduction);
    t
}

/// `a^2 * R^-1 mod n` for an `N`-limb operand: SOS squaring, then REDC, on rows `R`.
pub fn sqr<R: AddMul, const N: usize>(
    rows: R,
    a: &[u64; N],
    n: &[u64; N],
    n0: u64,
    reduction: Reduction,
) -> [u64; N] {
    // 2N words as two N-word halves (stable Rust has no `[u64; 2 * N]`).
    let mut wide = [[0u64; N]; 2];
    let wide = wide.as_flattened_mut();
    mpn::sqr_basecase(rows, wide, a);
    let mut out = [0u64; N];
    // a < 2n (lazy) gives a^2 < 4n^2 < nR since R > 4n; a < n (full) gives a^2 < nR.
    let top = rows.redc(wide, n, n0, &mut out);
    mpn::finish(&mut out, top, n, reduction);
    out
}

/// `a * b * R^-1 mod n` for `N`-limb operands: schoolbook product, then REDC, on rows
/// `R` (the separated form; [`mul`] is the interleaved one).
pub fn mul_redc<R: AddMul, const N: usize>(
    rows: R,
    a: &[u64; N],
    b: &[u64; N],
    n: &[u64; N],
    n0: u64,
    reduction: Reduction,
) -> [u64; N] {
    let mut wide = [[0u64; N]; 2];
    let wide = wide.as_flattened_mut();
    rows.mul_basecase(wide, a, b);
    let mut out = [0u64; N];
    // Inputs below n (full) or 2n with R > 4n (lazy): the product is below n R.
    let top = rows.redc(wide, n, n0, &mut out);
    mpn::finish(&mut out, top, n, reduction);
    out
}

/// `x` as exactly `N` words.
///
/// # Panics
/// When `x` has not `N` words: a kernel specialised for `N` limbs called directly with
/// a modulus of another size (a [`Modulus`] built with it has `N` limbs, and
/// [`Kernel::mul`] checks the operands against the modulus).
#[inline(always)]
pub(crate) fn words<const N: usize>(x: &[u64]) -> &[u64; N] {
    x.try_into()
        .unwrap_or_else(|_| panic!("{} words for a kernel of {N}", x.len()))
}

/// [`words`], writable.
///
/// # Panics
/// As [`words`].
#[inline(always)]
pub(crate) fn words_mut<const N: usize>(x: &mut [u64]) -> &mut [u64; N] {
    let len = x.len();
    x.try_into()
        .unwrap_or_else(|_| panic!("{len} words for a kernel of {N}"))
}

impl<const N: usize> Kernel<u64> for Fixed<N> {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn limb_counts(&self) -> Option<&'static [usize]> {
        Some(const { &[N] })
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        let (n, n0, red) = (words::<N>(m.n()), m.n0(), m.reduction());
        *words_mut::<N>(out) = mul(words(a), words(b), n, n0, red);
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        let (n, n0, red) = (words::<N>(m.n()), m.n0(), m.reduction());
        *words_mut::<N>(out) = sqr(Portable, words(a), n, n0, red);
    }
}

impl Kernel<u64> for Words {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        // The accumulator is `out` itself: `a` and `b` cannot alias it.
        let n = m.n();
        let top = cios(a, b, n, m.n0(), out);
        mpn::finish(out, top, n, m.reduction());
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        let n = m.n();
        mpn::mont_separated(Portable, n, m.n0(), m.reduction(), 0, out, |wide, _| {
            mpn::sqr_basecase(Portable, wide, a)
        });
    }
}

impl Kernel<u64> for CiosFixed {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn resolve(&self, limbs: usize, _: Reduction) -> Option<&'static dyn Kernel<u64>> {
        Some(specialised(limbs).unwrap_or(&Words))
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        m.engine().mul_exact(m, a, b, out);
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        m.engine().sqr_exact(m, a, out);
    }
}
