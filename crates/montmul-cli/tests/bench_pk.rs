//! `montmul bench --pk` from outside: it checks every library against montmul before
//! timing (a disagreement would be an error, exit 2), then prints one row per library.

mod common;
use common::{montmul, refused};

#[test]
fn pk_rows_for_every_library_after_the_agreement_check() {
    let (code, out, err) = montmul(&[
        "bench",
        "--pk",
        "--bits",
        "2048",
        "--ops",
        "rsa-sign,rsa-verify,dsa-sign,dh-derive",
        "--threads",
        "2",
        "--rounds",
        "1",
        "--batch-ms",
        "1",
        "--json",
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("a JSON array");
    let has = |op: &str, who: &str| {
        rows.iter().any(|r| {
            r["op"] == op
                && r["impl"] == who
                && r["bits"] == 2048
                && r["ns"].as_f64().is_some_and(|ns| ns > 0.0)
        })
    };
    // The CRT halves on two cores: a row of its own, checked equal first.
    assert!(
        has("rsa-sign", "montmul-2threads"),
        "no two-thread row: {out}"
    );
    for who in ["montmul", "openssl", "ring", "rsa-crate"] {
        assert!(has("rsa-sign", who), "no rsa-sign row for {who}: {out}");
        assert!(has("rsa-verify", who), "no rsa-verify row for {who}: {out}");
    }
    for who in ["montmul", "openssl"] {
        assert!(has("dsa-sign", who), "no dsa-sign row for {who}: {out}");
        assert!(has("dh-derive", who), "no dh-derive row for {who}: {out}");
    }
}

#[test]
fn pk_bad_flags_are_one_line_errors() {
    for args in [
        &["bench", "--pk", "--ops", "mul"][..],
        &["bench", "--pk", "--bits", "1000"],
        &["bench", "--pk", "--bits", "1024", "--ops", "dh-derive"],
        &["bench", "--pk", "--peers"],
        &["bench", "--pk", "--threads", "3"],
        &["bench", "--pk", "--threads", "2", "--ops", "dsa-sign"],
        &["bench", "--openssl4"],
    ] {
        refused(args);
    }
}

/// `--openssl4` under either statistic: the script is asked for the one `--stat`
/// names, and its row is there.
#[test]
fn openssl4_rows_under_both_statistics() {
    if !common::openssl4_installed() {
        montmul_testkit::skipped!(
            "SKIPPED: python3's cryptography with OpenSSL 4 is not installed here"
        );
        return;
    }
    for stat in ["median", "min"] {
        let (code, out, err) = montmul(&[
            "bench",
            "--pk",
            "--openssl4",
            "--bits",
            "2048",
            "--ops",
            "rsa-verify",
            "--rounds",
            "1",
            "--batch-ms",
            "1",
            "--stat",
            stat,
            "--json",
        ]);
        assert_eq!(code, 0, "--stat {stat}: {err}");
        let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("a JSON array");
        assert!(
            rows.iter().any(|r| r["impl"] == "openssl-4.0"
                && r["op"] == "rsa-verify"
                && r["ns"].as_f64().is_some_and(|ns| ns > 0.0)),
            "--stat {stat}: no OpenSSL 4.0 row: {out}"
        );
        // The script itself reports the statistic it was asked for.
        let script = std::process::Command::new("python3")
            .arg(common::openssl4_script())
            .arg("rsa-verify")
            .arg(common::pk_data_path("rsa2048.pem"))
            .args(["--rounds", "1", "--stat", stat, "--json"])
            .output()
            .expect("python3 runs");
        assert!(script.status.success(), "{}", common::stderr(&script));
        let v: serde_json::Value = serde_json::from_slice(&script.stdout).expect("JSON");
        assert_eq!(v["stat"], stat, "{v}");
    }
}
