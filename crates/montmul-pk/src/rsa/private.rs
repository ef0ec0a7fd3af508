//! The RSA private operation: RSADP/RSASP1 with the Chinese remainder theorem, base
//! blinding and a fault check.
//!
//! Seeds: RFC 8017 5.1.2 (RSADP with CRT: `m1 = c^dp mod p`, `m2 = c^dq mod q`,
//! `h = qinv (m1 - m2) mod p`, `m = m2 + q h`, Garner's step); base blinding as
//! OpenSSL's `BN_BLINDING` does it (Kocher 1996): the input is multiplied by `A = r^e`
//! and the result by `Ai = r^-1 mod n`, a pair the key keeps and renews
//! (`blinding.rs`). The Bellcore defence
//! (Boneh, DeMillo, Lipton 1997): the result is raised to e again and compared with
//! the input before it leaves; a mismatch is [`Error::FaultDetected`].
//!
//! The two halves are independent exponentiations of one size: by default they run in
//! lockstep on one core ([`montmul::lanes::pow_x2`]: `amm52x2-ifma`, each filling the
//! other's latency gaps, where the CPU has AVX-512 IFMA and the halves are small enough
//! for it to be faster; one after the other elsewhere), or on two cores
//! ([`CrtHalves::TwoThreads`], [`montmul::parallel::pow_pair`]), as
//! [`RsaPrivateKey::set_crt_halves`] chooses.
//!
//! A multi-prime key (RFC 8017 5.1.2 step 2.b, the `r_i`, `d_i`, `t_i` form) runs the two
//! halves of p and q as above, then one exponentiation `y^(d_i) mod r_i` per further
//! prime ([`Residue::pow`], one after the other) and one Garner step each; the number of
//! primes is public. A two-prime key runs no more than before.
//!
//! Constant-time: both halves are constant-time exponentiations ([`Residue::pow`] or
//! [`montmul::lanes::pow_x2`]) with exponents of p's byte length, the reductions into
//! p, q and n are [`Residue::from_be_bytes_reduced`], and Garner's step runs on
//! residues, so no branch or memory index depends on c, d, the primes or the blinding
//! factor. Which way the halves run is public (the key's size, the caller's choice and,
//! on two cores, whether another caller holds the helper thread).

use rand_core::CryptoRngCore;
use zeroize::Zeroizing;

use montmul::Residue;

use super::blinding::Blinding;
use super::crt_halves::CrtHalves;
use super::key::RsaPrivateKey;
use crate::Error;
use montmul::ct::declassify;

impl RsaPrivateKey {
    /// RSADP (RFC 8017 5.1.2): `c^d mod n` for a ciphertext of exactly k bytes, as k
    /// bytes. Fails with [`Error::InvalidLength`] when `c` is not k bytes long or not
    /// below n, and with [`Error::FaultDetected`] when the result does not encrypt back
    /// to `c`.
    ///
    /// Constant-time in c, the key and the result (see the module doc); `rng` draws the
    /// blinding factor every 32 calls.
    pub fn decrypt_raw(
        &self,
        c: &[u8],
        rng: &mut impl CryptoRngCore,
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        let x = self.public.residue(c)?;
        let m = self.private_op(&x, rng)?;
        Ok(Zeroizing::new(m.to_be_bytes_padded(self.size())?))
    }

    /// `x^d mod n`: blinded, by CRT, checked by re-encryption. Constant-time.
    pub(crate) fn private_op(
        &self,
        x: &Residue<u64>,
        rng: &mut impl CryptoRngCore,
    ) -> Result<Residue<u64>, Error> {
        let (a, ai) = Blinding::next_pair(&self.blinding, &self.public.n, self.public.e(), rng);
        let blinded = x * &a;
        let y = self.crt(&blinded)?;
        let m = &y * &ai;
        // The Bellcore check: m^e must give x back.
        if declassify(self.public.public_op(&m).ct_eq(x)) != 1 {
            return Err(Error::FaultDetected);
        }
        Ok(m)
    }

    /// Chooses how the private operation runs its two CRT halves (default
    /// [`CrtHalves::Lockstep`]). The results are the same either way.
    pub fn set_crt_halves(&mut self, how: CrtHalves) {
        self.crt_halves = how;
    }

    /// How the private operation runs its two CRT halves.
    pub fn crt_halves(&self) -> CrtHalves {
        self.crt_halves
    }

