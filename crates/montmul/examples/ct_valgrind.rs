//! Constant-time evidence under valgrind memcheck: montmul's constant-time paths run
//! with their secret inputs marked undefined, so that memcheck reports every branch and
//! every memory address that depends on them.
//!
//! The method is Adam Langley's ctgrind, as BoringSSL's `CONSTTIME_SECRET` and
//! `CONSTTIME_DECLASSIFY` use it: memcheck tracks, bit by bit, whether a value was
//! initialised, and complains when an uninitialised value decides a conditional jump
//! ("Conditional jump or move depends on uninitialised value(s)") or forms an address
//! ("Use of uninitialised value of size 8"). Marking the secrets undefined
//! (`VALGRIND_MAKE_MEM_UNDEFINED`, here through the `crabgrind` crate) turns those
//! complaints into a list of secret-dependent branches and addresses; each output is
//! marked defined again (`VALGRIND_MAKE_MEM_DEFINED`) before it is compared with the
//! num-bigint oracle, so the checks of this program do not count. Data flow alone
//! (additions, products, masks, `cmov`) is not reported: it is the constant-time way.
//!
//! What runs, for 8-, 16-, 32- and 64-bit limbs and both reduction policies:
//! - every scalar kernel `auto` can pick (`cios`, `cios-fixed` with its `Words` form,
//!   `gen-cios`, `mulx-cios`, `mulx-redc` with its stack-array form, `karatsuba`), by
//!   name and through `auto`, first with the CPU features valgrind reports (no ADX) and
//!   then with ADX assumed (`montmul::testing::assume_adx`), which is checked to make
//!   `auto` pick the `mulx` kernels: products and squares of secret operands;
//! - `exp::pow` with a secret base and a secret exponent (windows of 1, 3, 4 and 5 bits);
//! - the table reads on their own (`arch::masked_or`, `exp::entry_mask`) with secret masks
//!   and index;
//! - the construction of a `Modulus` from a secret modulus (RSA's p and q), whose
//!   modular doublings build R mod n and R^2 mod n; its bit length and oddness are
//!   public and stay defined;
//! - the `Residue` operations on secret values: products, sums, `pow`, `ct_eq`, the
//!   wide reductions (`from_limbs_reduced`, `from_be_bytes_reduced`), the inverse
//!   (`inv`), the fixed-length outputs (`write_be_bytes`, `to_be_bytes_padded`,
//!   `to_be_bytes`, `to_hex`) with `ct_is_zero`, and the in-place forms, among them
//!   `pow_assign` and `pow_vartime_assign` in one reused `PowScratch`;
//! - the small fields (`FieldModulus<N>` for N = 1, 4, 6, 9, on `mulx-cios` with ADX
//!   assumed and on `cios-fixed`): arithmetic, `pow`, `ct_eq`, `select` and the
//!   conversions from and to limbs, bytes and hex.
//!
//! Whether a value is below n or has an inverse is public by design: the library
//! declassifies those flags itself (`ct::declassify`, a memcheck client request with
//! this feature) right before it branches on them. Each group of cases ends with a
//! summary line.
//!
//! The AVX-512 IFMA paths cannot run under valgrind (it does not decode AVX-512); they
//! are left to the statistical check (`docs/SECURITY.md`).
//!
//! Build in release mode (overflow checks are value-dependent branches) and run:
//!
//! ```text
//! cargo build --release -p montmul --features ct-valgrind --example ct_valgrind
//! valgrind --error-exitcode=1 --expensive-definedness-checks=yes \
//!     target/release/examples/ct_valgrind
//! ```
//!
//! `cargo test -p montmul --test ct_valgrind` does the second step when the binary is
//! there. Without valgrind the program runs the same cases as a plain oracle check.

use crabgrind::memcheck::{mark_memory, vbits, MemState};
use montmul::Limb;
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{
    from_limbs, r_inverse, random_below, random_below_pow2, random_modulus, to_limbs, TestRng,
};
use num_traits::One;

/// Every use of montmul's API, in one place, so that a change of the API is a change
/// here only.
mod api {
    use montmul::arch::{self, Adx, Avx2, Avx512Ifma};
    use montmul::lab::{self, exp};
    use montmul::{
        FieldElement, FieldKernel, FieldModulus, Limb, Modulus, PowScratch, Reduction, Residue,
    };

    pub use montmul::{Error, Reduction as Policy};

    /// Whether a kernel may refuse a modulus for this reason: it lacks the reduction
    /// policy, or the CPU (as montmul sees it) lacks what it needs.
    pub fn refusal_expected(e: &Error) -> bool {
        matches!(
            e,
            Error::UnsupportedReduction { .. } | Error::Unavailable { .. }
        )
    }

    /// The modulus of `n` (little-endian limbs) for the kernel called `name`, and the
    /// name of what it resolved to (`auto` picks here).
    pub fn modulus<L: Limb>(
        n: &[L],
        name: &str,
        reduction: Reduction,
    ) -> Result<(Modulus<L>, &'static str), Error> {
        let m = Modulus::with_kernel(n, lab::by_name::<L>(name)?, reduction)?;
        let engine = m.engine().info().name;
        Ok((m, engine))
    }

    /// The number of limbs of `m`; R = 2^(w * limbs).
    pub fn limbs<L: Limb>(m: &Modulus<L>) -> usize {
        m.limbs()
    }

    /// The bound residues stay below (n, or 2n with lazy reduction).
    pub fn bound<L: Limb>(m: &Modulus<L>) -> &[L] {
        m.bound()
    }

    /// The constants a modulus is built with: n, R mod n, R^2 mod n.
    pub fn constants<L: Limb>(m: &Modulus<L>) -> [&[L]; 3] {
        [m.n(), m.r1(), m.r2()]
    }

    /// n0' = -n^-1 mod 2^w.
    pub fn n0<L: Limb>(m: &Modulus<L>) -> L {
        m.n0()
    }

    /// `out = a * b * R^-1 mod n` through the modulus' kernel.
    pub fn mul<L: Limb>(m: &Modulus<L>, a: &[L], b: &[L], out: &mut [L]) {
        m.mont_mul(a, b, out);
    }

    /// `out = a * a * R^-1 mod n` through the modulus' kernel.
    pub fn sqr<L: Limb>(m: &Modulus<L>, a: &[L], out: &mut [L]) {
        m.mont_sqr(a, out);
    }

