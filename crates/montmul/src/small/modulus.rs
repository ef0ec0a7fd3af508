//! [`FieldModulus<N>`]: a validated odd modulus of at most `N` limbs, its Montgomery
//! constants on the stack, and the kernel chosen for it once.

use core::fmt;

use crate::arch::{self, Adx};
use crate::fixed;
use crate::mpn::Portable;
use crate::{modulus, Error, Limb, Reduction};

/// The most limbs a [`FieldModulus`] may have: 9, i.e. 576 bits (P-521 takes 9).
pub const FIELD_MAX_LIMBS: usize = 9;

/// Which kernel runs the products of a [`FieldModulus`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKernel {
    /// `mulx-cios`: CIOS fully unrolled on BMI2 `mulx` and ADX `adcx`/`adox`, the
    /// accumulator in registers; 4 to 8 limbs, x86-64 CPUs with BMI2 and ADX.
    MulxCios,
    /// `cios-fixed`: CIOS in portable Rust on `u128` products, specialised for the
    /// limb count at compile time; every size, every CPU.
    CiosFixed,
}

impl FieldKernel {
    /// The kernel's name, as `montmul algos` lists it.
    pub fn name(self) -> &'static str {
        match self {
            FieldKernel::MulxCios => "mulx-cios",
            FieldKernel::CiosFixed => "cios-fixed",
        }
    }

    /// The kernel [`FieldModulus::new`] picks for `limbs` limbs on this CPU: `mulx-cios`
    /// for 4 to 8 limbs where the CPU has BMI2 and ADX, `cios-fixed` otherwise.
    pub fn auto(limbs: usize) -> FieldKernel {
        if arch::mulx_cios_limb_counts().contains(&limbs) && Adx::new().is_some() {
            FieldKernel::MulxCios
        } else {
            FieldKernel::CiosFixed
        }
    }
}

/// The kernel as the products call it: the `mulx-cios` variant carries the proof that
/// the CPU has BMI2 and ADX, so no product detects anything.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Engine {
    MulxCios(Adx),
    CiosFixed,
}

/// A validated odd modulus `n > 1` that fits in `N` limbs of 64 bits (1 <= `N` <=
/// [`FIELD_MAX_LIMBS`]), with its Montgomery constants for R = 2^(64 N) and the kernel that
/// multiplies modulo it. Everything lives in fixed-size arrays: `Copy`, no allocation.
///
/// The modulus may have fewer bits than `64 N` (its top limbs zero): the products reduce
/// fully, so no headroom is needed; it only costs limbs.
///
/// ```
/// use montmul::{FieldElement, FieldModulus};
///
/// // P-256's field.
/// let p = FieldModulus::<4>::from_hex(
///     "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
/// )?;
/// let minus_one = p.neg(&p.one());
/// let two = FieldElement::from_hex(&p, "2")?;
/// assert_eq!(
///     p.mul(&minus_one, &two).to_hex(&p),
///     "ffffffff00000001000000000000000000000000fffffffffffffffffffffffd",
/// );
/// # Ok::<(), montmul::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct FieldModulus<const N: usize> {
    n: [u64; N],
    /// n0' = -n^-1 mod 2^64.
    n0: u64,
    /// R mod n: the Montgomery form of 1.
    one: [u64; N],
    /// R^2 mod n: a product with it converts into Montgomery form.
    r2: [u64; N],
    bits: u32,
    engine: Engine,
}

impl<const N: usize> FieldModulus<N> {
    /// Fails to compile for a limb count outside 1..=[`FIELD_MAX_LIMBS`].
    const LIMBS_IN_RANGE: () = assert!(
        N >= 1 && N <= FIELD_MAX_LIMBS,
        "FieldModulus<N> needs 1 <= N <= 9"
    );

    /// Builds the modulus from little-endian limbs, with the kernel
    /// [`FieldKernel::auto`] picks for `N` limbs on this CPU.
    ///
    /// Fails with [`Error::ZeroModulus`], [`Error::ModulusIsOne`] or
    /// [`Error::EvenModulus`]. Not constant-time (for public moduli).
    pub fn new(n: &[u64; N]) -> Result<Self, Error> {
        Self::with_kernel(n, FieldKernel::auto(N))
    }

