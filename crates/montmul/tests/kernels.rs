//! Every kernel x every word size it supports x every reduction policy it offers,
//! against the num-bigint oracle: random moduli of 2..4096 bits, the edge moduli and
//! edge operands of the test kit, and long chains under lazy reduction.

use montmul::lab::{self as kernel, Kernel};
use montmul::{Limb, Modulus, Reduction, Residue};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};
use proptest::prelude::*;

/// Every (kernel, policy) pair that `L` supports.
fn variants<L: Limb>() -> Vec<(&'static dyn Kernel<L>, Reduction)> {
    let mut out = Vec::new();
    for &k in kernel::all::<L>() {
        let info = k.info();
        if !info.words.contains(&L::BITS) {
            continue;
        }
        if !(info.available)() {
            montmul_testkit::skipped!("SKIPPED: {}: not on this CPU", info.name);
            continue;
        }
        for &r in info.reductions {
            out.push((k, r));
        }
    }
    out
}

/// One kernel call on `a`, `b` (Montgomery-domain values below the bound), checked
/// against the oracle: congruent to a*b/R and below the bound.
fn check_mul<L: Limb>(m: &Modulus<L>, n: &BigUint, a: &BigUint, b: &BigUint) {
    let s = m.limbs();
    let r_bits = L::BITS * s as u32;
    let (al, bl) = (kit::to_limbs::<L>(a, s), kit::to_limbs::<L>(b, s));
    let mut out = vec![L::ZERO; s];
    m.mont_mul(&al, &bl, &mut out);
    let got = kit::from_limbs(&out);
    let want = kit::mont_mul(a, b, n, r_bits);
    let name = m.kernel().info().name;
    assert!(
        got < kit::from_limbs(m.bound()),
        "{name} {m:?}: {got:x} not below bound"
    );
    assert_eq!(got % n, want, "{name} {m:?} n={n:x} a={a:x} b={b:x}");
    m.mont_sqr(&al, &mut out);
    let got = kit::from_limbs(&out);
    assert!(
        got < kit::from_limbs(m.bound()),
        "{name} sqr {m:?}: not below bound"
    );
    assert_eq!(
        got % n,
        kit::mont_mul(a, a, n, r_bits),
        "{name} sqr {m:?} n={n:x} a={a:x}"
    );
}

/// The modulus' constants: R mod n and R^2 mod n (R = 2^(w s)), fully reduced, as the
/// oracle computes them (the construction builds R^2 with the modulus' own squares).
fn check_constants<L: Limb>(m: &Modulus<L>, n: &BigUint) {
    let r = BigUint::from(1u32) << (L::BITS * m.limbs() as u32);
    let name = m.kernel().info().name;
    assert_eq!(
        kit::from_limbs(m.r1()),
        &r % n,
        "{name} {m:?} R mod n, n={n:x}"
    );
    assert_eq!(
        kit::from_limbs(m.r2()),
        &r * &r % n,
        "{name} {m:?} R^2 mod n, n={n:x}"
    );
}

