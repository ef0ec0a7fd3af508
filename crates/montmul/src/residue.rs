//! [`Residue`]: a value in Montgomery form that owns its limbs and a handle to its
//! [`Modulus`].
//!
//! Values enter through [`Residue::new`] (or the byte/hex forms), which checks that the
//! normal-form value is below n and converts it (a Montgomery product with R^2 mod n),
//! or through [`Residue::from_limbs_reduced`] / [`Residue::from_be_bytes_reduced`],
//! which reduce a value of any length; they leave through [`Residue::to_limbs`] and the
//! fixed-length byte forms (a product with 1, then one constant-time subtraction). In
//! between, every operation stays in Montgomery form, so the normal and the Montgomery
//! domain cannot be mixed: they are different types.
//!
//! A residue holds a clone of its modulus (an `Arc`, see [`Modulus`]), so it has no
//! lifetime: keys, batch jobs and bindings can keep residues and their modulus together.
//! Combining residues of two different moduli is a programming error: the operators
//! panic, and the `try_` forms return [`Error::ModulusMismatch`].
//!
//! The in-place forms ([`Residue::mul_assign`], [`Residue::square_assign`],
//! [`Residue::pow_assign`] with a reused [`PowScratch`], ...) allocate nothing. The
//! kernels need their output distinct from their inputs, so a residue's buffer is `2 s` limbs long: the value lives in one half and a product is
//! written into the other half, which then becomes the value (an offset flips; nothing
//! is copied). A stack buffer was the other choice, but a generic one would have to be
//! sized for the largest modulus (16384 bits in 8-bit limbs) and cleared on every call.
//! Additions, subtractions and negations work on the value's half in place.
//!
//! Secrets: every operation is constant-time unless its name ends in `_vartime`
//! (given a constant-time kernel, [`crate::KernelInfo::constant_time`]). The buffer is
//! wiped (`zeroize`) on drop, and `Debug` prints the modulus' size only, never the value.

use core::fmt;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use rand_core::CryptoRngCore;
use zeroize::{Zeroize, Zeroizing};

use crate::encoding::{
    be_bytes_to_hex_vartime, be_bytes_to_limbs, hex_to_be_bytes, limbs_to_be_bytes_vartime,
};
use crate::exp::Trace;
use crate::{ct, inverse, reduce, Error, Limb, Modulus, PowScratch};

/// A value modulo `m`, held in Montgomery form `x * R mod n` (below
/// [`Modulus::bound`]: n, or 2n with lazy reduction).
pub struct Residue<L: Limb> {
    m: Modulus<L>,
    /// `2 s` limbs: the value in the half that starts at `at`, scratch in the other.
    buf: Vec<L>,
    /// Where the value starts: 0 or s. It flips after each in-place product; it depends
    /// on the number of operations only, never on a value.
    at: usize,
}

impl<L: Limb> Residue<L> {
    /// A residue whose value is 0, with its buffer allocated.
    fn alloc(m: &Modulus<L>) -> Self {
        Residue {
            m: m.clone(),
            buf: vec![L::ZERO; 2 * m.limbs()],
            at: 0,
        }
    }

    /// A residue whose Montgomery form is `v` (`s` limbs, below the bound).
    pub(crate) fn from_value(m: &Modulus<L>, v: &[L]) -> Self {
        let mut r = Self::alloc(m);
        r.buf[..v.len()].copy_from_slice(v);
        r
    }

    /// The value's half.
    #[inline]
    fn val(&self) -> &[L] {
        &self.buf[self.at..self.at + self.m.limbs()]
    }

