//! Runs montmul-pk's constant-time harness (`examples/ct_valgrind_rsa.rs`) under valgrind
//! memcheck and fails on any branch or memory address that depends on a secret (memcheck's
//! `--error-exitcode=1`) or on a wrong result. The secrets: RSA's d, p and q (raw
//! decryption, PKCS #1 v1.5 and PSS signing, OAEP and PKCS #1 v1.5 decryption, valid and
//! invalid paddings), the same numbers and the CRT ones read from a PKCS #1 document
//! (two and three primes), a three-prime key's d and primes, every random byte of RSA-2048
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

use montmul_testkit::ct_harness::{Harness, Run};

/// The harness: the example `ct_valgrind_rsa`, built from montmul's, montmul-pk's and
/// montmul-testkit's `src/` and the example.
const HARNESS: Harness = Harness {
    name: "montmul-pk valgrind constant-time check",
    bin_env: "MONTMUL_PK_CT_VALGRIND_BIN",
    example: "ct_valgrind_rsa",
    build: "cargo build --release -p montmul-pk --features ct-valgrind --example ct_valgrind_rsa",
    crate_dir: env!("CARGO_MANIFEST_DIR"),
    sources: &[
        "../montmul/src",
        "src",
        "examples/ct_valgrind_rsa.rs",
        "../montmul-testkit/src",
    ],
};

#[test]
fn rsa_secrets_decide_no_branch_and_no_address() {
    let Some(Run {
        version,
        output: out,
        ..
    }) = HARNESS.run()
    else {
        return;
    };
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
        "RSA-2048 read with its CRT numbers",
        "RSA-2048 three-prime read with its CRT numbers",
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
