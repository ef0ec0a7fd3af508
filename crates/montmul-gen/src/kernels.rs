//! Generated Rust kernels for the common sizes (256, 384, 512, 1024 and 2048 bits;
//! 64-bit words; CIOS; full reduction), committed under `crates/montmul-gen/generated/`
//! with the command that made each one in its header.
//!
//! The test `tests/committed.rs` regenerates every file and fails on any difference, and
//! runs these functions against the num-bigint oracle and montmul's CIOS kernel.
