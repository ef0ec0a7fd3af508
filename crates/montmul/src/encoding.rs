//! Conversions between big-endian bytes, hexadecimal text and little-endian limb vectors.
//!
//! The conversions that trim leading zeros (or find the top bit) take time and give a
//! length that depend on the value: they end in `_vartime` and are for public values
//! (a modulus' length, a result the command line prints). The fixed-length,
//! constant-time outputs of secret values are [`crate::Residue::write_be_bytes`] and
//! [`crate::Residue::to_hex`].

use crate::{Error, Limb};

/// Parses big-endian hexadecimal text, with an optional `0x`/`0X` prefix, into bytes.
///
/// Underscores are allowed as digit separators. An odd number of digits is fine (the
/// first digit is the low nibble of the first byte). An empty string is an error.
///
/// Parsing branches on the characters (to reject bad ones): its time depends on the
/// text. For secrets read from files, prefer bytes ([`be_bytes_to_limbs`]).
pub fn hex_to_be_bytes(text: &str) -> Result<Vec<u8>, Error> {
    let t = text.trim();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    let mut nibbles = Vec::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '_' => continue,
            c => match c.to_digit(16) {
                Some(d) => nibbles.push(d as u8),
                None => {
                    return Err(Error::InvalidHex {
                        reason: format!("'{c}' is not a hex digit"),
                    })
                }
            },
        }
    }
    if nibbles.is_empty() {
        return Err(Error::InvalidHex {
            reason: "no digits".into(),
        });
    }
    let mut out = Vec::with_capacity(nibbles.len().div_ceil(2));
    let mut it = nibbles.into_iter();
    if it.len() % 2 == 1 {
        out.push(it.next().unwrap_or(0));
    }
    while let (Some(hi), Some(lo)) = (it.next(), it.next()) {
        out.push(hi << 4 | lo);
    }
    Ok(out)
}

/// Lower-case hexadecimal text of a big-endian byte string, without leading zeros
/// (`"0"` for zero) and without a prefix. Variable-time: for public values.
pub fn be_bytes_to_hex_vartime(bytes: &[u8]) -> String {
    let mut s: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let zeros = s.len() - s.trim_start_matches('0').len();
    s.drain(..zeros.min(s.len().saturating_sub(1)));
    if s.is_empty() {
        s.push('0');
    }
    s
}

/// Little-endian limbs of a big-endian byte string: `ceil(len / (w / 8))` limbs (at
/// least one), whatever the value. Constant-time (the count depends on the length).
pub fn be_bytes_to_limbs<L: Limb>(bytes: &[u8]) -> Vec<L> {
    let per = (L::BITS / 8) as usize;
    let mut limbs = Vec::with_capacity(bytes.len().div_ceil(per).max(1));
    for chunk in bytes.rchunks(per) {
        let v = chunk.iter().fold(0u64, |acc, &b| acc << 8 | b as u64);
        limbs.push(L::from_u64(v));
    }
    if limbs.is_empty() {
        limbs.push(L::ZERO);
    }
    limbs
}

/// Big-endian bytes of little-endian limbs, without leading zero bytes (empty for zero).
/// Variable-time: for public values.
pub fn limbs_to_be_bytes_vartime<L: Limb>(limbs: &[L]) -> Vec<u8> {
    let per = (L::BITS / 8) as usize;
    let mut out = Vec::with_capacity(limbs.len() * per);
    for limb in limbs.iter().rev() {
        let v = limb.to_u64();
        for k in (0..per).rev() {
            out.push((v >> (8 * k)) as u8);
        }
    }
    let zeros = out.iter().take_while(|&&b| b == 0).count();
    out.drain(..zeros);
    out
}

/// Number of significant bits of a little-endian limb vector (0 for zero).
/// Variable-time: for public values (a modulus' length, which is public by design).
pub fn bit_length_vartime<L: Limb>(limbs: &[L]) -> u32 {
    for (i, limb) in limbs.iter().enumerate().rev() {
        let v = limb.to_u64();
        if v != 0 {
            return i as u32 * L::BITS + (64 - v.leading_zeros());
        }
    }
    0
}

/// Bit `i` of a little-endian limb vector, as 0 or 1 (0 past the end).
#[inline]
pub fn bit<L: Limb>(limbs: &[L], i: usize) -> L {
    let w = L::BITS as usize;
    match limbs.get(i / w) {
        Some(&l) => l.shr((i % w) as u32).and(L::ONE),
        None => L::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let b = hex_to_be_bytes("0x1_0203").unwrap();
        assert_eq!(b, vec![1, 2, 3]);
        assert_eq!(be_bytes_to_hex_vartime(&b), "10203");
        assert_eq!(be_bytes_to_hex_vartime(&[0, 0]), "0");
        assert!(hex_to_be_bytes("0x").is_err());
        assert!(hex_to_be_bytes("12g4").is_err());
    }

    #[test]
    fn limbs_round_trip() {
        let bytes = [1u8, 2, 3, 4, 5];
        let l: Vec<u16> = be_bytes_to_limbs(&bytes);
        assert_eq!(l, vec![0x0405, 0x0203, 0x0001]);
        assert_eq!(limbs_to_be_bytes_vartime(&l), bytes.to_vec());
        assert_eq!(bit_length_vartime(&l), 33);
        assert_eq!(bit(&l, 32), 1);
        assert_eq!(bit(&l, 31), 0);
    }
}
