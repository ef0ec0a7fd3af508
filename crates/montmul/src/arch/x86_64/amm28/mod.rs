//! `amm28-avx2`: almost-Montgomery multiplication in radix 2^28 on AVX2 `vpmuludq`, for
//! CPUs without AVX-512 IFMA.
//!
//! Seed 004 (Koç, sec. 7) asked for an unsigned 32 x 32 -> 64-bit vector multiply and a
//! 64-bit vector add; SSE2 and AVX2 have them as `pmuludq` and `paddq`, four lanes to a
//! 256-bit register. The algorithm is seed 004's CIOS (Alg. "CIOS": one word of b, then
//! one q, per step) in the redundant form of Gueron and Krasnov, *Software
//! implementation of modular exponentiation, using advanced vector instructions
//! architectures*, WAIFI 2012 (OpenSSL's `rsaz_1024_mul_avx2`, 29-bit digits at 1024
//! bits only): digits narrower than the multiplier, so that products accumulate in
//! 64-bit lanes without carries and the carries are propagated rarely.
//!
//! Why: one `vpmuludq` does four 32 x 32-bit products. On the AVX2-only EPYC this was
//! written on (Zen 3), it issues about 2.5 of them in the time of one `mulx`, so in
//! 28-bit digits the vector unit multiplies about twice as fast as the `mulx` kernels.
//! The loop does not reach that rate, and `auto` does not pick this kernel: there it is
//! slower than `mulx-redc` up to 4096 bits and 9% faster than `karatsuba` near 8192
//! (`docs/PERFORMANCE.md` has the figures and what was tried).
//!
//! # The computation
//!
//! n has s limbs, R = 2^(64 s). Values are split into d digits of 28 bits, held one
//! per 64-bit lane; d is a multiple of 4 with 28 d >= 64 s + 2 ([`digits::shape`]).
//! The loop does d steps, each dividing by 2^28, so it divides by 2^(28 d) =
//! 2^(64 s + e); `b` is split shifted left by e bits (b 2^e < 2^(28 d) fits in the d
//! digits), and (a b 2^e + Q n) / 2^(64 s + e) is congruent to a b R^-1. Bound: with
//! a, b < n ([`Reduction::Full`]) or a, b < 2n and R > 4n ([`Reduction::Lazy`]),
//! a b 2^e < 2^(28 d) n and Q < 2^(28 d), so the result is below 2n, as after REDC;
//! the final subtraction takes n off once, with a mask, for `Full`.
//!
//! The loop (`mul::amm`) takes four digits of b a block. Its *corner*, in scalar
//! registers, computes the block's four q from the four lowest positions; its *pass*
//! then adds a b_(i+s) and n q_(i+s), s = 0..3, to every other position of the
//! accumulator, eight `vpmuludq` and eight `vpaddq` per vector of four positions:
//! the accumulator stays in place, a and n are read shifted by s digits (aligned loads
//! of four shifted copies of each, `mul::shifted`), so no lane is ever moved across the
//! register. A position gains at most 8 products below 2^56 a block; from 128 digits a
//! scalar carry pass every 16 blocks keeps every lane below 2^64 (the bound in
//! `mul::amm`).
//!
//! Words: 64. Reduction: `Full` and `Lazy`. Constant-time: yes. The loop counts and
//! every address depend on the limb count only; the digits are split and joined with
//! shifts and masks; q is computed with multiplications and masks; the final
//! subtraction is masked ([`crate::ct::reduce_once`]). Needs AVX2: the kernels are
//! handed out only in exchange for the [`Avx2`] token, which they hold. Squaring is
//! the multiplication. Exponentiation runs in the digit domain ([`exp`]).

pub mod digits;
pub mod exp;
pub mod mul;

use digits::{shape, split, DIGIT};
use mul::{amm, copy_len, init, shifted, Work};

use core::mem::MaybeUninit;

use crate::arch::cpu::Avx2;
use crate::kernel::traits::{Kernel, KernelInfo, PowDomain};
use crate::{Modulus, Reduction};

/// The `amm28-avx2` kernel.
pub struct Amm28Avx2;

/// Whether the [`Avx2`] token exists on this CPU.
pub fn is_available() -> bool {
    Avx2::new().is_some()
}

/// `out = a b R^-1 mod n` for operands of s limbs, on the stack room of one size
/// class; `n0` = -n^-1 mod 2^64.
type MulFn = unsafe fn(&[u64], &[u64], &[u64], u64, Reduction, &mut [u64]);

/// A digit-domain product on one size class's stack room ([`mul::amm`]): `out` =
/// mont'(a, b) for values of d digits, n given as its shifted copies.
type AmmFn = unsafe fn(&[u64], &[u64], &[u64], u64, &mut [u64]);

