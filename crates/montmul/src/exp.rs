//! Exponentiation.
