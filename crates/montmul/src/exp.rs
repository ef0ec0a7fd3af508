//! Exponentiation in Montgomery form: a constant-time fixed window for secret exponents,
//! a variable-time sliding window for public ones, both into a reusable [`PowScratch`].
//!
//! Both are left-to-right k-ary methods (HAC 14.82 fixed window, 14.85 sliding window;
//! the sliding window's widths as OpenSSL's `BN_window_bits_for_exponent_size`, the
//! fixed window's measured here, per ladder: [`ct_window`], [`ct_window_limbs`]).
//! Values stay in Montgomery form below the modulus' bound throughout: with
//! [`Reduction::Lazy`](crate::Reduction::Lazy) every intermediate product is left in
//! `[0, 2n)` and no final subtraction is done inside the loop.
//!
//! [`fixed_window`] is constant-time in the exponent's value (not its length, taken as
//! `8 * bytes`): the sequence of squarings and multiplications depends on the length
//! only, and every table lookup reads the whole table and keeps the wanted entry with
//! masks, so no branch and no memory address depends on the exponent's bits.
//! [`sliding_window`] skips zero bits and reads only the entries it needs: use it for
//! public exponents only.
//!
//! Both run on a [`Ladder`]: the modulus' limbs through its kernel ([`LimbLadder`]), or
//! the kernel's own domain when it has one ([`DomainLadder`],
//! [`Kernel::pow_domain`](crate::kernel::Kernel::pow_domain): the 52-bit digits of
//! `amm52-ifma`), and write into a [`Work`] (the table and every temporary). A
//! [`PowScratch`] holds the work and the domain for one modulus, made once: the
//! exponentiations that reuse it ([`crate::Residue::pow_assign`]) allocate nothing.
//! [`pow`] and [`pow_vartime`] make one for a single call.
//!
//! Both take a [`Trace`] that is told every step (`()` ignores them, at no cost): the
//! tests record the steps of two exponents of equal length and check that [`pow`]'s are
//! identical.

use core::fmt;

use zeroize::{Zeroize, Zeroizing};

use crate::kernel::traits::PowDomain;
use crate::{Error, Limb, Modulus};

pub use crate::trace::{Step, Trace};

/// The widest window [`ct_window`], [`ct_window_limbs`] and [`vartime_window`] choose.
pub const MAX_WINDOW: u32 = 6;

/// Window width of [`fixed_window`] for an exponent of `bits` bits in a kernel's own
/// domain and in the ladders of several exponentiations (the default of
/// [`Ladder::ct_window`]).
///
/// Narrower than the product count alone asks for (OpenSSL's
/// `BN_window_bits_for_ctime_exponent_size`: 5 from 307 bits, 6 from 938), because
/// every lookup reads the whole table: with 2^w entries a wider window saves
/// multiplications but reads twice the table each time. The widths are the fastest
/// measured per size on `amm52-ifma`'s digits (`docs/PERFORMANCE.md`, "Window widths").
pub fn ct_window(bits: usize) -> u32 {
    match bits {
        b if b > 6144 => 6,
        b if b > 1536 => 5,
        b if b > 89 => 4,
        b if b > 22 => 3,
        _ => 1,
    }
}

