//! The report's timings: one cache of medians keyed by (implementation, modulus size),
//! filled through `bench`'s interleaved [`measure`], so that each implementation is
//! timed once per size and per report however many sections show it (seed 000's Table 1
//! and the summary share their 2048-bit `auto`, for instance).
//!
//! Every implementation is checked against num-bigint's product on the same inputs
//! before it is timed; a disagreement is an error, not a number in the report.

use std::collections::BTreeMap;
use std::time::Duration;

use montmul::encoding::be_bytes_to_limbs;
use montmul::lab::{self, Kernel};
use montmul::{Error, Limb, Modulus, Residue};
use montmul_peers::Inputs;
use num_bigint::BigUint;

use crate::bench::{measure, Stat};
use crate::CliError;

/// What is timed: a montmul kernel at one word size, or a peer by its name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Impl {
    /// `montmul::lab` kernel `name` instantiated for `word`-bit limbs.
    Kernel {
        /// The kernel's name (`cios`, `auto`, ...).
        name: &'static str,
        /// The limb width: 8, 16, 32 or 64.
        word: u32,
    },
    /// Every peer of `montmul_peers::all` (GMP, OpenSSL, num-bigint, crypto-bigint).
    Peers,
}

/// A kernel at a word size.
pub fn k(name: &'static str, word: u32) -> Impl {
    Impl::Kernel { name, word }
}

/// How long and how often to time.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Interleaved rounds per median.
    pub rounds: usize,
    /// Target length of one timed batch.
    pub batch: Duration,
}

/// One product loop, ready to time.
type Runner = Box<dyn FnMut(u64)>;

/// The medians measured so far: ns per Montgomery multiplication.
pub struct Timings {
    budget: Budget,
    seed: u64,
    /// (impl label, bits) -> ns; `None` where the implementation has no code for the
    /// size (a size-specialised kernel) or this CPU lacks its instructions.
    cache: BTreeMap<(String, u32), Option<f64>>,
}

impl Timings {
    /// An empty cache.
    pub fn new(budget: Budget, seed: u64) -> Self {
        Timings {
            budget,
            seed,
            cache: BTreeMap::new(),
        }
    }

    /// How long and how often each median is timed.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// The medians of `impls` at `bits` (ns per multiplication), timing together (their
    /// rounds interleaved) those not measured yet. [`Impl::Peers`] expands to one entry
    /// per peer, named `peer:<name>`; the result maps each label (`cios/64`,
    /// `peer:gmp ...`) to its median, `None` where it cannot run.
    pub fn get(
        &mut self,
        impls: &[Impl],
        bits: u32,
    ) -> Result<BTreeMap<String, Option<f64>>, CliError> {
        let inputs = Inputs::random(bits, self.seed);
        let expected = expected_product(&inputs);
        let mut labels = Vec::new();
        let mut runners: Vec<Runner> = Vec::new();
        let mut out = BTreeMap::new();
        for i in impls {
            match i {
                Impl::Kernel { name, word } => {
                    let label = label(name, *word);
                    if let Some(v) = self.cache.get(&(label.clone(), bits)) {
                        out.insert(label, *v);
                        continue;
                    }
                    match kernel_runner(name, *word, &inputs, &expected)? {
                        Some(r) => {
                            labels.push(label);
                            runners.push(r);
                        }
                        None => {
                            self.cache.insert((label.clone(), bits), None);
                            out.insert(label, None);
                        }
                    }
                }
                Impl::Peers => {
                    let cached: Vec<_> = self
                        .cache
                        .iter()
                        .filter(|((l, b), _)| *b == bits && l.starts_with("peer:"))
                        .map(|((l, _), v)| (l.clone(), *v))
                        .collect();
                    if !cached.is_empty() {
                        out.extend(cached);
                        continue;
                    }
                    for mut c in montmul_peers::all(&inputs) {
                        if !c.times("mul") {
                            continue;
                        }
                        let name = c.name();
                        if montmul_peers::trim(&c.mul_result()) != expected {
                            return Err(CliError(format!(
                                "{name} disagrees with num-bigint on a product at {bits} bits"
                            )));
                        }
                        labels.push(format!("peer:{name}"));
                        runners.push(Box::new(move |iters| c.run_mul(iters)));
                    }
                }
            }
        }
        if !runners.is_empty() {
            let medians = measure(
                &mut runners,
                self.budget.rounds,
                self.budget.batch,
                Stat::Median,
            );
            for (l, ns) in labels.into_iter().zip(medians) {
                self.cache.insert((l.clone(), bits), Some(ns));
                out.insert(l, Some(ns));
            }
        }
        Ok(out)
    }
}

