//! GMP 6.3 built for this CPU, as a peer in a process of its own.
//!
//! The system libgmp that [`crate::gmp`] links is Debian's generic x86-64 build of GMP
//! 6.2, without the mulx/adx kernels. `peers/gmp63` builds GMP 6.3 (the source that
//! gmp-mpfr-sys 1.7.1 bundles) configured for the build host, into one binary,
//! `montmul-gmp63`. Its `__gmpz_*` symbols are those of the system library, so it cannot
//! be linked into this process: it runs as a subprocess, as OpenSSL 4.0 does for the
//! public-key rows. It times the operations [`crate::gmp::Gmp`] times (the chained
//! `mpz_mul` + `mpz_tdiv_r` product and square, `mpz_powm_sec`, `mpz_powm`) on the
//! caller's inputs and returns each result with its time; [`time`] compares every
//! result with the caller's expected answer before it returns a single time.
//!
//! The binary is looked for at `$MONTMUL_GMP63`, else at [`DEFAULT_PATH`]; where it is
//! absent, [`Gmp63Error::Absent`] carries one sentence saying how to build it.
//!
//! The times come from another process, so they are not interleaved round by round
//! with the in-process peers: the same inputs, the same calibration and median, but
//! not the same moments of machine noise.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use num_bigint::BigUint;

use crate::Inputs;

/// Where `cargo build --release --manifest-path peers/gmp63/Cargo.toml` puts the binary.
pub const DEFAULT_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../peers/gmp63/target/release/montmul-gmp63"
);

/// The environment variable that names the binary instead of [`DEFAULT_PATH`].
pub const ENV: &str = "MONTMUL_GMP63";

/// The sentence that says how to build the peer.
pub const HOW_TO_BUILD: &str = "build it with `cargo build --release --manifest-path \
     peers/gmp63/Cargo.toml` (a few minutes; needs m4), or name a built one in $MONTMUL_GMP63";

/// Why GMP 6.3 gave no time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gmp63Error {
    /// The binary is not built (or not where it is looked for): skip, and say so.
    Absent(String),
    /// It ran and failed, or disagreed with the expected answer: an error, not a row.
    Failed(String),
}

impl std::fmt::Display for Gmp63Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Gmp63Error::Absent(s) | Gmp63Error::Failed(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for Gmp63Error {}

/// The binary's path: `$MONTMUL_GMP63`, else [`DEFAULT_PATH`].
pub fn binary() -> PathBuf {
    let path = std::env::var_os(ENV).map_or_else(|| PathBuf::from(DEFAULT_PATH), PathBuf::from);
    // `crates/montmul-peers/../../peers/...` reads better without the detour.
    std::fs::canonicalize(&path).unwrap_or(path)
}

/// The binary, or [`Gmp63Error::Absent`] with the sentence on how to build it.
fn found() -> Result<PathBuf, Gmp63Error> {
    let path = binary();
    if path.is_file() {
        Ok(path)
    } else {
        Err(Gmp63Error::Absent(format!(
            "GMP 6.3 built for this CPU is not built (no {}): {HOW_TO_BUILD}.",
            path.display()
        )))
    }
}

/// How the GMP 6.3 peer was built, as its `--info` says.
#[derive(Debug, Clone)]
pub struct Info {
    /// GMP's version string (`6.3.0`).
    pub version: String,
    /// The host `configure` chose (`zen4-pc-linux-gnu`).
    pub host: String,
    /// The mpn source of each checked kernel (`mul_1: x86_64/zen3/mul_1.asm`).
    pub kernels: Vec<(String, String)>,
    /// For each checked kernel, the instructions of {mulx, adox, adcx} found in its
    /// disassembly; `None` where objdump could not check it.
    pub disassembly: Vec<(String, Option<Vec<String>>)>,
}

impl Info {
    /// Whether every checked kernel's disassembly contains `mulx`: the build uses
    /// this CPU's BMI2 multiplier kernels, not the generic ones.
    pub fn uses_mulx(&self) -> bool {
        !self.disassembly.is_empty()
            && self
                .disassembly
                .iter()
                .all(|(_, d)| d.as_ref().is_some_and(|v| v.iter().any(|i| i == "mulx")))
    }

    /// One line for a report's header.
    pub fn summary(&self) -> String {
        let kernels = self
            .kernels
            .iter()
            .map(|(k, src)| format!("{k}: {src}"))
            .collect::<Vec<_>>()
            .join(", ");
        let dis = self
            .disassembly
            .iter()
            .map(|(k, d)| match d {
                Some(v) if v.is_empty() => format!("{k}: none"),
                Some(v) => format!("{k}: {}", v.join("/")),
                None => format!("{k}: not checked"),
            })
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "GMP {} configured for {} (no --enable-fat); kernels {kernels}; mulx/adox/adcx in their disassembly: {dis}",
            self.version, self.host
        )
    }
}

