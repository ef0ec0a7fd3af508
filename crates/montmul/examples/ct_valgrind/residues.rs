//! The residue cases: the `Residue` operations on secret values, the wide reductions,
//! the inverse, the fixed-length encodings and the in-place forms.

use crate::api::{self, Policy};
use crate::memcheck::{public, secret};
use crate::run::Run;
use crate::values::{be_padded, bits_for, edges, random_bytes};
use montmul::Limb;
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{
    from_limbs, random_below, random_below_pow2, random_modulus, to_limbs, TestRng,
};
use num_traits::One;

/// The [`montmul::Residue`] operations on secret values, checked against num-bigint.
pub fn residues(run: &mut Run) {
    fn ops<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let x = random_below(&mut run.rng, &n);
        for y in [random_below(&mut run.rng, &n), x.clone()] {
            let e = random_bytes(&mut run.rng, 4);
            secret(&e);
            let (got, eq) = api::residue_ops(
                &m,
                &to_limbs::<L>(&x, s),
                &to_limbs::<L>(&y, s),
                &e,
                |v| secret(v),
                |v| public(v),
            );
            public(&e);
            let ee = BigUint::from_bytes_be(&e);
            let want = [
                &x * &y % &n,
                &x * &x % &n,
                (&x + &y) % &n,
                (&x + &n - &y) % &n,
                (&n - &x) % &n,
                x.modpow(&ee, &n),
            ];
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(&from_limbs(g), w, "residue operation {i}");
            }
            assert_eq!(eq, x == y, "ct_eq");
        }
        format!("-> {engine}: * square + - neg pow ct_eq to_limbs")
    }
    for policy in api::POLICIES {
        let label = format!("residue ops u64 4 limbs {policy}");
        run.case(&label, |run| ops::<u64>(run, 4, policy));
        let label = format!("residue ops u64 9 limbs {policy}");
        run.case(&label, |run| ops::<u64>(run, 9, policy));
        let label = format!("residue ops u32 3 limbs {policy}");
        run.case(&label, |run| ops::<u32>(run, 3, policy));
    }
}

/// A random modulus of `bits` bits divisible by 3 (so that some values have no inverse).
fn modulus_of_3(rng: &mut TestRng, bits: u32) -> BigUint {
    loop {
        let n = random_modulus(rng, bits);
        if (&n % 3u32) == BigUint::default() {
            return n;
        }
    }
}