/// Window width of [`fixed_window`] on a modulus' limbs ([`LimbLadder`]): wider than
/// [`ct_window`] from 769 bits, where a product on limbs costs more against a read of
/// the table than one on 52-bit digits does (`docs/PERFORMANCE.md`, "Window widths").
/// The two agree up to 768 bits.
pub fn ct_window_limbs(bits: usize) -> u32 {
    match bits {
        b if b > 1280 => 6,
        b if b > 768 => 5,
        b => ct_window(b),
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
    (exp_byte(exp_be, i / 8) >> (i % 8)) as usize & 1
}

/// Byte `i` (0 = least significant) of a big-endian byte string; 0 past its end. The
/// position is public (the branch tests it alone); only the value read may be secret.
#[inline]
fn exp_byte(exp_be: &[u8], i: usize) -> u64 {
    match exp_be.len().checked_sub(1 + i) {
        Some(at) => exp_be[at] as u64,
        None => 0,
    }
}

/// The `w`-bit digit of the exponent starting at bit `lo`: the bytes that hold it read
/// whole, shifted and masked. No branch and no address depends on the bits read (the
/// position `lo` and the width `w` are public).
///
/// # Panics
/// When `w` is above 56 (the digit and its offset in its first byte fill a `u64`).
#[inline]
pub fn digit(exp_be: &[u8], lo: usize, w: u32) -> usize {
    assert!(w <= 56, "exp::digit: a window of {w} bits");
    let bytes = lo / 8..(lo + w as usize).div_ceil(8);
    let word = bytes
        .rev()
        .fold(0u64, |acc, i| acc << 8 | exp_byte(exp_be, i));
    ((word >> (lo % 8)) & ((1u64 << w) - 1)) as usize
}

/// The number of significant bits of a big-endian exponent (0 for zero). Variable-time.
pub(crate) fn significant_bits(exp_be: &[u8]) -> usize {
    match exp_be.iter().position(|&b| b != 0) {
        Some(k) => 8 * (exp_be.len() - k) - exp_be[k].leading_zeros() as usize,
        None => 0,
    }
}

/// The sliding window of at most `w` bits whose top bit is bit `hi` (a 1) of the
/// exponent: the longest that ends in a 1, as the bit where it ends and its value
/// (odd). Variable-time: for [`sliding_window`] and `multi_exp`'s windows.
pub(crate) fn window_at(exp_be: &[u8], hi: usize, w: usize) -> (usize, usize) {
    let lo = (hi.saturating_sub(w - 1)..=hi)
        .find(|&j| exp_bit(exp_be, j) == 1)
        .unwrap_or(hi);
    (lo, digit(exp_be, lo, (hi - lo + 1) as u32))
}

/// The number of table entries the ladders need for exponents of up to `len` bytes:
/// `2^w` for [`fixed_window`], `2^(w - 1)` odd powers for [`sliding_window`].
pub fn table_entries(len: usize) -> usize {
    // Saturating: any length asks for the widest windows at most (64 entries).
    let bits = len.saturating_mul(8);
    let w = ct_window(bits).max(ct_window_limbs(bits));
    (1usize << w).max(1 << (vartime_window(bits) - 1))
}

/// The arithmetic of the ladders ([`fixed_window`], [`sliding_window`]): values in
/// some Montgomery domain, as slices of words of one length, and their products.
/// [`pow`] runs the ladder on a modulus' limbs ([`LimbLadder`]) or, when the modulus'
/// kernel has a domain of its own
/// ([`Kernel::pow_domain`](crate::kernel::Kernel::pow_domain)), in that domain
/// ([`DomainLadder`]); both give the ladder the same steps, so the same [`Trace`] sees
/// them. Nothing here allocates.
pub trait Ladder {
    /// The word of a value (the table reads go through its [`PerWord::select`](crate::kernel::PerWord::select)).
    type Word: Limb;
    /// `out` = the domain's 1 (Montgomery form).
    fn one(&self, out: &mut [Self::Word]);
    /// `out = a^2` (Montgomery product).
    fn sqr(&self, a: &[Self::Word], out: &mut [Self::Word]);
    /// `out = a b` (Montgomery product).
    fn mul(&self, a: &[Self::Word], b: &[Self::Word], out: &mut [Self::Word]);

    /// The window width [`fixed_window`] uses for an exponent of `bits` bits: by
    /// default [`ct_window`]; the ladder on limbs widens it ([`ct_window_limbs`]). A
    /// width depends on the exponent's length only, never on its value.
    #[inline]
    fn ct_window(&self, bits: usize) -> u32 {
        ct_window(bits)
    }

    /// The table index [`fixed_window`] reads for the window of `w` bits from bit `lo`
    /// of `exp_be`: the exponent's [`digit`] there. A ladder whose value holds several
    /// exponentiations in lockstep packs the other exponents' digits above it, `w` bits
    /// each, for its own [`Ladder::read`] to split.
    #[inline]
    fn window(&self, exp_be: &[u8], lo: usize, w: u32) -> usize {
        digit(exp_be, lo, w)
    }

    /// `out = table[index]` for [`fixed_window`], constant-time in `index`: every entry
    /// read in full and the wanted one kept with masks ([`table_read`]); `trace` is told
    /// of every entry read. The table holds its entries one after another, each as long
    /// as `out`. A ladder that overrides [`Ladder::window`] splits the index here and
    /// keeps each part of the value with its own masks.
    #[inline]
    fn read<T: Trace>(
        &self,
        table: &[Self::Word],
        index: usize,
        out: &mut [Self::Word],
        trace: &mut T,
    ) {
        masked_read(table, index, out, trace);
    }
}

/// All ones when `j == index`, else 0, without a branch (both are small). The mask
/// passes through [`core::hint::black_box`] so that the optimiser does not turn its use
/// back into a branch.
#[inline]
pub fn entry_mask(j: usize, index: usize) -> u64 {
    core::hint::black_box(entry_mask_plain(j, index))
}

/// [`entry_mask`] without the [`core::hint::black_box`], for the portable table read
/// (`arch::generic::select`) and the pair's read (`arch/x86_64/avx512ifma/x2.rs`),
/// which hide all their masks from the optimiser at once.
#[inline]
pub(crate) fn entry_mask_plain(j: usize, index: usize) -> u64 {
    // (j ^ index) - 1 has its top bit set exactly when j == index.
    let hit = ((j ^ index) as u64).wrapping_sub(1) >> 63;
    hit.wrapping_neg()
}

/// `out = table[index]` for [`fixed_window`]: every entry read in full, in order, and
/// the wanted one kept with masks, in one pass that keeps `out` in registers
/// ([`crate::kernel::PerWord::select`]: AVX2 where the CPU has it, the masks made by
/// vector compares). `trace` is told of every entry read.
fn masked_read<L: Limb, T: Trace>(table: &[L], index: usize, out: &mut [L], trace: &mut T) {
    for j in 0..crate::arch::generic::entry_count(table, out.len()) {
        trace.step(Step::Read(j));
    }
    L::select(table, index, out);
}

/// `out = table[index]`, read as [`fixed_window`] reads its table (every entry in full,
/// kept with masks): for `montmul ct-check`, which times the read alone. The table holds
/// its entries one after another, each as long as `out`. Constant-time in `index`.
///
/// # Panics
/// When the table has more than 2^6 entries, or its length is not a multiple of
/// `out`'s.
pub fn table_read<L: Limb>(table: &[L], index: usize, out: &mut [L]) {
    masked_read(table, index, out, &mut ());
}

/// The ladder on a modulus' limb vectors, through its kernel.
pub struct LimbLadder<'m, L: Limb>(pub &'m Modulus<L>);

