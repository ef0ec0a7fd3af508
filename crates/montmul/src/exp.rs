//! Exponentiation in Montgomery form: a constant-time fixed window for secret exponents,
//! a variable-time sliding window for public ones.
//!
//! Both are left-to-right k-ary methods (HAC 14.82 fixed window, 14.85 sliding window;
//! the sliding window's widths as OpenSSL's `BN_window_bits_for_exponent_size`, the
//! fixed window's measured here, [`ct_window`]). Values stay in Montgomery form below
//! the modulus' bound throughout: with [`Reduction::Lazy`](crate::Reduction::Lazy)
//! every intermediate product is left in `[0, 2n)` and no final subtraction is done
//! inside the loop.
//!
//! [`pow`] is constant-time in the exponent's value (not its length, taken as
//! `8 * bytes`): the sequence of squarings and multiplications depends on the length
//! only, and every table lookup reads the whole table and keeps the wanted entry with
//! masks, so no branch and no memory address depends on the exponent's bits.
//! [`pow_vartime`] skips zero bits and reads only the entries it needs: use it for
//! public exponents only.
//!
//! Both take a [`Trace`] that is told every step (`()` ignores them, at no cost): the
//! tests record the steps of two exponents of equal length and check that [`pow`]'s are
//! identical.

use crate::kernel::PowDomain;
use crate::{Limb, Modulus};

/// One step of an exponentiation, as a [`Trace`] sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A Montgomery squaring.
    Sqr,
    /// A Montgomery multiplication.
    Mul,
    /// A read of entry `index` of the precomputed table.
    Read(usize),
}

/// Receives every step of an exponentiation.
pub trait Trace {
    /// Called once per step, in order.
    fn step(&mut self, step: Step);
}

/// Ignores the steps (the production case: compiled away).
impl Trace for () {
    #[inline(always)]
    fn step(&mut self, _: Step) {}
}

/// Records the steps.
impl Trace for Vec<Step> {
    fn step(&mut self, step: Step) {
        self.push(step);
    }
}

/// The widest window [`ct_window`] and [`vartime_window`] choose.
pub const MAX_WINDOW: u32 = 6;

/// Window width of [`pow`] for an exponent of `bits` bits.
///
/// Narrower than the product count alone asks for (OpenSSL's
/// `BN_window_bits_for_ctime_exponent_size`: 5 from 307 bits, 6 from 938), because
/// every lookup reads the whole table: with 2^w entries a wider window saves
/// multiplications but reads twice the table each time. The widths are the fastest
/// measured on this machine per size (`docs/PERFORMANCE.md`, "Window widths").
pub fn ct_window(bits: usize) -> u32 {
    match bits {
        b if b > 6144 => 6,
        b if b > 1536 => 5,
        b if b > 89 => 4,
        b if b > 22 => 3,
        _ => 1,
    }
}

/// Window width of [`pow_vartime`] for an exponent of `bits` significant bits.
pub fn vartime_window(bits: usize) -> u32 {
    match bits {
        b if b > 671 => 6,
        b if b > 239 => 5,
        b if b > 79 => 4,
        b if b > 23 => 3,
        _ => 1,
    }
}

/// Bit `i` (0 = least significant) of a big-endian byte string; 0 past its end.
/// The position is public; only the value read may be secret.
#[inline]
fn exp_bit(exp_be: &[u8], i: usize) -> usize {
    match exp_be.len().checked_sub(1 + i / 8) {
        Some(byte) => ((exp_be[byte] >> (i % 8)) & 1) as usize,
        None => 0,
    }
}

/// The `w`-bit digit of the exponent starting at bit `lo`, gathered bit by bit.
#[inline]
fn digit(exp_be: &[u8], lo: usize, w: u32) -> usize {
    (0..w as usize).fold(0, |d, k| d | exp_bit(exp_be, lo + k) << k)
}

