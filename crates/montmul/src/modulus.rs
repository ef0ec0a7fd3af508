//! [`Modulus`]: a validated odd modulus with its Montgomery constants.
//!
//! As in OpenSSL's `BN_MONT_CTX` and crypto-bigint's `MontyParams`, the context is
//! n, n0' = -n^-1 mod 2^w, R mod n and R^2 mod n, where R = 2^(w*s) and s is the number
//! of limbs the kernels work on. The modulus also carries the [`Kernel`] that was chosen
//! for it, once, so every [`crate::Residue`] operation goes straight to that kernel.
//!
//! A [`Modulus`] is a handle: the constants and the kernel live in one inner struct
//! behind an [`Arc`], so cloning it costs one reference count, and every
//! [`crate::Residue`] holds its own clone (no lifetime ties a residue to a borrowed
//! modulus: a key type can hold a modulus and its residues together). The inner struct
//! wipes its limbs when the last handle goes (a modulus can be a secret: RSA's p and q).

use core::fmt;
use std::sync::Arc;

use zeroize::{Zeroize, Zeroizing};

use crate::encoding::{be_bytes_to_limbs, bit_length_vartime, hex_to_be_bytes};
use crate::kernel::{self, Kernel};
use crate::{ct, Error, Limb};

/// The largest modulus montmul accepts, in bits.
pub const MAX_BITS: u32 = 16384;

/// How far a Montgomery product is reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// Results in `[0, n)`: the final conditional subtraction is done, in constant time
    /// with masks. R = 2^(w*s) with s = ceil(bits / w).
    Full,
    /// Subtraction-less (seed 000 sec. 3, after Walter 1999): R > 4n, inputs and outputs
    /// in `[0, 2n)`, no final subtraction. s = ceil((bits + 2) / w).
    Lazy,
}

impl Reduction {
    /// Both policies.
    pub const ALL: [Reduction; 2] = [Reduction::Full, Reduction::Lazy];

    /// The policy's name as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Reduction::Full => "full",
            Reduction::Lazy => "lazy",
        }
    }
}

impl fmt::Display for Reduction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A validated odd modulus `n > 1` of at most [`MAX_BITS`] bits, with its Montgomery
/// constants for `L`-bit limbs and the kernel that multiplies modulo it.
///
/// All limb vectors are little-endian and exactly [`Modulus::limbs`] long. Cloning is
/// O(1) (a reference count); the clones share one set of constants, which is wiped
/// (`zeroize`) when the last clone is dropped. `Debug` shows the size, the policy and
/// the kernel, never the value.
#[derive(Clone)]
pub struct Modulus<L: Limb> {
    inner: Arc<Inner<L>>,
}

/// What every clone of a [`Modulus`] shares.
#[derive(Clone)]
struct Inner<L: Limb> {
    n: Vec<L>,
    bits: u32,
    n0: L,
    r1: Vec<L>,
    r2: Vec<L>,
    /// n for `Full`, 2n for `Lazy`: residues are kept below this bound.
    bound: Vec<L>,
    reduction: Reduction,
    kernel: &'static dyn Kernel<L>,
    /// What `kernel` resolved to for this limb count ([`Kernel::resolve`]).
    engine: &'static dyn Kernel<L>,
}

impl<L: Limb> Drop for Inner<L> {
    fn drop(&mut self) {
        self.n.zeroize();
        self.n0.zeroize();
        self.r1.zeroize();
        self.r2.zeroize();
        self.bound.zeroize();
    }
}

impl<L: Limb> Modulus<L> {
    /// Builds a modulus from little-endian limbs, with the default kernel
    /// ([`kernel::default`]) and its preferred reduction policy.
    pub fn new(limbs: &[L]) -> Result<Self, Error> {
        let kernel = kernel::default::<L>();
        Self::with_kernel(limbs, kernel, kernel.info().reductions[0])
    }

    /// Builds a modulus from big-endian bytes (default kernel and policy).
    pub fn from_be_bytes(bytes: &[u8]) -> Result<Self, Error> {
        if bytes.is_empty() {
            return Err(Error::EmptyModulus);
        }
        Self::new(&be_bytes_to_limbs(bytes))
    }

