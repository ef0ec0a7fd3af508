//! Eight rows at a time on `mulx`/`adcx`/`adox`, with the eight words the rows are
//! working on in registers: `mulx-redc`'s REDC for moduli of a multiple of 8 limbs
//! (512, 1024, 1536, 2048, 3072 and 4096 bits), and the triangle of its squaring from
//! 24 such limbs.
//!
//! # Algorithm
//!
//! REDC (Montgomery 1985; seed 004 appendix, SOS: the reduction after the product)
//! adds `q_i n 2^(64 i)` to the `2s`-word product `t` for `i = 0 .. s`, `q_i = t_i n0
//! mod 2^64`. Row by row ([`crate::mpn::redc`]) each row reads and writes `s` words of
//! `t` through memory, and row `i + 1` cannot start until row `i` has written `t_{i+1}`.
//! Here a block of eight rows makes one pass over `t` instead of eight, as OpenSSL's
//! `sqrx8x_reduction` does:
//!
//! 1. **Corner.** The window `W` (eight registers) takes `t[0..8]`; for `k = 0..8`,
//!    `q_k = W_0 n0`, `W += q_k n[0..8]`, and the low word, now zero, leaves the window
//!    while the row's top word enters it. The eight `q_k` go to scratch memory. `W` now
//!    holds columns 8..16 of the sum, without the words of `t` there.
//! 2. **Chunks** `c = 1 .. s/8`. The chunk's words of `t` join the window,
//!    `W += t[8c .. 8c+8] + cin` (the carry out, 0 or 1, belongs to column `8c+8`, the
//!    low word of the next chunk's window, and waits in scratch as the next `cin`). Then
//!    row `k` adds `q_k n[8c .. 8c+8]`: after it column `8c+k` has everything it will
//!    get (later rows and chunks start higher), so it is stored to `t` and its register
//!    takes the row's new top word.
//! 3. **End.** `W += t[s .. s+8] + cin + top`, stored to `t[s .. s+8]`; the carry out is
//!    the new `top`, at column `s+8`: the next block's end adds it, and after the last
//!    block it is REDC's `top`.
//!
//! The next block starts at `t + 8` words. A modulus of `s` limbs takes `s / 8` blocks.
//!
//! A product `a b` (seed 004 appendix, the schoolbook product of SOS) is the same pass
//! with the multipliers `b[8k .. 8k+8]` given and every product kept: block `k` adds
//! them over all of `a` at `r[8k ..]`, its corner storing its columns as a chunk does
//! ([`mul8`]).
//!
//! The squaring's triangle (seed 004 appendix, SOS: each `a_i a_j`, `i < j`, once) is
//! the same pass with the multipliers given, `a[8b .. 8b+8]` for block `b`, over
//! `a[8b ..]` at `r[16b ..]`; its corner keeps only the products above the diagonal,
//! 28 of the 64 ([`sqr_triangle8`]). It serves from 24 limbs; at 16 the straight-line
//! rows of the module above are faster (`docs/PERFORMANCE.md`).
//!
//! # Bounds
//!
//! - Each row: `W + q_k n[j .. j+8] < 2^512 + (2^64 - 1)(2^512 - 1) < 2^576`, so the
//!   top word `hi + CF + OF` does not overflow and both flags end clear: no flag lives
//!   from one row to the next.
//! - A chunk's start: `W + T + cin <= 2 (2^512 - 1) + 1`, carry out 0 or 1.
//! - The end: `W + T + cin + top <= 2 (2^512 - 1) + 1 + 2`, carry out at most 2 (`top`
//!   in 0..=2 is the invariant from block to block). After the last block `top` is
//!   the bit above `t[2s-1]`, and REDC's bound `(t + q n) / R < 2n < 2R` makes it 0 or
//!   1.
//!
//! # Registers
//!
//! The window is `rbx rbp r8 .. r13` (rotating by one per row, so the eight rows of a
//! chunk are straight-line code and the next chunk starts with the same assignment);
//! `rdx` the multiplier, `rax`/`rcx` the halves of each product, `rdi` the block's
//! position in `t`, `rsi` in `n`, `r14` the scratch words, `r15` the chunk count.
//! The scratch words: the multipliers `q_0 .. q_7` (REDC's q, or the triangle's
//! `a[8b .. 8b+8]`), a zero (`adcx`/`adox` take no immediate), `n0`, `cin`, `top`.
//!
//! Constant-time: yes (the chunk count depends on the length only; every address is
//! fixed by it; no branch on values).

