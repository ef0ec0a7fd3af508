//! Modular inverse modulo an odd n: a binary GCD, constant-time for secrets and a
//! variable-time variant of the same for public values.
//!
//! Both keep two pairs `(a, u)` and `(b, v)` with `a x = u y` and `b x = v y (mod n)`
//! (y the value to invert, x = 1), starting from `a = y, u = 1` and `b = n, v = 0`, and
//! shrink `a` and `b` by binary steps (halving an even `a`, or replacing the larger of
//! two odd values by their difference, halved) until `a = 0`; then `b = gcd(y, n)`, and
//! when it is 1, `v = y^-1 mod n`.
//!
//! [`inv_ct`] is Thomas Pornin's optimized binary GCD ("Optimized Binary GCD for Modular
//! Inversion", IACR eprint 2020/972, Algorithm 2, here with k = 62: the scheme of
//! BearSSL's inversion and crypto-bigint's `bingcd`, which take k = 32 on 64-bit
//! words). Each outer iteration builds one 124-bit word per value,
//! `a~ = (a mod 2^61) + 2^61 floor(a / 2^(len - 63))` with `len = max(len(a), len(b))`
//! (the low 61 bits and the top 63 bits), or takes `a` itself when both values are below
//! 2^128; it runs 61 binary steps on those words alone, recording them as a 2x2 matrix
//! of signed factors `(f0 g0; f1 g1)`, and then applies the matrix to the full values:
//! `a <- (a f0 + b g0) / 2^61`, `b <- (a f1 + b g1) / 2^61` (exact divisions: the low 61
//! bits that drove every parity choice are exact), negating a row when its result is
//! negative, and `u <- (u f0 + v g0) / 2^61 mod n` likewise for v, the division being
//! Montgomery's (add the multiple of n that clears the low 61 bits). As in Bernstein and
//! Yang's safegcd, u and v are kept in (-2n, n) rather than reduced at every iteration,
//! and brought into [0, n) once at the end. Sixty-one steps a pass rather than 31 halve
//! the passes over the full values, which are most of the time.
//!
//! Iteration count (the paper's Section 3 bound, also crypto-bigint's): every outer
//! iteration lowers `len(a) + len(b)` by at least 61 (k - 1) until `a = 0`, even when the
//! approximate words picked a "wrong" subtraction (the result then goes negative and is
//! negated); with exact words every step is a true binary step, which lowers it by one.
//! `len(a) + len(b) <= 2 bits(n)` at the start while the end state (`a = 0`, `b = 1`)
//! has length sum 1. So `ceil((2 bits(n) - 1) / 61)` outer iterations suffice; once
//! `a = 0` further iterations leave `b` and `v mod n` unchanged (a zero `a~` is even:
//! only halvings, so `(f1, g1) = (0, 2^61)` and `v <- v 2^61 / 2^61`, plus n where v
//! was negative).
//!
//! Factor bounds: after j inner steps `|f0| + |g0| <= 2^j` and `|f1| + |g1| <= 2^j`
//! (a subtraction adds two such sums, a doubling doubles one), so after 61 steps every
//! factor fits an `i64` with room, `|a f0 + b g0| <= 2^61 max(a, b)`, and the new `a`
//! and `b` are below `max(a, b)` in absolute value: they fit the same words.
//!
//! Full values are held in `u64` words converted from the limbs (the conversion only
//! depends on the public limb count), whatever the limb type.
//!
//! [`inv_vartime`] runs the same iterations, but stops when `a = 0` and works on the
//! significant words of `a` and `b` only, branching on the values: for public inputs
//! only. The tests hold both to the plain binary loop (HAC 14.61, one bit a step).

use crate::Limb;

/// Inner steps per outer iteration (k - 1 in the paper, k = 62).
const STEPS: u32 = 61;

/// `2^61 - 1`: the low bits of an approximate word that are exact.
const LOW: u64 = (1 << STEPS) - 1;

