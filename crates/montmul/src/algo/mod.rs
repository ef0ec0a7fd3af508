//! Every Montgomery multiplication algorithm of the seeds, one file each, generic over
//! the limb type. These are the readable reference forms; the fast paths live beside
//! them and are tested against them.
//!
//! # The five algorithms of seed 004
//!
//! Seed 004's appendix (after Koc, Acar and Kaliski, IEEE Micro 1996) sorts them by two
//! factors: whether multiplication and reduction are *separated* (all of a*b, then the
//! reduction) or *integrated*, coarsely (alternating outer iterations) or finely
//! (alternating inner iterations); and whether a loop walks the words of an operand
//! (*operand scanning*, one row `a*b[i]` at a time) or the words of the product
//! (*product scanning*, one column sum of `a[j]*b[i-j]` at a time). All five do 2s^2 + s
//! word multiplications per product (the squarings of SOS and CIOS fewer); they differ in loop
//! structure, carries and memory:
//!
//! | kernel | integration | a*b by | m*n by | words besides the operands |
//! |---|---|---|---|---|
//! | [`sos`] | separated | rows | rows | 2s (the whole product) |
//! | [`cios`] | coarse: multiply pass, reduce pass | rows | rows | s + 2 |
//! | [`fios`] | fine: one inner loop, two carries | rows | rows | s + 1, a carry bit |
//! | [`fips`] | fine: one column at a time | columns | columns | s, accumulator |
//! | [`cihs`] | coarse: reduce steps between columns | rows, then columns | rows | s, accumulator |
//!
//! (The accumulator is three words, as in the appendix, and four at w = 8.)
//!
//! The appendix names separating the product as what lets SOS square with about half
//! the products ([`sos`]); [`cios`] gets the same saving by adding each product in the
//! row of its lower index. Seed 004 (sec. 6, 1024-bit RSA and DSS on a Pentium Pro/MMX) found FIPS
//! and SOS fastest with MMX code and CIOS fastest with plain Pentium assembler.

mod accumulator;
pub mod cihs;
pub mod cios;
pub mod columns;
pub mod fios;
pub mod fips;
pub mod karatsuba;
pub mod mwr2mm;
pub mod radix2;
mod scratch;
pub mod sos;
pub mod two_way;
