//! The fast 64-bit kernels against the num-bigint oracle, at the sizes the shared kernel
//! tests reach only by chance: every size-specialised limb count, the Karatsuba path
//! just below, at and above each of its thresholds (and with forced small thresholds),
//! and the choices `auto` makes.

use montmul::arch::{Adx, Avx512Ifma, Mulx};
use montmul::fixed::{self, Fixed};
use montmul::lab;
use montmul::lab::algo::karatsuba;
use montmul::mpn::Portable;
use montmul::{Error, Modulus, Reduction};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// Moduli of exactly `s` limbs: random with the top bit set, random with the top bit
/// of the top limb clear, and the test kit's edge moduli of that width.
fn moduli(rng: &mut TestRng, s: usize) -> Vec<BigUint> {
    let bits = 64 * s as u32;
    let mut out = vec![
        kit::random_modulus(rng, bits),
        kit::random_modulus(rng, bits - 1),
    ];
    if bits > 3 {
        out.push(kit::random_modulus(rng, bits - 3));
    }
    out.extend(kit::edge_moduli(bits, 64));
    out
}

/// Operands below the bound: the edge operands and a few random ones (and the top of
/// [0, 2n) under lazy reduction).
fn operands(rng: &mut TestRng, m: &Modulus<u64>, n: &BigUint) -> Vec<BigUint> {
    let r_bits = 64 * m.limbs() as u32;
    let mut ops = kit::edge_operands(n, 64, r_bits);
    let bound = kit::from_limbs(m.bound());
    for _ in 0..4 {
        ops.push(kit::random_below(rng, &bound));
    }
    if m.reduction() == Reduction::Lazy {
        ops.push(&bound - 1u32);
    }
    // Large moduli have dozens of all-ones-limb operands: keep an evenly spread dozen,
    // the smallest and largest included.
    let keep = 12;
    if ops.len() > keep {
        let step = (ops.len() - 1) as f64 / (keep - 1) as f64;
        ops = (0..keep)
            .map(|i| ops[(i as f64 * step).round() as usize].clone())
            .collect();
    }
    ops
}

/// `mul` and `sqr` of the modulus' engine (or, with `base`, of Karatsuba with that
/// recursion base on portable and on mulx rows) on every pair of operands, checked
/// against the oracle.
fn check_all(rng: &mut TestRng, m: &Modulus<u64>, n: &BigUint, base: Option<usize>) {
    let s = m.limbs();
    let r_bits = 64 * s as u32;
    let bound = kit::from_limbs(m.bound());
    let ops = operands(rng, m, n);
    let mut out = vec![0u64; s];
    for (i, a) in ops.iter().enumerate() {
        let al = kit::to_limbs::<u64>(a, s);
        for b in ops.iter().skip(i % 3).step_by(3) {
            let bl = kit::to_limbs::<u64>(b, s);
            let want = kit::mont_mul(a, b, n, r_bits);
            let mut results = Vec::new();
            match base {
                Some(base) => {
                    karatsuba::mont_mul(Portable, base, m, &al, &bl, &mut out);
                    results.push(out.clone());
                    if let Some(adx) = Adx::new() {
                        karatsuba::mont_mul(Mulx::new(adx), base, m, &al, &bl, &mut out);
                        results.push(out.clone());
                    }
                }
                None => {
                    m.mont_mul(&al, &bl, &mut out);
                    results.push(out.clone());
                }
            }
            for out in results {
                let got = kit::from_limbs(&out);
                assert!(got < bound, "{m:?} mul: {got:x} not below the bound");
                assert_eq!(got % n, want, "{m:?} n={n:x} a={a:x} b={b:x}");
            }
        }
        let want = kit::mont_mul(a, a, n, r_bits);
        let mut results = Vec::new();
        match base {
            Some(base) => {
                karatsuba::mont_sqr(Portable, base, m, &al, &mut out);
                results.push(out.clone());
                if let Some(adx) = Adx::new() {
                    karatsuba::mont_sqr(Mulx::new(adx), base, m, &al, &mut out);
                    results.push(out.clone());
                }
            }
            None => {
                m.mont_sqr(&al, &mut out);
                results.push(out.clone());
            }
        }
        for out in results {
            let got = kit::from_limbs(&out);
            assert!(got < bound, "{m:?} sqr: {got:x} not below the bound");
            assert_eq!(got % n, want, "{m:?} sqr n={n:x} a={a:x}");
        }
    }
}

