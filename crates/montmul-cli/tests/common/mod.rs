//! What the CLI tests share: running montmul and the `openssl` command (standard input
//! closed), the contract every refusal keeps (status 2, one `error:` line, nothing on
//! standard output), skipping loudly where `openssl` is absent, temporary directories,
//! running a command on a pseudo-terminal, and the committed files of the montmul-pk
//! tests.
// Each test crate that includes this module uses its own part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The montmul binary under test, as a command to set up.
pub fn montmul_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_montmul"))
}

/// Runs montmul.
pub fn montmul_output(args: &[&str]) -> Output {
    montmul_command()
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

/// Asserts that montmul refused `args` as every command must refuse bad input: exit
/// status 2, nothing on standard output, one line `error: ...` on standard error and no
/// panic. Returns that line, without its newline.
pub fn refused(args: &[&str]) -> String {
    let (code, out, err) = montmul(args);
    assert_eq!(code, 2, "montmul {args:?}: {err}");
    assert!(out.is_empty(), "montmul {args:?} printed {out}");
    assert_eq!(err.lines().count(), 1, "montmul {args:?}: {err}");
    assert!(err.starts_with("error: "), "montmul {args:?}: {err}");
    assert!(!err.contains("panicked"), "montmul {args:?}: {err}");
    err.trim_end().to_string()
}

/// [`refused`], with an error line that contains `part`.
pub fn refused_saying(args: &[&str], part: &str) -> String {
    let err = refused(args);
    assert!(
        err.contains(part),
        "montmul {args:?}: {err:?} lacks {part:?}"
    );
    err
}

/// Runs montmul, which must succeed, and parses its standard output as JSON.
pub fn json(args: &[&str]) -> serde_json::Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("montmul {args:?}: {e}: {out}"))
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
    /// The directory itself.
    pub fn root(&self) -> &Path {
        self.0.path()
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

/// Runs montmul, which must succeed; its standard output.
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
