//! The 64-bit side of the lanes engine `Mb8`: a batch of residues whose moduli have one
//! limb count, run by the 8-lane multi-buffer kernel `amm52x8-ifma`
//! ([`crate::arch::x86_64::avx512ifma::mb8`], exponentiation in
//! [`crate::arch::x86_64::avx512ifma::mb8_exp`]), reached from [`super`] through the
//! `u64` hooks of [`crate::kernel::PerWord`] (`mb8_picked`, `pow_mb8`, `mul_mb8`). A
//! batch of 1 to 4 runs on 256-bit registers (four lanes, where the CPU has
//! AVX-512VL), one of 5 to 8 on 512-bit ones; the unused lanes of a partial batch
//! repeat the first lane's modulus with base 0 and exponent 0 (the lane count is
//! public), so a batch costs what a full one of its form does: [`MB8_MIN_LANES`] says
//! from how many lanes that is faster than the jobs one by one.

use crate::arch::x86_64::avx512ifma::mb8::{self, LaneModulus, Lanes8};
use crate::arch::x86_64::avx512ifma::mb8_exp;
use crate::arch::Avx512Ifma;
use crate::{Error, Modulus, Residue};

/// The fewest lanes for which [`super::pow_lanes`] runs an exponentiation batch here,
/// against the jobs one by one, by the moduli's limb count: rows `(up to this many
/// limbs, from this many lanes on 256-bit registers (a batch of up to 4; `None`:
/// never), from this many on 512-bit ones)`, in order; limb counts past the last row
/// (above 4096 bits), or below 8 limbs (512 bits), stay sequential. Measured with the
/// example `mb8` (`docs/PERFORMANCE.md`, "Four lanes on 256-bit registers"): one
/// 4-lane exponentiation costs as much as 2.5 single ones at 512 bits, 2.8 at 768
/// (with full-length exponents, 2.7 to 3.7 in the bench's runs: so from 4 lanes
/// there), 3.2 at 1024 and 4.0-4.7 from 1536 bits; one 8-lane exponentiation as much
/// as 3.4 at 512 bits, 4.1 at 768, 5.1 at 1024, 7.1 at 1536 and 7.2-7.8 at 2048-4096
/// (at 6144 bits 7.0 or 16 by the heap's placement, 7.4-9.5 at 8192); so below these
/// counts (rounded up past ties) the jobs one by one are faster. The 8-lane column
/// also serves batches of up to 4 on a CPU without AVX-512VL.
pub(super) const MB8_MIN_LANES: [(usize, Option<usize>, usize); 5] = [
    (8, Some(3), 4),
    (12, Some(4), 5),
    (16, Some(4), 6),
    (24, None, 8),
    (64, None, 8),
];

/// [`MB8_MIN_LANES`] for a batch whose jobs the lanes engine would otherwise run two by
/// two in lockstep (`amm52x2-ifma`, which takes 7 to 25 limbs): the same rows, against
/// the pairs. Measured with `montmul bench --lanes N --bits 512,768,1024,1536 --ops
/// exp` for N = 3 ..= 8 (`docs/PERFORMANCE.md`, "Batches in pairs"): the pairs are
/// faster than four lanes on 256-bit registers at 768 and 1024 bits (1.30x and 1.25x
/// over one by one at 3 lanes against 1.12x and 1.02x, level at 4), and than eight
/// lanes on 512-bit ones up to 6 lanes there and up to 7 at 1536 bits.
pub(super) const MB8_MIN_LANES_PAIRED: [(usize, Option<usize>, usize); 5] = [
    (8, Some(3), 4),
    (12, None, 7),
    (16, None, 7),
    (24, None, 8),
    (64, None, 8),
];

/// [`MB8_MIN_LANES_PAIRED`] on a CPU that does not split 512-bit multiply-adds
/// ([`Avx512Ifma::splits_512`]), where the pairs run on 512-bit registers and take up
/// to 40 digits per half (2048 bits). Measured on the Intel Xeon of
/// `docs/PERFORMANCE.md` ("An Intel Xeon for a session", two sweeps of `montmul bench
/// --lanes N --ops exp` for N = 3 ..= 8): at 768 bits the pairs are faster up to 4
/// lanes (1.59-1.62x over one by one at 4, against 1.52-1.57x), eight lanes from 5
/// (level at 5, 1.79-1.80x against 1.65-1.68x at 6); at 1024 bits four lanes on
/// 256-bit registers beat two pairs (1.48-1.49x against 1.38-1.39x) and eight lanes
/// beat pairs from 5 (1.37-1.45x against 1.33-1.34x, 1.58-1.62x against 1.41-1.42x at
/// 6); at 1536 bits eight lanes catch up at 7 (1.27-1.30x against 1.23-1.24x), at
/// 2048 only at 8.
pub(super) const MB8_MIN_LANES_PAIRED_FULL_RATE: [(usize, Option<usize>, usize); 5] = [
    (8, Some(3), 4),
    (12, None, 5),
    (16, Some(4), 5),
    (24, None, 7),
    (64, None, 8),
];