impl<L: Limb> Ladder for LimbLadder<'_, L> {
    type Word = L;

    fn one(&self, out: &mut [L]) {
        out.copy_from_slice(self.0.r1());
    }

    fn sqr(&self, a: &[L], out: &mut [L]) {
        self.0.mont_sqr(a, out);
    }

    fn mul(&self, a: &[L], b: &[L], out: &mut [L]) {
        self.0.mont_mul(a, b, out);
    }

    fn ct_window(&self, bits: usize) -> u32 {
        ct_window_limbs(bits)
    }
}

/// The ladder in a kernel's own domain
/// ([`Kernel::pow_domain`](crate::kernel::Kernel::pow_domain)), values as its words.
pub struct DomainLadder<'d, L: Limb>(pub &'d dyn PowDomain<L>);

impl<L: Limb> Ladder for DomainLadder<'_, L> {
    type Word = u64;

    fn one(&self, out: &mut [u64]) {
        self.0.one(out);
    }

    fn sqr(&self, a: &[u64], out: &mut [u64]) {
        self.0.sqr(a, out);
    }

    fn mul(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        self.0.mul(a, b, out);
    }
}

/// Every buffer a ladder writes: the table and three values, all of one length, made
/// once for exponents of up to a given length and wiped (`zeroize`) on drop. The
/// result of [`fixed_window`] and [`sliding_window`] is [`Work::result`].
pub struct Work<W: Limb> {
    /// The precomputed powers, one after another in one buffer (one allocation,
    /// whatever the window): for values of `k` words, entry `i` is
    /// `table[i k .. (i + 1) k]` ([`entry_at`]).
    table: Vec<W>,
    /// The running value, then the result.
    acc: Vec<W>,
    /// The entry read from the table ([`fixed_window`]); base^2 ([`sliding_window`]).
    entry: Vec<W>,
    /// Where a product goes before it is swapped into `acc`.
    tmp: Vec<W>,
}

