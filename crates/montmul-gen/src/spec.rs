//! [`Spec`]: what to generate (modulus size, language, algorithm, word size, reduction),
//! validated once, and the command line that asks for it.

use core::fmt;
use core::str::FromStr;

use crate::error::GenError;
pub use crate::sizes::{MAX_BITS, MIN_BITS};

/// The language of the emitted source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Rust: `pub fn` over fixed-size arrays, `u128` for double-width products.
    Rust,
    /// C99: functions over `uint64_t`/`uint32_t` arrays, `unsigned __int128` (64-bit
    /// words) or `uint64_t` (32-bit words) for double-width products.
    C,
}

impl Lang {
    /// Both languages.
    pub const ALL: [Lang; 2] = [Lang::Rust, Lang::C];

    /// The name the command line uses.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::C => "c",
        }
    }
}

/// The Montgomery algorithm the kernel unrolls (seed 004, appendix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algo {
    /// Coarsely Integrated Operand Scanning: per word of b, a multiply pass then a
    /// reduce-and-shift pass.
    Cios,
    /// Finely Integrated Operand Scanning: one pass per word of b doing both products,
    /// with one carry chain for each.
    Fios,
    /// Separated Operand Scanning: the whole product first, then the reduction; its
    /// squaring computes each cross product once.
    Sos,
}

impl Algo {
    /// Every algorithm, in the order the command line lists them.
    pub const ALL: [Algo; 3] = [Algo::Cios, Algo::Fios, Algo::Sos];

    /// The name the command line uses (the same as montmul's kernel names).
    pub fn name(self) -> &'static str {
        match self {
            Algo::Cios => "cios",
            Algo::Fios => "fios",
            Algo::Sos => "sos",
        }
    }
}

/// The machine word the kernel computes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Word {
    /// 32-bit limbs, 64-bit double-width products.
    W32,
    /// 64-bit limbs, 128-bit double-width products.
    W64,
}

impl Word {
    /// Both word sizes.
    pub const ALL: [Word; 2] = [Word::W32, Word::W64];

    /// Width in bits (`w` in the seeds).
    pub fn bits(self) -> u32 {
        match self {
            Word::W32 => 32,
            Word::W64 => 64,
        }
    }

    /// The word size of this many bits.
    pub fn from_bits(bits: u32) -> Result<Word, GenError> {
        match bits {
            32 => Ok(Word::W32),
            64 => Ok(Word::W64),
            word => Err(GenError::UnsupportedWord { word }),
        }
    }
}

macro_rules! from_str_by_name {
    ($t:ty, $err:ident) => {
        impl FromStr for $t {
            type Err = GenError;
            fn from_str(s: &str) -> Result<Self, GenError> {
                Self::ALL
                    .into_iter()
                    .find(|x| x.name() == s)
                    .ok_or_else(|| GenError::$err {
                        name: s.to_string(),
                    })
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

from_str_by_name!(Lang, UnknownLanguage);
from_str_by_name!(Algo, UnknownAlgorithm);

/// One of the two functions every generated file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Function {
    /// `montmul_mul_<B>(r, a, b, n, n0)`: r = a * b * R^-1 mod n.
    Mul,
    /// `montmul_sqr_<B>(r, a, n, n0)`: r = a * a * R^-1 mod n.
    Sqr,
}

impl Function {
    /// Both functions, in the order they are emitted.
    pub const ALL: [Function; 2] = [Function::Mul, Function::Sqr];
}

/// A validated request: which kernel to generate.
///
/// The kernel works on [`Spec::limbs`] words. With full reduction that is
/// ceil(bits / w); the lazy (subtraction-less) kernel needs R = 2^(w * limbs) > 4n, so
/// it gets ceil((bits + 2) / w) words, exactly as montmul's `Reduction::Lazy` does: a
/// `--bits 256 --lazy` kernel works for every 256-bit modulus (seed 000, sec. 3 and 5:
/// the subtraction-less variant pays an extra word for the two extra bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    bits: u32,
    lang: Lang,
    algo: Algo,
    word: Word,
    lazy: bool,
}

impl Spec {
    /// A request for a kernel for `bits`-bit moduli; fails unless
    /// `MIN_BITS <= bits <= MAX_BITS`.
    pub fn new(
        bits: u32,
        lang: Lang,
        algo: Algo,
        word: Word,
        lazy: bool,
    ) -> Result<Self, GenError> {
        if !(MIN_BITS..=MAX_BITS).contains(&bits) {
            return Err(GenError::BitsOutOfRange { bits });
        }
        Ok(Spec {
            bits,
            lang,
            algo,
            word,
            lazy,
        })
    }

    /// The modulus size in bits (`B`).
    pub fn bits(&self) -> u32 {
        self.bits
    }
    /// The output language.
    pub fn lang(&self) -> Lang {
        self.lang
    }
    /// The algorithm.
    pub fn algo(&self) -> Algo {
        self.algo
    }
    /// The word size.
    pub fn word(&self) -> Word {
        self.word
    }
    /// Whether the kernel is subtraction-less (inputs and output in [0, 2n)).
    pub fn lazy(&self) -> bool {
        self.lazy
    }

    /// Number of words s of every operand; R = 2^(w * s).
    pub fn limbs(&self) -> usize {
        let headroom = if self.lazy { 2 } else { 0 };
        (self.bits + headroom).div_ceil(self.word.bits()) as usize
    }

    /// The name of `function` in the emitted file: `montmul_mul_<B>` or `montmul_sqr_<B>`.
    pub fn function_name(&self, function: Function) -> String {
        let op = match function {
            Function::Mul => "mul",
            Function::Sqr => "sqr",
        };
        format!("montmul_{op}_{}", self.bits)
    }

    /// The canonical `montmul gen` command that asks for this kernel (every option
    /// spelled out, `--out` left off: it does not change the text).
    pub fn command(&self) -> String {
        let lazy = if self.lazy { " --lazy" } else { "" };
        format!(
            "montmul gen --bits {} --lang {} --algo {} --word {}{lazy}",
            self.bits,
            self.lang,
            self.algo,
            self.word.bits()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_and_names() {
        assert_eq!(
            Spec::new(63, Lang::C, Algo::Cios, Word::W64, false),
            Err(GenError::BitsOutOfRange { bits: 63 })
        );
        assert!(Spec::new(4097, Lang::C, Algo::Cios, Word::W64, false).is_err());
        assert_eq!(
            "go".parse::<Lang>().unwrap_err().to_string(),
            "unknown language 'go' (rust or c)"
        );
        assert_eq!(
            Word::from_bits(16),
            Err(GenError::UnsupportedWord { word: 16 })
        );
        assert_eq!("fios".parse::<Algo>(), Ok(Algo::Fios));

        let s = Spec::new(256, Lang::Rust, Algo::Sos, Word::W64, false).unwrap();
        assert_eq!(s.limbs(), 4);
        assert_eq!(s.function_name(Function::Sqr), "montmul_sqr_256");
        assert_eq!(
            s.command(),
            "montmul gen --bits 256 --lang rust --algo sos --word 64"
        );
        let lazy = Spec::new(256, Lang::C, Algo::Cios, Word::W32, true).unwrap();
        assert_eq!(lazy.limbs(), 9);
        assert!(lazy.command().ends_with("--word 32 --lazy"));
        assert_eq!(
            Spec::new(254, Lang::C, Algo::Cios, Word::W64, true)
                .unwrap()
                .limbs(),
            4
        );
        assert_eq!(
            Spec::new(521, Lang::C, Algo::Cios, Word::W64, false)
                .unwrap()
                .limbs(),
            9
        );
    }
}
