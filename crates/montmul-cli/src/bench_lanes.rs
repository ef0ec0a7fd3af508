//! `montmul bench --lanes N`: the multi-buffer kernels of [`montmul::lanes`] against the
//! same N jobs one by one.
//!
//! Per size and operation, N jobs with different moduli (one per lane, from the seeds
//! `seed`, `seed + 1`, ...) are timed in four forms, their rounds interleaved so that
//! noise on the machine falls on all of them alike:
//!
//! - `one-by-one:auto`: each job through its own modulus' `auto` kernel (the best single
//!   kernel on this CPU), one after the other;
//! - `mul_lanes` / `pow_lanes`: the lanes seam, with the engine it picks;
//! - `amm52x8-ifma`: the 8-lane kernel (for N <= 4 its four lanes on 256-bit
//!   registers), whatever the seam would pick
//!   ([`montmul::lanes::mul_lanes_mb8`], [`montmul::lanes::pow_lanes_mb8`]);
//! - with N = 2, `amm52x2-ifma`: the two exponentiations in lockstep
//!   ([`montmul::lanes::pow_x2_lockstep`], moduli on `amm52-ifma`).
//!
//! Before any timing every form's results are checked equal to num-bigint's and to the
//! jobs one by one; a disagreement is an error, not a row. A form this CPU or size
//! lacks (no AVX-512 IFMA, a size the kernel has no code for) is skipped with a line
//! saying so. The ratio `speed-up` is the jobs one by one's time over the form's.

use std::time::Duration;

use montmul::lanes::{self, MAX_LANES};
use montmul::{lab, Error, Modulus, Reduction, Residue};
use montmul_peers::Inputs;
use num_bigint::BigUint;
use serde::Serialize;

use crate::bench::{measure, Args};
use crate::output::outln;
use crate::CliError;

/// What every row's results were checked equal to before it was timed.
const CHECKED: [&str; 2] = ["num-bigint", "one-by-one"];

/// The name of the jobs one by one.
const ONE_BY_ONE: &str = "one-by-one:auto";

/// The 8-lane kernel's name.
const MB8: &str = "amm52x8-ifma";

/// The pair kernel's name.
const PAIR: &str = "amm52x2-ifma";

/// One measured form.
#[derive(Serialize)]
struct Row {
    op: &'static str,
    bits: u32,
    #[serde(rename = "impl")]
    name: &'static str,
    /// Jobs per call.
    lanes: usize,
    /// Median nanoseconds per call (all lanes).
    ns: f64,
    /// `ns` per job.
    ns_per_op: f64,
    /// The jobs one by one's `ns` over this row's.
    speedup: f64,
    /// What the results were checked equal to before timing.
    checked: [&'static str; 2],
}

/// The N jobs of one size: residues of different moduli, exponents and the oracle's
/// answers.
struct Jobs {
    a: Vec<Residue<u64>>,
    b: Vec<Residue<u64>>,
    e: Vec<Vec<u8>>,
    /// num-bigint's `a b mod n` per lane.
    products: Vec<BigUint>,
    /// num-bigint's `a^e mod n` per lane.
    powers: Vec<BigUint>,
}

impl Jobs {
    fn new(bits: u32, lanes: usize, seed: u64) -> Result<Self, CliError> {
        let mut jobs = Jobs {
            a: Vec::new(),
            b: Vec::new(),
            e: Vec::new(),
            products: Vec::new(),
            powers: Vec::new(),
        };
        for l in 0..lanes as u64 {
            let inputs = Inputs::random(bits, seed.wrapping_add(l));
            let m = Modulus::<u64>::from_be_bytes(&inputs.n)?;
            jobs.a.push(Residue::from_be_bytes(&m, &inputs.a)?);
            jobs.b.push(Residue::from_be_bytes(&m, &inputs.b)?);
            let f = BigUint::from_bytes_be;
            let (n, a, b, e) = (f(&inputs.n), f(&inputs.a), f(&inputs.b), f(&inputs.e));
            jobs.products.push(&a * &b % &n);
            jobs.powers.push(a.modpow(&e, &n));
            jobs.e.push(inputs.e);
        }
        Ok(jobs)
    }

    fn exponents(&self) -> Vec<&[u8]> {
        self.e.iter().map(Vec::as_slice).collect()
    }

