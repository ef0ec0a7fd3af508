//! Seed 002 (`002_22204625d1543e0d.txt`, Fan, Sakiyama & Verbauwhede, Montgomery
//! multiplication for multi-core systems): cycles against core count on the
//! cycle-accurate model of `montmul-sim` (method-I and method-II against Fig. 6's
//! points), the model's memory accesses and operation counts against the formulas of
//! Tables 2 and 3, and method-II on real threads of this machine (1 and 2 threads)
//! beside the model's speed-ups.

use montmul_sim::check;
use montmul_sim::multicore::{self, Config, Method};

use super::{Ctx, Mode};
use crate::bench::Stat;
use crate::bench_threads;
use crate::report::model::{Cell, Plot, Section, Series, Style, Table};
use crate::CliError;

/// Seed 002, Table 3 (and Table 2's transfers): (N_load-opr, N_load-tr, N_store-tr)
/// for s words, p cores and S_rf = r registers, the row chosen by r's range. The
/// fractional bounds (3s/p, ...) are compared multiplied out, r p against k s.
pub fn table3(method: Method, s: u64, p: u64, r: u64) -> (u64, u64, u64) {
    match method {
        Method::SingleCore => {
            if r > 3 * s {
                (3 * s, 0, 0)
            } else if r > 2 * s {
                (s * s + 2 * s, 0, 0)
            } else if r > s {
                (2 * s * s + s, 0, 0)
            } else {
                (2 * s * s + s, s * (s - 1), s * s)
            }
        }
        Method::MethodI => {
            let tr = (s * (s - 1), s * s);
            if r > 2 * s {
                (2 * p * s + s, tr.0, tr.1)
            } else if r > s {
                (s * s + p * s + s, tr.0, tr.1)
            } else {
                (2 * s * s + s, tr.0, tr.1)
            }
        }
        Method::MethodII => {
            let tr = (2 * (p - 1) * s, p * s);
            if r * p > 3 * s {
                (2 * s + p * s, tr.0, tr.1)
            } else if r * p > 2 * s {
                (s * s + p * s + s, tr.0, tr.1)
            } else if r * p > s {
                (2 * s * s + p * s, tr.0, tr.1)
            } else {
                (2 * s * s + s, s * s + (2 * p - 3) * s, s * s + s)
            }
        }
    }
}

