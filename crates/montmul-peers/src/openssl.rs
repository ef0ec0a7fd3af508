//! OpenSSL's Montgomery arithmetic: `BN_mod_mul_montgomery` (its `bn_mul_mont`
//! assembly on x86-64) and `BN_mod_exp_mont_consttime`, through `openssl-sys`.
//!
//! `openssl-sys` declares the `BIGNUM` basics but not the Montgomery context functions,
//! so those few are declared here against the same libcrypto.

#![allow(unsafe_code)]

use core::ffi::c_int;

use openssl_sys::{
    BN_CTX_free, BN_CTX_new, BN_bin2bn, BN_bn2bin, BN_free, BN_new, BN_num_bits, BIGNUM, BN_CTX,
};

use crate::{Contender, Inputs};

/// OpenSSL's opaque Montgomery context.
#[repr(C)]
struct BnMontCtx {
    _private: [u8; 0],
}

extern "C" {
    fn BN_MONT_CTX_new() -> *mut BnMontCtx;
    fn BN_MONT_CTX_free(mont: *mut BnMontCtx);
    fn BN_MONT_CTX_set(mont: *mut BnMontCtx, m: *const BIGNUM, ctx: *mut BN_CTX) -> c_int;
    fn BN_mod_mul_montgomery(
        r: *mut BIGNUM,
        a: *const BIGNUM,
        b: *const BIGNUM,
        mont: *mut BnMontCtx,
        ctx: *mut BN_CTX,
    ) -> c_int;
    fn BN_to_montgomery(
        r: *mut BIGNUM,
        a: *const BIGNUM,
        mont: *mut BnMontCtx,
        ctx: *mut BN_CTX,
    ) -> c_int;
    fn BN_from_montgomery(
        r: *mut BIGNUM,
        a: *const BIGNUM,
        mont: *mut BnMontCtx,
        ctx: *mut BN_CTX,
    ) -> c_int;
    fn BN_mod_exp_mont_consttime(
        rr: *mut BIGNUM,
        a: *const BIGNUM,
        p: *const BIGNUM,
        m: *const BIGNUM,
        ctx: *mut BN_CTX,
        in_mont: *mut BnMontCtx,
    ) -> c_int;
}

/// An owned `BIGNUM`.
struct Bn(*mut BIGNUM);

impl Bn {
    fn from_be_bytes(bytes: &[u8]) -> Self {
        openssl_sys::init();
        // SAFETY: BN_new returns a fresh BIGNUM (checked non-null); BN_bin2bn reads
        // exactly `bytes.len()` bytes from a live slice into it.
        unsafe {
            let p = BN_new();
            assert!(!p.is_null(), "OpenSSL could not allocate a BIGNUM");
            let r = BN_bin2bn(bytes.as_ptr(), bytes.len() as c_int, p);
            assert!(!r.is_null(), "BN_bin2bn failed");
            Bn(p)
        }
    }

    fn to_be_bytes(&self) -> Vec<u8> {
        // SAFETY: `self.0` is a live BIGNUM; the buffer holds BN_num_bytes bytes, which
        // is what BN_bn2bin writes.
        unsafe {
            let len = (BN_num_bits(self.0) as usize).div_ceil(8);
            let mut out = vec![0u8; len];
            let written = BN_bn2bin(self.0, out.as_mut_ptr()) as usize;
            out.truncate(written);
            out
        }
    }
}

impl Drop for Bn {
    fn drop(&mut self) {
        // SAFETY: allocated by BN_new, freed exactly once.
        unsafe { BN_free(self.0) }
    }
}

/// OpenSSL as a contender, with its Montgomery context prepared once.
pub struct OpenSsl {
    n: Bn,
    a: Bn,
    e: Bn,
    /// a and b in Montgomery form, and the running value.
    a_mont: Bn,
    b_mont: Bn,
    x: Bn,
    mont: *mut BnMontCtx,
    ctx: *mut BN_CTX,
}

fn check(ok: c_int, what: &str) {
    assert!(ok == 1, "OpenSSL {what} failed");
}

