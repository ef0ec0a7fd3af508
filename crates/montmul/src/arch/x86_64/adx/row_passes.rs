//! Eight (or four) rows at a time on `mulx`/`adcx`/`adox`, with the words the rows are
//! working on in registers: `mulx-redc`'s product and REDC for moduli of a multiple of
//! 8 limbs (512, 1024, 1536, 2048, 3072 and 4096 bits) and, four rows at a time, of 12
//! and 20 limbs (768 and 1280 bits; the REDC at 20 only), and the triangle of its
//! squaring from 24 limbs, a multiple of 8.
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
//! ([`mul_rows`]).
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
//! # Four rows
//!
//! The same passes with a window of four registers, chunks of four words and blocks of
//! four rows serve lengths that are multiples of 4 but not of 8 ([`redc_rows`] below
//! 24 limbs, [`mul_rows`] below 16: above, the rows of `addmul_1` measured as fast or
//! faster). The bounds are those above with `2^256` for `2^512` and `2^320` for
//! `2^576`. The row macros are written once over the window's register list.
//!
//! # Registers
//!
//! The window is `rbx rbp r8 .. r13`, or `r8 .. r11` for four rows (rotating by one per
//! row, so the rows of a chunk are straight-line code and the next chunk starts with
//! the same assignment); `rdx` the multiplier, `rax`/`rcx` the halves of each product,
//! `rdi` the block's position in `t`, `rsi` in `n`, `r14` the scratch words, `r15` the
//! chunk count. The scratch words: the multipliers `q_0 .. q_7` (REDC's q, or the
//! triangle's `a[8b .. 8b+8]`; four of them for four rows), a zero (`adcx`/`adox` take
//! no immediate), `n0`, `cin`, `top`.
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

/// Row `$k` of the corner, the window's registers from its low word: `q_k = a0 n0` to
/// scratch, `W += q_k n[0..w]`, the top word into `$a0`.
#[rustfmt::skip]
macro_rules! corner_row {
    ($k:literal, [$a0:ident $(, $a:ident)*]) => {
        concat!(
            "mov rdx, ", stringify!($a0), "\n",
            "imul rdx, qword ptr [r14 + ", slot!(n0), "]\n",
            "mov qword ptr [r14 + 8*", $k, "], rdx\n",
            // Clears CF and OF, which the imul left undefined.
            "xor eax, eax\n",
            window_row!([$a0 $(, $a)*], ""),
        )
    };
}

