//! crypto-bigint: `FixedMontyForm<LIMBS>` (Montgomery multiplication with the modulus
//! set at run time, constant-time `pow`), at its fixed sizes of 256..8192 bits.

use crypto_bigint::modular::{FixedMontyForm, FixedMontyParams};
use crypto_bigint::{Odd, Uint};

use crate::{Contender, Inputs};

/// crypto-bigint at one fixed size of `LIMBS` 64-bit limbs.
pub struct CryptoBigint<const LIMBS: usize> {
    a: FixedMontyForm<LIMBS>,
    b: FixedMontyForm<LIMBS>,
    e: Uint<LIMBS>,
    x: FixedMontyForm<LIMBS>,
}

impl<const LIMBS: usize> CryptoBigint<LIMBS> {
    fn build(inputs: &Inputs) -> Option<Self> {
        let wide = |bytes: &[u8]| -> Option<Uint<LIMBS>> {
            let mut buf = vec![0u8; LIMBS * 8];
            let off = buf.len().checked_sub(bytes.len())?;
            buf[off..].copy_from_slice(bytes);
            Some(Uint::from_be_slice(&buf))
        };
        let n: Option<Odd<Uint<LIMBS>>> = Odd::new(wide(&inputs.n)?).into();
        let params = FixedMontyParams::new_vartime(n?);
        let a = FixedMontyForm::new(&wide(&inputs.a)?, &params);
        let b = FixedMontyForm::new(&wide(&inputs.b)?, &params);
        Some(CryptoBigint {
            a,
            b,
            e: wide(&inputs.e)?,
            x: a,
        })
    }
}

/// crypto-bigint for `inputs`, when the modulus fills one of the sizes it is built for
/// here (256, 384, 512, 1024, 2048, 3072, 4096, 8192 bits).
pub fn new(inputs: &Inputs) -> Option<Box<dyn Contender>> {
    let bits = inputs.n.len() * 8;
    macro_rules! sized {
        ($($bits:literal),*) => {
            match bits {
                $($bits => CryptoBigint::<{ $bits / 64 }>::build(inputs)
                    .map(|c| Box::new(c) as Box<dyn Contender>),)*
                _ => None,
            }
        };
    }
    sized!(256, 384, 512, 1024, 2048, 3072, 4096, 8192)
}

fn bytes<const LIMBS: usize>(x: &FixedMontyForm<LIMBS>) -> Vec<u8> {
    crate::trim(x.retrieve().to_be_bytes().as_ref())
}

impl<const LIMBS: usize> Contender for CryptoBigint<LIMBS> {
    fn name(&self) -> String {
        "crypto-bigint".into()
    }
    fn mul_result(&mut self) -> Vec<u8> {
        bytes(&(self.a * self.b))
    }
    fn exp_result(&mut self) -> Vec<u8> {
        bytes(&self.a.pow(&self.e))
    }
    fn run_mul(&mut self, iters: u64) {
        for _ in 0..iters {
            self.x *= self.b;
        }
    }
    fn run_sqr(&mut self, iters: u64) {
        for _ in 0..iters {
            self.x = self.x.square();
        }
    }
    fn run_exp(&mut self, iters: u64) {
        for _ in 0..iters {
            self.x = std::hint::black_box(self.a.pow(&self.e));
        }
    }
}
