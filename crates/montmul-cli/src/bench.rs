//! `montmul bench`: nanoseconds per Montgomery multiplication, squaring and full-size
//! constant-time exponentiation, for montmul's kernels and, with `--peers`, for GMP,
//! OpenSSL, num-bigint and crypto-bigint in the same process, on the same inputs,
//! interleaved round by round so that machine noise hits everyone alike (the
//! multiplications and squarings in one rotation, so that a kernel's sqr/mul ratio is
//! measured under the same noise as well). With `--peers`, GMP 6.3 built for this CPU
//! (`montmul_peers::gmp63`) follows in a subprocess where it is built, on the same
//! inputs, as the rows `gmp-6.3` and `gmp-6.3:powm`; where it is not, a note says how
//! to build it.
//!
//! Before any timing, every implementation's product and power are checked equal to
//! num-bigint's; a disagreement is an error, not a row in the table. `--pk`, `--threads`
//! and `--lanes` (the multi-buffer kernels) are measurements of their own
//! (`bench_pk`, `bench_threads`, `bench_lanes`).

use std::cell::RefCell;
use std::time::{Duration, Instant};

use clap::builder::RangedU64ValueParser;
use montmul::encoding::be_bytes_to_limbs;
use montmul::lab::{self, Kernel};
use montmul::{Error, Modulus, Residue};
use montmul_peers::{Contender, Inputs};
use num_bigint::BigUint;
use serde::Serialize;

use crate::output::outln;
use crate::CliError;

/// The most rounds per measurement: a median of 10^4 batches is already exact, and
/// every round runs every implementation once (10^12 rounds asked for 8 TB at once).
const MAX_ROUNDS: u64 = 10_000;

/// The longest timed batch, in milliseconds.
const MAX_BATCH_MS: u64 = 10_000;

/// The most entries in the `--bits` and `--algo` lists: each one is a full measurement.
const MAX_LIST: usize = 64;

/// Arguments of `montmul bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Modulus sizes in bits, comma-separated (multiples of 8, 64..16384; default
    /// 256,384,512,1024,2048,3072,4096, or 4096..65536 with --threads).
    #[arg(long, value_delimiter = ',')]
    pub(crate) bits: Vec<u32>,
    /// montmul kernels to time, comma-separated (default: every 64-bit kernel). A kernel
    /// made for some sizes only (`gen-cios`) is timed at the sizes it has code for.
    #[arg(long, value_delimiter = ',')]
    algo: Vec<String>,
    /// Operations to time, comma-separated: mul, sqr, exp (default: all three); with
    /// --pk: rsa-sign, rsa-verify, dsa-sign, dsa-verify, dh-derive (default: all five).
    #[arg(long, value_delimiter = ',')]
    pub(crate) ops: Vec<String>,
    /// Also time GMP, OpenSSL, num-bigint and crypto-bigint on the same inputs, and GMP
    /// 6.3 built for this CPU where peers/gmp63 is built (or $MONTMUL_GMP63 names it).
    #[arg(long)]
    peers: bool,
    /// Instead of the kernels: RSA (PKCS#1 v1.5, SHA-256), DSA and DH of montmul-pk
    /// beside OpenSSL 3.0, ring and the rsa crate, on the same keys (default --bits:
    /// 2048,3072,4096 for RSA, 2048,3072 for DSA and DH).
    #[arg(long, conflicts_with_all = ["peers", "algo"])]
    pk: bool,
    /// With --pk: also OpenSSL 4.0, as Python's `cryptography` bundles it, through
    /// `benches/openssl4.py` (needs python3 and the cryptography package).
    #[arg(long, requires = "pk")]
    openssl4: bool,
    /// Interleaved rounds per measurement, 1..=10000; the median (or, with --stat min,
    /// the fastest) is reported.
    #[arg(long, default_value_t = 7,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_ROUNDS))]
    pub(crate) rounds: usize,
    /// Target duration of one timed batch, in milliseconds, 0..=10000 (0 means 1).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=MAX_BATCH_MS))]
    pub(crate) batch_ms: u64,
    /// How each row's rounds are summarised: `median`, or `min`, the fastest round,
    /// which moves less where other work shares the machine. OpenSSL 4.0 (--openssl4,
    /// in another process) reports either; GMP 6.3 (also in another process) reports
    /// medians only, so with `min` it is left out (a note says so).
    #[arg(long, value_enum, default_value_t = Stat::Median)]
    pub(crate) stat: Stat,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Print a JSON array of {op, bits, impl, ns} instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
    /// Instead of the kernels: seed 002's method-II on 1..N threads for one large
    /// multiplication (4096..65536 bits), and rayon batches of exponentiations on 1..N
    /// threads. With --pk, 2 also times RSA signing with the two CRT halves on two
    /// cores (the row `montmul-2threads`; rsa-sign must be among --ops). Without --pk
    /// it times its own operations: no --algo, --ops or --peers.
    #[arg(long, conflicts_with_all = ["peers", "algo"])]
    pub(crate) threads: Option<usize>,
    /// Instead of the kernels: N jobs of different moduli (1..=8) through the
    /// multi-buffer kernels (amm52x8-ifma, pow_lanes, and with N = 2 amm52x2-ifma)
    /// against the same N jobs one by one, per operation (mul, exp).
    #[arg(long, conflicts_with_all = ["peers", "algo", "pk", "threads"])]
    pub(crate) lanes: Option<usize>,
}

