//! The multiply-accumulate row `r += a * b` on BMI2 and ADX: `mulx` multiplies without
//! touching the flags, `adcx` adds the old `r[j]` along the carry flag and `adox` the
//! previous high word along the overflow flag, so the two carry chains run side by side
//! (Intel, *New Instructions Supporting Large Integer Arithmetic on Intel Architecture
//! Processors*, 2012; the technique of OpenSSL's `mulx4x` Montgomery code). Plain Rust
//! through `u128` gives LLVM one chain of `add`/`adc` per product instead.
//!
//! [`Mulx`] plugs this row into every product and reduction of [`crate::mpn`]; the
//! kernel [`MulxRedc`] (`mulx-redc`) is the schoolbook product (the squaring with each
//! off-diagonal product once, seed 004's SOS) followed by REDC, all on this row
//! ([`crate::mpn::mont_separated`]), on stack arrays at the sizes of
//! [`crate::fixed::SIZES`]; [`crate::algo::karatsuba`] uses the same row under its
//! Karatsuba recursion. For a multiple of 8 limbs the product and the REDC make one
//! pass per eight rows, their working words in registers, and at 12 limbs (the REDC
//! at 20 too) per four rows (`row_passes`). [`cios`] is `mulx-cios`.
//!
//! The squaring has its own passes ([`AddMul::sqr_triangle`],
//! [`AddMul::double_add_diagonal`]), as in OpenSSL's `sqrx8x` and GMP's `sqr_basecase`:
//! the off-diagonal triangle, then one pass that doubles it and adds the squares
//! `a[i]^2`. Short rows cost nearly as much in loop control as in products, so the
//! triangle is one asm loop whose body holds a row for each length modulo 8 (no
//! single-limb loop, no call per row), at 16, 17 and 25 words (1024-bit moduli, and the
//! lazy-reduction sizes of 1024 and 1536 bits) straight-line code with no loop at all,
//! and from 24 words, for a multiple of 8, eight rows per pass like the REDC
//! (`row_passes`); the doubling is a `shrx`/`lea` shift off the flags, leaving one
//! carry chain for the squares.
//!
//! Words: 64. Reduction: `Full` and `Lazy`. Constant-time: yes (loop counts and every
//! branch depend on the length only; no branch or address depends on values). Needs
//! BMI2 and ADX: the rows exist only with the [`Adx`] token, and the kernels are handed
//! out only in exchange for it (`mulx_redc`, `cios::specialised`).

use crate::arch::cpu::Adx;
use crate::fixed::{self, words, words_mut, PerSize};
use crate::kernel::traits::{Kernel, KernelInfo};
use crate::mpn::{self, AddMul};
use crate::{Modulus, Reduction};

/// Rows on `mulx`/`adcx`/`adox`: the token proves the CPU has them.
#[derive(Clone, Copy, Debug)]
pub struct Mulx(Adx);

impl Mulx {
    /// The rows, given the token.
    #[inline]
    pub fn new(adx: Adx) -> Self {
        Mulx(adx)
    }
}

/// The rows inside the statics of this module, which are handed out only in exchange for
/// an [`Adx`] token ([`mulx_redc`], [`cios::specialised`]).
const ROWS: Mulx = Mulx(Adx(()));

/// The named `mulx-redc` kernel: for each modulus it resolves to the instance on
/// [`Mulx`] rows (`mulx_redc`).
pub struct MulxRedc;

/// The `mulx-redc` kernel on [`Mulx`] rows, with run-time lengths.
struct MulxRedcRows(Mulx);

/// The `mulx-redc` kernel on [`Mulx`] rows and stack arrays of `N` limbs.
struct FixedMulx<const N: usize>(Mulx);

/// Whether the [`Adx`] token exists on this CPU.
pub fn is_available() -> bool {
    Adx::new().is_some()
}

/// The `mulx-redc` family of [`crate::fixed::SIZES`].
struct FixedMulxFamily;

impl PerSize for FixedMulxFamily {
    fn kernel<const N: usize>(&self) -> &'static dyn Kernel<u64> {
        const { &FixedMulx::<N>(ROWS) }
    }
}

