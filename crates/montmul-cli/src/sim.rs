//! `montmul sim`: the cycle-level models of `montmul-sim`, run on random operands (a
//! fixed seed) and checked against montmul's core before anything is printed.

use montmul_sim::{check, systolic};
use serde::Serialize;

use crate::CliError;

/// Arguments of `montmul sim`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    model: Model,
}

#[derive(clap::Subcommand)]
enum Model {
    /// Systolic MWR2MM arrays of seed 003: latency in clock cycles and PE count.
    Systolic(SystolicArgs),
}

/// Arguments of `montmul sim systolic`.
#[derive(clap::Args)]
struct SystolicArgs {
    /// Bit length n of the modulus.
    #[arg(long, default_value_t = 1024)]
    bits: u32,
    /// Word size w in bits: 8, 16 or 32.
    #[arg(long, default_value_t = 16)]
    word: u32,
    /// Architecture: tenca-koc or optimized.
    #[arg(long, default_value = "tenca-koc")]
    arch: String,
    /// Radix: 2 or 4.
    #[arg(long, default_value_t = 2)]
    radix: u32,
    /// Number of PEs (default: the count of minimum latency).
    #[arg(long)]
    pes: Option<usize>,
    /// Seed of the random operands.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print a JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct SystolicRow {
    arch: &'static str,
    radix: u32,
    bits: u32,
    word: u32,
    pes: usize,
    cycles: u64,
}

/// Runs `montmul sim ...`.
pub fn run(args: Args) -> Result<(), CliError> {
    match args.model {
        Model::Systolic(a) => systolic(a),
    }
}

fn systolic(a: SystolicArgs) -> Result<(), CliError> {
    let config = systolic::Config {
        arch: systolic::Arch::from_name(&a.arch)?,
        radix: a.radix,
        bits: a.bits,
        word: a.word,
        pes: a.pes,
    };
    config.validate()?;
    let (m, x, y) = check::random_operands(a.bits, a.seed)?;
    let run = systolic::simulate_checked(&config, &m, &x, &y)?;
    let row = SystolicRow {
        arch: config.arch.name(),
        radix: config.radix,
        bits: config.bits,
        word: config.word,
        pes: run.pes,
        cycles: run.cycles,
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&row)?);
    } else {
        println!(
            "{} radix-{}, n = {}, w = {}: {} PEs, {} clock cycles (product checked against montmul cios)",
            row.arch, row.radix, row.bits, row.word, row.pes, row.cycles
        );
    }
    Ok(())
}