    /// `base^e` in Montgomery form, constant-time in `base` and `e`'s value.
    pub fn pow<L: Limb>(m: &Modulus<L>, base: &[L], e: &[u8]) -> Vec<L> {
        exp::pow(m, base, e, &mut ())
    }

    /// The table read of the exponentiations on 64-bit words (AVX2 where there).
    pub fn masked_or(table: &[Vec<u64>], masks: &[u64], out: &mut [u64]) {
        arch::masked_or(Avx2::new(), table, masks, out);
    }

    /// The table read on limbs of any width.
    pub fn masked_or_limbs<L: Limb>(table: &[Vec<L>], masks: &[u64], out: &mut [L]) {
        arch::generic::masked_or(table, masks, out);
    }

    /// All ones when `j == index`, else 0.
    pub fn entry_mask(j: usize, index: usize) -> u64 {
        exp::entry_mask(j, index)
    }

    /// Makes the detection answer yes for BMI2 and ADX.
    pub fn assume_adx() {
        montmul::testing::assume_adx();
    }

    /// Whether montmul thinks the CPU has BMI2 and ADX.
    pub fn has_adx() -> bool {
        Adx::new().is_some()
    }

    /// Whether montmul thinks the CPU has AVX-512 IFMA.
    pub fn has_ifma() -> bool {
        Avx512Ifma::new().is_some()
    }