    /// `y^d mod n` by CRT with Garner's step on residues, then one more step per further
    /// prime of a multi-prime key. Constant-time.
    fn crt(&self, y: &Residue<u64>) -> Result<Residue<u64>, Error> {
        let y_be = Zeroizing::new(y.to_be_bytes());
        let yp = Residue::from_be_bytes_reduced(&self.p_mod, &y_be);
        let yq = Residue::from_be_bytes_reduced(&self.q_mod, &y_be);
        let (m1, m2) = match self.crt_halves {
            CrtHalves::Lockstep => montmul::lanes::pow_x2(&yp, &self.dp, &yq, &self.dq)?,
            CrtHalves::OneByOne => (yp.pow(&self.dp), yq.pow(&self.dq)),
            CrtHalves::TwoThreads => montmul::parallel::pow_pair(&yp, &self.dp, &yq, &self.dq),
        };
        let m2_be = Zeroizing::new(m2.to_be_bytes());
        // h = qinv (m1 - m2) mod p.
        let h = &(&m1 - &Residue::from_be_bytes_reduced(&self.p_mod, &m2_be)) * &self.qinv_p;
        let h_be = Zeroizing::new(h.to_be_bytes());
        // m = m2 + h q < q + (p - 1) q = n: exact, computed mod n.
        let h_n = Residue::from_be_bytes_reduced(&self.public.n, &h_be);
        let m2_n = Residue::from_be_bytes_reduced(&self.public.n, &m2_be);
        let mut m = &m2_n + &(&h_n * &self.q_n);
        // A multi-prime key (RFC 8017 5.1.2 step 2.b.ii and v): for each further prime
        // r_i, with R = r_1 ... r_(i-1) and m = y^d mod R so far,
        // m_i = y^(d_i) mod r_i, h = t_i (m_i - m) mod r_i, m = m + R h.
        // m + R h <= (R - 1) + R (r_i - 1) < R r_i <= n: exact, computed mod n.
        for o in &self.others {
            let m_i = Residue::from_be_bytes_reduced(&o.r_mod, &y_be).pow(&o.d);
            let m_be = Zeroizing::new(m.to_be_bytes());
            let h = &(&m_i - &Residue::from_be_bytes_reduced(&o.r_mod, &m_be)) * &o.t_r;
            let h_be = Zeroizing::new(h.to_be_bytes());
            let h_n = Residue::from_be_bytes_reduced(&self.public.n, &h_be);
            m = &m + &(&h_n * &o.prefix_n);
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::OsRng;

    fn test_key() -> RsaPrivateKey {
        RsaPrivateKey::from_pkcs8_pem(include_str!("../../tests/data/rsa2048.pem"))
            .expect("the committed test key")
    }

    /// A c whose decryption is m = 0x1234...: built by encrypting.
    fn ciphertext(key: &RsaPrivateKey) -> Vec<u8> {
        let mut m = vec![0u8; key.size()];
        m[1..9].copy_from_slice(&[0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0]);
        key.public_key().encrypt_raw(&m).expect("encrypts")
    }

    #[test]
    fn a_corrupted_crt_exponent_is_detected() {
        let c = ciphertext(&test_key());
        for which in 0..3 {
            let mut key = test_key();
            match which {
                0 => *key.dp.last_mut().expect("dp") ^= 2,
                1 => *key.dq.last_mut().expect("dq") ^= 2,
                // A wrong coefficient for Garner's step.
                _ => key.qinv_p = key.qinv_p.square(),
            }
            assert_eq!(
                key.decrypt_raw(&c, &mut OsRng),
                Err(Error::FaultDetected),
                "corruption {which}"
            );
        }
        // The intact key decrypts.
        assert!(test_key().decrypt_raw(&c, &mut OsRng).is_ok());
    }

    #[test]
    fn a_corrupted_further_prime_exponent_or_coefficient_is_detected() {
        let load = || {
            RsaPrivateKey::from_pkcs8_pem(include_str!("../../tests/data/rsa2048-3primes.pem"))
                .expect("the committed three-prime key")
        };
        let c = ciphertext(&load());
        for which in 0..2 {
            let mut key = load();
            let other = &mut key.others[0];
            match which {
                0 => *other.d.last_mut().expect("d_3") ^= 2,
                _ => other.t_r = other.t_r.square(),
            }
            assert_eq!(
                key.decrypt_raw(&c, &mut OsRng),
                Err(Error::FaultDetected),
                "corruption {which}"
            );
        }
        assert!(load().decrypt_raw(&c, &mut OsRng).is_ok());
    }

    #[test]
    fn threads_share_one_key() {
        let key = test_key();
        let c = ciphertext(&key);
        let want = key.decrypt_raw(&c, &mut OsRng).expect("decrypts");
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    for _ in 0..20 {
                        assert_eq!(key.decrypt_raw(&c, &mut OsRng).expect("decrypts"), want);
                    }
                });
            }
        });
    }
}
