//! The digit-domain vector kernels, `amm52-ifma` (AVX-512 IFMA) and `amm28-avx2`
//! (AVX2), against the num-bigint oracle at every limb count 1..=70, under both
//! reduction policies: random moduli with the top bit set and clear, the edge moduli of
//! the test kit, the edge operands (0, 1, n-1, all-ones limbs, ...) and random ones,
//! long lazy chains, and exponentiation in their digit domains up to 16384 bits;
//! `amm52-ifma`'s dedicated squaring also against the kernel's own `mul(a, a)`. Where
//! the CPU lacks a kernel's feature, each test says so and skips that kernel.

#![cfg(target_arch = "x86_64")]

use montmul::arch::x86_64::amm28::{self, Amm28Avx2};
use montmul::arch::x86_64::avx512ifma::{self as ifma, Amm52Ifma};
use montmul::lab::Kernel;
use montmul::{Modulus, Reduction};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// The kernels of this file that can run here; prints a skip for each other one.
fn running(test: &str) -> Vec<&'static dyn Kernel<u64>> {
    let mut out: Vec<&'static dyn Kernel<u64>> = Vec::new();
    if ifma::is_available() {
        out.push(&Amm52Ifma);
    } else {
        montmul_testkit::skipped!("{test} (amm52-ifma): SKIPPED: no AVX-512 IFMA");
    }
    if amm28::is_available() {
        out.push(&Amm28Avx2);
    } else {
        montmul_testkit::skipped!("{test} (amm28-avx2): SKIPPED: no AVX2");
    }
    out
}

/// Whether `amm52-ifma` can run here; prints the skip otherwise.
fn runs_here(test: &str) -> bool {
    if ifma::is_available() {
        true
    } else {
        montmul_testkit::skipped!("{test}: SKIPPED: no AVX-512 IFMA");
        false
    }
}

fn modulus(n: &BigUint, k: &'static dyn Kernel<u64>, r: Reduction) -> Modulus<u64> {
    let limbs = kit::to_limbs::<u64>(n, (n.bits() as u32).div_ceil(64) as usize);
    Modulus::with_kernel(&limbs, k, r).expect("valid odd modulus")
}

/// One product and one square, checked: congruent to a b / R and below the bound.
/// `r_inv` is R^-1 mod n (the oracle's, computed once per modulus).
fn check(m: &Modulus<u64>, n: &BigUint, r_inv: &BigUint, a: &BigUint, b: &BigUint) {
    let s = m.limbs();
    let bound = kit::from_limbs(m.bound());
    let (al, bl) = (kit::to_limbs::<u64>(a, s), kit::to_limbs::<u64>(b, s));
    let mut out = vec![0u64; s];
    m.mont_mul(&al, &bl, &mut out);
    let got = kit::from_limbs(&out);
    assert!(got < bound, "{m:?}: {got:x} not below the bound");
    assert_eq!(
        got % n,
        (a * b * r_inv) % n,
        "{m:?} n={n:x} a={a:x} b={b:x}"
    );
    m.mont_sqr(&al, &mut out);
    let got = kit::from_limbs(&out);
    assert!(got < bound, "{m:?} sqr: {got:x} not below the bound");
    assert_eq!(got % n, (a * a * r_inv) % n, "{m:?} sqr n={n:x} a={a:x}");
}

/// The operands tried for `n`: the kit's edge operands, the top of the lazy range,
/// and random values below the bound.
fn operands(rng: &mut TestRng, n: &BigUint, m: &Modulus<u64>) -> Vec<BigUint> {
    let mut ops = kit::edge_operands(n, 64, 64 * m.limbs() as u32);
    let bound = kit::from_limbs(m.bound());
    if m.reduction() == Reduction::Lazy {
        ops.push(&bound - 1u32);
        ops.push(n + 1u32);
    }
    for _ in 0..3 {
        ops.push(kit::random_below(rng, &bound));
    }
    ops
}

#[test]
fn every_limb_count_1_to_70() {
    for k in running("every_limb_count_1_to_70") {
        every_limb_count(k);
    }
}

