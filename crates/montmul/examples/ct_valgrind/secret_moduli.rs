//! The secret-modulus cases: a `Modulus` built from a secret modulus, its constants
//! checked against num-bigint.

use crate::api::{self, Policy};
use crate::memcheck::{public, secret_bytes};
use crate::run::Run;
use crate::values::bits_for;
use montmul::Limb;
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{from_limbs, random_modulus, to_limbs};
use num_traits::One;

/// A [`montmul::Modulus`] built from a secret modulus (RSA's p and q): every byte of the
/// modulus secret but the lowest (its oddness, checked) and the highest (its bit length,
/// public); the constants checked against num-bigint.
pub fn secret_moduli(run: &mut Run) {
    fn build<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let limbs = to_limbs::<L>(&n, bits.div_ceil(L::BITS) as usize);
        let bytes = core::mem::size_of_val(limbs.as_slice());
        // Little-endian limbs: byte 0 holds the low bit, the last byte the top one.
        secret_bytes(limbs.as_ptr().cast::<u8>().wrapping_add(1), bytes - 2);
        let (m, _) = api::modulus::<L>(&limbs, "auto", policy).expect("an odd modulus");
        for c in api::constants(&m) {
            public(c);
        }
        let n0 = [api::n0(&m)];
        public(&n0);
        let [n_m, r1, r2] = api::constants(&m);
        let r = BigUint::one() << (api::limbs(&m) as u32 * L::BITS);
        assert_eq!(from_limbs(n_m), n);
        assert_eq!(from_limbs(r1), &r % &n, "R mod n");
        assert_eq!(from_limbs(r2), &r * &r % &n, "R^2 mod n");
        let w = BigUint::one() << L::BITS;
        assert_eq!((n0[0].to_u64() * &n + 1u32) % &w, BigUint::default(), "n0'");
        format!("{bits} bits: n, n0', R mod n, R^2 mod n")
    }
    for policy in api::POLICIES {
        for s in [1, 4] {
            let label = format!("secret modulus u8  {s} limbs {policy}");
            run.case(&label, |run| build::<u8>(run, 8 * s, policy));
            let label = format!("secret modulus u32 {s} limbs {policy}");
            run.case(&label, |run| build::<u32>(run, 2 * s, policy));
            let label = format!("secret modulus u64 {s} limbs {policy}");
            run.case(&label, |run| build::<u64>(run, s, policy));
        }
    }
}