/// Row `$k` of a chunk: `W += q_k n[w c .. w c + w]`, column `w c + k` stored, the top
/// word into `$a0`.
#[rustfmt::skip]
macro_rules! chunk_row {
    ($k:literal, [$a0:ident $(, $a:ident)*]) => {
        concat!(
            "mov rdx, qword ptr [r14 + 8*", $k, "]\n",
            // The flags are clear already; a fresh zero idiom cuts this row's chains
            // loose from the last row's, so the rows overlap.
            "xor ecx, ecx\n",
            window_row!(
                [$a0 $(, $a)*],
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
    (7, [$a0:ident, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident]) => {
        concat!(
            "mov qword ptr [rdi + 56], ", stringify!($a0), "\n",
            "xor ", stringify!($a0), ", ", stringify!($a0), "\n",
        )
    };
    ($k:tt, [$a0:ident, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident]) => {
        concat!(
            "mov rdx, qword ptr [r14 + 8*", $k, "]\n",
            "mov qword ptr [rdi + 8*", $k, "], ", stringify!($a0), "\n",
            "xor ecx, ecx\n",
            triangle8_products!($k, $a1, $a2, $a3, $a4, $a5, $a6, $a7),
            row_top!(7, $a0, $a7),
        )
    };
}

/// The products `a_k a_m` of a triangle row for `m = k+1 .. 7` (the last, `m = 7`, is
/// the row's top product, written by [`triangle8_row`]), each lo into window word `m`
/// and hi into `m + 1`.
#[rustfmt::skip]
macro_rules! triangle8_products {
    (0, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(product!(1, $a1, $a2), triangle8_products!(1, $a1, $a2, $a3, $a4, $a5, $a6, $a7))
    };
    (1, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(product!(2, $a2, $a3), triangle8_products!(2, $a1, $a2, $a3, $a4, $a5, $a6, $a7))
    };
    (2, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(product!(3, $a3, $a4), triangle8_products!(3, $a1, $a2, $a3, $a4, $a5, $a6, $a7))
    };
    (3, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(product!(4, $a4, $a5), triangle8_products!(4, $a1, $a2, $a3, $a4, $a5, $a6, $a7))
    };
    (4, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        concat!(product!(5, $a5, $a6), triangle8_products!(5, $a1, $a2, $a3, $a4, $a5, $a6, $a7))
    };
    (5, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        product!(6, $a6, $a7)
    };
    (6, $a1:ident, $a2:ident, $a3:ident, $a4:ident, $a5:ident, $a6:ident, $a7:ident) => {
        ""
    };
}

/// `W += rdx n[0..w]` at `rsi`, the window's registers from its low word `$a0`: lo
/// halves on CF, hi halves on OF; `$store` runs once `$a0` is final, before its register
/// takes the top word `hi + CF + OF` (no overflow: the row's sum is below
/// `2^(64 (w + 1))`). Enters and leaves with both flags clear.
#[rustfmt::skip]
macro_rules! window_row {
    ([$a0:ident, $a1:ident $(, $a:ident)*], $store:expr) => {
        concat!(
            "mulx rcx, rax, qword ptr [rsi]\n",
            "adcx ", stringify!($a0), ", rax\n",
            "adox ", stringify!($a1), ", rcx\n",
            $store,
            row_products!((1), $a0; $a1 $(, $a)*),
        )
    };
}

/// The products of a row from word `$i` of `n` on, while two window registers are
/// left (lo into the first, hi into the second); then the top product, whose hi
/// half goes to `$a0`, the register the row freed.
macro_rules! row_products {
    ($i:tt, $a0:ident; $last:ident) => {
        row_top!($i, $a0, $last)
    };
    ($i:tt, $a0:ident; $lo:ident, $hi:ident $(, $a:ident)*) => {
        concat!(
            product!($i, $lo, $hi),
            row_products!(($i + 1), $a0; $hi $(, $a)*)
        )
    };
}

/// A row's top product `rdx n[$i]`: lo into `$last` on CF, hi into `$a0`, then both
/// flags folded into `$a0` (the row's top word) and left clear.
macro_rules! row_top {
    ($i:tt, $a0:ident, $last:ident) => {
        concat!(
            "mulx ",
            stringify!($a0),
            ", rax, qword ptr [rsi + 8*",
            stringify!($i),
            "]\n",
            "adcx ",
            stringify!($last),
            ", rax\n",
            "adox ",
            stringify!($a0),
            ", qword ptr [r14 + ",
            slot!(zero),
            "]\n",
            "adcx ",
            stringify!($a0),
            ", qword ptr [r14 + ",
            slot!(zero),
            "]\n",
        )
    };
}

/// One product of a row: `rdx n[$i]`, lo into `$lo` on CF, hi into `$hi` on OF.
macro_rules! product {
    ($i:tt, $lo:ident, $hi:ident) => {
        concat!(
            "mulx rcx, rax, qword ptr [rsi + 8*",
            stringify!($i),
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

/// `W += t[rdi .. rdi+w] + rax` (`rax` a small carry, on OF; `t` on CF); the carry out
/// (`CF + OF`) into `rax`, both flags left clear.
#[rustfmt::skip]
macro_rules! window_add {
    ($a0:ident $(, $a:ident)*) => {
        concat!(
            "xor ecx, ecx\n",
            "adox ", stringify!($a0), ", rax\n",
            "adcx ", stringify!($a0), ", qword ptr [rdi]\n",
            window_add_words!((1); $($a),*),
            "mov eax, 0\n",
            "adcx rax, rcx\n",
            "adox rax, rcx\n",
        )
    };
}

/// The words of [`window_add`] above the low one, from word `$i` of `t` on.
#[rustfmt::skip]
macro_rules! window_add_words {
    ($i:tt; ) => {
        ""
    };
    ($i:tt; $a:ident $(, $rest:ident)*) => {
        concat!(
            "adox ", stringify!($a), ", rcx\n",
            "adcx ", stringify!($a), ", qword ptr [rdi + 8*", stringify!($i), "]\n",
            window_add_words!(($i + 1); $($rest),*),
        )
    };
}

/// The window's registers loaded from (`load`) or stored to (`store`) `t[rdi ..]`,
/// from word `$i` on.
#[rustfmt::skip]
macro_rules! window_mov {
    ($dir:ident, $i:tt; ) => {
        ""
    };
    (load, $i:tt; $a:ident $(, $rest:ident)*) => {
        concat!(
            "mov ", stringify!($a), ", qword ptr [rdi + 8*", stringify!($i), "]\n",
            window_mov!(load, ($i + 1); $($rest),*),
        )
    };
    (store, $i:tt; $a:ident $(, $rest:ident)*) => {
        concat!(
            "mov qword ptr [rdi + 8*", stringify!($i), "], ", stringify!($a), "\n",
            window_mov!(store, ($i + 1); $($rest),*),
        )
    };
}

/// The rows of a chunk: the window rotates by one register per row, so that after
/// `w` rows it is back where it started. Eight rows keep the window in
/// `rbx rbp r8 .. r13`, four in `r8 .. r11`.
#[rustfmt::skip]
macro_rules! chunk_rows {
    (8, $row:ident) => {
        concat!(
            $row!(0, [rbx, rbp, r8, r9, r10, r11, r12, r13]),
            $row!(1, [rbp, r8, r9, r10, r11, r12, r13, rbx]),
            $row!(2, [r8, r9, r10, r11, r12, r13, rbx, rbp]),
            $row!(3, [r9, r10, r11, r12, r13, rbx, rbp, r8]),
            $row!(4, [r10, r11, r12, r13, rbx, rbp, r8, r9]),
            $row!(5, [r11, r12, r13, rbx, rbp, r8, r9, r10]),
            $row!(6, [r12, r13, rbx, rbp, r8, r9, r10, r11]),
            $row!(7, [r13, rbx, rbp, r8, r9, r10, r11, r12]),
        )
    };
    (4, $row:ident) => {
        concat!(
            $row!(0, [r8, r9, r10, r11]),
            $row!(1, [r9, r10, r11, r8]),
            $row!(2, [r10, r11, r8, r9]),
            $row!(3, [r11, r8, r9, r10]),
        )
    };
}

/// The window's registers, low word first, for each row count.
macro_rules! window {
    (8, $m:ident!($($pre:tt)*)) => {
        $m!($($pre)* rbx, rbp, r8, r9, r10, r11, r12, r13)
    };
    (4, $m:ident!($($pre:tt)*)) => {
        $m!($($pre)* r8, r9, r10, r11)
    };
}

/// Defines `$name`, one block of `$w` rows (8 or 4) at `t` (module doc) whose first
/// chunk is `$corner`: `t` is the block's first word, `n` the `w chunks` words it
/// multiplies, `scratch` holds the `w` multipliers (or, for REDC's corner, `n0`, from
/// which the corner makes them) and the `top` of the block before, and receives the
/// new `top`.
macro_rules! row_block {
    ($(#[$doc:meta])* $name:ident, $w:tt, $corner:ident) => {
        $(#[$doc])*
        ///
        /// Constant-time: yes.
        ///
        /// # Safety
        /// The CPU has BMI2 and ADX; `chunks >= 1`; `t` is valid for reading and
        /// writing `w chunks + w` words and `n` for reading `w chunks`.
        #[inline(always)]
        unsafe fn $name(t: *mut u64, n: *const u64, chunks: usize, scratch: &mut [u64; 12]) {
            // SAFETY: the caller guarantees the features and the words behind `t` and
            // `n`. The asm reads n[0 .. w chunks], reads and writes t[0 .. w chunks + w]
            // and the 12 scratch words, all at offsets fixed by `chunks`. It pushes rbx
            // and rbp and pops them, so rsp is back where it was; every other register
            // it writes is declared.
            unsafe {
                core::arch::asm!(
                    "push rbx",
                    "push rbp",
                    window!($w, window_mov!(load, (0);)),
                    concat!("mov qword ptr [r14 + ", slot!(cin), "], 0"),
                    chunk_rows!($w, $corner),
                    concat!("lea rdi, [rdi + 8*", $w, "]"),
                    concat!("lea rsi, [rsi + 8*", $w, "]"),
                    "sub r15, 1",
                    "jz 3f",
                    "2:",
                    concat!("mov rax, qword ptr [r14 + ", slot!(cin), "]"),
                    window!($w, window_add!()),
                    concat!("mov qword ptr [r14 + ", slot!(cin), "], rax"),
                    chunk_rows!($w, chunk_row),
                    concat!("lea rdi, [rdi + 8*", $w, "]"),
                    concat!("lea rsi, [rsi + 8*", $w, "]"),
                    "sub r15, 1",
                    "jnz 2b",
                    "3:",
                    concat!("mov rax, qword ptr [r14 + ", slot!(cin), "]"),
                    concat!("add rax, qword ptr [r14 + ", slot!(top), "]"),
                    window!($w, window_add!()),
                    concat!("mov qword ptr [r14 + ", slot!(top), "], rax"),
                    window!($w, window_mov!(store, (0);)),
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

row_block!(
    /// Eight REDC rows: the corner makes `q_k` from `n0` (scratch) and the window.
    redc8_block,
    8,
    corner_row
);

row_block!(
    /// Four REDC rows, as [`redc8_block`].
    redc4_block,
    4,
    corner_row
);

row_block!(
    /// Eight rows of a squaring's triangle: the multipliers are `n[0..8]` themselves
    /// (in scratch), and the corner adds only the products above the diagonal.
    triangle8_block,
    8,
    triangle8_row
);

row_block!(
    /// Eight rows of a product: the multipliers `b[8k .. 8k+8]` (in scratch), each
    /// product added, the corner's columns stored as the chunks' are.
    mul8_block,
    8,
    chunk_row
);

row_block!(
    /// Four rows of a product, as [`mul8_block`].
    mul4_block,
    4,
    chunk_row
);

/// Below this many limbs, a REDC whose length is a multiple of 4 but not of 8 takes
/// four rows per pass (12 and 20 limbs); from it, the row-by-row REDC is as fast or
/// faster (`docs/PERFORMANCE.md`, "Four rows per pass").
const FOUR_ROW_REDC_BELOW: usize = 24;

/// The same for the product: four rows per pass at 12 limbs only; at 20 limbs and up
/// the rows of `addmul_1` were faster.
const FOUR_ROW_MUL_BELOW: usize = 16;

/// The rows per pass for lengths that are all multiples of it: 8, else 4 where every
/// length is below `four_below`; `None` when some length is 0 or fits neither.
fn rows_per_pass(lens: &[usize], four_below: usize) -> Option<usize> {
    let all = |w: usize| lens.iter().all(|&len| len > 0 && len.is_multiple_of(w));
    if all(8) {
        Some(8)
    } else if all(4) && lens.iter().all(|&len| len < four_below) {
        Some(4)
    } else {
        None
    }
}

/// The product `r = a b` as [`crate::mpn::mul_basecase`], eight rows per pass for
/// `a.len()` and `b.len()` multiples of 8, four for multiples of 4 below
/// [`FOUR_ROW_MUL_BELOW`], and `r` exactly `a.len() + b.len()` words; `false` (nothing
/// touched) otherwise.
///
/// Block `k` is rows `w k .. w k + w`: the multipliers `b[w k .. w k + w]` over all of
/// `a` at `r[w k ..]`, as REDC's blocks are over `n` at `t[w k ..]`; its carry out at
/// column `w k + a.len() + w` is the next block's `top`, and after the last block it is
/// 0 (the product is below `2^(64 (a.len() + b.len()))`).
///
/// Constant-time: yes (the pass width and the block count follow from the lengths).
#[inline(always)]
pub(super) fn mul_rows(rows: Mulx, r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    let _ = rows;
    let (sa, sb) = (a.len(), b.len());
    let Some(w) = rows_per_pass(&[sa, sb], FOUR_ROW_MUL_BELOW) else {
        return false;
    };
    if r.len() != sa + sb {
        return false;
    }
    r.fill(0);
    let mut scratch = [0u64; 12];
    for block in 0..sb / w {
        scratch[..w].copy_from_slice(&b[w * block..w * block + w]);
        // SAFETY: BMI2 and ADX are present (the `Mulx` token); the block at word w
        // block reads a[0 .. sa] (w chunks words) and reads and writes r[w block .. w
        // block + sa + w], inside r's sa + sb words since w block + w <= sb.
        unsafe {
            let t = r.as_mut_ptr().add(w * block);
            if w == 8 {
                mul8_block(t, a.as_ptr(), sa / 8, &mut scratch)
            } else {
                mul4_block(t, a.as_ptr(), sa / 4, &mut scratch)
            }
        };
    }
    debug_assert_eq!(scratch[11], 0, "the product fits in sa + sb words");
    true
}

/// REDC as [`crate::mpn::redc`] (same contract: `out = t R^-1` up to one `n`, `top`
/// returned), eight rows per pass for `n.len()` a multiple of 8, four for a multiple of
/// 4 below [`FOUR_ROW_REDC_BELOW`]; `None` (nothing touched) for other lengths.
///
/// Constant-time: yes (the pass width and the block count follow from the length).
#[inline(always)]
pub(super) fn redc_rows(
    rows: Mulx,
    t: &mut [u64],
    n: &[u64],
    n0: u64,
    out: &mut [u64],
) -> Option<u64> {
    let _ = rows;
    let s = n.len();
    let w = rows_per_pass(&[s], FOUR_ROW_REDC_BELOW)?;
    assert!(
        t.len() == 2 * s && out.len() == s,
        "REDC of the wrong length"
    );
    let mut scratch = [0u64; 12];
    scratch[9] = n0;
    for block in 0..s / w {
        // SAFETY: BMI2 and ADX are present (the `Mulx` token); the block at word w
        // block reads and writes t[w block .. w block + s + w], inside t's 2s words
        // since w block + w <= s; n has s = w (s / w) words; s / w >= 1.
        unsafe {
            let tb = t.as_mut_ptr().add(w * block);
            if w == 8 {
                redc8_block(tb, n.as_ptr(), s / 8, &mut scratch)
            } else {
                redc4_block(tb, n.as_ptr(), s / 4, &mut scratch)
            }
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
        let top1 = redc_rows(rows, &mut t1, n, n0, &mut o1).expect("a multiple of 4");
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
            montmul_testkit::skipped!("SKIPPED: the fused REDC needs BMI2 and ADX");
            return;
        }
        for s in [4, 8, 12, 16, 20, 24, 32, 40, 48, 64, 128, 256] {
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
        assert!(mul_rows(rows, &mut r, a, b));
        let value = crate::mpn::oracle_value;
        assert_eq!(value(&r), value(a) * value(b), "{} x {}", a.len(), b.len());
    }

    /// The triangle (multiples of 8) and the product (on eight or four rows per pass)
    /// at every size, on pseudo-random words, words of all ones and zeros, and one word
    /// set among all ones or zeros; the product also at unequal lengths (4 and 8 words
    /// by s, s by 4 and 8).
    #[test]
    fn triangle_and_product_equal_the_oracle_at_every_size_and_extreme() {
        if Adx::new().is_none() {
            montmul_testkit::skipped!(
                "SKIPPED: the eight-row triangle and product need BMI2 and ADX"
            );
            return;
        }
        for s in [4usize, 8, 12, 16, 24, 32, 40, 48, 64, 128, 256] {
            let triangle = s.is_multiple_of(8);
            for seed in 0..4u64 {
                let fill = [None, Some(u64::MAX), Some(0), None][seed as usize];
                let (n, t) = case(s, seed, u64::MAX, fill);
                if triangle {
                    check_triangle(&t[..s]);
                }
                check_product(&t[..s], &n);
                check_product(&t[..s], &t[s..]);
                if s < FOUR_ROW_MUL_BELOW {
                    check_product(&t[..s], &n[..4]);
                    check_product(&n[..4], &t[..s]);
                }
                if triangle {
                    check_product(&t[..s], &n[..8]);
                    check_product(&n[..8], &t[..s]);
                }
            }
            for fill in [0, u64::MAX] {
                let mut a = vec![fill; s];
                a[s / 2] = fill ^ (1 << 63);
                if triangle {
                    check_triangle(&a);
                }
                check_product(&a, &a);
            }
            let ones = vec![u64::MAX; s];
            check_product(&ones, &ones);
        }
    }

    #[test]
    fn other_lengths_are_left_to_the_rows() {
        let Some(adx) = Adx::new() else {
            montmul_testkit::skipped!("SKIPPED: the fused REDC needs BMI2 and ADX");
            return;
        };
        let rows = Mulx::new(adx);
        // The REDC declines an `s`-limb modulus and leaves `t` alone.
        let declines = |s: usize, seed: u64| {
            let (n, mut t) = case(s, seed, u64::MAX, None);
            let before = t.clone();
            let mut out = vec![0u64; s];
            assert_eq!(redc_rows(rows, &mut t, &n, neg_inv(n[0]), &mut out), None);
            assert_eq!(t, before, "s = {s}");
        };
        // The product (or the triangle) declines and leaves `r` alone.
        let untouched = |done: bool, r: &[u64]| {
            assert!(!done);
            assert!(r.iter().all(|&w| w == 1), "{} words", r.len());
        };
        declines(10, 7);
        // Multiples of 4 but not of 8 from where four rows stop: the REDC from 24.
        declines(28, 8);
        let (n, t) = case(16, 9, u64::MAX, None);
        let mut r = vec![1u64; 20];
        untouched(sqr_triangle8(rows, &mut r, &n[..10]), &r);
        untouched(mul_rows(rows, &mut r, &n[..10], &n[..10]), &r);
        // The product from 16 limbs (by 4).
        untouched(mul_rows(rows, &mut r, &t[..16], &t[..4]), &r);
        // The triangle takes multiples of 8 only.
        let mut r = vec![1u64; 24];
        untouched(sqr_triangle8(rows, &mut r, &t[..12]), &r);
        // A multiple of 4 by one of 2.
        let mut r = vec![1u64; 14];
        untouched(mul_rows(rows, &mut r, &t[..12], &t[..2]), &r);
        // Multiples of 8, but a destination of the wrong length.
        let mut r = vec![1u64; 40];
        untouched(mul_rows(rows, &mut r, &t[..16], &t[..16]), &r);
    }

    proptest! {
        #[test]
        fn random_products(s4 in 1usize..=16, seed: u64, top in 1u64.., words in 0u8..3) {
            if Adx::new().is_some() {
                let fill = [None, Some(u64::MAX), Some(0)][words as usize];
                let s = 4 * s4;
                let eight = s.is_multiple_of(8);
                let (n, t) = case(s, seed, top, fill);
                if eight || s < FOUR_ROW_REDC_BELOW {
                    check(&t, &n, neg_inv(n[0]));
                }
                if eight {
                    check_triangle(&t[..s]);
                }
                if eight || s < FOUR_ROW_MUL_BELOW {
                    check_product(&t[..s], &n);
                }
            }
        }
    }
}