    /// The residue of `x` (little-endian limbs, normal form). Fails when `x >= n`.
    /// Constant-time in x's value (its length is public), except that whether `x < n`
    /// is revealed by the result; [`Self::from_limbs_reduced`] reveals nothing.
    pub fn new(m: &Modulus<L>, x: &[L]) -> Result<Self, Error> {
        let s = m.limbs();
        // Leading zero limbs beyond s are fine; anything else there is too large.
        if x.len() > s && ct::declassify(ct::is_zero(&x[s..])) == L::ZERO {
            return Err(Error::OperandTooLarge);
        }
        let mut xs = Zeroizing::new(x[..x.len().min(s)].to_vec());
        xs.resize(s, L::ZERO);
        if ct::declassify(ct::borrow_of_sub(&xs, m.n())) == L::ZERO {
            return Err(Error::OperandTooLarge);
        }
        let mut r = Self::alloc(m);
        m.mont_mul(&xs, m.r2(), &mut r.buf[..s]);
        Ok(r)
    }

    /// The residue of a big-endian byte string. Fails when the value is `>= n`.
    pub fn from_be_bytes(m: &Modulus<L>, bytes: &[u8]) -> Result<Self, Error> {
        Self::new(m, &Zeroizing::new(be_bytes_to_limbs(bytes)))
    }

    /// The residue of big-endian hexadecimal text (`0x` optional). Fails when the text
    /// is not hexadecimal or the value is `>= n`. Variable-time in the text (parsing).
    pub fn from_hex(m: &Modulus<L>, text: &str) -> Result<Self, Error> {
        Self::from_be_bytes(m, &Zeroizing::new(hex_to_be_bytes(text)?))
    }

    /// The residue `x mod n` of little-endian limbs `x` of any length (empty is 0):
    /// for CRT halves (`c mod p`) and hashing to a field.
    ///
    /// Constant-time: the work depends only on `x.len()` and the modulus' size, about
    /// `w x.len() / bits(n) + 2` Montgomery products (Horner's rule on digits of
    /// `bits(n) - 1` bits, see `reduce.rs`), never a loop over the bits of x.
    pub fn from_limbs_reduced(m: &Modulus<L>, x: &[L]) -> Self {
        let mut r = Self::alloc(m);
        let s = m.limbs();
        reduce::reduce_wide(m, x, &mut r.buf[..s]);
        r
    }

    /// The residue `x mod n` of a big-endian byte string of any length (empty is 0);
    /// constant-time, as [`Self::from_limbs_reduced`].
    pub fn from_be_bytes_reduced(m: &Modulus<L>, bytes: &[u8]) -> Self {
        Self::from_limbs_reduced(m, &Zeroizing::new(be_bytes_to_limbs(bytes)))
    }

    /// The residue whose Montgomery form is `v` (already below [`Modulus::bound`]).
    /// Fails with [`Error::WrongLength`] when `v` is not [`Modulus::limbs`] long, and
    /// with [`Error::OperandTooLarge`] when it is not below the bound.
    pub fn from_montgomery(m: &Modulus<L>, v: Vec<L>) -> Result<Self, Error> {
        let v = Zeroizing::new(v);
        if v.len() != m.limbs() {
            return Err(Error::WrongLength {
                expected: m.limbs(),
                got: v.len(),
            });
        }
        if ct::borrow_of_sub(&v, m.bound()) == L::ZERO {
            return Err(Error::OperandTooLarge);
        }
        Ok(Self::from_value(m, &v))
    }

    /// 0.
    pub fn zero(m: &Modulus<L>) -> Self {
        Self::alloc(m)
    }

    /// 1 (in Montgomery form: R mod n).
    pub fn one(m: &Modulus<L>) -> Self {
        Self::from_value(m, m.r1())
    }

    /// A uniformly random residue in `[0, n)`, by rejection sampling: draw
    /// `bits(n)` random bits, keep them if below n, else draw again.
    ///
    /// Constant-time in the value it returns: each try's comparison is masked, and the
    /// number of tries (revealed by the time taken) is independent of the accepted
    /// value: every value below n is accepted with the same probability on each try.
    /// Fewer than 2 tries on average (n > 2^(bits - 1)).
    pub fn random(m: &Modulus<L>, rng: &mut impl CryptoRngCore) -> Self {
        let s = m.limbs();
        let mut bytes = Zeroizing::new(vec![0u8; m.byte_len()]);
        // The top byte keeps only the bits n has there.
        let top_bits = m.bits() - 8 * (m.byte_len() as u32 - 1);
        let top_mask = (0xffu16 >> (8 - top_bits)) as u8;
        loop {
            rng.fill_bytes(&mut bytes);
            bytes[0] &= top_mask;
            let mut x = Zeroizing::new(be_bytes_to_limbs::<L>(&bytes));
            let len = s.max(x.len());
            x.resize(len, L::ZERO);
            // x has at most bits(n) bits, so it fits in s limbs.
            if ct::borrow_of_sub(&x[..s], m.n()) == L::ONE {
                let mut r = Self::alloc(m);
                m.mont_mul(&x[..s], m.r2(), &mut r.buf[..s]);
                return r;
            }
        }
    }

