//! The lanes seam (`montmul::lanes`) against the num-bigint oracle: every lane of a
//! batch, with moduli of different sizes and word widths mixed in one call, equal to
//! `a * b mod n` and `b^e mod n`.

use montmul::lanes::{mul_lanes, pow_lanes, MAX_LANES};
use montmul::{Error, Limb, Modulus, Residue};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// A residue of `x` (below n) in `m`.
fn residue<L: Limb>(m: &Modulus<L>, x: &BigUint) -> Residue<L> {
    Residue::from_be_bytes(m, &x.to_bytes_be()).unwrap()
}

fn value<L: Limb>(x: &Residue<L>) -> BigUint {
    BigUint::from_bytes_be(&x.to_be_bytes())
}

/// Every lane count from 0 to MAX_LANES, moduli of mixed sizes (same modulus in some
/// lanes, different in others), edge operands included.
fn check_width<L: Limb>(rng: &mut TestRng) {
    let sizes = [2u32, 63, 64, 65, 256, 521, 1024, 2048];
    for lanes in 0..=MAX_LANES {
        let mut moduli: Vec<Modulus<L>> = Vec::new();
        let mut ns: Vec<BigUint> = Vec::new();
        for i in 0..lanes {
            // Lanes 1 and 2 share lane 0's modulus (and its handle); the rest differ.
            if (1..3).contains(&i) {
                moduli.push(moduli[0].clone());
                ns.push(ns[0].clone());
                continue;
            }
            let n = kit::random_modulus(rng, sizes[i % sizes.len()].max(3));
            moduli.push(Modulus::<L>::from_be_bytes(&n.to_bytes_be()).unwrap());
            ns.push(n);
        }
        let pick = |rng: &mut TestRng, n: &BigUint, i: usize| match i % 4 {
            0 => n - 1u32,
            1 => BigUint::from(0u32),
            _ => kit::random_below(rng, n),
        };
        let xs: Vec<BigUint> = (0..lanes).map(|i| pick(rng, &ns[i], i)).collect();
        let ys: Vec<BigUint> = (0..lanes).map(|i| pick(rng, &ns[i], i + 2)).collect();
        let a: Vec<_> = (0..lanes).map(|i| residue(&moduli[i], &xs[i])).collect();
        let b: Vec<_> = (0..lanes).map(|i| residue(&moduli[i], &ys[i])).collect();
        let products = mul_lanes(&a, &b).unwrap();
        assert_eq!(products.len(), lanes);
        // Exponents of different lengths per lane, some with leading zero bytes.
        let exps: Vec<Vec<u8>> = (0..lanes)
            .map(|i| {
                let mut e = kit::random_below_pow2(rng, 8 * (i as u32 + 1)).to_bytes_be();
                e.insert(0, 0);
                e
            })
            .collect();
        let exp_refs: Vec<&[u8]> = exps.iter().map(|e| e.as_slice()).collect();
        let powers = pow_lanes(&a, &exp_refs).unwrap();
        for i in 0..lanes {
            let n = &ns[i];
            assert_eq!(
                value(&products[i]),
                &xs[i] * &ys[i] % n,
                "w = {}, lane {i} of {lanes}, mul",
                L::BITS
            );
            let e = BigUint::from_bytes_be(&exps[i]);
            assert_eq!(
                value(&powers[i]),
                kit::pow_mod(&xs[i], &e, n),
                "w = {}, lane {i} of {lanes}, pow",
                L::BITS
            );
        }
    }
}

#[test]
fn every_lane_agrees_with_the_oracle() {
    let mut rng = TestRng::new(0x1a9e5);
    check_width::<u8>(&mut rng);
    check_width::<u16>(&mut rng);
    check_width::<u32>(&mut rng);
    check_width::<u64>(&mut rng);
}

#[test]
fn bad_batches_are_typed_errors() {
    let m = Modulus::<u32>::from_hex("f1").unwrap();
    let x = Residue::from_hex(&m, "7").unwrap();
    let many = vec![x.clone(); MAX_LANES + 1];
    assert!(matches!(
        pow_lanes(&many, &[&[1u8][..]; MAX_LANES + 1]),
        Err(Error::TooManyLanes { .. })
    ));
    assert!(matches!(
        mul_lanes(&many[..3], &many[..2]),
        Err(Error::WrongLength {
            expected: 3,
            got: 2
        })
    ));
}