    /// Builds a modulus from big-endian hexadecimal text, `0x` optional.
    pub fn from_hex(text: &str) -> Result<Self, Error> {
        Self::from_be_bytes(&hex_to_be_bytes(text)?)
    }

    /// Builds a modulus that multiplies with `kernel` under `reduction`.
    ///
    /// Fails with a typed error when the modulus is empty, zero, one, even or longer
    /// than [`MAX_BITS`], or when the kernel lacks this word size, this policy, a CPU
    /// feature it needs, or code for this limb count ([`Kernel::limb_counts`]).
    pub fn with_kernel(
        limbs: &[L],
        kernel: &'static dyn Kernel<L>,
        reduction: Reduction,
    ) -> Result<Self, Error> {
        let info = kernel.info();
        if !info.words.contains(&L::BITS) {
            return Err(Error::UnsupportedWord {
                algo: info.name,
                word: L::BITS,
            });
        }
        if !info.reductions.contains(&reduction) {
            return Err(Error::UnsupportedReduction {
                algo: info.name,
                reduction,
            });
        }
        if !(info.available)() {
            return Err(Error::Unavailable { algo: info.name });
        }
        if limbs.is_empty() {
            return Err(Error::EmptyModulus);
        }
        // The bit length is public by design (it sizes everything); the value is not.
        let bits = bit_length_vartime(limbs);
        match bits {
            0 => return Err(Error::ZeroModulus),
            1 => return Err(Error::ModulusIsOne),
            b if b > MAX_BITS => {
                return Err(Error::ModulusTooLarge {
                    bits: b,
                    max: MAX_BITS,
                })
            }
            _ => {}
        }
        if limbs[0].and(L::ONE) == L::ZERO {
            return Err(Error::EvenModulus);
        }
        let headroom = match reduction {
            Reduction::Full => 0,
            Reduction::Lazy => 2,
        };
        let s = (bits + headroom).div_ceil(L::BITS) as usize;
        if kernel
            .limb_counts()
            .is_some_and(|counts| !counts.contains(&s))
        {
            return Err(Error::UnsupportedSize {
                algo: info.name,
                limbs: s,
            });
        }
        let mut n = limbs[..limbs.len().min(s)].to_vec();
        n.resize(s, L::ZERO);

        let n0 = L::inv_mod_word(n[0]).wrapping_neg();
        let r1 = r_mod_n(&n, bits);
        let bound = match reduction {
            Reduction::Full => n.clone(),
            Reduction::Lazy => {
                let mut two_n = vec![L::ZERO; s];
                // 2n < R because R > 4n.
                ct::add(&mut two_n, &n, &n);
                two_n
            }
        };
        let engine = kernel.resolve(s, reduction).unwrap_or(kernel);
        let mut m = Modulus {
            inner: Arc::new(Inner {
                n,
                bits,
                n0,
                r1,
                // Filled in below, by this modulus' own squarings.
                r2: vec![L::ZERO; s],
                bound,
                reduction,
                kernel,
                engine,
            }),
        };
        let r2 = m.r_squared();
        // Not shared yet, so this writes in place (it would copy a shared one).
        Arc::make_mut(&mut m.inner).r2 = r2;
        Ok(m)
    }

    /// R^2 mod n, the Montgomery form of R, from R mod n (the form of 1) by the binary
    /// method on the exponent w s of 2^(w s): a Montgomery square takes the form of 2^t
    /// to that of 2^(2t), a modular doubling to that of 2^(t+1). About log2(w s)
    /// squares through this modulus' kernel and as many doublings, where doubling 1 up
    /// to R^2 takes 2 w s doublings, each a pass over the limbs (`docs/PERFORMANCE.md`,
    /// "Building a `Modulus`").
    ///
    /// Constant-time: the steps depend on w s only (public: it sizes everything), and
    /// every value is kept below n with masks (a `Lazy` square, below 2n, is reduced
    /// once), so a secret modulus (RSA's p and q) is safe.
    fn r_squared(&self) -> Vec<L> {
        r_squared_by(self.n(), self.r1(), |x, out| self.mont_sqr(x, out))
    }

