//! [`MIN_BITS`] and [`MAX_BITS`]: the modulus sizes the generator accepts, which a
//! [`Spec`](crate::Spec) is checked against and a [`GenError`](crate::GenError) names.

/// The smallest modulus size the generator accepts, in bits.
pub const MIN_BITS: u32 = 64;
/// The largest modulus size the generator accepts, in bits.
pub const MAX_BITS: u32 = 4096;
