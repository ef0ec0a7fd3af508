//! A prebuilt constant-time harness run under valgrind memcheck, as the valgrind tests
//! of montmul and montmul-pk do: find valgrind and the harness binary (a release
//! example with a feature `cargo test` does not turn on, built beforehand: cargo holds
//! the build directory while tests run), refuse a binary older than the sources it is
//! built from (it would check the code as it was), and run it with the memcheck flags
//! both use. What the output must show is each test's own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

/// One harness: how to find, build and name it.
pub struct Harness {
    /// What the SKIPPED line and the failure call it ("valgrind constant-time check").
    pub name: &'static str,
    /// The environment variable that names the binary instead of the default.
    pub bin_env: &'static str,
    /// The example's name: the default binary is `target/release/examples/<example>`
    /// of the workspace (honouring `CARGO_TARGET_DIR`).
    pub example: &'static str,
    /// The command that builds it.
    pub build: &'static str,
    /// The calling crate's directory (`env!("CARGO_MANIFEST_DIR")`).
    pub crate_dir: &'static str,
    /// The sources it is built from, relative to `crate_dir` (files or directories; their
    /// `.rs` files count).
    pub sources: &'static [&'static str],
}

/// A finished run: valgrind's version line, the binary, and its output.
pub struct Run {
    /// `valgrind --version`.
    pub version: String,
    /// The harness binary that ran.
    pub bin: PathBuf,
    /// Exit status, stdout and stderr of valgrind with the harness.
    pub output: Output,
}

impl Harness {
    /// Runs the harness under memcheck (`--error-exitcode=1`, exact definedness for
    /// comparisons, 30 callers). `None` when valgrind (`MONTMUL_VALGRIND`, default
    /// `valgrind` on the path) or the binary is missing: a loud SKIPPED line past the
    /// test harness' output capture, or a panic when `MONTMUL_CT_VALGRIND_REQUIRED` is
    /// set (as CI does).
    ///
    /// # Panics
    /// As above; when the binary is older than a source, with the build command; when
    /// valgrind cannot be started.
    pub fn run(&self) -> Option<Run> {
        let valgrind = std::env::var_os("MONTMUL_VALGRIND").unwrap_or_else(|| "valgrind".into());
        let Ok(version) = Command::new(&valgrind)
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        else {
            return self.cannot_run("valgrind is not installed (apt-get install valgrind)");
        };
        let bin = self.binary();
        if !bin.is_file() {
            return self.cannot_run(&format!("{} is not built ({})", bin.display(), self.build));
        }
        self.assert_built_after_sources(&bin);
        let output = Command::new(&valgrind)
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
        Some(Run {
            version,
            bin,
            output,
        })
    }

    /// The binary: `bin_env`, or the workspace's release example.
    fn binary(&self) -> PathBuf {
        if let Some(path) = std::env::var_os(self.bin_env) {
            return PathBuf::from(path);
        }
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(self.crate_dir).join("../../target"));
        target.join("release/examples").join(self.example)
    }

    /// Says why the check cannot run: a failure when CI requires it, else a SKIPPED line.
    fn cannot_run(&self, why: &str) -> Option<Run> {
        if std::env::var_os("MONTMUL_CT_VALGRIND_REQUIRED").is_some() {
            panic!("the {} is required but cannot run: {why}", self.name);
        }
        crate::skipped!("\nSKIPPED: {}: {why}\n", self.name);
        None
    }

    /// Fails, with the build command, when `bin` is older than any `.rs` file of the
    /// sources.
    fn assert_built_after_sources(&self, bin: &Path) {
        let built = modified(bin);
        if let Some((changed, file)) = newest_source(Path::new(self.crate_dir), self.sources) {
            assert!(
                changed <= built,
                "{} is older than {}, so it would check the code as it was: rebuild it with\n\n    \
                 {}\n\nand run the test again",
                bin.display(),
                file.display(),
                self.build
            );
        }
    }
}

/// A file's modification time.
fn modified(path: &Path) -> SystemTime {
    path.metadata()
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("modification time of {}: {e}", path.display()))
}

/// The most recently modified `.rs` file under `paths` (files or directories, relative to
/// `root`), with its modification time.
fn newest_source(root: &Path, paths: &[&str]) -> Option<(SystemTime, PathBuf)> {
    let mut todo: Vec<PathBuf> = paths.iter().map(|p| root.join(p)).collect();
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    while let Some(path) = todo.pop() {
        if path.is_dir() {
            let entries =
                std::fs::read_dir(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            todo.extend(entries.map(|e| e.expect("a directory entry").path()));
        } else if path.extension().is_some_and(|x| x == "rs") {
            let time = modified(&path);
            if newest.as_ref().is_none_or(|(t, _)| time > *t) {
                newest = Some((time, path));
            }
        }
    }
    newest
}
