//! The seeds' own numbers, from the data file `crates/montmul-cli/data/seeds.json`
//! (typed in from the seed texts through `shared/seeds/TABLES.md`, each group with its
//! source: seed file, table or figure). Compiled into the binary, so that the report
//! runs anywhere; the report's tests read the same file to check that every seed
//! number shown comes from it.

use serde::Deserialize;

/// The data file's text.
pub const JSON: &str = include_str!("../../data/seeds.json");

/// Seed 000, Table 1: one row.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed000Row {
    /// Modulus size.
    pub bits: u32,
    /// The column-wise SIMD kernel on the SPE, ns.
    pub this_work_ns: f64,
    /// IBM's MPM library, ns.
    pub mpm_ns: f64,
    /// MPM unrolled, ns.
    pub unrolled_mpm_ns: f64,
}

/// Seed 000, Table 1.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed000Table1 {
    /// Seed file and table.
    pub source: String,
    /// The SPE's clock.
    pub clock_mhz: f64,
    /// The rows.
    pub rows: Vec<Seed000Row>,
}

/// Seed 000, Fig. 2's maximum.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed000Fig2 {
    /// Seed file and figure.
    pub source: String,
    /// The largest speed-up over unrolled MPM.
    pub max_speedup: f64,
    /// Where it is reached.
    pub max_at_bits: u32,
}

/// Seed 001's instruction-count table: one row of formulas in n.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed001Instr {
    /// The instruction.
    pub instruction: String,
    /// Count for classic 32-bit code.
    pub classic_32: String,
    /// Count for classic 64-bit code.
    pub classic_64: String,
    /// Count for the 2-way SIMD code.
    pub simd_2way_32: String,
}

/// A table of rows with its source.
#[derive(Deserialize, Debug, Clone)]
pub struct Sourced<R> {
    /// Seed file and table or figure.
    pub source: String,
    /// The rows.
    pub rows: Vec<R>,
}

/// Seed 001, RSA-2048 cycles: one row.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed001Rsa {
    /// The machine.
    pub platform: String,
    /// `enc` or `dec`.
    pub op: String,
    /// Classic code, cycles.
    pub classic: f64,
    /// 2-way SIMD code, cycles.
    pub simd_2way: f64,
}

/// Seed 001, RSA-2048 beside a peer: one row.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed001Peer {
    /// The machine.
    pub platform: String,
    /// `enc` or `dec`.
    pub op: String,
    /// The seed's code compared: `classic` or `2-way SIMD`.
    pub code: String,
    /// That code's cycles.
    pub cycles: f64,
    /// `OpenSSL` or `GMP`.
    pub peer: String,
    /// The peer's cycles.
    pub peer_cycles: f64,
}

/// Seed 002, Fig. 6: one point.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed002Point {
    /// Core count p.
    pub cores: usize,
    /// `single`, `I` or `II`.
    pub method: String,
    /// Cycles per multiplication.
    pub cycles: f64,
}

/// Seed 002, Fig. 6.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed002Fig6 {
    /// Seed file and figure.
    pub source: String,
    /// n.
    pub bits: u32,
    /// w.
    pub word: u32,
    /// S_rf.
    pub registers: usize,
    /// The points quoted in the text.
    pub points: Vec<Seed002Point>,
}

/// Seed 003's latency table: one row.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed003Row {
    /// `tenca-koc` or `optimized` (the simulator's names).
    pub arch: String,
    /// 2 or 4.
    pub radix: u32,
    /// n.
    pub bits: u32,
    /// Minimum latency in clocks.
    pub clocks: f64,
    /// The FPGA's maximum clock.
    pub mhz: f64,
}

/// Seed 003's latency table.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed003Latency {
    /// Seed file and table.
    pub source: String,
    /// w.
    pub word: u32,
    /// The rows.
    pub rows: Vec<Seed003Row>,
}

/// Seed 004, 1024-bit multiplication: one row.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed004Mul {
    /// montmul's kernel name for the algorithm.
    pub algo: String,
    /// The code the seed timed.
    pub code: String,
    /// Microseconds.
    pub us: f64,
}

/// Seed 004, 1024-bit multiplication.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed004MulTable {
    /// Seed file and table.
    pub source: String,
    /// The Pentium's clock.
    pub clock_mhz: f64,
    /// The operand size.
    pub bits: u32,
    /// The rows.
    pub rows: Vec<Seed004Mul>,
}

/// Seed 004, public-key timings: one row (ms).
#[derive(Deserialize, Debug, Clone)]
pub struct Seed004Pk {
    /// The code the seed timed.
    pub code: String,
    /// montmul's kernel name for the algorithm.
    pub algo: String,
    /// RSA public operation.
    pub rsa_public: f64,
    /// RSA private operation.
    pub rsa_private: f64,
    /// DSS signature.
    pub dss_sign: f64,
    /// DSS verification.
    pub dss_verify: f64,
}

/// Seed 004, public-key timings.
#[derive(Deserialize, Debug, Clone)]
pub struct Seed004PkTable {
    /// Seed file and table.
    pub source: String,
    /// The Pentium's clock.
    pub clock_mhz: f64,
    /// The rows.
    pub rows: Vec<Seed004Pk>,
}

/// Every seed number the report uses.
#[derive(Deserialize, Debug, Clone)]
pub struct Seeds {
    /// Seed 000, Table 1.
    pub seed000_table1: Seed000Table1,
    /// Seed 000, Fig. 2.
    pub seed000_fig2: Seed000Fig2,
    /// Seed 001, instruction counts.
    pub seed001_instructions: Sourced<Seed001Instr>,
    /// Seed 001, RSA-2048.
    pub seed001_rsa2048: Sourced<Seed001Rsa>,
    /// Seed 001, RSA-2048 beside OpenSSL and GMP.
    pub seed001_rsa2048_peers: Sourced<Seed001Peer>,
    /// Seed 002, Fig. 6.
    pub seed002_fig6: Seed002Fig6,
    /// Seed 003, latency table.
    pub seed003_latency: Seed003Latency,
    /// Seed 004, 1024-bit multiplication.
    pub seed004_mul: Seed004MulTable,
    /// Seed 004, RSA and DSS.
    pub seed004_pk: Seed004PkTable,
}

/// The data file, parsed.
pub fn load() -> Result<Seeds, serde_json::Error> {
    serde_json::from_str(JSON)
}
