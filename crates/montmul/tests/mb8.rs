//! `amm52x8-ifma` against the num-bigint oracle: the 8-lane product at 512 .. 8192 bits
//! (and odd sizes, and a one-limb modulus) under both reduction policies, lanes with
//! different moduli and some with edge inputs; `pow_lanes` through the lanes seam and
//! the 8-lane ladder directly against `Residue::pow` for batches of 1 ..= 8 lanes; the
//! ladder's steps (a `Trace`) depend on the exponents' byte lengths only. On a CPU
//! without AVX-512 IFMA each test says so and returns.

#![cfg(target_arch = "x86_64")]

use montmul::arch::x86_64::avx512ifma::mb8::{LaneModulus, Lanes8, LANES};
use montmul::arch::x86_64::avx512ifma::{self as ifma, mb8_exp, Amm52Ifma};
use montmul::arch::Avx512Ifma;
use montmul::exp::Step;
use montmul::lanes::pow_lanes;
use montmul::{Modulus, Reduction, Residue};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::rand_core::RngCore;
use montmul_testkit::{self as kit, TestRng};

/// The token, or `None` after printing the skip.
fn token(test: &str) -> Option<Avx512Ifma> {
    let token = Avx512Ifma::new();
    if token.is_none() || !ifma::is_available() {
        montmul_testkit::skipped!("{test}: SKIPPED: no AVX-512 IFMA");
    }
    token
}

fn modulus(n: &BigUint, r: Reduction) -> Modulus<u64> {
    let limbs = kit::to_limbs::<u64>(n, (n.bits() as u32).div_ceil(64) as usize);
    Modulus::with_kernel(&limbs, &Amm52Ifma, r).expect("valid odd modulus")
}

fn lane(m: &Modulus<u64>) -> LaneModulus<'_> {
    LaneModulus {
        n: m.n(),
        n0: m.n0(),
        r1: m.r1(),
        reduction: m.reduction(),
    }
}

/// Eight moduli of `bits` bits (so one limb count under one policy): lanes 1 and 2
/// share lane 0's, lane 3 is an edge modulus (all ones, one high bit, ...), the rest
/// random.
fn moduli(rng: &mut TestRng, bits: u32, edge: usize) -> Vec<BigUint> {
    let edges = kit::edge_moduli(bits, 64);
    let first = kit::random_modulus(rng, bits);
    (0..LANES)
        .map(|l| match l {
            0..=2 => first.clone(),
            3 => edges[edge % edges.len()].clone(),
            _ => kit::random_modulus(rng, bits),
        })
        .collect()
}

/// An operand for lane `l` below the modulus' bound: edge values in some lanes
/// (0, 1, n - 1, all-ones limbs, the bound - 1), random in the others.
fn operand(rng: &mut TestRng, m: &Modulus<u64>, n: &BigUint, l: usize, round: usize) -> BigUint {
    let bound = kit::from_limbs(m.bound());
    let s = m.limbs() as u32;
    let edges = kit::edge_operands(n, 64, 64 * s);
    match (l + round) % 8 {
        0 => BigUint::from(0u32),
        1 => BigUint::from(1u32),
        2 => n - 1u32,
        3 => edges[round % edges.len()].clone(),
        4 => &bound - 1u32,
        _ => kit::random_below(rng, &bound),
    }
}

