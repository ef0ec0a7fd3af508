//! The counting word (`lab::Counted`) against seed 001's instruction-count formulas:
//! classic 32-bit and 64-bit code (montmul's `cios` at w=32 and w=64) and the 2-way
//! algorithm (montmul's portable `two-way` at w=32), counted on random and edge inputs
//! at several word counts. The counted product is checked against the num-bigint
//! oracle, and the counts must not depend on the operands (constant-time kernels).
//!
//! Seed 001 (`001_1b4cdf28a5f4f2c4.txt`), "Expected Performance Speedup", per
//! Montgomery multiplication of n words: classic, short mul n, muladd 2n, muladdadd
//! 2n(n-1) (its 64-bit column is the same at n/2 words); 2-way, add n, sub n, short mul
//! 2n, SIMD muladd n and SIMD muladdadd n(n-1) (two scalar ones each). The seed counts
//! the loops only; montmul's counts add the carry-word bookkeeping and the final
//! correction, asserted below exactly.

use montmul::lab::{count_product, Counted, Counts};
use montmul::{Limb, Reduction};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// Counts one product of every operand pair of a random and the edge operands, checks
/// each product against the oracle and that all counts are equal; returns them.
fn counts<L: Limb>(kernel: &str, n: &BigUint, rng: &mut TestRng) -> Counts
where
    Counted<L>: Limb,
{
    let s = (n.bits() as usize).div_ceil(L::BITS as usize);
    let r_bits = L::BITS * s as u32;
    let mut ops = kit::edge_operands(n, L::BITS, r_bits);
    ops.retain(|x| x < n);
    let random = kit::random_below(rng, n);
    if s > 8 {
        // Building the modulus on the counting word is slow in a debug build: at the
        // seed's sizes, 0, 1, n-1 and a random operand.
        ops.retain(|x| *x <= BigUint::from(1u8) || x + 1u8 == *n);
    }
    ops.push(random);
    let n_l = kit::to_limbs::<L>(n, s);
    let mut seen: Option<Counts> = None;
    for a in &ops {
        for b in [&ops[ops.len() - 1], a] {
            let (got, c) = count_product(
                kernel,
                Reduction::Full,
                &n_l,
                &kit::to_limbs::<L>(a, s),
                &kit::to_limbs::<L>(b, s),
            )
            .expect("a portable kernel");
            assert_eq!(
                kit::from_limbs(&got),
                kit::mont_mul(a, b, n, r_bits),
                "{kernel}/{} at {s} words",
                L::BITS
            );
            match seen {
                None => seen = Some(c),
                Some(prev) => assert_eq!(prev, c, "{kernel}: counts independent of the operands"),
            }
        }
    }
    seen.expect("operands")
}

fn moduli<L: Limb>(words: usize, rng: &mut TestRng) -> Vec<BigUint> {
    let bits = L::BITS * words as u32;
    // Random moduli of exactly `words` words, top bit set and clear, and the edge
    // moduli of that length.
    let mut v = vec![
        kit::random_modulus(rng, bits),
        kit::random_modulus(rng, bits - 1),
    ];
    v.extend(
        kit::edge_moduli(bits, L::BITS)
            .into_iter()
            .filter(|m| m.bits() as u32 > bits - L::BITS && m.bits() as u32 <= bits)
            .take(if words > 8 { 1 } else { usize::MAX }),
    );
    v
}

/// Seed 001's classic count at `s` words of the kernel's own width: short mul s,
/// muladd 2s, muladdadd 2s(s-1) (at 64 bits, s = n/2 of the seed's 32-bit n: n/2, n,
/// n(n/2-1)). CIOS executes exactly these, and besides them, per step, the two additions
/// of the carries into word s and one into word s+1 (3s adds), then the final
/// subtraction: s word subtractions to compare with n, s masked ones, and 3 + s mask
/// operations.
fn classic(s: u64) -> Counts {
    Counts {
        add: 3 * s,
        sub: 2 * s,
        short_mul: s,
        mul: 0,
        muladd: 2 * s,
        muladdadd: 2 * s * (s - 1),
        other: s + 3,
    }
}