use super::Mulx;

/// Scratch word offsets (bytes) shared by the macros and the blocks.
macro_rules! slot {
    (zero) => {
        "64"
    };
    (n0) => {
        "72"
    };
    (cin) => {
        "80"
    };
    (top) => {
        "88"
    };
}

/// Row `$k` of the corner, the window's low word in `$a0` and the rest in order:
/// `q_k = a0 n0` to scratch, `W += q_k n[0..8]`, the top word into `$a0`.
#[rustfmt::skip]
macro_rules! corner_row {
    ($k:literal, $a0:ident, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(
            "mov rdx, ", stringify!($a0), "\n",
            "imul rdx, qword ptr [r14 + ", slot!(n0), "]\n",
            "mov qword ptr [r14 + 8*", $k, "], rdx\n",
            // Clears CF and OF, which the imul left undefined.
            "xor eax, eax\n",
            window_row!($a0, $a1, $a2, $a3, $a4, $a5, $a6, $a7, ""),
        )
    };
}

/// Row `$k` of a chunk: `W += q_k n[8c .. 8c+8]`, column `8c+k` stored, the top word
/// into `$a0`.
#[rustfmt::skip]
macro_rules! chunk_row {
    ($k:literal, $a0:ident, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(
            "mov rdx, qword ptr [r14 + 8*", $k, "]\n",
            // The flags are clear already; a fresh zero idiom cuts this row's chains
            // loose from the last row's, so the rows overlap.
            "xor ecx, ecx\n",
            window_row!(
                $a0, $a1, $a2, $a3, $a4, $a5, $a6, $a7,
                concat!("mov qword ptr [rdi + 8*", $k, "], ", stringify!($a0), "\n")
            ),
        )
    };
}

/// Row `$k` of a triangle block's corner: the products `a_k a_m` for `m = k+1 .. 8`,
/// `a_k` in scratch and `a_m` at `rsi`, at columns `k + m`; column `k` (the window's
/// low word, which this row does not touch) is final and stored, and its register
/// takes the top word, column `k + 8` (0 in the last row, which has no product).
#[rustfmt::skip]
macro_rules! triangle8_row {
    (7, $a0:ident, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(
            "mov qword ptr [rdi + 56], ", stringify!($a0), "\n",
            "xor ", stringify!($a0), ", ", stringify!($a0), "\n",
        )
    };
    ($k:tt, $a0:ident, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(
            "mov rdx, qword ptr [r14 + 8*", $k, "]\n",
            "mov qword ptr [rdi + 8*", $k, "], ", stringify!($a0), "\n",
            "xor ecx, ecx\n",
            triangle8_products!($k, $a1, $a2, $a3, $a4, $a5, $a6, $a7),
            "mulx ", stringify!($a0), ", rax, qword ptr [rsi + 56]\n",
            "adcx ", stringify!($a7), ", rax\n",
            "adox ", stringify!($a0), ", qword ptr [r14 + ", slot!(zero), "]\n",
            "adcx ", stringify!($a0), ", qword ptr [r14 + ", slot!(zero), "]\n",
        )
    };
}

/// The products `a_k a_m` of a triangle row for `m = k+1 .. 7` (the last, `m = 7`, is
/// the row's top product, written by [`triangle8_row`]), each lo into window word `m`
/// and hi into `m + 1`.
#[rustfmt::skip]
macro_rules! triangle8_products {
    (0, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(product!(8, $a1, $a2), triangle8_products!(1, $a1, $a2, $a3, $a4, $a5, $a6, $a7))
    };
    (1, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(product!(16, $a2, $a3), triangle8_products!(2, $a1, $a2, $a3, $a4, $a5, $a6, $a7))
    };
    (2, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(product!(24, $a3, $a4), triangle8_products!(3, $a1, $a2, $a3, $a4, $a5, $a6, $a7))
    };
    (3, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(product!(32, $a4, $a5), triangle8_products!(4, $a1, $a2, $a3, $a4, $a5, $a6, $a7))
    };
    (4, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(product!(40, $a5, $a6), triangle8_products!(5, $a1, $a2, $a3, $a4, $a5, $a6, $a7))
    };
    (5, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        product!(48, $a6, $a7)
    };
    (6, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        ""
    };
}

