//! Base blinding of the RSA private operation: the pair `A = r^e`, `Ai = r^-1 mod n` a
//! private key keeps, and how each call takes it.
//!
//! Seed: OpenSSL's `BN_BLINDING` (Kocher 1996): the key keeps `A = r^e` and
//! `Ai = r^-1 mod n` for a random r, the input is multiplied by A and the result by Ai,
//! and after each use both are squared (`(r^2)^e` and `(r^2)^-1`), so that a call pays two
//! squarings, not an inverse; every 32 uses a fresh r is drawn (`private.rs` applies the
//! pair).

use std::sync::Mutex;

use montmul::{Modulus, Residue};
use rand_core::CryptoRngCore;

/// Uses of one blinding pair (squared after each) before a fresh random r: OpenSSL's
/// `BN_BLINDING_COUNTER`.
const BLINDING_REFRESH: u32 = 32;

/// The blinding pair kept with a key: `a = r^e mod n` and `ai = r^-1 mod n`.
pub(crate) struct Blinding {
    a: Residue<u64>,
    ai: Residue<u64>,
    uses: u32,
}

impl Blinding {
    /// A fresh pair for a random invertible r (an r sharing a factor with n, found
    /// with probability about 2^-1000, is drawn again). Constant-time in r.
    /// `e_be` is the public exponent: `r^e` is variable-time in it only, as the key's
    /// public operation.
    fn new(n: &Modulus<u64>, e_be: &[u8], rng: &mut impl CryptoRngCore) -> Self {
        loop {
            let r = Residue::random(n, rng);
            if let Ok(ai) = r.inv() {
                return Blinding {
                    a: r.pow_vartime(e_be),
                    ai,
                    uses: 0,
                };
            }
        }
    }

    /// The blinding pair for this call, from the pair kept in `slot` (drawn afresh for
    /// the modulus `n` and public exponent `e_be` every [`BLINDING_REFRESH`] uses), and
    /// the kept pair squared for the next one. Constant-time in the pair.
    pub(super) fn next_pair(
        slot: &Mutex<Option<Blinding>>,
        n: &Modulus<u64>,
        e_be: &[u8],
        rng: &mut impl CryptoRngCore,
    ) -> (Residue<u64>, Residue<u64>) {
        // A panic in another thread while holding the lock leaves a pair that is still
        // valid (each update replaces a whole residue): the poison is ignored.
        let mut guard = slot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let fresh = match guard.as_ref() {
            Some(b) => b.uses >= BLINDING_REFRESH,
            None => true,
        };
        if fresh {
            *guard = Some(Blinding::new(n, e_be, rng));
        }
        let b = guard.get_or_insert_with(|| Blinding::new(n, e_be, rng));
        let pair = (b.a.clone(), b.ai.clone());
        b.a.square_assign();
        b.ai.square_assign();
        b.uses += 1;
        pair
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsa::RsaPrivateKey;
    use rand_core::OsRng;

    #[test]
    fn the_blinding_pair_stays_consistent_over_refreshes() {
        let key = RsaPrivateKey::from_pkcs8_pem(include_str!("../../tests/data/rsa2048.pem"))
            .expect("the committed test key");
        let mut m = vec![0u8; key.size()];
        m[1] = 0x12;
        let c = key.public_key().encrypt_raw(&m).expect("encrypts");
        let first = key.decrypt_raw(&c, &mut OsRng).expect("decrypts");
        for _ in 0..2 * BLINDING_REFRESH + 3 {
            assert_eq!(key.decrypt_raw(&c, &mut OsRng).expect("decrypts"), first);
        }
        let guard = key.blinding.lock().expect("lock");
        let b = guard.as_ref().expect("a pair");
        // a = r^e and ai = r^-1: a ai^e = 1.
        let check = &b.a * &key.public.public_op(&b.ai);
        assert_eq!(check, Residue::one(&key.public.n));
        assert!(b.uses <= BLINDING_REFRESH);
    }
}
