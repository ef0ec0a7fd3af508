//! RustCrypto's `rsa` 0.9: PKCS#1 v1.5 signatures with SHA-256 and their verification.
//! Its private operation is the one RUSTSEC-2023-0071 (Marvin) is about: it is measured
//! here for speed only.

use ::rsa::pkcs1v15::{Signature, SigningKey, VerifyingKey};
use ::rsa::pkcs8::{DecodePrivateKey, DecodePublicKey};
use ::rsa::signature::{SignatureEncoding, Signer, Verifier};
use ::rsa::{RsaPrivateKey, RsaPublicKey};
use sha2::Sha256;

use super::{PkContender, PkInputs, PkOp};

/// The `rsa` crate's contender.
pub enum RustCryptoRsa {
    /// Signs the message.
    Sign(SigningKey<Sha256>, Vec<u8>),
    /// Verifies the signature on the message.
    Verify(VerifyingKey<Sha256>, Vec<u8>, Signature),
}

/// Builds the `rsa` crate's contender for an RSA operation.
pub fn new(op: PkOp, inputs: &PkInputs) -> Result<Box<dyn PkContender>, String> {
    match op {
        PkOp::RsaSign => {
            let key =
                RsaPrivateKey::from_pkcs8_der(&inputs.private_pkcs8).map_err(|e| e.to_string())?;
            Ok(Box::new(RustCryptoRsa::Sign(
                SigningKey::new(key),
                inputs.message.clone(),
            )))
        }
        PkOp::RsaVerify => {
            let key = RsaPublicKey::from_public_key_der(&inputs.public_spki)
                .map_err(|e| e.to_string())?;
            let sig =
                Signature::try_from(inputs.signature.as_slice()).map_err(|e| e.to_string())?;
            Ok(Box::new(RustCryptoRsa::Verify(
                VerifyingKey::new(key),
                inputs.message.clone(),
                sig,
            )))
        }
        _ => Err("the rsa crate has no DSA or DH".into()),
    }
}

impl RustCryptoRsa {
    fn once(&self) -> Result<Vec<u8>, String> {
        match self {
            RustCryptoRsa::Sign(key, msg) => key
                .try_sign(msg)
                .map(|s| s.to_vec())
                .map_err(|e| e.to_string()),
            RustCryptoRsa::Verify(key, msg, sig) => {
                Ok(vec![u8::from(key.verify(msg, sig).is_ok())])
            }
        }
    }
}

impl PkContender for RustCryptoRsa {
    fn name(&self) -> &'static str {
        "rsa-crate"
    }

    fn output(&mut self) -> Result<Vec<u8>, String> {
        self.once()
    }

    fn run(&mut self, iters: u64) {
        for _ in 0..iters {
            core::hint::black_box(self.once().ok());
        }
    }
}
