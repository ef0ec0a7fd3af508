//! DSA domain parameter generation: FIPS 186-4 Appendix A.1.1.2 (probable primes p and
//! q from a seed and an approved hash, here SHA-256) and A.2.3 (the verifiable
//! canonical generator, from the same seed and an index), at the (L, N) pairs FIPS
//! 186-4 allows for new signatures: (2048, 224), (2048, 256), (3072, 256).
//!
//! The parameters are public: the arithmetic is num-bigint's (variable-time), the
//! primality tests are `crate::prime`'s Miller-Rabin with the round counts of FIPS
//! 186-4 Table C.1 (no Lucas test). The seed and counter are returned, so that anyone
//! can check that p and q were generated, not chosen (A.1.1.3).

use num_bigint::BigUint;
use rand_core::CryptoRngCore;
use sha2::{Digest, Sha256};

use super::params::DsaParams;
use crate::prime::is_probable_prime;
use crate::Error;

/// The (L, N) pairs generated.
pub const SIZES: [(usize, usize); 3] = [(2048, 224), (2048, 256), (3072, 256)];

/// What A.1.1.2 returns beside p and q, to validate them later (A.1.1.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DsaSeed {
    /// `domain_parameter_seed`, N bits.
    pub seed: Vec<u8>,
    /// The counter of the p found.
    pub counter: usize,
}

/// Miller-Rabin rounds for (L, N), FIPS 186-4 Table C.1 (error 2^-112 at 2048 bits,
/// 2^-128 at 3072): (p rounds, q rounds).
fn rounds(l: usize) -> (usize, usize) {
    if l >= 3072 {
        (64, 64)
    } else {
        (56, 64)
    }
}

fn sha256(x: &BigUint, seedlen_bytes: usize) -> BigUint {
    let bytes = x.to_bytes_be();
    let mut padded = vec![0u8; seedlen_bytes.saturating_sub(bytes.len())];
    padded.extend_from_slice(&bytes[bytes.len().saturating_sub(seedlen_bytes)..]);
    BigUint::from_bytes_be(&Sha256::digest(&padded))
}

impl DsaParams {
    /// New domain parameters of L = `p_bits` and N = `q_bits` bits (one of [`SIZES`],
    /// else [`Error::KeySize`]): p and q by FIPS 186-4 A.1.1.2 with SHA-256 and a
    /// seed of N bits, g by A.2.3 with index 1. Takes about a second at 2048 bits.
    pub fn generate(
        p_bits: usize,
        q_bits: usize,
        rng: &mut impl CryptoRngCore,
    ) -> Result<(Self, DsaSeed), Error> {
        if !SIZES.contains(&(p_bits, q_bits)) {
            // A p size that is generated: the q sizes that go with it; else p's range.
            let qs = SIZES.iter().filter(|&&(l, _)| l == p_bits).map(|&(_, n)| n);
            return Err(match (qs.clone().min(), qs.max()) {
                (Some(min), Some(max)) => Error::KeySize {
                    bits: q_bits,
                    min,
                    max,
                },
                _ => Error::KeySize {
                    bits: p_bits,
                    min: SIZES[0].0,
                    max: SIZES[SIZES.len() - 1].0,
                },
            });
        }
        let (l, n) = (p_bits, q_bits);
        let outlen = 256;
        let seedlen = n;
        let (p_rounds, q_rounds) = rounds(l);
        // Steps 3, 4.
        let blocks = l.div_ceil(outlen) - 1;
        let b = l - 1 - blocks * outlen;
        let one = BigUint::from(1u32);
        let two_seedlen = &one << seedlen;
        loop {
            // Step 5: a fresh seed.
            let mut seed_bytes = vec![0u8; seedlen / 8];
            rng.try_fill_bytes(&mut seed_bytes)
                .map_err(|_| Error::Rng)?;
            let seed = BigUint::from_bytes_be(&seed_bytes);
            // Steps 6, 7: U = Hash(seed) mod 2^(N-1); q = 2^(N-1) + U + 1 - (U mod 2).
            let u = sha256(&seed, seedlen / 8) % (&one << (n - 1));
            let q = (&one << (n - 1)) + &u + 1u32 - (&u % 2u32);
            // Steps 8, 9.
            if !is_probable_prime(&q.to_bytes_be(), q_rounds, rng) {
                continue;
            }
            // Steps 10, 11.
            let two_q = &q << 1;
            let mut offset = 1usize;
            for counter in 0..4 * l {
                let mut w = BigUint::ZERO;
                for j in 0..=blocks {
                    let v = sha256(&((&seed + offset + j) % &two_seedlen), seedlen / 8);
                    let v = if j == blocks { v % (&one << b) } else { v };
                    w += v << (j * outlen);
                }
                let x = w + (&one << (l - 1));
                let c = &x % &two_q;
                // p = X - (c - 1), written so that c = 0 does not go below zero.
                let p: BigUint = x + 1u32 - c;
                if p.bits() as usize == l && is_probable_prime(&p.to_bytes_be(), p_rounds, rng) {
                    let g = canonical_generator(&p, &q, &seed_bytes, 1)?;
                    let params =
                        DsaParams::new(&p.to_bytes_be(), &q.to_bytes_be(), &g.to_bytes_be())?;
                    return Ok((
                        params,
                        DsaSeed {
                            seed: seed_bytes,
                            counter,
                        },
                    ));
                }
                offset += blocks + 1;
            }
        }
    }
}

/// FIPS 186-4 A.2.3: g = Hash(seed || "ggen" || index || count)^((p - 1) / q) mod p for
/// count = 1, 2, ... until g >= 2.
fn canonical_generator(p: &BigUint, q: &BigUint, seed: &[u8], index: u8) -> Result<BigUint, Error> {
    let e = (p - 1u32) / q;
    for count in 1..=u16::MAX {
        let mut h = Sha256::new();
        h.update(seed);
        h.update(b"ggen");
        h.update([index]);
        h.update(count.to_be_bytes());
        let w = BigUint::from_bytes_be(&h.finalize());
        let g = w.modpow(&e, p);
        if g >= BigUint::from(2u32) {
            return Ok(g);
        }
    }
    Err(Error::InvalidKey("no DSA generator found"))
}
