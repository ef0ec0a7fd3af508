//! The test kit: an independent oracle built on num-bigint, a small deterministic random
//! generator, and the edge cases every kernel is run on.
//!
//! The oracle never uses montmul's own arithmetic: Montgomery products are computed as
//! `a * b * R^-1 mod n` with num-bigint's multiplication, modular inverse and division.

use montmul::lab::Kernel;
use montmul::{Error, Limb, Modulus, Reduction};
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{One, Zero};
use rand_core::{impls, RngCore};

pub mod ct_harness;
pub mod exhaustive;

pub use num_bigint;
pub use rand_core;

/// Number of proptest cases, from `MONTMUL_PROPTEST_CASES` (default `default`), so CI
/// stays quick while a long soak can raise it.
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("MONTMUL_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Says out loud that a test, or a part of one, did not run, and why: the formatted
/// line goes to the process's standard error directly, past the test harness's output
/// capture, so that a plain `cargo test` (and CI's log) shows it, not only
/// `--nocapture`. Use it for every `SKIPPED` line.
#[macro_export]
macro_rules! skipped {
    ($($arg:tt)*) => {
        $crate::shown!($($arg)*)
    };
}

/// Shows a line that a reader of the test log should see even when the test passes,
/// such as how many known-answer or Wycheproof vectors it honoured, and of which
/// result: like [`skipped!`], past the harness's output capture.
#[macro_export]
macro_rules! shown {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        // A failed write to stderr has nowhere else to go.
        let _ = ::std::writeln!(::std::io::stderr(), $($arg)*);
    }};
}

/// SplitMix64: a tiny, deterministic, seedable generator (Steele, Lea, Flood 2014).
/// Not for keys; for reproducible test inputs.
#[derive(Clone, Debug)]
pub struct TestRng(u64);

impl TestRng {
    /// A generator with this seed.
    pub fn new(seed: u64) -> Self {
        TestRng(seed)
    }
}