fn every_limb_count(k: &'static dyn Kernel<u64>) {
    let mut rng = TestRng::new(0x1f3a);
    for s in 1..=70u32 {
        // Top bit set, top bit clear, a few bits short of the limb, and the kit's edge
        // moduli of a full limb count.
        let mut moduli: Vec<BigUint> = [64 * s, 64 * s - 1, 64 * s - 5]
            .iter()
            .map(|&bits| kit::random_modulus(&mut rng, bits))
            .collect();
        moduli.extend(kit::edge_moduli(64 * s, 64));
        for (i, n) in moduli.iter().enumerate() {
            for r in Reduction::ALL {
                let m = modulus(n, k, r);
                let r_inv = kit::r_inverse(n, 64 * m.limbs() as u32);
                let mut ops = operands(&mut rng, n, &m);
                if i >= 3 {
                    // The edge moduli: the extreme operands only (0, 1, n-1, the largest
                    // all-ones-limb value, the top of the range).
                    let all_ones = (BigUint::from(1u32) << (64 * (s - 1))) - 1u32;
                    ops = vec![
                        ops[0].clone(),
                        ops[1].clone(),
                        n - 1u32,
                        all_ones,
                        ops[ops.len() - 1].clone(),
                    ];
                }
                // Every operand against a fixed handful (all pairs would be 70^2 at the
                // largest sizes, where the all-ones-limb operands are many).
                let partners = [ops[0].clone(), ops[1].clone(), ops[ops.len() - 1].clone()];
                for a in &ops {
                    for b in partners.iter().chain([a, &(n - 1u32)]) {
                        check(&m, n, &r_inv, a, b);
                    }
                }
            }
        }
    }
}

#[test]
fn small_moduli_all_edge_pairs() {
    for k in running("small_moduli_all_edge_pairs") {
        small_moduli(k);
    }
}

fn small_moduli(k: &'static dyn Kernel<u64>) {
    let mut rng = TestRng::new(0x77);
    for bits in [
        2, 3, 5, 51, 52, 53, 63, 64, 65, 103, 104, 105, 127, 128, 129, 255,
    ] {
        for n in kit::edge_moduli(bits, 64)
            .into_iter()
            .chain([kit::random_modulus(&mut rng, bits)])
        {
            for r in Reduction::ALL {
                let m = modulus(&n, k, r);
                let r_inv = kit::r_inverse(&n, 64 * m.limbs() as u32);
                let ops = operands(&mut rng, &n, &m);
                for a in &ops {
                    for b in &ops {
                        check(&m, &n, &r_inv, a, b);
                    }
                }
            }
        }
    }
}

#[test]
fn lazy_chains_stay_below_2n() {
    for k in running("lazy_chains_stay_below_2n") {
        lazy_chains(k);
    }
}

fn lazy_chains(k: &'static dyn Kernel<u64>) {
    let mut rng = TestRng::new(0xc4a1);
    for bits in [62, 64, 1022, 1024, 2048, 3070, 4096, 8190] {
        let n = kit::random_modulus(&mut rng, bits);
        let m = modulus(&n, k, Reduction::Lazy);
        let s = m.limbs();
        let r_inv = kit::r_inverse(&n, 64 * s as u32);
        let bound = kit::from_limbs(m.bound());
        let mut x = kit::random_below(&mut rng, &bound);
        let mut xl = kit::to_limbs::<u64>(&x, s);
        for step in 0..200 {
            let y = kit::random_below(&mut rng, &bound);
            let mut out = vec![0u64; s];
            if step % 2 == 0 {
                m.mont_sqr(&xl, &mut out);
                x = (&x * &x * &r_inv) % &n;
            } else {
                m.mont_mul(&xl, &kit::to_limbs::<u64>(&y, s), &mut out);
                x = (&x * &y * &r_inv) % &n;
            }
            let got = kit::from_limbs(&out);
            assert!(got < bound, "{bits} bits step {step}: left [0, 2n)");
            assert_eq!(&got % &n, x, "{bits} bits step {step}");
            xl = out;
        }
    }
}

#[test]
fn residues_and_pow() {
    for k in running("residues_and_pow") {
        residues(k);
    }
}

fn residues(k: &'static dyn Kernel<u64>) {
    let mut rng = TestRng::new(0x5eed);
    for bits in [3, 64, 521, 1024, 2048, 4096, 8192, 16384] {
        let n = kit::random_modulus(&mut rng, bits);
        let a = kit::random_below(&mut rng, &n);
        let e = kit::random_below_pow2(&mut rng, 80);
        for r in Reduction::ALL {
            let m = modulus(&n, k, r);
            let ra = montmul::Residue::new(&m, &kit::to_limbs::<u64>(&a, m.limbs())).unwrap();
            let got = ra.pow(&e.to_bytes_be());
            assert_eq!(
                kit::from_limbs(&got.to_limbs()),
                kit::pow_mod(&a, &e, &n),
                "{} {bits} bits {r}",
                k.info().name
            );
        }
    }
}

