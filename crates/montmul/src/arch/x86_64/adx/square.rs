//! The square of 5 to 8 limbs, `w = a^2` (2s words from s), in one straight-line asm
//! block per size with every word of the triangle in a register: the first half of
//! `mulx-cios`' dedicated squaring ([`super::cios`]), before its REDC.
//!
//! # Algorithm
//!
//! Seed 004 (Koc 1997), sec. 5, the squaring of SOS: each off-diagonal product
//! `a_i a_j` (i < j) once, the sum doubled, the diagonal `a_i^2` added: s (s - 1) / 2 +
//! s word products instead of s^2 (28 + 8 instead of 64 at 8 limbs).
//!
//! # Code
//!
//! Row 0 writes the triangle words `t[1..=s]` on CF alone. Row i > 0 (`sq_row!`,
//! `rdx = a_i`) adds `a_i a_j`, j > i, to the triangle words `t[2i+1 ..= i+s]` on the
//! two flag chains of Intel's `mulx`/`adcx`/`adox` row (as in `mulx-cios`). After row i
//! no later row touches `t[2i]` and `t[2i+1]`, so chunk i (`sq_chunk!`) finishes output
//! words `2i` and `2i+1` at once:
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
//! triangle is below 2^(64 (i + s + 1))). So no flag lives across a row and a chunk,
//! and the words of the triangle never wait in memory: word k lives in register
//! k mod (s + 1) of `rbx rbp r8 .. r14` (word k + s + 1 is born in row k + 1, after
//! word k's chunk). The register lists of each size below follow that rule; the tests
//! check every size against the oracle.
//!
//! Each row and each chunk still begins with `xor eax, eax`, although both flags are
//! already clear there. The flags it writes depend on nothing, so a row waits only
//! for the words it adds into, not for the end of the flag chains of the rows and
//! chunks before it; without it the two chains ran through the whole square
//! (`docs/PERFORMANCE.md`, "The 8-limb square's flag chains").
//!
//! Registers: `rsi` = a, `rdi` = w, `rdx` the multiplier, `rax`/`rcx` each product's
//! halves, s + 1 for the triangle, `r15` the chunk carry; a zero pushed on the stack is
//! the source of the chains' last additions (`adcx`/`adox` take no immediate).
//!
//! Constant-time: yes (straight-line code, constant addresses).

