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
//! that promise for small batches too). `X2` runs a batch of exponentiations two by two:
//! each two whose moduli both run on `amm52-ifma` (or on `auto`, which gives 385 to 512
//! bits to `mulx-cios`) with the same digit count, on a CPU with AVX-512 IFMA, in
//! lockstep, each filling the other's latency gaps (`amm52x2-ifma`, OpenSSL's
//! `rsaz_exp_x2`): the two CRT halves of an RSA private operation, also through
//! [`pow_x2`]. Its kernel covers 385 to 4096 bits per half; it
//! is picked where it measured faster than the two one after the other: up to 32
//! digits (about 1600 bits per half, RSA-3072) on a CPU that splits 512-bit
//! multiply-adds in two (Zen 4), where above that a single product already keeps the
//! multipliers busy; up to 40 digits (2048 bits per half, RSA-4096) elsewhere
//! (`x2::picked`, `docs/PERFORMANCE.md`). `Mb8`
//! runs up to eight exponentiations of one size class on `amm52x8-ifma`, one per 64-bit
//! lane (a batch of up to four on 256-bit registers, in half the time of eight), from
//! the lane counts where that measured faster than both one by one and two by two
//! (`MB8_MIN_LANES` in `lanes/mb8.rs`; up to 4096 bits). Engines may differ in speed,
//! never in results: every lane's result is what [`Residue::try_mul`] or
//! [`Residue::pow`] gives.
//!
//! Both multi-buffer kernels are 64-bit code: the engines reach them through the
//! per-word hooks of [`crate::kernel::PerWord`] (`pair_picked`, `pow_pair`,
//! `mb8_picked`, `pow_mb8`, `mul_mb8`), which only `u64` fills in. [`catalog`]
//! describes them for `montmul algos`; [`mul_lanes_mb8`], [`pow_lanes_mb8`] and
//! [`pow_x2_lockstep`] run them whatever the engine would pick, for the benchmarks
//! (`montmul bench --lanes`) and the tests.
//!
//! Constant-time: as the single operations. [`pow_lanes`] is constant-time in each
//! lane's exponent value (each lane's work depends on its exponent's byte length only,
//! which is public) and in the bases; which lanes share a modulus is public. [`pow_x2`]
//! pads the shorter exponent with leading zero bytes: its work depends on the longer
//! byte length only.

use crate::arch::Avx512Ifma;
use crate::exp::Trace;
use crate::kernel::traits::KernelInfo;
pub(crate) use crate::kernel::traits::{MB8, PAIR};
use crate::{Error, Limb, Reduction, Residue};

#[cfg(target_arch = "x86_64")]
pub(crate) mod mb8;

/// The most lanes one call takes: eight 64-bit lanes of a 512-bit vector.
pub const MAX_LANES: usize = 8;

/// A multi-buffer kernel: several independent operations per call, one per group of
/// vector lanes. Not a [`crate::Kernel`] (those compute one product per call), so not
/// in [`crate::lab::catalog`]; [`catalog`] lists them.
#[derive(Debug)]
pub struct LaneKernelInfo {
    /// Name, seed, summary, word sizes, policies, constant-time and availability, as
    /// for the one-product kernels.
    pub info: KernelInfo,
    /// Independent operations per call.
    pub lanes: usize,
    /// The smallest and the largest modulus, in bits per lane, it has code for.
    pub bits: (u32, u32),
    /// The operations it runs: `mul` (products) and `pow` (exponentiations).
    pub ops: &'static [&'static str],
}

/// Whether this CPU has AVX-512 IFMA, which both multi-buffer kernels need.
fn ifma() -> bool {
    Avx512Ifma::new().is_some()
}

/// `amm52x8-ifma`.
static MB8_INFO: LaneKernelInfo = LaneKernelInfo {
    info: KernelInfo {
        name: MB8,
        seed: "004 sec. 7; crypto_mb mbx_exp_mb8",
        summary: "8 independent AMM52 products, one per 64-bit lane of AVX-512 IFMA, \
                  same or different moduli of one limb count (batches of up to 4 on \
                  256-bit registers); pow_lanes on them",
        words: &[64],
        reductions: &[Reduction::Full, Reduction::Lazy],
        constant_time: true,
        available: ifma,
    },
    lanes: 8,
    bits: (512, 8192),
    ops: &["mul", "pow"],
};

