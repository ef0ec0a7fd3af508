//! The small-field types `FieldModulus<N>` and `FieldElement<N>` at every limb count 1 to
//! 9, against the num-bigint oracle: every operation (conversions in and out, add, sub,
//! neg, double, mul, square, pow, pow_vartime, equality, selection) on edge moduli
//! (all ones, one high bit, all-ones middle limbs, top bit clear, the smallest of the
//! limb count, fewer limbs than `N`), the standard curve fields (P-192, P-224, P-256,
//! P-384, P-521, secp256k1, 2^255 - 19) and random ones, with edge operands (0, 1,
//! n - 1, all-ones limbs, R mod n) and random ones. Each modulus runs on `cios-fixed`
//! and, at 4 to 8 limbs where the CPU has BMI2 and ADX, on `mulx-cios` too (skipped,
//! saying so, elsewhere).

use montmul::{Error, FieldElement, FieldKernel, FieldModulus, FIELD_MAX_LIMBS};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};
use num_traits::{One, Zero};

/// The standard elliptic-curve fields, as hex.
const CURVE_FIELDS: &[(&str, &str)] = &[
    ("P-192", "fffffffffffffffffffffffffffffffeffffffffffffffff"),
    (
        "P-224",
        "ffffffffffffffffffffffffffffffff000000000000000000000001",
    ),
    (
        "P-256",
        "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
    ),
    (
        "secp256k1",
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f",
    ),
    (
        "2^255-19",
        "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed",
    ),
    (
        "P-384",
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe\
         ffffffff0000000000000000ffffffff",
    ),
    (
        "P-521",
        "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\
         ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    ),
];

fn big(hex: &str) -> BigUint {
    BigUint::parse_bytes(hex.as_bytes(), 16).expect("test hex")
}

/// The kernels to run `N` limbs on here: `cios-fixed` always, `mulx-cios` where it has
/// code for `N` and the CPU has BMI2 and ADX.
fn kernels<const N: usize>() -> Vec<FieldKernel> {
    let mut out = vec![FieldKernel::CiosFixed];
    if (4..=8).contains(&N) {
        if FieldKernel::auto(N) == FieldKernel::MulxCios {
            out.push(FieldKernel::MulxCios);
        } else {
            montmul_testkit::skipped!(
                "SKIPPED: mulx-cios at {N} limbs: this CPU lacks BMI2 or ADX"
            );
        }
    }
    out
}

/// Moduli that fit `N` limbs: edge moduli at 64 N and 64 N - 1 bits, the smallest odd
/// modulus of the limb count, moduli of fewer limbs, the curve fields of this size, and
/// random ones.
fn moduli<const N: usize>(rng: &mut TestRng) -> Vec<BigUint> {
    let top = 64 * N as u32;
    let one = BigUint::one();
    let mut out = kit::edge_moduli(top, 64);
    out.extend(kit::edge_moduli(top - 1, 64));
    // The smallest odd modulus that needs N limbs (3 for one limb).
    out.push(if N == 1 {
        BigUint::from(3u32)
    } else {
        (&one << (top - 64)) + 1u32
    });
    // Fewer limbs than N: the top limbs are zero.
    out.push(BigUint::from(3u32));
    out.push(BigUint::from(u64::MAX - 58));
    if N > 1 {
        out.push(kit::random_modulus(rng, top - 64 - 5));
    }
    for &(_, hex) in CURVE_FIELDS {
        let p = big(hex);
        if p.bits() as u32 > top - 64 && p.bits() as u32 <= top {
            out.push(p);
        }
    }
    for bits in [top, top - 1, top - 63] {
        out.push(kit::random_modulus(rng, bits.max(2)));
    }
    out.sort();
    out.dedup();
    out
}

fn field<const N: usize>(n: &BigUint, kernel: FieldKernel) -> FieldModulus<N> {
    let limbs: [u64; N] = kit::to_limbs::<u64>(n, N).try_into().expect("N limbs");
    let p = FieldModulus::<N>::with_kernel(&limbs, kernel).expect("odd modulus > 1");
    assert_eq!(p.kernel(), kernel);
    assert_eq!(p.bits(), n.bits() as u32);
    assert_eq!(p.byte_len(), n.bits().div_ceil(8) as usize);
    assert_eq!(kit::from_limbs(p.n()), *n);
    assert_eq!(p.n0().wrapping_mul(p.n()[0]), u64::MAX, "n0' = -n^-1");
    p
}

fn elem<const N: usize>(p: &FieldModulus<N>, x: &BigUint) -> FieldElement<N> {
    let limbs: [u64; N] = kit::to_limbs::<u64>(x, N).try_into().expect("N limbs");
    FieldElement::from_limbs(p, &limbs).expect("x < n")
}

fn value<const N: usize>(p: &FieldModulus<N>, x: &FieldElement<N>) -> BigUint {
    kit::from_limbs(&x.to_limbs(p))
}

/// Operands below `n`: the test kit's edge operands and random ones.
fn operands(n: &BigUint, limbs: usize, rng: &mut TestRng) -> Vec<BigUint> {
    let mut ops = kit::edge_operands(n, 64, 64 * limbs as u32);
    for _ in 0..4 {
        ops.push(kit::random_below(rng, n));
    }
    ops.sort();
    ops.dedup();
    ops
}

/// Every operation of the field `n` under `kernel`, against num-bigint.
fn check_field<const N: usize>(n: &BigUint, kernel: FieldKernel, rng: &mut TestRng) {
    let p = field::<N>(n, kernel);
    let ops = operands(n, N, rng);
    let ctx = |what: &str, a: &BigUint| format!("{what}, {N} limbs, {kernel:?}: n={n:x} a={a:x}");
    let byte_len = p.byte_len();

    assert!(p.zero().is_zero());
    assert_eq!(value(&p, &p.zero()), BigUint::zero());
    assert_eq!(value(&p, &p.one()), BigUint::one() % n);
    assert_eq!(value(&p, &FieldElement::default()), BigUint::zero());

    let elems: Vec<FieldElement<N>> = ops.iter().map(|a| elem(&p, a)).collect();
    for (a, x) in ops.iter().zip(&elems) {
        // Conversions: limbs, fixed-length bytes, fixed-length hex, both ways.
        assert_eq!(value(&p, x), *a, "{}", ctx("limbs", a));
        let bytes = x.to_be_bytes(&p);
        let mut want = a.to_bytes_be();
        while want.len() < byte_len {
            want.insert(0, 0);
        }
        assert_eq!(bytes, want, "{}", ctx("to_be_bytes", a));
        assert!(FieldElement::from_be_bytes(&p, &bytes).unwrap() == *x);
        let mut padded = vec![0u8; 9];
        padded.extend(&bytes);
        assert!(FieldElement::from_be_bytes(&p, &padded).unwrap() == *x);
        let hex = x.to_hex(&p);
        assert_eq!(hex.len(), 2 * byte_len);
        assert_eq!(big(&hex), *a, "{}", ctx("to_hex", a));
        assert!(FieldElement::from_hex(&p, &hex).unwrap() == *x);
        let upper = format!("0X{}", hex.to_uppercase());
        assert!(FieldElement::from_hex(&p, &upper).unwrap() == *x);
        assert!(FieldElement::from_hex(&p, &format!("0x{a:x}")).unwrap() == *x);

        // One-operand operations.
        let neg = (n - a) % n;
        assert_eq!(value(&p, &p.neg(x)), neg, "{}", ctx("neg", a));
        assert_eq!(
            value(&p, &p.double(x)),
            (a * 2u32) % n,
            "{}",
            ctx("double", a)
        );
        assert_eq!(value(&p, &p.square(x)), (a * a) % n, "{}", ctx("square", a));
        assert_eq!(x.is_zero(), a.is_zero());
        assert!(x.ct_eq(x));
        assert_eq!(format!("{x:?}"), format!("FieldElement<{N}>(..)"));
    }
    // Two-operand operations, every pair.
    for (a, x) in ops.iter().zip(&elems) {
        for (b, y) in ops.iter().zip(&elems) {
            let c = || ctx("pair", a) + &format!(" b={b:x}");
            assert_eq!(value(&p, &p.add(x, y)), (a + b) % n, "add {}", c());
            assert_eq!(value(&p, &p.sub(x, y)), (a + n - b) % n, "sub {}", c());
            assert_eq!(value(&p, &p.mul(x, y)), (a * b) % n, "mul {}", c());
            assert_eq!(x.ct_eq(y), a == b, "ct_eq {}", c());
            assert_eq!(x == y, a == b, "eq {}", c());
            assert!(FieldElement::select(x, y, false) == *x, "select {}", c());
            assert!(FieldElement::select(x, y, true) == *y, "select {}", c());
            let mut z = *x;
            z.conditional_assign(y, false);
            assert!(z == *x);
            z.conditional_assign(y, true);
            assert!(z == *y);
        }
    }
    // Powers: edge and random exponents, at their own and at padded lengths.
    let one = BigUint::one();
    let mut exps = vec![
        BigUint::zero(),
        one.clone(),
        BigUint::from(2u32),
        BigUint::from(15u32),
        BigUint::from(16u32),
        n - 1u32,
        n + 1u32,
        (&one << (64 * N)) - 1u32,
    ];
    if n > &BigUint::from(2u32) {
        exps.push(n - 2u32);
    }
    for _ in 0..3 {
        let bits = kit::random_below(rng, &BigUint::from(64 * N + 64)) + 1u32;
        let bits = u32::try_from(bits).expect("below 640");
        exps.push(kit::random_below_pow2(rng, bits));
    }
    for (i, (a, x)) in ops.iter().zip(&elems).enumerate() {
        // All exponents on a few bases; one exponent on the rest.
        let which: &[BigUint] = if i % 4 == 0 {
            &exps
        } else {
            &exps[i % exps.len()..][..1]
        };
        for e in which {
            let want = kit::pow_mod(a, e, n);
            let e_bytes = e.to_bytes_be();
            let c = || ctx("pow", a) + &format!(" e={e:x}");
            assert_eq!(value(&p, &p.pow(x, &e_bytes)), want, "{}", c());
            assert_eq!(
                value(&p, &p.pow_vartime(x, &e_bytes)),
                want,
                "vartime {}",
                c()
            );
            let mut padded = vec![0u8; 3];
            padded.extend(&e_bytes);
            assert_eq!(value(&p, &p.pow(x, &padded)), want, "padded {}", c());
            assert_eq!(
                value(&p, &p.pow_vartime(x, &padded)),
                want,
                "padded {}",
                c()
            );
        }
        assert_eq!(value(&p, &p.pow(x, &[])), one.clone() % n, "empty exponent");
        assert_eq!(value(&p, &p.pow_vartime(x, &[])), one.clone() % n);
    }
}

/// Every modulus of `N` limbs on every kernel this CPU runs.
fn check_size<const N: usize>() {
    let mut rng = TestRng::new(0x5eed_0000 + N as u64);
    let moduli = moduli::<N>(&mut rng);
    for kernel in kernels::<N>() {
        for n in &moduli {
            check_field::<N>(n, kernel, &mut rng);
        }
    }
    check_errors::<N>();
}

/// Whether this CPU has BMI2 and ADX, asked of std directly.
fn bmi2_adx() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("adx")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The typed errors: bad moduli, operands >= n, bad hex, a kernel that does not apply;
/// and the choice `auto` makes.
fn check_errors<const N: usize>() {
    assert_eq!(
        FieldKernel::auto(N) == FieldKernel::MulxCios,
        (4..=8).contains(&N) && bmi2_adx(),
        "auto at {N} limbs"
    );
    let mut even = [0u64; N];
    even[0] = 4;
    assert_eq!(
        FieldModulus::<N>::new(&[0; N]).unwrap_err(),
        Error::ZeroModulus
    );
    let mut one = [0u64; N];
    one[0] = 1;
    assert_eq!(
        FieldModulus::<N>::new(&one).unwrap_err(),
        Error::ModulusIsOne
    );
    assert_eq!(
        FieldModulus::<N>::new(&even).unwrap_err(),
        Error::EvenModulus
    );
    assert_eq!(
        FieldModulus::<N>::from_be_bytes(&[]).unwrap_err(),
        Error::EmptyModulus
    );
    let mut wide = vec![1u8];
    wide.extend(vec![0xffu8; 8 * N]);
    assert_eq!(
        FieldModulus::<N>::from_be_bytes(&wide).unwrap_err(),
        Error::ModulusTooLarge {
            bits: 64 * N as u32 + 1,
            max: 64 * N as u32
        }
    );
    assert!(matches!(
        FieldModulus::<N>::from_hex("0xzz"),
        Err(Error::InvalidHex { .. })
    ));
    match FieldModulus::<N>::with_kernel(&[u64::MAX; N], FieldKernel::MulxCios) {
        Ok(p) => assert!((4..=8).contains(&N) && p.kernel() == FieldKernel::MulxCios),
        Err(Error::UnsupportedSize { algo, limbs }) => {
            assert!(!(4..=8).contains(&N));
            assert_eq!((algo, limbs), ("mulx-cios", N));
        }
        Err(Error::Unavailable { algo }) => {
            assert!((4..=8).contains(&N) && FieldKernel::auto(N) == FieldKernel::CiosFixed);
            assert_eq!(algo, "mulx-cios");
        }
        Err(e) => panic!("unexpected {e:?}"),
    }

    // n = 2^(64 N) - 1 - 2^64 (odd, all limbs but one all ones).
    let mut limbs = [u64::MAX; N];
    if N > 1 {
        limbs[1] = u64::MAX - 1;
    }
    let p = FieldModulus::<N>::new(&limbs).unwrap();
    assert_eq!(p.kernel(), FieldKernel::auto(N));
    assert_eq!(
        FieldElement::from_limbs(&p, &limbs).unwrap_err(),
        Error::OperandTooLarge
    );
    let n_bytes: Vec<u8> = limbs.iter().rev().flat_map(|w| w.to_be_bytes()).collect();
    assert_eq!(
        FieldElement::from_be_bytes(&p, &n_bytes).unwrap_err(),
        Error::OperandTooLarge
    );
    let mut over = vec![1u8];
    over.extend(vec![0u8; 8 * N]);
    assert_eq!(
        FieldElement::from_be_bytes(&p, &over).unwrap_err(),
        Error::OperandTooLarge
    );
    let n_hex: String = n_bytes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        FieldElement::from_hex(&p, &n_hex).unwrap_err(),
        Error::OperandTooLarge
    );
    assert_eq!(
        FieldElement::from_hex(&p, &format!("1{}", "0".repeat(16 * N))).unwrap_err(),
        Error::OperandTooLarge
    );
    for bad in ["", "0x", "12g4", "1_0", " 1", "+1", "é"] {
        assert!(
            matches!(
                FieldElement::from_hex(&p, bad),
                Err(Error::InvalidHex { .. })
            ),
            "{bad:?}"
        );
    }
    assert!(FieldElement::from_be_bytes(&p, &[]).unwrap() == p.zero());
}