/// `W += rdx n[0..8]` at `rsi`, with the low word `$a0`: lo halves on CF, hi halves on
/// OF; `$store` runs once `$a0` is final, before its register takes the top word
/// `hi + CF + OF` (no overflow: the row's sum is below 2^576). Enters and leaves with
/// both flags clear.
#[rustfmt::skip]
macro_rules! window_row {
    ($a0:ident, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident, $store:expr) => {
        concat!(
            "mulx rcx, rax, qword ptr [rsi]\n",
            "adcx ", stringify!($a0), ", rax\n",
            "adox ", stringify!($a1), ", rcx\n",
            $store,
            product!(8, $a1, $a2),
            product!(16, $a2, $a3),
            product!(24, $a3, $a4),
            product!(32, $a4, $a5),
            product!(40, $a5, $a6),
            product!(48, $a6, $a7),
            "mulx ", stringify!($a0), ", rax, qword ptr [rsi + 56]\n",
            "adcx ", stringify!($a7), ", rax\n",
            "adox ", stringify!($a0), ", qword ptr [r14 + ", slot!(zero), "]\n",
            "adcx ", stringify!($a0), ", qword ptr [r14 + ", slot!(zero), "]\n",
        )
    };
}

/// One product of a row: `rdx n[off/8]`, lo into `$lo` on CF, hi into `$hi` on OF.
macro_rules! product {
    ($off:literal, $lo:ident, $hi:ident) => {
        concat!(
            "mulx rcx, rax, qword ptr [rsi + ",
            $off,
            "]\n",
            "adcx ",
            stringify!($lo),
            ", rax\n",
            "adox ",
            stringify!($hi),
            ", rcx\n",
        )
    };
}

/// `W += t[rdi .. rdi+8] + rax` (`rax` a small carry, on OF; `t` on CF); the carry out
/// (`CF + OF`) into `rax`, both flags left clear.
#[rustfmt::skip]
macro_rules! window_add {
    () => {
        concat!(
            "xor ecx, ecx\n",
            "adox rbx, rax\n",
            "adcx rbx, qword ptr [rdi]\n",
            "adox rbp, rcx\n",
            "adcx rbp, qword ptr [rdi + 8]\n",
            "adox r8, rcx\n",
            "adcx r8, qword ptr [rdi + 16]\n",
            "adox r9, rcx\n",
            "adcx r9, qword ptr [rdi + 24]\n",
            "adox r10, rcx\n",
            "adcx r10, qword ptr [rdi + 32]\n",
            "adox r11, rcx\n",
            "adcx r11, qword ptr [rdi + 40]\n",
            "adox r12, rcx\n",
            "adcx r12, qword ptr [rdi + 48]\n",
            "adox r13, rcx\n",
            "adcx r13, qword ptr [rdi + 56]\n",
            "mov eax, 0\n",
            "adcx rax, rcx\n",
            "adox rax, rcx\n",
        )
    };
}

/// The eight rows of a chunk: the window rotates by one register per row.
#[rustfmt::skip]
macro_rules! chunk_rows {
    ($row:ident) => {
        concat!(
            $row!(0, rbx, rbp, r8, r9, r10, r11, r12, r13),
            $row!(1, rbp, r8, r9, r10, r11, r12, r13, rbx),
            $row!(2, r8, r9, r10, r11, r12, r13, rbx, rbp),
            $row!(3, r9, r10, r11, r12, r13, rbx, rbp, r8),
            $row!(4, r10, r11, r12, r13, rbx, rbp, r8, r9),
            $row!(5, r11, r12, r13, rbx, rbp, r8, r9, r10),
            $row!(6, r12, r13, rbx, rbp, r8, r9, r10, r11),
            $row!(7, r13, rbx, rbp, r8, r9, r10, r11, r12),
        )
    };
}

