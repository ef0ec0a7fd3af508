//! RSA (RFC 8017) on the montmul core.

pub mod oaep;
pub mod pkcs1v15_enc;
