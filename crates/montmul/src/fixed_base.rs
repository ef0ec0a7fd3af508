//! [`FixedBase`]: the powers of one base, computed once, so that each constant-time
//! exponentiation of that base is products and table reads only, with no squaring:
//! DSA's `g^k` and Diffie-Hellman's `g^x`, where g belongs to the parameters and only
//! the exponent changes from call to call.
//!
//! # Algorithm
//!
//! Fixed-base windowing (HAC 14.109; Brickell, Gordon, McCurley and Wilson, "Fast
//! exponentiation with precomputation", EUROCRYPT 1992), with every digit's power
//! stored: for an exponent `e = sum d_i 2^(w i)` of w-bit digits `d_i`,
//!
//! ```text
//! g^e = prod_i (g^(2^(w i)))^(d_i) = prod_i T[i][d_i],   T[i][d] = g^(d 2^(w i))
//! ```
//!
//! so an exponent of t bits costs `ceil(t / w) - 1` products, where the fixed window of
//! [`crate::exp::fixed_window`] costs t squarings and `t / w` products: about a sixth
//! of the work for w = 5. The price is the table, `ceil(t / w)` rows of `2^w` values
//! made once ([`FixedBase::new`]: one squaring and `2^w - 2` products per row).
//!
//! The width w = 5 was chosen by measurement, for DSA's 256-bit exponents modulo 2048
//! and 3072 bits on the `mulx` limbs (`docs/PERFORMANCE.md`, "The fixed base's digit
//! width"): about 10% faster than 4, and 6 no faster beyond the noise at 1.65 times the
//! table. Each wider row saves products but doubles what every read touches.
//!
//! Each row is read as [`crate::exp::fixed_window`] reads its table
//! ([`Ladder::read`]: every entry in full, the wanted one kept with masks), and the
//! digit is [`Ladder::window`], so the steps and the addresses depend on the
//! exponent's length only. Like [`crate::exp::pow`] it runs in the modulus' kernel's
//! own domain where it has one ([`crate::kernel::Kernel::pow_domain`]), the table kept
//! there.
//!
//! Constant-time: yes, in the base (every product is) and in the exponent's value; its
//! length counts as `8 * len` bits.

use core::fmt;

use zeroize::Zeroize;

use crate::exp::{entry_at, split_entry, DomainLadder, Ladder, LimbLadder, Step, Trace};
use crate::kernel::traits::PowDomain;
use crate::{Error, Limb, Modulus, Residue};

/// The digit width w ([`FixedBase::WINDOW`]).
const WINDOW: u32 = 5;

/// The rows `T[i][d] = base^(d 2^(w i))`, `i < rows`, `d < 2^w`, in the ladder's domain,
/// each row its values one after another (as [`Ladder::read`] takes them): row 0 is
/// `1, base, base^2, ..`; row `i + 1` starts from `T[i][2^(w-1)]^2`, one squaring, and
/// its even entries are squares, its odd ones products with its entry 1.
fn build<A: Ladder>(ladder: &A, base: &[A::Word], rows: usize) -> Vec<Vec<A::Word>> {
    let size = 1usize << WINDOW;
    let words = base.len();
    let mut table: Vec<Vec<A::Word>> = Vec::with_capacity(rows);
    for i in 0..rows {
        let mut row = vec![A::Word::ZERO; size * words];
        ladder.one(split_entry(&mut row, words, 0).1);
        let first = split_entry(&mut row, words, 1).1;
        match table.last() {
            None => first.copy_from_slice(base),
            Some(prev) => ladder.sqr(entry_at(prev, words, size / 2), first),
        }
        for j in 2..size {
            let (done, next) = split_entry(&mut row, words, j);
            if j % 2 == 0 {
                ladder.sqr(entry_at(done, words, j / 2), next);
            } else {
                ladder.mul(entry_at(done, words, j - 1), entry_at(done, words, 1), next);
            }
        }
        debug_assert_eq!(table.len(), i);
        table.push(row);
    }
    table
}

