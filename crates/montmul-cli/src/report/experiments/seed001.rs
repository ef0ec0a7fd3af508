//! Seed 001 (`001_1b4cdf28a5f4f2c4.txt`, Bos, Montgomery, Shumow & Zaverucha, SAC
//! 2013): the 2-way interleaved Montgomery multiplication against classic 32-bit and
//! 64-bit code. The seed counts instructions and times RSA-2048. montmul counts the
//! same categories of operations in its own classic (`cios` at w=32 and w=64) and 2-way
//! (`two-way`) kernels by running them on a counting word ([`lab::Counted`]); it times
//! the product itself (ns and cycles at the measured clock) at 2048 bits, the RSA
//! modulus, with the 2-way kernel both portable and in SIMD lanes (`two-way-sse2`,
//! `two-way-avx2`, where this CPU runs them), and RSA-2048 encryption and decryption
//! per kernel ([`pk`]) beside GMP (the system's 6.2 and 6.3 built for this CPU) and
//! OpenSSL on the same arithmetic, and as whole
//! library operations beside OpenSSL, ring and the `rsa` crate.

use montmul::encoding::{be_bytes_to_limbs, limbs_to_be_bytes_vartime};
use montmul::lab::{self, Counts};
use montmul::{Limb, Modulus, Reduction};
use montmul_peers::gmp::Exp;
use montmul_peers::gmp63::{self, Gmp63Error};
use montmul_peers::pk::PkOp;
use montmul_peers::Inputs;
use num_bigint::BigUint;

use super::pk::{self, Arith, Op, Rsa};
use super::{left_out, ratio, Ctx};
use crate::report::model::{Cell, Section, Table};
use crate::report::timing::{k, label, Impl};
use crate::CliError;

/// The RSA modulus size of the seed's table.
const BITS: u32 = 2048;

/// The seed's 2-way kernel on x86 vector units (32-bit limbs), where this CPU runs it.
const SIMD_TWO_WAY: [&str; 2] = ["two-way-sse2", "two-way-avx2"];