impl<W: Limb> Work<W> {
    /// The buffers for values of `words` words and exponents of up to `max_len` bytes
    /// ([`table_entries`]).
    pub fn new(words: usize, max_len: usize) -> Self {
        Work {
            table: vec![W::ZERO; words * table_entries(max_len)],
            acc: vec![W::ZERO; words],
            entry: vec![W::ZERO; words],
            tmp: vec![W::ZERO; words],
        }
    }

    /// The result of the last ladder run.
    pub fn result(&self) -> &[W] {
        &self.acc
    }

    /// The first `entries` entries of the table, one after another.
    ///
    /// # Panics
    /// When the work was made for shorter exponents: it holds fewer entries.
    fn table(&mut self, entries: usize) -> &mut [W] {
        let words = self.acc.len();
        assert!(
            entries * words <= self.table.len(),
            "exp::Work: a table of {entries} entries in one made for {}",
            self.table.len() / words.max(1)
        );
        &mut self.table[..entries * words]
    }
}

/// Entry `i` of a table whose entries of `words` words lie one after another.
#[inline]
pub(crate) fn entry_at<W>(table: &[W], words: usize, i: usize) -> &[W] {
    &table[i * words..(i + 1) * words]
}

/// Entry `i` of such a table for writing, and every entry before it for reading.
#[inline]
pub(crate) fn split_entry<W>(table: &mut [W], words: usize, i: usize) -> (&[W], &mut [W]) {
    let (done, next) = table.split_at_mut(i * words);
    (done, &mut next[..words])
}

impl<W: Limb> Drop for Work<W> {
    fn drop(&mut self) {
        self.table.zeroize();
        self.acc.zeroize();
        self.entry.zeroize();
        self.tmp.zeroize();
    }
}