/// `acc = prod_i T[i][d_i]` over the digits of `exp_be` (module doc), telling `trace`
/// every read and product; `entry` and `tmp` are scratch of the values' length.
///
/// # Panics
/// When the table has fewer rows than the exponent has digits.
fn run<A: Ladder, T: Trace>(
    ladder: &A,
    table: &[Vec<A::Word>],
    exp_be: &[u8],
    [acc, entry, tmp]: [&mut Vec<A::Word>; 3],
    trace: &mut T,
) {
    let w = WINDOW;
    let digits = (8 * exp_be.len()).div_ceil(w as usize);
    assert!(
        digits <= table.len(),
        "fixed base: {digits} digits, {} rows",
        table.len()
    );
    if digits == 0 {
        ladder.one(acc);
        return;
    }
    ladder.read(&table[0], ladder.window(exp_be, 0, w), acc, trace);
    for (i, row) in table.iter().enumerate().take(digits).skip(1) {
        ladder.read(row, ladder.window(exp_be, i * w as usize, w), entry, trace);
        ladder.mul(acc, entry, tmp);
        trace.step(Step::Mul);
        core::mem::swap(acc, tmp);
    }
}

/// Where the table lives: on the modulus' limbs, or in its kernel's own domain.
enum Table<L: Limb> {
    Limbs(Vec<Vec<L>>),
    Own {
        domain: Box<dyn PowDomain<L>>,
        rows: Vec<Vec<u64>>,
    },
}

/// The powers of one base modulo one modulus, for constant-time exponentiations of
/// that base by exponents of up to a given byte length, each with no squaring (module
/// doc: `ceil(8 len / 5) - 1` products and as many reads of 32 values).
///
/// The table holds `ceil(8 max_len / 5)` rows of 32 values: 416 KiB for 32-byte
/// exponents modulo 2048 bits (52 rows of 32 values of 256 bytes), made by about 31
/// products a row; 214 MB for 2048-byte exponents modulo 16384 bits (268 MB in
/// `amm52-ifma`'s digits). Tables above [`FixedBase::MAX_TABLE_BYTES`] are refused.
/// That pays where one base is raised many times (a DSA key's g); for a single power
/// [`Residue::pow`] is cheaper. The values are powers of the base, which may be secret:
/// they are wiped (`zeroize`) on drop, and `Debug` prints sizes only.
///
/// ```
/// use montmul::{FixedBase, Modulus, Residue};
///
/// let m = Modulus::<u64>::from_hex("0xfffffffffffffffffffffffffffffffeffffffffffffffff")?;
/// let g = Residue::from_hex(&m, "3")?;
/// let powers = FixedBase::new(&g, 24)?;
/// let k = [0x5au8; 24];
/// assert_eq!(powers.pow(&k)?, g.pow(&k));
/// # Ok::<(), montmul::Error>(())
/// ```
pub struct FixedBase<L: Limb> {
    m: Modulus<L>,
    max_len: usize,
    table: Table<L>,
}

impl<L: Limb> FixedBase<L> {
    /// The digit width w: 2^w = 32 values a row, each read whole at every use. Wider
    /// rows would save products (t/6 against t/5) at twice the table and twice the
    /// reading.
    pub const WINDOW: u32 = WINDOW;

    /// The largest table [`Self::new`] makes, in bytes: 1 GiB, about four times what
    /// exponents as long as the modulus take at 16384 bits.
    pub const MAX_TABLE_BYTES: usize = 1 << 30;

