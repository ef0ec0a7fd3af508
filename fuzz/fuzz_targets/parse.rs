//! Number parsing as the command line does it (`montmul mul --modulus N --a A` is
//! `hex_to_be_bytes`, `be_bytes_to_limbs` and `Modulus::with_kernel`, then
//! `Residue::from_hex`) and the encoding helpers, on arbitrary text: each must agree with
//! a reference parser on num-bigint, refuse bad text with a typed error, and round-trip.
//!
//! Input: one control byte (the word size), then text; a `|` separates the modulus'
//! text from the operand's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use montmul::encoding::{
    be_bytes_to_hex_vartime, be_bytes_to_limbs, hex_to_be_bytes, limbs_to_be_bytes_vartime,
};
use montmul::{Error, Limb, Modulus, Residue, MAX_BITS};
use montmul_fuzz::{big, for_word, from_limbs};
use num_bigint::BigUint;
use num_traits::{One, Zero};

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let (n_text, a_text) = text.split_once('|').unwrap_or((&text, "1"));
    check_hex(n_text);
    check_hex(a_text);
    for_word!(ctl, bytes_round_trip(rest));
    for_word!(ctl, cli(n_text, a_text));
});

/// The reference: trimmed, one `0x`/`0X` prefix dropped, underscores ignored, then
/// at least one digit and ASCII hex digits only. The value and the digit count.
fn reference(text: &str) -> Option<(BigUint, usize)> {
    let t = text.trim();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    let digits: String = t.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let v = BigUint::parse_bytes(digits.as_bytes(), 16).expect("hex digits");
    Some((v, digits.len()))
}

fn check_hex(text: &str) {
    match (hex_to_be_bytes(text), reference(text)) {
        (Ok(bytes), Some((v, digits))) => {
            assert_eq!(bytes.len(), digits.div_ceil(2), "{text:?}: byte count");
            assert_eq!(big(&bytes), v, "{text:?}: value");
            let hex = be_bytes_to_hex_vartime(&bytes);
            assert_eq!(hex, format!("{v:x}"), "{text:?}: hex out");
            assert_eq!(
                hex_to_be_bytes(&hex).map(|b| big(&b)),
                Ok(v),
                "{text:?}: round trip"
            );
        }
        (Err(Error::InvalidHex { .. }), None) => {}
        (got, want) => panic!("{text:?}: parsed {got:?}, reference {want:?}"),
    }
}

fn bytes_round_trip<L: Limb>(bytes: &[u8]) {
    let limbs = be_bytes_to_limbs::<L>(bytes);
    let per = (L::BITS / 8) as usize;
    assert_eq!(limbs.len(), bytes.len().div_ceil(per).max(1));
    assert_eq!(from_limbs(&limbs), big(bytes));
    let back = limbs_to_be_bytes_vartime(&limbs);
    assert_eq!(big(&back), big(bytes));
    assert!(
        back.first() != Some(&0),
        "trimmed output has no leading zero"
    );
}

/// `Modulus::from_hex` and `Residue::from_hex`, as `montmul mul` calls them (with
/// `auto`, which takes every valid modulus).
fn cli<L: Limb>(n_text: &str, a_text: &str) {
    let m = Modulus::<L>::from_hex(n_text);
    let n = match (m.as_ref().err(), reference(n_text)) {
        (Some(Error::InvalidHex { .. }), None) => return,
        (_, None) => panic!("{n_text:?}: accepted text the reference refuses: {m:?}"),
        (got, Some((n, _))) => {
            let bits = n.bits() as u32;
            let want = if n.is_zero() {
                Some(Error::ZeroModulus)
            } else if n.is_one() {
                Some(Error::ModulusIsOne)
            } else if bits > MAX_BITS {
                Some(Error::ModulusTooLarge {
                    bits,
                    max: MAX_BITS,
                })
            } else if !n.bit(0) {
                Some(Error::EvenModulus)
            } else {
                None
            };
            assert_eq!(got, want.as_ref(), "{n_text:?}");
            n
        }
    };
    let Ok(m) = m else {
        return;
    };
    assert_eq!(from_limbs(m.n()), n);
    let a = Residue::from_hex(&m, a_text);
    match (a, reference(a_text)) {
        (Err(Error::InvalidHex { .. }), None) => {}
        (Err(Error::OperandTooLarge), Some((v, _))) if v >= n => {}
        (Ok(r), Some((v, _))) if v < n => {
            assert_eq!(r.to_hex_vartime(), format!("{v:x}"), "{a_text:?}");
            let fixed = r.to_hex();
            assert_eq!(fixed.len(), 2 * m.byte_len(), "{a_text:?}: fixed length");
            assert_eq!(BigUint::parse_bytes(fixed.as_bytes(), 16), Some(v.clone()));
            assert_eq!(from_limbs(&r.to_limbs()), v);
        }
        (got, want) => panic!(
            "{a_text:?} mod {n:x}: {:?}, reference {want:?}",
            got.map(|r| r.to_hex_vartime())
        ),
    }
}
