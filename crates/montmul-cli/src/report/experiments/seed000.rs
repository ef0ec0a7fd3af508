//! Seed 000 (`000_d6e3f6dbb73a6c7c.txt`, Bos & Kaihara, Montgomery multiplication on
//! the Cell): Table 1 (ns per Montgomery multiplication, 192..2048 bits) and Fig. 2
//! (speed-up of the column-wise kernel over the row-wise one against the bit size).
//!
//! The seed's kernel is radix 2^16 and column-wise on 4 SIMD lanes. montmul has that
//! algorithm on 16-bit limbs as portable scalar code (`columns`) and on x86 vector
//! units (`columns-sse2`, `columns-avx2`, `columns-avx512`: 4, 8 and 16 lanes, issue
//! 17); a vector kernel this CPU cannot run is left out with a sentence saying why.
//! Their counterpart, as unrolled MPM was the seed's, is CIOS at the same 16-bit radix;
//! montmul's best is `auto` on 64-bit limbs, and CIOS on 64-bit limbs is the plain
//! scalar code of today's word.

use super::{left_out, range, ratio, span, Ctx, Mode};
use crate::report::model::{Cell, Plot, Section, Series, Style, Table};
use crate::report::timing::{k, label, Impl};
use crate::CliError;

/// The column-wise kernels on 16-bit limbs: the portable one, then the vector ones.
const COLUMNS: [&str; 4] = ["columns", "columns-sse2", "columns-avx2", "columns-avx512"];

