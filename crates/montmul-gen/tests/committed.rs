//! The committed kernels under `generated/`: each file is exactly what the generator
//! produces today, nothing else is in the directory, and the compiled functions agree
//! with the num-bigint oracle and with montmul's CIOS kernel.

#[path = "support/cases.rs"]
mod cases;

use std::path::Path;

use montmul::{kernel, Modulus, Reduction};
use montmul_gen::kernels::{self, *};
use montmul_gen::{generate, Function};
use montmul_testkit::num_bigint::BigUint;

#[test]
fn committed_files_are_what_the_generator_emits() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("generated");
    for &(bits, file) in kernels::FILES {
        let spec = kernels::spec(bits).expect("valid size");
        let committed = std::fs::read_to_string(dir.join(file)).expect("committed file");
        assert!(
            committed == generate(&spec),
            "generated/{file} is not what the generator emits; regenerate it with\n    {} --out crates/montmul-gen/generated/{file}",
            spec.command()
        );
    }
    let mut present: Vec<String> = std::fs::read_dir(&dir)
        .expect("generated directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    present.sort();
    let mut listed: Vec<String> = kernels::FILES.iter().map(|(_, f)| f.to_string()).collect();
    listed.sort();
    assert_eq!(
        present, listed,
        "generated/ holds exactly the files kernels::FILES lists"
    );
}

type Mul<const S: usize> = fn(&mut [u64; S], &[u64; S], &[u64; S], &[u64; S], u64);
type Sqr<const S: usize> = fn(&mut [u64; S], &[u64; S], &[u64; S], u64);

fn check<const S: usize>(bits: u32, mul: Mul<S>, sqr: Sqr<S>) {
    let spec = kernels::spec(bits).expect("valid size");
    assert_eq!(spec.limbs(), S);
    let cios = kernel::by_name::<u64>("cios").expect("montmul has cios");
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
            "{bits} bits: n = {:x}, a = {:x}, b = {:x}",
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
fn kernel_256() {
    check::<4>(256, montmul_mul_256, montmul_sqr_256);
}

#[test]
fn kernel_384() {
    check::<6>(384, montmul_mul_384, montmul_sqr_384);
}

#[test]
fn kernel_512() {
    check::<8>(512, montmul_mul_512, montmul_sqr_512);
}

#[test]
fn kernel_1024() {
    check::<16>(1024, montmul_mul_1024, montmul_sqr_1024);
}

#[test]
fn kernel_2048() {
    check::<32>(2048, montmul_mul_2048, montmul_sqr_2048);
}

#[test]
fn every_committed_kernel_is_tested_here() {
    let sizes: Vec<u32> = kernels::FILES.iter().map(|&(bits, _)| bits).collect();
    assert_eq!(sizes, [256, 384, 512, 1024, 2048]);
}