/// How the rounds of one measurement are summarised (`--stat`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    /// The median round.
    Median,
    /// The fastest round.
    Min,
}

impl Stat {
    /// The round's time this statistic picks from `samples` (nanoseconds per
    /// iteration, one per round; at least one).
    pub(crate) fn of(self, samples: Vec<f64>) -> f64 {
        match self {
            Stat::Median => median(samples),
            Stat::Min => samples.into_iter().fold(f64::INFINITY, f64::min),
        }
    }

    /// The word the tables print beside the times (and `benches/openssl4.py` takes).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Stat::Median => "median",
            Stat::Min => "min",
        }
    }
}

/// One measured time (the median round, or the fastest with `--stat min`).
#[derive(Serialize, Clone)]
pub struct Row {
    pub(crate) op: &'static str,
    pub(crate) bits: u32,
    #[serde(rename = "impl")]
    pub(crate) name: String,
    pub(crate) ns: f64,
}

impl Row {
    pub(crate) fn new(op: &'static str, bits: u32, name: String, ns: f64) -> Self {
        Row { op, bits, name, ns }
    }
}

/// montmul with one kernel and 64-bit limbs, as a contender. The residues are owned;
/// the timed loops run the kernel on their limbs through [`Modulus::mont_mul`], so that
/// the rows measure the kernels themselves.
struct Montmul {
    name: String,
    m: Modulus<u64>,
    a: Residue<u64>,
    b: Residue<u64>,
    x: Vec<u64>,
    t: Vec<u64>,
    e: Vec<u8>,
}

impl Montmul {
    fn new(k: &'static dyn Kernel<u64>, inputs: &Inputs) -> Result<Self, Error> {
        let m = Modulus::with_kernel(&be_bytes_to_limbs(&inputs.n), k, k.info().reductions[0])?;
        let a = Residue::from_be_bytes(&m, &inputs.a)?;
        let b = Residue::from_be_bytes(&m, &inputs.b)?;
        Ok(Montmul {
            name: format!("montmul:{}", k.info().name),
            x: a.montgomery_limbs().to_vec(),
            t: vec![0; m.limbs()],
            a,
            b,
            e: inputs.e.clone(),
            m,
        })
    }
}

impl Contender for Montmul {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn mul_result(&mut self) -> Vec<u8> {
        (&self.a * &self.b).to_be_bytes()
    }
    fn exp_result(&mut self) -> Vec<u8> {
        self.a.pow(&self.e).to_be_bytes()
    }
    fn run_mul(&mut self, iters: u64) {
        let b = self.b.montgomery_limbs();
        for _ in 0..iters {
            self.m.mont_mul(&self.x, b, &mut self.t);
            std::mem::swap(&mut self.x, &mut self.t);
        }
    }
    fn run_sqr(&mut self, iters: u64) {
        for _ in 0..iters {
            self.m.mont_sqr(&self.x, &mut self.t);
            std::mem::swap(&mut self.x, &mut self.t);
        }
    }
    fn run_exp(&mut self, iters: u64) {
        for _ in 0..iters {
            std::hint::black_box(self.a.pow(&self.e));
        }
    }
}

fn run(c: &mut dyn Contender, op: &str, iters: u64) {
    match op {
        "mul" => c.run_mul(iters),
        "sqr" => c.run_sqr(iters),
        _ => c.run_exp(iters),
    }
}

/// Iterations that make one batch of `f` last about `target`.
fn calibrate(f: &mut dyn FnMut(u64), target: Duration) -> u64 {
    let mut iters = 1u64;
    loop {
        let t = Instant::now();
        f(iters);
        let dt = t.elapsed();
        if dt >= target || iters >= 1 << 24 {
            return iters;
        }
        let scale = (target.as_secs_f64() / dt.as_secs_f64().max(1e-9)).clamp(2.0, 100.0);
        iters = ((iters as f64) * scale).ceil() as u64;
    }
}