/// Runs the section.
pub fn run(ctx: &mut Ctx<'_>) -> Result<Section, CliError> {
    let seeds = ctx.seeds;
    let mut s = Section::new(
        "seed001",
        "Seed 001: 2-way interleaved Montgomery multiplication (Bos, Montgomery, Shumow & Zaverucha)",
        Some("001_1b4cdf28a5f4f2c4.txt"),
    );
    instruction_counts(ctx, &mut s)?;
    // The products.
    // The vector forms this CPU runs; the others are left out, saying why.
    let simd: Vec<&'static str> = SIMD_TWO_WAY
        .into_iter()
        .filter(|n| match left_out::<u32>(n) {
            None => true,
            Some(why) => {
                s.findings.push(why);
                false
            }
        })
        .collect();
    let impls: Vec<Impl> = [
        k("cios", 32),
        k("cios", 64),
        k("two-way", 32),
        k("two-way", 64),
    ]
    .into_iter()
    .chain(simd.iter().map(|&n| k(n, 32)))
    .collect();
    let t = ctx.timings.get(&impls, BITS)?;
    let ns = |n: &str, w: u32| t.get(&label(n, w)).copied().flatten();
    let cycles = |v: Option<f64>| v.zip(ctx.ghz).map(|(ns, ghz)| ns * ghz);
    let mut names = vec![
        ("classic 32-bit: cios, w=32".to_string(), ns("cios", 32)),
        ("classic 64-bit: cios, w=64".to_string(), ns("cios", 64)),
        ("2-way: two-way, w=32".to_string(), ns("two-way", 32)),
        ("2-way: two-way, w=64".to_string(), ns("two-way", 64)),
    ];
    names.extend(
        simd.iter()
            .map(|&n| (format!("2-way SIMD: {n}, w=32"), ns(n, 32))),
    );
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
                    Cell::text(n),
                    Cell::opt(*v),
                    Cell::opt(cycles(*v)),
                    Cell::opt(ratio(*v, two_way)),
                ]
            })
            .collect(),
    });
    // The fastest 2-way form at w=32, the vector ones included.
    let fastest = ["two-way"]
        .iter()
        .chain(&simd)
        .filter_map(|&n| ns(n, 32).map(|v| (n, v)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some(r32), Some(r64), Some((fname, fns))) = (
        ratio(ns("cios", 32), two_way),
        ratio(ns("cios", 64), two_way),
        fastest,
    ) {
        let simd_part = if simd.is_empty() {
            "No vector form runs on this CPU, so only the portable scalar two-way (its two streams interleaved, \
             not in SIMD lanes) is measured."
                .to_string()
        } else {
            let each: Vec<String> = simd
                .iter()
                .filter_map(|&n| {
                    let v = ns(n, 32)?;
                    Some(format!(
                        "{n} {:.2}x and {:.2}x",
                        ns("cios", 32)? / v,
                        ns("cios", 64)? / v
                    ))
                })
                .collect();
            format!(
                "The SIMD forms run the two streams in the lanes of pmuludq as the seed did; classic 32-bit and \
                 classic 64-bit take, relative to each: {}. The fastest 2-way form is {fname}, {}.",
                each.join("; "),
                match ns("cios", 64) {
                    Some(c) if c < fns => format!("and classic 64-bit code is {:.2}x faster than it", fns / c),
                    Some(c) => format!("{:.2}x faster than classic 64-bit code", c / fns),
                    None => String::new(),
                }
            )
        };
        s.findings.push(format!(
            "The seed expects the 2-way kernel, from its multiplications alone, to be at most 2x faster than classic \
             32-bit code and about 2x slower than classic 64-bit code. Here classic 32-bit takes {r32:.2}x the time of \
             the portable two-way (w=32) and classic 64-bit {r64:.2}x. {simd_part}"
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
    // montmul's rows first (the classic kernels at [0] and [1], the portable 2-way at
    // w=32 at [2]), then the vector 2-way forms this CPU runs, then the default kernel;
    // the peers last (GMP 6.2, GMP 6.3 where it is built, OpenSSL).
    let mut ariths: Vec<(&str, Arith)> = vec![
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
    ];
    ariths.extend(
        SIMD_TWO_WAY
            .into_iter()
            .filter(|n| left_out::<u32>(n).is_none())
            .map(|name| ("2-way SIMD", Arith::Kernel { name, word: 32 })),
    );
    ariths.extend([
        ("montmul's default", Arith::Default),
        ("GMP", Arith::Gmp(Exp::Sec)),
        ("GMP", Arith::Gmp(Exp::Plain)),
    ]);
    match gmp63::info() {
        Ok(_) => ariths.extend([
            ("GMP", Arith::Gmp63(Exp::Sec)),
            ("GMP", Arith::Gmp63(Exp::Plain)),
        ]),
        Err(Gmp63Error::Absent(why)) => s.not_built.push(format!(
            "The GMP 6.3 rows of the RSA-{BITS} table per kernel are absent. {why}"
        )),
        Err(e) => return Err(CliError(e.to_string())),
    }
    ariths.push(("OpenSSL", Arith::OpenSsl));
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
                 GMP: mpz_powm_sec or mpz_powm, the system's generic GMP 6.2 in this process and GMP 6.3 built for this \
                 CPU in a subprocess (peers/gmp63; its rounds are not interleaved with the others'); OpenSSL: \
                 BN_mod_exp_mont_consttime), each result checked against num-bigint first; the reductions mod p, q and \
                 Garner's step are outside the timing for every row alike; cycles = ns x the measured clock"
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
    s.findings.extend(libs.refused);
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
    // against the fastest 2-way form at w=32 (the vector ones included), and classic
    // 32-bit beside them.
    let two_way = (0..ariths.len())
        .filter(|&i| {
            matches!(ariths[i].1, Arith::Kernel { name, word: 32 } if name.starts_with("two-way"))
        })
        .filter_map(|i| at(i, Op::RsaPrivate).map(|v| (i, v)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i);
    if let (Some(tw), Some(c64e), Some(c64d), Some(c32d)) = (
        two_way,
        at(1, Op::RsaPublic),
        at(1, Op::RsaPrivate),
        at(0, Op::RsaPrivate),
    ) {
        let (twe, twd) = (at(tw, Op::RsaPublic), at(tw, Op::RsaPrivate));
        let (twe, twd) = (twe.unwrap_or(f64::NAN), twd.unwrap_or(f64::NAN));
        let (re, rd) = (c64e / twe, c64d / twd);
        let agree = |r: f64, seed: Option<f64>| match seed {
            Some(x) if (r < 1.0) == (x < 1.0) => format!("agrees with the seed's Xeon ({x:.2})"),
            Some(x) => format!("does not agree with the seed's Xeon ({x:.2})"),
            None => String::new(),
        };
        let simd = ariths[tw].0 == "2-way SIMD";
        let lanes = if simd {
            format!(
                "The fastest 2-way form here is {}, which runs the two streams in SIMD lanes as the seed's code did{}.",
                label(tw),
                match at(2, Op::RsaPrivate) {
                    Some(p) => format!(
                        "; the portable two-way (w=32, the streams on the scalar multiplier) takes {:.2}x its \
                         decryption time",
                        p / twd
                    ),
                    None => String::new(),
                }
            )
        } else {
            format!(
                "The fastest 2-way form here is the portable {}, which runs its two streams on the scalar \
                 multiplier: no SIMD form was faster on this CPU.",
                label(tw)
            )
        };
        s.findings.push(format!(
            "Classic 64-bit ({}) takes {re:.2}x the time of the fastest 2-way kernel at w=32 ({}) for RSA-{BITS} \
             encryption and {rd:.2}x for decryption: on this x86-64 core the 64-bit code {} the 2-way kernel, which {} \
             for decryption. Classic 32-bit takes {:.2}x the 2-way kernel's decryption time. In the seed, the 2-way \
             code beat the classic code at decryption on {} and lost on {}: it pays where two 32-bit products per \
             SIMD instruction beat the scalar multiplier, and a 64x64->128 multiplier does the work of four \
             32x32->64 ones. {lanes}",
            label(1),
            label(tw),
            if rd < 1.0 { "beats" } else { "loses to" },
            agree(rd, xeon("dec")),
            c32d / twd,
            platforms(|x| x > 1.0),
            platforms(|x| x <= 1.0),
        ));
    }
    // montmul's best kernel against GMP and OpenSSL on the same halves: montmul's rows,
    // then the peers' (GMP 6.2's mpz_powm_sec first).
    let peers = ariths
        .iter()
        .position(|a| a.1.is_peer())
        .unwrap_or(ariths.len());
    let best = (0..peers)
        .filter_map(|i| at(i, Op::RsaPrivate).map(|v| (i, v)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((bi, bv)) = best {
        let mut parts = Vec::new();
        for i in peers..ariths.len() {
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
            at(peers, Op::RsaPrivate)
                .zip(at(2, Op::RsaPrivate))
                .map_or(String::new(), |(g, t)| {
                    format!(
                        "; here GMP 6.2's mpz_powm_sec takes {:.2}x montmul's two-way (w=32) time",
                        g / t
                    )
                });
        s.findings.push(format!(
            "On the same CRT halves, montmul's fastest kernel here is {}; GMP's and OpenSSL's exponentiations take, \
             relative to it: {}. In the seed, GMP's decryption took, relative to the 2-way code: {}{here_gmp}.{vs_seed}",
            kernel_phrase(&ariths[bi].1, default_pick()),
            parts.join(", "),
            seed_gmp.join(", "),
        ));
        gmp63_finding(s, ariths, get, (bi, bv));
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

/// The sentence on GMP 6.3 built for this CPU against the system's GMP 6.2 and
/// montmul's fastest kernel `best` (its index and decryption time), where both GMPs
/// were timed.
fn gmp63_finding(
    s: &mut Section,
    ariths: &[(&str, Arith)],
    get: &dyn Fn(&Arith, Op) -> Option<f64>,
    best: (usize, f64),
) {
    let ratio_of = |exp: Exp, op: Op| {
        get(&Arith::Gmp(exp), op)
            .zip(get(&Arith::Gmp63(exp), op))
            .map(|(g62, g63)| g62 / g63)
    };
    let (Some(sec_d), Some(sec_e), Some(g63_d)) = (
        ratio_of(Exp::Sec, Op::RsaPrivate),
        ratio_of(Exp::Sec, Op::RsaPublic),
        get(&Arith::Gmp63(Exp::Sec), Op::RsaPrivate),
    ) else {
        return;
    };
    let plain = ratio_of(Exp::Plain, Op::RsaPrivate)
        .map_or(String::new(), |r| format!(" (with mpz_powm, {r:.2}x)"));
    let (bi, bv) = best;
    s.findings.push(format!(
        "GMP 6.3 built for this CPU against the system's generic GMP 6.2 on the same halves: GMP 6.2's \
         mpz_powm_sec takes {sec_d:.2}x GMP 6.3's time for RSA-{BITS} decryption{plain} and {sec_e:.2}x for \
         encryption. GMP 6.3's mpz_powm_sec decryption takes {:.2}x the time of montmul's fastest kernel here, \
         {}: montmul {} the best GMP build on this CPU at constant time.",
        g63_d / bv,
        kernel_phrase(&ariths[bi].1, None),
        if g63_d > bv { "beats" } else { "does not beat" },
    ));
}

/// How the findings name montmul's kernel `a`, one of montmul's rows of the RSA table: a
/// named kernel by its name and word size (`` `cios` (w=64) ``), the default kernel as
/// montmul's `auto` with, where `picks` names it, the kernel `auto` picks for the CRT
/// halves (a peer, which is no kernel of montmul's, by its label).
fn kernel_phrase(a: &Arith, picks: Option<&str>) -> String {
    match a {
        Arith::Kernel { name, word } => format!("`{name}` (w={word})"),
        Arith::Default => match picks {
            Some(k) => format!("its default, `auto` (w=64), which picks `{k}` at this size"),
            None => "its default, `auto` (w=64)".into(),
        },
        _ => a.label(),
    }
}

/// The kernel montmul's default (`auto`, as `Modulus::new` picks it, the row
/// [`Arith::Default`]) runs for RSA-[`BITS`]'s CRT halves on this CPU: the choice depends
/// on the limb count, so any odd modulus of BITS / 2 bits shows it; `None` if that
/// modulus is refused.
fn default_pick() -> Option<&'static str> {
    let half = be_bytes_to_limbs::<u64>(&[0xff; BITS as usize / 16]);
    Modulus::new(&half).ok().map(|m| m.engine().info().name)
}

/// The seed's n for its instruction-count table: 2048 bits in 32-bit words.
const N_WORDS: u64 = BITS as u64 / 32;

/// A formula of the seed's instruction-count table at `n` words (the strings of the data
/// file); `None` for an empty cell or a formula this evaluator does not know.
fn formula(f: &str, n: u64) -> Option<u64> {
    match f.trim() {
        "n" => Some(n),
        "n/2" => Some(n / 2),
        "2n" => Some(2 * n),
        "2n(n-1)" => Some(2 * n * (n - 1)),
        "n(n/2-1)" => Some(n * (n / 2 - 1)),
        "n(n-1)" => Some(n * (n - 1)),
        _ => None,
    }
}

/// One product of the 2048-bit modulus by the portable kernel `name` on the counting
/// word at `L` limbs ([`lab::count_product`]), checked against num-bigint first.
fn counted<L: Limb>(name: &str, inputs: &Inputs) -> Result<Counts, CliError>
where
    lab::Counted<L>: Limb,
{
    let limbs = |x: &[u8]| be_bytes_to_limbs::<L>(x);
    let n = limbs(&inputs.n);
    let (product, counts) = lab::count_product(
        name,
        Reduction::Full,
        &n,
        &limbs(&inputs.a),
        &limbs(&inputs.b),
    )?;
    let big = BigUint::from_bytes_be;
    let (nb, ab, bb) = (big(&inputs.n), big(&inputs.a), big(&inputs.b));
    let r = BigUint::from(1u8) << (L::BITS as usize * n.len());
    let got = big(&limbs_to_be_bytes_vartime(&product));
    if got >= nb || (got * r) % &nb != (ab * bb) % &nb {
        return Err(CliError(format!(
            "the counted {name} at {}-bit limbs disagrees with num-bigint",
            L::BITS
        )));
    }
    Ok(counts)
}

/// The instruction-count table: the seed's formulas, their values at the seed's n, and
/// montmul's counts of the same categories, measured by running its kernels on the
/// counting word ([`lab::Counted`]).
fn instruction_counts(ctx: &Ctx<'_>, s: &mut Section) -> Result<(), CliError> {
    let ic = &ctx.seeds.seed001_instructions;
    let inputs = Inputs::random(BITS, 0x5eed_0001);
    let c32 = counted::<u32>("cios", &inputs)?;
    let c64 = counted::<u64>("cios", &inputs)?;
    let tw = counted::<u32>("two-way", &inputs)?;
    // Each category's count, by the seed's row name. The portable two-way's scalar
    // muladd and muladdadd are the two lanes of the seed's SIMD ones: shown in the
    // SIMD rows as pairs (half the scalar count), beside the scalar count in the
    // muladd rows.
    let of = |c: &Counts, row: &str| -> Option<u64> {
        match row {
            "add" => Some(c.add),
            "sub" => Some(c.sub),
            "short mul" => Some(c.short_mul),
            "muladd" => Some(c.muladd),
            "muladdadd" => Some(c.muladdadd),
            _ => None,
        }
    };
    let pairs = |row: &str| match row {
        "SIMD muladd" => Some(tw.muladd / 2),
        "SIMD muladdadd" => Some(tw.muladdadd / 2),
        _ => of(&tw, row),
    };
    let num = |v: Option<u64>| Cell::opt(v.map(|x| x as f64));
    let mut rows: Vec<Vec<Cell>> = ic
        .rows
        .iter()
        .map(|r| {
            let simd_row = r.instruction.starts_with("SIMD");
            vec![
                Cell::text(&r.instruction),
                Cell::text(&r.classic_32),
                num(formula(&r.classic_32, N_WORDS)),
                num(of(&c32, &r.instruction)),
                Cell::text(&r.classic_64),
                num(formula(&r.classic_64, N_WORDS)),
                num(of(&c64, &r.instruction)),
                Cell::text(&r.simd_2way_32),
                num(formula(&r.simd_2way_32, N_WORDS)),
                num(pairs(&r.instruction)),
                if simd_row {
                    Cell::text("not counted: intrinsics, not Limb operations")
                } else {
                    Cell::Missing
                },
            ]
        })
        .collect();
    // What montmul executes that the seed's table has no row for.
    rows.push(vec![
        Cell::text("other: negation, and, or, xor, shifts (the final correction's masks; two-way also mu = -n0')"),
        Cell::Missing,
        Cell::Missing,
        num(Some(c32.other)),
        Cell::Missing,
        Cell::Missing,
        num(Some(c64.other)),
        Cell::Missing,
        Cell::Missing,
        num(Some(tw.other)),
        Cell::Missing,
    ]);
    s.tables.push(Table {
        id: "seed001-instructions".into(),
        title: format!(
            "Instruction counts per Montgomery multiplication of n words: the seed's formulas, their values at \
             n = {N_WORDS} ({BITS} bits), and montmul's counts"
        ),
        source: format!(
            "formulas: {}; values at n = {N_WORDS} 32-bit words (the 64-bit column counts n/2 = {} 64-bit words, as \
             the seed's formulas do); montmul: counted here by running one {BITS}-bit product of cios (w=32, w=64) and \
             the portable two-way (w=32) on montmul::lab::Counted, a machine word that counts each operation it \
             executes (mac with a constant-zero carry = muladd, other mac = muladdadd, adc = add, sbb = sub, \
             wrapping_mul = short mul), each product checked against num-bigint; the two-way's SIMD rows are its scalar \
             muladd(add)s in pairs, one per stream (its muladd rows hold the scalar counts); the SIMD kernels \
             two-way-sse2 and two-way-avx2 use intrinsics, which the counting word does not see",
            ic.source,
            N_WORDS / 2
        ),
        columns: [
            "instruction",
            "seed: classic 32-bit",
            "seed: classic 32-bit at n=64",
            "montmul cios, w=32 (counted)",
            "seed: classic 64-bit",
            "seed: classic 64-bit at n=64",
            "montmul cios, w=64 (counted)",
            "seed: 2-way SIMD 32-bit",
            "seed: 2-way SIMD at n=64",
            "montmul two-way, w=32 (counted)",
            "montmul two-way-sse2, two-way-avx2",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
    // The sentence: where the counts equal the formulas, and what montmul adds.
    type Col = fn(&crate::report::seeds::Seed001Instr) -> &str;
    type Get<'a> = &'a dyn Fn(&str) -> Option<u64>;
    let compare = |col: Col, get: Get<'_>| {
        let (mut same, mut differ) = (Vec::new(), Vec::new());
        for r in &ic.rows {
            let (Some(want), Some(got)) = (formula(col(r), N_WORDS), get(&r.instruction)) else {
                continue;
            };
            if want == got {
                same.push(format!("{} {got}", r.instruction));
            } else {
                differ.push(format!("{} {got} against {want}", r.instruction));
            }
        }
        (same, differ)
    };
    let kernels: [(&str, Col, Get<'_>, Counts); 3] = [
        ("cios at w=32", |r| &r.classic_32, &|i| of(&c32, i), c32),
        ("cios at w=64", |r| &r.classic_64, &|i| of(&c64, i), c64),
        (
            "the portable two-way at w=32",
            |r| &r.simd_2way_32,
            &pairs,
            tw,
        ),
    ];
    let mut parts = Vec::new();
    for (who, col, get, c) in kernels {
        let (same, differ) = compare(col, get);
        // Counts in rows where the seed's column is empty.
        let extra: Vec<String> = [("add", c.add), ("sub", c.sub)]
            .into_iter()
            .filter(|&(row, v)| {
                v > 0
                    && ic
                        .rows
                        .iter()
                        .any(|r| r.instruction == row && formula(col(r), N_WORDS).is_none())
            })
            .map(|(row, v)| format!("{v} {row}"))
            .collect();
        let mut p = format!(
            "{who} executes exactly the seed's {}",
            if same.is_empty() {
                "nothing".to_string()
            } else {
                same.join(", ")
            }
        );
        if !differ.is_empty() {
            p.push_str(&format!(" but {}", differ.join(", ")));
        }
        if !extra.is_empty() {
            p.push_str(&format!(
                ", and {} where the seed's column is empty",
                extra.join(" and ")
            ));
        }
        parts.push(p);
    }
    s.findings.push(format!(
        "Counted on montmul's own code at n = {N_WORDS} ({BITS} bits): {}. The seed counts the loops only; the \
         differences are the additions of the carries into the top words, the one short mul mu b_0 per product of \
         the two-way kernel, and the final correction (the subtraction of n, or C = D - E and the masked C + M), \
         which the counts include. The two-way kernel's muladd and muladdadd come in pairs, one per stream: the \
         seed's SIMD lanes. The SIMD kernels two-way-sse2 and two-way-avx2 are not counted (intrinsics, not word \
         operations).",
        parts.join("; ")
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel the RSA table can name as montmul's fastest reads as a name and a
    /// word size, and the default as `auto` with its pick: never the table's label
    /// ("montmul default kernel, w=64") after "montmul's fastest kernel here is".
    #[test]
    fn the_fastest_kernel_reads_well() {
        let named = ["cios", "two-way"].into_iter().chain(SIMD_TWO_WAY);
        for (name, word) in named.flat_map(|n| [(n, 32), (n, 64)]) {
            let phrase = kernel_phrase(&Arith::Kernel { name, word }, None);
            assert_eq!(phrase, format!("`{name}` (w={word})"));
        }
        assert_eq!(
            kernel_phrase(&Arith::Default, Some("mulx-cios")),
            "its default, `auto` (w=64), which picks `mulx-cios` at this size"
        );
        assert_eq!(
            kernel_phrase(&Arith::Default, None),
            "its default, `auto` (w=64)"
        );
    }

    /// `auto` resolves to a kernel of its own for the CRT halves, not to itself.
    #[test]
    fn the_default_pick_is_a_named_kernel() {
        let pick = default_pick().expect("a 1024-bit odd modulus is accepted");
        assert_ne!(pick, "auto");
        assert!(lab::by_name::<u64>(pick).is_ok(), "{pick}");
    }
}
