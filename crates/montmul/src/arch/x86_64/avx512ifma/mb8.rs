//! `amm52x8-ifma`: eight independent almost-Montgomery products in radix 2^52, one per
//! 64-bit lane of AVX-512 IFMA vectors (multi-buffer).
//!
//! Intel's crypto_mb (ipp-crypto, `ifma_amm52x20_mb8` and the exponentiation
//! `mbx_exp_mb8` around it) runs eight RSA operations at once this way; seed 004 sec. 7
//! asks for exactly the unsigned multiply-add that `vpmadd52luq`/`vpmadd52huq` are.
//! The one-product kernel `amm52-ifma` ([`super`]) spreads the digits of one number
//! over the lanes, so each step waits on the chain that makes q and moves every lane by
//! one; here lane l holds operation l and vector j holds digit j of all eight
//! ("digit-major"), so the eight q's are one vector, the shift of the accumulator is a
//! change of index, and the multipliers are busy on independent work. The algorithm is
//! the word-serial almost-Montgomery loop of Gueron and Krasnov, ARITH 23 (2016), as
//! `amm52-ifma` runs it, eight times side by side.
//!
//! A batch of up to four lanes runs the same steps on 256-bit registers, lanes 0 to 3
//! of each digit's 8 words (the layout stays 8 words a digit; lanes 4 to 7 of the
//! result are 0): this CPU issues two 256-bit multiply-adds a cycle against one
//! 512-bit one, so four lanes cost about half of eight (0.53-0.69x of the 8-lane
//! product at 512-4096 bits, measured). The steps are written once over the register
//! width (`reg::Reg`, shared with the pair kernel); [`amm`] picks it by the lanes
//! in use, a public count.
//!
//! # The computation
//!
//! All lanes have moduli of one limb count s; the product uses D digits (R' = 2^(52 D),
//! D from [`super::exp::shape`] for the largest lane, so R' > 4 n_l in every lane) and
//! runs D steps. Step i, with b_i the vector of digit i of the eight b's:
//!
//! 1. t = T_0 + lo52(a_0 b_i); q = lo52(t k0) per lane (k0 = -n^-1 mod 2^52 per lane);
//!    t += lo52(n_0 q): 0 mod 2^52, its high bits (the carry) go to T_1;
//! 2. T_j += lo52(a_j b_i) + lo52(n_j q) + hi52(a_(j-1) b_i) + hi52(n_(j-1) q) for
//!    j = 1 .. D (no low terms at j = D);
//! 3. the accumulator moves down one digit: T_j is T_(j+1) from now on.
//!
//! The accumulator is a buffer of 2 D vectors and the move is an index (step i's T_j is
//! buffer entry i + j, "a circular index change instead of moving data", seed 000): each
//! step updates D entries in place and writes one fresh entry. The result is entries
//! D .. 2D, normalised per lane at the end (each lane's carries rippled digit by digit,
//! a vector add, shift and mask per digit: eight lanes at once).
//!
//! Bound: the lanes are never normalised inside the loop. One step adds to an entry at
//! most four halves, each below 2^52, so below 2^54, plus the carry of step 1 (the top
//! 12 bits of a 64-bit lane, below 2^12); an entry takes part in at most D + 1 steps,
//! so it stays below (D + 1) (2^54 + 2^12) < 2^64 for D < 1000 (here D <= 160,
//! [`MAX_DIGITS`]). Only the low 52 bits of t enter q (`vpmadd52luq` reads the low 52
//! bits of its operands), which is all q mod 2^52 depends on. For a, b < 2n and
//! R' > 4n, (a b + Q n) / R' < 4n^2 / R' + n < 2n < 2^(52 D): the normalised result fits
//! D digits with no carry out, as in `amm52-ifma`.
//!
//! Constant-time: yes. The loop counts and every address depend on D only; nothing
//! branches on a value. Needs AVX-512F and AVX-512 IFMA (and AVX-512VL for the 256-bit
//! form, checked where it is picked): the functions are reached only through an
//! [`Avx512Ifma`] token. The exponentiation on these products is [`super::mb8_exp`].

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use zeroize::{Zeroize, Zeroizing};

