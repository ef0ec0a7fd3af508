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
//! base case ([`mpn::mul_basecase`], [`mpn::sqr_basecase`]) below a measured size
//! ([`Thresholds`]). The full `2s`-word product is then reduced by REDC
//! ([`mpn::redc`]). Every row runs on [`Mulx`]: `mulx`/`adcx`/`adox` where the CPU has
//! them, portable Rust elsewhere.
//!
//! Words: 64 (operands are copied to 64-bit words; for other limb types the kernel
//! falls back to [`crate::algo::cios`]). Reduction: `Full` and `Lazy`. Constant-time:
//! yes. The signs of `a0 - a1` and `b1 - b0` are applied with masks (masked negation and
//! a masked add-or-subtract of the middle product), never with branches; the recursion
//! depends on lengths only.

use crate::algo::cios::Cios;
use crate::dispatch::Thresholds;
use crate::kernel::{portable, Kernel, KernelInfo};
use crate::mpn::{self, AddMul};
use crate::simd::mulx::Mulx;
use crate::{thresholds, Limb, Modulus, Reduction};

/// The Karatsuba + REDC kernel.
pub struct Karatsuba;

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
pub fn product<R: AddMul>(r: &mut [u64], a: &[u64], b: &[u64], base: usize, scratch: &mut [u64]) {
    let n = a.len();
    if n < base.max(2) {
        mpn::mul_basecase::<R>(r, a, b);
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
        product::<R>(r0, a0, b0, base, rest);
        product::<R>(r2, a1, b1, base, rest);
    }
    // (a0 - a1)(b1 - b0) = |a0 - a1| |b1 - b0| with sign sa ^ sb.
    let sa = abs_diff(da, a0, a1);
    let sb = abs_diff(db, b1, b0);
    product::<R>(p, da, db, base, rest);
    add_middle(r, l, p, sa ^ sb, mid);
}

/// `r = a^2` (`r.len() == 2 * a.len()`), Karatsuba down to the schoolbook squaring
/// below `base` words: `2 a0 a1 = a0^2 + a1^2 - (a0 - a1)^2`.
pub fn square<R: AddMul>(r: &mut [u64], a: &[u64], base: usize, scratch: &mut [u64]) {
    let n = a.len();
    if n < base.max(2) {
        mpn::sqr_basecase::<R>(r, a);
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
        square::<R>(r0, a0, base, rest);
        square::<R>(r2, a1, base, rest);
    }
    abs_diff(da, a0, a1);
    square::<R>(p, da, base, rest);
    add_middle(r, l, p, 1, mid);
}

/// The Montgomery product (or square, when `b` is `None`) with explicit recursion
/// thresholds (`usize::MAX`: schoolbook only): what the kernels run, and what
/// `montmul tune` times. Limbs other than 64 bits go to CIOS.
pub fn mont_mul_with<L: Limb>(
    th: &Thresholds,
    m: &Modulus<L>,
    a: &[L],
    b: Option<&[L]>,
    out: &mut [L],
) {
    if L::BITS != 64 {
        return match b {
            Some(b) => Cios.mul(m, a, b, out),
            None => Cios.sqr(m, a, out),
        };
    }
    let s = m.limbs();
    let base = match b {
        Some(_) => th.karatsuba_mul_base,
        None => th.karatsuba_sqr_base,
    };
    mpn::with_scratch(6 * s + scratch_len(s, base), |buf| {
        let (aw, rest) = buf.split_at_mut(s);
        let (bw, rest) = rest.split_at_mut(s);
        let (nw, rest) = rest.split_at_mut(s);
        let (wide, rest) = rest.split_at_mut(2 * s);
        let (t, scratch) = rest.split_at_mut(s);
        mpn::load(aw, a);
        mpn::load(nw, m.n());
        match b {
            Some(b) => {
                mpn::load(bw, b);
                product::<Mulx>(wide, aw, bw, base, scratch);
            }
            None => square::<Mulx>(wide, aw, base, scratch),
        }
        // Inputs below n (full) or 2n with R > 4n (lazy): the product is below n R.
        let top = mpn::redc::<Mulx>(wide, nw, m.n0().to_u64(), t);
        mpn::finish(t, top, nw, m.reduction());
        mpn::store(out, t);
    });
}

impl<L: Limb> Kernel<L> for Karatsuba {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        mont_mul_with(&thresholds::TUNED, m, a, Some(b), out);
    }

    fn sqr(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        mont_mul_with(&thresholds::TUNED, m, a, None, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpn::Portable;

    /// The Karatsuba product and square equal the schoolbook ones at every length and
    /// recursion base, on all-ones words and on a pseudo-random pattern.
    #[test]
    fn karatsuba_equals_schoolbook() {
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
                    mpn::mul_basecase::<Portable>(&mut want, &a, &b);
                    product::<Portable>(&mut got, &a, &b, base, &mut scratch);
                    assert_eq!(got, want, "product n {n} base {base} pattern {pattern}");
                    product::<Mulx>(&mut got, &a, &b, base, &mut scratch);
                    assert_eq!(
                        got, want,
                        "mulx product n {n} base {base} pattern {pattern}"
                    );
                    mpn::mul_basecase::<Portable>(&mut want, &a, &a);
                    square::<Portable>(&mut got, &a, base, &mut scratch);
                    assert_eq!(got, want, "square n {n} base {base} pattern {pattern}");
                    square::<Mulx>(&mut got, &a, base, &mut scratch);
                    assert_eq!(got, want, "mulx square n {n} base {base} pattern {pattern}");
                }
            }
        }
    }
}
