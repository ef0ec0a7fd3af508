//! `montmul ct-check`: its statistic against values computed by hand, the harness
//! finding a leak it must find (the variable-time exponentiation, the control path), the
//! report's shape, and bad arguments refused with one line and status 2.
//!
//! Nothing here asserts how long montmul takes: the leak test asserts a property of the
//! statistics on a difference of hundreds of microseconds between the classes, which no
//! noise on a shared machine hides.

mod common;

#[allow(dead_code)]
#[path = "../src/welch.rs"]
mod welch;

use common::{montmul, refused};
use welch::{verdict, Moments, TTest};

fn t_of(a: &[f64], b: &[f64]) -> f64 {
    let mut t = TTest::default();
    a.iter().for_each(|&x| t.push(0, x));
    b.iter().for_each(|&x| t.push(1, x));
    t.t()
}

#[test]
fn welch_t_matches_hand_computed_values() {
    // Means 3 and 8, sample variances 2.5 and 2.5, n = 5 each:
    // t = (3 - 8) / sqrt(2.5/5 + 2.5/5) = -5 exactly.
    let t = t_of(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]);
    assert!((t + 5.0).abs() < 1e-12, "t = {t}");
    // Unequal variances: means 2.5 and 4, variances 5/3 and 16, n = 4 each:
    // t = -1.5 / sqrt(5/12 + 4) = -0.713746427146...
    let t = t_of(&[1.0, 2.0, 3.0, 4.0], &[2.0, 2.0, 2.0, 10.0]);
    assert!((t + 0.713_746_427_146_329_6).abs() < 1e-12, "t = {t}");
    // Unequal sizes: means 2 and 5, variances 1 and 2.5, n = 3 and 5:
    // t = -3 / sqrt(1/3 + 0.5) = -3.286335345...
    let t = t_of(&[1.0, 2.0, 3.0], &[3.0, 4.0, 5.0, 6.0, 7.0]);
    assert!((t + 3.286_335_345_030_997).abs() < 1e-12, "t = {t}");
    // The sign follows class 0 minus class 1.
    assert!(t_of(&[6.0, 7.0, 8.0, 9.0, 10.0], &[1.0, 2.0, 3.0, 4.0, 5.0]) > 0.0);
}

#[test]
fn welford_stays_exact_on_large_offsets() {
    // Cycle counts are large numbers with small differences: the naive sum of squares
    // would cancel; Welford's update keeps the variance.
    let mut m = Moments::default();
    for x in [1e12 + 4.0, 1e12 + 7.0, 1e12 + 13.0, 1e12 + 16.0] {
        m.push(x);
    }
    assert_eq!(m.count(), 4);
    assert!((m.mean() - (1e12 + 10.0)).abs() < 1e-3);
    assert!((m.variance() - 30.0).abs() < 1e-6, "{}", m.variance());
    let shifted = t_of(
        &[1e12 + 1.0, 1e12 + 2.0, 1e12 + 3.0],
        &[1e12 + 3.0, 1e12 + 4.0, 1e12 + 5.0, 1e12 + 6.0, 1e12 + 7.0],
    );
    assert!(
        (shifted + 3.286_335_345_030_997).abs() < 1e-6,
        "t = {shifted}"
    );
}

#[test]
fn degenerate_samples_give_zero_and_verdicts_use_dudects_thresholds() {
    assert_eq!(t_of(&[5.0, 5.0, 5.0], &[5.0, 5.0]), 0.0);
    assert_eq!(t_of(&[1.0], &[2.0, 3.0]), 0.0);
    assert_eq!(verdict(0.0), "no leak found");
    assert_eq!(verdict(-4.49), "no leak found");
    assert_eq!(verdict(4.5), "probably leaks");
    assert_eq!(verdict(10.0), "probably leaks");
    assert_eq!(verdict(-10.01), "leaks");
}

fn rows(json: &str) -> Vec<serde_json::Value> {
    let doc: serde_json::Value = serde_json::from_str(json).expect("ct-check --json prints JSON");
    assert!(doc["unit"].is_string());
    assert!(doc["skipped"].is_array());
    doc["rows"].as_array().expect("rows").clone()
}

fn worst(row: &serde_json::Value) -> f64 {
    let t = row["t"].as_f64().expect("t");
    let c = row["t_cropped"].as_f64().expect("t_cropped");
    t.abs().max(c.abs())
}

