//! `montmul bench --threads N`: Montgomery multiplication on real threads.
//!
//! Two experiments, each measured against one thread in the same run:
//!
//! - **method-II** (seed 002): one multiplication split over p = 1..N threads that meet
//!   once per word of the multiplier ([`montmul::parallel::mont_mul_split`]), at
//!   4096..65536 bits by default. The seed asks from which size on the work of one
//!   iteration outweighs the exchange between cores; the ratio column answers it here.
//! - **batches**: independent exponentiations and multiplications spread over a rayon
//!   pool of p threads ([`montmul::parallel::pow_batch`],
//!   [`montmul::parallel::mul_batch`]), which is how throughput scales with cores.
//!
//! Every configuration's output is checked against num-bigint before it is timed.

use std::time::Duration;

use montmul::parallel::{mont_mul_split, mul_batch, pow_batch, threads_used};
use montmul::{lab, Limb, Modulus, Reduction, Residue};
use montmul_peers::Inputs;
use num_bigint::BigUint;

use crate::bench::{measure, Args, Row, Stat};
use crate::output::outln;
use crate::CliError;

/// Limbs of `x`, exactly `s` of them.
fn limbs(x: &BigUint, s: usize) -> Vec<u64> {
    let mut v = x.to_u64_digits();
    v.resize(s, 0);
    v
}

/// Products in one `mul-batch` batch: enough for each thread's share to outlast the
/// pool's hand-off many times over.
const MUL_BATCH: usize = 4096;