impl RngCore for TestRng {
    fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        impls::fill_bytes_via_next(self, dest)
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

/// A uniformly random integer of at most `bits` bits.
pub fn random_below_pow2(rng: &mut impl RngCore, bits: u32) -> BigUint {
    let mut bytes = vec![0u8; bits.div_ceil(8) as usize];
    rng.fill_bytes(&mut bytes);
    let x = BigUint::from_bytes_le(&bytes);
    x & ((BigUint::one() << bits) - 1u32)
}

/// A uniformly random integer in `[0, bound)` (rejection sampling); `bound > 0`.
pub fn random_below(rng: &mut impl RngCore, bound: &BigUint) -> BigUint {
    let bits = bound.bits() as u32;
    loop {
        let x = random_below_pow2(rng, bits);
        if &x < bound {
            return x;
        }
    }
}

/// A random odd modulus of exactly `bits` bits (`bits >= 2`): top and bottom bit set.
pub fn random_modulus(rng: &mut impl RngCore, bits: u32) -> BigUint {
    assert!(bits >= 2, "a modulus needs at least 2 bits");
    let x = random_below_pow2(rng, bits);
    x | (BigUint::one() << (bits - 1)) | BigUint::one()
}

/// Moduli of `bits` bits that stress carries, for word size `w`: all ones (top bit set,
/// every limb all ones), 2^(bits-1) + 1 (one high bit), a modulus whose middle limbs are
/// all ones, and (when room) one with the top bit of its top limb clear.
pub fn edge_moduli(bits: u32, w: u32) -> Vec<BigUint> {
    assert!(bits >= 2);
    let one = BigUint::one();
    let all_ones = (&one << bits) - 1u32;
    let mut out = vec![all_ones.clone(), (&one << (bits - 1)) + 1u32];
    if bits > w + 1 {
        // Middle limbs all ones, low limb 1, top bit set.
        let low_clear = (&all_ones >> w << w) | &one;
        out.push(low_clear);
    }
    if bits > 3 {
        // 2^(bits-1) - 1 would have fewer bits; keep the length: 2^(bits-1) + 2^(bits-2) - 1.
        out.push((&one << (bits - 1)) + (&one << (bits - 2)) - 1u32);
    }
    out.retain(|n| n.is_odd() && n > &one);
    out.dedup();
    out
}

/// Operands that stress kernels for modulus `n` with R = 2^r_bits: 0, 1, 2, n-1, n-2,
/// (n-1)/2, R-1 mod n, R mod n, and the all-ones-limb values below n.
pub fn edge_operands(n: &BigUint, w: u32, r_bits: u32) -> Vec<BigUint> {
    let one = BigUint::one();
    let r = &one << r_bits;
    let mut out = vec![
        BigUint::zero(),
        one.clone(),
        BigUint::from(2u32) % n,
        n - 1u32,
        (n - 1u32) >> 1,
        (&r - 1u32) % n,
        &r % n,
    ];
    if n > &BigUint::from(2u32) {
        out.push(n - 2u32);
    }
    // All-ones limbs: 2^(k w) - 1 for every k that stays below n.
    let mut k = 1;
    loop {
        let v = (&one << (k * w)) - 1u32;
        if &v >= n {
            break;
        }
        out.push(v);
        k += 1;
    }
    out.sort();
    out.dedup();
    out
}

/// The Montgomery product `a * b * 2^(-r_bits) mod n` for odd `n`, by num-bigint.
pub fn mont_mul(a: &BigUint, b: &BigUint, n: &BigUint, r_bits: u32) -> BigUint {
    (a * b * r_inverse(n, r_bits)) % n
}

/// `2^(-r_bits) mod n` for odd `n`, by the extended Euclidean algorithm.
pub fn r_inverse(n: &BigUint, r_bits: u32) -> BigUint {
    let r = BigInt::from(BigUint::one() << r_bits);
    let n_int = BigInt::from(n.clone());
    let e = r.extended_gcd(&n_int);
    assert!(e.gcd.is_one(), "R and n must be coprime (n odd)");
    e.x.mod_floor(&n_int)
        .to_biguint()
        .expect("mod_floor of a positive modulus is >= 0")
}

/// `b^e mod n` by num-bigint.
pub fn pow_mod(b: &BigUint, e: &BigUint, n: &BigUint) -> BigUint {
    b.modpow(e, n)
}

/// Little-endian limbs of `x`, exactly `len` of them (panics if `x` does not fit: the
/// caller chose `len`).
pub fn to_limbs<L: Limb>(x: &BigUint, len: usize) -> Vec<L> {
    let w = L::BITS;
    let mask = (BigUint::one() << w) - 1u32;
    let mut out = Vec::with_capacity(len);
    let mut rest = x.clone();
    for _ in 0..len {
        let limb = &rest & &mask;
        out.push(L::from_u64(limb.iter_u64_digits().next().unwrap_or(0)));
        rest >>= w;
    }
    assert!(
        rest.is_zero(),
        "{x:x} does not fit in {len} limbs of {w} bits"
    );
    out
}

/// The integer whose little-endian limbs these are.
pub fn from_limbs<L: Limb>(limbs: &[L]) -> BigUint {
    limbs
        .iter()
        .rev()
        .fold(BigUint::zero(), |acc, l| (acc << L::BITS) + l.to_u64())
}

/// `n` as a [`Modulus`] for kernel `k` under `r`, or `None` when `k` has code for some
/// limb counts only ([`Kernel::limb_counts`]) and not for n's. In that case the test
/// checks that `Modulus::with_kernel` refused n with [`Error::UnsupportedSize`]; every
/// other refusal is a test failure (`n` must be an odd modulus above 1).
pub fn modulus_for<L: Limb>(
    n: &BigUint,
    k: &'static dyn Kernel<L>,
    r: Reduction,
) -> Option<Modulus<L>> {
    let bits = n.bits() as u32;
    let limbs = to_limbs::<L>(n, bits.div_ceil(L::BITS) as usize);
    let made = Modulus::with_kernel(&limbs, k, r);
    let headroom = match r {
        Reduction::Full => 0,
        Reduction::Lazy => 2,
    };
    let s = (bits + headroom).div_ceil(L::BITS) as usize;
    match k.limb_counts() {
        Some(counts) if !counts.contains(&s) => {
            let algo = k.info().name;
            assert_eq!(
                made.err(),
                Some(Error::UnsupportedSize { algo, limbs: s }),
                "{algo} has no code for {s} limbs: with_kernel must say so"
            );
            None
        }
        _ => Some(made.unwrap_or_else(|e| panic!("{} n={n:x}: {e}", k.info().name))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_matches_definition() {
        // 7 * 5 * 2^-8 mod 11: 2^8 = 256 = 3 mod 11, 3^-1 = 4 mod 11, 35 * 4 = 140 = 8 mod 11.
        let n = BigUint::from(11u32);
        assert_eq!(
            mont_mul(&7u32.into(), &5u32.into(), &n, 8),
            BigUint::from(8u32)
        );
    }

    #[test]
    fn limbs_round_trip() {
        let mut rng = TestRng::new(1);
        let x = random_below_pow2(&mut rng, 200);
        assert_eq!(from_limbs(&to_limbs::<u16>(&x, 13)), x);
        assert_eq!(from_limbs(&to_limbs::<u64>(&x, 4)), x);
    }

    #[test]
    fn edge_cases_are_valid() {
        for bits in [2, 3, 8, 9, 64, 65, 130] {
            for n in edge_moduli(bits, 8) {
                assert_eq!(n.bits() as u32, bits);
                assert!(n.is_odd());
                for x in edge_operands(&n, 8, bits.div_ceil(8) * 8) {
                    assert!(x < n);
                }
            }
        }
    }
}
