//! Finite-field helpers shared by Diffie-Hellman and DSA (NIST's "FFC", SP 800-56A and
//! FIPS 186): big-endian byte strings as numbers, their DER INTEGER encoding, and the
//! range and subgroup checks of public values.
//!
//! Only the functions whose name ends in `_vartime` look at the value of their
//! argument; they are for public data (moduli, generators, public keys, signatures).

use der::asn1::{BitStringRef, UintRef};
use der::Encode;
use montmul::{Modulus, Residue};
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use crate::Error;
use montmul::ct::declassify;

/// The value's bytes without leading zeros (empty for zero). Variable-time.
pub(crate) fn trim_vartime(bytes: &[u8]) -> &[u8] {
    let zeros = bytes.iter().take_while(|&&b| b == 0).count();
    &bytes[zeros..]
}

/// The number of significant bits of a big-endian value (0 for zero). Variable-time.
pub(crate) fn bits_vartime(bytes: &[u8]) -> usize {
    let t = trim_vartime(bytes);
    match t.first() {
        None => 0,
        Some(&top) => 8 * t.len() - top.leading_zeros() as usize,
    }
}

/// `a` compared with `b` as numbers. Variable-time.
pub(crate) fn cmp_vartime(a: &[u8], b: &[u8]) -> core::cmp::Ordering {
    let (a, b) = (trim_vartime(a), trim_vartime(b));
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// `p - 1` for an odd `p` (its last bit is 1, so no borrow). Variable-time in the
/// length only.
pub(crate) fn minus_one(p_odd: &[u8]) -> Vec<u8> {
    let mut v = p_odd.to_vec();
    if let Some(last) = v.last_mut() {
        *last &= 0xfe;
    }
    v
}

/// `value` as exactly `len` big-endian bytes (leading zeros added or dropped), or
/// `None` when it does not fit. Constant-time in the value (for secrets): the work
/// depends on the lengths only, and only whether the value fits is revealed.
pub(crate) fn left_pad(value: &[u8], len: usize) -> Option<Zeroizing<Vec<u8>>> {
    let mut out = Zeroizing::new(vec![0u8; len]);
    let (excess, low) = value.split_at(value.len().saturating_sub(len));
    out[len - low.len()..].copy_from_slice(low);
    let high = excess.iter().fold(0u8, |acc, &b| acc | b);
    (declassify(montmul::ct::is_zero(&[u64::from(high)])) == 1).then_some(out)
}

/// Declares `bytes` public: a value computed in constant time from secrets that the API
/// reveals by design (a public key y = g^x, a signature's r and s), about to be encoded
/// in variable time or tested. The bytes are unchanged; with the `ct-valgrind` feature
/// memcheck is told they are defined (`montmul::ct::declassify`, byte by byte).
pub(crate) fn declassify_bytes(bytes: &mut [u8]) {
    for b in bytes.iter_mut() {
        *b = declassify(u64::from(*b)) as u8;
    }
}

/// The value of a residue computed from secrets that the API reveals (a public key, a
/// signature's r or s), declassified ([`declassify_bytes`]) and then written without
/// leading zeros: big-endian, empty for zero.
pub(crate) fn declassify_residue(value: &Residue<u64>) -> Vec<u8> {
    let mut bytes = value.to_be_bytes();
    declassify_bytes(&mut bytes);
    trim_vartime(&bytes).to_vec()
}

/// The DER `INTEGER` encoding of a non-negative big-endian value.
pub(crate) fn integer_der(value: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
    Ok(Zeroizing::new(UintRef::new(value)?.to_der()?))
}

/// The value of a DER `INTEGER` holding a non-negative number (the `privateKey` of a
/// PKCS#8 DH or DSA key, the `subjectPublicKey` of an SPKI one).
pub(crate) fn integer_from_der(der_bytes: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
    use der::Decode;
    Ok(Zeroizing::new(
        UintRef::from_der(der_bytes)?.as_bytes().to_vec(),
    ))
}

/// The public value y of a SubjectPublicKeyInfo whose key is a DER `INTEGER` (DH and
/// DSA keys), unchecked: the caller checks its range.
pub(crate) fn spki_integer(
    info: &SubjectPublicKeyInfoRef<'_>,
) -> Result<Zeroizing<Vec<u8>>, Error> {
    let bits = info
        .subject_public_key
        .as_bytes()
        .ok_or_else(|| Error::Encoding("public key bit string with unused bits".into()))?;
    integer_from_der(bits)
}

/// The SubjectPublicKeyInfo DER of the public value `y` (big-endian) under `algorithm`,
/// as `openssl pkey -pubout` writes DH and DSA keys.
pub(crate) fn spki_der(algorithm: AlgorithmIdentifierRef<'_>, y: &[u8]) -> Result<Vec<u8>, Error> {
    let y = integer_der(y)?;
    Ok(SubjectPublicKeyInfoRef {
        algorithm,
        subject_public_key: BitStringRef::from_bytes(&y)?,
    }
    .to_der()?)
}

/// A modulus from a public big-endian odd prime (p or q); [`Error::InvalidKey`] with
/// `what` when it is even, zero or one.
pub(crate) fn modulus_vartime(bytes: &[u8], what: &'static str) -> Result<Modulus<u64>, Error> {
    if bits_vartime(bytes) < 2 || bytes.last().is_some_and(|b| b & 1 == 0) {
        return Err(Error::InvalidKey(what));
    }
    Ok(Modulus::from_be_bytes(trim_vartime(bytes))?)
}

/// Whether `1 < x < p - 1` for a public x. Variable-time.
pub(crate) fn in_open_range_vartime(x: &[u8], p: &[u8]) -> bool {
    use core::cmp::Ordering::Less;
    cmp_vartime(&[1], x) == Less && cmp_vartime(x, &minus_one(p)) == Less
}

/// Whether `x^q = 1 mod p` for a public residue x: x lies in the subgroup of order q
/// (q prime). Variable-time (a sliding window on the public exponent q).
pub(crate) fn in_subgroup_vartime(x: &Residue<u64>, q: &[u8]) -> bool {
    let one = Residue::one(x.modulus());
    x.pow_vartime(q).ct_eq(&one) == 1
}

/// Whether x is a nonzero square modulo the odd prime p: the Legendre symbol (x/p) is 1.
/// For a safe prime p = 2q + 1 that is `x^q = 1 mod p` (Euler's criterion), the check
/// of [`in_subgroup_vartime`] without its exponentiation by q. Variable-time (public
/// numbers; [`super::jacobi`]).
pub(crate) fn is_square_mod_prime_vartime(x: &[u8], p: &[u8]) -> bool {
    super::jacobi::jacobi_vartime(x, p) == 1
}

/// Whether `q` divides `p - 1`. Variable-time (public parameters).
pub(crate) fn divides_p_minus_one_vartime(q: &Modulus<u64>, p: &[u8]) -> bool {
    Residue::from_be_bytes_reduced(q, &minus_one(p)).ct_is_zero() == 1
}

/// A PEM document's label and DER contents; [`Error::Encoding`] when it is not PEM.
pub(crate) fn pem_decode(pem: &str) -> Result<(String, Zeroizing<Vec<u8>>), Error> {
    let (label, der_bytes) =
        der::pem::decode_vec(pem.as_bytes()).map_err(|e| Error::Encoding(format!("PEM: {e}")))?;
    Ok((label.to_string(), Zeroizing::new(der_bytes)))
}

/// DER contents wrapped as PEM with `label`, LF line endings (as OpenSSL writes them).
pub(crate) fn pem_encode(
    label: &'static str,
    der_bytes: &[u8],
) -> Result<Zeroizing<String>, Error> {
    der::pem::encode_string(label, der::pem::LineEnding::LF, der_bytes)
        .map(Zeroizing::new)
        .map_err(|e| Error::Encoding(format!("PEM: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_helpers() {
        assert_eq!(trim_vartime(&[0, 0, 5, 0]), &[5, 0]);
        assert_eq!(bits_vartime(&[0, 1, 0]), 9);
        assert_eq!(bits_vartime(&[0, 0]), 0);
        assert_eq!(cmp_vartime(&[0, 2], &[1]), core::cmp::Ordering::Greater);
        assert_eq!(minus_one(&[1, 3]), vec![1, 2]);
        assert_eq!(left_pad(&[0, 7], 3).unwrap().as_slice(), &[0, 0, 7]);
        assert!(left_pad(&[1, 2, 3], 2).is_none());
        assert_eq!(left_pad(&[0, 0, 5], 2).unwrap().as_slice(), &[0, 5]);
        assert!(in_open_range_vartime(&[2], &[23]));
        assert!(in_open_range_vartime(&[21], &[23]));
        assert!(!in_open_range_vartime(&[22], &[23]));
        assert!(!in_open_range_vartime(&[1], &[23]));
        let der = integer_der(&[0x80]).unwrap();
        assert_eq!(der.as_slice(), &[2, 2, 0, 0x80]);
        assert_eq!(integer_from_der(&der).unwrap().as_slice(), &[0x80]);
    }

    /// Every x below every odd prime p < 2000 (and x = p, 2p + 3, beyond p) against
    /// Euler's criterion in `u64`: x^((p - 1) / 2) mod p = 1.
    #[test]
    fn squares_mod_small_primes_against_euler() {
        let pow = |mut b: u64, mut e: u64, m: u64| {
            let mut r = 1 % m;
            b %= m;
            while e > 0 {
                if e & 1 == 1 {
                    r = r * b % m;
                }
                b = b * b % m;
                e >>= 1;
            }
            r
        };
        let (mut squares, mut others) = (0, 0);
        for p in (3u64..2000).step_by(2) {
            if (3..p)
                .step_by(2)
                .take_while(|d| d * d <= p)
                .any(|d| p % d == 0)
            {
                continue;
            }
            for x in (0..p).chain([p, 2 * p + 3]) {
                let want = pow(x, (p - 1) / 2, p) == 1;
                let got = is_square_mod_prime_vartime(&x.to_be_bytes(), &p.to_be_bytes());
                assert_eq!(got, want, "x = {x}, p = {p}");
                if want {
                    squares += 1;
                } else {
                    others += 1;
                }
            }
        }
        // Both answers, in about equal numbers.
        assert!(squares > 100_000 && others > 100_000, "{squares} {others}");
    }
}
