//! The field operations on [`FieldElement`]s: addition, subtraction, negation (with one
//! masked correction each) and the Montgomery product and square (the kernel chosen
//! for the modulus). Every one is constant-time and keeps values in `[0, n)`.

use super::element::FieldElement;
use super::modulus::FieldModulus;
use crate::ct;

impl<const N: usize> FieldModulus<N> {
    /// `a + b mod n`. Constant-time: the sum, then `n` subtracted under a mask.
    #[inline]
    pub fn add(&self, a: &FieldElement<N>, b: &FieldElement<N>) -> FieldElement<N> {
        let mut t = [0u64; N];
        // a, b < n, so carry * 2^(64 N) + t = a + b < 2n: one subtraction reduces it.
        let carry = ct::add(&mut t, &a.0, &b.0);
        ct::reduce_once(&mut t, carry, self.n());
        FieldElement(t)
    }

    /// `a - b mod n`. Constant-time: the difference, then `n` added back under the
    /// borrow's mask.
    #[inline]
    pub fn sub(&self, a: &FieldElement<N>, b: &FieldElement<N>) -> FieldElement<N> {
        let mut t = [0u64; N];
        // a - b > -n: when it borrows, t = a - b + R and t + n wraps to a - b + n < n.
        let borrow = ct::sub(&mut t, &a.0, &b.0);
        ct::add_masked(&mut t, self.n(), ct::mask(borrow));
        FieldElement(t)
    }

    /// `-a mod n` (zero for zero). Constant-time.
    #[inline]
    pub fn neg(&self, a: &FieldElement<N>) -> FieldElement<N> {
        self.sub(&self.zero(), a)
    }

    /// `2a mod n`. Constant-time.
    #[inline]
    pub fn double(&self, a: &FieldElement<N>) -> FieldElement<N> {
        self.add(a, a)
    }

    /// `a b mod n`: one Montgomery product by the modulus' kernel. Constant-time.
    #[inline]
    pub fn mul(&self, a: &FieldElement<N>, b: &FieldElement<N>) -> FieldElement<N> {
        // (a R)(b R) R^-1 = (a b) R.
        FieldElement(self.mont_mul(&a.0, &b.0))
    }

    /// `a^2 mod n`: the kernel's Montgomery squaring. Constant-time.
    #[inline]
    pub fn square(&self, a: &FieldElement<N>) -> FieldElement<N> {
        FieldElement(self.mont_sqr(&a.0))
    }
}
