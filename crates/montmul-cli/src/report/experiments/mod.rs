//! The experiments, one file per seed plus the summary: each re-runs what its seed
//! measured (through [`Timings`], the simulators of `montmul-sim`, and `montmul::lab`'s
//! kernels) and returns a [`Section`] of data; nothing here formats HTML or text.
//!
//! [`pk`] builds RSA and DSS on one kernel's residues for seeds 001 and 004, whose
//! tables compare Montgomery algorithms inside those operations; the whole library
//! operations (montmul-pk beside OpenSSL, ring and the `rsa` crate) come from
//! `montmul bench --pk`'s measurement ([`crate::bench_pk::time_op`]).
//!
//! A capability a section needs that is not built yet is a line in
//! [`Section::not_built`], never an empty or made-up number. A CPU-specific kernel this
//! CPU cannot run is left out of its section with a sentence saying why ([`left_out`]).

pub mod pk;
pub mod seed000;
pub mod seed001;
pub mod seed002;
pub mod seed003;
pub mod seed004;
pub mod summary;

use super::model::Section;
use super::seeds::Seeds;
use super::timing::Timings;
use crate::CliError;

/// How much to run: `--quick` (a few seconds, for tests), the default (at most about
/// three minutes on a loaded 2-core machine), `--full` (the seeds' complete ranges).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A few sizes, one round.
    Quick,
    /// The default ranges.
    Default,
    /// Every size the seeds plot.
    Full,
}

/// What the experiments share: the timing cache, the seeds' numbers, the mode, and the
/// CPU's measured clock.
pub struct Ctx<'a> {
    /// Every timing goes through here.
    pub timings: &'a mut Timings,
    /// The seeds' numbers.
    pub seeds: &'a Seeds,
    /// How much to run.
    pub mode: Mode,
    /// The measured clock in GHz, when this architecture has a probe.
    pub ghz: Option<f64>,
    /// IFMA instructions per cycle (lo/hi mix), when the CPU has IFMA.
    pub ifma_per_cycle: Option<f64>,
}

/// One experiment: its name for the progress bar, and the function that runs it.
pub type Experiment = (&'static str, fn(&mut Ctx<'_>) -> Result<Section, CliError>);

/// Every section, in the report's order.
pub const ALL: [Experiment; 6] = [
    ("seed 000: column-wise Montgomery", seed000::run),
    ("seed 001: 2-way interleaved Montgomery", seed001::run),
    ("seed 002: multi-core simulator", seed002::run),
    ("seed 003: systolic arrays", seed003::run),
    ("seed 004: the five algorithms", seed004::run),
    ("summary: montmul against the peers", summary::run),
];

/// `start..=end` in steps of `step`, with `end` added when the steps miss it.
pub fn range(start: u32, end: u32, step: u32) -> Vec<u32> {
    let mut v: Vec<u32> = (start..=end).step_by(step as usize).collect();
    if v.last() != Some(&end) {
        v.push(end);
    }
    v
}

/// `a / b`, for a speed-up or a ratio of times, when both exist.
pub fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// The smallest and largest of some values.
pub fn span(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values.into_iter().fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// Why the CPU-specific kernel `name` at `L` limbs cannot run here, as a sentence for
/// the section (the kernel left out, never a made-up number); `None` when it runs.
pub fn left_out<L: montmul::Limb>(name: &str) -> Option<String> {
    let feature = match name.rsplit('-').next() {
        Some("sse2") => "SSE2",
        Some("avx2") => "AVX2",
        Some("avx512") => "AVX-512F and AVX-512BW",
        _ => "the instructions it needs",
    };
    match montmul::lab::by_name::<L>(name) {
        Ok(k) if (k.info().available)() => None,
        Ok(_) => Some(format!(
            "{name} is left out: this CPU lacks {feature}, so it has no number here."
        )),
        Err(_) => Some(format!(
            "{name} is left out: montmul has it for x86-64 only ({feature}), not for this architecture."
        )),
    }
}
