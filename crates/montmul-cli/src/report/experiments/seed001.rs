//! Seed 001 (`001_1b4cdf28a5f4f2c4.txt`, Bos, Montgomery, Shumow & Zaverucha, SAC
//! 2013): the 2-way interleaved Montgomery multiplication against classic 32-bit and
//! 64-bit code. The seed counts instructions and times RSA-2048; montmul times the
//! product itself (ns and cycles at the measured clock) at 2048 bits, the RSA modulus,
//! and RSA-2048 encryption and decryption per kernel ([`pk`]) beside GMP and OpenSSL on
//! the same arithmetic, and as whole library operations beside OpenSSL, ring and the
//! `rsa` crate.

use montmul_peers::gmp::Exp;
use montmul_peers::pk::PkOp;

use super::pk::{self, Arith, Op, Rsa};
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
    // RSA-2048: the seed's cycles.
    let rsa = &seeds.seed001_rsa2048;
    s.tables.push(Table {
        id: "seed001-rsa2048".into(),
        title: "RSA-2048 in cycles, the seed's platforms".into(),
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
    let peers = &seeds.seed001_rsa2048_peers;
    s.tables.push(Table {
        id: "seed001-rsa2048-seed-peers".into(),
        title: "RSA-2048 in cycles: the seed's code beside OpenSSL (eBACS) and GMP".into(),
        source: peers.source.clone(),
        columns: [
            "platform",
            "op",
            "seed's code",
            "seed (cycles)",
            "peer",
            "peer (cycles)",
            "seed / peer",
        ]
        .map(String::from)
        .to_vec(),
        rows: peers
            .rows
            .iter()
            .map(|r| {
                vec![
                    Cell::text(&r.platform),
                    Cell::text(&r.op),
                    Cell::text(&r.code),
                    Cell::num(r.cycles),
                    Cell::text(&r.peer),
                    Cell::num(r.peer_cycles),
                    Cell::num(r.cycles / r.peer_cycles),
                ]
            })
            .collect(),
    });
    rsa_here(ctx, &mut s)?;
    Ok(s)
}

/// RSA-2048 encryption and decryption measured here: per kernel on the same CRT
/// arithmetic as GMP and OpenSSL ([`pk`]), and as whole library operations (montmul-pk
/// beside OpenSSL 3.0, ring, the `rsa` crate and OpenSSL 4.0, [`pk::libraries`]).
fn rsa_here(ctx: &mut Ctx<'_>, s: &mut Section) -> Result<(), CliError> {
    let ariths = [
        (
            "classic 32-bit",
            Arith::Kernel {
                name: "cios",
                word: 32,
            },
        ),
        (
            "classic 64-bit",
            Arith::Kernel {
                name: "cios",
                word: 64,
            },
        ),
        (
            "2-way",
            Arith::Kernel {
                name: "two-way",
                word: 32,
            },
        ),
        (
            "2-way",
            Arith::Kernel {
                name: "two-way",
                word: 64,
            },
        ),
        ("montmul's default", Arith::Default),
        ("GMP", Arith::Gmp(Exp::Sec)),
        ("GMP", Arith::Gmp(Exp::Plain)),
        ("OpenSSL", Arith::OpenSsl),
    ];
    let key = Rsa::generate(BITS, 1)?;
    let ops = [Op::RsaPublic, Op::RsaPrivate];
    let list: Vec<Arith> = ariths.iter().map(|a| a.1).collect();
    let t = pk::time(ctx.timings.budget(), &list, &ops, &key, None)?;
    let get = |a: &Arith, op: Op| t.get(&(a.label(), op)).copied().flatten();
    let cycles = |ns: Option<f64>| ns.zip(ctx.ghz).map(|(ns, g)| ns * g);
    let us = |ns: Option<f64>| ns.map(|v| v / 1e3);
    let rows = ariths
        .iter()
        .map(|(role, a)| {
            let (e, d) = (get(a, Op::RsaPublic), get(a, Op::RsaPrivate));
            vec![
                Cell::text(a.label()),
                Cell::text(*role),
                Cell::opt(us(e)),
                Cell::opt(us(d)),
                Cell::opt(cycles(e)),
                Cell::opt(cycles(d)),
            ]
        })
        .collect();
    s.tables.push(Table {
        id: "seed001-rsa2048-kernels".into(),
        title: format!("RSA-{BITS} on this machine, per Montgomery kernel, beside GMP and OpenSSL on the same arithmetic"),
        source: "measured here (median): enc = m^65537 mod n (montmul: Residue::pow_vartime on a Modulus built with the kernel); \
                 dec = the two CRT half exponentiations c_p^dp mod p and c_q^dq mod q (montmul: the constant-time Residue::pow; \
                 GMP: mpz_powm_sec or mpz_powm; OpenSSL: BN_mod_exp_mont_consttime), each result checked against num-bigint \
                 first; the reductions mod p, q and Garner's step are outside the timing for every row alike; cycles = ns x \
                 the measured clock"
            .into(),
        columns: ["implementation", "the seed's role", "enc (us)", "dec (us)", "enc (cycles)", "dec (cycles)"]
            .map(String::from)
            .to_vec(),
        rows,
    });
    // The whole operations of the libraries, as `montmul bench --pk` times them.
    let budget = ctx.timings.budget();
    // With OpenSSL 4.0 where Python's cryptography is installed (pk::libraries).
    let libs = pk::libraries(
        BITS,
        &[("rsa-verify", PkOp::RsaVerify), ("rsa-sign", PkOp::RsaSign)],
        budget,
    );
    s.not_built.extend(libs.notes);
    let lib: Vec<(String, [Option<f64>; 2])> = libs
        .rows
        .into_iter()
        .map(|(who, v)| (who, [v[0], v[1]]))
        .collect();
    s.tables.push(Table {
        id: "seed001-rsa2048-libraries".into(),
        title: format!("RSA-{BITS} as whole library operations (PKCS#1 v1.5 with SHA-256) on this machine"),
        source: "measured here by `montmul bench --pk`'s measurement on one OpenSSL-generated key: enc = signature \
                 verification (the public operation and the padding check), dec = signature (the private operation by CRT, \
                 with blinding and, in montmul-pk, the re-encryption check); every library's signature checked equal first; \
                 openssl-4.0: OpenSSL 4.0 as Python's cryptography bundles it, timed in a subprocess on the same key; \
                 cycles = ns x the measured clock"
            .into(),
        columns: ["library", "enc: verify (us)", "dec: sign (us)", "enc (cycles)", "dec (cycles)"]
            .map(String::from)
            .to_vec(),
        rows: lib
            .iter()
            .map(|(who, [e, d])| {
                vec![
                    Cell::text(who),
                    Cell::opt(us(*e)),
                    Cell::opt(us(*d)),
                    Cell::opt(cycles(*e)),
                    Cell::opt(cycles(*d)),
                ]
            })
            .collect(),
    });
    findings(ctx, s, &ariths, &get, &lib);
    Ok(())
}

/// The sentences on the RSA tables, from the numbers.
fn findings(
    ctx: &Ctx<'_>,
    s: &mut Section,
    ariths: &[(&str, Arith)],
    get: &dyn Fn(&Arith, Op) -> Option<f64>,
    lib: &[(String, [Option<f64>; 2])],
) {
    let seeds = ctx.seeds;
    let label = |i: usize| ariths[i].1.label();
    let at = |i: usize, op: Op| get(&ariths[i].1, op);
    let xeon = |op: &str| {
        seeds
            .seed001_rsa2048
            .rows
            .iter()
            .find(|r| r.platform.contains("Xeon") && r.op == op)
            .map(|r| r.classic / r.simd_2way)
    };
    // The seed's platforms where its 2-way code won (classic / 2-way above `1`) or lost.
    let platforms = |pick: fn(f64) -> bool| {
        let v: Vec<&str> = seeds
            .seed001_rsa2048
            .rows
            .iter()
            .filter(|r| r.op == "dec" && pick(r.classic / r.simd_2way))
            .map(|r| r.platform.as_str())
            .collect();
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    // The seed's Xeon sets its classic code against the 2-way code; here classic 64-bit
    // against 2-way at w=32, and classic 32-bit beside them.
    if let (Some(c64e), Some(c64d), Some(c32d), Some(twd), Some(twe)) = (
        at(1, Op::RsaPublic),
        at(1, Op::RsaPrivate),
        at(0, Op::RsaPrivate),
        at(2, Op::RsaPrivate),
        at(2, Op::RsaPublic),
    ) {
        let (re, rd) = (c64e / twe, c64d / twd);
        let agree = |r: f64, seed: Option<f64>| match seed {
            Some(x) if (r < 1.0) == (x < 1.0) => format!("agrees with the seed's Xeon ({x:.2})"),
            Some(x) => format!("does not agree with the seed's Xeon ({x:.2})"),
            None => String::new(),
        };
        s.findings.push(format!(
            "Classic 64-bit ({}) takes {re:.2}x the 2-way kernel's time ({}) for RSA-{BITS} encryption and {rd:.2}x for \
             decryption: on this x86-64 core the 64-bit code {} the 2-way kernel, which {} for decryption. Classic \
             32-bit takes {:.2}x the 2-way kernel's decryption time. In the seed, the 2-way code beat the classic \
             code at decryption on {} and lost on {}: it pays where two 32-bit products per SIMD instruction beat \
             the scalar multiplier, and a 64x64->128 multiplier does the work of four 32x32->64 ones. montmul's \
             two-way runs its two streams on the scalar multiplier, not in SIMD lanes.",
            label(1),
            label(2),
            if rd < 1.0 { "beats" } else { "loses to" },
            agree(rd, xeon("dec")),
            c32d / twd,
            platforms(|x| x > 1.0),
            platforms(|x| x <= 1.0),
        ));
    }
    // montmul's best kernel against GMP and OpenSSL on the same halves.
    let best = (0..5)
        .filter_map(|i| at(i, Op::RsaPrivate).map(|v| (i, v)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((bi, bv)) = best {
        let mut parts = Vec::new();
        for i in 5..ariths.len() {
            if let Some(v) = at(i, Op::RsaPrivate) {
                parts.push(format!("{} {:.2}x", label(i), v / bv));
            }
        }
        let cycles = ctx.ghz.map(|g| bv * g);
        let seed_xeon = seeds
            .seed001_rsa2048
            .rows
            .iter()
            .find(|r| r.platform.contains("Xeon") && r.op == "dec")
            .map(|r| r.classic);
        let vs_seed = match (cycles, seed_xeon) {
            (Some(c), Some(x)) => format!(
                " In cycles, montmul's {c:.0} against the seed's classic code on the Xeon's {x:.0}: {}.",
                if c <= x {
                    format!("{:.1}x fewer", x / c)
                } else {
                    format!("{:.1}x more", c / x)
                }
            ),
            _ => String::new(),
        };
        let seed_gmp: Vec<String> = seeds
            .seed001_rsa2048_peers
            .rows
            .iter()
            .filter(|r| r.peer == "GMP" && r.op == "dec")
            .map(|r| format!("{:.2}x on the {}", r.peer_cycles / r.cycles, r.platform))
            .collect();
        let here_gmp =
            at(5, Op::RsaPrivate)
                .zip(at(2, Op::RsaPrivate))
                .map_or(String::new(), |(g, t)| {
                    format!(
                        "; here GMP's mpz_powm_sec takes {:.2}x montmul's two-way (w=32) time",
                        g / t
                    )
                });
        s.findings.push(format!(
            "On the same CRT halves, the fastest montmul kernel is {}; GMP's and OpenSSL's exponentiations take, \
             relative to it: {}. In the seed, GMP's decryption took, relative to the 2-way code: {}{here_gmp}.{vs_seed}",
            label(bi),
            parts.join(", "),
            seed_gmp.join(", "),
        ));
    }
    let find = |who: &str, i: usize| lib.iter().find(|r| r.0 == who).and_then(|r| r.1[i]);
    if let (Some(md), Some(od)) = (find("montmul-pk", 1), find("openssl", 1)) {
        let me = find("montmul-pk", 0);
        let oe = find("openssl", 0);
        s.findings.push(format!(
            "As whole library operations, montmul-pk's RSA-{BITS} signature takes {:.2}x OpenSSL 3.0's time{}. These \
             include what the seed leaves out: padding, hashing, base blinding and montmul-pk's re-encryption check.",
            md / od,
            match (me, oe) {
                (Some(a), Some(b)) => format!(" and its verification {:.2}x", a / b),
                _ => String::new(),
            }
        ));
    }
}