/// `x^-1 mod n` for `x < n` and odd `n`, both `s` limbs; `bits` is n's bit length.
/// Returns the inverse (0 when there is none) and 1 when it exists, else 0 (for x = 0
/// and whenever gcd(x, n) > 1).
///
/// Constant-time in x and n: `ceil((2 bits - 1) / 61)` outer iterations of the same
/// word operations, all choices by masks. Only `bits` and the limb count are public.
pub(crate) fn inv_ct<L: Limb>(x: &[L], n: &[L], bits: u32) -> (Vec<L>, L) {
    let s = n.len();
    let t = (s * L::BITS as usize).div_ceil(64);
    let m = to_words(n, t);
    // Every value one word longer than n, in two's complement: `a` and `b` for the
    // signs of their combinations, `u` and `v` for their range (-2n, n).
    let mut a = to_words(x, t + 1);
    let mut b = to_words(n, t + 1);
    // u = 1 mod n: 0 when n = 1 (then every coefficient is 0 mod n).
    let mut u = vec![0u64; t + 1];
    u[0] = !eq_mask(&m, 1) & 1;
    let mut v = vec![0u64; t + 1];
    let ninv = inverse_word(m[0]);
    let mut na = vec![0u64; t + 1];
    let mut nb = vec![0u64; t + 1];
    let mut nu = vec![0u64; t + 1];
    let mut nv = vec![0u64; t + 1];
    for _ in 0..round_bound(bits) {
        let (a_approx, b_approx) = approximate(&a[..t], &b[..t]);
        let [mut f0, mut g0, mut f1, mut g1] = steps(a_approx, b_approx);
        // Exact divisions by 2^61; the results are in (-max(a, b), max(a, b)).
        combine(&mut na, &a, f0, &b, g0, &[], 0);
        combine(&mut nb, &a, f1, &b, g1, &[], 0);
        let neg_a = sign_mask(&na);
        let neg_b = sign_mask(&nb);
        negate_masked(&mut na, neg_a);
        negate_masked(&mut nb, neg_b);
        (f0, g0) = (
            (f0 ^ neg_a).wrapping_sub(neg_a),
            (g0 ^ neg_a).wrapping_sub(neg_a),
        );
        (f1, g1) = (
            (f1 ^ neg_b).wrapping_sub(neg_b),
            (g1 ^ neg_b).wrapping_sub(neg_b),
        );
        core::mem::swap(&mut a, &mut na);
        core::mem::swap(&mut b, &mut nb);
        update_coefficients(
            [&mut u, &mut v],
            [&mut nu, &mut nv],
            [f0, g0, f1, g1],
            &m,
            ninv,
        );
    }
    normalize(&mut v, &m);
    // b = gcd(x, n): 1 exactly when the inverse exists. The mask is hidden from the
    // optimiser, which would otherwise clear `v` behind a branch on it.
    let ok = core::hint::black_box(eq_mask(&b, 1));
    for w in v.iter_mut() {
        *w &= ok;
    }
    let out = from_words::<L>(&v, s);
    wipe(&mut [
        &mut a, &mut b, &mut u, &mut v, &mut na, &mut nb, &mut nu, &mut nv,
    ]);
    (out, L::from_u64(ok & 1))
}

/// The outer iterations that bring `a` to 0 for an n of `bits` bits (`bits >= 1`, n
/// odd): the paper's bound, `ceil((2 bits - 1) / 61)` (module doc).
fn round_bound(bits: u32) -> usize {
    (2 * bits as usize)
        .saturating_sub(1)
        .div_ceil(STEPS as usize)
}

/// `n0^-1 mod 2^64` for odd `n0`, by Newton: `n0 n0 = 1 (mod 8)`, and each step doubles
/// the exact bits (3, 6, 12, 24, 48, 96).
fn inverse_word(n0: u64) -> u64 {
    let mut inv = n0;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(n0.wrapping_mul(inv)));
    }
    inv
}

/// The limbs of `x` as `t` little-endian `u64` words (zero-padded).
fn to_words<L: Limb>(x: &[L], t: usize) -> Vec<u64> {
    let mut out = vec![0u64; t];
    for (i, &l) in x.iter().enumerate() {
        let bit = i * L::BITS as usize;
        out[bit / 64] |= l.to_u64() << (bit % 64);
    }
    out
}

/// The first `s` limbs of the words `w`.
fn from_words<L: Limb>(w: &[u64], s: usize) -> Vec<L> {
    (0..s)
        .map(|i| {
            let bit = i * L::BITS as usize;
            L::from_u64(w[bit / 64] >> (bit % 64))
        })
        .collect()
}

/// All ones when `x` is the small value `k`, else 0; constant-time.
fn eq_mask(x: &[u64], k: u64) -> u64 {
    let diff = x[1..].iter().fold(x[0] ^ k, |acc, &w| acc | w);
    // (d | -d) has its top bit set exactly when d != 0.
    ((diff | diff.wrapping_neg()) >> 63).wrapping_sub(1)
}

/// All ones when the two's-complement value `x` is negative, else 0.
fn sign_mask(x: &[u64]) -> u64 {
    ((x[x.len() - 1] as i64) >> 63) as u64
}

