//! The multi-core platform of seed 002 (Fan, Sakiyama, Verbauwhede, sec. 3-6).
//!
//! A main controller issues one very long instruction word per cycle, one instruction
//! for each of p cores ([`machine`]); a core has w-bit registers (w = 16 or 32), a carry
//! flag, the seven instructions of [`isa`] and a 4-stage pipeline; all cores share one
//! single-port data memory. [`program`] generates the code of FIOS (Alg. 1) for one
//! core and for method-II, [`method_one`] for method-I (the two schedules of sec. 4),
//! both from the words of [`code::Operands`] to a [`code::Program`], with the registers
//! of [`registers`] named alike; `schedule` packs it into bundles, and the machine runs
//! it on real operands, counting cycles, loads and stores.
//!
//! The seed leaves the code itself open; what this model assumes is stated where it is
//! decided: the pipeline timing in [`machine`], the packing in `schedule`, the
//! instruction sequence per word, the local carries and the final subtraction in
//! [`program`]. Three choices matter for the figures:
//!
//! - S_rf is the number of registers that hold words of X, M and Z, as in the seed's
//!   Table 3: k words stay in registers when S_rf >= k (the ranges of Table 3 closed
//!   below, as Fig. 6 requires); each core also has datapath registers (products, the
//!   two rows of products, carries, T, M', Y_i), which the seed's thresholds leave out.
//! - An iteration works row by row with one carry flag (see [`program`]): 2 `Mul` and 4
//!   `Add`/`Adc` per word, as the seed's N_mul = 2s^2 + s and N_add = 4s^2 + s count,
//!   plus a few additions per iteration for the rows' top words and local carries.
//!   Method-I cuts its chains into blocks, so that each iteration's low words leave
//!   early, at 5 more additions per cut ([`method_one`]).
//! - A multiplication ends with its result in the cores' registers, where seed 002
//!   leaves it ("stored separately in four cores", sec. 4);
//!   [`Config::write_back`] adds the stores of the result to the data memory.

pub mod code;
mod config;
mod emit;
pub mod isa;
pub mod machine;
pub mod method_one;
pub mod program;
pub mod registers;
mod schedule;

use montmul_testkit::num_bigint::BigUint;

pub use config::{Config, Method, MAX_CORES, MAX_REGISTERS, WORDS};

use crate::SimError;
use machine::{Machine, Stats};

/// What one simulated multiplication gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Cycles, bundles, stalls, loads, stores and instruction counts.
    pub stats: Stats,
    /// X Y R^-1 mod M, R = 2^(w s), fully reduced.
    pub product: BigUint,
    /// log2 R = w s.
    pub r_bits: u32,
}

/// Simulates one multiplication on the platform `config`: generates the program, packs
/// it, runs it on `(m, x, y)` and reads the product from the cores' registers, or from
/// the data memory when the program writes it back ([`Config::write_back`]).
///
/// `m` must be odd with exactly `config.bits` bits; `x` and `y` below `m`.
pub fn simulate(
    config: &Config,
    m: &BigUint,
    x: &BigUint,
    y: &BigUint,
) -> Result<Report, SimError> {
    simulate_blocks(config, method_one::Block::default(), m, x, y)
}

/// [`simulate`], with method-I in the form `block` says: its carry chains cut every n
/// positions for [`method_one::Block::Rows`]`(n)` (see [`method_one`]; [`simulate`]
/// uses [`method_one::BLOCK`]), or the column form for [`method_one::Block::Columns`]
/// ([`method_one::generate_columns`]). Other methods ignore it.
pub fn simulate_blocks(
    config: &Config,
    block: method_one::Block,
    m: &BigUint,
    x: &BigUint,
    y: &BigUint,
) -> Result<Report, SimError> {
    config.validate()?;
    crate::check::operands_fit(config.bits, m, x, y)?;
    let (w, s) = (config.word, config.words());
    let words = OperandWords::new(config, m, x, y);
    let ops = words.operands();
    let prog = program::generate(config, &ops, block)?;
    let (bundles, in_loop) =
        schedule::pack(&prog.cores, prog.registers, &prog.in_loop, &prog.urgency)?;
    let mut machine = Machine::new(config.cores, prog.registers, w, prog.memory);
    let stats = machine.run_marked(&bundles, &in_loop)?;
    let out: Vec<u64> = match prog.result {
        Some(at) => machine.memory()[at as usize..at as usize + s + 1].to_vec(),
        None => prog
            .result_regs
            .iter()
            .map(|&(core, r)| machine.register(core, r))
            .collect(),
    };
    let product = out
        .iter()
        .rev()
        .fold(BigUint::default(), |acc, &v| (acc << w) + v);
    Ok(Report {
        stats,
        product,
        r_bits: w * s as u32,
    })
}

/// The operands of one multiplication as words of `config.word` bits, for
/// [`program::generate`].
struct OperandWords {
    x: Vec<u64>,
    y: Vec<u64>,
    m: Vec<u64>,
    m_prime: u64,
    neg_m: Vec<u64>,
    top_bit: bool,
}

