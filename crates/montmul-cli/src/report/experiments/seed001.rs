//! Seed 001 (`001_1b4cdf28a5f4f2c4.txt`, Bos, Montgomery, Shumow & Zaverucha, SAC
//! 2013): the 2-way interleaved Montgomery multiplication against classic 32-bit and
//! 64-bit code. The seed counts instructions and times RSA-2048; montmul times the
//! product itself (ns and cycles at the measured clock) at 2048 bits, the RSA modulus.

use super::{ratio, Ctx};
use crate::report::model::{Cell, Section, Table};
use crate::report::timing::{k, label};
use crate::CliError;

/// The RSA modulus size of the seed's table.
const BITS: u32 = 2048;

/// Runs the section.
pub fn run(ctx: &mut Ctx<'_>) -> Result<Section, CliError> {
    let seeds = ctx.seeds;
    let mut s = Section::new(
        "seed001",
        "Seed 001: 2-way interleaved Montgomery multiplication (Bos, Montgomery, Shumow & Zaverucha)",
        Some("001_1b4cdf28a5f4f2c4.txt"),
    );
    // The instruction-count table: the seed's formulas; montmul cannot count yet.
    let ic = &seeds.seed001_instructions;
    s.tables.push(Table {
        id: "seed001-instructions".into(),
        title: "Instruction counts per Montgomery multiplication of n words (the seed's formulas)"
            .into(),
        source: ic.source.clone(),
        columns: [
            "instruction",
            "classic 32-bit",
            "classic 64-bit",
            "2-way SIMD 32-bit",
        ]
        .map(String::from)
        .to_vec(),
        rows: ic
            .rows
            .iter()
            .map(|r| {
                vec![
                    Cell::text(&r.instruction),
                    Cell::text(&r.classic_32),
                    Cell::text(&r.classic_64),
                    Cell::text(&r.simd_2way_32),
                ]
            })
            .collect(),
    });
    s.not_built.push(
        "montmul cannot count instructions yet (no performance-counter or instrumented build): the montmul \
         column of the instruction-count table is not built."
            .into(),
    );
    // The products.
    let impls = [
        k("cios", 32),
        k("cios", 64),
        k("two-way", 32),
        k("two-way", 64),
    ];
    let t = ctx.timings.get(&impls, BITS)?;
    let ns = |n: &str, w: u32| t.get(&label(n, w)).copied().flatten();
    let cycles = |v: Option<f64>| v.zip(ctx.ghz).map(|(ns, ghz)| ns * ghz);
    let names = [
        ("classic 32-bit: cios, w=32", ns("cios", 32)),
        ("classic 64-bit: cios, w=64", ns("cios", 64)),
        ("2-way: two-way, w=32", ns("two-way", 32)),
        ("2-way: two-way, w=64", ns("two-way", 64)),
    ];
    let two_way = ns("two-way", 32);
    s.tables.push(Table {
        id: "seed001-products".into(),
        title: format!("{BITS}-bit Montgomery multiplication: classic against 2-way"),
        source: "measured here (median ns; cycles = ns x the measured clock); the seed gives no product times, only RSA-2048".into(),
        columns: ["kernel", "ns", "cycles", "time / 2-way w=32"].map(String::from).to_vec(),
        rows: names
            .iter()
            .map(|(n, v)| {
                vec![
                    Cell::text(*n),
                    Cell::opt(*v),
                    Cell::opt(cycles(*v)),
                    Cell::opt(ratio(*v, two_way)),
                ]
            })
            .collect(),
    });
    if let (Some(r32), Some(r64)) = (
        ratio(ns("cios", 32), two_way),
        ratio(ns("cios", 64), two_way),
    ) {
        s.findings.push(format!(
            "The seed expects the 2-way kernel, from its multiplications alone, to be at most 2x faster than classic \
             32-bit code and about 2x slower than classic 64-bit code. Here classic 32-bit takes {r32:.2}x the 2-way \
             kernel's time and classic 64-bit {r64:.2}x: montmul's two-way is portable scalar code (its two streams \
             are interleaved, not in SIMD lanes), so it keeps the seed's operation count without the seed's vector \
             units."
        ));
    }
    // RSA-2048: the seed's cycles; montmul's rows plug in when montmul-pk lands.
    let rsa = &seeds.seed001_rsa2048;
    s.tables.push(Table {
        id: "seed001-rsa2048".into(),
        title: "RSA-2048 in cycles, the seed's platforms (montmul's rows: not built yet)".into(),
        source: rsa.source.clone(),
        columns: [
            "platform",
            "op",
            "classic (cycles)",
            "2-way SIMD (cycles)",
            "classic / 2-way",
        ]
        .map(String::from)
        .to_vec(),
        rows: rsa
            .rows
            .iter()
            .map(|r| {
                vec![
                    Cell::text(&r.platform),
                    Cell::text(&r.op),
                    Cell::num(r.classic),
                    Cell::num(r.simd_2way),
                    Cell::num(r.classic / r.simd_2way),
                ]
            })
            .collect(),
    });
    s.not_built.push(
        "RSA-2048 encryption and decryption with classic 32-bit, classic 64-bit and 2-way kernels beside OpenSSL \
         and GMP: not built yet (RSA is being written in montmul-pk); its rows plug in at experiments::seed001::run, \
         after the RSA-2048 table."
            .into(),
    );
    Ok(s)
}
