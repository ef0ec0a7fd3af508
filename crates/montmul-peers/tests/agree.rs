//! Every peer computes the same products and powers as num-bigint, on random inputs of
//! the benchmark sizes and on edge operands (0, 1, n-1).

use montmul_peers::{all, Inputs};
use num_bigint::BigUint;

/// Deterministic bytes (SplitMix64), so a failure is reproducible.
fn bytes(seed: &mut u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            *seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = *seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            (z ^ (z >> 27)) as u8
        })
        .collect()
}

fn inputs(seed: &mut u64, bits: usize, a: Option<BigUint>) -> Inputs {
    let mut n = bytes(seed, bits / 8);
    n[0] |= 0x80;
    *n.last_mut().unwrap() |= 1;
    let nn = BigUint::from_bytes_be(&n);
    let below = |seed: &mut u64| BigUint::from_bytes_be(&bytes(seed, bits / 8)) % &nn;
    let a = a.map(|a| a % &nn).unwrap_or_else(|| below(seed));
    let b = below(seed);
    let e = BigUint::from_bytes_be(&bytes(seed, bits / 8)) | BigUint::from(1u32);
    Inputs {
        n,
        a: a.to_bytes_be(),
        b: b.to_bytes_be(),
        e: e.to_bytes_be(),
    }
}

#[test]
fn peers_agree_with_num_bigint() {
    let mut seed = 7;
    for bits in [256, 512, 1024, 2048] {
        let edge = [None, Some(BigUint::from(0u32)), Some(BigUint::from(1u32))];
        for a in edge {
            let inp = inputs(&mut seed, bits, a);
            let (n, a, b, e) = (
                BigUint::from_bytes_be(&inp.n),
                BigUint::from_bytes_be(&inp.a),
                BigUint::from_bytes_be(&inp.b),
                BigUint::from_bytes_be(&inp.e),
            );
            let mul = montmul_peers::trim(&((&a * &b) % &n).to_bytes_be());
            let exp = montmul_peers::trim(&a.modpow(&e, &n).to_bytes_be());
            let peers = all(&inp);
            assert!(peers.len() >= 5, "crypto-bigint covers {bits} bits");
            for mut p in peers {
                assert_eq!(p.mul_result(), mul, "{} mul at {bits} bits", p.name());
                assert_eq!(p.exp_result(), exp, "{} exp at {bits} bits", p.name());
                // The timing loops run and leave the contender usable.
                p.run_mul(3);
                p.run_sqr(3);
                assert_eq!(p.mul_result(), mul, "{} after run_*", p.name());
            }
        }
    }
}