/// The arithmetic of the fixed-window ladder ([`fixed_window`]): values in some
/// Montgomery domain, their products, and a masked copy for the table reads. [`pow`]
/// runs the ladder on a modulus' limb vectors ([`LimbLadder`]) or, when the modulus'
/// kernel has a domain of its own ([`Kernel::pow_domain`](crate::kernel::Kernel::pow_domain)), in that domain
/// ([`DomainLadder`]); both give the ladder the same steps, so the same [`Trace`] sees
/// them.
pub trait Ladder {
    /// One value of the domain.
    type Value: Clone;
    /// The domain's 1 (Montgomery form).
    fn one(&self) -> Self::Value;
    /// `out = a^2` (Montgomery product).
    fn sqr(&self, a: &Self::Value, out: &mut Self::Value);
    /// `out = a b` (Montgomery product).
    fn mul(&self, a: &Self::Value, b: &Self::Value, out: &mut Self::Value);
    /// `out = entry` where `mask` is all ones, `out` unchanged where it is 0, word by
    /// word, with no branch on the mask.
    fn select(&self, out: &mut Self::Value, entry: &Self::Value, mask: u64);

    /// `out = table[index]`, reading every entry in full and keeping the wanted one
    /// with masks ([`Ladder::select`]); tells `trace` each entry read.
    fn lookup<T: Trace>(
        &self,
        table: &[Self::Value],
        index: usize,
        out: &mut Self::Value,
        trace: &mut T,
    ) {
        for (j, entry) in table.iter().enumerate() {
            trace.step(Step::Read(j));
            self.select(out, entry, entry_mask(j, index));
        }
    }
}

/// All ones when `j == index`, else 0, without a branch (both are small). The mask
/// passes through [`core::hint::black_box`] so that the optimiser does not turn its use
/// back into a branch.
#[inline]
pub fn entry_mask(j: usize, index: usize) -> u64 {
    core::hint::black_box(entry_mask_plain(j, index))
}

/// [`entry_mask`] without the [`core::hint::black_box`], for [`masked_read`], which
/// hides all its masks from the optimiser at once.
#[inline]
fn entry_mask_plain(j: usize, index: usize) -> u64 {
    // (j ^ index) - 1 has its top bit set exactly when j == index.
    let hit = ((j ^ index) as u64).wrapping_sub(1) >> 63;
    hit.wrapping_neg()
}

/// `out = table[index]` for the ladders' [`Ladder::lookup`]: every entry read in full,
/// in order, and gathered with its mask by one pass that keeps `out` in registers
/// ([`crate::kernel::PerWord::masked_or`]; AVX2 where the CPU has it). The
/// masks are made first and hidden from the optimiser all at once (one
/// [`core::hint::black_box`] on the slice, not one per entry as [`entry_mask`]): it must
/// assume the words behind the reference changed, so it cannot see they are 0 or all
/// ones. `trace` is told of every entry read.
fn masked_read<L: Limb, T: Trace>(table: &[Vec<L>], index: usize, out: &mut [L], trace: &mut T) {
    let mut masks = [0u64; 1 << MAX_WINDOW];
    assert!(table.len() <= masks.len());
    for (j, mask) in masks.iter_mut().enumerate().take(table.len()) {
        trace.step(Step::Read(j));
        *mask = entry_mask_plain(j, index);
    }
    let masks = core::hint::black_box(&masks[..table.len()]);
    L::masked_or(table, masks, out);
}

/// The ladder on a modulus' limb vectors, through its kernel.
pub struct LimbLadder<'m, L: Limb>(pub &'m Modulus<L>);