/// Nanoseconds per iteration of each runner, the median round or the fastest
/// (`stat`): each is calibrated to batches of about `target`, then the runners take
/// turns, `rounds` times, so that noise on the machine falls on all of them alike.
pub(crate) fn measure(
    runners: &mut [Box<dyn FnMut(u64) + '_>],
    rounds: usize,
    target: Duration,
    stat: Stat,
) -> Vec<f64> {
    let iters: Vec<u64> = runners
        .iter_mut()
        .map(|f| calibrate(f.as_mut(), target))
        .collect();
    let mut samples = vec![Vec::with_capacity(rounds); runners.len()];
    for _ in 0..rounds {
        for (i, f) in runners.iter_mut().enumerate() {
            let t = Instant::now();
            f(iters[i]);
            samples[i].push(t.elapsed().as_nanos() as f64 / iters[i] as f64);
        }
    }
    samples.into_iter().map(|s| stat.of(s)).collect()
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn kernels(names: &[String]) -> Result<Vec<&'static dyn Kernel<u64>>, CliError> {
    if names.is_empty() {
        return Ok(lab::all::<u64>()
            .iter()
            .copied()
            .filter(|k| k.info().words.contains(&64) && (k.info().available)())
            .collect());
    }
    names.iter().map(|n| Ok(lab::by_name::<u64>(n)?)).collect()
}

/// Checks that every contender computes num-bigint's product and power.
fn check_agreement(
    cs: &mut [Box<dyn Contender>],
    inputs: &Inputs,
    bits: u32,
) -> Result<(), CliError> {
    let f = BigUint::from_bytes_be;
    let (n, a, b, e) = (f(&inputs.n), f(&inputs.a), f(&inputs.b), f(&inputs.e));
    let mul = montmul_peers::trim(&((&a * &b) % &n).to_bytes_be());
    let exp = montmul_peers::trim(&a.modpow(&e, &n).to_bytes_be());
    for c in cs.iter_mut() {
        if montmul_peers::trim(&c.mul_result()) != mul {
            return Err(CliError(format!(
                "{} disagrees with num-bigint on a product at {bits} bits",
                c.name()
            )));
        }
        if montmul_peers::trim(&c.exp_result()) != exp {
            return Err(CliError(format!(
                "{} disagrees with num-bigint on a power at {bits} bits",
                c.name()
            )));
        }
    }
    Ok(())
}

/// `montmul bench`.
pub fn run_bench(mut args: Args) -> Result<(), CliError> {
    for (flag, len) in [("--bits", args.bits.len()), ("--algo", args.algo.len())] {
        if len > MAX_LIST {
            return Err(CliError(format!(
                "{flag}: at most {MAX_LIST} entries, not {len}"
            )));
        }
    }
    if args.pk {
        return crate::bench_pk::run(&args, args.openssl4);
    }
    if let Some(threads) = args.threads {
        if !args.ops.is_empty() {
            return Err(CliError(
                "--ops: --threads times its own operations (mul-split, pow-batch, \
                 mul-batch), or with --pk the public-key ones"
                    .into(),
            ));
        }
        return crate::bench_threads::run(&args, threads);
    }
    if let Some(lanes) = args.lanes {
        return crate::bench_lanes::run(&args, lanes);
    }
    if args.ops.is_empty() {
        args.ops = ["mul", "sqr", "exp"].map(String::from).to_vec();
    }
    if args.bits.is_empty() {
        args.bits = vec![256, 384, 512, 1024, 2048, 3072, 4096];
    }
    for &b in &args.bits {
        if !(64..=16384).contains(&b) || b % 8 != 0 {
            return Err(CliError(format!(
                "--bits: {b} is not a multiple of 8 in 64..16384"
            )));
        }
    }
    for op in &args.ops {
        if !["mul", "sqr", "exp"].contains(&op.as_str()) {
            return Err(CliError(format!(
                "--ops: unknown operation '{op}' (mul, sqr, exp)"
            )));
        }
    }
    let ks = kernels(&args.algo)?;
    let ops: Vec<&'static str> = ["mul", "sqr", "exp"]
        .into_iter()
        .filter(|o| args.ops.iter().any(|x| x == o))
        .collect();
    let target = Duration::from_millis(args.batch_ms.max(1));
    let bar = crate::progress::bar((args.bits.len() * ops.len()) as u64, "bench");
    let mut rows = Vec::new();
    let mut gmp63_note_said = false;
    for &bits in &args.bits {
        let inputs = Inputs::random(bits, args.seed);
        let mut cs: Vec<Box<dyn Contender>> = Vec::new();
        for &k in &ks {
            match Montmul::new(k, &inputs) {
                Ok(c) => cs.push(Box::new(c)),
                // A size-specialised kernel without code for this size: no row.
                Err(Error::UnsupportedSize { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        if args.peers {
            cs.extend(montmul_peers::all(&inputs));
        }
        bar.set_message(format!("{bits} bits: checking agreement"));
        check_agreement(&mut cs, &inputs, bits)?;
        // Multiplication and squaring share one measurement, their rounds interleaved,
        // so that a kernel's sqr/mul ratio sees the same noise; the exponentiation,
        // whose batches are far longer, has its own.
        let cells: Vec<RefCell<Box<dyn Contender>>> = cs.into_iter().map(RefCell::new).collect();
        for group in [&["mul", "sqr"][..], &["exp"][..]] {
            let group: Vec<&'static str> =
                ops.iter().copied().filter(|o| group.contains(o)).collect();
            if group.is_empty() {
                continue;
            }
            bar.set_message(format!("{bits} bits: {}", group.join(", ")));
            let mut timed: Vec<(&'static str, String)> = Vec::new();
            let mut runners: Vec<Box<dyn FnMut(u64) + '_>> = Vec::new();
            for &op in &group {
                for cell in &cells {
                    if !cell.borrow().times(op) {
                        continue;
                    }
                    timed.push((op, cell.borrow().name()));
                    // The runners are called one at a time: never two borrows at once.
                    runners.push(Box::new(move |iters: u64| {
                        run(cell.borrow_mut().as_mut(), op, iters)
                    }));
                }
            }
            let times = measure(&mut runners, args.rounds, target, args.stat);
            for ((op, name), ns) in timed.into_iter().zip(times) {
                rows.push(Row { op, bits, name, ns });
            }
            bar.inc(group.len() as u64);
        }
        if args.peers && args.stat == Stat::Min {
            if !gmp63_note_said {
                bar.suspend(|| eprintln!("note: GMP 6.3 is left out: it reports medians only"));
                gmp63_note_said = true;
            }
        } else if args.peers {
            bar.set_message(format!("{bits} bits: GMP 6.3 (a subprocess)"));
            match montmul_peers::gmp63::rows(&inputs, &ops, args.rounds, target) {
                Ok(r) => rows.extend(
                    r.into_iter()
                        .map(|(op, name, ns)| Row::new(op, bits, name.into(), ns)),
                ),
                Err(montmul_peers::gmp63::Gmp63Error::Absent(why)) => {
                    if !gmp63_note_said {
                        bar.suspend(|| eprintln!("note: {why}"));
                        gmp63_note_said = true;
                    }
                }
                Err(e) => return Err(CliError(e.to_string())),
            }
        }
    }
    bar.finish_and_clear();
    print_rows(&rows, args.json, args.stat)
}

/// Prints the rows as a table with ratios (the times' statistic in the header), or as
/// JSON.
pub(crate) fn print_rows(rows: &[Row], json: bool, stat: Stat) -> Result<(), CliError> {
    if json {
        outln!("{}", serde_json::to_string_pretty(rows)?)?;
    } else {
        print_table(rows, stat)?;
    }
    Ok(())
}

/// The montmul row every other row of the same (op, bits) is compared with: `auto` when
/// it was measured, else the first montmul kernel (or montmul-pk's row, with --pk).
fn reference<'r>(rows: &'r [Row], op: &str, bits: u32) -> Option<&'r Row> {
    let same = |r: &&Row| r.op == op && r.bits == bits;
    rows.iter()
        .filter(same)
        .find(|r| r.name == "montmul:auto")
        .or_else(|| {
            rows.iter()
                .filter(same)
                .find(|r| r.name == "montmul" || r.name.starts_with("montmul:"))
        })
}

fn print_table(rows: &[Row], stat: Stat) -> Result<(), CliError> {
    outln!(
        "{:<10} {:>6}  {:<22} {:>14} {:>8}",
        "op",
        "bits",
        "impl",
        format!("ns ({})", stat.name()),
        "ratio"
    )?;
    for r in rows {
        let ratio = reference(rows, r.op, r.bits)
            .map(|m| r.ns / m.ns)
            .unwrap_or(f64::NAN);
        outln!(
            "{:<10} {:>6}  {:<22} {:>14.1} {:>8.2}",
            r.op,
            r.bits,
            r.name,
            r.ns,
            ratio
        )?;
    }
    outln!("ratio = this row's time / montmul's (auto, else the first kernel); > 1 means montmul is faster.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_picks_the_median_or_the_fastest_round() {
        assert_eq!(Stat::Median.of(vec![5.0, 1.0, 9.0]), 5.0);
        assert_eq!(Stat::Median.of(vec![4.0, 1.0, 9.0, 2.0]), 3.0);
        assert_eq!(Stat::Min.of(vec![5.0, 1.5, 9.0]), 1.5);
        assert_eq!(Stat::Min.of(vec![7.0]), 7.0);
    }
}
