//! The generated Rust, compiled with `rustc -O --edition 2021 -D warnings` and run on
//! random and edge-case inputs, checked against the num-bigint oracle. Each test builds
//! one program whose modules are the generated files, so sizes can repeat. On x86-64,
//! the assembly rustc makes of every variant is checked to hold no jump and no call.

#[path = "support/batch.rs"]
mod batch;
#[path = "support/build.rs"]
mod build;
#[path = "support/cases.rs"]
mod cases;

use std::process::Command;

use montmul_gen::{generate, Algo, Function, Lang, Spec, Word};

/// Per case: `mul(r, a, b)`, then `sqr(r, a)`.
const FUNCTIONS: [Function; 2] = [Function::Mul, Function::Sqr];

const DRIVER: &str = r#"
trait Word: Copy + Default {
    fn parse(text: &str) -> Self;
    fn hex(self) -> String;
}
impl Word for u32 {
    fn parse(text: &str) -> Self {
        u32::from_str_radix(text, 16).expect("hex word")
    }
    fn hex(self) -> String {
        format!("{self:x}")
    }
}
impl Word for u64 {
    fn parse(text: &str) -> Self {
        u64::from_str_radix(text, 16).expect("hex word")
    }
    fn hex(self) -> String {
        format!("{self:x}")
    }
}

type Mul<W, const S: usize> = fn(&mut [W; S], &[W; S], &[W; S], &[W; S], W);
type Sqr<W, const S: usize> = fn(&mut [W; S], &[W; S], &[W; S], W);

fn run<W: Word, const S: usize>(words: &[&str], mul: Mul<W, S>, sqr: Sqr<W, S>) -> String {
    let n0 = W::parse(words[0]);
    let limbs = |k: usize| -> [W; S] { core::array::from_fn(|i| W::parse(words[1 + k * S + i])) };
    let (n, a, b) = (limbs(0), limbs(1), limbs(2));
    let mut r = [W::default(); S];
    mul(&mut r, &a, &b, &n, n0);
    let mut out: Vec<String> = r.iter().map(|w| w.hex()).collect();
    sqr(&mut r, &a, &n, n0);
    out.extend(r.iter().map(|w| w.hex()));
    out.join(" ")
}
"#;

fn driver(specs: &[Spec]) -> String {
    let mut text = String::new();
    for k in 0..specs.len() {
        text.push_str(&format!("mod k{k};\n"));
    }
    text.push_str(DRIVER);
    text.push_str(
        "\nfn main() {\n    let input = std::io::read_to_string(std::io::stdin()).expect(\"stdin\");\n    \
         for line in input.lines() {\n        let words: Vec<&str> = line.split_whitespace().collect();\n        \
         let out = match words[0] {\n",
    );
    for (k, spec) in specs.iter().enumerate() {
        let word = match spec.word() {
            Word::W32 => "u32",
            Word::W64 => "u64",
        };
        text.push_str(&format!(
            "            \"{k}\" => run::<{word}, {s}>(&words[1..], k{k}::{mul}, k{k}::{sqr}),\n",
            s = spec.limbs(),
            mul = spec.function_name(Function::Mul),
            sqr = spec.function_name(Function::Sqr),
        ));
    }
    text.push_str("            other => panic!(\"no kernel {other}\"),\n        };\n        println!(\"{out}\");\n    }\n}\n");
    text
}

fn check(test: &str, specs: &[Spec]) {
    if !build::have("rustc", test) {
        return;
    }
    let dir = build::Scratch::new(test);
    for (k, spec) in specs.iter().enumerate() {
        assert_eq!(spec.lang(), Lang::Rust);
        dir.write(&format!("k{k}.rs"), &generate(spec));
    }
    dir.write("main.rs", &driver(specs));
    let program = dir.join("driver");
    build::compile(
        Command::new("rustc")
            .args(["-O", "--edition", "2021", "-D", "warnings", "-o"])
            .arg(&program)
            .arg(dir.join("main.rs")),
    );
    let (input, cases) = batch::batch_input(specs);
    let output = build::run(&program, &input);
    batch::check_batch(specs, &cases, &FUNCTIONS, &output);
}

fn spec(bits: u32, algo: Algo, word: Word, lazy: bool) -> Spec {
    Spec::new(bits, Lang::Rust, algo, word, lazy).expect("valid spec")
}

#[test]
fn every_algorithm_word_and_reduction_at_small_sizes() {
    check("rust-small", &build::variants(&[64, 192, 256], Lang::Rust));
}

#[test]
fn larger_sizes() {
    check(
        "rust-large",
        &[
            spec(521, Algo::Fios, Word::W64, false),
            spec(521, Algo::Sos, Word::W32, true),
            spec(1024, Algo::Cios, Word::W64, true),
            spec(1024, Algo::Sos, Word::W64, false),
        ],
    );
}

#[test]
fn assembly_has_no_jump_or_call() {
    let test = "rust-assembly";
    if !build::on_x86_64(test) || !build::have("rustc", test) {
        return;
    }
    let dir = build::Scratch::new(test);
    let mut lib = String::from("//! Every variant, to read the assembly.\n");
    for spec in build::variants(&[192], Lang::Rust) {
        let name = build::variant_name(&spec);
        dir.write(&format!("{name}.rs"), &generate(&spec));
        lib.push_str(&format!("/// {}\npub mod {name};\n", spec.command()));
    }
    dir.write("lib.rs", &lib);
    let assembly = dir.join("lib.s");
    build::compile(
        Command::new("rustc")
            .args([
                "-O",
                "--edition",
                "2021",
                "--crate-type",
                "lib",
                "--emit",
                "asm",
                "-o",
            ])
            .arg(&assembly)
            .arg(dir.join("lib.rs")),
    );
    let text = std::fs::read_to_string(&assembly).expect("assembly");
    assert!(
        text.contains("montmul_mul_192"),
        "the kernels are in the assembly"
    );
    build::assert_straight_line(&text);
}
