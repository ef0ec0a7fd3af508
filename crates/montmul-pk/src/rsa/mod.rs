//! RSA (RFC 8017, PKCS #1 v2.2) on the montmul core: keys and their generation, the
//! raw public and private operations, the PEM/DER forms OpenSSL reads and writes, and
//! the PKCS #1 v1.5 and PSS signatures; RSAES-OAEP and PKCS #1 v1.5 encryption (the
//! latter decrypting with implicit rejection).
//!
//! The private operation ([`RsaPrivateKey::decrypt_raw`] and every signature) is
//! constant-time, blinded, and checked against the public key before its result leaves
//! (`private.rs`). Public-key operations are variable-time in public data only.

mod arith;
mod blinding;
mod crt_halves;
mod encoding;
mod key;
mod keygen;
pub mod oaep;
pub mod pkcs1v15_enc;
mod pkcs1v15_sign;
mod private;
mod pss;

pub use crt_halves::CrtHalves;
pub use key::{
    RsaPrivateKey, RsaPublicKey, LARGE_MODULUS_MAX_E_BITS, LOAD_MAX_BITS, LOAD_MIN_BITS,
    MAX_PRIMES, SMALL_MODULUS_BITS,
};
pub use keygen::{max_generated_primes, GENERATE_MAX_BITS, GENERATE_MIN_BITS};
