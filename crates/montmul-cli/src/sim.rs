//! `montmul sim`: the cycle-level models of `montmul-sim`, run on random operands (a
//! fixed seed) and checked against montmul's core before anything is printed.

use clap::builder::RangedU64ValueParser;
use montmul_sim::multicore::{self, Method};
use montmul_sim::{check, systolic};
use serde::Serialize;

use crate::output::outln;
use crate::CliError;

/// The most PEs `sim systolic` models ([`systolic::MAX_PES`]).
const MAX_PES: u64 = systolic::MAX_PES as u64;

/// The most cores `sim multicore` models in one count ([`multicore::MAX_CORES`]), and
/// the most counts in one run.
const MAX_CORES: u64 = multicore::MAX_CORES as u64;

/// Arguments of `montmul sim`.
#[derive(clap::Args)]
#[command(arg_required_else_help = false)]
pub struct Args {
    #[command(subcommand)]
    model: Model,
}

#[derive(clap::Subcommand)]
enum Model {
    /// Systolic MWR2MM arrays of seed 003: latency in clock cycles and PE count.
    Systolic(SystolicArgs),
    /// Multi-core VLIW platform of seed 002: cycles, loads, stores and speed-up per core
    /// count (1 core runs single-core FIOS, the baseline of the speed-up).
    Multicore(MulticoreArgs),
}

/// Arguments of `montmul sim multicore`.
#[derive(clap::Args)]
struct MulticoreArgs {
    /// Bit length n of the modulus.
    #[arg(long, default_value_t = 256)]
    bits: u32,
    /// Core word size w in bits: 16 or 32.
    #[arg(long, default_value_t = 16)]
    word: u32,
    /// Core counts p to simulate, comma-separated (each 1..=64, at most 64 counts).
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,6,8",
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_CORES))]
    cores: Vec<usize>,
    /// Scheduling method: 1 (one iteration per core) or 2 (each iteration over all cores).
    #[arg(long, default_value_t = 2)]
    method: u32,
    /// S_rf: registers per core for words of X, M and Z.
    #[arg(long, default_value_t = 16)]
    regs: usize,
    /// End each multiplication by storing the result to the data memory (seed 002's
    /// counts leave it in the cores' registers, ready for the next multiplication).
    #[arg(long)]
    write_back: bool,
    /// Seed of the random operands.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct MulticoreRow {
    method: u32,
    cores: usize,
    cycles: u64,
    loads: u64,
    stores: u64,
    load_opr: u64,
    load_tr: u64,
    store_tr: u64,
    n_mul: u64,
    n_add: u64,
    speedup: f64,
    write_back: bool,
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
    /// Number of PEs, 1..=65536 (default: the count of minimum latency).
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_PES))]
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
        Model::Multicore(a) => multicore(a),
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
        outln!("{}", serde_json::to_string_pretty(&row)?)?;
    } else {
        outln!(
            "{} radix-{}, n = {}, w = {}: {} PE{}, {} clock cycles (product checked against montmul cios)",
            row.arch,
            row.radix,
            row.bits,
            row.word,
            row.pes,
            if row.pes == 1 { "" } else { "s" },
            row.cycles
        )?;
    }
    Ok(())
}

fn multicore(a: MulticoreArgs) -> Result<(), CliError> {
    let method = match a.method {
        1 => Method::MethodI,
        2 => Method::MethodII,
        m => {
            return Err(CliError(format!(
                "--method: method must be 1 or 2, not {m}"
            )))
        }
    };
    let config = |cores: usize| multicore::Config {
        method: if cores == 1 {
            Method::SingleCore
        } else {
            method
        },
        cores,
        bits: a.bits,
        word: a.word,
        registers: a.regs,
        write_back: a.write_back,
    };
    if a.cores.is_empty() {
        return Err(CliError("--cores: give at least one core count".into()));
    }
    if a.cores.len() as u64 > MAX_CORES {
        return Err(CliError(format!(
            "--cores: at most {MAX_CORES} core counts, not {}",
            a.cores.len()
        )));
    }
    for &p in &a.cores {
        config(p).validate()?;
    }
    let (m, x, y) = check::random_operands(a.bits, a.seed)?;
    let baseline = multicore::simulate_checked(&config(1), &m, &x, &y)?;
    let mut rows = Vec::new();
    for &p in &a.cores {
        let r = multicore::simulate_checked(&config(p), &m, &x, &y)?;
        let st = r.stats;
        rows.push(MulticoreRow {
            method: a.method,
            cores: p,
            cycles: st.cycles,
            loads: st.loads.total(),
            stores: st.stores.total(),
            load_opr: st.loads.operand,
            load_tr: st.loads.transfer,
            store_tr: st.stores.transfer,
            n_mul: st.loop_muls,
            n_add: st.loop_adds,
            speedup: baseline.stats.cycles as f64 / st.cycles as f64,
            write_back: a.write_back,
        });
    }
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(());
    }
    outln!(
        "method-{}, n = {}, w = {}, S_rf = {}, result {} (products checked against montmul cios; 1 core runs single-core FIOS)",
        if a.method == 1 { "I" } else { "II" },
        a.bits,
        a.word,
        a.regs,
        if a.write_back {
            "stored to memory"
        } else {
            "left in registers"
        }
    )?;
    outln!(
        "{:>5} {:>8} {:>6} {:>6} {:>8} {:>7} {:>8} {:>6} {:>6} {:>8}",
        "cores",
        "cycles",
        "loads",
        "stores",
        "load-opr",
        "load-tr",
        "store-tr",
        "N_mul",
        "N_add",
        "speed-up"
    )?;
    for r in rows {
        outln!(
            "{:>5} {:>8} {:>6} {:>6} {:>8} {:>7} {:>8} {:>6} {:>6} {:>7.2}x",
            r.cores,
            r.cycles,
            r.loads,
            r.stores,
            r.load_opr,
            r.load_tr,
            r.store_tr,
            r.n_mul,
            r.n_add,
            r.speedup
        )?;
    }
    Ok(())
}
