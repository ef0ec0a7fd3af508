//! The multiply-accumulate row `r += a * b` on BMI2 and ADX: `mulx` multiplies without
//! touching the flags, `adcx` adds the old `r[j]` along the carry flag and `adox` the
//! previous high word along the overflow flag, so the two carry chains run side by side
//! (Intel, *New Instructions Supporting Large Integer Arithmetic on Intel Architecture
//! Processors*, 2012; the technique of OpenSSL's `mulx4x` Montgomery code). Plain Rust
//! through `u128` gives LLVM one chain of `add`/`adc` per product instead.
//!
//! [`Mulx`] plugs this row into every product and reduction of [`crate::mpn`]; the
//! kernel [`MulxRedc`] (`mulx-redc`) is the schoolbook product (the squaring with each
//! off-diagonal product once, seed 004's SOS) followed by REDC, all on this row;
//! [`crate::algo::karatsuba`] uses the same row under its Karatsuba recursion.
//!
//! Words: 64. Reduction: `Full` and `Lazy`. Constant-time: yes (the loop count is the
//! length, no branch or address depends on values). Available on x86-64 CPUs with BMI2
//! and ADX (detected at run time; std caches the answer); elsewhere
//! [`is_available`] is false and [`Mulx::addmul_1`] runs the portable row.

use crate::algo::karatsuba;
use crate::dispatch::Thresholds;
use crate::kernel::{Kernel, KernelInfo};
use crate::mpn::{self, AddMul};
use crate::{Limb, Modulus, Reduction};

/// Thresholds that never recurse: the schoolbook product and squaring only.
const SCHOOLBOOK: Thresholds = Thresholds {
    ifma_from: usize::MAX,
    karatsuba_from: usize::MAX,
    mulx_from: usize::MAX,
    karatsuba_mul_base: usize::MAX,
    karatsuba_sqr_base: usize::MAX,
};

/// Rows on `mulx`/`adcx`/`adox` where the CPU has them, else portable Rust.
pub struct Mulx;

/// The `mulx-redc` kernel.
pub struct MulxRedc;

/// Whether this CPU has BMI2 and ADX (std caches the detection).
pub fn is_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("adx")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `r[..n] += a[..n] * b`, returning the carry word; n = `len`.
///
/// Inlined into its callers (inline asm needs no `target_feature` to assemble), so a
/// product or a reduction is one loop of rows without a call per row; the feature check
/// in [`Mulx::addmul_1`] is a cached flag, predicted the same way every time.
///
/// # Safety
/// The CPU has BMI2 and ADX; `a` is valid for reading and `r` for reading and writing
/// `len` words.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn addmul_1_adx(r: *mut u64, a: *const u64, len: usize, b: u64) -> u64 {
    let carry: u64;
    // One limb: hi:lo = a[j] b; lo += r[j] + CF (adcx); lo += c + OF (adox); r[j] = lo;
    // the high word becomes the next limb's c. The unrolled block alternates `c` and
    // `h` as that register, so no move is needed. Loop control uses lea/jrcxz/jmp,
    // which leave both flags alone. At the end c + CF + OF is the carry word: the row's
    // true sum r + a b is below 2^(64(n+1)).
    macro_rules! limb {
        ($off:literal, $c_in:literal, $hi_out:literal) => {
            concat!(
                "mulx {",
                $hi_out,
                "}, {lo}, qword ptr [{a} + ",
                $off,
                "]\n",
                "adcx {lo}, qword ptr [{r} + ",
                $off,
                "]\n",
                "adox {lo}, {",
                $c_in,
                "}\n",
                "mov qword ptr [{r} + ",
                $off,
                "], {lo}\n",
            )
        };
    }
    // SAFETY: the caller guarantees the features and the `len` words behind both
    // pointers; the asm reads a[0..len] and reads/writes r[0..len], nothing else, and
    // uses no stack.
    unsafe {
        core::arch::asm!(
            "xor {c:e}, {c:e}",
            // len % 8 single limbs, then len / 8 blocks of eight.
            "2:",
            "jrcxz 3f",
            limb!("0", "c", "h"),
            "mov {c}, {h}",
            "lea {a}, [{a} + 8]",
            "lea {r}, [{r} + 8]",
            "lea rcx, [rcx - 1]",
            "jmp 2b",
            "3:",
            "mov rcx, {blocks}",
            // The test sits after the body: jrcxz only jumps 127 bytes.
            "jmp 44f",
            "4:",
            limb!("0", "c", "h"),
            limb!("8", "h", "c"),
            limb!("16", "c", "h"),
            limb!("24", "h", "c"),
            limb!("32", "c", "h"),
            limb!("40", "h", "c"),
            limb!("48", "c", "h"),
            limb!("56", "h", "c"),
            "lea {a}, [{a} + 64]",
            "lea {r}, [{r} + 64]",
            "lea rcx, [rcx - 1]",
            "44:",
            "jrcxz 5f",
            "jmp 4b",
            "5:",
            "mov {lo}, 0",
            "adcx {c}, {lo}",
            "adox {c}, {lo}",
            a = inout(reg) a => _,
            r = inout(reg) r => _,
            blocks = in(reg) len / 8,
            inout("rcx") len % 8 => _,
            in("rdx") b,
            lo = out(reg) _,
            h = out(reg) _,
            c = out(reg) carry,
            options(nostack),
        );
    }
    carry
}

