//! Deterministic nonces for DSA: RFC 6979 Section 3.2 ("Generation of k"), HMAC_DRBG
//! (NIST SP 800-90A) keyed with the private key and the message hash, on the RustCrypto
//! `hmac` crate, generic over the hash.
//!
//! The nonce is a function of (x, H(m)) alone, so a weak random number generator can
//! never leak the key through repeated or biased nonces. Constant-time in x, the hash
//! and k: the HMAC computations see only fixed-length inputs, `bits2int` shifts by
//! public amounts, and the range test `1 <= k < q` is masked; only its outcome (a retry,
//! with probability below 2^-32 for the FIPS 186 sizes) is public, as in the RFC.

use hmac::digest::core_api::BlockSizeUser;
use hmac::digest::Digest;
use hmac::{Mac, SimpleHmac};
use montmul::{Modulus, Residue};
use zeroize::Zeroizing;

/// `bits2int` of RFC 6979 2.3.2: the leftmost `qlen` bits of `b` as an integer,
/// written as `ceil(qlen / 8)` big-endian bytes. Constant-time (the shifts depend on
/// the lengths only).
pub(crate) fn bits2int(b: &[u8], qlen: usize) -> Zeroizing<Vec<u8>> {
    let rlen = qlen.div_ceil(8);
    let mut out = Zeroizing::new(vec![0u8; rlen]);
    if 8 * b.len() <= qlen {
        // Short input: the value itself (blen <= qlen means no shift).
        out[rlen - b.len()..].copy_from_slice(b);
        return out;
    }
    // Keep the first rlen bytes (8 rlen >= qlen bits), then drop the 8 rlen - qlen
    // lowest of them.
    out.copy_from_slice(&b[..rlen]);
    let shift = 8 * rlen - qlen;
    if shift > 0 {
        for i in (0..rlen).rev() {
            let hi = if i > 0 { out[i - 1] << (8 - shift) } else { 0 };
            out[i] = out[i] >> shift | hi;
        }
    }
    out
}

/// `bits2octets` of RFC 6979 2.3.4: `bits2int(b) mod q` as `ceil(qlen / 8)` bytes.
/// Constant-time.
pub(crate) fn bits2octets(b: &[u8], q: &Modulus<u64>) -> Zeroizing<Vec<u8>> {
    let qlen = q.bits() as usize;
    let z1 = bits2int(b, qlen);
    let z2 = Residue::from_be_bytes_reduced(q, &z1);
    // The length is q's own byte length: never too short.
    Zeroizing::new(
        z2.to_be_bytes_padded(qlen.div_ceil(8))
            .unwrap_or_else(|e| unreachable!("{e}")),
    )
}

/// HMAC_K(parts...).
fn hmac<D: Digest + BlockSizeUser>(key: &[u8], parts: &[&[u8]]) -> Zeroizing<Vec<u8>> {
    // HMAC takes keys of any length.
    let mut mac =
        <SimpleHmac<D> as Mac>::new_from_slice(key).unwrap_or_else(|e| unreachable!("{e}"));
    for p in parts {
        mac.update(p);
    }
    Zeroizing::new(mac.finalize().into_bytes().to_vec())
}

/// The nonce k of RFC 6979 3.2 for the private key `x` (`ceil(qlen / 8)` bytes,
/// `0 < x < q`) and the message hash `h1 = H(m)`, HMAC built on `D` (the same hash as
/// the message's, as the RFC has it). Returns k as `ceil(qlen / 8)` big-endian bytes
/// and as a residue mod q; `1 <= k < q`. Constant-time (module documentation).
pub fn generate_k<D: Digest + BlockSizeUser>(
    q: &Modulus<u64>,
    x: &[u8],
    h1: &[u8],
) -> (Zeroizing<Vec<u8>>, Residue<u64>) {
    let qlen = q.bits() as usize;
    let rlen = qlen.div_ceil(8);
    let hlen = <D as Digest>::output_size();
    // Step b, c: V = 0x01 0x01 ..., K = 0x00 0x00 ...
    let mut v = Zeroizing::new(vec![1u8; hlen]);
    let mut k = Zeroizing::new(vec![0u8; hlen]);
    let xo = crate::dh::ffc::left_pad(x, rlen).unwrap_or_else(|| Zeroizing::new(x.to_vec()));
    let ho = bits2octets(h1, q);
    // Steps d-g.
    k = hmac::<D>(&k, &[&v, &[0x00], &xo, &ho]);
    v = hmac::<D>(&k, &[&v]);
    k = hmac::<D>(&k, &[&v, &[0x01], &xo, &ho]);
    v = hmac::<D>(&k, &[&v]);
    // Step h.
    loop {
        let mut t = Zeroizing::new(Vec::with_capacity(rlen + hlen));
        while 8 * t.len() < qlen {
            v = hmac::<D>(&k, &[&v]);
            t.extend_from_slice(&v);
        }
        let candidate = bits2int(&t, qlen);
        // k < q and k != 0 are told by the result (a retry), as RFC 6979 does; nothing
        // else (both flags declassified where they are branched on).
        if let Ok(kr) = Residue::from_be_bytes(q, &candidate) {
            if montmul::ct::declassify(kr.ct_is_zero()) == 0 {
                return (candidate, kr);
            }
        }
        k = hmac::<D>(&k, &[&v, &[0x00]]);
        v = hmac::<D>(&k, &[&v]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits2int_takes_the_leftmost_bits() {
        // qlen 12: 0xabcd -> 0xabc.
        assert_eq!(bits2int(&[0xab, 0xcd], 12).as_slice(), &[0x0a, 0xbc]);
        assert_eq!(bits2int(&[0xab, 0xcd, 0xef], 16).as_slice(), &[0xab, 0xcd]);
        assert_eq!(bits2int(&[0x12], 16).as_slice(), &[0x00, 0x12]);
        assert_eq!(bits2int(&[0xff, 0xff], 9).as_slice(), &[0x01, 0xff]);
    }

    /// RFC 6979 A.1.2: the k for the key of A.1 (q of 163 bits) over SHA-256.
    #[test]
    fn a12_nonce() {
        let q = Modulus::<u64>::from_hex("4000000000000000000020108A2E0CC0D99F8A5EF").unwrap();
        let x = montmul::encoding::hex_to_be_bytes("009A4D6792295A7F730FC3F2B49CBC0F62E862272F")
            .unwrap();
        let h1 = sha2::Sha256::digest(b"sample");
        let (k, _) = generate_k::<sha2::Sha256>(&q, &x, &h1);
        assert_eq!(
            montmul::encoding::be_bytes_to_hex_vartime(&k),
            "23af4074c90a02b3fe61d286d5c87f425e6bdd81b"
        );
    }
}
