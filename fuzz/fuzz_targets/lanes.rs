//! The lanes seam against the num-bigint oracle: one to eight jobs of 64-bit moduli
//! from the fuzzer (one size class, or each its own size; some lanes sharing a
//! modulus; each on `auto`, `amm52-ifma` or `cios`, under either policy), through
//! every engine and multi-buffer form montmul has: `pow_lanes` and `mul_lanes` (the
//! engine the library picks), `pow_lanes_mb8` and `mul_lanes_mb8` (the 8-lane kernel
//! whatever the batch), and `pow_x2` / `pow_x2_lockstep` (the pair kernel) on the
//! first two lanes. Every result must be the lane's own `b^e mod n` or `a b mod n`.
//!
//! The forced forms answer with a typed error where they cannot run the batch (no
//! AVX-512 IFMA, moduli of different limb or digit counts, a kernel they do not
//! cover); such an answer is skipped, a result is always checked.
#![no_main]

use libfuzzer_sys::fuzz_target;
use montmul::lanes::{
    mul_lanes, mul_lanes_mb8, pow_lanes, pow_lanes_mb8, pow_x2, pow_x2_lockstep, MAX_LANES,
};
use montmul::{Modulus, Reduction, Residue};
use montmul_fuzz::{big, from_limbs, modulus_for, odd_modulus, operand, Input};
use num_bigint::BigUint;

/// The kernels a lane's modulus may run on: the two the multi-buffer forms take, and
/// one they do not (the batch then mixes engines).
const KERNELS: [&str; 3] = ["auto", "amm52-ifma", "cios"];

/// The most bytes of a lane's modulus: 4096 bits, the pair kernel's and the 8-lane
/// kernel's largest size class the fuzzer reaches in reasonable time.
const MAX_BYTES: usize = 512;

/// The most bytes of an exponent: enough for every window width of the ladders'
/// first windows, short enough that eight 4096-bit lanes stay fast.
const MAX_EXPONENT: usize = 24;

/// One job: its modulus (as montmul and the oracle see it), base, second factor and
/// exponent.
struct Job<'a> {
    n: BigUint,
    base: Residue<u64>,
    factor: Residue<u64>,
    exponent: &'a [u8],
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let lanes = 1 + input.byte() as usize % MAX_LANES;
    // One size class for every lane (the multi-buffer kernels' case), or each its own.
    let shared_len = 1 + input.len(MAX_BYTES - 1);
    let mixed = input.byte() % 4 == 0;
    let mut moduli: Vec<(BigUint, Modulus<u64>)> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    for lane in 0..lanes {
        let share = input.byte();
        // A lane may reuse an earlier lane's modulus (the same `Modulus`).
        let (n, m) = if lane > 0 && share % 3 == 0 {
            moduli[share as usize % moduli.len()].clone()
        } else {
            let Some(made) = lane_modulus(&mut input, shared_len, mixed) else {
                return;
            };
            moduli.push(made.clone());
            made
        };
        let base = residue(&mut input, &m, &n);
        let factor = residue(&mut input, &m, &n);
        let exponent = input.bytes(MAX_EXPONENT);
        jobs.push(Job {
            n,
            base,
            factor,
            exponent,
        });
    }
    let value = |r: &Residue<u64>| from_limbs(&r.to_limbs());
    let powers: Vec<BigUint> = jobs
        .iter()
        .map(|j| value(&j.base).modpow(&big(j.exponent), &j.n))
        .collect();
    let products: Vec<BigUint> = jobs
        .iter()
        .map(|j| value(&j.base) * value(&j.factor) % &j.n)
        .collect();
    let bases: Vec<Residue<u64>> = jobs.iter().map(|j| j.base.clone()).collect();
    let factors: Vec<Residue<u64>> = jobs.iter().map(|j| j.factor.clone()).collect();
    let exponents: Vec<&[u8]> = jobs.iter().map(|j| j.exponent).collect();

    let got = pow_lanes(&bases, &exponents).expect("pow_lanes takes 1..=8 lanes");
    check("pow_lanes", &got, &powers);
    let got = mul_lanes(&bases, &factors).expect("mul_lanes: each pair shares its modulus");
    check("mul_lanes", &got, &products);
    if let Ok(got) = pow_lanes_mb8(&bases, &exponents) {
        check("pow_lanes_mb8", &got, &powers);
    }
    if let Ok(got) = mul_lanes_mb8(&bases, &factors) {
        check("mul_lanes_mb8", &got, &products);
    }
    if lanes >= 2 {
        let (a, b) = (&jobs[0], &jobs[1]);
        let (x, y) = pow_x2(&a.base, a.exponent, &b.base, b.exponent).expect("pow_x2");
        check("pow_x2", &[x, y], &powers[..2]);
        if let Ok((x, y)) = pow_x2_lockstep(&a.base, a.exponent, &b.base, b.exponent) {
            check("pow_x2_lockstep", &[x, y], &powers[..2]);
        }
    }
});

/// A lane's modulus: `len` bytes (or, when `mixed`, a length of its own) with the top
/// bit set, so that every lane of one class has the same size, made odd; on a kernel
/// and policy of the fuzzer's choice. `None` where the kernel has no code for its size.
fn lane_modulus(input: &mut Input, len: usize, mixed: bool) -> Option<(BigUint, Modulus<u64>)> {
    let len = if mixed {
        1 + input.len(MAX_BYTES - 1)
    } else {
        len
    };
    let kernel = input.byte();
    let policy = input.byte();
    let mut bytes = input.bytes(len).to_vec();
    bytes.resize(len, 0xa5);
    bytes[0] |= 0x80;
    let n = odd_modulus(&bytes);
    let k = montmul::lab::by_name::<u64>(KERNELS[kernel as usize % KERNELS.len()])
        .expect("every listed kernel has 64-bit words");
    let info = k.info();
    if !(info.available)() {
        return None;
    }
    let reduction = if policy % 2 == 0 {
        Reduction::Full
    } else {
        Reduction::Lazy
    };
    let reduction = if info.reductions.contains(&reduction) {
        reduction
    } else {
        info.reductions[0]
    };
    modulus_for::<u64>(&n, k, reduction).map(|m| (n, m))
}

/// A residue of `m` from the fuzzer: the shared `operand` (an edge operand, the top of
/// the policy's range, or bytes reduced), reduced mod n.
fn residue(input: &mut Input, m: &Modulus<u64>, n: &BigUint) -> Residue<u64> {
    Residue::from_be_bytes_reduced(m, &operand(input, m, n).to_bytes_be())
}

/// Each lane's result against the oracle's.
fn check(form: &str, got: &[Residue<u64>], want: &[BigUint]) {
    assert_eq!(got.len(), want.len(), "{form}: one result per lane");
    for (lane, (g, w)) in got.iter().zip(want).enumerate() {
        let g = from_limbs(&g.to_limbs());
        assert_eq!(&g, w, "{form}: lane {lane} of {}", got.len());
    }
}
