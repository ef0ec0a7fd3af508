//! Constant-time exponentiation in the 28-bit digit domain of `amm28-avx2`.
//!
//! As for `amm52-ifma` (`avx512ifma::exp`): the fixed-window ladder of [`crate::exp`]
//! runs on padded digit values from the first product to the last, so that only the
//! base and the result are converted, and each product in between is the kernel's loop
//! and its carry pass: no split, no join, no subtraction.
//!
//! # The digit domain
//!
//! n has s limbs, R = 2^(64 s); the domain uses the kernel's d digits
//! ([`super::digits::shape`]) and R' = 2^(28 d) = R 2^e, R' > 4n. Its product
//! mont'(x, y) = x y R'^-1 mod n is lazy: for x, y < 2n, (x y + Q n) / R' < 4n^2 / R' +
//! n < 2n, so every value stays in [0, 2n) (d digits, each below 2^28) and nothing is
//! subtracted inside the ladder. phi(x) = x 2^e mod n takes montmul's Montgomery form
//! to the domain's and commutes with the product; the constants
//! ([`crate::arch::x86_64::domain::scaled_ones`]):
//!
//! - in: phi(b) = mont'(b, C_in) with C_in = R 2^(2e) mod n;
//! - one: R 2^e mod n = R' mod n;
//! - out: mont'(phi(z), R mod n) = z mod n, below 2n; for
//!   [`Reduction::Full`](crate::Reduction::Full) one masked subtraction brings it below
//!   n.
//!
//! Table reads are masked copies of whole values (padding included), the trace is the
//! limb ladder's: constant-time as [`crate::exp::pow`].

use super::digits::{shape, split, DIGIT};
use super::mul::{copy_len, shifted};
use super::{finish, AmmFn};
use crate::arch::cpu::Avx2;
use crate::arch::x86_64::domain::scaled_ones;
use crate::kernel::traits::PowDomain;
use crate::{Modulus, Reduction};
use core::mem::MaybeUninit;
use zeroize::Zeroize;

/// The digit domain of one modulus: n's shifted copies, the constants of the module
/// doc and the product of its size class. Values are d digits below 2^28. Built with
/// the [`Avx2`] token, which it holds.
pub(super) struct Digits {
    /// The proof that the CPU has AVX2.
    _token: Avx2,
    /// The policy of the modulus, for the way out.
    reduction: Reduction,
    /// Digits d.
    d: usize,
    /// n's four shifted copies ([`shifted`]), on a 32-byte boundary.
    n_sh: Vec<Lanes>,
    /// n as s limbs (for the final subtraction).
    n_words: Vec<u64>,
    /// -n^-1 mod 2^28.
    n0: u64,
    /// R' mod n: the domain's 1.
    one: Vec<u64>,
    /// C_in = R 2^(2e) mod n.
    c_in: Vec<u64>,
    /// R mod n.
    r1: Vec<u64>,
    amm: AmmFn,
}

impl Digits {
    /// The domain of the modulus `m`, on the class product `amm`.
    pub(super) fn new(token: Avx2, m: &Modulus<u64>, amm: AmmFn) -> Self {
        let n = m.n();
        let (d, e) = shape(n.len());
        let (one, c_in) = scaled_ones(m, e);
        let digits = |x: &[u64]| {
            let mut out = vec![0; d];
            split(x, 0, &mut out);
            out
        };
        let mut n_sh = vec![Lanes([0; 4]); copy_len(d)];
        let words = Lanes::words_mut(&mut n_sh);
        // SAFETY: the token proves AVX2; `shifted` writes only initialised words into
        // the view of `words` it takes (`MaybeUninit<u64>` has the layout of `u64`).
        unsafe {
            let view = &mut *(words as *mut [u64] as *mut [MaybeUninit<u64>]);
            shifted(&digits(n), view);
        }
        Digits {
            _token: token,
            reduction: m.reduction(),
            d,
            n_sh,
            n_words: n.to_vec(),
            n0: m.n0() & DIGIT,
            one: digits(&one),
            c_in: digits(&c_in),
            r1: digits(m.r1()),
            amm,
        }
    }
}

/// Four words on a 32-byte boundary.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Lanes([u64; 4]);

impl Lanes {
    /// The words of `v`, in order.
    fn words(v: &[Lanes]) -> &[u64] {
        // SAFETY: `Lanes` is `repr(C)` over [u64; 4], 32 bytes with no padding, so `v`
        // is 4 len(v) initialised words.
        unsafe { core::slice::from_raw_parts(v.as_ptr().cast::<u64>(), 4 * v.len()) }
    }

    /// The words of `v`, in order.
    fn words_mut(v: &mut [Lanes]) -> &mut [u64] {
        // SAFETY: as in `words`; the borrow of `v` is exclusive.
        unsafe { core::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u64>(), 4 * v.len()) }
    }
}

/// The constants of a secret modulus (RSA's p and q) are wiped with the domain.
impl Drop for Digits {
    fn drop(&mut self) {
        Lanes::words_mut(&mut self.n_sh).zeroize();
        for v in [
            &mut self.n_words,
            &mut self.one,
            &mut self.c_in,
            &mut self.r1,
        ] {
            v.zeroize();
        }
        self.n0.zeroize();
    }
}

impl PowDomain<u64> for Digits {
    fn words(&self) -> usize {
        self.d
    }

    /// One value.
    fn scratch_words(&self) -> usize {
        self.d
    }

    fn one(&self, out: &mut [u64]) {
        out.copy_from_slice(&self.one);
    }

    /// phi(x) = mont'(x, C_in).
    fn enter(&self, x: &[u64], out: &mut [u64], scratch: &mut [u64]) {
        let digits = &mut scratch[..self.d];
        split(x, 0, digits);
        self.mul(digits, &self.c_in, out);
    }

    /// mont'(y, R mod n), below 2n, then the policy's finish.
    fn leave(&self, y: &[u64], out: &mut [u64], scratch: &mut [u64]) {
        let z = &mut scratch[..self.d];
        self.mul(y, &self.r1, z);
        finish(z, &self.n_words, self.reduction, out);
    }

    /// The product: a dedicated square (each a_j a_r once, doubled) measured no
    /// faster (`docs/PERFORMANCE.md`).
    fn sqr(&self, a: &[u64], out: &mut [u64]) {
        self.mul(a, a, out);
    }

    fn mul(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        // SAFETY: the token proves AVX2; every value is d digits below 2^28 (`amm`
        // checks the lengths); the values are below 2n, so the result is.
        unsafe { (self.amm)(a, b, Lanes::words(&self.n_sh), self.n0, out) };
    }
}
