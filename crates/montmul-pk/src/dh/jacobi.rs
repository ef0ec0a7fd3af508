//! The Jacobi symbol (x/n) of public numbers, n odd: the check of a DH peer's value in
//! a safe-prime group ([`super::ffc::is_square_mod_prime_vartime`]).
//!
//! # Algorithm
//!
//! Bernstein and Yang's division steps ("Fast constant-time gcd computation and modular
//! inversion", 2019, sec. 8), in the variant that keeps both values nonnegative. From
//! f = n (odd), g = x and a counter delta = 1, each step is one of
//!
//! - g even: g <- g / 2, delta <- delta + 1;
//! - g odd, delta > 0: (f, g) <- (g, (g + f) / 2), delta <- 1 - delta;
//! - g odd, delta <= 0: g <- (g + f) / 2, delta <- delta + 1.
//!
//! f stays odd, and (g/f) changes only by signs that the low three bits of f and g
//! give: adding f to g leaves it alone, each halving multiplies it by (2/f) (-1 where
//! f = 3 or 5 mod 8), and the swap by quadratic reciprocity ((g/f) = -(f/g) where both
//! are 3 mod 4). Those rules need positive values; with the original steps' subtraction
//! `(g - f) / 2` a value may go negative, and the sign of the symbol would then depend
//! on signs the low bits do not show. When f reaches 1, (x/n) is the product of the
//! signs collected; when f = g > 1 (from there they stay equal) the gcd is f and the
//! symbol 0.
//!
//! # Code
//!
//! [`STEPS`] steps at a time on the low words of f and g, as in the constant-time
//! inverse (`montmul::Residue::inv`): after j steps the low 64 - j bits of each word
//! are still exact (a halving loses the top bit), so each of the 62 steps has the
//! three bits it reads. The steps are recorded as a matrix `(u v; q r)` with
//! `2^62 (f', g') = (u f + v g, q f + r g)`, whose entries are nonnegative and whose
//! rows each sum to at most 2^62 (a halving doubles one row, an addition makes a row
//! the sum of both), and one pass over the significant words applies it. Variable-time
//! throughout: for public values only.
//!
//! These steps, unlike the original ones, have no proven bound on their count
//! (libsecp256k1's variable-time Jacobi symbol follows the symbol along such steps too,
//! and also gives up after a bound): past [`max_rounds`] rounds, which random inputs do
//! not come near (the tests count them), the exact Euclidean algorithm on `num-bigint`
//! answers.

/// Steps per round: 62 leaves the three exact low bits the last step reads, and a
/// matrix whose rows sum to at most 2^62.
const STEPS: u32 = 62;

/// The Jacobi symbol (x/n) for odd n: 1, -1, or 0 when gcd(x, n) > 1. Variable-time.
///
/// n must be odd, as every caller's p is (`DhParams` refuses an even one): for an even
/// n the answer means nothing, and n = 0 would panic in the fallback's division.
pub(crate) fn jacobi_vartime(x: &[u8], n: &[u8]) -> i32 {
    debug_assert!(n.last().is_some_and(|b| b & 1 == 1), "even n");
    let words = x.len().max(n.len()).div_ceil(8).max(1);
    by_steps(x, n, max_rounds(words)).unwrap_or_else(|| euclid(x, n))
}

/// The rounds [`jacobi_vartime`] allows for values of `words` 64-bit words: 6 steps a
/// bit, in rounds of [`STEPS`]; about twice the original steps' proven bound (just
/// under 2.9 steps a bit), and twice the 3.0 steps a bit these took on random values of
/// 1000 to 4096 bits in the tests.
fn max_rounds(words: usize) -> usize {
    (2 * 3 * 64 * words).div_ceil(STEPS as usize) + 2
}

/// (x/n) by the division steps, or `None` after `max_rounds` rounds.
fn by_steps(x: &[u8], n: &[u8], max_rounds: usize) -> Option<i32> {
    let t = x.len().max(n.len()).div_ceil(8).max(1);
    let (mut f, mut g) = (le_words(n, t), le_words(x, t));
    let (mut nf, mut ng) = (vec![0u64; t], vec![0u64; t]);
    let mut len = significant(&f).max(significant(&g));
    // The steps keep g positive: (0/n) is 1 for n = 1, else 0.
    if g[..len].iter().all(|&w| w == 0) {
        return Some(i32::from(is_one(&f[..len])));
    }
    let mut delta = 1i64;
    let mut negative = false;
    for _ in 0..max_rounds {
        if is_one(&f[..len]) {
            return Some(if negative { -1 } else { 1 });
        }
        if f[..len] == g[..len] {
            return Some(0);
        }
        let ([u, v, q, r], flip);
        ([u, v, q, r], delta, flip) = steps(f[0], g[0], delta);
        negative ^= flip;
        apply(&mut nf[..len], &f[..len], u, &g[..len], v);
        apply(&mut ng[..len], &f[..len], q, &g[..len], r);
        core::mem::swap(&mut f, &mut nf);
        core::mem::swap(&mut g, &mut ng);
        len = significant(&f[..len]).max(significant(&g[..len]));
    }
    None
}