/// Leading zeros of `x` (64 for 0) without a branch or a data-dependent instruction
/// count: a binary search by masks.
fn leading_zeros_ct(mut x: u64) -> u32 {
    let mut n = 0u64;
    for shift in [32u32, 16, 8, 4, 2, 1] {
        let top = x >> (64 - shift);
        // 1 when the top `shift` bits are all zero.
        let zero = ((top | top.wrapping_neg()) >> 63) ^ 1;
        n += zero * shift as u64;
        x = x ^ ((x ^ (x << shift)) & zero.wrapping_neg());
    }
    // x's top bit is set now unless x was 0.
    (n + ((x >> 63) ^ 1)) as u32
}

/// `(u, v) <- ((u f0 + v g0) / 2^61, (u f1 + v g1) / 2^61) mod n` (n in `m`, `ninv` =
/// n^-1 mod 2^64), through the scratch `nu`, `nv`, the values kept in (-2n, n) as
/// two's complement one word longer than n: Montgomery's division without its final
/// subtraction, as in Bernstein and Yang's safegcd (libsecp256k1's `update_de`).
/// Constant-time (the same words and operations whatever the values).
///
/// Each sum gets `n md` with `md = f [u < 0] + g [v < 0] - k`: the first two terms
/// make it `u' f + v' g` for `u' = u + n [u < 0]` and `v'` likewise, both in (-n, n), so
/// that part is in `(-n 2^61, n 2^61)` (as `|f| + |g| <= 2^61`); `k` in [0, 2^61) clears
/// the low 61 bits and takes the sum to `(-2n 2^61, n 2^61)`, its quotient back to
/// (-2n, n). `|md| <= 2^62`, within `combine`'s bound.
fn update_coefficients(
    [u, v]: [&mut Vec<u64>; 2],
    [nu, nv]: [&mut Vec<u64>; 2],
    [f0, g0, f1, g1]: [u64; 4],
    m: &[u64],
    ninv: u64,
) {
    let (su, sv) = (sign_mask(u), sign_mask(v));
    let factor = |f: u64, g: u64| {
        let md = (f & su).wrapping_add(g & sv);
        let low = u[0]
            .wrapping_mul(f)
            .wrapping_add(v[0].wrapping_mul(g))
            .wrapping_add(m[0].wrapping_mul(md));
        md.wrapping_sub(low.wrapping_mul(ninv) & LOW)
    };
    combine(nu, u, f0, v, g0, m, factor(f0, g0));
    combine(nv, u, f1, v, g1, m, factor(f1, g1));
    core::mem::swap(u, nu);
    core::mem::swap(v, nv);
}

/// A coefficient in (-2n, n) (two's complement, one word more than n) to its residue in
/// [0, n): n added twice where negative. Constant-time.
fn normalize(x: &mut [u64], n: &[u64]) {
    add_masked(x, n, sign_mask(x));
    add_masked(x, n, sign_mask(x));
}

/// The approximate words of `a` and `b` (`b` odd, so not both 0): exact when both are
/// below 2^128, else the low 61 bits under the 63 bits from `len = max(len(a), len(b))`
/// down. The top word and its lower neighbour are found by a scan over every word, the
/// choices by masks.
fn approximate(a: &[u64], b: &[u64]) -> (u128, u128) {
    let (mut a_hi, mut a_lo, mut b_hi, mut b_lo) = (0u64, 0u64, 0u64, 0u64);
    // All ones while every word above j is zero in both.
    let mut above_zero = u64::MAX;
    let mut high = 0u64;
    for j in (0..a.len()).rev() {
        let (a_next, b_next) = if j > 0 { (a[j - 1], b[j - 1]) } else { (0, 0) };
        a_hi ^= (a_hi ^ a[j]) & above_zero;
        b_hi ^= (b_hi ^ b[j]) & above_zero;
        a_lo ^= (a_lo ^ a_next) & above_zero;
        b_lo ^= (b_lo ^ b_next) & above_zero;
        let w = a[j] | b[j];
        if j > 1 {
            high |= w;
        }
        above_zero &= ((w | w.wrapping_neg()) >> 63).wrapping_sub(1);
    }
    // Where some word above the second is nonzero, the top word pair holds bit len - 1
    // in its high word, and len - 63 >= 66 > 61: the two parts do not overlap.
    let big = (high | high.wrapping_neg()) >> 63;
    let big = (big as u128).wrapping_neg();
    let lz = leading_zeros_ct(a_hi | b_hi);
    let top = |hi: u64, lo: u64| (((hi as u128) << 64 | lo as u128) << lz) >> 65;
    let approx = |x: &[u64], hi: u64, lo: u64| (x[0] & LOW) as u128 | top(hi, lo) << STEPS;
    // The exact values where both fit 128 bits (the slices' lengths are public).
    let exact = |x: &[u64]| x[0] as u128 | (x.get(1).copied().unwrap_or(0) as u128) << 64;
    let (a_exact, b_exact) = (exact(a), exact(b));
    (
        a_exact ^ ((a_exact ^ approx(a, a_hi, a_lo)) & big),
        b_exact ^ ((b_exact ^ approx(b, b_hi, b_lo)) & big),
    )
}

