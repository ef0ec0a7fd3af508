//! Generated Rust kernels for the common sizes: 256, 384, 512, 1024 and 2048 bits, 64-bit
//! words, CIOS, full reduction. They are committed under `crates/montmul-gen/generated/`
//! (so that reading or using them needs no build step), each with the command that made
//! it in its header; to regenerate one, run that command with
//! `--out crates/montmul-gen/generated/<file>`.
//!
//! The test `tests/committed.rs` regenerates every file and fails on any difference, and
//! runs these functions against the num-bigint oracle and montmul's CIOS kernel.
//!
//! ```
//! use montmul_gen::kernels::{montmul_mul_256, montmul_sqr_256};
//!
//! // n = 2^256 - 189, a prime. R = 2^256 = 189 mod n, so x in Montgomery form is 189 x.
//! let n = [u64::MAX - 188, u64::MAX, u64::MAX, u64::MAX];
//! // n0 = -n^-1 mod 2^64 by Newton's iteration (3 correct bits, doubled 5 times).
//! let mut inv = n[0];
//! for _ in 0..5 {
//!     inv = inv.wrapping_mul(2u64.wrapping_sub(n[0].wrapping_mul(inv)));
//! }
//! let n0 = inv.wrapping_neg();
//!
//! let (two, three) = ([2 * 189, 0, 0, 0], [3 * 189, 0, 0, 0]);
//! let mut r = [0u64; 4];
//! montmul_mul_256(&mut r, &two, &three, &n, n0);
//! assert_eq!(r, [6 * 189, 0, 0, 0]);
//! montmul_sqr_256(&mut r, &three, &n, n0);
//! assert_eq!(r, [9 * 189, 0, 0, 0]);
//! ```

use crate::{Algo, Lang, Spec, Word};

macro_rules! committed {
    ($($bits:literal => $file:literal),* $(,)?) => {
        $(include!(concat!("../generated/", $file));)*

        /// Every committed kernel: modulus size and file name under `generated/`.
        pub const FILES: &[(u32, &str)] = &[$(($bits, $file)),*];
    };
}

committed! {
    256 => "cios_w64_256.rs",
    384 => "cios_w64_384.rs",
    512 => "cios_w64_512.rs",
    1024 => "cios_w64_1024.rs",
    2048 => "cios_w64_2048.rs",
}

/// The request that produces the committed kernel for `bits`-bit moduli.
pub fn spec(bits: u32) -> Result<Spec, crate::GenError> {
    Spec::new(bits, Lang::Rust, Algo::Cios, Word::W64, false)
}
