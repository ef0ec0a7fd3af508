//! Every kernel, word size and reduction policy against the num-bigint oracle, on a
//! modulus and operands from the fuzzer: the raw product and square
//! (`Modulus::mont_mul`/`mont_sqr`: `a b R^-1 mod n`, below the policy's bound) and the
//! residue operations built on them (`*`, `+`, `-`, negation, bytes out).
#![no_main]

use libfuzzer_sys::fuzz_target;
use montmul::{Limb, Residue};
use montmul_fuzz::{
    bound_of, cap, cost, for_word, from_limbs, modulus_for, odd_modulus, operand, pick_kernel,
    to_limbs, Cost, Input,
};
use montmul_testkit::mont_mul as oracle_mont_mul;

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let word = input.byte();
    for_word!(word, run(&mut input));
});

fn run<L: Limb>(input: &mut Input) {
    let Some((k, reduction)) = pick_kernel::<L>(input.byte(), input.byte()) else {
        return;
    };
    // Bytes of the modulus: past Karatsuba's recursion threshold (78 limbs) and `auto`'s
    // switch to it (116) for the 64-bit kernels made for large sizes.
    let max = match cost(k) {
        Cost::BitSerial => 96,
        Cost::Portable => cap::<L>(256),
        Cost::Fast => cap::<L>(1024),
    };
    let n = odd_modulus(input.bytes(max));
    let Some(m) = modulus_for::<L>(&n, k, reduction) else {
        return;
    };
    let s = m.limbs();
    let r_bits = s as u32 * L::BITS;
    let bound = bound_of(&m, &n);
    let a = operand(input, &m, &n);
    let b = operand(input, &m, &n);
    let (la, lb) = (to_limbs::<L>(&a, s), to_limbs::<L>(&b, s));
    let name = k.info().name;

    let mut out = vec![L::ZERO; s];
    m.mont_mul(&la, &lb, &mut out);
    check(
        name,
        "mul",
        &from_limbs(&out),
        &oracle_mont_mul(&a, &b, &n, r_bits),
        &n,
        &bound,
    );
    m.mont_sqr(&la, &mut out);
    check(
        name,
        "sqr",
        &from_limbs(&out),
        &oracle_mont_mul(&a, &a, &n, r_bits),
        &n,
        &bound,
    );

    // The residue layer on the same kernel, in normal form.
    let (a, b) = (a % &n, b % &n);
    let ra = Residue::new(&m, &to_limbs::<L>(&a, s)).expect("a < n");
    let rb = Residue::new(&m, &to_limbs::<L>(&b, s)).expect("b < n");
    assert_eq!(
        from_limbs(&(&ra * &rb).to_limbs()),
        (&a * &b) % &n,
        "{name} a*b"
    );
    assert_eq!(
        from_limbs(&ra.square().to_limbs()),
        (&a * &a) % &n,
        "{name} a^2"
    );
    assert_eq!(
        from_limbs(&(&ra + &rb).to_limbs()),
        (&a + &b) % &n,
        "{name} a+b"
    );
    assert_eq!(
        from_limbs(&(&ra - &rb).to_limbs()),
        (&a + &n - &b) % &n,
        "{name} a-b"
    );
    assert_eq!(from_limbs(&(-&ra).to_limbs()), (&n - &a) % &n, "{name} -a");
    let bytes = ra.to_be_bytes();
    assert_eq!(bytes.len(), m.byte_len(), "{name} byte length");
    assert_eq!(montmul_fuzz::big(&bytes), a, "{name} bytes out");
}

/// A kernel's output `got` is below the policy's bound and congruent to the oracle's
/// `want` (equal to it under full reduction, where the bound is n).
fn check(
    name: &str,
    op: &str,
    got: &num_bigint::BigUint,
    want: &num_bigint::BigUint,
    n: &num_bigint::BigUint,
    bound: &num_bigint::BigUint,
) {
    assert!(
        got < bound,
        "{name} {op}: {got:x} not below the bound {bound:x}"
    );
    assert_eq!(&(got % n), want, "{name} {op} mod {n:x}");
}
