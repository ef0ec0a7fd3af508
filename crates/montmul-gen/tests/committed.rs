//! The generated kernels committed in montmul (`crates/montmul/src/generated/`, the
//! kernel `gen-cios`): each file is exactly what the generator produces today, the
//! directory holds nothing else, and the compiled functions agree with the num-bigint
//! oracle and with montmul's CIOS kernel.

#[path = "support/cases.rs"]
mod cases;

use std::path::{Path, PathBuf};

use montmul::generated::{self, *};
use montmul::lab;
use montmul::{Modulus, Reduction};
use montmul_gen::{generate, Algo, Function, Lang, Spec, Word};
use montmul_testkit::num_bigint::BigUint;

/// The directory of the committed files, in the core crate.
fn committed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../montmul/src/generated")
}

/// The request that produced a committed file: (algorithm, bits) of `generated::FILES`.
fn spec(algo: &str, bits: u32) -> Spec {
    let algo: Algo = algo.parse().expect("a generator algorithm");
    Spec::new(bits, Lang::Rust, algo, Word::W64, false).expect("valid size")
}

fn file_name(algo: &str, bits: u32) -> String {
    format!("{algo}_w64_{bits}.rs")
}

#[test]
fn committed_files_are_what_the_generator_emits() {
    let dir = committed_dir();
    for &(algo, bits) in generated::FILES {
        let spec = spec(algo, bits);
        let file = file_name(algo, bits);
        let committed = std::fs::read_to_string(dir.join(&file))
            .unwrap_or_else(|e| panic!("crates/montmul/src/generated/{file}: {e}"));
        assert!(
            committed == generate(&spec),
            "crates/montmul/src/generated/{file} is not what the generator emits; regenerate \
             it from the workspace root with\n    cargo run -p montmul-cli --release -- {} \
             --out crates/montmul/src/generated/{file}",
            spec.command().trim_start_matches("montmul ")
        );
    }
    let mut present: Vec<String> = std::fs::read_dir(&dir)
        .expect("generated directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    present.sort();
    let mut listed: Vec<String> = generated::FILES
        .iter()
        .map(|&(algo, bits)| file_name(algo, bits))
        .chain(["mod.rs".to_string()])
        .collect();
    listed.sort();
    assert_eq!(
        present, listed,
        "crates/montmul/src/generated/ holds mod.rs and exactly the files of generated::FILES"
    );
}

type Mul<const S: usize> = fn(&mut [u64; S], &[u64; S], &[u64; S], &[u64; S], u64);
type Sqr<const S: usize> = fn(&mut [u64; S], &[u64; S], &[u64; S], u64);

fn check<const S: usize>(algo: &str, bits: u32, mul: Mul<S>, sqr: Sqr<S>) {
    let spec = spec(algo, bits);
    assert_eq!(spec.limbs(), S);
    let cios = lab::by_name::<u64>("cios").expect("montmul has cios");
    let array = |x: &BigUint| -> [u64; S] { cases::limbs(&spec, x).try_into().expect("S limbs") };
    let value = |r: &[u64; S]| -> BigUint {
        r.iter()
            .rev()
            .fold(BigUint::from(0u32), |acc, &w| (acc << 64) + w)
    };
    let mut compared_with_core = 0;
    for case in cases::cases(&spec) {
        let (n, a, b) = (array(&case.n), array(&case.a), array(&case.b));
        let n0 = cases::n0(&spec, &case.n);
        let mut product = [0u64; S];
        mul(&mut product, &a, &b, &n, n0);
        let mut square = [0u64; S];
        sqr(&mut square, &a, &n, n0);
        let inputs = format!(
            "{algo} {bits} bits: n = {:x}, a = {:x}, b = {:x}",
            case.n, case.a, case.b
        );
        assert_eq!(
            value(&product),
            cases::expected(&spec, &case, Function::Mul),
            "mul {inputs}"
        );
        assert_eq!(
            value(&square),
            cases::expected(&spec, &case, Function::Sqr),
            "sqr {inputs}"
        );

        // montmul's CIOS uses R = 2^(64 s) with s the modulus' own limb count: compare
        // where that is this kernel's R.
        let m = Modulus::with_kernel(&n, cios, Reduction::Full).expect("valid modulus");
        if m.limbs() == S {
            let mut core = vec![0u64; S];
            m.mont_mul(&a, &b, &mut core);
            assert_eq!(core, product, "montmul cios, mul {inputs}");
            m.mont_sqr(&a, &mut core);
            assert_eq!(core, square, "montmul cios, sqr {inputs}");
            compared_with_core += 1;
        }
    }
    assert!(compared_with_core > 0, "no case had a full-size modulus");
}

#[test]
fn cios_256() {
    check::<4>(
        "cios",
        256,
        cios_w64_256::montmul_mul_256,
        cios_w64_256::montmul_sqr_256,
    );
}

#[test]
fn cios_384() {
    check::<6>(
        "cios",
        384,
        cios_w64_384::montmul_mul_384,
        cios_w64_384::montmul_sqr_384,
    );
}

#[test]
fn cios_512() {
    check::<8>(
        "cios",
        512,
        cios_w64_512::montmul_mul_512,
        cios_w64_512::montmul_sqr_512,
    );
}

#[test]
fn cios_1024() {
    check::<16>(
        "cios",
        1024,
        cios_w64_1024::montmul_mul_1024,
        cios_w64_1024::montmul_sqr_1024,
    );
}

#[test]
fn cios_2048() {
    check::<32>(
        "cios",
        2048,
        cios_w64_2048::montmul_mul_2048,
        cios_w64_2048::montmul_sqr_2048,
    );
}

#[test]
fn sos_256() {
    check::<4>(
        "sos",
        256,
        sos_w64_256::montmul_mul_256,
        sos_w64_256::montmul_sqr_256,
    );
}

#[test]
fn sos_384() {
    check::<6>(
        "sos",
        384,
        sos_w64_384::montmul_mul_384,
        sos_w64_384::montmul_sqr_384,
    );
}

#[test]
fn sos_512() {
    check::<8>(
        "sos",
        512,
        sos_w64_512::montmul_mul_512,
        sos_w64_512::montmul_sqr_512,
    );
}

#[test]
fn sos_1024() {
    check::<16>(
        "sos",
        1024,
        sos_w64_1024::montmul_mul_1024,
        sos_w64_1024::montmul_sqr_1024,
    );
}

#[test]
fn sos_2048() {
    check::<32>(
        "sos",
        2048,
        sos_w64_2048::montmul_mul_2048,
        sos_w64_2048::montmul_sqr_2048,
    );
}

#[test]
fn every_committed_kernel_is_tested_here() {
    let mut listed = generated::FILES.to_vec();
    listed.sort();
    let mut here = Vec::new();
    for algo in ["cios", "sos"] {
        for bits in [256, 384, 512, 1024, 2048] {
            here.push((algo, bits));
        }
    }
    here.sort();
    assert_eq!(listed, here);
}
