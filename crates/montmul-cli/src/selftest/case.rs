//! One case of `montmul selftest`: a modulus, its operands and exponents, drawn from
//! `--seed`, the size class and the case number alone; num-bigint's answers for them;
//! and the record of the checks a run makes on it ([`Checker`], [`Tally`]).

use montmul::{Limb, Reduction, Residue};
use montmul_testkit::rand_core::RngCore;
use montmul_testkit::{self as kit, TestRng};
use num_bigint::BigUint;

/// The case number that derives the multi-buffer kernels' stream from a case's own
/// seed ([`Case::lane_seed`]).
const LANE_STREAM: u64 = u64::MAX;

/// Moduli up to this many bits get a long exponent of [`LONG_EXP_BITS`] bits: every
/// window width of the fixed window (up to 6 from 6145 bits, `exp::ct_window`) and of
/// the sliding window (`exp::vartime_window`).
const ALL_WINDOWS_UP_TO: u32 = 64;

/// The long exponent of the smallest moduli, in bits.
const LONG_EXP_BITS: u32 = 6200;

/// Moduli up to this many bits get a full-size long exponent (as many bits as the
/// modulus, as RSA's private exponent). Above, one long exponentiation on a bit-serial
/// kernel (`radix2`, `mwr2mm` with 8-bit words) takes seconds, and the products, the
/// residue operations, the short exponents and the inverses carry the check.
const FULL_SIZE_EXP_UP_TO: u32 = 512;

/// Moduli above this many bits get short exponents of at most 16 bits, not 64.
const SHORT_EXP_16_ABOVE: u32 = 1024;

/// One case: a modulus, its operands and exponents, and num-bigint's answers.
pub(super) struct Case {
    pub(super) bits: u32,
    pub(super) index: u64,
    pub(super) n: BigUint,
    /// Normal-form operands below n (also the raw product's inputs under `Full`).
    pub(super) a: BigUint,
    pub(super) b: BigUint,
    /// The raw product's inputs under `Lazy`, below 2n.
    pub(super) a2: BigUint,
    pub(super) b2: BigUint,
    /// Big-endian exponents: empty, a zero byte, short, and long for the smaller sizes.
    pub(super) exps: Vec<Vec<u8>>,
    /// `a^e mod n` for each exponent.
    pub(super) powers: Vec<BigUint>,
    /// `a^-1 mod n`, when gcd(a, n) = 1.
    pub(super) inverse: Option<BigUint>,
    /// The seed of the multi-buffer kernels' own values (`lane_kernels::LaneCase`), a stream apart
    /// so that the values above do not depend on whether those kernels run.
    pub(super) lane_seed: u64,
}

/// SplitMix64's finaliser over the seed, the size class and the case number: each case
/// has its own stream.
fn case_seed(seed: u64, bits: u32, index: u64) -> u64 {
    let mut z = seed ^ (u64::from(bits) << 40) ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// An edge value below `bound` (0, 1, 2, n - 1, n - 2, n, n + 1, bound - 1 and values
/// whose limbs are all ones, for every word size), or a random one, half and half.
pub(super) fn operand(rng: &mut TestRng, n: &BigUint, bound: &BigUint) -> BigUint {
    if rng.next_u32() & 1 == 0 {
        return kit::random_below(rng, bound);
    }
    let one = BigUint::from(1u32);
    let bytes = bound.bits().div_ceil(8);
    let choice = match rng.next_u32() % 10 {
        0 => BigUint::ZERO,
        1 => one,
        2 => BigUint::from(2u32),
        3 => n - 1u32,
        4 => n - 2u32,
        5 => n.clone(),
        6 => n + 1u32,
        7 => bound - 1u32,
        // All-ones limbs of 8 bits, then of 64 bits (so of every word size).
        8 => (&one << (8 * (1 + rng.next_u64() % bytes))) - 1u32,
        _ => (&one << (64 * (1 + rng.next_u64() % bytes.div_ceil(8)))) - 1u32,
    };
    // A value not below the bound (n itself under `Full`) becomes a random one.
    if &choice < bound {
        choice
    } else {
        kit::random_below(rng, bound)
    }
}

/// A random exponent of exactly `bits` bits (`bits >= 1`), big-endian.
pub(super) fn exponent(rng: &mut TestRng, bits: u32) -> Vec<u8> {
    let one = BigUint::from(1u32);
    (kit::random_below_pow2(rng, bits - 1) | (one << (bits - 1))).to_bytes_be()
}

impl Case {
    /// Case `index` of size class `bits` for `seed`.
    pub(super) fn new(seed: u64, bits: u32, index: u64) -> Case {
        let stream = case_seed(seed, bits, index);
        let mut rng = TestRng::new(stream);
        let one = BigUint::from(1u32);
        let n = match index {
            0 => (&one << bits) - 1u32,
            1 => (&one << (bits - 1)) + 1u32,
            2 => {
                // The top 64 bits (all of them below 65) all ones: the top limb of
                // every word size is all ones where the size is a multiple of it.
                let top = bits.min(64);
                let ones = ((&one << top) - 1u32) << (bits - top);
                kit::random_modulus(&mut rng, bits) | ones
            }
            _ => kit::random_modulus(&mut rng, bits),
        };
        let two_n = &n << 1u32;
        let a = operand(&mut rng, &n, &n);
        let b = operand(&mut rng, &n, &n);
        let a2 = operand(&mut rng, &n, &two_n);
        let b2 = operand(&mut rng, &n, &two_n);
        let short_max = if bits > SHORT_EXP_16_ABOVE { 16 } else { 64 };
        let short = 1 + rng.next_u32() % short_max;
        let mut exps = vec![Vec::new(), vec![0], exponent(&mut rng, short)];
        if bits <= ALL_WINDOWS_UP_TO {
            exps.push(exponent(&mut rng, LONG_EXP_BITS));
        } else if bits <= FULL_SIZE_EXP_UP_TO {
            exps.push(exponent(&mut rng, bits));
        }
        let powers = exps
            .iter()
            .map(|e| a.modpow(&BigUint::from_bytes_be(e), &n))
            .collect();
        let inverse = a.modinv(&n);
        Case {
            bits,
            index,
            n,
            a,
            b,
            a2,
            b2,
            exps,
            powers,
            inverse,
            lane_seed: case_seed(stream, bits, LANE_STREAM),
        }
    }
}

/// Counts checks and records mismatches for one (kernel, word, policy) on one case.
pub(super) struct Checker<'a> {
    pub(super) case: &'a Case,
    pub(super) kernel: &'static str,
    pub(super) word: u32,
    pub(super) reduction: Reduction,
    pub(super) tally: &'a mut Tally,
}