/// The 61 binary steps on the approximate words (`b` odd), as the matrix
/// `[f0, g0, f1, g1]` (two's-complement `i64` in `u64`) with
/// `(a', b') 2^61 = (f0 a + g0 b, f1 a + g1 b)` for the exact values whose low 61 bits
/// these are. Each step: if a is odd, swap when a < b, then a -= b; then a /= 2 and
/// (f1, g1) *= 2. Every choice by masks.
fn steps(mut a: u128, mut b: u128) -> [u64; 4] {
    let (mut f0, mut g0, mut f1, mut g1) = (1u64, 0u64, 0u64, 1u64);
    for _ in 0..STEPS {
        let odd = (a as u64 & 1).wrapping_neg();
        let odd_wide = widen(odd);
        let (_, lt) = a.overflowing_sub(b);
        let swap = odd & (lt as u64).wrapping_neg();
        let t = widen(swap) & (a ^ b);
        (a, b) = (a ^ t, b ^ t);
        let t = swap & (f0 ^ f1);
        (f0, f1) = (f0 ^ t, f1 ^ t);
        let t = swap & (g0 ^ g1);
        (g0, g1) = (g0 ^ t, g1 ^ t);
        // a >= b after the swap: no wrap.
        a = a.wrapping_sub(b & odd_wide);
        f0 = f0.wrapping_sub(f1 & odd);
        g0 = g0.wrapping_sub(g1 & odd);
        a >>= 1;
        f1 <<= 1;
        g1 <<= 1;
    }
    [f0, g0, f1, g1]
}

/// A mask of all ones or all zeros, the same over 128 bits (a sign extension: no
/// branch).
#[inline(always)]
fn widen(mask: u64) -> u128 {
    mask as i64 as i128 as u128
}

/// `out = (x f + y g + z k) / 2^61` for `x`, `y` and `out` in two's complement over the
/// same number of words (the top one signed), `z` unsigned over fewer (empty for no
/// third term), `f`, `g`, `k` two's-complement `i64` with `|f| + |g| <= 2^61` and
/// `|k| <= 2^62`, and a sum divisible by 2^61 that fits the words: the callers' sums,
/// `2^61 max(a, b)` and `2^62 n` at most in absolute value, are below
/// `2^(64 (len - 1) + 62)`. Per word the `i128` sum is below `2^125 + 2^126 + 2^64` in
/// absolute value (the carry in below `2^63`): no overflow. The quotient's words are
/// written one behind the sum's.
fn combine(out: &mut [u64], x: &[u64], f: u64, y: &[u64], g: u64, z: &[u64], k: u64) {
    let (f, g, k) = (f as i64 as i128, g as i64 as i128, k as i64 as i128);
    let top = x.len() - 1;
    debug_assert!(y.len() == x.len() && out.len() == x.len() && z.len() <= top);
    let mut carry: i128 = 0;
    let mut prev = 0u64;
    let mut emit = |i: usize, sum: i128, carry: &mut i128| {
        let w = sum as u64;
        if i > 0 {
            out[i - 1] = (prev >> STEPS) | (w << (64 - STEPS));
        }
        prev = w;
        *carry = sum >> 64;
    };
    for i in 0..z.len() {
        let sum = x[i] as i128 * f + y[i] as i128 * g + z[i] as i128 * k + carry;
        emit(i, sum, &mut carry);
    }
    for i in z.len()..top {
        let sum = x[i] as i128 * f + y[i] as i128 * g + carry;
        emit(i, sum, &mut carry);
    }
    let sum = x[top] as i64 as i128 * f + y[top] as i64 as i128 * g + carry;
    emit(top, sum, &mut carry);
    out[top] = ((prev as i64) >> STEPS) as u64;
}

