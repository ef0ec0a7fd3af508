//! `montmul selftest`: every kernel, every word size and both reduction policies
//! against num-bigint (issue 19, item 4), so that a build on a new machine or compiler
//! can be checked in one command.
//!
//! Per size class (2 to 16384 bits) it runs N cases, each one modulus and its operands,
//! through every (kernel, word, policy) the library lists: the Montgomery product and
//! square on raw limbs (below n, or 2n under lazy reduction), the residue operations
//! (`+`, `-`, negation, `*`, square), `pow` and `pow_vartime` on the exponent 0 (empty
//! and all-zero bytes), a short and a long exponent, and `inv` / `inv_vartime`; on
//! `auto`, also `FixedBase::pow` (the base's powers made for the short exponent's
//! length) on the exponent 0 and the short one. The multi-buffer kernels of
//! `montmul::lanes` (`amm52x8-ifma`, `amm52x2-ifma`: several operations a call, so not
//! one-product kernels) run each case with 64-bit words beside a second modulus of the
//! same size: eight exponentiations at once, three, one, eight products, and two in
//! lockstep (on moduli of `auto` and of `amm52-ifma`), with a long exponent (the modulus' size, at most 1024 bits), the short
//! one and the exponent 0; on `auto`, the same through the seam the library picks from
//! (`lanes::pow_x2`, `lanes::pow_lanes`). The first cases of each class take the
//! edge moduli (2^k - 1, 2^(k-1) + 1, a top limb of all ones), then random ones;
//! operands are edges (0, 1, n - 1, values of all-ones limbs, the bound less one) or
//! random, half and half. Everything derives from `--seed` through the test kit's
//! `TestRng`, per case, so a case is reproducible alone whatever the thread count.
//!
//! The oracle is num-bigint (`montmul-testkit`): a Montgomery product `z` of `x` and
//! `y` with R = 2^(w s) must satisfy `z < bound` and `z R = x y (mod n)`, which needs
//! no inverse of R. `--exhaustive` adds the small-word sweep of
//! `montmul_testkit::exhaustive` (every odd 8-bit modulus with every operand pair,
//! every odd 16-bit modulus with a dense sample).
//!
//! `--algo` and `--words` narrow the run to some kernels and word sizes: a long run of
//! the paths the library picks (`--algo auto --words 64`) fits where one of every
//! kernel would not, the bit-serial kernels with 8-bit words taking most of a case.
//!
//! A size a kernel refuses with a typed error (`gen-cios` has code for some limb counts
//! only; a kernel this CPU cannot run) is counted as skipped and listed. A mismatch
//! prints its reproducer (kernel, word, policy, operation, modulus and operands in hex)
//! and the command exits with status 1.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use clap::builder::RangedU64ValueParser;
use montmul::lab::Kernel;
use montmul::{lab, lanes, Error, FixedBase, Limb, Modulus, Reduction, Residue, MAX_BITS};
use montmul_testkit::exhaustive;
use montmul_testkit::rand_core::RngCore;
use montmul_testkit::{self as kit, TestRng};
use num_bigint::BigUint;
use rayon::prelude::*;
use serde::Serialize;

use crate::output::outln;
use crate::CliError;

/// The size classes run when `--bits` is not given.
const DEFAULT_BITS: [u32; 22] = [
    2, 3, 7, 8, 9, 16, 31, 64, 65, 127, 128, 192, 255, 256, 384, 521, 1024, 2048, 3072, 4096, 8192,
    16384,
];

/// The most cases per size class: far beyond any useful run (10^6 per class takes
/// days at the largest sizes), and the count of checks stays far from overflowing.
const MAX_CASES: u64 = 100_000_000;

/// The most entries in `--bits`.
const MAX_SIZES: usize = 64;

/// The most reproducers printed; the count of mismatches is always complete.
const MAX_SHOWN: usize = 20;

/// Moduli up to this many bits get a long exponent of [`LONG_EXP_BITS`] bits: every
/// window width of the fixed window (up to 6 from 6145 bits, `exp::ct_window`) and of
/// the sliding window (`exp::vartime_window`).
const ALL_WINDOWS_UP_TO: u32 = 64;

/// The long exponent of the smallest moduli, in bits.
const LONG_EXP_BITS: u32 = 6200;

/// Moduli up to this many bits get a full-size long exponent (as many bits as the
/// modulus, as RSA's private exponent). Above, one long exponentiation on a bit-serial
/// kernel (`radix2`, `mwr2mm` with 8-bit words) takes seconds, and the products, the
/// residue operations, the short exponents and the inverses carry the check.
const FULL_SIZE_EXP_UP_TO: u32 = 512;

/// Moduli above this many bits get short exponents of at most 16 bits, not 64.
const SHORT_EXP_16_ABOVE: u32 = 1024;

/// Arguments of `montmul selftest`.
#[derive(clap::Args)]
pub struct Args {
    /// Cases per size class, 1..=100000000; each runs through every kernel, word size
    /// and policy.
    #[arg(long, default_value_t = 8,
          value_parser = RangedU64ValueParser::<u64>::new().range(1..=MAX_CASES))]
    cases: u64,
    /// Modulus sizes in bits, comma-separated, each 2..=16384 (default: 2, 3, 7, 8, 9,
    /// 16, 31, 64, 65, 127, 128, 192, 255, 256, 384, 521, 1024, 2048, 3072, 4096, 8192,
    /// 16384).
    #[arg(long, value_delimiter = ',')]
    bits: Vec<u32>,
    /// Seed of every random modulus, operand and exponent.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only these kernels, comma-separated (default: every kernel; `montmul algos` lists
    /// them), e.g. `auto` for the paths the library picks, where the bit-serial kernels
    /// would make a long run take years.
    #[arg(long, value_delimiter = ',')]
    algo: Vec<String>,
    /// Only these word sizes in bits, comma-separated, of 8, 16, 32 and 64 (default: all
    /// four).
    #[arg(long, value_delimiter = ',')]
    words: Vec<u32>,
    /// Also run the exhaustive small-word sweep: every odd 8-bit modulus with every
    /// pair of operands, every odd 16-bit modulus with a dense sample (minutes).
    #[arg(long)]
    exhaustive: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// One case: a modulus, its operands and exponents, and num-bigint's answers.
