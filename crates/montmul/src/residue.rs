//! [`Residue`]: a value in Montgomery form, tied by type to the [`Modulus`] it lives in.
//!
//! Values enter through [`Residue::new`] (or the byte/hex forms), which checks that the
//! normal-form value is below n and converts it (a Montgomery product with R^2 mod n);
//! they leave through [`Residue::to_limbs`] and friends (a product with 1, then one
//! constant-time subtraction). In between, every operation stays in Montgomery form, so
//! the normal and the Montgomery domain cannot be mixed: they are different types.
//!
//! Combining residues of two different moduli is a programming error: the operators
//! panic, and the `try_` forms return [`Error::ModulusMismatch`].

use core::fmt;
use core::ops::{Add, Mul, Neg, Sub};

use crate::encoding::{be_bytes_to_hex, be_bytes_to_limbs, hex_to_be_bytes, limbs_to_be_bytes};
use crate::{ct, Error, Limb, Modulus};

/// A value modulo `m`, held in Montgomery form `x * R mod n` (below
/// [`Modulus::bound`]: n, or 2n with lazy reduction).
#[derive(Clone)]
pub struct Residue<'m, L: Limb> {
    m: &'m Modulus<L>,
    v: Vec<L>,
}

impl<'m, L: Limb> Residue<'m, L> {
    /// The residue of `x` (little-endian limbs, normal form). Fails when `x >= n`.
    pub fn new(m: &'m Modulus<L>, x: &[L]) -> Result<Self, Error> {
        let s = m.limbs();
        // Leading zero limbs beyond s are fine; anything else there is too large.
        if x.len() > s && ct::is_zero(&x[s..]) == L::ZERO {
            return Err(Error::OperandTooLarge);
        }
        let mut xs = x[..x.len().min(s)].to_vec();
        xs.resize(s, L::ZERO);
        if ct::borrow_of_sub(&xs, m.n()) == L::ZERO {
            return Err(Error::OperandTooLarge);
        }
        let mut v = vec![L::ZERO; s];
        m.mont_mul(&xs, m.r2(), &mut v);
        Ok(Residue { m, v })
    }

    /// The residue of a big-endian byte string. Fails when the value is `>= n`.
    pub fn from_be_bytes(m: &'m Modulus<L>, bytes: &[u8]) -> Result<Self, Error> {
        Self::new(m, &be_bytes_to_limbs(bytes))
    }

    /// The residue of big-endian hexadecimal text (`0x` optional). Fails when the text
    /// is not hexadecimal or the value is `>= n`.
    pub fn from_hex(m: &'m Modulus<L>, text: &str) -> Result<Self, Error> {
        Self::from_be_bytes(m, &hex_to_be_bytes(text)?)
    }

    /// The residue whose Montgomery form is `v` (already below [`Modulus::bound`]).
    /// Fails when `v` is out of range or has the wrong length.
    pub fn from_montgomery(m: &'m Modulus<L>, v: Vec<L>) -> Result<Self, Error> {
        if v.len() != m.limbs() || ct::borrow_of_sub(&v, m.bound()) == L::ZERO {
            return Err(Error::OperandTooLarge);
        }
        Ok(Residue { m, v })
    }

    /// 0.
    pub fn zero(m: &'m Modulus<L>) -> Self {
        Residue {
            m,
            v: vec![L::ZERO; m.limbs()],
        }
    }

    /// 1 (in Montgomery form: R mod n).
    pub fn one(m: &'m Modulus<L>) -> Self {
        Residue {
            m,
            v: m.r1().to_vec(),
        }
    }

