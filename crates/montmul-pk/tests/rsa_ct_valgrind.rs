//! Runs montmul-pk's constant-time harness (`examples/ct_valgrind_rsa.rs`) under valgrind
//! memcheck and fails on any branch or memory address that depends on a secret (memcheck's
//! `--error-exitcode=1`) or on a wrong result. The secrets: RSA's d, p and q (raw
//! decryption, PKCS #1 v1.5 and PSS signing, OAEP and PKCS #1 v1.5 decryption, valid and
//! invalid paddings), a three-prime key's d and primes, every random byte of RSA-2048
//! key generation with two and with three primes (the candidate primes), DSA's x and its RFC 6979 nonce (signing),
//! Diffie-Hellman's exponent (derive). The test also checks that every case ran.
//!
//! The harness is a release binary with the `ct-valgrind` feature, built beforehand
//! (a test cannot build it: cargo holds the build directory while tests run):
//!
//! ```text
//! cargo build --release -p montmul-pk --features ct-valgrind --example ct_valgrind_rsa
//! cargo test -p montmul-pk --test rsa_ct_valgrind
//! ```
//!
//! `MONTMUL_PK_CT_VALGRIND_BIN` names the binary (default: the workspace's
//! `target/release/examples/ct_valgrind_rsa`), `MONTMUL_VALGRIND` the valgrind to run.
//! Without either the test prints a `SKIPPED` line and passes, unless
//! `MONTMUL_CT_VALGRIND_REQUIRED` is set (as CI does for montmul's own harness). A binary
//! older than a Rust source it is built from (montmul's, montmul-pk's and
//! montmul-testkit's `src/`, the example; not the keys it includes from `tests/data/`)
//! fails the test with the build command: it would check the code as it was.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The command that builds the harness.
const BUILD: &str =
    "cargo build --release -p montmul-pk --features ct-valgrind --example ct_valgrind_rsa";

/// The sources the harness is built from, relative to this crate: a change to any of them
/// makes the binary stale.
const SOURCES: [&str; 4] = [
    "../montmul/src",
    "src",
    "examples/ct_valgrind_rsa.rs",
    "../montmul-testkit/src",
];

fn harness() -> PathBuf {
    if let Some(path) = std::env::var_os("MONTMUL_PK_CT_VALGRIND_BIN") {
        return PathBuf::from(path);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("release/examples/ct_valgrind_rsa")
}

fn cannot_run(why: &str) {
    if std::env::var_os("MONTMUL_CT_VALGRIND_REQUIRED").is_some() {
        panic!("the montmul-pk valgrind constant-time check is required but cannot run: {why}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "\nSKIPPED: montmul-pk valgrind constant-time check: {why}\n"
    );
}

#[test]
fn rsa_secrets_decide_no_branch_and_no_address() {
    let valgrind = std::env::var_os("MONTMUL_VALGRIND").unwrap_or_else(|| "valgrind".into());
    let Ok(version) = Command::new(&valgrind)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    else {
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
            "--expensive-definedness-checks=yes",
            "--num-callers=30",
        ])
        .arg(&bin)
        .output()
        .expect("run valgrind");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "CONSTANT-TIME CHECK FAILED ({}): a secret decides a branch or an address, or a \
         result is wrong.\n--- harness output ---\n{stdout}\n--- valgrind ---\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("under valgrind")
            && (stdout.contains("ADX assumed") || !cfg!(target_arch = "x86_64")),
        "the harness did not run under valgrind with the mulx kernels:\n{stdout}"
    );
    for case in [
        "RSA-2048 raw decryption, PKCS #1 v1.5 and PSS signing",
        "RSA-2048 OAEP decryption",
        "RSA-2048 PKCS #1 v1.5 decryption, implicit rejection",
        "RSA-2048 three-prime raw decryption, signing and OAEP",
        "RSA-2048 key generation",
        "RSA-2048 3-prime key generation",
        "DSA 2048/224 and 2048/256 signing",
        "DH ffdhe2048 and 1024-bit derive",
    ] {
        assert!(
            stdout
                .lines()
                .any(|l| l.contains(case) && l.ends_with(" 0 memcheck errors")),
            "the harness did not run the case {case:?} cleanly:\n{stdout}"
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "\nmontmul-pk valgrind constant-time check ({version}):\n{stdout}"
    );
}
