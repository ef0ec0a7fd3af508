//! Seed 003 (`003_0475a664716d9f1c.txt`, Huang, Gaj, Kwon & El-Ghazawi, an optimized
//! architecture for Montgomery multiplication): the latency of the systolic MWR2MM
//! arrays on `montmul-sim`'s cycle model against the seed's table and formulas, and the
//! measured speed of montmul's software radix-2 and MWR2MM kernels.

use montmul_sim::{check, systolic};

use super::{Ctx, Mode};
use crate::report::model::{Cell, Section, Table};
use crate::report::timing::{k, label};
use crate::CliError;

/// The seed's latency formula in clocks: Tenca-Koc 2n + e - 1 on (e+1)/2 PEs, the
/// optimized architecture n + e - 1, e = ceil((n+1)/w); radix 4 halves the n term
/// (n/2 + e - 1, which gives the seed's 576 at 1024 bits).
fn formula(arch: &str, radix: u32, n: u64, w: u64) -> u64 {
    let e = (n + 1).div_ceil(w);
    match (arch, radix) {
        ("tenca-koc", _) => 2 * n + e - 1,
        (_, 4) => n / 2 + e - 1,
        _ => n + e - 1,
    }
}

/// Runs the section.
pub fn run(ctx: &mut Ctx<'_>) -> Result<Section, CliError> {
    let lat = &ctx.seeds.seed003_latency;
    let mut s = Section::new(
        "seed003",
        "Seed 003: systolic MWR2MM arrays (Huang, Gaj, Kwon & El-Ghazawi)",
        Some("003_0475a664716d9f1c.txt"),
    );
    let mut rows = Vec::new();
    let mut equal = 0;
    for r in &lat.rows {
        let config = systolic::Config {
            arch: systolic::Arch::from_name(&r.arch)?,
            radix: r.radix,
            bits: r.bits,
            word: lat.word,
            pes: None,
        };
        config.validate()?;
        let (m, x, y) = check::random_operands(r.bits, 1)?;
        let run = systolic::simulate_checked(&config, &m, &x, &y)?;
        let f = formula(&r.arch, r.radix, u64::from(r.bits), u64::from(lat.word));
        equal += usize::from(run.cycles as f64 == r.clocks);
        rows.push(vec![
            Cell::text(&r.arch),
            Cell::num(f64::from(r.radix)),
            Cell::num(f64::from(r.bits)),
            Cell::num(run.pes as f64),
            Cell::num(run.cycles as f64),
            Cell::num(r.clocks),
            Cell::num(f as f64),
            Cell::num(r.clocks / r.mhz),
        ]);
    }
    let n = lat.rows.len();
    s.tables.push(Table {
        id: "seed003-latency".into(),
        title: format!("Minimum latency in clock cycles, w = {}, PEs for minimum latency", lat.word),
        source: format!(
            "model: montmul-sim's systolic arrays, each product checked against montmul's CIOS; seed: {}; formula: the slides' 2n + e - 1 (Tenca-Koc) and n + e - 1 (optimized)",
            lat.source
        ),
        columns: ["architecture", "radix", "bits", "PEs", "model clocks", "seed clocks", "formula clocks", "seed latency (us)"]
            .map(String::from)
            .to_vec(),
        rows,
    });
    s.findings.push(format!(
        "{equal} of {n} latencies of the model equal the seed's table. The seed's Tenca-Koc rows are 2n + e, one \
         more than its own formula 2n + e - 1; the model, which counts until the last word of Z is in a register, \
         gives the table's value."
    ));
    // The software kernels.
    let bits: Vec<u32> = match ctx.mode {
        Mode::Quick => vec![1024],
        _ => vec![1024, 2048, 3072, 4096],
    };
    let impls = [
        k("radix2", 64),
        k("mwr2mm", 16),
        k("mwr2mm", 64),
        k("cios", 64),
    ];
    let mut rows = Vec::new();
    let mut slow = Vec::new();
    for &b in &bits {
        let t = ctx.timings.get(&impls, b)?;
        let ns = |n: &str, w: u32| t.get(&label(n, w)).copied().flatten();
        let fpga = lat
            .rows
            .iter()
            .find(|r| r.arch == "optimized" && r.radix == 2 && r.bits == b)
            .map(|r| 1000.0 * r.clocks / r.mhz);
        if let (Some(m), Some(f)) = (ns("mwr2mm", 64), fpga) {
            slow.push(m / f);
        }
        rows.push(vec![
            Cell::num(f64::from(b)),
            Cell::opt(ns("radix2", 64)),
            Cell::opt(ns("mwr2mm", 16)),
            Cell::opt(ns("mwr2mm", 64)),
            Cell::opt(ns("cios", 64)),
            Cell::opt(fpga),
        ]);
    }
    s.tables.push(Table {
        id: "seed003-software".into(),
        title: "The software kernels: ns per Montgomery multiplication".into(),
        source: format!(
            "measured here (median ns); FPGA column: the seed's optimized radix-2 latency ({})",
            lat.source
        ),
        columns: [
            "bits",
            "radix2, w=64 (ns)",
            "mwr2mm, w=16 (ns)",
            "mwr2mm, w=64 (ns)",
            "cios, w=64 (ns)",
            "seed FPGA, optimized radix 2 (ns)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
    if let Some((lo, hi)) = super::span(slow) {
        s.findings.push(format!(
            "montmul's word-serial MWR2MM on 64-bit words takes {lo:.2}-{hi:.2}x the time of the seed's 100 MHz \
             FPGA array: the array runs one PE per word column in parallel, the CPU one word at a time, and the \
             bit-serial radix-2 kernel pays one pass over the modulus per bit of the multiplier."
        ));
    }
    Ok(s)
}
