//! What `montmul ct-check` times: one operation of a constant-time path on prepared
//! secret inputs, of class 0 (fixed) or class 1 (random), per [`PathKind`] and
//! [`FixedClass`]. The measurement and the report are `ct_check`'s; this module only
//! draws the inputs of a batch and runs the operation on one of them.
//!
//! Not constant-time itself (it is a measurement tool).

use std::hint::black_box;

use montmul::lab::exp::{ct_window, ct_window_limbs, table_read};
use montmul::{lanes, FixedBase, Modulus, Residue};
use montmul_testkit::rand_core::RngCore;
use montmul_testkit::TestRng;

use crate::CliError;

/// The exponent length of the `fixed-base` path, in bytes: DSA's and DH's exponents at
/// 2048 and 3072 bits (a q of 256 bits). Moduli of fewer bytes take their own length.
pub const FIXED_BASE_LEN: usize = 32;

/// The longest exponent `--exp-bytes` takes, in bytes: as long as the largest modulus.
pub const MAX_EXP_BYTES: usize = 2048;

/// The exponent length in bytes of `path` modulo `m`: `exp_bytes` where given, else the
/// modulus' own length (`fixed-base`: at most [`FIXED_BASE_LEN`]); for `table`, the
/// length whose window sets the table's size. `None` for `mul`, which takes none.
fn exponent_len(path: PathKind, m: &Modulus<u64>, exp_bytes: Option<usize>) -> Option<usize> {
    match path {
        PathKind::Mul => None,
        PathKind::FixedBase => Some(exp_bytes.unwrap_or(m.byte_len().min(FIXED_BASE_LEN))),
        PathKind::Pow | PathKind::PowVartime | PathKind::PowX2 | PathKind::Table => {
            Some(exp_bytes.unwrap_or(m.byte_len()))
        }
    }
}

/// The fixed class of inputs (`--fixed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FixedClass {
    /// Exponent 0x00..01, operands 0, table index 0.
    Edge,
    /// One random value, drawn once per check and then kept.
    Random,
    /// `mul`'s operands R mod n (Montgomery's 1); the other paths as [`FixedClass::Edge`].
    One,
    /// Exponent 0x80..00 (every window after the first reads entry 0, but the
    /// accumulator moves); the other paths as [`FixedClass::Edge`].
    Top,
    /// `pow` and `pow-vartime`: random exponents in both classes, class 0 on the base
    /// R mod n (Montgomery's 1, so every product of the ladder multiplies 1 by 1 or by
    /// an entry of 1s, as with the exponent 0x00..01) and class 1 on a random base. It
    /// tells constant operands apart from a constant exponent. The other paths as
    /// [`FixedClass::Edge`].
    BaseOne,
}

/// What is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathKind {
    /// `Residue::pow`, fixed against random exponents.
    Pow,
    /// `Modulus::mont_mul`, fixed against random operands.
    Mul,
    /// The masked table read, fixed against random index.
    Table,
    /// `FixedBase::pow`, fixed against random exponents.
    FixedBase,
    /// `lanes::pow_x2_lockstep`, both exponents fixed against both random.
    PowX2,
    /// `Residue::pow_vartime`: the control that must leak.
    PowVartime,
}

impl PathKind {
    pub fn from_name(s: &str) -> Self {
        match s {
            "pow" => PathKind::Pow,
            "mul" => PathKind::Mul,
            "table" => PathKind::Table,
            "fixed-base" => PathKind::FixedBase,
            "pow-x2" => PathKind::PowX2,
            _ => PathKind::PowVartime,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PathKind::Pow => "pow",
            PathKind::Mul => "mul",
            PathKind::Table => "table",
            PathKind::FixedBase => "fixed-base",
            PathKind::PowX2 => "pow-x2",
            PathKind::PowVartime => "pow-vartime",
        }
    }
}