/// Random operands through every variant, at the kernel level and through `Residue`.
fn random_case<L: Limb>(seed: u64, bits: u32) {
    let mut rng = TestRng::new(seed);
    let n = kit::random_modulus(&mut rng, bits);
    let a = kit::random_below(&mut rng, &n);
    let b = kit::random_below(&mut rng, &n);
    let e = kit::random_below_pow2(&mut rng, 48);
    for (k, r) in variants::<L>() {
        // A kernel made for some sizes only is checked where it has code.
        let Some(m) = kit::modulus_for::<L>(&n, k, r) else {
            continue;
        };
        check_constants(&m, &n);
        check_mul(&m, &n, &a, &b);
        if r == Reduction::Lazy {
            // Montgomery-domain inputs may be anywhere in [0, 2n).
            let two_n = &n << 1u32;
            let a2 = kit::random_below(&mut rng, &two_n);
            let b2 = kit::random_below(&mut rng, &two_n);
            check_mul(&m, &n, &a2, &b2);
        }
        let ra = Residue::new(&m, &kit::to_limbs::<L>(&a, m.limbs())).unwrap();
        let rb = Residue::new(&m, &kit::to_limbs::<L>(&b, m.limbs())).unwrap();
        let name = k.info().name;
        assert_eq!(
            kit::from_limbs(&(&ra * &rb).to_limbs()),
            (&a * &b) % &n,
            "{name} {r}"
        );
        assert_eq!(
            kit::from_limbs(&(&ra + &rb).to_limbs()),
            (&a + &b) % &n,
            "{name} {r}"
        );
        assert_eq!(
            kit::from_limbs(&(&ra - &rb).to_limbs()),
            (&a + &n - &b) % &n,
            "{name} {r}"
        );
        assert_eq!(
            kit::from_limbs(&ra.square().to_limbs()),
            (&a * &a) % &n,
            "{name} {r}"
        );
        let pe = ra.pow(&e.to_bytes_be());
        assert_eq!(
            kit::from_limbs(&pe.to_limbs()),
            kit::pow_mod(&a, &e, &n),
            "{name} {r}"
        );
    }
}

macro_rules! per_word {
    ($($modname:ident: $t:ty),*) => {$(
        mod $modname {
            use super::*;

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(kit::proptest_cases(24)))]
                #[test]
                fn random_moduli_2_to_4096_bits(seed in any::<u64>(), bits in 2u32..=4096) {
                    random_case::<$t>(seed, bits);
                }

                #[test]
                fn random_small_moduli(seed in any::<u64>(), bits in 2u32..=130) {
                    random_case::<$t>(seed, bits);
                }
            }

            #[test]
            fn edge_moduli_and_operands() {
                edge_cases::<$t>();
            }

            #[test]
            fn lazy_chains_stay_below_2n() {
                lazy_chain::<$t>();
            }
        }
    )*};
}

per_word!(w8: u8, w16: u16, w32: u32, w64: u64);

fn edge_cases<L: Limb>() {
    let w = L::BITS;
    let mut sizes = vec![
        2,
        3,
        w - 1,
        w,
        w + 1,
        2 * w - 1,
        2 * w,
        2 * w + 1,
        127,
        128,
        129,
        255,
    ];
    sizes.retain(|&b| b >= 2);
    sizes.sort();
    sizes.dedup();
    for bits in sizes {
        for n in kit::edge_moduli(bits, w) {
            for (k, r) in variants::<L>() {
                // A kernel made for some sizes only is checked where it has code.
                let Some(m) = kit::modulus_for::<L>(&n, k, r) else {
                    continue;
                };
                check_constants(&m, &n);
                let r_bits = w * m.limbs() as u32;
                let mut ops = kit::edge_operands(&n, w, r_bits);
                if r == Reduction::Lazy {
                    // The top of the lazy range: 2n - 1 and n + (n-1).
                    ops.push((&n << 1u32) - 1u32);
                    ops.push(&n + 1u32);
                }
                for a in &ops {
                    for b in &ops {
                        check_mul(&m, &n, a, b);
                    }
                }
            }
        }
    }
}

fn lazy_chain<L: Limb>() {
    let mut rng = TestRng::new(0x1a2b);
    for bits in [L::BITS - 2, L::BITS, 3 * L::BITS - 1, 521] {
        let n = kit::random_modulus(&mut rng, bits.max(2));
        for (k, r) in variants::<L>() {
            if r != Reduction::Lazy {
                continue;
            }
            // A kernel made for some sizes only is checked where it has code.
            let Some(m) = kit::modulus_for::<L>(&n, k, r) else {
                continue;
            };
            let s = m.limbs();
            let r_bits = L::BITS * s as u32;
            let mut x = kit::random_below(&mut rng, &n);
            let mut xl = kit::to_limbs::<L>(&x, s);
            let bound = kit::from_limbs(m.bound());
            for step in 0..300 {
                let y = kit::random_below(&mut rng, &(&n << 1u32));
                let yl = kit::to_limbs::<L>(&y, s);
                let mut out = vec![L::ZERO; s];
                if step % 3 == 0 {
                    m.mont_sqr(&xl, &mut out);
                    x = kit::mont_mul(&x, &x, &n, r_bits);
                } else {
                    m.mont_mul(&xl, &yl, &mut out);
                    x = kit::mont_mul(&x, &y, &n, r_bits);
                }
                let got = kit::from_limbs(&out);
                assert!(
                    got < bound,
                    "{} step {step}: output left [0, 2n)",
                    k.info().name
                );
                assert_eq!(&got % &n, x, "{} step {step}", k.info().name);
                xl = out;
            }
        }
    }
}

