//! `montmul report --quick` end to end: the files and every section exist, every number
//! in `data.json` is a number, each CSV equals its table in the JSON, the seeds' numbers
//! shown are those of the data file, an unrelated directory is never replaced, and the
//! page renders in headless Chromium with no console error and visible plots.

#![cfg(unix)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

/// The sections every report has, in order.
const SECTIONS: [&str; 6] = [
    "seed000", "seed001", "seed002", "seed003", "seed004", "summary",
];

/// One quick report for all the tests of this file: (its directory, kept alive).
fn report() -> &'static (tempfile::TempDir, PathBuf) {
    static REPORT: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    REPORT.get_or_init(|| quick_report(&[]))
}

/// A quick report run with the environment `envs` added: (its directory, kept alive).
fn quick_report(envs: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let out = tmp.path().join("r");
    let run = common::montmul_command()
        .args(["report", "--quick", "--out"])
        .arg(&out)
        .envs(envs.iter().copied())
        .output()
        .expect("montmul runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "report --quick failed: {stderr}");
    assert!(
        stderr.contains("index.html") && stderr.contains("montmul report:"),
        "a one-line summary with the path: {stderr}"
    );
    (tmp, out)
}

fn data() -> Value {
    let text = fs::read_to_string(report().1.join("data.json")).expect("data.json");
    serde_json::from_str(&text).expect("data.json parses")
}

fn tables(data: &Value) -> Vec<Value> {
    data["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .flat_map(|s| s["tables"].as_array().expect("tables").clone())
        .collect()
}

/// The table `id`'s column `col` as numbers, by the first column's value.
fn column(data: &Value, id: &str, col: &str) -> Vec<(Value, Value)> {
    let t = tables(data)
        .into_iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("table {id}"));
    let cols: Vec<&str> = t["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let i = cols
        .iter()
        .position(|c| *c == col)
        .unwrap_or_else(|| panic!("{id}: column {col} in {cols:?}"));
    t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].clone(), r[i].clone()))
        .collect()
}

#[test]
fn every_file_and_section_exists() {
    let dir = &report().1;
    for f in ["index.html", "report.md", "data.json", ".montmul-report"] {
        assert!(dir.join(f).is_file(), "{f} written");
    }
    let html = fs::read_to_string(dir.join("index.html")).unwrap();
    let md = fs::read_to_string(dir.join("report.md")).unwrap();
    let data = data();
    let ids: Vec<&str> = data["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, SECTIONS);
    for s in data["sections"].as_array().unwrap() {
        let id = s["id"].as_str().unwrap();
        let title = s["title"].as_str().unwrap();
        assert!(
            html.contains(&format!("<section id=\"{id}\">")),
            "{id} in index.html"
        );
        assert!(md.contains(&format!("## {title}")), "{id} in report.md");
        let has = |k: &str| s[k].as_array().is_some_and(|a| !a.is_empty());
        assert!(
            has("tables") || has("plots"),
            "{id} has measurements or seed tables"
        );
        assert!(
            has("findings") || has("not_built"),
            "{id} says what it found or what is missing"
        );
        for p in s["plots"].as_array().unwrap() {
            let pid = p["id"].as_str().unwrap();
            assert!(dir.join(format!("{pid}.svg")).is_file(), "{pid}.svg");
            let points: usize = p["series"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["points"].as_array().unwrap().len())
                .sum();
            assert!(points > 0, "plot {pid} has points");
        }
    }
    // Self-contained: no network, plots inline.
    for fetch in [
        "src=\"http",
        "href=\"http",
        "url(http",
        "@import",
        "<script",
        "<link",
    ] {
        assert!(!html.contains(fetch), "no network reference: {fetch}");
    }
    assert_eq!(html.matches("<svg").count(), 4, "the four plots inline");
    // The header.
    for key in [
        "cpu",
        "features",
        "clock_ghz",
        "cores",
        "load_before",
        "load_after",
        "montmul",
        "rustc",
        "peers",
        "date",
        "command",
    ] {
        assert!(data["header"].get(key).is_some(), "header.{key}");
    }
    assert!(data["header"]["command"]
        .as_str()
        .unwrap()
        .contains("report --quick"));
    // What is not built here says so on the page, one paragraph per sentence (with
    // every peer built, there may be none).
    assert_eq!(
        html.matches("Not built yet.").count(),
        not_built(&data).lines().count()
    );
    assert!(html.contains("RSA"));
}

/// Every number anywhere in the data is a finite number, and every table cell is a
/// number, a text or null; a row is as long as its headings.
#[test]
fn every_number_parses() {
    fn walk(v: &Value, count: &mut usize) {
        match v {
            Value::Number(n) => {
                assert!(n.as_f64().is_some_and(f64::is_finite), "{n}");
                *count += 1;
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, count)),
            Value::Object(o) => o.values().for_each(|x| walk(x, count)),
            _ => {}
        }
    }
    let data = data();
    let mut count = 0;
    walk(&data, &mut count);
    assert!(count > 100, "{count} numbers");
    for t in tables(&data) {
        let width = t["columns"].as_array().unwrap().len();
        for row in t["rows"].as_array().unwrap() {
            assert_eq!(row.as_array().unwrap().len(), width, "{}", t["id"]);
            for c in row.as_array().unwrap() {
                assert!(c.is_number() || c.is_string() || c.is_null(), "{c}");
            }
        }
    }
    // The measured columns hold measurements, not placeholders.
    let measured = column(&data, "seed000-table1", "montmul cios, w=64 (ns)");
    assert!(measured
        .iter()
        .all(|(_, v)| v.as_f64().is_some_and(|x| x > 0.0)));
}

