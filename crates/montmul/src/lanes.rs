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
//! Three engines exist. `Sequential` runs each lane through its own modulus' kernel, one
//! after the other, so a batch of k jobs costs what k single operations cost and a
//! batch of one costs what the single operation does (a multi-buffer engine must keep
//! that promise for small batches too). `X2` takes a batch of exactly two
//! exponentiations whose moduli both run on `amm52-ifma` with the same digit count, on
//! a CPU with AVX-512 IFMA, and runs them in lockstep, each filling the other's latency
//! gaps (`amm52x2-ifma`, OpenSSL's `rsaz_exp_x2`): the two CRT halves of an RSA private
//! operation, also through [`pow_x2`]. Its kernel covers 512 to 4096 bits per half; it
//! is picked up to 32 digits (about 1600 bits per half, RSA-3072), where it measured
//! faster than the two one after the other; above, a single product already keeps the
//! core's issue busy and the pair measured no faster (`docs/PERFORMANCE.md`). `Mb8`
//! (`lanes/mb8.rs`) runs up to eight exponentiations of one size class on
//! `amm52x8-ifma`, one per 64-bit lane, from the lane counts where that measured faster
//! than one by one (`MB8_MIN_LANES`; up to 4096 bits). Engines may differ in speed,
//! never in results: every lane's result is what
//! [`Residue::try_mul`] or [`Residue::pow`] gives.
//!
//! Constant-time: as the single operations. [`pow_lanes`] is constant-time in each
//! lane's exponent value (each lane's work depends on its exponent's byte length only,
//! which is public) and in the bases; which lanes share a modulus is public. [`pow_x2`]
//! pads the shorter exponent with leading zero bytes: its work depends on the longer
//! byte length only.

use crate::exp::Trace;
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

/// Two exponentiations in lockstep (`amm52x2-ifma`); products, and pairs the pair
/// kernel does not cover, as [`Sequential`].
struct X2;

impl<L: Limb> Engine<L> for X2 {
    fn mul(&self, a: &[Residue<L>], b: &[Residue<L>]) -> Vec<Residue<L>> {
        Sequential.mul(a, b)
    }

    fn pow(&self, bases: &[Residue<L>], exponents: &[&[u8]]) -> Vec<Residue<L>> {
        match (bases, exponents) {
            ([a, b], [ea, eb]) => {
                let (x, y) = pow_pair(a, ea, b, eb, &mut ());
                vec![x, y]
            }
            _ => Sequential.pow(bases, exponents),
        }
    }
}

/// The engine for a batch whose lanes live in `lanes`' residues, by the moduli's size
/// class and the CPU's capability tokens: [`X2`] for two lanes that [`fits_x2`]; `Mb8`
/// (`amm52x8-ifma`, `lanes/mb8.rs`) where it measured faster than one by one (from 4
/// lanes at 512 bits, never for two); else [`Sequential`].
fn engine<L: Limb>(lanes: &[Residue<L>]) -> &'static dyn Engine<L> {
    if let [a, b] = lanes {
        if fits_x2(a, b) {
            return &X2;
        }
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(mb8) = mb8::choose(lanes) {
        return mb8;
    }
    &Sequential
}

/// Whether the pair `a`, `b` runs in lockstep on `amm52x2-ifma`: 64-bit limbs, both
/// moduli on `amm52-ifma` with the same digit count, a CPU with AVX-512 IFMA, and a
/// size where lockstep measured faster than one after the other (up to 32 digits,
/// about 1600 bits per half: `x2::picked`, through
/// [`crate::kernel::PerWord::pair_picked`]). All public.
fn fits_x2<L: Limb>(a: &Residue<L>, b: &Residue<L>) -> bool {
    L::pair_picked(a.modulus(), b.modulus())
}

/// `a^ea` and `b^eb` in lockstep where [`fits_x2`], else one after the other; the
/// results are [`Residue::pow`]'s either way. The steps go to `trace`: in lockstep
/// those of one [`Residue::pow`] with the longer exponent's length, otherwise `a`'s
/// then `b`'s.
fn pow_pair<L: Limb, T: Trace>(
    a: &Residue<L>,
    ea: &[u8],
    b: &Residue<L>,
    eb: &[u8],
    trace: &mut T,
) -> (Residue<L>, Residue<L>) {
    let (ma, mb) = (a.modulus(), b.modulus());
    let pair = L::pow_pair(
        (ma, a.montgomery_limbs(), ea),
        (mb, b.montgomery_limbs(), eb),
        trace,
    );
    // The values are below each modulus' bound, so `from_montgomery` accepts them.
    if let Some((x, y)) = pair {
        if let (Ok(x), Ok(y)) = (
            Residue::from_montgomery(ma, x),
            Residue::from_montgomery(mb, y),
        ) {
            return (x, y);
        }
    }
    (a.pow_traced(ea, trace), b.pow_traced(eb, trace))
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

/// `a^ea` and `b^eb` (big-endian exponents, each residue in its own modulus), the two
/// exponentiations run in lockstep where that is faster (both moduli on `amm52-ifma`
/// with the same digit count, up to about 1600 bits each: the two CRT halves of an
/// RSA-2048 or RSA-3072 key), one after the other elsewhere. The results are exactly
/// [`Residue::pow`]'s.
///
/// Constant-time in the bases and the exponents' values; the exponents' byte lengths
/// are public, and the shorter is padded with leading zero bytes to the longer one's
/// length in lockstep. Errors: none so far; the `Result` is [`pow_lanes`]'s.
pub fn pow_x2<L: Limb>(
    a: &Residue<L>,
    ea: &[u8],
    b: &Residue<L>,
    eb: &[u8],
) -> Result<(Residue<L>, Residue<L>), Error> {
    pow_x2_traced(a, ea, b, eb, &mut ())
}

/// [`pow_x2`], telling `trace` every step: in lockstep the steps of one
/// [`Residue::pow`] with an exponent of the longer byte length, otherwise `a`'s
/// steps then `b`'s. Either way they depend on the exponents' byte lengths only.
pub fn pow_x2_traced<L: Limb, T: Trace>(
    a: &Residue<L>,
    ea: &[u8],
    b: &Residue<L>,
    eb: &[u8],
    trace: &mut T,
) -> Result<(Residue<L>, Residue<L>), Error> {
    Ok(pow_pair(a, ea, b, eb, trace))
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
