//! The report's header: what ran, where and when. Everything here is read from the
//! system or measured; what cannot be read says so (`unknown`) rather than guessing.

use std::process::Command;

use serde::Serialize;

/// The machine, the software and the run.
#[derive(Serialize, Clone, Debug)]
pub struct Header {
    /// `/proc/cpuinfo`'s model name.
    pub cpu: String,
    /// The CPU features montmul's kernels use, as detected at run time.
    pub features: Vec<String>,
    /// The clock measured by the report's probe, GHz.
    pub clock_ghz: Option<f64>,
    /// IFMA instructions per cycle measured by the probe.
    pub ifma_per_cycle: Option<f64>,
    /// Logical cores available to this process.
    pub cores: usize,
    /// `/proc/loadavg`'s 1-minute load before the measurements.
    pub load_before: Option<f64>,
    /// The same after.
    pub load_after: Option<f64>,
    /// montmul's version and git revision.
    pub montmul: String,
    /// The compiler that built this binary.
    pub rustc: String,
    /// The peers and the build behind each.
    pub peers: Vec<String>,
    /// Start of the run, UTC, RFC 3339.
    pub date: String,
    /// The command line as given.
    pub command: String,
    /// `quick`, `default` or `full`.
    pub mode: super::experiments::Mode,
    /// Seconds the measurements took.
    pub seconds: f64,
    /// Seconds per section, in order (what the run's budget went to).
    pub section_seconds: Vec<(String, f64)>,
}

/// The CPU model.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| format!("unknown ({})", std::env::consts::ARCH))
}

/// The features montmul's kernels use that this CPU has.
pub fn features() -> Vec<String> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut v = Vec::new();
        macro_rules! probe {
            ($($f:tt),*) => {$(
                if std::arch::is_x86_feature_detected!($f) {
                    v.push($f.to_string());
                }
            )*};
        }
        probe!("bmi2", "adx", "avx2", "avx512f", "avx512ifma");
        v
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec::new()
    }
}

/// The 1-minute load average.
pub fn load() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The first line a command prints, if it runs and succeeds.
fn first_line(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .next()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
}

/// montmul's version, with the git revision of the source tree when it is one.
pub fn montmul_version() -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    let rev = first_line("git", &["-C", dir, "rev-parse", "--short=12", "HEAD"]);
    let dirty = first_line(
        "git",
        &["-C", dir, "status", "--porcelain", "--untracked-files=no"],
    )
    .is_some();
    match rev {
        Some(r) => format!(
            "{} (git {r}{})",
            env!("CARGO_PKG_VERSION"),
            if dirty {
                ", with uncommitted changes"
            } else {
                ""
            }
        ),
        None => format!("{} (git revision unknown)", env!("CARGO_PKG_VERSION")),
    }
}

/// The compiler that built this binary (from the build script).
pub fn rustc_version() -> String {
    env!("MONTMUL_RUSTC_VERSION").to_string()
}

/// The Debian package version of `pkg`, if installed.
fn deb_version(pkg: &str) -> String {
    first_line("dpkg-query", &["-W", "-f=${Version}", pkg]).unwrap_or_else(|| "unknown".into())
}

/// The peers and the build behind each number, one line each, named as the tables
/// name them: the system GMP 6.2 (generic), GMP 6.3 built for this CPU (what its
/// build found: the host, the mpn kernels, mulx/adx in their disassembly) or how to
/// build it, OpenSSL 3.0, OpenSSL 4.0 (Python's `cryptography`) or what is missing.
pub fn peers() -> Vec<String> {
    use montmul_peers::gmp63;
    let gmp63_line = match gmp63::info() {
        Ok(info) => format!(
            "{}: {} (binary {}; timed in a subprocess){}",
            gmp63::NAME,
            info.summary(),
            gmp63::binary().display(),
            if info.uses_mulx() {
                ""
            } else {
                "; WARNING: the disassembly check did not find mulx in every kernel"
            }
        ),
        Err(e) => format!("{}: {e}", gmp63::NAME),
    };
    let openssl4_line = match crate::bench_pk::openssl4_version() {
        Ok(v) => format!(
            "openssl-4.0: {v}, as Python's cryptography wheel bundles it, timed in a subprocess \
             (benches/openssl4.py), in the RSA/DSS library rows only"
        ),
        Err(why) => format!("openssl-4.0: {why}"),
    };
    vec![
        format!(
            "gmp: the system libgmp 6.2 (Debian package libgmp10 {}, its generic x86-64 build, without the \
             mulx/adx kernels), in process",
            deb_version("libgmp10")
        ),
        gmp63_line,
        format!(
            "openssl: the system libssl 3.0 (Debian package libssl3 {}) through openssl-sys, in process",
            deb_version("libssl3")
        ),
        openssl4_line,
        "num-bigint 0.4.8 and crypto-bigint 0.7.10 (Rust crates, Cargo.lock)".into(),
    ]
}