/// The row-wise and word-size references timed beside them.
const OTHERS: [(&str, u32); 3] = [("cios", 16), ("cios", 64), ("auto", 64)];

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
    // The column-wise kernels this CPU runs; the others are left out, saying why.
    let mut columns: Vec<&'static str> = Vec::new();
    let mut absent = Vec::new();
    for name in COLUMNS {
        match left_out::<u16>(name) {
            None => columns.push(name),
            Some(why) => absent.push(why),
        }
    }
    let simd: Vec<&'static str> = columns[1..].to_vec();
    let impls: Vec<Impl> = columns
        .iter()
        .map(|&n| k(n, 16))
        .chain(OTHERS.iter().map(|&(n, w)| k(n, w)))
        .collect();
    // Table 1: every implementation at the seed's sizes.
    let mut rows = Vec::new();
    let mut best_vs_spe = Vec::new();
    // Per size: (fastest SIMD columns kernel, its ns, cios w=64's ns).
    let mut best_simd = Vec::new();
    for &bits in &table_bits {
        let t = ctx.timings.get(&impls, bits)?;
        let ns = |n: &str, w: u32| t.get(&label(n, w)).copied().flatten();
        let sr = seed.rows.iter().find(|r| r.bits == bits);
        let (cios16, cios64, auto) = (ns("cios", 16), ns("cios", 64), ns("auto", 64));
        if let (Some(r), Some(a)) = (sr, auto) {
            best_vs_spe.push(r.this_work_ns / a);
        }
        let fastest = simd
            .iter()
            .filter_map(|&n| ns(n, 16).map(|v| (n, v)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some((n, v)), Some(c64)) = (fastest, cios64) {
            best_simd.push((n, v, c64));
        }
        let mut row = vec![
            Cell::num(f64::from(bits)),
            Cell::opt(sr.map(|r| r.this_work_ns)),
            Cell::opt(sr.map(|r| r.mpm_ns)),
            Cell::opt(sr.map(|r| r.unrolled_mpm_ns)),
            Cell::opt(sr.map(|r| r.unrolled_mpm_ns / r.this_work_ns)),
        ];
        // One column per column-wise kernel, empty where this CPU lacks it.
        row.extend(COLUMNS.iter().map(|&n| Cell::opt(ns(n, 16))));
        row.extend([
            Cell::opt(cios16),
            Cell::opt(cios64),
            Cell::opt(auto),
            Cell::opt(ratio(cios16, ns("columns", 16))),
            Cell::opt(ratio(cios16, fastest.map(|f| f.1))),
        ]);
        rows.push(row);
    }
    let mut columns_head: Vec<String> = [
        "bits",
        "seed: SIMD column-wise on SPE (ns)",
        "seed: MPM (ns)",
        "seed: unrolled MPM (ns)",
        "seed: speed-up",
    ]
    .map(String::from)
    .to_vec();
    columns_head.extend(COLUMNS.iter().map(|n| format!("montmul {n}, w=16 (ns)")));
    columns_head.extend(
        [
            "montmul cios, w=16 (ns)",
            "montmul cios, w=64 (ns)",
            "montmul best: auto, w=64 (ns)",
            "speed-up columns over cios, w=16",
            "speed-up fastest SIMD columns over cios, w=16",
        ]
        .map(String::from),
    );
    s.tables.push(Table {
        id: "seed000-table1".into(),
        title: "Table 1: ns per Montgomery multiplication".into(),
        source: format!(
            "seed columns: {}; seed speed-up: over unrolled MPM, as in {}; montmul columns: measured here (median ns, \
             interleaved rounds, each kernel's product checked against num-bigint first); a SIMD column is empty where \
             this CPU lacks its instructions",
            seed.source, ctx.seeds.seed000_fig2.source
        ),
        columns: columns_head,
        rows,
    });
    // Fig. 2: the speed-up of each column-wise kernel over CIOS at 16-bit words.
    let pair: Vec<Impl> = columns
        .iter()
        .map(|&n| k(n, 16))
        .chain([k("cios", 16)])
        .collect();
    let mut points: Vec<Vec<(f64, f64)>> = vec![Vec::new(); columns.len()];
    let mut over_scalar: Vec<Vec<f64>> = vec![Vec::new(); columns.len()];
    for &bits in &fig_bits {
        let t = ctx.timings.get(&pair, bits)?;
        let g = |n: &str| t.get(&label(n, 16)).copied().flatten();
        for (i, &n) in columns.iter().enumerate() {
            if let Some(r) = ratio(g("cios"), g(n)) {
                points[i].push((f64::from(bits), r));
            }
            if let Some(r) = ratio(g("columns"), g(n)) {
                over_scalar[i].push(r);
            }
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
    let mut series: Vec<Series> = columns
        .iter()
        .zip(&points)
        .map(|(&n, p)| Series {
            name: format!(
                "montmul: cios / {n}, {} (measured)",
                lanes(n).map_or("scalar, w=16".to_string(), |l| format!(
                    "{l} lanes of w=16 digits"
                ))
            ),
            style: Style::Line,
            points: p.clone(),
        })
        .collect();
    series.push(Series {
        name: format!(
            "seed: SIMD over unrolled MPM (Table 1; max {} at {} bits)",
            fig.max_speedup, fig.max_at_bits
        ),
        style: Style::Points,
        points: seed_points,
    });
    s.plots.push(Plot {
        id: "seed000-fig2".into(),
        title: format!(
            "Fig. 2: speed-up of the column-wise kernels over CIOS at w=16 against the bit size (every {} bits)",
            match ctx.mode {
                Mode::Quick => 512,
                Mode::Default => 64,
                Mode::Full => 16,
            }
        ),
        x_label: "modulus bits".into(),
        y_label: "speed-up (row-wise time / column-wise time)".into(),
        series,
        reference_y: Some(1.0),
    });
    findings(
        ctx,
        &mut s,
        &columns,
        &points,
        &over_scalar,
        seed_span,
        &best_simd,
        best_vs_spe,
    );
    s.findings.extend(absent);
    Ok(s)
}

/// The lanes of a vector column-wise kernel (`None` for the scalar one).
fn lanes(name: &str) -> Option<u32> {
    match name {
        "columns-sse2" => Some(4),
        "columns-avx2" => Some(8),
        "columns-avx512" => Some(16),
        _ => None,
    }
}

/// "faster" or "slower" for a speed-up `lo..hi` (both sides of 1: "both").
fn verdict(lo: f64, hi: f64) -> &'static str {
    if lo > 1.0 {
        "faster than"
    } else if hi < 1.0 {
        "slower than"
    } else {
        "sometimes faster and sometimes slower than"
    }
}

/// The section's sentences, from the numbers.
#[allow(clippy::too_many_arguments)]
fn findings(
    ctx: &Ctx<'_>,
    s: &mut Section,
    columns: &[&str],
    points: &[Vec<(f64, f64)>],
    over_scalar: &[Vec<f64>],
    seed_span: Option<(f64, f64)>,
    best_simd: &[(&str, f64, f64)],
    best_vs_spe: Vec<f64>,
) {
    let seed = &ctx.seeds.seed000_table1;
    let (slo, shi) = seed_span.unwrap_or((f64::NAN, f64::NAN));
    if let Some((lo, hi)) = span(points[0].iter().map(|p| p.1)) {
        s.findings.push(format!(
            "montmul's scalar column-wise kernel (`columns`) runs at {lo:.2}-{hi:.2}x the speed of CIOS at the same \
             16-bit radix over the plotted sizes, so it is {} CIOS there; the seed's column-wise kernel ran \
             {slo:.2}-{shi:.2}x faster than unrolled MPM. The seed's gain came from its 4-way SIMD on the SPE (four \
             16-bit digits per instruction, no carries across lanes), which scalar code cannot have.",
            verdict(lo, hi)
        ));
    }
    let mut parts = Vec::new();
    for (i, &n) in columns.iter().enumerate().skip(1) {
        if let (Some((lo, hi)), Some((clo, chi))) = (
            span(points[i].iter().map(|p| p.1)),
            span(over_scalar[i].iter().copied()),
        ) {
            parts.push(format!(
                "{n} ({} lanes) runs at {lo:.2}-{hi:.2}x the speed of CIOS w=16 ({} it) and {clo:.2}-{chi:.2}x that of the \
                 scalar columns ({} them)",
                lanes(n).unwrap_or(1),
                verdict(lo, hi),
                verdict(clo, chi)
            ));
        }
    }
    let all_simd = span(points.iter().skip(1).flatten().map(|p| p.1));
    if let Some((lo, hi)) = all_simd {
        s.findings.push(format!(
            "montmul now has the seed's SIMD column-wise kernel on this CPU's vector units. Over the plotted sizes, \
             {}. {}",
            parts.join("; "),
            if lo > 1.0 {
                format!(
                    "As on the SPE, the vector lanes pay against row-wise code at the same radix, by \
                     {lo:.2}-{hi:.2}x here against the seed's {slo:.2}-{shi:.2}x."
                )
            } else if hi < 1.0 {
                format!(
                    "Unlike on the SPE ({slo:.2}-{shi:.2}x), the vector lanes do not beat row-wise code at the same \
                     radix on this CPU."
                )
            } else {
                format!(
                    "The vector lanes pay against row-wise code at the same radix at some sizes only \
                     ({lo:.2}-{hi:.2}x over all SIMD kernels and sizes), where the seed's gained {slo:.2}-{shi:.2}x \
                     at every size."
                )
            }
        ));
    }
    if let Some((lo, hi)) = span(best_simd.iter().map(|b| b.1 / b.2)) {
        let mut names: Vec<&str> = best_simd.iter().map(|b| b.0).collect();
        names.dedup();
        let bits = match ctx.mode {
            Mode::Quick => "192-512",
            _ => "192-2048",
        };
        s.findings.push(format!(
            "Against today's word, the fastest SIMD column-wise kernel at each of Table 1's sizes ({}) takes \
             {lo:.2}-{hi:.2}x the time of scalar CIOS on 64-bit limbs at {bits} bits: {}. A 64x64->128-bit \
             multiply does the work of sixteen 16x16->32-bit products, which the vector lanes must make up in \
             number.",
            names.join(", "),
            if hi < 1.0 {
                "the vector units win even against 64-bit words"
            } else if lo > 1.0 {
                "64-bit scalar code stays faster"
            } else {
                "neither wins at every size"
            }
        ));
    }
    if let Some((lo, hi)) = span(best_vs_spe) {
        s.findings.push(format!(
            "The seed's SPE time ({:.1} GHz, 2008) divided by montmul's best time on this CPU: {lo:.1}-{hi:.1} over \
             the table's sizes (64-bit multipliers and wide out-of-order cores against 16x16-bit SIMD multiplies).",
            seed.clock_mhz / 1000.0
        ));
    }
}