/// The `mulx-redc` kernel for moduli of `limbs` limbs: on stack arrays at the sizes of
/// [`crate::fixed::SIZES`], with run-time lengths elsewhere.
pub(crate) fn mulx_redc(adx: Adx, limbs: usize) -> &'static dyn Kernel<u64> {
    static ANY_SIZE: MulxRedcRows = MulxRedcRows(ROWS);
    let _ = adx;
    fixed::at_size(&FixedMulxFamily, limbs).unwrap_or(&ANY_SIZE)
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

/// One limb of a `mulx` row, `r[j] += a[j] rdx + c` with the carry out in `hi`:
/// `hi:lo = a[j] rdx; lo += r[j] + CF (adcx); lo += c + OF (adox); r[j] = lo`, at byte
/// offset `off` of the `a` and `r` pointers. Rows alternate `c` and `h` as the carry
/// register, so no move is needed between limbs.
macro_rules! row_limb {
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

/// One limb of a `mulx` row that overwrites instead of adding, `r[j] = low(a[j] rdx + c)`
/// with the carry out in `hi`: `hi:lo = a[j] rdx; lo += c + CF (adcx); r[j] = lo`. One
/// carry chain; the overflow flag is not touched.
macro_rules! mul_limb {
    ($off:literal, $c_in:literal, $hi_out:literal) => {
        concat!(
            "mulx {",
            $hi_out,
            "}, {lo}, qword ptr [{a} + ",
            $off,
            "]\n",
            "adcx {lo}, {",
            $c_in,
            "}\n",
            "mov qword ptr [{r} + ",
            $off,
            "], {lo}\n",
        )
    };
}

/// One row of the triangle whose length `L` is `k` modulo 8 (`k` given as its head: `k`
/// straight-line limbs), from its start to the pointers of the next row: the head, then
/// `L / 8` blocks of eight, then the carry word, stored at `r[n+i]`, the word after the
/// row. Row `i` of the triangle is `r[2i+1 ..] += a[i+1 ..] a[i]`; on entry `a` points
/// at `a[i+1]`, `r` at `r[2i+1]`, `rdx` holds `a[i]` and `len` is `L >= 1`. Falls
/// through to the next row (`L - 1`, so `k - 1` modulo 8), or jumps to `9f` after the
/// last.
macro_rules! triangle_row {
    ($label:literal $(, $head:expr)*) => {
        concat!(
            $label, ":\n",
            "mov {blocks}, {len}\n",
            "shr {blocks}, 3\n",
            // Clears CF and OF: both chains start empty.
            "xor {c:e}, {c:e}\n",
            $($head,)*
            "mov rcx, {blocks}\n",
            "jmp 7f\n",
            "6:\n",
            row_limb!("0", "c", "h"),
            row_limb!("8", "h", "c"),
            row_limb!("16", "c", "h"),
            row_limb!("24", "h", "c"),
            row_limb!("32", "c", "h"),
            row_limb!("40", "h", "c"),
            row_limb!("48", "c", "h"),
            row_limb!("56", "h", "c"),
            "lea {a}, [{a} + 64]\n",
            "lea {r}, [{r} + 64]\n",
            "lea rcx, [rcx - 1]\n",
            "7:\n",
            "jrcxz 8f\n",
            "jmp 6b\n",
            "8:\n",
            // The row's carry word c + CF + OF (its true sum is below 2^(64(L+1))) goes
            // to r[n+i]; then both flags are free.
            "mov {lo}, 0\n",
            "adcx {c}, {lo}\n",
            "adox {c}, {lo}\n",
            "mov qword ptr [{r}], {c}\n",
            // Next row: len -= 1; a is now &a[n], so the row starts at a - 8 len with
            // rdx the word before; r is &r[n+i], the next row starts 8 - 8 len from it.
            "sub {len}, 1\n",
            "jz 9f\n",
            "lea {lo}, [8 * {len}]\n",
            "sub {a}, {lo}\n",
            "sub {r}, {lo}\n",
            "lea {r}, [{r} + 8]\n",
            "mov rdx, qword ptr [{a} - 8]\n",
        )
    };
}

/// The off-diagonal triangle of a square, `r[1 .. 2n-1] = sum_{i<j} a[i] a[j]
/// 2^(64(i+j))`: one asm loop over the rows `r[2i+1 ..] += a[i+1..] a[i]` (length
/// `L = n-1-i`), without a call, a slice or a single-limb loop per row. Row 0 writes
/// `a[1..] a[0]` (one carry chain, nothing to add); each row's carry word is stored at
/// `r[n + i]`, the word after it, which no earlier row reaches. The loop body is eight
/// rows, one per value of `L` modulo 8, each with its `L mod 8` odd limbs in
/// straight-line code before its blocks of eight: consecutive rows are one limb shorter,
/// so they run the eight bodies in turn, entered once at the one for `n - 2`. Every
/// branch depends on `n` only.
///
/// # Safety
/// The CPU has BMI2 and ADX; `n >= 2`; `a` is valid for reading `n` words and `r` for
/// reading and writing `2n` words. Row 0 overwrites `r[1 ..= n]` and each later row's
/// carry word overwrites `r[n+i]` before any row reads it; `r[0]` and `r[2n-1]` are left
/// alone.
#[inline(always)]
unsafe fn sqr_triangle_adx(r: *mut u64, a: *const u64, n: usize) {
    // SAFETY: the caller guarantees the features, n >= 2 and the words behind both
    // pointers. Row i reads a[i .. n] and reads/writes r[2i+1 .. n+i] and r[n+i], all
    // inside a[..n] and r[..2n]; no stack is used.
    unsafe {
        core::arch::asm!(
            // Row 0, r[1 .. n] = a[1 .. n] a[0], overwrites: a -> a[1], r -> r[1],
            // rdx = a[0], len = n - 1: its odd limbs in blocks of 1, 2 and 4 chosen by
            // jrcxz (flags untouched), then blocks of eight.
            "mov rdx, qword ptr [{a}]",
            "lea {a}, [{a} + 8]",
            "lea {r}, [{r} + 8]",
            "mov {b1}, {len}",
            "and {b1}, 1",
            "mov {b2}, {len}",
            "and {b2}, 2",
            "mov {b4}, {len}",
            "and {b4}, 4",
            "mov {blocks}, {len}",
            "shr {blocks}, 3",
            // Clears CF (and OF, which this row leaves alone).
            "xor {c:e}, {c:e}",
            "mov rcx, {b1}",
            "jrcxz 2f",
            mul_limb!("0", "c", "h"),
            "mov {c}, {h}",
            "lea {a}, [{a} + 8]",
            "lea {r}, [{r} + 8]",
            "2:",
            "mov rcx, {b2}",
            "jrcxz 3f",
            mul_limb!("0", "c", "h"),
            mul_limb!("8", "h", "c"),
            "lea {a}, [{a} + 16]",
            "lea {r}, [{r} + 16]",
            "3:",
            "mov rcx, {b4}",
            "jrcxz 4f",
            mul_limb!("0", "c", "h"),
            mul_limb!("8", "h", "c"),
            mul_limb!("16", "c", "h"),
            mul_limb!("24", "h", "c"),
            "lea {a}, [{a} + 32]",
            "lea {r}, [{r} + 32]",
            "4:",
            "mov rcx, {blocks}",
            "jmp 6f",
            "5:",
            mul_limb!("0", "c", "h"),
            mul_limb!("8", "h", "c"),
            mul_limb!("16", "c", "h"),
            mul_limb!("24", "h", "c"),
            mul_limb!("32", "c", "h"),
            mul_limb!("40", "h", "c"),
            mul_limb!("48", "c", "h"),
            mul_limb!("56", "h", "c"),
            "lea {a}, [{a} + 64]",
            "lea {r}, [{r} + 64]",
            "lea rcx, [rcx - 1]",
            "6:",
            "jrcxz 7f",
            "jmp 5b",
            "7:",
            // The carry word c + CF (a[1..] a[0] < 2^(64 n)) goes to r[n].
            "mov {lo}, 0",
            "adcx {c}, {lo}",
            "mov qword ptr [{r}], {c}",
            // Row 1, as in the loop below: len = n - 2, a -> a[2], r -> r[3].
            "sub {len}, 1",
            "jz 9f",
            "lea {lo}, [8 * {len}]",
            "sub {a}, {lo}",
            "sub {r}, {lo}",
            "lea {r}, [{r} + 8]",
            "mov rdx, qword ptr [{a} - 8]",
            // The rows that add, entered at the body for len mod 8.
            "mov {lo}, {len}",
            "and {lo}, 7",
            "cmp {lo}, 6",
            "je 26f",
            "cmp {lo}, 5",
            "je 25f",
            "cmp {lo}, 4",
            "je 24f",
            "cmp {lo}, 3",
            "je 23f",
            "cmp {lo}, 2",
            "je 22f",
            "cmp {lo}, 1",
            "je 21f",
            "cmp {lo}, 0",
            "je 20f",
            triangle_row!("27", row_limb!("0", "c", "h"), row_limb!("8", "h", "c"), row_limb!("16", "c", "h"), row_limb!("24", "h", "c"), row_limb!("32", "c", "h"), row_limb!("40", "h", "c"), row_limb!("48", "c", "h"), "mov {c}, {h}\n", "lea {a}, [{a} + 56]\n", "lea {r}, [{r} + 56]\n"),
            triangle_row!("26", row_limb!("0", "c", "h"), row_limb!("8", "h", "c"), row_limb!("16", "c", "h"), row_limb!("24", "h", "c"), row_limb!("32", "c", "h"), row_limb!("40", "h", "c"), "lea {a}, [{a} + 48]\n", "lea {r}, [{r} + 48]\n"),
            triangle_row!("25", row_limb!("0", "c", "h"), row_limb!("8", "h", "c"), row_limb!("16", "c", "h"), row_limb!("24", "h", "c"), row_limb!("32", "c", "h"), "mov {c}, {h}\n", "lea {a}, [{a} + 40]\n", "lea {r}, [{r} + 40]\n"),
            triangle_row!("24", row_limb!("0", "c", "h"), row_limb!("8", "h", "c"), row_limb!("16", "c", "h"), row_limb!("24", "h", "c"), "lea {a}, [{a} + 32]\n", "lea {r}, [{r} + 32]\n"),
            triangle_row!("23", row_limb!("0", "c", "h"), row_limb!("8", "h", "c"), row_limb!("16", "c", "h"), "mov {c}, {h}\n", "lea {a}, [{a} + 24]\n", "lea {r}, [{r} + 24]\n"),
            triangle_row!("22", row_limb!("0", "c", "h"), row_limb!("8", "h", "c"), "lea {a}, [{a} + 16]\n", "lea {r}, [{r} + 16]\n"),
            triangle_row!("21", row_limb!("0", "c", "h"), "mov {c}, {h}\n", "lea {a}, [{a} + 8]\n", "lea {r}, [{r} + 8]\n"),
            triangle_row!("20"),
            "jmp 27b",
            "9:",
            a = inout(reg) a => _,
            r = inout(reg) r => _,
            len = inout(reg) n - 1 => _,
            out("rcx") _,
            out("rdx") _,
            lo = out(reg) _,
            h = out(reg) _,
            c = out(reg) _,
            blocks = out(reg) _,
            b1 = out(reg) _,
            b2 = out(reg) _,
            b4 = out(reg) _,
            options(nostack),
        );
    }
}

/// The whole triangle of a square of `n` words ([`sqr_triangle_adx`]) as straight-line
/// code, for one `n` fixed at assembly time: `$rows` lists `0 ..= n-2`, `$cols` lists
/// `1 ..= n-1`, `$last` is `n - 1` and `$n` is `n`. The assembler's `.irp` repeats a
/// limb per `(i, j)` with `i < j`, each at constant offsets, so a row costs no loop
/// control and no pointer updates: only its `xor`, the load of `a[i]` and its carry word.
/// Row 0 overwrites (one chain), later rows add; the carry register alternates between
/// `c` and `h` with the parity of `j - i`.
macro_rules! unrolled_triangle {
    ($rows:literal, $cols:literal, $last:literal, $n:literal) => {
        concat!(
            ".irp i, ",
            $rows,
            "\n",
            "mov rdx, qword ptr [{a} + \\i*8]\n",
            "xor {c:e}, {c:e}\n",
            ".irp j, ",
            $cols,
            "\n",
            ".if \\j > \\i\n",
            ".if \\i == 0\n",
            ".if (\\j - \\i) & 1\n",
            "mulx {h}, {lo}, qword ptr [{a} + \\j*8]\n",
            "adcx {lo}, {c}\n",
            ".else\n",
            "mulx {c}, {lo}, qword ptr [{a} + \\j*8]\n",
            "adcx {lo}, {h}\n",
            ".endif\n",
            ".else\n",
            ".if (\\j - \\i) & 1\n",
            "mulx {h}, {lo}, qword ptr [{a} + \\j*8]\n",
            "adcx {lo}, qword ptr [{r} + (\\i+\\j)*8]\n",
            "adox {lo}, {c}\n",
            ".else\n",
            "mulx {c}, {lo}, qword ptr [{a} + \\j*8]\n",
            "adcx {lo}, qword ptr [{r} + (\\i+\\j)*8]\n",
            "adox {lo}, {h}\n",
            ".endif\n",
            ".endif\n",
            "mov qword ptr [{r} + (\\i+\\j)*8], {lo}\n",
            ".endif\n",
            ".endr\n",
            // The row's carry word: high word + CF + OF (row 0 leaves OF clear).
            "mov {lo:e}, 0\n",
            ".if (",
            $last,
            " - \\i) & 1\n",
            "adcx {h}, {lo}\n",
            "adox {h}, {lo}\n",
            "mov qword ptr [{r} + (",
            $n,
            "+\\i)*8], {h}\n",
            ".else\n",
            "adcx {c}, {lo}\n",
            "adox {c}, {lo}\n",
            "mov qword ptr [{r} + (",
            $n,
            "+\\i)*8], {c}\n",
            ".endif\n",
            ".endr\n",
        )
    };
}

/// Defines `$name`, [`sqr_triangle_adx`] for one `n` as straight-line code
/// ([`unrolled_triangle`]), inlined like the rows: the size-specialised kernels keep
/// only their own size.
macro_rules! unrolled_triangle_fn {
    ($name:ident, $rows:literal, $cols:literal, $last:literal, $n:literal) => {
        /// [`sqr_triangle_adx`] for `n = $n`, straight-line.
        ///
        /// # Safety
        /// As for [`sqr_triangle_adx`] with this `n`.
        #[inline(always)]
        unsafe fn $name(r: *mut u64, a: *const u64) {
            // SAFETY: the caller guarantees the features, n words at `a` and 2n at `r`;
            // the asm reads a[0..n] and reads/writes r[1..=2n-2] at constant offsets,
            // nothing else, and uses no stack.
            unsafe {
                core::arch::asm!(
                    unrolled_triangle!($rows, $cols, $last, $n),
                    a = in(reg) a,
                    r = in(reg) r,
                    out("rdx") _,
                    lo = out(reg) _,
                    h = out(reg) _,
                    c = out(reg) _,
                    options(nostack),
                );
            }
        }
    };
}

unrolled_triangle_fn!(
    sqr_triangle_16_adx,
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14",
    "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
    "15",
    "16"
);
unrolled_triangle_fn!(
    sqr_triangle_17_adx,
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
    "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
    "16",
    "17"
);
unrolled_triangle_fn!(
    sqr_triangle_25_adx,
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23",
    "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24",
    "24",
    "25"
);

/// One limb of the doubling and diagonal pass at byte offsets `ao` of `a` and `ro` of
/// `r`: `x0:x1 = 2 (r[2i] : r[2i+1]) + a[i]^2`. The doubling is a shift, done without
/// the flags: `lea x, [t + 2 x]` with `t` the bit shifted out of the word below
/// (`shrx`); only the two `adcx` that add the square ride the carry chain.
macro_rules! diagonal_limb {
    ($ao:literal, $ro:literal) => {
        concat!(
            "mov rdx, qword ptr [{a} + ",
            $ao,
            "]\n",
            "mulx {hi}, {lo}, rdx\n",
            "mov {x0}, qword ptr [{r} + ",
            $ro,
            "]\n",
            "mov {x1}, qword ptr [{r} + ",
            $ro,
            " + 8]\n",
            "shrx {t}, {x0}, {sh}\n",
            "lea {x0}, [{cb} + 2 * {x0}]\n",
            "shrx {cb}, {x1}, {sh}\n",
            "lea {x1}, [{t} + 2 * {x1}]\n",
            "adcx {x0}, {lo}\n",
            "adcx {x1}, {hi}\n",
            "mov qword ptr [{r} + ",
            $ro,
            "], {x0}\n",
            "mov qword ptr [{r} + ",
            $ro,
            " + 8], {x1}\n",
        )
    };
}

/// `r = 2 r + sum a[i]^2 2^(128 i)` over `2 len` words of `r`: a one-bit shift of `r`
/// by `shrx`/`lea` (no flags), with `a[i]^2` added along the carry flag, one limb if
/// `len` is odd, then two per loop. The carry flag ends clear and the last shifted-out
/// bit is 0: the result fits in `r`.
///
/// # Safety
/// The CPU has BMI2 and ADX; `a` is valid for reading `len` words and `r` for reading
/// and writing `2 len` words.
#[inline(always)]
unsafe fn double_add_diagonal_adx(r: *mut u64, a: *const u64, len: usize) {
    // SAFETY: the caller guarantees the features and the words behind both pointers;
    // the asm reads a[0..len] and reads/writes r[0..2 len], nothing else, no stack.
    unsafe {
        core::arch::asm!(
            // Clears CF: the chain starts empty; no bit comes into r[0].
            "xor {cb:e}, {cb:e}",
            "mov {sh:e}, 63",
            "mov rcx, {odd}",
            "jrcxz 2f",
            diagonal_limb!("0", "0"),
            "lea {a}, [{a} + 8]",
            "lea {r}, [{r} + 16]",
            "2:",
            "mov rcx, {pairs}",
            "jmp 4f",
            "3:",
            diagonal_limb!("0", "0"),
            diagonal_limb!("8", "16"),
            "lea {a}, [{a} + 16]",
            "lea {r}, [{r} + 32]",
            "lea rcx, [rcx - 1]",
            "4:",
            "jrcxz 5f",
            "jmp 3b",
            "5:",
            a = inout(reg) a => _,
            r = inout(reg) r => _,
            odd = in(reg) len & 1,
            pairs = in(reg) len / 2,
            out("rcx") _,
            out("rdx") _,
            lo = out(reg) _,
            hi = out(reg) _,
            x0 = out(reg) _,
            x1 = out(reg) _,
            t = out(reg) _,
            cb = out(reg) _,
            sh = out(reg) _,
            options(nostack),
        );
    }
}

/// Defines `$name`, [`double_add_diagonal_adx`] for one length as straight-line code:
/// `.irp` repeats the limb over `$limbs` (`0 ..= len-1`) at constant offsets.
macro_rules! unrolled_diagonal_fn {
    ($name:ident, $limbs:literal) => {
        /// [`double_add_diagonal_adx`] for one length, straight-line.
        ///
        /// # Safety
        /// As for [`double_add_diagonal_adx`] with this length.
        #[inline(always)]
        unsafe fn $name(r: *mut u64, a: *const u64) {
            // SAFETY: the caller guarantees the features, len words at `a` and 2 len at
            // `r`; the asm reads a[0..len] and reads/writes r[0..2 len] at constant
            // offsets, nothing else, and uses no stack.
            unsafe {
                core::arch::asm!(
                    // Clears CF: the chain starts empty; no bit comes into r[0].
                    "xor {cb:e}, {cb:e}",
                    "mov {sh:e}, 63",
                    concat!(".irp i, ", $limbs, "\n"),
                    diagonal_limb!("\\i*8", "\\i*16"),
                    ".endr",
                    a = in(reg) a,
                    r = in(reg) r,
                    out("rdx") _,
                    lo = out(reg) _,
                    hi = out(reg) _,
                    x0 = out(reg) _,
                    x1 = out(reg) _,
                    t = out(reg) _,
                    cb = out(reg) _,
                    sh = out(reg) _,
                    options(nostack),
                );
            }
        }
    };
}

unrolled_diagonal_fn!(
    double_add_diagonal_16_adx,
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
);
unrolled_diagonal_fn!(
    double_add_diagonal_17_adx,
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"
);
unrolled_diagonal_fn!(
    double_add_diagonal_24_adx,
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23"
);
unrolled_diagonal_fn!(
    double_add_diagonal_25_adx,
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24"
);
unrolled_diagonal_fn!(
    double_add_diagonal_32_adx,
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31"
);
unrolled_diagonal_fn!(
    double_add_diagonal_33_adx,
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32"
);

impl AddMul for Mulx {
    #[inline(always)]
    fn sqr_triangle(self, r: &mut [u64], a: &[u64]) {
        {
            let n = a.len();
            assert!(n >= 2 && r.len() == 2 * n, "triangle of the wrong length");
            // From 24 limbs, a multiple of 8 takes eight rows per pass.
            if n >= 24 && row_passes::sqr_triangle8(self, r, a) {
                return;
            }
            r[0] = 0;
            r[2 * n - 1] = 0;
            // A 1024-bit modulus and the lazy-reduction neighbours of 1024 and 1536
            // bits have a straight-line triangle (docs/PERFORMANCE.md, "The squaring's
            // triangle in a chain of squarings").
            let unrolled = match n {
                16 => Some(sqr_triangle_16_adx as unsafe fn(*mut u64, *const u64)),
                17 => Some(sqr_triangle_17_adx as unsafe fn(*mut u64, *const u64)),
                25 => Some(sqr_triangle_25_adx as unsafe fn(*mut u64, *const u64)),
                _ => None,
            };
            if let Some(f) = unrolled {
                // SAFETY: BMI2 and ADX are present (the token); `a` has n readable words
                // and `r` 2n writable ones (asserted), n the size `f` is written for.
                return unsafe { f(r.as_mut_ptr(), a.as_ptr()) };
            }
            // SAFETY: BMI2 and ADX are present (the token); n >= 2, `a` has n readable
            // words and `r` exactly 2n writable ones (asserted).
            unsafe { sqr_triangle_adx(r.as_mut_ptr(), a.as_ptr(), n) }
        }
    }

    #[inline(always)]
    fn double_add_diagonal(self, r: &mut [u64], a: &[u64]) {
        {
            assert_eq!(r.len(), 2 * a.len(), "square of the wrong length");
            // The sizes of 1024 to 2048-bit moduli and their lazy-reduction neighbours
            // have a straight-line pass.
            let unrolled = match a.len() {
                16 => Some(double_add_diagonal_16_adx as unsafe fn(*mut u64, *const u64)),
                17 => Some(double_add_diagonal_17_adx as unsafe fn(*mut u64, *const u64)),
                24 => Some(double_add_diagonal_24_adx as unsafe fn(*mut u64, *const u64)),
                25 => Some(double_add_diagonal_25_adx as unsafe fn(*mut u64, *const u64)),
                32 => Some(double_add_diagonal_32_adx as unsafe fn(*mut u64, *const u64)),
                33 => Some(double_add_diagonal_33_adx as unsafe fn(*mut u64, *const u64)),
                _ => None,
            };
            if let Some(f) = unrolled {
                // SAFETY: BMI2 and ADX are present (the token); `a` has a.len() readable
                // words and `r` twice that many (asserted), the length `f` is written for.
                return unsafe { f(r.as_mut_ptr(), a.as_ptr()) };
            }
            // SAFETY: BMI2 and ADX are present (the token); `a` has a.len() readable
            // words and `r` exactly twice that many writable ones (asserted).
            unsafe { double_add_diagonal_adx(r.as_mut_ptr(), a.as_ptr(), a.len()) }
        }
    }

    /// Eight rows per pass ([`row_passes::mul_rows`]) where both lengths are multiples
    /// of 8, four where they are multiples of 4 below 16.
    #[inline(always)]
    fn mul_basecase(self, r: &mut [u64], a: &[u64], b: &[u64]) {
        if !row_passes::mul_rows(self, r, a, b) {
            mpn::mul_basecase(self, r, a, b);
        }
    }

    /// Eight rows per pass ([`row_passes::redc_rows`]) where the length is a multiple
    /// of 8, four where it is a multiple of 4 below 24.
    #[inline(always)]
    fn redc(self, t: &mut [u64], n: &[u64], n0: u64, out: &mut [u64]) -> u64 {
        row_passes::redc_rows(self, t, n, n0, out).unwrap_or_else(|| mpn::redc(self, t, n, n0, out))
    }

    #[inline(always)]
    fn addmul_1(self, r: &mut [u64], a: &[u64], b: u64) -> u64 {
        assert!(r.len() >= a.len(), "row longer than its destination");
        // SAFETY: BMI2 and ADX are present (the token); `a` has a.len() readable words
        // and `r` at least that many writable ones (asserted).
        unsafe { addmul_1_adx(r.as_mut_ptr(), a.as_ptr(), a.len(), b) }
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

impl Kernel<u64> for MulxRedc {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn resolve(&self, limbs: usize, _: Reduction) -> Option<&'static dyn Kernel<u64>> {
        Adx::new().map(|adx| mulx_redc(adx, limbs))
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        m.engine().mul_exact(m, a, b, out);
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        m.engine().sqr_exact(m, a, out);
    }
}

impl Kernel<u64> for MulxRedcRows {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        let rows = self.0;
        mpn::mont_separated(rows, m.n(), m.n0(), m.reduction(), 0, out, |wide, _| {
            rows.mul_basecase(wide, a, b)
        });
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        let rows = self.0;
        mpn::mont_separated(rows, m.n(), m.n0(), m.reduction(), 0, out, |wide, _| {
            mpn::sqr_basecase(rows, wide, a)
        });
    }
}

impl<const N: usize> Kernel<u64> for FixedMulx<N> {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn limb_counts(&self) -> Option<&'static [usize]> {
        Some(const { &[N] })
    }

    fn mul_exact(&self, m: &Modulus<u64>, a: &[u64], b: &[u64], out: &mut [u64]) {
        let (n, n0, red) = (words::<N>(m.n()), m.n0(), m.reduction());
        *words_mut::<N>(out) = fixed::mul_redc(self.0, words(a), words(b), n, n0, red);
    }

    fn sqr_exact(&self, m: &Modulus<u64>, a: &[u64], out: &mut [u64]) {
        let (n, n0, red) = (words::<N>(m.n()), m.n0(), m.reduction());
        *words_mut::<N>(out) = fixed::sqr(self.0, words(a), n, n0, red);
    }
}