struct Case {
    bits: u32,
    index: u64,
    n: BigUint,
    /// Normal-form operands below n (also the raw product's inputs under `Full`).
    a: BigUint,
    b: BigUint,
    /// The raw product's inputs under `Lazy`, below 2n.
    a2: BigUint,
    b2: BigUint,
    /// Big-endian exponents: empty, a zero byte, short, and long for the smaller sizes.
    exps: Vec<Vec<u8>>,
    /// `a^e mod n` for each exponent.
    powers: Vec<BigUint>,
    /// `a^-1 mod n`, when gcd(a, n) = 1.
    inverse: Option<BigUint>,
    /// The seed of the multi-buffer kernels' own values ([`LaneCase`]), a stream apart
    /// so that the values above do not depend on whether those kernels run.
    lane_seed: u64,
}

/// SplitMix64's finaliser over the seed, the size class and the case number: each case
/// has its own stream.
fn case_seed(seed: u64, bits: u32, index: u64) -> u64 {
    let mut z = seed ^ (u64::from(bits) << 40) ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// An edge value below `bound` (0, 1, 2, n - 1, n - 2, n, n + 1, bound - 1 and values
/// whose limbs are all ones, for every word size), or a random one, half and half.
fn operand(rng: &mut TestRng, n: &BigUint, bound: &BigUint) -> BigUint {
    if rng.next_u32() & 1 == 0 {
        return kit::random_below(rng, bound);
    }
    let one = BigUint::from(1u32);
    let bytes = bound.bits().div_ceil(8);
    let choice = match rng.next_u32() % 10 {
        0 => BigUint::ZERO,
        1 => one,
        2 => BigUint::from(2u32),
        3 => n - 1u32,
        4 => n - 2u32,
        5 => n.clone(),
        6 => n + 1u32,
        7 => bound - 1u32,
        // All-ones limbs of 8 bits, then of 64 bits (so of every word size).
        8 => (&one << (8 * (1 + rng.next_u64() % bytes))) - 1u32,
        _ => (&one << (64 * (1 + rng.next_u64() % bytes.div_ceil(8)))) - 1u32,
    };
    // A value not below the bound (n itself under `Full`) becomes a random one.
    if &choice < bound {
        choice
    } else {
        kit::random_below(rng, bound)
    }
}

/// A random exponent of exactly `bits` bits (`bits >= 1`), big-endian.
fn exponent(rng: &mut TestRng, bits: u32) -> Vec<u8> {
    let one = BigUint::from(1u32);
    (kit::random_below_pow2(rng, bits - 1) | (one << (bits - 1))).to_bytes_be()
}

impl Case {
    /// Case `index` of size class `bits` for `seed`.
    fn new(seed: u64, bits: u32, index: u64) -> Case {
        let stream = case_seed(seed, bits, index);
        let mut rng = TestRng::new(stream);
        let one = BigUint::from(1u32);
        let n = match index {
            0 => (&one << bits) - 1u32,
            1 => (&one << (bits - 1)) + 1u32,
            2 => {
                // The top 64 bits (all of them below 65) all ones: the top limb of
                // every word size is all ones where the size is a multiple of it.
                let top = bits.min(64);
                let ones = ((&one << top) - 1u32) << (bits - top);
                kit::random_modulus(&mut rng, bits) | ones
            }
            _ => kit::random_modulus(&mut rng, bits),
        };
        let two_n = &n << 1u32;
        let a = operand(&mut rng, &n, &n);
        let b = operand(&mut rng, &n, &n);
        let a2 = operand(&mut rng, &n, &two_n);
        let b2 = operand(&mut rng, &n, &two_n);
        let short_max = if bits > SHORT_EXP_16_ABOVE { 16 } else { 64 };
        let short = 1 + rng.next_u32() % short_max;
        let mut exps = vec![Vec::new(), vec![0], exponent(&mut rng, short)];
        if bits <= ALL_WINDOWS_UP_TO {
            exps.push(exponent(&mut rng, LONG_EXP_BITS));
        } else if bits <= FULL_SIZE_EXP_UP_TO {
            exps.push(exponent(&mut rng, bits));
        }
        let powers = exps
            .iter()
            .map(|e| a.modpow(&BigUint::from_bytes_be(e), &n))
            .collect();
        let inverse = a.modinv(&n);
        Case {
            bits,
            index,
            n,
            a,
            b,
            a2,
            b2,
            exps,
            powers,
            inverse,
            lane_seed: case_seed(stream, bits, LANE_STREAM),
        }
    }
}

/// Counts checks and records mismatches for one (kernel, word, policy) on one case.
struct Checker<'a> {
    case: &'a Case,
    kernel: &'static str,
    word: u32,
    reduction: Reduction,
    tally: &'a mut Tally,
}

impl Checker<'_> {
    /// One comparison with the oracle; `describe` gives (got, want) for the reproducer,
    /// formatted only on a mismatch.
    fn check(
        &mut self,
        op: &str,
        x: &BigUint,
        y: &BigUint,
        ok: bool,
        describe: impl FnOnce() -> (String, String),
    ) {
        self.tally.checks += 1;
        if ok {
            return;
        }
        let (got, want) = describe();
        let c = self.case;
        self.tally.mismatches.push(format!(
            "mismatch: kernel={} word={} policy={} bits={} case={} op={op} n=0x{:x} a=0x{x:x} b=0x{y:x} got={got} want={want}",
            self.kernel, self.word, self.reduction, c.bits, c.index, c.n
        ));
    }

    /// A residue's normal form against `want`.
    fn same<L: Limb>(&mut self, op: &str, got: &Residue<L>, want: &BigUint) {
        let got = kit::from_limbs(&got.to_limbs());
        let (a, b) = (&self.case.a, &self.case.b);
        self.check(op, a, b, &got == want, || {
            (format!("0x{got:x}"), format!("0x{want:x}"))
        });
    }
}

