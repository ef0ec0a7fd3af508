//! Constant-time exponentiation of eight lanes at once on `amm52x8-ifma` ([`super::mb8`]):
//! eight bases, eight exponents, eight moduli of one limb count, in lockstep.
//!
//! As crypto_mb's `mbx_exp_mb8`: one fixed-window ladder whose value is the eight
//! lanes' digit vectors ([`Mb8Ladder`]), run by the crate's own
//! [`crate::exp::fixed_window`], so the steps are exactly those of
//! [`crate::exp::pow`] for the longest exponent. The exponents are padded with leading
//! zero bytes to the longest (their lengths are public); a window's table index packs
//! every lane's w-bit digit, [`MAX_WINDOW`] bits each ([`Ladder::window`]), and the
//! table read splits it again and keeps each lane's part of each entry with its own
//! lane mask: every entry read in full, a `vpcmpeqq` mask per entry and a masked move
//! (`vmovdqa64` under a mask) per vector (256-bit ones for a batch of up to four, whose
//! products run on them too), so no branch and no address depends on a digit. The bases enter the digit domain and the results leave it as in
//! `amm52-ifma`'s exponentiation ([`super::exp`]): in, mont'(x, C_in); out,
//! mont'(y, R mod n) and the lane's policy, so each lane's result is the value
//! [`crate::Residue::pow`] gives.
//!
//! Constant-time: yes, in the bases and the exponents' values (each lane's exponent
//! length is public, and all lanes run the longest).

use core::arch::x86_64::*;

use zeroize::Zeroizing;

use super::mb8::{narrow, Lanes8, LANES};
use super::reg::Reg;
use crate::exp::{digit, fixed_window, Ladder, Step, Trace, Work, MAX_WINDOW};

/// The ladder on eight lanes' digit vectors: the domain and every lane's exponent,
/// all of one length (lanes past the domain's lanes in use: zeros).
pub struct Mb8Ladder<'a> {
    dom: &'a Lanes8,
    exps: [&'a [u8]; LANES],
}

impl Ladder for Mb8Ladder<'_> {
    type Word = u64;

    fn one(&self, out: &mut [u64]) {
        self.dom.one(out);
    }

    fn sqr(&self, a: &[u64], out: &mut [u64]) {
        self.dom.amm(a, a, out);
    }

    fn mul(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        self.dom.amm(a, b, out);
    }

    /// Every lane's digit at `lo`, lane l's at bits [`MAX_WINDOW`] l (8 x 6 = 48 bits);
    /// the exponent given (lane 0's) only sets the length.
    fn window(&self, _: &[u8], lo: usize, w: u32) -> usize {
        self.exps.iter().enumerate().fold(0, |acc, (l, e)| {
            acc | digit(e, lo, w) << (MAX_WINDOW as usize * l)
        })
    }

    fn read<T: Trace>(&self, table: &[u64], index: usize, out: &mut [u64], trace: &mut T) {
        let entries = table.len() / out.len();
        assert!(
            entries <= 1 << MAX_WINDOW
                && table.len() == entries * out.len()
                && out.len().is_multiple_of(8)
        );
        for j in 0..entries {
            trace.step(Step::Read(j));
        }
        let _ = self.dom.token();
        // SAFETY: the token (held by the domain) proves AVX-512F, `narrow` checks VL;
        // the lengths are checked above.
        unsafe {
            if narrow(self.dom.lanes()) {
                select_x4(table, index, out)
            } else {
                select_x8(table, index, out)
            }
        }
    }
}

/// [`select`] on 512-bit registers: eight lanes.
///
/// # Safety
/// The CPU has AVX-512F; the lengths as [`select`]'s.
#[target_feature(enable = "avx512f")]
unsafe fn select_x8(table: &[u64], index: usize, out: &mut [u64]) {
    // SAFETY: the feature is enabled here; the caller guarantees the lengths.
    unsafe { select::<__m512i>(table, index, out) }
}

