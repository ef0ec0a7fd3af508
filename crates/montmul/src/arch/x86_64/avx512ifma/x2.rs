//! `amm52x2-ifma`: two independent almost-Montgomery products at once, and the
//! constant-time exponentiation that runs two exponentiations in lockstep on them (the
//! two CRT halves of an RSA private operation).
//!
//! After OpenSSL's `ossl_rsaz_amm52x20_x2_ifma256` and `rsaz_exp_x2` (Drucker and
//! Gueron, *Fast modular squaring with AVX512IFMA*, ITNG 2019; Gueron and Krasnov,
//! ARITH 23, 2016), which do this for two 1024-bit halves; here for every digit count
//! from 2 to [`X2_MAX_VECTORS`] vectors (512 to 4096 bits per half), from one
//! implementation generic over the vector count.
//!
//! # Why two at once
//!
//! One product of `amm52-ifma` ([`super`]) is d word-serial steps, and each step waits
//! for the previous one's lane 0 to compute its q: a scalar chain of a multiplication
//! by n0', a 128-bit product and a few additions. At 1024 bits (20 digits, 3 vectors)
//! a step has 12 multiply-adds, 6 cycles of the two IFMA ports, against a longer chain,
//! so the multipliers idle. Two products with nothing in common fill each other's gaps:
//! each step of the loop here does one step of each ([`Half::step`]), the two chains
//! run side by side in the out-of-order window, and the multiply-adds of one cover the
//! latency of the other. The two halves have their own modulus, n0' and operands but the
//! same digit count d (the loop count), so nothing in the loop branches on which half.
//!
//! [`crate::lanes`] picks the pair up to [`X2_PICKED_VECTORS`] vectors per half, where
//! it measured faster than the two exponentiations one after the other; [`pow_x2`]
//! here runs it at every size it covers.
//!
//! Each half's step is exactly the step of [`super::mul::mul_vectors`] (module doc of
//! [`super`]: the scalar lane 0, q 2^12, the chained halves up to
//! [`X2_CHAINED_VECTORS`]), so each half's result is the very value that `amm52-ifma`
//! computes: the same q at every step, the same normalised digits. Bounds: each half
//! as there (every lane below d 2^54 + 2^12 < 2^64).
//!
//! Squaring: for the vector counts here (at most 10) `amm52-ifma` squares with its
//! multiplication ([`super::sqr::sqr_digits`] uses the wide squaring only from
//! [`super::sqr::SQR_WIDE_VECTORS`]); the pair does the same, the operand doubling as
//! its own multiplier.
//!
//! # The exponentiation
//!
//! [`pow_x2`] runs [`crate::exp::fixed_window`] on a [`Ladder`] whose value is a pair:
//! both halves' digit vectors in the digit domain of [`super::exp`] (each half entered
//! and left through its own [`super::exp::Digits`], so the values are the ones the
//! single ladder computes). The exponents are padded with leading zero bytes to the
//! longer one's length (public), which changes neither result; the ladder's window
//! index carries both digits ([`Ladder::window`]) and its table read splits them and
//! keeps each half's entry with its own mask, reading every entry of both halves in
//! full.
//!
//! Constant-time: yes, by construction. The loop counts depend on the digit count, the
//! table size and the exponents' byte lengths only; the only secrets are the digits,
//! the exponent digits and the masks made from them; no branch and no address depends on
//! them. The valgrind harness (`tests/ct_valgrind.rs`) cannot run AVX-512, so this
//! path is covered by the statistical timing check (`montmul ct-check`) instead.

use core::arch::x86_64::*;

use zeroize::Zeroizing;

use super::digits::{load_vectors, shifted_down, store_vectors, DIGIT};
use super::exp::{shape as domain_shape, Digits};
use super::finish::normalise_vectors;
use crate::arch::cpu::Avx512Ifma;
use crate::exp::{digit, entry_mask, fixed_window, Ladder, Step, Trace, Work, MAX_WINDOW};
use crate::kernel::PowDomain;
use crate::Modulus;

/// The most vectors per half the pair kernel is built for: 10 vectors, 80 digits,
/// moduli up to 4096 bits (79 digits) under either reduction.
pub const X2_MAX_VECTORS: usize = 10;

