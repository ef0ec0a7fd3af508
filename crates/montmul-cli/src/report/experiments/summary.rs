//! The summary: montmul's best kernel against the best peer (the system GMP 6.2, GMP
//! 6.3 built for this CPU where `peers/gmp63` is built, OpenSSL 3.0, num-bigint,
//! crypto-bigint) at every size from 256 to 8192 bits, as a table and a ratio plot; and
//! montmul's efficiency against this CPU's multiplier bound, the AVX-512 IFMA
//! lane-products per cycle that the report's own probe measured.
//!
//! GMP 6.3 runs in a subprocess ([`montmul_peers::gmp63`]) on inputs of the same size,
//! its products checked against num-bigint's before its time counts; OpenSSL 4.0 is
//! not here, since Python's `cryptography` exposes no modular product (it is in the
//! RSA/DSS rows of seeds 001 and 004).

use montmul_peers::gmp63::{self, Gmp63Error};
use montmul_peers::Inputs;

use super::{range, ratio, Ctx, Mode};
use crate::report::model::{Cell, Plot, Section, Series, Style, Table};
use crate::report::timing::{k, label, Impl};
use crate::CliError;

/// The 64-bit kernels the best is chosen from (those this CPU or size lacks drop out).
const KERNELS: [&str; 5] = ["auto", "mulx-cios", "mulx-redc", "amm52-ifma", "karatsuba"];

/// The seed of GMP 6.3's inputs (any: its products are checked against num-bigint).
const GMP63_SEED: u64 = 63;

/// The IFMA bound in ns for one `bits`-bit Montgomery product: 4 k^2 lane-products of
/// 52 x 52 bits (k = ceil(bits / 52) digits; a b and q n, low and high halves each),
/// 8 lanes per instruction, `ipc` instructions per cycle at `ghz`.
pub fn ifma_bound_ns(bits: u32, ipc: f64, ghz: f64) -> f64 {
    let digits = f64::from(bits.div_ceil(52));
    4.0 * digits * digits / (8.0 * ipc * ghz)
}