/// Times `work` run inside each pool (the same work on 1..N threads), one row per pool.
fn time_on_pools<R: Send>(
    pools: &[rayon::ThreadPool],
    args: &Args,
    target: Duration,
    (op, bits): (&'static str, u32),
    work: &(dyn Fn() -> R + Sync),
) -> Vec<Row> {
    let mut runners: Vec<Box<dyn FnMut(u64) + '_>> = pools
        .iter()
        .map(|pool| {
            Box::new(move |iters: u64| {
                for _ in 0..iters {
                    std::hint::black_box(pool.install(work));
                }
            }) as Box<dyn FnMut(u64)>
        })
        .collect();
    let times = measure(&mut runners, args.rounds, target, args.stat);
    pools
        .iter()
        .zip(times)
        .map(|(pool, ns)| Row {
            op,
            bits,
            name: format!("rayon:{}", pool.current_num_threads()),
            ns,
        })
        .collect()
}

/// Seed 002's method-II: one multiplication at each size of `sizes` split over the
/// threads of each pool, checked against num-bigint, then timed with the pools' rounds
/// interleaved, summarised by `stat`. One row per (size, pool), named
/// `method-ii:<threads used>`. Shared by `montmul bench --threads` and `montmul
/// report`'s seed 002 section.
pub(crate) fn method_ii(
    pools: &[rayon::ThreadPool],
    sizes: &[u32],
    rounds: usize,
    target: Duration,
    stat: Stat,
    seed: u64,
) -> Result<Vec<Row>, CliError> {
    let mut rows = Vec::new();
    for &bits in sizes {
        let inputs = Inputs::random(bits, seed);
        let f = BigUint::from_bytes_be;
        let (n, a, b) = (f(&inputs.n), f(&inputs.a), f(&inputs.b));
        let s = (bits / 64) as usize;
        let nl = limbs(&n, s);
        let n0 = u64::inv_mod_word(nl[0]).wrapping_neg();
        let (al, bl) = (limbs(&a, s), limbs(&b, s));
        // The oracle: a * b * 2^(-64 s) mod n.
        let r_inv = BigUint::from(2u32)
            .modpow(&BigUint::from(64 * s as u64), &n)
            .modinv(&n)
            .ok_or_else(|| CliError("the modulus must be odd".into()))?;
        let want = limbs(&(&a * &b * r_inv % &n), s);
        for pool in pools {
            let mut out = vec![0u64; s];
            mont_mul_split(&nl, n0, &al, &bl, &mut out, Some(pool), false);
            if out != want {
                return Err(CliError(format!(
                    "method-II on {} threads disagrees with num-bigint at {bits} bits",
                    pool.current_num_threads()
                )));
            }
        }
        let mut states: Vec<(Vec<u64>, Vec<u64>)> =
            pools.iter().map(|_| (al.clone(), vec![0u64; s])).collect();
        let mut runners: Vec<Box<dyn FnMut(u64) + '_>> = states
            .iter_mut()
            .zip(pools)
            .map(|((x, t), pool)| {
                let (nl, bl) = (&nl, &bl);
                Box::new(move |iters: u64| {
                    for _ in 0..iters {
                        mont_mul_split(nl, n0, x, bl, t, Some(pool), false);
                        std::mem::swap(x, t);
                    }
                }) as Box<dyn FnMut(u64)>
            })
            .collect();
        let times = measure(&mut runners, rounds, target, stat);
        for (pool, ns) in pools.iter().zip(times) {
            let used = threads_used(s, pool.current_num_threads());
            rows.push(Row {
                op: "mul-split",
                bits,
                name: format!("method-ii:{used}"),
                ns,
            });
        }
    }
    Ok(rows)
}

/// `montmul bench --threads N`.
pub fn run(args: &Args, threads: usize) -> Result<(), CliError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads == 0 || threads > 64 {
        return Err(CliError(format!(
            "--threads must be in 1..=64, not {threads}"
        )));
    }
    let sizes = if args.bits.is_empty() {
        vec![4096, 8192, 16384, 32768, 65536]
    } else {
        args.bits.clone()
    };
    for &b in &sizes {
        if !(128..=65536).contains(&b) || b % 64 != 0 {
            return Err(CliError(format!(
                "--bits: {b} is not a multiple of 64 in 128..65536 (with --threads)"
            )));
        }
    }
    if threads > cores {
        eprintln!("note: {threads} threads on {cores} cores: the extra threads share cores");
    }
    let target = Duration::from_millis(args.batch_ms.max(1));
    let counts: Vec<usize> = (1..=threads).collect();
    let pools = counts
        .iter()
        .map(|&p| rayon::ThreadPoolBuilder::new().num_threads(p).build())
        .collect::<Result<Vec<_>, _>>()?;
    let mut rows = Vec::new();

    rows.extend(method_ii(
        &pools,
        &sizes,
        args.rounds,
        target,
        args.stat,
        args.seed,
    )?);

    // Batches: 2 * threads exponentiations of 2048-bit residues with 2048-bit exponents.
    let inputs = Inputs::random(2048, args.seed);
    let m = Modulus::<u64>::with_kernel(
        &montmul::encoding::be_bytes_to_limbs(&inputs.n),
        lab::default::<u64>(),
        Reduction::Full,
    )?;
    let base = Residue::from_be_bytes(&m, &inputs.a)?;
    let batch: Vec<Residue<u64>> = (0..2 * threads).map(|_| base.clone()).collect();
    let want = BigUint::from_bytes_be(&inputs.a).modpow(
        &BigUint::from_bytes_be(&inputs.e),
        &BigUint::from_bytes_be(&inputs.n),
    );
    for pool in &pools {
        let got = pool.install(|| pow_batch(&batch, &inputs.e));
        if got
            .iter()
            .any(|r| BigUint::from_bytes_be(&r.to_be_bytes()) != want)
        {
            return Err(CliError(
                "a batched exponentiation disagrees with num-bigint".into(),
            ));
        }
    }
    let work = || pow_batch(&batch, &inputs.e);
    rows.extend(time_on_pools(
        &pools,
        args,
        target,
        ("pow-batch", 2048),
        &work,
    ));

    // MUL_BATCH products of 2048-bit residues: a_k b with a_k = a + k mod n.
    let (n, a, b) = (
        BigUint::from_bytes_be(&inputs.n),
        BigUint::from_bytes_be(&inputs.a),
        BigUint::from_bytes_be(&inputs.b),
    );
    let factors: Vec<BigUint> = (0..MUL_BATCH).map(|k| (&a + k) % &n).collect();
    let left = factors
        .iter()
        .map(|x| Residue::from_be_bytes(&m, &x.to_bytes_be()))
        .collect::<Result<Vec<_>, _>>()?;
    let right = vec![Residue::from_be_bytes(&m, &inputs.b)?; MUL_BATCH];
    for pool in &pools {
        let got = pool.install(|| mul_batch(&left, &right));
        let wrong = got
            .iter()
            .zip(&factors)
            .any(|(r, x)| BigUint::from_bytes_be(&r.to_be_bytes()) != x * &b % &n);
        if wrong {
            return Err(CliError(
                "a batched multiplication disagrees with num-bigint".into(),
            ));
        }
    }
    let work = || mul_batch(&left, &right);
    rows.extend(time_on_pools(
        &pools,
        args,
        target,
        ("mul-batch", 2048),
        &work,
    ));

    if args.json {
        outln!("{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(());
    }
    outln!(
        "{:<10} {:>6}  {:<14} {:>14} {:>9}",
        "op",
        "bits",
        "impl",
        "ns",
        "speed-up"
    )?;
    for r in &rows {
        let one = rows
            .iter()
            .find(|o| o.op == r.op && o.bits == r.bits)
            .map_or(r.ns, |o| o.ns);
        outln!(
            "{:<10} {:>6}  {:<14} {:>14.1} {:>8.2}x",
            r.op,
            r.bits,
            r.name,
            r.ns,
            one / r.ns
        )?;
    }
    outln!(
        "mul-split: one multiplication over p threads (seed 002 method-II); pow-batch: {} \
         exponentiations, mul-batch: {MUL_BATCH} multiplications of 2048 bits on a pool of p \
         threads. speed-up is against p = 1.",
        2 * threads
    )?;
    Ok(())
}
