//! The constants of a digit domain: the exponentiation of a vector kernel runs in its
//! own Montgomery form, R' = R 2^e for montmul's R = 2^(64 s) (`avx512ifma::exp`,
//! `amm28::exp`), and enters and leaves it through products by R 2^e and R 2^(2e)
//! mod n.

use crate::Modulus;
use zeroize::Zeroizing;

/// (R 2^e mod n, R 2^(2e) mod n), both fully reduced, for the modulus `m`.
///
/// Constant-time in n's value: two Montgomery products through the modulus' kernel
/// (R^2 2^e / R, then (R 2^e)^2 / R), each followed by one masked subtraction; for a
/// modulus of at most e + 1 bits (a vector kernel forced onto a few bits),
/// doublings of R mod n instead, their count depending on e only.
pub fn scaled_ones(m: &Modulus<u64>, e: u32) -> (Zeroizing<Vec<u64>>, Zeroizing<Vec<u64>>) {
    let (n, r1) = (m.n(), m.r1());
    let s = n.len();
    if (e as usize) < m.bits() as usize - 1 {
        // 2^e < 2^(bits - 1) <= n: two products, each result (below the modulus'
        // bound, n or 2n) brought below n by one conditional subtraction; at 1024 to
        // 4096 bits several times cheaper than the 2e doublings below.
        let mut pow2 = Zeroizing::new(vec![0; s]);
        pow2[e as usize / 64] = 1 << (e % 64);
        let mut one = Zeroizing::new(vec![0; s]);
        m.mont_mul(m.r2(), &pow2, &mut one);
        crate::ct::reduce_once(&mut one, 0, n);
        let mut x = Zeroizing::new(vec![0; s]);
        m.mont_sqr(&one, &mut x);
        crate::ct::reduce_once(&mut x, 0, n);
        (one, x)
    } else {
        let mut x = Zeroizing::new(r1.to_vec());
        for _ in 0..e {
            double_mod(&mut x, n);
        }
        let one = x.clone();
        for _ in 0..e {
            double_mod(&mut x, n);
        }
        (one, x)
    }
}

/// `x = 2x mod n` for x < n (constant-time in the values: one masked subtraction).
pub fn double_mod(x: &mut [u64], n: &[u64]) {
    let mut carry = 0u64;
    for w in x.iter_mut() {
        let next = *w >> 63;
        *w = *w << 1 | carry;
        carry = next;
    }
    crate::ct::reduce_once(x, carry, n);
}