#[test]
fn csvs_match_the_json() {
    let dir = &report().1;
    let data = data();
    let all = tables(&data);
    assert!(all.len() >= 10);
    for t in all {
        let id = t["id"].as_str().unwrap();
        let mut r = csv::Reader::from_path(dir.join(format!("{id}.csv")))
            .unwrap_or_else(|e| panic!("{id}.csv: {e}"));
        let heads: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        let cols: Vec<String> = t["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        assert_eq!(heads, cols, "{id}.csv headings");
        let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
        let json_rows = t["rows"].as_array().unwrap();
        assert_eq!(rows.len(), json_rows.len(), "{id}.csv rows");
        for (cr, jr) in rows.iter().zip(json_rows) {
            for (c, j) in cr.iter().zip(jr.as_array().unwrap()) {
                match j {
                    Value::Null => assert_eq!(c, "", "{id}"),
                    Value::String(s) => assert_eq!(c, s, "{id}"),
                    Value::Number(n) => {
                        let v: f64 = c.parse().unwrap_or_else(|_| panic!("{id}: {c} parses"));
                        assert_eq!(v, n.as_f64().unwrap(), "{id}");
                    }
                    other => panic!("{id}: cell {other}"),
                }
            }
        }
    }
}

/// The seed columns hold exactly the data file's numbers.
#[test]
fn seed_numbers_come_from_the_data_file() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/seeds.json");
    let seeds: Value = serde_json::from_str(&fs::read_to_string(file).unwrap()).unwrap();
    let data = data();
    let num = |v: &Value| v.as_f64().unwrap();
    // Seed 000, Table 1, at the sizes the quick report shows.
    let shown = column(
        &data,
        "seed000-table1",
        "seed: SIMD column-wise on SPE (ns)",
    );
    assert!(!shown.is_empty());
    for (bits, v) in shown {
        let row = seeds["seed000_table1"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["bits"].as_f64() == bits.as_f64())
            .expect("a seed row");
        assert_eq!(num(&v), num(&row["this_work_ns"]));
    }
    // Seed 002, Fig. 6: every point of the data file is shown.
    let t = tables(&data)
        .into_iter()
        .find(|t| t["id"] == "seed002-fig6")
        .unwrap();
    for p in seeds["seed002_fig6"]["points"].as_array().unwrap() {
        assert!(
            t["rows"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| num(&r[0]) == num(&p["cores"])
                    && r[1] == p["method"]
                    && num(&r[3]) == num(&p["cycles"])),
            "Fig. 6 point {p}"
        );
    }
    // Seed 003: every latency.
    let t = tables(&data)
        .into_iter()
        .find(|t| t["id"] == "seed003-latency")
        .unwrap();
    let rows = t["rows"].as_array().unwrap();
    for (r, s) in rows
        .iter()
        .zip(seeds["seed003_latency"]["rows"].as_array().unwrap())
    {
        assert_eq!(
            (&r[0], num(&r[2]), num(&r[5])),
            (&s["arch"], num(&s["bits"]), num(&s["clocks"]))
        );
    }
    // Seed 004's RSA/DSS and seed 001's RSA-2048 tables, cell for cell.
    let t = tables(&data)
        .into_iter()
        .find(|t| t["id"] == "seed004-pk")
        .unwrap();
    for (r, s) in t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .zip(seeds["seed004_pk"]["rows"].as_array().unwrap())
    {
        for (i, k) in ["rsa_public", "rsa_private", "dss_sign", "dss_verify"]
            .iter()
            .enumerate()
        {
            assert_eq!(num(&r[i + 2]), num(&s[*k]));
        }
    }
    let t = tables(&data)
        .into_iter()
        .find(|t| t["id"] == "seed001-rsa2048-seed-peers")
        .unwrap();
    let peers = seeds["seed001_rsa2048_peers"]["rows"].as_array().unwrap();
    assert_eq!(t["rows"].as_array().unwrap().len(), peers.len());
    for (r, s) in t["rows"].as_array().unwrap().iter().zip(peers) {
        assert_eq!(
            (num(&r[3]), &r[4], num(&r[5])),
            (num(&s["cycles"]), &s["peer"], num(&s["peer_cycles"]))
        );
    }
    let t = tables(&data)
        .into_iter()
        .find(|t| t["id"] == "seed001-rsa2048")
        .unwrap();
    for (r, s) in t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .zip(seeds["seed001_rsa2048"]["rows"].as_array().unwrap())
    {
        assert_eq!(
            (num(&r[2]), num(&r[3])),
            (num(&s["classic"]), num(&s["simd_2way"]))
        );
    }
    // Every group of the data file names its source, and the report shows it.
    let md = fs::read_to_string(report().1.join("report.md")).unwrap();
    for (key, group) in seeds.as_object().unwrap() {
        if let Some(src) = group.get("source") {
            let src = src.as_str().unwrap();
            assert!(src.starts_with("seed 00"), "{key}: {src}");
            assert!(
                md.contains(src.split(':').next().unwrap()),
                "{key}'s source shown"
            );
        }
    }
}

