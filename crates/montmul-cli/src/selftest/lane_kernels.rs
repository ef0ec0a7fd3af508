//! The multi-buffer kernels on a case ([`super::case::Case`]): `amm52x8-ifma` and
//! `amm52x2-ifma`, several operations a call and so not in the one-product list, and the
//! lanes seam the library picks from, on jobs of two moduli, checked against
//! num-bigint.

use montmul::lanes::{self, LaneKernelInfo};
use montmul::{lab, Error, Modulus, Reduction, Residue};
use montmul_testkit::{self as kit, TestRng};
use num_bigint::BigUint;

use super::case::{exponent, hex, named, operand, Case, Checker, Tally};

/// The longest exponent of the multi-buffer kernels' checks, in bits (the modulus'
/// size where that is smaller): every window width and table entry of a 1024-bit CRT
/// half's exponentiation, at a quarter of a full-size one's oracle time at 4096 bits.
const LANE_EXP_BITS: u32 = 1024;

/// The jobs of a [`LaneCase`], (modulus, value, exponent): modulus 0 is the case's and
/// 1 the second one; values 0, 1, 2 are a, b (below the case's modulus) and c (below
/// the second); exponents 0 to 3 the long, short, zero-byte and empty ones. The two
/// moduli by turns, each exponent on each.
const LANE_JOBS: [(usize, usize, usize); 8] = [
    (0, 0, 0),
    (1, 2, 1),
    (0, 1, 1),
    (1, 2, 0),
    (0, 0, 2),
    (0, 1, 0),
    (1, 2, 3),
    (0, 0, 1),
];

/// The job whose value multiplies job `j`'s in the 8-lane products: job j + 2 where it
/// has the same modulus, else j itself (a square).
fn factor(j: usize) -> usize {
    let k = (j + 2) % LANE_JOBS.len();
    if LANE_JOBS[k].0 == LANE_JOBS[j].0 {
        k
    } else {
        j
    }
}

/// What the multi-buffer kernels take besides a case's values, and num-bigint's
/// answers for [`LANE_JOBS`]: a second modulus of the same size (they run a modulus per
/// lane), an operand below it, and a long exponent (as many bits as the modulus, at
/// most [`LANE_EXP_BITS`]).
struct LaneCase {
    n2: BigUint,
    c: BigUint,
    long: Vec<u8>,
    /// Each job's value to its exponent, modulo its modulus.
    powers: [BigUint; 8],
    /// Each job's value times its [`factor`]'s, modulo its modulus.
    products: [BigUint; 8],
}

impl LaneCase {
    fn new(case: &Case) -> LaneCase {
        let mut rng = TestRng::new(case.lane_seed);
        let n2 = kit::random_modulus(&mut rng, case.bits);
        let c = operand(&mut rng, &n2, &n2);
        let long = exponent(&mut rng, case.bits.min(LANE_EXP_BITS));
        let mut x = LaneCase {
            n2,
            c,
            long,
            powers: Default::default(),
            products: Default::default(),
        };
        x.powers = core::array::from_fn(|j| {
            let (m, v, e) = LANE_JOBS[j];
            let e = BigUint::from_bytes_be(x.exponent(case, e));
            x.value(case, v).modpow(&e, x.modulus(case, m))
        });
        x.products = core::array::from_fn(|j| {
            let (m, v, _) = LANE_JOBS[j];
            x.value(case, v) * x.value(case, LANE_JOBS[factor(j)].1) % x.modulus(case, m)
        });
        x
    }

    fn modulus<'a>(&'a self, case: &'a Case, m: usize) -> &'a BigUint {
        if m == 0 {
            &case.n
        } else {
            &self.n2
        }
    }

    fn value<'a>(&'a self, case: &'a Case, v: usize) -> &'a BigUint {
        match v {
            0 => &case.a,
            1 => &case.b,
            _ => &self.c,
        }
    }

    fn exponent<'a>(&'a self, case: &'a Case, e: usize) -> &'a [u8] {
        match e {
            0 => &self.long,
            1 => &case.exps[2],
            2 => &case.exps[1],
            _ => &case.exps[0],
        }
    }
}

/// The name under which the lanes seam (`lanes::pow_x2`, `lanes::pow_lanes`: what
/// the library picks for a batch) is checked when `auto` is selected.
const SEAM: &str = "auto (lanes)";

