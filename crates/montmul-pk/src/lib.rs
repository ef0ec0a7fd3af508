//! montmul-pk: RSA, DSA and finite-field Diffie-Hellman on the montmul core.
//!
//! Every private operation runs on [`montmul::Residue`] in constant time: no branch and
//! no memory index depends on a private key, a nonce or the validity of a padding. Keys
//! read and write the PEM and DER forms OpenSSL writes, through the RustCrypto
//! `der`/`pkcs1`/`pkcs8`/`spki` crates. Hashes come from `sha2`, randomness from the
//! caller's [`rand_core::CryptoRngCore`] (the operating system's by default).

mod error;
mod generator_powers;
mod mgf;
mod prime;
pub mod rsa;

pub use error::Error;
pub mod dh;
pub mod dsa;
pub mod rfc6979;