/// `x += n & mask` over the words of `x` (n zero-extended), the carry out dropped.
fn add_masked(x: &mut [u64], n: &[u64], mask: u64) {
    // Hidden from the optimiser: knowing the mask is 0 or all ones, it would skip the
    // loop on 0 (a branch on the secret sign or borrow; memcheck found one here).
    let mask = core::hint::black_box(mask);
    let mut carry = 0u64;
    for i in 0..x.len() {
        let ni = if i < n.len() { n[i] & mask } else { 0 };
        let (s, c1) = x[i].overflowing_add(ni);
        let (s, c2) = s.overflowing_add(carry);
        x[i] = s;
        carry = (c1 | c2) as u64;
    }
}

/// `x = -x` (two's complement over its words) where `mask` is all ones, unchanged where
/// it is 0: `(x ^ mask) - mask`, the carry running through.
fn negate_masked(x: &mut [u64], mask: u64) {
    let mask = core::hint::black_box(mask);
    let mut carry = mask & 1;
    for w in x.iter_mut() {
        let (s, c) = (*w ^ mask).overflowing_add(carry);
        *w = s;
        carry = c as u64;
    }
}

/// `x^-1 mod n` for `x < n` and odd `n`, both `s` limbs, or `None` when gcd(x, n) > 1
/// (x = 0 included). Variable-time: the iteration count, the words worked on and the
/// signs' branches depend on x and n. For public values only.
///
/// The method of [`inv_ct`] (the same approximations, steps and combinations), with
/// what makes it constant-time left out: it stops when `a = 0` instead of after the
/// bound, and combines `a` and `b` over their significant words only (they shrink by
/// at least 61 bits an iteration between them). The coefficients `u` and `v` stay
/// full-length, in (-2n, n) until the end.
pub(crate) fn inv_vartime<L: Limb>(x: &[L], n: &[L]) -> Option<Vec<L>> {
    inv_vartime_rounds(x, n).0
}

/// [`inv_vartime`], and the number of outer iterations it took: the same iterations as
/// [`inv_ct`]'s up to a = 0 (the approximate words depend on the values only), so the
/// tests hold this count to `inv_ct`'s bound.
fn inv_vartime_rounds<L: Limb>(x: &[L], n: &[L]) -> (Option<Vec<L>>, usize) {
    let s = n.len();
    let t = (s * L::BITS as usize).div_ceil(64);
    let m = to_words(n, t);
    // One word longer than n, as in `inv_ct`.
    let mut a = to_words(x, t + 1);
    let mut b = to_words(n, t + 1);
    let mut u = vec![0u64; t + 1];
    u[0] = u64::from(m[0] != 1 || m[1..].iter().any(|&w| w != 0));
    let mut v = vec![0u64; t + 1];
    let ninv = inverse_word(m[0]);
    let mut na = vec![0u64; t + 1];
    let mut nb = vec![0u64; t + 1];
    let mut nu = vec![0u64; t + 1];
    let mut nv = vec![0u64; t + 1];
    // a < n = b: the significant words of both, and a zero word above them (len <= t).
    let mut len = significant_words(&b);
    let mut rounds = 0;
    while a[..len].iter().any(|&w| w != 0) {
        rounds += 1;
        let (a_approx, b_approx) = approximate(&a[..len], &b[..len]);
        let [mut f0, mut g0, mut f1, mut g1] = steps(a_approx, b_approx);
        combine(&mut na[..=len], &a[..=len], f0, &b[..=len], g0, &[], 0);
        combine(&mut nb[..=len], &a[..=len], f1, &b[..=len], g1, &[], 0);
        // Below max(a, b) in absolute value (inv_ct's bounds): `len` words after the sign.
        if sign_mask(&na[..=len]) != 0 {
            negate_masked(&mut na[..=len], u64::MAX);
            (f0, g0) = (f0.wrapping_neg(), g0.wrapping_neg());
        }
        if sign_mask(&nb[..=len]) != 0 {
            negate_masked(&mut nb[..=len], u64::MAX);
            (f1, g1) = (f1.wrapping_neg(), g1.wrapping_neg());
        }
        a[..len].copy_from_slice(&na[..len]);
        b[..len].copy_from_slice(&nb[..len]);
        update_coefficients(
            [&mut u, &mut v],
            [&mut nu, &mut nv],
            [f0, g0, f1, g1],
            &m,
            ninv,
        );
        len = significant_words(&a[..len]).max(significant_words(&b[..len]));
    }
    // b = gcd(x, n).
    normalize(&mut v, &m);
    let inverse = (b[0] == 1 && b[1..len].iter().all(|&w| w == 0)).then(|| from_words::<L>(&v, s));
    (inverse, rounds)
}