use super::digits::{join_group, split_group, DIGIT};
use super::finish::finish;
use super::reg::Reg;
use crate::arch::cpu::Avx512Ifma;
use crate::arch::x86_64::domain::double_mod;
use crate::{Error, Reduction};

/// The lanes of one vector.
pub const LANES: usize = 8;

/// The most digits a lane may have: a modulus of 8192 bits under lazy reduction
/// (129 limbs, 159 digits), rounded up.
pub const MAX_DIGITS: usize = 160;

/// The digit count for lanes of `s` limbs whose largest modulus has `bits` bits:
/// R' = 2^(52 D) > 4 n ([`super::exp::shape`]).
pub fn digits_for(s: usize, bits: u32) -> usize {
    super::exp::shape(s, bits).0
}

/// `out` = the eight almost-Montgomery products (a_l b_l + Q_l n_l) / 2^(52 d), lane l
/// of each vector for operation l, normalised: every digit below 2^52. `a`, `b`, `n`
/// and `out` are `8 d` words, digit j of lane l at `8 j + l`; `k0` holds
/// -n_l^-1 mod 2^52 per lane. The digits of `a`, `b` and `n` must be below 2^52, and
/// for every lane a, b < 2n with 2^(52 d) > 4n: then the result is below 2n.
///
/// `lanes` says how many lanes, from lane 0, the caller needs: up to 4 on a CPU with
/// AVX-512VL the products run on 256-bit registers (four lanes, the same lanes a cycle
/// as eight on 512-bit ones, so half the time) and lanes 4 to 7 of `out` are set to
/// 0; otherwise all eight are computed. `lanes` is public. Constant-time.
///
/// # Panics
/// When a slice is not `8 d` words or d is 0 or above [`MAX_DIGITS`].
#[allow(clippy::too_many_arguments)]
pub fn amm(
    _: Avx512Ifma,
    a: &[u64],
    b: &[u64],
    n: &[u64],
    k0: &[u64; LANES],
    d: usize,
    lanes: usize,
    out: &mut [u64],
) {
    assert!((1..=MAX_DIGITS).contains(&d));
    assert!(a.len() == 8 * d && b.len() == 8 * d && n.len() == 8 * d && out.len() == 8 * d);
    // SAFETY: the token proves AVX-512F and IFMA, and VL is checked for the 256-bit
    // form; the lengths are checked above.
    unsafe {
        if narrow(lanes) {
            amm_x4(a, b, n, k0, d, out)
        } else {
            amm_x8(a, b, n, k0, d, out)
        }
    }
}

/// Whether `lanes` lanes run on 256-bit registers: up to 4, on a CPU with AVX-512VL
/// (public, as the lane count is).
pub fn narrow(lanes: usize) -> bool {
    lanes <= 4 && std::arch::is_x86_feature_detected!("avx512vl")
}

/// [`amm_unchecked`] on 512-bit registers: eight lanes.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA; the lengths as [`amm_unchecked`]'s.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn amm_x8(a: &[u64], b: &[u64], n: &[u64], k0: &[u64; LANES], d: usize, out: &mut [u64]) {
    // SAFETY: the features are enabled here; the caller guarantees the lengths.
    unsafe { amm_unchecked::<__m512i>(a, b, n, k0, d, out) }
}

/// [`amm_unchecked`] on 256-bit registers: lanes 0 to 3.
///
/// # Safety
/// The CPU has AVX-512F, AVX-512 IFMA and AVX-512VL; the lengths as
/// [`amm_unchecked`]'s.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
unsafe fn amm_x4(a: &[u64], b: &[u64], n: &[u64], k0: &[u64; LANES], d: usize, out: &mut [u64]) {
    // SAFETY: the features are enabled here; the caller guarantees the lengths.
    unsafe { amm_unchecked::<__m256i>(a, b, n, k0, d, out) }
}