fn check_fixed<const N: usize>() {
    assert!(
        fixed::specialised(N).is_some(),
        "{N} limbs has no specialised kernel"
    );
    let mut rng = TestRng::new(N as u64);
    for n in moduli(&mut rng, N) {
        for r in Reduction::ALL {
            let limbs = kit::to_limbs::<u64>(&n, N);
            // The instance itself, whatever the registry resolves to.
            match Modulus::with_kernel(&limbs, &Fixed::<N>, r) {
                Ok(m) => check_all(&mut rng, &m, &n, None),
                // Lazy reduction of a full-width modulus needs N + 1 limbs: that size has
                // its own instance, checked through the named kernel below.
                Err(e) => assert_eq!(
                    (r, e),
                    (
                        Reduction::Lazy,
                        Error::UnsupportedSize {
                            algo: "cios-fixed",
                            limbs: N + 1
                        }
                    )
                ),
            }
            let k = lab::by_name::<u64>("cios-fixed").expect("registered");
            let m = Modulus::with_kernel(&limbs, k, r).expect("valid modulus");
            check_all(&mut rng, &m, &n, None);
        }
    }
}

macro_rules! fixed_sizes {
    ($($name:ident: $n:literal),*) => {$(
        #[test]
        fn $name() {
            check_fixed::<$n>();
        }
    )*};
}

fixed_sizes!(
    fixed_1: 1, fixed_2: 2, fixed_3: 3, fixed_4: 4, fixed_5: 5, fixed_6: 6, fixed_7: 7, fixed_8: 8,
    fixed_9: 9, fixed_10: 10, fixed_11: 11, fixed_12: 12, fixed_16: 16, fixed_24: 24, fixed_32: 32, fixed_48: 48,
    fixed_64: 64
);

/// The brief's sizes and every listed size are specialised, and nothing else.
#[test]
fn specialised_sizes_are_the_listed_ones() {
    for s in [4, 6, 8, 10, 11, 12, 16, 24, 32, 48, 64] {
        assert!(fixed::SIZES.contains(&s));
    }
    for s in 1..=80 {
        assert_eq!(
            fixed::specialised(s).is_some(),
            fixed::SIZES.contains(&s),
            "{s}"
        );
    }
}

/// Sizes without an instance run the run-time-length code: it must agree as well.
#[test]
fn unspecialised_sizes() {
    let mut rng = TestRng::new(77);
    for s in [14, 15, 20, 31, 40, 70] {
        assert!(fixed::specialised(s).is_none());
        let n = kit::random_modulus(&mut rng, 64 * s as u32 - 5);
        for r in Reduction::ALL {
            let k = lab::by_name::<u64>("cios-fixed").expect("registered");
            let m = Modulus::with_kernel(&kit::to_limbs::<u64>(&n, s), k, r).unwrap();
            check_all(&mut rng, &m, &n, None);
        }
    }
}

/// Karatsuba with its tuned thresholds, below, at and above each of them.
#[test]
fn karatsuba_around_its_thresholds() {
    let th = lab::TUNED;
    let mut sizes = vec![1, 2, 3];
    for t in [th.karatsuba_mul_base, th.karatsuba_sqr_base] {
        let t = t.min(200);
        sizes.extend([t.saturating_sub(1).max(1), t, t + 1, 2 * t - 1, 2 * t]);
    }
    sizes.retain(|&s| s <= 256);
    sizes.sort();
    sizes.dedup();
    let mut rng = TestRng::new(5);
    let k = lab::by_name::<u64>("karatsuba").expect("registered");
    for s in sizes {
        let n = kit::random_modulus(&mut rng, 64 * s as u32);
        for r in Reduction::ALL {
            let m = Modulus::with_kernel(&kit::to_limbs::<u64>(&n, s), k, r).unwrap();
            check_all(&mut rng, &m, &n, None);
        }
    }
}

