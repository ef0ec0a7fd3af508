//! OpenSSL's public-key operations through the `openssl` crate: the `EVP_PKEY` layer
//! that `openssl dgst`/`pkeyutl` use, with RSA blinding and OpenSSL's own checks on.

use ::openssl::derive::Deriver;
use ::openssl::hash::MessageDigest;
use ::openssl::pkey::{PKey, Private, Public};
use ::openssl::sign::{Signer, Verifier};

use super::{PkContender, PkInputs, PkOp};

/// An OpenSSL contender for one operation.
pub struct OpenSslPk {
    op: PkOp,
    private: Option<PKey<Private>>,
    public: Option<PKey<Public>>,
    message: Vec<u8>,
    signature: Vec<u8>,
}

/// Builds OpenSSL's contender for `op`, reading the keys `op` needs.
pub fn new(op: PkOp, inputs: &PkInputs) -> Result<Box<dyn PkContender>, String> {
    let needs_private = matches!(op, PkOp::RsaSign | PkOp::DsaSign | PkOp::DhDerive);
    let private = if needs_private {
        Some(PKey::private_key_from_der(&inputs.private_pkcs8).map_err(|e| e.to_string())?)
    } else {
        None
    };
    let needs_public = matches!(op, PkOp::RsaVerify | PkOp::DsaVerify | PkOp::DhDerive);
    let public = if needs_public {
        Some(PKey::public_key_from_der(&inputs.public_spki).map_err(|e| e.to_string())?)
    } else {
        None
    };
    Ok(Box::new(OpenSslPk {
        op,
        private,
        public,
        message: inputs.message.clone(),
        signature: inputs.signature.clone(),
    }))
}

impl OpenSslPk {
    fn once(&self) -> Result<Vec<u8>, ::openssl::error::ErrorStack> {
        match self.op {
            PkOp::RsaSign | PkOp::DsaSign => {
                let key = self.private.as_ref().expect("built with a private key");
                let mut signer = Signer::new(MessageDigest::sha256(), key)?;
                signer.sign_oneshot_to_vec(&self.message)
            }
            PkOp::RsaVerify | PkOp::DsaVerify => {
                let key = self.public.as_ref().expect("built with a public key");
                let mut verifier = Verifier::new(MessageDigest::sha256(), key)?;
                let ok = verifier.verify_oneshot(&self.signature, &self.message)?;
                Ok(vec![u8::from(ok)])
            }
            PkOp::DhDerive => {
                let key = self.private.as_ref().expect("built with a private key");
                let peer = self.public.as_ref().expect("built with a public key");
                let mut deriver = Deriver::new(key)?;
                deriver.set_peer(peer)?;
                deriver.derive_to_vec()
            }
        }
    }
}

impl PkContender for OpenSslPk {
    fn name(&self) -> &'static str {
        "openssl"
    }

    fn output(&mut self) -> Result<Vec<u8>, String> {
        self.once().map_err(|e| e.to_string())
    }

    fn run(&mut self, iters: u64) {
        for _ in 0..iters {
            // The agreement check ran `output` first, so a failure here is not expected;
            // keep the result alive so the work cannot be dropped.
            core::hint::black_box(self.once().ok());
        }
    }
}
