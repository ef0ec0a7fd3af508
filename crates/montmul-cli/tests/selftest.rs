//! `montmul selftest` from the outside: the sweep CI runs (every kernel, word size and
//! policy on every default size class up to 4096 bits, `MONTMUL_SELFTEST_CASES` cases
//! each, default 2) must find no mismatch; the JSON summary adds up; a seed gives the
//! same run twice; the progress bar shows on a terminal only; bad flags get one `error:`
//! line and status 2.
//!
//! 8192 and 16384 bits (about 10 and 40 CPU seconds per case) are left to the off-CI
//! run recorded in `docs/SECURITY.md`, "Self-test sweep".

mod common;

use common::montmul;
use serde_json::Value;

/// `montmul selftest --json ARGS`' summary.
fn summary(args: &[&str]) -> Value {
    let mut all = vec!["selftest", "--json"];
    all.extend_from_slice(args);
    common::json(&all)
}

/// The default size classes CI runs.
const CI_BITS: &str = "2,3,7,8,9,16,31,64,65,127,128,192,255,256,384,521,1024,2048,3072,4096";

#[test]
fn the_ci_sweep_finds_no_mismatch() {
    let cases = std::env::var("MONTMUL_SELFTEST_CASES").unwrap_or_else(|_| "2".into());
    let s = summary(&["--cases", &cases, "--bits", CI_BITS, "--seed", "19"]);
    assert_eq!(s["mismatches"], 0, "{s:#}");
    assert_eq!(s["reproducers"].as_array().map(Vec::len), Some(0));
    let sizes = s["sizes"].as_array().expect("sizes").len() as u64;
    assert_eq!(sizes, 20);
    let runs = s["runs"].as_u64().expect("runs");
    let cases: u64 = cases.parse().expect("a number of cases");
    // At least the portable kernels (9 per word, both policies) on every word size.
    assert!(runs >= sizes * cases * 4 * 9 * 2, "{runs} runs");
    assert!(s["checks"].as_u64().expect("checks") > runs * 10);
    // gen-cios has code for some limb counts only: the others are skipped, and listed.
    let skips = s["skips"].as_array().expect("skips");
    assert!(
        skips.iter().any(|k| k["kernel"] == "gen-cios"
            && k["bits"]
                .as_array()
                .is_some_and(|b| b.contains(&Value::from(2)))),
        "{skips:?}"
    );
    let listed: u64 = skips
        .iter()
        .map(|k| k["bits"].as_array().map_or(0, |b| b.len() as u64))
        .sum();
    assert_eq!(s["skipped"].as_u64(), Some(listed));
}

/// The multi-buffer kernels are named like the others: `--algo` takes them alone, and
/// a case runs under both policies where this CPU has AVX-512 IFMA (the pair's
/// and the 8-lane kernel's sizes both hold 1024 bits), or is listed as skipped.
#[test]
fn the_multi_buffer_kernels_run_by_name() {
    for name in ["amm52x2-ifma", "amm52x8-ifma"] {
        let s = summary(&[
            "--cases", "2", "--bits", "1024", "--algo", name, "--seed", "4",
        ]);
        assert_eq!(s["mismatches"], 0, "{s:#}");
        let runs = s["runs"].as_u64().expect("runs");
        let skips = s["skips"].as_array().expect("skips");
        if runs == 0 {
            eprintln!("SKIPPED: {name} not run (this CPU lacks AVX-512 IFMA): its listing checked");
            assert!(skips.iter().any(|k| k["kernel"] == name), "{s:#}");
        } else {
            assert_eq!(runs, 2 * 2, "{s:#}");
            assert!(skips.is_empty(), "{s:#}");
            assert!(s["checks"].as_u64().expect("checks") >= runs * 4, "{s:#}");
        }
    }
    // Named for 8-bit words only, they select nothing: refused.
    let refused = common::refused(&["selftest", "--algo", "amm52x2-ifma", "--words", "8"]);
    assert_eq!(
        refused,
        "error: --algo amm52x2-ifma has no kernel with 8-bit words"
    );
}

#[test]
fn a_seed_gives_the_same_run_and_the_text_summary() {
    let one = summary(&["--cases", "3", "--bits", "9,130", "--seed", "5"]);
    let two = summary(&["--cases", "3", "--bits", "9,130", "--seed", "5"]);
    for key in ["runs", "checks", "skipped", "mismatches"] {
        assert_eq!(one[key], two[key], "{key}");
    }
    assert!(one["exhaustive"].is_null());
    let (code, out, err) = montmul(&["selftest", "--cases", "1", "--bits", "5"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "no progress bar off a terminal: {err}");
    let last = out.lines().last().expect("a summary line");
    assert!(
        last.starts_with("selftest: 1 cases per size x 1 sizes (seed 1): ")
            && last.contains(" 0 mismatches"),
        "{out}"
    );
}

#[test]
fn the_progress_bar_is_drawn_on_a_terminal_only() {
    // Piped, standard error stays empty (the test above).
    let dir = common::Dir::new();
    let exe = env!("CARGO_BIN_EXE_montmul");
    let command = format!("{exe} selftest --cases 3 --bits 64 --algo cios --words 64");
    let Some(run) = common::on_a_terminal(&command, &dir.at("typescript")) else {
        montmul_testkit::skipped!(
            "SKIPPED: the_progress_bar_is_drawn_on_a_terminal_only (no `script` command)"
        );
        return;
    };
    assert_eq!(run.status.code(), Some(0), "{command}");
    let seen = String::from_utf8_lossy(&run.stdout).into_owned();
    // Drawn at once: none of the 3 units (one size, three cases, one word) done yet.
    assert!(seen.contains("0/3 (eta"), "no first frame in {seen:?}");
    let summary = seen
        .find("selftest: 3 cases per size x 1 sizes")
        .unwrap_or_else(|| panic!("no summary in {seen:?}"));
    // Every frame is followed by the erase of its line; the last one too, before the
    // summary.
    let last_frame = seen[..summary]
        .rfind("(eta")
        .expect("a frame before the summary");
    let after = &seen[last_frame..summary];
    assert!(after.contains("\r\u{1b}[2K"), "line left drawn: {after:?}");
}

#[test]
fn bad_flags_get_one_error_line() {
    let ones = vec!["2"; 65].join(",");
    for (args, want) in [
        (
            vec!["--cases", "0"],
            "error: invalid value '0' for '--cases <CASES>': 0 is not in 1..=100000000",
        ),
        (
            vec!["--cases", "100000001"],
            "error: invalid value '100000001' for '--cases <CASES>': 100000001 is not in 1..=100000000",
        ),
        (vec!["--bits", "1"], "error: --bits: 1 is not in 2..=16384"),
        (vec!["--bits", "16385"], "error: --bits: 16385 is not in 2..=16384"),
        (vec!["--bits", &ones], "error: --bits: at most 64 entries, not 65"),
        (
            vec!["--seed", "-1"],
            "error: unexpected argument '-1' found",
        ),
    ] {
        let mut all = vec!["selftest"];
        all.extend_from_slice(&args);
        assert_eq!(common::refused(&all), want);
    }
}