macro_rules! sizes {
    ($($name:ident: $n:literal),*) => {
        $(
            #[test]
            fn $name() {
                check_size::<$n>();
            }
        )*
        /// The test list covers every limb count the type allows.
        #[test]
        fn every_limb_count() {
            assert_eq!([$($n),*], core::array::from_fn::<usize, FIELD_MAX_LIMBS, _>(|i| i + 1));
        }
    };
}

sizes!(limbs_1: 1, limbs_2: 2, limbs_3: 3, limbs_4: 4, limbs_5: 5, limbs_6: 6, limbs_7: 7, limbs_8: 8, limbs_9: 9);

/// The curve fields by name, at the limb count their size asks for, from hex: the
/// kernel `auto` picks and the portable one agree with the oracle on a chain of
/// operations (Fermat's little theorem for the inverse, checked by multiplication).
#[test]
fn curve_fields_by_name() {
    fn run<const N: usize>(name: &str, hex: &str) {
        let n = big(hex);
        let p = FieldModulus::<N>::from_hex(hex).expect(name);
        let q = FieldModulus::<N>::with_kernel(p.n(), FieldKernel::CiosFixed).expect(name);
        assert_eq!(p.kernel(), FieldKernel::auto(N), "{name}");
        let mut rng = TestRng::new(7);
        let e = (&n - 2u32).to_bytes_be();
        for f in [p, q] {
            let a = kit::random_below(&mut rng, &n);
            let x = FieldElement::from_be_bytes(&f, &a.to_bytes_be()).unwrap();
            // x^(p-2) is x^-1 for prime p.
            let inv = f.pow_vartime(&x, &e);
            assert!(f.pow(&x, &e) == inv, "{name}");
            assert!(f.mul(&x, &inv) == f.one(), "{name}: x * x^-1");
            assert_eq!(
                value(&f, &inv),
                kit::pow_mod(&a, &(&n - 2u32), &n),
                "{name}"
            );
            // A chain: ((x + 1)^2 - x) * 3 = 3x^2 + 3x + 3.
            let one = f.one();
            let three = f.add(&f.double(&one), &one);
            let y = f.mul(&f.sub(&f.square(&f.add(&x, &one)), &x), &three);
            let want = (3u32 * (&a * &a + &a + 1u32)) % &n;
            assert_eq!(value(&f, &y), want, "{name}");
            assert_eq!(
                y.to_be_bytes(&f).len(),
                hex.trim_start_matches('0').len().div_ceil(2)
            );
        }
    }
    for &(name, hex) in CURVE_FIELDS {
        match name {
            "P-192" => run::<3>(name, hex),
            "P-224" | "P-256" | "secp256k1" | "2^255-19" => run::<4>(name, hex),
            "P-384" => run::<6>(name, hex),
            "P-521" => run::<9>(name, hex),
            _ => unreachable!("{name}"),
        }
    }
}