/// The largest vector count for which a half's step chains each vector's four
/// halves into one sum off the accumulator (as [`super::mul::CHAINED_VECTORS`] for
/// one product, which holds twice the registers per product).
pub const X2_CHAINED_VECTORS: usize = super::mul::CHAINED_VECTORS;

/// `x`, kept in a general-purpose register and hidden from the optimiser. Without it
/// the SLP vectoriser fuses the two halves' scalar chains (lane 0 and q, which are
/// alike statement for statement) into one chain in 128-bit registers, and every step
/// then waits on moves between those and the general registers for its
/// multiplications: measured about as slow as the two products one after the other.
#[inline(always)]
fn in_gpr(mut x: u64) -> u64 {
    // SAFETY: an empty instruction sequence that takes and returns `x` in one
    // register; it touches no memory, no stack and no flags.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}

/// One product of the pair inside the loop: its operand and modulus as vectors (and
/// shifted down one lane, for the chained form), the scalars of its lane 0, and its
/// accumulator.
struct Half<const V: usize> {
    av: [__m512i; V],
    ad1: [__m512i; V],
    nv: [__m512i; V],
    nd1: [__m512i; V],
    a0: u64,
    a1: u64,
    n0: u64,
    n1: u64,
    /// (n0' mod 2^52) 2^12.
    k0s: u64,
    acc: [__m512i; V],
    /// The exact lane 0, in scalar.
    r0: u64,
}

impl<const V: usize> Half<V> {
    /// The state before the first step of a (a's digits `av`) times b modulo n.
    #[target_feature(enable = "avx512f,avx512ifma")]
    #[inline]
    fn new(av: [__m512i; V], nv: [__m512i; V], n0: u64) -> Self {
        let (ad1, nd1) = (shifted_down(&av), shifted_down(&nv));
        let low = |x: __m512i| _mm_cvtsi128_si64(_mm512_castsi512_si128(x)) as u64;
        Half {
            a0: low(av[0]),
            a1: low(ad1[0]),
            n0: low(nv[0]),
            n1: low(nd1[0]),
            k0s: (n0 & DIGIT) << 12,
            av,
            ad1,
            nv,
            nd1,
            acc: [_mm512_setzero_si512(); V],
            r0: 0,
        }
    }

    /// One word-serial step with b's digit `bi`: the step of
    /// [`super::mul::mul_vectors`] (see there and the module doc of [`super`] for the
    /// bounds), its sums first formed for every vector and then added after the shift,
    /// in two passes (at most [`X2_MAX_VECTORS`] vectors here, where the compiler
    /// unrolls both).
    #[target_feature(enable = "avx512f,avx512ifma")]
    #[inline]
    fn step(&mut self, bi: u64) {
        let zero = _mm512_setzero_si512();
        let bv = _mm512_set1_epi64(bi as i64);
        let x1 = _mm_extract_epi64::<1>(_mm512_castsi512_si128(self.acc[0])) as u64;
        // All four 52 x 52-bit products are below 2^104.
        let pa0 = u128::from(self.a0) * u128::from(bi);
        let t = self.r0 + (pa0 as u64 & DIGIT);
        let qs = in_gpr(t.wrapping_mul(self.k0s));
        let q = qs >> 12;
        // t + lo52(n_0 q) is t rounded up to a multiple of 2^52: its carry into lane 1
        // is ceil(t / 2^52) (t below 2^63, so t + 2^52 - 1 does not wrap; one
        // instruction fewer than `mul_vectors`' form, and each counts here).
        let c = (t + DIGIT) >> 52;
        let h0 = ((u128::from(self.n0) * u128::from(qs)) >> 64) as u64;
        // Every sum here is a lane value, below the bound of `super`'s module doc.
        self.r0 = in_gpr(
            (x1 + (self.a1.wrapping_mul(bi) & DIGIT) + (pa0 >> 52) as u64 + c)
                + (self.n1.wrapping_mul(qs) >> 12)
                + h0,
        );
        let qv = _mm512_set1_epi64(q as i64);
        let mut hi = [zero; V];
        for (v, h) in hi.iter_mut().enumerate() {
            if V <= X2_CHAINED_VECTORS {
                let mut s = _mm512_madd52lo_epu64(zero, self.ad1[v], bv);
                s = _mm512_madd52hi_epu64(s, self.av[v], bv);
                s = _mm512_madd52lo_epu64(s, self.nd1[v], qv);
                *h = _mm512_madd52hi_epu64(s, self.nv[v], qv);
            } else {
                self.acc[v] = _mm512_madd52lo_epu64(self.acc[v], self.av[v], bv);
                self.acc[v] = _mm512_madd52lo_epu64(self.acc[v], self.nv[v], qv);
                *h = _mm512_madd52hi_epu64(zero, self.av[v], bv);
                *h = _mm512_madd52hi_epu64(*h, self.nv[v], qv);
            }
        }
        for (v, &h) in hi.iter().enumerate() {
            let next = if v + 1 < V { self.acc[v + 1] } else { zero };
            self.acc[v] = _mm512_add_epi64(_mm512_alignr_epi64::<1>(next, self.acc[v]), h);
        }
    }

    /// The normalised digits of the value after the last step, stored to `out` (8 V
    /// digits); returns the part from 2^(52 8 V) up.
    #[target_feature(enable = "avx512f,avx512ifma")]
    #[inline]
    fn finish(&self, out: &mut [u64]) -> u64 {
        let acc = {
            let mut acc = self.acc;
            acc[0] = _mm512_mask_set1_epi64(acc[0], 1, self.r0 as i64);
            acc
        };
        let (digits, c) = normalise_vectors::<V>(&acc);
        store_vectors(&digits, out);
        c
    }
}

/// Two products at once: `out[h] = (a[h] b[h] + Q_h n[h]) / 2^(52 d)`, normalised,
/// for the halves h = 0, 1, each of `a`, `b`, `n`, `out` being two runs of 8 V digits
/// (half 0, then half 1), every digit below 2^52, digits from `d` up 0 in `a` and
/// `n`. With both halves' values below 2n < 2^(52 d) (the digit domain's contract)
/// nothing carries out. `n0` holds each half's -n^-1 mod 2^52 in its low 52 bits.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn mul_x2<const V: usize>(
    a: &[u64],
    b: &[u64],
    n: &[u64],
    n0: [u64; 2],
    d: usize,
    out: &mut [u64],
) {
    let len = 8 * V;
    assert!(a.len() == 2 * len && b.len() == 2 * len && n.len() == 2 * len);
    assert!(out.len() == 2 * len && 2 <= d && d <= len);
    let (a_lo, a_hi) = a.split_at(len);
    let (n_lo, n_hi) = n.split_at(len);
    let (b_lo, b_hi) = (&b[..d], &b[len..len + d]);
    // SAFETY: the caller guarantees the CPU features; each slice holds 8 V digits.
    let (h0, h1) = unsafe {
        (
            Half::<V>::new(load_vectors(a_lo), load_vectors(n_lo), n0[0]),
            Half::<V>::new(load_vectors(a_hi), load_vectors(n_hi), n0[1]),
        )
    };
    let (mut h0, mut h1) = (h0, h1);
    for (&x, &y) in b_lo.iter().zip(b_hi) {
        h0.step(x);
        h1.step(y);
    }
    let (o0, o1) = out.split_at_mut(len);
    let carries = (h0.finish(o0), h1.finish(o1));
    debug_assert_eq!(carries, (0, 0));
}

