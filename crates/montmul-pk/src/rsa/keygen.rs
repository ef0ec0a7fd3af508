//! RSA key generation, of two primes or of more (multi-prime keys, RFC 8017 3.2): the
//! primes drawn, checked and turned into a key; the arithmetic on their secret values
//! is `arith.rs`.
//!
//! Seed: FIPS 186-5 Appendix A.1.3 (random probable primes p and q of nlen/2 bits, each
//! at least sqrt(2) 2^(nlen/2 - 1), gcd(e, p - 1) = gcd(e, q - 1) = 1,
//! |p - q| > 2^(nlen/2 - 100)) and section 5.1 (d = e^-1 mod lcm(p - 1, q - 1), with
//! d > 2^(nlen/2)). FIPS 186-5 has no multi-prime keys; those follow OpenSSL's
//! `rsa_multiprime_keygen` (`crypto/rsa/rsa_gen.c`: at most 3, 4 or 5 primes by modulus
//! size, the bits split evenly, n's top four bits at least 0x9) with FIPS's rules applied
//! to every prime and every pair.

use montmul::{ct, Modulus, Residue};
use rand_core::CryptoRngCore;
use zeroize::Zeroizing;

use super::arith::{
    far_apart, limbs, minus_one, mul, power_of_two, private_exponent, resized, shifted_word, to_be,
    Limbs,
};
use super::key::RsaPrivateKey;
use crate::dh::ffc::declassify_bytes;
use crate::prime::random_prime;
use crate::Error;
use montmul::ct::declassify;

/// The smallest key size [`RsaPrivateKey::generate`] makes, in bits.
pub const GENERATE_MIN_BITS: usize = 2048;
/// The largest key size [`RsaPrivateKey::generate`] makes, in bits.
pub const GENERATE_MAX_BITS: usize = 8192;

/// The most primes [`RsaPrivateKey::generate_multi_prime`] puts in a key of `bits` bits:
/// OpenSSL's cap (`ossl_rsa_multip_cap`, `crypto/rsa/rsa_mp.c`), 2 below 1024 bits, 3
/// below 4096, 4 below 8192 and 5 from 8192, which keeps each prime at 1024 bits or
/// more from 3072-bit keys up. The reason for a cap: the more primes, the smaller each,
/// and the elliptic-curve method's work grows with the size of the factor it finds, not
/// with that of n.
pub fn max_generated_primes(bits: usize) -> usize {
    match bits {
        0..=1023 => 2,
        1024..=4095 => 3,
        4096..=8191 => 4,
        _ => 5,
    }
}

/// The least 16-bit `c` with `c^u >= 9 2^(16u - 4)`, for `2 <= u <= 5`: a key of `u`
/// primes draws each prime of `b` bits at least `c 2^(b - 16)`, so that n has exactly
/// the bits asked for and begins with 0x9 or more (see
/// [`RsaPrivateKey::generate_multi_prime`]). For two primes it is 0xc000: the top two bits that [`random_prime`] sets anyway.
fn top_bits_floor(u: usize) -> u64 {
    // c^u < 2^80 and 9 2^(16u - 4) < 2^80 for u <= 5: no overflow in u128.
    let target = 9u128 << (16 * u - 4);
    // c = 2^16 - 1 always passes: (1 - 2^-16)^5 > 9/16.
    (0x8000u64..0xffff)
        .find(|&c| u128::from(c).pow(u as u32) >= target)
        .unwrap_or(0xffff)
}

impl RsaPrivateKey {
    /// A new key of `bits` bits (2048 to 8192, a multiple of 2) with public exponent
    /// 65537: FIPS 186-5 A.1.3 probable primes.
    pub fn generate(bits: usize, rng: &mut impl CryptoRngCore) -> Result<Self, Error> {
        Self::generate_with_exponent(bits, &[0x01, 0x00, 0x01], rng)
    }