/// The label of a kernel at a word size, as the cache and the tables name it.
pub fn label(name: &str, word: u32) -> String {
    format!("{name}/{word}")
}

/// num-bigint's a b mod n, big-endian without leading zeros.
fn expected_product(inputs: &Inputs) -> Vec<u8> {
    let f = BigUint::from_bytes_be;
    let (n, a, b) = (f(&inputs.n), f(&inputs.a), f(&inputs.b));
    montmul_peers::trim(&((a * b) % n).to_bytes_be())
}

/// The product loop of kernel `name` at `word`-bit limbs, after its product was checked
/// against `expected`; `None` where the kernel lacks this word size, this modulus size
/// or this CPU's instructions.
fn kernel_runner(
    name: &str,
    word: u32,
    inputs: &Inputs,
    expected: &[u8],
) -> Result<Option<Runner>, CliError> {
    match word {
        8 => runner::<u8>(name, inputs, expected),
        16 => runner::<u16>(name, inputs, expected),
        32 => runner::<u32>(name, inputs, expected),
        64 => runner::<u64>(name, inputs, expected),
        w => Err(CliError(format!("no {w}-bit limbs"))),
    }
}

/// The kernel name [`kernel_modulus`] reads as montmul's default kernel (the one
/// [`Modulus::new`] picks).
pub const DEFAULT: &str = "default";

/// The modulus of big-endian `n_be` built with kernel `name` (or [`DEFAULT`]) at `L`
/// limbs under the kernel's preferred reduction; `None` where the kernel lacks this word
/// size, this modulus size or this CPU's instructions.
pub fn kernel_modulus<L: Limb>(name: &str, n_be: &[u8]) -> Result<Option<Modulus<L>>, CliError> {
    let limbs = be_bytes_to_limbs::<L>(n_be);
    if name == DEFAULT {
        return Ok(Some(Modulus::new(&limbs)?));
    }
    let kernel: &'static dyn Kernel<L> = match lab::by_name::<L>(name) {
        Ok(k) => k,
        Err(Error::UnsupportedWord { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    match Modulus::with_kernel(&limbs, kernel, kernel.info().reductions[0]) {
        Ok(m) => Ok(Some(m)),
        Err(Error::UnsupportedSize { .. } | Error::Unavailable { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn runner<L: Limb>(
    name: &str,
    inputs: &Inputs,
    expected: &[u8],
) -> Result<Option<Runner>, CliError> {
    let Some(m) = kernel_modulus::<L>(name, &inputs.n)? else {
        return Ok(None);
    };
    let a = Residue::from_be_bytes(&m, &inputs.a)?;
    let b = Residue::from_be_bytes(&m, &inputs.b)?;
    let mut product = a.clone();
    product.try_mul_assign(&b)?;
    if montmul_peers::trim(&product.to_be_bytes()) != expected {
        return Err(CliError(format!(
            "montmul:{name} with {}-bit limbs disagrees with num-bigint on a product at {} bits",
            L::BITS,
            inputs.n.len() * 8
        )));
    }
    let mut x = a.montgomery_limbs().to_vec();
    let y = b.montgomery_limbs().to_vec();
    let mut t = vec![L::ZERO; m.limbs()];
    Ok(Some(Box::new(move |iters: u64| {
        for _ in 0..iters {
            m.mont_mul(&x, &y, &mut t);
            std::mem::swap(&mut x, &mut t);
        }
    })))
}
