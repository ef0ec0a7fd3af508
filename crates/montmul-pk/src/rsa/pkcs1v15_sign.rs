//! RSASSA-PKCS1-v1_5 signatures (RFC 8017 section 8.2, EMSA-PKCS1-v1_5 of 9.2).
//!
//! The DigestInfo `SEQUENCE { AlgorithmIdentifier { hash OID, NULL }, OCTET STRING }` is
//! built with `der` from the hash's OID (`AssociatedOid`), so every hash of the RustCrypto
//! family with an OID works without a table of prefixes. Verification re-encodes the
//! expected block and compares it whole with the one recovered from the signature, the
//! method RFC 8017 prescribes: no parser of the recovered block, so none of the
//! Bleichenbacher 2006 forgeries on lenient parsers apply.
//!
//! Signing is constant-time in the key (the private operation); the message and its
//! hash are public. Verification is variable-time in public data only.

use der::asn1::{AnyRef, OctetStringRef};
use der::oid::AssociatedOid;
use der::Encode;
use rand_core::CryptoRngCore;
use sha2::Digest;
use spki::AlgorithmIdentifierRef;

use super::{RsaPrivateKey, RsaPublicKey};
use crate::Error;

/// DigestInfo of RFC 8017 9.2 note 1.
#[derive(der::Sequence)]
struct DigestInfo<'a> {
    algorithm: AlgorithmIdentifierRef<'a>,
    digest: OctetStringRef<'a>,
}

/// EMSA-PKCS1-v1_5-ENCODE of a hash value of `D` into `k` bytes:
/// `00 01 FF..FF 00 DigestInfo`. Fails with [`Error::InvalidLength`] when the hash value
/// is not `D`'s output length, and [`Error::MessageTooLong`] when k is below the
/// DigestInfo's length plus 11.
fn encode<D: Digest + AssociatedOid>(hash: &[u8], k: usize) -> Result<Vec<u8>, Error> {
    if hash.len() != <D as Digest>::output_size() {
        return Err(Error::InvalidLength);
    }
    let info = DigestInfo {
        algorithm: AlgorithmIdentifierRef {
            oid: D::OID,
            parameters: Some(AnyRef::NULL),
        },
        digest: OctetStringRef::new(hash)?,
    };
    let t = info.to_der()?;
    if k < t.len() + 11 {
        return Err(Error::MessageTooLong);
    }
    let mut em = vec![0xffu8; k];
    em[0] = 0;
    em[1] = 1;
    em[k - t.len() - 1] = 0;
    em[k - t.len()..].copy_from_slice(&t);
    Ok(em)
}

impl RsaPrivateKey {
    /// RSASSA-PKCS1-V1_5-SIGN of `msg` with hash `D` (RFC 8017 8.2.1): a signature of
    /// k bytes. `rng` serves the blinding. Constant-time in the key.
    pub fn sign_pkcs1v15<D: Digest + AssociatedOid>(
        &self,
        msg: &[u8],
        rng: &mut impl CryptoRngCore,
    ) -> Result<Vec<u8>, Error> {
        self.sign_pkcs1v15_prehash::<D>(&D::digest(msg), rng)
    }

    /// As [`Self::sign_pkcs1v15`], for a hash value of `D` computed by the caller
    /// ([`Error::InvalidLength`] when it does not have `D`'s output length).
    pub fn sign_pkcs1v15_prehash<D: Digest + AssociatedOid>(
        &self,
        hash: &[u8],
        rng: &mut impl CryptoRngCore,
    ) -> Result<Vec<u8>, Error> {
        let em = encode::<D>(hash, self.size())?;
        // em starts 00 01: below n, whose top byte is not zero.
        let x = self.public_key().residue(&em)?;
        Ok(self.private_op(&x, rng)?.to_be_bytes_padded(self.size())?)
    }
}

impl RsaPublicKey {
    /// RSASSA-PKCS1-V1_5-VERIFY of `sig` on `msg` with hash `D` (RFC 8017 8.2.2).
    /// `Ok(())` for a valid signature, [`Error::Verification`] for one that does not
    /// verify, [`Error::InvalidLength`] for one that is not k bytes long or not below n.
    /// Variable-time (public data).
    pub fn verify_pkcs1v15<D: Digest + AssociatedOid>(
        &self,
        msg: &[u8],
        sig: &[u8],
    ) -> Result<(), Error> {
        self.verify_pkcs1v15_prehash::<D>(&D::digest(msg), sig)
    }

    /// As [`Self::verify_pkcs1v15`], for a hash value computed by the caller.
    pub fn verify_pkcs1v15_prehash<D: Digest + AssociatedOid>(
        &self,
        hash: &[u8],
        sig: &[u8],
    ) -> Result<(), Error> {
        let s = self.residue(sig)?;
        let em = self.public_op(&s).to_be_bytes_padded(self.size())?;
        let expected = encode::<D>(hash, self.size()).map_err(|_| Error::Verification)?;
        if em == expected {
            Ok(())
        } else {
            Err(Error::Verification)
        }
    }
}