/// The table `id`, whole.
fn table(data: &Value, id: &str) -> Value {
    tables(data)
        .into_iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("table {id}"))
}

/// The row of table `t` whose first cell is `label`, if there is one.
fn row_of(t: &Value, label: &str) -> Option<Value> {
    t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0] == label)
        .cloned()
}

/// Whether a cell holds a positive measurement.
fn positive(v: &Value) -> bool {
    v.as_f64().is_some_and(|x| x > 0.0)
}

/// The RSA, DSS and real-thread rows that the seeds compare are measured, not left
/// empty, and no section still says that RSA, DSA or the real threads are missing.
#[test]
fn public_key_and_thread_rows_are_measured() {
    let data = data();
    // Seed 001: RSA-2048 per kernel, GMP and OpenSSL on the same halves.
    let t = table(&data, "seed001-rsa2048-kernels");
    for label in [
        "montmul cios, w=32",
        "montmul cios, w=64",
        "montmul two-way, w=32",
        "montmul default kernel, w=64",
        "GMP 6.2 mpz_powm_sec",
        "OpenSSL BN_mod_exp_mont_consttime",
    ] {
        let r = row_of(&t, label).unwrap_or_else(|| panic!("seed001 row {label}"));
        assert!(positive(&r[2]) && positive(&r[3]), "{label}: enc and dec");
    }
    // ...and the libraries' whole operations, montmul-pk and OpenSSL at least.
    let t = table(&data, "seed001-rsa2048-libraries");
    for who in ["montmul-pk", "openssl"] {
        let r = row_of(&t, who).unwrap_or_else(|| panic!("library {who}"));
        assert!(positive(&r[1]) && positive(&r[2]), "{who}");
    }
    // Seed 004: the four operations for each of the five algorithms at w = 32 and 64.
    let t = table(&data, "seed004-pk-algorithms");
    let rows = t["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 10, "five algorithms, two word sizes");
    for algo in ["sos", "cios", "fios", "fips", "cihs"] {
        let mine: Vec<_> = rows.iter().filter(|r| r[0] == algo).collect();
        assert_eq!(mine.len(), 2, "{algo}");
        for r in mine {
            assert!((2..6).all(|i| positive(&r[i])), "{algo}: {r}");
        }
    }
    let t = table(&data, "seed004-pk-libraries");
    let r = row_of(&t, "montmul-pk").expect("montmul-pk's row");
    assert!((1..5).all(|i| positive(&r[i])), "montmul-pk: {r}");
    // Seed 002: 1 and 2 threads at the seed's 256 bits and beyond.
    let t = table(&data, "seed002-threads");
    let rows = t["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r[0].as_f64() == Some(256.0)));
    for r in rows {
        assert!((2..6).all(|i| positive(&r[i])), "{r}");
        let speedup = r[2].as_f64().unwrap() / r[3].as_f64().unwrap();
        assert!((speedup - r[5].as_f64().unwrap()).abs() < 1e-9 * speedup.max(1.0));
    }
    // Nothing says these are missing any more, and the sentences are there.
    for s in data["sections"].as_array().unwrap() {
        let id = s["id"].as_str().unwrap();
        for line in s["not_built"].as_array().unwrap() {
            let line = line.as_str().unwrap();
            assert!(
                !line.contains("montmul-pk") && !line.contains("--threads"),
                "{id} still says: {line}"
            );
        }
        let findings = s["findings"].as_array().unwrap();
        let says = |w: &str| findings.iter().any(|f| f.as_str().unwrap().contains(w));
        match id {
            "seed001" => assert!(says("RSA-2048") && says("GMP")),
            "seed002" => assert!(says("Real threads")),
            "seed004" => assert!(says("RSA private") && says("OpenSSL")),
            _ => {}
        }
    }
}

/// Whether this CPU runs the vector kernel `name` (by its instruction-set suffix).
fn cpu_runs(name: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if name.ends_with("-sse2") {
            return true;
        }
        if name.ends_with("-avx2") {
            return std::arch::is_x86_feature_detected!("avx2");
        }
        if name.ends_with("-avx512") {
            return std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw");
        }
    }
    let _ = name;
    false
}

/// The section `id`.
fn section(data: &Value, id: &str) -> Value {
    data["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("section {id}"))
        .clone()
}

/// Whether a sentence of section `s` contains `what`.
fn says(s: &Value, what: &str) -> bool {
    s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f.as_str().unwrap().contains(what))
}

/// Seed 000 and 001 show the SIMD kernels this CPU runs, measured, and say so for the
/// others; seed 001's instruction table holds montmul's counts, which equal the seed's
/// formulas at n = 64 where the algorithm is the seed's.
#[test]
fn simd_kernels_and_instruction_counts_are_shown() {
    let data = data();
    let s0 = section(&data, "seed000");
    let s1 = section(&data, "seed001");
    for s in [&s0, &s1] {
        for line in s["not_built"].as_array().unwrap() {
            let line = line.as_str().unwrap();
            assert!(
                !line.contains("SIMD") && !line.contains("count instructions"),
                "{} still says: {line}",
                s["id"]
            );
        }
    }
    // Seed 000: one column per column-wise kernel, measured where this CPU runs it.
    for k in ["columns", "columns-sse2", "columns-avx2", "columns-avx512"] {
        let col = column(&data, "seed000-table1", &format!("montmul {k}, w=16 (ns)"));
        assert!(!col.is_empty());
        if k == "columns" || cpu_runs(k) {
            assert!(col.iter().all(|(_, v)| positive(v)), "{k}: {col:?}");
            if k != "columns" {
                let plot = &s0["plots"][0];
                assert!(
                    plot["series"].as_array().unwrap().iter().any(|x| x["name"]
                        .as_str()
                        .unwrap()
                        .contains(&format!("cios / {k},"))
                        && !x["points"].as_array().unwrap().is_empty()),
                    "{k} in Fig. 2"
                );
            }
        } else {
            assert!(col.iter().all(|(_, v)| v.is_null()), "{k}: {col:?}");
            assert!(says(&s0, &format!("{k} is left out")), "{k} left out");
        }
    }
    assert!(!says(
        &s0,
        "which a scalar kernel cannot have: this comparison"
    ));
    // Seed 001: the 2-way SIMD kernels in the product table and the RSA rows.
    for k in ["two-way-sse2", "two-way-avx2"] {
        let product = row_of(
            &table(&data, "seed001-products"),
            &format!("2-way SIMD: {k}, w=32"),
        );
        let rsa = row_of(
            &table(&data, "seed001-rsa2048-kernels"),
            &format!("montmul {k}, w=32"),
        );
        if cpu_runs(k) {
            let (p, r) = (product.expect(k), rsa.expect(k));
            assert!(positive(&p[1]) && positive(&p[2]), "{k}: {p}");
            assert!(positive(&r[2]) && positive(&r[3]), "{k}: {r}");
        } else {
            assert!(product.is_none() && rsa.is_none(), "{k} has no row");
            assert!(says(&s1, &format!("{k} is left out")), "{k} left out");
        }
    }
    if cpu_runs("two-way-sse2") {
        assert!(!says(
            &s1,
            "runs its two streams on the scalar multiplier, not in SIMD lanes"
        ));
    }
    // Seed 001's instruction counts: montmul's equal the seed's formulas at n = 64
    // (2048 bits; 32 words at 64 bits) in the rows where the algorithm is the seed's.
    let t = table(&data, "seed001-instructions");
    let cols: Vec<&str> = t["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let at = |row: &str, col: &str| {
        let i = cols.iter().position(|c| *c == col).expect(col);
        row_of(&t, row).unwrap_or_else(|| panic!("row {row}"))[i].as_f64()
    };
    for (row, c32, c64) in [
        ("short mul", 64.0, 32.0),
        ("muladd", 128.0, 64.0),
        ("muladdadd", 8064.0, 1984.0),
    ] {
        assert_eq!(at(row, "seed: classic 32-bit at n=64"), Some(c32));
        assert_eq!(at(row, "montmul cios, w=32 (counted)"), Some(c32), "{row}");
        assert_eq!(at(row, "seed: classic 64-bit at n=64"), Some(c64));
        assert_eq!(at(row, "montmul cios, w=64 (counted)"), Some(c64), "{row}");
    }
    for (row, v) in [("SIMD muladd", 64.0), ("SIMD muladdadd", 4032.0)] {
        assert_eq!(at(row, "seed: 2-way SIMD at n=64"), Some(v));
        assert_eq!(at(row, "montmul two-way, w=32 (counted)"), Some(v), "{row}");
    }
    // The known extras of the 2-way kernel: mu b_0 once, the final correction.
    assert_eq!(
        at("short mul", "montmul two-way, w=32 (counted)"),
        Some(129.0)
    );
    assert_eq!(at("add", "montmul two-way, w=32 (counted)"), Some(128.0));
    assert!(says(&s1, "Counted on montmul's own code at n = 64"));
}

/// The GMP 6.3 binary the report runs, if it is built (`$MONTMUL_GMP63` or the
/// default path of `cargo build --release --manifest-path peers/gmp63/Cargo.toml`).
fn gmp63_built() -> bool {
    std::env::var_os("MONTMUL_GMP63")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../peers/gmp63/target/release/montmul-gmp63")
        })
        .is_file()
}

