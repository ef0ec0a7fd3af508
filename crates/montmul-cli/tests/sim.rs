//! `montmul sim` through the built binary: seed figures, JSON shape, and bad input.

mod common;

use common::{json, ok, refused};

#[test]
fn systolic_json_gives_the_seed_003_figures() {
    let v = json(&[
        "sim",
        "systolic",
        "--bits",
        "1024",
        "--word",
        "16",
        "--arch",
        "tenca-koc",
        "--json",
    ]);
    assert_eq!(v["arch"], "tenca-koc");
    assert_eq!(v["radix"], 2);
    assert_eq!(v["bits"], 1024);
    assert_eq!(v["word"], 16);
    assert_eq!(v["pes"], 33);
    assert_eq!(v["cycles"], 2113);
    let v = json(&[
        "sim",
        "systolic",
        "--bits",
        "1024",
        "--arch",
        "optimized",
        "--radix",
        "4",
        "--json",
    ]);
    assert_eq!(v["pes"], 65);
    assert_eq!(v["cycles"], 576);
}

#[test]
fn systolic_text_names_pes_and_cycles() {
    let text = ok(&["sim", "systolic", "--bits", "2048", "--arch", "optimized"]);
    assert!(text.contains("129 PEs"), "{text}");
    assert!(text.contains("2176 clock cycles"), "{text}");
}

#[test]
fn systolic_bad_input_is_one_error_line() {
    refused(&["sim", "systolic", "--word", "7"]);
    refused(&["sim", "systolic", "--radix", "3"]);
    refused(&["sim", "systolic", "--pes", "0"]);
    refused(&["sim", "systolic", "--arch", "mcivor"]);
    refused(&["sim", "systolic", "--arch", "optimized", "--pes", "4"]);
    refused(&["sim", "systolic", "--bits", "1"]);
    refused(&["sim", "systolic", "--bits", "x"]);
}

#[test]
fn multicore_json_rows_per_core_count() {
    let v = json(&[
        "sim",
        "multicore",
        "--bits",
        "256",
        "--word",
        "16",
        "--cores",
        "1,2,4",
        "--method",
        "2",
        "--json",
    ]);
    let rows = v.as_array().expect("an array");
    assert_eq!(rows.len(), 3);
    for (row, p) in rows.iter().zip([1, 2, 4]) {
        assert_eq!(row["method"], 2);
        assert_eq!(row["cores"], p);
        for key in ["cycles", "loads", "stores"] {
            assert!(row[key].as_u64().is_some_and(|n| n > 0), "{key} in {row}");
        }
    }
    // Seed 002, Table 3 (S_rf = 16, s = 16): method-II on 4 cores keeps X, M and Z in
    // registers: N_load-opr = 2s + ps = 96; Table 2: N_load-tr = 2(p-1)s = 96.
    assert_eq!(rows[2]["load_opr"], 96);
    assert_eq!(rows[2]["load_tr"], 96);
    assert_eq!(rows[2]["store_tr"], 64);
    // Table 2: N_mul = 2s^2 + s = 528 whatever p.
    for row in rows {
        assert_eq!(row["n_mul"], 528, "{row}");
    }
    let c1 = rows[0]["cycles"].as_u64().unwrap();
    let c4 = rows[2]["cycles"].as_u64().unwrap();
    assert!(c4 < c1);
    assert_eq!(rows[0]["speedup"], 1.0);
}

#[test]
fn multicore_write_back_adds_the_result_stores() {
    let run = |method: &str, extra: &[&str]| {
        let mut args = vec![
            "sim",
            "multicore",
            "--bits",
            "256",
            "--cores",
            "1,4",
            "--method",
            method,
            "--json",
        ];
        args.extend_from_slice(extra);
        json(&args)
    };
    for (method, words) in [("1", 16), ("2", 17)] {
        let (kept, stored) = (run(method, &[]), run(method, &["--write-back"]));
        for (k, s) in kept
            .as_array()
            .unwrap()
            .iter()
            .zip(stored.as_array().unwrap())
        {
            assert_eq!(k["write_back"], false, "{k}");
            assert_eq!(s["write_back"], true, "{s}");
            // One core runs single-core FIOS, which stores s + 1 words.
            let words = if k["cores"] == 1 { 17 } else { words };
            assert_eq!(s["loads"], k["loads"], "{k} {s}");
            assert_eq!(
                s["stores"].as_u64().unwrap(),
                k["stores"].as_u64().unwrap() + words,
                "{k} {s}"
            );
        }
    }
}

#[test]
fn multicore_text_has_one_row_per_core_count() {
    let text = ok(&[
        "sim",
        "multicore",
        "--bits",
        "128",
        "--cores",
        "1,2",
        "--method",
        "1",
    ]);
    assert!(text.starts_with("method-I, n = 128"), "{text}");
    assert!(text.contains("result left in registers"), "{text}");
    assert_eq!(text.lines().count(), 4, "{text}");
}

#[test]
fn multicore_bad_input_is_one_error_line() {
    refused(&["sim", "multicore", "--cores", "0"]);
    refused(&["sim", "multicore", "--method", "3"]);
    refused(&["sim", "multicore", "--word", "7"]);
    refused(&["sim", "multicore", "--word", "64"]);
    refused(&["sim", "multicore", "--bits", "64", "--cores", "8"]);
    refused(&["sim", "multicore", "--cores", "1,x"]);
    refused(&["sim", "multicore", "--regs", "99999999"]);
}
