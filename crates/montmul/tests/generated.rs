//! `gen-cios`, the kernels written by `montmul gen` and committed in
//! `src/generated/`, at every size it has code for: random and edge moduli (top bit set
//! and clear within the size, all-ones limbs, the smallest modulus of the size) and edge
//! operands (0, 1, n-1, all-ones limbs, R mod n), against the num-bigint oracle; and the
//! typed errors for what it does not cover.

use montmul::lab::{self as kernel, Kernel};
use montmul::{Error, Modulus, Reduction, Residue};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// The limb counts of the committed generated files.
const LIMB_COUNTS: &[usize] = &[4, 6, 8, 16, 32];

fn gen_cios() -> &'static dyn Kernel<u64> {
    kernel::by_name::<u64>("gen-cios").expect("gen-cios is registered")
}

/// Moduli of `limbs` 64-bit limbs: the test kit's edge moduli at the full size (top
/// bit set, all-ones limbs) and one bit below it (top bit clear), the smallest modulus
/// of this limb count, and random ones.
fn moduli(limbs: usize, rng: &mut TestRng) -> Vec<BigUint> {
    let bits = 64 * limbs as u32;
    let one = BigUint::from(1u32);
    let mut out = kit::edge_moduli(bits, 64);
    out.extend(kit::edge_moduli(bits - 1, 64));
    // The fewest bits that still take `limbs` limbs: 2^(bits - 64) + 1.
    out.push((&one << (bits - 64)) + 1u32);
    for b in [bits, bits - 1, bits - 63] {
        out.push(kit::random_modulus(rng, b));
    }
    out
}

/// Every product and square of `ops` through the kernel, equal to the oracle's.
fn check_products(m: &Modulus<u64>, n: &BigUint, ops: &[BigUint]) {
    let s = m.limbs();
    let r_bits = 64 * s as u32;
    let mut out = vec![0u64; s];
    for a in ops {
        let al = kit::to_limbs::<u64>(a, s);
        for b in ops {
            m.mont_mul(&al, &kit::to_limbs::<u64>(b, s), &mut out);
            assert_eq!(
                kit::from_limbs(&out),
                kit::mont_mul(a, b, n, r_bits),
                "mul, {s} limbs: n={n:x} a={a:x} b={b:x}"
            );
        }
        m.mont_sqr(&al, &mut out);
        assert_eq!(
            kit::from_limbs(&out),
            kit::mont_mul(a, a, n, r_bits),
            "sqr, {s} limbs: n={n:x} a={a:x}"
        );
    }
}

#[test]
fn every_committed_size_against_the_oracle() {
    assert_eq!(gen_cios().limb_counts(), Some(LIMB_COUNTS));
    let mut rng = TestRng::new(0x6e6e);
    for &limbs in LIMB_COUNTS {
        for n in moduli(limbs, &mut rng) {
            let m = Modulus::with_kernel(
                &kit::to_limbs::<u64>(&n, limbs),
                gen_cios(),
                Reduction::Full,
            )
            .unwrap_or_else(|e| panic!("{limbs} limbs, n={n:x}: {e}"));
            assert_eq!(m.limbs(), limbs);
            assert_eq!(m.engine().info().name, "gen-cios");
            let mut ops = kit::edge_operands(&n, 64, 64 * limbs as u32);
            for _ in 0..4 {
                ops.push(kit::random_below(&mut rng, &n));
            }
            check_products(&m, &n, &ops);

            // Through `Residue`: a product, a square and a power in normal form.
            let (a, b) = (&ops[ops.len() - 1], &ops[ops.len() - 2]);
            let e = kit::random_below_pow2(&mut rng, 64);
            let ra = Residue::new(&m, &kit::to_limbs::<u64>(a, limbs)).expect("a < n");
            let rb = Residue::new(&m, &kit::to_limbs::<u64>(b, limbs)).expect("b < n");
            assert_eq!(kit::from_limbs(&(&ra * &rb).to_limbs()), (a * b) % &n);
            assert_eq!(kit::from_limbs(&ra.square().to_limbs()), (a * a) % &n);
            assert_eq!(
                kit::from_limbs(&ra.pow(&e.to_bytes_be()).to_limbs()),
                kit::pow_mod(a, &e, &n)
            );
        }
    }
}

#[test]
fn other_sizes_policies_and_words_are_typed_errors() {
    let mut rng = TestRng::new(7);
    for limbs in [1usize, 2, 3, 5, 7, 9, 12, 24, 31, 33, 64, 256] {
        let n = kit::random_modulus(&mut rng, 64 * limbs as u32);
        let made = Modulus::with_kernel(
            &kit::to_limbs::<u64>(&n, limbs),
            gen_cios(),
            Reduction::Full,
        );
        assert_eq!(
            made.err(),
            Some(Error::UnsupportedSize {
                algo: "gen-cios",
                limbs
            })
        );
    }
    // A 4-limb modulus with leading zero limbs is a 4-limb modulus.
    let mut padded = vec![u64::MAX; 4];
    padded.extend([0, 0]);
    let m = Modulus::with_kernel(&padded, gen_cios(), Reduction::Full).expect("4 limbs");
    assert_eq!(m.limbs(), 4);

    let n = [u64::MAX; 4];
    assert_eq!(
        Modulus::with_kernel(&n, gen_cios(), Reduction::Lazy).err(),
        Some(Error::UnsupportedReduction {
            algo: "gen-cios",
            reduction: Reduction::Lazy
        })
    );
    // Only the list of 64-bit words has it; by name with 32-bit words, the word size
    // is refused.
    assert_eq!(
        kernel::by_name::<u32>("gen-cios").err(),
        Some(Error::UnsupportedWord {
            algo: "gen-cios",
            word: 32
        })
    );
    assert_eq!(
        Error::UnsupportedSize {
            algo: "gen-cios",
            limbs: 5
        }
        .to_string(),
        "algorithm 'gen-cios' has no code for moduli of 5 limbs (see `montmul algos`)"
    );
}
