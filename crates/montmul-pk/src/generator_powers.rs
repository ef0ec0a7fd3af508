//! The powers of a finite-field group's generator g, kept with its parameters (DSA's
//! [`crate::dsa::DsaParams`], Diffie-Hellman's [`crate::dh::DhParams`]) and shared by
//! their clones, so that the secret exponents raised to g (DSA's nonces, DH's private
//! values) take table reads and products instead of squarings
//! ([`montmul::FixedBase`]).
//!
//! The table is made at the second power, not the first: parameters raised once (a
//! key loaded to sign one message) pay nothing for it. Whether it exists depends on
//! the number of powers taken only, never on an exponent.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use montmul::{FixedBase, Residue};

/// g's powers for exponents of up to a length, made at the second call of
/// [`GeneratorPowers::pow`].
#[derive(Default)]
pub(crate) struct GeneratorPowers {
    raised_once: AtomicBool,
    /// `None` where [`FixedBase::new`] refused the length (a table above its
    /// [`FixedBase::MAX_TABLE_BYTES`]): then every power is [`Residue::pow`]'s.
    powers: OnceLock<Option<FixedBase<u64>>>,
}

impl GeneratorPowers {
    /// `g^k mod p`, constant-time in k: the first call by [`Residue::pow`], the second
    /// makes the powers of `g` for exponents of up to `max_len` bytes and uses them, as
    /// do the later ones. A longer k (or a `g` of other parameters, which the callers
    /// never pass) takes [`Residue::pow`], and so does every k where the table would be
    /// too large. The same `g` and `max_len` on every call.
    pub(crate) fn pow(&self, g: &Residue<u64>, max_len: usize, k: &[u8]) -> Residue<u64> {
        let powers = match self.powers.get() {
            Some(powers) => powers,
            None if self.raised_once.swap(true, Ordering::Relaxed) => {
                self.powers.get_or_init(|| FixedBase::new(g, max_len).ok())
            }
            None => return g.pow(k),
        };
        let Some(powers) = powers else {
            return g.pow(k);
        };
        if powers.modulus() != g.modulus() {
            return g.pow(k);
        }
        powers.pow(k).unwrap_or_else(|_| g.pow(k))
    }

    /// Whether the powers have been made.
    #[cfg(test)]
    pub(crate) fn made(&self) -> bool {
        self.powers.get().is_some_and(Option::is_some)
    }
}
