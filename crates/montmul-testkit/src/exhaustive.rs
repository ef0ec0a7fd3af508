//! The exhaustive small-word sweep (issue 19, item 3): every kernel that exists for 8-
//! or 16-bit words, run on every odd modulus of one word against an oracle of plain
//! integer arithmetic.
//!
//! - 8-bit words: every odd modulus 3..=255 and every pair of operands, a, b < n under
//!   [`Reduction::Full`] and a, b < 2n under [`Reduction::Lazy`] (127 x 256 x 256
//!   products per kernel and policy at most): every carry path of a one- and two-limb
//!   product is reached, which random 64-bit inputs almost never do.
//! - 16-bit words: every odd modulus 3..=65535 with a dense sample of operands
//!   ([`operands_16`]): the edges 0, 1, 2, n-1, n-2, (n-1)/2, the all-ones limb, every
//!   power of two and its predecessor below the bound, the bound's own edges under
//!   `Lazy`, and random values.
//!
//! The oracle is `a * b * 2^(-w s) mod n` in `u64` (n < 2^16, a, b < 2^17): num-bigint
//! would be a hundred times slower here. Outputs are compared modulo n and checked below
//! the policy's bound (n, or 2n). Every product also goes through
//! [`Modulus::mont_sqr`] on the diagonal (a = b).
//!
//! `crates/montmul/tests/exhaustive.rs` runs the 8-bit sweep whole and a slice of the
//! 16-bit one; `montmul selftest --exhaustive` runs both whole.

use montmul::lab::Kernel;
use montmul::{Limb, Modulus, Reduction};
use rand_core::RngCore;

use crate::TestRng;

/// A product that disagreed with the oracle, with everything needed to reproduce it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The kernel's name.
    pub kernel: &'static str,
    /// The word size in bits.
    pub word: u32,
    /// The reduction policy.
    pub reduction: Reduction,
    /// The modulus.
    pub n: u64,
    /// The operands (equal for a square).
    pub a: u64,
    /// The second operand.
    pub b: u64,
    /// `"mont_mul"` or `"mont_sqr"`, or `"modulus"` when the modulus was refused.
    pub op: &'static str,
    /// What the kernel returned (the value of its limbs).
    pub got: u64,
    /// The oracle's `a b R^-1 mod n`.
    pub want: u64,
}

impl core::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} kernel={} word={} policy={} n=0x{:x} a=0x{:x} b=0x{:x}: got 0x{:x}, want 0x{:x} (mod n, below the bound)",
            self.op,
            self.kernel,
            self.word,
            self.reduction,
            self.n,
            self.a,
            self.b,
            self.got,
            self.want
        )
    }
}

/// Every odd modulus of one `L` word: 3, 5, ..., 2^w - 1.
pub fn odd_moduli<L: Limb>() -> impl Iterator<Item = u64> + Clone {
    (3..=L::MAX.to_u64()).step_by(2)
}

/// The bound operands stay below: n under `Full`, 2n under `Lazy`.
pub fn bound(n: u64, r: Reduction) -> u64 {
    match r {
        Reduction::Full => n,
        Reduction::Lazy => 2 * n,
    }
}

/// Every operand below the bound: the 8-bit sweep's operands.
pub fn operands_all(n: u64, r: Reduction) -> Vec<u64> {
    (0..bound(n, r)).collect()
}

/// The dense sample of the 16-bit sweep for modulus `n`: the edges 0, 1, 2, n-1, n-2,
/// (n-1)/2, n+1 and 2n-1 (the last two under `Lazy` only), the all-ones limb 0xffff, every
/// power of two and every power of two less one, each kept when below the bound, and
/// `random` values drawn from [`TestRng`] seeded by `n`. Sorted, without repeats.
pub fn operands_16(n: u64, r: Reduction, random: usize) -> Vec<u64> {
    let b = bound(n, r);
    let mut out = vec![0, 1, 2, n - 1, n - 2, (n - 1) / 2, n + 1, b - 1, 0xffff];
    for k in 0..18 {
        out.push(1 << k);
        out.push((1 << k) - 1);
    }
    let mut rng = TestRng::new(n);
    out.extend((0..random).map(|_| rng.next_u64() % b));
    out.retain(|&x| x < b);
    out.sort_unstable();
    out.dedup();
    out
}