impl<L: Limb> Ladder for LimbLadder<'_, L> {
    type Value = Vec<L>;

    fn one(&self) -> Vec<L> {
        self.0.r1().to_vec()
    }

    fn sqr(&self, a: &Vec<L>, out: &mut Vec<L>) {
        self.0.mont_sqr(a, out);
    }

    fn mul(&self, a: &Vec<L>, b: &Vec<L>, out: &mut Vec<L>) {
        self.0.mont_mul(a, b, out);
    }

    fn select(&self, out: &mut Vec<L>, entry: &Vec<L>, mask: u64) {
        // Truncating all ones or 0 to L keeps it all ones or 0.
        crate::ct::conditional_assign(out, entry, L::from_u64(mask));
    }

    /// As the trait's, with every entry gathered by one masked pass that keeps `out`
    /// in registers (AVX2 where the CPU has it).
    fn lookup<T: Trace>(&self, table: &[Vec<L>], index: usize, out: &mut Vec<L>, trace: &mut T) {
        masked_read(table, index, out, trace);
    }
}

/// The ladder in a kernel's own domain ([`Kernel::pow_domain`](crate::kernel::Kernel::pow_domain)), values as its words.
pub struct DomainLadder<'d, L: Limb>(pub &'d dyn PowDomain<L>);

impl<L: Limb> Ladder for DomainLadder<'_, L> {
    type Value = Vec<u64>;

    fn one(&self) -> Vec<u64> {
        self.0.one()
    }

    fn sqr(&self, a: &Vec<u64>, out: &mut Vec<u64>) {
        self.0.sqr(a, out);
    }

    fn mul(&self, a: &Vec<u64>, b: &Vec<u64>, out: &mut Vec<u64>) {
        self.0.mul(a, b, out);
    }

    fn select(&self, out: &mut Vec<u64>, entry: &Vec<u64>, mask: u64) {
        crate::ct::conditional_assign(out, entry, mask);
    }

    /// As the trait's, with every entry gathered by one masked pass (as
    /// [`LimbLadder`]'s).
    fn lookup<T: Trace>(
        &self,
        table: &[Vec<u64>],
        index: usize,
        out: &mut Vec<u64>,
        trace: &mut T,
    ) {
        masked_read(table, index, out, trace);
    }
}

/// `base^e` by a fixed window with masked table reads, in the ladder's domain: the
/// body of [`pow`]. Constant-time in the exponent's value when the ladder's products
/// and [`Ladder::select`] are; its length counts as `8 * exp_be.len()` bits.
pub fn fixed_window<A: Ladder, T: Trace>(
    ladder: &A,
    base: &A::Value,
    exp_be: &[u8],
    trace: &mut T,
) -> A::Value {
    let bits = 8 * exp_be.len();
    let w = ct_window(bits);
    let size = 1usize << w;
    // table[i] = base^i: 1, base, then squares for even i and products for odd i.
    let mut table = vec![ladder.one(), base.clone()];
    for i in 2..size {
        let mut next = base.clone();
        if i % 2 == 0 {
            ladder.sqr(&table[i / 2], &mut next);
            trace.step(Step::Sqr);
        } else {
            ladder.mul(&table[i - 1], base, &mut next);
            trace.step(Step::Mul);
        }
        table.push(next);
    }
    let windows = bits.div_ceil(w as usize);
    let mut acc = ladder.one();
    let mut entry = ladder.one();
    let mut tmp = ladder.one();
    for k in (0..windows).rev() {
        let d = digit(exp_be, k * w as usize, w);
        if k + 1 == windows {
            // The first window: acc = 1, so the entry itself is the result so far.
            ladder.lookup(&table, d, &mut acc, trace);
            continue;
        }
        for _ in 0..w {
            ladder.sqr(&acc, &mut tmp);
            trace.step(Step::Sqr);
            core::mem::swap(&mut acc, &mut tmp);
        }
        ladder.lookup(&table, d, &mut entry, trace);
        ladder.mul(&acc, &entry, &mut tmp);
        trace.step(Step::Mul);
        core::mem::swap(&mut acc, &mut tmp);
    }
    acc
}