impl OperandWords {
    fn new(config: &Config, m: &BigUint, x: &BigUint, y: &BigUint) -> Self {
        let (w, s) = (config.word, config.words());
        let words = |v: &BigUint, count: usize| -> Vec<u64> {
            let mask = (BigUint::from(1u32) << w) - 1u32;
            (0..count)
                .map(|j| {
                    let d = (v >> (w as usize * j)) & &mask;
                    d.iter_u64_digits().next().unwrap_or(0)
                })
                .collect()
        };
        let m_words = words(m, s);
        let r = BigUint::from(1u32) << (w as usize * s);
        let neg_m = words(&((&r << w) - m), s + 1);
        let m0 = m_words[0];
        let mask = (1u64 << w) - 1;
        // -M^-1 mod 2^w by Newton iteration (each step doubles the correct low bits).
        let mut inv = m0;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
        }
        OperandWords {
            x: words(x, s),
            y: words(y, s),
            m: m_words,
            m_prime: inv.wrapping_neg() & mask,
            neg_m,
            top_bit: config.bits == w * s as u32,
        }
    }

    fn operands(&self) -> code::Operands<'_> {
        code::Operands {
            x: &self.x,
            y: &self.y,
            m: &self.m,
            m_prime: self.m_prime,
            neg_m: &self.neg_m,
            top_bit: self.top_bit,
        }
    }
}

/// Simulates and checks the product against montmul's CIOS kernel at the same word size.
pub fn simulate_checked(
    config: &Config,
    m: &BigUint,
    x: &BigUint,
    y: &BigUint,
) -> Result<Report, SimError> {
    let report = simulate(config, m, x, y)?;
    let want = crate::check::core_product(m, x, y, report.r_bits, config.word)?;
    if report.product != want {
        return Err(SimError::Mismatch {
            model: format!("multicore {:?} on {} cores", config.method, config.cores),
        });
    }
    Ok(report)
}

#[cfg(test)]
mod trace {
    use super::*;
    use isa::Instr;

    /// Prints Fig. 6's cycles (method-I, method-II) for 1..=8 cores, and the counts on 4
    /// cores: `cargo test -p montmul-sim fig_6_numbers -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn fig_6_numbers() {
        let (m, x, y) = crate::check::random_operands(256, 1).unwrap();
        for method in [Method::MethodI, Method::MethodII] {
            let row: Vec<u64> = (1..=8)
                .map(|cores| {
                    let method = if cores == 1 {
                        Method::SingleCore
                    } else {
                        method
                    };
                    let config = Config {
                        method,
                        cores,
                        bits: 256,
                        word: 16,
                        registers: 16,
                        write_back: false,
                    };
                    simulate_checked(&config, &m, &x, &y).unwrap().stats.cycles
                })
                .collect();
            println!("{method:?} {row:?}");
            let config = Config {
                method,
                cores: 4,
                bits: 256,
                word: 16,
                registers: 16,
                write_back: false,
            };
            println!("{:?}", simulate_checked(&config, &m, &x, &y).unwrap().stats);
            if method == Method::MethodI {
                let blocks: Vec<u64> = (2..=10)
                    .map(|b| {
                        simulate_blocks(&config, method_one::Block::Rows(b), &m, &x, &y)
                            .unwrap()
                            .stats
                            .cycles
                    })
                    .collect();
                println!("blocks 2..=10 on 4 cores: {blocks:?}");
                let columns: Vec<u64> = (2..=8)
                    .map(|cores| {
                        let config = Config { cores, ..config };
                        let r = simulate_blocks(&config, method_one::Block::Columns, &m, &x, &y)
                            .unwrap();
                        let want =
                            crate::check::core_product(&m, &x, &y, r.r_bits, config.word).unwrap();
                        assert_eq!(r.product, want);
                        r.stats.cycles
                    })
                    .collect();
                println!("column form on 2..=8 cores: {columns:?}");
            }
        }
    }

    /// Prints method-I's bundles on 4 cores (Fig. 6's operands): `cargo test -p
    /// montmul-sim trace -- --ignored --nocapture` (`TRACE_P`: the number of cores,
    /// `TRACE_BLOCK`: the block size, 0 for the column form).
    #[test]
    #[ignore]
    fn method_i_trace() {
        let cores: usize = std::env::var("TRACE_P")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(4);
        let (m, x, y) = crate::check::random_operands(256, 1).unwrap();
        let config = Config {
            method: Method::MethodI,
            cores,
            bits: 256,
            word: 16,
            registers: 16,
            write_back: false,
        };
        let words = OperandWords::new(&config, &m, &x, &y);
        let ops = words.operands();
        let block = match std::env::var("TRACE_BLOCK")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            Some(0) => method_one::Block::Columns,
            Some(n) => method_one::Block::Rows(n),
            None => method_one::Block::default(),
        };
        let prog = program::generate(&config, &ops, block).unwrap();
        let (bundles, _) =
            schedule::pack(&prog.cores, prog.registers, &prog.in_loop, &prog.urgency).unwrap();
        let mut pcs = vec![0usize; cores];
        let mut idle_port = 0;
        for (cycle, b) in bundles.iter().enumerate() {
            let mut line = format!("{cycle:4} ");
            let mut port = false;
            for (c, i) in b.iter().enumerate() {
                let txt = match i {
                    Instr::Nop => "-".to_string(),
                    _ => {
                        let age = prog.urgency[c][pcs[c]];
                        pcs[c] += 1;
                        if i.memory().is_some() {
                            port = true;
                        }
                        let t = format!("{i:?}");
                        let t: String = t
                            .split_whitespace()
                            .filter(|x| {
                                !x.contains("traffic")
                                    && !x.starts_with("Transfer")
                                    && !x.starts_with("Operand")
                            })
                            .collect::<Vec<_>>()
                            .join("");
                        format!("{age}:{t}")
                    }
                };
                line += &format!("{txt:34}");
            }
            if !port {
                idle_port += 1;
                line += " .";
            }
            println!("{line} idle={idle_port}");
        }
    }
}