/// A (kernel, word, policy) refused at a size: the reason, and the sizes.
type Skips = BTreeMap<(String, u32, &'static str, String), Vec<u32>>;

/// The tally of one piece of work.
#[derive(Default)]
struct Tally {
    /// (kernel, word, policy, case) runs.
    runs: u64,
    /// Single comparisons with the oracle.
    checks: u64,
    mismatches: Vec<String>,
    skips: Vec<(String, u32, &'static str, String, u32)>,
}

/// Runs case `c` through every kernel of `L` (of those named in `algos`, where it is
/// not empty) under every policy it offers.
fn run_word<L: Limb>(c: &Case, algos: &[String], t: &mut Tally) {
    for k in selected::<L>(algos) {
        for &r in k.info().reductions {
            run_variant(k, r, c, t);
        }
    }
}

/// Runs case `c` through kernel `k` with `L` words under `r`.
fn run_variant<L: Limb>(k: &'static dyn Kernel<L>, r: Reduction, c: &Case, t: &mut Tally) {
    let name = k.info().name;
    let n = &c.n;
    let given = kit::to_limbs::<L>(n, c.bits.div_ceil(L::BITS) as usize);
    let made = Modulus::with_kernel(&given, k, r);
    if let Err(e @ (Error::UnsupportedSize { .. } | Error::Unavailable { .. })) = &made {
        t.skips
            .push((name.to_string(), L::BITS, r.name(), e.to_string(), c.bits));
        return;
    }
    t.runs += 1;
    let mut ch = Checker {
        case: c,
        kernel: name,
        word: L::BITS,
        reduction: r,
        tally: t,
    };
    let zero = BigUint::ZERO;
    let m = match made {
        Ok(m) => m,
        Err(e) => {
            ch.check("Modulus::with_kernel", &zero, &zero, false, || {
                (e.to_string(), "Ok".into())
            });
            return;
        }
    };
    let s = m.limbs();
    let r_bits = L::BITS * s as u32;
    let bound = kit::from_limbs(m.bound());

    // The raw product and square: z < bound and z R = x y (mod n).
    let (x, y) = match r {
        Reduction::Full => (&c.a, &c.b),
        Reduction::Lazy => (&c.a2, &c.b2),
    };
    let (xl, yl) = (kit::to_limbs::<L>(x, s), kit::to_limbs::<L>(y, s));
    let mut out = vec![L::ZERO; s];
    for (op, y) in [("mont_mul", y), ("mont_sqr", x)] {
        if op == "mont_mul" {
            m.mont_mul(&xl, &yl, &mut out);
        } else {
            m.mont_sqr(&xl, &mut out);
        }
        let z = kit::from_limbs(&out);
        let ok = z < bound && (&z << r_bits) % n == x * y % n;
        ch.check(op, x, y, ok, || {
            let want = kit::mont_mul(x, y, n, r_bits);
            (
                format!("0x{z:x}"),
                format!("0x{want:x} (mod n, below 0x{bound:x})"),
            )
        });
    }

    // The residues: in through `Residue::new`, out through `to_limbs`.
    let (a, b) = (&c.a, &c.b);
    let (ra, rb) = match (
        Residue::new(&m, &kit::to_limbs::<L>(a, s)),
        Residue::new(&m, &kit::to_limbs::<L>(b, s)),
    ) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (Err(e), _) | (_, Err(e)) => {
            ch.check("Residue::new", a, b, false, || (e.to_string(), "Ok".into()));
            return;
        }
    };
    ch.same("Residue +", &(&ra + &rb), &((a + b) % n));
    ch.same("Residue -", &(&ra - &rb), &((a + n - b) % n));
    ch.same("Residue neg", &(-&ra), &((n - a) % n));
    ch.same("Residue *", &(&ra * &rb), &(a * b % n));
    ch.same("Residue square", &ra.square(), &(a * a % n));

    // Exponentiation: 0 (empty and a zero byte), short, and long where the size has one.
    for (e, want) in c.exps.iter().zip(&c.powers) {
        ch.same(&format!("pow e=0x{}", hex(e)), &ra.pow(e), want);
        ch.same(
            &format!("pow_vartime e=0x{}", hex(e)),
            &ra.pow_vartime(e),
            want,
        );
    }

    // On `auto` (FixedBase reaches the kernels through the same products as `pow`):
    // the same base's precomputed powers, made for exponents as long as the short one
    // (a longer one costs more products than the rest of the case), on the exponents 0
    // and the short one.
    if name == "auto" {
        let max_len = c.exps[2].len();
        let short = c
            .exps
            .iter()
            .zip(&c.powers)
            .filter(|(e, _)| e.len() <= max_len);
        let powers = FixedBase::new(&ra, max_len);
        for (e, want) in short {
            let op = format!("FixedBase::pow e=0x{}", hex(e));
            match powers.as_ref().map_err(Clone::clone).and_then(|p| p.pow(e)) {
                Ok(got) => ch.same(&op, &got, want),
                Err(err) => ch.check(&op, a, &zero, false, || (err.to_string(), "Ok".into())),
            }
        }
    }

    // Inverses, where they exist; else both must say so.
    for (op, got) in [("inv", ra.inv()), ("inv_vartime", ra.inv_vartime())] {
        match (got, &c.inverse) {
            (Ok(got), Some(want)) => ch.same(op, &got, want),
            (Err(Error::NotInvertible), None) => ch.check(op, a, &zero, true, Default::default),
            (got, want) => {
                let got = match got {
                    Ok(r) => format!("0x{:x}", kit::from_limbs(&r.to_limbs())),
                    Err(e) => e.to_string(),
                };
                let want = want
                    .as_ref()
                    .map_or("NotInvertible".into(), |w| format!("0x{w:x}"));
                ch.check(op, a, &zero, false, || (got, want));
            }
        }
    }
}

/// The case number that derives the multi-buffer kernels' stream from a case's own
/// seed ([`Case::lane_seed`]).
const LANE_STREAM: u64 = u64::MAX;

/// The longest exponent of the multi-buffer kernels' checks, in bits (the modulus'
/// size where that is smaller): every window width and table entry of a 1024-bit CRT
/// half's exponentiation, at a quarter of a full-size one's oracle time at 4096 bits.
const LANE_EXP_BITS: u32 = 1024;

/// The jobs of a [`LaneCase`], (modulus, value, exponent): modulus 0 is the case's and
/// 1 the second one; values 0, 1, 2 are a, b (below the case's modulus) and c (below
/// the second); exponents 0 to 3 the long, short, zero-byte and empty ones. The two
/// moduli by turns, each exponent on each.
const LANE_JOBS: [(usize, usize, usize); 8] = [
    (0, 0, 0),
    (1, 2, 1),
    (0, 1, 1),
    (1, 2, 0),
    (0, 0, 2),
    (0, 1, 0),
    (1, 2, 3),
    (0, 0, 1),
];

/// The job whose value multiplies job `j`'s in the 8-lane products: job j + 2 where it
/// has the same modulus, else j itself (a square).
fn factor(j: usize) -> usize {
    let k = (j + 2) % LANE_JOBS.len();
    if LANE_JOBS[k].0 == LANE_JOBS[j].0 {
        k
    } else {
        j
    }
}

/// What the multi-buffer kernels take besides a case's values, and num-bigint's
/// answers for [`LANE_JOBS`]: a second modulus of the same size (they run a modulus per
/// lane), an operand below it, and a long exponent (as many bits as the modulus, at
/// most [`LANE_EXP_BITS`]).
struct LaneCase {
    n2: BigUint,
    c: BigUint,
    long: Vec<u8>,
    /// Each job's value to its exponent, modulo its modulus.
    powers: [BigUint; 8],
    /// Each job's value times its [`factor`]'s, modulo its modulus.
    products: [BigUint; 8],
}

impl LaneCase {
    fn new(case: &Case) -> LaneCase {
        let mut rng = TestRng::new(case.lane_seed);
        let n2 = kit::random_modulus(&mut rng, case.bits);
        let c = operand(&mut rng, &n2, &n2);
        let long = exponent(&mut rng, case.bits.min(LANE_EXP_BITS));
        let mut x = LaneCase {
            n2,
            c,
            long,
            powers: Default::default(),
            products: Default::default(),
        };
        x.powers = core::array::from_fn(|j| {
            let (m, v, e) = LANE_JOBS[j];
            let e = BigUint::from_bytes_be(x.exponent(case, e));
            x.value(case, v).modpow(&e, x.modulus(case, m))
        });
        x.products = core::array::from_fn(|j| {
            let (m, v, _) = LANE_JOBS[j];
            x.value(case, v) * x.value(case, LANE_JOBS[factor(j)].1) % x.modulus(case, m)
        });
        x
    }

    fn modulus<'a>(&'a self, case: &'a Case, m: usize) -> &'a BigUint {
        if m == 0 {
            &case.n
        } else {
            &self.n2
        }
    }

    fn value<'a>(&'a self, case: &'a Case, v: usize) -> &'a BigUint {
        match v {
            0 => &case.a,
            1 => &case.b,
            _ => &self.c,
        }
    }

    fn exponent<'a>(&'a self, case: &'a Case, e: usize) -> &'a [u8] {
        match e {
            0 => &self.long,
            1 => &case.exps[2],
            2 => &case.exps[1],
            _ => &case.exps[0],
        }
    }
}

/// The name under which the lanes seam (`lanes::pow_x2`, `lanes::pow_lanes`: what
/// the library picks for a batch) is checked when `auto` is selected.
const SEAM: &str = "auto (lanes)";

/// Runs case `c` (64-bit words) through the multi-buffer kernels that `algos` names
/// (every one where it is empty; `montmul algos` lists them beside the others) under
/// each policy they offer, and through the lanes seam where `auto` is named. A kernel
/// this CPU cannot run, or without code for the case's size, is counted as skipped.
fn run_lanes(c: &Case, algos: &[String], t: &mut Tally) {
    let named = |name: &str| algos.is_empty() || algos.iter().any(|a| a == name);
    let mut runs: Vec<(&'static str, Reduction)> = Vec::new();
    for k in lanes::catalog().iter().filter(|k| named(k.info.name)) {
        let (low, high) = k.bits;
        let refusal = if !(k.info.available)() {
            Some(Error::Unavailable { algo: k.info.name }.to_string())
        } else if !(low..=high).contains(&c.bits) {
            Some(format!(
                "no code for this size (it covers {low} to {high} bits a lane)"
            ))
        } else {
            None
        };
        for &r in k.info.reductions {
            match &refusal {
                Some(why) => t
                    .skips
                    .push((k.info.name.into(), 64, r.name(), why.clone(), c.bits)),
                None => runs.push((k.info.name, r)),
            }
        }
    }
    if named("auto") {
        runs.extend([(SEAM, Reduction::Full), (SEAM, Reduction::Lazy)]);
    }
    if runs.is_empty() {
        return;
    }
    let x = LaneCase::new(c);
    for (name, r) in runs {
        run_lane_variant(name, r, c, &x, t);
    }
}

/// Runs case `c` with its [`LaneCase`] `x` through the multi-buffer kernel `name` (or
/// the lanes seam, [`SEAM`]) under `r`, every result against num-bigint's: the pair
/// kernel on jobs 0 and 1 and on 3 and 2 (each modulus in either half, the long
/// exponent on either side), and on jobs 5 and 6 with moduli given `amm52-ifma` by
/// name; the 8-lane kernel on all eight jobs, on the first three and the first alone
/// (its 4-lane form), and eight products; the seam on two jobs (`lanes::pow_x2`) and
/// five (`lanes::pow_lanes`: pairs and a single).
fn run_lane_variant(name: &'static str, r: Reduction, c: &Case, x: &LaneCase, t: &mut Tally) {
    let s = c.bits.div_ceil(64) as usize;
    t.runs += 1;
    let mut ch = Checker {
        case: c,
        kernel: name,
        word: 64,
        reduction: r,
        tally: t,
    };
    let failed = |e: Error| move || (e.to_string(), "Ok".to_string());
    // The jobs' bases on moduli made with the kernel `k`.
    let bases_on = |k: &str| -> Result<Vec<Residue<u64>>, (&'static str, Error)> {
        let k = lab::by_name::<u64>(k).map_err(|e| ("lab::by_name", e))?;
        let made = |n: &BigUint| Modulus::with_kernel(&kit::to_limbs::<u64>(n, s), k, r);
        let moduli = [made(&c.n), made(&x.n2)];
        let [Ok(m1), Ok(m2)] = moduli else {
            let e = moduli.into_iter().find_map(Result::err).expect("an error");
            return Err(("Modulus::with_kernel", e));
        };
        let values = [(&m1, &c.a), (&m1, &c.b), (&m2, &x.c)]
            .map(|(m, v)| Residue::new(m, &kit::to_limbs::<u64>(v, s)));
        let [Ok(ra), Ok(rb), Ok(rc)] = values else {
            let e = values.into_iter().find_map(Result::err).expect("an error");
            return Err(("Residue::new", e));
        };
        let values = [&ra, &rb, &rc];
        Ok(LANE_JOBS.iter().map(|j| values[j.1].clone()).collect())
    };
    let bases = match bases_on("auto") {
        Ok(bases) => bases,
        Err((call, e)) => return ch.check(call, &c.a, &c.b, false, failed(e)),
    };
    let exps: Vec<&[u8]> = LANE_JOBS.iter().map(|j| x.exponent(c, j.2)).collect();
    // One call's results for the jobs `which` (or its error) against the oracle's.
    let batch =
        |ch: &mut Checker, call: &str, which: &[usize], got: Result<Vec<Residue<u64>>, Error>| {
            let got = match got {
                Ok(got) if got.len() == which.len() => got,
                Ok(got) => {
                    let counts = (format!("{} results", got.len()), format!("{}", which.len()));
                    return ch.check(call, &c.a, &c.b, false, || counts);
                }
                Err(e) => return ch.check(call, &c.a, &c.b, false, failed(e)),
            };
            for (&j, got) in which.iter().zip(&got) {
                let op = format!(
                    "{call} job {j} ({} at once) e=0x{}",
                    which.len(),
                    hex(exps[j])
                );
                ch.same(&op, got, &x.powers[j]);
            }
        };
    type Pair = fn(
        &Residue<u64>,
        &[u8],
        &Residue<u64>,
        &[u8],
    ) -> Result<(Residue<u64>, Residue<u64>), Error>;
    let pair = |bases: &[Residue<u64>], i: usize, j: usize, f: Pair| {
        f(&bases[i], exps[i], &bases[j], exps[j]).map(|(y0, y1)| vec![y0, y1])
    };
    match name {
        SEAM => {
            let two = pair(&bases, 0, 1, lanes::pow_x2);
            batch(&mut ch, "lanes::pow_x2", &[0, 1], two);
            let five = lanes::pow_lanes(&bases[..5], &exps[..5]);
            batch(&mut ch, "lanes::pow_lanes", &[0, 1, 2, 3, 4], five);
        }
        "amm52x2-ifma" => {
            let lockstep = lanes::pow_x2_lockstep;
            batch(
                &mut ch,
                "pow_x2_lockstep",
                &[0, 1],
                pair(&bases, 0, 1, lockstep),
            );
            batch(
                &mut ch,
                "pow_x2_lockstep",
                &[3, 2],
                pair(&bases, 3, 2, lockstep),
            );
            // Moduli given `amm52-ifma` by name, which the pair also takes.
            match bases_on("amm52-ifma") {
                Ok(on) => {
                    let call = "pow_x2_lockstep (moduli on amm52-ifma)";
                    batch(&mut ch, call, &[5, 6], pair(&on, 5, 6, lockstep));
                }
                Err((call, e)) => ch.check(call, &c.a, &c.b, false, failed(e)),
            }
        }
        "amm52x8-ifma" => {
            let all: Vec<usize> = (0..LANE_JOBS.len()).collect();
            batch(
                &mut ch,
                "pow_lanes_mb8",
                &all,
                lanes::pow_lanes_mb8(&bases, &exps),
            );
            for few in [3, 1] {
                let got = lanes::pow_lanes_mb8(&bases[..few], &exps[..few]);
                batch(&mut ch, "pow_lanes_mb8", &all[..few], got);
            }
            let other: Vec<Residue<u64>> = all.iter().map(|&j| bases[factor(j)].clone()).collect();
            match lanes::mul_lanes_mb8(&bases, &other) {
                Ok(got) if got.len() != other.len() => {
                    let counts = (format!("{} results", got.len()), format!("{}", other.len()));
                    ch.check("mul_lanes_mb8", &c.a, &c.b, false, || counts);
                }
                Ok(got) => {
                    for (j, got) in got.iter().enumerate() {
                        ch.same(
                            &format!("mul_lanes_mb8 job {j} (8 at once)"),
                            got,
                            &x.products[j],
                        );
                    }
                }
                Err(e) => ch.check("mul_lanes_mb8", &c.a, &c.b, false, failed(e)),
            }
        }
        // A multi-buffer kernel added to the catalog without checks here fails the run.
        other => ch.check("checks of this kernel", &c.a, &c.b, false, || {
            (format!("none for {other}"), "some".into())
        }),
    }
}

/// Lower-case hex of big-endian bytes, at least one digit.
fn hex(bytes: &[u8]) -> String {
    format!("{:x}", BigUint::from_bytes_be(bytes))
}

/// The exhaustive sweep's figures.
#[derive(Serialize)]
struct ExhaustiveSummary {
    /// Products checked (`mont_mul` and `mont_sqr`).
    products: u64,
    /// (kernel, policy) pairs per word size: 8-bit, 16-bit.
    variants: [usize; 2],
    seconds: f64,
}

/// One (kernel, word, policy) refused at some sizes.
#[derive(Serialize)]
struct Skip {
    kernel: String,
    word: u32,
    policy: &'static str,
    reason: String,
    bits: Vec<u32>,
}

/// The summary printed at the end.
#[derive(Serialize)]
struct Summary {
    seed: u64,
    cases_per_size: u64,
    sizes: Vec<u32>,
    /// The kernels run; empty for every kernel.
    algos: Vec<String>,
    /// The word sizes run.
    words: Vec<u32>,
    /// (kernel, word, policy, case) runs.
    runs: u64,
    /// Single comparisons with the oracle.
    checks: u64,
    /// (kernel, word, policy, size) combinations refused with a typed error.
    skipped: u64,
    skips: Vec<Skip>,
    mismatches: u64,
    /// The first reproducers, at most 20.
    reproducers: Vec<String>,
    exhaustive: Option<ExhaustiveSummary>,
    seconds: f64,
}

/// The sizes asked for, checked.
fn sizes(list: &[u32]) -> Result<Vec<u32>, CliError> {
    if list.len() > MAX_SIZES {
        return Err(CliError(format!(
            "--bits: at most {MAX_SIZES} entries, not {}",
            list.len()
        )));
    }
    if let Some(b) = list.iter().find(|&&b| !(2..=MAX_BITS).contains(&b)) {
        return Err(CliError(format!("--bits: {b} is not in 2..={MAX_BITS}")));
    }
    Ok(if list.is_empty() {
        DEFAULT_BITS.to_vec()
    } else {
        list.to_vec()
    })
}

/// Every (size, case, word) unit: the largest sizes first, so that the longest units
/// start early and the threads end together.
fn units<'a>(
    sizes: &'a [u32],
    cases: u64,
    words: &'a [u32],
) -> impl ParallelIterator<Item = (u32, u64, u32)> + 'a {
    let mut order = sizes.to_vec();
    order.sort_unstable_by(|x, y| y.cmp(x));
    order.dedup();
    order.into_par_iter().flat_map(move |bits| {
        (0..cases)
            .into_par_iter()
            .flat_map(move |i| words.par_iter().map(move |&w| (bits, i, w)))
    })
}