/// Defines `$name`, one block of eight rows at `t` (module doc) whose first chunk is
/// `$corner`: `t` is the block's first word, `n` the `8 chunks` words it multiplies,
/// `scratch` holds the eight multipliers (or, for REDC's corner, `n0`, from which the
/// corner makes them) and the `top` of the block before, and receives the new `top`.
macro_rules! eight_row_block {
    ($(#[$doc:meta])* $name:ident, $corner:ident) => {
        $(#[$doc])*
        ///
        /// Constant-time: yes.
        ///
        /// # Safety
        /// The CPU has BMI2 and ADX; `chunks >= 1`; `t` is valid for reading and
        /// writing `8 chunks + 8` words and `n` for reading `8 chunks`.
        #[inline(always)]
        unsafe fn $name(t: *mut u64, n: *const u64, chunks: usize, scratch: &mut [u64; 12]) {
            // SAFETY: the caller guarantees the features and the words behind `t` and
            // `n`. The asm reads n[0 .. 8 chunks], reads and writes t[0 .. 8 chunks + 8]
            // and the 12 scratch words, all at offsets fixed by `chunks`. It pushes rbx
            // and rbp and pops them, so rsp is back where it was; every other register
            // it writes is declared.
            unsafe {
                core::arch::asm!(
                    "push rbx",
                    "push rbp",
                    "mov rbx, qword ptr [rdi]",
                    "mov rbp, qword ptr [rdi + 8]",
                    "mov r8, qword ptr [rdi + 16]",
                    "mov r9, qword ptr [rdi + 24]",
                    "mov r10, qword ptr [rdi + 32]",
                    "mov r11, qword ptr [rdi + 40]",
                    "mov r12, qword ptr [rdi + 48]",
                    "mov r13, qword ptr [rdi + 56]",
                    concat!("mov qword ptr [r14 + ", slot!(cin), "], 0"),
                    chunk_rows!($corner),
                    "lea rdi, [rdi + 64]",
                    "lea rsi, [rsi + 64]",
                    "sub r15, 1",
                    "jz 3f",
                    "2:",
                    concat!("mov rax, qword ptr [r14 + ", slot!(cin), "]"),
                    window_add!(),
                    concat!("mov qword ptr [r14 + ", slot!(cin), "], rax"),
                    chunk_rows!(chunk_row),
                    "lea rdi, [rdi + 64]",
                    "lea rsi, [rsi + 64]",
                    "sub r15, 1",
                    "jnz 2b",
                    "3:",
                    concat!("mov rax, qword ptr [r14 + ", slot!(cin), "]"),
                    concat!("add rax, qword ptr [r14 + ", slot!(top), "]"),
                    window_add!(),
                    concat!("mov qword ptr [r14 + ", slot!(top), "], rax"),
                    "mov qword ptr [rdi], rbx",
                    "mov qword ptr [rdi + 8], rbp",
                    "mov qword ptr [rdi + 16], r8",
                    "mov qword ptr [rdi + 24], r9",
                    "mov qword ptr [rdi + 32], r10",
                    "mov qword ptr [rdi + 40], r11",
                    "mov qword ptr [rdi + 48], r12",
                    "mov qword ptr [rdi + 56], r13",
                    "pop rbp",
                    "pop rbx",
                    inout("rdi") t => _,
                    inout("rsi") n => _,
                    in("r14") scratch.as_mut_ptr(),
                    inout("r15") chunks => _,
                    out("rax") _,
                    out("rcx") _,
                    out("rdx") _,
                    out("r8") _,
                    out("r9") _,
                    out("r10") _,
                    out("r11") _,
                    out("r12") _,
                    out("r13") _,
                );
            }
        }
    };
}

eight_row_block!(
    /// Eight REDC rows: the corner makes `q_k` from `n0` (scratch) and the window.
    redc8_block,
    corner_row
);

eight_row_block!(
    /// Eight rows of a squaring's triangle: the multipliers are `n[0..8]` themselves
    /// (in scratch), and the corner adds only the products above the diagonal.
    triangle8_block,
    triangle8_row
);

eight_row_block!(
    /// Eight rows of a product: the multipliers `b[8k .. 8k+8]` (in scratch), each
    /// product added, the corner's columns stored as the chunks' are.
    mul8_block,
    chunk_row
);

/// The product `r = a b` as [`crate::mpn::mul_basecase`], eight rows per pass, for
/// `a.len()` and `b.len()` multiples of 8 and `r` exactly `a.len() + b.len()` words;
/// `false` (nothing touched) otherwise.
///
/// Block `k` is rows `8k .. 8k+8`: the multipliers `b[8k .. 8k+8]` over all of `a` at
/// `r[8k ..]`, as REDC's blocks are over `n` at `t[8k ..]`; its carry out at column
/// `8k + a.len() + 8` is the next block's `top`, and after the last block it is 0 (the
/// product is below `2^(64 (a.len() + b.len()))`).
///
/// Constant-time: yes.
#[inline(always)]
pub(super) fn mul8(rows: Mulx, r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    let _ = rows;
    let (sa, sb) = (a.len(), b.len());
    if sa == 0 || sb == 0 || !sa.is_multiple_of(8) || !sb.is_multiple_of(8) {
        return false;
    }
    if r.len() != sa + sb {
        return false;
    }
    r.fill(0);
    let mut scratch = [0u64; 12];
    for block in 0..sb / 8 {
        scratch[..8].copy_from_slice(&b[8 * block..8 * block + 8]);
        // SAFETY: BMI2 and ADX are present (the `Mulx` token); the block at word 8
        // block reads a[0 .. sa] (8 chunks words) and reads and writes r[8 block .. 8
        // block + sa + 8], inside r's sa + sb words since 8 block + 8 <= sb.
        unsafe {
            mul8_block(
                r.as_mut_ptr().add(8 * block),
                a.as_ptr(),
                sa / 8,
                &mut scratch,
            )
        };
    }
    debug_assert_eq!(scratch[11], 0, "the product fits in sa + sb words");
    true
}

/// REDC as [`crate::mpn::redc`] (same contract: `out = t R^-1` up to one `n`, `top`
/// returned), eight rows per pass, for `n.len()` a multiple of 8; `None` (nothing
/// touched) for other lengths.
///
/// Constant-time: yes.
#[inline(always)]
pub(super) fn redc8(rows: Mulx, t: &mut [u64], n: &[u64], n0: u64, out: &mut [u64]) -> Option<u64> {
    let _ = rows;
    let s = n.len();
    if s == 0 || !s.is_multiple_of(8) {
        return None;
    }
    assert!(
        t.len() == 2 * s && out.len() == s,
        "REDC of the wrong length"
    );
    let mut scratch = [0u64; 12];
    scratch[9] = n0;
    for block in 0..s / 8 {
        // SAFETY: BMI2 and ADX are present (the `Mulx` token); the block at word 8
        // block reads and writes t[8 block .. 8 block + s + 8], inside t's 2s words
        // since 8 block + 8 <= s; n has s = 8 (s / 8) words; s / 8 >= 1.
        unsafe {
            redc8_block(
                t.as_mut_ptr().add(8 * block),
                n.as_ptr(),
                s / 8,
                &mut scratch,
            )
        };
    }
    out.copy_from_slice(&t[s..]);
    let top = scratch[11];
    debug_assert!(top <= 1, "REDC's top word is a bit");
    Some(top)
}

/// The off-diagonal triangle of a square as [`crate::mpn::AddMul::sqr_triangle`] (same
/// contract: `r[1 .. 2s-1] = sum_{i<j} a_i a_j 2^(64(i+j))`, `r[0] = r[2s-1] = 0`),
/// eight rows per pass, for `a.len()` a multiple of 8; `false` (nothing touched) for
/// other lengths.
///
/// Block `b` is rows `8b .. 8b+8`: the multipliers `a[8b .. 8b+8]`, the products with
/// `a[8b ..]` (the corner keeps those above the diagonal) at `r[16b ..]`. Its carry out,
/// at column `8b + s + 8`, goes into that word of `r`, which no earlier block reached
/// and the next block's end adds; after the last block it is 0 (the triangle is below
/// `2^(128 s)`).
///
/// Constant-time: yes.
#[inline(always)]
pub(super) fn sqr_triangle8(rows: Mulx, r: &mut [u64], a: &[u64]) -> bool {
    let _ = rows;
    let s = a.len();
    if s == 0 || !s.is_multiple_of(8) {
        return false;
    }
    assert_eq!(r.len(), 2 * s, "triangle of the wrong length");
    r.fill(0);
    let mut scratch = [0u64; 12];
    for block in 0..s / 8 {
        scratch[..8].copy_from_slice(&a[8 * block..8 * block + 8]);
        scratch[11] = 0;
        let chunks = (s - 8 * block) / 8;
        // SAFETY: BMI2 and ADX are present (the `Mulx` token); the block reads
        // a[8 block .. s] (8 chunks words) and reads and writes r[16 block .. 8 block +
        // s + 8] (8 chunks + 8 words), inside r's 2s words since 8 block + 8 <= s.
        unsafe {
            triangle8_block(
                r.as_mut_ptr().add(16 * block),
                a.as_ptr().add(8 * block),
                chunks,
                &mut scratch,
            )
        };
        let carry = scratch[11];
        match r.get_mut(8 * block + s + 8) {
            Some(word) => *word = carry,
            None => debug_assert_eq!(carry, 0, "the triangle fits in 2s words"),
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::cpu::Adx;
    use crate::mpn;
    use crate::Limb;
    use proptest::prelude::*;

    /// The fused REDC and the row-by-row one on the same `t`.
    fn check(t: &[u64], n: &[u64], n0: u64) {
        let rows = Mulx::new(Adx::new().expect("checked by the caller"));
        let s = n.len();
        let (mut t1, mut t2) = (t.to_vec(), t.to_vec());
        let (mut o1, mut o2) = (vec![0u64; s], vec![0u64; s]);
        let top1 = redc8(rows, &mut t1, n, n0, &mut o1).expect("a multiple of 8");
        let top2 = mpn::redc(mpn::Portable, &mut t2, n, n0, &mut o2);
        assert_eq!((top1, &o1), (top2, &o2), "s = {s}");
    }

    /// `n0' = -n^-1 mod 2^64`.
    fn neg_inv(n_0: u64) -> u64 {
        u64::inv_mod_word(n_0).wrapping_neg()
    }

    /// A pseudo-random odd modulus of `s` words whose top word is `top`, and a `t` below
    /// `n R` built from `fill` (all ones where it can be: the longest carries).
    fn case(s: usize, seed: u64, top: u64, fill: Option<u64>) -> (Vec<u64>, Vec<u64>) {
        let mut x = seed | 1;
        let mut gen = || {
            x = x.rotate_left(23).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5bd1;
            fill.unwrap_or(x)
        };
        let mut n: Vec<u64> = (0..s).map(|_| gen()).collect();
        n[0] |= 1;
        n[s - 1] = top;
        let mut t: Vec<u64> = (0..2 * s).map(|_| gen()).collect();
        // t < n R: its top word below n's.
        t[2 * s - 1] = top.saturating_sub(1);
        (n, t)
    }

    #[test]
    fn equals_row_by_row_at_every_size_and_extreme() {
        if Adx::new().is_none() {
            eprintln!("SKIPPED: the fused REDC needs BMI2 and ADX");
            return;
        }
        for s in [8, 16, 24, 32, 40, 48, 64, 128, 256] {
            for (seed, top, fill) in [
                (1, u64::MAX, None),
                (2, u64::MAX, Some(u64::MAX)),
                (3, 1, None),
                (4, 1 << 63, Some(u64::MAX)),
                (5, u64::MAX, Some(0)),
                (6, 2, Some(u64::MAX)),
            ] {
                let (n, t) = case(s, seed, top, fill);
                check(&t, &n, neg_inv(n[0]));
            }
        }
    }

    /// The eight-row triangle against the product of num-bigint: the triangle doubled
    /// plus the diagonal is the square.
    fn check_triangle(a: &[u64]) {
        let rows = Mulx::new(Adx::new().expect("checked by the caller"));
        let s = a.len();
        let mut r = vec![7u64; 2 * s];
        assert!(sqr_triangle8(rows, &mut r, a));
        assert_eq!((r[0], r[2 * s - 1]), (0, 0), "s = {s}");
        let value = crate::mpn::oracle_value;
        let diagonal: num_bigint::BigUint = a
            .iter()
            .enumerate()
            .map(|(i, &x)| num_bigint::BigUint::from(x as u128 * x as u128) << (128 * i))
            .sum();
        let x = value(a);
        assert_eq!((value(&r) << 1u32) + diagonal, &x * &x, "s = {s}");
    }

    /// The eight-row product against num-bigint's.
    fn check_product(a: &[u64], b: &[u64]) {
        let rows = Mulx::new(Adx::new().expect("checked by the caller"));
        let mut r = vec![7u64; a.len() + b.len()];
        assert!(mul8(rows, &mut r, a, b));
        let value = crate::mpn::oracle_value;
        assert_eq!(value(&r), value(a) * value(b), "{} x {}", a.len(), b.len());
    }

    /// The triangle and the product at every size, on pseudo-random words, words of all
    /// ones and zeros, and one word set among all ones or zeros; the product also at
    /// unequal lengths (8 words by s, s by 8).
    #[test]
    fn triangle_and_product_equal_the_oracle_at_every_size_and_extreme() {
        if Adx::new().is_none() {
            eprintln!("SKIPPED: the eight-row triangle and product need BMI2 and ADX");
            return;
        }
        for s in [8, 16, 24, 32, 40, 48, 64, 128, 256] {
            for seed in 0..4u64 {
                let fill = [None, Some(u64::MAX), Some(0), None][seed as usize];
                let (n, t) = case(s, seed, u64::MAX, fill);
                check_triangle(&t[..s]);
                check_product(&t[..s], &n);
                check_product(&t[..s], &t[s..]);
                check_product(&t[..s], &n[..8]);
                check_product(&n[..8], &t[..s]);
            }
            for fill in [0, u64::MAX] {
                let mut a = vec![fill; s];
                a[s / 2] = fill ^ (1 << 63);
                check_triangle(&a);
                check_product(&a, &a);
            }
            let ones = vec![u64::MAX; s];
            check_product(&ones, &ones);
        }
    }

    #[test]
    fn other_lengths_are_left_to_the_rows() {
        let Some(adx) = Adx::new() else {
            eprintln!("SKIPPED: the fused REDC needs BMI2 and ADX");
            return;
        };
        let (n, mut t) = case(12, 7, u64::MAX, None);
        let before = t.clone();
        let mut out = vec![0u64; 12];
        assert_eq!(
            redc8(Mulx::new(adx), &mut t, &n, neg_inv(n[0]), &mut out),
            None
        );
        assert_eq!(t, before);
        let mut r = vec![1u64; 24];
        assert!(!sqr_triangle8(Mulx::new(adx), &mut r, &n));
        assert_eq!(r, vec![1u64; 24]);
        assert!(!mul8(Mulx::new(adx), &mut r, &n, &n));
        assert_eq!(r, vec![1u64; 24]);
        // Multiples of 8, but a destination of the wrong length.
        let mut r = vec![1u64; 40];
        assert!(!mul8(Mulx::new(adx), &mut r, &t[..16], &t[..16]));
        assert_eq!(r, vec![1u64; 40]);
    }

    proptest! {
        #[test]
        fn random_products(s8 in 1usize..=8, seed: u64, top in 1u64.., words in 0u8..3) {
            if Adx::new().is_some() {
                let fill = [None, Some(u64::MAX), Some(0)][words as usize];
                let (n, t) = case(8 * s8, seed, top, fill);
                check(&t, &n, neg_inv(n[0]));
                check_triangle(&t[..8 * s8]);
                check_product(&t[..8 * s8], &n);
            }
        }
    }
}
