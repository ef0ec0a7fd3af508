//! The one error type of montmul-pk. Messages never depend on secret data: a failed
//! decryption or verification says only that it failed, never which check failed.

use core::fmt;

/// Everything that can go wrong in a public-key operation or while reading a key.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The arithmetic core refused a value (a modulus that is even, too large, ...).
    Core(montmul::Error),
    /// A PEM or DER document could not be read, or is not the kind of key expected.
    Encoding(String),
    /// The key's numbers are inconsistent (p*q != n, a wrong d, a generator out of range).
    InvalidKey(&'static str),
    /// The key size is outside what is supported.
    KeySize {
        /// The size asked for or found, in bits.
        bits: usize,
        /// The smallest size supported.
        min: usize,
        /// The largest size supported.
        max: usize,
    },
    /// The number of primes asked of key generation is outside what is supported for
    /// that key size.
    PrimeCount {
        /// The number of primes asked for.
        primes: usize,
        /// The key size, in bits.
        bits: usize,
        /// The most primes generated for that size (the least is 2).
        max: usize,
    },
    /// The message is too long for the padding and key.
    MessageTooLong,
    /// A signature or ciphertext does not have the key's length, or is not below the
    /// modulus.
    InvalidLength,
    /// A public value (a DH peer value, a DSA signature part) is out of its range.
    OutOfRange,
    /// A signature does not verify.
    Verification,
    /// A ciphertext does not decrypt.
    Decryption,
    /// A private operation's result failed its check against the public key (a fault).
    FaultDetected,
    /// The random number generator failed.
    Rng,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Core(e) => write!(f, "{e}"),
            Error::Encoding(why) => write!(f, "cannot read key or parameters: {why}"),
            Error::InvalidKey(why) => write!(f, "invalid key: {why}"),
            Error::KeySize { bits, min, max } => {
                write!(f, "key size {bits} bits is outside {min}..={max}")
            }
            Error::PrimeCount { primes, bits, max } => {
                write!(
                    f,
                    "prime count {primes} is outside 2..={max} for {bits}-bit keys"
                )
            }
            Error::MessageTooLong => f.write_str("message too long for this key and padding"),
            Error::InvalidLength => f.write_str(
                "signature or ciphertext has the wrong length or is not below the modulus",
            ),
            Error::OutOfRange => f.write_str("public value out of range"),
            Error::Verification => f.write_str("verification failure"),
            Error::Decryption => f.write_str("decryption error"),
            Error::FaultDetected => f.write_str("private operation failed its consistency check"),
            Error::Rng => f.write_str("random number generator failed"),
        }
    }
}

impl std::error::Error for Error {}

impl From<montmul::Error> for Error {
    fn from(e: montmul::Error) -> Self {
        Error::Core(e)
    }
}

impl From<der::Error> for Error {
    fn from(e: der::Error) -> Self {
        Error::Encoding(e.to_string())
    }
}
