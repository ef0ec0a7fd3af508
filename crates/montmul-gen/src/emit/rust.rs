//! Rust syntax: `pub fn` over fixed-size arrays, `u128` (or `u64`) double-width products.

use super::Dialect;
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

    fn body_start(&self) -> Vec<String> {
        Vec::new()
    }

    fn set_wide_sum(&self, product: Option<(&str, &str)>, addends: &[String]) -> String {
        let terms: Vec<String> = product
            .map(|(x, y)| format!("{} * {}", self.widen(x), self.widen(y)))
            .into_iter()
            .chain(addends.iter().map(|a| self.widen(a)))
            .collect();
        format!("let uv = {};", terms.join(" + "))
    }

    fn set_wide_difference(&self, x: &str, subtrahends: &[String]) -> String {
        if subtrahends.is_empty() {
            return format!("let uv = {};", self.widen(x));
        }
        let sum = match subtrahends {
            [only] => format!("{only} as {}", self.wide),
            _ => {
                let terms: Vec<String> = subtrahends.iter().map(|s| self.widen(s)).collect();
                terms.join(" + ")
            }
        };
        format!("let uv = {}.wrapping_sub({sum});", self.widen(x))
    }

    fn define(&self, name: &str, expr: &str) -> String {
        format!("let {name} = {expr};")
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