/// Runs the binary with `arg` and `stdin`, returning its JSON answer.
fn call(arg: &str, stdin: Option<&str>) -> Result<serde_json::Value, Gmp63Error> {
    let path = found()?;
    let failed = |what: String| Gmp63Error::Failed(format!("{}: {what}", path.display()));
    let mut child = Command::new(&path)
        .arg(arg)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("cannot run it: {e}")))?;
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(stdin.unwrap_or("").as_bytes())
            .map_err(|e| failed(format!("cannot write its request: {e}")))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| failed(e.to_string()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(failed(
            err.lines().last().unwrap_or("no message").to_string(),
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| failed(format!("unreadable answer: {e}")))
}

/// How the binary was built (its `--info`).
pub fn info() -> Result<Info, Gmp63Error> {
    let v = call("--info", None)?;
    let text = |x: &serde_json::Value| x.as_str().unwrap_or("unknown").to_string();
    let pairs = |x: &serde_json::Value| -> Vec<(String, serde_json::Value)> {
        x.as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    };
    Ok(Info {
        version: text(&v["gmp"]),
        host: text(&v["host"]),
        kernels: pairs(&v["kernels"])
            .into_iter()
            .map(|(k, v)| (k, text(&v)))
            .collect(),
        disassembly: pairs(&v["disassembly"])
            .into_iter()
            .map(|(k, v)| {
                let found = v.as_array().map(|a| a.iter().map(text).collect());
                (k, found)
            })
            .collect(),
    })
}

/// What a job times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// The chain `x = x b mod n` (`mpz_mul` + `mpz_tdiv_r`); result `a b mod n`.
    Mul,
    /// The chain `x = x^2 mod n`; result `a^2 mod n`.
    Sqr,
    /// `mpz_powm_sec(a, e, n)`.
    PowmSec,
    /// `mpz_powm(a, e, n)`.
    Powm,
}

impl Op {
    fn wire(self) -> &'static str {
        match self {
            Op::Mul => "mul",
            Op::Sqr => "sqr",
            Op::PowmSec => "powm_sec",
            Op::Powm => "powm",
        }
    }
}

/// One job: an operation on inputs, and the answer it must give (big-endian bytes,
/// leading zeros allowed) before its time is believed.
#[derive(Clone, Debug)]
pub struct Job {
    /// The operation.
    pub op: Op,
    /// Modulus, operands and exponent.
    pub inputs: Inputs,
    /// The expected result, from an independent computation (num-bigint, montmul).
    pub expected: Vec<u8>,
}

fn hex(bytes: &[u8]) -> String {
    BigUint::from_bytes_be(bytes).to_str_radix(16)
}

/// Times `jobs` in one run of the binary (their rounds interleaved there), after
/// checking each result against its `expected`; the median ns per operation, in order.
/// [`Gmp63Error::Absent`] where the binary is not built, [`Gmp63Error::Failed`] where
/// it fails or disagrees.
pub fn time(jobs: &[Job], rounds: usize, batch: Duration) -> Result<Vec<f64>, Gmp63Error> {
    let request = serde_json::json!({
        "rounds": rounds,
        "batch_ms": batch.as_millis().max(1) as u64,
        "jobs": jobs.iter().map(|j| serde_json::json!({
            "op": j.op.wire(),
            "n": hex(&j.inputs.n),
            "a": hex(&j.inputs.a),
            "b": hex(&j.inputs.b),
            "e": hex(&j.inputs.e),
        })).collect::<Vec<_>>(),
    });
    let v = call("--json", Some(&request.to_string()))?;
    let answers = v["jobs"].as_array().cloned().unwrap_or_default();
    if answers.len() != jobs.len() {
        return Err(Gmp63Error::Failed(format!(
            "GMP 6.3 answered {} jobs of {}",
            answers.len(),
            jobs.len()
        )));
    }
    jobs.iter()
        .zip(answers)
        .map(|(j, a)| {
            let result = a["result"]
                .as_str()
                .and_then(|h| BigUint::parse_bytes(h.as_bytes(), 16));
            if result != Some(BigUint::from_bytes_be(&j.expected)) {
                return Err(Gmp63Error::Failed(format!(
                    "GMP 6.3 disagrees with the expected answer of {:?} at {} bits",
                    j.op,
                    j.inputs.n.len() * 8
                )));
            }
            a["ns"]
                .as_f64()
                .filter(|ns| ns.is_finite() && *ns > 0.0)
                .ok_or_else(|| Gmp63Error::Failed("GMP 6.3 gave no time".into()))
        })
        .collect()
}

/// The name of GMP 6.3's rows, beside [`crate::gmp::Gmp`]'s `gmp` (GMP 6.2): its
/// product, square and `mpz_powm_sec`.
pub const NAME: &str = "gmp-6.3";

/// The name of GMP 6.3's `mpz_powm` row, beside GMP 6.2's `gmp:powm`.
pub const NAME_POWM: &str = "gmp-6.3:powm";

/// GMP 6.3's rows for `ops` (of `mul`, `sqr`, `exp`) on `inputs`, as `montmul bench
/// --peers` names them: `(op, name, median ns)`, `exp` giving both [`NAME`]
/// (`mpz_powm_sec`) and [`NAME_POWM`]. Every result is checked against num-bigint's
/// first.
pub fn rows(
    inputs: &Inputs,
    ops: &[&'static str],
    rounds: usize,
    batch: Duration,
) -> Result<Vec<(&'static str, &'static str, f64)>, Gmp63Error> {
    let f = BigUint::from_bytes_be;
    let (n, a, b, e) = (f(&inputs.n), f(&inputs.a), f(&inputs.b), f(&inputs.e));
    let mut jobs = Vec::new();
    let mut names = Vec::new();
    for &op in ops {
        let mut job = |o: Op, expected: BigUint, name: &'static str| {
            jobs.push(Job {
                op: o,
                inputs: inputs.clone(),
                expected: expected.to_bytes_be(),
            });
            names.push((op, name));
        };
        match op {
            "mul" => job(Op::Mul, &a * &b % &n, NAME),
            "sqr" => job(Op::Sqr, &a * &a % &n, NAME),
            "exp" => {
                let power = a.modpow(&e, &n);
                job(Op::PowmSec, power.clone(), NAME);
                job(Op::Powm, power, NAME_POWM);
            }
            _ => {}
        }
    }
    let times = time(&jobs, rounds, batch)?;
    Ok(names
        .into_iter()
        .zip(times)
        .map(|((op, name), ns)| (op, name, ns))
        .collect())
}
