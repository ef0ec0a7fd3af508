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
//! [`FixedMulx`] is the same specialisation of `mulx-redc`
//! ([`crate::simd::mulx::MulxRedc`]): the schoolbook product and REDC on
//! `mulx`/`adcx`/`adox` rows, on stack arrays, for the same sizes.
//!
//! [`SIZES`] lists the specialised limb counts: 1 to 9, and 12, 16, 24, 32, 48, 64
//! (256 to 4096 bits) each with its `+ 1` neighbour, which lazy reduction needs for a
//! modulus of full width (R > 4n takes two extra bits). Other limb counts run the same
//! code with run-time lengths ([`Words`]).
//!
//! Words: 64 only (the kernels fall back to [`crate::algo::cios`] when instantiated for
//! another limb type). Reduction: `Full` and `Lazy`. Constant-time: yes (fixed loop
//! bounds, masked final subtraction).

use core::any::Any;

use crate::algo::cios::Cios;
use crate::kernel::{portable, Kernel, KernelInfo};
use crate::mpn::{self, AddMul, Portable};
use crate::simd::mulx::{Mulx, MulxRedc};
use crate::{Limb, Modulus, Reduction};

/// The named kernel `cios-fixed`: for each modulus it resolves to the size-specialised
/// [`Fixed`] instance, or to [`Words`] for limb counts without one.
pub struct CiosFixed;

/// The CIOS multiplication and SOS squaring specialised for `N` limbs of 64 bits.
pub struct Fixed<const N: usize>;

/// The schoolbook product and REDC (and the SOS squaring and REDC) on
/// `mulx`/`adcx`/`adox` rows, specialised for `N` limbs of 64 bits: what `mulx-redc`
/// resolves to at the sizes of [`SIZES`].
pub struct FixedMulx<const N: usize>;

/// The same code as [`Fixed`] with run-time lengths, for limb counts without a
/// specialisation (operands are copied to 64-bit words on the stack).
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

macro_rules! specialised_sizes {
    ($($n:literal),*) => {
        /// Limb counts with a size-specialised instance ([`Fixed`]).
        pub const SIZES: &[usize] = &[$($n),*];

        /// The specialised `cios-fixed` kernel for `limbs` limbs, if there is one.
        pub fn specialised<L: Limb>(limbs: usize) -> Option<&'static dyn Kernel<L>> {
            match limbs {
                $($n => Some(&Fixed::<$n>),)*
                _ => None,
            }
        }

        /// The specialised `mulx-redc` kernel for `limbs` limbs, if there is one.
        pub fn specialised_mulx<L: Limb>(limbs: usize) -> Option<&'static dyn Kernel<L>> {
            match limbs {
                $($n => Some(&FixedMulx::<$n>),)*
                _ => None,
            }
        }
    };
}

specialised_sizes!(1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 25, 32, 33, 48, 49, 64, 65);

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
    a: &[u64; N],
    n: &[u64; N],
    n0: u64,
    reduction: Reduction,
) -> [u64; N] {
    // 2N words as two N-word halves (stable Rust has no `[u64; 2 * N]`).
    let mut wide = [[0u64; N]; 2];
    let wide = wide.as_flattened_mut();
    mpn::sqr_basecase::<R>(wide, a);
    let mut out = [0u64; N];
    // a < 2n (lazy) gives a^2 < 4n^2 < nR since R > 4n; a < n (full) gives a^2 < nR.
    let top = mpn::redc::<R>(wide, n, n0, &mut out);
    mpn::finish(&mut out, top, n, reduction);
    out
}

/// `a * b * R^-1 mod n` for `N`-limb operands: schoolbook product, then REDC, on rows
/// `R` (the separated form; [`mul`] is the interleaved one).
pub fn mul_redc<R: AddMul, const N: usize>(
    a: &[u64; N],
    b: &[u64; N],
    n: &[u64; N],
    n0: u64,
    reduction: Reduction,
) -> [u64; N] {
    let mut wide = [[0u64; N]; 2];
    let wide = wide.as_flattened_mut();
    mpn::mul_basecase::<R>(wide, a, b);
    let mut out = [0u64; N];
    // Inputs below n (full) or 2n with R > 4n (lazy): the product is below n R.
    let top = mpn::redc::<R>(wide, n, n0, &mut out);
    mpn::finish(&mut out, top, n, reduction);
    out
}

/// `x` as exactly `N` 64-bit words, when `L` is `u64` and the length is `N`.
#[inline(always)]
pub(crate) fn as_words<L: Limb, const N: usize>(x: &[L]) -> Option<&[u64; N]> {
    let x: &[L; N] = x.try_into().ok()?;
    (x as &dyn Any).downcast_ref()
}

