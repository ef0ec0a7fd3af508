//! Systolic MWR2MM arrays (seed 003, Huang, Gaj, Kwon, El-Ghazawi).
//!
//! Both architectures compute the Multiple-Word Radix-2 Montgomery Multiplication of
//! Tenca and Koc (seed 003, Alg. 2), generalised to radix 2^k (k = 1 or 2 bits of X per
//! iteration): `Z = X * Y * 2^(-k D) mod M` with D = ceil(n / k) iterations, n the bit
//! length of M, Y, M and S split into e = ceil((n + 1) / w) words of w bits, and the
//! output in [0, 2M) (no final subtraction).
//!
//! - [`Arch::TencaKoc`] ([`tenca_koc`]): one processing element (PE) per iteration of
//!   the outer loop; the words of S stream from PE to PE, two clock cycles apart; P PEs
//!   are reused round-robin and stall when P < (e + 1) / 2.
//! - [`Arch::Optimized`] ([`optimized`]): one PE per word of S; every PE computes its
//!   word for both (radix 4: all four) values of the most significant bit(s) it does not
//!   know yet and selects one a cycle later (seed 003, Alg. 3).
//!
//! The models step a clock: each cycle every PE fires if the registers it reads hold the
//! data it needs, and the latency is the number of cycles until the last word of the
//! result is in a register. No latency formula is used anywhere in the models.

pub mod optimized;
mod pe;
pub mod tenca_koc;

use montmul_testkit::num_bigint::BigUint;

use crate::SimError;

/// Which PE array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    /// Tenca and Koc (CHES 1999): one PE per iteration, two cycles between PEs.
    TencaKoc,
    /// Huang et al. (seed 003): one PE per word, both MSB values computed, one selected.
    Optimized,
}

impl Arch {
    /// Both architectures.
    pub const ALL: [Arch; 2] = [Arch::TencaKoc, Arch::Optimized];

    /// The name the command line uses.
    pub fn name(self) -> &'static str {
        match self {
            Arch::TencaKoc => "tenca-koc",
            Arch::Optimized => "optimized",
        }
    }

    /// The architecture called `name`.
    pub fn from_name(name: &str) -> Result<Arch, SimError> {
        Arch::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| {
                SimError::param(
                    "arch",
                    format!("unknown architecture '{name}' (tenca-koc or optimized)"),
                )
            })
    }
}

/// Word sizes the models accept: the seed's w = 16 and its neighbours that montmul's
/// core also has (so every run is checked at the same word size).
pub const WORDS: [u32; 3] = [8, 16, 32];

/// The most PEs an array is modelled with, far above the count of minimum latency
/// (1025 at 16384 bits and w = 8; 65536 PEs give the same latency). The model's time
/// and memory grow with the PE count (10^8 PEs took 35 s and 6.2 GB), and `usize::MAX`
/// of them cannot be allocated at all.
pub const MAX_PES: usize = 65536;

/// One array: architecture, radix, operand size, word size and PE count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The architecture.
    pub arch: Arch,
    /// 2 (one bit of X per iteration) or 4 (two bits).
    pub radix: u32,
    /// n: the bit length of the modulus.
    pub bits: u32,
    /// w: the word size in bits, one of [`WORDS`].
    pub word: u32,
    /// Number of PEs, at most [`MAX_PES`]; `None` picks the count of minimum latency
    /// ([`Config::min_latency_pes`]).
    pub pes: Option<usize>,
}

