//! [`FieldElement<N>`]: a value modulo a [`FieldModulus<N>`] in Montgomery form, and
//! its conversions from and to normal form (limbs, big-endian bytes, hexadecimal).

use core::fmt;

use super::modulus::FieldModulus;
use super::words::be_bytes_to_words;
use crate::{ct, Error};

/// A value `x` in `[0, n)` held in Montgomery form, `x R mod n` with R = 2^(64 N), as
/// `N` little-endian limbs on the stack.
///
/// It does not hold its modulus: the [`FieldModulus`] that made it does every
/// operation (`p.mul(&a, &b)`) and is passed to every conversion
/// (`FieldElement::from_hex(&p, ..)`, `x.to_be_bytes(&p)`). So an element is exactly its
/// `N` words (a P-256 point in Jacobian coordinates is 96 bytes), `Copy`, without a
/// lifetime, and curve code can hold its field and elements of it in one struct; a
/// borrowed modulus would forbid that and add a pointer to every value, a copied one
/// would quadruple the size. The price: nothing checks that an element meets the
/// modulus that made it; with another one the value is wrong (never a panic or
/// undefined behaviour).
///
/// Equality ([`FieldElement::ct_eq`], `==`) is constant-time; `Debug` prints no value;
/// being `Copy`, it is not zeroized on drop. [`Default`] is zero, which is zero in
/// Montgomery form for every modulus.
#[derive(Clone, Copy)]
pub struct FieldElement<const N: usize>(pub(super) [u64; N]);

impl<const N: usize> FieldElement<N> {
    /// 1 when `self == other`, as a `bool`. Constant-time (every word is compared).
    #[inline]
    pub fn ct_eq(&self, other: &Self) -> bool {
        ct::eq(&self.0, &other.0) == 1
    }

    /// Whether the value is zero. Constant-time.
    #[inline]
    pub fn is_zero(&self) -> bool {
        ct::is_zero(&self.0) == 1
    }

    /// `b` when `choice` is true, else `a`. Constant-time: every word of both is read
    /// and the choice is applied with a mask, not a branch.
    #[inline]
    pub fn select(a: &Self, b: &Self, choice: bool) -> Self {
        let mut out = *a;
        ct::conditional_assign(&mut out.0, &b.0, ct::mask(choice as u64));
        out
    }

    /// `self = other` when `choice` is true, else unchanged. Constant-time, as
    /// [`Self::select`].
    #[inline]
    pub fn conditional_assign(&mut self, other: &Self, choice: bool) {
        ct::conditional_assign(&mut self.0, &other.0, ct::mask(choice as u64));
    }
}

impl<const N: usize> Default for FieldElement<N> {
    /// Zero.
    fn default() -> Self {
        FieldElement([0; N])
    }
}

impl<const N: usize> PartialEq for FieldElement<N> {
    /// Constant-time ([`FieldElement::ct_eq`]).
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other)
    }
}

impl<const N: usize> Eq for FieldElement<N> {}

impl<const N: usize> fmt::Debug for FieldElement<N> {
    /// The type only: the value may be secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FieldElement<{N}>(..)")
    }
}

impl<const N: usize> FieldModulus<N> {
    /// Zero. Constant-time.
    #[inline]
    pub fn zero(&self) -> FieldElement<N> {
        FieldElement([0; N])
    }

    /// One (R mod n in Montgomery form). Constant-time.
    #[inline]
    pub fn one(&self) -> FieldElement<N> {
        FieldElement(*self.r1())
    }
}

impl<const N: usize> FieldElement<N> {
    /// The element of value `x` (little-endian limbs) modulo `p`; `x` must be below n,
    /// else [`Error::OperandTooLarge`]. Constant-time in `x` (whether it fails aside).
    pub fn from_limbs(p: &FieldModulus<N>, x: &[u64; N]) -> Result<Self, Error> {
        from_words(p, x, 0)
    }

    /// The value in normal form, `N` little-endian limbs, below n. Constant-time.
    #[inline]
    pub fn to_limbs(&self, p: &FieldModulus<N>) -> [u64; N] {
        let mut one = [0; N];
        one[0] = 1;
        // x R * 1 * R^-1 = x; a product of values below n is below n.
        p.mont_mul(&self.0, &one)
    }

    /// The element of big-endian bytes `bytes` (any length, leading zeros allowed)
    /// modulo `p`; the value must be below n, else [`Error::OperandTooLarge`].
    /// Constant-time in the bytes' values (their number is public, and whether it
    /// fails).
    pub fn from_be_bytes(p: &FieldModulus<N>, bytes: &[u8]) -> Result<Self, Error> {
        let (x, overflow) = be_bytes_to_words::<N>(bytes);
        from_words(p, &x, overflow)
    }

    /// The value as exactly [`FieldModulus::byte_len`] big-endian bytes (I2OSP with
    /// the modulus' length), leading zeros kept. Constant-time: the length is the
    /// modulus', and no byte is skipped or trimmed.
    pub fn to_be_bytes(&self, p: &FieldModulus<N>) -> Vec<u8> {
        let w = self.to_limbs(p);
        let mut out = vec![0u8; p.byte_len()];
        // Byte k from the low end is byte k % 8 of word k / 8; byte_len <= 8 N.
        for (k, byte) in out.iter_mut().rev().enumerate() {
            *byte = (w[k / 8] >> (8 * (k % 8))) as u8;
        }
        out
    }

