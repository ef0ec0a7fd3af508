//! Measures `amm52x8-ifma`: the 8-lane product per operation against the multiplier
//! bound d^2/4 cycles (d 52-bit digits, at 4.2 GHz) and one `amm52-ifma` product, and
//! `pow` on 8 lanes against the jobs one by one (`Residue::pow`), for every lane count
//! 1 ..= 8 (the engine's `MB8_MIN_LANES`). Variants alternate within each round;
//! medians of the rounds. The 8-lane forms as a caller meets them (words in and out,
//! the domain built per call: `lanes::mul_lanes_mb8`, `lanes::pow_lanes_mb8`) are what
//! `montmul bench --lanes` times too, against the jobs one by one.
//!
//! `cargo run --release -p montmul --example mb8 [rounds] [mul | pow | even]` (`mul`:
//! the products only; `pow`, `even`: the products, then that table only)

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
    use montmul::arch::Avx512Ifma;
    use montmul::lanes::{mul_lanes_mb8, pow_lanes, pow_lanes_mb8};
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

    /// This thread's CPU time in ns (Linux `schedstat`; its clock may lag the last
    /// scheduler tick, so only for runs of many milliseconds), or `None` elsewhere.
    fn cpu_ns() -> Option<f64> {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        s.split_whitespace().next()?.parse().ok()
    }

    /// CPU nanoseconds of one call of `f` (wall time where `cpu_ns` is missing).
    fn cpu_time(mut f: impl FnMut()) -> f64 {
        match cpu_ns() {
            Some(t0) => {
                f();
                cpu_ns().unwrap_or(t0) - t0
            }
            None => time(1, f),
        }
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
        println!("bits  d  bound(ns)  x8/op(ns)  ratio  one(ns)  one/x8op  chained x8/op(ns)");
        for bits in [512usize, 1024, 2048, 3072, 4096, 8192] {
            let ms: Vec<Modulus<u64>> = (0..LANES).map(|_| modulus(&mut rng, bits)).collect();
            let lanes: Vec<LaneModulus<'_>> = ms.iter().map(lane).collect();
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
            let (mut x8, mut one, mut chain) = (Vec::new(), Vec::new(), Vec::new());
            let mut z = x.clone();
            for _ in 0..10 * rounds + 1 {
                chain.push(
                    time(iters, || {
                        dom.amm(&z, &y, &mut out);
                        core::mem::swap(&mut z, &mut out);
                    }) / 8.0,
                );
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
            let (x8, one, chain) = (median(x8), median(one), median(chain));
            println!(
                "{bits:>5} {d:>3} {bound:>9.1} {x8:>10.1} {:>6.2} {one:>8.1} {:>8.2} {chain:>8.1}",
                x8 / bound,
                one / x8
            );
        }
        println!();
        println!("one product per lane with words in and out (domain built, digits in and");
        println!("out: what a lanes engine would do) vs 8 products one by one, ns per batch");
        println!(" bits  8-lane  8 x one  ratio");
        for bits in [512usize, 1024, 2048, 4096] {
            let (ms, a) = batch(&mut rng, bits);
            let b: Vec<Residue<u64>> = a.iter().map(|x| x.square()).collect();
            let ar: Vec<&[u64]> = a.iter().map(|x| x.montgomery_limbs()).collect();
            let br: Vec<&[u64]> = b.iter().map(|x| x.montgomery_limbs()).collect();
            let mut o1 = vec![0u64; ms[0].limbs()];
            let iters = (2_000_000 / (bits * bits / 1024)).max(5);
            let (mut x8, mut seq) = (Vec::new(), Vec::new());
            for _ in 0..10 * rounds + 1 {
                x8.push(time(iters, || {
                    black_box(mul_lanes_mb8(black_box(&a), &b).unwrap());
                }));
                seq.push(time(iters, || {
                    for ((m, x), y) in ms.iter().zip(&ar).zip(&br) {
                        m.mont_mul(black_box(x), y, &mut o1);
                    }
                }));
            }
            let (l, q) = (median(x8), median(seq));
            println!("{bits:>5} {l:>7.0} {q:>8.0} {:>6.2}", q / l);
        }
        match std::env::args().nth(2).as_deref() {
            Some("mul") => return,
            Some("even") => return break_even(&mut rng, rounds),
            Some("pow") => return full_pow(&mut rng, rounds),
            _ => {}
        }
        println!();
        full_pow(&mut rng, rounds);
        println!();
        break_even(&mut rng, rounds);
    }

    /// The full-length table of [`main`].
    fn full_pow(rng: &mut Rng, rounds: usize) {
        println!("pow, full-length exponents: 8 lanes through lanes::pow_lanes (Mb8) vs 8 x");
        println!("Residue::pow (8 timed together); median and min of the rounds, us, wall");
        println!("time and this thread's CPU time (schedstat: runs preempted on a busy machine)");
        println!(
            " bits  mb8 med   min  8 pow med    min  seq/mb8 (med) | cpu: mb8  8 pow  seq/mb8"
        );
        for bits in [1024usize, 2048, 4096] {
            let (_, bases) = batch(rng, bits);
            let exps: Vec<Vec<u8>> = (0..LANES).map(|_| rng.bytes(bits / 8)).collect();
            let refs: Vec<&[u8]> = exps.iter().map(|e| e.as_slice()).collect();
            let (mut mb, mut seq, mut mbc, mut seqc) = (vec![], vec![], vec![], vec![]);
            let mut lanes = || {
                black_box(pow_lanes(black_box(&bases), &refs).unwrap());
            };
            let mut one_by_one = || {
                for (x, e) in bases.iter().zip(&exps) {
                    black_box(x.pow(black_box(e)));
                }
            };
            for _ in 0..rounds {
                mb.push(time(1, &mut lanes) / 1000.0);
                seq.push(time(1, &mut one_by_one) / 1000.0);
                mbc.push(cpu_time(&mut lanes) / 1000.0);
                seqc.push(cpu_time(&mut one_by_one) / 1000.0);
            }
            let min = |v: &[f64]| v.iter().copied().fold(f64::MAX, f64::min);
            let (mbl, sl) = (min(&mb), min(&seq));
            let (mbm, sm) = (median(mb), median(seq));
            let (mbc, seqc) = (median(mbc), median(seqc));
            println!(
                "{bits:>5} {mbm:>8.0} {mbl:>5.0} {sm:>10.0} {sl:>6.0} {:>8.2}      | {mbc:>8.0} {seqc:>6.0} {:>6.2}",
                sm / mbm,
                seqc / mbc
            );
        }
    }

    /// The break-even table of [`main`].
    fn break_even(rng: &mut Rng, rounds: usize) {
        println!("break-even lane counts: one amm52x8-ifma pow of 8 lanes (5 to 8 in use: the");
        println!("unused lanes are padded) and of 4 (1 to 4 in use, on 256-bit registers) / one");
        println!("Residue::pow, {SHORT}-byte exponents, medians of short alternating rounds; each");
        println!("form pays from the next whole lane count");
        println!(" bits  x8(us)  x4(us)  pow(us)  break-even x8  x4");
        for bits in [512usize, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192] {
            let (_, bases) = batch(rng, bits);
            let exps: Vec<Vec<u8>> = (0..LANES).map(|_| rng.bytes(SHORT)).collect();
            let refs: Vec<&[u8]> = exps.iter().map(|e| e.as_slice()).collect();
            let (mut mb, mut mb4, mut one) = (Vec::new(), Vec::new(), Vec::new());
            for r in 0..4 * rounds + 1 {
                mb.push(
                    time(1, || {
                        black_box(pow_lanes_mb8(black_box(&bases), &refs).unwrap());
                    }) / 1000.0,
                );
                mb4.push(
                    time(1, || {
                        black_box(pow_lanes_mb8(black_box(&bases[..4]), &refs[..4]).unwrap());
                    }) / 1000.0,
                );
                one.push(
                    time(1, || {
                        black_box(bases[r % LANES].pow(black_box(&exps[r % LANES])));
                    }) / 1000.0,
                );
            }
            let (mb, mb4, one) = (median(mb), median(mb4), median(one));
            println!(
                "{bits:>5} {mb:>7.1} {mb4:>7.1} {one:>8.1} {:>14.2} {:>4.2}",
                mb / one,
                mb4 / one
            );
        }
    }

    /// Exponent length of the break-even table: short runs, few preemptions.
    const SHORT: usize = 16;

    fn lane(m: &Modulus<u64>) -> LaneModulus<'_> {
        LaneModulus {
            n: m.n(),
            n0: m.n0(),
            r1: m.r1(),
            reduction: m.reduction(),
        }
    }

    /// Eight random moduli of `bits` bits and a random base in each.
    fn batch(rng: &mut Rng, bits: usize) -> (Vec<Modulus<u64>>, Vec<Residue<u64>>) {
        let ms: Vec<Modulus<u64>> = (0..LANES).map(|_| modulus(rng, bits)).collect();
        let bases = ms
            .iter()
            .map(|m| Residue::from_be_bytes_reduced(m, &rng.bytes(bits / 8)))
            .collect();
        (ms, bases)
    }
}
