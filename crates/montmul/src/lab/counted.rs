//! A counting machine word: [`Counted<L>`] is a [`Limb`] that does `L`'s arithmetic and
//! counts each word operation it executes, in the categories of seed 001's instruction
//! table (Bos, Montgomery, Shumow & Zaverucha, SAC 2013, "Expected Performance
//! Speedup": add, sub, short mul, muladd, muladdadd per Montgomery multiplication of n
//! words).
//!
//! Why a word type and not a hook in the kernels: every portable algorithm is written
//! once, generic over [`Limb`], so instantiating it for `Counted<u32>` runs exactly the
//! code that `u32` runs and counts what it executes, while the production kernels
//! (instantiated for `u32` and `u64`) stay as they are, with no counting in them. The
//! count is a measurement of the code, not a formula: [`count_product`] builds a
//! modulus on the counting word with a named kernel and counts one product.
//!
//! What is counted, per [`Limb`] operation:
//!
//! | operation | category |
//! |---|---|
//! | `adc`, `wrapping_add` | add |
//! | `sbb`, `wrapping_sub` | sub |
//! | `wrapping_mul` (w x w -> w bits) | short mul |
//! | `mul_wide` (w x w -> 2w bits) | mul |
//! | `mac(acc, a, b, c)` with `c` the constant `Limb::ZERO` | muladd (`acc + a b`) |
//! | `mac(acc, a, b, c)` otherwise | muladdadd (`acc + a b + c`) |
//! | `wrapping_neg`, `and`, `or`, `xor`, `shl`, `shr` | other |
//!
//! A `mac` is a muladd when its carry argument is the constant zero of the source
//! (`Limb::ZERO` or a value copied from it, not a computed value that happens to be 0),
//! so the classification follows the code, not the data: the first word of each row of
//! CIOS is `mac(t[0], a[0], b[i], ZERO)`, a muladd, as in the seed's count. The
//! conversions `from_u64` and `to_u64`, copies and comparisons are not counted.
//!
//! The SIMD kernels (`two-way-sse2`, `two-way-avx2`, the `columns-*` kernels) are
//! written with intrinsics on their own vector types, not on [`Limb`], so this word
//! does not see their instructions.
//!
//! Not constant-time in any sense that matters: a laboratory instrument, for counts.

use core::cell::Cell;
use core::cmp::Ordering;
use core::fmt;

use crate::kernel::traits::{Kernel, PerWord};
use crate::{algo, Error, Limb, Modulus, Reduction};

/// Operation counts, in seed 001's categories (see the module documentation for which
/// [`Limb`] operation lands in which).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Word additions (`adc`, `wrapping_add`).
    pub add: u64,
    /// Word subtractions (`sbb`, `wrapping_sub`).
    pub sub: u64,
    /// Short multiplications, the low word of a product (`wrapping_mul`).
    pub short_mul: u64,
    /// Long multiplications without an addend (`mul_wide`).
    pub mul: u64,
    /// Long multiplications with one addend (`mac` with a constant-zero carry).
    pub muladd: u64,
    /// Long multiplications with two addends (`mac` with a carry).
    pub muladdadd: u64,
    /// Negations, logic and shifts.
    pub other: u64,
}

thread_local! {
    /// The counts of this thread since the last [`count`] began.
    static COUNTS: Cell<Counts> = Cell::new(Counts::default());
}

/// Adds one to the category `pick` chooses.
#[inline]
fn tick(pick: fn(&mut Counts) -> &mut u64) {
    COUNTS.with(|c| {
        let mut v = c.get();
        *pick(&mut v) += 1;
        c.set(v);
    });
}

/// Runs `f` and returns its result with the word operations it executed on this thread.
pub fn count<R>(f: impl FnOnce() -> R) -> (R, Counts) {
    let before = COUNTS.with(|c| c.replace(Counts::default()));
    let r = f();
    let counted = COUNTS.with(|c| c.replace(before));
    (r, counted)
}

/// A machine word `L` that counts its operations ([`count`]). Compares, orders and
/// prints as its value.
#[derive(Clone, Copy)]
pub struct Counted<L> {
    value: L,
    /// Whether this is the source's constant zero (`Limb::ZERO`, `Default`) or a copy of
    /// it, rather than a computed value: a `mac` with such a carry is a muladd.
    zero: bool,
}

impl<L: Limb> Counted<L> {
    /// A computed word of value `value`.
    pub fn new(value: L) -> Self {
        Counted { value, zero: false }
    }

    /// The word's value.
    pub fn value(self) -> L {
        self.value
    }
}

/// The constant zero, as `Limb::ZERO`: what `zeroize` and `fill(Default)` write.
impl<L: Limb> Default for Counted<L> {
    fn default() -> Self {
        Counted {
            value: L::ZERO,
            zero: true,
        }
    }
}

impl<L: Limb> fmt::Debug for Counted<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<L: Limb> PartialEq for Counted<L> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<L: Limb> Eq for Counted<L> {}

impl<L: Limb> PartialOrd for Counted<L> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<L: Limb> Ord for Counted<L> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.value.cmp(&other.value)
    }
}

impl<L: Limb> zeroize::DefaultIsZeroes for Counted<L> {}

/// Two computed words.
fn pair<L: Limb>((lo, hi): (L, L)) -> (Counted<L>, Counted<L>) {
    (Counted::new(lo), Counted::new(hi))
}