/// `2^(-w s) mod n` for odd `n < 2^32`: `r_bits` halvings of 1 modulo n.
pub fn r_inverse_u64(n: u64, r_bits: u32) -> u64 {
    let half = n.div_ceil(2); // 2^-1 mod n = (n + 1) / 2 for odd n.
    (0..r_bits).fold(1u64, |x, _| x * half % n)
}

/// Runs `k` under `r` with `L` words on modulus `n` (below 2^16) and every pair of
/// `operands` (each below [`bound`]): [`Modulus::mont_mul`] on every pair and
/// [`Modulus::mont_sqr`] on every operand, against the `u64` oracle. Returns the number
/// of products checked, or the first mismatch.
pub fn sweep_modulus<L: Limb>(
    k: &'static dyn Kernel<L>,
    r: Reduction,
    n: u64,
    operands: &[u64],
) -> Result<u64, Box<Mismatch>> {
    let fail = |op, a, b, got, want| {
        Box::new(Mismatch {
            kernel: k.info().name,
            word: L::BITS,
            reduction: r,
            n,
            a,
            b,
            op,
            got,
            want,
        })
    };
    let limbs = crate::to_limbs::<L>(
        &n.into(),
        (64 - n.leading_zeros()).div_ceil(L::BITS) as usize,
    );
    let m = Modulus::with_kernel(&limbs, k, r).map_err(|_| fail("modulus", 0, 0, 0, 0))?;
    let s = m.limbs();
    let r_inv = r_inverse_u64(n, L::BITS * s as u32);
    let top = bound(n, r);
    // Every operand as s limbs, once.
    let flat: Vec<L> = operands
        .iter()
        .flat_map(|&x| {
            (0..s).map(move |i| L::from_u64(x.checked_shr(i as u32 * L::BITS).unwrap_or(0)))
        })
        .collect();
    let value = |v: &[L]| {
        v.iter()
            .rev()
            .fold(0u64, |acc, l| (acc << L::BITS) | l.to_u64())
    };
    let mut out = vec![L::ZERO; s];
    let mut products = 0u64;
    for (i, (&a, al)) in operands.iter().zip(flat.chunks_exact(s)).enumerate() {
        // a, b < 2^17, so a * b < 2^34 and (a b mod n) * r_inv < 2^32: no overflow.
        let a_mod = a % n;
        m.mont_sqr(al, &mut out);
        let (got, want) = (value(&out), a_mod * a_mod % n * r_inv % n);
        if got >= top || got % n != want {
            return Err(fail("mont_sqr", a, a, got, want));
        }
        for (&b, bl) in operands[i..].iter().zip(flat[i * s..].chunks_exact(s)) {
            let want = a_mod * (b % n) % n * r_inv % n;
            // The product is symmetric: both orders, so that every ordered pair is run.
            m.mont_mul(al, bl, &mut out);
            let got = value(&out);
            if got >= top || got % n != want {
                return Err(fail("mont_mul", a, b, got, want));
            }
            m.mont_mul(bl, al, &mut out);
            let got = value(&out);
            if got >= top || got % n != want {
                return Err(fail("mont_mul", b, a, got, want));
            }
        }
        products += 1 + 2 * (operands.len() - i) as u64;
    }
    Ok(products)
}

/// Every (kernel, policy) pair for `L` that the sweep runs: the kernels whose
/// [`montmul::KernelInfo::words`] hold `L`'s size and that this CPU runs, under every
/// policy each offers.
pub fn variants<L: Limb>() -> Vec<(&'static dyn Kernel<L>, Reduction)> {
    let mut out = Vec::new();
    for &k in montmul::lab::all::<L>() {
        let info = k.info();
        if info.words.contains(&L::BITS) && (info.available)() {
            out.extend(info.reductions.iter().map(|&r| (k, r)));
        }
    }
    out
}