    /// A new key of `bits` bits (2048 to 8192, even) with the public exponent `e_be`
    /// (big-endian; odd, from 3 to 2^256 - 1; FIPS 186-5 asks for 2^16 < e < 2^256).
    /// The primes are FIPS 186-5 A.1.3 probable primes of `bits / 2` bits with their top
    /// two bits set, `gcd(e, p - 1) = gcd(e, q - 1) = 1` and `|p - q| > 2^(bits/2 - 100)`;
    /// `d = e^-1 mod lcm(p - 1, q - 1)`, and a key whose d is not above `2^(bits/2)` is
    /// drawn again.
    ///
    /// Constant-time in the primes kept (see `prime.rs`); rejected candidates take
    /// variable time. Every verdict branched on (a candidate or a key rejected) is
    /// declassified where it is tested, and so is n: the valgrind harness runs this with
    /// every random byte marked secret. Fails with [`Error::KeySize`] outside the sizes, and with
    /// [`Error::InvalidKey`] for an exponent that is even, below 3, above 256 bits, or
    /// above 64 bits with more than 3072 (as [`RsaPublicKey::new`](super::RsaPublicKey::new)).
    pub fn generate_with_exponent(
        bits: usize,
        e_be: &[u8],
        rng: &mut impl CryptoRngCore,
    ) -> Result<Self, Error> {
        Self::generate_multi_prime(bits, 2, e_be, rng)
    }

