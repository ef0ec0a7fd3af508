//! `mulx-cios`' squaring of 4 limbs, `a^2 R^-1 mod n` with R = 2^256: the square and
//! its Montgomery reduction in one straight-line asm block, every word of the square
//! in a register from its first product to the result.
//!
//! # Algorithm
//!
//! Seed 004 (Koc 1997), sec. 5, SOS (Separated Operand Scanning) for squaring: each
//! off-diagonal product `a_i a_j` (i < j) once, the sum doubled and the diagonal
//! `a_i^2` added (6 + 4 word products instead of 16), then the reduction, one word
//! `m_i = w_i n0' mod 2^64` a round, `w += m_i n 2^(64 i)` (16 word products).
//!
//! # Code
//!
//! At 4 limbs the eight words of the square fit in registers beside everything the
//! reduction needs, so, unlike the 8-limb squaring (`square.rs`, whose square goes
//! through memory to the REDC), nothing is stored between the two halves and one asm
//! block does both. The rows of the triangle and the reduction's rounds are the
//! two-flag-chain `mulx`/`adcx`/`adox` rows of `mulx-cios` ([`super::cios`]); the
//! doubling (on CF) and the diagonal (on OF) go up the eight words in one pass.
//!
//! Registers: `rsi` points at `a` (then, the square done, carries the first round's
//! zero carry), `rdi` at `n`, `r15` holds `n0'`, `r14` the output pointer; `rdx` the
//! multiplier, `rax`/`rcx` each product's halves; the square `w_0 .. w_7` in `rbx rbp
//! r8 .. r13`. A zero pushed on the stack is the source of the chains' last additions
//! (`adcx`/`adox` take no immediate).
//!
//! Bounds: the triangle after row i is below 2^(64 (i + 5)), so each row's top word
//! absorbs both chains' carries, and the square is below 2^512, so the last word of the
//! doubling absorbs its two. Round i adds `m_i n < 2^320` at word i; its carries out of
//! `w_(i+4)` (0, 1 or 2) are added at word i + 5 by the next round, and the last
//! round's are the top word of the result `t = (a^2 + M n) / 2^256 < a^2 / R + n`,
//! below 2n (a < n, or a < 2n with R > 4n), as in `mulx-cios`' product.
//!
//! [`Reduction::Full`](crate::Reduction::Full) subtracts n with `sub`/`sbb` into four
//! registers the rounds have freed and keeps `t` or `t - n` by the borrow with `cmovnc`;
//! [`Reduction::Lazy`](crate::Reduction::Lazy) stores `t`.
//!
//! Constant-time: yes (straight-line code; every address is constant; the final
//! selection is `sbb`/`cmov`).

/// Round `i` of the reduction: `m = t_0 n0' mod 2^64` (`n0'` in `r15`), `t_0 .. t_3,
/// slot += m n`, then the carry `$c` from the round before and CF into `slot`. `t_0`
/// becomes zero and then holds this round's carries out of `slot` (CF + OF); `$c`
/// becomes zero.
macro_rules! redc_round {
    ($t0:ident $t1:ident $t2:ident $t3:ident, $slot:ident, $c:ident) => {
        concat!(
            "mov rdx, ",
            stringify!($t0),
            "\n",
            "imul rdx, r15\n",
            "xor eax, eax\n",
            "mulx rcx, rax, qword ptr [rdi]\n",
            "adcx ",
            stringify!($t0),
            ", rax\n",
            "adox ",
            stringify!($t1),
            ", rcx\n",
            "mulx rcx, rax, qword ptr [rdi + 8]\n",
            "adcx ",
            stringify!($t1),
            ", rax\n",
            "adox ",
            stringify!($t2),
            ", rcx\n",
            "mulx rcx, rax, qword ptr [rdi + 16]\n",
            "adcx ",
            stringify!($t2),
            ", rax\n",
            "adox ",
            stringify!($t3),
            ", rcx\n",
            "mulx rcx, rax, qword ptr [rdi + 24]\n",
            "adcx ",
            stringify!($t3),
            ", rax\n",
            "adox ",
            stringify!($slot),
            ", rcx\n",
            "adcx ",
            stringify!($slot),
            ", ",
            stringify!($c),
            "\n",
            "mov ",
            stringify!($c),
            ", 0\n",
            "adcx ",
            stringify!($t0),
            ", ",
            stringify!($c),
            "\n",
            "adox ",
            stringify!($t0),
            ", ",
            stringify!($c),
            "\n",
        )
    };
}

