//! Karatsuba product followed by Montgomery reduction: the separated approach for large
//! operands.
//!
//! Seed 001 (Bos et al.), "future work": Karatsuba multiplication combined with
//! Montgomery reduction; it is how GMP multiplies modulo large odd numbers
//! (`mpn_mul` with `MUL_TOOM22_THRESHOLD`, then `mpn_redc_1`). Karatsuba and Ofman
//! (1962), in the subtractive form (Knuth, TAOCP vol. 2, 4.3.3): with
//! `a = a0 + a1 X`, `b = b0 + b1 X`,
//!
//! `a b = a0 b0 + (a0 b0 + a1 b1 + (a0 - a1)(b1 - b0)) X + a1 b1 X^2`,
//!
//! three half-size products instead of four, applied recursively down to the schoolbook
//! base case (the rows' [`AddMul::mul_basecase`], [`mpn::sqr_basecase`]) below a
//! measured size (`crate::thresholds`). The full `2s`-word product is then reduced by
//! REDC ([`mpn::redc`]). Every row runs on [`Mulx`] (`mulx`/`adcx`/`adox`) where the
//! [`Adx`] token exists, chosen once per modulus, on [`Portable`] rows elsewhere.
//!
//! Words: 64. Reduction: `Full` and `Lazy`. Constant-time:
//! yes. The signs of `a0 - a1` and `b1 - b0` are applied with masks (masked negation and
//! a masked add-or-subtract of the middle product), never with branches; the recursion
//! depends on lengths only.

use std::sync::OnceLock;

use crate::arch::{Adx, Mulx};
use crate::kernel::traits::{portable, Kernel, KernelInfo};
use crate::mpn::{self, AddMul, Portable};
use crate::{thresholds, Modulus, Reduction};

/// The named Karatsuba + REDC kernel: for each modulus it resolves to
/// [`KaratsubaRows`] on [`Mulx`] rows where the [`Adx`] token exists, on [`Portable`]
/// rows elsewhere.
pub struct Karatsuba;

/// The Karatsuba + REDC kernel on the rows `R`, with the tuned recursion bases
/// ([`crate::thresholds::TUNED`]).
pub struct KaratsubaRows<R: AddMul>(pub R);

/// The portable instance.
static PORTABLE: KaratsubaRows<Portable> = KaratsubaRows(Portable);