/// `base^e` by a fixed window with masked table reads, in the ladder's domain, into
/// [`Work::result`]: the constant-time exponentiation. Constant-time in the exponent's
/// value when the ladder's products are; its length counts as `8 * exp_be.len()` bits.
/// Allocates nothing.
///
/// # Panics
/// When `work` was made for shorter exponents or values of another length.
pub fn fixed_window<A: Ladder, T: Trace>(
    ladder: &A,
    base: &[A::Word],
    exp_be: &[u8],
    work: &mut Work<A::Word>,
    trace: &mut T,
) {
    let bits = 8 * exp_be.len();
    let w = ladder.ct_window(bits);
    let size = 1usize << w;
    // The work's value length: a base of another length fails to copy (a panic).
    let words = work.acc.len();
    let table = work.table(size);
    // table[i] = base^i: 1, base, then squares for even i and products for odd i.
    ladder.one(split_entry(table, words, 0).1);
    split_entry(table, words, 1).1.copy_from_slice(base);
    for i in 2..size {
        let (done, next) = split_entry(table, words, i);
        if i % 2 == 0 {
            ladder.sqr(entry_at(done, words, i / 2), next);
            trace.step(Step::Sqr);
        } else {
            ladder.mul(entry_at(done, words, i - 1), entry_at(done, words, 1), next);
            trace.step(Step::Mul);
        }
    }
    let Work {
        table,
        acc,
        entry,
        tmp,
    } = work;
    let table = &table[..size * words];
    let windows = bits.div_ceil(w as usize);
    ladder.one(acc);
    for k in (0..windows).rev() {
        let d = ladder.window(exp_be, k * w as usize, w);
        if k + 1 == windows {
            // The first window: acc = 1, so the entry itself is the result so far.
            ladder.read(table, d, acc, trace);
            continue;
        }
        // The read first: it does not depend on the squarings, so the processor runs
        // it beside the first of them, whose chain of products leaves units idle.
        ladder.read(table, d, entry, trace);
        for _ in 0..w {
            ladder.sqr(acc, tmp);
            trace.step(Step::Sqr);
            core::mem::swap(acc, tmp);
        }
        ladder.mul(acc, entry, tmp);
        trace.step(Step::Mul);
        core::mem::swap(acc, tmp);
    }
}

/// `base^e` by a left-to-right sliding window over the odd powers
/// `base, base^3, ..., base^(2^w - 1)`, in the ladder's domain, into [`Work::result`].
/// Variable-time: the steps and the table entries read depend on the exponent's bits;
/// for public exponents only. Allocates nothing.
///
/// # Panics
/// When `work` was made for shorter exponents or values of another length.
pub fn sliding_window<A: Ladder, T: Trace>(
    ladder: &A,
    base: &[A::Word],
    exp_be: &[u8],
    work: &mut Work<A::Word>,
    trace: &mut T,
) {
    let Some(top) = significant_bits(exp_be).checked_sub(1) else {
        ladder.one(&mut work.acc);
        return;
    };
    let w = vartime_window(top + 1) as usize;
    let odd = 1usize << (w - 1);
    // Sized for the exponent's byte length, which bounds its significant bits.
    work.table(table_entries(exp_be.len()));
    let words = work.acc.len();
    let Work {
        table,
        acc,
        entry: base2,
        tmp,
    } = work;
    // table[i] = base^(2i + 1).
    split_entry(table, words, 0).1.copy_from_slice(base);
    if odd > 1 {
        ladder.sqr(base, base2);
        trace.step(Step::Sqr);
        for i in 1..odd {
            let (done, next) = split_entry(table, words, i);
            ladder.mul(entry_at(done, words, i - 1), base2, next);
            trace.step(Step::Mul);
        }
    }
    // `top` is a 1: the first window below sets acc.
    let mut started = false;
    let mut i = top as isize;
    while i >= 0 {
        let hi = i as usize;
        if exp_bit(exp_be, hi) == 0 {
            ladder.sqr(acc, tmp);
            trace.step(Step::Sqr);
            core::mem::swap(acc, tmp);
            i -= 1;
            continue;
        }
        let (lo, value) = window_at(exp_be, hi, w);
        let index = value >> 1;
        trace.step(Step::Read(index));
        if started {
            for _ in lo..=hi {
                ladder.sqr(acc, tmp);
                trace.step(Step::Sqr);
                core::mem::swap(acc, tmp);
            }
            ladder.mul(acc, entry_at(table, words, index), tmp);
            trace.step(Step::Mul);
            core::mem::swap(acc, tmp);
        } else {
            acc.copy_from_slice(entry_at(table, words, index));
            started = true;
        }
        i = lo as isize - 1;
    }
}

