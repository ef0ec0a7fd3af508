//! `montmul tune`: measures on this machine the size thresholds of the `auto` kernel and
//! writes the table `crates/montmul/src/thresholds.rs` (after GMP's `tune/tuneup.c`).
//!
//! Four thresholds, each the smallest limb count from which the faster method keeps
//! winning at every larger size tried:
//!
//! - `karatsuba_mul_base`: one level of Karatsuba over schoolbook halves beats the
//!   schoolbook product (the recursion's base case);
//! - `karatsuba_sqr_base`: the same for squaring;
//! - `karatsuba_from`: the Karatsuba + REDC kernel (with the two bases above) beats
//!   `cios-fixed` on a multiplication plus a squaring, with full reduction;
//! - `ifma_from`: on a CPU with AVX-512 IFMA, `amm52-ifma` beats what `auto` picks
//!   without it (the three thresholds above) on a multiplication plus a squaring.
//!
//! and two lists: `generated`, the limb counts with generated code (`gen-cios`) where
//! that code beats the kernel the thresholds above pick, on a multiplication plus a
//! squaring; then `mulx_cios`, on a CPU with BMI2 and ADX the limb counts where the
//! unrolled `mulx-cios` code beats what `auto` picks without it (the thresholds and
//! `generated`), measured the same way.
//!
//! Each time is the minimum over many short runs, so runs interrupted by other work on
//! a busy machine drop out. The table is printed, or written with `--out FILE` or
//! `--write` (the source checkout's own table; rebuild to use it).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use montmul::arch::{Adx, Avx512Ifma, Mulx};
use montmul::lab::algo::karatsuba;
use montmul::lab::{self, Thresholds};
use montmul::mpn::Portable;
use montmul::{Modulus, Reduction};

use crate::output::{self, AtomicFile};
use crate::CliError;

/// Arguments of `montmul tune`.
#[derive(clap::Args)]
pub struct Args {
    /// Write the table to FILE instead of printing it.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Rewrite the table of the source checkout this binary was built from.
    #[arg(long, conflicts_with = "out")]
    write: bool,
    /// Largest limb count to try (64-bit limbs).
    #[arg(long, default_value_t = 96, value_parser = clap::value_parser!(u64).range(8..=256))]
    max_limbs: u64,
}

/// The checkout's table, relative to this crate.
const TABLE_IN_CHECKOUT: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../montmul/src/thresholds.rs");

/// Nanoseconds per call of `f`: the minimum over 60 runs of at least 50 us each.
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
    (0..60)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            t.elapsed().as_nanos() as f64 / iters as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// xorshift64: reproducible operands for timing (not for keys).
struct Words(u64);

impl Words {
    fn take(&mut self, len: usize) -> Vec<u64> {
        (0..len)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                self.0
            })
            .collect()
    }

    /// A random odd modulus of exactly `limbs` full limbs.
    fn modulus(&mut self, limbs: usize) -> Vec<u64> {
        let mut n = self.take(limbs);
        n[0] |= 1;
        n[limbs - 1] |= 1 << 63;
        n
    }
}

/// The smallest size from which `wins` holds at every size tried; `None` if it never
/// does at the largest.
fn crossover(results: &[(usize, bool)]) -> Option<usize> {
    let mut from = None;
    for &(size, wins) in results.iter().rev() {
        if !wins {
            break;
        }
        from = Some(size);
    }
    from
}

/// The rows the Karatsuba kernel runs on here: `mulx` where the CPU has BMI2 and ADX.
#[derive(Clone, Copy)]
enum Rows {
    Portable,
    Mulx(Mulx),
}

impl Rows {
    fn here() -> Self {
        match Adx::new() {
            Some(adx) => Rows::Mulx(Mulx::new(adx)),
            None => Rows::Portable,
        }
    }

    fn product(self, r: &mut [u64], a: &[u64], b: &[u64], base: usize, scratch: &mut [u64]) {
        match self {
            Rows::Portable => karatsuba::product(Portable, r, a, b, base, scratch),
            Rows::Mulx(rows) => karatsuba::product(rows, r, a, b, base, scratch),
        }
    }

    fn square(self, r: &mut [u64], a: &[u64], base: usize, scratch: &mut [u64]) {
        match self {
            Rows::Portable => karatsuba::square(Portable, r, a, base, scratch),
            Rows::Mulx(rows) => karatsuba::square(rows, r, a, base, scratch),
        }
    }

