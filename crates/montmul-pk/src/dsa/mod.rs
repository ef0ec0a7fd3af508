//! The Digital Signature Algorithm (FIPS 186-4 Section 4; FIPS 186-5 keeps it for
//! verification only, OpenSSL 3.0 still signs): parameters (p, q, g), keys (x, y =
//! g^x mod p), signatures (r, s) with RFC 6979 deterministic nonces, keys and
//! signatures in the forms OpenSSL writes.
//!
//! Signing is constant-time in x and k: g^k by `Residue::pow` (work set by q's byte
//! length), k^-1 by the constant-time `Residue::inv`, the products mod q on residues.
//! Verification works on public data only and is variable-time (`pow_vartime`,
//! `inv_vartime`). Keys are checked when built (q | p - 1, 1 < g < p, g^q = 1,
//! y = g^x, 0 < x < q); the primality of p and q is not retested on load (OpenSSL does
//! not either), and is by [`DsaParams::generate`].

mod encoding;
mod generate;
mod key;
mod params;
mod sign;

pub use generate::{DsaSeed, SIZES};
pub use key::{DsaPrivateKey, DsaPublicKey};
pub use params::{DsaParams, MAX_P_BITS, MAX_Q_BITS, MIN_P_BITS, MIN_Q_BITS};
pub use sign::DsaSignature;