/// The pair's table read: `out` = half 0 of the entry whose mask `masks[j][0]` is all
/// ones and half 1 of the one whose `masks[j][1]` is, every entry read in full (both
/// halves) and gathered with AND and OR in registers. Each mask is 0 or all ones and
/// exactly one per half is set; nothing branches on them and no address depends on
/// them.
///
/// # Safety
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn gather_x2<const V: usize>(table: &[Vec<u64>], masks: &[[u64; 2]], out: &mut [u64]) {
    let len = 8 * V;
    assert!(out.len() == 2 * len && masks.len() >= table.len());
    let zero = _mm512_setzero_si512();
    let mut acc = [[zero; V]; 2];
    for (entry, m) in table.iter().zip(masks) {
        assert!(entry.len() == 2 * len);
        for (h, (acc, run)) in acc.iter_mut().zip(entry.chunks_exact(len)).enumerate() {
            let mask = _mm512_set1_epi64(m[h] as i64);
            // SAFETY: the caller guarantees AVX-512F; run holds 8 V digits.
            let e = unsafe { load_vectors::<V>(run) };
            for (x, y) in acc.iter_mut().zip(e) {
                *x = _mm512_or_si512(*x, _mm512_and_si512(y, mask));
            }
        }
    }
    for (acc, o) in acc.iter().zip(out.chunks_exact_mut(len)) {
        store_vectors(acc, o);
    }
}