/// One operation to time on prepared inputs.
pub trait Subject {
    /// Draws the inputs of one batch: entry `i` of class `classes[i]` (0 fixed,
    /// 1 random).
    fn prepare(&mut self, classes: &[u8], rng: &mut TestRng);
    /// Runs the operation on prepared entry `i`.
    fn run(&mut self, i: usize);
    /// The length in bytes of the exponents it runs on (`table`: of the exponent whose
    /// window set the table's size); `None` where it takes none.
    fn exponent_bytes(&self) -> Option<usize>;
}

/// Random limbs below 2^(bits - 1), so below any modulus of `bits` bits.
fn random_below_top(rng: &mut TestRng, bits: u32, out: &mut [u64]) {
    for (j, w) in out.iter_mut().enumerate() {
        let lo = 64 * j as u32;
        *w = match (bits - 1).saturating_sub(lo) {
            0 => 0,
            b if b >= 64 => rng.next_u64(),
            b => rng.next_u64() & ((1u64 << b) - 1),
        };
    }
}

/// The secret bytes of a batch: per entry `fixed` (class 0) or as many random bytes
/// (class 1).
struct Secrets {
    fixed: Vec<u8>,
    all: Vec<u8>,
}

impl Secrets {
    fn new(fixed: Vec<u8>) -> Self {
        Secrets {
            fixed,
            all: Vec::new(),
        }
    }

    fn prepare(&mut self, classes: &[u8], rng: &mut TestRng) {
        let len = self.fixed.len();
        self.all.resize(classes.len() * len, 0);
        for (e, &c) in self.all.chunks_exact_mut(len).zip(classes) {
            if c == 0 {
                e.copy_from_slice(&self.fixed);
            } else {
                rng.fill_bytes(e);
            }
        }
    }

    /// Entry `i`, hidden from the optimiser.
    fn get(&self, i: usize) -> &[u8] {
        let len = self.fixed.len();
        black_box(&self.all[i * len..(i + 1) * len])
    }
}

/// `Residue::pow` or `pow_vartime` of one base, on exponents of one byte length.
struct Pow {
    base: Residue<u64>,
    exps: Secrets,
    vartime: bool,
}

impl Subject for Pow {
    fn prepare(&mut self, classes: &[u8], rng: &mut TestRng) {
        self.exps.prepare(classes, rng);
    }

    fn run(&mut self, i: usize) {
        black_box(power(&self.base, self.exps.get(i), self.vartime));
    }

    fn exponent_bytes(&self) -> Option<usize> {
        Some(self.exps.fixed.len())
    }
}

/// `base^e` by `Residue::pow`, or `pow_vartime` with `vartime`.
fn power(base: &Residue<u64>, e: &[u8], vartime: bool) -> Residue<u64> {
    if vartime {
        base.pow_vartime(e)
    } else {
        base.pow(e)
    }
}

/// `Residue::pow` or `pow_vartime` on random exponents, of the base 1 (class 0) or a
/// random base (class 1): [`FixedClass::BaseOne`].
struct PowOfOne {
    /// The bases of class 0 and class 1.
    bases: [Residue<u64>; 2],
    exps: Secrets,
    classes: Vec<u8>,
    vartime: bool,
}

impl Subject for PowOfOne {
    fn prepare(&mut self, classes: &[u8], rng: &mut TestRng) {
        // Random exponents for every entry, whatever its class.
        self.exps.prepare(&vec![1; classes.len()], rng);
        self.classes = classes.to_vec();
    }

    fn run(&mut self, i: usize) {
        // The base picked by index, not by a branch on the class.
        let base = &self.bases[usize::from(black_box(self.classes[i]))];
        black_box(power(base, self.exps.get(i), self.vartime));
    }

    fn exponent_bytes(&self) -> Option<usize> {
        Some(self.exps.fixed.len())
    }
}

/// `FixedBase::pow` of one base's precomputed powers, on exponents of one byte length.
struct FixedBasePow {
    powers: FixedBase<u64>,
    exps: Secrets,
}

impl Subject for FixedBasePow {
    fn prepare(&mut self, classes: &[u8], rng: &mut TestRng) {
        self.exps.prepare(classes, rng);
    }

    fn run(&mut self, i: usize) {
        // The powers were made for exponents of this length: `pow` cannot refuse them.
        black_box(self.powers.pow(self.exps.get(i)).ok());
    }

