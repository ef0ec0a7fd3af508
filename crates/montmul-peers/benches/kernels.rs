//! Criterion benchmarks: every 64-bit montmul kernel's Montgomery multiplication and
//! squaring, and `auto`'s exponentiation, beside OpenSSL, GMP, num-bigint and
//! crypto-bigint on the same inputs; and the owned `Residue`'s in-place product
//! (`residue/BITS`: `mul_assign` against the raw `Modulus::mont_mul` it wraps).
//!
//! `cargo bench -p montmul-peers --bench kernels` (filter with a name: `-- mul/2048`).
//! Before anything is timed, every implementation's product and power are checked
//! against num-bigint; a disagreement stops the run.
//!
//! The kernels live in the core; the benchmark lives here, beside the peers, so that
//! the core does not depend on the peers' C libraries.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use montmul::encoding::be_bytes_to_limbs;
use montmul::lab::{self, Kernel};
use montmul::{Error, Modulus, Residue};
use montmul_peers::{Contender, Inputs};
use num_bigint::BigUint;

const SIZES: [u32; 5] = [256, 512, 1024, 2048, 4096];

/// The 64-bit kernels worth timing at every size: the bit-serial reference forms are
/// left out (they are thousands of times slower and measured by `montmul bench`).
fn kernels() -> Vec<&'static dyn Kernel<u64>> {
    lab::all::<u64>()
        .iter()
        .copied()
        .filter(|k| {
            let i = k.info();
            i.words.contains(&64) && (i.available)() && !["radix2", "mwr2mm"].contains(&i.name)
        })
        .collect()
}

fn check(inputs: &Inputs, m: &Modulus<u64>, peers: &mut [Box<dyn Contender>]) {
    let f = BigUint::from_bytes_be;
    let (n, a, b) = (f(&inputs.n), f(&inputs.a), f(&inputs.b));
    let want = montmul_peers::trim(&((&a * &b) % &n).to_bytes_be());
    let ra = Residue::from_be_bytes(m, &inputs.a).expect("a < n");
    let rb = Residue::from_be_bytes(m, &inputs.b).expect("b < n");
    let name = m.kernel().info().name;
    assert_eq!(
        montmul_peers::trim(&(&ra * &rb).to_be_bytes()),
        want,
        "montmul:{name} disagrees with num-bigint"
    );
    for p in peers {
        assert_eq!(
            montmul_peers::trim(&p.mul_result()),
            want,
            "{} disagrees",
            p.name()
        );
    }
}

fn mul_and_sqr(c: &mut Criterion) {
    for bits in SIZES {
        let inputs = Inputs::random(bits, 1);
        let mut peers = montmul_peers::all(&inputs);
        let mut group = c.benchmark_group(format!("mul/{bits}"));
        group.throughput(Throughput::Elements(1));
        for k in kernels() {
            let limbs = be_bytes_to_limbs(&inputs.n);
            let m = match Modulus::with_kernel(&limbs, k, k.info().reductions[0]) {
                Ok(m) => m,
                // A kernel made for some sizes only (`gen-cios`, `mulx-cios`): no row here.
                Err(Error::UnsupportedSize { .. }) => continue,
                Err(e) => panic!("{}: {e}", k.info().name),
            };
            check(&inputs, &m, &mut peers);
            let x = Residue::from_be_bytes(&m, &inputs.a).expect("a < n");
            let y = Residue::from_be_bytes(&m, &inputs.b).expect("b < n");
            let mut out = vec![0u64; m.limbs()];
            let name = k.info().name;
            group.bench_function(BenchmarkId::new("montmul", name), |bench| {
                bench.iter(|| {
                    m.mont_mul(
                        std::hint::black_box(x.montgomery_limbs()),
                        y.montgomery_limbs(),
                        &mut out,
                    )
                })
            });
            group.bench_function(BenchmarkId::new("montmul-sqr", name), |bench| {
                bench.iter(|| m.mont_sqr(std::hint::black_box(x.montgomery_limbs()), &mut out))
            });
        }
        for p in peers.iter_mut() {
            let name = p.name();
            if p.times("mul") {
                group.bench_function(BenchmarkId::new("peer", &name), |bench| {
                    bench.iter(|| p.run_mul(1))
                });
            }
            if p.times("sqr") {
                group.bench_function(BenchmarkId::new("peer-sqr", &name), |bench| {
                    bench.iter(|| p.run_sqr(1))
                });
            }
        }
        group.finish();
    }
}

fn exp(c: &mut Criterion) {
    for bits in [1024u32, 2048] {
        let inputs = Inputs::random(bits, 1);
        let m = Modulus::<u64>::from_be_bytes(&inputs.n).expect("odd modulus");
        let f = BigUint::from_bytes_be;
        let want = f(&inputs.a).modpow(&f(&inputs.e), &f(&inputs.n));
        let base = Residue::from_be_bytes(&m, &inputs.a).expect("a < n");
        assert_eq!(
            f(&base.pow(&inputs.e).to_be_bytes()),
            want,
            "montmul pow disagrees"
        );
        let mut peers = montmul_peers::all(&inputs);
        let mut group = c.benchmark_group(format!("exp/{bits}"));
        group.sample_size(10);
        group.bench_function("montmul:auto", |bench| bench.iter(|| base.pow(&inputs.e)));
        for p in peers.iter_mut() {
            assert_eq!(
                f(&p.exp_result()),
                want,
                "{} disagrees on a power",
                p.name()
            );
            let name = p.name();
            group.bench_function(name, |bench| bench.iter(|| p.run_exp(1)));
        }
        group.finish();
    }
}

/// The owned residue's in-place product against the raw kernel call it wraps, on one
/// modulus (`auto`): what the residue adds (the modulus check, the half flip) is the
/// difference. Both run a chain `x = x * y`.
fn residue(c: &mut Criterion) {
    for bits in [256u32, 1024, 2048, 4096] {
        let inputs = Inputs::random(bits, 1);
        let m = Modulus::<u64>::from_be_bytes(&inputs.n).expect("odd modulus");
        let y = Residue::from_be_bytes(&m, &inputs.b).expect("b < n");
        let mut x = Residue::from_be_bytes(&m, &inputs.a).expect("a < n");
        let mut group = c.benchmark_group(format!("residue/{bits}"));
        group.throughput(Throughput::Elements(1));
        group.bench_function("mul_assign", |bench| {
            bench.iter(|| x.mul_assign(std::hint::black_box(&y)))
        });
        let (mut raw, mut tmp) = (x.montgomery_limbs().to_vec(), vec![0u64; m.limbs()]);
        let yl = y.montgomery_limbs().to_vec();
        group.bench_function("mont_mul", |bench| {
            bench.iter(|| {
                m.mont_mul(&raw, std::hint::black_box(&yl), &mut tmp);
                std::mem::swap(&mut raw, &mut tmp);
            })
        });
        group.finish();
    }
}

criterion_group!(benches, mul_and_sqr, exp, residue);
criterion_main!(benches);
