//! The in-place exponentiations into a reused `PowScratch` (`Residue::pow_assign`,
//! `Residue::pow_vartime_assign`) against the num-bigint oracle: 64 to 8192 bits on
//! 64-bit limbs, a few sizes on 32- and 16-bit limbs, edge and random moduli, bases 0,
//! 1, n - 1 and random, exponents of 0, 1, 32 and 256 bytes with leading zero bytes;
//! the `amm52-ifma` digit ladder where the CPU has it. One scratch serves every base
//! and exponent of a modulus. Then the typed errors (another modulus, a longer
//! exponent) and the check that a chain `pow_assign`, `mul_assign`, `pow_assign`
//! allocates nothing once the scratch exists.

use assert_no_alloc::{assert_no_alloc, reset_violation_count, violation_count, AllocDisabler};
use montmul::lab;
use montmul::{Error, Limb, Modulus, PowScratch, Reduction, Residue};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// Counts, per thread, the allocations made inside `assert_no_alloc` (warning mode).
#[global_allocator]
static GLOBAL: AllocDisabler = AllocDisabler;

/// `len` random bytes, the first `zeros` of them 0.
fn exponent(rng: &mut TestRng, len: usize, zeros: usize) -> Vec<u8> {
    let x = kit::random_below_pow2(rng, 8 * len as u32).to_bytes_be();
    let mut out = vec![0u8; len - x.len().min(len)];
    out.extend(x);
    out[..zeros.min(len)].fill(0);
    out
}

fn residue<L: Limb>(m: &Modulus<L>, x: &BigUint) -> Residue<L> {
    Residue::new(m, &kit::to_limbs::<L>(x, m.limbs())).expect("x < n")
}

fn value<L: Limb>(r: &Residue<L>) -> BigUint {
    kit::from_limbs(&r.to_limbs())
}

fn below_bound<L: Limb>(r: &Residue<L>) -> bool {
    kit::from_limbs(r.montgomery_limbs()) < kit::from_limbs(r.modulus().bound())
}

/// The modulus `n` with the kernel called `name` under `reduction`, or `None` where the
/// kernel refuses it (a policy it lacks).
fn modulus<L: Limb>(n: &BigUint, name: &str, reduction: Reduction) -> Option<Modulus<L>> {
    let s = (n.bits() as u32).div_ceil(L::BITS) as usize;
    let k = lab::by_name::<L>(name).expect("registered");
    Modulus::with_kernel(&kit::to_limbs::<L>(n, s), k, reduction).ok()
}

/// Every base against every exponent in one scratch made for 256-byte exponents, by
/// `pow_assign` and `pow_vartime_assign`, against the oracle; the results stay below
/// the bound, and the by-value `pow` agrees. `long` says whether the 256-byte
/// exponents run for every base or for the random one only (the largest sizes).
fn check<L: Limb>(m: &Modulus<L>, n: &BigUint, rng: &mut TestRng, long: bool) {
    let mut scratch = PowScratch::new(m, 256);
    let bases = [
        BigUint::from(0u32),
        BigUint::from(1u32),
        n - 1u32,
        kit::random_below(rng, n),
    ];
    let mut exps = vec![
        vec![],
        vec![0],
        vec![1],
        exponent(rng, 1, 0),
        vec![0xff; 32],
        exponent(rng, 32, 0),
        exponent(rng, 32, 3),
    ];
    let longs = [exponent(rng, 256, 0), exponent(rng, 256, 17)];
    let ctx = format!(
        "w{} {} {} n={n:x}",
        L::BITS,
        m.engine().info().name,
        m.reduction()
    );
    for (i, b) in bases.iter().enumerate() {
        if long || i == bases.len() - 1 {
            exps.extend(longs.iter().cloned());
        }
        for e in &exps {
            let want = kit::pow_mod(b, &BigUint::from_bytes_be(e), n);
            let mut ct = residue(m, b);
            ct.pow_assign(e, &mut scratch).expect("scratch fits");
            let mut vt = residue(m, b);
            vt.pow_vartime_assign(e, &mut scratch)
                .expect("scratch fits");
            let what = format!(
                "{ctx} b={b:x} e={} bytes {:x?}",
                e.len(),
                &e[..e.len().min(4)]
            );
            assert_eq!(value(&ct), want, "pow_assign {what}");
            assert_eq!(value(&vt), want, "pow_vartime_assign {what}");
            assert!(below_bound(&ct) && below_bound(&vt), "bound {what}");
            if e.len() <= 32 {
                assert_eq!(value(&residue(m, b).pow(e)), want, "pow {what}");
            }
        }
        exps.truncate(7);
    }
    // Applied again to the result, in the same residue: the buffer's halves flip.
    let b = &bases[3];
    let e = exponent(rng, 32, 1);
    let mut x = residue(m, b);
    x.pow_assign(&e, &mut scratch).unwrap();
    x.pow_assign(&e, &mut scratch).unwrap();
    let ee = BigUint::from_bytes_be(&e);
    assert_eq!(
        value(&x),
        kit::pow_mod(&kit::pow_mod(b, &ee, n), &ee, n),
        "twice {ctx}"
    );
}