    /// The modulus this residue lives in.
    pub fn modulus(&self) -> &'m Modulus<L> {
        self.m
    }

    /// The Montgomery form, as stored (below [`Modulus::bound`]).
    pub fn montgomery_limbs(&self) -> &[L] {
        &self.v
    }

    /// The normal-form value in `[0, n)`, as [`Modulus::limbs`] little-endian limbs.
    pub fn to_limbs(&self) -> Vec<L> {
        let s = self.m.limbs();
        let mut one = vec![L::ZERO; s];
        one[0] = L::ONE;
        let mut out = vec![L::ZERO; s];
        self.m.mont_mul(&self.v, &one, &mut out);
        // v * 1 / R <= n (equal only when v = 0 mod n, with lazy reduction): one masked
        // subtraction makes it canonical under both policies.
        ct::reduce_once(&mut out, L::ZERO, self.m.n());
        out
    }

    /// The normal-form value as big-endian bytes without leading zeros (empty for 0).
    pub fn to_be_bytes(&self) -> Vec<u8> {
        limbs_to_be_bytes(&self.to_limbs())
    }

    /// The normal-form value as lower-case hexadecimal, without prefix.
    pub fn to_hex(&self) -> String {
        be_bytes_to_hex(&self.to_be_bytes())
    }

    fn check(&self, other: &Self) -> Result<(), Error> {
        if core::ptr::eq(self.m, other.m) || self.m == other.m {
            Ok(())
        } else {
            Err(Error::ModulusMismatch)
        }
    }

    fn same(&self, other: &Self) {
        if let Err(e) = self.check(other) {
            panic!("{e}");
        }
    }

    /// `self * other`, or [`Error::ModulusMismatch`].
    pub fn try_mul(&self, other: &Self) -> Result<Self, Error> {
        self.check(other)?;
        let mut v = vec![L::ZERO; self.v.len()];
        self.m.mont_mul(&self.v, &other.v, &mut v);
        Ok(Residue { m: self.m, v })
    }

    /// `self + other`, or [`Error::ModulusMismatch`].
    pub fn try_add(&self, other: &Self) -> Result<Self, Error> {
        self.check(other)?;
        let mut v = vec![L::ZERO; self.v.len()];
        let carry = ct::add(&mut v, &self.v, &other.v);
        // Both below the bound B, so the sum is below 2B: one subtraction of B.
        ct::reduce_once(&mut v, carry, self.m.bound());
        Ok(Residue { m: self.m, v })
    }

    /// `self - other`, or [`Error::ModulusMismatch`].
    pub fn try_sub(&self, other: &Self) -> Result<Self, Error> {
        self.check(other)?;
        let mut v = vec![L::ZERO; self.v.len()];
        let borrow = ct::sub(&mut v, &self.v, &other.v);
        // A borrow means the difference is negative (> -B): add B back, with a mask.
        ct::add_masked(&mut v, self.m.bound(), ct::mask(borrow));
        Ok(Residue { m: self.m, v })
    }

    /// `self^2`.
    pub fn square(&self) -> Self {
        let mut v = vec![L::ZERO; self.v.len()];
        self.m.mont_sqr(&self.v, &mut v);
        Residue { m: self.m, v }
    }

    /// `-self`.
    pub fn neg(&self) -> Self {
        Residue::zero(self.m)
            .try_sub(self)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// `self^e` for a big-endian exponent, by a fixed window whose table is read whole
    /// for every lookup and the entry kept with masks ([`crate::exp::pow`]).
    ///
    /// Constant-time in the exponent's value (not its length): the squarings and
    /// multiplications depend only on `exponent_be.len()`, and no branch or memory
    /// index depends on the bits. `x^0 = 1`, including `0^0`.
    pub fn pow(&self, exponent_be: &[u8]) -> Self {
        Residue {
            m: self.m,
            v: crate::exp::pow(self.m, &self.v, exponent_be, &mut ()),
        }
    }

    /// `self^e` for a big-endian public exponent, by a sliding window
    /// ([`crate::exp::pow_vartime`]): faster than [`Self::pow`], but its time depends
    /// on the exponent's bits. `x^0 = 1`, including `0^0`.
    pub fn pow_vartime(&self, exponent_be: &[u8]) -> Self {
        Residue {
            m: self.m,
            v: crate::exp::pow_vartime(self.m, &self.v, exponent_be, &mut ()),
        }
    }

    /// 1 when both residues stand for the same value mod n, else 0; constant-time.
    pub fn ct_eq(&self, other: &Self) -> L {
        self.same(other);
        let (a, b) = (self.to_limbs(), other.to_limbs());
        ct::eq(&a, &b)
    }
}

impl<L: Limb> PartialEq for Residue<'_, L> {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other) == L::ONE
    }
}

impl<L: Limb> Eq for Residue<'_, L> {}

impl<L: Limb> fmt::Debug for Residue<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Residue(0x{})", self.to_hex())
    }
}

macro_rules! binop {
    ($tr:ident, $method:ident, $try:ident) => {
        impl<'m, L: Limb> $tr<&Residue<'m, L>> for &Residue<'m, L> {
            type Output = Residue<'m, L>;
            /// # Panics
            /// When the two residues belong to different moduli.
            fn $method(self, rhs: &Residue<'m, L>) -> Residue<'m, L> {
                self.$try(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl<'m, L: Limb> $tr for Residue<'m, L> {
            type Output = Residue<'m, L>;
            /// # Panics
            /// When the two residues belong to different moduli.
            fn $method(self, rhs: Residue<'m, L>) -> Residue<'m, L> {
                (&self).$method(&rhs)
            }
        }
    };
}

binop!(Mul, mul, try_mul);
binop!(Add, add, try_add);
binop!(Sub, sub, try_sub);

impl<'m, L: Limb> Neg for &Residue<'m, L> {
    type Output = Residue<'m, L>;
    fn neg(self) -> Residue<'m, L> {
        Residue::neg(self)
    }
}
