//! Allocation-free arithmetic modulo an odd modulus of 1 to 9 limbs of 64 bits (up to
//! 576 bits): the fields of elliptic-curve cryptography (P-256, P-384, P-521,
//! secp256k1, 2^255 - 19) and any other modulus of that size.
//!
//! [`FieldModulus<N>`] holds the modulus and its Montgomery constants as `[u64; N]`
//! arrays, and the kernel chosen for it once ([`FieldKernel`]): the unrolled
//! `mulx`/`adcx`/`adox` CIOS of `mulx-cios` for 4 to 8 limbs where the CPU has BMI2 and
//! ADX, else the size-specialised CIOS of `cios-fixed` (seed 004 appendix, CIOS; seed
//! 002 Alg. 2). Both are instantiated for `N` at compile time, so a product is a
//! direct call with the kernel inlined, behind one branch on the stored choice, which
//! is the same for every product and predicted. [`FieldElement<N>`] is a value in
//! Montgomery form, `[u64; N]` on the stack, always fully reduced (in `[0, n)`).
//!
//! # Why the element does not hold its modulus
//!
//! An element is exactly its `N` words: the operations are methods of the modulus
//! (`p.mul(&a, &b)`), and the conversions take it (`FieldElement::from_hex(&p, ..)`,
//! `x.to_be_bytes(&p)`), so it is passed once to the code that does many of them.
//! Three designs were possible:
//!
//! - an element borrowing its modulus (`&'a FieldModulus<N>`, as crypto-bigint's
//!   `ConstMontyForm` does through a type): operators read well, but a type cannot
//!   hold a field and elements of it together (a curve and its constants `a`, `b`,
//!   `G`), the lifetime spreads into every point type, and each element carries a
//!   pointer;
//! - an element holding a copy of the constants: four times the size of the value,
//!   copied on every result;
//! - the modulus as an argument (chosen): an element is as small as the value (a
//!   point of P-256 in Jacobian coordinates is 96 bytes), `Copy`, without a lifetime;
//!   curve code holds its `FieldModulus` by value beside its elements; the constants
//!   are read from one place, in cache, for millions of products a second.
//!
//! The price: nothing checks that an element is used with the modulus that made it.
//! One used with another modulus gives a wrong value (never a panic or undefined
//! behaviour); keep one field per type, as curve code does.
//!
//! # Constant time
//!
//! Every operation on elements is constant-time (no branch and no memory index depends
//! on an element's value or a `pow` exponent's bits; only lengths and the modulus are
//! public), except those named `_vartime`. Building a [`FieldModulus`] is not meant
//! for secret moduli: its checks branch on the modulus (its constants are computed by
//! branch-free doublings and squares all the same). Elements are `Copy` and therefore
//! are not zeroized on drop; their `Debug` prints no value.

mod arith;
mod element;
mod modulus;
mod pow;
mod words;

pub use element::FieldElement;
pub use modulus::{FieldKernel, FieldModulus, FIELD_MAX_LIMBS};
