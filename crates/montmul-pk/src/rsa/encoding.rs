//! RSA keys as DER and PEM, in the forms OpenSSL reads and writes: PKCS #1
//! (`RSA PRIVATE KEY`, `RSA PUBLIC KEY`, RFC 8017 A.1), PKCS #8 (`PRIVATE KEY`, RFC 5208,
//! what `openssl genpkey` writes) and SubjectPublicKeyInfo (`PUBLIC KEY`, RFC 5280, what
//! `openssl pkey -pubout` writes). The ASN.1 is the RustCrypto `der`/`pkcs1`/`pkcs8`/
//! `spki` crates'; nothing here parses bytes by hand.
//!
//! Both the rsaEncryption and the id-RSASSA-PSS algorithm identifiers are read (an
//! `openssl genpkey -algorithm RSA-PSS` key; its PSS parameters are not enforced);
//! rsaEncryption is written. Multi-prime private keys (RFC 8017 A.1.2, `otherPrimeInfos`,
//! as `openssl genpkey -pkeyopt rsa_keygen_primes:3` writes them) are read and written
//! back in the same forms. A private key read is checked for consistency
//! ([`RsaPrivateKey::from_multi_prime_components`], and the CRT numbers it carries must
//! match).
//!
//! Parsing is variable-time in the document's structure and lengths (public), and a
//! private key's numbers are copied into `Zeroizing` buffers; the DER of a written
//! private key is returned in one.

use der::asn1::{AnyRef, ObjectIdentifier, UintRef};
use der::pem::LineEnding;
use der::{Decode, Encode};
use pkcs8::PrivateKeyInfo;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use super::{RsaPrivateKey, RsaPublicKey};
use crate::Error;

/// rsaEncryption (RFC 8017 A.1).
const RSA_ENCRYPTION: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");
/// id-RSASSA-PSS (RFC 8017 A.2.3), OpenSSL's "RSA-PSS" key type.
const RSASSA_PSS: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");

/// The algorithm identifier written: rsaEncryption with NULL parameters.
const ALGORITHM: AlgorithmIdentifierRef<'static> = AlgorithmIdentifierRef {
    oid: RSA_ENCRYPTION,
    parameters: Some(AnyRef::NULL),
};

const PKCS1_PRIVATE: &str = "RSA PRIVATE KEY";
const PKCS1_PUBLIC: &str = "RSA PUBLIC KEY";
const PKCS8_PRIVATE: &str = "PRIVATE KEY";
const SPKI_PUBLIC: &str = "PUBLIC KEY";

fn encoding_error(e: impl core::fmt::Display) -> Error {
    Error::Encoding(e.to_string())
}

/// The label and DER of a PEM document (RFC 7468).
fn pem_decode(pem: &str) -> Result<(String, Zeroizing<Vec<u8>>), Error> {
    let (label, der) = der::pem::decode_vec(pem.as_bytes()).map_err(encoding_error)?;
    Ok((label.to_string(), Zeroizing::new(der)))
}

fn expect_label(found: &str, want: &str) -> Result<(), Error> {
    if found == want {
        Ok(())
    } else {
        Err(Error::Encoding(format!(
            "expected a PEM \"{want}\", found \"{found}\""
        )))
    }
}

/// Accepts rsaEncryption and id-RSASSA-PSS; anything else is a key of another type.
fn check_algorithm(alg: &AlgorithmIdentifierRef<'_>) -> Result<(), Error> {
    // rsaEncryption's parameters are NULL (RFC 8017 A.1; absent is tolerated), PSS
    // keys may carry their parameters.
    let null_or_absent = alg.parameters.is_none_or(|p| p.is_null());
    if (alg.oid == RSA_ENCRYPTION && null_or_absent) || alg.oid == RSASSA_PSS {
        Ok(())
    } else if alg.oid == RSA_ENCRYPTION {
        Err(Error::Encoding(
            "rsaEncryption parameters must be NULL".into(),
        ))
    } else {
        Err(Error::Encoding(format!(
            "not an RSA key (algorithm {})",
            alg.oid
        )))
    }
}

fn uint(bytes: &[u8]) -> Result<UintRef<'_>, Error> {
    UintRef::new(bytes).map_err(encoding_error)
}

fn pem_encode(label: &str, der: &[u8]) -> Result<String, Error> {
    der::pem::encode_string(label, LineEnding::LF, der).map_err(encoding_error)
}

impl RsaPublicKey {
    /// Reads a PKCS #1 RSAPublicKey (DER).
    pub fn from_pkcs1_der(der: &[u8]) -> Result<Self, Error> {
        let k = pkcs1::RsaPublicKey::from_der(der)?;
        Self::new(k.modulus.as_bytes(), k.public_exponent.as_bytes())
    }