/// The kernels asked for, checked: each must be a kernel of some word size.
fn algos(list: &[String]) -> Result<Vec<String>, CliError> {
    for name in list {
        let known = lane_kernel(name)
            || lab::by_name::<u8>(name).is_ok()
            || lab::by_name::<u16>(name).is_ok()
            || lab::by_name::<u32>(name).is_ok();
        if !known {
            // The 64-bit list has every kernel; its error names the choices.
            lab::by_name::<u64>(name).map_err(|e| CliError(format!("--algo: {e}")))?;
        }
    }
    Ok(list.to_vec())
}

/// Whether `name` is a multi-buffer kernel ([`lanes::catalog`]).
fn lane_kernel(name: &str) -> bool {
    lanes::catalog().iter().any(|k| k.info.name == name)
}

/// The kernels of `L` that `algos` names (every one where it is empty) and that have
/// `L`'s words.
fn selected<L: Limb>(algos: &[String]) -> impl Iterator<Item = &'static dyn Kernel<L>> + '_ {
    lab::all::<L>().iter().copied().filter(move |k| {
        let info = k.info();
        info.words.contains(&L::BITS) && (algos.is_empty() || algos.iter().any(|a| a == info.name))
    })
}

/// How many (kernel, word) pairs `algos` (every kernel where empty) and `words` select.
fn pairs(algos: &[String], words: &[u32]) -> usize {
    fn of<L: Limb>(algos: &[String]) -> usize {
        let lane_kernels = lanes::catalog()
            .iter()
            .filter(|k| k.info.words.contains(&L::BITS))
            .filter(|k| algos.is_empty() || algos.iter().any(|a| a == k.info.name))
            .count();
        selected::<L>(algos).count() + lane_kernels
    }
    words
        .iter()
        .map(|w| match w {
            8 => of::<u8>(algos),
            16 => of::<u16>(algos),
            32 => of::<u32>(algos),
            _ => of::<u64>(algos),
        })
        .sum()
}