/// `montmul ct-check` on `paths` at 1024 bits with `n` measurements, then `extra`.
fn ct_check_1024(paths: &str, n: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "ct-check",
        "--paths",
        paths,
        "--bits",
        "1024",
        "--measurements",
        n,
    ];
    args.extend_from_slice(extra);
    montmul(&args)
}

#[test]
fn the_harness_detects_the_variable_time_control() {
    // `pow_vartime` with exponent 0x00..01 (one bit: a few products) against random
    // 1024-bit exponents (about 1200 products): hundreds of microseconds apart.
    let (code, out, err) = ct_check_1024("pow-vartime", "2000", &["--json"]);
    assert_eq!(code, 0, "{err}");
    let rows = rows(&out);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["path"], "pow-vartime");
    assert_eq!(row["measurements"], 2000);
    assert!(
        worst(row) > 10.0,
        "the control must be found leaking: {row}"
    );
    assert_eq!(row["verdict"], "leaks");
    // The typical call of each class: the fixed one (one bit) is below the warm-up's
    // median; the random class is slower, so it has none there (null, never a time of
    // 0) or a slower typical time.
    let fixed = row["typical_fixed"].as_f64().expect("a typical fixed time");
    assert!(fixed > 0.0, "{row}");
    let random = &row["typical_random"];
    assert!(
        random.is_null() || random.as_f64().is_some_and(|r| r > fixed),
        "{row}"
    );
}

