//! Inputs for a generated kernel and the oracle its outputs are checked against.
//!
//! Moduli: random ones of exactly B bits, the test kit's edge moduli (all ones, one high
//! bit, all-ones middle limbs), moduli with the top bit clear, and a one-limb modulus.
//! Operands: 0, 1, 2, n-1, n-2, (n-1)/2, R-1 mod n, R mod n, all-ones limbs, random
//! values; for lazy kernels also n, n+1, 2n-2, 2n-1 and random values in [n, 2n).
//! Expected values come from num-bigint (montmul-testkit), never from montmul's kernels.

use montmul::Limb;
use montmul_gen::{Function, Spec, Word};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// One set of inputs: modulus and two operands.
pub struct Case {
    /// The odd modulus.
    pub n: BigUint,
    /// First operand.
    pub a: BigUint,
    /// Second operand.
    pub b: BigUint,
}

/// R = 2^r_bits of the kernel.
pub fn r_bits(spec: &Spec) -> u32 {
    spec.limbs() as u32 * spec.word().bits()
}

fn seed(spec: &Spec) -> u64 {
    // FNV-1a of the command: each kernel gets its own reproducible inputs.
    spec.command().bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn moduli(spec: &Spec, rng: &mut TestRng) -> Vec<BigUint> {
    let (bits, w) = (spec.bits(), spec.word().bits());
    let mut out = vec![
        kit::random_modulus(rng, bits),
        kit::random_modulus(rng, bits),
    ];
    out.extend(kit::edge_moduli(bits, w));
    // Top bit clear: one bit short, and a whole word short.
    out.push(kit::random_modulus(rng, bits - 1));
    if bits > w + 2 {
        out.push(kit::random_modulus(rng, bits - w + 1));
    }
    // A modulus of one limb in a kernel of many, and the smallest odd modulus above 1.
    out.push(kit::random_modulus(rng, w));
    out.push(BigUint::from(3u32));
    out
}

fn operands(spec: &Spec, n: &BigUint, rng: &mut TestRng) -> Vec<BigUint> {
    let mut out = kit::edge_operands(n, spec.word().bits(), r_bits(spec));
    out.push(kit::random_below(rng, n));
    if spec.lazy() {
        let two_n = n * 2u32;
        out.extend([n.clone(), n + 1u32, &two_n - 2u32, &two_n - 1u32]);
        out.push(n + kit::random_below(rng, n));
    }
    out.sort();
    out.dedup();
    out
}

/// Every case the kernel of `spec` is run on.
pub fn cases(spec: &Spec) -> Vec<Case> {
    let mut rng = TestRng::new(seed(spec));
    let mut out = Vec::new();
    for n in moduli(spec, &mut rng) {
        let ops = operands(spec, &n, &mut rng);
        let bound = if spec.lazy() { &n * 2u32 } else { n.clone() };
        let mut push = |a: &BigUint, b: &BigUint| {
            out.push(Case {
                n: n.clone(),
                a: a.clone(),
                b: b.clone(),
            })
        };
        if ops.len() <= 12 {
            for a in &ops {
                for b in &ops {
                    push(a, b);
                }
            }
        } else {
            let last = &ops[ops.len() - 1];
            for (i, a) in ops.iter().enumerate() {
                push(a, a);
                push(a, last);
                push(a, &ops[(i * 7 + 3) % ops.len()]);
            }
        }
        for _ in 0..6 {
            let a = kit::random_below(&mut rng, &bound);
            let b = kit::random_below(&mut rng, &bound);
            push(&a, &b);
        }
    }
    out
}

/// n0' = -n^-1 mod 2^w, by montmul's Newton iteration.
pub fn n0(spec: &Spec, n: &BigUint) -> u64 {
    let low = n.iter_u64_digits().next().unwrap_or(0);
    match spec.word() {
        Word::W32 => u32::inv_mod_word(low as u32).wrapping_neg() as u64,
        Word::W64 => u64::inv_mod_word(low).wrapping_neg(),
    }
}

/// The limbs of `x` for the kernel of `spec` (u32 limbs widened to u64).
pub fn limbs(spec: &Spec, x: &BigUint) -> Vec<u64> {
    match spec.word() {
        Word::W32 => kit::to_limbs::<u32>(x, spec.limbs())
            .into_iter()
            .map(u64::from)
            .collect(),
        Word::W64 => kit::to_limbs::<u64>(x, spec.limbs()),
    }
}

/// What `function` must return for `case`.
///
/// Full reduction: the least residue of a * b * R^-1 (num-bigint). Lazy: every
/// algorithm returns u = (a b + m n) / R with m = -a b n^-1 mod R, the one m in [0, R);
/// u is congruent to the least residue x and below 2n, so it is x or x + n, and it is x
/// exactly when x R - a b (a multiple of n below n R) is not negative.
pub fn expected(spec: &Spec, case: &Case, function: Function) -> BigUint {
    let b = match function {
        Function::Mul => &case.b,
        Function::Sqr => &case.a,
    };
    let x = kit::mont_mul(&case.a, b, &case.n, r_bits(spec));
    if !spec.lazy() || (&x << r_bits(spec)) >= &case.a * b {
        x
    } else {
        x + &case.n
    }
}