#[test]
fn eight_lane_products_match_the_oracle() {
    let Some(token) = token("eight_lane_products_match_the_oracle") else {
        return;
    };
    let mut rng = TestRng::new(0x3b8);
    let sizes = [
        63u32, 64, 512, 521, 700, 1024, 1536, 2048, 2500, 3072, 4096, 8192,
    ];
    for r in [Reduction::Full, Reduction::Lazy] {
        for (k, &bits) in sizes.iter().enumerate() {
            let ns = moduli(&mut rng, bits, k);
            let ms: Vec<Modulus<u64>> = ns.iter().map(|n| modulus(n, r)).collect();
            let s = ms[0].limbs();
            assert!(ms.iter().all(|m| m.limbs() == s));
            let lanes: Vec<LaneModulus<'_>> = ms.iter().map(lane).collect();
            // All eight lanes and a partial batch of five (512-bit registers); four,
            // three and one lane (256-bit registers where the CPU has AVX-512VL).
            for used in [LANES, 5, 4, 3, 1] {
                let dom = Lanes8::new(token, &lanes[..used]).unwrap();
                let rounds = if bits > 4096 { 2 } else { 6 };
                for round in 0..rounds {
                    let a: Vec<BigUint> = (0..used)
                        .map(|l| operand(&mut rng, &ms[l], &ns[l], l, round))
                        .collect();
                    let b: Vec<BigUint> = (0..used)
                        .map(|l| operand(&mut rng, &ms[l], &ns[l], l + 3, round))
                        .collect();
                    let al: Vec<Vec<u64>> = a.iter().map(|x| kit::to_limbs(x, s)).collect();
                    let bl: Vec<Vec<u64>> = b.iter().map(|x| kit::to_limbs(x, s)).collect();
                    let ar: Vec<&[u64]> = al.iter().map(|x| x.as_slice()).collect();
                    let br: Vec<&[u64]> = bl.iter().map(|x| x.as_slice()).collect();
                    let mut outs = vec![Vec::new(); used];
                    dom.mul(&ar, &br, &mut outs);
                    for l in 0..used {
                        let got = kit::from_limbs(&outs[l]);
                        let want = kit::mont_mul(&a[l], &b[l], &ns[l], 64 * s as u32);
                        let bound = kit::from_limbs(ms[l].bound());
                        assert!(
                            got < bound,
                            "{bits} bits {r:?} lane {l}: not below the bound"
                        );
                        assert_eq!(
                            got % &ns[l],
                            want,
                            "{bits} bits {r:?} lane {l} round {round}: a {:x} b {:x} n {:x}",
                            a[l],
                            b[l],
                            ns[l]
                        );
                    }
                }
            }
        }
    }
}

/// Refuses lane counts outside 1 ..= 8 and moduli of different limb counts, with typed
/// errors.
#[test]
fn refuses_bad_lane_sets() {
    let Some(token) = token("refuses_bad_lane_sets") else {
        return;
    };
    let m1 = modulus(&BigUint::from(0xffff_ffff_ffff_ffc5u64), Reduction::Full);
    let m2 = modulus(&((BigUint::from(1u32) << 100) + 1u32), Reduction::Full);
    assert!(Lanes8::new(token, &[]).is_err());
    assert!(Lanes8::new(token, &vec![lane(&m1); 9]).is_err());
    assert!(Lanes8::new(token, &[lane(&m1), lane(&m2)]).is_err());
}

/// Exponents for `lanes` lanes: lengths up to `max` bytes, a zero exponent, leading zero
/// bytes, an all-ones one.
fn exponents(rng: &mut TestRng, lanes: usize, max: usize) -> Vec<Vec<u8>> {
    (0..lanes)
        .map(|l| match l % 4 {
            0 => kit::random_below_pow2(rng, 8 * max as u32).to_bytes_be(),
            1 => vec![0; l % 3],
            2 => {
                let mut e = kit::random_below_pow2(rng, 8 * (l as u32 + 1)).to_bytes_be();
                e.insert(0, 0);
                e
            }
            _ => vec![0xff; 1 + l % max],
        })
        .collect()
}

