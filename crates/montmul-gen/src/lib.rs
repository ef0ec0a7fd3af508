//! montmul-gen: the code generator of seed 000, sec. 5 (Bos & Kaihara, *Montgomery
//! Multiplication on the Cell*): "to enhance the performance and avoid expensive
//! conditional branches, a code generator has been designed. This generator takes as
//! input the bit-size of the modulus and outputs the Montgomery multiplication code".
//!
//! ```
//! use montmul_gen::{generate, Algo, Lang, Spec, Word};
//!
//! let spec = Spec::new(256, Lang::C, Algo::Cios, Word::W64, false)?;
//! let source = generate(&spec);
//! assert!(source.contains("void montmul_mul_256(uint64_t *r, const uint64_t *a"));
//! assert!(source.contains("montmul gen --bits 256 --lang c --algo cios --word 64"));
//! # Ok::<(), montmul_gen::GenError>(())
//! ```
//!
//! # What it emits
//!
//! One standalone, dependency-free source file, Rust or C, holding two functions for
//! one modulus size B: `montmul_mul_<B>(r, a, b, n, n0)` and `montmul_sqr_<B>(r, a, n,
//! n0)`, over arrays of [`Spec::limbs`] little-endian words of 32 or 64 bits. The modulus
//! and n0' = -n^-1 mod 2^w are arguments, so one file serves every modulus of its size.
//! The algorithm is CIOS, FIOS or SOS (seed 004, appendix; [`Algo`]), with the final
//! subtraction done by masks or, with `lazy`, left out (seed 000, sec. 3: inputs and
//! output in [0, 2n) when R > 4n). The header names the exact `montmul gen` command and
//! the montmul version that produced the file.
//!
//! # Why straight-line code
//!
//! Once the size is fixed, every loop bound of the algorithm is a constant, so the loops
//! can be unrolled completely: no loop counters, no loop branches, every array index a
//! constant, and every intermediate word a local variable the compiler can keep in a
//! register. That is where the speed of seed 000's "unrolled MPM" comes from; it is
//! also what makes the kernels constant-time by construction: the only remaining choice,
//! the final subtraction, is a mask (`y ^ (mask & (x ^ y))`), and no branch, loop or
//! memory address depends on the values. Carries are taken from double-width sums
//! (`u128`, `unsigned __int128`), which compilers turn into add-with-carry instructions.
//!
//! # One description of each algorithm, two printers
//!
//! An algorithm is written once, in [`algo`], against the builder methods of
//! [`ir::Program`] that mirror the pseudocode lines of seed 004's appendix
//! (`(C,S) := t[j] + a[j]*b[i] + C` is [`ir::Program::mul_add`]). Running it produces
//! an intermediate list of word operations ([`ir::Op`]) in single-assignment form: each
//! step makes new values, constants are folded (the zero accumulator of the first row
//! costs nothing) and dead results are removed. [`variables`] then stores the values in
//! the pseudocode's variables (`t3`, `c`), reused wherever lifetimes allow. The emitters
//! in `emit` print that one list as C or Rust; they differ only in syntax (types, casts,
//! declarations), so a kernel in C and the same kernel in Rust perform the same
//! operations in the same order.
//!
//! # Squaring and lazy reduction
//!
//! SOS computes the whole product before reducing, so its squaring computes each cross
//! product a\[i\] a\[j\] once and doubles the sum: s (s + 1) / 2 word products instead of
//! s^2 (seed 004: "when a = b, we can optimize the Montgomery multiplication algorithm
//! for squaring"). CIOS and FIOS interleave product and reduction row by row, which
//! leaves no such saving: their squaring is the product of a with itself. A lazy kernel
//! needs R > 4n, so it gets ceil((B + 2) / w) words, as montmul's `Reduction::Lazy` does
//! (seed 000 pays a whole extra vector for the extra bit in the same way).
//!
//! # How it is checked
//!
//! The tests compile the emitted C (`cc -O2`) and Rust (`rustc -O`) for many sizes,
//! both word sizes, every algorithm and both reductions, and compare their results with
//! the num-bigint oracle on random and edge-case inputs; [`eval`] runs the operation
//! lists directly up to 4096 bits; the text is checked to be straight-line with constant
//! indices. Constant time is a property of the machine code, not of the source, so on
//! x86-64 the tests also read the assembly that `cc -O2` and `rustc -O` make of every
//! variant and require it to hold no jump and no call.
//!
//! # Layout
//!
//! [`spec`] (what to generate), [`ir`] (the operation list), [`algo`] (CIOS, FIOS, SOS
//! and the shared final reduction), [`eval`] (running the list directly, the reference
//! for tests at every size), [`variables`] (naming the values), `emit` (the two
//! printers), `error` and `sizes` ([`GenError`] and the sizes accepted). Writing the
//! output to a file, whole or not at all, is the caller's: the `montmul gen --out`
//! command does it.
//!
//! # Where the output is used
//!
//! montmul's kernel `gen-cios` (`montmul::generated`, a hidden internal module) is this generator's Rust output
//! for 256, 384, 512, 1024 and 2048 bits, committed under
//! `crates/montmul/src/generated/` with the command in each header. The test
//! `tests/committed.rs` regenerates every one of those files and fails on any
//! difference.

pub mod algo;
mod emit;
mod error;
pub mod eval;
pub mod ir;
mod sizes;
pub mod spec;
pub mod variables;

pub use error::GenError;
pub use spec::{Algo, Function, Lang, Spec, Word, MAX_BITS, MIN_BITS};

/// The complete source file for `spec`: header, then the multiplication and the
/// squaring.
pub fn generate(spec: &Spec) -> String {
    emit::emit(spec)
}
