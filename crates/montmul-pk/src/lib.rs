//! montmul-pk: RSA, DSA and finite-field Diffie-Hellman on the montmul core.
//!
//! Every private operation runs on [`montmul::Residue`] in constant time: no branch and
//! no memory index depends on a private key, a nonce or the validity of a padding. Keys
//! read and write the PEM and DER forms OpenSSL writes, through the RustCrypto
//! `der`/`pkcs1`/`pkcs8`/`spki` crates. Hashes come from `sha2`, randomness from the
//! caller's [`rand_core::CryptoRngCore`] (the operating system's by default).
//!
//! ```
//! use montmul_pk::dh::{DhGroup, DhParams, DhPrivateKey};
//! use montmul_pk::dsa::DsaPrivateKey;
//! use montmul_pk::rsa::RsaPrivateKey;
//! use rand_core::OsRng;
//! use sha2::Sha256;
//!
//! // RSA: a key as OpenSSL writes it (PKCS #8 PEM), a PKCS #1 v1.5 signature, OAEP.
//! let key = RsaPrivateKey::from_pkcs8_pem(include_str!("../tests/data/rsa2048.pem"))?;
//! let public = key.to_public_key();
//! let sig = key.sign_pkcs1v15::<Sha256>(b"message", &mut OsRng)?;
//! public.verify_pkcs1v15::<Sha256>(b"message", &sig)?;
//! let c = public.encrypt_oaep::<Sha256>(&mut OsRng, b"secret", b"")?;
//! assert_eq!(&key.decrypt_oaep::<Sha256>(&mut OsRng, &c, b"")?[..], b"secret");
//!
//! // DSA with an RFC 6979 nonce: the same message, the same signature.
//! let key = DsaPrivateKey::from_pkcs8_pem(include_str!("../tests/data/dsa_2048_256.pem"))?;
//! let sig = key.sign::<Sha256>(b"message")?;
//! key.public_key().verify::<Sha256>(b"message", &sig)?;
//! assert_eq!(key.sign::<Sha256>(b"message")?, sig);
//!
//! // Diffie-Hellman over RFC 7919's ffdhe2048: both sides derive the same secret.
//! let params = DhParams::group(DhGroup::Ffdhe2048);
//! let alice = DhPrivateKey::generate(&params, &mut OsRng)?;
//! let bob = DhPrivateKey::generate(&params, &mut OsRng)?;
//! assert_eq!(alice.derive(&bob.public_key())?, bob.derive(&alice.public_key())?);
//! # Ok::<(), montmul_pk::Error>(())
//! ```

mod error;
mod generator_powers;
mod mgf;
mod prime;
pub mod rsa;

pub use error::Error;
pub mod dh;
pub mod dsa;
pub mod rfc6979;
