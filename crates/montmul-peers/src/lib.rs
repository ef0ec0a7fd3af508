//! The libraries montmul is measured against, behind one trait.
//!
//! Each peer is a [`Contender`]: built once from a modulus, two operands and an
//! exponent (big-endian bytes), it can say what it computes (for the agreement check
//! that precedes every timing) and run its modular multiplication, squaring and
//! exponentiation in a loop. The peers:
//!
//! - [`gmp`]: GMP 6.2 through a small direct FFI to the system libgmp (`mpz_mul` +
//!   `mpz_tdiv_r`, `mpz_powm`, `mpz_powm_sec`);
//! - [`gmp63`]: GMP 6.3 built for this CPU, the same operations timed in a subprocess
//!   (`peers/gmp63`, built on demand; its symbols collide with the system GMP's), so it
//!   is not a [`Contender`] but a function that returns checked times;
//! - [`openssl`]: OpenSSL's `BN_mod_mul_montgomery` and `BN_mod_exp_mont_consttime`
//!   through `openssl-sys`;
//! - [`num`]: num-bigint (`*` then `%`, `modpow`);
//! - [`crypto`]: crypto-bigint's `FixedMontyForm` (Montgomery mul and constant-time pow).
//!
//! The public-key peers (OpenSSL, ring, the `rsa` crate), for `montmul bench --pk`, are
//! in [`pk`].

pub mod crypto;
pub mod gmp;
pub mod gmp63;
pub mod num;
pub mod openssl;
pub mod pk;

use montmul_testkit::rand_core::RngCore;
use montmul_testkit::TestRng;

/// One implementation of modular arithmetic, prepared for one modulus and one set of
/// operands.
///
/// The `run_*` loops chain their results (`x = x * b`, `x = x^2`), so that no iteration
/// can be hoisted or skipped, and every contender pays the same latency-bound chain.
pub trait Contender {
    /// The name in tables and JSON (`"openssl"`, `"gmp"`, `"montmul:auto"`, ...).
    fn name(&self) -> String;
    /// `a * b mod n` as big-endian bytes without leading zeros.
    fn mul_result(&mut self) -> Vec<u8>;
    /// `a^e mod n` as big-endian bytes without leading zeros.
    fn exp_result(&mut self) -> Vec<u8>;
    /// `iters` chained modular multiplications.
    fn run_mul(&mut self, iters: u64);
    /// `iters` chained modular squarings.
    fn run_sqr(&mut self, iters: u64);
    /// `iters` exponentiations `a^e mod n`.
    fn run_exp(&mut self, iters: u64);
    /// Whether this contender's `op` ("mul", "sqr" or "exp") is worth a row of its own
    /// (a variant that only changes the exponentiation says no to the others).
    fn times(&self, op: &str) -> bool {
        let _ = op;
        true
    }
}

/// The inputs every contender is built from: big-endian bytes of an odd modulus `n`,
/// operands `a, b < n` and an exponent `e`.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// The odd modulus.
    pub n: Vec<u8>,
    /// First operand, below n.
    pub a: Vec<u8>,
    /// Second operand, below n.
    pub b: Vec<u8>,
    /// The exponent.
    pub e: Vec<u8>,
}

impl Inputs {
    /// Reproducible random inputs of `bits` bits (`bits >= 16`, a multiple of 8): `n`
    /// odd with its top bit set, `a` and `b` with the top bit clear (so below n), and a
    /// full-length exponent with its top bit set, as in a private-key operation.
    pub fn random(bits: u32, seed: u64) -> Self {
        let mut rng = TestRng::new(seed ^ (bits as u64).rotate_left(32));
        let mut draw = |top: u8, low: u8, clear_top: bool| {
            // One byte per step of the test kit's SplitMix64.
            let mut v: Vec<u8> = (0..bits.div_ceil(8))
                .map(|_| rng.next_u64() as u8)
                .collect();
            v[0] |= top;
            if clear_top {
                v[0] &= 0x7f;
            }
            let last = v.len() - 1;
            v[last] |= low;
            trim(&v)
        };
        let n = draw(0x80, 1, false);
        let a = draw(0, 0, true);
        let b = draw(0, 0, true);
        let e = draw(0x80, 0, false);
        Inputs { n, a, b, e }
    }
}

/// Strips leading zero bytes (the common output form of every contender).
pub fn trim(bytes: &[u8]) -> Vec<u8> {
    let z = bytes.iter().take_while(|&&b| b == 0).count();
    bytes[z..].to_vec()
}

/// Every peer that can handle `inputs`: GMP, OpenSSL, num-bigint, and crypto-bigint when
/// the modulus size is one of its fixed sizes.
pub fn all(inputs: &Inputs) -> Vec<Box<dyn Contender>> {
    let mut out: Vec<Box<dyn Contender>> = vec![
        Box::new(openssl::OpenSsl::new(inputs)),
        Box::new(gmp::Gmp::new(inputs, gmp::Exp::Sec)),
        Box::new(gmp::Gmp::new(inputs, gmp::Exp::Plain)),
        Box::new(num::NumBigint::new(inputs)),
    ];
    if let Some(c) = crypto::new(inputs) {
        out.push(c);
    }
    out
}
