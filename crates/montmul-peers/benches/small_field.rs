//! Criterion benchmark of the small-field product: `FieldModulus::<N>::mul` and
//! `square` against the raw kernel functions they call (`mulx-cios` through its
//! `Adx` token (`montmul::arch::mulx_cios_mul`), `cios-fixed` as `montmul::fixed::mul::<N>`/`sqr`) on the same
//! arrays, and against `Modulus::mont_mul`/`mont_sqr` (the slice API, kernel chosen
//! by `auto`), at 256 and 384 bits (4 and 6 limbs).
//!
//! `cargo bench -p montmul-peers --bench small_field` (add `-- --quick` for a short
//! run). Before anything is timed, every contender's product and square are checked
//! against num-bigint; a disagreement stops the run. Every contender is timed the same
//! way: one product of black-boxed operands per iteration, its result black-boxed.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use montmul::arch::{self, Adx};
use montmul::encoding::be_bytes_to_limbs;
use montmul::mpn::Portable;
use montmul::{fixed, FieldElement, FieldKernel, FieldModulus, Modulus, Reduction};
use montmul_peers::Inputs;
use num_bigint::BigUint;

/// The integer of little-endian words.
fn value(words: &[u64]) -> BigUint {
    words
        .iter()
        .rev()
        .fold(BigUint::default(), |acc, &w| (acc << 64) + w)
}

/// `x` as exactly `N` little-endian words.
fn words<const N: usize>(x: &BigUint) -> [u64; N] {
    let mut out = [0u64; N];
    for (o, d) in out.iter_mut().zip(x.iter_u64_digits()) {
        *o = d;
    }
    out
}

fn bench_size<const N: usize>(c: &mut Criterion) {
    let bits = 64 * N as u32;
    let inputs = Inputs::random(bits, 1);
    let f = BigUint::from_bytes_be;
    let (n, a, b) = (f(&inputs.n), f(&inputs.a), f(&inputs.b));
    let (ab, aa) = ((&a * &b) % &n, (&a * &a) % &n);

    let n_words = words::<N>(&n);
    let auto = FieldModulus::<N>::new(&n_words).expect("odd modulus");
    let portable =
        FieldModulus::<N>::with_kernel(&n_words, FieldKernel::CiosFixed).expect("odd modulus");
    let modulus = Modulus::<u64>::new(&be_bytes_to_limbs(&inputs.n)).expect("odd modulus");
    let n0 = auto.n0();
    // The raw kernels' operands: a R mod n and b R mod n, as the field holds them.
    let r = BigUint::from(1u32) << bits;
    let (xm, ym) = (words::<N>(&(&a * &r % &n)), words::<N>(&(&b * &r % &n)));
    let (want_mul, want_sqr) = (words::<N>(&(&ab * &r % &n)), words::<N>(&(&aa * &r % &n)));
    let cpu = Adx::new();

    // Everything agrees with num-bigint before anything is timed.
    for p in [&auto, &portable] {
        let x = FieldElement::from_be_bytes(p, &inputs.a).expect("a < n");
        let y = FieldElement::from_be_bytes(p, &inputs.b).expect("b < n");
        assert_eq!(f(&p.mul(&x, &y).to_be_bytes(p)), ab, "{:?} mul", p.kernel());
        assert_eq!(
            f(&p.square(&x).to_be_bytes(p)),
            aa,
            "{:?} square",
            p.kernel()
        );
    }
    let fixed_mul = fixed::mul::<N>(&xm, &ym, &n_words, n0, Reduction::Full);
    assert_eq!(fixed_mul, want_mul, "raw cios-fixed mul");
    let fixed_sqr = fixed::sqr::<Portable, N>(Portable, &xm, &n_words, n0, Reduction::Full);
    assert_eq!(fixed_sqr, want_sqr, "raw cios-fixed sqr");
    if let Some(cpu) = cpu {
        assert_eq!(
            arch::mulx_cios_mul(cpu, &xm, &ym, &n_words, n0),
            Some(want_mul),
            "raw mulx-cios mul"
        );
        assert_eq!(
            arch::mulx_cios_sqr(cpu, &xm, &n_words, n0),
            Some(want_sqr),
            "raw mulx-cios sqr"
        );
    } else {
        eprintln!("skipped: raw mulx-cios (this CPU lacks BMI2 or ADX)");
    }
    let mut out = vec![0u64; modulus.limbs()];
    modulus.mont_mul(&xm, &ym, &mut out);
    assert_eq!(value(&out), value(&want_mul), "Modulus::mont_mul");
    modulus.mont_sqr(&xm, &mut out);
    assert_eq!(value(&out), value(&want_sqr), "Modulus::mont_sqr");
    let engine = modulus.engine().info().name;

    let mut group = c.benchmark_group(format!("small_field/mul/{bits}"));
    group.throughput(Throughput::Elements(1));
    for p in [&auto, &portable] {
        let x = FieldElement::from_be_bytes(p, &inputs.a).expect("a < n");
        let y = FieldElement::from_be_bytes(p, &inputs.b).expect("b < n");
        group.bench_function(
            BenchmarkId::new("FieldModulus::mul", p.kernel().name()),
            |bn| bn.iter(|| black_box(p.mul(black_box(&x), black_box(&y)))),
        );
    }
    if let Some(cpu) = cpu {
        group.bench_function(BenchmarkId::new("raw", "mulx-cios"), |bn| {
            bn.iter(|| {
                black_box(arch::mulx_cios_mul(
                    cpu,
                    black_box(&xm),
                    black_box(&ym),
                    &n_words,
                    n0,
                ))
            })
        });
    }
    group.bench_function(BenchmarkId::new("raw", "cios-fixed"), |bn| {
        bn.iter(|| {
            black_box(fixed::mul::<N>(
                black_box(&xm),
                black_box(&ym),
                &n_words,
                n0,
                Reduction::Full,
            ))
        })
    });
    group.bench_function(BenchmarkId::new("Modulus::mont_mul", engine), |bn| {
        bn.iter(|| modulus.mont_mul(black_box(&xm), black_box(&ym), black_box(&mut out)))
    });
    group.finish();

    let mut group = c.benchmark_group(format!("small_field/sqr/{bits}"));
    group.throughput(Throughput::Elements(1));
    for p in [&auto, &portable] {
        let x = FieldElement::from_be_bytes(p, &inputs.a).expect("a < n");
        group.bench_function(
            BenchmarkId::new("FieldModulus::square", p.kernel().name()),
            |bn| bn.iter(|| black_box(p.square(black_box(&x)))),
        );
    }
    if let Some(cpu) = cpu {
        group.bench_function(BenchmarkId::new("raw", "mulx-cios"), |bn| {
            bn.iter(|| black_box(arch::mulx_cios_sqr(cpu, black_box(&xm), &n_words, n0)))
        });
    }
    group.bench_function(BenchmarkId::new("raw", "cios-fixed"), |bn| {
        bn.iter(|| {
            black_box(fixed::sqr::<Portable, N>(
                Portable,
                black_box(&xm),
                &n_words,
                n0,
                Reduction::Full,
            ))
        })
    });
    group.bench_function(BenchmarkId::new("Modulus::mont_sqr", engine), |bn| {
        bn.iter(|| modulus.mont_sqr(black_box(&xm), black_box(&mut out)))
    });
    group.finish();
}

fn small_field(c: &mut Criterion) {
    bench_size::<4>(c);
    bench_size::<6>(c);
}

criterion_group!(benches, small_field);
criterion_main!(benches);
