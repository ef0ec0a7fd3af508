//! `montmul algos`: the table of every algorithm and kernel.

use montmul::lab;
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
    summary: &'static str,
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
    let rows: Vec<Row> = lab::catalog()
        .into_iter()
        .map(|k| Row {
            name: k.name,
            seed: k.seed,
            words: k.words.to_vec(),
            reductions: k.reductions.iter().map(|r| r.name()).collect(),
            constant_time: k.constant_time,
            available: (k.available)(),
            limbs: limb_counts(k.name, k.words),
            summary: k.summary,
        })
        .collect();
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(());
    }
    outln!(
        "{:<12} {:<32} {:<12} {:<10} {:<6} {:<9} summary",
        "name",
        "seed",
        "words",
        "reduction",
        "ct",
        "available"
    )?;
    for r in rows {
        let words = r
            .words
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        outln!(
            "{:<12} {:<32} {:<12} {:<10} {:<6} {:<9} {}",
            r.name,
            r.seed,
            words,
            r.reductions.join(","),
            if r.constant_time { "yes" } else { "no" },
            if r.available { "yes" } else { "no" },
            r.summary
        )?;
    }
    Ok(())
}