/// One instance of [`mul_x2`].
type MulX2 = unsafe fn(&[u64], &[u64], &[u64], [u64; 2], usize, &mut [u64]);
/// One instance of [`gather_x2`].
type GatherX2 = unsafe fn(&[Vec<u64>], &[[u64; 2]], &mut [u64]);

/// The pair product and table read for `v` vectors per half, 2 ..= [`X2_MAX_VECTORS`].
fn instances(v: usize) -> Option<(MulX2, GatherX2)> {
    macro_rules! by_vectors {
        ($($n:literal)*) => {
            match v {
                $($n => Some((mul_x2::<$n> as MulX2, gather_x2::<$n> as GatherX2)),)*
                _ => None,
            }
        };
    }
    const { assert!(X2_MAX_VECTORS == 10) };
    by_vectors!(2 3 4 5 6 7 8 9 10)
}

/// The digit domain's shape (d', V') of a modulus, when its engine is `amm52-ifma`
/// and the pair kernel covers it.
fn pair_shape(m: &Modulus<u64>) -> Option<(usize, usize)> {
    if !core::ptr::eq(m.engine().info(), &super::INFO) {
        return None;
    }
    let (d, v, _) = domain_shape(m.limbs(), m.bits());
    (2..=X2_MAX_VECTORS).contains(&v).then_some((d, v))
}

/// Whether [`pow_x2`] runs the two moduli in lockstep: this CPU has AVX-512 IFMA, both
/// moduli's engine is `amm52-ifma`, and their digit domains have the same digit count,
/// at most [`X2_MAX_VECTORS`] vectors. (All public.)
pub fn fits(a: &Modulus<u64>, b: &Modulus<u64>) -> bool {
    Avx512Ifma::new().is_some() && pair_shape(a).is_some() && pair_shape(a) == pair_shape(b)
}

/// The most vectors per half for which [`crate::lanes`] picks the pair kernel: where
/// [`pow_x2`] measured faster than two single exponentiations (0.77-0.82x of their time
/// at 1024 bits, 0.91-0.92x at 1536; `docs/PERFORMANCE.md`, "Two exponentiations in
/// lockstep"). From 5 vectors (2048 bits) one product's step is already bound by
/// instruction issue, not by its chain, and the pair measured at parity (2048 bits)
/// or 3-5% slower (3072, 4096).
pub const X2_PICKED_VECTORS: usize = 4;

/// Whether [`crate::lanes`] runs `a` and `b` in lockstep: [`fits`], at most
/// [`X2_PICKED_VECTORS`] vectors per half.
pub fn picked(a: &Modulus<u64>, b: &Modulus<u64>) -> bool {
    fits(a, b) && pair_shape(a).is_some_and(|(_, v)| v <= X2_PICKED_VECTORS)
}

/// The ladder on pairs: values are both halves' 8 V' digits, half 0 first.
struct PairLadder<'e> {
    /// The proof that the CPU has AVX-512F and AVX-512 IFMA.
    _token: Avx512Ifma,
    /// Digits d' of both domains.
    d: usize,
    /// Both moduli's digits.
    n: Vec<u64>,
    /// Both moduli's -n^-1 mod 2^64.
    n0: [u64; 2],
    /// Both domains' 1.
    one: Vec<u64>,
    /// Half 1's exponent, as long as the one [`fixed_window`] is given.
    second: &'e [u8],
    mul: MulX2,
    gather: GatherX2,
}

