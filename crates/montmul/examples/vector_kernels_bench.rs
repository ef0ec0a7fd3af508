//! Measures the seeds' vector kernels, one family at a time, against their portable
//! form and scalar CIOS, and `auto`: the figures of `docs/PERFORMANCE.md`, "Seed 000's
//! columns on SSE2, AVX2 and AVX-512" and "Seed 001's 2-way on SSE2 and AVX2".
//!
//! - `columns` (seed 000): `columns-sse2`, `columns-avx2`, `columns-avx512` against the
//!   portable `columns` and CIOS on 16-, 32- and 64-bit words; ratios to `columns`;
//! - `two-way` (seed 001): `two-way-sse2`, `two-way-avx2` against the portable
//!   `two-way` and CIOS on 32-bit limbs, and 64-bit CIOS; ratios to `two-way-sse2`.
//!
//! `cargo run --release -p montmul --example vector_kernels_bench -- FAMILY [ROUNDS]
//! [BITS,BITS,...]` (FAMILY: `columns` or `two-way`)
//!
//! Every round times each kernel once (a batch of products, the per-product mean), the
//! kernels interleaved; the table gives the median over the rounds, in nanoseconds per
//! product, and each one's ratio to the family's first kernel. Each kernel runs under
//! its default policy (the `columns` kernels under their only one, `Lazy`: R > 4n, one
//! 16-bit limb more than `Full`). Before any timing, every kernel's product of the same
//! operands is checked against the num-bigint oracle (`a b R^-1 mod n`, with each
//! kernel's own R), and the vector forms of the family against its portable form bit
//! for bit.

use std::hint::black_box;
use std::time::Instant;

use montmul::lab::by_name;
use montmul::{Limb, Modulus};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// A family: its name, its portable kernel (the bit-for-bit reference of its vector
/// forms) and the kernels timed, the ratios' reference first.
struct Family {
    name: &'static str,
    portable: &'static str,
    kernels: &'static [(&'static str, u32)],
}

const FAMILIES: [Family; 2] = [
    Family {
        name: "columns",
        portable: "columns",
        kernels: &[
            ("columns", 16),
            ("columns-sse2", 16),
            ("columns-avx2", 16),
            ("columns-avx512", 16),
            ("cios", 16),
            ("cios", 32),
            ("cios", 64),
            ("auto", 64),
        ],
    },
    Family {
        name: "two-way",
        portable: "two-way",
        kernels: &[
            ("two-way-sse2", 32),
            ("two-way-avx2", 32),
            ("two-way", 32),
            ("cios", 32),
            ("cios", 64),
            ("auto", 64),
        ],
    },
];

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
    fn new(kernel: &str, n: &BigUint, a: &BigUint, b: &BigUint) -> Option<Self> {
        let k = by_name::<L>(kernel).ok()?;
        if !(k.info().available)() {
            return None;
        }
        let policy = k.info().reductions[0];
        let n_limbs = kit::to_limbs::<L>(n, (n.bits() as usize).div_ceil(L::BITS as usize));
        let m = Modulus::with_kernel(&n_limbs, k, policy).ok()?;
        let s = m.limbs();
        Some(Case {
            a: kit::to_limbs(a, s),
            b: kit::to_limbs(b, s),
            out: vec![L::ZERO; s],
            m,
        })
    }

    /// The product's value, its limbs as 64-bit words (for the bit-for-bit check) and
    /// the exponent of R in bits.
    fn product(&mut self) -> (BigUint, Vec<u64>, u32) {
        self.m.mont_mul(&self.a, &self.b, &mut self.out);
        (
            kit::from_limbs(&self.out),
            self.out.iter().map(|l| l.to_u64()).collect(),
            L::BITS * self.m.limbs() as u32,
        )
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

/// A [`Case`] of any word size.
enum AnyCase {
    W16(Case<u16>),
    W32(Case<u32>),
    W64(Case<u64>),
}

impl AnyCase {
    fn new(kernel: &str, word: u32, n: &BigUint, a: &BigUint, b: &BigUint) -> Option<Self> {
        match word {
            16 => Case::new(kernel, n, a, b).map(AnyCase::W16),
            32 => Case::new(kernel, n, a, b).map(AnyCase::W32),
            _ => Case::new(kernel, n, a, b).map(AnyCase::W64),
        }
    }

    fn product(&mut self) -> (BigUint, Vec<u64>, u32) {
        match self {
            AnyCase::W16(c) => c.product(),
            AnyCase::W32(c) => c.product(),
            AnyCase::W64(c) => c.product(),
        }
    }

    fn time(&mut self, calls: usize) -> f64 {
        match self {
            AnyCase::W16(c) => c.time(calls),
            AnyCase::W32(c) => c.time(calls),
            AnyCase::W64(c) => c.time(calls),
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let family = args.next().unwrap_or_default();
    let Some(family) = FAMILIES.iter().find(|f| f.name == family) else {
        let names: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
        eprintln!(
            "usage: vector_kernels_bench FAMILY [ROUNDS] [BITS,BITS,...]; FAMILY: {}",
            names.join(", ")
        );
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(11);
    let sizes: Vec<u32> = match args.next() {
        Some(list) => list.split(',').filter_map(|b| b.parse().ok()).collect(),
        None => vec![256, 512, 1024, 2048, 4096],
    };
    let kernels = family.kernels;
    let mut rng = TestRng::new(0x2545_f491_4f6c_dd1d);
    println!(
        "{rounds} rounds, medians (ns per product; ratio to {})",
        kernels[0].0
    );
    print!("| bits |");
    for (k, w) in kernels {
        print!(" {k}/{w} |");
    }
    println!();
    println!("|---|{}", "---|".repeat(kernels.len()));
    for bits in sizes {
        let n = kit::random_modulus(&mut rng, bits);
        let (a, b) = (
            kit::random_below(&mut rng, &n),
            kit::random_below(&mut rng, &n),
        );
        let mut cases: Vec<Option<AnyCase>> = kernels
            .iter()
            .map(|&(k, w)| AnyCase::new(k, w, &n, &a, &b))
            .collect();
        // The portable form's limbs, the vector forms' bit-for-bit reference.
        let portable_word = kernels.iter().find(|(k, _)| *k == family.portable);
        let reference = portable_word
            .and_then(|&(k, w)| AnyCase::new(k, w, &n, &a, &b).map(|mut c| (w, c.product().1)));
        for ((k, w), c) in kernels.iter().zip(&mut cases) {
            let Some(c) = c else { continue };
            let (got, limbs, r_bits) = c.product();
            assert_eq!(
                &got % &n,
                kit::mont_mul(&a, &b, &n, r_bits),
                "{k}/{w} at {bits} bits disagrees with the oracle"
            );
            if let Some((pw, portable)) = &reference {
                if k.starts_with(family.name) && w == pw {
                    assert_eq!(
                        &limbs, portable,
                        "{k} at {bits} bits differs from {}",
                        family.portable
                    );
                }
            }
        }
        let calls = (20_000_000 / (bits as usize * bits as usize / 64)).max(16);
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
        for _ in 0..rounds {
            for (c, t) in cases.iter_mut().zip(&mut times) {
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