/// `amm52x2-ifma`.
static PAIR_INFO: LaneKernelInfo = LaneKernelInfo {
    info: KernelInfo {
        name: PAIR,
        seed: "004 sec. 7; OpenSSL rsaz_exp_x2",
        summary: "two exponentiations in lockstep on moduli of one digit count (on \
                  amm52-ifma, or auto's), each filling the other's latency gaps \
                  (pow_x2, pow_lanes two by two); a squaring of its own for 1024-bit \
                  halves (17 to 32 digits, about 830 to 1600 bits, where 512-bit multiply-adds \
                  are not split)",
        words: &[64],
        reductions: &[Reduction::Full, Reduction::Lazy],
        constant_time: true,
        available: ifma,
    },
    lanes: 2,
    bits: (385, 4096),
    ops: &["pow"],
};

/// Every multi-buffer kernel of this architecture (none off x86-64), for
/// `montmul algos` and `montmul bench --lanes`.
pub fn catalog() -> &'static [&'static LaneKernelInfo] {
    static ALL: [&LaneKernelInfo; 2] = [&MB8_INFO, &PAIR_INFO];
    if cfg!(target_arch = "x86_64") {
        &ALL
    } else {
        &[]
    }
}

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

/// Exponentiations two by two in lockstep (`amm52x2-ifma`): lanes 0 and 1, then 2 and
/// 3, and so on, each pair as [`pow_pair`] runs it (in lockstep where [`fits_x2`], else
/// one after the other), an odd last lane alone; products as [`Sequential`].
struct X2;

impl<L: Limb> Engine<L> for X2 {
    fn mul(&self, a: &[Residue<L>], b: &[Residue<L>]) -> Vec<Residue<L>> {
        Sequential.mul(a, b)
    }

    fn pow(&self, bases: &[Residue<L>], exponents: &[&[u8]]) -> Vec<Residue<L>> {
        let mut out = Vec::with_capacity(bases.len());
        for (x, e) in bases.chunks(2).zip(exponents.chunks(2)) {
            match (x, e) {
                ([a, b], [ea, eb]) => {
                    let (ya, yb) = pow_pair(a, ea, b, eb, &mut ());
                    out.extend([ya, yb]);
                }
                _ => out.extend(Sequential.pow(x, e)),
            }
        }
        out
    }
}

/// Up to eight exponentiations on `amm52x8-ifma` (through
/// [`crate::kernel::PerWord::pow_mb8`]); products, and batches the hook refuses, as
/// [`Sequential`].
struct Mb8;

impl<L: Limb> Engine<L> for Mb8 {
    /// One product per lane does not pay for the conversions into the lanes' digits
    /// and back (measured 2-7x slower than the products one by one at 512-4096 bits,
    /// `docs/PERFORMANCE.md`): the sequential engine's.
    fn mul(&self, a: &[Residue<L>], b: &[Residue<L>]) -> Vec<Residue<L>> {
        Sequential.mul(a, b)
    }

    fn pow(&self, bases: &[Residue<L>], exponents: &[&[u8]]) -> Vec<Residue<L>> {
        L::pow_mb8(bases, exponents).unwrap_or_else(|_| Sequential.pow(bases, exponents))
    }
}

/// The engine for a batch whose lanes live in `lanes`' residues, by the moduli's size
/// class, the lane count and the CPU's capability tokens: [`Mb8`] where it measured
/// faster than both the jobs one by one and in pairs
/// ([`crate::kernel::PerWord::mb8_picked`]); else [`X2`] where a pair of the batch
/// [`fits_x2`]; else [`Sequential`].
fn engine<L: Limb>(lanes: &[Residue<L>]) -> &'static dyn Engine<L> {
    let paired = lanes.chunks_exact(2).any(|p| fits_x2(&p[0], &p[1]));
    if L::mb8_picked(lanes, paired) {
        return &Mb8;
    }
    if paired {
        return &X2;
    }
    &Sequential
}

/// Whether the pair `a`, `b` runs in lockstep on `amm52x2-ifma`: 64-bit limbs, both
/// moduli on `amm52-ifma` or `auto` with the same digit count, a CPU with AVX-512
/// IFMA, and a size where lockstep measured faster than one after the other (up to 32
/// or 40 digits per half, as the CPU splits 512-bit multiply-adds or not: `x2::picked`, through
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
    if fits_x2(a, b) {
        if let Some(pair) = lockstep(a, ea, b, eb, trace) {
            return pair;
        }
    }
    (a.pow_traced(ea, trace), b.pow_traced(eb, trace))
}