/// Seed 001's 2-way count at `n` words: add n, sub n, short mul 2n (the q of each
/// step), SIMD muladd n and SIMD muladdadd n(n-1), i.e. 2n and 2n(n-1) scalar ones, one
/// per stream. The portable `two-way` executes exactly these, plus one short mul (mu b_0,
/// once per product, which the seed leaves out of its 2n), the n subtractions of
/// C = D - E and the n additions of the masked C + M (the seed counts the loops only),
/// and 2n + 2 mask operations (the masks of those two passes, the negation of n0' into
/// mu and the mask's).
fn two_way(n: u64) -> Counts {
    Counts {
        add: n + n,
        sub: n + n,
        short_mul: 2 * n + 1,
        mul: 0,
        muladd: 2 * n,
        muladdadd: 2 * n * (n - 1),
        other: 2 * n + 2,
    }
}

#[test]
fn classic_32_bit_is_the_seeds_count() {
    let mut rng = TestRng::new(0x5eed_0001);
    for s in [1usize, 2, 3, 5, 8, 64] {
        for n in moduli::<u32>(s, &mut rng) {
            assert_eq!(
                counts::<u32>("cios", &n, &mut rng),
                classic(s as u64),
                "n = {s}"
            );
        }
    }
}

#[test]
fn classic_64_bit_is_the_seeds_count() {
    let mut rng = TestRng::new(0x5eed_0064);
    for s in [1usize, 2, 3, 7, 32] {
        for n in moduli::<u64>(s, &mut rng) {
            let c = counts::<u64>("cios", &n, &mut rng);
            assert_eq!(c, classic(s as u64), "n/2 = {s}");
            // The seed's 64-bit column in its own n (32-bit words): n/2, n, n(n/2-1).
            let n32 = 2 * s as u64;
            assert_eq!(
                (c.short_mul, c.muladd, c.muladdadd),
                (n32 / 2, n32, n32 * (n32 / 2 - 1))
            );
        }
    }
}

#[test]
fn two_way_is_the_seeds_count_plus_the_final_correction() {
    let mut rng = TestRng::new(0x5eed_0002);
    for s in [1usize, 2, 3, 5, 8, 64] {
        for n in moduli::<u32>(s, &mut rng) {
            let c = counts::<u32>("two-way", &n, &mut rng);
            assert_eq!(c, two_way(s as u64), "n = {s}");
            // Half the long products of classic 32-bit code in pairs, as the seed says:
            // n SIMD muladd and n(n-1) SIMD muladdadd of two lanes each.
            let k = s as u64;
            assert_eq!((c.muladd / 2, c.muladdadd / 2), (k, k * (k - 1)));
        }
    }
}

#[test]
fn a_computed_zero_carry_is_a_muladdadd() {
    // mac with the constant zero as carry is a muladd; with a computed zero, a
    // muladdadd: the classification follows the code, not the values.
    let x = Counted::new(3u32);
    let zero = Counted::new(0u32);
    let ((), c) = montmul::lab::count(|| {
        let _ = Counted::<u32>::mac(x, x, x, <Counted<u32> as Limb>::ZERO);
        let _ = Counted::<u32>::mac(x, x, x, zero);
        let _ = Counted::<u32>::mac(x, x, x, Counted::default());
    });
    assert_eq!((c.muladd, c.muladdadd), (2, 1));
    assert_eq!(Counted::<u32>::mac(x, x, x, x).0.value(), 15);
}

#[test]
fn the_vector_kernels_are_not_counted() {
    // The counting word has the portable kernels only: the SIMD forms use intrinsics.
    let n = [0xffff_fff1u32, 0x8000_0000];
    for k in ["two-way-sse2", "two-way-avx2", "columns-sse2"] {
        assert!(
            count_product(k, Reduction::Full, &n, &n[..1], &n[..1]).is_err(),
            "{k}"
        );
    }
}