    /// Reads a PEM "RSA PUBLIC KEY" (PKCS #1).
    pub fn from_pkcs1_pem(pem: &str) -> Result<Self, Error> {
        let (label, der) = pem_decode(pem)?;
        expect_label(&label, PKCS1_PUBLIC)?;
        Self::from_pkcs1_der(&der)
    }

    /// Reads a SubjectPublicKeyInfo (DER) holding an RSA key.
    pub fn from_public_key_der(der: &[u8]) -> Result<Self, Error> {
        let spki = SubjectPublicKeyInfoRef::from_der(der)?;
        check_algorithm(&spki.algorithm)?;
        let bits = spki.subject_public_key.as_bytes().ok_or_else(|| {
            Error::Encoding("the public key bit string is not whole bytes".into())
        })?;
        Self::from_pkcs1_der(bits)
    }

    /// Reads a PEM "PUBLIC KEY" (SubjectPublicKeyInfo).
    pub fn from_public_key_pem(pem: &str) -> Result<Self, Error> {
        let (label, der) = pem_decode(pem)?;
        expect_label(&label, SPKI_PUBLIC)?;
        Self::from_public_key_der(&der)
    }

    /// Reads any public form OpenSSL writes: PEM "PUBLIC KEY" or "RSA PUBLIC KEY", or
    /// their DER (SubjectPublicKeyInfo tried first).
    pub fn from_any(data: &[u8]) -> Result<Self, Error> {
        match pem_text(data) {
            Some(text) => {
                let (label, der) = pem_decode(text)?;
                match label.as_str() {
                    SPKI_PUBLIC => Self::from_public_key_der(&der),
                    PKCS1_PUBLIC => Self::from_pkcs1_der(&der),
                    other => Err(Error::Encoding(format!(
                        "expected a PEM \"PUBLIC KEY\" or \"RSA PUBLIC KEY\", found \"{other}\""
                    ))),
                }
            }
            None => Self::from_public_key_der(data)
                .or_else(|e| Self::from_pkcs1_der(data).map_err(|_| e)),
        }
    }

    /// The key as a PKCS #1 RSAPublicKey (DER).
    pub fn to_pkcs1_der(&self) -> Result<Vec<u8>, Error> {
        let k = pkcs1::RsaPublicKey {
            modulus: uint(self.n())?,
            public_exponent: uint(self.e())?,
        };
        Ok(k.to_der()?)
    }

    /// The key as a PEM "RSA PUBLIC KEY".
    pub fn to_pkcs1_pem(&self) -> Result<String, Error> {
        pem_encode(PKCS1_PUBLIC, &self.to_pkcs1_der()?)
    }

    /// The key as a SubjectPublicKeyInfo (DER), rsaEncryption with NULL parameters.
    pub fn to_public_key_der(&self) -> Result<Vec<u8>, Error> {
        let inner = self.to_pkcs1_der()?;
        let spki = SubjectPublicKeyInfoRef {
            algorithm: ALGORITHM,
            subject_public_key: der::asn1::BitStringRef::from_bytes(&inner)?,
        };
        Ok(spki.to_der()?)
    }

    /// The key as a PEM "PUBLIC KEY", as `openssl pkey -pubout` writes it.
    pub fn to_public_key_pem(&self) -> Result<String, Error> {
        pem_encode(SPKI_PUBLIC, &self.to_public_key_der()?)
    }
}

/// The DER of a structure holding secrets, into a buffer reserved at its final size
/// (so that no reallocation leaves a copy behind) and wiped when dropped.
fn encode_secret(value: &impl Encode) -> Result<Zeroizing<Vec<u8>>, Error> {
    let len = usize::try_from(u32::from(value.encoded_len()?)).map_err(encoding_error)?;
    let mut out = Zeroizing::new(Vec::with_capacity(len));
    value.encode_to_vec(&mut out)?;
    Ok(out)
}

/// `data` as text when it looks like PEM (starts, after white space, with `-----BEGIN`).
fn pem_text(data: &[u8]) -> Option<&str> {
    let text = core::str::from_utf8(data).ok()?;
    text.trim_start().starts_with("-----BEGIN").then_some(text)
}