/// Every `not_built` line of every section, joined.
fn not_built(data: &Value) -> String {
    data["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["not_built"].as_array().unwrap().clone())
        .map(|l| l.as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The header names the build behind each peer; the summary's GMP 6.3 column holds a
/// measurement at every size where the peer is built, and is empty with a sentence
/// on how to build it where it is not.
#[test]
fn gmp63_column_where_built() {
    let data = data();
    let peers: Vec<&str> = data["header"]["peers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    for who in ["gmp:", "gmp-6.3:", "openssl:", "openssl-4.0:"] {
        assert!(
            peers.iter().any(|p| p.starts_with(who)),
            "header line for {who} in {peers:?}"
        );
    }
    let gmp62 = column(&data, "summary", "GMP 6.2 system, generic (ns)");
    assert!(gmp62.iter().all(|(_, v)| positive(v)), "{gmp62:?}");
    let gmp63 = column(&data, "summary", "GMP 6.3 for this CPU (ns)");
    let ratio = column(&data, "summary", "GMP 6.2 / GMP 6.3");
    if gmp63_built() {
        assert!(gmp63.iter().all(|(_, v)| positive(v)), "{gmp63:?}");
        assert!(ratio.iter().all(|(_, v)| positive(v)), "{ratio:?}");
        // Seed 001's RSA-2048 rows on the same CRT halves, and the sentence on them.
        let t = table(&data, "seed001-rsa2048-kernels");
        for label in ["GMP 6.3 mpz_powm_sec", "GMP 6.3 mpz_powm"] {
            let r = row_of(&t, label).unwrap_or_else(|| panic!("seed001 row {label}"));
            assert!((2..4).all(|i| positive(&r[i])), "{label}: {r}");
        }
        assert!(says(
            &section(&data, "seed001"),
            "GMP 6.3 built for this CPU against the system's generic GMP 6.2"
        ));
        let line = peers.iter().find(|p| p.starts_with("gmp-6.3:")).unwrap();
        assert!(
            line.contains("GMP 6.3") && line.contains("mulx") && !line.contains("WARNING"),
            "the build check: {line}"
        );
    } else {
        montmul_testkit::skipped!(
            "\n*** SKIPPED: GMP 6.3 (peers/gmp63) is not built: its column is only checked to be empty \
             (cargo build --release --manifest-path peers/gmp63/Cargo.toml) ***\n"
        );
        gmp63_absent(&data);
    }
}

/// Where GMP 6.3 is not built, its summary column is empty, seed 001 has no GMP 6.3
/// row, and both sections say how to build it.
fn gmp63_absent(data: &Value) {
    let gmp63 = column(data, "summary", "GMP 6.3 for this CPU (ns)");
    assert!(gmp63.iter().all(|(_, v)| v.is_null()), "{gmp63:?}");
    let rows = table(data, "seed001-rsa2048-kernels")["rows"].clone();
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .all(|r| !r[0].as_str().unwrap().contains("GMP 6.3")),
        "{rows}"
    );
    assert!(!says(&section(data, "seed001"), "GMP 6.3"));
    for id in ["seed001", "summary"] {
        let s = section(data, id);
        let lines = s["not_built"].as_array().unwrap();
        assert!(
            lines.iter().any(|l| {
                let l = l.as_str().unwrap();
                l.contains("GMP 6.3") && l.contains("--manifest-path peers/gmp63/Cargo.toml")
            }),
            "{id}: {lines:?}"
        );
    }
}

/// With `$MONTMUL_GMP63` naming no binary, the GMP 6.3 rows are absent and the report
/// says how to build it, whether or not the default binary is built.
#[test]
fn gmp63_rows_absent_where_not_built() {
    let (_tmp, out) = quick_report(&[("MONTMUL_GMP63", "/nonexistent/montmul-gmp63")]);
    let text = fs::read_to_string(out.join("data.json")).expect("data.json");
    gmp63_absent(&serde_json::from_str(&text).expect("data.json parses"));
}

/// Seeds 004's and 001's whole-library tables have OpenSSL 4.0's row where Python's
/// `cryptography` is installed, and a sentence instead where it is not.
#[test]
fn openssl4_row_where_installed() {
    let data = data();
    let openssl4_row = |id: &str| row_of(&table(&data, id), "openssl-4.0");
    let (row, row001) = (
        openssl4_row("seed004-pk-libraries"),
        openssl4_row("seed001-rsa2048-libraries"),
    );
    if common::openssl4_installed() {
        let r = row.expect("an openssl-4.0 row in seed 004");
        assert!((1..5).all(|i| positive(&r[i])), "openssl-4.0: {r}");
        let r = row001.expect("an openssl-4.0 row in seed 001");
        assert!((1..3).all(|i| positive(&r[i])), "openssl-4.0: {r}");
        let line = data["header"]["peers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .find(|p| p.starts_with("openssl-4.0:"))
            .unwrap();
        assert!(line.contains("OpenSSL 4."), "{line}");
    } else {
        montmul_testkit::skipped!(
            "\n*** SKIPPED: python3 with a cryptography that bundles OpenSSL 4 is not installed: its row \
             is only checked to be absent ***\n"
        );
        assert!(row.is_none() && row001.is_none());
        assert!(not_built(&data).contains("openssl-4.0 row is absent"));
    }
}

#[test]
fn an_unrelated_directory_is_never_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mine");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("keep.txt"), "mine").unwrap();
    let run = common::montmul_command()
        .args(["report", "--quick", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("is not a montmul report; not replaced"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(dir.join("keep.txt")).unwrap(), "mine");
    // Nothing else was left beside it.
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
}

/// The browser's binary, if one is installed.
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

#[test]
fn renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        montmul_testkit::skipped!("\n*** SKIPPED: chromium not installed: the rendering test did not run (apt-get install chromium) ***\n");
        return;
    };
    let dir = &report().1;
    let page = format!("file://{}", dir.join("index.html").display());
    let shot = dir.parent().unwrap().join("shot.png");
    let profile = tempfile::tempdir().unwrap();
    let run = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--window-size=1000,2200", "--virtual-time-budget=2000"])
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&page)
        .output()
        .expect("chromium runs");
    assert!(
        run.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let log = String::from_utf8_lossy(&run.stderr);
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    // The screenshot: not blank, and the plots' colours are there.
    let decoder = png::Decoder::new(fs::File::open(&shot).expect("a screenshot"));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(channels).collect();
    let white = pixels.iter().filter(|p| p[..3] == [255, 255, 255]).count();
    assert!(
        white < pixels.len() * 99 / 100,
        "the screenshot is not blank"
    );
    let near = |p: &[u8], c: [u8; 3]| p.iter().zip(c).all(|(&a, b)| a.abs_diff(b) < 24);
    let plot_blue = pixels.iter().filter(|p| near(p, [0, 114, 178])).count();
    let plot_orange = pixels.iter().filter(|p| near(p, [213, 94, 0])).count();
    assert!(
        plot_blue > 50 && plot_orange > 50,
        "a plot is visible: {plot_blue} blue, {plot_orange} orange pixels"
    );
    // The DOM has the page's sections and the inline plots.
    let dom = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(&page)
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&dom.stdout);
    for id in SECTIONS {
        assert!(dom.contains(&format!("id=\"{id}\"")), "{id} in the DOM");
    }
    assert!(dom.matches("<svg").count() >= 4);
}
