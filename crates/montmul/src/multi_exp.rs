//! `a^e1 b^e2` with one chain of squarings, for public exponents: the verification of
//! a DSA signature (`g^u1 y^u2 mod p`) and any product of two powers.
//!
//! # Algorithm
//!
//! Simultaneous multiple exponentiation (HAC 14.88, Straus' method), with each exponent
//! cut into sliding windows of its own (HAC 14.85) instead of joint windows: the
//! interleaving of Möller, "Algorithms for multi-exponentiation" (SAC 2001), sec. 3.2.
//! Each base gets a table of its odd powers `x, x^3, .., x^(2^w - 1)`, w chosen for its
//! exponent's length as for one exponentiation ([`vartime_window`]); then one pass from
//! the top bit down squares the accumulator once per bit and multiplies in a table
//! entry where a window of either exponent ends. For two t-bit exponents that is t
//! squarings and about 2t / (w + 1) products; two exponentiations one after the other
//! take 2t squarings and the same products.
//!
//! It runs where [`crate::exp::pow_vartime`] runs: in the modulus' kernel's own domain
//! when it has one ([`crate::kernel::Kernel::pow_domain`]), each base entered once and
//! the result left once, otherwise on the limbs through the kernel.
//!
//! Variable-time: the steps and the entries read depend on the exponents' bits (and
//! their significant lengths). For public exponents only.

use crate::exp::{
    digit, significant_bits, vartime_window, window_at, DomainLadder, Ladder, LimbLadder,
};
use crate::{Limb, Modulus};

/// The sliding windows of a big-endian exponent of width at most `w`, from the top:
/// for each, the bit where it ends at the bottom and its value (odd).
fn windows(e: &[u8], w: usize) -> Vec<(usize, usize)> {
    let bit = |i: usize| digit(e, i, 1);
    let mut out = Vec::new();
    let mut i = 8 * e.len();
    while i > 0 {
        i -= 1;
        if bit(i) == 0 {
            continue;
        }
        let (lo, value) = window_at(e, i, w);
        out.push((lo, value));
        i = lo;
    }
    out
}

/// One base's part of the pass: its table of odd powers and its windows, the next one
/// first in line.
struct Part<W> {
    table: Vec<Vec<W>>,
    windows: Vec<(usize, usize)>,
    next: usize,
}

/// `out = bases[0]^exps[0] bases[1]^exps[1]` in the ladder's domain ([`pow2_vartime`]).
fn interleaved<A: Ladder>(
    ladder: &A,
    bases: [&[A::Word]; 2],
    exps: [&[u8]; 2],
    out: &mut [A::Word],
) {
    let words = out.len();
    let zero = || vec![A::Word::ZERO; words];
    let mut parts = Vec::new();
    let mut top = 0;
    for (base, e) in bases.into_iter().zip(exps) {
        let bits = significant_bits(e);
        if bits == 0 {
            continue;
        }
        top = top.max(bits);
        let w = vartime_window(bits) as usize;
        // table[i] = base^(2i + 1).
        let mut table = vec![base.to_vec()];
        if w > 1 {
            let mut square = zero();
            ladder.sqr(base, &mut square);
            for i in 1..1 << (w - 1) {
                let mut next = zero();
                ladder.mul(&table[i - 1], &square, &mut next);
                table.push(next);
            }
        }
        parts.push(Part {
            table,
            windows: windows(e, w),
            next: 0,
        });
    }
    let (mut acc, mut tmp) = (zero(), zero());
    let mut started = false;
    for pos in (0..top).rev() {
        if started {
            ladder.sqr(&acc, &mut tmp);
            core::mem::swap(&mut acc, &mut tmp);
        }
        for part in &mut parts {
            let Some(&(lo, value)) = part.windows.get(part.next) else {
                continue;
            };
            if lo != pos {
                continue;
            }
            part.next += 1;
            let entry = &part.table[value >> 1];
            if started {
                ladder.mul(&acc, entry, &mut tmp);
                core::mem::swap(&mut acc, &mut tmp);
            } else {
                acc.copy_from_slice(entry);
                started = true;
            }
        }
    }
    if started {
        out.copy_from_slice(&acc);
    } else {
        ladder.one(out);
    }
}

/// `a^e1 b^e2` in Montgomery form (`a` and `b` below `m.bound()`, big-endian
/// exponents of any lengths), by interleaved sliding windows with one chain of
/// squarings (module doc). `x^0 = 1`, `0^0` included. Variable-time in the exponents'
/// bits: for public exponents only.
///
/// # Panics
/// When `a` or `b` is not `m.limbs()` limbs long.
pub fn pow2_vartime<L: Limb>(m: &Modulus<L>, a: &[L], e1: &[u8], b: &[L], e2: &[u8]) -> Vec<L> {
    assert!(a.len() == m.limbs() && b.len() == m.limbs());
    let mut out = vec![L::ZERO; m.limbs()];
    match m.engine().pow_domain(m) {
        Some(domain) => {
            let words = domain.words();
            let mut scratch = vec![0u64; domain.scratch_words()];
            let (mut da, mut db, mut r) = (vec![0; words], vec![0; words], vec![0; words]);
            domain.enter(a, &mut da, &mut scratch);
            domain.enter(b, &mut db, &mut scratch);
            interleaved(&DomainLadder(&*domain), [&da, &db], [e1, e2], &mut r);
            domain.leave(&r, &mut out, &mut scratch);
        }
        None => interleaved(&LimbLadder(m), [a, b], [e1, e2], &mut out),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The windows put back together give the exponent, each window odd and at most w
    /// bits wide.
    #[test]
    fn windows_rebuild_the_exponent() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..12 {
            for w in 1..=6 {
                let e: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as u8
                    })
                    .collect();
                let mut value = 0u128;
                for &(lo, v) in &windows(&e, w) {
                    assert!(v % 2 == 1 && v < 1 << w, "{e:02x?} w {w}: {v}");
                    value += (v as u128) << lo;
                }
                let want = e.iter().fold(0u128, |acc, &b| acc << 8 | b as u128);
                assert_eq!(value, want, "{e:02x?} w {w}");
                let bits = 128 - want.leading_zeros() as usize;
                assert_eq!(significant_bits(&e), bits, "{e:02x?}");
            }
        }
    }
}
