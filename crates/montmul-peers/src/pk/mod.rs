//! The public-key peers: what `montmul bench --pk` measures montmul-pk against.
//!
//! - OpenSSL through the `openssl` crate (the system libcrypto, 3.0 here): RSA, DSA, DH;
//! - ring 0.17: RSA PKCS#1 v1.5 signatures and their verification (ring has no raw
//!   RSA operation, no DSA and no finite-field DH);
//! - RustCrypto's `rsa` 0.9: RSA (the crate Rust users have, RUSTSEC-2023-0071).
//!
//! Each peer is a [`PkContender`] built from keys in the DER forms OpenSSL writes
//! (PKCS#8 for private keys, SubjectPublicKeyInfo for public keys) and a fixed input, so
//! every library reads the very same key. Its [`PkContender::output`] is what the
//! agreement check compares before anything is timed: a PKCS#1 v1.5 signature is
//! deterministic, so every RSA signer must give the same bytes; a DSA signature is not,
//! so the caller verifies each peer's signature instead; a verifier answers `[1]`.

pub mod openssl;
pub mod ring;
pub mod rustcrypto;

/// One library's implementation of one public-key operation, with its key and input
/// prepared once.
pub trait PkContender {
    /// The name in tables and JSON (`"openssl"`, `"ring"`, `"rsa-crate"`).
    fn name(&self) -> &'static str;
    /// The operation's result on the prepared input (a signature, a plaintext, `[1]`
    /// for a signature that verifies, a shared secret), or why it failed.
    fn output(&mut self) -> Result<Vec<u8>, String>;
    /// Runs the operation `iters` times.
    fn run(&mut self, iters: u64);
}

/// The operations measured, named as in `montmul bench --pk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PkOp {
    /// RSA PKCS#1 v1.5 signature with SHA-256 (the private operation).
    RsaSign,
    /// RSA PKCS#1 v1.5 verification with SHA-256 (the public operation).
    RsaVerify,
    /// DSA signature with SHA-256.
    DsaSign,
    /// DSA verification with SHA-256.
    DsaVerify,
    /// Finite-field Diffie-Hellman: the shared secret from a private key and a peer's
    /// public key.
    DhDerive,
}

/// What a peer is built from: DER keys as OpenSSL writes them and the operation's input.
#[derive(Clone, Debug)]
pub struct PkInputs {
    /// The private key, PKCS#8 DER (unused by verifiers).
    pub private_pkcs8: Vec<u8>,
    /// The public key, SubjectPublicKeyInfo DER (for DH: the peer's public key).
    pub public_spki: Vec<u8>,
    /// The message to sign or verify (unused by DH).
    pub message: Vec<u8>,
    /// The signature to verify (verifiers only).
    pub signature: Vec<u8>,
}

/// Every peer that implements `op`, built from `inputs`; a peer that cannot read the
/// key (e.g. ring refuses RSA keys below 2048 bits) is left out with its reason.
pub fn all(op: PkOp, inputs: &PkInputs) -> (Vec<Box<dyn PkContender>>, Vec<String>) {
    let mut out: Vec<Box<dyn PkContender>> = Vec::new();
    let mut left_out = Vec::new();
    let mut push = |r: Result<Box<dyn PkContender>, String>, who: &str| match r {
        Ok(c) => out.push(c),
        Err(why) => left_out.push(format!("{who}: {why}")),
    };
    push(openssl::new(op, inputs), "openssl");
    if matches!(op, PkOp::RsaSign | PkOp::RsaVerify) {
        push(ring::new(op, inputs), "ring");
        push(rustcrypto::new(op, inputs), "rsa-crate");
    }
    (out, left_out)
}