/// [`STEPS`] steps from the low words `f` (odd) and `g` of the values and the counter
/// `delta`: the matrix `[u, v, q, r]`, the new counter, and whether the symbol's sign
/// flipped an odd number of times.
fn steps(mut f: u64, mut g: u64, mut delta: i64) -> ([u64; 4], i64, bool) {
    let (mut u, mut v, mut q, mut r) = (1u64, 0u64, 0u64, 1u64);
    let mut flip = false;
    // (2/m) = -1 exactly when m = 3 or 5 mod 8.
    let two_flips = |m: u64| matches!(m & 7, 3 | 5);
    for _ in 0..STEPS {
        if g & 1 == 0 {
            flip ^= two_flips(f);
            g >>= 1;
            (u, v) = (u << 1, v << 1);
            delta += 1;
        } else if delta > 0 {
            // Reciprocity, then the halving under the new f (the old g).
            flip ^= f & 3 == 3 && g & 3 == 3;
            flip ^= two_flips(g);
            (f, g) = (g, g.wrapping_add(f) >> 1);
            (u, v, q, r) = (q << 1, r << 1, q + u, r + v);
            delta = 1 - delta;
        } else {
            flip ^= two_flips(f);
            g = g.wrapping_add(f) >> 1;
            (q, r) = (q + u, r + v);
            (u, v) = (u << 1, v << 1);
            delta += 1;
        }
    }
    ([u, v, q, r], delta, flip)
}

/// `out = (x a + y b) / 2^62` (an exact division) for `a + b <= 2^62` and a result
/// that fits `out`'s words. Per word `x_i a + y_i b + carry < 2^126 + 2^63`: no
/// overflow of the `u128`.
fn apply(out: &mut [u64], x: &[u64], a: u64, y: &[u64], b: u64) {
    let (a, b) = (u128::from(a), u128::from(b));
    let mut carry = 0u128;
    let mut prev = 0u64;
    for i in 0..x.len() {
        let acc = u128::from(x[i]) * a + u128::from(y[i]) * b + carry;
        let w = acc as u64;
        carry = acc >> 64;
        if i > 0 {
            out[i - 1] = (prev >> STEPS) | (w << (64 - STEPS));
        }
        prev = w;
    }
    out[x.len() - 1] = (prev >> STEPS) | ((carry as u64) << (64 - STEPS));
}

/// Big-endian bytes as `t` little-endian 64-bit words (at least as many as the bytes
/// need).
fn le_words(be: &[u8], t: usize) -> Vec<u64> {
    let mut out = vec![0u64; t];
    for (i, &byte) in be.iter().rev().enumerate() {
        out[i / 8] |= u64::from(byte) << (8 * (i % 8));
    }
    out
}

/// The number of words up to the highest nonzero one, at least 1.
fn significant(x: &[u64]) -> usize {
    x.iter().rposition(|&w| w != 0).map_or(1, |i| i + 1)
}

/// Whether the words hold the value 1.
fn is_one(x: &[u64]) -> bool {
    x[0] == 1 && x[1..].iter().all(|&w| w == 0)
}

