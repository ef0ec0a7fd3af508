//! What the CLI tests share (the interop tests of `montmul rsa`, `dsa` and `dh`, the bench tests,
//! the progress tests): running montmul and the `openssl` command (standard input
//! closed), skipping loudly where `openssl` is absent, running a command on a
//! pseudo-terminal, and the committed files of the montmul-pk tests.
// Each test crate that includes this module uses its own part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs montmul.
pub fn montmul_output(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_montmul"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("montmul runs")
}

/// Runs montmul; (status, stdout, stderr).
pub fn montmul(args: &[&str]) -> (i32, String, String) {
    let out = montmul_output(args);
    (out.status.code().unwrap_or(-1), stdout(&out), stderr(&out))
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn openssl(args: &[&str]) -> Output {
    Command::new("openssl")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("openssl runs")
}

pub fn openssl_ok(args: &[&str]) -> Vec<u8> {
    let out = openssl(args);
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

pub fn have_openssl(test: &str) -> bool {
    let ok = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        montmul_testkit::skipped!("SKIPPED: {test}: no openssl command");
    }
    ok
}

/// A committed key or parameter file of the montmul-pk tests (no generation here: it
/// takes seconds; montmul-pk's own tests cover it).
pub fn pk_data_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../montmul-pk/tests/data")
        .join(name)
}

/// [`pk_data_path`] as text.
pub fn pk_data(name: &str) -> String {
    pk_data_path(name).to_str().unwrap().to_string()
}

/// A temporary directory whose files are named by their path as text.
pub struct Dir(tempfile::TempDir);

impl Dir {
    pub fn new() -> Self {
        Dir(tempfile::tempdir().unwrap())
    }
    pub fn at(&self, name: &str) -> String {
        self.0.path().join(name).to_str().unwrap().to_string()
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
}

/// Runs the shell command line `command` on a pseudo-terminal of its own through
/// util-linux `script` (`-q`: no banners; `-e`: the command's status; `-c`: the
/// command), the session logged to `typescript`; the output's stdout is what the
/// terminal showed, standard error included. None where `script` is missing: the caller
/// says SKIPPED.
pub fn on_a_terminal(command: &str, typescript: &str) -> Option<Output> {
    Command::new("script")
        .args(["-q", "-e", "-c", command, typescript])
        .output()
        .ok()
}

pub fn ok(args: &[&str]) -> String {
    let (code, out, err) = montmul(args);
    assert_eq!(code, 0, "montmul {args:?}: {err}");
    out
}

/// Whether python3 with a `cryptography` that bundles OpenSSL 4 can run
/// `benches/openssl4.py` here (a distribution's package links the system OpenSSL 3
/// instead).
pub fn openssl4_installed() -> bool {
    Command::new("python3")
        .arg(openssl4_script())
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"OpenSSL 4."))
}

/// `benches/openssl4.py`, the script that times OpenSSL 4.0.
pub fn openssl4_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/openssl4.py")
}