impl RsaPrivateKey {
    /// Reads a PKCS #1 RSAPrivateKey (DER), two-prime or multi-prime (`otherPrimeInfos`,
    /// up to [`super::MAX_PRIMES`] primes in all), and checks it.
    pub fn from_pkcs1_der(der: &[u8]) -> Result<Self, Error> {
        let k = pkcs1::RsaPrivateKey::from_der(der)?;
        let others = k.other_prime_infos.as_deref().unwrap_or_default();
        if k.other_prime_infos.is_some() && others.is_empty() {
            // OtherPrimeInfos is SIZE(1..MAX) (RFC 8017 A.1.2).
            return Err(Error::Encoding(
                "a multi-prime key without further primes".into(),
            ));
        }
        if others.len() > super::MAX_PRIMES - 2 {
            return Err(Error::InvalidKey("a key has from 2 to 16 primes"));
        }
        let mut primes = vec![k.prime1.as_bytes(), k.prime2.as_bytes()];
        primes.extend(others.iter().map(|o| o.prime.as_bytes()));
        let others_crt: Vec<[&[u8]; 2]> = others
            .iter()
            .map(|o| [o.exponent.as_bytes(), o.coefficient.as_bytes()])
            .collect();
        Self::from_crt_components(
            k.modulus.as_bytes(),
            k.public_exponent.as_bytes(),
            k.private_exponent.as_bytes(),
            &primes,
            [
                k.exponent1.as_bytes(),
                k.exponent2.as_bytes(),
                k.coefficient.as_bytes(),
            ],
            &others_crt,
        )
    }

    /// Reads a PEM "RSA PRIVATE KEY" (PKCS #1, OpenSSL's "traditional" form).
    pub fn from_pkcs1_pem(pem: &str) -> Result<Self, Error> {
        let (label, der) = pem_decode(pem)?;
        expect_label(&label, PKCS1_PRIVATE)?;
        Self::from_pkcs1_der(&der)
    }

    /// Reads an unencrypted PKCS #8 PrivateKeyInfo (DER) holding an RSA key.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        let info = PrivateKeyInfo::from_der(der)?;
        check_algorithm(&info.algorithm)?;
        Self::from_pkcs1_der(info.private_key)
    }

    /// Reads a PEM "PRIVATE KEY" (PKCS #8), as `openssl genpkey` writes it.
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, Error> {
        let (label, der) = pem_decode(pem)?;
        expect_label(&label, PKCS8_PRIVATE)?;
        Self::from_pkcs8_der(&der)
    }

    /// Reads any unencrypted private form OpenSSL writes: PEM "PRIVATE KEY" or "RSA
    /// PRIVATE KEY", or their DER (PKCS #8 tried first).
    pub fn from_any(data: &[u8]) -> Result<Self, Error> {
        match pem_text(data) {
            Some(text) => {
                let (label, der) = pem_decode(text)?;
                match label.as_str() {
                    PKCS8_PRIVATE => Self::from_pkcs8_der(&der),
                    PKCS1_PRIVATE => Self::from_pkcs1_der(&der),
                    other => Err(Error::Encoding(format!(
                        "expected a PEM \"PRIVATE KEY\" or \"RSA PRIVATE KEY\", found \"{other}\""
                    ))),
                }
            }
            None => match PrivateKeyInfo::from_der(data) {
                Ok(_) => Self::from_pkcs8_der(data),
                Err(e) => Self::from_pkcs1_der(data).map_err(|_| Error::from(e)),
            },
        }
    }

    /// The key as a PKCS #1 RSAPrivateKey (DER).
    pub fn to_pkcs1_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let [d, p, q, dp, dq, qinv] = self.secrets();
        let k = pkcs1::RsaPrivateKey {
            modulus: uint(self.public_key().n())?,
            public_exponent: uint(self.public_key().e())?,
            private_exponent: uint(d)?,
            prime1: uint(p)?,
            prime2: uint(q)?,
            exponent1: uint(dp)?,
            exponent2: uint(dq)?,
            coefficient: uint(qinv)?,
            other_prime_infos: None,
        };
        let others = self
            .other_secrets()
            .map(|[r, d, t]| {
                Ok(pkcs1::OtherPrimeInfo {
                    prime: uint(r)?,
                    exponent: uint(d)?,
                    coefficient: uint(t)?,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        // A multi-prime key carries its further primes (and version 1, which the
        // `pkcs1` crate derives from their presence).
        let k = pkcs1::RsaPrivateKey {
            other_prime_infos: (!others.is_empty()).then_some(others),
            ..k
        };
        encode_secret(&k)
    }

    /// The key as a PEM "RSA PRIVATE KEY".
    pub fn to_pkcs1_pem(&self) -> Result<Zeroizing<String>, Error> {
        Ok(Zeroizing::new(pem_encode(
            PKCS1_PRIVATE,
            &self.to_pkcs1_der()?,
        )?))
    }

    /// The key as a PKCS #8 PrivateKeyInfo (DER), rsaEncryption with NULL parameters.
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let inner = self.to_pkcs1_der()?;
        let info = PrivateKeyInfo::new(ALGORITHM, &inner);
        encode_secret(&info)
    }

    /// The key as a PEM "PRIVATE KEY", as `openssl genpkey` writes it.
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, Error> {
        Ok(Zeroizing::new(pem_encode(
            PKCS8_PRIVATE,
            &self.to_pkcs8_der()?,
        )?))
    }
}
