//! The square of 8 limbs, `w = a^2` (16 words), in one straight-line asm block with
//! every word of the triangle in a register: the first half of `mulx-cios`' dedicated
//! squaring ([`super::cios`]), before its REDC.
//!
//! # Algorithm
//!
//! Seed 004 (Koc 1997), sec. 5, the squaring of SOS: each off-diagonal product
//! `a_i a_j` (i < j) once, the sum doubled, the diagonal `a_i^2` added: 28 + 8 word
//! products instead of 64.
//!
//! # Code
//!
//! Row i (`sq_row!`, `rdx = a_i`) adds `a_i a_j`, j > i, to the triangle words
//! `t[2i+1 ..= i+8]` on the two flag chains of Intel's `mulx`/`adcx`/`adox` row (as in
//! `mulx-cios`). After row i no later row touches `t[2i]` and `t[2i+1]`, so chunk i
//! (`sq_chunk!`) finishes output words `2i` and `2i+1` at once:
//!
//! ```text
//! w[2i] : w[2i+1] = 2 (t[2i+1] : t[2i]) + a_i^2 + c
//! ```
//!
//! the doubling on CF (`adcx t, t`), the diagonal on OF, and `c`, the two chains'
//! carries out of the chunk before (0, 1 or 2, in `r15`), folded into the low word of
//! `a_i^2` with `lea`. That cannot overflow: a square is 0, 1 or 4 mod 8, so its low
//! word is at most 2^64 - 4. Each chunk ends with both flags clear, as each row does
//! (every carry out of a row is absorbed by its top word: after row i the partial
//! triangle is below 2^(64 (i + 9))). So no flag lives across a row and a chunk, and
//! the words of the triangle never wait in memory: word k lives in register k mod 9
//! of `rbx rbp r8 .. r14` (word k + 9 is born in row k + 1, after word k's chunk).
//!
//! Each row and each chunk still begins with `xor eax, eax`, although both flags are
//! already clear there. The flags it writes depend on nothing, so a row waits only
//! for the words it adds into, not for the end of the flag chains of the rows and
//! chunks before it; without it the two chains ran through the whole square
//! (`docs/PERFORMANCE.md`, "The 8-limb square's flag chains").
//!
//! Registers: `rsi` = a, `rdi` = w, `rdx` the multiplier, `rax`/`rcx` each product's
//! halves, 9 for the triangle, `r15` the chunk carry; a zero pushed on the stack is the
//! source of the chains' last additions (`adcx`/`adox` take no immediate).
//!
//! Constant-time: yes (straight-line code, constant addresses).

/// Row `$i` of the triangle: `t[i+j] += a_i a_j` for the listed `j` (lo into the first
/// register list, hi into the second), then `a_i a_7` with its high word the new top
/// word `$top` (`$last` takes its low word), which absorbs both chains' carries.
/// Clears CF and OF with its `xor` (`rax` is free until the first product) and leaves
/// them clear.
macro_rules! sq_row {
    ($i:literal, [$($j:literal)*], [$($lo:ident)*], [$($hi:ident)*], $last:ident, $top:ident) => {
        concat!(
            "mov rdx, qword ptr [rsi + 8*", $i, "]\n",
            "xor eax, eax\n",
            $(
                "mulx rcx, rax, qword ptr [rsi + 8*", $j, "]\n",
                "adcx ", stringify!($lo), ", rax\n",
                "adox ", stringify!($hi), ", rcx\n",
            )*
            "mulx ", stringify!($top), ", rax, qword ptr [rsi + 56]\n",
            "adcx ", stringify!($last), ", rax\n",
            "adox ", stringify!($top), ", qword ptr [rsp]\n",
            "adcx ", stringify!($top), ", qword ptr [rsp]\n",
        )
    };
}

/// Chunk `$k / 2` (`rdx = a_{k/2}`): words `$k` and `$k + 1` of the square from the
/// triangle words in `$lo` and `$hi`, the diagonal and the carry `r15`; stores them,
/// then leaves the chains' carries out in `r15` (0, 1 or 2) and both flags clear. Its
/// `xor` clears them on entry.
#[rustfmt::skip]
macro_rules! sq_chunk {
    ($k:literal, $lo:ident, $hi:ident) => {
        concat!(
            "xor eax, eax\n",
            "mulx rcx, rax, rdx\n",
            "lea rax, [rax + r15]\n",
            "adcx ", stringify!($lo), ", ", stringify!($lo), "\n",
            "adox ", stringify!($lo), ", rax\n",
            "adcx ", stringify!($hi), ", ", stringify!($hi), "\n",
            "adox ", stringify!($hi), ", rcx\n",
            "mov qword ptr [rdi + 8*", $k, "], ", stringify!($lo), "\n",
            "mov qword ptr [rdi + 8*(", $k, " + 1)], ", stringify!($hi), "\n",
            "mov r15d, 0\n",
            "adcx r15, qword ptr [rsp]\n",
            "adox r15, qword ptr [rsp]\n",
        )
    };
}