/// The number of words of `x` up to its highest nonzero one, at least 1.
fn significant_words(x: &[u64]) -> usize {
    x.iter().rposition(|&w| w != 0).map_or(1, |i| i + 1)
}

/// Zeroizes the working vectors (they held values derived from a secret).
fn wipe<T: zeroize::DefaultIsZeroes>(vs: &mut [&mut Vec<T>]) {
    use zeroize::Zeroize;
    for v in vs.iter_mut() {
        v.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ct;

    /// The plain binary inverse (HAC 14.61, the coefficients kept mod n), one bit a
    /// step: the reference the tests hold both inverses to.
    fn binary_reference<L: Limb>(x: &[L], n: &[L]) -> Option<Vec<L>> {
        let s = n.len();
        let mut a = x.to_vec();
        let mut b = n.to_vec();
        let mut u = vec![L::ZERO; s];
        u[0] = L::ONE;
        let mut v = vec![L::ZERO; s];
        // (n + 1) / 2: u / 2 mod n is u >> 1, plus this when u is odd.
        let mut half = n.to_vec();
        shr1(&mut half, L::ZERO);
        let mut one = vec![L::ZERO; s];
        one[0] = L::ONE;
        ct::add_masked(&mut half, &one, L::MAX);
        while a.iter().any(|&l| l != L::ZERO) {
            while a[0].and(L::ONE) == L::ZERO {
                shr1(&mut a, L::ZERO);
                let odd = ct::mask(u[0].and(L::ONE));
                shr1(&mut u, L::ZERO);
                ct::add_masked(&mut u, &half, odd);
            }
            // Both odd: subtract the smaller from the larger (b stays odd).
            if ct::borrow_of_sub(&a, &b) == L::ONE {
                core::mem::swap(&mut a, &mut b);
                core::mem::swap(&mut u, &mut v);
            }
            ct::sub_masked(&mut a, &b, L::MAX);
            let borrow = ct::sub_masked(&mut u, &v, L::MAX);
            ct::add_masked(&mut u, n, ct::mask(borrow));
        }
        let is_one = b[0] == L::ONE && b[1..].iter().all(|&l| l == L::ZERO);
        is_one.then_some(v)
    }

    /// `x = (top * 2^(w len) + x) >> 1`, `top` 0 or 1.
    fn shr1<L: Limb>(x: &mut [L], top: L) {
        let mut carry = top;
        for limb in x.iter_mut().rev() {
            let next = limb.and(L::ONE);
            *limb = limb.shr(1).or(carry.shl(L::BITS - 1));
            carry = next;
        }
    }

    #[test]
    fn small_inverses_by_brute_force() {
        // Every x modulo a few small odd n, one-limb u8.
        for n in [3u8, 9, 15, 77, 127, 255] {
            let bits = 8 - n.leading_zeros();
            for x in 0..n {
                let want = (1..n).find(|&y| (x as u32 * y as u32) % n as u32 == 1);
                let (got, ok) = inv_ct(&[x], &[n], bits);
                assert_eq!(ok == 1, want.is_some(), "n {n} x {x}");
                assert_eq!(got[0], want.unwrap_or(0), "n {n} x {x}");
                assert_eq!(inv_vartime(&[x], &[n]).map(|v| v[0]), want, "n {n} x {x}");
                assert_eq!(
                    binary_reference(&[x], &[n]).map(|v| v[0]),
                    want,
                    "n {n} x {x}"
                );
            }
        }
    }

    #[test]
    fn word_helpers() {
        let mut x = [1u64, 0];
        negate_masked(&mut x, u64::MAX);
        assert_eq!(x, [u64::MAX, u64::MAX]);
        negate_masked(&mut x, 0);
        assert_eq!(x, [u64::MAX, u64::MAX]);
        let mut y = [0u8, 1];
        shr1(&mut y, 1);
        assert_eq!(y, [0x80, 0x80]);
        for (v, want) in [
            (0u64, 64),
            (1, 63),
            (u64::MAX, 0),
            (1 << 40, 23),
            (0x1ff, 55),
        ] {
            assert_eq!(leading_zeros_ct(v), want, "{v:x}");
        }
        let limbs = [0x12u8, 0x34, 0x56];
        let words = to_words(&limbs, 1);
        assert_eq!(words, [0x563412]);
        assert_eq!(from_words::<u8>(&words, 3), limbs);
        assert_eq!(eq_mask(&[1, 0], 1), u64::MAX);
        assert_eq!(eq_mask(&[1, 1], 1), 0);
    }

    /// `x`, two's complement over its words, as an integer.
    fn signed_value(x: &[u64]) -> num_bigint::BigInt {
        use num_bigint::{BigInt, BigUint};
        let bytes: Vec<u8> = x.iter().flat_map(|w| w.to_le_bytes()).collect();
        let unsigned = BigInt::from(BigUint::from_bytes_le(&bytes));
        if sign_mask(x) == 0 {
            unsigned
        } else {
            unsigned - (BigInt::from(1u8) << (64 * x.len()))
        }
    }

    /// `x` as two's complement over `len` words.
    fn signed_words(x: &num_bigint::BigInt, len: usize) -> Vec<u64> {
        let modulus = num_bigint::BigInt::from(1u8) << (64 * len);
        let (_, mut bytes) = (((x % &modulus) + &modulus) % &modulus).to_bytes_le();
        bytes.resize(8 * len, 0);
        bytes
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    /// The coefficient update keeps u and v in (-2n, n) and computes
    /// `(u f + v g) / 2^61 mod n`, checked with num-bigint at the extremes of both:
    /// u and v at -2n + 1, -n, -1, 0, 1, n - 1 and random; matrices with
    /// `|f| + |g| = 2^61` in every sign pattern.
    #[test]
    fn coefficient_updates_stay_in_range() {
        use num_bigint::BigInt;
        let mut st = 11u64;
        let mut moduli: Vec<Vec<u64>> = vec![vec![1], vec![3], vec![u64::MAX], vec![1, 1]];
        for t in [1usize, 2, 5] {
            for top_bits in [64u32, 40, 1] {
                let mut m: Vec<u64> = (0..t).map(|_| next(&mut st)).collect();
                m[t - 1] = (m[t - 1] >> (64 - top_bits)) | (1 << (top_bits - 1));
                m[0] |= 1;
                moduli.push(m);
            }
        }
        let full = 1i64 << STEPS;
        let mut matrices = vec![[full, 0], [-full, 0], [0, full], [0, -full]];
        for sign in [[1, 1], [1, -1], [-1, 1], [-1, -1]] {
            let r = (next(&mut st) % (1 << STEPS)) as i64;
            let half = 1 << (STEPS - 1);
            matrices.push([sign[0] * half, sign[1] * half]);
            matrices.push([sign[0] * r, sign[1] * (full - r)]);
        }
        for m in moduli {
            let t = m.len();
            let n = signed_value(&[m.clone(), vec![0]].concat());
            let ninv = inverse_word(m[0]);
            let random = |st: &mut u64| {
                let r = signed_value(&(0..=t).map(|_| next(st)).collect::<Vec<_>>());
                ((r % (3 * &n)) + 3 * &n) % (3 * &n) - 2 * &n
            };
            let mut values: Vec<BigInt> = vec![
                1 - 2 * &n,
                -n.clone(),
                BigInt::from(-1),
                BigInt::from(0),
                BigInt::from(1),
                &n - 1,
            ];
            values.push(random(&mut st));
            values.push(random(&mut st));
            // 1 is out of range for n = 1.
            values.retain(|x| -2 * &n < *x && *x < n);
            for u in &values {
                for v in &values {
                    for [f0, g0] in &matrices {
                        let [f1, g1] = matrices[(next(&mut st) % matrices.len() as u64) as usize];
                        let (mut uw, mut vw) = (signed_words(u, t + 1), signed_words(v, t + 1));
                        let (mut nu, mut nv) = (vec![0; t + 1], vec![0; t + 1]);
                        let factors = [*f0, *g0, f1, g1].map(|x| x as u64);
                        update_coefficients(
                            [&mut uw, &mut vw],
                            [&mut nu, &mut nv],
                            factors,
                            &m,
                            ninv,
                        );
                        for (got, f, g) in [(&uw, *f0, *g0), (&vw, f1, g1)] {
                            let got = signed_value(got);
                            let ctx = format!("n {n} u {u} v {v} f {f} g {g}: {got}");
                            assert!(-2 * &n < got && got < n, "range: {ctx}");
                            let diff = (&got << STEPS) - (u * f + v * g);
                            assert_eq!(diff % &n, BigInt::from(0), "value: {ctx}");
                        }
                    }
                }
            }
        }
    }

    /// A SplitMix step: test values only.
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `inv_ct` and `inv_vartime` against the binary reference (all three are checked
    /// against num-bigint in the integration tests) on `(x, n)` of `bits` bits in limbs
    /// of `L`, and the iterations `inv_vartime` took (`inv_ct`'s up to a = 0) against
    /// the bound `inv_ct` runs.
    fn agree<L: Limb>(x: &[u64], n: &[u64], bits: u32) {
        let s = (bits.div_ceil(L::BITS)) as usize;
        let xl = from_words::<L>(x, s);
        let nl = from_words::<L>(n, s);
        let want = binary_reference(&xl, &nl);
        let (got, ok) = inv_ct(&xl, &nl, bits);
        let ctx = format!("w{} n {n:x?} x {x:x?}", L::BITS);
        assert_eq!(ok == L::ONE, want.is_some(), "inv_ct {ctx}");
        assert!(
            got == want.clone().unwrap_or_else(|| vec![L::ZERO; s]),
            "inv_ct {ctx}"
        );
        let (got, rounds) = inv_vartime_rounds(&xl, &nl);
        assert!(got == want, "inv_vartime {ctx}");
        assert!(rounds <= round_bound(bits), "{rounds} rounds: {ctx}");
    }

    /// Random moduli and values of many sizes, and operands built to fool the
    /// approximation (long shared top or bottom runs with n, powers of two, n - 2^j).
    #[test]
    fn both_inverses_agree_with_the_binary_reference() {
        let mut st = 7u64;
        for bits in (2..200).chain([255, 256, 257, 511, 1000, 1025]) {
            let t = (bits as usize).div_ceil(64);
            let top = |w: &mut Vec<u64>| {
                let r = bits % 64;
                if r != 0 {
                    w[t - 1] &= (1u64 << r) - 1;
                }
            };
            let set_top = |w: &mut Vec<u64>| w[(bits as usize - 1) / 64] |= 1 << ((bits - 1) % 64);
            // Moduli: random, 2^k - 1, 2^(k-1) + 1.
            let mut rnd: Vec<u64> = (0..t).map(|_| next(&mut st)).collect();
            top(&mut rnd);
            set_top(&mut rnd);
            rnd[0] |= 1;
            let mut ones = vec![u64::MAX; t];
            top(&mut ones);
            let mut sparse = vec![0u64; t];
            set_top(&mut sparse);
            sparse[0] |= 1;
            for n in [rnd, ones, sparse] {
                let below = |x: &[u64]| {
                    x.iter()
                        .zip(&n)
                        .rev()
                        .find(|(a, b)| a != b)
                        .map(|(a, b)| a < b)
                        .unwrap_or(false)
                };
                let mut xs: Vec<Vec<u64>> = Vec::new();
                for _ in 0..4 {
                    let mut x: Vec<u64> = (0..t).map(|_| next(&mut st)).collect();
                    top(&mut x);
                    xs.push(x);
                }
                // n - 2^j (shares n's top run), n with low bits cleared (shares its
                // bottom zeros), 2^j, 0, 1, n - 1, n - 2.
                for j in [
                    0u32,
                    1,
                    30,
                    31,
                    32,
                    33,
                    60,
                    61,
                    62,
                    63,
                    64,
                    65,
                    123,
                    124,
                    125,
                    127,
                    128,
                    129,
                    bits / 2,
                    bits.saturating_sub(2),
                ] {
                    if j + 1 >= bits {
                        continue;
                    }
                    let mut p = vec![0u64; t];
                    p[(j / 64) as usize] = 1 << (j % 64);
                    xs.push(p.clone());
                    let mut d = n.clone();
                    let mut borrow = 0u64;
                    for i in 0..t {
                        let (v, b1) = d[i].overflowing_sub(p[i]);
                        let (v, b2) = v.overflowing_sub(borrow);
                        d[i] = v;
                        borrow = (b1 | b2) as u64;
                    }
                    xs.push(d);
                    let mut c = n.clone();
                    for (i, w) in c.iter_mut().enumerate() {
                        let lo = (i as u32) * 64;
                        if lo + 64 <= j {
                            *w = 0;
                        } else if lo < j {
                            *w &= !((1u64 << (j - lo)) - 1);
                        }
                    }
                    xs.push(c);
                }
                let mut one = vec![0u64; t];
                one[0] = 1;
                xs.push(one);
                xs.push(vec![0u64; t]);
                let mut nm1 = n.clone();
                nm1[0] ^= 1;
                xs.push(nm1);
                for x in xs.into_iter().filter(|x| below(x)) {
                    agree::<u8>(&x, &n, bits);
                    agree::<u16>(&x, &n, bits);
                    agree::<u32>(&x, &n, bits);
                    agree::<u64>(&x, &n, bits);
                }
            }
        }
    }
}
