//! Many kernels' cases as one text stream for a compiled driver, and the check of what
//! the driver prints. Lines in: kernel index, n0, n, a, b (hex words, low limb first).
//! Lines out: one group of result limbs per function the driver calls.

use montmul_gen::{Function, Spec};
use montmul_testkit::num_bigint::BigUint;

use crate::cases::{self, Case};

/// The words a driver reads for one case, in hex: n0, then n, a and b, low limb first.
fn input_words(spec: &Spec, case: &Case) -> String {
    let mut words = vec![cases::n0(spec, &case.n)];
    for x in [&case.n, &case.a, &case.b] {
        words.extend(cases::limbs(spec, x));
    }
    let text: Vec<String> = words.iter().map(|w| format!("{w:x}")).collect();
    text.join(" ")
}

/// Checks one output line of a driver: `results` holds one group of limbs (hex, low
/// first) per entry of `functions`. Panics with the inputs on the first mismatch.
fn check_line(spec: &Spec, case: &Case, functions: &[Function], line: &str) {
    let words: Vec<u64> = line
        .split_whitespace()
        .map(|w| {
            u64::from_str_radix(w, 16).unwrap_or_else(|e| panic!("bad output word {w:?}: {e}"))
        })
        .collect();
    let s = spec.limbs();
    assert_eq!(
        words.len(),
        s * functions.len(),
        "{}: output line {line:?}",
        spec.command()
    );
    for (group, &function) in words.chunks(s).zip(functions) {
        let got = group.iter().rev().fold(BigUint::from(0u32), |acc, &w| {
            (acc << spec.word().bits()) + w
        });
        let want = cases::expected(spec, case, function);
        assert_eq!(
            got,
            want,
            "{}: {function:?} n = {:x}, a = {:x}, b = {:x}",
            spec.command(),
            case.n,
            case.a,
            case.b
        );
    }
}

/// The cases of several kernels as one driver input: each line is the kernel's index
/// in `specs`, then [`input_words`]. Returns the text and the cases in line order.
pub fn batch_input(specs: &[Spec]) -> (String, Vec<(usize, Case)>) {
    let mut text = String::new();
    let mut all = Vec::new();
    for (k, spec) in specs.iter().enumerate() {
        for case in cases::cases(spec) {
            text.push_str(&format!("{k} {}\n", input_words(spec, &case)));
            all.push((k, case));
        }
    }
    (text, all)
}

/// Checks a driver's whole output against the cases of [`batch_input`].
pub fn check_batch(specs: &[Spec], cases: &[(usize, Case)], functions: &[Function], output: &str) {
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), cases.len(), "one output line per case");
    for ((k, case), line) in cases.iter().zip(lines) {
        check_line(&specs[*k], case, functions, line);
    }
}
