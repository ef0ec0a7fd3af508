//! `montmul selftest`: every kernel, every word size and both reduction policies
//! against num-bigint (issue 19, item 4), so that a build on a new machine or compiler
//! can be checked in one command.
//!
//! Per size class (2 to 16384 bits) it runs N cases, each one modulus and its operands,
//! through every (kernel, word, policy) the library lists: the Montgomery product and
//! square on raw limbs (below n, or 2n under lazy reduction), the residue operations
//! (`+`, `-`, negation, `*`, square), `pow` and `pow_vartime` on the exponent 0 (empty
//! and all-zero bytes), a short and a long exponent, and `inv` / `inv_vartime`; on
//! `auto`, also `FixedBase::pow` (the base's powers made for the short exponent's
//! length) on the exponent 0 and the short one. The multi-buffer kernels of
//! `montmul::lanes` (`amm52x8-ifma`, `amm52x2-ifma`: several operations a call, so not
//! one-product kernels) run each case with 64-bit words beside a second modulus of the
//! same size: eight exponentiations at once, three, one, eight products, and two in
//! lockstep (on moduli of `auto` and of `amm52-ifma`), with a long exponent (the
//! modulus' size, at most 1024 bits), the short one and the exponent 0; on `auto`, the
//! same through the seam the library picks from (`lanes::pow_x2`, `lanes::pow_lanes`).
//! The first cases of each class take the edge moduli (2^k - 1, 2^(k-1) + 1, a top
//! limb of all ones), then random ones; operands are edges (0, 1, n - 1, values of
//! all-ones limbs, the bound less one) or random, half and half. Everything derives from `--seed` through the test kit's
//! `TestRng`, per case, so a case is reproducible alone whatever the thread count.
//!
//! The oracle is num-bigint (`montmul-testkit`): a Montgomery product `z` of `x` and
//! `y` with R = 2^(w s) must satisfy `z < bound` and `z R = x y (mod n)`, which needs
//! no inverse of R. `--exhaustive` adds the small-word sweep of
//! `montmul_testkit::exhaustive` (every odd 8-bit modulus with every operand pair,
//! every odd 16-bit modulus with a dense sample).
//!
//! `--algo` and `--words` narrow the run to some kernels and word sizes: a long run of
//! the paths the library picks (`--algo auto --words 64`) fits where one of every
//! kernel would not, the bit-serial kernels with 8-bit words taking most of a case.
//!
//! A size a kernel refuses with a typed error (`gen-cios` has code for some limb counts
//! only; a kernel this CPU cannot run) is counted as skipped and listed. A mismatch
//! prints its reproducer (kernel, word, policy, operation, modulus and operands in hex)
//! and the command exits with status 1.
//!
//! The stages, one file each: `case.rs` (a case's values, num-bigint's answers, the
//! record of its checks), `kernels.rs` (the one-product kernels on it),
//! `lane_kernels.rs` (the multi-buffer kernels and the lanes seam on it); here the
//! command: the choice of sizes, kernels and words, the parallel run and the summary.

mod case;
mod kernels;
mod lane_kernels;

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use clap::builder::RangedU64ValueParser;
use montmul::{lab, Limb, MAX_BITS};
use montmul_testkit::exhaustive;
use rayon::prelude::*;
use serde::Serialize;

use crate::output::outln;
use crate::CliError;
use case::{Case, Tally};

/// The size classes run when `--bits` is not given.
const DEFAULT_BITS: [u32; 22] = [
    2, 3, 7, 8, 9, 16, 31, 64, 65, 127, 128, 192, 255, 256, 384, 521, 1024, 2048, 3072, 4096, 8192,
    16384,
];

/// The most cases per size class: far beyond any useful run (10^6 per class takes
/// days at the largest sizes), and the count of checks stays far from overflowing.
const MAX_CASES: u64 = 100_000_000;

/// The most entries in `--bits`.
const MAX_SIZES: usize = 64;

/// The most reproducers printed; the count of mismatches is always complete.
const MAX_SHOWN: usize = 20;