/// [`check`] for `auto` (its own policy) and `cios` (under both policies, or lazy
/// only from `long_from` bits), on the first `edges` of the kit's edge moduli and a
/// random one of each size; the 256-byte exponents for every base below `long_from`
/// bits.
fn sizes<L: Limb>(bits: &[u32], edges: usize, long_from: u32) {
    let mut rng = TestRng::new(0x90a5 + L::BITS as u64);
    for &bits in bits {
        let mut moduli = kit::edge_moduli(bits, L::BITS);
        moduli.truncate(edges);
        moduli.push(kit::random_modulus(&mut rng, bits));
        let policies: &[Reduction] = if bits < long_from {
            &Reduction::ALL
        } else {
            &[Reduction::Lazy]
        };
        for n in &moduli {
            let mut contexts: Vec<Modulus<L>> = modulus::<L>(n, "auto", Reduction::Full)
                .into_iter()
                .collect();
            contexts.extend(policies.iter().filter_map(|&r| modulus::<L>(n, "cios", r)));
            for m in &contexts {
                check(m, n, &mut rng, bits < long_from);
            }
        }
    }
}

#[test]
fn u64_up_to_4096_bits() {
    sizes::<u64>(&[64, 65, 127, 256, 521, 1024, 2048, 4096], 4, u32::MAX);
}

#[test]
fn u64_8192_bits() {
    // 16384 bits (each oracle power there takes seconds in num-bigint) is left to the
    // off-CI self-test sweep, docs/SECURITY.md, which runs `pow` at that size.
    sizes::<u64>(&[8192], 2, 8192);
}

#[test]
fn u32_and_u16() {
    sizes::<u32>(&[64, 521, 2048], 4, u32::MAX);
    sizes::<u16>(&[64, 130, 1024], 4, u32::MAX);
}

/// The digit ladder of `amm52-ifma` (named, both policies) from 640 to 8192 bits;
/// skipped, visibly, without AVX-512 IFMA.
#[test]
fn ifma_digit_ladder() {
    if montmul::arch::Avx512Ifma::new().is_none() {
        montmul_testkit::skipped!("ifma_digit_ladder: SKIPPED: no AVX-512 IFMA on this CPU");
        return;
    }
    let mut rng = TestRng::new(0x1f3a);
    for bits in [640, 832, 1024, 2048, 4096, 8192] {
        let mut moduli = kit::edge_moduli(bits, 64);
        moduli.truncate(if bits > 4096 { 1 } else { 4 });
        moduli.push(kit::random_modulus(&mut rng, bits));
        for n in &moduli {
            for r in Reduction::ALL {
                let m = modulus::<u64>(n, "amm52-ifma", r).expect("amm52-ifma takes both");
                check(&m, n, &mut rng, bits <= 4096);
            }
        }
    }
}