/// The word sizes asked for, checked (every one where the list is empty).
fn words(list: &[u32]) -> Result<Vec<u32>, CliError> {
    if let Some(w) = list.iter().find(|w| !montmul::WORD_SIZES.contains(w)) {
        return Err(CliError(format!(
            "--words: {w} is not a word size (8, 16, 32, 64)"
        )));
    }
    let mut list = if list.is_empty() {
        montmul::WORD_SIZES.to_vec()
    } else {
        list.to_vec()
    };
    list.sort_unstable();
    list.dedup();
    Ok(list)
}

/// The exhaustive sweep, on every core.
fn run_exhaustive(mismatches: &Mutex<Vec<String>>, count: &AtomicU64) -> ExhaustiveSummary {
    let start = Instant::now();
    let v8 = exhaustive::variants::<u8>();
    let v16 = exhaustive::variants::<u16>();
    let m8: Vec<u64> = exhaustive::odd_moduli::<u8>().collect();
    let m16: Vec<u64> = exhaustive::odd_moduli::<u16>().collect();
    let bar = crate::progress::bar(
        (v8.len() * m8.len() + v16.len() * m16.len()) as u64,
        "exhaustive",
    );
    let record = |result: Result<u64, Box<exhaustive::Mismatch>>| {
        bar.inc(1);
        match result {
            Ok(p) => p,
            Err(m) => {
                count.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut list) = mismatches.lock() {
                    list.push(format!("mismatch: exhaustive {m}"));
                }
                0
            }
        }
    };
    let products8: u64 = v8
        .par_iter()
        .flat_map(|&(k, r)| m8.par_iter().map(move |&n| (k, r, n)))
        .map(|(k, r, n)| {
            record(exhaustive::sweep_modulus(
                k,
                r,
                n,
                &exhaustive::operands_all(n, r),
            ))
        })
        .sum();
    let products16: u64 = v16
        .par_iter()
        .flat_map(|&(k, r)| m16.par_iter().map(move |&n| (k, r, n)))
        .map(|(k, r, n)| {
            record(exhaustive::sweep_modulus(
                k,
                r,
                n,
                &exhaustive::operands_16(n, r, 8),
            ))
        })
        .sum();
    bar.finish_and_clear();
    ExhaustiveSummary {
        products: products8 + products16,
        variants: [v8.len(), v16.len()],
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// `montmul selftest`: exit status 0 when every check agrees with the oracle, 1 on a
/// mismatch (its reproducers printed), 2 on bad flags.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let sizes = sizes(&args.bits)?;
    let algos = algos(&args.algo)?;
    let words = words(&args.words)?;
    if pairs(&algos, &words) == 0 {
        // A run that checks nothing must not pass.
        return Err(CliError(format!(
            "--algo {} has no kernel with {}-bit words",
            algos.join(","),
            words
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("- or ")
        )));
    }
    let start = Instant::now();
    let mismatch_count = AtomicU64::new(0);
    let mismatches = Mutex::new(Vec::new());
    let exhaustive = args
        .exhaustive
        .then(|| run_exhaustive(&mismatches, &mismatch_count));

    let mut distinct = sizes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let bar = crate::progress::bar(
        distinct.len() as u64 * args.cases * words.len() as u64,
        "selftest",
    );
    let (runs, checks, skips) = units(&distinct, args.cases, &words)
        .map(|(bits, i, w)| {
            let case = Case::new(args.seed, bits, i);
            let mut t = Tally::default();
            match w {
                8 => run_word::<u8>(&case, &algos, &mut t),
                16 => run_word::<u16>(&case, &algos, &mut t),
                32 => run_word::<u32>(&case, &algos, &mut t),
                _ => {
                    run_word::<u64>(&case, &algos, &mut t);
                    run_lanes(&case, &algos, &mut t);
                }
            }
            bar.inc(1);
            if !t.mismatches.is_empty() {
                mismatch_count.fetch_add(t.mismatches.len() as u64, Ordering::Relaxed);
                if let Ok(mut list) = mismatches.lock() {
                    list.extend(t.mismatches);
                }
            }
            (t.runs, t.checks, t.skips)
        })
        .reduce(
            || (0, 0, Vec::new()),
            |(r1, c1, mut s1), (r2, c2, s2)| {
                s1.extend(s2);
                (r1 + r2, c1 + c2, s1)
            },
        );
    bar.finish_and_clear();

    let mut grouped = Skips::new();
    for (kernel, word, policy, reason, bits) in skips {
        grouped
            .entry((kernel, word, policy, reason))
            .or_default()
            .push(bits);
    }
    let skips: Vec<Skip> = grouped
        .into_iter()
        .map(|((kernel, word, policy, reason), mut bits)| {
            bits.sort_unstable();
            bits.dedup();
            Skip {
                kernel,
                word,
                policy,
                reason,
                bits,
            }
        })
        .collect();
    let mut reproducers = mismatches.into_inner().unwrap_or_default();
    reproducers.sort();
    reproducers.truncate(MAX_SHOWN);
    let summary = Summary {
        seed: args.seed,
        cases_per_size: args.cases,
        sizes,
        algos,
        words,
        runs,
        checks,
        skipped: skips.iter().map(|s| s.bits.len() as u64).sum(),
        skips,
        mismatches: mismatch_count.load(Ordering::Relaxed),
        reproducers,
        exhaustive,
        seconds: start.elapsed().as_secs_f64(),
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        print_summary(&summary)?;
    }
    Ok(if summary.mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The summary as text.
fn print_summary(s: &Summary) -> Result<(), CliError> {
    for line in &s.reproducers {
        outln!("{line}")?;
    }
    for skip in &s.skips {
        let bits: Vec<String> = skip.bits.iter().map(u32::to_string).collect();
        outln!(
            "skipped: {} word {} {} at {} bits: {}",
            skip.kernel,
            skip.word,
            skip.policy,
            bits.join(", "),
            skip.reason
        )?;
    }
    if let Some(e) = &s.exhaustive {
        outln!(
            "exhaustive: {} products of {} 8-bit and {} 16-bit (kernel, policy) pairs in {:.1} s",
            e.products,
            e.variants[0],
            e.variants[1],
            e.seconds
        )?;
    }
    outln!(
        "selftest: {} cases per size x {} sizes (seed {}): {} kernel runs, {} checks, {} skipped, {} mismatches, {:.1} s",
        s.cases_per_size,
        s.sizes.len(),
        s.seed,
        s.runs,
        s.checks,
        s.skipped,
        s.mismatches,
        s.seconds
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use montmul::lab::KernelInfo;

    /// CIOS with the lowest bit of its output flipped: every product is wrong.
    struct Broken;
    impl Kernel<u16> for Broken {
        fn info(&self) -> &'static KernelInfo {
            lab::by_name::<u16>("cios").expect("cios").info()
        }
        fn mul_exact(&self, m: &Modulus<u16>, a: &[u16], b: &[u16], out: &mut [u16]) {
            lab::by_name::<u16>("cios")
                .expect("cios")
                .mul_exact(m, a, b, out);
            out[0] ^= 1;
        }
    }
    static BROKEN: Broken = Broken;

    #[test]
    fn a_wrong_kernel_gives_reproducers() {
        let case = Case::new(7, 100, 3);
        let mut t = Tally::default();
        run_variant::<u16>(&BROKEN, Reduction::Full, &case, &mut t);
        assert_eq!(t.runs, 1);
        assert!(t.checks > 10, "{}", t.checks);
        let first = t.mismatches.first().expect("a mismatch");
        assert!(
            first.starts_with(
                "mismatch: kernel=cios word=16 policy=full bits=100 case=3 op=mont_mul"
            ),
            "{first}"
        );
        assert!(first.contains(&format!("n=0x{:x}", case.n)), "{first}");
        // The same case through the real kernel agrees everywhere.
        let mut t = Tally::default();
        run_variant(
            lab::by_name::<u16>("cios").expect("cios"),
            Reduction::Full,
            &case,
            &mut t,
        );
        assert!(t.mismatches.is_empty(), "{:?}", t.mismatches);
        assert_eq!(t.checks, 2 + 5 + 2 * 4 + 2);
        // `auto` adds the fixed base's powers on the exponents 0 (two forms) and the
        // short one.
        let mut t = Tally::default();
        run_variant(
            lab::by_name::<u16>("auto").expect("auto"),
            Reduction::Full,
            &case,
            &mut t,
        );
        assert!(t.mismatches.is_empty(), "{:?}", t.mismatches);
        assert_eq!(t.checks, 2 + 5 + 2 * 4 + 3 + 2);
    }

    #[test]
    fn cases_are_reproducible_and_edge_first() {
        let (x, y) = (Case::new(5, 65, 4), Case::new(5, 65, 4));
        assert_eq!((&x.n, &x.a, &x.b2, &x.exps), (&y.n, &y.a, &y.b2, &y.exps));
        let one = BigUint::from(1u32);
        assert_eq!(Case::new(5, 65, 0).n, (&one << 65u32) - 1u32);
        assert_eq!(Case::new(5, 65, 1).n, (&one << 64u32) + 1u32);
        let top = Case::new(5, 100, 2).n;
        assert_eq!(&top >> 36u32, (&one << 64u32) - 1u32);
        for i in 0..50 {
            let c = Case::new(9, 33, i);
            assert_eq!(c.n.bits(), 33);
            assert!(c.a < c.n && c.b < c.n && c.a2 < (&c.n << 1u32) && c.b2 < (&c.n << 1u32));
            assert_eq!(c.exps.len(), 4, "a long exponent of every window width");
        }
        assert_eq!(
            Case::new(1, 521, 0).exps.len(),
            3,
            "no long exponent above 512 bits"
        );
    }

    #[test]
    fn kernels_and_words_are_checked() {
        assert_eq!(words(&[]).ok(), Some(montmul::WORD_SIZES.to_vec()));
        assert_eq!(words(&[64, 8, 64]).ok(), Some(vec![8, 64]));
        assert!(words(&[12]).is_err());
        assert!(algos(&names_of(&["auto", "cios"])).is_ok());
        assert!(algos(&names_of(&["no-such-kernel"])).is_err());
        assert_eq!(pairs(&names_of(&["auto"]), &[8, 64]), 2);
        assert_eq!(pairs(&names_of(&["mulx-cios"]), &[8]), 0);
        assert!(pairs(&[], &[64]) > 10);
    }

    #[test]
    fn the_selection_runs_only_what_it_names() {
        let case = Case::new(3, 256, 5);
        let mut t = Tally::default();
        run_word::<u64>(&case, &names_of(&["auto"]), &mut t);
        let mut all = Tally::default();
        run_word::<u64>(&case, &[], &mut all);
        // `auto` offers both policies: two runs, of the 64-bit kernels' many.
        assert_eq!(t.runs, 2);
        assert!(all.runs > 10, "{}", all.runs);
        assert!(t.mismatches.is_empty() && all.mismatches.is_empty());
    }

    /// The lanes seam runs a case everywhere; the multi-buffer kernels run it where this
    /// CPU has AVX-512 IFMA and are listed as skipped elsewhere; a wrong answer in one
    /// job is one mismatch that names the kernel, the call and the job.
    #[test]
    fn the_lane_kernels_run_and_a_wrong_job_is_reported() {
        let case = Case::new(11, 1024, 4);
        let mut x = LaneCase::new(&case);
        let mut t = Tally::default();
        run_lane_variant(SEAM, Reduction::Full, &case, &x, &mut t);
        assert_eq!((t.runs, t.checks), (1, 2 + 5));
        assert!(t.mismatches.is_empty(), "{:?}", t.mismatches);

        let mut all = Tally::default();
        run_lanes(&case, &[], &mut all);
        assert!(all.mismatches.is_empty(), "{:?}", all.mismatches);
        let kernels = lanes::catalog();
        if kernels.len() < 2 || !kernels.iter().all(|k| (k.info.available)()) {
            eprintln!(
                "SKIPPED: the multi-buffer kernels' runs (none on this architecture, or \
                 this CPU lacks AVX-512 IFMA); only their listing as skipped is checked"
            );
            assert_eq!(all.runs, 2, "the seam under both policies");
            for k in kernels {
                let name = k.info.name;
                assert!(all.skips.iter().any(|s| s.0 == name), "{name} not listed");
            }
            return;
        }
        // Both kernels and the seam, each under both policies: eight jobs, three, one,
        // eight products; two, two and two; two and five.
        assert_eq!(all.runs, 6);
        assert_eq!(all.checks, 2 * ((8 + 3 + 1 + 8) + (2 + 2 + 2) + (2 + 5)));
        assert!(all.skips.is_empty());

        x.powers[5] += 1u32;
        x.products[2] += 1u32;
        let mut t = Tally::default();
        run_lane_variant("amm52x8-ifma", Reduction::Lazy, &case, &x, &mut t);
        let prefix = "mismatch: kernel=amm52x8-ifma word=64 policy=lazy bits=1024 case=4 op=";
        assert_eq!(t.mismatches.len(), 2, "{:?}", t.mismatches);
        assert!(t.mismatches[0].starts_with(&format!("{prefix}pow_lanes_mb8 job 5 (8 at once)")));
        assert!(t.mismatches[1].starts_with(&format!("{prefix}mul_lanes_mb8 job 2 (8 at once)")));

        // Jobs 3 and 5 wrong: the pair's second call, and its call on moduli given
        // `amm52-ifma` (jobs 5 and 6).
        x.powers[3] += 1u32;
        let mut t = Tally::default();
        run_lane_variant("amm52x2-ifma", Reduction::Full, &case, &x, &mut t);
        assert_eq!(t.mismatches.len(), 2, "{:?}", t.mismatches);
        assert!(t.mismatches[0].contains("op=pow_x2_lockstep job 3 (2 at once)"));
        let named = "op=pow_x2_lockstep (moduli on amm52-ifma) job 5 (2 at once)";
        assert!(t.mismatches[1].contains(named));
    }

    fn names_of(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn sizes_are_checked() {
        assert_eq!(sizes(&[]).ok(), Some(DEFAULT_BITS.to_vec()));
        assert!(sizes(&[1]).is_err());
        assert!(sizes(&[16385]).is_err());
        assert!(sizes(&[2; 65]).is_err());
        assert_eq!(sizes(&[2, 16384]).ok(), Some(vec![2, 16384]));
    }
}
