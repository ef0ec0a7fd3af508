//! `montmul report`: every seed's experiment re-run on this machine beside the seed's
//! own numbers and today's peers, written as one self-contained HTML page with inline
//! SVG plots, a Markdown copy, `data.json` and one CSV per table.
//!
//! The layout: [`experiments`] re-run the seeds (one file each, and the summary) and
//! return [`model::Section`]s of data; [`timing`] times through `bench`'s interleaved
//! measurement with one cache, so nothing is timed twice; [`seeds`] reads the seeds'
//! numbers from `data/seeds.json`; [`probe`] measures the clock and the IFMA
//! throughput; [`render`] draws (plotters, minijinja, csv). The experiments live in the
//! CLI crate because only the CLI runs them; `bench` and `sim` share its measurement
//! and simulators rather than the other way round.
//!
//! Nothing half-written is left: the files go to a fresh temporary directory beside
//! DIR, which replaces DIR by renames only once complete. An existing DIR is replaced
//! only when it holds a previous report (its marker file), never an unrelated directory.

pub mod experiments;
pub mod machine;
pub mod model;
pub mod probe;
pub mod render;
pub mod seeds;
pub mod timing;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::output::outln;
use crate::CliError;
use experiments::{Ctx, Mode};
use render::Report;
use timing::{Budget, Timings};

/// The file that marks a directory as a montmul report, so that `--out` replaces only
/// a previous report.
pub const MARKER: &str = ".montmul-report";

/// Arguments of `montmul report`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory to write (replaced only if it holds a previous report).
    #[arg(long, default_value = "montmul-report")]
    out: PathBuf,
    /// The seeds' complete ranges (every 16 bits for seed 000's Fig. 2, 256..8192 in
    /// steps of 256 for the summary): several times longer.
    #[arg(long, conflicts_with = "quick")]
    full: bool,
    /// A few sizes and one round per measurement: seconds, for tests (numbers are noisy).
    #[arg(long)]
    quick: bool,
    /// Also print data.json on standard output.
    #[arg(long)]
    json: bool,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `montmul report`.
pub fn run(args: Args) -> Result<(), CliError> {
    let mode = if args.quick {
        Mode::Quick
    } else if args.full {
        Mode::Full
    } else {
        Mode::Default
    };
    let started = Instant::now();
    let date = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let out = args.out.clone();
    // The temporary directory first: a destination that cannot be written fails now,
    // not after minutes of measuring.
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    check_replaceable(&out)?;
    let tmp = tempfile::Builder::new()
        .prefix(".montmul-report-")
        .tempdir_in(&parent)
        .map_err(|e| {
            // tempfile names its temporary path after the reason; the user never named it.
            let why = e.to_string();
            let why = why
                .split(" at path \"")
                .next()
                .unwrap_or_default()
                .to_string();
            CliError(format!("cannot write {}: {why}", parent.display()))
        })?;
    let seeds = seeds::load().map_err(|e| CliError(format!("data/seeds.json: {e}")))?;
    let load_before = machine::load();
    let probe_iters = if mode == Mode::Quick {
        1_000_000
    } else {
        20_000_000
    };
    let ghz = probe::clock_ghz(probe_iters);
    let ifma = ghz.and_then(|g| probe::ifma_per_cycle(probe_iters / 4, g));
    let budget = match mode {
        Mode::Quick => Budget {
            rounds: 1,
            batch: Duration::from_micros(200),
        },
        Mode::Default => Budget {
            rounds: 5,
            batch: Duration::from_millis(2),
        },
        Mode::Full => Budget {
            rounds: 7,
            batch: Duration::from_millis(5),
        },
    };
    let mut timings = Timings::new(budget, args.seed);
    let mut ctx = Ctx {
        timings: &mut timings,
        seeds: &seeds,
        mode,
        ghz,
        ifma_per_cycle: ifma,
    };
    let bar = crate::progress::bar(experiments::ALL.len() as u64, "report");
    let mut sections = Vec::new();
    let mut section_seconds = Vec::new();
    for (name, experiment) in experiments::ALL {
        bar.set_message(name);
        let t = Instant::now();
        let section = experiment(&mut ctx)?;
        section_seconds.push((section.id.clone(), t.elapsed().as_secs_f64()));
        sections.push(section);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let header = machine::Header {
        cpu: machine::cpu_model(),
        features: machine::features(),
        clock_ghz: ghz,
        ifma_per_cycle: ifma,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        load_before,
        load_after: machine::load(),
        montmul: machine::montmul_version(),
        rustc: machine::rustc_version(),
        peers: machine::peers(),
        date,
        command: std::env::args().collect::<Vec<_>>().join(" "),
        mode,
        seconds: started.elapsed().as_secs_f64(),
        section_seconds,
    };
    let report = Report { header, sections };
    let data = serde_json::to_string_pretty(&report)?;
    write_all(tmp.path(), &report, &data)?;
    replace(tmp.keep(), &out)?;
    if args.json {
        outln!("{data}")?;
    }
    let tables: usize = report.sections.iter().map(|s| s.tables.len()).sum();
    let plots: usize = report.sections.iter().map(|s| s.plots.len()).sum();
    eprintln!(
        "montmul report: {} sections, {tables} tables, {plots} plots in {:.0} s -> {}",
        report.sections.len(),
        started.elapsed().as_secs_f64(),
        out.join("index.html").display()
    );
    Ok(())
}

/// Writes every file of the report into `dir`.
fn write_all(dir: &Path, report: &Report, data: &str) -> Result<(), CliError> {
    let write = |name: &str, text: &str| {
        fs::write(dir.join(name), text).map_err(|e| CliError(format!("cannot write {name}: {e}")))
    };
    let mut svgs = Vec::new();
    for s in &report.sections {
        for p in &s.plots {
            let svg = render::svg(p)?;
            write(&format!("{}.svg", p.id), &svg)?;
            svgs.push((p.id.clone(), svg));
        }
        for t in &s.tables {
            write(&format!("{}.csv", t.id), &render::csv(t)?)?;
        }
    }
    let (html, md) = render::pages(report, &svgs)?;
    write("index.html", &html)?;
    write("report.md", &md)?;
    write("data.json", data)?;
    write(
        MARKER,
        "This directory was written by `montmul report`; the next run replaces it whole.\n",
    )
}

/// Refuses a destination that is not a directory holding a previous report.
fn check_replaceable(out: &Path) -> Result<(), CliError> {
    match fs::symlink_metadata(out) {
        Err(_) => Ok(()),
        Ok(meta) if meta.is_dir() && out.join(MARKER).is_file() => Ok(()),
        Ok(_) => Err(CliError(format!(
            "{} exists and is not a montmul report; not replaced (choose another --out)",
            out.display()
        ))),
    }
}

/// Puts the finished directory `new` at `out`: a previous report is moved aside first,
/// then removed once the new one is in place.
fn replace(new: PathBuf, out: &Path) -> Result<(), CliError> {
    let fail = |e: std::io::Error| {
        let _ = fs::remove_dir_all(&new);
        CliError(format!("cannot write {}: {e}", out.display()))
    };
    if let Err(e) = check_replaceable(out) {
        let _ = fs::remove_dir_all(&new);
        return Err(e);
    }
    if out.exists() {
        let old = new.with_extension("old");
        fs::rename(out, &old).map_err(fail)?;
        if let Err(e) = fs::rename(&new, out) {
            // Put the previous report back.
            let _ = fs::rename(&old, out);
            return Err(fail(e));
        }
        let _ = fs::remove_dir_all(&old);
    } else {
        fs::rename(&new, out).map_err(fail)?;
    }
    Ok(())
}
