//! `montmul bench --lanes` and the multi-buffer rows of `montmul algos`, from outside:
//! the bench checks every form against num-bigint and the jobs one by one before timing
//! (a disagreement would be an error, exit 2), then prints one row per form. No timing
//! is asserted.

mod common;
use common::{montmul, refused, refused_saying};

/// Whether `algos --json` says this CPU runs the kernel `name`.
fn available(name: &str) -> bool {
    let (code, out, err) = montmul(&["algos", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("a JSON array");
    rows.iter()
        .find(|r| r["name"] == name)
        .and_then(|r| r["available"].as_bool())
        .unwrap_or(false)
}

/// `bench --lanes N --json` at 512 bits, briefly: the rows.
fn bench(lanes: &str) -> (Vec<serde_json::Value>, String) {
    let (code, out, err) = montmul(&[
        "bench",
        "--lanes",
        lanes,
        "--bits",
        "512",
        "--rounds",
        "1",
        "--batch-ms",
        "1",
        "--json",
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    (serde_json::from_str(&out).expect("a JSON array"), err)
}

#[test]
fn lanes_3_rows_were_checked_before_timing() {
    let (rows, err) = bench("3");
    let row = |op: &str, name: &str| rows.iter().find(|r| r["op"] == op && r["impl"] == name);
    let mut names = vec![
        ("mul", "one-by-one:auto"),
        ("mul", "mul_lanes"),
        ("exp", "one-by-one:auto"),
        ("exp", "pow_lanes"),
    ];
    if available("amm52x8-ifma") {
        names.extend([("mul", "amm52x8-ifma"), ("exp", "amm52x8-ifma")]);
    } else {
        assert!(
            err.contains("amm52x8-ifma") && err.contains("SKIPPED"),
            "{err}"
        );
        montmul_testkit::skipped!("amm52x8-ifma rows: SKIPPED: no AVX-512 IFMA here");
    }
    for (op, name) in names {
        let r = row(op, name).unwrap_or_else(|| panic!("no {op} row for {name}: {rows:?}"));
        assert_eq!(r["bits"], 512);
        assert_eq!(r["lanes"], 3);
        assert!(r["ns"].as_f64().is_some_and(|ns| ns > 0.0), "{r}");
        assert!(r["speedup"].as_f64().is_some_and(f64::is_finite), "{r}");
        let checked: Vec<&str> = r["checked"]
            .as_array()
            .expect("checked")
            .iter()
            .filter_map(|c| c.as_str())
            .collect();
        assert_eq!(checked, ["num-bigint", "one-by-one"], "{r}");
    }
    // The pair kernel takes two jobs: no row for three.
    assert!(row("exp", "amm52x2-ifma").is_none());
    // The one-by-one rows are the ratios' reference.
    for op in ["mul", "exp"] {
        assert_eq!(row(op, "one-by-one:auto").unwrap()["speedup"], 1.0);
    }
}

#[test]
fn lanes_2_has_the_pair_and_the_table_says_what_was_checked() {
    let (rows, err) = bench("2");
    let pair = rows
        .iter()
        .any(|r| r["op"] == "exp" && r["impl"] == "amm52x2-ifma");
    assert_eq!(pair, available("amm52x2-ifma"), "{rows:?} {err}");
    let (code, out, err) = montmul(&[
        "bench",
        "--lanes",
        "2",
        "--bits",
        "512",
        "--ops",
        "mul",
        "--rounds",
        "1",
        "--batch-ms",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("one-by-one:auto") && out.contains("mul_lanes"),
        "{out}"
    );
    assert!(out.contains("checked equal to num-bigint's and to the jobs one by one"));
}

#[test]
fn lanes_outside_1_to_8_and_sqr_are_refused() {
    for bad in ["0", "9"] {
        refused_saying(&["bench", "--lanes", bad], "--lanes must be in 1..=8");
    }
    refused_saying(
        &["bench", "--lanes", "2", "--ops", "sqr"],
        "no multi-buffer form",
    );
    refused(&["bench", "--lanes", "2", "--pk"]);
}

#[test]
fn algos_lists_the_multi_buffer_kernels() {
    let (code, out, err) = montmul(&["algos", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("a JSON array");
    let ifma = rows
        .iter()
        .find(|r| r["name"] == "amm52-ifma")
        .map(|r| r["available"].clone());
    let Some(ifma) = ifma else {
        montmul_testkit::skipped!("multi-buffer kernels: SKIPPED: not an x86-64 build");
        return;
    };
    for (name, lanes) in [("amm52x8-ifma", 8), ("amm52x2-ifma", 2)] {
        let r = rows
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} not listed"));
        assert_eq!(r["lanes"], lanes);
        // Both need what amm52-ifma needs: AVX-512 IFMA.
        assert_eq!(r["available"], ifma, "{name}");
        assert_eq!(r["words"], serde_json::json!([64]));
        assert!(r["bits"].as_array().is_some_and(|b| b.len() == 2), "{r}");
    }
    assert!(rows
        .iter()
        .filter(|r| r["lanes"] == 1)
        .all(|r| r["bits"].is_null()));
    let (_, table, _) = montmul(&["algos"]);
    assert!(table.contains("amm52x8-ifma") && table.contains("lanes"));
}