    /// The element of big-endian hexadecimal text (an optional `0x`/`0X`, then hex
    /// digits of either case; no separators or spaces) modulo `p`; the value must be
    /// below n.
    ///
    /// Fails with [`Error::InvalidHex`] for no digits or a character that is not one,
    /// [`Error::OperandTooLarge`] for a value >= n. Constant-time in the digits'
    /// values: each character is decoded with arithmetic and masks, not a branch or a
    /// table (the text's length, its prefix and whether it fails are public).
    pub fn from_hex(p: &FieldModulus<N>, text: &str) -> Result<Self, Error> {
        let (x, overflow) = hex_to_words::<N>(text)?;
        from_words(p, &x, overflow)
    }

    /// The value as exactly `2 * byte_len()` lower-case hexadecimal digits, leading
    /// zeros kept, no prefix. Constant-time (each digit is computed, not looked up).
    pub fn to_hex(&self, p: &FieldModulus<N>) -> String {
        let mut s = String::with_capacity(2 * p.byte_len());
        for b in self.to_be_bytes(p) {
            s.push(hex_digit(b >> 4));
            s.push(hex_digit(b & 15));
        }
        s
    }
}

/// `x + overflow 2^(64 N)` into Montgomery form modulo `p` when it is below n. The check
/// is done with masks; only its outcome is branched on.
fn from_words<const N: usize>(
    p: &FieldModulus<N>,
    x: &[u64; N],
    overflow: u64,
) -> Result<FieldElement<N>, Error> {
    // Below n: no overflow word, and x - n borrows.
    let below = ct::borrow_of_sub(x, p.n()) & ct::is_zero(&[overflow]);
    if ct::declassify(below) != 1 {
        return Err(Error::OperandTooLarge);
    }
    // x R^2 R^-1 = x R mod n, below n.
    Ok(FieldElement(p.mont_mul(x, p.r2())))
}

/// Hexadecimal text as `N` little-endian words and the OR of the digits that do not fit.
/// Each character is decoded branch-free; only the prefix, the length and the final
/// validity are branched on.
fn hex_to_words<const N: usize>(text: &str) -> Result<([u64; N], u64), Error> {
    let t = text.as_bytes();
    // 'x' is never a digit, so whether there is a prefix is the text's format.
    let digits = match t {
        [b'0', b'x' | b'X', rest @ ..] => rest,
        _ => t,
    };
    if digits.is_empty() {
        return Err(Error::InvalidHex {
            reason: "no digits".into(),
        });
    }
    let mut x = [0u64; N];
    let mut overflow = 0u64;
    let mut bad = 0u64;
    for (k, &c) in digits.iter().rev().enumerate() {
        let (value, invalid) = hex_value(c);
        bad |= invalid;
        match x.get_mut(k / 16) {
            Some(w) => *w |= value << (4 * (k % 16)),
            None => overflow |= value,
        }
    }
    if ct::declassify(bad) != 0 {
        return Err(Error::InvalidHex {
            reason: "a character is not a hex digit".into(),
        });
    }
    Ok((x, overflow))
}

/// 1 when `lo <= c <= hi`, else 0, without a branch (all values below 2^8).
#[inline(always)]
fn in_range(c: u64, lo: u64, hi: u64) -> u64 {
    // Both differences are non-negative exactly when c is in range; a negative one sets
    // bit 63 of the wrapped result.
    (((c.wrapping_sub(lo)) | (hi.wrapping_sub(c))) >> 63) ^ 1
}

/// The value of a hex digit character and 1 when it is not one (value 0 then), branch-free.
#[inline(always)]
fn hex_value(c: u8) -> (u64, u64) {
    let c = c as u64;
    let lower = c | 0x20;
    let digit = in_range(c, b'0' as u64, b'9' as u64);
    let letter = in_range(lower, b'a' as u64, b'f' as u64);
    let value = (c.wrapping_sub(b'0' as u64) & digit.wrapping_neg())
        | (lower.wrapping_sub(b'a' as u64 - 10) & letter.wrapping_neg());
    (value, (digit | letter) ^ 1)
}

/// The lower-case hex digit of `d` (0..=15), branch-free: '0' + d, plus the distance
/// from '9' + 1 to 'a' when d > 9.
#[inline(always)]
fn hex_digit(d: u8) -> char {
    let d = d as i16;
    // 9 - d is negative exactly when d > 9; its arithmetic shift is then all ones.
    let letter = (9 - d) >> 8;
    (b'0' as i16 + d + (letter & (b'a' as i16 - b'9' as i16 - 1))) as u8 as char
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_digits_both_ways() {
        for d in 0..16u8 {
            let c = hex_digit(d);
            assert_eq!(c.to_digit(16), Some(d as u32));
            assert!(!c.is_ascii_uppercase());
            assert_eq!(hex_value(c as u8), (d as u64, 0));
            assert_eq!(hex_value(c.to_ascii_uppercase() as u8), (d as u64, 0));
        }
        for c in 0..=255u8 {
            let (v, bad) = hex_value(c);
            assert_eq!(bad == 0, c.is_ascii_hexdigit(), "{c}");
            assert!(bad == 0 || v == 0);
        }
    }

    #[test]
    fn bytes_to_words_and_overflow() {
        let (x, o) = be_bytes_to_words::<1>(&[0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!((x, o), ([0x0102_0304_0506_0708], 0));
        let (_, o) = be_bytes_to_words::<1>(&[9, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(o, 9);
        assert!(hex_to_words::<2>("0x1_0").is_err(), "no separators");
        assert!(hex_to_words::<2>(" 10").is_err(), "no spaces");
        let (x, o) = hex_to_words::<2>("0X10000000000000000a").unwrap();
        assert_eq!((x, o), ([0xa, 0x10], 0));
        assert!(hex_to_words::<2>("0x").is_err());
        assert!(hex_to_words::<2>("").is_err());
    }
}