    /// The modulus this residue lives in.
    pub fn modulus(&self) -> &Modulus<L> {
        &self.m
    }

    /// The Montgomery form, as stored (below [`Modulus::bound`]).
    pub fn montgomery_limbs(&self) -> &[L] {
        self.val()
    }

    /// The normal-form value in `[0, n)`, as [`Modulus::limbs`] little-endian limbs.
    /// Constant-time.
    pub fn to_limbs(&self) -> Vec<L> {
        let s = self.m.limbs();
        let mut one = vec![L::ZERO; s];
        one[0] = L::ONE;
        let mut out = vec![L::ZERO; s];
        self.m.mont_mul(self.val(), &one, &mut out);
        // v * 1 / R <= n (equal only when v = 0 mod n, with lazy reduction): one masked
        // subtraction makes it canonical under both policies.
        ct::reduce_once(&mut out, L::ZERO, self.m.n());
        out
    }

    /// Writes the normal-form value into `out` as big-endian bytes, zero-padded to
    /// `out.len()` (I2OSP of RFC 8017 with `k = out.len()`). Constant-time.
    ///
    /// Fails with [`Error::OutputTooShort`] when `out` is shorter than
    /// [`Modulus::byte_len`] (a public condition: it depends on lengths only).
    pub fn write_be_bytes(&self, out: &mut [u8]) -> Result<(), Error> {
        let needed = self.m.byte_len();
        if out.len() < needed {
            return Err(Error::OutputTooShort {
                needed,
                got: out.len(),
            });
        }
        let limbs = Zeroizing::new(self.to_limbs());
        let per = (L::BITS / 8) as usize;
        // Byte i from the end is byte i % per of limb i / per (0 past the limbs): every
        // index depends on i and the lengths only.
        for (i, o) in out.iter_mut().rev().enumerate() {
            *o = limbs
                .get(i / per)
                .map_or(0, |l| (l.to_u64() >> (8 * (i % per))) as u8);
        }
        Ok(())
    }