/// The square and the four rounds; the result `t` is left in `r10 r11 r12 r13`, its
/// top word (0 or 1) in `r9`, and `rsi rbx rbp r8` are free.
macro_rules! square_redc_text {
    () => {
        concat!(
            // The triangle, word k of it in T_k: T1 rbp, T2 r8, T3 r9, T4 r10, T5 r11,
            // T6 r12. Row 0 (rdx = a0) writes T1..T4 on CF alone; the xor clears CF
            // and OF.
            "mov rdx, qword ptr [rsi]\n",
            "xor eax, eax\n",
            "mulx r8, rbp, qword ptr [rsi + 8]\n",
            "mulx r9, rax, qword ptr [rsi + 16]\n",
            "adcx r8, rax\n",
            "mulx r10, rax, qword ptr [rsi + 24]\n",
            "adcx r9, rax\n",
            "adcx r10, qword ptr [rsp]\n",
            // Row 1 (rdx = a1): T3..T5 += a1 (a2, a3 2^64).
            "mov rdx, qword ptr [rsi + 8]\n",
            "xor eax, eax\n",
            "mulx rcx, rax, qword ptr [rsi + 16]\n",
            "adcx r9, rax\n",
            "adox r10, rcx\n",
            "mulx r11, rax, qword ptr [rsi + 24]\n",
            "adcx r10, rax\n",
            "adox r11, qword ptr [rsp]\n",
            "adcx r11, qword ptr [rsp]\n",
            // Row 2 (rdx = a2): T5..T6 += a2 a3.
            "mov rdx, qword ptr [rsi + 16]\n",
            "mulx r12, rax, qword ptr [rsi + 24]\n",
            "add r11, rax\n",
            "adc r12, 0\n",
            // w = 2 T + the diagonal, w_0 .. w_7 in rbx rbp r8 .. r13: the doubling on
            // CF, a_i^2 on OF (w_0 is lo(a0^2) alone: T0 = 0).
            "mov rdx, qword ptr [rsi]\n",
            "mulx rcx, rbx, rdx\n",
            "xor eax, eax\n",
            "adcx rbp, rbp\n",
            "adox rbp, rcx\n",
            "mov rdx, qword ptr [rsi + 8]\n",
            "mulx rcx, rax, rdx\n",
            "adcx r8, r8\n",
            "adox r8, rax\n",
            "adcx r9, r9\n",
            "adox r9, rcx\n",
            "mov rdx, qword ptr [rsi + 16]\n",
            "mulx rcx, rax, rdx\n",
            "adcx r10, r10\n",
            "adox r10, rax\n",
            "adcx r11, r11\n",
            "adox r11, rcx\n",
            "mov rdx, qword ptr [rsi + 24]\n",
            "mulx r13, rax, rdx\n",
            "adcx r12, r12\n",
            "adox r12, rax\n",
            "adcx r13, qword ptr [rsp]\n",
            "adox r13, qword ptr [rsp]\n",
            // The reduction: the window moves up one register a round; the carry
            // passes from rsi (zero) to rbx, rbp, r8 and ends in r9.
            "mov esi, 0\n",
            redc_round!(rbx rbp r8 r9, r10, rsi),
            redc_round!(rbp r8 r9 r10, r11, rbx),
            redc_round!(r8 r9 r10 r11, r12, rbp),
            redc_round!(r9 r10 r11 r12, r13, r8),
        )
    };
}

/// `t - n` into the free registers, and `t` (`r10 r11 r12 r13`, top word `r9`) keeps
/// it unless the subtraction borrowed; stored at `r14`.
macro_rules! finish_full {
    () => {
        concat!(
            "mov rsi, r10\n",
            "sub rsi, qword ptr [rdi]\n",
            "mov rbx, r11\n",
            "sbb rbx, qword ptr [rdi + 8]\n",
            "mov rbp, r12\n",
            "sbb rbp, qword ptr [rdi + 16]\n",
            "mov r8, r13\n",
            "sbb r8, qword ptr [rdi + 24]\n",
            "sbb r9, 0\n",
            "cmovnc r10, rsi\n",
            "cmovnc r11, rbx\n",
            "cmovnc r12, rbp\n",
            "cmovnc r13, r8\n",
        )
    };
}

/// Stores `t` at `r14`.
macro_rules! store {
    () => {
        concat!(
            "mov qword ptr [r14], r10\n",
            "mov qword ptr [r14 + 8], r11\n",
            "mov qword ptr [r14 + 16], r12\n",
            "mov qword ptr [r14 + 24], r13\n",
        )
    };
}

/// The asm block around one policy's text: save `rbx`/`rbp`, push the zero, restore.
macro_rules! sqr_asm {
    ($out:expr, $a:expr, $n:expr, $n0:expr, $text:expr) => {
        core::arch::asm!(
            "push rbx",
            "push rbp",
            "push 0",
            $text,
            "add rsp, 8",
            "pop rbp",
            "pop rbx",
            inout("rsi") $a => _,
            in("rdi") $n,
            in("r14") $out,
            in("r15") $n0,
            out("rax") _,
            out("rcx") _,
            out("rdx") _,
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
            out("r12") _,
            out("r13") _,
        )
    };
}