/// Arguments of `montmul selftest`.
#[derive(clap::Args)]
pub struct Args {
    /// Cases per size class, 1..=100000000; each runs through every kernel, word size
    /// and policy.
    #[arg(long, default_value_t = 8,
          value_parser = RangedU64ValueParser::<u64>::new().range(1..=MAX_CASES))]
    cases: u64,
    /// Modulus sizes in bits, comma-separated, each 2..=16384 (default: 2, 3, 7, 8, 9,
    /// 16, 31, 64, 65, 127, 128, 192, 255, 256, 384, 521, 1024, 2048, 3072, 4096, 8192,
    /// 16384).
    #[arg(long, value_delimiter = ',')]
    bits: Vec<u32>,
    /// Seed of every random modulus, operand and exponent.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only these kernels, comma-separated (default: every kernel; `montmul algos` lists
    /// them), e.g. `auto` for the paths the library picks, where the bit-serial kernels
    /// would make a long run take years.
    #[arg(long, value_delimiter = ',')]
    algo: Vec<String>,
    /// Only these word sizes in bits, comma-separated, of 8, 16, 32 and 64 (default: all
    /// four).
    #[arg(long, value_delimiter = ',')]
    words: Vec<u32>,
    /// Also run the exhaustive small-word sweep: every odd 8-bit modulus with every
    /// pair of operands, every odd 16-bit modulus with a dense sample (minutes).
    #[arg(long)]
    exhaustive: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// A (kernel, word, policy) refused at a size: the reason, and the sizes.
type Skips = BTreeMap<(String, u32, &'static str, String), Vec<u32>>;

/// The exhaustive sweep's figures.
#[derive(Serialize)]
struct ExhaustiveSummary {
    /// Products checked (`mont_mul` and `mont_sqr`).
    products: u64,
    /// (kernel, policy) pairs per word size: 8-bit, 16-bit.
    variants: [usize; 2],
    seconds: f64,
}

/// One (kernel, word, policy) refused at some sizes.
#[derive(Serialize)]
struct Skip {
    kernel: String,
    word: u32,
    policy: &'static str,
    reason: String,
    bits: Vec<u32>,
}

/// The summary printed at the end.
#[derive(Serialize)]
struct Summary {
    seed: u64,
    cases_per_size: u64,
    sizes: Vec<u32>,
    /// The kernels run; empty for every kernel.
    algos: Vec<String>,
    /// The word sizes run.
    words: Vec<u32>,
    /// (kernel, word, policy, case) runs.
    runs: u64,
    /// Single comparisons with the oracle.
    checks: u64,
    /// (kernel, word, policy, size) combinations refused with a typed error.
    skipped: u64,
    skips: Vec<Skip>,
    mismatches: u64,
    /// The first reproducers, at most 20.
    reproducers: Vec<String>,
    exhaustive: Option<ExhaustiveSummary>,
    seconds: f64,
}

/// The sizes asked for, checked.
fn sizes(list: &[u32]) -> Result<Vec<u32>, CliError> {
    if list.len() > MAX_SIZES {
        return Err(CliError(format!(
            "--bits: at most {MAX_SIZES} entries, not {}",
            list.len()
        )));
    }
    if let Some(b) = list.iter().find(|&&b| !(2..=MAX_BITS).contains(&b)) {
        return Err(CliError(format!("--bits: {b} is not in 2..={MAX_BITS}")));
    }
    Ok(if list.is_empty() {
        DEFAULT_BITS.to_vec()
    } else {
        list.to_vec()
    })
}

/// Every (size, case, word) unit: the largest sizes first, so that the longest units
/// start early and the threads end together.
fn units<'a>(
    sizes: &'a [u32],
    cases: u64,
    words: &'a [u32],
) -> impl ParallelIterator<Item = (u32, u64, u32)> + 'a {
    let mut order = sizes.to_vec();
    order.sort_unstable_by(|x, y| y.cmp(x));
    order.dedup();
    order.into_par_iter().flat_map(move |bits| {
        (0..cases)
            .into_par_iter()
            .flat_map(move |i| words.par_iter().map(move |&w| (bits, i, w)))
    })
}

/// The kernels asked for, checked: each must be a kernel of some word size.
fn algos(list: &[String]) -> Result<Vec<String>, CliError> {
    for name in list {
        let known = lane_kernels::lane_kernel(name)
            || lab::by_name::<u8>(name).is_ok()
            || lab::by_name::<u16>(name).is_ok()
            || lab::by_name::<u32>(name).is_ok();
        if !known {
            // The 64-bit list has every kernel; its error names the choices.
            lab::by_name::<u64>(name).map_err(|e| CliError(format!("--algo: {e}")))?;
        }
    }
    Ok(list.to_vec())
}