/// [`amm`] after its checks, on registers of `T::LANES` lanes (the first of each run
/// of 8 words): the steps in blocks of [`BLOCK`] ([`steps`]), the remainder one at a
/// time, then the carries. Lanes from `T::LANES` up are stored as 0.
///
/// # Safety
/// The CPU has the features [`Reg`] needs for `T`; `a`, `b`, `n`, `out` are `8 d`
/// words, 1 <= d <= [`MAX_DIGITS`].
#[inline(always)]
unsafe fn amm_unchecked<T: Reg>(
    a: &[u64],
    b: &[u64],
    n: &[u64],
    k0: &[u64; LANES],
    d: usize,
    out: &mut [u64],
) {
    // SAFETY: for the whole body, the caller enables the features `T` needs; every load and
    // store offset is 8 j for a digit j < d (or < 2 d within `t`), inside the slices.
    unsafe {
        let zero = T::zero();
        let k0 = T::load(k0);
        // The accumulator, by absolute digit position (one `Slot` each): entries
        // 0 .. d start at 0; entry p >= d is first written (not added to) by the step
        // block that reaches it.
        let mut t = [Slot(MaybeUninit::<T>::uninit()); 2 * MAX_DIGITS];
        for e in &mut t[..d] {
            e.0.write(zero);
        }
        let ops = Operands { a, b, n, k0, d };
        let mut i = 0;
        while i + BLOCK <= d {
            // Entries below i + d are initialised (the previous blocks wrote up to
            // i - 1 + d).
            steps::<T, BLOCK>(&ops, i, &mut t);
            i += BLOCK;
        }
        while i < d {
            steps::<T, 1>(&ops, i, &mut t);
            i += 1;
        }
        // The carries, lane by lane, digit by digit: the result is below 2^(52 d), so
        // nothing carries out of the top digit.
        let mut c = zero;
        for j in 0..d {
            // The steps wrote every entry up to 2d - 1.
            let x = T::add(t[d + j].0.assume_init(), c);
            c = T::shr52(x);
            T::store8_at(T::low52(x), out.as_mut_ptr().add(8 * j));
        }
        // The accumulator held products of secret values.
        for e in &mut t[..2 * d] {
            e.0.write(zero);
        }
        core::hint::black_box(&t);
    }
}

/// The steps [`amm_unchecked`] runs at once: each pass over the accumulator adds the
/// products of `BLOCK` digits of b (and their q's), so the accumulator is loaded and
/// stored once per `BLOCK` steps, and each position's sum is `4 BLOCK` multiply-adds
/// in `BLOCK` independent chains. Measured: `docs/PERFORMANCE.md`, "amm52x8-ifma".
const BLOCK: usize = 4;

/// One entry of the accumulator: a register in 64 bytes whatever its width, so that the
/// accumulator advances 64 bytes a digit, as the operands do (8 words a digit). With
/// 32-byte entries for the 256-bit form the two streams drifted against each other
/// modulo 4096 bytes, and a store to the accumulator falsely held up a later load of an
/// operand (4K aliasing) at some digits for most placements of the stack: the 4-lane
/// exponentiation at 768 bits took 1.5x its time for 6 of 8 stack offsets, level with
/// them all with this slot (`docs/PERFORMANCE.md`).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot<T: Copy>(MaybeUninit<T>);

/// The operands of one product: digit-major values of `8 d` words, k0 as a register.
struct Operands<'a, T> {
    a: &'a [u64],
    b: &'a [u64],
    n: &'a [u64],
    k0: T,
    d: usize,
}

