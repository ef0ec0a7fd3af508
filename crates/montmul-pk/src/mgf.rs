//! MGF1, the mask generation function of PKCS #1 (RFC 8017 B.2.1), shared by PSS and
//! OAEP.

use sha2::Digest;

/// XORs MGF1(seed, out.len()) with hash `D` into `out`: the mask is
/// `Hash(seed || C)` for the 4-byte big-endian counters `C = 0, 1, ...`, cut to length.
///
/// Constant-time in the seed and in `out` (the hash is; the work depends on the lengths
/// only). Masks longer than `2^32` hash outputs cannot occur here: every mask is shorter
/// than the modulus.
pub(crate) fn mgf1_xor<D: Digest>(out: &mut [u8], seed: &[u8]) {
    for (counter, chunk) in out.chunks_mut(<D as Digest>::output_size()).enumerate() {
        let mut h = D::new();
        h.update(seed);
        h.update((counter as u32).to_be_bytes());
        for (o, b) in chunk.iter_mut().zip(h.finalize()) {
            *o ^= b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mgf1_sha256_known_answer() {
        // MGF1-SHA-256("foo", 3) = 0x3bdaba (from Python's hashlib: the first bytes of
        // SHA-256("foo" || 00000000)); a mask of two blocks starts with the one-block
        // mask and goes on with SHA-256("foo" || 00000001).
        let mut out = [0u8; 3];
        mgf1_xor::<sha2::Sha256>(&mut out, b"foo");
        assert_eq!(out, [0x3b, 0xda, 0xba]);
        let mut long = [0u8; 40];
        mgf1_xor::<sha2::Sha256>(&mut long, b"foo");
        assert_eq!(&long[..3], &out);
        let mut block = [0u8; 32];
        mgf1_xor::<sha2::Sha256>(&mut block, b"foo");
        assert_eq!(&long[..32], &block);
        assert_eq!(
            &long[32..],
            &sha2::Sha256::new()
                .chain_update(b"foo")
                .chain_update([0, 0, 0, 1])
                .finalize()[..8]
        );
    }
}