    /// The limb counts the kernel called `name` has code for (`None`: every count).
    pub fn limb_counts(name: &str) -> Option<&'static [usize]> {
        lab::by_name::<u64>(name).ok()?.limb_counts()
    }

    /// The tuned limb counts of `auto`'s chain.
    pub struct Tuned {
        /// The sizes of the unrolled `mulx-cios`.
        pub mulx_cios: &'static [usize],
        /// The first size of `mulx-redc`.
        pub mulx_from: usize,
        /// The first size of Karatsuba.
        pub karatsuba_from: usize,
        /// Where Karatsuba's product recursion starts.
        pub karatsuba_mul_base: usize,
    }

    /// The thresholds `auto` uses.
    pub fn thresholds() -> Tuned {
        let t = lab::TUNED;
        Tuned {
            mulx_cios: t.mulx_cios,
            mulx_from: t.mulx_from,
            karatsuba_from: t.karatsuba_from,
            karatsuba_mul_base: t.karatsuba_mul_base,
        }
    }

    /// The residue operations on secret values `x`, `y` (normal form, below n) and a
    /// secret exponent: `mark` is called on each residue's Montgomery limbs right after
    /// it is made, `open` on each output before it is returned. Returns x y, x^2,
    /// x + y, x - y, -x, x^e (normal form) and whether x = y.
    pub fn residue_ops<L: Limb>(
        m: &Modulus<L>,
        x: &[L],
        y: &[L],
        e: &[u8],
        mark: impl Fn(&[L]),
        open: impl Fn(&[L]),
    ) -> (Vec<Vec<L>>, bool) {
        let a = Residue::new(m, x).expect("x < n");
        let b = Residue::new(m, y).expect("y < n");
        mark(a.montgomery_limbs());
        mark(b.montgomery_limbs());
        let results = [&a * &b, a.square(), &a + &b, &a - &b, -&a, a.pow(e)];
        let out = results
            .iter()
            .map(|r| {
                let v = r.to_limbs();
                open(&v);
                v
            })
            .collect();
        let eq = [a.ct_eq(&b)];
        open(&eq);
        (out, eq[0] == L::ONE)
    }

    /// The wide reductions of secret inputs: `x mod n` from limbs of any length
    /// (`Residue::from_limbs_reduced`) and from big-endian bytes of any length
    /// (`Residue::from_be_bytes_reduced`), as normal-form limbs, each `open`ed.
    pub fn reduced<L: Limb>(
        m: &Modulus<L>,
        x: &[L],
        bytes: &[u8],
        open: impl Fn(&[L]),
    ) -> [Vec<L>; 2] {
        [
            Residue::from_limbs_reduced(m, x),
            Residue::from_be_bytes_reduced(m, bytes),
        ]
        .map(|r| {
            let v = r.to_limbs();
            open(&v);
            v
        })
    }

    /// `x^-1` (normal form, `open`ed) by the constant-time `Residue::inv` of the secret
    /// `x` (`mark`ed once a residue), or `None` when x has no inverse: that answer is
    /// public by design (the library declassifies it before branching on it).
    pub fn inverse<L: Limb>(
        m: &Modulus<L>,
        x: &[L],
        mark: impl Fn(&[L]),
        open: impl Fn(&[L]),
    ) -> Option<Vec<L>> {
        let a = Residue::new(m, x).expect("x < n");
        mark(a.montgomery_limbs());
        match a.inv() {
            Ok(r) => {
                let v = r.to_limbs();
                open(&v);
                Some(v)
            }
            Err(Error::NotInvertible) => None,
            Err(e) => panic!("inv: {e}"),
        }
    }

    /// The fixed-length outputs of a secret `x` (`mark`ed once a residue), each
    /// `open`ed: `write_be_bytes` into `k` bytes, `to_be_bytes_padded(k)`,
    /// `to_be_bytes`, `to_hex` (as bytes), and `ct_is_zero` (1 or 0, as one byte).
    /// `k - 1` bytes are checked to be refused when that is below the modulus' length.
    pub fn encodings<L: Limb>(
        m: &Modulus<L>,
        x: &[L],
        k: usize,
        mark: impl Fn(&[L]),
        open: impl Fn(&[u8]),
    ) -> [Vec<u8>; 5] {
        let a = Residue::new(m, x).expect("x < n");
        mark(a.montgomery_limbs());
        let mut written = vec![0xa5u8; k];
        a.write_be_bytes(&mut written)
            .expect("k bytes hold the value");
        let padded = a.to_be_bytes_padded(k).expect("k bytes hold the value");
        if k - 1 < m.byte_len() {
            let short = a.to_be_bytes_padded(k - 1);
            assert!(
                matches!(short, Err(Error::OutputTooShort { .. })),
                "{short:?}"
            );
            let mut short = vec![0u8; k - 1];
            assert!(a.write_be_bytes(&mut short).is_err());
        }
        let zero = a.ct_is_zero();
        let out = [
            written,
            padded,
            a.to_be_bytes(),
            a.to_hex().into_bytes(),
            vec![zero.to_u64() as u8],
        ];
        for v in &out {
            open(v);
        }
        out
    }

    /// The in-place operations, chained on secret `x`, `y` (`mark`ed once residues) and
    /// a secret exponent: c = x; c *= y; c = c^2; c += y; c -= x; c = -c; c = c^e (each
    /// step's normal form `open`ed and returned).
    pub fn in_place<L: Limb>(
        m: &Modulus<L>,
        x: &[L],
        y: &[L],
        e: &[u8],
        mark: impl Fn(&[L]),
        open: impl Fn(&[L]),
    ) -> Vec<Vec<L>> {
        let a = Residue::new(m, x).expect("x < n");
        let b = Residue::new(m, y).expect("y < n");
        mark(a.montgomery_limbs());
        mark(b.montgomery_limbs());
        let mut c = a.clone();
        let mut steps = Vec::new();
        let mut record = |c: &Residue<L>| {
            let v = c.to_limbs();
            open(&v);
            steps.push(v);
        };
        c.mul_assign(&b);
        record(&c);
        c.square_assign();
        record(&c);
        c.add_assign(&b);
        record(&c);
        c.sub_assign(&a);
        record(&c);
        c.neg_assign();
        record(&c);
        let c = c.pow(e);
        record(&c);
        steps
    }

    /// The in-place exponentiations in one reused `PowScratch` (made for 32-byte
    /// exponents), on secret `x`, `y` (`mark`ed once residues) and secret exponents
    /// `e1`, `e2`, and a public exponent `p`: c = x; c.pow_assign(e1); c *= y;
    /// c.pow_assign(e2); c.pow_vartime_assign(p) (the base secret, the exponent public);
    /// then `y.pow_assign(e1)` in the same scratch. Each step's normal form `open`ed
    /// and returned. A longer exponent than the scratch takes is checked to be refused.
    #[allow(clippy::too_many_arguments)]
    pub fn pow_in_place<L: Limb>(
        m: &Modulus<L>,
        x: &[L],
        y: &[L],
        e1: &[u8],
        e2: &[u8],
        p: &[u8],
        mark: impl Fn(&[L]),
        open: impl Fn(&[L]),
    ) -> Vec<Vec<L>> {
        let mut scratch = PowScratch::new(m, 32);
        let mut c = Residue::new(m, x).expect("x < n");
        let mut b = Residue::new(m, y).expect("y < n");
        mark(c.montgomery_limbs());
        mark(b.montgomery_limbs());
        let mut steps = Vec::new();
        let mut record = |c: &Residue<L>| {
            let v = c.to_limbs();
            open(&v);
            steps.push(v);
        };
        c.pow_assign(e1, &mut scratch).expect("scratch fits");
        record(&c);
        c.mul_assign(&b);
        record(&c);
        c.pow_assign(e2, &mut scratch).expect("scratch fits");
        record(&c);
        c.pow_vartime_assign(p, &mut scratch).expect("scratch fits");
        record(&c);
        b.pow_assign(e1, &mut scratch).expect("scratch fits");
        record(&b);
        let refused = c.pow_assign(&[0; 33], &mut scratch);
        assert!(
            matches!(refused, Err(Error::ExponentTooLong { len: 33, max: 32 })),
            "{refused:?}"
        );
        steps
    }

    /// A small field modulo `n`: by `FieldModulus::new` (`auto`), or with the portable
    /// kernel forced (`cios-fixed`); and the name of its kernel.
    pub fn field<const N: usize>(
        n: &[u64; N],
        portable: bool,
    ) -> Result<(FieldModulus<N>, &'static str), Error> {
        let p = if portable {
            FieldModulus::with_kernel(n, FieldKernel::CiosFixed)?
        } else {
            FieldModulus::new(n)?
        };
        let name = p.kernel().name();
        Ok((p, name))
    }

    /// The limb counts at which the small fields' `auto` takes `mulx-cios` where the
    /// CPU has BMI2 and ADX.
    pub fn field_mulx(limbs: usize) -> bool {
        Adx::new().is_some() && FieldKernel::auto(limbs) == FieldKernel::MulxCios
    }

    /// What [`field_ops`] returns: normal-form limbs of x y, x^2, x + y, x - y, -x,
    /// x^e, `select(x, y, choice)`, `from_be_bytes`, `from_hex` and `from_limbs` of the
    /// secret inputs; `ct_eq(x, y)` and `is_zero(x)`; `to_be_bytes(x)` and `to_hex(x)`.
    pub struct FieldResults {
        /// The values, as normal-form limbs.
        pub values: Vec<Vec<u64>>,
        /// `ct_eq(x, y)`, `is_zero(x)`.
        pub flags: [bool; 2],
        /// `to_be_bytes(x)`, `to_hex(x)` as bytes.
        pub bytes: [Vec<u8>; 2],
    }

    /// The small-field operations on secret elements x and y (`mark`ed as raw bytes once
    /// elements), a secret exponent, a secret `choice`, and the secret inputs of the
    /// conversions (limbs of x, its big-endian bytes and hex text, all marked by the
    /// caller); every output `open`ed (as raw bytes) before it is returned.
    #[allow(clippy::too_many_arguments)]
    pub fn field_ops<const N: usize>(
        p: &FieldModulus<N>,
        x: &[u64; N],
        y: &[u64; N],
        e: &[u8],
        choice: bool,
        x_bytes: &[u8],
        x_hex: &str,
        mark: impl Fn(*const u8, usize),
        open: impl Fn(*const u8, usize),
    ) -> FieldResults {
        let bytes_of = |v: &FieldElement<N>| {
            (
                (v as *const FieldElement<N>).cast::<u8>(),
                core::mem::size_of::<FieldElement<N>>(),
            )
        };
        let a = FieldElement::from_limbs(p, x).expect("x < n");
        let b = FieldElement::from_limbs(p, y).expect("y < n");
        for v in [&a, &b] {
            let (at, len) = bytes_of(v);
            mark(at, len);
        }
        let elements = [
            p.mul(&a, &b),
            p.square(&a),
            p.add(&a, &b),
            p.sub(&a, &b),
            p.neg(&a),
            p.pow(&a, e),
            FieldElement::select(&a, &b, choice),
            FieldElement::from_be_bytes(p, x_bytes).expect("x < n"),
            FieldElement::from_hex(p, x_hex).expect("x < n"),
        ];
        let mut values: Vec<Vec<u64>> = elements.iter().map(|v| v.to_limbs(p).to_vec()).collect();
        values.push(a.to_limbs(p).to_vec());
        for v in &values {
            open(v.as_ptr().cast(), 8 * v.len());
        }
        let flags = [a.ct_eq(&b), a.is_zero()];
        open(flags.as_ptr().cast(), 2);
        let bytes = [a.to_be_bytes(p), a.to_hex(p).into_bytes()];
        for v in &bytes {
            open(v.as_ptr(), v.len());
        }
        FieldResults {
            values,
            flags,
            bytes,
        }
    }

    /// Both policies.
    pub const POLICIES: [Reduction; 2] = Reduction::ALL;
}

