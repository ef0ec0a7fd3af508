//! Every kernel x word size x policy at the largest modulus montmul accepts
//! (`MAX_BITS`), with the operands that make every carry as large as it gets: all-ones
//! limbs in the modulus and n - 1 (and 2n - 1 under lazy reduction) as operands.
//!
//! Random operands rarely reach the worst case of a multi-word accumulator (FIPS, CIHS),
//! and the edge-case test stays below 256 bits, where three words of 8 bits are still
//! enough; here s is 2048 at w = 8, and column sums need the fourth word.

use montmul::lab::{self as kernel, Kernel};
use montmul::{Limb, Reduction, MAX_BITS};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit};

fn check<L: Limb>(n: &BigUint) {
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
            // A kernel made for some sizes only is checked where it has code.
            let Some(m) = kit::modulus_for::<L>(n, k as &dyn Kernel<L>, r) else {
                continue;
            };
            let s = m.limbs();
            let r_bits = L::BITS * s as u32;
            let bound = kit::from_limbs(m.bound());
            let mut ops = vec![n - 1u32, n - 2u32];
            if r == Reduction::Lazy {
                ops.push((n << 1u32) - 1u32);
            }
            for a in &ops {
                for b in &ops {
                    let mut out = vec![L::ZERO; s];
                    m.mont_mul(&kit::to_limbs(a, s), &kit::to_limbs(b, s), &mut out);
                    let got = kit::from_limbs(&out);
                    let what = format!("{} w={} {r} {} bits", info.name, L::BITS, n.bits());
                    assert!(got < bound, "{what}: not below the bound");
                    assert_eq!(got % n, kit::mont_mul(a, b, n, r_bits), "{what}: mul");
                }
                let mut out = vec![L::ZERO; s];
                m.mont_sqr(&kit::to_limbs(a, s), &mut out);
                let got = kit::from_limbs(&out);
                let what = format!("{} w={} {r} {} bits", info.name, L::BITS, n.bits());
                assert!(got < bound, "{what}: sqr not below the bound");
                assert_eq!(got % n, kit::mont_mul(a, a, n, r_bits), "{what}: sqr");
            }
        }
    }
}

fn moduli() -> Vec<BigUint> {
    let one = BigUint::from(1u32);
    vec![
        // All ones: every limb of n (and of n - 1, but its lowest) all ones.
        (&one << MAX_BITS) - 1u32,
        // Top bit clear in the top limb under lazy reduction's extra limb.
        (&one << (MAX_BITS - 1)) + (&one << (MAX_BITS - 2)) - 1u32,
    ]
}

#[test]
fn largest_moduli_w8() {
    for n in moduli() {
        check::<u8>(&n);
    }
}

#[test]
fn largest_moduli_w16() {
    for n in moduli() {
        check::<u16>(&n);
    }
}

#[test]
fn largest_moduli_w32() {
    for n in moduli() {
        check::<u32>(&n);
    }
}

#[test]
fn largest_moduli_w64() {
    for n in moduli() {
        check::<u64>(&n);
    }
}
