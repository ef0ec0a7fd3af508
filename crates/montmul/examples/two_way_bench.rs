//! Measures seed 001's 2-way kernels on vector units (`two-way-sse2`, `two-way-avx2`)
//! against the portable `two-way` and scalar CIOS on 32-bit limbs, and against 64-bit
//! CIOS and `auto`: the figures of `docs/PERFORMANCE.md`, "Seed 001's 2-way on SSE2
//! and AVX2".
//!
//! `cargo run --release -p montmul --example two_way_bench [ROUNDS] [BITS,BITS,...]`
//!
//! Every round times each kernel once (a batch of products, the per-product mean), the
//! kernels interleaved; the table gives the median over the rounds, in nanoseconds per
//! product, and each one's ratio to `two-way-sse2`. Before any timing, every kernel's
//! product of the same operands is checked equal (the value, converted out of each
//! word size's Montgomery form by the oracle's rule: all are `a b R^-1 mod n` with the
//! same R, since 32 s' = 64 s for an even 32-bit limb count).

use std::hint::black_box;
use std::time::Instant;

use montmul_testkit::TestRng;
use rand_core::RngCore;

use montmul::encoding::{be_bytes_to_limbs, limbs_to_be_bytes_vartime};
use montmul::lab::by_name;
use montmul::{Limb, Modulus, Reduction};

/// Random bytes from the test kit's seeded generator.
struct Stream(TestRng);

impl Stream {
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        self.0.fill_bytes(&mut v);
        v
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One kernel on one word size, ready to time: its modulus and operands.
struct Case<L: Limb> {
    m: Modulus<L>,
    a: Vec<L>,
    b: Vec<L>,
    out: Vec<L>,
}

impl<L: Limb> Case<L> {
    fn new(kernel: &str, n: &[u8], a: &[u8], b: &[u8]) -> Option<Self> {
        let k = by_name::<L>(kernel).ok()?;
        if !(k.info().available)() {
            return None;
        }
        let m = Modulus::with_kernel(&be_bytes_to_limbs(n), k, Reduction::Full).ok()?;
        let pad = |x: &[u8]| {
            let mut v: Vec<L> = be_bytes_to_limbs(x);
            v.resize(m.limbs(), L::ZERO);
            v
        };
        Some(Case {
            a: pad(a),
            b: pad(b),
            out: vec![L::ZERO; m.limbs()],
            m,
        })
    }

    /// The product's value, big-endian (for the agreement check).
    fn product(&mut self) -> Vec<u8> {
        self.m.mont_mul(&self.a, &self.b, &mut self.out);
        limbs_to_be_bytes_vartime(&self.out)
    }

    /// Nanoseconds per product over `calls` products.
    fn time(&mut self, calls: usize) -> f64 {
        let start = Instant::now();
        for _ in 0..calls {
            self.m
                .mont_mul(black_box(&self.a), black_box(&self.b), &mut self.out);
            black_box(&self.out);
        }
        start.elapsed().as_secs_f64() * 1e9 / calls as f64
    }
}

/// A [`Case`] of either word size.
enum AnyCase {
    W32(Case<u32>),
    W64(Case<u64>),
}

impl AnyCase {
    fn product(&mut self) -> Vec<u8> {
        match self {
            AnyCase::W32(c) => c.product(),
            AnyCase::W64(c) => c.product(),
        }
    }

    fn time(&mut self, calls: usize) -> f64 {
        match self {
            AnyCase::W32(c) => c.time(calls),
            AnyCase::W64(c) => c.time(calls),
        }
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(11);
    let sizes: Vec<usize> = match std::env::args().nth(2) {
        Some(list) => list.split(',').filter_map(|b| b.parse().ok()).collect(),
        None => vec![256, 512, 1024, 2048, 4096],
    };
    let kernels: [(&str, u32); 6] = [
        ("two-way-sse2", 32),
        ("two-way-avx2", 32),
        ("two-way", 32),
        ("cios", 32),
        ("cios", 64),
        ("auto", 64),
    ];
    let mut rng = Stream(TestRng::new(0x2545_f491_4f6c_dd1d));
    println!("{rounds} rounds, medians (ns per product; ratio to two-way-sse2)");
    print!("| bits |");
    for (k, w) in kernels {
        print!(" {k}/{w} |");
    }
    println!();
    println!("|---|{}", "---|".repeat(kernels.len()));
    for bits in sizes {
        // A modulus of exactly `bits` bits (a multiple of 64), operands below it.
        let mut n = rng.bytes(bits / 8);
        n[0] |= 0x80;
        *n.last_mut().expect("bytes") |= 1;
        let mut operand = || {
            let mut x = rng.bytes(bits / 8);
            x[0] &= 0x7f;
            x
        };
        let (a, b) = (operand(), operand());
        let mut cases: Vec<(&str, u32, Option<AnyCase>)> = kernels
            .iter()
            .map(|&(k, w)| {
                let case = match w {
                    32 => Case::<u32>::new(k, &n, &a, &b).map(AnyCase::W32),
                    _ => Case::<u64>::new(k, &n, &a, &b).map(AnyCase::W64),
                };
                (k, w, case)
            })
            .collect();
        let want = cases
            .iter_mut()
            .find_map(|(_, _, c)| c.as_mut().map(AnyCase::product))
            .expect("the portable kernels always run");
        for (k, w, c) in &mut cases {
            if let Some(c) = c {
                assert_eq!(c.product(), want, "{k}/{w} at {bits} bits disagrees");
            }
        }
        let calls = (20_000_000 / (bits * bits / 64)).max(16);
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
        for _ in 0..rounds {
            for ((_, _, c), t) in cases.iter_mut().zip(&mut times) {
                if let Some(c) = c {
                    t.push(c.time(calls));
                }
            }
        }
        let medians: Vec<Option<f64>> = times
            .into_iter()
            .map(|t| (!t.is_empty()).then(|| median(t)))
            .collect();
        let base = medians[0].unwrap_or(f64::NAN);
        print!("| {bits} |");
        for m in &medians {
            match m {
                Some(ns) => print!(" {ns:.0} ({:.2}x) |", ns / base),
                None => print!(" not on this CPU |"),
            }
        }
        println!();
    }
}
