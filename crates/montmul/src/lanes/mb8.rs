//! The lanes engine `Mb8`: a batch of 64-bit residues whose moduli have one limb
//! count, run by the 8-lane multi-buffer kernel `amm52x8-ifma`
//! ([`crate::arch::x86_64::avx512ifma::mb8`], exponentiation in
//! [`crate::arch::x86_64::avx512ifma::mb8_exp`]). The unused lanes of a partial batch
//! repeat the first lane's modulus with base 0 and exponent 0 (the lane count is
//! public), so a batch of k costs what a batch of 8 does: [`MB8_MIN_LANES`] says from
//! how many lanes that is faster than the jobs one by one.

use super::{Engine, Sequential};
use crate::arch::x86_64::avx512ifma::mb8::{LaneModulus, Lanes8};
use crate::arch::x86_64::avx512ifma::mb8_exp;
use crate::arch::Avx512Ifma;
use crate::{Limb, Modulus, Residue};
use zeroize::Zeroizing;

/// The fewest lanes for which [`Mb8`] runs an exponentiation batch, by the moduli's limb
/// count: rows `(up to this many limbs, from this many lanes)`, in order; limb counts
/// past the last row (above 4096 bits), or below 8 limbs (512 bits), stay sequential.
/// Measured with the example `mb8` (`docs/PERFORMANCE.md`, "amm52x8-ifma"): one
/// 8-lane exponentiation costs as much as 3.5 single ones at 512 bits, 4.2 at 768,
/// 4.9 at 1024, 6.8 at 1536, 6.8-7.4 at 2048-4096, and at 6144 bits 7.0 or 16 by the
/// heap's placement, 8.6-9.5 at 8192; so below these counts (rounded up past ties) the
/// jobs one by one are faster.
pub(super) const MB8_MIN_LANES: [(usize, usize); 5] = [(8, 4), (12, 5), (16, 6), (24, 7), (64, 8)];

/// The smallest limb count [`Mb8`] takes (512 bits).
const MIN_LIMBS: usize = 8;

/// The multi-buffer engine (the CPU token is asked for at each call, a cached read).
pub(super) struct Mb8;

/// [`Mb8`] when it runs this batch faster than one by one: 64-bit limbs, the CPU has
/// AVX-512 IFMA, every modulus has the same limb count, and the lane count reaches
/// [`MB8_MIN_LANES`] for it. All of that is public.
pub(super) fn choose<L: Limb>(lanes: &[Residue<L>]) -> Option<&'static dyn Engine<L>> {
    let s = lanes.first()?.modulus().limbs();
    let min = MB8_MIN_LANES
        .iter()
        .find(|&&(up_to, _)| s <= up_to)
        .map(|&(_, min)| min)?;
    let fits = L::BITS == 64
        && s >= MIN_LIMBS
        && lanes.len() >= min
        && lanes.iter().all(|x| x.modulus().limbs() == s)
        && Avx512Ifma::new().is_some();
    fits.then_some(&Mb8 as &'static dyn Engine<L>)
}

/// A modulus' words as 64-bit words (L is 64 bits wide where [`choose`] picks Mb8).
struct Words {
    n: Zeroizing<Vec<u64>>,
    r1: Zeroizing<Vec<u64>>,
    n0: u64,
    reduction: crate::Reduction,
}

fn words<L: Limb>(m: &Modulus<L>) -> Words {
    let wide = |x: &[L]| Zeroizing::new(x.iter().map(|w| w.to_u64()).collect::<Vec<_>>());
    Words {
        n: wide(m.n()),
        r1: wide(m.r1()),
        n0: m.n0().to_u64(),
        reduction: m.reduction(),
    }
}

/// The domain of the lanes' moduli, or `None` where [`Lanes8`] refuses them.
fn domain<L: Limb>(token: Avx512Ifma, lanes: &[Residue<L>], pow: bool) -> Option<Lanes8> {
    let ws: Vec<Words> = lanes.iter().map(|x| words(x.modulus())).collect();
    let ms: Vec<LaneModulus<'_>> = ws
        .iter()
        .map(|w| LaneModulus {
            n: &w.n,
            n0: w.n0,
            r1: &w.r1,
            reduction: w.reduction,
        })
        .collect();
    if pow {
        Lanes8::for_pow(token, &ms).ok()
    } else {
        Lanes8::new(token, &ms).ok()
    }
}

/// The Montgomery forms of the lanes, as 64-bit words.
fn values<L: Limb>(xs: &[Residue<L>]) -> Vec<Zeroizing<Vec<u64>>> {
    xs.iter()
        .map(|x| Zeroizing::new(x.montgomery_limbs().iter().map(|w| w.to_u64()).collect()))
        .collect()
}

/// The residues of the lanes' results (Montgomery forms below each modulus' bound).
fn residues<L: Limb>(lanes: &[Residue<L>], outs: Vec<Vec<u64>>) -> Vec<Residue<L>> {
    lanes
        .iter()
        .zip(outs)
        .map(|(x, out)| {
            let out = Zeroizing::new(out);
            let v = out.iter().map(|&w| L::from_u64(w)).collect();
            match Residue::from_montgomery(x.modulus(), v) {
                Ok(r) => r,
                Err(e) => unreachable!("amm52x8-ifma finishes below the bound: {e}"),
            }
        })
        .collect()
}

