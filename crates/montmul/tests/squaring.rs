//! Montgomery squaring (`Kernel::sqr`) of every kernel against the oracle and against
//! the same kernel's multiplication, limb by limb: kernels with a dedicated squaring (SOS)
//! must give exactly what their `mul(a, a)` gives, on every size from 1 limb up and on the
//! operands whose off-diagonal doubling and diagonal carries are largest.

use montmul::lab::{self as kernel, Kernel};
use montmul::{Limb, Reduction};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

fn check<L: Limb>(k: &'static dyn Kernel<L>, r: Reduction, n: &BigUint, a: &BigUint) {
    // A kernel made for some sizes only is checked where it has code.
    let Some(m) = kit::modulus_for::<L>(n, k, r) else {
        return;
    };
    let s = m.limbs();
    let al = kit::to_limbs::<L>(a, s);
    let (mut sq, mut mul) = (vec![L::ZERO; s], vec![L::ZERO; s]);
    m.mont_sqr(&al, &mut sq);
    m.mont_mul(&al, &al, &mut mul);
    let what = format!("{} w={} {r} n={n:x} a={a:x}", k.info().name, L::BITS);
    assert_eq!(sq, mul, "{what}: sqr differs from mul(a, a)");
    let got = kit::from_limbs(&sq);
    assert!(
        got < kit::from_limbs(m.bound()),
        "{what}: not below the bound"
    );
    assert_eq!(
        got % n,
        kit::mont_mul(a, a, n, L::BITS * s as u32),
        "{what}"
    );
}

fn all_sizes<L: Limb>() {
    let mut rng = TestRng::new(0x5a_u64.wrapping_add(L::BITS as u64));
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
            for limbs in 1..=24u32 {
                for bits in [limbs * L::BITS - 1, limbs * L::BITS] {
                    if bits < 2 {
                        continue;
                    }
                    let one = BigUint::from(1u32);
                    let all_ones = (&one << bits) - 1u32;
                    let random = kit::random_modulus(&mut rng, bits);
                    for n in [all_ones, random] {
                        let top = match r {
                            Reduction::Full => n.clone(),
                            Reduction::Lazy => &n << 1u32,
                        };
                        let mut ops = vec![
                            BigUint::from(0u32),
                            one.clone(),
                            &n - 1u32,
                            &top - 1u32,
                            kit::random_below(&mut rng, &top),
                        ];
                        // All-ones limbs below n: a square with every carry at its largest.
                        ops.push(
                            ((&one << ((bits - 1) / L::BITS * L::BITS)) - 1u32).max(one.clone()),
                        );
                        for a in &ops {
                            check(k, r, &n, a);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn squaring_w8() {
    all_sizes::<u8>();
}

#[test]
fn squaring_w16() {
    all_sizes::<u16>();
}

#[test]
fn squaring_w32() {
    all_sizes::<u32>();
}

#[test]
fn squaring_w64() {
    all_sizes::<u64>();
}
