//! The lanes seam: up to [`MAX_LANES`] independent Montgomery products or
//! exponentiations handed over at once, with the same or different moduli.
//!
//! A multi-buffer kernel runs one operation per 64-bit vector lane, eight at a time
//! (Intel's crypto_mb: `mbx_exp_mb8`, `mbx_rsa_private_crt_mb8`), and fills the
//! multiplier slots that one product alone leaves idle (seed 002 asks the same question
//! of cores: how much independent work keeps every unit busy). Such a kernel needs its
//! work in batches, so callers with several jobs (the two CRT halves of an RSA private
//! operation, a server's queue of handshakes, [`crate::parallel::pow_batch`]) hand them
//! over here, and the engine that runs a batch is chosen in one place (`engine`).
//!
//! Today the one engine is `Sequential`: each lane through its own modulus' kernel,
//! one after the other, so a batch of k jobs costs what k single operations cost and a
//! batch of one costs what the single operation does (a multi-buffer engine must keep
//! that promise for small batches too). Engines may differ in speed, never in results:
//! every lane's result is exactly what [`Residue::try_mul`] or [`Residue::pow`] gives.
//!
//! Constant-time: as the single operations. [`pow_lanes`] is constant-time in each
//! lane's exponent value (each lane's work depends on its exponent's byte length only,
//! which is public) and in the bases; which lanes share a modulus is public.

use crate::{Error, Limb, Residue};

#[cfg(target_arch = "x86_64")]
mod mb8;

/// The most lanes one call takes: eight 64-bit lanes of a 512-bit vector.
pub const MAX_LANES: usize = 8;

/// How a batch of lanes is computed: what a multi-buffer kernel implements to plug in.
///
/// The slices have equal lengths (at most [`MAX_LANES`]) and every pair `a[i]`, `b[i]`
/// shares its modulus; the caller has checked both.
trait Engine<L: Limb>: Sync {
    /// `out[i] = a[i] * b[i]`.
    fn mul(&self, a: &[Residue<L>], b: &[Residue<L>]) -> Vec<Residue<L>>;

    /// `out[i] = bases[i] ^ exponents[i]`, constant-time in the exponents' values.
    fn pow(&self, bases: &[Residue<L>], exponents: &[&[u8]]) -> Vec<Residue<L>>;
}

/// The portable engine: every lane through its own modulus' kernel, in order.
struct Sequential;

impl<L: Limb> Engine<L> for Sequential {
    fn mul(&self, a: &[Residue<L>], b: &[Residue<L>]) -> Vec<Residue<L>> {
        a.iter().zip(b).map(|(x, y)| x * y).collect()
    }

    fn pow(&self, bases: &[Residue<L>], exponents: &[&[u8]]) -> Vec<Residue<L>> {
        bases.iter().zip(exponents).map(|(x, e)| x.pow(e)).collect()
    }
}

/// The engine for a batch whose lanes live in `moduli`' residues: where a multi-buffer
/// kernel is chosen (by the moduli's size class and the CPU's capability tokens): `Mb8`
/// (`amm52x8-ifma`, `lanes/mb8.rs`) where it measured faster, else the sequential one.
fn engine<L: Limb>(lanes: &[Residue<L>]) -> &'static dyn Engine<L> {
    #[cfg(target_arch = "x86_64")]
    if let Some(mb8) = mb8::choose(lanes) {
        return mb8;
    }
    let _ = lanes;
    &Sequential
}

/// Checks the lane count: at most [`MAX_LANES`], and `other` lanes beside `lanes`.
fn check_lanes(lanes: usize, other: usize) -> Result<(), Error> {
    if lanes > MAX_LANES {
        return Err(Error::TooManyLanes {
            lanes,
            max: MAX_LANES,
        });
    }
    if other != lanes {
        return Err(Error::WrongLength {
            expected: lanes,
            got: other,
        });
    }
    Ok(())
}

/// `a[i] * b[i]` for every lane `i` (Montgomery products), each pair in its own modulus.
///
/// Errors: [`Error::TooManyLanes`] for more than [`MAX_LANES`] pairs,
/// [`Error::WrongLength`] when the slices differ in length, [`Error::ModulusMismatch`]
/// when `a[i]` and `b[i]` belong to different moduli. Constant-time in the values.
pub fn mul_lanes<L: Limb>(a: &[Residue<L>], b: &[Residue<L>]) -> Result<Vec<Residue<L>>, Error> {
    check_lanes(a.len(), b.len())?;
    if a.iter().zip(b).any(|(x, y)| x.modulus() != y.modulus()) {
        return Err(Error::ModulusMismatch);
    }
    Ok(engine(a).mul(a, b))
}

/// `bases[i] ^ exponents[i]` for every lane `i` (big-endian exponents), each base in its
/// own modulus: what [`Residue::pow`] gives for each lane.
///
/// Constant-time in the bases and the exponents' values: each lane's work depends on
/// its exponent's byte length only. Errors: [`Error::TooManyLanes`] for more than
/// [`MAX_LANES`] lanes, [`Error::WrongLength`] when the slices differ in length.
pub fn pow_lanes<L: Limb>(
    bases: &[Residue<L>],
    exponents: &[&[u8]],
) -> Result<Vec<Residue<L>>, Error> {
    check_lanes(bases.len(), exponents.len())?;
    Ok(engine(bases).pow(bases, exponents))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Modulus;

    #[test]
    fn refuses_too_many_lanes_and_unequal_lengths() {
        let m = Modulus::<u64>::new(&[0xffff_ffff_ffff_ffc5]).unwrap();
        let x = Residue::new(&m, &[5]).unwrap();
        let nine = vec![x.clone(); MAX_LANES + 1];
        assert_eq!(
            mul_lanes(&nine, &nine).unwrap_err(),
            Error::TooManyLanes {
                lanes: MAX_LANES + 1,
                max: MAX_LANES
            }
        );
        let e: &[u8] = &[3];
        assert_eq!(
            pow_lanes(&nine[..2], &[e]).unwrap_err(),
            Error::WrongLength {
                expected: 2,
                got: 1
            }
        );
        let other = Modulus::<u64>::new(&[0xffff_ffff_ffff_ff9d]).unwrap();
        let y = Residue::new(&other, &[5]).unwrap();
        assert_eq!(
            mul_lanes(std::slice::from_ref(&x), &[y]).unwrap_err(),
            Error::ModulusMismatch
        );
        assert!(mul_lanes::<u64>(&[], &[]).unwrap().is_empty());
    }
}
