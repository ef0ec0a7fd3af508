//! `montmul ct-check`: a statistical check that montmul's constant-time paths take the
//! same time whatever their secret inputs, after dudect (Reparaz, Balasch, Verbauwhede,
//! "Dude, is my code constant time?", DATE 2017).
//!
//! Each check times one operation on two classes of secret inputs, class 0 fixed and
//! class 1 random, and asks Welch's t-test ([`crate::welch`]) whether the two timing
//! distributions differ. The paths:
//!
//! - `pow`: `Residue::pow` with a fixed exponent or random exponents of the same byte
//!   length (the modulus' own, or `--exp-bytes`: Diffie-Hellman's short exponents), one
//!   fixed base;
//! - `mul`: `Modulus::mont_mul` on fixed operands or random ones;
//! - `table`: the exponentiation's masked table read (`Ladder::lookup`, a table of
//!   2^w entries for the window `pow` uses at that size) at a fixed or a random index,
//!   in the ladder's own domain (limbs, or the IFMA kernel's 52-bit digits);
//! - `fixed-base`: `FixedBase::pow` (DSA's g^k, DH's g^x: reads of the precomputed powers
//!   of one base and products, no squaring) with a fixed exponent or random exponents of
//!   [`FIXED_BASE_LEN`](crate::ct_subjects::FIXED_BASE_LEN) bytes, the powers of one
//!   base made before the check;
//! - `pow-x2`: `lanes::pow_x2_lockstep`, two exponentiations in lockstep on the pair
//!   kernel `amm52x2-ifma` (RSA's two CRT halves), on two moduli of the size: both
//!   exponents fixed against both random; where the pair kernel does not run (no AVX-512
//!   IFMA, or a size outside 385 to 4096 bits) the check is skipped, and said so;
//! - `pow-vartime`: the control, `Residue::pow_vartime`, which is variable-time by
//!   design: exponent 0x00..01 against random ones must be found leaking, or the harness
//!   is blind.
//!
//! The fixed class is, by default, the edge values a data-dependent shortcut would take
//! (exponent 0x00..01, operands 0, index 0), or with `--fixed random` one random value
//! kept for the whole check, or with `--fixed one` the operands R mod n (Montgomery's 1:
//! the value `pow`'s accumulator keeps through every product with the exponent
//! 0x00..01, so that `mul` tells whether the product alone shows what `pow` shows
//! there), or with `--fixed top` the exponent 0x80..00 (every window after the first
//! reads entry 0, as with 0x00..01, but the accumulator moves: it tells a
//! data-independent effect of the table index apart from one of constant operands), or
//! with `--fixed base-one` random exponents in both classes and, in the fixed one, the
//! base 1 (the accumulator stays 1 from the first product to the last, as with the
//! exponent 0x00..01, while the exponent changes: it tells constant operands apart
//! from a constant exponent).
//!
//! Every kernel that `auto` can pick for 64-bit words at the size is checked: its pick on
//! this CPU, the pick without AVX-512 IFMA, and the pick without BMI2/ADX either (the
//! chain of `lab::pick` under [`lab::TUNED`] with those steps switched off), under each
//! reduction policy asked for. Kernels this CPU cannot run are skipped, and said so.
//!
//! Measurement, as dudect does it, with one lesson from this machine: all inputs of a
//! batch (and the order of the classes, a random sequence) are drawn *before* its timed
//! loop. A harness that drew random exponents between measurements showed |t| up to 30
//! at 256 bits from its own cache and branch-predictor traffic (issue 19). A batch is at
//! most [`BATCH`] measurements, so memory stays small at 10^8. Each call is timed alone
//! with the time-stamp counter behind `lfence` on x86-64 (cycles), with `Instant`
//! elsewhere (nanoseconds). The first measurements are a warm-up: they set the
//! cropping thresholds (percentiles of their times, dudect's outlier cropping) and are
//! then dropped. The report gives |t| of all measurements and the largest |t| of the
//! cropped tests, and the verdict goes by the larger of the two.
//!
//! With `--confirm` every check that is not "no leak found" is measured a second time
//! (the same fixed input, a new order of the classes and new random inputs), and the
//! report says whether the flag is reproduced: a leak in the code comes back, while a
//! transient state of a shared machine flagged the 2048-bit ladder twice at 10^6
//! measurements and then not in five reruns (docs/SECURITY.md).
//!
//! Timing is printed, never asserted: the exit status is 0 whatever |t| is, unless
//! `--fail-above T` asks otherwise. Not constant-time itself (it is a measurement tool).

