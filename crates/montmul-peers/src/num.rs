//! num-bigint: schoolbook/Karatsuba product and long division, `modpow`.

use num_bigint::BigUint;

use crate::{Contender, Inputs};

/// num-bigint as a contender.
pub struct NumBigint {
    n: BigUint,
    a: BigUint,
    b: BigUint,
    e: BigUint,
    x: BigUint,
}

impl NumBigint {
    /// Prepares num-bigint values for `inputs`.
    pub fn new(inputs: &Inputs) -> Self {
        let f = BigUint::from_bytes_be;
        let a = f(&inputs.a);
        NumBigint {
            n: f(&inputs.n),
            x: a.clone(),
            a,
            b: f(&inputs.b),
            e: f(&inputs.e),
        }
    }
}

fn bytes(x: &BigUint) -> Vec<u8> {
    crate::trim(&x.to_bytes_be())
}

impl Contender for NumBigint {
    fn name(&self) -> String {
        "num-bigint".into()
    }
    fn mul_result(&mut self) -> Vec<u8> {
        bytes(&((&self.a * &self.b) % &self.n))
    }
    fn exp_result(&mut self) -> Vec<u8> {
        bytes(&self.a.modpow(&self.e, &self.n))
    }
    fn run_mul(&mut self, iters: u64) {
        for _ in 0..iters {
            self.x = (&self.x * &self.b) % &self.n;
        }
    }
    fn run_sqr(&mut self, iters: u64) {
        for _ in 0..iters {
            self.x = (&self.x * &self.x) % &self.n;
        }
    }
    fn run_exp(&mut self, iters: u64) {
        for _ in 0..iters {
            self.x = std::hint::black_box(self.a.modpow(&self.e, &self.n));
        }
    }
}