/// Another modulus, or a longer exponent than the scratch was made for: a typed error,
/// and the residue unchanged. A scratch of an equal modulus built separately works.
#[test]
fn wrong_scratch_is_a_typed_error() {
    let mut rng = TestRng::new(5);
    for bits in [61, 1024, 2048] {
        let n = kit::random_modulus(&mut rng, bits);
        let other = kit::random_modulus(&mut rng, bits);
        let m = modulus::<u64>(&n, "auto", Reduction::Full).unwrap();
        let x = kit::random_below(&mut rng, &n);
        let mut r = residue(&m, &x);

        let mut foreign = PowScratch::new(
            &modulus::<u64>(&other, "auto", Reduction::Full).unwrap(),
            64,
        );
        assert_eq!(
            r.pow_assign(&[3], &mut foreign),
            Err(Error::ModulusMismatch)
        );
        assert_eq!(
            r.pow_vartime_assign(&[3], &mut foreign),
            Err(Error::ModulusMismatch)
        );
        // The same n under another policy is another modulus too.
        let lazy = modulus::<u64>(&n, "cios", Reduction::Lazy).unwrap();
        let mut lazy_scratch = PowScratch::new(&lazy, 64);
        assert_eq!(
            r.pow_assign(&[3], &mut lazy_scratch),
            Err(Error::ModulusMismatch)
        );
        assert_eq!(value(&r), x, "unchanged after a mismatch");

        let mut short = PowScratch::new(&m, 4);
        assert_eq!(short.max_exponent_len(), 4);
        assert_eq!(
            r.pow_assign(&[0, 0, 0, 0, 1], &mut short),
            Err(Error::ExponentTooLong { len: 5, max: 4 })
        );
        assert_eq!(
            r.pow_vartime_assign(&[1; 9], &mut short),
            Err(Error::ExponentTooLong { len: 9, max: 4 })
        );
        assert_eq!(value(&r), x, "unchanged after a too-long exponent");
        // Up to its length it works, and an equal modulus built anew may use it.
        let again = modulus::<u64>(&n, "auto", Reduction::Full).unwrap();
        assert!(!again.same_handle(&m));
        let mut y = residue(&again, &x);
        y.pow_assign(&[0, 0, 1, 1], &mut short).unwrap();
        assert_eq!(value(&y), kit::pow_mod(&x, &BigUint::from(257u32), &n));
        // Debug shows sizes, not values.
        let shown = format!("{short:?}");
        assert!(shown.contains(&format!("bits: {bits}")) && shown.contains("max_exponent_len: 4"));
    }
}

/// Once the scratch exists, `pow_assign`, `mul_assign`, `pow_assign` (and the vartime
/// form, and squarings) allocate nothing, on the default kernel at 256, 2048 and 4096
/// bits under both policies: at the large sizes `auto` picks `amm52-ifma` where the CPU
/// has it, whose digit ladder runs from the scratch too. The by-value `pow` is seen to
/// allocate: the check sees allocations.
#[test]
fn pow_assign_chain_allocates_nothing() {
    let mut rng = TestRng::new(0xa110c);
    for bits in [256, 2048, 4096] {
        let n = kit::random_modulus(&mut rng, bits);
        let s = bits.div_ceil(64) as usize;
        let limbs = kit::to_limbs::<u64>(&n, s);
        let default = lab::default::<u64>();
        for r in Reduction::ALL {
            let Ok(m) = Modulus::with_kernel(&limbs, default, r) else {
                continue;
            };
            let engine = m.engine().info().name;
            eprintln!("{bits} bits {r}: engine {engine}");
            let (a, b) = (
                kit::random_below(&mut rng, &n),
                kit::random_below(&mut rng, &n),
            );
            let (e1, e2) = (exponent(&mut rng, 256, 1), exponent(&mut rng, 32, 0));
            let mut scratch = PowScratch::new(&m, 256);
            let mut x = residue(&m, &a);
            let y = residue(&m, &b);
            reset_violation_count();
            assert_no_alloc(|| {
                x.pow_assign(&e1, &mut scratch).unwrap();
                x.mul_assign(&y);
                x.pow_assign(&e2, &mut scratch).unwrap();
                x.square_assign();
                x.pow_vartime_assign(&e2, &mut scratch).unwrap();
            });
            assert_eq!(violation_count(), 0, "{bits} bits {r}, {engine}");
            let (e1, e2) = (BigUint::from_bytes_be(&e1), BigUint::from_bytes_be(&e2));
            let mut want = kit::pow_mod(&a, &e1, &n) * &b % &n;
            want = kit::pow_mod(&want, &e2, &n);
            want = kit::pow_mod(&(&want * &want % &n), &e2, &n);
            assert_eq!(value(&x), want, "{bits} bits {r}, {engine}");
            // The check does see allocations: the by-value pow allocates.
            assert_no_alloc(|| drop(y.pow(&[3])));
            assert!(violation_count() > 0);
        }
    }
}