/// The smallest limb count the engine picks (512 bits).
const MIN_LIMBS: usize = 8;

/// Whether the engine runs this exponentiation batch here, faster than the jobs two by
/// two in lockstep (where `paired`) or one by one: the CPU has AVX-512 IFMA, every
/// modulus has the same limb count, and the lane count reaches [`MB8_MIN_LANES_PAIRED`]
/// (or [`MB8_MIN_LANES_PAIRED_FULL_RATE`], as the CPU splits 512-bit multiply-adds or
/// not) or [`MB8_MIN_LANES`] for it (the 256-bit column for up to 4 lanes where the CPU
/// has AVX-512VL). All of that is public.
pub(crate) fn picked(lanes: &[Residue<u64>], paired: bool) -> bool {
    let Some(token) = Avx512Ifma::new() else {
        return false;
    };
    let Some(s) = lanes.first().map(|x| x.modulus().limbs()) else {
        return false;
    };
    let table = match (paired, token.splits_512()) {
        (false, _) => &MB8_MIN_LANES,
        (true, true) => &MB8_MIN_LANES_PAIRED,
        (true, false) => &MB8_MIN_LANES_PAIRED_FULL_RATE,
    };
    let Some(&(_, min4, min8)) = table.iter().find(|&&(up_to, _, _)| s <= up_to) else {
        return false;
    };
    let min = if mb8::narrow(lanes.len()) {
        min4.unwrap_or(usize::MAX)
    } else {
        min8
    };
    s >= MIN_LIMBS && lanes.len() >= min && lanes.iter().all(|x| x.modulus().limbs() == s)
}

/// One lane's modulus as the kernel takes it.
fn lane(m: &Modulus<u64>) -> LaneModulus<'_> {
    LaneModulus {
        n: m.n(),
        n0: m.n0(),
        r1: m.r1(),
        reduction: m.reduction(),
    }
}

/// The domain of the lanes' moduli (with the exponentiation's constants when `pow`).
/// Errors: [`Error::Unavailable`] without AVX-512 IFMA, else [`Lanes8::new`]'s.
fn domain(lanes: &[Residue<u64>], pow: bool) -> Result<Lanes8, Error> {
    let token = Avx512Ifma::new().ok_or(Error::Unavailable { algo: super::MB8 })?;
    let ms: Vec<LaneModulus<'_>> = lanes.iter().map(|x| lane(x.modulus())).collect();
    if pow {
        Lanes8::for_pow(token, &ms)
    } else {
        Lanes8::new(token, &ms)
    }
}

/// The residues of the lanes' results (Montgomery forms below each modulus' bound).
fn residues(lanes: &[Residue<u64>], outs: Vec<Vec<u64>>) -> Vec<Residue<u64>> {
    lanes
        .iter()
        .zip(outs)
        .map(
            |(x, out)| match Residue::from_montgomery(x.modulus(), out) {
                Ok(r) => r,
                Err(e) => unreachable!("amm52x8-ifma finishes below the bound: {e}"),
            },
        )
        .collect()
}

/// The lanes' Montgomery forms.
fn values(xs: &[Residue<u64>]) -> Vec<&[u64]> {
    xs.iter().map(|x| x.montgomery_limbs()).collect()
}

/// `bases[i] ^ exponents[i]` per lane on `amm52x8-ifma` (1 ..= 8 lanes, as many
/// exponents, checked by the caller). Errors: [`domain`]'s.
pub(crate) fn pow(bases: &[Residue<u64>], exponents: &[&[u8]]) -> Result<Vec<Residue<u64>>, Error> {
    let dom = domain(bases, true)?;
    let outs = mb8_exp::pow(&dom, &values(bases), exponents, &mut ());
    Ok(residues(bases, outs))
}

