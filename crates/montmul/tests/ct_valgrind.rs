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

use montmul_testkit::ct_harness::{Harness, Run};

/// The harness: the example `ct_valgrind`, built from this crate's `src/`, the example's
/// files and montmul-testkit's `src/`.
const HARNESS: Harness = Harness {
    name: "valgrind constant-time check",
    bin_env: "MONTMUL_CT_VALGRIND_BIN",
    example: "ct_valgrind",
    build: "cargo build --release -p montmul --features ct-valgrind --example ct_valgrind",
    crate_dir: env!("CARGO_MANIFEST_DIR"),
    sources: &["src", "examples/ct_valgrind", "../montmul-testkit/src"],
};

#[test]
fn secrets_decide_no_branch_and_no_address() {
    let Some(Run {
        version,
        bin,
        output: out,
    }) = HARNESS.run()
    else {
        return;
    };
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