impl Ladder for PairLadder<'_> {
    type Word = u64;

    fn one(&self, out: &mut [u64]) {
        out.copy_from_slice(&self.one);
    }

    fn sqr(&self, a: &[u64], out: &mut [u64]) {
        // SAFETY: the token proves AVX-512F and IFMA; every value is 2 x 8 V' digits
        // below 2^52, each half below 2n < 2^(52 d') (the digit domain's contract);
        // `mul_x2` checks the lengths.
        unsafe { (self.mul)(a, a, &self.n, self.n0, self.d, out) };
    }

    fn mul(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        // SAFETY: as in `sqr`.
        unsafe { (self.mul)(a, b, &self.n, self.n0, self.d, out) };
    }

    /// Half 0's digit below, half 1's above it: a table index of 2w bits.
    #[inline]
    fn window(&self, exp_be: &[u8], lo: usize, w: u32) -> usize {
        digit(exp_be, lo, w) | digit(self.second, lo, w) << w
    }

    /// Splits the index of [`PairLadder::window`] (the table has 2^w entries) and
    /// gathers each half with its own masks, every entry of both halves read in full.
    fn read<T: Trace>(&self, table: &[Vec<u64>], index: usize, out: &mut [u64], trace: &mut T) {
        let size = table.len();
        assert!(size.is_power_of_two() && size <= 1 << MAX_WINDOW);
        // Shift and mask by the public table size: no division on the secret.
        let (i0, i1) = (index & (size - 1), index >> size.trailing_zeros());
        let mut masks = [[0u64; 2]; 1 << MAX_WINDOW];
        for (j, m) in masks.iter_mut().enumerate().take(size) {
            trace.step(Step::Read(j));
            *m = [entry_mask(j, i0), entry_mask(j, i1)];
        }
        let masks = core::hint::black_box(&masks[..size]);
        // SAFETY: the token proves AVX-512F; `gather_x2` checks the lengths.
        unsafe { (self.gather)(table, masks, out) };
    }
}