/// `r = 2 r + sum a[i]^2 2^(128 i)` over `2 len` words of `r`: per `i`, `adcx` doubles
/// the two words of `r` along the carry flag (x + x + CF) while `adox` adds `a[i]^2`
/// along the overflow flag. Both flags end clear: the result fits in `r`.
///
/// # Safety
/// The CPU has BMI2 and ADX; `a` is valid for reading `len` words and `r` for reading
/// and writing `2 len` words.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn double_add_diagonal_adx(r: *mut u64, a: *const u64, len: usize) {
    // SAFETY: the caller guarantees the features and the words behind both pointers;
    // the asm reads a[0..len] and reads/writes r[0..2 len], nothing else, no stack.
    unsafe {
        core::arch::asm!(
            "xor {x0:e}, {x0:e}",
            "jmp 3f",
            "2:",
            "mov rdx, qword ptr [{a}]",
            "mulx {hi}, {lo}, rdx",
            "mov {x0}, qword ptr [{r}]",
            "mov {x1}, qword ptr [{r} + 8]",
            "adcx {x0}, {x0}",
            "adcx {x1}, {x1}",
            "adox {x0}, {lo}",
            "adox {x1}, {hi}",
            "mov qword ptr [{r}], {x0}",
            "mov qword ptr [{r} + 8], {x1}",
            "lea {a}, [{a} + 8]",
            "lea {r}, [{r} + 16]",
            "lea rcx, [rcx - 1]",
            "3:",
            "jrcxz 4f",
            "jmp 2b",
            "4:",
            a = inout(reg) a => _,
            r = inout(reg) r => _,
            inout("rcx") len => _,
            out("rdx") _,
            lo = out(reg) _,
            hi = out(reg) _,
            x0 = out(reg) _,
            x1 = out(reg) _,
            options(nostack),
        );
    }
}

impl AddMul for Mulx {
    #[inline(always)]
    fn double_add_diagonal(r: &mut [u64], a: &[u64]) {
        #[cfg(target_arch = "x86_64")]
        if is_available() {
            assert_eq!(r.len(), 2 * a.len(), "square of the wrong length");
            // SAFETY: BMI2 and ADX are present (checked); `a` has a.len() readable words
            // and `r` exactly twice that many writable ones (asserted).
            return unsafe { double_add_diagonal_adx(r.as_mut_ptr(), a.as_ptr(), a.len()) };
        }
        mpn::double_add_diagonal(r, a);
    }

    #[inline(always)]
    fn addmul_1(r: &mut [u64], a: &[u64], b: u64) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if is_available() {
            assert!(r.len() >= a.len(), "row longer than its destination");
            // SAFETY: BMI2 and ADX are present (checked); `a` has a.len() readable words
            // and `r` at least that many writable ones (asserted).
            return unsafe { addmul_1_adx(r.as_mut_ptr(), a.as_ptr(), a.len(), b) };
        }
        mpn::addmul_1(r, a, b)
    }
}

static INFO: KernelInfo = KernelInfo {
    name: "mulx-redc",
    seed: "004 appendix (SOS)",
    summary: "schoolbook product (SOS squaring), then REDC, on mulx/adcx/adox rows",
    words: &[64],
    reductions: &[Reduction::Full, Reduction::Lazy],
    constant_time: true,
    available: is_available,
};

impl<L: Limb> Kernel<L> for MulxRedc {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    /// The stack-array instance ([`crate::fixed::FixedMulx`]) at the specialised sizes.
    fn resolve(&self, limbs: usize) -> Option<&'static dyn Kernel<L>> {
        crate::fixed::specialised_mulx::<L>(limbs)
    }

    fn mul(&self, m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        karatsuba::mont_mul_with(&SCHOOLBOOK, m, a, Some(b), out);
    }

    fn sqr(&self, m: &Modulus<L>, a: &[L], out: &mut [L]) {
        karatsuba::mont_mul_with(&SCHOOLBOOK, m, a, None, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mulx row equals the portable one, and the squaring on mulx passes equals the
    /// portable product, at every length 0..=20 on all-ones words (the largest carries)
    /// and a pseudo-random pattern. On a CPU without BMI2/ADX
    /// both sides are the portable row, and the test says so.
    #[test]
    fn row_equals_portable() {
        if !is_available() {
            eprintln!("mulx row: BMI2/ADX not available, comparing the fallback only");
        }
        let mut x = 0x0123_4567_89ab_cdefu64;
        for len in 0..=20 {
            for pattern in 0..2 {
                let mut gen = || {
                    x = x.rotate_left(29).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 3;
                    if pattern == 0 {
                        u64::MAX
                    } else {
                        x
                    }
                };
                let a: Vec<u64> = (0..len).map(|_| gen()).collect();
                let r0: Vec<u64> = (0..len + 1).map(|_| gen()).collect();
                let b = gen();
                let (mut r1, mut r2) = (r0.clone(), r0.clone());
                let c1 = Mulx::addmul_1(&mut r1, &a, b);
                let c2 = mpn::addmul_1(&mut r2, &a, b);
                assert_eq!((c1, &r1), (c2, &r2), "len {len} pattern {pattern}");
                if len > 0 {
                    // The squaring, whose last pass is double_add_diagonal.
                    let (mut sq, mut pr) = (vec![0u64; 2 * len], vec![0u64; 2 * len]);
                    mpn::sqr_basecase::<Mulx>(&mut sq, &a);
                    mpn::mul_basecase::<mpn::Portable>(&mut pr, &a, &a);
                    assert_eq!(sq, pr, "square len {len} pattern {pattern}");
                }
            }
        }
    }
}
