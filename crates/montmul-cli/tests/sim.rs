//! `montmul sim` through the built binary: seed figures, JSON shape, and bad input.

use std::process::{Command, Output};

fn montmul(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_montmul"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = montmul(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// One line `error: ...` on stderr, exit status 2, nothing on stdout.
fn assert_refused(args: &[&str]) {
    let out = montmul(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

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
    let out = montmul(&["sim", "systolic", "--bits", "2048", "--arch", "optimized"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("129 PEs"), "{text}");
    assert!(text.contains("2176 clock cycles"), "{text}");
}

#[test]
fn systolic_bad_input_is_one_error_line() {
    assert_refused(&["sim", "systolic", "--word", "7"]);
    assert_refused(&["sim", "systolic", "--radix", "3"]);
    assert_refused(&["sim", "systolic", "--pes", "0"]);
    assert_refused(&["sim", "systolic", "--arch", "mcivor"]);
    assert_refused(&["sim", "systolic", "--arch", "optimized", "--pes", "4"]);
    assert_refused(&["sim", "systolic", "--bits", "1"]);
    assert_refused(&["sim", "systolic", "--bits", "x"]);
}