/// The ladder directly (every lane count, so whatever the engine's thresholds) and the
/// seam, against `Residue::pow`, moduli of one size, both policies.
#[test]
fn pow_lanes_matches_residue_pow() {
    let Some(token) = token("pow_lanes_matches_residue_pow") else {
        return;
    };
    let mut rng = TestRng::new(0x9e8);
    for (k, (bits, r)) in [
        (512u32, Reduction::Full),
        (1024, Reduction::Full),
        (1024, Reduction::Lazy),
        (2048, Reduction::Full),
        (1100, Reduction::Lazy),
    ]
    .into_iter()
    .enumerate()
    {
        let ns = moduli(&mut rng, bits, k);
        let ms: Vec<Modulus<u64>> = ns.iter().map(|n| modulus(n, r)).collect();
        for used in 1..=LANES {
            let bases: Vec<Residue<u64>> = (0..used)
                .map(|l| {
                    let x = operand(&mut rng, &ms[l], &ns[l], l, k).min(&ns[l] - 1u32);
                    Residue::from_be_bytes(&ms[l], &x.to_bytes_be()).unwrap()
                })
                .collect();
            let exps = exponents(&mut rng, used, 24);
            let refs: Vec<&[u8]> = exps.iter().map(|e| e.as_slice()).collect();
            let want: Vec<Residue<u64>> = bases.iter().zip(&refs).map(|(b, e)| b.pow(e)).collect();
            // The seam (Mb8 where the engine picks it).
            assert_eq!(
                pow_lanes(&bases, &refs).unwrap(),
                want,
                "{bits} bits, {used} lanes"
            );
            // The ladder itself.
            let lanes: Vec<LaneModulus<'_>> = ms[..used].iter().map(lane).collect();
            let dom = Lanes8::for_pow(token, &lanes).unwrap();
            let limbs: Vec<&[u64]> = bases.iter().map(|b| b.montgomery_limbs()).collect();
            let outs = mb8_exp::pow(&dom, &limbs, &refs, &mut ());
            for l in 0..used {
                let got = Residue::from_montgomery(&ms[l], outs[l].clone()).unwrap();
                assert_eq!(got, want[l], "{bits} bits {r:?}, {used} lanes, lane {l}");
                // And the oracle, for one lane in each batch.
                if l == 0 {
                    let b = kit::from_limbs(&bases[0].to_limbs());
                    let e = BigUint::from_bytes_be(&exps[0]);
                    let v = BigUint::from_bytes_be(&got.to_be_bytes());
                    assert_eq!(v, kit::pow_mod(&b, &e, &ns[0]));
                }
            }
        }
    }
}

/// The ladder's steps depend on the exponents' byte lengths only: two sets of
/// exponents of the same lengths (one all zeros, one random) give the same trace, the
/// one `Residue::pow` gives for the longest length.
#[test]
fn ladder_steps_depend_on_lengths_only() {
    let Some(token) = token("ladder_steps_depend_on_lengths_only") else {
        return;
    };
    let mut rng = TestRng::new(0x7ace);
    let ns = moduli(&mut rng, 1024, 0);
    let ms: Vec<Modulus<u64>> = ns.iter().map(|n| modulus(n, Reduction::Full)).collect();
    let lanes: Vec<LaneModulus<'_>> = ms.iter().map(lane).collect();
    let dom = Lanes8::for_pow(token, &lanes).unwrap();
    let bases: Vec<Residue<u64>> = ms
        .iter()
        .map(|m| Residue::from_be_bytes(m, &[0x12, 0x34, 0x56]).unwrap())
        .collect();
    let limbs: Vec<&[u64]> = bases.iter().map(|b| b.montgomery_limbs()).collect();
    let lengths = [40usize, 3, 40, 0, 17, 40, 1, 8];
    let mut traces = Vec::new();
    for fill in 0..3 {
        let exps: Vec<Vec<u8>> = lengths
            .iter()
            .map(|&len| match fill {
                0 => vec![0; len],
                1 => vec![0xff; len],
                _ => {
                    let mut e = vec![0; len];
                    rng.fill_bytes(&mut e);
                    e
                }
            })
            .collect();
        let refs: Vec<&[u8]> = exps.iter().map(|e| e.as_slice()).collect();
        let mut trace: Vec<Step> = Vec::new();
        mb8_exp::pow(&dom, &limbs, &refs, &mut trace);
        traces.push(trace);
    }
    assert!(!traces[0].is_empty());
    assert_eq!(traces[0], traces[1]);
    assert_eq!(traces[0], traces[2]);
    let mut single: Vec<Step> = Vec::new();
    let _ = bases[0].pow_traced(&[0x5a; 40], &mut single);
    assert_eq!(traces[0], single);
}