static INFO: KernelInfo = KernelInfo {
    name: "karatsuba",
    seed: "001 future work",
    summary: "separated: Karatsuba product (schoolbook below a tuned size), then REDC",
    words: &[64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: portable,
};

/// Scratch words [`product`] and [`square`] need for `n`-word operands with
/// recursion base `base`.
pub fn scratch_len(n: usize, base: usize) -> usize {
    if n < base.max(2) {
        0
    } else {
        let h = n - n / 2;
        // |a0 - a1|, |b1 - b0|, their product, and the middle sum, then the recursion.
        6 * h + 1 + scratch_len(h, base)
    }
}

/// `d = |x - y|` over `d.len()` words (`x`, `y` zero-extended); returns 1 when
/// `x < y`. Constant-time: the difference is negated under a mask.
fn abs_diff(d: &mut [u64], x: &[u64], y: &[u64]) -> u64 {
    let mut borrow = 0u64;
    for (j, d_j) in d.iter_mut().enumerate() {
        let (d1, b1) = x
            .get(j)
            .copied()
            .unwrap_or(0)
            .overflowing_sub(y.get(j).copied().unwrap_or(0));
        let (d2, b2) = d1.overflowing_sub(borrow);
        *d_j = d2;
        borrow = (b1 | b2) as u64;
    }
    // Two's complement negation when negative: (d ^ mask) + 1.
    let mask = core::hint::black_box(borrow.wrapping_neg());
    let mut c = borrow;
    for d_j in d.iter_mut() {
        (*d_j, c) = mpn::add3(*d_j ^ mask, c, 0);
    }
    borrow
}

/// `r[l..] += z0 + z2 - (-1)^negative * p` where `z0 = r[..2l]`, `z2 = r[2l..]`: the
/// middle term of Karatsuba, built in `mid` (`2h + 1` words) first.
fn add_middle(r: &mut [u64], l: usize, p: &[u64], negative: u64, mid: &mut [u64]) {
    let h2 = p.len();
    let (z0, z2) = r.split_at(2 * l);
    let carry = mpn::add_n(&mut mid[..h2], z0, z2);
    mid[h2] = carry;
    // mid += p or mid -= p, as mid + (p ^ mask) + negative over 2h+1 words (p's
    // extension word is the mask itself). The true middle term is a0 b1 + a1 b0 >= 0
    // and below 2^(64(2h+1)), so the wrap-around sum is exact.
    let mask = core::hint::black_box(negative.wrapping_neg());
    let mut c = negative;
    for (j, m_j) in mid.iter_mut().enumerate() {
        let p_j = p.get(j).copied().unwrap_or(0) ^ mask;
        (*m_j, c) = mpn::add3(*m_j, p_j, c);
    }
    // The whole product fits in r, so nothing carries out of it.
    let c = mpn::add_assign(&mut r[l..], mid);
    debug_assert_eq!(c, 0);
}

/// `r = a * b` for equal-length `a`, `b` (`r.len() == 2 * a.len()`), Karatsuba down to
/// the schoolbook below `base` words; `scratch` has [`scratch_len`] words.
pub fn product<R: AddMul>(
    rows: R,
    r: &mut [u64],
    a: &[u64],
    b: &[u64],
    base: usize,
    scratch: &mut [u64],
) {
    let n = a.len();
    if n < base.max(2) {
        rows.mul_basecase(r, a, b);
        return;
    }
    let l = n / 2;
    let h = n - l;
    let (a0, a1) = a.split_at(l);
    let (b0, b1) = b.split_at(l);
    let (da, rest) = scratch.split_at_mut(h);
    let (db, rest) = rest.split_at_mut(h);
    let (p, rest) = rest.split_at_mut(2 * h);
    let (mid, rest) = rest.split_at_mut(2 * h + 1);
    {
        let (r0, r2) = r.split_at_mut(2 * l);
        product(rows, r0, a0, b0, base, rest);
        product(rows, r2, a1, b1, base, rest);
    }
    // (a0 - a1)(b1 - b0) = |a0 - a1| |b1 - b0| with sign sa ^ sb.
    let sa = abs_diff(da, a0, a1);
    let sb = abs_diff(db, b1, b0);
    product(rows, p, da, db, base, rest);
    add_middle(r, l, p, sa ^ sb, mid);
}

/// `r = a^2` (`r.len() == 2 * a.len()`), Karatsuba down to the schoolbook squaring
/// below `base` words: `2 a0 a1 = a0^2 + a1^2 - (a0 - a1)^2`.
pub fn square<R: AddMul>(rows: R, r: &mut [u64], a: &[u64], base: usize, scratch: &mut [u64]) {
    let n = a.len();
    if n < base.max(2) {
        mpn::sqr_basecase(rows, r, a);
        return;
    }
    let l = n / 2;
    let h = n - l;
    let (a0, a1) = a.split_at(l);
    let (da, rest) = scratch.split_at_mut(h);
    let (_, rest) = rest.split_at_mut(h);
    let (p, rest) = rest.split_at_mut(2 * h);
    let (mid, rest) = rest.split_at_mut(2 * h + 1);
    {
        let (r0, r2) = r.split_at_mut(2 * l);
        square(rows, r0, a0, base, rest);
        square(rows, r2, a1, base, rest);
    }
    abs_diff(da, a0, a1);
    square(rows, p, da, base, rest);
    add_middle(r, l, p, 1, mid);
}

/// The Montgomery product `out = a b R^-1 mod n` on the rows `rows`: Karatsuba down
/// to the schoolbook below `base` words ([`product`]), then REDC. What the kernel runs,
/// and what `montmul tune` times with other bases.
pub fn mont_mul<R: AddMul>(
    rows: R,
    base: usize,
    m: &Modulus<u64>,
    a: &[u64],
    b: &[u64],
    out: &mut [u64],
) {
    let (n, s) = (m.n(), m.limbs());
    mpn::mont_separated(
        rows,
        n,
        m.n0(),
        m.reduction(),
        scratch_len(s, base),
        out,
        |wide, scratch| product(rows, wide, &a[..s], &b[..s], base, scratch),
    );
}

/// The Montgomery square `out = a^2 R^-1 mod n` on the rows `rows`: Karatsuba down to
/// the schoolbook squaring below `base` words ([`square`]), then REDC.
pub fn mont_sqr<R: AddMul>(rows: R, base: usize, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
    let (n, s) = (m.n(), m.limbs());
    mpn::mont_separated(
        rows,
        n,
        m.n0(),
        m.reduction(),
        scratch_len(s, base),
        out,
        |wide, scratch| square(rows, wide, &a[..s], base, scratch),
    );
}

impl Kernel<u64> for Karatsuba {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn resolve(&self, _: usize, _: Reduction) -> Option<&'static dyn Kernel<u64>> {
        Some(match Adx::new() {
            Some(adx) => {
                static ON_MULX: OnceLock<KaratsubaRows<Mulx>> = OnceLock::new();
                ON_MULX.get_or_init(|| KaratsubaRows(Mulx::new(adx)))
            }
            None => &PORTABLE,
        })
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        m.engine().mul_exact(m, a, b, out);
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        m.engine().sqr_exact(m, a, out);
    }
}

