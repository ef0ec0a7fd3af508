//! The inner structure of the bit-serial, two-way and column-wise algorithms against the
//! num-bigint oracle: MWR2MM's partial sums step by step, the two-way D and E streams,
//! the column layout of seed 000 Fig. 1, exact (not only congruent) lazy results, and
//! the largest moduli the lazy policy admits (4n just below R).

use montmul::lab::algo::columns::{ColumnLayout, Columns, LANES};
use montmul::lab::algo::{mwr2mm, two_way};
use montmul::lab::{self as kernel, Kernel};
use montmul::{Error, Limb, Modulus, Reduction};
use montmul_testkit::num_bigint::{BigInt, BigUint};
use montmul_testkit::{self as kit, TestRng};
use num_traits::{One, Zero};

fn modulus<L: Limb>(n: &BigUint, name: &str, r: Reduction) -> Modulus<L> {
    let limbs = kit::to_limbs::<L>(n, (n.bits() as u32).div_ceil(L::BITS) as usize);
    let k = kernel::by_name::<L>(name).expect("registered kernel");
    Modulus::with_kernel(&limbs, k, r).expect("valid odd modulus")
}

fn r_bits<L: Limb>(m: &Modulus<L>) -> u32 {
    L::BITS * m.limbs() as u32
}

/// The unique value congruent to `target` mod n in `[lo, lo + n)`.
fn lift(target: &BigUint, lo: &BigUint, n: &BigUint) -> BigUint {
    let t = target % n;
    let l = lo % n;
    lo + ((&t + n - l) % n)
}

/// `(X*Y + Q*M) / R` with 0 <= Q < R and the division exact: what a Montgomery
/// product without final subtraction returns. It is the value congruent to XY/R in
/// `[ceil(XY/R), ceil(XY/R) + M)`.
fn exact_lazy(x: &BigUint, y: &BigUint, n: &BigUint, r_bits: u32) -> BigUint {
    let r = BigUint::one() << r_bits;
    let xy = x * y;
    let lo = (&xy + &r - 1u32) / &r;
    lift(&kit::mont_mul(x, y, n, r_bits), &lo, n)
}

fn random_cases<L: Limb>(mut each: impl FnMut(&mut TestRng, BigUint)) {
    let mut rng = TestRng::new(0x5eed_0000 + L::BITS as u64);
    for bits in [
        2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 127, 129, 255, 521,
    ] {
        let n = kit::random_modulus(&mut rng, bits);
        each(&mut rng, n.clone());
        for n in kit::edge_moduli(bits, L::BITS) {
            each(&mut rng, n);
        }
    }
}

// ----- MWR2MM -----

fn mwr2mm_trace_follows_the_recurrence<L: Limb>() {
    random_cases::<L>(|rng, n| {
        for r in Reduction::ALL {
            let m = modulus::<L>(&n, "mwr2mm", r);
            let bound = kit::from_limbs(m.bound());
            let x = kit::random_below(rng, &bound);
            let y = kit::random_below(rng, &bound);
            let s = m.limbs();
            let steps = mwr2mm::trace(&m, &kit::to_limbs::<L>(&x, s), &kit::to_limbs::<L>(&y, s))
                .expect("operands below the bound");
            assert_eq!(steps.len() as u32, r_bits(&m), "one step per bit of R");
            let e = match r {
                Reduction::Full => (m.bits() + 1).div_ceil(L::BITS) as usize,
                Reduction::Lazy => s,
            };
            let mut acc = BigUint::zero();
            for (i, step) in steps.iter().enumerate() {
                let x_i = x.bit(i as u64);
                let with_y = if x_i { &acc + &y } else { acc.clone() };
                let q_i = with_y.bit(0);
                let sum = if q_i { with_y + &n } else { with_y };
                acc = sum >> 1u32;
                assert_eq!(step.x_i, L::from_u64(x_i as u64), "x_{i}");
                assert_eq!(step.q_i, L::from_u64(q_i as u64), "q_{i}");
                assert_eq!(step.s.len(), e, "S has e words");
                assert_eq!(
                    kit::from_limbs(&step.s),
                    acc,
                    "S after step {i}, n={n:x} {r}"
                );
            }
            // The last S is the Montgomery product before any final subtraction.
            assert!(acc < &n << 1u32);
            assert_eq!(acc, exact_lazy(&x, &y, &n, r_bits(&m)));
        }
    });
}

#[test]
fn mwr2mm_trace_all_words() {
    mwr2mm_trace_follows_the_recurrence::<u8>();
    mwr2mm_trace_follows_the_recurrence::<u16>();
    mwr2mm_trace_follows_the_recurrence::<u32>();
    mwr2mm_trace_follows_the_recurrence::<u64>();
}