use api::Policy;

/// Marks `len` bytes at `addr` as secret (undefined), and checks that memcheck took
/// note; nothing when not under valgrind.
fn secret_bytes(addr: *const u8, len: usize) {
    if len == 0 || !under_valgrind() {
        return;
    }
    mark_memory(addr.cast(), len, MemState::Undefined).expect("under valgrind");
    // Memcheck's validity bits of the bytes (0xff: undefined), read without an error
    // report (as a check request would make).
    let mut v = vec![0u8; len];
    vbits(addr.cast(), &mut v).expect("under valgrind");
    assert!(
        v.iter().all(|&b| b == 0xff),
        "memcheck did not take {len} bytes as undefined"
    );
}

/// Marks the values as secret.
fn secret<T>(values: &[T]) {
    secret_bytes(values.as_ptr().cast(), core::mem::size_of_val(values));
}

/// Marks the values as public again (declassified): an output about to be checked.
fn public<T>(values: &[T]) {
    public_bytes(values.as_ptr().cast(), core::mem::size_of_val(values));
}

/// Marks `len` bytes at `addr` as public again.
fn public_bytes(addr: *const u8, len: usize) {
    let _ = mark_memory(addr.cast(), len, MemState::Defined);
}

fn under_valgrind() -> bool {
    crabgrind::valgrind::running_mode().is_valgrind()
}

/// Memcheck's error count so far (0 when not under valgrind).
fn errors() -> usize {
    if under_valgrind() {
        crabgrind::valgrind::count_errors()
    } else {
        0
    }
}

/// The run: a random generator, the cases run, the cases memcheck complained in, and
/// the kernel the last case's modulus resolved to.
struct Run {
    rng: TestRng,
    cases: usize,
    failed: Vec<String>,
    engine: Option<&'static str>,
}

impl Run {
    /// Runs the cases of `body` as the group `name` and prints its summary line.
    fn group(&mut self, name: &str, body: impl FnOnce(&mut Self)) {
        let (cases, failed) = (self.cases, self.failed.len());
        let start = std::time::Instant::now();
        body(self);
        println!(
            "== {name}: {} cases, {} with leaks, {:.1} s",
            self.cases - cases,
            self.failed.len() - failed,
            start.elapsed().as_secs_f64()
        );
    }

    /// Runs `case`, named `label`, and records whether memcheck's error count grew.
    fn case(&mut self, label: &str, case: impl FnOnce(&mut Self) -> String) {
        let before = errors();
        self.engine = None;
        let detail = case(self);
        let new = errors() - before;
        self.cases += 1;
        if new == 0 {
            println!("ok    {label:<40} {detail}");
        } else {
            println!("LEAK  {label:<40} {detail}: {new} memcheck error(s), reported above");
            self.failed.push(label.to_string());
        }
    }
}

/// `bytes` random bytes.
fn random_bytes(rng: &mut TestRng, bytes: usize) -> Vec<u8> {
    let x = random_below_pow2(rng, 8 * bytes as u32).to_bytes_be();
    let mut out = vec![0u8; bytes - x.len().min(bytes)];
    out.extend_from_slice(&x[x.len().saturating_sub(bytes)..]);
    out
}

/// The modulus size that gives `s` limbs of `L` under `policy`: full width for `Full`,
/// two bits less for `Lazy` (R > 4n).
fn bits_for<L: Limb>(s: usize, policy: Policy) -> u32 {
    let full = s as u32 * L::BITS;
    match policy {
        Policy::Full => full,
        Policy::Lazy => full - 2,
    }
}

/// `got` (limbs, below `bound`) is congruent to `want` mod n.
fn check<L: Limb>(got: &[L], want: &BigUint, bound: &BigUint, n: &BigUint, what: &str) {
    let got = from_limbs(got);
    assert!(got < *bound, "{what}: {got:x} is not below {bound:x}");
    assert_eq!(&(&got % n), want, "{what}: wrong result modulo {n:x}");
}

/// Products and squares of secret operands through the kernel called `name`, for a
/// random modulus of `s` limbs, and exponentiations with a secret base and a secret
/// exponent of each length in `exponents` (bytes); every result checked against
/// num-bigint. Returns what the case prints, or why the kernel refused the modulus.
fn kernel_case<L: Limb>(
    run: &mut Run,
    name: &str,
    s: usize,
    policy: Policy,
    exponents: &[usize],
) -> Result<String, api::Error> {
    let bits = bits_for::<L>(s, policy);
    let n = random_modulus(&mut run.rng, bits);
    let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), name, policy)?;
    assert_eq!(api::limbs(&m), s, "{bits} bits under {policy}: {s} limbs");
    run.engine = Some(engine);
    let r_bits = s as u32 * L::BITS;
    let r_inv = r_inverse(&n, r_bits);
    let bound = from_limbs(api::bound(&m));
    // Two random operands below the bound, then the edges 0 and bound - 1.
    let operands = [
        random_below(&mut run.rng, &bound),
        random_below(&mut run.rng, &bound),
        BigUint::default(),
        &bound - 1u32,
    ];
    let mut out = vec![L::ZERO; s];
    for pair in operands.windows(2) {
        let (a, b) = (to_limbs::<L>(&pair[0], s), to_limbs::<L>(&pair[1], s));
        secret(&a);
        secret(&b);
        api::mul(&m, &a, &b, &mut out);
        public(&out);
        check(
            &out,
            &(&pair[0] * &pair[1] * &r_inv % &n),
            &bound,
            &n,
            "mul",
        );
        api::sqr(&m, &a, &mut out);
        public(&out);
        check(
            &out,
            &(&pair[0] * &pair[0] * &r_inv % &n),
            &bound,
            &n,
            "sqr",
        );
    }
    for &bytes in exponents {
        let x = random_below(&mut run.rng, &bound);
        let e = random_bytes(&mut run.rng, bytes);
        let base = to_limbs::<L>(&x, s);
        secret(&base);
        secret(&e);
        let got = api::pow(&m, &base, &e);
        public(&got);
        public(&e);
        // base = y R mod n, so base^e in Montgomery form is y^e R mod n.
        let y = &x * &r_inv % &n;
        let want = y.modpow(&BigUint::from_bytes_be(&e), &n) * (BigUint::one() << r_bits) % &n;
        check(&got, &want, &bound, &n, "pow");
    }
    let pow = if exponents.is_empty() {
        String::new()
    } else {
        format!(", pow with {exponents:?}-byte exponents")
    };
    Ok(format!("-> {engine}: mul, sqr{pow}"))
}