/// [`select`] on 256-bit registers: lanes 0 to 3, the batches [`super::mb8::amm`]
/// runs on them (lanes 4 to 7 of `out` set to 0, as its products leave them).
///
/// # Safety
/// The CPU has AVX-512F and AVX-512VL; the lengths as [`select`]'s.
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn select_x4(table: &[u64], index: usize, out: &mut [u64]) {
    // SAFETY: the features are enabled here; the caller guarantees the lengths.
    unsafe { select::<__m256i>(table, index, out) }
}

/// `out` lane l = lane l of `table[(index >> 6 l) & 63]` for the `T::LANES` lanes of
/// a register: every entry read in full, in order; each lane's mask per entry from a
/// vector compare, hidden from the optimiser, and each register kept with a masked
/// move.
///
/// # Safety
/// The CPU has the features [`Reg`] needs for `T`; the table is at most 64 entries of
/// `out.len()` words, one after another, a multiple of 8.
#[inline(always)]
unsafe fn select<T: Reg>(table: &[u64], index: usize, out: &mut [u64]) {
    let parts: [u64; LANES] =
        core::array::from_fn(|l| ((index >> (MAX_WINDOW as usize * l)) & 63) as u64);
    let words = out.len();
    // SAFETY: the caller enables AVX-512F (which `T` needs); parts is 8 words; every
    // load and store is of the 8 words at 8 v < out.len() = entry.len().
    unsafe {
        let idx = _mm512_loadu_si512(parts.as_ptr().cast());
        let mut masks = [0 as __mmask8; 1 << MAX_WINDOW];
        for (j, m) in masks.iter_mut().enumerate().take(table.len() / words) {
            *m = _mm512_cmpeq_epi64_mask(idx, _mm512_set1_epi64(j as i64));
        }
        let masks = core::hint::black_box(&masks);
        for v in 0..words / 8 {
            let mut acc = T::zero();
            for (entry, &m) in table.chunks_exact(words).zip(masks) {
                acc = T::blend(acc, m, T::load_at(entry.as_ptr().add(8 * v)));
            }
            T::store8_at(acc, out.as_mut_ptr().add(8 * v));
        }
    }
}

/// `outs[l] = bases[l] ^ exps[l]` in lane l's Montgomery form, for the domain's lanes
/// in use (`bases` and `exps` as many, each base s words below the lane's bound,
/// big-endian exponents), by [`fixed_window`] on [`Mb8Ladder`] over exponents padded
/// to the longest; `trace` sees the ladder's steps. The domain is made by
/// [`Lanes8::for_pow`]. Constant-time in the bases and the
/// exponents' values.
///
/// # Panics
/// When `bases` or `exps` is not as long as the domain's lanes in use, or a base is
/// not s words.
pub fn pow<T: Trace>(
    dom: &Lanes8,
    bases: &[&[u64]],
    exps: &[&[u8]],
    trace: &mut T,
) -> Vec<Vec<u64>> {
    let lanes = dom.lanes();
    assert!(bases.len() == lanes && exps.len() == lanes);
    assert!(bases.iter().all(|b| b.len() == dom.limbs()));
    let len = exps.iter().map(|e| e.len()).max().unwrap_or(0);
    let padded: Vec<Zeroizing<Vec<u8>>> = (0..LANES)
        .map(|l| {
            let mut p = Zeroizing::new(vec![0u8; len]);
            if let Some(e) = exps.get(l) {
                p[len - e.len()..].copy_from_slice(e);
            }
            p
        })
        .collect();
    let words = 8 * dom.digits();
    let mut base = Zeroizing::new(vec![0u64; words]);
    let mut scratch = Zeroizing::new(vec![0u64; words]);
    dom.enter(bases, &mut base, &mut scratch);
    let ladder = Mb8Ladder {
        dom,
        exps: core::array::from_fn(|l| padded[l].as_slice()),
    };
    let mut work = Work::new(words, len);
    fixed_window(&ladder, &base, &padded[0], &mut work, trace);
    let mut outs = vec![Vec::new(); lanes];
    dom.leave(work.result(), &mut outs, &mut scratch);
    outs
}
