//! ring 0.17's RSA: PKCS#1 v1.5 signatures with SHA-256 and their verification, the one
//! RSA private operation ring offers.

use ::ring::rand::SystemRandom;
use ::ring::signature::{
    KeyPair, RsaKeyPair, UnparsedPublicKey, RSA_PKCS1_2048_8192_SHA256, RSA_PKCS1_SHA256,
};

use super::{PkContender, PkInputs, PkOp};

/// ring's contender: signing with the private key or verifying with its public half.
pub struct RingRsa {
    op: PkOp,
    key: RsaKeyPair,
    rng: SystemRandom,
    message: Vec<u8>,
    signature: Vec<u8>,
}

/// Builds ring's contender for an RSA operation. ring reads only PKCS#8 private keys
/// and verifies with the PKCS#1 `RSAPublicKey` it derives from them, so the verifier is
/// built from the private key too (the same key the others verify with).
pub fn new(op: PkOp, inputs: &PkInputs) -> Result<Box<dyn PkContender>, String> {
    if !matches!(op, PkOp::RsaSign | PkOp::RsaVerify) {
        return Err("ring has no DSA or finite-field DH".into());
    }
    let key = RsaKeyPair::from_pkcs8(&inputs.private_pkcs8).map_err(|e| e.to_string())?;
    Ok(Box::new(RingRsa {
        op,
        key,
        rng: SystemRandom::new(),
        message: inputs.message.clone(),
        signature: inputs.signature.clone(),
    }))
}

impl RingRsa {
    fn once(&self) -> Result<Vec<u8>, String> {
        match self.op {
            PkOp::RsaSign => {
                let mut sig = vec![0u8; self.key.public().modulus_len()];
                self.key
                    .sign(&RSA_PKCS1_SHA256, &self.rng, &self.message, &mut sig)
                    .map_err(|e| e.to_string())?;
                Ok(sig)
            }
            _ => {
                let public = UnparsedPublicKey::new(
                    &RSA_PKCS1_2048_8192_SHA256,
                    self.key.public_key().as_ref(),
                );
                Ok(vec![u8::from(
                    public.verify(&self.message, &self.signature).is_ok(),
                )])
            }
        }
    }
}

impl PkContender for RingRsa {
    fn name(&self) -> &'static str {
        "ring"
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
