//! Rust syntax: `pub fn` over fixed-size arrays, `u128` (or `u64`) double-width products.

use super::{Assign, Dialect};
use crate::{Function, Spec, Word};

/// Prints Rust for one word size.
pub(super) struct Rust {
    word: &'static str,
    wide: &'static str,
    w: u32,
}

impl Rust {
    pub(super) fn new(word: Word) -> Self {
        match word {
            Word::W32 => Rust {
                word: "u32",
                wide: "u64",
                w: 32,
            },
            Word::W64 => Rust {
                word: "u64",
                wide: "u128",
                w: 64,
            },
        }
    }

    fn widen(&self, x: &str) -> String {
        format!("({x} as {})", self.wide)
    }
}

impl Dialect for Rust {
    fn preamble(&self, _spec: &Spec) -> String {
        String::new()
    }

    fn doc_prefix(&self) -> &'static str {
        "///"
    }

    fn signature(&self, spec: &Spec, function: Function) -> String {
        let array = format!("[{}; {}]", self.word, spec.limbs());
        let name = spec.function_name(function);
        let b = match function {
            Function::Mul => format!("b: &{array}, "),
            Function::Sqr => String::new(),
        };
        format!(
            "pub fn {name}(r: &mut {array}, a: &{array}, {b}n: &{array}, n0: {}) {{",
            self.word
        )
    }

    fn wide_sum(&self, product: Option<(&str, &str)>, addends: &[String]) -> String {
        let terms: Vec<String> = product
            .map(|(x, y)| format!("{} * {}", self.widen(x), self.widen(y)))
            .into_iter()
            .chain(addends.iter().map(|a| self.widen(a)))
            .collect();
        terms.join(" + ")
    }

    fn wide_difference(&self, x: &str, subtrahends: &[String]) -> String {
        let sum = match subtrahends {
            [] => return self.widen(x),
            [only] => format!("{only} as {}", self.wide),
            _ => {
                let terms: Vec<String> = subtrahends.iter().map(|s| self.widen(s)).collect();
                terms.join(" + ")
            }
        };
        format!("{}.wrapping_sub({sum})", self.widen(x))
    }

    fn assign(&self, name: &str, expr: &str, how: Assign, _wide: bool) -> String {
        match how {
            Assign::Declare => format!("let {name} = {expr};"),
            Assign::DeclareMut => format!("let mut {name} = {expr};"),
            Assign::Reassign => format!("{name} = {expr};"),
        }
    }

    fn low_word(&self) -> String {
        format!("uv as {}", self.word)
    }

    fn high_word(&self) -> String {
        format!("(uv >> {}) as {}", self.w, self.word)
    }

    fn mul_low(&self, x: &str, y: &str) -> String {
        format!("{x}.wrapping_mul({y})")
    }

    fn negate(&self, x: &str) -> String {
        format!("{x}.wrapping_neg()")
    }
}
