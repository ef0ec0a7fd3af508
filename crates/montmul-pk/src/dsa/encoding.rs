//! DSA parameters and keys in the forms OpenSSL 3.0 writes and reads: PKCS #8
//! "PRIVATE KEY" and SubjectPublicKeyInfo "PUBLIC KEY" with the `id-dsa` OID and
//! `Dss-Parms` (RFC 3279 2.3.2), the traditional "DSA PRIVATE KEY" (OpenSSL's
//! `SEQUENCE { 0, p, q, g, y, x }`) and "DSA PARAMETERS" (`Dss-Parms`). The ASN.1 is the
//! `der` crate's derive; PKCS #8 and SPKI are the `pkcs8` and `spki` crates'.

use der::asn1::{AnyRef, ObjectIdentifier, UintRef};
use der::{Decode, Encode, Sequence};
use pkcs8::PrivateKeyInfo;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use super::key::{DsaPrivateKey, DsaPublicKey};
use super::params::DsaParams;
use crate::dh::ffc;
use crate::Error;

/// `id-dsa` (RFC 3279 2.3.2).
pub const ID_DSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10040.4.1");

/// RFC 3279 `Dss-Parms ::= SEQUENCE { p, q, g }`.
#[derive(Sequence)]
struct DssParms<'a> {
    p: UintRef<'a>,
    q: UintRef<'a>,
    g: UintRef<'a>,
}

/// OpenSSL's traditional DSA private key: `SEQUENCE { version 0, p, q, g, y, x }`.
#[derive(Sequence)]
struct TraditionalDsaKey<'a> {
    version: UintRef<'a>,
    p: UintRef<'a>,
    q: UintRef<'a>,
    g: UintRef<'a>,
    y: UintRef<'a>,
    x: UintRef<'a>,
}

const PARAMS_LABEL: &str = "DSA PARAMETERS";
const TRADITIONAL_LABEL: &str = "DSA PRIVATE KEY";

fn expect_label(found: &str, expected: &str) -> Result<(), Error> {
    if found == expected {
        Ok(())
    } else {
        Err(Error::Encoding(format!(
            "expected {expected}, found {found}"
        )))
    }
}

impl DsaParams {
    /// `Dss-Parms` DER (the contents of "DSA PARAMETERS").
    pub fn from_der(der_bytes: &[u8]) -> Result<Self, Error> {
        let d = DssParms::from_der(der_bytes)?;
        Self::new(d.p.as_bytes(), d.q.as_bytes(), d.g.as_bytes())
    }

    /// "DSA PARAMETERS" PEM.
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        let (label, der_bytes) = ffc::pem_decode(pem)?;
        expect_label(&label, PARAMS_LABEL)?;
        Self::from_der(&der_bytes)
    }

    /// Parameters from "DSA PARAMETERS" PEM or `Dss-Parms` DER.
    pub fn from_pem_or_der(bytes: &[u8]) -> Result<Self, Error> {
        match core::str::from_utf8(bytes) {
            Ok(text) if text.trim_start().starts_with("-----BEGIN") => Self::from_pem(text),
            _ => Self::from_der(bytes),
        }
    }

    /// `Dss-Parms` DER.
    pub fn to_der(&self) -> Result<Vec<u8>, Error> {
        Ok(DssParms {
            p: UintRef::new(&self.p_be)?,
            q: UintRef::new(&self.q_be)?,
            g: UintRef::new(&self.g_be)?,
        }
        .to_der()?)
    }

    /// "DSA PARAMETERS" PEM, as `openssl genpkey -genparam -algorithm DSA` writes it.
    pub fn to_pem(&self) -> Result<String, Error> {
        Ok(ffc::pem_encode(PARAMS_LABEL, &self.to_der()?)?.to_string())
    }

    fn from_algorithm(alg: &AlgorithmIdentifierRef<'_>) -> Result<Self, Error> {
        if alg.oid != ID_DSA {
            return Err(Error::Encoding(format!(
                "not a DSA key (algorithm {})",
                alg.oid
            )));
        }
        let params = alg
            .parameters
            .ok_or_else(|| Error::Encoding("DSA key without parameters".into()))?
            .to_der()?;
        Self::from_der(&params)
    }

    fn algorithm(der_params: &[u8]) -> Result<AlgorithmIdentifierRef<'_>, Error> {
        Ok(AlgorithmIdentifierRef {
            oid: ID_DSA,
            parameters: Some(AnyRef::from_der(der_params)?),
        })
    }
}

impl DsaPrivateKey {
    /// A PKCS #8 `PrivateKeyInfo` DER with a DSA key (y is computed from x).
    pub fn from_pkcs8_der(der_bytes: &[u8]) -> Result<Self, Error> {
        let info = PrivateKeyInfo::from_der(der_bytes)?;
        let params = DsaParams::from_algorithm(&info.algorithm)?;
        let x = ffc::integer_from_der(info.private_key)?;
        Self::from_components(params, &x)
    }