/// Karatsuba forced down to tiny base cases, so that every level of the recursion and
/// every odd/even split runs, against the oracle.
#[test]
fn karatsuba_with_small_bases() {
    let mut rng = TestRng::new(6);
    let k = lab::by_name::<u64>("karatsuba").expect("registered");
    for base in [2, 3, 5] {
        for s in [2, 3, 4, 5, 7, 8, 11, 16, 17, 33] {
            for n in [
                kit::random_modulus(&mut rng, 64 * s as u32),
                kit::random_modulus(&mut rng, 64 * s as u32 - 7),
            ] {
                for r in Reduction::ALL {
                    let m = Modulus::with_kernel(&kit::to_limbs::<u64>(&n, s), k, r).unwrap();
                    check_all(&mut rng, &m, &n, Some(base));
                }
            }
        }
    }
}

/// `auto` resolves once per modulus to the kernel the threshold table names.
#[test]
fn auto_picks_by_size_policy_and_word() {
    let auto = lab::by_name::<u64>("auto").expect("registered");
    assert_eq!(lab::default::<u64>().info().name, "auto");
    let th = lab::TUNED;
    let (adx, ifma) = (Adx::new().is_some(), Avx512Ifma::new().is_some());
    for s in [1, 4, 5, 6, 8, 9, 10, 12, 16, 32, 40, 64, 65, 100, 256] {
        for r in Reduction::ALL {
            // A modulus of s limbs under either policy (two bits of headroom for Lazy).
            let mut limbs = vec![u64::MAX; s];
            limbs[0] = u64::MAX - 2;
            if r == Reduction::Lazy {
                limbs[s - 1] >>= 2;
            }
            let m = Modulus::with_kernel(&limbs, auto, r).unwrap();
            assert_eq!(m.limbs(), s);
            let want = if th.mulx_cios.contains(&s) && adx {
                "mulx-cios"
            } else if th.generated.contains(&s) && r == Reduction::Full {
                // Full-reduction code: never picked for a lazy modulus.
                "gen-cios"
            } else if s >= th.ifma_from && ifma {
                "amm52-ifma"
            } else if s >= th.karatsuba_from {
                "karatsuba"
            } else if (s >= th.mulx_from || th.mulx_redc.contains(&s)) && adx {
                "mulx-redc"
            } else {
                "cios-fixed"
            };
            assert_eq!(m.engine().info().name, want, "{s} limbs {r}");
            assert_eq!(m.kernel().info().name, "auto");
            assert_eq!(lab::pick(&th, s, r).info().name, want);
        }
    }
    let m = Modulus::<u32>::new(&[0xffff_fffb, 7]).unwrap();
    assert_eq!(m.engine().info().name, "cios");
}

/// A dispatcher called directly (not through its modulus' engine) computes through the
/// kernel it resolved for the modulus: the same products, nothing picked per call.
#[test]
fn dispatchers_called_directly_agree() {
    let mut rng = TestRng::new(0xd15);
    for name in ["auto", "cios-fixed", "karatsuba", "gen-cios"] {
        let k = lab::by_name::<u64>(name).expect("registered");
        let n = kit::random_modulus(&mut rng, 256);
        let m = Modulus::with_kernel(&kit::to_limbs::<u64>(&n, 4), k, Reduction::Full).unwrap();
        let a = kit::random_below(&mut rng, &n);
        let b = kit::random_below(&mut rng, &n);
        let (al, bl) = (kit::to_limbs::<u64>(&a, 4), kit::to_limbs::<u64>(&b, 4));
        let (mut via_k, mut via_m) = (vec![0u64; 4], vec![0u64; 4]);
        k.mul(&m, &al, &bl, &mut via_k);
        m.mont_mul(&al, &bl, &mut via_m);
        assert_eq!(via_k, via_m, "{name}");
        assert_eq!(
            kit::from_limbs(&via_k),
            kit::mont_mul(&a, &b, &n, 256),
            "{name}"
        );
        k.sqr(&m, &al, &mut via_k);
        assert_eq!(
            kit::from_limbs(&via_k),
            kit::mont_mul(&a, &a, &n, 256),
            "{name}"
        );
    }
}