    /// The modulus as exactly [`Self::limbs`] little-endian limbs.
    pub fn n(&self) -> &[L] {
        &self.inner.n
    }
    /// Number of limbs s; R = 2^(w*s).
    pub fn limbs(&self) -> usize {
        self.inner.n.len()
    }
    /// Bit length of the modulus.
    pub fn bits(&self) -> u32 {
        self.inner.bits
    }
    /// Length of the modulus in bytes, `ceil(bits / 8)`: the length of
    /// [`crate::Residue::to_be_bytes`].
    pub fn byte_len(&self) -> usize {
        self.inner.bits.div_ceil(8) as usize
    }
    /// n0' = -n^-1 mod 2^w.
    pub fn n0(&self) -> L {
        self.inner.n0
    }
    /// R mod n: the Montgomery form of 1.
    pub fn r1(&self) -> &[L] {
        &self.inner.r1
    }
    /// R^2 mod n: multiplying by it converts into Montgomery form.
    pub fn r2(&self) -> &[L] {
        &self.inner.r2
    }
    /// Residues are kept below this: n for [`Reduction::Full`], 2n for [`Reduction::Lazy`].
    pub fn bound(&self) -> &[L] {
        &self.inner.bound
    }
    /// The reduction policy.
    pub fn reduction(&self) -> Reduction {
        self.inner.reduction
    }
    /// The kernel chosen for this modulus.
    pub fn kernel(&self) -> &'static dyn Kernel<L> {
        self.inner.kernel
    }

    /// The kernel that runs the products: the chosen kernel, or what it resolved to for
    /// this limb count (`auto` picks one here, once).
    pub fn engine(&self) -> &'static dyn Kernel<L> {
        self.inner.engine
    }

    /// Whether `self` and `other` are clones of one modulus (the same shared constants):
    /// the O(1) test that [`PartialEq`] tries first.
    pub fn same_handle(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Montgomery product `a * b * R^-1 mod n` of two limb vectors through this
    /// modulus' kernel (inputs and output below [`Self::bound`]). Constant-time when
    /// the kernel is ([`crate::KernelInfo::constant_time`]).
    ///
    /// # Panics
    /// When `a`, `b` or `out` is not exactly [`Self::limbs`] limbs long: a kernel never
    /// computes on a short slice.
    #[inline]
    pub fn mont_mul(&self, a: &[L], b: &[L], out: &mut [L]) {
        // `Kernel::mul` checks the lengths, once.
        self.inner.engine.mul(self, a, b, out);
    }

    /// Montgomery square `a * a * R^-1 mod n` through this modulus' kernel.
    /// Constant-time when the kernel is.
    ///
    /// # Panics
    /// When `a` or `out` is not exactly [`Self::limbs`] limbs long.
    #[inline]
    pub fn mont_sqr(&self, a: &[L], out: &mut [L]) {
        // `Kernel::sqr` checks the lengths, once.
        self.inner.engine.sqr(self, a, out);
    }
}

impl<L: Limb> fmt::Debug for Modulus<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Modulus")
            .field("bits", &self.bits())
            .field("word", &L::BITS)
            .field("limbs", &self.limbs())
            .field("reduction", &self.reduction())
            .field("kernel", &self.kernel().info().name)
            .finish()
    }
}

/// Two moduli are equal when they are clones of one another, or when they have the same
/// n, reduction policy and kernel (then their constants and residues are
/// interchangeable). The comparison of n is constant-time for equal limb counts: a
/// modulus may be secret.
impl<L: Limb> PartialEq for Modulus<L> {
    fn eq(&self, other: &Self) -> bool {
        self.same_handle(other)
            || (self.limbs() == other.limbs()
                && self.reduction() == other.reduction()
                && core::ptr::eq(self.kernel().info(), other.kernel().info())
                && ct::eq(self.n(), other.n()) == L::ONE)
    }
}

impl<L: Limb> Eq for Modulus<L> {}