    /// The residues of `x` on moduli with the kernel `amm52-ifma` (the pair kernel's).
    fn on_amm52(x: &[Residue<u64>]) -> Result<Vec<Residue<u64>>, Error> {
        let k = lab::by_name::<u64>("amm52-ifma")?;
        x.iter()
            .map(|r| {
                let m = Modulus::with_kernel(r.modulus().n(), k, Reduction::Full)?;
                Residue::from_be_bytes(&m, &r.to_be_bytes())
            })
            .collect()
    }
}

/// Checks `got` against the oracle's `want` and the jobs one by one's `one`.
fn check(
    (op, bits, name): (&str, u32, &str),
    got: &[Residue<u64>],
    want: &[BigUint],
    one: &[Residue<u64>],
) -> Result<(), CliError> {
    let value = |r: &Residue<u64>| BigUint::from_bytes_be(&r.to_be_bytes());
    for (l, (g, w)) in got.iter().zip(want).enumerate() {
        if &value(g) != w {
            return Err(CliError(format!(
                "{name} disagrees with num-bigint on {op} at {bits} bits, lane {l}"
            )));
        }
        if value(g) != value(&one[l]) {
            return Err(CliError(format!(
                "{name} disagrees with the jobs one by one on {op} at {bits} bits, lane {l}"
            )));
        }
    }
    if got.len() != want.len() {
        return Err(CliError(format!(
            "{name} gave {} results for {} lanes",
            got.len(),
            want.len()
        )));
    }
    Ok(())
}

/// A form of one operation: its name and one call on all lanes.
type Form<'j> = (&'static str, Box<dyn Fn() -> Vec<Residue<u64>> + 'j>);

/// The forms of `op` on `jobs` that run here, each checked; a form that cannot run
/// here goes to `skipped`.
fn forms<'j>(
    op: &'static str,
    bits: u32,
    jobs: &'j Jobs,
    pair: Option<&'j [Residue<u64>]>,
    skipped: &mut Vec<String>,
) -> Result<Vec<Form<'j>>, CliError> {
    let (a, b) = (&jobs.a, &jobs.b);
    type Call<'j> = Box<dyn Fn() -> Result<Vec<Residue<u64>>, Error> + 'j>;
    let mut all: Vec<(&'static str, Call<'j>)> = Vec::new();
    if op == "mul" {
        all.push((
            ONE_BY_ONE,
            Box::new(move || Ok(a.iter().zip(b).map(|(x, y)| x * y).collect())),
        ));
        all.push(("mul_lanes", Box::new(move || lanes::mul_lanes(a, b))));
        all.push((MB8, Box::new(move || lanes::mul_lanes_mb8(a, b))));
    } else {
        all.push((
            ONE_BY_ONE,
            Box::new(move || Ok(a.iter().zip(&jobs.e).map(|(x, e)| x.pow(e)).collect())),
        ));
        all.push((
            "pow_lanes",
            Box::new(move || lanes::pow_lanes(a, &jobs.exponents())),
        ));
        all.push((
            MB8,
            Box::new(move || lanes::pow_lanes_mb8(a, &jobs.exponents())),
        ));
        if let Some(p) = pair {
            let e = &jobs.e;
            all.push((
                PAIR,
                Box::new(move || {
                    let (x, y) = lanes::pow_x2_lockstep(&p[0], &e[0], &p[1], &e[1])?;
                    Ok(vec![x, y])
                }),
            ));
        }
    }
    let want = if op == "mul" {
        &jobs.products
    } else {
        &jobs.powers
    };
    let one = (all[0].1)()?;
    let mut out: Vec<Form<'j>> = Vec::new();
    for (name, f) in all {
        match f() {
            Ok(got) => check((op, bits, name), &got, want, &one)?,
            Err(e) => {
                skipped.push(format!("{op} {bits} bits {name}: SKIPPED: {e}"));
                continue;
            }
        }
        out.push((name, Box::new(move || f().unwrap_or_default())));
    }
    Ok(out)
}

