//! MGF1, the mask generation function of PKCS #1 (RFC 8017, appendix B.2.1), used by
//! RSAES-OAEP and RSASSA-PSS.
//!
//! Constant-time: the work depends only on the lengths of the seed and the mask.

use sha2::Digest;

/// XORs `MGF1(seed, out.len())` with hash `D` into `out`.
///
/// The mask is `Hash(seed || I2OSP(0, 4)) || Hash(seed || I2OSP(1, 4)) || ...`, truncated to
/// `out.len()` bytes. The counter is 32 bits: `out` may be at most `2^32 * hLen` bytes,
/// far beyond any RSA modulus. Constant-time.
pub(crate) fn mgf1_xor<D: Digest>(out: &mut [u8], seed: &[u8]) {
    let mut counter: u32 = 0;
    for chunk in out.chunks_mut(<D as Digest>::output_size()) {
        let mut hash = D::new();
        hash.update(seed);
        hash.update(counter.to_be_bytes());
        let block = hash.finalize();
        for (o, m) in chunk.iter_mut().zip(block.iter()) {
            *o ^= m;
        }
        counter = counter.wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8017's MGF1 written out for one and two blocks: the second block uses
    /// counter 1, and a partial last block is a prefix of the full one.
    #[test]
    fn mgf1_matches_the_definition() {
        let seed = b"seed bytes";
        let mut mask = [0u8; 40];
        mgf1_xor::<sha2::Sha256>(&mut mask, seed);
        let mut b0 = sha2::Sha256::new();
        b0.update(seed);
        b0.update([0, 0, 0, 0]);
        let mut b1 = sha2::Sha256::new();
        b1.update(seed);
        b1.update([0, 0, 0, 1]);
        let expected: Vec<u8> = b0
            .finalize()
            .iter()
            .chain(b1.finalize().iter())
            .copied()
            .collect();
        assert_eq!(&mask[..], &expected[..40]);
        // XOR, not assignment: applying it twice gives zero back.
        mgf1_xor::<sha2::Sha256>(&mut mask, seed);
        assert_eq!(mask, [0u8; 40]);
    }
}