/// Runs [`kernel_case`] as a case of its own and returns the kernel it ran on.
fn kernel(
    run: &mut Run,
    phase: &str,
    word: u32,
    name: &str,
    s: usize,
    policy: Policy,
    exponents: &[usize],
) -> Option<&'static str> {
    let label = format!("{phase:<8} u{word:<2} {s:>3} limbs {policy} {name}");
    run.case(&label, |run| {
        let done = match word {
            8 => kernel_case::<u8>(run, name, s, policy, exponents),
            16 => kernel_case::<u16>(run, name, s, policy, exponents),
            32 => kernel_case::<u32>(run, name, s, policy, exponents),
            _ => kernel_case::<u64>(run, name, s, policy, exponents),
        };
        match done {
            Ok(done) => done,
            Err(e) if api::refusal_expected(&e) => format!("-> not run: {e}"),
            Err(e) => panic!("{name} refused a {s}-limb modulus: {e}"),
        }
    });
    run.engine
}

/// The kernel cases of one phase: the CPU as detected, or with ADX assumed. Returns
/// the kernel `auto` picked at each 64-bit limb count (with the policy).
fn kernels(run: &mut Run, phase: &str) -> Vec<(usize, Policy, &'static str)> {
    let t = api::thresholds();
    // Exponent lengths giving windows of 1, 3 and 4 bits (`exp::ct_window`).
    let exps: &[usize] = &[2, 4, 16];
    let mut picks = Vec::new();
    for policy in api::POLICIES {
        for word in [8, 16, 32] {
            for s in [1, 3] {
                kernel(run, phase, word, "auto", s, policy, exps);
            }
        }
        // `auto` on 64-bit limbs: every size up to 10 (1-limb, gen-cios, mulx-cios,
        // stack-array and run-time-length kernels), where `mulx-redc` starts, 16.
        let mut sizes: Vec<usize> = (1..=10).chain([t.mulx_from, 16]).collect();
        sizes.sort_unstable();
        sizes.dedup();
        for s in sizes {
            let picked = kernel(run, phase, 64, "auto", s, policy, exps);
            picks.push((s, policy, picked.expect("auto takes every size")));
        }
        // Where `auto` turns to Karatsuba (products only: the size is large).
        if t.karatsuba_from <= 160 {
            let s = t.karatsuba_from;
            let picked = kernel(run, phase, 64, "auto", s, policy, &[]);
            picks.push((s, policy, picked.expect("auto takes every size")));
        }
        // The longest window (5 bits from 1537 exponent bits).
        kernel(run, phase, 64, "auto", 8, policy, &[200]);
        // Each kernel `auto` can pick, by name: at the sizes it has code for, or at a
        // few small ones (and, for Karatsuba, where its recursion starts).
        for name in SCALAR_KERNELS {
            let sizes = match (name, api::limb_counts(name)) {
                (_, Some(counts)) => counts.to_vec(),
                ("karatsuba", None) => vec![3, t.karatsuba_mul_base + 2],
                (_, None) => vec![1, 3, 11],
            };
            for s in sizes {
                let exps: &[usize] = if s <= 16 { &[4] } else { &[] };
                kernel(run, phase, 64, name, s, policy, exps);
            }
        }
    }
    picks
}

/// The scalar kernels `auto` can pick on 64-bit limbs (on other limbs: `cios`).
const SCALAR_KERNELS: [&str; 6] = [
    "cios",
    "cios-fixed",
    "gen-cios",
    "mulx-cios",
    "mulx-redc",
    "karatsuba",
];

/// The table reads alone: a secret index turned into masks ([`api::entry_mask`]) and
/// a table of secret entries read through them, on 64-bit words (AVX2 where valgrind
/// offers it) and on narrower limbs (portable).
fn table_reads(run: &mut Run) {
    fn read<L: Limb>(run: &mut Run, entries: usize, len: usize) -> String {
        let table: Vec<Vec<L>> = (0..entries)
            .map(|_| to_limbs(&random_below_pow2(&mut run.rng, len as u32 * L::BITS), len))
            .collect();
        for entry in &table {
            secret(entry);
        }
        for index in [0, entries / 2, entries - 1] {
            let cell = [index];
            secret(&cell);
            let index_secret = core::hint::black_box(&cell)[0];
            let masks: Vec<u64> = (0..entries)
                .map(|j| api::entry_mask(j, index_secret))
                .collect();
            let mut out = vec![L::ZERO; len];
            api::masked_or_limbs(&table, &masks, &mut out);
            public(&out);
            let want = &table[index];
            public(want);
            assert_eq!(&out, want, "masked read of entry {index}");
            if L::BITS == 64 {
                let t64: Vec<Vec<u64>> = table
                    .iter()
                    .map(|e| e.iter().map(|x| x.to_u64()).collect())
                    .collect();
                let mut out64 = vec![0u64; len];
                api::masked_or(&t64, &masks, &mut out64);
                public(&out64);
                assert_eq!(out64, want.iter().map(|x| x.to_u64()).collect::<Vec<_>>());
            }
            secret(want);
        }
        format!("{entries} entries of {len} limbs, secret index")
    }
    for (entries, len) in [(2, 1), (8, 5), (16, 8), (32, 13)] {
        let label = format!("table read u64 {entries}x{len}");
        run.case(&label, |run| read::<u64>(run, entries, len));
        let label = format!("table read u32 {entries}x{len}");
        run.case(&label, |run| read::<u32>(run, entries, len));
        let label = format!("table read u8  {entries}x{len}");
        run.case(&label, |run| read::<u8>(run, entries, len));
    }
}

