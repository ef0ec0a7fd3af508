//! Diffie-Hellman parameters and keys in the forms OpenSSL 3.0 writes and reads:
//! "DH PARAMETERS" (PKCS #3 `DHParameter`), "X9.42 DH PARAMETERS" (RFC 3279
//! `DomainParameters`, with q), PKCS #8 "PRIVATE KEY" and SubjectPublicKeyInfo
//! "PUBLIC KEY" with the `dhKeyAgreement` OID (PKCS #3) or the X9.42 `dhpublicnumber`
//! OID (RFC 3279 2.3.3). The ASN.1 is the `der` crate's derive; PKCS #8 and SPKI are the
//! `pkcs8` and `spki` crates'.

use der::asn1::{AnyRef, ObjectIdentifier, UintRef};
use der::{Decode, Encode, Sequence};
use pkcs8::PrivateKeyInfo;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use super::{ffc, DhParams, DhPrivateKey, DhPublicKey};
use crate::Error;

/// PKCS #3 `dhKeyAgreement`.
pub const DH_KEY_AGREEMENT: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.3.1");
/// X9.42 `dhpublicnumber` (RFC 3279 2.3.3).
pub const DH_PUBLIC_NUMBER: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10046.2.1");

/// PKCS #3: `DHParameter ::= SEQUENCE { prime, base, privateValueLength OPTIONAL }`.
#[derive(Sequence)]
struct DhParameter<'a> {
    prime: UintRef<'a>,
    base: UintRef<'a>,
    private_value_length: Option<UintRef<'a>>,
}

/// RFC 3279: `DomainParameters ::= SEQUENCE { p, g, q, j OPTIONAL, validationParms
/// ValidationParms OPTIONAL }`; the validation parameters are kept as read.
#[derive(Sequence)]
struct DomainParameters<'a> {
    p: UintRef<'a>,
    g: UintRef<'a>,
    q: UintRef<'a>,
    j: Option<UintRef<'a>>,
    validation_parms: Option<AnyRef<'a>>,
}

/// The label of PKCS #3 parameters.
const PKCS3_LABEL: &str = "DH PARAMETERS";
/// The label of X9.42 parameters.
const X942_LABEL: &str = "X9.42 DH PARAMETERS";

fn pkcs3_from_der(der_bytes: &[u8]) -> Result<DhParams, Error> {
    let d = DhParameter::from_der(der_bytes)?;
    let params = DhParams::new(d.prime.as_bytes(), d.base.as_bytes(), None)?;
    match d.private_value_length {
        None => Ok(params),
        Some(l) => {
            let bits = usize::try_from(u64::from_be_bytes(
                *ffc::left_pad(l.as_bytes(), 8)
                    .ok_or(Error::Encoding("privateValueLength too large".into()))?
                    .first_chunk()
                    .ok_or(Error::Encoding("privateValueLength".into()))?,
            ))
            .map_err(|_| Error::Encoding("privateValueLength too large".into()))?;
            params.with_private_value_length(bits)
        }
    }
}

fn x942_from_der(der_bytes: &[u8]) -> Result<DhParams, Error> {
    let d = DomainParameters::from_der(der_bytes)?;
    DhParams::new(d.p.as_bytes(), d.g.as_bytes(), Some(d.q.as_bytes()))
}

impl DhParams {
    /// PKCS #3 `DHParameter` DER (the contents of "DH PARAMETERS").
    pub fn from_pkcs3_der(der_bytes: &[u8]) -> Result<Self, Error> {
        pkcs3_from_der(der_bytes)
    }

    /// X9.42 `DomainParameters` DER (the contents of "X9.42 DH PARAMETERS").
    pub fn from_x942_der(der_bytes: &[u8]) -> Result<Self, Error> {
        x942_from_der(der_bytes)
    }

    /// Parameters from PEM: "DH PARAMETERS" or "X9.42 DH PARAMETERS".
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        let (label, der_bytes) = ffc::pem_decode(pem)?;
        match label.as_str() {
            PKCS3_LABEL => pkcs3_from_der(&der_bytes),
            X942_LABEL => x942_from_der(&der_bytes),
            other => Err(Error::Encoding(format!(
                "expected DH PARAMETERS, found {other}"
            ))),
        }
    }

    /// Parameters from PEM or DER (either form).
    pub fn from_pem_or_der(bytes: &[u8]) -> Result<Self, Error> {
        match core::str::from_utf8(bytes) {
            Ok(text) if text.trim_start().starts_with("-----BEGIN") => Self::from_pem(text),
            _ => Self::from_der(bytes),
        }
    }

    /// Parameters from DER, PKCS #3 or X9.42 (told apart by the number of fields).
    pub fn from_der(der_bytes: &[u8]) -> Result<Self, Error> {
        pkcs3_from_der(der_bytes).or_else(|first| x942_from_der(der_bytes).map_err(|_| first))
    }

    /// The DER encoding: PKCS #3 `DHParameter`, or X9.42 `DomainParameters` for
    /// parameters with a q that are not a named group (as OpenSSL chooses).
    pub fn to_der(&self) -> Result<Vec<u8>, Error> {
        self.algorithm_parameters().map(|(_, der_bytes)| der_bytes)
    }

    /// The PEM encoding of [`Self::to_der`], "DH PARAMETERS" or "X9.42 DH PARAMETERS".
    pub fn to_pem(&self) -> Result<String, Error> {
        let (oid, der_bytes) = self.algorithm_parameters()?;
        let label = if oid == DH_KEY_AGREEMENT {
            PKCS3_LABEL
        } else {
            X942_LABEL
        };
        Ok(ffc::pem_encode(label, &der_bytes)?.to_string())
    }

    /// The OID and DER parameters of an `AlgorithmIdentifier` for keys with these
    /// parameters.
    fn algorithm_parameters(&self) -> Result<(ObjectIdentifier, Vec<u8>), Error> {
        match (&self.q_be, self.group) {
            (Some(q), None) => Ok((
                DH_PUBLIC_NUMBER,
                DomainParameters {
                    p: UintRef::new(&self.p_be)?,
                    g: UintRef::new(&self.g_be)?,
                    q: UintRef::new(q)?,
                    j: None,
                    validation_parms: None,
                }
                .to_der()?,
            )),
            _ => {
                // A named group's length is OpenSSL's default for it: not written.
                let len = match (self.group, self.private_len) {
                    (None, Some(l)) => Some((l as u64).to_be_bytes()),
                    _ => None,
                };
                Ok((
                    DH_KEY_AGREEMENT,
                    DhParameter {
                        prime: UintRef::new(&self.p_be)?,
                        base: UintRef::new(&self.g_be)?,
                        private_value_length: len.as_ref().map(|l| UintRef::new(l)).transpose()?,
                    }
                    .to_der()?,
                ))
            }
        }
    }

    /// Parameters from an `AlgorithmIdentifier` of a DH key.
    fn from_algorithm(alg: &AlgorithmIdentifierRef<'_>) -> Result<Self, Error> {
        let params = alg
            .parameters
            .ok_or_else(|| Error::Encoding("DH key without parameters".into()))?
            .to_der()?;
        if alg.oid == DH_KEY_AGREEMENT {
            pkcs3_from_der(&params)
        } else if alg.oid == DH_PUBLIC_NUMBER {
            x942_from_der(&params)
        } else {
            Err(Error::Encoding(format!(
                "not a DH key (algorithm {})",
                alg.oid
            )))
        }
    }
}