/// Whether `f` panics (its message silenced: the panics are expected).
fn panics(f: impl FnOnce()) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err()
}

/// A slice one limb short or one limb long, for every operand of `mul` and `sqr`, on
/// every kernel and policy of `L`, called on the kernel itself and through the
/// modulus: each call panics (the documented `# Panics`) before computing anything, so
/// the output is left as it was (issue 19, finding 7).
fn wrong_lengths_never_compute<L: Limb>() {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = TestRng::new(0x1e9 + L::BITS as u64);
    for (k, r) in variants::<L>() {
        // A size the kernel has code for (the first listed), else 4 limbs.
        let s = k.limb_counts().map_or(4, |c| c[0]);
        let bits = L::BITS * s as u32 - if r == Reduction::Lazy { 2 } else { 0 };
        let n = kit::random_modulus(&mut rng, bits);
        let m = Modulus::with_kernel(&kit::to_limbs::<L>(&n, s), k, r).expect("valid modulus");
        assert_eq!(m.limbs(), s);
        let a = kit::to_limbs::<L>(&kit::random_below(&mut rng, &n), s);
        let name = format!("{} {r} {}-bit words", k.info().name, L::BITS);
        let sentinel = vec![L::MAX; s + 1];
        for (la, lb, lo) in [
            (s - 1, s, s),
            (s, s - 1, s),
            (s, s, s - 1),
            (s + 1, s, s),
            (s, s + 1, s),
            (s, s, s + 1),
        ] {
            let (x, y) = (&a.repeat(2)[..la], &a.repeat(2)[..lb]);
            let mut out = sentinel[..lo].to_vec();
            assert!(
                panics(|| k.mul(&m, x, y, &mut out)),
                "{name}: mul {la} {lb} {lo}"
            );
            assert_eq!(
                out,
                sentinel[..lo],
                "{name}: mul wrote to a wrong-length output"
            );
            assert!(
                panics(|| m.mont_mul(x, y, &mut out)),
                "{name}: mont_mul {la} {lb} {lo}"
            );
            assert_eq!(out, sentinel[..lo], "{name}: mont_mul wrote to its output");
            if la == lb {
                assert!(panics(|| k.sqr(&m, x, &mut out)), "{name}: sqr {la} {lo}");
                assert!(
                    panics(|| m.mont_sqr(x, &mut out)),
                    "{name}: mont_sqr {la} {lo}"
                );
                assert_eq!(out, sentinel[..lo], "{name}: sqr wrote to its output");
            }
        }
        // The right lengths still compute.
        let mut out = vec![L::ZERO; s];
        k.mul(&m, &a, &a, &mut out);
        assert_eq!(
            kit::from_limbs(&out) % &n,
            kit::mont_mul(
                &kit::from_limbs(&a),
                &kit::from_limbs(&a),
                &n,
                L::BITS * s as u32
            ),
            "{name}"
        );
    }
    std::panic::set_hook(hook);
}

#[test]
fn wrong_lengths_never_compute_any_word() {
    wrong_lengths_never_compute::<u8>();
    wrong_lengths_never_compute::<u16>();
    wrong_lengths_never_compute::<u32>();
    wrong_lengths_never_compute::<u64>();
}
