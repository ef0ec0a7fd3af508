//! Compiling and running generated code: a scratch directory, the compilers, the
//! programs. A missing compiler makes a test say `SKIPPED` out loud and return.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use montmul_gen::{Algo, Lang, Spec, Word};

/// A directory for one test's files, removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A fresh, empty directory named after `label` and this process.
    pub fn new(label: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("montmul-gen-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch directory");
        Scratch(dir)
    }

    /// A path inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes a file into the directory.
    pub fn write(&self, name: &str, text: &str) {
        std::fs::write(self.join(name), text).expect("write scratch file");
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether `program --version` runs; if not, prints a `SKIPPED` line naming the test.
pub fn have(program: &str, test: &str) -> bool {
    let ok = Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        montmul_testkit::skipped!(
            "SKIPPED: {test}: `{program}` is not installed, the generated code was not compiled"
        );
    }
    ok
}

/// Runs a compiler command; panics with its diagnostics if it fails.
pub fn compile(cmd: &mut Command) {
    let out = cmd.output().expect("start the compiler");
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `program` with `input` on standard input; returns its standard output.
pub fn run(program: &Path, input: &str) -> String {
    let mut child = Command::new(program)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the compiled driver");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_string();
    // Feed stdin from a thread so a full stdout pipe cannot deadlock us.
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("wait for the driver");
    feeder
        .join()
        .expect("stdin thread")
        .expect("write driver input");
    assert!(
        out.status.success(),
        "driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("driver output is text")
}

/// Asserts that x86-64 assembly text (AT&T or Intel syntax) holds multiplications, so
/// that its instructions were read, and no jump, call or loop instruction.
pub fn assert_straight_line(assembly: &str) {
    let instructions: Vec<(&str, &str)> = assembly
        .lines()
        .filter(|line| line.starts_with('\t') || line.starts_with(' '))
        .filter_map(|line| line.split_whitespace().next().map(|m| (m, line.trim())))
        .collect();
    assert!(
        instructions.iter().any(|(m, _)| m.contains("mul")),
        "no multiply instruction was read: the assembly was not parsed"
    );
    let found: Vec<&str> = instructions
        .iter()
        .filter(|(m, _)| m.starts_with('j') || m.starts_with("call") || m.starts_with("loop"))
        .map(|(_, line)| *line)
        .collect();
    assert!(found.is_empty(), "jumps or calls in the kernels: {found:?}");
}

/// Whether the tests run on x86-64, where [`assert_straight_line`] knows the mnemonics; if
/// not, prints a `SKIPPED` line naming the test.
pub fn on_x86_64(test: &str) -> bool {
    let yes = cfg!(target_arch = "x86_64");
    if !yes {
        montmul_testkit::skipped!(
            "SKIPPED: {test}: the assembly check knows x86-64 mnemonics only"
        );
        montmul_testkit::skipped!(
            "SKIPPED: {test}: the assembly check knows x86-64 mnemonics only"
        );
    }
    yes
}

/// Every algorithm, word and reduction policy at each of these sizes, in `lang`.
pub fn variants(sizes: &[u32], lang: Lang) -> Vec<Spec> {
    let mut out = Vec::new();
    for &bits in sizes {
        for word in Word::ALL {
            for algo in Algo::ALL {
                for lazy in [false, true] {
                    out.push(Spec::new(bits, lang, algo, word, lazy).expect("valid spec"));
                }
            }
        }
    }
    out
}

/// A name for `spec` that tells it from the other variants of its size and language.
pub fn variant_name(spec: &Spec) -> String {
    format!(
        "{}_{}_{}_{}",
        spec.algo().name(),
        spec.word().bits(),
        spec.bits(),
        spec.lazy()
    )
}
