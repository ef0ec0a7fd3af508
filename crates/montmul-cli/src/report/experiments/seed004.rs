//! Seed 004 (`004_2081c68bf825cc4c.txt`, Koc 1997, MMX for number-theoretic
//! cryptosystems): 1024-bit Montgomery multiplication with each of the five algorithms
//! (SOS, CIOS, FIOS, FIPS, CIHS) at every word size montmul has, beside the 1997
//! Pentium Pro/MMX numbers, in time and in cycles (the clock ratio of 233 MHz to this
//! machine's measured clock).

use super::{ratio, Ctx};
use crate::report::model::{Cell, Section, Table};
use crate::report::timing::{k, label};
use crate::CliError;

/// The seed's five algorithms, by montmul's kernel names.
const ALGOS: [&str; 5] = ["sos", "cios", "fios", "fips", "cihs"];

/// montmul's word sizes.
const WORDS: [u32; 4] = [8, 16, 32, 64];

/// Runs the section.
pub fn run(ctx: &mut Ctx<'_>) -> Result<Section, CliError> {
    let mul = &ctx.seeds.seed004_mul;
    let mut s = Section::new(
        "seed004",
        "Seed 004: the five Montgomery algorithms on MMX (Koc 1997)",
        Some("004_2081c68bf825cc4c.txt"),
    );
    let bits = mul.bits;
    let impls: Vec<_> = ALGOS
        .iter()
        .flat_map(|&a| WORDS.iter().map(move |&w| k(a, w)))
        .collect();
    let t = ctx.timings.get(&impls, bits)?;
    let ns = |a: &str, w: u32| t.get(&label(a, w)).copied().flatten();
    let clock_ratio = ctx.ghz.map(|g| g * 1000.0 / mul.clock_mhz);
    let mut rows = Vec::new();
    let mut cycle_ratios = Vec::new();
    for a in ALGOS {
        let mmx = mul
            .rows
            .iter()
            .find(|r| r.algo == a && r.code == "MMX assembler")
            .map(|r| r.us);
        let seed_cycles = mmx.map(|us| us * mul.clock_mhz);
        let ours32 = ns(a, 32);
        let our_cycles = ours32.zip(ctx.ghz).map(|(n, g)| n * g);
        if let Some(r) = ratio(seed_cycles, our_cycles) {
            cycle_ratios.push((a, r));
        }
        let mut row = vec![Cell::text(a)];
        row.extend(WORDS.iter().map(|&w| Cell::opt(ns(a, w))));
        row.extend([
            Cell::opt(mmx.map(|us| us * 1000.0)),
            Cell::opt(seed_cycles),
            Cell::opt(our_cycles),
            Cell::opt(ratio(seed_cycles, our_cycles)),
        ]);
        rows.push(row);
    }
    s.tables.push(Table {
        id: "seed004-mul1024".into(),
        title: format!("{bits}-bit Montgomery multiplication per algorithm and word size"),
        source: format!(
            "montmul: measured here (median ns); seed: {} (MMX assembler rows); cycles: ns x clock, 233 MHz for the seed, the measured clock here",
            mul.source
        ),
        columns: [
            "algorithm", "w=8 (ns)", "w=16 (ns)", "w=32 (ns)", "w=64 (ns)", "seed, MMX (ns)",
            "seed cycles", "montmul w=32 cycles", "seed cycles / montmul cycles",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
    if let Some(cr) = clock_ratio {
        let best = cycle_ratios
            .iter()
            .map(|&(a, r)| format!("{a} {r:.1}x"))
            .collect::<Vec<_>>()
            .join(", ");
        s.findings.push(format!(
            "The clock here is {cr:.1}x the Pentium's 233 MHz. Counted in cycles, the seed's MMX code took this \
             many times the cycles of montmul's 32-bit-word kernel for the same algorithm: {best}. MMX had 16-bit \
             multipliers and no 32x32->64 multiply (the instruction the seed asked for); today's cores have it, \
             and 64x64->128."
        ));
        let mut seed_rows: Vec<_> = mul
            .rows
            .iter()
            .filter(|r| r.code == "MMX assembler")
            .collect();
        seed_rows.sort_by(|x, y| x.us.total_cmp(&y.us));
        let seed_order = seed_rows
            .iter()
            .map(|r| r.algo.as_str())
            .collect::<Vec<_>>()
            .join(" < ");
        let ord = |w: u32| {
            let mut v: Vec<(&str, f64)> = ALGOS
                .iter()
                .filter_map(|&a| ns(a, w).map(|n| (a, n)))
                .collect();
            v.sort_by(|x, y| x.1.total_cmp(&y.1));
            v.iter().map(|x| x.0).collect::<Vec<_>>().join(" < ")
        };
        s.findings.push(format!(
            "Order of the algorithms here at 64-bit words: {}; at 32-bit words: {}. The seed's MMX order was \
             {}. The order depends on how each algorithm's loops map onto the machine's multiplier and carry \
             chain, so it need not carry over.",
            ord(64),
            ord(32),
            seed_order
        ));
    } else {
        s.not_built
            .push("No clock probe on this architecture: cycles are not given.".into());
    }
    // RSA and DSS: the seed's rows; montmul's plug in when montmul-pk lands.
    let pk = &ctx.seeds.seed004_pk;
    s.tables.push(Table {
        id: "seed004-pk".into(),
        title: format!(
            "RSA and DSS, 1024-bit operands, ms on the {} MHz Pentium Pro/MMX (montmul's rows: not built yet)",
            pk.clock_mhz
        ),
        source: pk.source.clone(),
        columns: ["code", "algorithm", "RSA public (ms)", "RSA private (ms)", "DSS sign (ms)", "DSS verify (ms)"]
            .map(String::from)
            .to_vec(),
        rows: pk
            .rows
            .iter()
            .map(|r| {
                vec![
                    Cell::text(&r.code),
                    Cell::text(&r.algo),
                    Cell::num(r.rsa_public),
                    Cell::num(r.rsa_private),
                    Cell::num(r.dss_sign),
                    Cell::num(r.dss_verify),
                ]
            })
            .collect(),
    });
    s.not_built.push(
        "RSA public/private and DSS sign/verify per algorithm: not built yet (RSA, DSA and DH are being written in \
         montmul-pk); their rows plug in at experiments::seed004::run, after the seed's RSA/DSS table."
            .into(),
    );
    Ok(s)
}