impl OpenSsl {
    /// Prepares OpenSSL values and the Montgomery context for `inputs`.
    pub fn new(inputs: &Inputs) -> Self {
        let n = Bn::from_be_bytes(&inputs.n);
        let a = Bn::from_be_bytes(&inputs.a);
        let b = Bn::from_be_bytes(&inputs.b);
        let e = Bn::from_be_bytes(&inputs.e);
        let a_mont = Bn::from_be_bytes(&[]);
        let b_mont = Bn::from_be_bytes(&[]);
        let x = Bn::from_be_bytes(&[]);
        // SAFETY: fresh context objects (checked non-null); every BIGNUM is live; the
        // modulus is odd, as BN_MONT_CTX_set requires.
        unsafe {
            let ctx = BN_CTX_new();
            let mont = BN_MONT_CTX_new();
            assert!(
                !ctx.is_null() && !mont.is_null(),
                "OpenSSL could not allocate a context"
            );
            check(BN_MONT_CTX_set(mont, n.0, ctx), "BN_MONT_CTX_set");
            check(
                BN_to_montgomery(a_mont.0, a.0, mont, ctx),
                "BN_to_montgomery",
            );
            check(
                BN_to_montgomery(b_mont.0, b.0, mont, ctx),
                "BN_to_montgomery",
            );
            check(BN_to_montgomery(x.0, a.0, mont, ctx), "BN_to_montgomery");
            OpenSsl {
                n,
                a,
                e,
                a_mont,
                b_mont,
                x,
                mont,
                ctx,
            }
        }
    }
}

impl Drop for OpenSsl {
    fn drop(&mut self) {
        // SAFETY: allocated in `new`, freed exactly once.
        unsafe {
            BN_MONT_CTX_free(self.mont);
            BN_CTX_free(self.ctx);
        }
    }
}

impl Contender for OpenSsl {
    fn name(&self) -> String {
        "openssl".into()
    }
    fn mul_result(&mut self) -> Vec<u8> {
        let r = Bn::from_be_bytes(&[]);
        // SAFETY: live BIGNUMs and contexts from `new`; `r` is distinct from the inputs.
        unsafe {
            check(
                BN_mod_mul_montgomery(r.0, self.a_mont.0, self.b_mont.0, self.mont, self.ctx),
                "BN_mod_mul_montgomery",
            );
            check(
                BN_from_montgomery(r.0, r.0, self.mont, self.ctx),
                "BN_from_montgomery",
            );
        }
        r.to_be_bytes()
    }
    fn exp_result(&mut self) -> Vec<u8> {
        let r = Bn::from_be_bytes(&[]);
        // SAFETY: live BIGNUMs and contexts; `r` is distinct from the inputs.
        unsafe {
            check(
                BN_mod_exp_mont_consttime(r.0, self.a.0, self.e.0, self.n.0, self.ctx, self.mont),
                "BN_mod_exp_mont_consttime",
            );
        }
        r.to_be_bytes()
    }
    fn run_mul(&mut self, iters: u64) {
        for _ in 0..iters {
            // SAFETY: live BIGNUMs and contexts; BN_mod_mul_montgomery allows r == a.
            unsafe {
                BN_mod_mul_montgomery(self.x.0, self.x.0, self.b_mont.0, self.mont, self.ctx);
            }
        }
    }
    fn run_sqr(&mut self, iters: u64) {
        for _ in 0..iters {
            // SAFETY: as above; a == b selects OpenSSL's squaring path.
            unsafe {
                BN_mod_mul_montgomery(self.x.0, self.x.0, self.x.0, self.mont, self.ctx);
            }
        }
    }
    fn run_exp(&mut self, iters: u64) {
        let r = Bn::from_be_bytes(&[]);
        for _ in 0..iters {
            // SAFETY: live BIGNUMs and contexts; `r` is distinct from the inputs.
            unsafe {
                BN_mod_exp_mont_consttime(r.0, self.a.0, self.e.0, self.n.0, self.ctx, self.mont);
            }
        }
    }
}
