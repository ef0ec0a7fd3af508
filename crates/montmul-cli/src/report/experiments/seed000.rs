//! Seed 000 (`000_d6e3f6dbb73a6c7c.txt`, Bos & Kaihara, Montgomery multiplication on
//! the Cell): Table 1 (ns per Montgomery multiplication, 192..2048 bits) and Fig. 2
//! (speed-up of the column-wise kernel over the row-wise one against the bit size).
//!
//! The seed's kernel is radix 2^16 and column-wise on 4 SIMD lanes; montmul's
//! `columns` is that algorithm on 16-bit limbs in scalar code (the SIMD forms are issue
//! 17). Its counterpart, as unrolled MPM was the seed's, is CIOS at the same 16-bit
//! radix; montmul's best is `auto` on 64-bit limbs.

use super::{range, ratio, span, Ctx, Mode};
use crate::report::model::{Cell, Plot, Section, Series, Style, Table};
use crate::report::timing::{k, label};
use crate::CliError;

/// The implementations timed at each size.
const IMPLS: [(&str, u32); 4] = [("columns", 16), ("cios", 16), ("cios", 64), ("auto", 64)];

/// Runs the section.
pub fn run(ctx: &mut Ctx<'_>) -> Result<Section, CliError> {
    let seed = &ctx.seeds.seed000_table1;
    let mut s = Section::new(
        "seed000",
        "Seed 000: column-wise Montgomery multiplication (Bos & Kaihara, Cell SPE)",
        Some("000_d6e3f6dbb73a6c7c.txt"),
    );
    let table_bits: Vec<u32> = match ctx.mode {
        Mode::Quick => vec![192, 256, 512],
        _ => seed.rows.iter().map(|r| r.bits).collect(),
    };
    let fig_bits = match ctx.mode {
        Mode::Quick => range(160, 2048, 512),
        Mode::Default => range(160, 2048, 64),
        Mode::Full => range(160, 2048, 16),
    };
    let impls: Vec<_> = IMPLS.iter().map(|&(n, w)| k(n, w)).collect();
    // Table 1: every implementation at the seed's sizes.
    let mut rows = Vec::new();
    let mut best_vs_spe = Vec::new();
    for &bits in &table_bits {
        let t = ctx.timings.get(&impls, bits)?;
        let ns = |n: &str, w: u32| t.get(&label(n, w)).copied().flatten();
        let sr = seed.rows.iter().find(|r| r.bits == bits);
        let (cols, cios16, cios64, auto) = (
            ns("columns", 16),
            ns("cios", 16),
            ns("cios", 64),
            ns("auto", 64),
        );
        if let (Some(r), Some(a)) = (sr, auto) {
            best_vs_spe.push(r.this_work_ns / a);
        }
        rows.push(vec![
            Cell::num(f64::from(bits)),
            Cell::opt(sr.map(|r| r.this_work_ns)),
            Cell::opt(sr.map(|r| r.mpm_ns)),
            Cell::opt(sr.map(|r| r.unrolled_mpm_ns)),
            Cell::opt(sr.map(|r| r.unrolled_mpm_ns / r.this_work_ns)),
            Cell::opt(cols),
            Cell::opt(cios16),
            Cell::opt(cios64),
            Cell::opt(auto),
            Cell::opt(ratio(cios16, cols)),
        ]);
    }
    s.tables.push(Table {
        id: "seed000-table1".into(),
        title: "Table 1: ns per Montgomery multiplication".into(),
        source: format!(
            "seed columns: {}; seed speed-up: over unrolled MPM, as in {}; montmul columns: measured here (median ns, interleaved rounds)",
            seed.source, ctx.seeds.seed000_fig2.source
        ),
        columns: [
            "bits",
            "seed: SIMD column-wise on SPE (ns)",
            "seed: MPM (ns)",
            "seed: unrolled MPM (ns)",
            "seed: speed-up",
            "montmul columns, w=16 (ns)",
            "montmul cios, w=16 (ns)",
            "montmul cios, w=64 (ns)",
            "montmul best: auto, w=64 (ns)",
            "speed-up columns over cios, w=16",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
    // Fig. 2: the speed-up of the column-wise kernel over CIOS at 16-bit words.
    let pair = [k("columns", 16), k("cios", 16)];
    let mut points = Vec::new();
    for &bits in &fig_bits {
        let t = ctx.timings.get(&pair, bits)?;
        let g = |n: &str| t.get(&label(n, 16)).copied().flatten();
        if let Some(r) = ratio(g("cios"), g("columns")) {
            points.push((f64::from(bits), r));
        }
    }
    let seed_points: Vec<(f64, f64)> = seed
        .rows
        .iter()
        .map(|r| (f64::from(r.bits), r.unrolled_mpm_ns / r.this_work_ns))
        .chain([(
            f64::from(ctx.seeds.seed000_fig2.max_at_bits),
            ctx.seeds.seed000_fig2.max_speedup,
        )])
        .collect();
    let fig = &ctx.seeds.seed000_fig2;
    let seed_span = span(seed_points.iter().map(|p| p.1));
    s.plots.push(Plot {
        id: "seed000-fig2".into(),
        title: format!(
            "Fig. 2: speed-up of the column-wise kernel against the bit size (every {} bits)",
            match ctx.mode {
                Mode::Quick => 512,
                Mode::Default => 64,
                Mode::Full => 16,
            }
        ),
        x_label: "modulus bits".into(),
        y_label: "speed-up (row-wise time / column-wise time)".into(),
        series: vec![
            Series {
                name: "montmul: cios / columns, scalar, w=16 (measured)".into(),
                style: Style::Line,
                points: points.clone(),
            },
            Series {
                name: format!(
                    "seed: SIMD over unrolled MPM (Table 1; max {} at {} bits)",
                    fig.max_speedup, fig.max_at_bits
                ),
                style: Style::Points,
                points: seed_points,
            },
        ],
        reference_y: Some(1.0),
    });
    if let (Some((lo, hi)), Some((slo, shi))) = (span(points.iter().map(|p| p.1)), seed_span) {
        s.findings.push(format!(
            "montmul's scalar column-wise kernel runs at {lo:.2}-{hi:.2}x the speed of CIOS at the same 16-bit radix; \
             the seed's column-wise kernel ran {slo:.2}-{shi:.2}x faster than unrolled MPM. The seed's gain is its 4-way \
             SIMD on the SPE (four limbs per instruction, no carries across lanes), which a scalar kernel cannot have: \
             this comparison checks the algorithm's bookkeeping, not its SIMD speed-up."
        ));
    }
    if let Some((lo, hi)) = span(best_vs_spe) {
        s.findings.push(format!(
            "The seed's SPE time ({:.1} GHz, 2008) divided by montmul's best time on this CPU: {lo:.1}-{hi:.1} over \
             the table's sizes (64-bit multipliers and wide out-of-order cores against 16x16-bit SIMD multiplies).",
            seed.clock_mhz / 1000.0
        ));
    }
    s.not_built.push(
        "The SIMD column-wise kernels (issue 17: 4 lanes of radix 2^16 or 2^32 on AVX2/AVX-512) are not built yet: \
         their columns plug in beside `columns` here (experiments::seed000::IMPLS)."
            .into(),
    );
    Ok(s)
}