/// `x` as exactly `N` 64-bit words, writable, when `L` is `u64` and the length is `N`.
#[inline(always)]
pub(crate) fn as_words_mut<L: Limb, const N: usize>(x: &mut [L]) -> Option<&mut [u64; N]> {
    let x: &mut [L; N] = x.try_into().ok()?;
    (x as &mut dyn Any).downcast_mut()
}

/// Runs `f(a, b, n)` on the operands as `N` 64-bit words and stores its result in
/// `out`. Returns false, doing nothing, when `L` is not `u64` or the lengths are not `N`
/// (the kernel was resolved for another modulus).
#[inline(always)]
fn on_words<L: Limb, const N: usize>(
    m: &Modulus<L>,
    a: &[L],
    b: &[L],
    out: &mut [L],
    f: impl FnOnce(&[u64; N], &[u64; N], &[u64; N]) -> [u64; N],
) -> bool {
    match (
        as_words::<L, N>(a),
        as_words::<L, N>(b),
        as_words::<L, N>(m.n()),
        as_words_mut::<L, N>(out),
    ) {
        (Some(a), Some(b), Some(n), Some(out)) => {
            *out = f(a, b, n);
            true
        }
        _ => false,
    }
}

impl<L: Limb, const N: usize> Kernel<L> for Fixed<N> {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let (n0, red) = (m.n0().to_u64(), m.reduction());
        if !on_words::<L, N>(m, a, b, out, |a, b, n| mul(a, b, n, n0, red)) {
            Cios.mul(m, a, b, out);
        }
    }

    fn sqr(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        let (n0, red) = (m.n0().to_u64(), m.reduction());
        if !on_words::<L, N>(m, a, a, out, |a, _, n| sqr::<Portable, N>(a, n, n0, red)) {
            Cios.sqr(m, a, out);
        }
    }
}

impl<L: Limb, const N: usize> Kernel<L> for FixedMulx<N> {
    fn info(&self) -> &'static KernelInfo {
        Kernel::<L>::info(&MulxRedc)
    }

    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let (n0, red) = (m.n0().to_u64(), m.reduction());
        if !on_words::<L, N>(m, a, b, out, |a, b, n| {
            mul_redc::<Mulx, N>(a, b, n, n0, red)
        }) {
            Cios.mul(m, a, b, out);
        }
    }

    fn sqr(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        let (n0, red) = (m.n0().to_u64(), m.reduction());
        if !on_words::<L, N>(m, a, a, out, |a, _, n| sqr::<Mulx, N>(a, n, n0, red)) {
            Cios.sqr(m, a, out);
        }
    }
}

impl<L: Limb> Kernel<L> for Words {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        if L::BITS != 64 {
            return Cios.mul(m, a, b, out);
        }
        let s = m.limbs();
        mpn::with_scratch(4 * s, |buf| {
            let (aw, rest) = buf.split_at_mut(s);
            let (bw, rest) = rest.split_at_mut(s);
            let (nw, t) = rest.split_at_mut(s);
            mpn::load(aw, a);
            mpn::load(bw, b);
            mpn::load(nw, m.n());
            let t = &mut t[..s];
            let top = cios(aw, bw, nw, m.n0().to_u64(), t);
            mpn::finish(t, top, nw, m.reduction());
            mpn::store(out, t);
        });
    }

    fn sqr(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        if L::BITS != 64 {
            return Cios.sqr(m, a, out);
        }
        let s = m.limbs();
        mpn::with_scratch(5 * s, |buf| {
            let (aw, rest) = buf.split_at_mut(s);
            let (nw, rest) = rest.split_at_mut(s);
            let (wide, rest) = rest.split_at_mut(2 * s);
            let t = &mut rest[..s];
            mpn::load(aw, a);
            mpn::load(nw, m.n());
            mpn::sqr_basecase::<Portable>(wide, aw);
            let top = mpn::redc::<Portable>(wide, nw, m.n0().to_u64(), t);
            mpn::finish(t, top, nw, m.reduction());
            mpn::store(out, t);
        });
    }
}

impl<L: Limb> Kernel<L> for CiosFixed {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn resolve(&self, limbs: usize) -> Option<&'static dyn Kernel<L>> {
        Some(specialised::<L>(limbs).unwrap_or(&Words))
    }

    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        let k: &dyn Kernel<L> = specialised::<L>(m.limbs()).unwrap_or(&Words);
        k.mul(m, a, b, out);
    }

    fn sqr(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        let k: &dyn Kernel<L> = specialised::<L>(m.limbs()).unwrap_or(&Words);
        k.sqr(m, a, out);
    }
}