/// `base^e` in Montgomery form (`base` below `m.bound()`, big-endian exponent), by a
/// fixed window with masked table reads. Constant-time in the exponent's value; its
/// length counts as `8 * exp_be.len()` bits. `x^0 = 1`, `0^0` included.
///
/// When the modulus' engine has a domain of its own ([`Kernel::pow_domain`](crate::kernel::Kernel::pow_domain): the
/// 52-bit digits of `amm52-ifma`) the ladder runs in it from the first product to the
/// last, the base converted in once and the result out once; otherwise on limb vectors
/// through the kernel. The steps are the same.
pub fn pow<L: Limb, T: Trace>(m: &Modulus<L>, base: &[L], exp_be: &[u8], trace: &mut T) -> Vec<L> {
    if let Some(domain) = m.engine().pow_domain(m) {
        let x = domain.enter(base);
        let y = fixed_window(&DomainLadder(&*domain), &x, exp_be, trace);
        let mut out = vec![L::ZERO; m.limbs()];
        domain.leave(&y, &mut out);
        return out;
    }
    fixed_window(&LimbLadder(m), &base.to_vec(), exp_be, trace)
}

/// `base^e` in Montgomery form by a left-to-right sliding window over the odd powers
/// `base, base^3, ..., base^(2^w - 1)`. Variable-time: the steps and the table entries
/// read depend on the exponent's bits; for public exponents only.
pub fn pow_vartime<L: Limb, T: Trace>(
    m: &Modulus<L>,
    base: &[L],
    exp_be: &[u8],
    trace: &mut T,
) -> Vec<L> {
    let s = m.limbs();
    let Some(top) = (0..8 * exp_be.len())
        .rev()
        .find(|&i| exp_bit(exp_be, i) == 1)
    else {
        return m.r1().to_vec();
    };
    let bits = top + 1;
    let w = vartime_window(bits) as usize;
    let odd = 1usize << (w - 1);
    // table[i] = base^(2i + 1).
    let mut table = vec![L::ZERO; odd * s];
    table[..s].copy_from_slice(base);
    if odd > 1 {
        let mut base2 = vec![L::ZERO; s];
        m.mont_sqr(base, &mut base2);
        trace.step(Step::Sqr);
        for i in 1..odd {
            let (done, rest) = table.split_at_mut(i * s);
            m.mont_mul(&done[(i - 1) * s..], &base2, &mut rest[..s]);
            trace.step(Step::Mul);
        }
    }
    let mut acc: Option<Vec<L>> = None;
    let mut tmp = vec![L::ZERO; s];
    let mut i = top as isize;
    while i >= 0 {
        let hi = i as usize;
        if exp_bit(exp_be, hi) == 0 {
            if let Some(a) = acc.as_mut() {
                m.mont_sqr(a, &mut tmp);
                trace.step(Step::Sqr);
                core::mem::swap(a, &mut tmp);
            }
            i -= 1;
            continue;
        }
        // The longest window of at most w bits from `hi` down that ends in a 1.
        let lo = (hi.saturating_sub(w - 1)..=hi)
            .find(|&j| exp_bit(exp_be, j) == 1)
            .unwrap_or(hi);
        let value = (lo..=hi).rev().fold(0, |v, j| v << 1 | exp_bit(exp_be, j));
        let index = value >> 1;
        trace.step(Step::Read(index));
        let entry = &table[index * s..(index + 1) * s];
        match acc.as_mut() {
            None => acc = Some(entry.to_vec()),
            Some(a) => {
                for _ in lo..=hi {
                    m.mont_sqr(a, &mut tmp);
                    trace.step(Step::Sqr);
                    core::mem::swap(a, &mut tmp);
                }
                m.mont_mul(a, entry, &mut tmp);
                trace.step(Step::Mul);
                core::mem::swap(a, &mut tmp);
            }
        }
        i = lo as isize - 1;
    }
    acc.unwrap_or_else(|| m.r1().to_vec())
}