/// Row `$i` of the triangle: `t[i+j] += a_i a_j` for the listed `j` (lo into the first
/// register list, hi into the second), then `a_i a_l` (`$l` = s - 1) with its high word
/// the new top word `$top` (`$last` takes its low word), which absorbs both chains'
/// carries. Clears CF and OF with its `xor` (`rax` is free until the first product)
/// and leaves them clear.
macro_rules! sq_row {
    ($l:literal, $i:literal, [$($j:literal)*], [$($lo:ident)*], [$($hi:ident)*], $last:ident, $top:ident) => {
        concat!(
            "mov rdx, qword ptr [rsi + 8*", $i, "]\n",
            "xor eax, eax\n",
            $(
                "mulx rcx, rax, qword ptr [rsi + 8*", $j, "]\n",
                "adcx ", stringify!($lo), ", rax\n",
                "adox ", stringify!($hi), ", rcx\n",
            )*
            "mulx ", stringify!($top), ", rax, qword ptr [rsi + 8*", $l, "]\n",
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

/// The asm text of one size's square between the pushes and the pops. `$l` is s - 1;
/// `row0` names `t[1]`, `t[2]`, then for j = 2 .. s - 1 the register of `t[j+1]` (where
/// `a_0 a_j`'s high word goes) and of `t[j]`, then `t[s]`; `rows` lists rows 1 .. s - 2
/// (`sq_row!`) each with the chunk after it (`sq_chunk!`); `end` is `t[2s-2]`.
macro_rules! square_text {
    (
        $l:literal,
        row0: $t1:ident $t2:ident [$($j0:literal $hi0:ident $lo0:ident)*] $ts:ident,
        rows: [$((
            $i:literal, [$($j:literal)*], [$($lo:ident)*], [$($hi:ident)*], $last:ident, $top:ident;
            $k:literal, $clo:ident, $chi:ident
        ))*],
        end: $end:ident
    ) => {
        concat!(
            // Row 0 writes t[1..=s] on CF alone; the xor clears CF and OF.
            "mov rdx, qword ptr [rsi]\n",
            "xor eax, eax\n",
            "mulx ", stringify!($t2), ", ", stringify!($t1), ", qword ptr [rsi + 8]\n",
            $(
                "mulx ", stringify!($hi0), ", rax, qword ptr [rsi + 8*", $j0, "]\n",
                "adcx ", stringify!($lo0), ", rax\n",
            )*
            "adcx ", stringify!($ts), ", qword ptr [rsp]\n",
            // Chunk 0: w0 = lo(a0^2), w1 = 2 t1 + hi(a0^2) (t0 is 0, so is c).
            "mulx rcx, rax, rdx\n",
            "mov qword ptr [rdi], rax\n",
            "adcx ", stringify!($t1), ", ", stringify!($t1), "\n",
            "adox ", stringify!($t1), ", rcx\n",
            "mov qword ptr [rdi + 8], ", stringify!($t1), "\n",
            "mov r15d, 0\n",
            "adcx r15, qword ptr [rsp]\n",
            "adox r15, qword ptr [rsp]\n",
            $(
                sq_row!($l, $i, [$($j)*], [$($lo)*], [$($hi)*], $last, $top),
                sq_chunk!($k, $clo, $chi),
            )*
            // The last chunk: w[2s-2] = 2 t[2s-2] + lo(a_l^2) + c, w[2s-1] = hi(a_l^2)
            // + the carries (the square is below 2^(128 s): no carry out).
            "mov rdx, qword ptr [rsi + 8*", $l, "]\n",
            "xor eax, eax\n",
            "mulx rcx, rax, rdx\n",
            "lea rax, [rax + r15]\n",
            "adcx ", stringify!($end), ", ", stringify!($end), "\n",
            "adox ", stringify!($end), ", rax\n",
            "adcx rcx, qword ptr [rsp]\n",
            "adox rcx, qword ptr [rsp]\n",
            "mov qword ptr [rdi + 8*(2*", $l, ")], ", stringify!($end), "\n",
            "mov qword ptr [rdi + 8*(2*", $l, " + 1)], rcx\n",
        )
    };
}

/// Defines, per size, `square_S(w, a)`: `w = a^2`, 2s words from s, and (for the tests)
/// `SQUARE_TEXTS`, each size's asm text.
macro_rules! squares {
    ($($s:literal limbs: $name:ident, $twice:literal, ($($text:tt)*);)*) => {
        $(
            /// `w = a^2`, the square of this many limbs.
            ///
            /// Constant-time: yes (straight-line code, constant addresses).
            ///
            /// # Safety
            /// The CPU has BMI2 and ADX.
            #[inline(always)]
            pub(super) unsafe fn $name(w: &mut [u64; $twice], a: &[u64; $s]) {
                // SAFETY: the caller guarantees the features. The asm reads a[0..s]
                // and writes w[0..2s] at constant offsets; it pushes rbx, rbp and a
                // zero and pops them, so rsp is back where it was; every other
                // register it writes is declared.
                unsafe {
                    core::arch::asm!(
                        "push rbx",
                        "push rbp",
                        "push 0",
                        square_text!($($text)*),
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
        )*

        /// Each size's asm text, for the tests.
        #[cfg(test)]
        pub(super) const SQUARE_TEXTS: &[(usize, &str)] = &[$(($s, square_text!($($text)*))),*];
    };
}

// Per size: word k of the triangle in register k mod (s + 1) of `rbx rbp r8 .. r14`.
#[rustfmt::skip]
squares! {
    5 limbs: square_5, 10, (4,
        row0: rbp r8 [2 r9 r8 3 r10 r9 4 r11 r10] r11,
        rows: [
            (1, [2 3], [r9 r10], [r10 r11], r11, rbx; 2, r8, r9)
            (2, [3], [r11], [rbx], rbx, rbp; 4, r10, r11)
            (3, [], [], [], rbp, r8; 6, rbx, rbp)
        ],
        end: r8);
    6 limbs: square_6, 12, (5,
        row0: rbp r8 [2 r9 r8 3 r10 r9 4 r11 r10 5 r12 r11] r12,
        rows: [
            (1, [2 3 4], [r9 r10 r11], [r10 r11 r12], r12, rbx; 2, r8, r9)
            (2, [3 4], [r11 r12], [r12 rbx], rbx, rbp; 4, r10, r11)
            (3, [4], [rbx], [rbp], rbp, r8; 6, r12, rbx)
            (4, [], [], [], r8, r9; 8, rbp, r8)
        ],
        end: r9);
    7 limbs: square_7, 14, (6,
        row0: rbp r8 [2 r9 r8 3 r10 r9 4 r11 r10 5 r12 r11 6 r13 r12] r13,
        rows: [
            (1, [2 3 4 5], [r9 r10 r11 r12], [r10 r11 r12 r13], r13, rbx; 2, r8, r9)
            (2, [3 4 5], [r11 r12 r13], [r12 r13 rbx], rbx, rbp; 4, r10, r11)
            (3, [4 5], [r13 rbx], [rbx rbp], rbp, r8; 6, r12, r13)
            (4, [5], [rbp], [r8], r8, r9; 8, rbx, rbp)
            (5, [], [], [], r9, r10; 10, r8, r9)
        ],
        end: r10);
    8 limbs: square_8, 16, (7,
        row0: rbp r8 [2 r9 r8 3 r10 r9 4 r11 r10 5 r12 r11 6 r13 r12 7 r14 r13] r14,
        rows: [
            (1, [2 3 4 5 6], [r9 r10 r11 r12 r13], [r10 r11 r12 r13 r14], r14, rbx; 2, r8, r9)
            (2, [3 4 5 6], [r11 r12 r13 r14], [r12 r13 r14 rbx], rbx, rbp; 4, r10, r11)
            (3, [4 5 6], [r13 r14 rbx], [r14 rbx rbp], rbp, r8; 6, r12, r13)
            (4, [5 6], [rbx rbp], [rbp r8], r8, r9; 8, r14, rbx)
            (5, [6], [r8], [r9], r9, r10; 10, rbp, r8)
            (6, [], [], [], r10, r11; 12, r9, r10)
        ],
        end: r11);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `a^2` by the square of `a`'s size, against the oracle.
    fn check<const S: usize>(a: [u64; S]) {
        let Some(_) = crate::arch::cpu::Adx::new() else {
            return;
        };
        let mut square = vec![0u64; 2 * S];
        let (w, x) = (square.as_mut_slice(), &a[..]);
        // SAFETY: the token proves BMI2 and ADX; w has 2 S words.
        unsafe {
            match S {
                5 => square_5(w.try_into().unwrap(), x.try_into().unwrap()),
                6 => square_6(w.try_into().unwrap(), x.try_into().unwrap()),
                7 => square_7(w.try_into().unwrap(), x.try_into().unwrap()),
                8 => square_8(w.try_into().unwrap(), x.try_into().unwrap()),
                _ => unreachable!("no square of {S} limbs"),
            }
        }
        let w = square;
        let x = crate::mpn::oracle_value(&a);
        assert_eq!(crate::mpn::oracle_value(&w), &x * &x, "a = {a:x?}");
    }

    /// Zero, all ones, single words at their edges (the others at the extremes),
    /// alternating words and the largest values below a power of two.
    fn edges<const S: usize>() {
        let m = u64::MAX;
        let mut cases = vec![[0; S], [m; S], [1 << 63; S]];
        let mut alternate = [0; S];
        for (i, w) in alternate.iter_mut().enumerate() {
            *w = if i % 2 == 0 { m } else { 0 };
        }
        cases.push(alternate);
        cases.push(alternate.map(|w| !w));
        let mut below = [m; S];
        below[0] = m - 1;
        below[S - 1] = m >> 1;
        cases.push(below);
        for i in 0..S {
            for x in [1, m, 1 << 63, (1 << 63) - 1, m - 1] {
                for fill in [0, m] {
                    let mut a = [fill; S];
                    a[i] = x;
                    cases.push(a);
                }
            }
        }
        for a in cases {
            check(a);
        }
    }

    #[test]
    fn edge_squares() {
        if crate::arch::cpu::Adx::new().is_none() {
            montmul_testkit::skipped!("SKIPPED: the squares of 5 to 8 limbs need BMI2 and ADX");
            return;
        }
        edges::<5>();
        edges::<6>();
        edges::<7>();
        edges::<8>();
    }

    proptest! {
        #[test]
        fn random_squares(
            a5 in prop::array::uniform5(any::<u64>()),
            a6 in prop::array::uniform6(any::<u64>()),
            a7 in prop::array::uniform7(any::<u64>()),
            a8 in prop::array::uniform8(any::<u64>()),
        ) {
            check(a5);
            check(a6);
            check(a7);
            check(a8);
        }

        /// Words of many ones and zeros, where the chains' carries run longest.
        #[test]
        fn saturated_squares(bits in prop::array::uniform8(0u8..4)) {
            let pick = [0, 1, u64::MAX - 1, u64::MAX];
            let a = bits.map(|b| pick[b as usize]);
            check::<5>(a[..5].try_into().unwrap());
            check::<6>(a[..6].try_into().unwrap());
            check::<7>(a[..7].try_into().unwrap());
            check(a);
        }
    }
}