impl<R: AddMul + Send + Sync> Kernel<u64> for KaratsubaRows<R> {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        mont_mul(self.0, thresholds::TUNED.karatsuba_mul_base, m, a, b, out);
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        mont_sqr(self.0, thresholds::TUNED.karatsuba_sqr_base, m, a, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Karatsuba product and square equal the schoolbook ones at every length and
    /// recursion base, on all-ones words and on a pseudo-random pattern.
    #[test]
    fn karatsuba_equals_schoolbook() {
        let mulx = Adx::new().map(Mulx::new);
        if mulx.is_none() {
            montmul_testkit::skipped!(
                "SKIPPED: karatsuba_equals_schoolbook: the mulx rows (no BMI2 or ADX)"
            );
        }
        let mut x = 0x243f_6a88_85a3_08d3u64;
        for n in 1..=40 {
            for base in [2, 3, 4, 8, 17] {
                for pattern in 0..3 {
                    let mut gen = |_| {
                        x = x.rotate_left(23).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 7;
                        [u64::MAX, x, x & 0xffff_0000_0000_ffff][pattern]
                    };
                    let a: Vec<u64> = (0..n).map(&mut gen).collect();
                    let b: Vec<u64> = (0..n).map(&mut gen).collect();
                    let mut scratch = vec![0u64; scratch_len(n, base)];
                    let (mut want, mut got) = (vec![0u64; 2 * n], vec![0u64; 2 * n]);
                    mpn::mul_basecase(Portable, &mut want, &a, &b);
                    product(Portable, &mut got, &a, &b, base, &mut scratch);
                    assert_eq!(got, want, "product n {n} base {base} pattern {pattern}");
                    if let Some(rows) = mulx {
                        product(rows, &mut got, &a, &b, base, &mut scratch);
                        assert_eq!(got, want, "mulx product n {n} base {base} {pattern}");
                    }
                    mpn::mul_basecase(Portable, &mut want, &a, &a);
                    square(Portable, &mut got, &a, base, &mut scratch);
                    assert_eq!(got, want, "square n {n} base {base} pattern {pattern}");
                    if let Some(rows) = mulx {
                        square(rows, &mut got, &a, base, &mut scratch);
                        assert_eq!(got, want, "mulx square n {n} base {base} {pattern}");
                    }
                }
            }
        }
    }
}