#[test]
fn confirm_reruns_exactly_the_flagged_checks() {
    // The control leaks by hundreds of microseconds, so it is flagged and its second
    // run must flag it too; a constant-time path may or may not be flagged by a noisy
    // moment, but it has a second run exactly when its first is flagged.
    let (code, out, err) = ct_check_1024("pow-vartime,mul", "2000", &["--confirm", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows = rows(&out);
    assert!(rows.len() >= 2, "{out}");
    for row in &rows {
        let flagged = row["verdict"] != "no leak found";
        assert_eq!(row["rerun"].is_object(), flagged, "{row}");
        if let Some(again) = row["rerun"].as_object() {
            let worst_again = again["t"]
                .as_f64()
                .expect("t")
                .abs()
                .max(again["t_cropped"].as_f64().expect("t_cropped").abs());
            assert_eq!(
                again["reproduced"].as_bool(),
                Some(again["verdict"] != "no leak found"),
                "{row}"
            );
            assert_eq!(
                again["reproduced"].as_bool(),
                Some(worst_again >= 4.5),
                "{row}"
            );
        }
    }
    let control = rows
        .iter()
        .find(|r| r["path"] == "pow-vartime")
        .expect("the control");
    assert_eq!(control["rerun"]["reproduced"], true, "{control}");
    // The lines say it too.
    let (code, out, err) = ct_check_1024("pow-vartime", "1000", &["--confirm"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("again: |t|") && out.contains("reproduced"),
        "{out}"
    );
}

#[test]
fn the_report_has_one_line_per_path_kernel_and_size() {
    let (code, out, err) = montmul(&[
        "ct-check",
        "--paths",
        "pow,mul,table,fixed-base",
        "--bits",
        "64",
        "--reductions",
        "full",
        "--measurements",
        "100",
        "--json",
        "--fail-above",
        "1e300",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows = rows(&out);
    for path in ["pow", "mul", "table", "fixed-base"] {
        assert!(
            rows.iter().any(|r| r["path"] == path),
            "{path} missing: {out}"
        );
    }
    for r in &rows {
        assert_eq!(r["bits"], 64);
        assert_eq!(r["reduction"], "full");
        assert_eq!(r["measurements"], 100);
        assert!(worst(r).is_finite());
    }
    // The same as lines, with each fixed class, and `pow` beside `mul`.
    for class in ["edge", "random", "one", "top", "base-one"] {
        let (code, out, err) = montmul(&[
            "ct-check",
            "--paths",
            "mul,pow,fixed-base",
            "--bits",
            "64",
            "--reductions",
            "full",
            "--measurements",
            "100",
            "--fixed",
            class,
        ]);
        assert_eq!(code, 0, "{class}: {err}");
        for path in ["mul ", "pow ", "fixed-base "] {
            let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(path)).collect();
            assert!(!lines.is_empty(), "{class}, {path}: {out}");
            for l in lines {
                assert!(l.contains("N=100") && l.contains("|t|"), "{class}: {l}");
            }
        }
    }
}

/// Each exponentiation runs on exponents of the modulus' own length (`fixed-base`: at
/// most 32 bytes), or of `--exp-bytes`, and says so; `mul` takes none. The lengths
/// come from the timed subjects' own exponent buffers.
#[test]
fn exponents_have_the_modulus_length_or_the_one_asked_for() {
    let paths = "pow,mul,table,fixed-base,pow-vartime";
    for (extra, want, want_fixed_base) in
        [(None, 75, 32), (Some("3"), 3, 3), (Some("300"), 300, 300)]
    {
        let mut args = vec![
            "ct-check",
            "--paths",
            paths,
            "--bits",
            "600",
            "--reductions",
            "full",
            "--measurements",
            "100",
            "--json",
        ];
        if let Some(n) = extra {
            args.extend(["--exp-bytes", n]);
        }
        let (code, out, err) = montmul(&args);
        assert_eq!(code, 0, "{err}");
        let rows = rows(&out);
        for path in paths.split(',') {
            let of_path: Vec<_> = rows.iter().filter(|r| r["path"] == path).collect();
            assert!(!of_path.is_empty(), "{path} missing: {out}");
            for r in of_path {
                let expected = match path {
                    "mul" => serde_json::Value::Null,
                    "fixed-base" => want_fixed_base.into(),
                    _ => want.into(),
                };
                assert_eq!(r["exponent_bytes"], expected, "{extra:?}: {r}");
            }
        }
    }
}

/// The pair path: one row per policy where this CPU runs `amm52x2-ifma` (AVX-512 IFMA),
/// a SKIPPED line per policy where it does not, and always a SKIPPED line at a size the
/// pair kernel does not cover (256 bits).
#[test]
fn the_pair_path_runs_where_the_pair_kernel_does_and_says_where_it_does_not() {
    let (code, out, err) = montmul(&[
        "ct-check",
        "--paths",
        "pow-x2",
        "--bits",
        "256,1024",
        "--measurements",
        "100",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let skipped: Vec<&str> = doc["skipped"]
        .as_array()
        .expect("skipped")
        .iter()
        .filter_map(|s| s.as_str())
        .filter(|s| s.starts_with("SKIPPED: pow-x2"))
        .collect();
    assert!(
        skipped.iter().filter(|s| s.contains("at 256 bits")).count() == 2,
        "{out}"
    );
    let rows = rows(&out);
    let ifma = std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|c| c.contains(" avx512ifma"));
    if ifma {
        assert_eq!(rows.len(), 2, "{out}");
        for r in &rows {
            assert_eq!(r["path"], "pow-x2");
            assert_eq!(r["kernel"], "amm52x2-ifma");
            assert_eq!(r["bits"], 1024);
            assert_eq!(r["measurements"], 100);
            assert!(worst(r).is_finite());
        }
    } else {
        montmul_testkit::skipped!(
            "SKIPPED: the pair path (no AVX-512 IFMA): its skipped rows checked only"
        );
        assert!(rows.is_empty(), "{out}");
        assert_eq!(skipped.len(), 4, "{out}");
    }
}

#[test]
fn bad_arguments_get_one_error_line_and_status_2() {
    for args in [
        &["ct-check", "--measurements", "99"][..],
        &["ct-check", "--measurements", "100000001"],
        &["ct-check", "--bits", "8"],
        &["ct-check", "--bits", "16385"],
        &["ct-check", "--bits", "1,2,x"],
        &["ct-check", "--paths", "div"],
        &["ct-check", "--reductions", "half"],
        &["ct-check", "--fixed", "zero"],
        &["ct-check", "--exp-bytes", "0"],
        &["ct-check", "--exp-bytes", "2049"],
        &["ct-check", "--paths", "mul", "--exp-bytes", "4"],
        &[
            "ct-check",
            "--kernels",
            "nonesuch",
            "--bits",
            "64",
            "--measurements",
            "100",
        ],
        &[
            "ct-check",
            "--fail-above",
            "-1",
            "--bits",
            "64",
            "--measurements",
            "100",
        ],
        &[
            "ct-check",
            "--fail-above",
            "nan",
            "--bits",
            "64",
            "--measurements",
            "100",
        ],
        &[
            "ct-check",
            "--bits",
            "64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64",
            "--measurements",
            "100",
        ],
    ] {
        refused(args);
    }
}
