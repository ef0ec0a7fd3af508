//! What every emitted file must look like, checked on the text for every language,
//! algorithm, word size and reduction from 64 to 4096 bits: the header names the
//! command and version; the function bodies are straight-line (no branch or loop
//! keyword, no short-circuit operator, no conditional expression); every array index is
//! a constant; the result is stored only after the last read of a and b (so C's r may
//! alias them); and C and Rust print the same statements, one per operation.

use std::sync::OnceLock;

use montmul_gen::{generate, Algo, Function, Lang, Spec, Word};

const SIZES: [u32; 5] = [64, 100, 256, 521, 4096];

/// Every spec with its source, generated once for all the tests of this file.
fn every_source() -> &'static [(Spec, String)] {
    static SOURCES: OnceLock<Vec<(Spec, String)>> = OnceLock::new();
    SOURCES.get_or_init(|| {
        every_spec()
            .into_iter()
            .map(|s| (s, generate(&s)))
            .collect()
    })
}

fn every_spec() -> Vec<Spec> {
    let mut out = Vec::new();
    for bits in SIZES {
        for lang in Lang::ALL {
            for algo in Algo::ALL {
                for word in Word::ALL {
                    for lazy in [false, true] {
                        out.push(Spec::new(bits, lang, algo, word, lazy).expect("valid spec"));
                    }
                }
            }
        }
    }
    out
}

/// The statements of each function body (comment lines dropped), by function.
fn bodies(source: &str) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in source.lines() {
        if line.ends_with(") {") && (line.starts_with("pub fn ") || line.starts_with("void ")) {
            current = Some(Vec::new());
        } else if line == "}" {
            out.extend(current.take());
        } else if let Some(body) = current.as_mut() {
            let line = line.trim();
            if !line.starts_with("//") {
                body.push(line);
            }
        }
    }
    out
}

#[test]
fn header_names_the_command_and_version() {
    for (spec, source) in every_source() {
        let head: String = source.lines().take(12).collect::<Vec<_>>().join("\n");
        assert!(
            head.contains(&format!("//     {}\n", spec.command())),
            "{head}"
        );
        assert!(
            head.contains(&format!("montmul {}", env!("CARGO_PKG_VERSION"))),
            "{head}"
        );
        for function in Function::ALL {
            assert!(source.contains(&format!("{}(", spec.function_name(function))));
        }
    }
}

#[test]
fn bodies_are_straight_line_with_constant_indices() {
    const FORBIDDEN: [&str; 11] = [
        "if", "else", "for", "while", "loop", "match", "switch", "goto", "return", "break",
        "continue",
    ];
    for (spec, source) in every_source() {
        let bodies = bodies(source);
        assert_eq!(bodies.len(), 2, "{}", spec.command());
        for line in bodies.iter().flatten() {
            for word in line.split(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
                assert!(
                    !FORBIDDEN.contains(&word),
                    "{}: `{word}` in {line}",
                    spec.command()
                );
            }
            for token in ["&&", "||", "?", "==", "!=", "<=", ">=", " < ", " > "] {
                assert!(
                    !line.contains(token),
                    "{}: `{token}` in {line}",
                    spec.command()
                );
            }
            for (i, _) in line.match_indices('[') {
                let index: String = line[i + 1..].chars().take_while(|c| *c != ']').collect();
                assert!(
                    index.chars().all(|c| c.is_ascii_digit()),
                    "{}: index [{index}] in {line}",
                    spec.command()
                );
            }
        }
    }
}

#[test]
fn result_is_stored_after_the_last_read_of_the_inputs() {
    for (spec, source) in every_source() {
        for body in bodies(source) {
            let first_store = body
                .iter()
                .position(|l| l.starts_with("r["))
                .expect("stores");
            let last_read = body
                .iter()
                .rposition(|l| l.contains("a[") || l.contains("b["))
                .expect("reads");
            assert!(last_read < first_store, "{}", spec.command());
            let stores = body.iter().filter(|l| l.starts_with("r[")).count();
            assert_eq!(
                stores,
                spec.limbs(),
                "{}: one store per limb",
                spec.command()
            );
        }
    }
}

#[test]
fn c_and_rust_print_the_same_operations() {
    let sources = every_source();
    for (spec, rust_source) in sources.iter().filter(|(s, _)| s.lang() == Lang::Rust) {
        let (_, c_source) = sources
            .iter()
            .find(|(c, _)| {
                c.lang() == Lang::C
                    && (c.bits(), c.algo(), c.word(), c.lazy())
                        == (spec.bits(), spec.algo(), spec.word(), spec.lazy())
            })
            .expect("the same kernel in C");
        let (rust, c) = (bodies(rust_source), bodies(c_source));
        for (r, c) in rust.iter().zip(&c) {
            assert_eq!(r.len(), c.len(), "{}", spec.command());
            // The same variables are assigned in the same order.
            let targets = |line: &str| -> Vec<String> {
                line.split(';')
                    .filter_map(|s| {
                        s.split_once(" = ")
                            .map(|(l, _)| l.split_whitespace().last().unwrap_or("").to_string())
                    })
                    .collect()
            };
            for (rl, cl) in r.iter().zip(c) {
                assert_eq!(targets(rl), targets(cl), "{}:\n{rl}\n{cl}", spec.command());
            }
        }
    }
}

#[test]
fn sos_squares_with_fewer_products_than_it_multiplies() {
    // Seed 004: separating the product lets squaring compute each a[i] * a[j] once.
    for word in Word::ALL {
        let spec = Spec::new(1024, Lang::C, Algo::Sos, word, false).expect("valid");
        let source = generate(&spec);
        let bodies = bodies(&source);
        let products = |body: &Vec<&str>| body.iter().filter(|l| l.contains(" * ")).count();
        let s = spec.limbs();
        // Multiply: s^2 products and s^2 reduction products (plus s quotients m).
        assert_eq!(products(&bodies[0]), 2 * s * s + s);
        // Square: s (s + 1) / 2 products instead of s^2.
        assert_eq!(products(&bodies[1]), s * (s + 1) / 2 + s * s + s);
    }
}