    fn mont_mul(self, base: usize, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        match self {
            Rows::Portable => karatsuba::mont_mul(Portable, base, m, a, b, out),
            Rows::Mulx(rows) => karatsuba::mont_mul(rows, base, m, a, b, out),
        }
    }

    fn mont_sqr(self, base: usize, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        match self {
            Rows::Portable => karatsuba::mont_sqr(Portable, base, m, a, out),
            Rows::Mulx(rows) => karatsuba::mont_sqr(rows, base, m, a, out),
        }
    }
}

/// Base-case threshold: one Karatsuba level against the schoolbook, per size.
fn measure_base(words: &mut Words, sizes: &[usize], squaring: bool) -> Vec<(usize, bool)> {
    let rows = Rows::here();
    let what = if squaring { "sqr" } else { "mul" };
    sizes
        .iter()
        .map(|&s| {
            let (a, b) = (words.take(s), words.take(s));
            let mut r = vec![0u64; 2 * s];
            let mut scratch = vec![0u64; karatsuba::scratch_len(s, s)];
            let mut run = |base: usize| {
                time_ns(|| {
                    if squaring {
                        rows.square(black_box(&mut r), black_box(&a), base, &mut scratch);
                    } else {
                        rows.product(black_box(&mut r), black_box(&a), &b, base, &mut scratch);
                    }
                })
            };
            let school = run(s + 1);
            let kara = run(s);
            eprintln!(
                "  {what} {s:>3} limbs: schoolbook {school:>9.1} ns  karatsuba {kara:>9.1} ns"
            );
            (s, kara < school)
        })
        .collect()
}

/// Time of one Montgomery multiplication plus one squaring: with the modulus' own
/// kernel, or with Karatsuba under `th`.
fn mul_plus_sqr(m: &Modulus<u64>, words: &mut Words, th: Option<&Thresholds>) -> (f64, f64) {
    let s = m.limbs();
    let (mut a, mut b) = (words.take(s), words.take(s));
    a[s - 1] >>= 2;
    b[s - 1] >>= 2;
    let mut out = vec![0u64; s];
    let rows = Rows::here();
    let mul = time_ns(|| match th {
        Some(th) => rows.mont_mul(th.karatsuba_mul_base, m, black_box(&a), &b, &mut out),
        None => m.mont_mul(black_box(&a), &b, &mut out),
    });
    let sqr = time_ns(|| match th {
        Some(th) => rows.mont_sqr(th.karatsuba_sqr_base, m, black_box(&a), &mut out),
        None => m.mont_sqr(black_box(&a), &mut out),
    });
    (mul, sqr)
}

/// This machine, in words: the CPU model, the count of CPUs and the relevant features.
fn machine() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|m| m.trim().to_string())
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cpus = info.lines().filter(|l| l.starts_with("processor")).count();
    let features = cpu_features();
    format!(
        "{model}, {cpus} CPUs, {}{}{}",
        std::env::consts::ARCH,
        if features.is_empty() { "" } else { ", " },
        features.join(" ")
    )
}

/// The CPU features the kernels look for, as detected at run time.
#[cfg(target_arch = "x86_64")]
fn cpu_features() -> Vec<&'static str> {
    let mut out = Vec::new();
    if std::arch::is_x86_feature_detected!("bmi2") {
        out.push("bmi2");
    }
    if std::arch::is_x86_feature_detected!("adx") {
        out.push("adx");
    }
    if std::arch::is_x86_feature_detected!("avx512ifma") {
        out.push("avx512ifma");
    }
    out
}