#[test]
fn mwr2mm_matches_the_seed_sizes() {
    // Seed 003's tables: n = 1024 bits, w = 16, e = ceil((n+1)/w) = 65 words, n steps.
    let mut rng = TestRng::new(1024);
    let n = kit::random_modulus(&mut rng, 1024);
    let m = modulus::<u16>(&n, "mwr2mm", Reduction::Full);
    let x = kit::to_limbs::<u16>(&kit::random_below(&mut rng, &n), 64);
    let steps = mwr2mm::trace(&m, &x, &x).unwrap();
    assert_eq!(steps.len(), 1024);
    assert_eq!(steps[0].s.len(), 65);
}

#[test]
fn mwr2mm_trace_rejects_operands_out_of_range() {
    let m = modulus::<u8>(&BigUint::from(251u32), "mwr2mm", Reduction::Full);
    assert_eq!(mwr2mm::trace(&m, &[251], &[1]), Err(Error::OperandTooLarge));
    assert_eq!(
        mwr2mm::trace(&m, &[1], &[0, 1]),
        Err(Error::OperandTooLarge)
    );
    // Leading zero limbs and short operands are fine.
    assert!(mwr2mm::trace(&m, &[250, 0, 0], &[]).is_ok());
}

// ----- two-way -----

fn two_way_streams_against_the_oracle<L: Limb>() {
    random_cases::<L>(|rng, n| {
        for r in Reduction::ALL {
            let m = modulus::<L>(&n, "two-way", r);
            let rb = r_bits(&m);
            let bound = kit::from_limbs(m.bound());
            let s = m.limbs();
            let mut operands = vec![
                BigUint::zero(),
                BigUint::one(),
                &bound - 1u32,
                kit::random_below(rng, &bound),
            ];
            operands.push(kit::random_below(rng, &bound));
            for a in &operands {
                for b in &operands {
                    let (al, bl) = (kit::to_limbs::<L>(a, s), kit::to_limbs::<L>(b, s));
                    let (mut d, mut e) = (vec![L::ZERO; s], vec![L::ZERO; s]);
                    two_way::streams(&m, &al, &bl, &mut d, &mut e);
                    let (d, e) = (kit::from_limbs(&d), kit::from_limbs(&e));
                    // D = floor(AB/R): the a_j B stream alone.
                    let ab = a * b;
                    assert_eq!(d, &ab >> rb, "D, n={n:x} a={a:x} b={b:x} {r}");
                    // C = D - E = (AB - Q M)/R with 0 <= Q < R: congruent to AB/R and in
                    // (AB/R - M, AB/R], that is in [D - M + 1, D]; so E = D - C is fixed
                    // by the oracle too.
                    let n_int = BigInt::from(n.clone());
                    let lo = BigInt::from(d.clone()) - &n_int + 1;
                    let target = BigInt::from(kit::mont_mul(a, b, &n, rb));
                    let c = &lo + ((target - &lo) % &n_int + &n_int) % &n_int;
                    assert_eq!(
                        BigInt::from(d.clone()) - c,
                        BigInt::from(e.clone()),
                        "E, n={n:x} a={a:x} b={b:x} {r}"
                    );
                    assert!(e < n, "0 <= E < M");
                    assert!(e < n, "E < M");
                }
            }
        }
    });
}

#[test]
fn two_way_streams_all_words() {
    two_way_streams_against_the_oracle::<u8>();
    two_way_streams_against_the_oracle::<u16>();
    two_way_streams_against_the_oracle::<u32>();
    two_way_streams_against_the_oracle::<u64>();
}

// ----- columns -----

#[test]
fn column_layout_is_fig_1() {
    let digits: Vec<u16> = (0..10).map(|i| 0x100 + i).collect();
    let layout = ColumnLayout::from_digits(&digits);
    // s = ceil(10 / 4) = 3 vectors; digit i in lane i / 3 of vector i % 3.
    assert_eq!(
        layout.vectors(),
        &[
            [0x100, 0x103, 0x106, 0x109],
            [0x101, 0x104, 0x107, 0],
            [0x102, 0x105, 0x108, 0],
        ]
    );
    assert_eq!(layout.to_digits(), digits);
    assert_eq!(layout.digit(9), 0x109);
    assert_eq!(layout.digit(10), 0);
    assert_eq!(layout.digit(1000), 0);
}

