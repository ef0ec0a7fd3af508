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
    if let (PkOp::DhDerive, Some(key), Some(peer)) = (op, &private, &public) {
        // Validate the peer's value once (range and subgroup), as montmul does when it
        // reads a public key; the timed derivations then skip the check.
        let mut deriver = Deriver::new(key).map_err(|e| e.to_string())?;
        deriver.set_peer(peer).map_err(|e| e.to_string())?;
    }
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
                // The peer's value was validated once in `new`; `set_peer` would redo
                // the check (a full-size exponentiation) on every derivation.
                deriver.set_peer_ex(peer, false)?;
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

/// A fresh RSA key of `bits` bits (e = 65537) from OpenSSL's generator, as (PKCS#8
/// private key, SubjectPublicKeyInfo) DER: the keys `montmul bench --pk` hands to every
/// library.
pub fn generate_rsa(bits: u32) -> Result<(Vec<u8>, Vec<u8>), String> {
    let key = PKey::from_rsa(::openssl::rsa::Rsa::generate(bits).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    der_pair(&key)
}

/// Fresh DSA parameters and key with a `bits`-bit p from OpenSSL's generator (its
/// default q size for that p), as (PKCS#8, SubjectPublicKeyInfo) DER.
pub fn generate_dsa(bits: u32) -> Result<(Vec<u8>, Vec<u8>), String> {
    let key = PKey::from_dsa(::openssl::dsa::Dsa::generate(bits).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    der_pair(&key)
}

fn der_pair(key: &PKey<Private>) -> Result<(Vec<u8>, Vec<u8>), String> {
    let private = key.private_key_to_pkcs8().map_err(|e| e.to_string())?;
    let public = key.public_key_to_der().map_err(|e| e.to_string())?;
    Ok((private, public))
}

/// The numbers of a fresh `bits`-bit RSA key from OpenSSL's generator (e = 65537), as
/// big-endian bytes `[n, e, d, p, q]`: for experiments that build the RSA operation
/// themselves on another arithmetic (the report's per-kernel rows).
pub fn rsa_numbers(bits: u32) -> Result<[Vec<u8>; 5], String> {
    let key = ::openssl::rsa::Rsa::generate(bits).map_err(|e| e.to_string())?;
    let missing = || "OpenSSL's key has no CRT primes".to_string();
    Ok([
        key.n().to_vec(),
        key.e().to_vec(),
        key.d().to_vec(),
        key.p().ok_or_else(missing)?.to_vec(),
        key.q().ok_or_else(missing)?.to_vec(),
    ])
}

/// The numbers of fresh DSA parameters and key with a `bits`-bit p from OpenSSL's
/// generator (its default q size: 160 bits for p of 1024), as big-endian bytes
/// `[p, q, g, x, y]`: for experiments that build DSA themselves on another arithmetic.
pub fn dsa_numbers(bits: u32) -> Result<[Vec<u8>; 5], String> {
    let key = ::openssl::dsa::Dsa::generate(bits).map_err(|e| e.to_string())?;
    Ok([
        key.p().to_vec(),
        key.q().to_vec(),
        key.g().to_vec(),
        key.priv_key().to_vec(),
        key.pub_key().to_vec(),
    ])
}