/// `montmul bench --lanes N`.
pub fn run(args: &Args, n: usize) -> Result<(), CliError> {
    if !(1..=MAX_LANES).contains(&n) {
        return Err(CliError(format!(
            "--lanes must be in 1..={MAX_LANES} (the 64-bit lanes of one 512-bit vector), not {n}"
        )));
    }
    let ops: Vec<&'static str> = if args.ops.is_empty() {
        vec!["mul", "exp"]
    } else {
        let mut ops = Vec::new();
        for op in &args.ops {
            match op.as_str() {
                "mul" => ops.push("mul"),
                "exp" => ops.push("exp"),
                _ => {
                    return Err(CliError(format!(
                        "--ops: '{op}' has no multi-buffer form (with --lanes: mul, exp)"
                    )))
                }
            }
        }
        ops
    };
    let sizes = if args.bits.is_empty() {
        vec![512, 1024, 2048, 4096]
    } else {
        args.bits.clone()
    };
    for &b in &sizes {
        if !(64..=8192).contains(&b) || b % 8 != 0 {
            return Err(CliError(format!(
                "--bits: {b} is not a multiple of 8 in 64..8192 (with --lanes)"
            )));
        }
    }
    let mut skipped = Vec::new();
    if lanes::catalog().is_empty() {
        skipped.push(format!("{MB8}, {PAIR}: SKIPPED: x86-64 only"));
    } else if !lanes::catalog().iter().all(|k| (k.info.available)()) {
        skipped.push(format!(
            "{MB8}, {PAIR}: SKIPPED: this CPU lacks AVX-512 IFMA"
        ));
    }
    let lacking = !skipped.is_empty();
    let target = Duration::from_millis(args.batch_ms.max(1));
    let bar = crate::progress::bar((sizes.len() * ops.len()) as u64, "bench --lanes");
    let mut rows = Vec::new();
    for &bits in &sizes {
        let jobs = Jobs::new(bits, n, args.seed)?;
        let pair = match (n, lacking) {
            (2, false) => match Jobs::on_amm52(&jobs.a) {
                Ok(p) => Some(p),
                Err(e) => {
                    skipped.push(format!("exp {bits} bits {PAIR}: SKIPPED: {e}"));
                    None
                }
            },
            _ => None,
        };
        for &op in &ops {
            bar.set_message(format!("{bits} bits {op}: checking agreement"));
            let mut local = Vec::new();
            let fs = forms(op, bits, &jobs, pair.as_deref(), &mut local)?;
            if lacking {
                // The kernels' absence is said once, not per size.
                local.retain(|s| !s.contains("lacks") && !s.contains("x86-64 only"));
            }
            skipped.extend(local);
            bar.set_message(format!("{bits} bits {op}: timing"));
            let mut runners: Vec<Box<dyn FnMut(u64) + '_>> = fs
                .iter()
                .map(|(_, f)| {
                    Box::new(move |iters: u64| {
                        for _ in 0..iters {
                            std::hint::black_box(f());
                        }
                    }) as Box<dyn FnMut(u64)>
                })
                .collect();
            let times = measure(&mut runners, args.rounds, target, args.stat);
            let base = times[0];
            for ((name, _), ns) in fs.iter().zip(times) {
                rows.push(Row {
                    op,
                    bits,
                    name,
                    lanes: n,
                    ns,
                    ns_per_op: ns / n as f64,
                    speedup: base / ns,
                    checked: CHECKED,
                });
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    if args.json {
        for s in &skipped {
            eprintln!("{s}");
        }
        outln!("{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(());
    }
    outln!(
        "{:<5} {:>6}  {:<16} {:>5} {:>14} {:>12} {:>9}",
        "op",
        "bits",
        "impl",
        "lanes",
        "ns/call",
        "ns/op",
        "speed-up"
    )?;
    for r in &rows {
        outln!(
            "{:<5} {:>6}  {:<16} {:>5} {:>14.1} {:>12.1} {:>8.2}x",
            r.op,
            r.bits,
            r.name,
            r.lanes,
            r.ns,
            r.ns_per_op,
            r.speedup
        )?;
    }
    for s in &skipped {
        outln!("{s}")?;
    }
    outln!(
        "{n} jobs of different moduli per call; every row's results were checked equal to \
         num-bigint's and to the jobs one by one before timing. speed-up = one-by-one:auto's \
         time / this row's; > 1 means the form is faster."
    )
}