/// The newer [`montmul::Residue`] operations on secret values: the wide reductions,
/// the inverse, the fixed-length encodings with `ct_eq` and `ct_is_zero`, and the
/// in-place forms, each checked against num-bigint.
pub fn residues_more(run: &mut Run) {
    /// `x mod n` for secret inputs of 1, 2 and 3 times the modulus' width (limbs and
    /// bytes), random and all ones.
    fn reduce<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let bytes_n = bits.div_ceil(8) as usize;
        for k in 1..=3 {
            let wide = k * s;
            let full = (BigUint::one() << (wide as u32 * L::BITS)) - 1u32;
            let random = (
                random_below_pow2(&mut run.rng, wide as u32 * L::BITS),
                random_bytes(&mut run.rng, k * bytes_n),
            );
            for (x, bytes) in [random, (full, vec![0xff; k * bytes_n])] {
                let limbs = to_limbs::<L>(&x, wide);
                let y = BigUint::from_bytes_be(&bytes);
                secret(&limbs);
                secret(&bytes);
                let [got_x, got_y] = api::reduced(&m, &limbs, &bytes, |v| public(v));
                assert_eq!(from_limbs(&got_x), &x % &n, "from_limbs_reduced, {k}x");
                assert_eq!(from_limbs(&got_y), &y % &n, "from_be_bytes_reduced, {k}x");
            }
        }
        format!("-> {engine}: from_limbs_reduced, from_be_bytes_reduced at 1x 2x 3x")
    }

    /// `x^-1` for secret x: 0, 1, n - 1, random, and a multiple of 3 (n is one too).
    fn inverse<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = modulus_of_3(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let third = random_below(&mut run.rng, &(&n / 3u32)) * 3u32;
        let mut values = edges(&mut run.rng, &n).to_vec();
        values.push(third);
        let (mut found, mut none) = (0, 0);
        for x in values {
            let limbs = to_limbs::<L>(&x, s);
            secret(&limbs);
            let got = api::inverse(&m, &limbs, |v| secret(v), |v| public(v));
            let want = x.modinv(&n);
            match (&got, &want) {
                (Some(g), Some(w)) => {
                    assert_eq!(&from_limbs(g), w, "inv");
                    found += 1;
                }
                (None, None) => none += 1,
                _ => panic!("inv of {x:x} mod {n:x}: {got:?}, want {want:?}"),
            }
        }
        format!("-> {engine}: inv ({found} inverses, {none} without)")
    }

    /// The fixed-length outputs and the comparisons of secret values.
    fn encode<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let len = bits.div_ceil(8) as usize;
        for x in edges(&mut run.rng, &n) {
            for k in [len, len + 3] {
                let limbs = to_limbs::<L>(&x, s);
                secret(&limbs);
                let [written, padded, plain, hex, zero] =
                    api::encodings(&m, &limbs, k, |v| secret(v), public);
                let want = be_padded(&x, k);
                assert_eq!(written, want, "write_be_bytes into {k}");
                assert_eq!(padded, want, "to_be_bytes_padded({k})");
                assert_eq!(plain, be_padded(&x, len), "to_be_bytes");
                let want_hex: String = be_padded(&x, len)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                assert_eq!(String::from_utf8(hex).unwrap(), want_hex, "to_hex");
                assert_eq!(zero, [u8::from(x == BigUint::default())], "ct_is_zero");
            }
        }
        format!("-> {engine}: write_be_bytes to_be_bytes_padded to_be_bytes to_hex ct_is_zero")
    }

    /// The in-place chain on secret values, and `ct_eq` through [`api::residue_ops`].
    fn assign<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let ys = edges(&mut run.rng, &n);
        for (x, y) in edges(&mut run.rng, &n).iter().zip(ys.iter().rev()) {
            let e = random_bytes(&mut run.rng, 3);
            let (xl, yl) = (to_limbs::<L>(x, s), to_limbs::<L>(y, s));
            secret(&xl);
            secret(&yl);
            secret(&e);
            let got = api::in_place(&m, &xl, &yl, &e, |v| secret(v), |v| public(v));
            public(&e);
            let mut c = x * y % &n;
            let mut want = vec![c.clone()];
            c = &c * &c % &n;
            want.push(c.clone());
            c = (c + y) % &n;
            want.push(c.clone());
            c = (c + &n - x) % &n;
            want.push(c.clone());
            c = (&n - c) % &n;
            want.push(c.clone());
            want.push(c.modpow(&BigUint::from_bytes_be(&e), &n));
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(&from_limbs(g), w, "in-place step {i}");
            }
        }
        format!("-> {engine}: *= square_assign += -= neg_assign pow")
    }

    /// The in-place exponentiations in one reused scratch on secret bases and
    /// exponents (windows of 1, 3 and 4 bits), and a public exponent on a secret base.
    fn pow_in<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let ys = edges(&mut run.rng, &n);
        for (i, (x, y)) in edges(&mut run.rng, &n)
            .iter()
            .zip(ys.iter().rev())
            .enumerate()
        {
            let e1 = random_bytes(&mut run.rng, [2, 16, 3, 32][i]);
            let e2 = random_bytes(&mut run.rng, [16, 2, 32, 3][i]);
            let p = random_bytes(&mut run.rng, 4);
            let (xl, yl) = (to_limbs::<L>(x, s), to_limbs::<L>(y, s));
            secret(&xl);
            secret(&yl);
            secret(&e1);
            secret(&e2);
            let got = api::pow_in_place(&m, &xl, &yl, &e1, &e2, &p, |v| secret(v), |v| public(v));
            public(&e1);
            public(&e2);
            let [e1, e2, p] = [&e1, &e2, &p].map(|e| BigUint::from_bytes_be(e));
            let mut c = x.modpow(&e1, &n);
            let mut want = vec![c.clone()];
            c = c * y % &n;
            want.push(c.clone());
            c = c.modpow(&e2, &n);
            want.push(c.clone());
            want.push(c.modpow(&p, &n));
            want.push(y.modpow(&e1, &n));
            assert_eq!(got.len(), want.len());
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(&from_limbs(g), w, "in-place pow step {k}");
            }
        }
        format!("-> {engine}: pow_assign *= pow_assign pow_vartime_assign in one PowScratch")
    }

    /// The powers of a secret base (`FixedBase`) raised to secret exponents of 2, 16,
    /// 3 and 32 bytes.
    fn fixed<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        for (i, x) in edges(&mut run.rng, &n).iter().enumerate() {
            let e1 = random_bytes(&mut run.rng, [2, 16, 3, 32][i % 4]);
            let e2 = random_bytes(&mut run.rng, [32, 3, 16, 2][i % 4]);
            let xl = to_limbs::<L>(x, s);
            secret(&xl);
            secret(&e1);
            secret(&e2);
            let got = api::fixed_base(&m, &xl, &e1, &e2, |v| secret(v), |v| public(v));
            public(&e1);
            public(&e2);
            for (k, (g, e)) in got.iter().zip([&e1, &e2]).enumerate() {
                let want = x.modpow(&BigUint::from_bytes_be(e), &n);
                assert_eq!(from_limbs(g), want, "fixed-base power {k}");
            }
        }
        format!("-> {engine}: FixedBase::new pow")
    }

    type Case = fn(&mut Run, usize, Policy) -> String;
    let ops: [(&str, Case, Case, Case); 6] = [
        ("reduce", reduce::<u64>, reduce::<u32>, reduce::<u8>),
        ("inv", inverse::<u64>, inverse::<u32>, inverse::<u8>),
        ("encode", encode::<u64>, encode::<u32>, encode::<u8>),
        ("assign", assign::<u64>, assign::<u32>, assign::<u8>),
        ("pow_in", pow_in::<u64>, pow_in::<u32>, pow_in::<u8>),
        ("fixed", fixed::<u64>, fixed::<u32>, fixed::<u8>),
    ];
    for policy in api::POLICIES {
        for (name, u64_case, u32_case, u8_case) in ops {
            for s in [1, 4, 9] {
                let label = format!("residue {name:<6} u64 {s} limbs {policy}");
                run.case(&label, |run| u64_case(run, s, policy));
            }
            let label = format!("residue {name:<6} u32 3 limbs {policy}");
            run.case(&label, |run| u32_case(run, 3, policy));
            let label = format!("residue {name:<6} u8  5 limbs {policy}");
            run.case(&label, |run| u8_case(run, 5, policy));
        }
    }
}