/// `a^ea` and `b^eb` (Montgomery form, below each modulus' bound, big-endian
/// exponents) in lockstep on [`mul_x2`]: the values [`crate::exp::pow`] gives for each,
/// or `None` where the pair kernel does not apply ([`fits`]). The shorter exponent is
/// padded with leading zero bytes; the steps, told to `trace`, are those of one
/// [`crate::exp::pow`] with an exponent of the longer length. Constant-time in the
/// bases' and the exponents' values (module doc).
pub fn pow_x2<T: Trace>(
    (ma, a, ea): (&Modulus<u64>, &[u64], &[u8]),
    (mb, b, eb): (&Modulus<u64>, &[u64], &[u8]),
    trace: &mut T,
) -> Option<(Vec<u64>, Vec<u64>)> {
    let token = Avx512Ifma::new()?;
    let (d, v) = pair_shape(ma)?;
    if pair_shape(mb)? != (d, v) {
        return None;
    }
    let (mul, gather) = instances(v)?;
    let halves = [Digits::new(token, ma), Digits::new(token, mb)];
    let len = 8 * v;
    debug_assert!(halves.iter().all(|h| h.words() == len));
    // Both halves' values side by side, half 0 first.
    let pair = |f: &dyn Fn(&Digits, &mut [u64])| {
        let mut out = Zeroizing::new(vec![0u64; 2 * len]);
        for (h, o) in halves.iter().zip(out.chunks_exact_mut(len)) {
            f(h, o);
        }
        out
    };
    let e_len = ea.len().max(eb.len());
    let padded = |e: &[u8]| {
        let mut p = Zeroizing::new(vec![0u8; e_len]);
        p[e_len - e.len()..].copy_from_slice(e);
        p
    };
    let (ea, eb) = (padded(ea), padded(eb));
    let mut n = vec![0u64; 2 * len];
    Digits::to_digits(ma.n(), &mut n[..len]);
    Digits::to_digits(mb.n(), &mut n[len..]);
    let ladder = PairLadder {
        _token: token,
        d,
        n,
        n0: [ma.n0(), mb.n0()],
        one: pair(&|h, o| h.one(o)).to_vec(),
        second: &eb,
        mul,
        gather,
    };
    let scratch_len = halves.iter().map(|h| h.scratch_words()).max().unwrap_or(0);
    let mut scratch = Zeroizing::new(vec![0u64; scratch_len]);
    let mut base = Zeroizing::new(vec![0u64; 2 * len]);
    for ((h, x), o) in halves.iter().zip([a, b]).zip(base.chunks_exact_mut(len)) {
        h.enter(x, o, &mut scratch);
    }
    let mut work = Work::new(2 * len, e_len);
    fixed_window(&ladder, &base, &ea, &mut work, trace);
    let (mut ya, mut yb) = (vec![0; ma.limbs()], vec![0; mb.limbs()]);
    let (y0, y1) = work.result().split_at(len);
    halves[0].leave(y0, &mut ya, &mut scratch);
    halves[1].leave(y1, &mut yb, &mut scratch);
    Some((ya, yb))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pair product equals two single products of the digit domain
    /// (`mul_digits`), digit for digit, at every vector count, with different moduli
    /// and edge digits.
    #[test]
    fn pair_product_matches_two_single_products() {
        let Some(_token) = Avx512Ifma::new() else {
            montmul_testkit::skipped!(
                "pair_product_matches_two_single_products: SKIPPED: no AVX-512 IFMA"
            );
            return;
        };
        fn check<const V: usize>(seed: &mut u64) {
            let mut rnd = || {
                *seed = seed.rotate_left(17).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 3;
                *seed
            };
            for d in [8 * V - 7, 8 * V - 1, 8 * V]
                .into_iter()
                .filter(|&d| d >= 2)
            {
                for pattern in 0..4 {
                    // n odd with d digits, below 2^(52 d - 2) as the digit domain's
                    // (R' > 4n); a, b below n (top digit below n's).
                    let mut halves = Vec::new();
                    for _ in 0..2 {
                        let mut n: Vec<u64> = (0..8 * V)
                            .map(|j| if j < d { rnd() & DIGIT } else { 0 })
                            .collect();
                        n[0] |= 1;
                        n[d - 1] = n[d - 1] >> 2 | 1 << 49;
                        let mut x = || -> Vec<u64> {
                            (0..8 * V)
                                .map(|j| match (j < d, pattern) {
                                    (false, _) => 0,
                                    (_, 0) => DIGIT,
                                    (_, 1) => 0,
                                    (_, 2) => u64::from(j == 0),
                                    _ => rnd() & DIGIT,
                                })
                                .collect()
                        };
                        let (mut a, mut b) = (x(), x());
                        a[d - 1] = (a[d - 1] & n[d - 1]) >> 1;
                        b[d - 1] = (b[d - 1] & n[d - 1]) >> 1;
                        let n0 = (1..52).fold(1u64, |inv, _| {
                            inv.wrapping_mul(2u64.wrapping_sub(n[0].wrapping_mul(inv)))
                        });
                        halves.push((a, b, n, n0.wrapping_neg()));
                    }
                    let mut want = Vec::new();
                    for (a, b, n, n0) in &halves {
                        let mut o = vec![0u64; 8 * V];
                        // SAFETY: the CPU has AVX-512F and IFMA (checked).
                        let c =
                            unsafe { super::super::mul::mul_digits::<V>(a, b, n, *n0, d, &mut o) };
                        assert_eq!(c, 0);
                        want.extend(o);
                    }
                    let (a, b, n) = (
                        [halves[0].0.clone(), halves[1].0.clone()].concat(),
                        [halves[0].1.clone(), halves[1].1.clone()].concat(),
                        [halves[0].2.clone(), halves[1].2.clone()].concat(),
                    );
                    let mut out = vec![0u64; 16 * V];
                    // SAFETY: as above.
                    unsafe { mul_x2::<V>(&a, &b, &n, [halves[0].3, halves[1].3], d, &mut out) };
                    assert_eq!(out, want, "V={V} d={d} pattern {pattern}");
                }
            }
        }
        let mut seed = 0x5eed;
        check::<2>(&mut seed);
        check::<3>(&mut seed);
        check::<4>(&mut seed);
        check::<5>(&mut seed);
        check::<6>(&mut seed);
        check::<7>(&mut seed);
        check::<8>(&mut seed);
        check::<9>(&mut seed);
        check::<10>(&mut seed);
    }
}
