//! The kernel cases: products, squares and exponentiations of secret operands through
//! each scalar kernel `auto` can pick, by name and through `auto`.

use crate::api::{self, Policy};
use crate::memcheck::{public, secret};
use crate::run::Run;
use crate::values::{bits_for, check, random_bytes};
use montmul::Limb;
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{from_limbs, r_inverse, random_below, random_modulus, to_limbs};
use num_traits::One;

/// Products and squares of secret operands through the kernel called `name`, for a
/// random modulus of `s` limbs, and exponentiations with a secret base and a secret
/// exponent of each length in `exponents` (bytes); every result checked against
/// num-bigint. Returns what the case prints, or why the kernel refused the modulus.
fn kernel_case<L: Limb>(
    run: &mut Run,
    name: &str,
    s: usize,
    policy: Policy,
    exponents: &[usize],
) -> Result<String, api::Error> {
    let bits = bits_for::<L>(s, policy);
    let n = random_modulus(&mut run.rng, bits);
    let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), name, policy)?;
    assert_eq!(api::limbs(&m), s, "{bits} bits under {policy}: {s} limbs");
    run.engine = Some(engine);
    let r_bits = s as u32 * L::BITS;
    let r_inv = r_inverse(&n, r_bits);
    let bound = from_limbs(api::bound(&m));
    // Two random operands below the bound, then the edges 0 and bound - 1.
    let operands = [
        random_below(&mut run.rng, &bound),
        random_below(&mut run.rng, &bound),
        BigUint::default(),
        &bound - 1u32,
    ];
    let mut out = vec![L::ZERO; s];
    for pair in operands.windows(2) {
        let (a, b) = (to_limbs::<L>(&pair[0], s), to_limbs::<L>(&pair[1], s));
        secret(&a);
        secret(&b);
        api::mul(&m, &a, &b, &mut out);
        public(&out);
        check(
            &out,
            &(&pair[0] * &pair[1] * &r_inv % &n),
            &bound,
            &n,
            "mul",
        );
        api::sqr(&m, &a, &mut out);
        public(&out);
        check(
            &out,
            &(&pair[0] * &pair[0] * &r_inv % &n),
            &bound,
            &n,
            "sqr",
        );
    }
    for &bytes in exponents {
        let x = random_below(&mut run.rng, &bound);
        let e = random_bytes(&mut run.rng, bytes);
        let base = to_limbs::<L>(&x, s);
        secret(&base);
        secret(&e);
        let got = api::pow(&m, &base, &e);
        public(&got);
        public(&e);
        // base = y R mod n, so base^e in Montgomery form is y^e R mod n.
        let y = &x * &r_inv % &n;
        let want = y.modpow(&BigUint::from_bytes_be(&e), &n) * (BigUint::one() << r_bits) % &n;
        check(&got, &want, &bound, &n, "pow");
    }
    let pow = if exponents.is_empty() {
        String::new()
    } else {
        format!(", pow with {exponents:?}-byte exponents")
    };
    Ok(format!("-> {engine}: mul, sqr{pow}"))
}

/// Runs [`kernel_case`] as a case of its own and returns the kernel it ran on.
fn kernel(
    run: &mut Run,
    phase: &str,
    word: u32,
    name: &str,
    s: usize,
    policy: Policy,
    exponents: &[usize],
) -> Option<&'static str> {
    let label = format!("{phase:<8} u{word:<2} {s:>3} limbs {policy} {name}");
    run.case(&label, |run| {
        let done = match word {
            8 => kernel_case::<u8>(run, name, s, policy, exponents),
            16 => kernel_case::<u16>(run, name, s, policy, exponents),
            32 => kernel_case::<u32>(run, name, s, policy, exponents),
            _ => kernel_case::<u64>(run, name, s, policy, exponents),
        };
        match done {
            Ok(done) => done,
            Err(e) if api::refusal_expected(&e) => format!("-> not run: {e}"),
            Err(e) => panic!("{name} refused a {s}-limb modulus: {e}"),
        }
    });
    run.engine
}

/// The kernel cases of one phase: the CPU as detected, or with ADX assumed. Returns
/// the kernel `auto` picked at each 64-bit limb count (with the policy).
pub fn kernels(run: &mut Run, phase: &str) -> Vec<(usize, Policy, &'static str)> {
    let t = api::thresholds();
    // Exponent lengths giving windows of 1, 3 and 4 bits (`exp::ct_window_limbs`).
    let exps: &[usize] = &[2, 4, 16];
    let mut picks = Vec::new();
    for policy in api::POLICIES {
        for word in [8, 16, 32] {
            for s in [1, 3] {
                kernel(run, phase, word, "auto", s, policy, exps);
            }
        }
        // `auto` on 64-bit limbs: every size up to 10 (1-limb, gen-cios, mulx-cios,
        // stack-array and run-time-length kernels), where `mulx-redc` starts, 16, and
        // 12 and 20 (four rows per pass).
        let mut sizes: Vec<usize> = (1..=10).chain([t.mulx_from, 12, 16, 20]).collect();
        sizes.sort_unstable();
        sizes.dedup();
        for s in sizes {
            let picked = kernel(run, phase, 64, "auto", s, policy, exps);
            picks.push((s, policy, picked.expect("auto takes every size")));
        }
        // Where `auto` turns to Karatsuba (products only: the size is large).
        if t.karatsuba_from <= 160 {
            let s = t.karatsuba_from;
            let picked = kernel(run, phase, 64, "auto", s, policy, &[]);
            picks.push((s, policy, picked.expect("auto takes every size")));
        }
        // The widest window on limbs (6 bits from 1281 exponent bits,
        // `exp::ct_window_limbs`): a table of 64 entries.
        kernel(run, phase, 64, "auto", 8, policy, &[200]);
        // Each kernel `auto` can pick, by name: at the sizes it has code for, or at a
        // few small ones (and, for Karatsuba, where its recursion starts; for
        // `mulx-redc`, where its squaring takes eight rows per pass).
        for name in SCALAR_KERNELS {
            let sizes = match (name, api::limb_counts(name)) {
                (_, Some(counts)) => counts.to_vec(),
                ("karatsuba", None) => vec![3, t.karatsuba_mul_base + 2],
                // 16 runs through `auto` above; 32 has the eight-row triangle.
                ("mulx-redc", None) => vec![1, 3, 11, 32],
                (_, None) => vec![1, 3, 11],
            };
            for s in sizes {
                let exps: &[usize] = if s <= 16 { &[4] } else { &[] };
                kernel(run, phase, 64, name, s, policy, exps);
            }
        }
        // The AVX2 kernel, which valgrind runs (not its AVX-512 IFMA peer): products,
        // squares and its digit-domain exponentiation, from one block of four digits
        // (1 limb) to sizes with several blocks.
        for s in [1, 3, 11] {
            kernel(run, phase, 64, "amm28-avx2", s, policy, &[4]);
        }
    }
    picks
}

/// The scalar kernels `auto` can pick on 64-bit limbs (on other limbs: `cios`).
pub const SCALAR_KERNELS: [&str; 6] = [
    "cios",
    "cios-fixed",
    "gen-cios",
    "mulx-cios",
    "mulx-redc",
    "karatsuba",
];