/// Steps i0 .. i0 + K of the module doc on the accumulator `t` (absolute digit
/// positions). First the K q's, one after the other: position i0 + k gets the terms
/// of the steps before it in this block (a triangle of K^2 / 2 digit products), the
/// carry out of the position below, lo52(a_0 b_k); then q_k and its carry. Then one
/// pass over positions p = i0 + K .. i0 + K + d, each adding all K steps' four halves
/// at j = p - i0 - k (a_j, n_j read once per pass and kept in a window of registers;
/// digits from d up are 0), the block's last carry at i0 + K.
///
/// # Safety
/// The CPU has the features [`Reg`] needs for `T`; `ops` holds `8 d` words each;
/// entries of `t` below i0 + d are initialised; i0 + K <= d; 2 d <= t.len().
#[inline(always)]
// The loops run over digit positions, which index several arrays and enter arithmetic.
#[allow(clippy::needless_range_loop)]
unsafe fn steps<T: Reg, const K: usize>(ops: &Operands<'_, T>, i0: usize, t: &mut [Slot<T>]) {
    let Operands { a, b, n, k0, d } = *ops;
    // SAFETY: for the whole body, the caller enables the features; every load is of digit
    // j < d, 8 j + T::LANES <= 8 d words in; entries of `t` are read only below
    // i0 + d (initialised) and written below i0 + K + d <= 2 d.
    unsafe {
        let zero = T::zero();
        let load = |x: &[u64], j: usize| {
            if j < d {
                T::load_at(x.as_ptr().add(8 * j))
            } else {
                zero
            }
        };
        let bk: [T; K] = core::array::from_fn(|k| load(b, i0 + k));
        let mut q = [zero; K];
        let mut carry = zero;
        for k in 0..K {
            let mut v = t[i0 + k].0.assume_init();
            v = T::madd_lo(v, load(a, 0), bk[k]);
            // The earlier steps of the block at j = k - kk >= 1; their q terms last,
            // the latest q last of all (the chain that waits for it is short).
            for kk in 0..k {
                v = T::madd_lo(v, load(a, k - kk), bk[kk]);
                v = T::madd_hi(v, load(a, k - kk - 1), bk[kk]);
            }
            for kk in 0..k {
                v = T::madd_lo(v, load(n, k - kk), q[kk]);
                v = T::madd_hi(v, load(n, k - kk - 1), q[kk]);
            }
            v = T::add(v, carry);
            // q = lo52(v k0): only v's low 52 bits count.
            q[k] = T::madd_lo(zero, v, k0);
            // Lane values below the bound of the module doc: no lane overflows.
            carry = T::shr52(T::madd_lo(v, load(n, 0), q[k]));
        }
        // ca[k] = a_(p - i0 - k), cn likewise; ta, tn one further down.
        let mut ca: [T; K] = core::array::from_fn(|k| load(a, K - 1 - k));
        let mut cn: [T; K] = core::array::from_fn(|k| load(n, K - 1 - k));
        for p in i0 + K..i0 + K + d {
            let (ta, tn) = (ca[K - 1], cn[K - 1]);
            for k in (1..K).rev() {
                (ca[k], cn[k]) = (ca[k - 1], cn[k - 1]);
            }
            (ca[0], cn[0]) = (load(a, p - i0), load(n, p - i0));
            let mut s: [T; K] = [zero; K];
            if p < i0 + d {
                s[0] = t[p].0.assume_init();
            }
            if p == i0 + K {
                s[0] = T::add(s[0], carry);
            }
            for k in 0..K {
                let (pa, pn) = if k + 1 < K {
                    (ca[k + 1], cn[k + 1])
                } else {
                    (ta, tn)
                };
                s[k] = T::madd_lo(s[k], ca[k], bk[k]);
                s[k] = T::madd_hi(s[k], pa, bk[k]);
                s[k] = T::madd_lo(s[k], cn[k], q[k]);
                s[k] = T::madd_hi(s[k], pn, q[k]);
            }
            let mut x = s[0];
            for &sk in &s[1..] {
                x = T::add(x, sk);
            }
            t[p].0.write(x);
        }
    }
}

/// `out[8 j + lane] = digit j of x` for j < d: the lane's 52-bit digits (x below
/// 2^(52 d)), by groups of 13 words. Shifts and masks only.
pub fn scatter_lane(x: &[u64], lane: usize, d: usize, out: &mut [u64]) {
    for g in 0..d.div_ceil(16) {
        let mut w = [0u64; 13];
        let from = (13 * g).min(x.len());
        let to = (13 * g + 13).min(x.len());
        w[..to - from].copy_from_slice(&x[from..to]);
        let split = split_group(&w);
        for (k, &digit) in split.iter().enumerate().take(d - 16 * g) {
            out[8 * (16 * g + k) + lane] = digit;
        }
        w.zeroize();
    }
}

/// The words of lane `lane` of the digits `z` (each below 2^52) into `words`
/// (13 per 16 digits, at least): the inverse of [`scatter_lane`].
pub fn gather_lane(z: &[u64], lane: usize, d: usize, words: &mut [u64]) {
    for g in 0..d.div_ceil(16) {
        let mut digits = [0u64; 16];
        for (k, digit) in digits.iter_mut().enumerate().take(d - 16 * g) {
            *digit = z[8 * (16 * g + k) + lane];
        }
        words[13 * g..13 * g + 13].copy_from_slice(&join_group(&digits));
        digits.zeroize();
    }
}