/// `a[i] * b[i]` per lane by one `amm52x8-ifma` product, words in and out (1 ..= 8
/// pairs, each in one modulus, checked by the caller): what the engine measured and
/// did not keep (its `mul` runs the products one by one). Errors: [`domain`]'s.
pub(crate) fn mul(a: &[Residue<u64>], b: &[Residue<u64>]) -> Result<Vec<Residue<u64>>, Error> {
    let dom = domain(a, false)?;
    let mut outs = vec![Vec::new(); a.len()];
    dom.mul(&values(a), &values(b), &mut outs);
    Ok(residues(a, outs))
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

    /// Mb8 is picked only where the tables say so (against one by one, and against
    /// pairs), for 64-bit limbs of one limb count.
    #[test]
    fn picks_mb8_by_the_table() {
        if Avx512Ifma::new().is_none() {
            montmul_testkit::skipped!("picks_mb8_by_the_table: SKIPPED: no AVX-512 IFMA");
            return;
        }
        let vl = std::arch::is_x86_feature_detected!("avx512vl");
        let picked1 = |b: &[Residue<u64>]| picked(b, false);
        assert!(picked1(&batch(16, 8, Reduction::Full)));
        assert!(picked1(&batch(16, 6, Reduction::Full)));
        assert!(!picked1(&batch(16, 5, Reduction::Full)));
        assert!(picked1(&batch(8, 4, Reduction::Full)));
        // Four lanes or fewer: the 256-bit column where the CPU has AVX-512VL.
        assert_eq!(picked1(&batch(8, 3, Reduction::Full)), vl);
        assert_eq!(picked1(&batch(16, 4, Reduction::Full)), vl);
        assert!(!picked1(&batch(16, 3, Reduction::Full)));
        assert!(!picked1(&batch(12, 3, Reduction::Full)));
        assert_eq!(picked1(&batch(12, 4, Reduction::Full)), vl);
        assert!(!picked1(&batch(8, 2, Reduction::Full)));
        assert!(!picked1(&batch(24, 4, Reduction::Full)));
        assert!(!picked1(&batch(32, 7, Reduction::Full)));
        assert!(picked1(&batch(32, 8, Reduction::Full)));
        assert!(picked1(&batch(64, 8, Reduction::Full)));
        // 6144 and 8192 bits, one limb, and a mix of limb counts: sequential.
        assert!(!picked1(&batch(96, 8, Reduction::Full)));
        assert!(!picked1(&batch(128, 8, Reduction::Full)));
        assert!(!picked1(&batch(1, 8, Reduction::Full)));
        let mut mixed = batch(16, 7, Reduction::Full);
        mixed.extend(batch(17, 1, Reduction::Full));
        assert!(!picked1(&mixed));
        assert!(!picked1(&[]));
        let paired = |b: &[Residue<u64>]| picked(b, true);
        assert_eq!(paired(&batch(8, 3, Reduction::Full)), vl);
        assert!(paired(&batch(8, 5, Reduction::Full)));
        assert!(paired(&batch(24, 8, Reduction::Full)));
        if Avx512Ifma::new().is_some_and(|t| t.splits_512()) {
            // Against pairs: from 7 lanes at 768 and 1024 bits, never four on 256-bit
            // registers there; 512 and 1536 bits and above as against one by one.
            for s in [12, 16] {
                for lanes in 2..=6 {
                    assert!(
                        !paired(&batch(s, lanes, Reduction::Full)),
                        "{s} limbs, {lanes}"
                    );
                }
                assert!(paired(&batch(s, 7, Reduction::Full)), "{s} limbs");
                assert!(paired(&batch(s, 8, Reduction::Full)), "{s} limbs");
            }
            assert!(!paired(&batch(24, 7, Reduction::Full)));
        } else {
            // 512-bit multiply-adds at full rate: at 768 bits from 5 lanes, at 1024
            // bits four on 256-bit registers and from 5 on 512-bit ones, at 1536 bits
            // from 7.
            for lanes in 2..=4 {
                assert!(
                    !paired(&batch(12, lanes, Reduction::Full)),
                    "12 limbs, {lanes}"
                );
            }
            assert_eq!(paired(&batch(16, 4, Reduction::Full)), vl);
            assert!(!paired(&batch(16, 3, Reduction::Full)));
            for lanes in 5..=8 {
                assert!(
                    paired(&batch(12, lanes, Reduction::Full)),
                    "12 limbs, {lanes}"
                );
                assert!(
                    paired(&batch(16, lanes, Reduction::Full)),
                    "16 limbs, {lanes}"
                );
            }
            assert!(!paired(&batch(24, 6, Reduction::Full)));
            assert!(paired(&batch(24, 7, Reduction::Full)));
            assert!(!paired(&batch(32, 7, Reduction::Full)));
        }
    }

    /// The 8-lane product through the residues' words equals the residues' products,
    /// full and partial batches, both policies.
    #[test]
    fn word_products_equal_the_residues() {
        if Avx512Ifma::new().is_none() {
            montmul_testkit::skipped!("word_products_equal_the_residues: SKIPPED: no AVX-512 IFMA");
            return;
        }
        for r in [Reduction::Full, Reduction::Lazy] {
            for (limbs, lanes) in [(1, 8), (8, 3), (8, 4), (16, 8), (33, 5), (33, 1)] {
                let a = batch(limbs, lanes, r);
                let b: Vec<Residue<u64>> = a.iter().map(|x| x.square()).collect();
                let got = mul(&a, &b).unwrap();
                let want: Vec<Residue<u64>> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
                assert_eq!(got, want, "{limbs} limbs, {lanes} lanes, {r:?}");
            }
        }
    }
}