#[test]
fn column_layout_round_trips() {
    let mut rng = TestRng::new(7);
    for len in 0..=70usize {
        let x = kit::random_below_pow2(&mut rng, 16 * len as u32);
        let digits: Vec<u16> = kit::to_limbs::<u16>(&x, len);
        let layout = ColumnLayout::from_digits(&digits);
        let s = len.div_ceil(LANES).max(1);
        assert_eq!(layout.vectors().len(), s);
        for (i, &d) in digits.iter().enumerate() {
            assert_eq!(
                layout.vectors()[i % s][i / s],
                u32::from(d),
                "len {len} digit {i}"
            );
        }
        assert_eq!(layout.to_digits(), digits);
    }
}

#[test]
fn columns_is_16_bit_and_lazy_only() {
    let info = Kernel::<u16>::info(&Columns);
    assert_eq!(info.words, &[16]);
    assert_eq!(info.reductions, &[Reduction::Lazy]);
    let n = [0x1234_5679u32];
    assert!(matches!(
        kernel::by_name::<u32>("columns"),
        Err(Error::UnsupportedWord { .. })
    ));
    assert!(matches!(
        Modulus::with_kernel(&n, &Columns, Reduction::Lazy),
        Err(Error::UnsupportedWord { .. })
    ));
    let k = kernel::by_name::<u16>("columns").unwrap();
    assert!(matches!(
        Modulus::with_kernel(&[0x5679, 0x1234], k, Reduction::Full),
        Err(Error::UnsupportedReduction { .. })
    ));
}

// ----- every lazy kernel at the edge of the lazy range -----

/// Moduli at the top of each lazy limb count K, with operands at the top of [0, 2n):
/// the accumulators' worst case. For columns, K = 4, 8, 12 are the sizes where the
/// accumulator needs the layout's extra digit.
fn lazy_extremes<L: Limb>() {
    let w = L::BITS;
    let kernels: Vec<_> = kernel::all::<L>()
        .iter()
        .filter(|k| k.info().words.contains(&w) && k.info().reductions.contains(&Reduction::Lazy))
        .filter(|k| {
            let available = (k.info().available)();
            if !available {
                montmul_testkit::skipped!(
                    "lazy extremes, {} ({w}-bit): SKIPPED: not on this CPU",
                    k.info().name
                );
            }
            available
        })
        .collect();
    // (K, bits): the largest modulus K lazy limbs hold (4n just below R), and the
    // moduli whose top limb is full (K = n + 1 as in seed 000, where R = r^(n+1)).
    let sizes = (1..=13u32).flat_map(|k| {
        let full_top = w * (k - 1);
        [
            (k, w * k - 2),
            (k, full_top),
            (k, full_top.saturating_sub(1)),
        ]
    });
    for (k, bits) in sizes.filter(|&(_, bits)| bits >= 2) {
        for n in kit::edge_moduli(bits, w) {
            for &kern in &kernels {
                let info = kern.info();
                // A kernel made for some sizes only is checked where it has code.
                if kern
                    .limb_counts()
                    .is_some_and(|counts| !counts.contains(&(k as usize)))
                {
                    continue;
                }
                let m = modulus::<L>(&n, info.name, Reduction::Lazy);
                assert_eq!(m.limbs() as u32, k);
                let rb = r_bits(&m);
                let two_n = &n << 1u32;
                let ops = [
                    BigUint::zero(),
                    BigUint::one(),
                    &n - 1u32,
                    n.clone(),
                    &two_n - 2u32,
                    &two_n - 1u32,
                ];
                for a in &ops {
                    for b in &ops {
                        let mut out = vec![L::ZERO; k as usize];
                        m.mont_mul(
                            &kit::to_limbs::<L>(a, k as usize),
                            &kit::to_limbs::<L>(b, k as usize),
                            &mut out,
                        );
                        let got = kit::from_limbs(&out);
                        // two-way and its vector forms (seed 001's D - E).
                        let two_way = info.name.starts_with("two-way");
                        let want = if two_way {
                            // C = (AB - QM)/R, plus M when negative: congruent, below 2M.
                            assert!(got < two_n, "two-way below 2n");
                            kit::mont_mul(a, b, &n, rb)
                        } else {
                            exact_lazy(a, b, &n, rb)
                        };
                        let got = if two_way { got % &n } else { got };
                        assert_eq!(got, want, "{} n={n:x} a={a:x} b={b:x}", info.name);
                    }
                }
            }
        }
    }
}

#[test]
fn lazy_extremes_all_words() {
    lazy_extremes::<u8>();
    lazy_extremes::<u16>();
    lazy_extremes::<u32>();
    lazy_extremes::<u64>();
}