use std::time::Instant;

use clap::builder::{RangedU64ValueParser, TypedValueParser};
use indicatif::ProgressBar;
use montmul::lab::{self, Kernel, Thresholds};
use montmul::{lanes, Modulus, Reduction, Residue};
use montmul_testkit::rand_core::RngCore;
use montmul_testkit::{random_modulus, to_limbs, TestRng};
use serde::Serialize;

use crate::arith::parse_reduction;
use crate::ct_subjects::{subject, FixedClass, PathKind, Subject, MAX_EXP_BYTES};
use crate::output::outln;
use crate::welch::{verdict, Moments, TTest, NO_LEAK};
use crate::CliError;

/// The most measurements per check: 10^8 runs for days at 4096 bits.
const MAX_MEASUREMENTS: u64 = 100_000_000;

/// The most entries in `--bits`: each one is a full set of checks.
const MAX_LIST: usize = 16;

/// The most measurements whose inputs are drawn at once, before one timed loop.
pub const BATCH: usize = 10_000;

/// The percentiles at which the cropped tests cut (of the warm-up's times).
const PERCENTILES: [f64; 5] = [0.5, 0.75, 0.9, 0.95, 0.99];

/// Arguments of `montmul ct-check`.
#[derive(clap::Args)]
pub struct Args {
    /// Measurements per check after the warm-up, 100..=100000000.
    #[arg(long, default_value_t = 2000,
          value_parser = RangedU64ValueParser::<u64>::new().range(100..=MAX_MEASUREMENTS))]
    measurements: u64,
    /// Modulus sizes in bits, comma-separated, 16..=16384 (at most 16 of them).
    #[arg(long, value_delimiter = ',', default_values_t = [256u32, 2048],
          value_parser = clap::value_parser!(u32).range(16..=16384))]
    bits: Vec<u32>,
    /// Paths to check, comma-separated: pow, mul, table, fixed-base (a base's
    /// precomputed powers, 32-byte exponents), pow-x2 (two exponentiations in lockstep
    /// on the pair kernel), pow-vartime (the control, a variable-time exponentiation that
    /// must be found leaking).
    #[arg(long, value_delimiter = ',', default_values = ["pow", "mul", "table", "fixed-base"],
          value_parser = clap::builder::PossibleValuesParser::new(["pow", "mul", "table", "fixed-base", "pow-x2", "pow-vartime"])
              .map(|s| PathKind::from_name(&s)))]
    paths: Vec<PathKind>,
    /// Reduction policies of the moduli, comma-separated: full, lazy.
    #[arg(long, value_delimiter = ',', default_values = ["full", "lazy"],
          value_parser = parse_reduction)]
    reductions: Vec<Reduction>,
    /// Only these kernels, comma-separated (by the name `montmul algos` gives; default:
    /// every kernel `auto` can pick at each size). The table reads are named by their
    /// domain: `limbs` or `amm52-ifma`.
    #[arg(long, value_delimiter = ',')]
    kernels: Vec<String>,
    /// The fixed class: `edge` (exponent 0x00..01, operands 0, table index 0: the
    /// values a data-dependent shortcut would take), `random` (one random value, drawn
    /// once per check and then kept), `one` (`mul`'s operands R mod n, Montgomery's 1;
    /// the other paths as `edge`) or `top` (exponent 0x80..00: table index 0 after the
    /// first window, the accumulator moving; the other paths as `edge`) or `base-one`
    /// (`pow`: random exponents in both classes, the fixed class on the base 1, the
    /// other on a random base; the other paths as `edge`).
    #[arg(long, value_enum, default_value_t = FixedClass::Edge)]
    fixed: FixedClass,
    /// Exponent length in bytes, 1..=2048, of `pow`, `pow-vartime`, `pow-x2` and
    /// `fixed-base`, and the length whose window sets the size of `table`'s table
    /// (default: the modulus' own length; `fixed-base` at most 32). A short exponent is
    /// Diffie-Hellman's case (a 225-bit key in ffdhe2048 takes 29 bytes), and it makes
    /// 10^6 measurements of `pow` affordable at 8192 and 16384 bits.
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_EXP_BYTES as u64))]
    exp_bytes: Option<usize>,
    /// Seed of the modulus, the inputs and the order of the classes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print a JSON object {unit, skipped, rows: [...]} instead of lines.
    #[arg(long)]
    json: bool,
    /// Exit with status 2 when a constant-time path (not the control) shows |t| above
    /// this (CI never passes it: timing is printed, not asserted). With `--confirm`,
    /// only when its second run does too.
    #[arg(long)]
    fail_above: Option<f64>,
    /// Measure every check that is not "no leak found" a second time (the same fixed
    /// input, a new order of the classes and new random inputs) and report whether the
    /// flag is reproduced. On a shared machine a transient state can flag a path once
    /// (docs/SECURITY.md, the 256- and 2048-bit flags): a leak in the code comes back.
    #[arg(long)]
    confirm: bool,
}