/// Runs case `c` (64-bit words) through the multi-buffer kernels that `algos` names
/// (every one where it is empty; `montmul algos` lists them beside the others) under
/// each policy they offer, and through the lanes seam where `auto` is named. A kernel
/// this CPU cannot run, or without code for the case's size, is counted as skipped.
pub(super) fn run_lanes(c: &Case, algos: &[String], t: &mut Tally) {
    let mut runs: Vec<(&'static str, Reduction)> = Vec::new();
    for k in selected(algos) {
        let (low, high) = k.bits;
        let refusal = if !(k.info.available)() {
            Some(Error::Unavailable { algo: k.info.name }.to_string())
        } else if !(low..=high).contains(&c.bits) {
            Some(format!(
                "no code for this size (it covers {low} to {high} bits a lane)"
            ))
        } else {
            None
        };
        for &r in k.info.reductions {
            match &refusal {
                Some(why) => t
                    .skips
                    .push((k.info.name.into(), 64, r.name(), why.clone(), c.bits)),
                None => runs.push((k.info.name, r)),
            }
        }
    }
    if named(algos, "auto") {
        runs.extend([(SEAM, Reduction::Full), (SEAM, Reduction::Lazy)]);
    }
    if runs.is_empty() {
        return;
    }
    let x = LaneCase::new(c);
    for (name, r) in runs {
        run_lane_variant(name, r, c, &x, t);
    }
}

/// Runs case `c` with its [`LaneCase`] `x` through the multi-buffer kernel `name` (or
/// the lanes seam, [`SEAM`]) under `r`, every result against num-bigint's: the pair
/// kernel on jobs 0 and 1 and on 3 and 2 (each modulus in either half, the long
/// exponent on either side), and on jobs 5 and 6 with moduli given `amm52-ifma` by
/// name; the 8-lane kernel on all eight jobs, on the first three and the first alone
/// (its 4-lane form), and eight products; the seam on two jobs (`lanes::pow_x2`) and
/// five (`lanes::pow_lanes`: pairs and a single).
fn run_lane_variant(name: &'static str, r: Reduction, c: &Case, x: &LaneCase, t: &mut Tally) {
    let s = c.bits.div_ceil(64) as usize;
    t.runs += 1;
    let mut ch = Checker {
        case: c,
        kernel: name,
        word: 64,
        reduction: r,
        tally: t,
    };
    let failed = |e: Error| move || (e.to_string(), "Ok".to_string());
    // The jobs' bases on moduli made with the kernel `k`.
    let bases_on = |k: &str| -> Result<Vec<Residue<u64>>, (&'static str, Error)> {
        let k = lab::by_name::<u64>(k).map_err(|e| ("lab::by_name", e))?;
        let made = |n: &BigUint| Modulus::with_kernel(&kit::to_limbs::<u64>(n, s), k, r);
        let moduli = [made(&c.n), made(&x.n2)];
        let [Ok(m1), Ok(m2)] = moduli else {
            let e = moduli.into_iter().find_map(Result::err).expect("an error");
            return Err(("Modulus::with_kernel", e));
        };
        let values = [(&m1, &c.a), (&m1, &c.b), (&m2, &x.c)]
            .map(|(m, v)| Residue::new(m, &kit::to_limbs::<u64>(v, s)));
        let [Ok(ra), Ok(rb), Ok(rc)] = values else {
            let e = values.into_iter().find_map(Result::err).expect("an error");
            return Err(("Residue::new", e));
        };
        let values = [&ra, &rb, &rc];
        Ok(LANE_JOBS.iter().map(|j| values[j.1].clone()).collect())
    };
    let bases = match bases_on("auto") {
        Ok(bases) => bases,
        Err((call, e)) => return ch.check(call, &c.a, &c.b, false, failed(e)),
    };
    let exps: Vec<&[u8]> = LANE_JOBS.iter().map(|j| x.exponent(c, j.2)).collect();
    // One call's results for the jobs `which` (or its error) against the oracle's: the
    // jobs' powers, or with `products` their products.
    let batch = |ch: &mut Checker,
                 call: &str,
                 which: &[usize],
                 got: Result<Vec<Residue<u64>>, Error>,
                 products: bool| {
        let got = match got {
            Ok(got) if got.len() == which.len() => got,
            Ok(got) => {
                let counts = (format!("{} results", got.len()), format!("{}", which.len()));
                return ch.check(call, &c.a, &c.b, false, || counts);
            }
            Err(e) => return ch.check(call, &c.a, &c.b, false, failed(e)),
        };
        for (&j, got) in which.iter().zip(&got) {
            let op = format!("{call} job {j} ({} at once)", which.len());
            if products {
                ch.same(&op, got, &x.products[j]);
            } else {
                ch.same(&format!("{op} e=0x{}", hex(exps[j])), got, &x.powers[j]);
            }
        }
    };
    type Pair = fn(
        &Residue<u64>,
        &[u8],
        &Residue<u64>,
        &[u8],
    ) -> Result<(Residue<u64>, Residue<u64>), Error>;
    let pair = |bases: &[Residue<u64>], i: usize, j: usize, f: Pair| {
        f(&bases[i], exps[i], &bases[j], exps[j]).map(|(y0, y1)| vec![y0, y1])
    };
    match name {
        SEAM => {
            let two = pair(&bases, 0, 1, lanes::pow_x2);
            batch(&mut ch, "lanes::pow_x2", &[0, 1], two, false);
            let five = lanes::pow_lanes(&bases[..5], &exps[..5]);
            batch(&mut ch, "lanes::pow_lanes", &[0, 1, 2, 3, 4], five, false);
        }
        "amm52x2-ifma" => {
            let lockstep = lanes::pow_x2_lockstep;
            batch(
                &mut ch,
                "pow_x2_lockstep",
                &[0, 1],
                pair(&bases, 0, 1, lockstep),
                false,
            );
            batch(
                &mut ch,
                "pow_x2_lockstep",
                &[3, 2],
                pair(&bases, 3, 2, lockstep),
                false,
            );
            // Moduli given `amm52-ifma` by name, which the pair also takes.
            match bases_on("amm52-ifma") {
                Ok(on) => {
                    let call = "pow_x2_lockstep (moduli on amm52-ifma)";
                    batch(&mut ch, call, &[5, 6], pair(&on, 5, 6, lockstep), false);
                }
                Err((call, e)) => ch.check(call, &c.a, &c.b, false, failed(e)),
            }
        }
        "amm52x8-ifma" => {
            let all: Vec<usize> = (0..LANE_JOBS.len()).collect();
            batch(
                &mut ch,
                "pow_lanes_mb8",
                &all,
                lanes::pow_lanes_mb8(&bases, &exps),
                false,
            );
            for few in [3, 1] {
                let got = lanes::pow_lanes_mb8(&bases[..few], &exps[..few]);
                batch(&mut ch, "pow_lanes_mb8", &all[..few], got, false);
            }
            let other: Vec<Residue<u64>> = all.iter().map(|&j| bases[factor(j)].clone()).collect();
            let got = lanes::mul_lanes_mb8(&bases, &other);
            batch(&mut ch, "mul_lanes_mb8", &all, got, true);
        }
        // A multi-buffer kernel added to the catalog without checks here fails the run.
        other => ch.check("checks of this kernel", &c.a, &c.b, false, || {
            (format!("none for {other}"), "some".into())
        }),
    }
}

/// The multi-buffer kernels `algos` names (every one where it is empty).
pub(super) fn selected(algos: &[String]) -> impl Iterator<Item = &'static LaneKernelInfo> + '_ {
    lanes::catalog()
        .iter()
        .copied()
        .filter(move |k| named(algos, k.info.name))
}

/// Whether `name` is a multi-buffer kernel ([`lanes::catalog`]).
pub(super) fn lane_kernel(name: &str) -> bool {
    lanes::catalog().iter().any(|k| k.info.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes seam runs a case everywhere; the multi-buffer kernels run it where this
    /// CPU has AVX-512 IFMA and are listed as skipped elsewhere; a wrong answer in one
    /// job is one mismatch that names the kernel, the call and the job.
    #[test]
    fn the_lane_kernels_run_and_a_wrong_job_is_reported() {
        let case = Case::new(11, 1024, 4);
        let mut x = LaneCase::new(&case);
        let mut t = Tally::default();
        run_lane_variant(SEAM, Reduction::Full, &case, &x, &mut t);
        assert_eq!((t.runs, t.checks), (1, 2 + 5));
        assert!(t.mismatches.is_empty(), "{:?}", t.mismatches);

        let mut all = Tally::default();
        run_lanes(&case, &[], &mut all);
        assert!(all.mismatches.is_empty(), "{:?}", all.mismatches);
        let kernels = lanes::catalog();
        if kernels.len() < 2 || !kernels.iter().all(|k| (k.info.available)()) {
            eprintln!(
                "SKIPPED: the multi-buffer kernels' runs (none on this architecture, or \
                 this CPU lacks AVX-512 IFMA); only their listing as skipped is checked"
            );
            assert_eq!(all.runs, 2, "the seam under both policies");
            for k in kernels {
                let name = k.info.name;
                assert!(all.skips.iter().any(|s| s.0 == name), "{name} not listed");
            }
            return;
        }
        // Both kernels and the seam, each under both policies: eight jobs, three, one,
        // eight products; two, two and two; two and five.
        assert_eq!(all.runs, 6);
        assert_eq!(all.checks, 2 * ((8 + 3 + 1 + 8) + (2 + 2 + 2) + (2 + 5)));
        assert!(all.skips.is_empty());

        x.powers[5] += 1u32;
        x.products[2] += 1u32;
        let mut t = Tally::default();
        run_lane_variant("amm52x8-ifma", Reduction::Lazy, &case, &x, &mut t);
        let prefix = "mismatch: kernel=amm52x8-ifma word=64 policy=lazy bits=1024 case=4 op=";
        assert_eq!(t.mismatches.len(), 2, "{:?}", t.mismatches);
        assert!(t.mismatches[0].starts_with(&format!("{prefix}pow_lanes_mb8 job 5 (8 at once)")));
        assert!(t.mismatches[1].starts_with(&format!("{prefix}mul_lanes_mb8 job 2 (8 at once)")));

        // Jobs 3 and 5 wrong: the pair's second call, and its call on moduli given
        // `amm52-ifma` (jobs 5 and 6).
        x.powers[3] += 1u32;
        let mut t = Tally::default();
        run_lane_variant("amm52x2-ifma", Reduction::Full, &case, &x, &mut t);
        assert_eq!(t.mismatches.len(), 2, "{:?}", t.mismatches);
        assert!(t.mismatches[0].contains("op=pow_x2_lockstep job 3 (2 at once)"));
        let named = "op=pow_x2_lockstep (moduli on amm52-ifma) job 5 (2 at once)";
        assert!(t.mismatches[1].contains(named));
    }
}
