//! `montmul algos`: the table of every algorithm and kernel, the one-product kernels
//! (`--algo` of `mul`, `exp` and `bench`) first, then the multi-buffer kernels of
//! [`montmul::lanes`] (several independent operations per call; `bench --lanes`).

use montmul::lab::{self, KernelInfo};
use serde::Serialize;

use crate::output::outln;
use crate::CliError;

/// Arguments of `montmul algos`.
#[derive(clap::Args)]
pub struct Args {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Row {
    name: &'static str,
    seed: &'static str,
    words: Vec<u32>,
    reductions: Vec<&'static str>,
    constant_time: bool,
    available: bool,
    /// The limb counts (of its widest word) a size-specialised kernel has code for;
    /// `null`: every count.
    limbs: Option<&'static [usize]>,
    /// Independent operations per call: 1 for the one-product kernels, 2 or 8 for the
    /// multi-buffer ones.
    lanes: usize,
    /// The smallest and largest modulus, in bits per lane, of a multi-buffer kernel;
    /// `null` for the one-product kernels.
    bits: Option<(u32, u32)>,
    summary: &'static str,
}

impl Row {
    /// The row of a kernel's description; `lanes` 1, no size range.
    fn new(k: &'static KernelInfo, limbs: Option<&'static [usize]>) -> Self {
        Row {
            name: k.name,
            seed: k.seed,
            words: k.words.to_vec(),
            reductions: k.reductions.iter().map(|r| r.name()).collect(),
            constant_time: k.constant_time,
            available: (k.available)(),
            limbs,
            lanes: 1,
            bits: None,
            summary: k.summary,
        }
    }
}

/// What [`montmul::lab::Kernel::limb_counts`] says for the kernel `name` at its widest word.
fn limb_counts(name: &str, words: &[u32]) -> Option<&'static [usize]> {
    match words.iter().max() {
        Some(64) => lab::by_name::<u64>(name).ok()?.limb_counts(),
        Some(32) => lab::by_name::<u32>(name).ok()?.limb_counts(),
        Some(16) => lab::by_name::<u16>(name).ok()?.limb_counts(),
        _ => lab::by_name::<u8>(name).ok()?.limb_counts(),
    }
}

/// Prints the table (or JSON) of every kernel.
pub fn run(args: Args) -> Result<(), CliError> {
    let mut rows: Vec<Row> = lab::catalog()
        .into_iter()
        .map(|k| Row::new(k, limb_counts(k.name, k.words)))
        .collect();
    rows.extend(montmul::lanes::catalog().iter().map(|k| Row {
        lanes: k.lanes,
        bits: Some(k.bits),
        ..Row::new(&k.info, None)
    }));
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(());
    }
    // The name column is as wide as the longest name (`columns-avx512`).
    let name_width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(4);
    outln!(
        "{:<name_width$} {:<34} {:<12} {:<10} {:<6} {:<9} {:<5} summary",
        "name",
        "seed",
        "words",
        "reduction",
        "ct",
        "available",
        "lanes"
    )?;
    for r in rows {
        let words = r
            .words
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let summary = match r.bits {
            Some((lo, hi)) => format!("{} ({lo}..{hi} bits per lane)", r.summary),
            None => r.summary.to_string(),
        };
        outln!(
            "{:<name_width$} {:<34} {:<12} {:<10} {:<6} {:<9} {:<5} {}",
            r.name,
            r.seed,
            words,
            r.reductions.join(","),
            if r.constant_time { "yes" } else { "no" },
            if r.available { "yes" } else { "no" },
            r.lanes,
            summary
        )?;
    }
    Ok(())
}