    /// The normal-form value as exactly `k` big-endian bytes (I2OSP); constant-time.
    /// Fails with [`Error::OutputTooShort`] when `k` is below [`Modulus::byte_len`].
    pub fn to_be_bytes_padded(&self, k: usize) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; k];
        self.write_be_bytes(&mut out)?;
        Ok(out)
    }

    /// The normal-form value as big-endian bytes, exactly [`Modulus::byte_len`] of them
    /// (leading zeros kept); constant-time.
    pub fn to_be_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.m.byte_len()];
        // The length is the modulus' own: never too short.
        self.write_be_bytes(&mut out)
            .unwrap_or_else(|e| unreachable!("{e}"));
        out
    }

    /// The normal-form value as big-endian bytes without leading zeros (empty for 0).
    /// Variable-time: the length reveals the value's size. For public values.
    pub fn to_be_bytes_vartime(&self) -> Vec<u8> {
        limbs_to_be_bytes_vartime(&self.to_limbs())
    }

    /// The normal-form value as lower-case hexadecimal without prefix, exactly
    /// `2 * `[`Modulus::byte_len`] digits (leading zeros kept); constant-time (the
    /// digits come from `base16ct`, which has no table lookup or branch on the data).
    pub fn to_hex(&self) -> String {
        base16ct::lower::encode_string(&Zeroizing::new(self.to_be_bytes()))
    }

    /// The normal-form value as lower-case hexadecimal without prefix or leading zeros
    /// (`"0"` for zero). Variable-time: for printing public results.
    pub fn to_hex_vartime(&self) -> String {
        be_bytes_to_hex_vartime(&self.to_be_bytes())
    }

    /// `Ok` when both residues live in the same modulus: the same handle (O(1)), or
    /// equal moduli ([`Modulus`]'s `PartialEq`).
    fn check(&self, other: &Self) -> Result<(), Error> {
        if self.m == other.m {
            Ok(())
        } else {
            Err(Error::ModulusMismatch)
        }
    }

    /// `self * other`, or [`Error::ModulusMismatch`].
    pub fn try_mul(&self, other: &Self) -> Result<Self, Error> {
        self.check(other)?;
        let mut r = Self::alloc(&self.m);
        let s = self.m.limbs();
        self.m.mont_mul(self.val(), other.val(), &mut r.buf[..s]);
        Ok(r)
    }

    /// `self + other`, or [`Error::ModulusMismatch`].
    pub fn try_add(&self, other: &Self) -> Result<Self, Error> {
        let mut r = self.clone();
        r.try_add_assign(other)?;
        Ok(r)
    }

    /// `self - other`, or [`Error::ModulusMismatch`].
    pub fn try_sub(&self, other: &Self) -> Result<Self, Error> {
        let mut r = self.clone();
        r.try_sub_assign(other)?;
        Ok(r)
    }

    /// `self *= other` without allocating, or [`Error::ModulusMismatch`] (then `self`
    /// is unchanged).
    pub fn try_mul_assign(&mut self, other: &Self) -> Result<(), Error> {
        self.check(other)?;
        self.product_in_place(Some(other.val()));
        Ok(())
    }

    /// `self += other` in place, or [`Error::ModulusMismatch`].
    pub fn try_add_assign(&mut self, other: &Self) -> Result<(), Error> {
        self.check(other)?;
        let m = &self.m;
        let v = &mut self.buf[self.at..self.at + m.limbs()];
        let carry = ct::add_masked(v, other.val(), L::MAX);
        // Both below the bound B, so the sum is below 2B: one subtraction of B.
        ct::reduce_once(v, carry, m.bound());
        Ok(())
    }

    /// `self -= other` in place, or [`Error::ModulusMismatch`].
    pub fn try_sub_assign(&mut self, other: &Self) -> Result<(), Error> {
        self.check(other)?;
        let m = &self.m;
        let v = &mut self.buf[self.at..self.at + m.limbs()];
        let borrow = ct::sub_masked(v, other.val(), L::MAX);
        // A borrow means the difference is negative (> -B): add B back, with a mask.
        ct::add_masked(v, m.bound(), ct::mask(borrow));
        Ok(())
    }

    /// `self *= other` without allocating.
    ///
    /// # Panics
    /// When the two residues belong to different moduli ([`Self::try_mul_assign`]
    /// returns an error instead).
    pub fn mul_assign(&mut self, other: &Self) {
        self.try_mul_assign(other).unwrap_or_else(|e| panic!("{e}"));
    }

    /// `self += other` without allocating.
    ///
    /// # Panics
    /// When the two residues belong to different moduli.
    pub fn add_assign(&mut self, other: &Self) {
        self.try_add_assign(other).unwrap_or_else(|e| panic!("{e}"));
    }

    /// `self -= other` without allocating.
    ///
    /// # Panics
    /// When the two residues belong to different moduli.
    pub fn sub_assign(&mut self, other: &Self) {
        self.try_sub_assign(other).unwrap_or_else(|e| panic!("{e}"));
    }

    /// `self = self^2` without allocating.
    pub fn square_assign(&mut self) {
        self.product_in_place(None);
    }

    /// `self = -self` without allocating.
    pub fn neg_assign(&mut self) {
        let m = &self.m;
        let v = &mut self.buf[self.at..self.at + m.limbs()];
        // 0 - v; a borrow (v != 0) means it wrapped: add B back, giving B - v in (0, B).
        let mut borrow = L::ZERO;
        for limb in v.iter_mut() {
            (*limb, borrow) = L::sbb(L::ZERO, *limb, borrow);
        }
        ct::add_masked(v, m.bound(), ct::mask(borrow));
    }

    /// `self = self * b` (`Some`) or `self^2` (`None`): the product goes into the
    /// scratch half, which then becomes the value.
    #[inline]
    fn product_in_place(&mut self, other: Option<&[L]>) {
        let s = self.m.limbs();
        let (lo, hi) = self.buf.split_at_mut(s);
        // `at` is public (it counts operations), so this branch is too.
        let (v, scratch) = if self.at == 0 { (&*lo, hi) } else { (&*hi, lo) };
        match other {
            Some(b) => self.m.mont_mul(v, b, scratch),
            None => self.m.mont_sqr(v, scratch),
        }
        self.at = s - self.at;
    }

    /// `self^2`.
    pub fn square(&self) -> Self {
        let mut r = Self::alloc(&self.m);
        let s = self.m.limbs();
        self.m.mont_sqr(self.val(), &mut r.buf[..s]);
        r
    }

    /// `-self`.
    pub fn neg(&self) -> Self {
        let mut r = self.clone();
        r.neg_assign();
        r
    }

    /// `self^-1`, or [`Error::NotInvertible`] when gcd(self, n) > 1 (0 included).
    ///
    /// Constant-time for a secret value and a secret modulus (Pornin's optimized binary
    /// GCD, `ceil((2 bits(n) - 1) / 61)` masked rounds, see `inverse.rs`); whether the
    /// inverse exists is revealed, by the result. Works for any odd modulus, prime or
    /// not.
    pub fn inv(&self) -> Result<Self, Error> {
        let canon = Zeroizing::new(self.canonical());
        let (inv, ok) = inverse::inv_ct(&canon, self.m.n(), self.m.bits());
        self.finish_inverse(Zeroizing::new(inv), ct::declassify(ok) == L::ONE)
    }

    /// `self^-1` as [`Self::inv`], faster, but variable-time: its steps depend on the
    /// value and the modulus. For public values only.
    pub fn inv_vartime(&self) -> Result<Self, Error> {
        let canon = Zeroizing::new(self.canonical());
        match inverse::inv_vartime(&canon, self.m.n()) {
            Some(inv) => self.finish_inverse(Zeroizing::new(inv), true),
            None => self.finish_inverse(Zeroizing::new(vec![L::ZERO; canon.len()]), false),
        }
    }

    /// From `(x R)^-1 = x^-1 R^-1` (below n) to the Montgomery form `x^-1 R`: two
    /// products with `R^2` (each multiplies by R).
    fn finish_inverse(&self, inv: Zeroizing<Vec<L>>, ok: bool) -> Result<Self, Error> {
        if !ok {
            return Err(Error::NotInvertible);
        }
        let s = self.m.limbs();
        let mut r = Self::alloc(&self.m);
        let (lo, hi) = r.buf.split_at_mut(s);
        self.m.mont_mul(&inv, self.m.r2(), hi);
        self.m.mont_mul(hi, self.m.r2(), lo);
        hi.zeroize();
        Ok(r)
    }

    /// The Montgomery form reduced into `[0, n)` (it is below 2n under either policy):
    /// the canonical representative. Constant-time.
    fn canonical(&self) -> Vec<L> {
        let mut c = self.val().to_vec();
        ct::reduce_once(&mut c, L::ZERO, self.m.n());
        c
    }

    /// `self^e` for a big-endian exponent, by a fixed window whose table is read whole
    /// for every lookup and the entry kept with masks ([`crate::lab::exp::fixed_window`]).
    ///
    /// Constant-time in the exponent's value (not its length): the squarings and
    /// multiplications depend only on `exponent_be.len()`, so leading zero bytes or bits
    /// of a secret exponent change nothing, and no branch or memory index depends on the
    /// bits. `x^0 = 1`, including `0^0`. Allocates its table and the result:
    /// [`Self::pow_assign`] does the same into a reused [`PowScratch`] without
    /// allocating.
    pub fn pow(&self, exponent_be: &[u8]) -> Self {
        self.pow_traced(exponent_be, &mut ())
    }

    /// [`Self::pow`], telling `trace` every step (squaring, product, table read): how the
    /// tests show that the steps depend on the exponent's length only.
    pub fn pow_traced<T: Trace>(&self, exponent_be: &[u8], trace: &mut T) -> Self {
        self.pow_once(exponent_be, false, trace)
    }

    /// `self^e` for a big-endian public exponent, by a sliding window
    /// ([`crate::lab::exp::sliding_window`]): faster than [`Self::pow`], but its time
    /// depends on the exponent's bits. `x^0 = 1`, including `0^0`.
    pub fn pow_vartime(&self, exponent_be: &[u8]) -> Self {
        self.pow_once(exponent_be, true, &mut ())
    }

    /// `self^e1 * other^e2` for public big-endian exponents, with one chain of
    /// squarings (interleaved sliding windows, HAC 14.88): for exponents of equal
    /// length about half the squarings of two [`Self::pow_vartime`] and a product. DSA's
    /// verification is `g^u1 y^u2`. Variable-time in the exponents' bits; for public
    /// exponents only. `x^0 = 1`. Fails with [`Error::ModulusMismatch`] when `other`
    /// belongs to another modulus.
    ///
    /// ```
    /// use montmul::{Modulus, Residue};
    ///
    /// let m = Modulus::<u64>::from_hex("0xfffffffffffffffffffffffffffffffeffffffffffffffff")?;
    /// let (g, y) = (Residue::from_hex(&m, "3")?, Residue::from_hex(&m, "1234567")?);
    /// let v = g.pow2_vartime(&[0x01, 0x00], &y, &[0x77])?;
    /// assert_eq!(v, &g.pow_vartime(&[0x01, 0x00]) * &y.pow_vartime(&[0x77]));
    /// # Ok::<(), montmul::Error>(())
    /// ```
    pub fn pow2_vartime(&self, e1: &[u8], other: &Self, e2: &[u8]) -> Result<Self, Error> {
        self.check(other)?;
        let v = crate::multi_exp::pow2_vartime(&self.m, self.val(), e1, other.val(), e2);
        Ok(Self::from_value(&self.m, &v))
    }

    /// `self = self^e` in place, the table and every temporary in `scratch`: as
    /// [`Self::pow`] (constant-time in the exponent's value, its work set by
    /// `exponent_be.len()` only), and allocates nothing. Fails, leaving `self`
    /// unchanged, with [`Error::ModulusMismatch`] when `scratch` was made for another
    /// modulus, and with [`Error::ExponentTooLong`] when for shorter exponents.
    pub fn pow_assign(
        &mut self,
        exponent_be: &[u8],
        scratch: &mut PowScratch<L>,
    ) -> Result<(), Error> {
        self.pow_in_place(exponent_be, scratch, false, &mut ())
    }

    /// `self = self^e` in place for a public exponent, as [`Self::pow_vartime`]
    /// (variable-time in the exponent's bits), allocating nothing; fails as
    /// [`Self::pow_assign`].
    pub fn pow_vartime_assign(
        &mut self,
        exponent_be: &[u8],
        scratch: &mut PowScratch<L>,
    ) -> Result<(), Error> {
        self.pow_in_place(exponent_be, scratch, true, &mut ())
    }

    /// The by-value forms: a copy of `self` raised in place in a scratch made for this
    /// exponent.
    fn pow_once<T: Trace>(&self, exponent_be: &[u8], vartime: bool, trace: &mut T) -> Self {
        let mut scratch = PowScratch::new(&self.m, exponent_be.len());
        let mut r = self.clone();
        match r.pow_in_place(exponent_be, &mut scratch, vartime, trace) {
            Ok(()) => r,
            Err(e) => unreachable!("a scratch made for this modulus and exponent: {e}"),
        }
    }

    /// `self = self^e`: the power is written into the scratch half of the buffer, which
    /// then becomes the value (as [`Self::product_in_place`]).
    fn pow_in_place<T: Trace>(
        &mut self,
        exponent_be: &[u8],
        scratch: &mut PowScratch<L>,
        vartime: bool,
        trace: &mut T,
    ) -> Result<(), Error> {
        let s = self.m.limbs();
        let (lo, hi) = self.buf.split_at_mut(s);
        // `at` is public (it counts operations), so this branch is too.
        let (v, out) = if self.at == 0 { (&*lo, hi) } else { (&*hi, lo) };
        scratch.run(&self.m, v, exponent_be, out, vartime, trace)?;
        self.at = s - self.at;
        Ok(())
    }

    /// 1 when the value is 0 mod n, else 0; constant-time.
    pub fn ct_is_zero(&self) -> L {
        ct::is_zero(&Zeroizing::new(self.canonical()))
    }

    /// 1 when both residues stand for the same value mod n, else 0; constant-time in
    /// the values. Residues of different moduli are never equal: 0 (whether the moduli
    /// are equal is not secret-dependent timing: [`Modulus`]'s `PartialEq`).
    pub fn ct_eq(&self, other: &Self) -> L {
        if self.check(other).is_err() {
            return L::ZERO;
        }
        let (a, b) = (
            Zeroizing::new(self.canonical()),
            Zeroizing::new(other.canonical()),
        );
        ct::eq(&a, &b)
    }
}

