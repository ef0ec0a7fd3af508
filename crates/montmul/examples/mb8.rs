//! Measures `amm52x8-ifma`: the 8-lane product per operation against the multiplier
//! bound d^2/4 cycles (d 52-bit digits, at 4.2 GHz) and one `amm52-ifma` product, and
//! `pow` on 8 lanes against the jobs one by one (`Residue::pow`), for every lane count
//! 1 ..= 8 (the engine's `MB8_MIN_LANES`). Variants alternate within each round;
//! medians of the rounds.
//!
//! `cargo run --release -p montmul --example mb8 [rounds] [mul]` (`mul`: the products only)

#[cfg(target_arch = "x86_64")]
fn main() {
    imp::main();
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    eprintln!("mb8: SKIPPED: x86-64 only");
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use std::hint::black_box;
    use std::time::Instant;

    use montmul::arch::x86_64::avx512ifma::mb8::{LaneModulus, Lanes8, LANES};
    use montmul::arch::x86_64::avx512ifma::mb8_exp;
    use montmul::arch::Avx512Ifma;
    use montmul::{Modulus, Residue};

    /// SplitMix64.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn bytes(&mut self, len: usize) -> Vec<u8> {
            (0..len).map(|_| self.next() as u8).collect()
        }
    }

    /// A random odd modulus of `bits` bits (top bit set).
    fn modulus(rng: &mut Rng, bits: usize) -> Modulus<u64> {
        let mut b = rng.bytes(bits / 8);
        b[0] |= 0x80;
        *b.last_mut().unwrap() |= 1;
        Modulus::from_be_bytes(&b).unwrap()
    }

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    }

    /// Nanoseconds per call of `f`, over `iters` calls.
    fn time(iters: usize, mut f: impl FnMut()) -> f64 {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        t.elapsed().as_nanos() as f64 / iters as f64
    }

    pub fn main() {
        let Some(token) = Avx512Ifma::new() else {
            eprintln!("mb8: SKIPPED: no AVX-512 IFMA");
            return;
        };
        let rounds: usize = std::env::args()
            .nth(1)
            .and_then(|a| a.parse().ok())
            .unwrap_or(5);
        let mut rng = Rng(0x3b8);
        println!("8-lane product (digit domain), per operation; one amm52-ifma product (words)");
        println!("bits  d  bound(ns)  x8/op(ns)  ratio  one(ns)  one/x8op");
        for bits in [512usize, 1024, 2048, 3072, 4096, 8192] {
            let ms: Vec<Modulus<u64>> = (0..LANES).map(|_| modulus(&mut rng, bits)).collect();
            let lanes: Vec<LaneModulus<'_>> = ms
                .iter()
                .map(|m| LaneModulus {
                    n: m.n(),
                    n0: m.n0(),
                    r1: m.r1(),
                    reduction: m.reduction(),
                })
                .collect();
            let dom = Lanes8::for_pow(token, &lanes).unwrap();
            let d = dom.digits();
            // Random digits below 2^50 (below every n: top digit small enough).
            let words = 8 * d;
            let mut x: Vec<u64> = (0..words).map(|_| rng.next() >> 14).collect();
            for w in &mut x[8 * (d - 1)..] {
                *w = 0;
            }
            let y = x.clone();
            let mut out = vec![0u64; words];
            let m = &ms[0];
            let a = Residue::from_be_bytes_reduced(m, &rng.bytes(bits / 8));
            let b = Residue::from_be_bytes_reduced(m, &rng.bytes(bits / 8));
            let mut o1 = vec![0u64; m.limbs()];
            // Short rounds (about 100 us), many of them: the median skips the rounds
            // another process interrupted.
            let iters = (400_000 / (d * d)).max(5);
            let (mut x8, mut one) = (Vec::new(), Vec::new());
            for _ in 0..10 * rounds + 1 {
                x8.push(
                    time(iters, || {
                        dom.amm(black_box(&x), black_box(&y), &mut out);
                    }) / 8.0,
                );
                one.push(time(iters, || {
                    m.mont_mul(
                        black_box(a.montgomery_limbs()),
                        black_box(b.montgomery_limbs()),
                        &mut o1,
                    );
                }));
            }
            let bound = (d * d) as f64 / 4.0 / 4.2;
            let (x8, one) = (median(x8), median(one));
            println!(
                "{bits:>5} {d:>3} {bound:>9.1} {x8:>10.1} {:>6.2} {one:>8.1} {:>8.2}",
                x8 / bound,
                one / x8
            );
        }
        if std::env::args().nth(2).as_deref() == Some("mul") {
            return;
        }
        println!();
        println!("pow, full-length exponents: k lanes on amm52x8-ifma vs k Residue::pow, us");
        println!("bits  k  mb8(us)  seq(us)  seq/mb8");
        for bits in [512usize, 1024, 1536, 2048, 3072, 4096, 8192] {
            let ms: Vec<Modulus<u64>> = (0..LANES).map(|_| modulus(&mut rng, bits)).collect();
            let bases: Vec<Residue<u64>> = ms
                .iter()
                .map(|m| Residue::from_be_bytes_reduced(m, &rng.bytes(bits / 8)))
                .collect();
            let exps: Vec<Vec<u8>> = (0..LANES).map(|_| rng.bytes(bits / 8)).collect();
            let rounds = if bits >= 4096 { rounds.min(3) } else { rounds };
            let seq_one = {
                let mut v = Vec::new();
                for _ in 0..rounds {
                    v.push(time(1, || {
                        black_box(bases[0].pow(black_box(&exps[0])));
                    }));
                }
                median(v) / 1000.0
            };
            for k in [1usize, 2, 3, 4, 8] {
                let (mut mb, mut seq) = (Vec::new(), Vec::new());
                for _ in 0..rounds {
                    mb.push(time(1, || {
                        let lanes: Vec<LaneModulus<'_>> = ms[..k]
                            .iter()
                            .map(|m| LaneModulus {
                                n: m.n(),
                                n0: m.n0(),
                                r1: m.r1(),
                                reduction: m.reduction(),
                            })
                            .collect();
                        let dom = Lanes8::for_pow(token, &lanes).unwrap();
                        let b: Vec<&[u64]> =
                            bases[..k].iter().map(|x| x.montgomery_limbs()).collect();
                        let e: Vec<&[u8]> = exps[..k].iter().map(|e| e.as_slice()).collect();
                        black_box(mb8_exp::pow(&dom, &b, &e, &mut ()));
                    }));
                    if k <= 2 || bits < 4096 {
                        seq.push(time(1, || {
                            for (x, e) in bases[..k].iter().zip(&exps) {
                                black_box(x.pow(black_box(e)));
                            }
                        }));
                    }
                }
                let mb = median(mb) / 1000.0;
                // Large sizes: k sequential pows are k times one (measured above).
                let seq = if seq.is_empty() {
                    k as f64 * seq_one
                } else {
                    median(seq) / 1000.0
                };
                println!("{bits:>5} {k:>2} {mb:>8.0} {seq:>8.0} {:>8.2}", seq / mb);
            }
        }
    }
}