/// Where a [`PowScratch`]'s ladder runs.
enum Domain<L: Limb> {
    /// On the modulus' limbs.
    Limbs(Work<L>),
    /// In the kernel's own domain: the domain, the ladder's work there, the base
    /// entered, and the scratch of [`PowDomain::enter`] and [`PowDomain::leave`].
    Own {
        domain: Box<dyn PowDomain<L>>,
        work: Work<u64>,
        base: Zeroizing<Vec<u64>>,
        scratch: Zeroizing<Vec<u64>>,
    },
}

/// Everything an exponentiation modulo one modulus writes, made once and reused: the
/// window table, every temporary, and the kernel's own domain with its constants where
/// it has one (`amm52-ifma`'s 52-bit digits, asked of
/// [`Kernel::pow_domain`](crate::kernel::Kernel::pow_domain) here, once). With it,
/// [`crate::Residue::pow_assign`] and [`crate::Residue::pow_vartime_assign`] allocate
/// nothing, so a chain of in-place operations allocates nothing.
///
/// Made for one modulus (any clone of it, or an equal one, may use it) and exponents of
/// up to a given byte length; another modulus or a longer exponent is a typed error
/// ([`Error::ModulusMismatch`], [`Error::ExponentTooLong`]). Its buffers hold powers of
/// secret bases: they are wiped (`zeroize`) on drop, and `Debug` prints sizes only.
///
/// ```
/// use montmul::{Modulus, PowScratch, Residue};
///
/// let m = Modulus::<u64>::from_hex("0xfffffffffffffffffffffffffffffffeffffffffffffffff")?;
/// let mut scratch = PowScratch::new(&m, 32);
/// let mut x = Residue::from_hex(&m, "1234567890abcdef")?;
/// x.pow_assign(&[0x01, 0x00, 0x01], &mut scratch)?; // x = x^65537, nothing allocated
/// assert_eq!(x, Residue::from_hex(&m, "1234567890abcdef")?.pow(&[0x01, 0x00, 0x01]));
/// # Ok::<(), montmul::Error>(())
/// ```
pub struct PowScratch<L: Limb> {
    m: Modulus<L>,
    max_len: usize,
    domain: Domain<L>,
}

impl<L: Limb> PowScratch<L> {
    /// The scratch for exponentiations modulo `m` with exponents of up to
    /// `max_exponent_len` bytes. Allocates the table (`2^w` values of the modulus' size,
    /// w <= [`MAX_WINDOW`] from the length: 64 values at most) and, where the kernel has
    /// a domain of its own, builds it (two Montgomery products).
    /// Constant-time in the modulus' value.
    pub fn new(m: &Modulus<L>, max_exponent_len: usize) -> Self {
        let domain = match m.engine().pow_domain(m) {
            Some(domain) => Domain::Own {
                work: Work::new(domain.words(), max_exponent_len),
                base: Zeroizing::new(vec![0; domain.words()]),
                scratch: Zeroizing::new(vec![0; domain.scratch_words()]),
                domain,
            },
            None => Domain::Limbs(Work::new(m.limbs(), max_exponent_len)),
        };
        PowScratch {
            m: m.clone(),
            max_len: max_exponent_len,
            domain,
        }
    }

    /// The longest exponent, in bytes, this scratch takes.
    pub fn max_exponent_len(&self) -> usize {
        self.max_len
    }

    /// The modulus this scratch was made for.
    pub fn modulus(&self) -> &Modulus<L> {
        &self.m
    }