impl<L: Limb> Clone for Residue<L> {
    /// A copy of the value in a fresh buffer (the scratch half is not copied).
    fn clone(&self) -> Self {
        Self::from_value(&self.m, self.val())
    }
}

impl<L: Limb> Drop for Residue<L> {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

/// Equal when both stand for the same value mod the same modulus (constant-time,
/// [`Residue::ct_eq`]); residues of different moduli are never equal (no panic).
impl<L: Limb> PartialEq for Residue<L> {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other) == L::ONE
    }
}

impl<L: Limb> Eq for Residue<L> {}

/// Prints the modulus' size, never the value: `Residue { bits: 256, .. }`.
impl<L: Limb> fmt::Debug for Residue<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Residue")
            .field("bits", &self.m.bits())
            .finish_non_exhaustive()
    }
}

macro_rules! binop {
    ($tr:ident, $method:ident, $try:ident, $assign_tr:ident, $assign:ident) => {
        impl<L: Limb> $tr<&Residue<L>> for &Residue<L> {
            type Output = Residue<L>;
            /// # Panics
            /// When the two residues belong to different moduli.
            fn $method(self, rhs: &Residue<L>) -> Residue<L> {
                self.$try(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl<L: Limb> $tr for Residue<L> {
            type Output = Residue<L>;
            /// # Panics
            /// When the two residues belong to different moduli.
            fn $method(mut self, rhs: Residue<L>) -> Residue<L> {
                Residue::$assign(&mut self, &rhs);
                self
            }
        }
        impl<L: Limb> $assign_tr<&Residue<L>> for Residue<L> {
            /// In place, without allocating.
            ///
            /// # Panics
            /// When the two residues belong to different moduli.
            fn $assign(&mut self, rhs: &Residue<L>) {
                Residue::$assign(self, rhs);
            }
        }
        impl<L: Limb> $assign_tr for Residue<L> {
            /// In place, without allocating.
            ///
            /// # Panics
            /// When the two residues belong to different moduli.
            fn $assign(&mut self, rhs: Residue<L>) {
                Residue::$assign(self, &rhs);
            }
        }
    };
}

binop!(Mul, mul, try_mul, MulAssign, mul_assign);
binop!(Add, add, try_add, AddAssign, add_assign);
binop!(Sub, sub, try_sub, SubAssign, sub_assign);

impl<L: Limb> Neg for &Residue<L> {
    type Output = Residue<L>;
    fn neg(self) -> Residue<L> {
        Residue::neg(self)
    }
}

impl<L: Limb> Neg for Residue<L> {
    type Output = Residue<L>;
    fn neg(mut self) -> Residue<L> {
        self.neg_assign();
        self
    }
}