/// `a[i] * b[i]` per lane by one `amm52x8-ifma` product (words in and out), or `None`
/// where the domain refuses the lanes or the CPU lacks IFMA: the product [`Mb8::mul`]
/// measured and did not keep, for the tests.
#[cfg(test)]
fn mul_words<L: Limb>(a: &[Residue<L>], b: &[Residue<L>]) -> Option<Vec<Residue<L>>> {
    let dom = Avx512Ifma::new().and_then(|t| domain(t, a, false))?;
    let (av, bv) = (values(a), values(b));
    let ar: Vec<&[u64]> = av.iter().map(|x| x.as_slice()).collect();
    let br: Vec<&[u64]> = bv.iter().map(|x| x.as_slice()).collect();
    let mut outs = vec![Vec::new(); a.len()];
    dom.mul(&ar, &br, &mut outs);
    Some(residues(a, outs))
}

impl<L: Limb> Engine<L> for Mb8 {
    /// One product per lane does not pay for the conversions into the lanes' digits
    /// and back (measured 2-7x slower than the products one by one at 512-4096 bits,
    /// `docs/PERFORMANCE.md`): the sequential engine's.
    fn mul(&self, a: &[Residue<L>], b: &[Residue<L>]) -> Vec<Residue<L>> {
        Sequential.mul(a, b)
    }

    fn pow(&self, bases: &[Residue<L>], exponents: &[&[u8]]) -> Vec<Residue<L>> {
        let dom = Avx512Ifma::new().and_then(|t| domain(t, bases, true));
        let Some(dom) = dom else {
            return Sequential.pow(bases, exponents);
        };
        let bv = values(bases);
        let br: Vec<&[u64]> = bv.iter().map(|x| x.as_slice()).collect();
        let outs = mb8_exp::pow(&dom, &br, exponents, &mut ());
        residues(bases, outs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reduction;

    /// A batch of `lanes` residues modulo moduli of `limbs` limbs (different moduli, a
    /// few values).
    fn batch(limbs: usize, lanes: usize, reduction: Reduction) -> Vec<Residue<u64>> {
        (0..lanes)
            .map(|l| {
                let mut n: Vec<u64> = (0..limbs)
                    .map(|i| 0x9e37_79b9_7f4a_7c15u64.wrapping_mul((i + 7 * l + 1) as u64))
                    .collect();
                n[0] |= 1;
                n[limbs - 1] |= 1 << 63;
                let kernel = crate::kernel::by_name::<u64>("cios").unwrap();
                let m = Modulus::with_kernel(&n, kernel, reduction).unwrap();
                let x: Vec<u64> = (0..limbs)
                    .map(|i| (i as u64 + 3) * (l as u64 + 5))
                    .collect();
                Residue::new(&m, &x).unwrap()
            })
            .collect()
    }

    /// Mb8 is picked only where the table says so, for 64-bit limbs of one limb count.
    #[test]
    fn picks_mb8_by_the_table() {
        if Avx512Ifma::new().is_none() {
            eprintln!("picks_mb8_by_the_table: SKIPPED: no AVX-512 IFMA");
            return;
        }
        let picked = |x: &[Residue<u64>]| choose(x).is_some();
        assert!(picked(&batch(16, 8, Reduction::Full)));
        assert!(picked(&batch(16, 6, Reduction::Full)));
        assert!(!picked(&batch(16, 5, Reduction::Full)));
        assert!(picked(&batch(8, 4, Reduction::Full)));
        assert!(!picked(&batch(8, 3, Reduction::Full)));
        assert!(!picked(&batch(32, 7, Reduction::Full)));
        assert!(picked(&batch(32, 8, Reduction::Full)));
        assert!(picked(&batch(64, 8, Reduction::Full)));
        // 6144 and 8192 bits, one limb, and a mix of limb counts: sequential.
        assert!(!picked(&batch(96, 8, Reduction::Full)));
        assert!(!picked(&batch(128, 8, Reduction::Full)));
        assert!(!picked(&batch(1, 8, Reduction::Full)));
        let mut mixed = batch(16, 7, Reduction::Full);
        mixed.extend(batch(17, 1, Reduction::Full));
        assert!(!picked(&mixed));
        assert!(!picked(&[]));
    }

    /// The 8-lane product through the residues' words equals the residues' products,
    /// full and partial batches, both policies.
    #[test]
    fn word_products_equal_the_residues() {
        if Avx512Ifma::new().is_none() {
            eprintln!("word_products_equal_the_residues: SKIPPED: no AVX-512 IFMA");
            return;
        }
        for r in [Reduction::Full, Reduction::Lazy] {
            for (limbs, lanes) in [(1, 8), (8, 3), (16, 8), (33, 5)] {
                let a = batch(limbs, lanes, r);
                let b: Vec<Residue<u64>> = a.iter().map(|x| x.square()).collect();
                let got = mul_words(&a, &b).unwrap();
                let want: Vec<Residue<u64>> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
                assert_eq!(got, want, "{limbs} limbs, {lanes} lanes, {r:?}");
            }
        }
    }
}