    /// `out = base^e` (Montgomery form, `base` below the bound of `m`, `out` and
    /// `base` of `m.limbs()` limbs), by [`fixed_window`] or, with `vartime`,
    /// [`sliding_window`], telling `trace` every step; allocates nothing. Fails when
    /// this scratch was made for another modulus or shorter exponents.
    ///
    /// # Panics
    /// When `base` or `out` is not `m.limbs()` limbs long.
    pub(crate) fn run<T: Trace>(
        &mut self,
        m: &Modulus<L>,
        base: &[L],
        exp_be: &[u8],
        out: &mut [L],
        vartime: bool,
        trace: &mut T,
    ) -> Result<(), Error> {
        if self.m != *m {
            return Err(Error::ModulusMismatch);
        }
        if exp_be.len() > self.max_len {
            return Err(Error::ExponentTooLong {
                len: exp_be.len(),
                max: self.max_len,
            });
        }
        let s = self.m.limbs();
        assert!(base.len() == s && out.len() == s);
        match &mut self.domain {
            Domain::Limbs(work) => {
                ladder(&LimbLadder(&self.m), base, exp_be, work, vartime, trace);
                out.copy_from_slice(work.result());
            }
            Domain::Own {
                domain,
                work,
                base: entered,
                scratch,
            } => {
                domain.enter(base, entered, scratch);
                let own = DomainLadder(&**domain);
                ladder(&own, entered, exp_be, work, vartime, trace);
                domain.leave(work.result(), out, scratch);
            }
        }
        Ok(())
    }
}

/// Prints the sizes, never a value: `PowScratch { bits: 2048, max_exponent_len: 256, .. }`.
impl<L: Limb> fmt::Debug for PowScratch<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PowScratch")
            .field("bits", &self.m.bits())
            .field("max_exponent_len", &self.max_len)
            .finish_non_exhaustive()
    }
}

/// `base^e` in Montgomery form (`base` below `m.bound()`, big-endian exponent), by a
/// fixed window with masked table reads ([`fixed_window`]) in a [`PowScratch`] made
/// for this call. Constant-time in the exponent's value; its length counts as
/// `8 * exp_be.len()` bits. `x^0 = 1`, `0^0` included.
///
/// When the modulus' engine has a domain of its own
/// ([`Kernel::pow_domain`](crate::kernel::Kernel::pow_domain): the 52-bit digits of
/// `amm52-ifma`) the ladder runs in it from the first product to the last, the base
/// converted in once and the result out once; otherwise on limb vectors through the
/// kernel. The steps are the same.
///
/// # Panics
/// When `base` is not `m.limbs()` limbs long.
pub fn pow<L: Limb, T: Trace>(m: &Modulus<L>, base: &[L], exp_be: &[u8], trace: &mut T) -> Vec<L> {
    run_once(m, base, exp_be, false, trace)
}

/// `base^e` in Montgomery form by a left-to-right sliding window ([`sliding_window`])
/// in a [`PowScratch`] made for this call, in the kernel's own domain where it has
/// one. Variable-time: the steps and the table entries read depend on the exponent's
/// bits; for public exponents only.
///
/// # Panics
/// When `base` is not `m.limbs()` limbs long.
pub fn pow_vartime<L: Limb, T: Trace>(
    m: &Modulus<L>,
    base: &[L],
    exp_be: &[u8],
    trace: &mut T,
) -> Vec<L> {
    run_once(m, base, exp_be, true, trace)
}

/// [`sliding_window`] when `vartime` (a public choice), else [`fixed_window`].
fn ladder<A: Ladder, T: Trace>(
    ladder: &A,
    base: &[A::Word],
    exp_be: &[u8],
    work: &mut Work<A::Word>,
    vartime: bool,
    trace: &mut T,
) {
    if vartime {
        sliding_window(ladder, base, exp_be, work, trace);
    } else {
        fixed_window(ladder, base, exp_be, work, trace);
    }
}

/// [`pow`] or [`pow_vartime`]: a scratch made for `m` and this exponent, used once.
fn run_once<L: Limb, T: Trace>(
    m: &Modulus<L>,
    base: &[L],
    exp_be: &[u8],
    vartime: bool,
    trace: &mut T,
) -> Vec<L> {
    let mut scratch = PowScratch::new(m, exp_be.len());
    let mut out = vec![L::ZERO; m.limbs()];
    match scratch.run(m, base, exp_be, &mut out, vartime, trace) {
        Ok(()) => out,
        Err(e) => unreachable!("a scratch made for this modulus and exponent: {e}"),
    }
}
