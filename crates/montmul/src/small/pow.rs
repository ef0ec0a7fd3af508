//! Exponentiation of a [`FieldElement`] by an exponent given as big-endian bytes: a
//! constant-time fixed window ([`FieldModulus::pow`]) and a variable-time one that
//! skips zero digits ([`FieldModulus::pow_vartime`]).
//!
//! Both are the left-to-right 2^k-ary method (HAC 14.82, k = 4) over a table of the
//! 16 powers `base^0 .. base^15` on the stack. The constant-time one squares four
//! times and multiplies once per 4-bit digit of the exponent, whatever the digit, and
//! reads the table entry through masks over all 16 entries (the exponent never becomes
//! an address), as OpenSSL's `BN_mod_exp_mont_consttime` does with its window.

use super::element::FieldElement;
use super::modulus::FieldModulus;

/// Bits per exponent digit.
const WINDOW: usize = 4;

/// Entries in the window table: 2^WINDOW.
const TABLE: usize = 1 << WINDOW;

impl<const N: usize> FieldModulus<N> {
    /// `base^e mod n`, `e` given as big-endian bytes (`0^0 = 1`; no bytes is `e = 0`).
    ///
    /// Constant-time in `base` and in the exponent's bits: the work depends only on
    /// the number of exponent bytes, which is public (pass secret exponents at their
    /// full, fixed length: leading zero bytes cost the same as any other).
    pub fn pow(&self, base: &FieldElement<N>, exp_be: &[u8]) -> FieldElement<N> {
        let table = self.powers(base);
        let mut acc = self.one();
        for (i, digit) in digits(exp_be).enumerate() {
            // The first digit multiplies 1: there is nothing to shift yet (its
            // position is public).
            if i > 0 {
                for _ in 0..WINDOW {
                    acc = self.square(&acc);
                }
            }
            acc = self.mul(&acc, &lookup(&table, digit));
        }
        acc
    }

    /// `base^e mod n`, `e` given as big-endian bytes, faster for exponents with zero
    /// digits: leading zero digits are skipped, and a zero digit costs no product.
    ///
    /// Variable-time in the exponent (its bits decide the work and the table address):
    /// for public exponents only, such as `p - 2` for an inverse modulo a prime `p`.
    /// The base's value does not change the work.
    pub fn pow_vartime(&self, base: &FieldElement<N>, exp_be: &[u8]) -> FieldElement<N> {
        let table = self.powers(base);
        let mut acc = self.one();
        let mut started = false;
        for digit in digits(exp_be) {
            if started {
                for _ in 0..WINDOW {
                    acc = self.square(&acc);
                }
            }
            if digit != 0 {
                let entry = &table[digit as usize];
                acc = if started {
                    self.mul(&acc, entry)
                } else {
                    *entry
                };
                started = true;
            }
        }
        acc
    }

    /// `[base^0, base^1, .., base^15]`. Constant-time.
    fn powers(&self, base: &FieldElement<N>) -> [FieldElement<N>; TABLE] {
        let mut table = [self.one(); TABLE];
        table[1] = *base;
        for i in 2..TABLE {
            table[i] = if i % 2 == 0 {
                self.square(&table[i / 2])
            } else {
                self.mul(&table[i - 1], base)
            };
        }
        table
    }
}

/// The 4-bit digits of a big-endian byte string, most significant first.
fn digits(exp_be: &[u8]) -> impl Iterator<Item = u8> + '_ {
    exp_be.iter().flat_map(|&b| [b >> 4, b & 15])
}

/// `table[index]`, reading every entry in full and keeping the one at `index` through
/// masks: no address depends on `index`. The masks are made first and hidden from the
/// optimiser all at once (one [`core::hint::black_box`] on the array, as the limb
/// ladder's read in [`crate::exp`]), so it cannot see they are 0 or all ones; then one
/// pass ORs each entry's words under its mask, `out` in registers. Constant-time.
#[inline]
fn lookup<const N: usize>(table: &[FieldElement<N>; TABLE], index: u8) -> FieldElement<N> {
    let mut masks = [0u64; TABLE];
    for (i, mask) in masks.iter_mut().enumerate() {
        // d = 0 exactly at the entry wanted; d < 16, so d - 1 wraps (bit 63 set) only
        // for d = 0.
        let d = i as u64 ^ index as u64;
        *mask = (d.wrapping_sub(1) >> 63).wrapping_neg();
    }
    let masks = core::hint::black_box(&masks);
    let mut out = [0u64; N];
    for (entry, &mask) in table.iter().zip(masks) {
        for (o, &w) in out.iter_mut().zip(&entry.0) {
            *o |= w & mask;
        }
    }
    FieldElement(out)
}