/// No feature the kernels detect exists outside x86-64.
#[cfg(not(target_arch = "x86_64"))]
fn cpu_features() -> Vec<&'static str> {
    Vec::new()
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock (H. Hinnant's
/// civil-from-days).
fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn render(th: &Thresholds, max_limbs: usize) -> String {
    let show = |v: usize| {
        if v == usize::MAX {
            "usize::MAX".to_string()
        } else {
            v.to_string()
        }
    };
    format!(
        "//! Size thresholds of the `auto` kernel, in 64-bit limbs.
//!
//! Written by `montmul tune`; edit by re-running it, not by hand.
//! Machine: {machine}
//! Date: {date}
//! Sizes tried: up to {max_limbs} limbs; `usize::MAX` means never within them.

use crate::dispatch::Thresholds;

/// The thresholds `auto` and `karatsuba` use.
pub const TUNED: Thresholds = Thresholds {{
    ifma_from: {ifma},
    karatsuba_from: {from},
    mulx_from: {mulx},
    mulx_redc: &{mulx_redc:?},
    karatsuba_mul_base: {mul},
    karatsuba_sqr_base: {sqr},
    generated: &{generated:?},
    mulx_cios: &{mulx_cios:?},
}};
",
        machine = machine(),
        date = today(),
        ifma = show(th.ifma_from),
        from = show(th.karatsuba_from),
        mulx = show(th.mulx_from),
        mulx_redc = th.mulx_redc,
        mul = show(th.karatsuba_mul_base),
        sqr = show(th.karatsuba_sqr_base),
        generated = th.generated,
        mulx_cios = th.mulx_cios,
    )
}

/// Runs the measurements and prints or writes the table.
pub fn run(args: Args) -> Result<(), CliError> {
    let max = args.max_limbs as usize;
    let path = match (args.out, args.write) {
        (Some(p), _) => Some(p),
        (None, true) => Some(PathBuf::from(TABLE_IN_CHECKOUT)),
        (None, false) => None,
    };
    // The measurements take minutes: the temporary file is created beside the
    // destination before them, so a destination that cannot be written fails now.
    let out = path
        .as_deref()
        .map(|p| Ok::<_, CliError>((p, AtomicFile::create(p)?)))
        .transpose()?;
    let mut words = Words(0x2545_f491_4f6c_dd1d);

    eprintln!("karatsuba_mul_base and karatsuba_sqr_base (product only):");
    let sizes: Vec<usize> = (4..=max.min(96)).step_by(2).collect();
    let mul_base = crossover(&measure_base(&mut words, &sizes, false)).unwrap_or(usize::MAX);
    let sqr_base = crossover(&measure_base(&mut words, &sizes, true)).unwrap_or(usize::MAX);

    let mut th = Thresholds {
        ifma_from: usize::MAX,
        karatsuba_from: usize::MAX,
        mulx_from: usize::MAX,
        mulx_redc: &[],
        karatsuba_mul_base: mul_base,
        karatsuba_sqr_base: sqr_base,
        generated: &[],
        mulx_cios: &[],
    };
    if Adx::new().is_some() {
        eprintln!("mulx_from (Montgomery mul + sqr):");
        let fixed = lab::by_name::<u64>("cios-fixed")?;
        let rows = lab::by_name::<u64>("mulx-redc")?;
        let sizes = (1..16).chain((16..=max.min(64)).step_by(4));
        let mut results = Vec::new();
        for s in sizes {
            let n = words.modulus(s);
            let m = Modulus::with_kernel(&n, fixed, Reduction::Full)?;
            let (fm, fs) = mul_plus_sqr(&m, &mut words, None);
            let m = Modulus::with_kernel(&n, rows, Reduction::Full)?;
            let (xm, xs) = mul_plus_sqr(&m, &mut words, None);
            eprintln!(
                "  {s:>3} limbs: cios-fixed {fm:>9.1} + {fs:>9.1} ns  mulx-redc {xm:>9.1} + {xs:>9.1} ns"
            );
            results.push((s, xm + xs < fm + fs));
        }
        th.mulx_from = crossover(&results).unwrap_or(usize::MAX);
        // Below the crossover, the sizes where mulx-redc won all the same.
        let below: Vec<usize> = results
            .iter()
            .filter(|&&(s, wins)| wins && s < th.mulx_from)
            .map(|&(s, _)| s)
            .collect();
        th.mulx_redc = below.leak();
    } else {
        eprintln!("mulx_from: this CPU lacks BMI2/ADX, never");
    }

    eprintln!("karatsuba_from (Montgomery mul + sqr):");
    let mut results = Vec::new();
    for s in (8..=max).step_by(4) {
        let n = words.modulus(s);
        let m = Modulus::with_kernel(&n, lab::pick(&th, s, Reduction::Full), Reduction::Full)?;
        let (fm, fs) = mul_plus_sqr(&m, &mut words, None);
        let (km, ks) = mul_plus_sqr(&m, &mut words, Some(&th));
        let name = m.engine().info().name;
        eprintln!(
            "  {s:>3} limbs: {name} {fm:>9.1} + {fs:>9.1} ns  karatsuba {km:>9.1} + {ks:>9.1} ns"
        );
        results.push((s, km + ks < fm + fs));
    }
    th.karatsuba_from = crossover(&results).unwrap_or(usize::MAX);

    if Avx512Ifma::new().is_some() {
        eprintln!("ifma_from (Montgomery mul + sqr):");
        let amm = lab::by_name::<u64>("amm52-ifma")?;
        let sizes = (4..16).chain((16..=max).step_by(4));
        let mut results = Vec::new();
        for s in sizes {
            let n = words.modulus(s);
            let m = Modulus::with_kernel(&n, lab::pick(&th, s, Reduction::Full), Reduction::Full)?;
            let (om, os) = mul_plus_sqr(&m, &mut words, None);
            let name = m.engine().info().name;
            let m = Modulus::with_kernel(&n, amm, Reduction::Full)?;
            let (im, is) = mul_plus_sqr(&m, &mut words, None);
            eprintln!(
                "  {s:>3} limbs: {name} {om:>9.1} + {os:>9.1} ns  amm52-ifma {im:>9.1} + {is:>9.1} ns"
            );
            results.push((s, im + is < om + os));
        }
        th.ifma_from = crossover(&results).unwrap_or(usize::MAX);
    } else {
        eprintln!("ifma_from: this CPU lacks AVX-512 IFMA, never");
    }
    eprintln!("generated (gen-cios against the pick above, Montgomery mul + sqr):");
    let gen_cios = lab::by_name::<u64>("gen-cios")?;
    let mut faster = Vec::new();
    for &s in gen_cios.limb_counts().unwrap_or_default() {
        if s > max {
            continue;
        }
        let n = words.modulus(s);
        let m = Modulus::with_kernel(&n, gen_cios, Reduction::Full)?;
        let (gm, gs) = mul_plus_sqr(&m, &mut words, None);
        let m = Modulus::with_kernel(&n, lab::pick(&th, s, Reduction::Full), Reduction::Full)?;
        let (pm, ps) = mul_plus_sqr(&m, &mut words, None);
        let name = m.engine().info().name;
        eprintln!(
            "  {s:>3} limbs: gen-cios {gm:>9.1} + {gs:>9.1} ns  {name} {pm:>9.1} + {ps:>9.1} ns"
        );
        if gm + gs < pm + ps {
            faster.push(s);
        }
    }
    th.generated = faster.leak();

    if Adx::new().is_some() {
        eprintln!("mulx_cios (mulx-cios against the pick above, Montgomery mul + sqr):");
        let mulx_cios = lab::by_name::<u64>("mulx-cios")?;
        let mut faster = Vec::new();
        for &s in mulx_cios.limb_counts().unwrap_or_default() {
            if s > max {
                continue;
            }
            let n = words.modulus(s);
            let m = Modulus::with_kernel(&n, mulx_cios, Reduction::Full)?;
            let (xm, xs) = mul_plus_sqr(&m, &mut words, None);
            let m = Modulus::with_kernel(&n, lab::pick(&th, s, Reduction::Full), Reduction::Full)?;
            let (pm, ps) = mul_plus_sqr(&m, &mut words, None);
            let name = m.engine().info().name;
            eprintln!(
                "  {s:>3} limbs: mulx-cios {xm:>9.1} + {xs:>9.1} ns  {name} {pm:>9.1} + {ps:>9.1} ns"
            );
            if xm + xs < pm + ps {
                faster.push(s);
            }
        }
        th.mulx_cios = faster.leak();
    } else {
        eprintln!("mulx_cios: this CPU lacks BMI2/ADX, never");
    }

    eprintln!("with these thresholds, ns per operation (full reduction):");
    eprintln!("   bits   cios mul   cios sqr   auto mul   auto sqr  auto sqr/mul");
    let cios = lab::by_name::<u64>("cios")?;
    for bits in [256usize, 512, 1024, 2048, 3072, 4096] {
        let s = bits / 64;
        if s > max {
            break;
        }
        let n = words.modulus(s);
        let m = Modulus::with_kernel(&n, cios, Reduction::Full)?;
        let (cm, cs) = mul_plus_sqr(&m, &mut words, None);
        let m = Modulus::with_kernel(&n, lab::pick(&th, s, Reduction::Full), Reduction::Full)?;
        let (am, asq) = mul_plus_sqr(&m, &mut words, None);
        eprintln!(
            "  {bits:>5} {cm:>10.1} {cs:>10.1} {am:>10.1} {asq:>10.1}  {:>11.2}",
            asq / am
        );
    }

    let table = render(&th, max);
    match out {
        Some((p, file)) => {
            file.commit(&table)?;
            eprintln!("wrote {}", p.display());
        }
        None => output::stdout(&table)?,
    }
    Ok(())
}
