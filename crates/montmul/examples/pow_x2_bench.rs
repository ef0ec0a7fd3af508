//! Measures `lanes::pow_x2` (two exponentiations in lockstep on `amm52x2-ifma`) against
//! one `Residue::pow` and against two sequential ones, per half size: the figures of
//! `docs/PERFORMANCE.md`, "Two exponentiations in lockstep".
//!
//! `cargo run --release -p montmul --example pow_x2_bench [ROUNDS] [BITS,BITS,...]`
//!
//! With `X2_FORCED=1` in the environment the pair ladder runs at every size it covers
//! (`lanes::pow_x2_lockstep`), also where `lanes` does not pick it. `montmul bench
//! --lanes 2` times the same forms (the pair, and the two jobs one by one).
//!
//! Every round times each variant once (a batch of calls, the per-call mean), the
//! variants interleaved so that drifts of the clock hit them alike; the table gives
//! the median over the rounds. Exponents are full-length (as many bytes as the
//! modulus), random; the results are checked equal to `pow`'s first.

use std::hint::black_box;
use std::time::Instant;

use montmul_testkit::TestRng;
use rand_core::RngCore;

use montmul::lanes::{pow_x2, pow_x2_lockstep};
use montmul::{Modulus, Residue};

/// Random bytes from the test kit's seeded generator, and moduli from them.
struct Stream(TestRng);

impl Stream {
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        self.0.fill_bytes(&mut v);
        v
    }

    /// An odd modulus of exactly `bits` bits (a multiple of 8).
    fn modulus(&mut self, bits: usize) -> Modulus<u64> {
        let mut n = self.bytes(bits / 8);
        n[0] |= 0x80;
        *n.last_mut().unwrap() |= 1;
        Modulus::from_be_bytes(&n).unwrap()
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Microseconds per call of `f`, over `calls` calls.
fn time(calls: usize, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        f();
    }
    start.elapsed().as_secs_f64() * 1e6 / calls as f64
}

/// Whether the pair runs in lockstep: `forced` (the arch layer's pair ladder, at every
/// size it covers: env `X2_FORCED=1`), `picked` (where `lanes` picks it), or `no`.
fn lockstep(a: &Residue<u64>, b: &Residue<u64>) -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        use montmul::arch::x86_64::avx512ifma::x2;
        if x2::picked(a.modulus(), b.modulus()) {
            return "picked";
        }
        if forced() && x2::fits(a.modulus(), b.modulus()) {
            return "forced";
        }
    }
    let _ = (a, b);
    "no"
}

fn forced() -> bool {
    std::env::var_os("X2_FORCED").is_some()
}

/// `lanes::pow_x2`, or with `X2_FORCED` the pair ladder wherever it fits
/// (`lanes::pow_x2_lockstep`).
fn pair(a: &Residue<u64>, ea: &[u8], b: &Residue<u64>, eb: &[u8]) -> (Residue<u64>, Residue<u64>) {
    if forced() {
        if let Ok(p) = pow_x2_lockstep(a, ea, b, eb) {
            return p;
        }
    }
    pow_x2(a, ea, b, eb).unwrap()
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(11);
    let mut rng = Stream(TestRng::new(0x9e37_79b9_7f4a_7c15));
    println!(
        "IFMA: {}; {rounds} rounds, medians (us per call)",
        montmul::arch::Avx512Ifma::new().is_some()
    );
    println!(
        "| bits per half | engine | lockstep | one pow | two pows | pow_x2 | x2 / one pow | x2 / two pows |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let sizes: Vec<usize> = match std::env::args().nth(2) {
        Some(list) => list.split(',').filter_map(|b| b.parse().ok()).collect(),
        None => vec![512, 1024, 1536, 2048],
    };
    for bits in sizes {
        let (ma, mb) = (rng.modulus(bits), rng.modulus(bits));
        let a = Residue::from_be_bytes_reduced(&ma, &rng.bytes(bits / 8));
        let b = Residue::from_be_bytes_reduced(&mb, &rng.bytes(bits / 8));
        let (ea, eb) = (rng.bytes(bits / 8), rng.bytes(bits / 8));
        let (ya, yb) = pair(&a, &ea, &b, &eb);
        assert!(
            ya == a.pow(&ea) && yb == b.pow(&eb),
            "{bits} bits: results differ"
        );
        let calls = (2_000_000 / (bits * bits / 1024)).max(4);
        let (mut one, mut two, mut x2) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            one.push(time(calls, || {
                black_box(black_box(&a).pow(black_box(&ea)));
            }));
            x2.push(time(calls, || {
                black_box(pair(black_box(&a), &ea, black_box(&b), &eb));
            }));
            two.push(time(calls, || {
                black_box(black_box(&a).pow(black_box(&ea)));
                black_box(black_box(&b).pow(black_box(&eb)));
            }));
        }
        let (one, two, x2) = (median(one), median(two), median(x2));
        println!(
            "| {bits} | {} | {} | {one:.1} | {two:.1} | {x2:.1} | {:.2}x | {:.2}x |",
            ma.engine().info().name,
            lockstep(&a, &b),
            x2 / one,
            x2 / two
        );
    }
}