/// A [`montmul::Modulus`] built from a secret modulus (RSA's p and q): every byte of the
/// modulus secret but the lowest (its oddness, checked) and the highest (its bit length,
/// public); the constants checked against num-bigint.
fn secret_moduli(run: &mut Run) {
    fn build<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let limbs = to_limbs::<L>(&n, bits.div_ceil(L::BITS) as usize);
        let bytes = core::mem::size_of_val(limbs.as_slice());
        // Little-endian limbs: byte 0 holds the low bit, the last byte the top one.
        secret_bytes(limbs.as_ptr().cast::<u8>().wrapping_add(1), bytes - 2);
        let (m, _) = api::modulus::<L>(&limbs, "auto", policy).expect("an odd modulus");
        for c in api::constants(&m) {
            public(c);
        }
        let n0 = [api::n0(&m)];
        public(&n0);
        let [n_m, r1, r2] = api::constants(&m);
        let r = BigUint::one() << (api::limbs(&m) as u32 * L::BITS);
        assert_eq!(from_limbs(n_m), n);
        assert_eq!(from_limbs(r1), &r % &n, "R mod n");
        assert_eq!(from_limbs(r2), &r * &r % &n, "R^2 mod n");
        let w = BigUint::one() << L::BITS;
        assert_eq!((n0[0].to_u64() * &n + 1u32) % &w, BigUint::default(), "n0'");
        format!("{bits} bits: n, n0', R mod n, R^2 mod n")
    }
    for policy in api::POLICIES {
        for s in [1, 4] {
            let label = format!("secret modulus u8  {s} limbs {policy}");
            run.case(&label, |run| build::<u8>(run, 8 * s, policy));
            let label = format!("secret modulus u32 {s} limbs {policy}");
            run.case(&label, |run| build::<u32>(run, 2 * s, policy));
            let label = format!("secret modulus u64 {s} limbs {policy}");
            run.case(&label, |run| build::<u64>(run, s, policy));
        }
    }
}

/// The [`montmul::Residue`] operations on secret values, checked against num-bigint.
fn residues(run: &mut Run) {
    fn ops<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let x = random_below(&mut run.rng, &n);
        for y in [random_below(&mut run.rng, &n), x.clone()] {
            let e = random_bytes(&mut run.rng, 4);
            secret(&e);
            let (got, eq) = api::residue_ops(
                &m,
                &to_limbs::<L>(&x, s),
                &to_limbs::<L>(&y, s),
                &e,
                |v| secret(v),
                |v| public(v),
            );
            public(&e);
            let ee = BigUint::from_bytes_be(&e);
            let want = [
                &x * &y % &n,
                &x * &x % &n,
                (&x + &y) % &n,
                (&x + &n - &y) % &n,
                (&n - &x) % &n,
                x.modpow(&ee, &n),
            ];
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(&from_limbs(g), w, "residue operation {i}");
            }
            assert_eq!(eq, x == y, "ct_eq");
        }
        format!("-> {engine}: * square + - neg pow ct_eq to_limbs")
    }
    for policy in api::POLICIES {
        let label = format!("residue ops u64 4 limbs {policy}");
        run.case(&label, |run| ops::<u64>(run, 4, policy));
        let label = format!("residue ops u64 9 limbs {policy}");
        run.case(&label, |run| ops::<u64>(run, 9, policy));
        let label = format!("residue ops u32 3 limbs {policy}");
        run.case(&label, |run| ops::<u32>(run, 3, policy));
    }
}

/// A random modulus of `bits` bits divisible by 3 (so that some values have no inverse).
fn modulus_of_3(rng: &mut TestRng, bits: u32) -> BigUint {
    loop {
        let n = random_modulus(rng, bits);
        if (&n % 3u32) == BigUint::default() {
            return n;
        }
    }
}

/// The edge values of an operand below n: 0, 1, n - 1, and a random one.
fn edges(rng: &mut TestRng, n: &BigUint) -> [BigUint; 4] {
    [
        BigUint::default(),
        BigUint::one(),
        n - 1u32,
        random_below(rng, n),
    ]
}

/// The value as big-endian bytes, left-padded with zeros to `len`.
fn be_padded(x: &BigUint, len: usize) -> Vec<u8> {
    let b = x.to_bytes_be();
    let b = if *x == BigUint::default() { vec![] } else { b };
    let mut out = vec![0u8; len - b.len()];
    out.extend_from_slice(&b);
    out
}