/// R^2 mod n from R mod n (`r1`, below n), for the limbs of an odd n > 1, with `sqr`
/// the Montgomery square modulo n (below 2n): the binary method on the exponent w s
/// of 2^(w s), as [`Modulus`]' constructor describes ([`FieldModulus`]'s too).
///
/// Constant-time: the steps depend on w s only, and every value is kept below n with
/// masks (a square below 2n is reduced once).
///
/// [`FieldModulus`]: crate::FieldModulus
pub(crate) fn r_squared_by<L: Limb>(
    n: &[L],
    r1: &[L],
    mut sqr: impl FnMut(&[L], &mut [L]),
) -> Vec<L> {
    let ws = L::BITS as usize * n.len();
    // The form of 2^1, from the form of 2^0 (R mod n, below n).
    let mut x = Zeroizing::new(r1.to_vec());
    mod_double(&mut x, n);
    let mut sq = Zeroizing::new(vec![L::ZERO; n.len()]);
    for bit in (0..usize::BITS - 1 - ws.leading_zeros()).rev() {
        sqr(&x, &mut sq);
        x.copy_from_slice(&sq);
        ct::reduce_once(&mut x, L::ZERO, n);
        if (ws >> bit) & 1 == 1 {
            mod_double(&mut x, n);
        }
    }
    x.to_vec()
}

/// R mod n = 2^(w s) mod n for the `s` limbs of an odd n > 1 of `bits` bits, from
/// 2^(bits - 1), which is below n, by w s - bits + 1 modular doublings (at most w + 2,
/// `bits` being public). Constant-time in the value of n.
pub(crate) fn r_mod_n<L: Limb>(n: &[L], bits: u32) -> Vec<L> {
    let mut x = vec![L::ZERO; n.len()];
    let top = (bits - 1) as usize;
    x[top / L::BITS as usize] = L::ONE.shl(top as u32 % L::BITS);
    for _ in 0..L::BITS as usize * n.len() - top {
        mod_double(&mut x, n);
    }
    x
}

/// `x = 2x mod n` for `x < n`, branch-free.
fn mod_double<L: Limb>(x: &mut [L], n: &[L]) {
    let mut carry = L::ZERO;
    for limb in x.iter_mut() {
        let next = limb.shr(L::BITS - 1);
        *limb = limb.shl(1).or(carry);
        carry = next;
    }
    // 2x < 2n, so one conditional subtraction lands in [0, n).
    ct::reduce_once(x, carry, n);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_moduli() {
        assert_eq!(Modulus::<u64>::new(&[]).unwrap_err(), Error::EmptyModulus);
        assert_eq!(
            Modulus::<u64>::new(&[0, 0]).unwrap_err(),
            Error::ZeroModulus
        );
        assert_eq!(Modulus::<u64>::new(&[1]).unwrap_err(), Error::ModulusIsOne);
        assert_eq!(Modulus::<u8>::new(&[4, 1]).unwrap_err(), Error::EvenModulus);
        let mut big = vec![u64::MAX; 256];
        big.push(1);
        assert!(matches!(
            Modulus::<u64>::new(&big),
            Err(Error::ModulusTooLarge { .. })
        ));
        assert!(Modulus::<u64>::new(&[u64::MAX; 256]).is_ok());
        assert_eq!(
            Modulus::<u8>::from_be_bytes(&[]).unwrap_err(),
            Error::EmptyModulus
        );
        assert!(matches!(
            Modulus::<u8>::from_hex("xyz"),
            Err(Error::InvalidHex { .. })
        ));
    }

    #[test]
    fn constants_for_a_small_modulus() {
        // n = 0x0b = 11, w = 8: R = 256; R mod 11 = 3; R^2 mod 11 = 9; n0' = -11^-1 mod 256.
        let m = Modulus::<u8>::new(&[11]).unwrap();
        assert_eq!(m.r1(), &[3]);
        assert_eq!(m.r2(), &[9]);
        assert_eq!(m.n0().wrapping_mul(11), 255);
        // Leading zero limbs are dropped.
        let m = Modulus::<u16>::new(&[11, 0, 0]).unwrap();
        assert_eq!(m.limbs(), 1);
    }
}