/// The dedicated squaring called on the kernel itself, against the oracle and against
/// the kernel's own `mul(a, a)`: the same a^2 2^e is reduced by the same d steps, so
/// the two agree exactly (for `Lazy` too, not only modulo n).
#[test]
fn sqr_matches_mul_every_limb_count_1_to_70() {
    if !runs_here("sqr_matches_mul_every_limb_count_1_to_70") {
        return;
    }
    let mut rng = TestRng::new(0x5a11);
    for s in 1..=70u32 {
        // Top bit set, top bit clear, and all ones (the kit's first edge modulus).
        let mut moduli: Vec<BigUint> = [64 * s, 64 * s - 1]
            .iter()
            .map(|&bits| kit::random_modulus(&mut rng, bits))
            .collect();
        moduli.extend(kit::edge_moduli(64 * s, 64).into_iter().take(2));
        for n in &moduli {
            for r in Reduction::ALL {
                let m = modulus(n, &Amm52Ifma, r);
                let limbs = m.limbs();
                let r_inv = kit::r_inverse(n, 64 * limbs as u32);
                let bound = kit::from_limbs(m.bound());
                // 0, 1, n-1, all-ones limbs below the bound, the top of the range
                // (n-1 for Full, 2n-1 for Lazy), random values.
                let all_ones = (BigUint::from(1u32) << (64 * (s - 1))) - 1u32;
                let mut ops = vec![
                    BigUint::from(0u32),
                    BigUint::from(1u32),
                    n - 1u32,
                    all_ones,
                    &bound - 1u32,
                ];
                for _ in 0..3 {
                    ops.push(kit::random_below(&mut rng, &bound));
                }
                for a in &ops {
                    let al = kit::to_limbs::<u64>(a, limbs);
                    let (mut sq, mut mu) = (vec![0u64; limbs], vec![0u64; limbs]);
                    Amm52Ifma.sqr(&m, &al, &mut sq);
                    Amm52Ifma.mul(&m, &al, &al, &mut mu);
                    assert_eq!(sq, mu, "{m:?} n={n:x} a={a:x}: sqr and mul(a, a) differ");
                    let got = kit::from_limbs(&sq);
                    assert!(
                        got < bound,
                        "{m:?} n={n:x} a={a:x}: {got:x} not below the bound"
                    );
                    assert_eq!(got % n, (a * a * &r_inv) % n, "{m:?} n={n:x} a={a:x}");
                }
            }
        }
    }
}

/// The squaring from 71 limbs up to the largest modulus (16384 bits: 256 limbs, 257
/// under lazy reduction), where the wide squaring (`sqr_wide`) takes over from 30
/// digit vectors: against the oracle and against the kernel's own `mul(a, a)`, at every
/// limb count, for moduli with the top bit set and clear (64 s = 52 d at multiples of
/// 13 limbs: the multiplication under `Full`, the wide squaring under `Lazy`).
#[test]
fn sqr_matches_mul_71_to_257_limbs() {
    if !runs_here("sqr_matches_mul_71_to_257_limbs") {
        return;
    }
    let mut rng = TestRng::new(0x5a12);
    for s in 71..=256u32 {
        for bits in [64 * s, 64 * s - 1] {
            let n = kit::random_modulus(&mut rng, bits);
            for r in Reduction::ALL {
                let m = modulus(&n, &Amm52Ifma, r);
                let limbs = m.limbs();
                let r_inv = kit::r_inverse(&n, 64 * limbs as u32);
                let bound = kit::from_limbs(m.bound());
                let all_ones = (BigUint::from(1u32) << (64 * (s - 1))) - 1u32;
                let ops = [
                    BigUint::from(0u32),
                    BigUint::from(1u32),
                    &n - 1u32,
                    all_ones,
                    &bound - 1u32,
                    kit::random_below(&mut rng, &bound),
                ];
                for a in &ops {
                    let al = kit::to_limbs::<u64>(a, limbs);
                    let (mut sq, mut mu) = (vec![0u64; limbs], vec![0u64; limbs]);
                    Amm52Ifma.sqr(&m, &al, &mut sq);
                    Amm52Ifma.mul(&m, &al, &al, &mut mu);
                    assert_eq!(sq, mu, "{m:?} n={n:x} a={a:x}: sqr and mul(a, a) differ");
                    let got = kit::from_limbs(&sq);
                    assert!(got < bound, "{m:?} n={n:x} a={a:x}: not below the bound");
                    assert_eq!(got % &n, (a * a * &r_inv) % &n, "{m:?} n={n:x} a={a:x}");
                }
            }
        }
    }
}
