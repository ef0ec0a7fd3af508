//! Every use of montmul's API, in one place, so that a change of the API is a change
//! here only.

use montmul::arch::{self, Adx, Avx2, Avx512Ifma};
use montmul::lab::{self, exp};
use montmul::{
    FieldElement, FieldKernel, FieldModulus, FixedBase, Limb, Modulus, PowScratch, Reduction,
    Residue,
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

/// The table read of the exponentiations on 64-bit words (AVX2 where there: the
/// masks made by vector compares from the index); the entries one after another, each
/// as long as `out`.
pub fn select(table: &[u64], index: usize, out: &mut [u64]) {
    arch::select(Avx2::new(), table, index, out);
}

/// The table read on limbs of any width without vector intrinsics.
pub fn select_limbs<L: Limb>(table: &[L], index: usize, out: &mut [L]) {
    arch::generic::select(table, index, out);
}

/// The table read on limbs of any width.
pub fn masked_or_limbs<L: Limb>(table: &[L], masks: &[u64], out: &mut [L]) {
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
    /// The sizes below `mulx_from` that take `mulx-redc` all the same.
    pub mulx_redc: &'static [usize],
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
        mulx_redc: t.mulx_redc,
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
pub fn reduced<L: Limb>(m: &Modulus<L>, x: &[L], bytes: &[u8], open: impl Fn(&[L])) -> [Vec<L>; 2] {
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

/// The powers of a secret base `x` (`mark`ed once a residue) made for 32-byte
/// exponents (`FixedBase`), raised to the secret exponents `e1` and `e2`; each
/// result's normal form `open`ed and returned. A longer exponent than the powers take
/// is checked to be refused.
pub fn fixed_base<L: Limb>(
    m: &Modulus<L>,
    x: &[L],
    e1: &[u8],
    e2: &[u8],
    mark: impl Fn(&[L]),
    open: impl Fn(&[L]),
) -> Vec<Vec<L>> {
    let g = Residue::new(m, x).expect("x < n");
    mark(g.montgomery_limbs());
    let powers = FixedBase::new(&g, 32).expect("a small table");
    let mut out = Vec::new();
    for e in [e1, e2] {
        let v = powers.pow(e).expect("powers fit").to_limbs();
        open(&v);
        out.push(v);
    }
    let refused = powers.pow(&[0; 33]);
    assert!(
        matches!(refused, Err(Error::ExponentTooLong { len: 33, max: 32 })),
        "{refused:?}"
    );
    out
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