/// (x/n) by the Euclidean form of the Jacobi algorithm (Cohen, "A Course in
/// Computational Algebraic Number Theory", Algorithm 1.4.10) on `num-bigint`: what
/// answers when the steps run past their bound.
fn euclid(x: &[u8], n: &[u8]) -> i32 {
    use num_bigint::BigUint;
    let low = |v: &BigUint| v.iter_u64_digits().next().unwrap_or(0);
    let mut n = BigUint::from_bytes_be(n);
    let mut a = BigUint::from_bytes_be(x) % &n;
    // The symbol's sign so far: (x/n) = sign * (a/n) at every step.
    let mut negative = false;
    while a.bits() != 0 {
        // (2/n) = -1 exactly when n = 3 or 5 mod 8.
        let twos = a.trailing_zeros().unwrap_or(0);
        a >>= twos;
        negative ^= twos % 2 == 1 && matches!(low(&n) & 7, 3 | 5);
        // Quadratic reciprocity for odd a and n: (a/n) = -(n/a) when both are 3 mod 4.
        negative ^= low(&a) & 3 == 3 && low(&n) & 3 == 3;
        core::mem::swap(&mut a, &mut n);
        a %= &n;
    }
    // (0/n) is 0 unless n = 1, where the gcd is 1 and the symbol is the sign.
    match (n.bits() == 1, negative) {
        (false, _) => 0,
        (true, false) => 1,
        (true, true) => -1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use num_bigint::BigUint;

    /// The Jacobi symbol in `u64` by its definition: the product of the Legendre
    /// symbols over n's prime factors, each by Euler's criterion.
    fn jacobi_by_euler(x: u64, n: u64) -> i32 {
        let legendre = |x: u64, p: u64| {
            let r = BigUint::from(x).modpow(&BigUint::from((p - 1) / 2), &BigUint::from(p));
            match r.iter_u64_digits().next().unwrap_or(0) {
                0 => 0,
                1 => 1,
                _ => -1,
            }
        };
        let (mut m, mut out, mut p) = (n, 1i32, 3u64);
        while m > 1 {
            if p * p > m {
                p = m;
            }
            while m % p == 0 {
                m /= p;
                out *= legendre(x, p);
            }
            p += 2;
        }
        out
    }

    #[test]
    fn small_values_against_euler() {
        for n in (1u64..400).step_by(2) {
            for x in (0..n).chain([n, n + 1, 3 * n + 2]) {
                let (xb, nb) = (x.to_be_bytes(), n.to_be_bytes());
                let want = jacobi_by_euler(x, n);
                assert_eq!(by_steps(&xb, &nb, max_rounds(1)), Some(want), "({x}/{n})");
                assert_eq!(euclid(&xb, &nb), want, "({x}/{n})");
            }
        }
    }

    /// Large random values against the Euclidean algorithm, with moduli sharing a
    /// factor 3 or 5 with some of them (symbol 0), counting the rounds the steps take
    /// against their bound.
    #[test]
    fn large_values_against_euclid() {
        let mut st = 0x5eed_u64;
        let mut random = move |bits: usize| {
            let words: Vec<u32> = (0..bits.div_ceil(32))
                .map(|_| {
                    st ^= st << 13;
                    st ^= st >> 7;
                    st ^= st << 17;
                    st as u32
                })
                .collect();
            BigUint::new(words) >> (32 * bits.div_ceil(32) - bits)
        };
        let (mut most, mut symbols) = (0usize, [0usize; 3]);
        for bits in [64usize, 65, 127, 256, 1000, 2048, 3072, 4096] {
            for case in 0..24u32 {
                let top = BigUint::from(1u32) << (bits - 1);
                let mut n = random(bits) | &top | BigUint::from(1u32);
                let mut x = random(bits);
                if case % 6 == 0 {
                    // n and x both multiples of 3 or 5.
                    let k = BigUint::from(3 + 2 * (case % 12 / 6));
                    n = &n - &n % &k;
                    if &n % 2u32 == BigUint::from(0u32) {
                        n += &k;
                    }
                    x = &x - &x % &k;
                }
                let (xb, nb) = (x.to_bytes_be(), n.to_bytes_be());
                let want = euclid(&xb, &nb);
                let limit = max_rounds(nb.len().max(xb.len()).div_ceil(8));
                let rounds = (0..=limit)
                    .find(|&r| by_steps(&xb, &nb, r).is_some())
                    .unwrap_or_else(|| panic!("({x:x}/{n:x}): past {limit} rounds"));
                most = most.max(rounds * 1000 / limit);
                assert_eq!(by_steps(&xb, &nb, rounds), Some(want), "({x:x}/{n:x})");
                assert_eq!(jacobi_vartime(&xb, &nb), want, "({x:x}/{n:x})");
                symbols[(want + 1) as usize] += 1;
            }
        }
        eprintln!("symbols -1, 0, 1: {symbols:?}; at most {most} per mille of the rounds allowed");
        assert!(symbols.iter().all(|&c| c > 20), "{symbols:?}");
    }

    #[test]
    fn past_the_bound_the_euclidean_algorithm_answers() {
        // Rounds capped at 0: the steps give up, `jacobi_vartime`'s fallback answers.
        let (x, n) = (2u64.to_be_bytes(), 7u64.to_be_bytes());
        assert_eq!(by_steps(&x, &n, 0), None);
        assert_eq!(euclid(&x, &n), 1);
        let (x, n) = (3u64.to_be_bytes(), 7u64.to_be_bytes());
        assert_eq!(euclid(&x, &n), -1);
    }
}
