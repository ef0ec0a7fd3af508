//! The command line of the fast path: `exp` with and without `--vartime` against the
//! num-bigint oracle, `mul` through every 64-bit fast kernel, and `tune` writing its
//! table (and refusing bad arguments with one line and status 2).

mod common;

use montmul_testkit::num_bigint::BigUint;

use common::{montmul, refused, Dir};

fn hex(x: &BigUint) -> String {
    format!("0x{x:x}")
}

#[test]
fn exp_constant_time_and_vartime_agree_with_the_oracle() {
    // A 1024-bit odd modulus, base and a 300-bit exponent, all fixed patterns.
    let n = (BigUint::from(1u32) << 1023u32) + BigUint::from(0x1234_5678_9abc_def1u64);
    let b = (BigUint::from(0xdead_beef_u32) << 900u32) + 77u32;
    let e = (BigUint::from(0x0f0f_u32) << 290u32) + 0x0001_2345_u32;
    let want = format!("{}\n", hex(&b.modpow(&e, &n)));
    let (n, b, e) = (hex(&n), hex(&b), hex(&e));
    for algo in ["auto", "cios-fixed", "mulx-redc", "karatsuba", "cios"] {
        for extra in [&[][..], &["--vartime"][..], &["--reduction", "lazy"][..]] {
            let mut args = vec![
                "exp",
                "--modulus",
                &n,
                "--base",
                &b,
                "--exp",
                &e,
                "--algo",
                algo,
            ];
            args.extend_from_slice(extra);
            let (code, out, err) = montmul(&args);
            if algo == "mulx-redc" && code == 2 && err.contains("CPU feature") {
                montmul_testkit::skipped!("SKIPPED: mulx-redc: this CPU lacks BMI2 or ADX");
                continue;
            }
            assert_eq!(
                (code, out.as_str(), err.as_str()),
                (0, want.as_str(), ""),
                "{algo} {extra:?}"
            );
        }
    }
}

#[test]
fn tune_writes_a_table_and_rejects_bad_sizes() {
    let dir = Dir::new();
    let (code, _, err) = montmul(&["tune", "--max-limbs", "8", "--out", &dir.at("t.rs")]);
    assert_eq!(code, 0, "{err}");
    let table = std::fs::read_to_string(dir.path("t.rs")).expect("table written");
    for field in [
        "Machine: ",
        "Date: ",
        "pub const TUNED: Thresholds",
        "karatsuba_from:",
        "mulx_from:",
    ] {
        assert!(table.contains(field), "{field} missing from\n{table}");
    }
    refused(&["tune", "--max-limbs", "3"]);
    // A destination that cannot be written is refused before the measurements: one
    // line, no progress output, no file.
    let missing = dir.path("no-such-dir/thresholds.rs");
    let err = refused(&[
        "tune",
        "--max-limbs",
        "8",
        "--out",
        &dir.at("no-such-dir/thresholds.rs"),
    ]);
    assert!(err.starts_with("error: cannot write "), "{err}");
    assert!(!missing.exists());
}

/// `bench --threads 2`: every experiment on 1 and 2 threads (each checked against
/// num-bigint by the command before it is timed), as JSON rows; 256 bits are 4 limbs,
/// enough for two chunks of the split multiplication.
#[test]
fn bench_threads_times_split_and_batches_on_each_pool() {
    let (code, out, err) = montmul(&[
        "bench",
        "--threads",
        "2",
        "--bits",
        "256",
        "--rounds",
        "1",
        "--batch-ms",
        "1",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let rows = rows.as_array().expect("an array");
    let mut seen: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            assert!(r["ns"].as_f64().is_some_and(|ns| ns > 0.0), "{r}");
            (r["op"].to_string(), r["impl"].to_string())
        })
        .collect();
    seen.sort();
    let want = [
        ("mul-batch", "rayon:1"),
        ("mul-batch", "rayon:2"),
        ("mul-split", "method-ii:1"),
        ("mul-split", "method-ii:2"),
        ("pow-batch", "rayon:1"),
        ("pow-batch", "rayon:2"),
    ]
    .map(|(op, name)| (format!("\"{op}\""), format!("\"{name}\"")));
    assert_eq!(seen, want);
}

#[test]
fn bench_reports_the_fastest_round_with_stat_min() {
    let args = [
        "bench",
        "--bits",
        "256",
        "--ops",
        "mul,exp",
        "--algo",
        "cios",
        "--rounds",
        "3",
        "--batch-ms",
        "1",
    ];
    for (stat, header) in [("min", "ns (min)"), ("median", "ns (median)")] {
        let mut with = args.to_vec();
        with.extend(["--stat", stat]);
        let (code, out, err) = montmul(&with);
        assert_eq!(code, 0, "{err}");
        let mut lines = out.lines();
        assert!(lines.next().is_some_and(|h| h.contains(header)), "{out}");
        let rows: Vec<&str> = lines.filter(|l| l.contains("montmul:cios")).collect();
        assert_eq!(rows.len(), 2, "{out}");
    }
}
