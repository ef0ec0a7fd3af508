//! Runs the constant-time harness (`examples/ct_valgrind/`) under valgrind memcheck
//! and fails on any branch or memory address that depends on a secret (memcheck's
//! `--error-exitcode=1`) or on a wrong result.
//!
//! The harness is a release binary with the `ct-valgrind` feature, built beforehand
//! (a test cannot build it: cargo holds the build directory while tests run):
//!
//! ```text
//! cargo build --release -p montmul --features ct-valgrind --example ct_valgrind
//! cargo test -p montmul --test ct_valgrind
//! ```
//!
//! `MONTMUL_CT_VALGRIND_BIN` names the binary (default: the workspace's
//! `target/release/examples/ct_valgrind`), `MONTMUL_VALGRIND` the valgrind to run
//! (default: `valgrind` on the path). Without either the test prints a `SKIPPED` line
//! and passes, unless `MONTMUL_CT_VALGRIND_REQUIRED` is set (as CI does): then it fails.
//! A binary older than a Rust source it is built from (`src/`, the example's files,
//! montmul-testkit's `src/`) fails the test with the build command: it would check the
//! code as it was.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The command that builds the harness.
const BUILD: &str = "cargo build --release -p montmul --features ct-valgrind --example ct_valgrind";

/// The sources the harness is built from, relative to this crate: a change to any of them
/// makes the binary stale.
const SOURCES: [&str; 3] = ["src", "examples/ct_valgrind", "../montmul-testkit/src"];

/// The harness binary: `MONTMUL_CT_VALGRIND_BIN`, or the release example of this
/// workspace (honouring `CARGO_TARGET_DIR`).
fn harness() -> PathBuf {
    if let Some(path) = std::env::var_os("MONTMUL_CT_VALGRIND_BIN") {
        return PathBuf::from(path);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("release/examples/ct_valgrind")
}

/// Says why the check cannot run: a failure when CI requires it, else a loud line
/// straight to the terminal (past the test harness' output capture) and a pass.
fn cannot_run(why: &str) {
    if std::env::var_os("MONTMUL_CT_VALGRIND_REQUIRED").is_some() {
        panic!("the valgrind constant-time check is required but cannot run: {why}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "\nSKIPPED: valgrind constant-time check: {why}\n"
    );
}

#[test]
fn secrets_decide_no_branch_and_no_address() {
    let valgrind = std::env::var_os("MONTMUL_VALGRIND").unwrap_or_else(|| "valgrind".into());
    let version = Command::new(&valgrind).arg("--version").output();
    let Ok(version) = version.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()) else {
        return cannot_run("valgrind is not installed (apt-get install valgrind)");
    };
    let bin = harness();
    if !bin.is_file() {
        return cannot_run(&format!("{} is not built ({BUILD})", bin.display()));
    }
    montmul_testkit::fresh::assert_built_after(
        &bin,
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &SOURCES,
        BUILD,
    );
    let out = Command::new(&valgrind)
        .args([
            "--tool=memcheck",
            "--error-exitcode=1",
            // Exact definedness for comparisons: a comparison decided by public bits
            // alone (the bit length of a secret modulus) is not reported.
            "--expensive-definedness-checks=yes",
            "--num-callers=30",
        ])
        .arg(&bin)
        .output()
        .expect("run valgrind");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{version} on {}\n{stdout}", bin.display());
    assert!(
        out.status.success(),
        "CONSTANT-TIME CHECK FAILED ({}): a secret decides a branch or an address \
         (memcheck's reports below name the lines), or a result is wrong.\n\
         --- harness output ---\n{stdout}\n--- valgrind ---\n{stderr}",
        out.status
    );
    // The summary, past the output capture, so that a passing CI run shows it too.
    let summary: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(" cases, ") && !l.starts_with("== "))
        .collect();
    let groups: Vec<&str> = stdout.lines().filter(|l| l.starts_with("== ")).collect();
    let _ = writeln!(
        std::io::stderr(),
        "\nvalgrind constant-time check ({version}): {}\n{}",
        summary.join("; "),
        groups.join("\n")
    );
    // Every group ran (a group of the harness that no longer runs is a lost check).
    for group in [
        "kernels, CPU as detected",
        "table reads",
        "secret moduli",
        "residue operations",
        "residue reductions, inverse, encodings, in place",
        "small fields",
    ] {
        assert!(
            groups
                .iter()
                .any(|l| l.starts_with(&format!("== {group}:"))),
            "the harness did not run the group {group}:\n{stdout}"
        );
    }
    assert!(
        stdout.contains("under valgrind")
            && (stdout.contains("BMI2 and ADX assumed") || !cfg!(target_arch = "x86_64")),
        "the harness did not run under valgrind with the mulx kernels:\n{stdout}"
    );
}