    /// A PKCS #8 "PRIVATE KEY" PEM with a DSA key.
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, Error> {
        let (label, der_bytes) = ffc::pem_decode(pem)?;
        expect_label(&label, "PRIVATE KEY")?;
        Self::from_pkcs8_der(&der_bytes)
    }

    /// A traditional OpenSSL DSA private key DER; y is checked against g^x.
    pub fn from_dsa_der(der_bytes: &[u8]) -> Result<Self, Error> {
        let k = TraditionalDsaKey::from_der(der_bytes)?;
        if !k.version.as_bytes().iter().all(|&b| b == 0) {
            return Err(Error::Encoding("DSA PRIVATE KEY version is not 0".into()));
        }
        let params = DsaParams::new(k.p.as_bytes(), k.q.as_bytes(), k.g.as_bytes())?;
        Self::from_components_with_y(params, k.x.as_bytes(), k.y.as_bytes())
    }

    /// A traditional "DSA PRIVATE KEY" PEM (unencrypted).
    pub fn from_dsa_pem(pem: &str) -> Result<Self, Error> {
        let (label, der_bytes) = ffc::pem_decode(pem)?;
        expect_label(&label, TRADITIONAL_LABEL)?;
        Self::from_dsa_der(&der_bytes)
    }

    /// Any private-key form OpenSSL writes for DSA: PEM "PRIVATE KEY" or "DSA PRIVATE
    /// KEY", or their DER.
    pub fn from_pem_or_der(bytes: &[u8]) -> Result<Self, Error> {
        match core::str::from_utf8(bytes) {
            Ok(text) if text.trim_start().starts_with("-----BEGIN") => {
                let (label, der_bytes) = ffc::pem_decode(text)?;
                match label.as_str() {
                    "PRIVATE KEY" => Self::from_pkcs8_der(&der_bytes),
                    TRADITIONAL_LABEL => Self::from_dsa_der(&der_bytes),
                    other => Err(Error::Encoding(format!(
                        "expected a DSA private key, found {other}"
                    ))),
                }
            }
            _ => Self::from_pkcs8_der(bytes)
                .or_else(|first| Self::from_dsa_der(bytes).map_err(|_| first)),
        }
    }

    /// PKCS #8 DER, as `openssl genpkey -algorithm DSA` writes it.
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let params = self.params.to_der()?;
        let x = ffc::integer_der(&self.x)?;
        let info = PrivateKeyInfo::new(DsaParams::algorithm(&params)?, &x);
        Ok(Zeroizing::new(info.to_der()?))
    }

    /// PKCS #8 "PRIVATE KEY" PEM.
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, Error> {
        ffc::pem_encode("PRIVATE KEY", &self.to_pkcs8_der()?)
    }

    /// The traditional DER, as `openssl pkey -traditional` writes it.
    pub fn to_dsa_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let p = &self.params;
        Ok(Zeroizing::new(
            TraditionalDsaKey {
                version: UintRef::new(&[0])?,
                p: UintRef::new(&p.p_be)?,
                q: UintRef::new(&p.q_be)?,
                g: UintRef::new(&p.g_be)?,
                y: UintRef::new(&self.public.y_be)?,
                x: UintRef::new(&self.x)?,
            }
            .to_der()?,
        ))
    }

    /// The traditional "DSA PRIVATE KEY" PEM.
    pub fn to_dsa_pem(&self) -> Result<Zeroizing<String>, Error> {
        ffc::pem_encode(TRADITIONAL_LABEL, &self.to_dsa_der()?)
    }
}

impl DsaPublicKey {
    /// A SubjectPublicKeyInfo DER with a DSA key; y is checked ([`DsaPublicKey::new`]).
    pub fn from_public_key_der(der_bytes: &[u8]) -> Result<Self, Error> {
        let info = SubjectPublicKeyInfoRef::from_der(der_bytes)?;
        let params = DsaParams::from_algorithm(&info.algorithm)?;
        Self::new(params, &ffc::spki_integer(&info)?)
    }

    /// A "PUBLIC KEY" PEM with a DSA key.
    pub fn from_public_key_pem(pem: &str) -> Result<Self, Error> {
        let (label, der_bytes) = ffc::pem_decode(pem)?;
        expect_label(&label, "PUBLIC KEY")?;
        Self::from_public_key_der(&der_bytes)
    }

    /// A public key from "PUBLIC KEY" PEM or SPKI DER.
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
        let params = self.params.to_der()?;
        ffc::spki_der(DsaParams::algorithm(&params)?, &self.y_be)
    }

    /// "PUBLIC KEY" PEM.
    pub fn to_public_key_pem(&self) -> Result<String, Error> {
        Ok(ffc::pem_encode("PUBLIC KEY", &self.to_public_key_der()?)?.to_string())
    }
}