    /// A new key of `bits` bits (2048 to 8192, even) made of `primes` primes (RFC 8017
    /// 3.2; from 2 to [`max_generated_primes`]`(bits)`, OpenSSL's cap: 3 below 4096
    /// bits, 4 below 8192, 5 at 8192) with the public exponent `e_be` (as
    /// [`Self::generate_with_exponent`]). With two primes, the key of
    /// [`Self::generate_with_exponent`].
    ///
    /// As OpenSSL's `rsa_multiprime_keygen` does, the bits are split evenly: with
    /// `bits = u s + m` (`0 <= m < u`), the first `m` primes have `s + 1` bits and the
    /// others `s`. Each prime of `b` bits is at least `c 2^(b - 16)`, where `c` is the
    /// least integer with `c^u >= 9 2^(16u - 4)` (0xc000 for two primes, 0xd353 for
    /// three; a candidate below is drawn again before its primality test), so that
    /// `n >= c^u 2^(bits - 16u) >= 9 2^(bits - 4)` while `n < 2^bits`: n has exactly
    /// `bits` bits and begins with 0x9 or more, as OpenSSL requires of its multi-prime
    /// moduli and as every two-prime modulus does (a modulus beginning with 0x8 would
    /// give a multi-prime key away: OpenSSL's reason). Every two primes are more than
    /// `2^(s - 100)` apart (FIPS 186-5's `|p - q|` rule, for every pair; so they are
    /// distinct), `gcd(e, r_i - 1) = 1` for each, p > q (the first two), a key whose
    /// `d = e^-1 mod lcm(r_i - 1)` is not above `2^(bits/2)` is drawn again, and the key
    /// is built by [`Self::from_multi_prime_components`], with the checks of a key read
    /// from a file.
    ///
    /// Constant-time in the primes kept, as [`Self::generate_with_exponent`]: each
    /// verdict branched on (a candidate below its floor, too close to an earlier prime,
    /// not coprime to e or composite; a key whose d is too small) is declassified where
    /// it is tested, and so is n. Fails with [`Error::KeySize`] outside the sizes, with
    /// [`Error::PrimeCount`] outside 2 to [`max_generated_primes`]`(bits)` primes, and
    /// with [`Error::InvalidKey`] for an exponent that is even, below 3, above 256 bits,
    /// or above 64 bits with more than 3072 (as [`RsaPublicKey::new`](super::RsaPublicKey::new)).
    pub fn generate_multi_prime(
        bits: usize,
        primes: usize,
        e_be: &[u8],
        rng: &mut impl CryptoRngCore,
    ) -> Result<Self, Error> {
        if !(GENERATE_MIN_BITS..=GENERATE_MAX_BITS).contains(&bits) || !bits.is_multiple_of(2) {
            return Err(Error::KeySize {
                bits,
                min: GENERATE_MIN_BITS,
                max: GENERATE_MAX_BITS,
            });
        }
        let max = max_generated_primes(bits);
        if !(2..=max).contains(&primes) {
            return Err(Error::PrimeCount { primes, bits, max });
        }
        let e_be = super::key::trim(e_be);
        let e_ok = !e_be.is_empty()
            && e_be.len() <= 32
            && e_be[e_be.len() - 1] & 1 == 1
            && (e_be.len() > 1 || e_be[0] >= 3);
        if !e_ok {
            return Err(Error::InvalidKey(
                "public exponent must be odd and from 3 to 256 bits",
            ));
        }
        if !super::key::exponent_length_ok(bits, e_be) {
            return Err(super::key::LONG_EXPONENT);
        }
        let e = Modulus::<u64>::from_be_bytes(e_be)?;
        // gcd(e, r - 1) = 1: r - 1 invertible mod e. A candidate that fails is thrown
        // away; its test's time tells nothing of the prime kept.
        let coprime = |c: &[u8]| {
            let rm1 = minus_one(&limbs(c));
            let r = Residue::from_limbs_reduced(&e, &rm1);
            r.inv().is_ok()
        };
        // The split: `primes` sizes summing to `bits`, the longer ones first; each at
        // least 682 bits (2048 / 3: the cap allows more primes only to longer keys), far
        // more than the 16 top bits of the floor and the 100 of the distance rule.
        let (quo, rmd) = (bits / primes, bits % primes);
        let sizes: Vec<usize> = (0..primes).map(|i| quo + usize::from(i < rmd)).collect();
        let floor = top_bits_floor(primes);
        loop {
            let mut found: Vec<Limbs> = Vec::with_capacity(primes);
            for &b in &sizes {
                let least = shifted_word(floor, b - 16, b.div_ceil(64));
                let r = random_prime(b, rng, |c| {
                    let c_l = limbs(c);
                    // c >= floor 2^(b - 16), and far from every prime drawn before; the
                    // verdict rejects a candidate: public (declassified).
                    let ok = found
                        .iter()
                        .fold(ct::borrow_of_sub(&c_l, &least) ^ 1, |ok, r| {
                            ok & far_apart(&c_l, r, quo - 100)
                        });
                    declassify(ok) == 1 && coprime(c)
                });
                found.push(limbs(&r));
            }
            // p > q by convention, swapped with masks, at p's length (q's is at most
            // that: the sizes go down).
            if let [p, q, ..] = &mut found[..] {
                *q = resized(q, p.len());
                let swap = ct::mask(ct::borrow_of_sub(p, q));
                for (x, y) in p.iter_mut().zip(q.iter_mut()) {
                    let t = (*x ^ *y) & swap;
                    *x ^= t;
                    *y ^= t;
                }
            }
            let refs: Vec<&[u64]> = found.iter().map(|r| &r[..]).collect();
            let n = refs[1..]
                .iter()
                .fold(Zeroizing::new(refs[0].to_vec()), |n, r| mul(&n, r));
            let k = bits.div_ceil(8);
            let Some(d) = private_exponent(e_be, &refs, n.len()) else {
                continue;
            };
            // d > 2^(bits/2), compared in constant time; a failure draws a new key (the
            // verdict is public, declassified).
            if declassify(ct::borrow_of_sub(&power_of_two(bits / 2, d.len()), &d)) == 0 {
                continue;
            }
            // Each prime as its size's bytes; p and q both as p's.
            let primes_be: Vec<Zeroizing<Vec<u8>>> = found
                .iter()
                .enumerate()
                .map(|(i, r)| to_be(r, sizes[if i < 2 { 0 } else { i }].div_ceil(8)))
                .collect();
            let primes_be: Vec<&[u8]> = primes_be.iter().map(|r| &r[..]).collect();
            // n is the public key: declassified before it is parsed in variable time.
            let mut n_be = to_be(&n, k);
            declassify_bytes(&mut n_be);
            return RsaPrivateKey::from_multi_prime_components(
                &n_be,
                e_be,
                &to_be(&d, k),
                &primes_be,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    #[test]
    fn prime_count_cap_is_openssls() {
        for (bits, cap) in [
            (512, 2),
            (1023, 2),
            (1024, 3),
            (2048, 3),
            (4095, 3),
            (4096, 4),
            (8191, 4),
            (8192, 5),
            (16384, 5),
        ] {
            assert_eq!(max_generated_primes(bits), cap, "{bits}");
        }
    }

    #[test]
    fn top_bits_floor_is_the_least_that_keeps_n_at_its_length() {
        for u in 2..=5 {
            let c = top_bits_floor(u);
            let target = BigUint::from(9u32) << (16 * u - 4);
            assert!(BigUint::from(c).pow(u as u32) >= target, "u = {u}");
            assert!(BigUint::from(c - 1).pow(u as u32) < target, "u = {u}");
        }
        assert_eq!(top_bits_floor(2), 0xc000);
    }
}
