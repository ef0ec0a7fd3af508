//! The oracle of every model: montmul's core.
//!
//! A simulated product is compared with the CIOS kernel of `montmul` (seed 004 appendix,
//! seed 002 Alg. 2) instantiated at the model's word size. The core's Montgomery radix is
//! R = 2^(w s), s = ceil(bits / w); a model whose radix is another power of two (MWR2MM
//! divides by 2^n, n the bit length) is compared after one more core product by the
//! constant 2^(2 w s - r) mod M, which moves the core's result from 2^(-w s) to 2^(-r).

use montmul::{lab, Limb, Modulus, Reduction};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

use crate::SimError;

/// `x * y * 2^(-r_bits) mod m`, computed by montmul's CIOS kernel with `word`-bit limbs
/// (8, 16, 32 or 64). `m` must be odd and greater than one, `x` and `y` below `m`, and
/// `r_bits` at most `2 w s`.
pub fn core_product(
    m: &BigUint,
    x: &BigUint,
    y: &BigUint,
    r_bits: u32,
    word: u32,
) -> Result<BigUint, SimError> {
    match word {
        8 => core_product_with::<u8>(m, x, y, r_bits),
        16 => core_product_with::<u16>(m, x, y, r_bits),
        32 => core_product_with::<u32>(m, x, y, r_bits),
        64 => core_product_with::<u64>(m, x, y, r_bits),
        w => Err(SimError::param("word", format!("no core limb of {w} bits"))),
    }
}

fn core_product_with<L: Limb>(
    m: &BigUint,
    x: &BigUint,
    y: &BigUint,
    r_bits: u32,
) -> Result<BigUint, SimError> {
    let bits = m.bits() as u32;
    if bits < 2 || !m.bit(0) {
        return Err(SimError::InvalidModulus);
    }
    if x >= m || y >= m {
        return Err(SimError::OperandTooLarge);
    }
    let s = bits.div_ceil(L::BITS) as usize;
    let core = Modulus::with_kernel(
        &kit::to_limbs::<L>(m, s),
        lab::by_name::<L>("cios")?,
        Reduction::Full,
    )?;
    let core_r_bits = L::BITS * s as u32;
    if r_bits > 2 * core_r_bits {
        return Err(SimError::param(
            "bits",
            format!("radix 2^{r_bits} is too far from the core's 2^{core_r_bits}"),
        ));
    }
    let mut xy = vec![L::ZERO; s];
    core.mont_mul(&kit::to_limbs(x, s), &kit::to_limbs(y, s), &mut xy);
    if r_bits == core_r_bits {
        return Ok(kit::from_limbs(&xy));
    }
    // xy = x y 2^(-ws); times 2^(2ws - r) and 2^(-ws) once more gives x y 2^(-r).
    let shift = BigUint::from(2u32).modpow(&BigUint::from(2 * core_r_bits - r_bits), m);
    let mut out = vec![L::ZERO; s];
    core.mont_mul(&xy, &kit::to_limbs(&shift, s), &mut out);
    Ok(kit::from_limbs(&out))
}

/// Checks a model's operands: `m` odd with exactly `bits` bits (at least 2), `x` and `y`
/// below it.
pub(crate) fn operands_fit(
    bits: u32,
    m: &BigUint,
    x: &BigUint,
    y: &BigUint,
) -> Result<(), SimError> {
    if m.bits() < 2 || !m.bit(0) {
        return Err(SimError::InvalidModulus);
    }
    if m.bits() != u64::from(bits) {
        return Err(SimError::param(
            "bits",
            format!("the modulus has {} bits, not {bits}", m.bits()),
        ));
    }
    if x >= m || y >= m {
        return Err(SimError::OperandTooLarge);
    }
    Ok(())
}

/// Operands for one simulated multiplication: an odd `bits`-bit modulus with its top bit
/// set, and two values below it, all drawn from a deterministic generator seeded with
/// `seed` (the same seed gives the same operands on every machine).
pub fn random_operands(bits: u32, seed: u64) -> Result<(BigUint, BigUint, BigUint), SimError> {
    if bits < 2 {
        return Err(SimError::param("bits", "a modulus needs at least 2 bits"));
    }
    let mut rng = TestRng::new(seed);
    let m = kit::random_modulus(&mut rng, bits);
    let x = kit::random_below(&mut rng, &m);
    let y = kit::random_below(&mut rng, &m);
    Ok((m, x, y))
}