// After the macros, which `cios` uses too.
pub mod cios;
mod row_passes;
mod square;
mod square4;

#[cfg(test)]
mod tests {
    use super::*;

    /// The mulx row equals the portable one, and the squaring on mulx passes equals the
    /// portable product, at every length 0..=20 on all-ones words (the largest carries)
    /// and a pseudo-random pattern. Skipped, and said so, on a CPU without BMI2/ADX.
    #[test]
    fn row_equals_portable() {
        let Some(adx) = Adx::new() else {
            montmul_testkit::skipped!("SKIPPED: row_equals_portable: this CPU lacks BMI2 or ADX");
            return;
        };
        let rows = Mulx::new(adx);
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
                let c1 = rows.addmul_1(&mut r1, &a, b);
                let c2 = mpn::addmul_1(&mut r2, &a, b);
                assert_eq!((c1, &r1), (c2, &r2), "len {len} pattern {pattern}");
                if len > 0 {
                    // The squaring, whose last pass is double_add_diagonal.
                    let (mut sq, mut pr) = (vec![0u64; 2 * len], vec![0u64; 2 * len]);
                    mpn::sqr_basecase(rows, &mut sq, &a);
                    mpn::mul_basecase(mpn::Portable, &mut pr, &a, &a);
                    assert_eq!(sq, pr, "square len {len} pattern {pattern}");
                }
            }
        }
    }
}