impl<L: Limb> Limb for Counted<L>
where
    Counted<L>: PerWord,
{
    const BITS: u32 = L::BITS;
    const ZERO: Self = Counted {
        value: L::ZERO,
        zero: true,
    };
    const ONE: Self = Counted {
        value: L::ONE,
        zero: false,
    };
    const MAX: Self = Counted {
        value: L::MAX,
        zero: false,
    };

    fn from_u64(x: u64) -> Self {
        Counted::new(L::from_u64(x))
    }
    fn to_u64(self) -> u64 {
        self.value.to_u64()
    }
    fn adc(a: Self, b: Self, carry: Self) -> (Self, Self) {
        tick(|c| &mut c.add);
        pair(L::adc(a.value, b.value, carry.value))
    }
    fn sbb(a: Self, b: Self, borrow: Self) -> (Self, Self) {
        tick(|c| &mut c.sub);
        pair(L::sbb(a.value, b.value, borrow.value))
    }
    fn mac(acc: Self, a: Self, b: Self, carry: Self) -> (Self, Self) {
        if carry.zero {
            tick(|c| &mut c.muladd);
        } else {
            tick(|c| &mut c.muladdadd);
        }
        pair(L::mac(acc.value, a.value, b.value, carry.value))
    }
    fn mul_wide(a: Self, b: Self) -> (Self, Self) {
        tick(|c| &mut c.mul);
        pair(L::mul_wide(a.value, b.value))
    }
    fn wrapping_mul(self, rhs: Self) -> Self {
        tick(|c| &mut c.short_mul);
        Counted::new(self.value.wrapping_mul(rhs.value))
    }
    fn wrapping_add(self, rhs: Self) -> Self {
        tick(|c| &mut c.add);
        Counted::new(self.value.wrapping_add(rhs.value))
    }
    fn wrapping_sub(self, rhs: Self) -> Self {
        tick(|c| &mut c.sub);
        Counted::new(self.value.wrapping_sub(rhs.value))
    }
    fn wrapping_neg(self) -> Self {
        tick(|c| &mut c.other);
        Counted::new(self.value.wrapping_neg())
    }
    fn and(self, rhs: Self) -> Self {
        tick(|c| &mut c.other);
        Counted::new(self.value.and(rhs.value))
    }
    fn or(self, rhs: Self) -> Self {
        tick(|c| &mut c.other);
        Counted::new(self.value.or(rhs.value))
    }
    fn xor(self, rhs: Self) -> Self {
        tick(|c| &mut c.other);
        Counted::new(self.value.xor(rhs.value))
    }
    fn shl(self, s: u32) -> Self {
        tick(|c| &mut c.other);
        Counted::new(self.value.shl(s))
    }
    fn shr(self, s: u32) -> Self {
        tick(|c| &mut c.other);
        Counted::new(self.value.shr(s))
    }
}

/// The portable kernels of each counted word: the seed algorithms, `cios` for `auto`.
macro_rules! counted_words {
    ($($t:ty),*) => {$(
        impl PerWord for Counted<$t> {
            fn kernels() -> &'static [&'static dyn Kernel<Self>] {
                &[
                    &algo::sos::Sos,
                    &algo::cios::Cios,
                    &algo::fios::Fios,
                    &algo::fips::Fips,
                    &algo::cihs::Cihs,
                    &algo::two_way::TwoWay,
                    &algo::columns::Columns,
                ]
            }

            fn auto(_: usize, _: Reduction) -> &'static dyn Kernel<Self> {
                &algo::cios::Cios
            }
        }
    )*};
}

counted_words!(u8, u16, u32, u64);

/// One Montgomery product `a b R^-1 mod n` by the portable kernel `kernel` under
/// `reduction`, on the counting word: the product (as `L` limbs) and the word
/// operations it executed. Building the modulus is not counted.
///
/// `n`, `a` and `b` are little-endian limbs of equal length, `a` and `b` below `n`.
///
/// # Errors
/// Those of [`Modulus::with_kernel`] ([`Error::UnknownAlgorithm`] for a kernel that
/// is not portable), and [`Error::WrongLength`] when `a` or `b` is longer than the
/// modulus' limbs.
pub fn count_product<L: Limb>(
    kernel: &str,
    reduction: Reduction,
    n: &[L],
    a: &[L],
    b: &[L],
) -> Result<(Vec<L>, Counts), Error>
where
    Counted<L>: Limb,
{
    let wrap = |x: &[L]| x.iter().map(|&v| Counted::new(v)).collect::<Vec<_>>();
    let k = crate::kernel::by_name::<Counted<L>>(kernel)?;
    let m = Modulus::with_kernel(&wrap(n), k, reduction)?;
    let s = m.limbs();
    let (mut a, mut b) = (wrap(a), wrap(b));
    if let Some(got) = [a.len(), b.len()].into_iter().find(|&l| l > s) {
        return Err(Error::WrongLength { expected: s, got });
    }
    a.resize(s, Counted::new(L::ZERO));
    b.resize(s, Counted::new(L::ZERO));
    let mut out = vec![Counted::new(L::ZERO); s];
    let ((), counts) = count(|| m.mont_mul(&a, &b, &mut out));
    Ok((out.into_iter().map(Counted::value).collect(), counts))
}
