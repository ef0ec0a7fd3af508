//! Every peer computes the same products and powers as num-bigint, on random inputs of
//! the benchmark sizes and on edge operands (0, 1, n-1).

use montmul_peers::{all, Inputs};
use montmul_testkit::{self as kit, TestRng};
use num_bigint::BigUint;

/// Inputs of `bits` bits from the test kit's generator, so a failure is reproducible:
/// an odd modulus with its top bit set, `a` (or the given one, reduced), `b` and an odd
/// exponent.
fn inputs(rng: &mut TestRng, bits: u32, a: Option<BigUint>) -> Inputs {
    let n = kit::random_modulus(rng, bits);
    let a = a
        .map(|a| a % &n)
        .unwrap_or_else(|| kit::random_below(rng, &n));
    let b = kit::random_below(rng, &n);
    let e = kit::random_below_pow2(rng, bits) | BigUint::from(1u32);
    Inputs {
        n: n.to_bytes_be(),
        a: a.to_bytes_be(),
        b: b.to_bytes_be(),
        e: e.to_bytes_be(),
    }
}

#[test]
fn peers_agree_with_num_bigint() {
    let mut rng = TestRng::new(7);
    for bits in [256, 512, 1024, 2048] {
        let edge = [None, Some(BigUint::from(0u32)), Some(BigUint::from(1u32))];
        for a in edge {
            let inp = inputs(&mut rng, bits, a);
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