/// One lane's modulus as [`Lanes8::new`] takes it: the odd modulus n (s words), n0 =
/// -n^-1 mod 2^64, R mod n (s words, R = 2^(64 s)), and the reduction policy of the
/// results.
#[derive(Clone, Copy, Debug)]
pub struct LaneModulus<'a> {
    /// n, little-endian words.
    pub n: &'a [u64],
    /// -n^-1 mod 2^64.
    pub n0: u64,
    /// R mod n.
    pub r1: &'a [u64],
    /// The results' policy: below n (`Full`) or below 2n (`Lazy`).
    pub reduction: Reduction,
}

/// Eight lanes' moduli in the digit domain of [`amm`]: n's digits, k0, and per lane the
/// constants that take montmul's Montgomery form (x R) to the domain's (x R') and back,
/// as `amm52-ifma`'s exponentiation does for one modulus ([`super::exp`]): with
/// e = 52 D - 64 s, C_in = R 2^(2e) mod n (in: mont'(x, C_in) = x 2^e), the domain's 1
/// = R 2^e mod n, and R mod n (out: mont'(y, R) = y 2^-e). Lanes past the moduli
/// given repeat the first (public: only the count is). Built with the [`Avx512Ifma`]
/// token, which it holds; every constant is wiped on drop.
pub struct Lanes8 {
    token: Avx512Ifma,
    /// Lanes in use.
    lanes: usize,
    /// Limbs per modulus.
    s: usize,
    /// Digits D.
    d: usize,
    /// e = 52 D - 64 s.
    e: u32,
    n: Zeroizing<Vec<u64>>,
    k0: [u64; LANES],
    one: Zeroizing<Vec<u64>>,
    c_in: Zeroizing<Vec<u64>>,
    r1: Zeroizing<Vec<u64>>,
    /// Each lane's n as words, for the final subtraction.
    n_words: Vec<Zeroizing<Vec<u64>>>,
    reduction: [Reduction; LANES],
    /// Whether `one` and `c_in` were computed ([`Lanes8::for_pow`]).
    pow: bool,
}