impl Checker<'_> {
    /// One comparison with the oracle; `describe` gives (got, want) for the reproducer,
    /// formatted only on a mismatch.
    pub(super) fn check(
        &mut self,
        op: &str,
        x: &BigUint,
        y: &BigUint,
        ok: bool,
        describe: impl FnOnce() -> (String, String),
    ) {
        self.tally.checks += 1;
        if ok {
            return;
        }
        let (got, want) = describe();
        let c = self.case;
        self.tally.mismatches.push(format!(
            "mismatch: kernel={} word={} policy={} bits={} case={} op={op} n=0x{:x} a=0x{x:x} b=0x{y:x} got={got} want={want}",
            self.kernel, self.word, self.reduction, c.bits, c.index, c.n
        ));
    }

    /// A residue's normal form against `want`.
    pub(super) fn same<L: Limb>(&mut self, op: &str, got: &Residue<L>, want: &BigUint) {
        let got = kit::from_limbs(&got.to_limbs());
        let (a, b) = (&self.case.a, &self.case.b);
        self.check(op, a, b, &got == want, || {
            (format!("0x{got:x}"), format!("0x{want:x}"))
        });
    }
}

/// The tally of one piece of work.
#[derive(Default)]
pub(super) struct Tally {
    /// (kernel, word, policy, case) runs.
    pub(super) runs: u64,
    /// Single comparisons with the oracle.
    pub(super) checks: u64,
    pub(super) mismatches: Vec<String>,
    pub(super) skips: Vec<(String, u32, &'static str, String, u32)>,
}

/// Lower-case hex of big-endian bytes, at least one digit.
pub(super) fn hex(bytes: &[u8]) -> String {
    format!("{:x}", BigUint::from_bytes_be(bytes))
}

/// Whether `algos` (every kernel where it is empty) names the kernel `name`.
pub(super) fn named(algos: &[String], name: &str) -> bool {
    algos.is_empty() || algos.iter().any(|a| a == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_reproducible_and_edge_first() {
        let (x, y) = (Case::new(5, 65, 4), Case::new(5, 65, 4));
        assert_eq!((&x.n, &x.a, &x.b2, &x.exps), (&y.n, &y.a, &y.b2, &y.exps));
        let one = BigUint::from(1u32);
        assert_eq!(Case::new(5, 65, 0).n, (&one << 65u32) - 1u32);
        assert_eq!(Case::new(5, 65, 1).n, (&one << 64u32) + 1u32);
        let top = Case::new(5, 100, 2).n;
        assert_eq!(&top >> 36u32, (&one << 64u32) - 1u32);
        for i in 0..50 {
            let c = Case::new(9, 33, i);
            assert_eq!(c.n.bits(), 33);
            assert!(c.a < c.n && c.b < c.n && c.a2 < (&c.n << 1u32) && c.b2 < (&c.n << 1u32));
            assert_eq!(c.exps.len(), 4, "a long exponent of every window width");
        }
        assert_eq!(
            Case::new(1, 521, 0).exps.len(),
            3,
            "no long exponent above 512 bits"
        );
    }
}