/// The time-stamp counter on x86-64: `lfence` before and after each read keeps the
/// timed call from overlapping the reads (Intel's recommended serialisation).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod timer {
    use core::arch::x86_64::{_mm_lfence, _rdtsc};

    /// The unit of [`now`].
    pub const UNIT: &str = "cycles";

    /// The counter, with the instructions before it completed.
    #[inline(always)]
    pub fn now() -> u64 {
        // SAFETY: `lfence` (SSE2) and `rdtsc` are part of the x86-64 baseline: every
        // x86-64 CPU has them; they read a counter and order loads, touching no memory.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }
}

/// The portable fallback: nanoseconds of a monotonic clock.
#[cfg(not(target_arch = "x86_64"))]
mod timer {
    use std::sync::OnceLock;
    use std::time::Instant;

    /// The unit of [`now`].
    pub const UNIT: &str = "ns";

    /// Nanoseconds since the first call.
    #[inline(always)]
    pub fn now() -> u64 {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// What one check measured.
#[derive(Serialize)]
struct Row {
    path: &'static str,
    bits: u32,
    kernel: String,
    reduction: &'static str,
    /// The exponent length in bytes (`table`: the one its window is for); `None`
    /// (JSON `null`) for `mul`.
    exponent_bytes: Option<usize>,
    measurements: u64,
    /// Welch's t over all measurements.
    t: f64,
    /// The largest |t| of the cropped tests (signed).
    t_cropped: f64,
    /// The percentile that cropped test cut at.
    cropped_at: f64,
    verdict: &'static str,
    /// With `--confirm`, for a flagged check: the second run.
    rerun: Option<Rerun>,
    /// Mean time of class 0 (fixed) and class 1 (random), in `unit`, over all
    /// measurements (preemptions and interrupts included).
    mean_fixed: f64,
    mean_random: f64,
    /// The same over the measurements below the warm-up's median (the typical call);
    /// `None` (JSON `null`, `-` in the line) for a class with no measurement there, as
    /// in a leak where one class is always the slower.
    typical_fixed: Option<f64>,
    typical_random: Option<f64>,
    seconds: f64,
}

/// The second run of a flagged check (`--confirm`).
#[derive(Serialize)]
struct Rerun {
    /// Welch's t over all its measurements.
    t: f64,
    /// Its largest cropped |t| (signed) and that test's percentile.
    t_cropped: f64,
    cropped_at: f64,
    verdict: &'static str,
    /// Whether it is flagged too (its verdict is not "no leak found").
    reproduced: bool,
}

impl Row {
    /// The |t| a check is judged by: the larger of the whole and the cropped test's,
    /// and with a second run the smaller of the two runs' (both must show it).
    fn worst(&self) -> f64 {
        let first = self.t.abs().max(self.t_cropped.abs());
        match &self.rerun {
            Some(r) => first.min(r.t.abs().max(r.t_cropped.abs())),
            None => first,
        }
    }
}

/// The measured statistics of one check.
struct Measured {
    raw: TTest,
    cropped: [TTest; PERCENTILES.len()],
}

impl Measured {
    /// Welch's t over all measurements, the worst cropped test's t and percentile, and
    /// the verdict by the larger |t| of the two.
    fn judged(&self) -> (f64, f64, f64, &'static str) {
        let (t_cropped, cropped_at) = self.worst_cropped();
        let t = self.raw.t();
        (
            t,
            t_cropped,
            cropped_at,
            verdict(t.abs().max(t_cropped.abs())),
        )
    }

    /// The cropped test with the largest |t|, and its percentile.
    fn worst_cropped(&self) -> (f64, f64) {
        self.cropped
            .iter()
            .zip(PERCENTILES)
            .map(|(t, p)| (t.t(), p))
            .fold((0.0, PERCENTILES[0]), |best, cur| {
                if cur.0.abs() > best.0.abs() {
                    cur
                } else {
                    best
                }
            })
    }
}

/// The warm-up for `n` measurements: a tenth, at least 100 and at most one batch.
pub fn warm_up(n: u64) -> usize {
    (n / 10).clamp(100, BATCH as u64) as usize
}

/// Times `n` calls of `subject` after a warm-up, the classes in a random order drawn
/// with the inputs before each timed loop.
fn measure(subject: &mut dyn Subject, n: u64, rng: &mut TestRng, bar: &ProgressBar) -> Measured {
    let mut m = Measured {
        raw: TTest::default(),
        cropped: [TTest::default(); PERCENTILES.len()],
    };
    let mut thresholds = [u64::MAX; PERCENTILES.len()];
    let mut classes = Vec::with_capacity(BATCH);
    let mut times = vec![0u64; BATCH];
    let warm = warm_up(n);
    let mut kept = 0u64;
    let mut first = true;
    while kept < n {
        let len = if first {
            warm
        } else {
            (n - kept).min(BATCH as u64) as usize
        };
        classes.clear();
        classes.extend((0..len).map(|_| (rng.next_u32() & 1) as u8));
        subject.prepare(&classes, rng);
        for (i, t) in times[..len].iter_mut().enumerate() {
            let start = timer::now();
            subject.run(i);
            *t = timer::now().wrapping_sub(start);
        }
        if first {
            let mut sorted = times[..len].to_vec();
            sorted.sort_unstable();
            for (th, p) in thresholds.iter_mut().zip(PERCENTILES) {
                *th = sorted[((len as f64 * p) as usize).min(len - 1)];
            }
            first = false;
        } else {
            for (&t, &c) in times[..len].iter().zip(&classes) {
                let (x, c) = (t as f64, c as usize);
                m.raw.push(c, x);
                for (test, &th) in m.cropped.iter_mut().zip(&thresholds) {
                    if t <= th {
                        test.push(c, x);
                    }
                }
            }
            kept += len as u64;
        }
        bar.inc(len as u64);
    }
    m
}

/// The kernels `auto` can pick for `n` under each policy: on this CPU, without AVX-512
/// IFMA, and without BMI2/ADX either; each (kernel, policy) once, as the modulus `n`
/// built for it.
fn candidates(
    n: &[u64],
    bits: u32,
    reductions: &[Reduction],
) -> Result<Vec<Modulus<u64>>, CliError> {
    let tuned = lab::TUNED;
    let variants = [
        tuned,
        Thresholds {
            ifma_from: usize::MAX,
            ..tuned
        },
        Thresholds {
            ifma_from: usize::MAX,
            mulx_from: usize::MAX,
            mulx_redc: &[],
            mulx_cios: &[],
            ..tuned
        },
    ];
    let mut out: Vec<Modulus<u64>> = Vec::new();
    for &r in reductions {
        let headroom = if r == Reduction::Lazy { 2 } else { 0 };
        let s = (bits + headroom).div_ceil(64) as usize;
        for th in &variants {
            let k: &'static dyn Kernel<u64> = lab::pick(th, s, r);
            let m = Modulus::with_kernel(n, k, r)?;
            let name = m.engine().info().name;
            if !out
                .iter()
                .any(|c| c.engine().info().name == name && c.reduction() == r)
            {
                out.push(m);
            }
        }
    }
    Ok(out)
}

/// The kernels of the catalogue that `auto` could pick but this CPU cannot run.
fn skipped() -> Vec<String> {
    ["amm52-ifma", "mulx-cios", "mulx-redc"]
        .into_iter()
        .filter_map(|name| lab::by_name::<u64>(name).ok())
        .filter(|k| !(k.info().available)())
        .map(|k| {
            format!(
                "SKIPPED: {} (this CPU lacks what it needs: {})",
                k.info().name,
                if k.info().name == "amm52-ifma" {
                    "AVX-512 IFMA"
                } else {
                    "BMI2 and ADX"
                }
            )
        })
        .collect()
}

/// One planned check: what, on which modulus (and for `pow-x2` the second one), with
/// how many measurements.
struct Plan {
    path: PathKind,
    bits: u32,
    m: Modulus<u64>,
    second: Option<Modulus<u64>>,
    kernel: String,
}

/// The checks for every size, path and kernel asked for, and a line for each check
/// that cannot run here.
fn plan(args: &Args, rng: &mut TestRng) -> Result<(Vec<Plan>, Vec<String>), CliError> {
    let mut plans = Vec::new();
    let mut skipped = Vec::new();
    for &bits in &args.bits {
        let n = to_limbs::<u64>(&random_modulus(rng, bits), bits.div_ceil(64) as usize);
        let cands = candidates(&n, bits, &args.reductions)?;
        for &path in &args.paths {
            match path {
                // The control: `auto`'s own pick, the default policy.
                PathKind::PowVartime => {
                    let m = Modulus::new(&n)?;
                    let kernel = m.engine().info().name.to_string();
                    plans.push(Plan {
                        path,
                        bits,
                        m,
                        second: None,
                        kernel,
                    });
                }
                // The table read depends on the ladder's domain only: once per domain and
                // policy (the limbs of every scalar kernel are one domain).
                PathKind::Table => {
                    let mut seen: Vec<(String, Reduction)> = Vec::new();
                    for m in &cands {
                        let domain = if m.engine().pow_domain(m).is_some() {
                            m.engine().info().name
                        } else {
                            "limbs"
                        };
                        if !seen.contains(&(domain.to_string(), m.reduction())) {
                            seen.push((domain.to_string(), m.reduction()));
                            plans.push(Plan {
                                path,
                                bits,
                                m: m.clone(),
                                second: None,
                                kernel: domain.to_string(),
                            });
                        }
                    }
                }
                // The pair: `auto`'s moduli (which the pair takes from 385 bits, on
                // `amm52-ifma` or `mulx-cios`) and a second random modulus of the size,
                // under each policy, where the pair kernel covers them (a probe with
                // one-byte exponents tells).
                PathKind::PowX2 => {
                    let n2 =
                        to_limbs::<u64>(&random_modulus(rng, bits), bits.div_ceil(64) as usize);
                    let auto = lab::by_name::<u64>("auto")?;
                    for &r in &args.reductions {
                        let (m, m2) = (
                            Modulus::with_kernel(&n, auto, r)?,
                            Modulus::with_kernel(&n2, auto, r)?,
                        );
                        let one = |m: &Modulus<u64>| Residue::one(m);
                        match lanes::pow_x2_lockstep(&one(&m), &[1], &one(&m2), &[1]) {
                            Ok(_) => plans.push(Plan {
                                path,
                                bits,
                                m,
                                second: Some(m2),
                                kernel: "amm52x2-ifma".to_string(),
                            }),
                            Err(e) => skipped
                                .push(format!("SKIPPED: pow-x2 at {bits} bits, {}: {e}", r.name())),
                        }
                    }
                }
                _ => {
                    for m in &cands {
                        plans.push(Plan {
                            path,
                            bits,
                            m: m.clone(),
                            second: None,
                            kernel: m.engine().info().name.to_string(),
                        });
                    }
                }
            }
        }
    }
    if !args.kernels.is_empty() {
        let mut names: Vec<String> = plans.iter().map(|p| p.kernel.clone()).collect();
        names.sort();
        names.dedup();
        plans.retain(|p| args.kernels.contains(&p.kernel));
        if plans.is_empty() && skipped.is_empty() {
            return Err(CliError(format!(
                "--kernels: none of {} is checked here (the kernels auto can pick: {})",
                args.kernels.join(","),
                names.join(",")
            )));
        }
    }
    Ok((plans, skipped))
}

/// Runs `montmul ct-check`.
pub fn run(args: Args) -> Result<(), CliError> {
    if args.bits.len() > MAX_LIST {
        return Err(CliError(format!(
            "--bits: at most {MAX_LIST} sizes, not {}",
            args.bits.len()
        )));
    }
    if args.exp_bytes.is_some() && args.paths.iter().all(|&p| p == PathKind::Mul) {
        return Err(CliError(
            "--exp-bytes: the mul path takes no exponent (pow, table, fixed-base, pow-x2 and pow-vartime do)".into(),
        ));
    }
    if let Some(t) = args.fail_above {
        if !(t.is_finite() && t > 0.0) {
            return Err(CliError(format!("--fail-above: a positive |t|, not {t}")));
        }
    }
    let mut rng = TestRng::new(args.seed);
    let (plans, mut skipped_here) = plan(&args, &mut rng)?;
    let mut skipped = skipped();
    skipped.append(&mut skipped_here);
    if !args.json {
        for line in &skipped {
            outln!("{line}")?;
        }
    }
    let per = args.measurements + warm_up(args.measurements) as u64;
    let bar = crate::progress::bar(per * plans.len() as u64, "ct-check");
    let mut rows = Vec::new();
    for p in &plans {
        bar.set_message(format!("{} {} bits {}", p.path.name(), p.bits, p.kernel));
        let mut s = subject(
            p.path,
            &p.m,
            p.second.as_ref(),
            args.fixed,
            args.exp_bytes,
            &mut rng,
        )?;
        let start = Instant::now();
        let measured = measure(s.as_mut(), args.measurements, &mut rng, &bar);
        let (t, t_cropped, cropped_at, found) = measured.judged();
        let rerun = (args.confirm && found != NO_LEAK).then(|| {
            bar.inc_length(per);
            let second = measure(s.as_mut(), args.measurements, &mut rng, &bar);
            let (t, t_cropped, cropped_at, again) = second.judged();
            Rerun {
                t,
                t_cropped,
                cropped_at,
                verdict: again,
                reproduced: again != NO_LEAK,
            }
        });
        let row = Row {
            path: p.path.name(),
            bits: p.bits,
            kernel: p.kernel.clone(),
            reduction: p.m.reduction().name(),
            exponent_bytes: s.exponent_bytes(),
            measurements: measured.raw.count(),
            t,
            t_cropped,
            cropped_at,
            verdict: found,
            rerun,
            mean_fixed: measured.raw.class(0).mean(),
            mean_random: measured.raw.class(1).mean(),
            typical_fixed: typical(measured.cropped[0].class(0)),
            typical_random: typical(measured.cropped[0].class(1)),
            seconds: start.elapsed().as_secs_f64(),
        };
        if !args.json {
            bar.suspend(|| outln!("{}", line(&row)))?;
        }
        rows.push(row);
    }
    bar.finish_and_clear();
    if args.json {
        let doc = serde_json::json!({
            "unit": timer::UNIT,
            "skipped": skipped,
            "rows": rows,
        });
        outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    }
    if let Some(limit) = args.fail_above {
        let over = rows
            .iter()
            .filter(|r| r.path != PathKind::PowVartime.name())
            .find(|r| r.worst() > limit);
        if let Some(r) = over {
            let again = match &r.rerun {
                Some(a) => format!(
                    ", again {:.2} (cropped {:.2})",
                    a.t.abs(),
                    a.t_cropped.abs()
                ),
                None => String::new(),
            };
            return Err(CliError(format!(
                "{} at {} bits on {}/{}: |t| {:.2} (cropped {:.2}){again} above --fail-above {limit}",
                r.path,
                r.bits,
                r.kernel,
                r.reduction,
                r.t.abs(),
                r.t_cropped.abs()
            )));
        }
    }
    Ok(())
}

/// The mean of a class's measurements, `None` where it has none.
fn typical(m: &Moments) -> Option<f64> {
    (m.count() > 0).then(|| m.mean())
}

/// A typical time for the line: whole units, or `-` for none.
fn shown(t: Option<f64>) -> String {
    t.map_or_else(|| "-".to_string(), |t| format!("{t:.0}"))
}

/// One line of the report, and the second run's where there is one.
fn line(r: &Row) -> String {
    let again = match &r.rerun {
        Some(a) => format!(
            "\n{:<19}again: |t| {:>6.2}  cropped {:>6.2} (p{:02.0})  {}",
            "",
            a.t.abs(),
            a.t_cropped.abs(),
            a.cropped_at * 100.0,
            if a.reproduced {
                "reproduced"
            } else {
                "not reproduced"
            }
        ),
        None => String::new(),
    };
    let exponent = r
        .exponent_bytes
        .map_or_else(|| "-".to_string(), |n| format!("{n} B"));
    let first = format!(
        "{:<11} {:>5} bits  {:<12} {:<4}  e {:<6} N={:<9} |t| {:>6.2}  cropped {:>6.2} (p{:02.0})  \
         {:<14}  typical {}/{} {} fixed/random, {:.1} s",
        r.path,
        r.bits,
        r.kernel,
        r.reduction,
        exponent,
        r.measurements,
        r.t.abs(),
        r.t_cropped.abs(),
        r.cropped_at * 100.0,
        r.verdict,
        shown(r.typical_fixed),
        shown(r.typical_random),
        timer::UNIT,
        r.seconds
    );
    first + &again
}
