//! The exhaustive small-word sweep (issue 19, item 3), the slice that fits a normal
//! `cargo test`: every kernel that has 8-bit words on every fourth odd 8-bit modulus
//! and on the edge moduli, with every pair of operands below the bound, and every kernel
//! that has 16-bit words on every 64th odd 16-bit modulus and the edge moduli, with the
//! dense sample of operands; against the integer oracle of
//! `montmul_testkit::exhaustive`.
//!
//! The whole sweep (every odd modulus of both sizes, about 2 CPU minutes: the bit-serial
//! kernels `radix2`, `mwr2mm` and `columns` take most of it) is
//! `montmul selftest --exhaustive`; its figures are in `docs/SECURITY.md`.

use montmul::Limb;
use montmul_testkit::exhaustive::{self, Mismatch};

/// Moduli where the carry paths change: the smallest, those around the top bit of a
/// word and of its two lower bits (the lazy policy needs one more limb from 2^(w-2) on),
/// and the largest. Kept when they are odd moduli of one `L` word.
fn edge_moduli<L: Limb>() -> Vec<u64> {
    let w = L::BITS;
    let mut out = vec![3, 5, 7];
    for k in [w - 2, w - 1, w] {
        out.extend([(1 << k) - 3, (1 << k) - 1, (1 << k) + 1, (1 << k) + 3]);
    }
    out.retain(|&n| n % 2 == 1 && n <= L::MAX.to_u64());
    out
}

/// The slice: every `stride`-th odd modulus of one `L` word and the edge moduli.
fn slice<L: Limb>(stride: usize) -> Vec<u64> {
    let mut out: Vec<u64> = exhaustive::odd_moduli::<L>().step_by(stride).collect();
    out.extend(edge_moduli::<L>());
    out.sort_unstable();
    out.dedup();
    out
}

/// Runs `check` on every item, on every core; fails with the first mismatch.
fn on_every_core<T: Sync>(
    items: &[T],
    check: impl Fn(&T) -> Result<u64, Box<Mismatch>> + Sync,
) -> u64 {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(&check).sum::<Result<u64, _>>()))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("sweep thread"))
            .sum::<Result<u64, _>>()
    })
    .unwrap_or_else(|m| panic!("{m}"))
}

#[test]
fn edge_moduli_are_odd_one_word_moduli() {
    assert_eq!(
        edge_moduli::<u8>(),
        [3, 5, 7, 61, 63, 65, 67, 125, 127, 129, 131, 253, 255]
    );
    assert!(slice::<u16>(64).contains(&0xffff));
    assert!(slice::<u16>(64).contains(&0x4001));
}

#[test]
fn every_8_bit_kernel_on_a_slice_of_moduli_and_every_operand_pair() {
    let moduli = slice::<u8>(4);
    let mut products = 0;
    for (k, r) in exhaustive::variants::<u8>() {
        products += on_every_core(&moduli, |&n| {
            exhaustive::sweep_modulus(k, r, n, &exhaustive::operands_all(n, r))
        });
    }
    // Nine kernels (the portable eight and auto), two policies each.
    assert_eq!(exhaustive::variants::<u8>().len(), 18);
    assert!(products > 18 * 1_000_000, "{products} products");
}

#[test]
fn every_16_bit_kernel_on_a_slice_of_moduli_and_dense_operands() {
    let moduli = slice::<u16>(64);
    for (k, r) in exhaustive::variants::<u16>() {
        on_every_core(&moduli, |&n| {
            exhaustive::sweep_modulus(k, r, n, &exhaustive::operands_16(n, r, 8))
        });
    }
}

#[test]
fn the_oracle_of_the_sweep() {
    // 2^-8 mod 11 = 4 (256 = 3 mod 11, 3 * 4 = 12 = 1).
    assert_eq!(exhaustive::r_inverse_u64(11, 8), 4);
    assert_eq!(
        exhaustive::operands_all(5, montmul::Reduction::Lazy).len(),
        10
    );
    let ops = exhaustive::operands_16(0x8001, montmul::Reduction::Lazy, 8);
    for x in [0, 1, 2, 0x8000, 0x7fff, 0xffff, 0x10001, 0x10000] {
        assert!(ops.contains(&x), "{x:x}");
    }
    assert!(ops.iter().all(|&x| x < 0x10002));
}

/// A kernel that is wrong on one carry path only is caught: the sweep can fail.
#[test]
fn a_kernel_wrong_on_one_path_is_caught() {
    use montmul::lab::{self, Kernel, KernelInfo};
    use montmul::{Modulus, Reduction};

    /// CIOS, except that an output limb of 0xfe comes out as 0xfd.
    struct Broken;
    impl Kernel<u8> for Broken {
        fn info(&self) -> &'static KernelInfo {
            lab::by_name::<u8>("cios").expect("cios").info()
        }
        fn mul_exact(&self, m: &Modulus<u8>, a: &[u8], b: &[u8], out: &mut [u8]) {
            let cios = lab::by_name::<u8>("cios").expect("cios");
            cios.mul_exact(m, a, b, out);
            for l in out.iter_mut() {
                if *l == 0xfe {
                    *l = 0xfd;
                }
            }
        }
    }
    static BROKEN: Broken = Broken;
    let n = 0xff;
    let found = exhaustive::sweep_modulus::<u8>(
        &BROKEN,
        Reduction::Full,
        n,
        &exhaustive::operands_all(n, Reduction::Full),
    )
    .expect_err("an output of 0xfe exists below 0xff");
    assert_eq!((found.got, found.want), (0xfd, 0xfe), "{found}");
    // The sample of the 16-bit sweep is dense enough to meet such a path as well.
    assert!(exhaustive::sweep_modulus::<u8>(
        &BROKEN,
        Reduction::Full,
        n,
        &exhaustive::operands_16(n, Reduction::Full, 8),
    )
    .is_err());
}
