//! Architecture-specific code: kernels and helpers built on instructions that not every
//! CPU has, each reachable only with the capability token of its feature ([`Adx`],
//! [`Avx2`], [`Avx512Ifma`], detected once), each beside a portable fallback
//! ([`generic`]). The one module where `unsafe` is allowed; every block says why it is
//! sound.
//!
//! - `x86_64::adx`: the multiply-accumulate rows on BMI2 `mulx` and ADX `adcx`/`adox`
//!   ([`Mulx`]), the kernel `mulx-redc` on them, and `mulx-cios`, CIOS fully unrolled for
//!   4 to 8 limbs with the accumulator in registers;
//! - `x86_64::avx2`: the exponentiations' constant-time table read;
//! - `x86_64::avx512ifma`: `amm52-ifma`, almost-Montgomery multiplication in radix 2^52
//!   on AVX-512 IFMA, and its exponentiation domain of 52-bit digits;
//! - [`generic`]: the portable table read.

#![allow(unsafe_code)]

mod cpu;
pub mod generic;
#[cfg(target_arch = "x86_64")]
pub mod x86_64;

pub(crate) use cpu::assume_adx;
pub use cpu::{Adx, Avx2, Avx512Bw, Avx512Ifma};

#[cfg(target_arch = "x86_64")]
pub use x86_64::adx::Mulx;

/// Rows on `mulx`/`adcx`/`adox` (x86-64 only): elsewhere no [`Adx`] token exists, and
/// this stand-in is never built.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub struct Mulx(Adx);

#[cfg(not(target_arch = "x86_64"))]
impl Mulx {
    /// The rows, given the token.
    pub fn new(adx: Adx) -> Self {
        Mulx(adx)
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl crate::mpn::AddMul for Mulx {
    #[inline(always)]
    fn addmul_1(self, r: &mut [u64], a: &[u64], b: u64) -> u64 {
        crate::mpn::addmul_1(r, a, b)
    }
}

/// The exponentiations' constant-time table read on 64-bit words: `out = table[index]`,
/// the table's entries one after another, each `out.len()` words long. Every entry is
/// read in full, in order, whatever
/// the index; nothing branches on it and no address depends on it (the index carries
/// the secret). The accumulators stay in registers and `out` is written once. With the
/// [`Avx2`] token: 4 words per vector, the masks made by vector compares; otherwise
/// [`generic::select`].
///
/// # Panics
/// If the table's length is not a multiple of `out`'s, or (without AVX2) the table has
/// more than 2^[`crate::exp::MAX_WINDOW`] entries.
#[inline]
pub fn select(avx2: Option<Avx2>, table: &[u64], index: usize, out: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = avx2 {
        return x86_64::avx2::select(avx2, table, index, out);
    }
    let _ = avx2;
    generic::select(table, index, out);
}

/// The limb counts the unrolled `mulx-cios` code exists for (none off x86-64).
pub fn mulx_cios_limb_counts() -> &'static [usize] {
    #[cfg(target_arch = "x86_64")]
    return x86_64::adx::cios::LIMB_COUNTS;
    #[cfg(not(target_arch = "x86_64"))]
    return &[];
}

/// `a b R^-1 mod n` by the unrolled `mulx-cios` code of `N` limbs, fully reduced, for
/// callers whose size is a constant (the small fields): a direct call; `None` where
/// there is no code for `N` (and always off x86-64). Constant-time: yes.
#[inline(always)]
pub fn mulx_cios_mul<const N: usize>(
    adx: Adx,
    a: &[u64; N],
    b: &[u64; N],
    n: &[u64; N],
    n0: u64,
) -> Option<[u64; N]> {
    #[cfg(target_arch = "x86_64")]
    return x86_64::adx::cios::mont_mul(adx, a, b, n, n0);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (adx, a, b, n, n0);
        None
    }
}

/// `a^2 R^-1 mod n` by the unrolled `mulx-cios` code of `N` limbs: as
/// [`mulx_cios_mul`].
#[inline(always)]
pub fn mulx_cios_sqr<const N: usize>(
    adx: Adx,
    a: &[u64; N],
    n: &[u64; N],
    n0: u64,
) -> Option<[u64; N]> {
    #[cfg(target_arch = "x86_64")]
    return x86_64::adx::cios::mont_sqr(adx, a, n, n0);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (adx, a, n, n0);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry, every length from 1 to 40 words, against a plain copy; the
    /// portable path too.
    #[test]
    fn reads_the_entry_at_the_index() {
        for s in 1..=40usize {
            let entries: Vec<Vec<u64>> = (0..32u64)
                .map(|j| {
                    (0..s as u64)
                        .map(|k| (j + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ k << 7)
                        .collect()
                })
                .collect();
            let table = entries.concat();
            for index in [0, 1, 17, 31] {
                let mut out = vec![0xdead; s];
                select(Avx2::new(), &table, index, &mut out);
                assert_eq!(out, entries[index], "s = {s}, index = {index}");
                let mut out = vec![0xdead; s];
                generic::select(&table, index, &mut out);
                assert_eq!(out, entries[index], "portable, s = {s}, index = {index}");
                let t32: Vec<u32> = table.iter().map(|&x| x as u32).collect();
                let mut out = vec![7u32; s];
                generic::select(&t32, index, &mut out);
                assert_eq!(
                    out,
                    t32[index * s..][..s],
                    "u32 limbs, s = {s}, index = {index}"
                );
            }
            // An index past the table keeps no entry: all zeros, as the masks say.
            let mut out = vec![0xdead; s];
            select(Avx2::new(), &table[..8 * s], 8, &mut out);
            assert_eq!(out, vec![0; s], "s = {s}, index past the table");
        }
    }
}