/// `out = a^2 R^-1 mod n`, R = 2^256: below n when `full`, else below 2n.
///
/// Constant-time: yes (straight-line code, constant addresses).
///
/// # Safety
/// The CPU has BMI2 and ADX. `a < n` (`full`), or `a < 2n` with R > 4n.
#[inline(always)]
pub(super) unsafe fn sqr_4(out: &mut [u64; 4], a: &[u64; 4], n: &[u64; 4], n0: u64, full: bool) {
    let (o, a, n) = (out.as_mut_ptr(), a.as_ptr(), n.as_ptr());
    // SAFETY: the caller guarantees the features. The asm reads a[0..4] and n[0..4]
    // and writes out[0..4] at constant offsets, all inside the arrays; it pushes rbx,
    // rbp and a zero and pops them, so rsp is back where it was; every other register
    // it writes is declared.
    unsafe {
        if full {
            sqr_asm!(
                o,
                a,
                n,
                n0,
                concat!(square_redc_text!(), finish_full!(), store!())
            );
        } else {
            sqr_asm!(o, a, n, n0, concat!(square_redc_text!(), store!()));
        }
    }
}

/// The asm text of [`sqr_4`] under full reduction, for the tests.
#[cfg(test)]
pub(super) const SQR_4_TEXT: &str = concat!(square_redc_text!(), finish_full!(), store!());

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpn::oracle_value;
    use num_bigint::BigUint;
    use proptest::prelude::*;

    /// -n^-1 mod 2^64 by Newton's iteration (each step doubles the correct low bits).
    fn n0_of(n: &[u64; 4]) -> u64 {
        let mut inv = n[0];
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(n[0].wrapping_mul(inv)));
        }
        inv.wrapping_neg()
    }

    fn words(x: &BigUint) -> [u64; 4] {
        let mut out = [0u64; 4];
        for (o, d) in out.iter_mut().zip(x.to_u64_digits()) {
            *o = d;
        }
        out
    }

    /// `sqr_4` of `a mod n` (`full`) or `a mod 2n` (lazy, where n < 2^254) against the
    /// oracle: `out 2^256 = a^2 (mod n)`, `out` below n (`full`) or 2n.
    fn check(n: [u64; 4], a: [u64; 4], full: bool) {
        if crate::arch::cpu::Adx::new().is_none() {
            return;
        }
        let nv = oracle_value(&n);
        assert!(n[0] & 1 == 1 && nv > BigUint::from(1u32));
        let bound = if full { nv.clone() } else { &nv << 1u32 };
        assert!(full || nv.bits() <= 254, "lazy needs R > 4n");
        let a = words(&(oracle_value(&a) % &bound));
        let mut out = [0u64; 4];
        // SAFETY: BMI2 and ADX are present (checked above); a is below n (`full`) or
        // below 2n with R > 4n.
        unsafe { sqr_4(&mut out, &a, &n, n0_of(&n), full) };
        let (av, ov) = (oracle_value(&a), oracle_value(&out));
        assert_eq!(
            (&ov << 256u32) % &nv,
            (&av * &av) % &nv,
            "n = {n:x?}, a = {a:x?}, full = {full}"
        );
        assert!(
            ov < bound,
            "n = {n:x?}, a = {a:x?}, full = {full}: {out:x?}"
        );
    }

    #[test]
    fn edge_moduli_and_squares() {
        if crate::arch::cpu::Adx::new().is_none() {
            montmul_testkit::skipped!("SKIPPED: sqr_4 needs BMI2 and ADX");
            return;
        }
        let m = u64::MAX;
        let moduli = [
            [m; 4],
            [1, 0, 0, 1 << 63],
            [m, 0, 0, 1 << 63],
            [m, m, m, m >> 1],
            [1, 0, 0, 1],
            [m - 2, m, m, m],
        ];
        let operands = [
            [0; 4],
            [1, 0, 0, 0],
            [m; 4],
            [m - 1, m, m, m],
            [0, 0, 0, m],
            [m, 0, m, 0],
            [0, m, 0, m],
            [1 << 63; 4],
        ];
        for n in moduli {
            // a = n - 1 too: the largest input.
            let below = words(&(oracle_value(&n) - 1u32));
            for a in operands.iter().copied().chain([below]) {
                check(n, a, true);
                if oracle_value(&n).bits() <= 254 {
                    check(n, a, false);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn random_squares(mut n in prop::array::uniform4(any::<u64>()),
                          a in prop::array::uniform4(any::<u64>()),
                          top in 1u64..=u64::MAX) {
            n[0] |= 1;
            n[3] = top;
            check(n, a, true);
            n[3] = top >> 2;
            if n[3] != 0 {
                check(n, a, false);
            }
        }

        /// Words of many ones and zeros, where the chains' carries run longest.
        #[test]
        fn saturated_squares(nbits in prop::array::uniform4(0u8..4),
                             abits in prop::array::uniform4(0u8..4)) {
            let pick = [0, 1, u64::MAX - 1, u64::MAX];
            let mut n = nbits.map(|b| pick[b as usize]);
            n[0] |= 1;
            n[3] |= 1 << 63;
            check(n, abits.map(|b| pick[b as usize]), true);
        }
    }
}
