//! 64-bit limbs to and from the 28-bit digits of `amm28-avx2` ([`super`]), in scalar
//! code: O(s) per conversion against the loop's O(d^2).

/// Bits per digit.
pub const W: u32 = 28;

/// The digit mask, 2^28 - 1.
pub const DIGIT: u64 = (1 << W) - 1;

/// The digit count of a modulus of `s` limbs and the shift that makes the loop's
/// divisor R: (d, e) with d a multiple of 4 (the loop takes four digits of b a
/// block), 28 d >= 64 s + 2 (so that 2^(28 d) > 4n for every n < R) and
/// e = 28 d - 64 s, in [2, 114).
pub fn shape(s: usize) -> (usize, u32) {
    let d = (64 * s + 2).div_ceil(W as usize).next_multiple_of(4);
    (d, (W as usize * d - 64 * s) as u32)
}

/// Word `i` of `x`, 0 past its end.
#[inline]
fn word(x: &[u64], i: usize) -> u64 {
    x.get(i).copied().unwrap_or(0)
}

/// `out[j]` = digit j of x 2^e: bits 28 j - e .. 28 j - e + 28 of `x` (0 below bit 0
/// and above its words), for every j < `out.len()`.
///
/// Constant-time: every branch and index depends on j, e and the lengths only.
pub fn split(x: &[u64], e: u32, out: &mut [u64]) {
    for (j, o) in out.iter_mut().enumerate() {
        let lo = (W as usize * j) as isize - e as isize;
        *o = if lo <= -(W as isize) {
            0
        } else if lo < 0 {
            (word(x, 0) << -lo) & DIGIT
        } else {
            let (w, b) = (lo as usize / 64, lo as usize % 64);
            // Bits past the word's top come from the next word (b > 64 - 28).
            let high = if b > 64 - W as usize {
                word(x, w + 1) << (64 - b)
            } else {
                0
            };
            (word(x, w) >> b | high) & DIGIT
        };
    }
}

/// `out` = the words of sum z_j 2^(28 j), digits below 2^28; the bits past `out`'s
/// last word are dropped (the caller sizes `out` for the value).
///
/// Constant-time: every branch and index depends on j and the lengths only.
pub fn join(z: &[u64], out: &mut [u64]) {
    out.fill(0);
    for (j, &digit) in z.iter().enumerate() {
        let (w, b) = (W as usize * j / 64, W as usize * j % 64);
        if let Some(o) = out.get_mut(w) {
            *o |= digit << b;
        }
        if b > 64 - W as usize {
            if let Some(o) = out.get_mut(w + 1) {
                *o |= digit >> (64 - b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    fn value(digits: &[u64]) -> BigUint {
        digits
            .iter()
            .rev()
            .fold(BigUint::from(0u32), |acc, &d| (acc << W) + d)
    }

    #[test]
    fn shapes() {
        for s in 1..=257 {
            let (d, e) = shape(s);
            assert_eq!(d % 4, 0);
            assert!(28 * d >= 64 * s + 2 && 28 * (d - 4) < 64 * s + 2, "s = {s}");
            assert!((2..114).contains(&e));
        }
    }

    #[test]
    fn split_and_join_round_trip_with_every_shift() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for s in [1, 2, 3, 7, 16, 33] {
            for pattern in 0..3 {
                let x: Vec<u64> = (0..s)
                    .map(|_| {
                        seed = seed.rotate_left(23).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 5;
                        [u64::MAX, seed, 1 << 63 | 1][pattern]
                    })
                    .collect();
                let (d, _) = shape(s);
                for e in 0..114u32 {
                    let mut digits = vec![0u64; d + 5];
                    split(&x, e, &mut digits);
                    assert!(digits.iter().all(|&g| g <= DIGIT));
                    let xv = BigUint::from_slice(
                        &x.iter()
                            .flat_map(|&w| [w as u32, (w >> 32) as u32])
                            .collect::<Vec<_>>(),
                    );
                    assert_eq!(value(&digits), &xv << e, "s {s} e {e}");
                    if e == 0 {
                        let mut back = vec![0u64; s];
                        join(&digits, &mut back);
                        assert_eq!(back, x);
                    }
                }
            }
        }
    }
}
