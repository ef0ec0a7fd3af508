//! Seed 004 (`004_2081c68bf825cc4c.txt`, Koc 1997, MMX for number-theoretic
//! cryptosystems): 1024-bit Montgomery multiplication with each of the five algorithms
//! (SOS, CIOS, FIOS, FIPS, CIHS) at every word size montmul has, beside the 1997
//! Pentium Pro/MMX numbers, in time and in cycles (the clock ratio of 233 MHz to this
//! machine's measured clock); then RSA public/private and DSS sign/verify per algorithm,
//! built on residues of a modulus with that kernel ([`pk`]), beside the seed's RSA/DSS
//! table, and the whole library operations of montmul-pk, OpenSSL 3.0, ring, the `rsa`
//! crate and OpenSSL 4.0 at the same size ([`pk::libraries`]).

use montmul_peers::pk::PkOp;

use super::pk::{self, Arith, Dss, Op, Rsa, OPENSSL4};
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
    // RSA and DSS: the seed's rows, then montmul's per algorithm.
    let pk = &ctx.seeds.seed004_pk;
    s.tables.push(Table {
        id: "seed004-pk".into(),
        title: format!(
            "RSA and DSS, 1024-bit operands, ms on the {} MHz Pentium Pro/MMX (the seed's table)",
            pk.clock_mhz
        ),
        source: pk.source.clone(),
        columns: [
            "code",
            "algorithm",
            "RSA public (ms)",
            "RSA private (ms)",
            "DSS sign (ms)",
            "DSS verify (ms)",
        ]
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
    let order = |w: u32| {
        let mut v: Vec<(&str, f64)> = ALGOS
            .iter()
            .filter_map(|&a| ns(a, w).map(|n| (a, n)))
            .collect();
        v.sort_by(|x, y| x.1.total_cmp(&y.1));
        v.iter().map(|x| x.0).collect::<Vec<_>>().join(" < ")
    };
    pk_here(ctx, &mut s, bits, &order)?;
    Ok(s)
}

/// The four operations, in the seed's column order.
const OPS: [(Op, &str); 4] = [
    (Op::RsaPublic, "RSA public"),
    (Op::RsaPrivate, "RSA private"),
    (Op::DssSign, "DSS sign"),
    (Op::DssVerify, "DSS verify"),
];

/// The seed's ms of `op` for `algo` in `code`.
fn seed_ms(ctx: &Ctx<'_>, code: &str, algo: &str, op: Op) -> Option<f64> {
    let r = ctx
        .seeds
        .seed004_pk
        .rows
        .iter()
        .find(|r| r.code == code && r.algo == algo)?;
    Some(match op {
        Op::RsaPublic => r.rsa_public,
        Op::RsaPrivate => r.rsa_private,
        Op::DssSign => r.dss_sign,
        Op::DssVerify => r.dss_verify,
    })
}

/// RSA public/private and DSS sign/verify per algorithm on this machine ([`pk`]), beside
/// the seed's MMX numbers in cycles; then the whole library operations at the same size.
fn pk_here(
    ctx: &mut Ctx<'_>,
    s: &mut Section,
    bits: u32,
    product_order: &dyn Fn(u32) -> String,
) -> Result<(), CliError> {
    let words = [32u32, 64];
    let ariths: Vec<Arith> = ALGOS
        .iter()
        .flat_map(|&name| words.iter().map(move |&word| Arith::Kernel { name, word }))
        .collect();
    let rsa = Rsa::generate(bits, 4)?;
    let dss = Dss::generate(bits, 4)?;
    let ops = OPS.map(|o| o.0);
    let budget = ctx.timings.budget();
    let t = pk::time(budget, &ariths, &ops, &rsa, Some(&dss))?;
    let ctx: &Ctx<'_> = ctx;
    let get = |a: &Arith, op: Op| t.get(&(a.label(), op)).copied().flatten();
    let clock_mhz = ctx.seeds.seed004_pk.clock_mhz;
    // seed cycles / montmul cycles = (ms x 233e3) / (ns x GHz)
    let cycle_ratio = |seed_ms: Option<f64>, ns: Option<f64>| match (seed_ms, ns, ctx.ghz) {
        (Some(ms), Some(ns), Some(g)) if ns > 0.0 => Some(ms * clock_mhz * 1e3 / (ns * g)),
        _ => None,
    };
    let mut rows = Vec::new();
    for a in &ariths {
        let Arith::Kernel { name, word } = *a else {
            continue;
        };
        let mut row = vec![Cell::text(name), Cell::num(f64::from(word))];
        row.extend(
            OPS.iter()
                .map(|&(op, _)| Cell::opt(get(a, op).map(|ns| ns / 1e3))),
        );
        row.extend(OPS.iter().map(|&(op, _)| {
            Cell::opt(cycle_ratio(
                seed_ms(ctx, "MMX assembler", name, op),
                get(a, op),
            ))
        }));
        rows.push(row);
    }
    let mut columns: Vec<String> = vec!["algorithm".into(), "w".into()];
    columns.extend(OPS.iter().map(|(_, n)| format!("{n} (us)")));
    columns.extend(
        OPS.iter()
            .map(|(_, n)| format!("{n}: seed MMX cycles / montmul cycles")),
    );
    s.tables.push(Table {
        id: "seed004-pk-algorithms".into(),
        title: format!("RSA and DSS with {bits}-bit operands on this machine, per Montgomery algorithm"),
        source: format!(
            "measured here (median us), each operation built on residues of a modulus with that kernel and checked \
             against num-bigint first: RSA public = m^65537 mod n (Residue::pow_vartime); RSA private = the two \
             {}-bit CRT half exponentiations (the constant-time Residue::pow); DSS = FIPS 186 with OpenSSL's {}-bit \
             q and a SHA-1 digest, sign = g^k mod p (Residue::pow) then r, s mod q in num-bigint, verify = \
             g^u1 y^u2 mod p (two Residue::pow_vartime). Cycle ratio: the seed's MMX ms x {clock_mhz} MHz over \
             montmul's ns x the measured clock; the seed's own table above",
            bits / 2,
            dss.q_bits(),
        ),
        columns,
        rows,
    });
    if ctx.ghz.is_none() {
        s.not_built
            .push("No clock probe on this architecture: the cycle ratios are not given.".into());
    }
    // Findings: the seed's order of the algorithms against the order here.
    for w in words {
        let order = |op: Op, from_seed: bool| {
            let mut v: Vec<(&str, f64)> = ALGOS
                .iter()
                .filter_map(|&a| {
                    let x = if from_seed {
                        seed_ms(ctx, "MMX assembler", a, op)
                    } else {
                        get(&Arith::Kernel { name: a, word: w }, op)
                    };
                    x.map(|x| (a, x))
                })
                .collect();
            v.sort_by(|x, y| x.1.total_cmp(&y.1));
            v.iter().map(|x| x.0).collect::<Vec<_>>()
        };
        let here = order(Op::RsaPrivate, false);
        let seed = order(Op::RsaPrivate, true);
        if here.is_empty() {
            continue;
        }
        let fastest_agrees = here.first() == seed.first();
        let products = product_order(w);
        let same_as_products = if products == here.join(" < ") {
            format!("the same order as the {bits}-bit products above ({products})")
        } else {
            format!("not the order of the {bits}-bit products above ({products}): the halves are {} bits, and an exponentiation adds squarings and the table reads", bits / 2)
        };
        let ratios: Vec<f64> = ALGOS
            .iter()
            .flat_map(|&a| {
                OPS.iter().filter_map(move |&(op, _)| {
                    cycle_ratio(
                        seed_ms(ctx, "MMX assembler", a, op),
                        get(&Arith::Kernel { name: a, word: w }, op),
                    )
                })
            })
            .collect();
        let span = super::span(ratios.iter().copied())
            .map(|(lo, hi)| {
                format!(" Counted in cycles, the seed's MMX code took {lo:.0}x to {hi:.0}x montmul's cycles across the four operations and five algorithms.")
            })
            .unwrap_or_default();
        s.findings.push(format!(
            "RSA private, {w}-bit words: fastest to slowest here {}; on the seed's MMX {}. The fastest algorithm {} \
             ({} here, {} in the seed): {same_as_products}.{span} The seed's MMX lacked an unsigned 32x32->64 \
             multiply, which today's cores have.",
            here.join(" < "),
            seed.join(" < "),
            if fastest_agrees { "agrees" } else { "does not agree" },
            here.first().copied().unwrap_or("-"),
            seed.first().copied().unwrap_or("-"),
        ));
    }
    // The whole library operations at the seed's size.
    let pk_ops = [
        ("rsa-verify", PkOp::RsaVerify),
        ("rsa-sign", PkOp::RsaSign),
        ("dsa-sign", PkOp::DsaSign),
        ("dsa-verify", PkOp::DsaVerify),
    ];
    let libs = pk::libraries(bits, &pk_ops, budget);
    s.not_built.extend(libs.notes);
    s.findings.extend(libs.refused);
    let lib = libs.rows;
    let best_seed = |op: Op| {
        ctx.seeds
            .seed004_pk
            .rows
            .iter()
            .filter_map(|r| seed_ms(ctx, &r.code, &r.algo, op))
            .min_by(f64::total_cmp)
    };
    let mut rows: Vec<Vec<Cell>> = lib
        .iter()
        .map(|(who, v)| {
            let mut row = vec![Cell::text(who)];
            row.extend(v.iter().map(|ns| Cell::opt(ns.map(|x| x / 1e3))));
            row
        })
        .collect();
    let mut seed_row = vec![Cell::text(
        "seed: fastest 1997 code (Pentium assembler, CIOS), 233 MHz",
    )];
    seed_row.extend(
        OPS.iter()
            .map(|&(op, _)| Cell::opt(best_seed(op).map(|ms| ms * 1e3))),
    );
    rows.push(seed_row);
    s.tables.push(Table {
        id: "seed004-pk-libraries".into(),
        title: format!("RSA and DSA with {bits}-bit operands as whole library operations on this machine"),
        source: format!(
            "measured here by `montmul bench --pk --openssl4`'s measurement (median us; PKCS#1 v1.5 and DSA with \
             SHA-256 on OpenSSL-generated keys, every result checked across the libraries first): `openssl` is the \
             system OpenSSL 3.0 in process, `{OPENSSL4}` OpenSSL 4.0 as Python's cryptography bundles it, timed in \
             a subprocess on the same key (its signature checked to verify there); last row: the seed's fastest \
             time per column, typed in from its table"
        ),
        columns: ["library", "RSA public (us)", "RSA private (us)", "DSS sign (us)", "DSS verify (us)"]
            .map(String::from)
            .to_vec(),
        rows,
    });
    let find = |who: &str, i: usize| lib.iter().find(|r| r.0 == who).and_then(|r| r.1[i]);
    let cmp4: Vec<String> = OPS
        .iter()
        .enumerate()
        .filter_map(|(i, (_, n))| {
            let (m, o) = (find("montmul-pk", i)?, find(OPENSSL4, i)?);
            Some(format!("{n} {:.2}x", m / o))
        })
        .collect();
    if !cmp4.is_empty() {
        s.findings.push(format!(
            "Against OpenSSL 4.0 (a subprocess, not interleaved with the others): montmul-pk's time as a multiple \
             of its time is {}. OpenSSL 4.0's AVX-512 IFMA code is for 2048, 3072 and 4096-bit RSA, so \
             it does not apply to these {bits}-bit operands.",
            cmp4.join(", ")
        ));
    }
    let cmp: Vec<String> = OPS
        .iter()
        .enumerate()
        .filter_map(|(i, (_, n))| {
            let (m, o) = (find("montmul-pk", i)?, find("openssl", i)?);
            Some(format!("{n} {:.2}x", m / o))
        })
        .collect();
    if !cmp.is_empty() {
        s.findings.push(format!(
            "montmul-pk's whole operations at {bits} bits, as a multiple of OpenSSL 3.0's time: {}. Against the \
             seed's fastest 1997 code the private operation is {} faster in wall time.",
            cmp.join(", "),
            match (find("montmul-pk", 1), best_seed(Op::RsaPrivate)) {
                (Some(ns), Some(ms)) => format!("{:.0}x", ms * 1e6 / ns),
                _ => "not measured, so not compared".into(),
            }
        ));
    }
    Ok(())
}