/// Runs the section.
pub fn run(ctx: &mut Ctx<'_>) -> Result<Section, CliError> {
    let fig = &ctx.seeds.seed002_fig6;
    let mut s = Section::new(
        "seed002",
        "Seed 002: Montgomery multiplication on a multi-core platform (Fan, Sakiyama & Verbauwhede)",
        Some("002_22204625d1543e0d.txt"),
    );
    let max_cores = match ctx.mode {
        Mode::Quick => 4,
        Mode::Default => 8,
        Mode::Full => 16,
    };
    let config = |method, cores| Config {
        method,
        cores,
        bits: fig.bits,
        word: fig.word,
        registers: fig.registers,
        write_back: false,
    };
    let (m, x, y) = check::random_operands(fig.bits, 1)?;
    let mut runs = Vec::new();
    let single = multicore::simulate_checked(&config(Method::SingleCore, 1), &m, &x, &y)?.stats;
    runs.push((Method::SingleCore, 1usize, single));
    for p in 2..=max_cores {
        for method in [Method::MethodI, Method::MethodII] {
            let st = multicore::simulate_checked(&config(method, p), &m, &x, &y)?.stats;
            runs.push((method, p, st));
        }
    }
    let name = |m: Method| match m {
        Method::SingleCore => "single",
        Method::MethodI => "I",
        Method::MethodII => "II",
    };
    let seed_point = |m: Method, p: usize| {
        fig.points
            .iter()
            .find(|q| q.cores == p && q.method == name(m))
            .map(|q| q.cycles)
    };
    // Fig. 6 as a table and a plot.
    let mut rows = Vec::new();
    for (method, p, st) in &runs {
        rows.push(vec![
            Cell::num(*p as f64),
            Cell::text(name(*method)),
            Cell::num(st.cycles as f64),
            Cell::opt(seed_point(*method, *p)),
            Cell::num(single.cycles as f64 / st.cycles as f64),
        ]);
    }
    s.tables.push(Table {
        id: "seed002-fig6".into(),
        title: format!(
            "Fig. 6: cycles per {}-bit multiplication, w = {}, S_rf = {}",
            fig.bits, fig.word, fig.registers
        ),
        source: format!(
            "model: montmul-sim's cycle-accurate platform, each product checked against montmul's CIOS; seed: {}",
            fig.source
        ),
        columns: ["cores", "method", "model cycles", "seed cycles", "model speed-up over 1 core"]
            .map(String::from)
            .to_vec(),
        rows,
    });
    let line = |m: Method| -> Vec<(f64, f64)> {
        runs.iter()
            .filter(|r| r.0 == m || r.0 == Method::SingleCore)
            .map(|r| (r.1 as f64, r.2.cycles as f64))
            .collect()
    };
    let seed_pts = |m: &str| -> Vec<(f64, f64)> {
        fig.points
            .iter()
            .filter(|q| q.method == m || q.method == "single")
            .map(|q| (q.cores as f64, q.cycles))
            .collect()
    };
    s.plots.push(Plot {
        id: "seed002-fig6".into(),
        title: "Fig. 6: cycles against core count".into(),
        x_label: "cores".into(),
        y_label: "cycles per multiplication".into(),
        series: vec![
            Series {
                name: "model: method-I".into(),
                style: Style::Line,
                points: line(Method::MethodI),
            },
            Series {
                name: "model: method-II".into(),
                style: Style::Line,
                points: line(Method::MethodII),
            },
            Series {
                name: "seed: method-I".into(),
                style: Style::Points,
                points: seed_pts("I"),
            },
            Series {
                name: "seed: method-II".into(),
                style: Style::Points,
                points: seed_pts("II"),
            },
        ],
        reference_y: None,
    });
    let mut diffs = Vec::new();
    for (method, p, st) in &runs {
        if let Some(c) = seed_point(*method, *p) {
            diffs.push(format!(
                "{} on {p} core{}: {} against {c} ({:+.1}%)",
                if *method == Method::SingleCore {
                    "FIOS".to_string()
                } else {
                    format!("method-{}", name(*method))
                },
                if *p == 1 { "" } else { "s" },
                st.cycles,
                100.0 * (st.cycles as f64 / c - 1.0)
            ));
        }
    }
    let cycles_of = |m: Method, p: usize| {
        runs.iter()
            .find(|r| r.0 == m && r.1 == p)
            .map(|r| r.2.cycles)
    };
    let multi: Vec<usize> = (2..=max_cores).collect();
    let ii_wins = multi
        .iter()
        .filter(|&&p| cycles_of(Method::MethodII, p) < cycles_of(Method::MethodI, p))
        .count();
    let best = |m: Method| {
        multi
            .iter()
            .copied()
            .min_by_key(|&p| cycles_of(m, p).unwrap_or(u64::MAX))
    };
    s.findings.push(format!(
        "Model against the seed's Fig. 6: {}. Method-II is faster than method-I at {ii_wins} of {} core counts \
         (the seed: at every count); the model's method-I is fastest at {} cores and method-II at {} \
         (the seed: method-I gets worse beyond 4 cores, method-II is best at 6). Absolute counts differ where the \
         seed leaves the schedule open (bundle packing, the epilogue).",
        diffs.join("; "),
        multi.len(),
        best(Method::MethodI).unwrap_or(1),
        best(Method::MethodII).unwrap_or(1),
    ));
    // Tables 2-3: the model's counts against the formulas.
    let sw = u64::from(fig.bits.div_ceil(fig.word));
    let r = fig.registers as u64;
    let mut rows = Vec::new();
    let mut agree = 0;
    let mut cells = 0;
    let mut column_agree = [0usize; 5];
    for (method, p, st) in &runs {
        let (opr, ltr, str_) = table3(*method, sw, *p as u64, r);
        let (nmul, nadd) = (2 * sw * sw + sw, 4 * sw * sw + sw);
        let pairs = [
            (st.loads.operand, opr),
            (st.loads.transfer, ltr),
            (st.stores.transfer, str_),
            (st.loop_muls, nmul),
            (st.loop_adds, nadd),
        ];
        let mut row = vec![Cell::text(name(*method)), Cell::num(*p as f64)];
        for (i, (model, formula)) in pairs.into_iter().enumerate() {
            cells += 1;
            column_agree[i] += usize::from(model == formula);
            agree += usize::from(model == formula);
            row.push(Cell::num(model as f64));
            row.push(Cell::num(formula as f64));
        }
        rows.push(row);
    }
    s.tables.push(Table {
        id: "seed002-tables2-3".into(),
        title: format!("Tables 2-3: memory accesses and operations per multiplication, s = {sw}, S_rf = {r}"),
        source: "model: montmul-sim's counts; formula: seed 002 (002_22204625d1543e0d.txt), Table 3 (the row of S_rf's range) and Table 2 (N_mul = 2s^2 + s, N_add = 4s^2 + s)".into(),
        columns: [
            "method", "cores", "load-opr model", "load-opr formula", "load-tr model", "load-tr formula",
            "store-tr model", "store-tr formula", "N_mul model", "N_mul formula", "N_add model", "N_add formula",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
    let per_column: Vec<String> = ["load-opr", "load-tr", "store-tr", "N_mul", "N_add"]
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{c} {}/{}", column_agree[i], runs.len()))
        .collect();
    s.findings.push(format!(
        "Tables 2-3: {agree} of {cells} counts equal their formula ({}). Where they differ, the model's \
         schedule moves words differently from the one the formulas count; the table shows both, unadjusted.",
        per_column.join(", ")
    ));
    real_threads(ctx, &mut s, &runs, single.cycles)?;
    Ok(s)
}

/// Method-II on real threads ([`montmul::parallel::mont_mul_split`], through `montmul
/// bench --threads`'s measurement) on 1 and 2 threads, beside the model's speed-ups.
fn real_threads(
    ctx: &mut Ctx<'_>,
    s: &mut Section,
    runs: &[(Method, usize, multicore::machine::Stats)],
    single_cycles: u64,
) -> Result<(), CliError> {
    let fig = &ctx.seeds.seed002_fig6;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let sizes: Vec<u32> = match ctx.mode {
        Mode::Quick => vec![fig.bits, 4096],
        Mode::Default => vec![fig.bits, 1024, 4096, 16384, 65536],
        Mode::Full => vec![fig.bits, 1024, 2048, 4096, 8192, 16384, 32768, 65536],
    };
    let pools = [1usize, 2]
        .iter()
        .map(|&p| rayon::ThreadPoolBuilder::new().num_threads(p).build())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CliError(format!("cannot start a thread pool: {e}")))?;
    let budget = ctx.timings.budget();
    let rows =
        bench_threads::method_ii(&pools, &sizes, budget.rounds, budget.batch, Stat::Median, 1)?;
    // Per size: (1-thread ns, 2-thread ns, threads used by the second).
    let mut per_size = Vec::new();
    for &bits in &sizes {
        let mut at = rows.iter().filter(|r| r.bits == bits);
        let (Some(one), Some(two)) = (at.next(), at.next()) else {
            continue;
        };
        let used: usize = two
            .name
            .rsplit(':')
            .next()
            .and_then(|u| u.parse().ok())
            .unwrap_or(1);
        per_size.push((bits, one.ns, two.ns, used));
    }
    let model_ii_2 = runs
        .iter()
        .find(|r| r.0 == Method::MethodII && r.1 == 2)
        .map(|r| single_cycles as f64 / r.2.cycles as f64);
    s.tables.push(Table {
        id: "seed002-threads".into(),
        title: format!(
            "Method-II on real threads of this {cores}-core machine: one multiplication on 1 and 2 threads"
        ),
        source: "measured here (median ns) by `montmul bench --threads`'s measurement: montmul::parallel::mont_mul_split, \
                 64-bit words, the threads meeting at a spin barrier once per word of the multiplier, each product \
                 checked against num-bigint first; a machine with 2 cores cannot show the seed's 4 to 8 cores"
            .into(),
        columns: ["bits", "words s", "1 thread (ns)", "2 threads (ns)", "threads used", "speed-up on 2 threads"]
            .map(String::from)
            .to_vec(),
        rows: per_size
            .iter()
            .map(|&(bits, one, two, used)| {
                vec![
                    Cell::num(f64::from(bits)),
                    Cell::num(f64::from(bits / 64)),
                    Cell::num(one),
                    Cell::num(two),
                    Cell::num(used as f64),
                    Cell::num(one / two),
                ]
            })
            .collect(),
    });
    // The plot: speed-up against cores, the model's and the seed's at the seed's size,
    // the real threads' at each size.
    let mut series = vec![
        Series {
            name: format!("model: method-II, {} bits, w = {}", fig.bits, fig.word),
            style: Style::Line,
            points: runs
                .iter()
                .filter(|r| r.0 == Method::MethodII || r.0 == Method::SingleCore)
                .map(|r| (r.1 as f64, single_cycles as f64 / r.2.cycles as f64))
                .collect(),
        },
        Series {
            name: "seed: method-II (Fig. 6)".into(),
            style: Style::Points,
            points: fig
                .points
                .iter()
                .filter(|q| q.method == "II" || q.method == "single")
                .filter_map(|q| {
                    let one = fig.points.iter().find(|o| o.method == "single")?.cycles;
                    Some((q.cores as f64, one / q.cycles))
                })
                .collect(),
        },
    ];
    for &(bits, one, two, used) in &per_size {
        series.push(Series {
            name: format!("real threads, {bits} bits"),
            style: Style::Line,
            points: vec![(1.0, 1.0), (used as f64, one / two)],
        });
    }
    s.plots.push(Plot {
        id: "seed002-threads".into(),
        title: format!("Method-II speed-up against cores: the model (up to its core count) and real threads (1 and 2 on this {cores}-core machine)"),
        x_label: "cores (threads)".into(),
        y_label: "speed-up over one core".into(),
        series,
        reference_y: Some(1.0),
    });
    // The sentence, from the numbers.
    let first_gain = per_size.iter().find(|r| r.1 / r.2 > 1.0).map(|r| r.0);
    let best = per_size
        .iter()
        .max_by(|a, b| (a.1 / a.2).total_cmp(&(b.1 / b.2)));
    if let (Some(&(sb, s1, s2, _)), Some(&(bb, b1, b2, _))) = (per_size.first(), best) {
        s.findings.push(format!(
            "Real threads against the model: at the seed's {sb} bits ({} 64-bit words), 2 threads take {:.2}x the \
             time of one (speed-up {:.3}), where the model's method-II gives {} on 2 cores. The model's cores \
             exchange a word in a cycle; threads on this CPU meet at a barrier once per iteration, which {} the {} \
             word products each thread does per iteration at that size. {} The best measured speed-up is {:.2} at {bb} bits \
             (the bound on 2 threads is 2). This {cores}-core machine shows 1 and 2 threads only; the model's runs on 3 \
             to {} cores have no measured counterpart here, and the other builds sharing these cores (the load average in \
             the header) fall on the 2-thread runs most.",
            sb / 64,
            s2 / s1,
            s1 / s2,
            model_ii_2.map_or("no value".into(), |v| format!("{v:.2}")),
            if s2 > s1 {
                "costs more than"
            } else {
                "is paid back by"
            },
            2 * (sb / 64).div_ceil(2),
            match first_gain {
                Some(b) => format!("Two threads first beat one at {b} bits, of the sizes measured."),
                None => "Two threads beat one at none of the sizes measured.".into(),
            },
            b1 / b2,
            runs.iter().map(|r| r.1).max().unwrap_or(1),
        ));
    }
    Ok(())
}
