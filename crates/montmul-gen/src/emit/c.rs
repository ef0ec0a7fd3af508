//! C syntax (C99): functions over `uint64_t`/`uint32_t` arrays, `unsigned __int128`
//! (named `montmul_u128`) or `uint64_t` double-width products.

use super::{Assign, Dialect};
use crate::{Function, Spec, Word};

/// Prints C for one word size.
pub(super) struct C {
    word: &'static str,
    wide: &'static str,
    w: u32,
}

impl C {
    pub(super) fn new(word: Word) -> Self {
        match word {
            Word::W32 => C {
                word: "uint32_t",
                wide: "uint64_t",
                w: 32,
            },
            Word::W64 => C {
                word: "uint64_t",
                wide: "montmul_u128",
                w: 64,
            },
        }
    }

    fn prototype(&self, spec: &Spec, function: Function) -> String {
        let name = spec.function_name(function);
        let word = self.word;
        let b = match function {
            Function::Mul => format!("const {word} *b, "),
            Function::Sqr => String::new(),
        };
        format!("void {name}({word} *r, const {word} *a, {b}const {word} *n, {word} n0)")
    }
}

impl Dialect for C {
    fn preamble(&self, spec: &Spec) -> String {
        let mut text = String::from("\n#include <stdint.h>\n\n");
        if self.w == 64 {
            // The GCC/Clang 128-bit type, named once per translation unit;
            // `__extension__` keeps -Wpedantic quiet about it.
            text.push_str(
                "#ifndef MONTMUL_U128\n\
                 #define MONTMUL_U128\n\
                 __extension__ typedef unsigned __int128 montmul_u128;\n\
                 #endif\n\n",
            );
        }
        for function in Function::ALL {
            text.push_str(&self.prototype(spec, function));
            text.push_str(";\n");
        }
        text
    }

    fn doc_prefix(&self) -> &'static str {
        "//"
    }

    fn signature(&self, spec: &Spec, function: Function) -> String {
        format!("{} {{", self.prototype(spec, function))
    }

    fn wide_sum(&self, product: Option<(&str, &str)>, addends: &[String]) -> String {
        // One cast makes the whole sum double-width.
        let mut terms: Vec<String> = product
            .map(|(x, y)| format!("{x} * {y}"))
            .into_iter()
            .collect();
        terms.extend(addends.iter().cloned());
        format!("({}){}", self.wide, terms.join(" + "))
    }

    fn wide_difference(&self, x: &str, subtrahends: &[String]) -> String {
        let mut text = format!("({}){x}", self.wide);
        for s in subtrahends {
            text.push_str(" - ");
            text.push_str(s);
        }
        text
    }

    fn assign(&self, name: &str, expr: &str, how: Assign, wide: bool) -> String {
        let ty = if wide { self.wide } else { self.word };
        match how {
            Assign::Declare | Assign::DeclareMut => format!("{ty} {name} = {expr};"),
            Assign::Reassign => format!("{name} = {expr};"),
        }
    }

    fn low_word(&self) -> String {
        format!("({})uv", self.word)
    }

    fn high_word(&self) -> String {
        format!("({})(uv >> {})", self.word, self.w)
    }

    fn mul_low(&self, x: &str, y: &str) -> String {
        format!("{x} * {y}")
    }

    fn negate(&self, x: &str) -> String {
        format!("({})0 - {x}", self.word)
    }
}