impl Lanes8 {
    /// The domain of 1 ..= 8 moduli of one limb count (at most 129 limbs: 8192 bits
    /// under lazy reduction). Errors: [`Error::TooManyLanes`] for more than 8 (or
    /// none), [`Error::WrongLength`] when the limb counts differ or a constant's length
    /// is not the modulus', [`Error::ModulusTooLarge`] above the limit. Constant-time in
    /// the moduli's values (their bit lengths are public). [`Error::EmptyModulus`] for
    /// moduli of no limbs.
    pub fn new(token: Avx512Ifma, moduli: &[LaneModulus<'_>]) -> Result<Self, Error> {
        Self::build(token, moduli, false)
    }

    /// [`Lanes8::new`] with the constants of [`Lanes8::one`], [`Lanes8::enter`] and
    /// [`Lanes8::leave`] too (2 e modular doublings per lane, e < 104: public shape).
    pub fn for_pow(token: Avx512Ifma, moduli: &[LaneModulus<'_>]) -> Result<Self, Error> {
        Self::build(token, moduli, true)
    }

    /// [`Lanes8::new`], with the exponentiation's constants when `pow`.
    fn build(token: Avx512Ifma, moduli: &[LaneModulus<'_>], pow: bool) -> Result<Self, Error> {
        let lanes = moduli.len();
        if !(1..=LANES).contains(&lanes) {
            return Err(Error::TooManyLanes { lanes, max: LANES });
        }
        let s = moduli[0].n.len();
        if s == 0 {
            return Err(Error::EmptyModulus);
        }
        for m in moduli {
            for len in [m.n.len(), m.r1.len()] {
                if len != s {
                    return Err(Error::WrongLength {
                        expected: s,
                        got: len,
                    });
                }
            }
        }
        let bits = moduli
            .iter()
            .map(|m| 64 * s as u32 - m.n.last().map_or(64, |w| w.leading_zeros()))
            .max()
            .unwrap_or(0);
        let d = digits_for(s, bits);
        if d > MAX_DIGITS {
            return Err(Error::ModulusTooLarge {
                bits,
                max: 52 * MAX_DIGITS as u32 - 2,
            });
        }
        let e = (52 * d - 64 * s) as u32;
        let zeros = || Zeroizing::new(vec![0u64; 8 * d]);
        let mut dom = Lanes8 {
            token,
            lanes,
            s,
            d,
            e,
            n: zeros(),
            k0: [0; LANES],
            one: zeros(),
            c_in: zeros(),
            r1: zeros(),
            n_words: Vec::with_capacity(LANES),
            reduction: [Reduction::Full; LANES],
            pow,
        };
        for l in 0..LANES {
            let m = &moduli[l.min(lanes - 1)];
            let mut x = Zeroizing::new(m.r1.to_vec());
            scatter_lane(&x, l, d, &mut dom.r1);
            // Without `pow`, no doublings: the domain's 1 and C_in stay 0.
            for _ in 0..if pow { e } else { 0 } {
                double_mod(&mut x, m.n);
            }
            scatter_lane(&x, l, d, &mut dom.one);
            for _ in 0..if pow { e } else { 0 } {
                double_mod(&mut x, m.n);
            }
            scatter_lane(&x, l, d, &mut dom.c_in);
            scatter_lane(m.n, l, d, &mut dom.n);
            dom.k0[l] = m.n0 & DIGIT;
            dom.n_words.push(Zeroizing::new(m.n.to_vec()));
            dom.reduction[l] = m.reduction;
        }
        Ok(dom)
    }

    /// The token the domain was built with.
    pub(super) fn token(&self) -> Avx512Ifma {
        self.token
    }

    /// The lanes in use (the moduli given).
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// Limbs per modulus.
    pub fn limbs(&self) -> usize {
        self.s
    }

    /// Digits D per lane; a domain value is `8 D` words.
    pub fn digits(&self) -> usize {
        self.d
    }

    /// `out = mont'(a, b)` = a b 2^(-52 D) mod n per lane, below 2n: [`amm`] on this
    /// domain's moduli (values of `8 D` words, every lane below 2n). Constant-time.
    pub fn amm(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        amm(self.token, a, b, &self.n, &self.k0, self.d, self.lanes, out);
    }

    /// `out` = the domain's 1 in every lane.
    ///
    /// # Panics
    /// When the domain was not made by [`Lanes8::for_pow`] (also [`Lanes8::enter`]).
    pub fn one(&self, out: &mut [u64]) {
        assert!(
            self.pow,
            "Lanes8: made without the exponentiation's constants"
        );
        out.copy_from_slice(&self.one);
    }

    /// `out` = the domain form x 2^e mod n (below 2n) of each lane's Montgomery form
    /// `xs[l]` (s words below 2n); lanes past `xs` get 0. `scratch` is `8 D` words.
    pub fn enter(&self, xs: &[&[u64]], out: &mut [u64], scratch: &mut [u64]) {
        assert!(
            self.pow,
            "Lanes8: made without the exponentiation's constants"
        );
        scratch.fill(0);
        for (l, x) in xs.iter().enumerate().take(LANES) {
            scatter_lane(x, l, self.d, scratch);
        }
        self.amm(scratch, &self.c_in, out);
    }

    /// `outs[l]` = lane l's Montgomery form (s words, finished under its policy) of
    /// the domain value `y`, for the lanes in use. `scratch` is `8 D` words.
    pub fn leave(&self, y: &[u64], outs: &mut [Vec<u64>], scratch: &mut [u64]) {
        self.amm(y, &self.r1, scratch);
        self.gather(scratch, outs);
    }

    /// `outs[l] = a_l b_l R^-1 mod n_l` (montmul's Montgomery product, s words per
    /// operand below 2n, finished under the lane's policy) for the lanes in use:
    /// b shifted left by e bits, then one [`amm`]: (a b 2^e + Q n) / 2^(52 D) =
    /// (a b + Q n 2^-e) / R. Bound: b 2^e < 2^(52 D) since b < 2n < 2^(64 s - 1) or
    /// b < n < 2^bits(n). Lanes past `a` compute 0.
    pub fn mul(&self, a: &[&[u64]], b: &[&[u64]], outs: &mut [Vec<u64>]) {
        let (d, s) = (self.d, self.s);
        let mut ad = Zeroizing::new(vec![0u64; 8 * d]);
        let mut bd = Zeroizing::new(vec![0u64; 8 * d]);
        let mut shifted = Zeroizing::new(vec![0u64; s + 2]);
        for (l, (x, y)) in a.iter().zip(b).enumerate().take(LANES) {
            scatter_lane(x, l, d, &mut ad);
            shl(y, self.e, &mut shifted);
            scatter_lane(&shifted, l, d, &mut bd);
        }
        let mut z = Zeroizing::new(vec![0u64; 8 * d]);
        self.amm(&ad, &bd, &mut z);
        self.gather(&z, outs);
    }

    /// The lanes in use of `z` (below 2n each) as words, finished under their
    /// policies, into `outs` (s words each).
    fn gather(&self, z: &[u64], outs: &mut [Vec<u64>]) {
        let mut words = Zeroizing::new(vec![0u64; 13 * self.d.div_ceil(16)]);
        for (l, out) in outs.iter_mut().enumerate().take(self.lanes) {
            gather_lane(z, l, self.d, &mut words);
            // Below 2n < 2^(64 s + 1): the bits above s words are word s, if any.
            let top = words.get(self.s).copied().unwrap_or(0);
            out.resize(self.s, 0);
            finish(
                &words[..self.s],
                top,
                &self.n_words[l],
                self.reduction[l],
                out,
            );
        }
    }
}

/// Prints the shape, never a constant.
impl core::fmt::Debug for Lanes8 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lanes8")
            .field("lanes", &self.lanes)
            .field("limbs", &self.s)
            .field("digits", &self.d)
            .finish_non_exhaustive()
    }
}

impl Drop for Lanes8 {
    fn drop(&mut self) {
        self.k0.zeroize();
    }
}

/// `out = x 2^e` for e < 128 (`out` holds the shifted value: at least as many words
/// as it needs; the words above are 0). Shifts only.
fn shl(x: &[u64], e: u32, out: &mut [u64]) {
    out.fill(0);
    let (words, bits) = ((e / 64) as usize, e % 64);
    for (i, &w) in x.iter().enumerate() {
        out[i + words] |= w << bits;
        if bits > 0 && i + words + 1 < out.len() {
            out[i + words + 1] |= w >> (64 - bits);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scattering a lane's words into digits and gathering them back gives the words,
    /// and the digits are the value's 52-bit digits; the shift is a shift.
    #[test]
    fn lanes_round_trip_and_shift() {
        let mut seed = 0x5eed_u64;
        for s in [1usize, 2, 8, 13, 16, 17, 64, 129] {
            let d = (64 * s).div_ceil(52);
            let mut z = vec![0u64; 8 * d];
            let xs: Vec<Vec<u64>> = (0..LANES)
                .map(|l| {
                    (0..s)
                        .map(|_| {
                            seed = seed.rotate_left(17).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 3;
                            [u64::MAX, seed, 1 << 63 | 1][l % 3]
                        })
                        .collect()
                })
                .collect();
            for (l, x) in xs.iter().enumerate() {
                scatter_lane(x, l, d, &mut z);
            }
            assert!(z.iter().all(|&g| g <= DIGIT));
            for (l, x) in xs.iter().enumerate() {
                let bit = |p: usize| x.get(p / 64).map_or(0, |w| (w >> (p % 64)) & 1);
                // Digit j is bits 52 j .. 52 j + 52.
                for j in 0..d {
                    let want = (0..52).fold(0, |v, b| v | bit(52 * j + b) << b);
                    assert_eq!(z[8 * j + l], want, "{s} limbs, lane {l}, digit {j}");
                }
                let mut words = vec![0u64; 13 * d.div_ceil(16)];
                gather_lane(&z, l, d, &mut words);
                assert_eq!(&words[..s], &x[..]);
                assert!(words[s..].iter().all(|&w| w == 0));
                for e in [0u32, 1, 12, 63, 64, 100, 127] {
                    let mut out = vec![0u64; s + 2];
                    shl(x, e, &mut out);
                    for p in 0..64 * (s + 2) {
                        let got = (out[p / 64] >> (p % 64)) & 1;
                        let want = if p >= e as usize {
                            bit(p - e as usize)
                        } else {
                            0
                        };
                        assert_eq!(got, want, "{s} limbs, shift {e}, bit {p}");
                    }
                }
            }
        }
    }
}
