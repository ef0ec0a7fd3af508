//! `mulx-cios`, the unrolled `mulx`/`adcx`/`adox` CIOS code, at every size it has code
//! for, under both reduction policies: random and edge moduli (top bit set and clear,
//! all-ones limbs, 2^k - 1 patterns, the smallest modulus of the size) and edge operands
//! (0, 1, n-1, all-ones limbs, R mod n), against the num-bigint oracle; and the typed
//! errors for what it does not cover. Skipped, saying so, on a CPU without BMI2/ADX.

#![cfg(target_arch = "x86_64")]

use montmul::lab::{self as kernel, Kernel};
use montmul::{Error, Modulus, Reduction, Residue};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// The limb counts `mulx-cios` has unrolled code for.
const LIMB_COUNTS: &[usize] = &[4, 5, 6, 7, 8];

fn mulx_cios() -> &'static dyn Kernel<u64> {
    kernel::by_name::<u64>("mulx-cios").expect("mulx-cios is registered")
}

/// Whether this CPU runs `mulx-cios` (BMI2 and ADX).
fn available() -> bool {
    (mulx_cios().info().available)()
}

/// Moduli whose limb count is `limbs` under `reduction` (two bits of headroom for
/// `Lazy`): the test kit's edge moduli at the largest width and one bit below it,
/// 2^k - 1 at both, the smallest modulus of the limb count, and random ones.
fn moduli(limbs: usize, reduction: Reduction, rng: &mut TestRng) -> Vec<BigUint> {
    let headroom = match reduction {
        Reduction::Full => 0,
        Reduction::Lazy => 2,
    };
    let top = 64 * limbs as u32 - headroom;
    let low = 64 * (limbs as u32 - 1) - headroom + 1;
    let one = BigUint::from(1u32);
    let mut out = kit::edge_moduli(top, 64);
    out.extend(kit::edge_moduli(top - 1, 64));
    for k in [top, top - 1, low] {
        out.push((&one << k) - 1u32);
    }
    // The fewest bits that still take `limbs` limbs.
    out.push((&one << (low - 1)) + 1u32);
    for b in [top, top - 1, low] {
        out.push(kit::random_modulus(rng, b));
    }
    out
}

/// Every product and square of `ops` through the kernel, congruent to the oracle's and
/// below the bound (equal to it under `Full`).
fn check_products(m: &Modulus<u64>, n: &BigUint, ops: &[BigUint]) {
    let s = m.limbs();
    let r_bits = 64 * s as u32;
    let bound = kit::from_limbs(m.bound());
    let mut out = vec![0u64; s];
    let full = m.reduction() == Reduction::Full;
    for a in ops {
        let al = kit::to_limbs::<u64>(a, s);
        for b in ops {
            m.mont_mul(&al, &kit::to_limbs::<u64>(b, s), &mut out);
            let got = kit::from_limbs(&out);
            let want = kit::mont_mul(a, b, n, r_bits);
            assert!(got < bound, "mul, {s} limbs: n={n:x} a={a:x} b={b:x}");
            if full {
                assert_eq!(got, want, "mul, {s} limbs: n={n:x} a={a:x} b={b:x}");
            } else {
                assert_eq!(
                    got % n,
                    want,
                    "lazy mul, {s} limbs: n={n:x} a={a:x} b={b:x}"
                );
            }
        }
        m.mont_sqr(&al, &mut out);
        let got = kit::from_limbs(&out);
        assert!(got < bound, "sqr, {s} limbs: n={n:x} a={a:x}");
        assert_eq!(
            got % n,
            kit::mont_mul(a, a, n, r_bits),
            "sqr, {s} limbs: n={n:x} a={a:x}"
        );
    }
}