    fn exponent_bytes(&self) -> Option<usize> {
        Some(self.exps.fixed.len())
    }
}

/// `lanes::pow_x2_lockstep` of two bases modulo two moduli of one size, on exponent
/// pairs of the moduli's byte length.
struct PowX2 {
    bases: (Residue<u64>, Residue<u64>),
    /// Per entry, the two exponents one after the other.
    exps: Secrets,
}

impl Subject for PowX2 {
    fn prepare(&mut self, classes: &[u8], rng: &mut TestRng) {
        self.exps.prepare(classes, rng);
    }

    fn run(&mut self, i: usize) {
        let e = self.exps.get(i);
        let (ea, eb) = e.split_at(e.len() / 2);
        // The plan ran the pair once before: it covers these moduli.
        let r = lanes::pow_x2_lockstep(&self.bases.0, ea, &self.bases.1, eb);
        black_box(r.is_ok());
    }

    fn exponent_bytes(&self) -> Option<usize> {
        // Two exponents an entry.
        Some(self.exps.fixed.len() / 2)
    }
}

/// `Modulus::mont_mul` on operands of the modulus' length.
struct Mul {
    m: Modulus<u64>,
    a: Vec<u64>,
    b: Vec<u64>,
    fixed: (Vec<u64>, Vec<u64>),
    out: Vec<u64>,
}

impl Subject for Mul {
    fn prepare(&mut self, classes: &[u8], rng: &mut TestRng) {
        let (s, bits) = (self.m.limbs(), self.m.bits());
        self.a.resize(classes.len() * s, 0);
        self.b.resize(classes.len() * s, 0);
        let pairs = self.a.chunks_exact_mut(s).zip(self.b.chunks_exact_mut(s));
        for ((a, b), &c) in pairs.zip(classes) {
            if c == 0 {
                a.copy_from_slice(&self.fixed.0);
                b.copy_from_slice(&self.fixed.1);
            } else {
                random_below_top(rng, bits, a);
                random_below_top(rng, bits, b);
            }
        }
    }

    fn run(&mut self, i: usize) {
        let s = self.m.limbs();
        let (a, b) = (&self.a[i * s..(i + 1) * s], &self.b[i * s..(i + 1) * s]);
        self.m.mont_mul(black_box(a), black_box(b), &mut self.out);
        black_box(&self.out);
    }

    fn exponent_bytes(&self) -> Option<usize> {
        None
    }
}

/// The exponentiation's masked table read (`exp::table_read`), on entries in the
/// domain the ladder uses: the modulus' limbs or the kernel's own, one after another
/// as the ladder keeps them.
struct Table {
    /// The exponent length whose window set the table's size.
    exp_len: usize,
    table: Vec<u64>,
    index: Vec<usize>,
    fixed: usize,
    out: Vec<u64>,
}

impl Subject for Table {
    fn prepare(&mut self, classes: &[u8], rng: &mut TestRng) {
        let entries = (self.table.len() / self.out.len()) as u64;
        self.index = classes
            .iter()
            .map(|&c| {
                if c == 0 {
                    self.fixed
                } else {
                    (rng.next_u64() % entries) as usize
                }
            })
            .collect();
    }

    fn run(&mut self, i: usize) {
        let index = black_box(self.index[i]);
        table_read(&self.table, index, &mut self.out);
        black_box(&self.out);
    }

    fn exponent_bytes(&self) -> Option<usize> {
        Some(self.exp_len)
    }
}

/// The fixed exponent of `len` bytes for `class`: 0x00..01 (`Edge`, `One`, `BaseOne`),
/// 0x80..00 (`Top`), or random bytes drawn from `rng`.
fn fixed_exponent(class: FixedClass, len: usize, rng: &mut TestRng) -> Vec<u8> {
    let mut e = vec![0u8; len];
    match class {
        FixedClass::Random => rng.fill_bytes(&mut e),
        FixedClass::Top => e[0] = 0x80,
        FixedClass::Edge | FixedClass::One | FixedClass::BaseOne => e[len - 1] = 1,
    }
    e
}