impl DhPrivateKey {
    /// A PKCS #8 `PrivateKeyInfo` DER with a DH key (`dhKeyAgreement` or
    /// `dhpublicnumber`).
    pub fn from_pkcs8_der(der_bytes: &[u8]) -> Result<Self, Error> {
        let info = PrivateKeyInfo::from_der(der_bytes)?;
        let params = DhParams::from_algorithm(&info.algorithm)?;
        let x = ffc::integer_from_der(info.private_key)?;
        Self::from_components(params, &x)
    }

    /// A PKCS #8 "PRIVATE KEY" PEM with a DH key.
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, Error> {
        let (label, der_bytes) = ffc::pem_decode(pem)?;
        if label != "PRIVATE KEY" {
            return Err(Error::Encoding(format!(
                "expected PRIVATE KEY, found {label}"
            )));
        }
        Self::from_pkcs8_der(&der_bytes)
    }

    /// A private key from "PRIVATE KEY" PEM or PKCS #8 DER.
    pub fn from_pem_or_der(bytes: &[u8]) -> Result<Self, Error> {
        match core::str::from_utf8(bytes) {
            Ok(text) if text.trim_start().starts_with("-----BEGIN") => Self::from_pkcs8_pem(text),
            _ => Self::from_pkcs8_der(bytes),
        }
    }

    /// PKCS #8 DER, as `openssl genpkey -algorithm DH` writes it (version 0, the
    /// parameters in the algorithm identifier, x as an INTEGER).
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let (oid, params) = self.params.algorithm_parameters()?;
        let x = ffc::integer_der(&self.x)?;
        let info = PrivateKeyInfo::new(
            AlgorithmIdentifierRef {
                oid,
                parameters: Some(AnyRef::from_der(&params)?),
            },
            &x,
        );
        Ok(Zeroizing::new(info.to_der()?))
    }

    /// PKCS #8 "PRIVATE KEY" PEM.
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, Error> {
        ffc::pem_encode("PRIVATE KEY", &self.to_pkcs8_der()?)
    }
}

impl DhPublicKey {
    /// A SubjectPublicKeyInfo DER with a DH key; y is checked as [`DhPublicKey::new`]
    /// checks it.
    pub fn from_public_key_der(der_bytes: &[u8]) -> Result<Self, Error> {
        let info = SubjectPublicKeyInfoRef::from_der(der_bytes)?;
        let params = DhParams::from_algorithm(&info.algorithm)?;
        Self::new(params, &ffc::spki_integer(&info)?)
    }

    /// A "PUBLIC KEY" PEM with a DH key.
    pub fn from_public_key_pem(pem: &str) -> Result<Self, Error> {
        let (label, der_bytes) = ffc::pem_decode(pem)?;
        if label != "PUBLIC KEY" {
            return Err(Error::Encoding(format!(
                "expected PUBLIC KEY, found {label}"
            )));
        }
        Self::from_public_key_der(&der_bytes)
    }

    /// A public key from "PUBLIC KEY" PEM or SubjectPublicKeyInfo DER.
    pub fn from_pem_or_der(bytes: &[u8]) -> Result<Self, Error> {
        match core::str::from_utf8(bytes) {
            Ok(text) if text.trim_start().starts_with("-----BEGIN") => {
                Self::from_public_key_pem(text)
            }
            _ => Self::from_public_key_der(bytes),
        }
    }

    /// SubjectPublicKeyInfo DER, as `openssl pkey -pubout` writes it.
    pub fn to_public_key_der(&self) -> Result<Vec<u8>, Error> {
        let (oid, params) = self.params.algorithm_parameters()?;
        let algorithm = AlgorithmIdentifierRef {
            oid,
            parameters: Some(AnyRef::from_der(&params)?),
        };
        ffc::spki_der(algorithm, &self.y_be)
    }

    /// "PUBLIC KEY" PEM.
    pub fn to_public_key_pem(&self) -> Result<String, Error> {
        Ok(ffc::pem_encode("PUBLIC KEY", &self.to_public_key_der()?)?.to_string())
    }
}