#[test]
fn every_size_and_policy_against_the_oracle() {
    if !available() {
        montmul_testkit::skipped!("SKIPPED: mulx-cios: this CPU lacks BMI2 or ADX");
        return;
    }
    assert_eq!(mulx_cios().limb_counts(), Some(LIMB_COUNTS));
    let mut rng = TestRng::new(0x6d63);
    for &limbs in LIMB_COUNTS {
        for reduction in Reduction::ALL {
            for n in moduli(limbs, reduction, &mut rng) {
                let m =
                    Modulus::with_kernel(&kit::to_limbs::<u64>(&n, limbs), mulx_cios(), reduction)
                        .unwrap_or_else(|e| panic!("{limbs} limbs, {reduction}, n={n:x}: {e}"));
                assert_eq!(m.limbs(), limbs, "n={n:x} {reduction}");
                assert_eq!(m.engine().info().name, "mulx-cios");
                let mut ops = kit::edge_operands(&n, 64, 64 * limbs as u32);
                for _ in 0..4 {
                    ops.push(kit::random_below(&mut rng, &n));
                }
                if reduction == Reduction::Lazy {
                    // Inputs anywhere below 2n, the largest included.
                    let two_n = &n << 1u32;
                    ops.push(&two_n - 1u32);
                    ops.push(&n + 1u32);
                    for _ in 0..3 {
                        ops.push(kit::random_below(&mut rng, &two_n));
                    }
                }
                check_products(&m, &n, &ops);

                // Through `Residue`: a product, a square and a power in normal form.
                let (a, b) = (&ops[4], &ops[ops.len() - 1]);
                let (a, b) = (a % &n, b % &n);
                let e = kit::random_below_pow2(&mut rng, 64);
                let ra = Residue::new(&m, &kit::to_limbs::<u64>(&a, limbs)).expect("a < n");
                let rb = Residue::new(&m, &kit::to_limbs::<u64>(&b, limbs)).expect("b < n");
                assert_eq!(kit::from_limbs(&(&ra * &rb).to_limbs()), (&a * &b) % &n);
                assert_eq!(kit::from_limbs(&ra.square().to_limbs()), (&a * &a) % &n);
                assert_eq!(
                    kit::from_limbs(&ra.pow(&e.to_bytes_be()).to_limbs()),
                    kit::pow_mod(&a, &e, &n)
                );
            }
        }
    }
}

/// Long chains of products under lazy reduction, each result fed back as an input (so
/// values near 2n come back in), against the oracle at the end.
#[test]
fn lazy_chains() {
    if !available() {
        return;
    }
    let mut rng = TestRng::new(0x1a2b);
    for &limbs in LIMB_COUNTS {
        let n = kit::random_modulus(&mut rng, 64 * limbs as u32 - 2);
        let m = Modulus::with_kernel(
            &kit::to_limbs::<u64>(&n, limbs),
            mulx_cios(),
            Reduction::Lazy,
        )
        .expect("lazy modulus");
        let r_bits = 64 * limbs as u32;
        let mut x = kit::random_below(&mut rng, &n);
        let y = kit::random_below(&mut rng, &(&n << 1u32));
        let (mut xl, yl) = (
            kit::to_limbs::<u64>(&x, limbs),
            kit::to_limbs::<u64>(&y, limbs),
        );
        let mut out = vec![0u64; limbs];
        for _ in 0..200 {
            m.mont_mul(&xl, &yl, &mut out);
            x = kit::mont_mul(&x, &y, &n, r_bits);
            let got = kit::from_limbs(&out);
            assert!(got < (&n << 1u32));
            assert_eq!(&got % &n, x);
            m.mont_sqr(&out, &mut xl);
            x = kit::mont_mul(&x, &x, &n, r_bits);
            assert_eq!(kit::from_limbs(&xl) % &n, x);
        }
    }
}

#[test]
fn other_sizes_and_words_are_typed_errors() {
    if !available() {
        let n = [u64::MAX; 4];
        assert_eq!(
            Modulus::with_kernel(&n, mulx_cios(), Reduction::Full).err(),
            Some(Error::Unavailable { algo: "mulx-cios" })
        );
        return;
    }
    let mut rng = TestRng::new(7);
    for limbs in [1usize, 2, 3, 9, 12, 16, 33] {
        let n = kit::random_modulus(&mut rng, 64 * limbs as u32);
        let made = Modulus::with_kernel(
            &kit::to_limbs::<u64>(&n, limbs),
            mulx_cios(),
            Reduction::Full,
        );
        assert_eq!(
            made.err(),
            Some(Error::UnsupportedSize {
                algo: "mulx-cios",
                limbs
            })
        );
    }
    // Only the list of 64-bit words has it; asked for by name with 32-bit words it is
    // the word size that is refused.
    assert_eq!(
        kernel::by_name::<u32>("mulx-cios").err(),
        Some(Error::UnsupportedWord {
            algo: "mulx-cios",
            word: 32
        })
    );
}