/// The product of [`Amm28`]: split, [`amm`], join, subtract once; `D` is the class's
/// largest digit count, `N` = 4 [`copy_len`]`(D)`, `T` = 2 D + 8.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
unsafe fn mul_words<const D: usize, const N: usize, const T: usize>(
    a: &[u64],
    b: &[u64],
    n: &[u64],
    n0: u64,
    red: Reduction,
    out: &mut [u64],
) {
    let s = n.len();
    let (d, e) = shape(s);
    assert!(d <= D && a.len() == s && b.len() == s && out.len() == s);
    // The class's stack room, uninitialised: only the d digits in use are written.
    // Zeroing all of it (up to 38 KiB in the largest class) cost every product as much
    // as the largest size of its class.
    let mut room = [[MaybeUninit::<u64>::uninit(); D]; 4];
    let [ad, bd, nd, z] = room.each_mut().map(|x| init(&mut x[..d], 0));
    split(a, 0, ad);
    split(b, e, bd);
    split(n, 0, nd);
    let mut n_sh = Aligned([MaybeUninit::<u64>::uninit(); N]);
    // SAFETY: the caller guarantees AVX2; `shifted` checks the lengths.
    let n_sh = unsafe { shifted(nd, &mut n_sh.0) };
    let mut work = Work::<T, N>::new();
    // SAFETY: the caller guarantees AVX2; the lengths fit the class (`CLASSES`).
    unsafe { amm(ad, bd, n_sh, n0 & DIGIT, &mut work, z) };
    finish(z, n, red, out);
}

/// Words on a 32-byte boundary, for aligned vector loads.
#[repr(C, align(32))]
struct Aligned<const N: usize>([MaybeUninit<u64>; N]);

/// `out` = the value of the digits `z` (below 2n < 2^(64 s + 1)), reduced under `red`
/// with one masked subtraction.
fn finish(z: &[u64], n: &[u64], red: Reduction, out: &mut [u64]) {
    let s = n.len();
    digits::join(z, out);
    // Bit 64 s is bit b of digit w (w < d since 28 d > 64 s); the digits above it are
    // 0, the value being below 2^(64 s + 1).
    let (w, b) = (64 * s / 28, 64 * s % 28);
    let top = z[w] >> b;
    debug_assert!(top <= 1 && z[w + 1..].iter().all(|&g| g == 0));
    match red {
        Reduction::Full => crate::ct::reduce_once(out, top, n),
        // Lazy: R > 4n, so the value is below 2n < R.
        Reduction::Lazy => debug_assert_eq!(top, 0),
    }
}

/// The kernel of one size class, as `amm28-avx2` resolves it; it holds the token.
pub(crate) struct Amm28 {
    /// The proof that the CPU has AVX2.
    token: Avx2,
    /// The largest digit count the class holds.
    max_digits: usize,
    mul: MulFn,
    amm: AmmFn,
}

/// The domain product of one class: [`amm`] on fresh stack room.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
unsafe fn amm_class<const T: usize, const N: usize>(
    a: &[u64],
    b: &[u64],
    n_sh: &[u64],
    n0: u64,
    out: &mut [u64],
) {
    // SAFETY: the caller guarantees AVX2; `amm` checks the lengths.
    unsafe { amm(a, b, n_sh, n0, &mut Work::<T, N>::new(), out) };
}

/// The token inside the statics below, handed out only in exchange for one.
const TOKEN: Avx2 = Avx2(());

/// The size classes by the digit count D they hold: values of D digits, shifted copies
/// of 4 (D + 8) words, accumulators of 2 D + 8 positions.
macro_rules! classes {
    ($($d:literal)*) => {
        [$(Amm28 {
            token: TOKEN,
            max_digits: $d,
            mul: mul_words::<$d, { 4 * copy_len($d) }, { 2 * $d + 8 }>,
            amm: amm_class::<{ 2 * $d + 8 }, { 4 * copy_len($d) }>,
        },)*]
    };
}

/// Classes up to 588 digits, 257 limbs (the largest lazy modulus).
static CLASSES: [Amm28; 5] = classes!(32 64 128 256 588);

/// The kernel for moduli of `limbs` limbs: the smallest class that holds them.
///
/// # Panics
/// When `limbs` needs more than 588 digits (more than [`crate::MAX_BITS`] bits).
pub(crate) fn for_limbs(_: Avx2, limbs: usize) -> &'static Amm28 {
    let (d, _) = shape(limbs);
    CLASSES
        .iter()
        .find(|c| c.max_digits >= d)
        .unwrap_or_else(|| panic!("{limbs} limbs: too many for amm28-avx2"))
}

static INFO: KernelInfo = KernelInfo {
    name: "amm28-avx2",
    seed: "004 app. (CIOS), sec. 7",
    summary: "word-serial Montgomery in radix 2^28 on AVX2 vpmuludq/vpaddq (Gueron-Krasnov's \
              redundant digits), four digits of b a pass over the accumulator",
    words: &[64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: is_available,
};

impl Kernel<u64> for Amm28Avx2 {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn resolve(&self, limbs: usize, _: Reduction) -> Option<&'static dyn Kernel<u64>> {
        Avx2::new().map(|token| for_limbs(token, limbs) as &'static dyn Kernel<u64>)
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        m.engine().mul_exact(m, a, b, out);
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        m.engine().sqr_exact(m, a, out);
    }
}

impl Kernel<u64> for Amm28 {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        // SAFETY: the token proves AVX2; the lengths are checked inside.
        unsafe { (self.mul)(a, b, m.n(), m.n0(), m.reduction(), out) }
    }

    /// The 28-bit digits: the ladder converts once in, once out ([`exp`]).
    fn pow_domain(&self, m: &Modulus<u64>) -> Option<Box<dyn PowDomain<u64>>> {
        Some(Box::new(exp::Digits::new(self.token, m, self.amm)))
    }
}