    /// Builds the modulus with the kernel `kernel`, e.g. [`FieldKernel::CiosFixed`] to
    /// run the portable code on a CPU that has BMI2 and ADX (tests and benchmarks
    /// compare the two that way).
    ///
    /// Besides the errors of [`Self::new`]: [`Error::UnsupportedSize`] when `mulx-cios`
    /// is asked for outside 4..=8 limbs, [`Error::Unavailable`] when this CPU lacks
    /// BMI2 or ADX. Not constant-time (for public moduli).
    pub fn with_kernel(n: &[u64; N], kernel: FieldKernel) -> Result<Self, Error> {
        let () = Self::LIMBS_IN_RANGE;
        let engine = match kernel {
            FieldKernel::CiosFixed => Engine::CiosFixed,
            FieldKernel::MulxCios if !arch::mulx_cios_limb_counts().contains(&N) => {
                return Err(Error::UnsupportedSize {
                    algo: kernel.name(),
                    limbs: N,
                })
            }
            FieldKernel::MulxCios => match Adx::new() {
                Some(token) => Engine::MulxCios(token),
                None => {
                    return Err(Error::Unavailable {
                        algo: kernel.name(),
                    })
                }
            },
        };
        let bits = crate::encoding::bit_length_vartime(n);
        match bits {
            0 => return Err(Error::ZeroModulus),
            1 => return Err(Error::ModulusIsOne),
            _ if n[0] & 1 == 0 => return Err(Error::EvenModulus),
            _ => {}
        }
        let n0 = u64::inv_mod_word(n[0]).wrapping_neg();
        // R mod n by 64 N - bits + 1 modular doublings (at most 65 when n fills its top
        // limb), then R^2 mod n by about log2(64 N) squares and doublings through this
        // modulus' own kernel, as for a `Modulus`.
        let mut m = FieldModulus {
            n: *n,
            n0,
            one: *fixed::words(&modulus::r_mod_n(n, bits)),
            r2: [0; N],
            bits,
            engine,
        };
        let r2 = modulus::r_squared_by(n, &m.one, |x, out| {
            out.copy_from_slice(&m.mont_sqr(fixed::words(x)));
        });
        m.r2 = *fixed::words(&r2);
        Ok(m)
    }

    /// Builds the modulus from big-endian bytes (leading zero bytes allowed), with the
    /// kernel [`FieldKernel::auto`] picks.
    ///
    /// Fails as [`Self::new`] does, with [`Error::EmptyModulus`] for no bytes and
    /// [`Error::ModulusTooLarge`] when the value needs more than `N` limbs. Not
    /// constant-time (for public moduli).
    pub fn from_be_bytes(bytes: &[u8]) -> Result<Self, Error> {
        if bytes.is_empty() {
            return Err(Error::EmptyModulus);
        }
        let (limbs, overflow) = super::words::be_bytes_to_words::<N>(bytes);
        if overflow != 0 {
            let limbs = crate::encoding::be_bytes_to_limbs::<u64>(bytes);
            return Err(Error::ModulusTooLarge {
                bits: crate::encoding::bit_length_vartime(&limbs),
                max: 64 * N as u32,
            });
        }
        Self::new(&limbs)
    }

    /// Builds the modulus from big-endian hexadecimal text, `0x` optional, as
    /// [`Self::from_be_bytes`]. Not constant-time (for public moduli).
    pub fn from_hex(text: &str) -> Result<Self, Error> {
        Self::from_be_bytes(&crate::encoding::hex_to_be_bytes(text)?)
    }

    /// The modulus, `N` little-endian limbs.
    pub fn n(&self) -> &[u64; N] {
        &self.n
    }

    /// n0' = -n^-1 mod 2^64.
    pub fn n0(&self) -> u64 {
        self.n0
    }

    /// Bit length of the modulus.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Length in bytes of the modulus, and of every element's big-endian output.
    pub fn byte_len(&self) -> usize {
        self.bits.div_ceil(8) as usize
    }

    /// The kernel that runs the products.
    pub fn kernel(&self) -> FieldKernel {
        match self.engine {
            Engine::MulxCios(_) => FieldKernel::MulxCios,
            Engine::CiosFixed => FieldKernel::CiosFixed,
        }
    }

    /// R mod n, the Montgomery form of 1.
    pub(super) fn r1(&self) -> &[u64; N] {
        &self.one
    }

    /// R^2 mod n.
    pub(super) fn r2(&self) -> &[u64; N] {
        &self.r2
    }

    /// `a b R^-1 mod n` for `a, b < n`, below n, by the chosen kernel: a direct call
    /// (both kernels are instantiated for `N` and inlined), after one branch on the
    /// kernel choice. Constant-time.
    #[inline(always)]
    pub(super) fn mont_mul(&self, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        if let Engine::MulxCios(cpu) = self.engine {
            if let Some(t) = arch::mulx_cios_mul(cpu, a, b, &self.n, self.n0) {
                return t;
            }
        }
        fixed::mul(a, b, &self.n, self.n0, Reduction::Full)
    }

    /// `a^2 R^-1 mod n` for `a < n`, below n, by the chosen kernel's squaring.
    /// Constant-time.
    #[inline(always)]
    pub(super) fn mont_sqr(&self, a: &[u64; N]) -> [u64; N] {
        if let Engine::MulxCios(cpu) = self.engine {
            if let Some(t) = arch::mulx_cios_sqr(cpu, a, &self.n, self.n0) {
                return t;
            }
        }
        fixed::sqr::<Portable, N>(Portable, a, &self.n, self.n0, Reduction::Full)
    }
}

impl<const N: usize> fmt::Debug for FieldModulus<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FieldModulus")
            .field("bits", &self.bits)
            .field("limbs", &N)
            .field("kernel", &self.kernel().name())
            .finish()
    }
}

impl<const N: usize> PartialEq for FieldModulus<N> {
    /// The same modulus with the same kernel (not constant-time: moduli are public).
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n && self.engine == other.engine
    }
}

impl<const N: usize> Eq for FieldModulus<N> {}