/// How many (kernel, word) pairs `algos` (every kernel where empty) and `words` select.
fn pairs(algos: &[String], words: &[u32]) -> usize {
    fn of<L: Limb>(algos: &[String]) -> usize {
        let lane_kernels =
            lane_kernels::selected(algos).filter(|k| k.info.words.contains(&L::BITS));
        kernels::selected::<L>(algos).count() + lane_kernels.count()
    }
    words
        .iter()
        .map(|w| match w {
            8 => of::<u8>(algos),
            16 => of::<u16>(algos),
            32 => of::<u32>(algos),
            _ => of::<u64>(algos),
        })
        .sum()
}

/// The word sizes asked for, checked (every one where the list is empty).
fn words(list: &[u32]) -> Result<Vec<u32>, CliError> {
    if let Some(w) = list.iter().find(|w| !montmul::WORD_SIZES.contains(w)) {
        return Err(CliError(format!(
            "--words: {w} is not a word size (8, 16, 32, 64)"
        )));
    }
    let mut list = if list.is_empty() {
        montmul::WORD_SIZES.to_vec()
    } else {
        list.to_vec()
    };
    list.sort_unstable();
    list.dedup();
    Ok(list)
}

/// The exhaustive sweep, on every core.
fn run_exhaustive(mismatches: &Mutex<Vec<String>>, count: &AtomicU64) -> ExhaustiveSummary {
    let start = Instant::now();
    let v8 = exhaustive::variants::<u8>();
    let v16 = exhaustive::variants::<u16>();
    let m8: Vec<u64> = exhaustive::odd_moduli::<u8>().collect();
    let m16: Vec<u64> = exhaustive::odd_moduli::<u16>().collect();
    let bar = crate::progress::bar(
        (v8.len() * m8.len() + v16.len() * m16.len()) as u64,
        "exhaustive",
    );
    let record = |result: Result<u64, Box<exhaustive::Mismatch>>| {
        bar.inc(1);
        match result {
            Ok(p) => p,
            Err(m) => {
                count.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut list) = mismatches.lock() {
                    list.push(format!("mismatch: exhaustive {m}"));
                }
                0
            }
        }
    };
    let products8: u64 = v8
        .par_iter()
        .flat_map(|&(k, r)| m8.par_iter().map(move |&n| (k, r, n)))
        .map(|(k, r, n)| {
            record(exhaustive::sweep_modulus(
                k,
                r,
                n,
                &exhaustive::operands_all(n, r),
            ))
        })
        .sum();
    let products16: u64 = v16
        .par_iter()
        .flat_map(|&(k, r)| m16.par_iter().map(move |&n| (k, r, n)))
        .map(|(k, r, n)| {
            record(exhaustive::sweep_modulus(
                k,
                r,
                n,
                &exhaustive::operands_16(n, r, 8),
            ))
        })
        .sum();
    bar.finish_and_clear();
    ExhaustiveSummary {
        products: products8 + products16,
        variants: [v8.len(), v16.len()],
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// `montmul selftest`: exit status 0 when every check agrees with the oracle, 1 on a
/// mismatch (its reproducers printed), 2 on bad flags.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let sizes = sizes(&args.bits)?;
    let algos = algos(&args.algo)?;
    let words = words(&args.words)?;
    if pairs(&algos, &words) == 0 {
        // A run that checks nothing must not pass.
        return Err(CliError(format!(
            "--algo {} has no kernel with {}-bit words",
            algos.join(","),
            words
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("- or ")
        )));
    }
    let start = Instant::now();
    let mismatch_count = AtomicU64::new(0);
    let mismatches = Mutex::new(Vec::new());
    let exhaustive = args
        .exhaustive
        .then(|| run_exhaustive(&mismatches, &mismatch_count));

    let mut distinct = sizes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let bar = crate::progress::bar(
        distinct.len() as u64 * args.cases * words.len() as u64,
        "selftest",
    );
    let (runs, checks, skips) = units(&distinct, args.cases, &words)
        .map(|(bits, i, w)| {
            let case = Case::new(args.seed, bits, i);
            let mut t = Tally::default();
            match w {
                8 => kernels::run_word::<u8>(&case, &algos, &mut t),
                16 => kernels::run_word::<u16>(&case, &algos, &mut t),
                32 => kernels::run_word::<u32>(&case, &algos, &mut t),
                _ => {
                    kernels::run_word::<u64>(&case, &algos, &mut t);
                    lane_kernels::run_lanes(&case, &algos, &mut t);
                }
            }
            bar.inc(1);
            if !t.mismatches.is_empty() {
                mismatch_count.fetch_add(t.mismatches.len() as u64, Ordering::Relaxed);
                if let Ok(mut list) = mismatches.lock() {
                    list.extend(t.mismatches);
                }
            }
            (t.runs, t.checks, t.skips)
        })
        .reduce(
            || (0, 0, Vec::new()),
            |(r1, c1, mut s1), (r2, c2, s2)| {
                s1.extend(s2);
                (r1 + r2, c1 + c2, s1)
            },
        );
    bar.finish_and_clear();

    let mut grouped = Skips::new();
    for (kernel, word, policy, reason, bits) in skips {
        grouped
            .entry((kernel, word, policy, reason))
            .or_default()
            .push(bits);
    }
    let skips: Vec<Skip> = grouped
        .into_iter()
        .map(|((kernel, word, policy, reason), mut bits)| {
            bits.sort_unstable();
            bits.dedup();
            Skip {
                kernel,
                word,
                policy,
                reason,
                bits,
            }
        })
        .collect();
    let mut reproducers = mismatches.into_inner().unwrap_or_default();
    reproducers.sort();
    reproducers.truncate(MAX_SHOWN);
    let summary = Summary {
        seed: args.seed,
        cases_per_size: args.cases,
        sizes,
        algos,
        words,
        runs,
        checks,
        skipped: skips.iter().map(|s| s.bits.len() as u64).sum(),
        skips,
        mismatches: mismatch_count.load(Ordering::Relaxed),
        reproducers,
        exhaustive,
        seconds: start.elapsed().as_secs_f64(),
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        print_summary(&summary)?;
    }
    Ok(if summary.mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The summary as text.
fn print_summary(s: &Summary) -> Result<(), CliError> {
    for line in &s.reproducers {
        outln!("{line}")?;
    }
    for skip in &s.skips {
        let bits: Vec<String> = skip.bits.iter().map(u32::to_string).collect();
        outln!(
            "skipped: {} word {} {} at {} bits: {}",
            skip.kernel,
            skip.word,
            skip.policy,
            bits.join(", "),
            skip.reason
        )?;
    }
    if let Some(e) = &s.exhaustive {
        outln!(
            "exhaustive: {} products of {} 8-bit and {} 16-bit (kernel, policy) pairs in {:.1} s",
            e.products,
            e.variants[0],
            e.variants[1],
            e.seconds
        )?;
    }
    outln!(
        "selftest: {} cases per size x {} sizes (seed {}): {} kernel runs, {} checks, {} skipped, {} mismatches, {:.1} s",
        s.cases_per_size,
        s.sizes.len(),
        s.seed,
        s.runs,
        s.checks,
        s.skipped,
        s.mismatches,
        s.seconds
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_and_words_are_checked() {
        assert_eq!(words(&[]).ok(), Some(montmul::WORD_SIZES.to_vec()));
        assert_eq!(words(&[64, 8, 64]).ok(), Some(vec![8, 64]));
        assert!(words(&[12]).is_err());
        assert!(algos(&names_of(&["auto", "cios"])).is_ok());
        assert!(algos(&names_of(&["no-such-kernel"])).is_err());
        assert_eq!(pairs(&names_of(&["auto"]), &[8, 64]), 2);
        assert_eq!(pairs(&names_of(&["mulx-cios"]), &[8]), 0);
        assert!(pairs(&[], &[64]) > 10);
    }

    fn names_of(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn sizes_are_checked() {
        assert_eq!(sizes(&[]).ok(), Some(DEFAULT_BITS.to_vec()));
        assert!(sizes(&[1]).is_err());
        assert!(sizes(&[16385]).is_err());
        assert!(sizes(&[2; 65]).is_err());
        assert_eq!(sizes(&[2, 16384]).ok(), Some(vec![2, 16384]));
    }
}