/// Runs the section.
pub fn run(ctx: &mut Ctx<'_>) -> Result<Section, CliError> {
    let mut s = Section::new(
        "summary",
        "Summary: montmul against the best peer, and against the multiplier bound",
        None,
    );
    let sizes = match ctx.mode {
        Mode::Quick => vec![256, 1024],
        Mode::Default => vec![256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192],
        Mode::Full => range(256, 8192, 256),
    };
    let mut impls: Vec<Impl> = KERNELS.iter().map(|&n| k(n, 64)).collect();
    impls.push(Impl::Peers);
    let bound = ctx.ghz.zip(ctx.ifma_per_cycle);
    let mut rows = Vec::new();
    let mut points = Vec::new();
    let mut wins = 0;
    let mut above_bound = 0;
    let mut gmp63_absent = None;
    let mut gmp63_points = Vec::new();
    let mut gmp_ratios = Vec::new();
    let budget = ctx.timings.budget();
    for &bits in &sizes {
        let mut t = ctx.timings.get(&impls, bits)?;
        if gmp63_absent.is_none() {
            let inputs = Inputs::random(bits, GMP63_SEED);
            match gmp63::rows(&inputs, &["mul"], budget.rounds, budget.batch) {
                Ok(r) => t.extend(
                    r.into_iter()
                        .map(|(_, name, ns)| (format!("peer:{name}"), Some(ns))),
                ),
                Err(Gmp63Error::Absent(why)) => gmp63_absent = Some(why),
                Err(e) => return Err(CliError(e.to_string())),
            }
        }
        let gmp62 = t.get("peer:gmp").copied().flatten();
        let gmp63 = t.get(&format!("peer:{}", gmp63::NAME)).copied().flatten();
        let best_of = |peer: bool| {
            t.iter()
                .filter(|(l, _)| l.starts_with("peer:") == peer)
                .filter_map(|(l, v)| v.map(|v| (l.clone(), v)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
        };
        let ours = best_of(false);
        let peer = best_of(true);
        let r = ratio(peer.as_ref().map(|p| p.1), ours.as_ref().map(|o| o.1));
        if let Some(r) = r {
            points.push((f64::from(bits), r));
            wins += usize::from(r > 1.0);
        }
        let b = bound.map(|(g, ipc)| ifma_bound_ns(bits, ipc, g));
        above_bound += usize::from(ratio(b, ours.as_ref().map(|o| o.1)).is_some_and(|e| e > 1.0));
        if let Some(r) = ratio(gmp63, ours.as_ref().map(|o| o.1)) {
            gmp63_points.push((f64::from(bits), r));
        }
        gmp_ratios.extend(ratio(gmp62, gmp63));
        rows.push(vec![
            Cell::num(f64::from(bits)),
            Cell::text(
                ours.as_ref()
                    .map_or("-".into(), |o| o.0.trim_end_matches("/64").to_string()),
            ),
            Cell::opt(ours.as_ref().map(|o| o.1)),
            Cell::text(
                peer.as_ref()
                    .map_or("-".into(), |p| p.0.trim_start_matches("peer:").to_string()),
            ),
            Cell::opt(peer.as_ref().map(|p| p.1)),
            Cell::opt(r),
            Cell::opt(b),
            Cell::opt(ratio(b, ours.as_ref().map(|o| o.1))),
            Cell::opt(t.get(&label("auto", 64)).copied().flatten()),
            Cell::opt(gmp62),
            Cell::opt(gmp63),
            Cell::opt(ratio(gmp62, gmp63)),
        ]);
    }
    s.tables.push(Table {
        id: "summary".into(),
        title: "Montgomery multiplication: montmul's best kernel against the best peer".into(),
        source: format!(
            "measured here: median ns, every in-process implementation interleaved at each size on the same inputs, \
             each product checked against num-bigint first; GMP 6.3 (`{}`) timed the same way in a subprocess \
             (peers/gmp63) on inputs of the same size, its products checked too; GMP's product is mpz_mul then \
             mpz_tdiv_r, as in `montmul bench --peers`; IFMA bound from the report's probe",
            gmp63::NAME
        ),
        columns: [
            "bits", "montmul best", "montmul best (ns)", "best peer", "best peer (ns)",
            "peer / montmul", "IFMA bound (ns)", "efficiency (bound / montmul best)", "montmul auto (ns)",
            "GMP 6.2 system, generic (ns)", "GMP 6.3 for this CPU (ns)", "GMP 6.2 / GMP 6.3",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
    s.plots.push(Plot {
        id: "summary-ratio".into(),
        title: "Best peer's time / montmul's best time (above 1: montmul is faster)".into(),
        x_label: "modulus bits".into(),
        y_label: "peer time / montmul time".into(),
        series: {
            let mut v = vec![Series {
                name: "best peer / montmul best".into(),
                style: Style::Line,
                points: points.clone(),
            }];
            if !gmp63_points.is_empty() {
                v.push(Series {
                    name: "GMP 6.3 for this CPU / montmul best".into(),
                    style: Style::Line,
                    points: gmp63_points.clone(),
                });
            }
            v
        },
        reference_y: Some(1.0),
    });
    s.findings.push(format!(
        "montmul's best kernel is faster than the best peer at {wins} of {} sizes. {}",
        points.len(),
        if gmp63_absent.is_none() {
            "The peers include GMP 6.3 built for this CPU (its mulx/adx kernels; see the header) beside the \
             system's generic GMP 6.2 and OpenSSL 3.0; OpenSSL 4.0 exposes no modular product to time here."
        } else {
            "The peers are the system's builds (see the header): GMP 6.3 built for this CPU is not built here \
             and could be faster than the generic GMP 6.2, so these ratios may flatter montmul."
        }
    ));
    if let Some(span) = super::span(gmp_ratios.iter().copied()) {
        s.findings.push(format!(
            "GMP 6.3 built for this CPU against the system's generic GMP 6.2 on the same product (mpz_mul + \
             mpz_tdiv_r): GMP 6.2's time is {:.2}x to {:.2}x GMP 6.3's over these sizes (timed in different \
             processes, so not interleaved round by round).",
            span.0, span.1
        ));
    }
    match bound {
        Some((g, ipc)) => s.findings.push(format!(
            "The IFMA probe measured {ipc:.2} vpmadd52 instructions per cycle ({:.1} lane-products of 52x52 bits) \
             at {g:.2} GHz. The bound counts only the 4k^2 lane-products of a k-digit product: no additions, \
             carries, loads or the quotient digit, so no kernel reaches 1.",
            8.0 * ipc
        )),
        None => s.not_built.push(
            "SKIPPED: this CPU has no AVX-512 IFMA (or no probe exists for this architecture): the multiplier \
             bound and the efficiency column are not measured."
                .into(),
        ),
    }
    if above_bound > 0 {
        s.findings.push(format!(
            "At {above_bound} size(s) the efficiency is above 1, which no kernel can reach: the probe's clock or \
             the timing was disturbed in this run (a loaded machine: see the load average in the header), so the \
             efficiency column is unreliable here; rerun on a quiet machine."
        ));
    }
    if let Some(why) = gmp63_absent {
        s.not_built.push(why);
    }
    Ok(s)
}