/// The subject of one check of `path` modulo `m` (and, for `pow-x2`, the `second`
/// modulus): its base or table and its fixed class (`Random`: drawn here from `rng`,
/// else the edge values or R mod n), its exponents of [`exponent_len`] bytes.
pub fn subject(
    path: PathKind,
    m: &Modulus<u64>,
    second: Option<&Modulus<u64>>,
    class: FixedClass,
    exp_bytes: Option<usize>,
    rng: &mut TestRng,
) -> Result<Box<dyn Subject>, CliError> {
    let exp_len = exponent_len(path, m, exp_bytes).unwrap_or(0);
    let random = class == FixedClass::Random;
    let (s, bits) = (m.limbs(), m.bits());
    let mut limbs = vec![0u64; s];
    random_below_top(rng, bits, &mut limbs);
    let operand = |rng: &mut TestRng| {
        let mut x = vec![0u64; s];
        if random {
            random_below_top(rng, bits, &mut x);
        }
        x
    };
    Ok(match path {
        PathKind::Pow | PathKind::PowVartime if class == FixedClass::BaseOne => {
            Box::new(PowOfOne {
                bases: [Residue::one(m), Residue::new(m, &limbs)?],
                exps: Secrets::new(vec![0; exp_len]),
                classes: Vec::new(),
                vartime: path == PathKind::PowVartime,
            })
        }
        PathKind::Pow | PathKind::PowVartime => {
            let fixed = fixed_exponent(class, exp_len, rng);
            Box::new(Pow {
                base: Residue::new(m, &limbs)?,
                exps: Secrets::new(fixed),
                vartime: path == PathKind::PowVartime,
            })
        }
        PathKind::FixedBase => {
            let fixed = fixed_exponent(class, exp_len, rng);
            Box::new(FixedBasePow {
                powers: FixedBase::new(&Residue::new(m, &limbs)?, exp_len)?,
                exps: Secrets::new(fixed),
            })
        }
        PathKind::PowX2 => {
            let m2 = second
                .ok_or_else(|| CliError("pow-x2: a plan without its second modulus".to_string()))?;
            let fixed = [
                fixed_exponent(class, exp_len, rng),
                fixed_exponent(class, exp_len, rng),
            ]
            .concat();
            let mut limbs2 = vec![0u64; m2.limbs()];
            random_below_top(rng, m2.bits(), &mut limbs2);
            Box::new(PowX2 {
                bases: (Residue::new(m, &limbs)?, Residue::new(m2, &limbs2)?),
                exps: Secrets::new(fixed),
            })
        }
        PathKind::Mul => Box::new(Mul {
            m: m.clone(),
            a: Vec::new(),
            b: Vec::new(),
            fixed: match class {
                FixedClass::One => (m.r1().to_vec(), m.r1().to_vec()),
                _ => (operand(rng), operand(rng)),
            },
            out: vec![0; s],
        }),
        PathKind::Table => {
            // The table `pow` reads for an exponent of `exp_len` bytes.
            let domain = m.engine().pow_domain(m);
            let exp_bits = 8 * exp_len;
            let w = match domain {
                Some(_) => ct_window(exp_bits),
                None => ct_window_limbs(exp_bits),
            };
            let entries = 1usize << w;
            let table: Vec<Vec<u64>> = (0..entries)
                .map(|_| {
                    random_below_top(rng, bits, &mut limbs);
                    match &domain {
                        None => limbs.clone(),
                        Some(d) => {
                            let mut out = vec![0; d.words()];
                            let mut scratch = vec![0; d.scratch_words()];
                            d.enter(&limbs, &mut out, &mut scratch);
                            out
                        }
                    }
                })
                .collect();
            let out = vec![0; table[0].len()];
            let table = table.concat();
            let fixed = if random {
                (rng.next_u64() % entries as u64) as usize
            } else {
                0
            };
            Box::new(Table {
                exp_len,
                table,
                index: Vec::new(),
                fixed,
                out,
            })
        }
    })
}