    /// The powers of `base` for exponents of up to `max_exponent_len` bytes, or
    /// [`Error::ExponentTooLong`] where their table would pass
    /// [`Self::MAX_TABLE_BYTES`] (its `max` is the longest length that fits).
    /// Constant-time in the base's value.
    pub fn new(base: &Residue<L>, max_exponent_len: usize) -> Result<Self, Error> {
        let m = base.modulus().clone();
        let domain = m.engine().pow_domain(&m);
        let value_bytes = match &domain {
            Some(domain) => domain.words() * size_of::<u64>(),
            None => m.limbs() * size_of::<L>(),
        };
        // rows = ceil(8 len / w) <= max_rows exactly when 8 len <= w max_rows; the
        // longest such len is below 2^30 * 5 / 8, so 8 len cannot overflow below.
        let max_rows = Self::MAX_TABLE_BYTES / (value_bytes << WINDOW);
        let longest = max_rows * WINDOW as usize / 8;
        if max_exponent_len > longest {
            return Err(Error::ExponentTooLong {
                len: max_exponent_len,
                max: longest,
            });
        }
        let rows = (8 * max_exponent_len).div_ceil(WINDOW as usize);
        let table = match domain {
            Some(domain) => {
                let mut entered = vec![0u64; domain.words()];
                let mut scratch = vec![0u64; domain.scratch_words()];
                domain.enter(base.montgomery_limbs(), &mut entered, &mut scratch);
                let rows = build(&DomainLadder(&*domain), &entered, rows);
                entered.zeroize();
                scratch.zeroize();
                Table::Own { domain, rows }
            }
            None => Table::Limbs(build(&LimbLadder(&m), base.montgomery_limbs(), rows)),
        };
        Ok(FixedBase {
            m,
            max_len: max_exponent_len,
            table,
        })
    }

    /// The modulus of the base.
    pub fn modulus(&self) -> &Modulus<L> {
        &self.m
    }

    /// The longest exponent, in bytes, these powers take.
    pub fn max_exponent_len(&self) -> usize {
        self.max_len
    }

    /// `base^e` for a big-endian exponent of up to [`Self::max_exponent_len`] bytes,
    /// else [`Error::ExponentTooLong`]. `x^0 = 1`, `0^0` included. Constant-time in the
    /// exponent's value (its length counts as `8 * exponent_be.len()` bits) and in the
    /// base. Allocates the result and three values of scratch.
    pub fn pow(&self, exponent_be: &[u8]) -> Result<Residue<L>, Error> {
        self.pow_traced(exponent_be, &mut ())
    }

    /// [`Self::pow`], telling `trace` every table read and product: how the tests show
    /// that the steps depend on the exponent's length only.
    pub fn pow_traced<T: Trace>(
        &self,
        exponent_be: &[u8],
        trace: &mut T,
    ) -> Result<Residue<L>, Error> {
        if exponent_be.len() > self.max_len {
            return Err(Error::ExponentTooLong {
                len: exponent_be.len(),
                max: self.max_len,
            });
        }
        let mut out = vec![L::ZERO; self.m.limbs()];
        match &self.table {
            Table::Limbs(rows) => {
                let words = self.m.limbs();
                let mut bufs = [(); 3].map(|_| vec![L::ZERO; words]);
                let [acc, entry, tmp] = &mut bufs;
                run(
                    &LimbLadder(&self.m),
                    rows,
                    exponent_be,
                    [acc, entry, tmp],
                    trace,
                );
                out.copy_from_slice(acc);
                bufs.iter_mut().for_each(|b| b.zeroize());
            }
            Table::Own { domain, rows } => {
                let mut bufs = [(); 3].map(|_| vec![0u64; domain.words()]);
                let [acc, entry, tmp] = &mut bufs;
                run(
                    &DomainLadder(&**domain),
                    rows,
                    exponent_be,
                    [acc, entry, tmp],
                    trace,
                );
                let mut scratch = vec![0u64; domain.scratch_words()];
                domain.leave(acc, &mut out, &mut scratch);
                scratch.zeroize();
                bufs.iter_mut().for_each(|b| b.zeroize());
            }
        }
        let r = Residue::from_value(&self.m, &out);
        out.zeroize();
        Ok(r)
    }
}

impl<L: Limb> Drop for FixedBase<L> {
    fn drop(&mut self) {
        fn wipe<W: Zeroize>(rows: &mut [Vec<W>]) {
            rows.iter_mut().for_each(|v| v.zeroize());
        }
        match &mut self.table {
            Table::Limbs(rows) => wipe(rows),
            Table::Own { rows, .. } => wipe(rows),
        }
    }
}

/// Prints the sizes, never a value: `FixedBase { bits: 2048, max_exponent_len: 32, .. }`.
impl<L: Limb> fmt::Debug for FixedBase<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FixedBase")
            .field("bits", &self.m.bits())
            .field("max_exponent_len", &self.max_len)
            .finish_non_exhaustive()
    }
}