/// The asm text of [`square_8`] between the pushes and the pops.
macro_rules! square_8_text {
    () => {
        concat!(
            // Row 0 writes t[1..=8] (t1 = rbp .. t8 = r14) on CF alone; the xor clears
            // CF and OF.
            "mov rdx, qword ptr [rsi]\n",
            "xor eax, eax\n",
            "mulx r8, rbp, qword ptr [rsi + 8]\n",
            "mulx r9, rax, qword ptr [rsi + 16]\n",
            "adcx r8, rax\n",
            "mulx r10, rax, qword ptr [rsi + 24]\n",
            "adcx r9, rax\n",
            "mulx r11, rax, qword ptr [rsi + 32]\n",
            "adcx r10, rax\n",
            "mulx r12, rax, qword ptr [rsi + 40]\n",
            "adcx r11, rax\n",
            "mulx r13, rax, qword ptr [rsi + 48]\n",
            "adcx r12, rax\n",
            "mulx r14, rax, qword ptr [rsi + 56]\n",
            "adcx r13, rax\n",
            "adcx r14, qword ptr [rsp]\n",
            // Chunk 0: w0 = lo(a0^2), w1 = 2 t1 + hi(a0^2) (t0 is 0, so is c).
            "mulx rcx, rax, rdx\n",
            "mov qword ptr [rdi], rax\n",
            "adcx rbp, rbp\n",
            "adox rbp, rcx\n",
            "mov qword ptr [rdi + 8], rbp\n",
            "mov r15d, 0\n",
            "adcx r15, qword ptr [rsp]\n",
            "adox r15, qword ptr [rsp]\n",
            // Words: t2 r8, t3 r9, t4 r10, t5 r11, t6 r12, t7 r13, t8 r14, t9 rbx,
            // t10 rbp, t11 r8, t12 r9, t13 r10, t14 r11.
            sq_row!(1, [2 3 4 5 6], [r9 r10 r11 r12 r13], [r10 r11 r12 r13 r14], r14, rbx),
            sq_chunk!(2, r8, r9),
            sq_row!(2, [3 4 5 6], [r11 r12 r13 r14], [r12 r13 r14 rbx], rbx, rbp),
            sq_chunk!(4, r10, r11),
            sq_row!(3, [4 5 6], [r13 r14 rbx], [r14 rbx rbp], rbp, r8),
            sq_chunk!(6, r12, r13),
            sq_row!(4, [5 6], [rbx rbp], [rbp r8], r8, r9),
            sq_chunk!(8, r14, rbx),
            sq_row!(5, [6], [r8], [r9], r9, r10),
            sq_chunk!(10, rbp, r8),
            sq_row!(6, [], [], [], r10, r11),
            sq_chunk!(12, r9, r10),
            // Chunk 7: w14 = 2 t14 + lo(a7^2) + c, w15 = hi(a7^2) + the carries (the
            // square is below 2^1024: no carry out).
            "mov rdx, qword ptr [rsi + 56]\n",
            "xor eax, eax\n",
            "mulx rcx, rax, rdx\n",
            "lea rax, [rax + r15]\n",
            "adcx r11, r11\n",
            "adox r11, rax\n",
            "adcx rcx, qword ptr [rsp]\n",
            "adox rcx, qword ptr [rsp]\n",
            "mov qword ptr [rdi + 112], r11\n",
            "mov qword ptr [rdi + 120], rcx\n",
        )
    };
}

/// `w = a^2`, 16 words from 8.
///
/// Constant-time: yes (straight-line code, constant addresses).
///
/// # Safety
/// The CPU has BMI2 and ADX.
#[inline(always)]
pub(super) unsafe fn square_8(w: &mut [u64; 16], a: &[u64; 8]) {
    // SAFETY: the caller guarantees the features. The asm reads a[0..8] and writes
    // w[0..16] at constant offsets; it pushes rbx, rbp and a zero and pops them, so
    // rsp is back where it was; every other register it writes is declared.
    unsafe {
        core::arch::asm!(
            "push rbx",
            "push rbp",
            "push 0",
            square_8_text!(),
            "add rsp, 8",
            "pop rbp",
            "pop rbx",
            in("rsi") a.as_ptr(),
            in("rdi") w.as_mut_ptr(),
            out("rax") _,
            out("rcx") _,
            out("rdx") _,
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
            out("r12") _,
            out("r13") _,
            out("r14") _,
            out("r15") _,
        );
    }
}

/// The asm text of [`square_8`], for the tests.
#[cfg(test)]
pub(super) const SQUARE_8_TEXT: &str = square_8_text!();

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(a: [u64; 8]) {
        let Some(_) = crate::arch::cpu::Adx::new() else {
            return;
        };
        let mut w = [0u64; 16];
        // SAFETY: the token proves BMI2 and ADX.
        unsafe { square_8(&mut w, &a) };
        let x = crate::mpn::oracle_value(&a);
        assert_eq!(crate::mpn::oracle_value(&w), &x * &x, "a = {a:x?}");
    }

    #[test]
    fn edge_squares() {
        if crate::arch::cpu::Adx::new().is_none() {
            eprintln!("SKIPPED: square_8 needs BMI2 and ADX");
            return;
        }
        let m = u64::MAX;
        for a in [
            [0; 8],
            [m; 8],
            [1, 0, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, m],
            [m, 0, m, 0, m, 0, m, 0],
            [0, m, 0, m, 0, m, 0, m],
            [1 << 63; 8],
            [m, m, m, m, 0, 0, 0, 0],
            [0, 0, 0, 0, m, m, m, m],
            [m - 1, m, m, m, m, m, m, m >> 1],
        ] {
            check(a);
        }
        // Every single word at its edge values, the others at the extremes.
        for i in 0..8 {
            for x in [1, m, 1 << 63, (1 << 63) - 1, m - 1] {
                for fill in [0, m] {
                    let mut a = [fill; 8];
                    a[i] = x;
                    check(a);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn random_squares(a in prop::array::uniform8(any::<u64>())) {
            check(a);
        }

        /// Words of many ones and zeros, where the chains' carries run longest.
        #[test]
        fn saturated_squares(bits in prop::array::uniform8(0u8..4)) {
            let pick = [0, 1, u64::MAX - 1, u64::MAX];
            check(bits.map(|b| pick[b as usize]));
        }
    }
}