/// The newer [`montmul::Residue`] operations on secret values: the wide reductions,
/// the inverse, the fixed-length encodings with `ct_eq` and `ct_is_zero`, and the
/// in-place forms, each checked against num-bigint.
fn residues_more(run: &mut Run) {
    /// `x mod n` for secret inputs of 1, 2 and 3 times the modulus' width (limbs and
    /// bytes), random and all ones.
    fn reduce<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let bytes_n = bits.div_ceil(8) as usize;
        for k in 1..=3 {
            let wide = k * s;
            let full = (BigUint::one() << (wide as u32 * L::BITS)) - 1u32;
            let random = (
                random_below_pow2(&mut run.rng, wide as u32 * L::BITS),
                random_bytes(&mut run.rng, k * bytes_n),
            );
            for (x, bytes) in [random, (full, vec![0xff; k * bytes_n])] {
                let limbs = to_limbs::<L>(&x, wide);
                let y = BigUint::from_bytes_be(&bytes);
                secret(&limbs);
                secret(&bytes);
                let [got_x, got_y] = api::reduced(&m, &limbs, &bytes, |v| public(v));
                assert_eq!(from_limbs(&got_x), &x % &n, "from_limbs_reduced, {k}x");
                assert_eq!(from_limbs(&got_y), &y % &n, "from_be_bytes_reduced, {k}x");
            }
        }
        format!("-> {engine}: from_limbs_reduced, from_be_bytes_reduced at 1x 2x 3x")
    }

    /// `x^-1` for secret x: 0, 1, n - 1, random, and a multiple of 3 (n is one too).
    fn inverse<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = modulus_of_3(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let third = random_below(&mut run.rng, &(&n / 3u32)) * 3u32;
        let mut values = edges(&mut run.rng, &n).to_vec();
        values.push(third);
        let (mut found, mut none) = (0, 0);
        for x in values {
            let limbs = to_limbs::<L>(&x, s);
            secret(&limbs);
            let got = api::inverse(&m, &limbs, |v| secret(v), |v| public(v));
            let want = x.modinv(&n);
            match (&got, &want) {
                (Some(g), Some(w)) => {
                    assert_eq!(&from_limbs(g), w, "inv");
                    found += 1;
                }
                (None, None) => none += 1,
                _ => panic!("inv of {x:x} mod {n:x}: {got:?}, want {want:?}"),
            }
        }
        format!("-> {engine}: inv ({found} inverses, {none} without)")
    }

    /// The fixed-length outputs and the comparisons of secret values.
    fn encode<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let len = bits.div_ceil(8) as usize;
        for x in edges(&mut run.rng, &n) {
            for k in [len, len + 3] {
                let limbs = to_limbs::<L>(&x, s);
                secret(&limbs);
                let [written, padded, plain, hex, zero] =
                    api::encodings(&m, &limbs, k, |v| secret(v), public);
                let want = be_padded(&x, k);
                assert_eq!(written, want, "write_be_bytes into {k}");
                assert_eq!(padded, want, "to_be_bytes_padded({k})");
                assert_eq!(plain, be_padded(&x, len), "to_be_bytes");
                let want_hex: String = be_padded(&x, len)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                assert_eq!(String::from_utf8(hex).unwrap(), want_hex, "to_hex");
                assert_eq!(zero, [u8::from(x == BigUint::default())], "ct_is_zero");
            }
        }
        format!("-> {engine}: write_be_bytes to_be_bytes_padded to_be_bytes to_hex ct_is_zero")
    }

    /// The in-place chain on secret values, and `ct_eq` through [`api::residue_ops`].
    fn assign<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let ys = edges(&mut run.rng, &n);
        for (x, y) in edges(&mut run.rng, &n).iter().zip(ys.iter().rev()) {
            let e = random_bytes(&mut run.rng, 3);
            let (xl, yl) = (to_limbs::<L>(x, s), to_limbs::<L>(y, s));
            secret(&xl);
            secret(&yl);
            secret(&e);
            let got = api::in_place(&m, &xl, &yl, &e, |v| secret(v), |v| public(v));
            public(&e);
            let mut c = x * y % &n;
            let mut want = vec![c.clone()];
            c = &c * &c % &n;
            want.push(c.clone());
            c = (c + y) % &n;
            want.push(c.clone());
            c = (c + &n - x) % &n;
            want.push(c.clone());
            c = (&n - c) % &n;
            want.push(c.clone());
            want.push(c.modpow(&BigUint::from_bytes_be(&e), &n));
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(&from_limbs(g), w, "in-place step {i}");
            }
        }
        format!("-> {engine}: *= square_assign += -= neg_assign pow")
    }

    /// The in-place exponentiations in one reused scratch on secret bases and
    /// exponents (windows of 1, 3 and 4 bits), and a public exponent on a secret base.
    fn pow_in<L: Limb>(run: &mut Run, s: usize, policy: Policy) -> String {
        let bits = bits_for::<L>(s, policy);
        let n = random_modulus(&mut run.rng, bits);
        let (m, engine) = api::modulus::<L>(&to_limbs(&n, s), "auto", policy).expect("odd n");
        let ys = edges(&mut run.rng, &n);
        for (i, (x, y)) in edges(&mut run.rng, &n)
            .iter()
            .zip(ys.iter().rev())
            .enumerate()
        {
            let e1 = random_bytes(&mut run.rng, [2, 16, 3, 32][i]);
            let e2 = random_bytes(&mut run.rng, [16, 2, 32, 3][i]);
            let p = random_bytes(&mut run.rng, 4);
            let (xl, yl) = (to_limbs::<L>(x, s), to_limbs::<L>(y, s));
            secret(&xl);
            secret(&yl);
            secret(&e1);
            secret(&e2);
            let got = api::pow_in_place(&m, &xl, &yl, &e1, &e2, &p, |v| secret(v), |v| public(v));
            public(&e1);
            public(&e2);
            let [e1, e2, p] = [&e1, &e2, &p].map(|e| BigUint::from_bytes_be(e));
            let mut c = x.modpow(&e1, &n);
            let mut want = vec![c.clone()];
            c = c * y % &n;
            want.push(c.clone());
            c = c.modpow(&e2, &n);
            want.push(c.clone());
            want.push(c.modpow(&p, &n));
            want.push(y.modpow(&e1, &n));
            assert_eq!(got.len(), want.len());
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(&from_limbs(g), w, "in-place pow step {k}");
            }
        }
        format!("-> {engine}: pow_assign *= pow_assign pow_vartime_assign in one PowScratch")
    }

    type Case = fn(&mut Run, usize, Policy) -> String;
    let ops: [(&str, Case, Case, Case); 5] = [
        ("reduce", reduce::<u64>, reduce::<u32>, reduce::<u8>),
        ("inv", inverse::<u64>, inverse::<u32>, inverse::<u8>),
        ("encode", encode::<u64>, encode::<u32>, encode::<u8>),
        ("assign", assign::<u64>, assign::<u32>, assign::<u8>),
        ("pow_in", pow_in::<u64>, pow_in::<u32>, pow_in::<u8>),
    ];
    for policy in api::POLICIES {
        for (name, u64_case, u32_case, u8_case) in ops {
            for s in [1, 4, 9] {
                let label = format!("residue {name:<6} u64 {s} limbs {policy}");
                run.case(&label, |run| u64_case(run, s, policy));
            }
            let label = format!("residue {name:<6} u32 3 limbs {policy}");
            run.case(&label, |run| u32_case(run, 3, policy));
            let label = format!("residue {name:<6} u8  5 limbs {policy}");
            run.case(&label, |run| u8_case(run, 5, policy));
        }
    }
}

