//! What a simulation runs: the [`Method`] (the program), and the platform and operand
//! size of a [`Config`], with the bounds it is checked against ([`WORDS`],
//! [`MAX_CORES`], [`MAX_REGISTERS`]).

use crate::SimError;

/// Which program runs on the cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// FIOS on one core (the seed's single-core baseline).
    SingleCore,
    /// Method-I: one iteration per core, Z passed from core to core through memory.
    MethodI,
    /// Method-II: every iteration split over all cores, T broadcast from core 0, one
    /// word shifted across each core boundary.
    MethodII,
}

impl Method {
    /// The number the command line uses (`--method 1|2`); the single core has none.
    pub fn number(self) -> Option<u32> {
        match self {
            Method::SingleCore => None,
            Method::MethodI => Some(1),
            Method::MethodII => Some(2),
        }
    }
}

/// Word sizes of the cores.
pub const WORDS: [u32; 2] = [16, 32];

/// The largest register file the model accepts (S_rf).
pub const MAX_REGISTERS: usize = 4096;

/// The most cores a platform is modelled with: at 16384 bits 512 cores took 9.8 GB
/// and 1024 more memory than a 24 GiB machine has, while the seed's platform has 4 to 8.
pub const MAX_CORES: usize = 64;

/// One platform and program: method, cores, operand size, word size, S_rf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The program.
    pub method: Method,
    /// p: the number of cores (1 for [`Method::SingleCore`]).
    pub cores: usize,
    /// n: the bit length of the modulus.
    pub bits: u32,
    /// w: 16 or 32.
    pub word: u32,
    /// S_rf: registers per core for words of X, M and Z.
    pub registers: usize,
    /// Whether the program ends by storing the result's words to the data memory. Seed
    /// 002 leaves the result in the cores' registers ("stored separately in four cores.
    /// Z can be written to the data memory or can be used by another modular
    /// multiplication", sec. 4), so its cycle counts (Fig. 6) are without these stores.
    pub write_back: bool,
}

impl Config {
    /// s = ceil(n / w).
    pub fn words(&self) -> usize {
        self.bits.div_ceil(self.word) as usize
    }

    /// Checks the parameters: w in [`WORDS`], 2 <= n <= montmul's maximum, 1 <= p <= s
    /// and p <= [`MAX_CORES`] (p = 1 exactly for the single core), S_rf <=
    /// [`MAX_REGISTERS`].
    pub fn validate(&self) -> Result<(), SimError> {
        if !WORDS.contains(&self.word) {
            return Err(SimError::param(
                "word",
                format!("core word size must be 16 or 32, not {}", self.word),
            ));
        }
        if self.bits < 2 || self.bits > montmul::MAX_BITS {
            return Err(SimError::param(
                "bits",
                format!("bit length must be in 2..={}", montmul::MAX_BITS),
            ));
        }
        if self.cores == 0 {
            return Err(SimError::param("cores", "at least one core is needed"));
        }
        if self.method == Method::SingleCore && self.cores != 1 {
            return Err(SimError::param(
                "cores",
                "the single-core program runs on 1 core",
            ));
        }
        if self.cores > MAX_CORES {
            return Err(SimError::param(
                "cores",
                format!("at most {MAX_CORES} cores are modelled, not {}", self.cores),
            ));
        }
        if self.cores > self.words() {
            return Err(SimError::param(
                "cores",
                format!(
                    "{} cores for {} words: at most one core per word",
                    self.cores,
                    self.words()
                ),
            ));
        }
        if self.registers > MAX_REGISTERS {
            return Err(SimError::param(
                "regs",
                format!("at most {MAX_REGISTERS} registers"),
            ));
        }
        Ok(())
    }
}