/// `a^ea` and `b^eb` on the pair kernel wherever it covers the two moduli
/// ([`crate::kernel::PerWord::pow_pair`]), `None` elsewhere.
fn lockstep<L: Limb, T: Trace>(
    a: &Residue<L>,
    ea: &[u8],
    b: &Residue<L>,
    eb: &[u8],
    trace: &mut T,
) -> Option<(Residue<L>, Residue<L>)> {
    let (ma, mb) = (a.modulus(), b.modulus());
    let (x, y) = L::pow_pair(
        (ma, a.montgomery_limbs(), ea),
        (mb, b.montgomery_limbs(), eb),
        trace,
    )?;
    // The values are below each modulus' bound, so `from_montgomery` accepts them.
    Some((
        Residue::from_montgomery(ma, x).ok()?,
        Residue::from_montgomery(mb, y).ok()?,
    ))
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
/// or `auto` with the same digit count, from 385 to about 1600 bits each, or 2048
/// where the CPU does not split 512-bit multiply-adds: the two CRT halves of an
/// RSA-1024 to RSA-3072 key, or to RSA-4096), one after the other elsewhere.
/// The results are exactly [`Residue::pow`]'s.
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

/// `a[i] * b[i]` for every lane `i` on the 8-lane kernel `amm52x8-ifma` (the moduli's
/// words converted to its digits and back), whatever [`mul_lanes`] would pick (it runs
/// products one by one: faster): for the benchmarks and the tests. The results are
/// [`mul_lanes`]'s.
///
/// Constant-time in the values. Errors: those of [`mul_lanes`];
/// [`Error::UnsupportedWord`] for limbs other than `u64`; [`Error::Unavailable`]
/// without AVX-512 IFMA; [`Error::WrongLength`] when the moduli's limb counts differ;
/// [`Error::ModulusTooLarge`] above 8192 bits.
pub fn mul_lanes_mb8<L: Limb>(
    a: &[Residue<L>],
    b: &[Residue<L>],
) -> Result<Vec<Residue<L>>, Error> {
    check_lanes(a.len(), b.len())?;
    if a.iter().zip(b).any(|(x, y)| x.modulus() != y.modulus()) {
        return Err(Error::ModulusMismatch);
    }
    if a.is_empty() {
        return Ok(Vec::new());
    }
    L::mul_mb8(a, b)
}

/// `bases[i] ^ exponents[i]` for every lane `i` on the 8-lane kernel `amm52x8-ifma`,
/// whatever [`pow_lanes`] would pick (a partial batch costs what eight lanes do): for
/// the benchmarks and the tests. The results are [`pow_lanes`]'s.
///
/// Constant-time as [`pow_lanes`]. Errors: those of [`pow_lanes`], and of
/// [`mul_lanes_mb8`] for the moduli.
pub fn pow_lanes_mb8<L: Limb>(
    bases: &[Residue<L>],
    exponents: &[&[u8]],
) -> Result<Vec<Residue<L>>, Error> {
    check_lanes(bases.len(), exponents.len())?;
    if bases.is_empty() {
        return Ok(Vec::new());
    }
    L::pow_mb8(bases, exponents)
}

/// `a^ea` and `b^eb` in lockstep on the pair kernel `amm52x2-ifma` wherever it covers
/// the two moduli, also at the sizes where [`pow_x2`] runs them one after the other
/// (faster there): for the benchmarks and the tests. The results are [`pow_x2`]'s.
///
/// Constant-time as [`pow_x2`]. Errors: [`Error::UnsupportedWord`] for limbs other
/// than `u64`; [`Error::Unavailable`] without AVX-512 IFMA; [`Error::UnsupportedSize`]
/// unless both moduli run on `amm52-ifma` (or on `auto`) with the same digit count,
/// 385 to 4096 bits.
pub fn pow_x2_lockstep<L: Limb>(
    a: &Residue<L>,
    ea: &[u8],
    b: &Residue<L>,
    eb: &[u8],
) -> Result<(Residue<L>, Residue<L>), Error> {
    if !PAIR_INFO.info.words.contains(&L::BITS) {
        return Err(Error::UnsupportedWord {
            algo: PAIR,
            word: L::BITS,
        });
    }
    if !ifma() {
        return Err(Error::Unavailable { algo: PAIR });
    }
    lockstep(a, ea, b, eb, &mut ()).ok_or(Error::UnsupportedSize {
        algo: PAIR,
        limbs: a.modulus().limbs(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Modulus;
    use montmul_testkit as kit;

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

    /// Different moduli of `bits` bits, one per lane, a base in each, and exponents.
    fn jobs(bits: u32, lanes: usize) -> (Vec<Residue<u64>>, Vec<Vec<u8>>) {
        let mut rng = kit::TestRng::new(u64::from(bits) + lanes as u64);
        (0..lanes)
            .map(|_| {
                let n = kit::random_modulus(&mut rng, bits);
                let m = Modulus::<u64>::from_be_bytes(&n.to_bytes_be()).unwrap();
                let x = kit::random_below(&mut rng, &n).to_bytes_be();
                let e = kit::random_below(&mut rng, &n).to_bytes_be();
                (Residue::from_be_bytes(&m, &x).unwrap(), e)
            })
            .unzip()
    }

    /// The forced 8-lane forms give what the jobs one by one give, or say why not.
    #[test]
    fn forced_mb8_equals_one_by_one() {
        if Avx512Ifma::new().is_none() {
            let (x, e) = jobs(512, 3);
            let e: Vec<&[u8]> = e.iter().map(Vec::as_slice).collect();
            // Unavailable on x86-64; elsewhere u64 has no 8-lane kernel at all.
            assert!(matches!(
                pow_lanes_mb8(&x, &e),
                Err(Error::Unavailable { .. } | Error::UnsupportedWord { .. })
            ));
            montmul_testkit::skipped!("forced_mb8_equals_one_by_one: SKIPPED: no AVX-512 IFMA");
            return;
        }
        for (bits, lanes) in [(512, 1), (512, 3), (1024, 8), (2048, 5)] {
            let (x, e) = jobs(bits, lanes);
            let e: Vec<&[u8]> = e.iter().map(Vec::as_slice).collect();
            let y: Vec<Residue<u64>> = x.iter().map(|v| v.square()).collect();
            let want: Vec<Residue<u64>> = x.iter().zip(&y).map(|(a, b)| a * b).collect();
            assert_eq!(mul_lanes_mb8(&x, &y).unwrap(), want, "{bits} x {lanes}");
            let want: Vec<Residue<u64>> = x.iter().zip(&e).map(|(a, e)| a.pow(e)).collect();
            assert_eq!(pow_lanes_mb8(&x, &e).unwrap(), want, "{bits} x {lanes}");
        }
        assert!(pow_lanes_mb8::<u64>(&[], &[]).unwrap().is_empty());
        // Moduli of different limb counts: refused, not mixed.
        let (mut x, _) = jobs(512, 2);
        x.extend(jobs(1024, 1).0);
        assert!(matches!(
            mul_lanes_mb8(&x, &x),
            Err(Error::WrongLength { .. })
        ));
    }

    /// The forced pair gives what `pow` gives, where `pow_x2` would not pick it too.
    #[test]
    fn forced_pair_equals_one_by_one() {
        if Avx512Ifma::new().is_none() {
            let (x, e) = jobs(2048, 2);
            let got = pow_x2_lockstep(&x[0], &e[0], &x[1], &e[1]);
            assert_eq!(got.unwrap_err(), Error::Unavailable { algo: PAIR });
            montmul_testkit::skipped!("forced_pair_equals_one_by_one: SKIPPED: no AVX-512 IFMA");
            return;
        }
        let m = |bits: u32, seed: u64| {
            let n = kit::random_modulus(&mut kit::TestRng::new(seed), bits);
            let k = crate::kernel::by_name::<u64>("amm52-ifma").unwrap();
            let m = Modulus::with_kernel(&n.to_u64_digits(), k, Reduction::Full).unwrap();
            Residue::new(&m, &[3, 5]).unwrap()
        };
        let (a, b) = (m(2048, 1), m(2048, 2));
        let (ea, eb): (&[u8], &[u8]) = (&[0xc5; 256], &[0x3a; 200]);
        let (ya, yb) = pow_x2_lockstep(&a, ea, &b, eb).unwrap();
        assert_eq!((ya, yb), (a.pow(ea), b.pow(eb)));
        // A pair of different digit counts: no lockstep.
        let c = m(1024, 3);
        assert_eq!(
            pow_x2_lockstep(&a, ea, &c, eb).unwrap_err(),
            Error::UnsupportedSize {
                algo: PAIR,
                limbs: 32
            }
        );
    }

    /// The multi-buffer kernels refuse other words with the error a kernel gives.
    #[test]
    fn multi_buffer_forms_are_64_bit_only() {
        let m = Modulus::<u32>::new(&[0xffff_fffb]).unwrap();
        let x = Residue::new(&m, &[5]).unwrap();
        let one = std::slice::from_ref(&x);
        let word = |algo| Error::UnsupportedWord { algo, word: 32 };
        assert_eq!(mul_lanes_mb8(one, one).unwrap_err(), word(MB8));
        assert_eq!(pow_lanes_mb8(one, &[&[3]]).unwrap_err(), word(MB8));
        assert_eq!(pow_x2_lockstep(&x, &[3], &x, &[3]).unwrap_err(), word(PAIR));
        let names: Vec<&str> = catalog().iter().map(|k| k.info.name).collect();
        if cfg!(target_arch = "x86_64") {
            assert_eq!(names, [MB8, PAIR]);
        }
    }
}