/// The schoolbook + REDC kernel on mulx rows at every size up to 20 limbs and at the
/// common large ones, both policies. Skipped, and said so, on a CPU without BMI2/ADX.
#[test]
fn mulx_redc_sizes() {
    if Adx::new().is_none() {
        montmul_testkit::skipped!("SKIPPED: mulx-redc: this CPU lacks BMI2 or ADX");
        return;
    }
    let mut rng = TestRng::new(8);
    let k = lab::by_name::<u64>("mulx-redc").expect("registered");
    for s in (1..=20).chain([24, 25, 31, 32, 33, 48, 49, 64, 65]) {
        for n in moduli(&mut rng, s).into_iter().take(3) {
            for r in Reduction::ALL {
                let m = Modulus::with_kernel(&kit::to_limbs::<u64>(&n, s), k, r).unwrap();
                check_all(&mut rng, &m, &n, None);
            }
        }
    }
}

/// The dedicated squaring of `mulx-redc`, `auto` and `karatsuba` at every limb count
/// from 1 to 70 (each row length modulo 8 of the triangle, every size `auto` hands to
/// each kernel), both policies, moduli with the top bit set and clear, on the edge
/// operands: 0, 1, n - 1, the top of the residue range, the largest all-ones-limb value,
/// an all-ones value with the top bit clear, and random ones. Each square is checked
/// against the oracle and against the same kernel's `mul(a, a)`, limb for limb.
#[test]
fn squaring_every_size_to_70() {
    let mut rng = TestRng::new(70);
    let mut names = vec!["auto", "karatsuba"];
    if Adx::new().is_some() {
        names.push("mulx-redc");
    } else {
        montmul_testkit::skipped!("SKIPPED: mulx-redc: this CPU lacks BMI2 or ADX");
    }
    let one = BigUint::from(1u32);
    for s in 1..=70usize {
        let bits = 64 * s as u32;
        let mut mods = vec![
            kit::random_modulus(&mut rng, bits),
            kit::random_modulus(&mut rng, bits - 1),
        ];
        if s > 1 {
            mods.push((&one << bits) - 1u32);
        }
        for n in mods {
            let limbs = kit::to_limbs::<u64>(&n, s);
            for name in &names {
                let k = lab::by_name::<u64>(name).expect("registered");
                for r in Reduction::ALL {
                    let m = Modulus::with_kernel(&limbs, k, r).unwrap();
                    let w = m.limbs();
                    let r_bits = 64 * w as u32;
                    let bound = kit::from_limbs(m.bound());
                    // 2^top - 1, shortened by whole limbs until it is below n.
                    let all_ones_below = |top: u32| -> BigUint {
                        let mut v = (&one << top) - 1u32;
                        while v >= n {
                            v >>= 64u32;
                        }
                        v
                    };
                    let mut ops = vec![
                        BigUint::from(0u32),
                        one.clone(),
                        &n - 1u32,
                        &bound - 1u32,
                        all_ones_below(64 * s as u32),
                        all_ones_below(64 * s as u32 - 1),
                        kit::random_below(&mut rng, &bound),
                        kit::random_below(&mut rng, &bound) >> 1u32,
                    ];
                    ops.retain(|a| a < &bound);
                    let mut sq = vec![0u64; w];
                    let mut mul = vec![0u64; w];
                    for a in &ops {
                        let al = kit::to_limbs::<u64>(a, w);
                        m.mont_sqr(&al, &mut sq);
                        m.mont_mul(&al, &al, &mut mul);
                        let what = format!("{name} {s} limbs {r} n={n:x} a={a:x}");
                        assert_eq!(sq, mul, "{what}: sqr differs from mul(a, a)");
                        let got = kit::from_limbs(&sq);
                        assert!(got < bound, "{what}: not below the bound");
                        assert_eq!(got % &n, kit::mont_mul(a, a, &n, r_bits), "{what}");
                    }
                }
            }
        }
    }
}
