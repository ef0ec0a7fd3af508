//! Quick timing of Montgomery multiplication and squaring per kernel and size:
//! `cargo run --release -p montmul --example speed [-- BITS...]`.
//!
//! Prints the minimum over several runs of the time per operation, in nanoseconds, for
//! random odd moduli of full width. For the comparison against other libraries see
//! `montmul bench`.

use std::hint::black_box;
use std::time::Instant;

use montmul::{kernel, Modulus, Reduction};

/// Nanoseconds per call of `f`: the minimum over 200 runs of about 50 us each, so that
/// runs interrupted by other processes on a busy machine drop out.
fn time_ns(mut f: impl FnMut()) -> f64 {
    let mut iters = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        if t.elapsed().as_micros() >= 50 {
            break;
        }
        iters *= 2;
    }
    (0..200)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            t.elapsed().as_nanos() as f64 / iters as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let bits = if args.is_empty() {
        vec![256, 512, 1024, 2048, 3072, 4096]
    } else {
        args
    };
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    println!(
        "{:>6} {:<11} {:<5} {:>10} {:>10} {:>7}",
        "bits", "kernel", "red", "mul ns", "sqr ns", "sqr/mul"
    );
    for &b in &bits {
        let s = b.div_ceil(64) as usize;
        let mut n: Vec<u64> = (0..s).map(|_| next()).collect();
        n[0] |= 1;
        n[s - 1] |= 1 << 63;
        for name in ["cios", "cios-fixed", "karatsuba", "auto"] {
            for red in [Reduction::Full, Reduction::Lazy] {
                let k = kernel::by_name::<u64>(name).expect("registered");
                let m = Modulus::with_kernel(&n, k, red).expect("valid modulus");
                let sl = m.limbs();
                let mut a: Vec<u64> = (0..sl).map(|_| next()).collect();
                let mut bb: Vec<u64> = (0..sl).map(|_| next()).collect();
                a[sl - 1] = 0;
                bb[sl - 1] = 0;
                let mut out = vec![0u64; sl];
                let mul =
                    time_ns(|| m.mont_mul(black_box(&a), black_box(&bb), black_box(&mut out)));
                let sqr = time_ns(|| m.mont_sqr(black_box(&a), black_box(&mut out)));
                println!(
                    "{b:>6} {name:<11} {:<5} {mul:>10.1} {sqr:>10.1} {:>7.2}",
                    red.name(),
                    sqr / mul
                );
            }
        }
    }
}
