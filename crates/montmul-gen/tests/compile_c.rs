//! The generated C, compiled as C99 with `cc -O2` (warnings, pedantic ones included,
//! are errors) and run on random and edge-case inputs, checked against the num-bigint
//! oracle. Each test builds one program holding several kernels, each renamed with
//! `#define` so that sizes can repeat. The driver also calls each function with `r` the
//! same array as an input. On x86-64, the assembly gcc makes of every variant is checked
//! to hold no jump and no call.

#[path = "support/batch.rs"]
mod batch;
#[path = "support/build.rs"]
mod build;
#[path = "support/cases.rs"]
mod cases;

use std::process::Command;

use montmul_gen::{generate, Algo, Function, Lang, Spec, Word};

/// Per case: `mul(r, a, b)`, `sqr(r = a)` in place, `mul(r = a, b)` in place.
const FUNCTIONS: [Function; 3] = [Function::Mul, Function::Sqr, Function::Mul];

fn driver(specs: &[Spec]) -> String {
    let mut text = String::from(
        "#include <inttypes.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n",
    );
    for (k, spec) in specs.iter().enumerate() {
        let mul = spec.function_name(Function::Mul);
        let sqr = spec.function_name(Function::Sqr);
        text.push_str(&format!(
            "#define {mul} k{k}_mul\n#define {sqr} k{k}_sqr\n#include \"k{k}.c\"\n#undef {mul}\n#undef {sqr}\n"
        ));
    }
    let mut words: Vec<u32> = specs.iter().map(|s| s.word().bits()).collect();
    words.sort();
    words.dedup();
    // Read and print functions only for the word sizes in use: unused static functions
    // are warnings.
    for bits in words {
        text.push_str(&format!(
            "\nstatic void read{bits}(uint{bits}_t *v, int count) {{\n\
             \x20   for (int i = 0; i < count; i++) {{\n\
             \x20       if (scanf(\"%\" SCNx{bits}, &v[i]) != 1) exit(3);\n\
             \x20   }}\n\
             }}\n\
             static void print{bits}(const uint{bits}_t *v, int count) {{\n\
             \x20   for (int i = 0; i < count; i++) printf(\" %\" PRIx{bits}, v[i]);\n\
             }}\n"
        ));
    }
    for (k, spec) in specs.iter().enumerate() {
        let (w, s) = (spec.word().bits(), spec.limbs());
        text.push_str(&format!(
            "\nstatic void run{k}(void) {{\n\
             \x20   uint{w}_t n0, n[{s}], a[{s}], b[{s}], r[{s}];\n\
             \x20   read{w}(&n0, 1); read{w}(n, {s}); read{w}(a, {s}); read{w}(b, {s});\n\
             \x20   k{k}_mul(r, a, b, n, n0); print{w}(r, {s});\n\
             \x20   memcpy(r, a, sizeof r); k{k}_sqr(r, r, n, n0); print{w}(r, {s});\n\
             \x20   memcpy(r, a, sizeof r); k{k}_mul(r, r, b, n, n0); print{w}(r, {s});\n\
             \x20   printf(\"\\n\");\n\
             }}\n"
        ));
    }
    text.push_str("\nint main(void) {\n    int k;\n    while (scanf(\"%d\", &k) == 1) {\n        switch (k) {\n");
    for k in 0..specs.len() {
        text.push_str(&format!("        case {k}: run{k}(); break;\n"));
    }
    text.push_str("        default: return 4;\n        }\n    }\n    return 0;\n}\n");
    text
}

fn check(test: &str, specs: &[Spec]) {
    if !build::have("cc", test) {
        return;
    }
    let dir = build::Scratch::new(test);
    for (k, spec) in specs.iter().enumerate() {
        assert_eq!(spec.lang(), Lang::C);
        dir.write(&format!("k{k}.c"), &generate(spec));
    }
    dir.write("driver.c", &driver(specs));
    let program = dir.join("driver");
    build::compile(
        Command::new("cc")
            .args([
                "-O2",
                "-std=c99",
                "-Wpedantic",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-o",
            ])
            .arg(&program)
            .arg(dir.join("driver.c")),
    );
    let (input, cases) = batch::batch_input(specs);
    let output = build::run(&program, &input);
    batch::check_batch(specs, &cases, &FUNCTIONS, &output);
}

fn spec(bits: u32, algo: Algo, word: Word, lazy: bool) -> Spec {
    Spec::new(bits, Lang::C, algo, word, lazy).expect("valid spec")
}

#[test]
fn every_algorithm_word_and_reduction_at_small_sizes() {
    check("c-small", &build::variants(&[64, 192, 256, 521], Lang::C));
}

#[test]
fn large_sizes() {
    // gcc -O2 needs seconds per 2048-bit kernel: one of that size, the rest at 1024.
    check(
        "c-large",
        &[
            spec(1024, Algo::Cios, Word::W64, false),
            spec(1024, Algo::Fios, Word::W64, true),
            spec(1024, Algo::Sos, Word::W64, true),
            spec(2048, Algo::Cios, Word::W64, false),
        ],
    );
}

#[test]
fn assembly_has_no_jump_or_call() {
    let test = "c-assembly";
    if !build::on_x86_64(test) || !build::have("cc", test) {
        return;
    }
    let dir = build::Scratch::new(test);
    let mut unit = String::new();
    for spec in build::variants(&[192], Lang::C) {
        let name = build::variant_name(&spec);
        dir.write(&format!("{name}.c"), &generate(&spec));
        let (mul, sqr) = (
            spec.function_name(Function::Mul),
            spec.function_name(Function::Sqr),
        );
        unit.push_str(&format!(
            "#define {mul} {name}_mul\n#define {sqr} {name}_sqr\n#include \"{name}.c\"\n#undef {mul}\n#undef {sqr}\n"
        ));
    }
    dir.write("all.c", &unit);
    let assembly = dir.join("all.s");
    build::compile(
        Command::new("cc")
            .args(["-O2", "-std=c99", "-S", "-o"])
            .arg(&assembly)
            .arg(dir.join("all.c")),
    );
    let text = std::fs::read_to_string(&assembly).expect("assembly");
    assert!(
        text.contains("cios_64_192_false_mul"),
        "the kernels are in the assembly"
    );
    build::assert_straight_line(&text);
}

#[test]
fn the_assembly_check_sees_jumps_and_calls() {
    build::assert_straight_line("k:\n\tmulq\t%rdx\n\tret\n");
    for bad in ["\tjne\t.L2\n", "\tcall\tmemcpy@PLT\n", "\tjmp\t.L3\n"] {
        let text = format!("k:\n\tmulq\t%rdx\n{bad}");
        assert!(
            std::panic::catch_unwind(|| build::assert_straight_line(&text)).is_err(),
            "{bad}"
        );
    }
    assert!(std::panic::catch_unwind(|| build::assert_straight_line("k:\n\tret\n")).is_err());
}