/// The small fields' operations on secret elements, for `N` limbs: a modulus with the
/// top bit set and one with it clear, by `auto` (`mulx-cios` with ADX at 4 to 8 limbs)
/// or with the portable kernel forced.
fn field_case<const N: usize>(run: &mut Run, portable: bool) -> String {
    let mut kernels = Vec::new();
    for bits in [64 * N as u32, 64 * N as u32 - 5] {
        let n = random_modulus(&mut run.rng, bits);
        let nl: [u64; N] = to_limbs::<u64>(&n, N).try_into().expect("N limbs");
        let (p, name) = api::field(&nl, portable).expect("odd n");
        if !portable && api::field_mulx(N) {
            assert_eq!(
                name, "mulx-cios",
                "the small field's auto at {N} limbs with ADX"
            );
        }
        if portable {
            assert_eq!(name, "cios-fixed");
        }
        kernels.push(name);
        let len = bits.div_ceil(8) as usize;
        let ys = edges(&mut run.rng, &n);
        for (i, (x, y)) in edges(&mut run.rng, &n)
            .iter()
            .zip(ys.iter().rev())
            .enumerate()
        {
            let y = if i == 1 { x } else { y };
            let xl: [u64; N] = to_limbs::<u64>(x, N).try_into().expect("N limbs");
            let yl: [u64; N] = to_limbs::<u64>(y, N).try_into().expect("N limbs");
            let e = random_bytes(&mut run.rng, 5);
            let choice_cell = [i % 2 == 0];
            let x_bytes = be_padded(x, len + 1);
            let x_hex: String = be_padded(x, len)
                .iter()
                .map(|b| format!("{b:02X}"))
                .collect();
            for v in [&xl, &yl] {
                secret(v);
            }
            secret(&e);
            secret(&choice_cell);
            secret(&x_bytes);
            // The hex digits are secret, the `0x` prefix is the text's format.
            let x_hex = format!("0x{x_hex}");
            secret_bytes(x_hex.as_ptr().wrapping_add(2), x_hex.len() - 2);
            let choice = core::hint::black_box(&choice_cell)[0];
            let got = api::field_ops(
                &p,
                &xl,
                &yl,
                &e,
                choice,
                &x_bytes,
                &x_hex,
                secret_bytes,
                public_bytes,
            );
            public(&e);
            public(&choice_cell);
            let choice = core::hint::black_box(&choice_cell)[0];
            let ee = BigUint::from_bytes_be(&e);
            let want = [
                x * y % &n,
                x * x % &n,
                (x + y) % &n,
                (x + &n - y) % &n,
                (&n - x) % &n,
                x.modpow(&ee, &n),
                if choice { y.clone() } else { x.clone() },
                x.clone(),
                x.clone(),
                x.clone(),
            ];
            for (k, (g, w)) in got.values.iter().zip(&want).enumerate() {
                assert_eq!(&from_limbs(g), w, "field operation {k}");
            }
            assert_eq!(
                got.flags,
                [x == y, *x == BigUint::default()],
                "ct_eq, is_zero"
            );
            assert_eq!(got.bytes[0], be_padded(x, len), "to_be_bytes");
            let want_hex: String = be_padded(x, len)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(got.bytes[1], want_hex.into_bytes(), "to_hex");
        }
    }
    format!(
        "-> {}: mul square add sub neg pow ct_eq is_zero select from/to limbs bytes hex",
        kernels.join(", ")
    )
}

/// [`field_case`] for N = 1, 4 (by `auto` and with `cios-fixed` forced), 6 and 9.
fn fields(run: &mut Run) {
    run.case("field N=1 auto", |run| field_case::<1>(run, false));
    run.case("field N=4 auto", |run| field_case::<4>(run, false));
    run.case("field N=4 cios-fixed", |run| field_case::<4>(run, true));
    run.case("field N=6 auto", |run| field_case::<6>(run, false));
    run.case("field N=9 auto", |run| field_case::<9>(run, false));
}

fn main() {
    let valgrind = under_valgrind();
    if valgrind {
        println!("montmul constant-time harness under valgrind: secrets marked undefined");
    } else {
        println!("montmul constant-time harness NOT under valgrind: only an oracle check");
    }
    let mut run = Run {
        rng: TestRng::new(0x5ec2_e7c7),
        cases: 0,
        failed: Vec::new(),
        engine: None,
    };
    let detected = api::has_adx();
    println!("BMI2 and ADX detected: {detected}");
    let mut before = Vec::new();
    run.group("kernels, CPU as detected", |run| {
        before = kernels(run, "detected")
    });
    if !detected {
        let mulx: Vec<_> = before.iter().filter(|p| p.2.starts_with("mulx")).collect();
        assert!(
            mulx.is_empty(),
            "auto picked a mulx kernel without ADX: {mulx:?}"
        );
    }

    // Valgrind runs mulx/adcx/adox on any x86-64 host; natively only a CPU with them
    // does.
    if cfg!(target_arch = "x86_64") && (valgrind || detected) {
        api::assume_adx();
        println!("BMI2 and ADX assumed (montmul::testing::assume_adx)");
        let mut after = Vec::new();
        run.group("kernels, ADX assumed", |run| after = kernels(run, "adx"));
        let t = api::thresholds();
        for (s, policy, engine) in &after {
            let want = if t.mulx_cios.contains(s) {
                Some("mulx-cios")
            } else if (t.mulx_from..t.karatsuba_from).contains(s) && !api::has_ifma() {
                Some("mulx-redc")
            } else {
                None
            };
            if let Some(want) = want {
                assert_eq!(*engine, want, "auto at {s} limbs ({policy}) with ADX");
            }
            println!("auto with ADX, {s:>3} limbs {policy}: {engine}");
        }
    } else {
        println!("SKIPPED the mulx kernels: not under valgrind and no ADX on this CPU");
    }

    run.group("table reads", table_reads);
    run.group("secret moduli", secret_moduli);
    run.group("residue operations", residues);
    run.group(
        "residue reductions, inverse, encodings, in place",
        residues_more,
    );
    run.group("small fields", fields);

    println!(
        "AVX-512 IFMA: {}; the IFMA paths (amm52-ifma, its exponentiation) are not run \
         here (valgrind cannot execute AVX-512): they are left to the statistical check",
        if api::has_ifma() {
            "detected"
        } else {
            "not detected"
        }
    );
    println!(
        "{} cases, {} with secret-dependent branches or addresses{}",
        run.cases,
        run.failed.len(),
        if valgrind {
            ""
        } else {
            " (not checked: not under valgrind)"
        }
    );
    if !run.failed.is_empty() {
        let shown = run.failed.len().min(12);
        println!(
            "LEAKS in: {}{}",
            run.failed[..shown].join("; "),
            if shown < run.failed.len() {
                "; ..."
            } else {
                ""
            }
        );
        std::process::exit(1);
    }
}
