//! The inputs and the oracle check the cases share: random bytes, the modulus size for
//! a limb count, the edge operands, padded big-endian bytes, and the congruence check
//! against num-bigint.

use crate::api::Policy;
use montmul::Limb;
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{from_limbs, random_below, random_below_pow2, TestRng};
use num_traits::One;

/// `bytes` random bytes.
pub fn random_bytes(rng: &mut TestRng, bytes: usize) -> Vec<u8> {
    let x = random_below_pow2(rng, 8 * bytes as u32).to_bytes_be();
    let mut out = vec![0u8; bytes - x.len().min(bytes)];
    out.extend_from_slice(&x[x.len().saturating_sub(bytes)..]);
    out
}

/// The modulus size that gives `s` limbs of `L` under `policy`: full width for `Full`,
/// two bits less for `Lazy` (R > 4n).
pub fn bits_for<L: Limb>(s: usize, policy: Policy) -> u32 {
    let full = s as u32 * L::BITS;
    match policy {
        Policy::Full => full,
        Policy::Lazy => full - 2,
    }
}

/// `got` (limbs, below `bound`) is congruent to `want` mod n.
pub fn check<L: Limb>(got: &[L], want: &BigUint, bound: &BigUint, n: &BigUint, what: &str) {
    let got = from_limbs(got);
    assert!(got < *bound, "{what}: {got:x} is not below {bound:x}");
    assert_eq!(&(&got % n), want, "{what}: wrong result modulo {n:x}");
}

/// The edge values of an operand below n: 0, 1, n - 1, and a random one.
pub fn edges(rng: &mut TestRng, n: &BigUint) -> [BigUint; 4] {
    [
        BigUint::default(),
        BigUint::one(),
        n - 1u32,
        random_below(rng, n),
    ]
}

/// The value as big-endian bytes, left-padded with zeros to `len`.
pub fn be_padded(x: &BigUint, len: usize) -> Vec<u8> {
    let b = x.to_bytes_be();
    let b = if *x == BigUint::default() { vec![] } else { b };
    let mut out = vec![0u8; len - b.len()];
    out.extend_from_slice(&b);
    out
}