impl Config {
    /// Checks the parameters: radix 2 or 4, w in [`WORDS`], n >= 2, and a PE count the
    /// architecture can have (1 to [`MAX_PES`] for Tenca-Koc, exactly e for the
    /// optimized array, whose PEs each own one word).
    pub fn validate(&self) -> Result<(), SimError> {
        if self.radix != 2 && self.radix != 4 {
            return Err(SimError::param(
                "radix",
                format!("radix must be 2 or 4, not {}", self.radix),
            ));
        }
        if !WORDS.contains(&self.word) {
            return Err(SimError::param(
                "word",
                format!("word size must be 8, 16 or 32, not {}", self.word),
            ));
        }
        if self.bits < 2 {
            return Err(SimError::param("bits", "a modulus needs at least 2 bits"));
        }
        if self.bits > montmul::MAX_BITS {
            return Err(SimError::param(
                "bits",
                format!("at most {} bits are supported", montmul::MAX_BITS),
            ));
        }
        match (self.arch, self.pes) {
            (_, Some(0)) => Err(SimError::param("pes", "at least one PE is needed")),
            (_, Some(p)) if p > MAX_PES => Err(SimError::param(
                "pes",
                format!("at most {MAX_PES} PEs are modelled, not {p}"),
            )),
            (Arch::Optimized, Some(p)) if p != self.words() => Err(SimError::param(
                "pes",
                format!(
                    "the optimized array has one PE per word: {} PEs for {} bits and w = {}",
                    self.words(),
                    self.bits,
                    self.word
                ),
            )),
            _ => Ok(()),
        }
    }

    /// k: bits of X per iteration (1 for radix 2, 2 for radix 4).
    pub fn digit_bits(&self) -> u32 {
        self.radix.trailing_zeros()
    }

    /// e = ceil((n + 1) / w): words of Y, M and S.
    pub fn words(&self) -> usize {
        (self.bits + 1).div_ceil(self.word) as usize
    }

    /// D = ceil(n / k): iterations of the outer loop (digits of X).
    pub fn digits(&self) -> usize {
        self.bits.div_ceil(self.digit_bits()) as usize
    }

    /// The PE count of minimum latency: for Tenca-Koc each PE is busy e + 1 cycles per
    /// iteration and a new iteration starts every 2 cycles, so ceil((e + 1) / 2) PEs
    /// (fewer when there are fewer iterations); for the optimized array, e.
    pub fn min_latency_pes(&self) -> usize {
        match self.arch {
            Arch::TencaKoc => (self.words() + 1).div_ceil(2).min(self.digits()),
            Arch::Optimized => self.words(),
        }
    }

    /// The PE count this run uses.
    pub fn pe_count(&self) -> usize {
        self.pes.unwrap_or_else(|| self.min_latency_pes())
    }
}

/// What one simulated multiplication gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// Clock cycles from the start signal until the last word of Z is in a register.
    pub cycles: u64,
    /// The number of PEs of the array.
    pub pes: usize,
    /// Z = X Y 2^(-r_bits) mod M, in [0, 2M).
    pub product: BigUint,
    /// The exponent of the Montgomery radix: k D.
    pub r_bits: u32,
}

/// Simulates one multiplication `x * y * 2^(-k D) mod m` on the array `config`.
///
/// `m` must be odd with exactly `config.bits` bits; `x` and `y` below `m`.
pub fn simulate(config: &Config, m: &BigUint, x: &BigUint, y: &BigUint) -> Result<Run, SimError> {
    config.validate()?;
    let problem = pe::Problem::new(config, m, x, y)?;
    let pes = config.pe_count();
    let (cycles, words) = match config.arch {
        Arch::TencaKoc => tenca_koc::run(&problem, pes)?,
        Arch::Optimized => optimized::run(&problem)?,
    };
    Ok(Run {
        cycles,
        pes,
        product: problem.to_integer(&words),
        r_bits: config.digit_bits() * config.digits() as u32,
    })
}

/// Simulates on `(m, x, y)` and checks the product against montmul's core at the same
/// word size (modulo M, since the array's output lies in [0, 2M)).
pub fn simulate_checked(
    config: &Config,
    m: &BigUint,
    x: &BigUint,
    y: &BigUint,
) -> Result<Run, SimError> {
    let run = simulate(config, m, x, y)?;
    let want = crate::check::core_product(m, x, y, run.r_bits, config.word)?;
    if &run.product % m != want || run.product >= (m << 1u32) {
        return Err(SimError::Mismatch {
            model: format!("systolic {} radix {}", config.arch.name(), config.radix),
        });
    }
    Ok(run)
}
