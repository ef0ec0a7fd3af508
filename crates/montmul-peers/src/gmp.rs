//! GMP through a small direct FFI to the system libgmp (6.2).
//!
//! Only the handful of `mpz` functions the comparison needs are declared. The `rug`
//! crate would be the usual binding, but it refuses GMP 6.2, the version installed here.

#![allow(unsafe_code)]

use core::ffi::{c_int, c_void};

use crate::{Contender, Inputs};

/// `__mpz_struct` from `gmp.h`: allocated limbs, signed size, limb pointer.
#[repr(C)]
struct MpzStruct {
    alloc: c_int,
    size: c_int,
    d: *mut u64,
}

#[link(name = "gmp")]
extern "C" {
    fn __gmpz_init(x: *mut MpzStruct);
    fn __gmpz_clear(x: *mut MpzStruct);
    fn __gmpz_import(
        rop: *mut MpzStruct,
        count: usize,
        order: c_int,
        size: usize,
        endian: c_int,
        nails: usize,
        op: *const c_void,
    );
    fn __gmpz_export(
        rop: *mut c_void,
        countp: *mut usize,
        order: c_int,
        size: usize,
        endian: c_int,
        nails: usize,
        op: *const MpzStruct,
    ) -> *mut c_void;
    fn __gmpz_sizeinbase(op: *const MpzStruct, base: c_int) -> usize;
    fn __gmpz_mul(rop: *mut MpzStruct, a: *const MpzStruct, b: *const MpzStruct);
    fn __gmpz_tdiv_r(r: *mut MpzStruct, n: *const MpzStruct, d: *const MpzStruct);
    fn __gmpz_powm(
        rop: *mut MpzStruct,
        base: *const MpzStruct,
        exp: *const MpzStruct,
        modulus: *const MpzStruct,
    );
    fn __gmpz_powm_sec(
        rop: *mut MpzStruct,
        base: *const MpzStruct,
        exp: *const MpzStruct,
        modulus: *const MpzStruct,
    );
}

/// An owned GMP integer (`mpz_t`), cleared on drop.
pub struct Mpz(MpzStruct);

impl Mpz {
    /// The integer whose big-endian bytes these are.
    pub fn from_be_bytes(bytes: &[u8]) -> Self {
        let mut x = MpzStruct {
            alloc: 0,
            size: 0,
            d: core::ptr::null_mut(),
        };
        // SAFETY: `x` is a valid, writable mpz struct; mpz_init fills it in. mpz_import
        // reads exactly `bytes.len()` one-byte words (order 1 = most significant first)
        // from a live slice.
        unsafe {
            __gmpz_init(&mut x);
            __gmpz_import(&mut x, bytes.len(), 1, 1, 1, 0, bytes.as_ptr().cast());
        }
        Mpz(x)
    }

    /// Big-endian bytes without leading zeros (empty for zero).
    pub fn to_be_bytes(&self) -> Vec<u8> {
        // SAFETY: `self.0` was initialised by mpz_init and is only changed by GMP.
        let bits = unsafe { __gmpz_sizeinbase(&self.0, 2) };
        let mut out = vec![0u8; bits.div_ceil(8).max(1)];
        let mut count = 0usize;
        // SAFETY: the buffer holds ceil(bits / 8) bytes, which is exactly what mpz_export
        // writes for one-byte words; `count` receives the number written.
        unsafe {
            __gmpz_export(out.as_mut_ptr().cast(), &mut count, 1, 1, 1, 0, &self.0);
        }
        out.truncate(count);
        out
    }
}

impl Drop for Mpz {
    fn drop(&mut self) {
        // SAFETY: initialised by mpz_init in `from_be_bytes`, cleared exactly once here.
        unsafe { __gmpz_clear(&mut self.0) }
    }
}

/// Which GMP exponentiation to time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exp {
    /// `mpz_powm`: variable-time, GMP's fastest.
    Plain,
    /// `mpz_powm_sec`: GMP's side-channel-silent exponentiation.
    Sec,
}

/// GMP as a contender: `mpz_mul` + `mpz_tdiv_r` for products and squares, and
/// `mpz_powm_sec` or `mpz_powm` for exponentiation.
pub struct Gmp {
    n: Mpz,
    a: Mpz,
    b: Mpz,
    e: Mpz,
    x: Mpz,
    t: Mpz,
    exp: Exp,
    e_is_zero: bool,
}

impl Gmp {
    /// Prepares GMP integers for `inputs`.
    pub fn new(inputs: &Inputs, exp: Exp) -> Self {
        let f = Mpz::from_be_bytes;
        Gmp {
            n: f(&inputs.n),
            a: f(&inputs.a),
            b: f(&inputs.b),
            e: f(&inputs.e),
            x: f(&inputs.a),
            t: f(&[]),
            exp,
            e_is_zero: inputs.e.iter().all(|&b| b == 0),
        }
    }

    fn mul_into_x(&mut self, square: bool) {
        let b: *const MpzStruct = if square { &self.x.0 } else { &self.b.0 };
        // SAFETY: every pointer is to a live, initialised mpz; mpz_mul allows its inputs
        // to be the same object; `t` is distinct from both, and mpz_tdiv_r writes `x`
        // from `t` and `n`, which are distinct from `x`.
        unsafe {
            __gmpz_mul(&mut self.t.0, &self.x.0, b);
            __gmpz_tdiv_r(&mut self.x.0, &self.t.0, &self.n.0);
        }
    }

    fn pow_into(&self, out: &mut Mpz) {
        if self.e_is_zero {
            // mpz_powm_sec requires exp > 0; x^0 = 1 (n > 1).
            *out = Mpz::from_be_bytes(&[1]);
            return;
        }
        let f = match self.exp {
            Exp::Plain => __gmpz_powm,
            Exp::Sec => __gmpz_powm_sec,
        };
        // SAFETY: live, initialised mpz values; `out` is distinct from the inputs; the
        // modulus is odd (the inputs are built for Montgomery arithmetic) and the
        // exponent positive, as mpz_powm_sec requires.
        unsafe { f(&mut out.0, &self.a.0, &self.e.0, &self.n.0) }
    }
}

impl Contender for Gmp {
    fn name(&self) -> String {
        match self.exp {
            Exp::Sec => "gmp".into(),
            Exp::Plain => "gmp:powm".into(),
        }
    }
    fn times(&self, op: &str) -> bool {
        // `gmp:powm` differs from `gmp` only in its exponentiation.
        self.exp == Exp::Sec || op == "exp"
    }
    fn mul_result(&mut self) -> Vec<u8> {
        let mut r = Mpz::from_be_bytes(&[]);
        // SAFETY: live, initialised mpz values; `r` and `t` are distinct from the inputs.
        unsafe {
            __gmpz_mul(&mut self.t.0, &self.a.0, &self.b.0);
            __gmpz_tdiv_r(&mut r.0, &self.t.0, &self.n.0);
        }
        r.to_be_bytes()
    }
    fn exp_result(&mut self) -> Vec<u8> {
        let mut r = Mpz::from_be_bytes(&[]);
        self.pow_into(&mut r);
        r.to_be_bytes()
    }
    fn run_mul(&mut self, iters: u64) {
        for _ in 0..iters {
            self.mul_into_x(false);
        }
    }
    fn run_sqr(&mut self, iters: u64) {
        for _ in 0..iters {
            self.mul_into_x(true);
        }
    }
    fn run_exp(&mut self, iters: u64) {
        let mut r = Mpz::from_be_bytes(&[]);
        for _ in 0..iters {
            self.pow_into(&mut r);
        }
        std::hint::black_box(&r);
    }
}
