//! Exponentiation against the num-bigint oracle (every word size, both reduction
//! policies, `auto` and `cios`, exponents 0, 1, 2, all ones and random of many lengths;
//! `pow`, `pow_vartime`, the product of two powers `pow2_vartime` and the powers of a
//! fixed base `FixedBase`), and the constant-time property of `pow` and `FixedBase`:
//! their steps and table reads do not depend on the exponent's bits.

use montmul::lab;
use montmul::lab::exp::{self, Step};
use montmul::{Error, FixedBase, Limb, Modulus, Reduction, Residue};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};
use proptest::prelude::*;

/// `len` random bytes.
fn random_bytes(rng: &mut TestRng, len: usize) -> Vec<u8> {
    let x = kit::random_below_pow2(rng, 8 * len as u32).to_bytes_be();
    let mut out = vec![0u8; len - x.len().min(len)];
    out.extend(x);
    out
}

/// Exponents (big-endian bytes): empty, zeros, 1, 2, all ones and random ones of
/// lengths from 1 to `max_len` bytes, some with leading zero bytes.
fn exponents(rng: &mut TestRng, max_len: usize) -> Vec<Vec<u8>> {
    let mut out = vec![
        vec![],
        vec![0],
        vec![0, 0, 0],
        vec![1],
        vec![2],
        vec![0, 1],
        vec![0, 2],
    ];
    for len in [
        1, 2, 3, 5, 8, 12, 16, 24, 32, 40, 64, 96, 128, 160, 256, 800,
    ] {
        if len > max_len {
            break;
        }
        out.push(vec![0xff; len]);
        let mut e = random_bytes(rng, len);
        out.push(e.clone());
        e[0] = 0;
        out.push(e);
    }
    out
}

/// A random `bits`-bit odd modulus under `auto` and `cios` with both policies: `check`
/// gets the kernel's name, the policy, the modulus, n, the bases 0, 1, n - 1 and two
/// random ones (as numbers and as residues) and the exponents of [`exponents`].
#[allow(clippy::type_complexity)]
fn for_each_modulus<L: Limb>(
    seed: u64,
    bits: u32,
    max_exp_len: usize,
    mut check: impl FnMut(&str, Reduction, &Modulus<L>, &BigUint, &[BigUint], &[Residue<L>], &[Vec<u8>]),
) {
    let mut rng = TestRng::new(seed);
    let n = kit::random_modulus(&mut rng, bits);
    let s = bits.div_ceil(L::BITS) as usize;
    let bases = [
        BigUint::from(0u32),
        BigUint::from(1u32),
        &n - 1u32,
        kit::random_below(&mut rng, &n),
        kit::random_below(&mut rng, &n),
    ];
    let exps = exponents(&mut rng, max_exp_len);
    for name in ["auto", "cios"] {
        for r in Reduction::ALL {
            let k = lab::by_name::<L>(name).expect("registered");
            let m = Modulus::with_kernel(&kit::to_limbs::<L>(&n, s), k, r).unwrap();
            let xs: Vec<Residue<L>> = bases
                .iter()
                .map(|b| Residue::new(&m, &kit::to_limbs::<L>(b, m.limbs())).unwrap())
                .collect();
            check(name, r, &m, &n, &bases, &xs, &exps);
        }
    }
}

/// `pow` and `pow_vartime` of every base to every exponent against the oracle.
fn check_pow<L: Limb>(seed: u64, bits: u32, max_exp_len: usize) {
    for_each_modulus::<L>(seed, bits, max_exp_len, |name, r, m, n, bases, xs, exps| {
        for (b, x) in bases.iter().zip(xs) {
            for e in exps {
                let want = kit::pow_mod(b, &BigUint::from_bytes_be(e), n);
                let ct = x.pow(e);
                let vt = x.pow_vartime(e);
                assert_eq!(
                    kit::from_limbs(&ct.to_limbs()),
                    want,
                    "pow {name} {r} n={n:x} b={b:x} e={e:x?}"
                );
                assert_eq!(
                    kit::from_limbs(&vt.to_limbs()),
                    want,
                    "pow_vartime {name} {r} n={n:x} b={b:x} e={e:x?}"
                );
                let bound = kit::from_limbs(m.bound());
                assert!(kit::from_limbs(ct.montgomery_limbs()) < bound);
                assert!(kit::from_limbs(vt.montgomery_limbs()) < bound);
            }
        }
    });
}

/// `Residue::pow2_vartime` (`a^e1 b^e2`, one chain of squarings) against the oracle:
/// each exponent beside every third exponent, the bases taken in turn.
fn check_pow2<L: Limb>(seed: u64, bits: u32, max_exp_len: usize) {
    for_each_modulus::<L>(seed, bits, max_exp_len, |name, r, m, n, bases, xs, exps| {
        for (i, e1) in exps.iter().enumerate() {
            for (j, e2) in exps.iter().enumerate().skip(i % 3).step_by(3) {
                let (a, b) = ((i + j) % bases.len(), (i + 2 * j + 1) % bases.len());
                let want = kit::pow_mod(&bases[a], &BigUint::from_bytes_be(e1), n)
                    * kit::pow_mod(&bases[b], &BigUint::from_bytes_be(e2), n)
                    % n;
                let got = xs[a].pow2_vartime(e1, &xs[b], e2).unwrap();
                assert_eq!(
                    kit::from_limbs(&got.to_limbs()),
                    want,
                    "{name} {r} n={n:x} a={:x} e1={e1:x?} b={:x} e2={e2:x?}",
                    bases[a],
                    bases[b]
                );
                assert!(kit::from_limbs(got.montgomery_limbs()) < kit::from_limbs(m.bound()));
            }
        }
    });
}

/// `FixedBase::pow` of every base to every exponent against the oracle, the powers made
/// once per base for the longest exponent; one byte more is refused.
fn check_fixed_base<L: Limb>(seed: u64, bits: u32, max_exp_len: usize) {
    for_each_modulus::<L>(seed, bits, max_exp_len, |name, r, m, n, bases, xs, exps| {
        let longest = exps.iter().map(Vec::len).max().unwrap_or(0);
        for (b, x) in bases.iter().zip(xs) {
            let powers = FixedBase::new(x, longest).unwrap();
            for e in exps {
                let want = kit::pow_mod(b, &BigUint::from_bytes_be(e), n);
                let got = powers.pow(e).unwrap();
                assert_eq!(
                    kit::from_limbs(&got.to_limbs()),
                    want,
                    "FixedBase {name} {r} n={n:x} b={b:x} e={e:x?}"
                );
                assert!(kit::from_limbs(got.montgomery_limbs()) < kit::from_limbs(m.bound()));
            }
            assert_eq!(
                powers.pow(&vec![1; longest + 1]).map(|_| ()),
                Err(Error::ExponentTooLong {
                    len: longest + 1,
                    max: longest
                })
            );
        }
    });
}

#[test]
fn every_word_size() {
    for bits in [2, 7, 64, 65, 127, 200] {
        check_pow::<u8>(bits as u64, bits, 24);
        check_pow::<u16>(bits as u64 + 1, bits, 24);
        check_pow::<u32>(bits as u64 + 2, bits, 40);
        check_pow::<u64>(bits as u64 + 3, bits, 64);
        check_pow2::<u8>(bits as u64, bits, 24);
        check_pow2::<u16>(bits as u64 + 1, bits, 24);
        check_pow2::<u32>(bits as u64 + 2, bits, 40);
        check_pow2::<u64>(bits as u64 + 3, bits, 64);
        check_fixed_base::<u8>(bits as u64, bits, 24);
        check_fixed_base::<u16>(bits as u64 + 1, bits, 24);
        check_fixed_base::<u32>(bits as u64 + 2, bits, 40);
        check_fixed_base::<u64>(bits as u64 + 3, bits, 64);
    }
}

#[test]
fn fixed_base_at_dsa_sizes() {
    // DSA's and DH's p of 1024..3072 bits with 160..256-bit exponents, and exponents
    // of up to 6400 bits on a small modulus.
    check_fixed_base::<u64>(31, 1024, 20);
    check_fixed_base::<u64>(32, 2048, 32);
    check_fixed_base::<u64>(33, 3072, 32);
    check_fixed_base::<u64>(34, 256, 800);
}

#[test]
fn fixed_base_takes_exponents_up_to_its_length_and_prints_no_value() {
    let m = Modulus::<u64>::from_hex("0xfffffffffffffffffffffffffffffffeffffffffffffffff").unwrap();
    let g = Residue::from_hex(&m, "1234567890abcdef").unwrap();
    let powers = FixedBase::new(&g, 0).unwrap();
    // No exponent byte: only the empty exponent, whose power is 1.
    assert_eq!(powers.pow(&[]).unwrap(), g.pow(&[]));
    assert_eq!(
        powers.pow(&[0]).map(|_| ()),
        Err(Error::ExponentTooLong { len: 1, max: 0 })
    );
    let powers = FixedBase::new(&g, 3).unwrap();
    assert_eq!((powers.max_exponent_len(), powers.modulus()), (3, &m));
    let shown = format!("{powers:?}");
    assert_eq!(shown, "FixedBase { bits: 192, max_exponent_len: 3, .. }");
}

/// A table past `FixedBase::MAX_TABLE_BYTES` is refused before anything is allocated,
/// with the longest length that fits, which a test on a 16384-bit modulus bounds: the
/// lengths of exponents as long as the modulus fit.
#[test]
fn fixed_base_refuses_a_table_past_its_limit() {
    for (bits, fits) in [(192, 100_000), (16384, 2048)] {
        let n = (BigUint::from(1u32) << (bits - 1)) + 1u32;
        let m = Modulus::<u64>::new(&kit::to_limbs::<u64>(&n, bits as usize / 64)).unwrap();
        let g = Residue::from_hex(&m, "3").unwrap();
        let Err(Error::ExponentTooLong { len, max }) = FixedBase::new(&g, usize::MAX) else {
            panic!("{bits} bits: usize::MAX bytes accepted");
        };
        assert_eq!(len, usize::MAX);
        assert!(max >= fits, "{bits} bits: at most {max} bytes");
        assert_eq!(
            FixedBase::new(&g, max + 1).err(),
            Some(Error::ExponentTooLong { len: max + 1, max }),
            "{bits} bits"
        );
    }
}

#[test]
fn pow2_at_dsa_sizes() {
    // DSA's p of 1024..3072 bits with 160..256-bit exponents, and exponents of up to
    // 6400 bits (every window width) on a small modulus.
    check_pow2::<u64>(21, 1024, 20);
    check_pow2::<u64>(22, 2048, 32);
    check_pow2::<u64>(23, 3072, 32);
    check_pow2::<u64>(24, 256, 800);
}

#[test]
fn pow2_refuses_another_modulus() {
    let m1 =
        Modulus::<u64>::from_hex("0xfffffffffffffffffffffffffffffffeffffffffffffffff").unwrap();
    let m2 = Modulus::<u64>::from_hex("0xffffffffffffffffffffffffffffffff000000000000000000000001")
        .unwrap();
    let (a, b) = (
        Residue::from_hex(&m1, "5").unwrap(),
        Residue::from_hex(&m2, "7").unwrap(),
    );
    assert_eq!(a.pow2_vartime(&[3], &b, &[4]), Err(Error::ModulusMismatch));
}

#[test]
fn large_moduli_64_bit_words() {
    // 1024 and 2048 bits with exponents up to 2048 bits (window widths up to 5), and
    // exponents of 6400 bits (width 6) on a small modulus: every window width runs.
    check_pow::<u64>(11, 1024, 256);
    check_pow::<u64>(12, 2048, 128);
    check_pow::<u64>(13, 3000, 16);
    check_pow::<u64>(14, 256, 800);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(kit::proptest_cases(8)))]
    #[test]
    fn random_sizes(seed in any::<u64>(), bits in 2u32..=1100) {
        check_pow::<u64>(seed, bits, 40);
        check_pow::<u32>(seed, bits.min(300), 16);
        check_pow2::<u64>(seed, bits, 40);
        check_fixed_base::<u64>(seed, bits, 40);
    }
}

/// `exp::digit` against the exponent's bits read one by one from num-bigint: every
/// width up to 56 at every position of exponents of 0 to 10 bytes, and past their end.
#[test]
fn digits_equal_the_exponent_bits() {
    let mut rng = TestRng::new(0xd161);
    for len in 0..=10 {
        for e in [
            vec![0xff; len],
            vec![0; len],
            random_bytes(&mut rng, len.max(1)),
        ] {
            let x = BigUint::from_bytes_be(&e);
            for w in 1..=56u32 {
                for lo in 0..8 * e.len() + 70 {
                    let want =
                        (0..w as u64).fold(0usize, |d, k| d | (x.bit(lo as u64 + k) as usize) << k);
                    assert_eq!(exp::digit(&e, lo, w), want, "{e:02x?}, lo {lo}, w {w}");
                }
            }
        }
    }
}

/// The steps of `pow` for an exponent, with `auto` under `reduction`.
fn trace(m: &Modulus<u64>, base: &[u64], e: &[u8], vartime: bool) -> Vec<Step> {
    let mut t = Vec::new();
    if vartime {
        exp::pow_vartime(m, base, e, &mut t);
    } else {
        exp::pow(m, base, e, &mut t);
    }
    t
}

/// For every exponent length, exponents of that length with very different bits (all
/// zeros, all ones, one bit, random) give `pow` the same sequence of squarings,
/// multiplications and table reads, and each lookup reads every entry; `pow_vartime`'s
/// traces do differ, which shows the recording sees the difference when there is one.
#[test]
fn pow_steps_do_not_depend_on_the_exponent_bits() {
    let mut rng = TestRng::new(99);
    let n = kit::random_modulus(&mut rng, 512);
    for r in Reduction::ALL {
        let m = Modulus::with_kernel(&kit::to_limbs::<u64>(&n, 8), lab::default(), r).unwrap();
        let base = Residue::new(
            &m,
            &kit::to_limbs::<u64>(&kit::random_below(&mut rng, &n), m.limbs()),
        )
        .unwrap();
        let b = base.montgomery_limbs();
        // Window widths 1, 3, 4, 4, 5, 6, 6 on limbs (`exp::ct_window_limbs`), 1, 3,
        // 4, 4, 4, 5, 6 on 52-bit digits (`exp::ct_window`).
        for len in [1usize, 3, 12, 40, 128, 200, 800] {
            let random = random_bytes(&mut rng, len);
            let mut one_bit = vec![0u8; len];
            one_bit[len - 1] = 1;
            let candidates = [vec![0u8; len], vec![0xff; len], one_bit, random];
            let reference = trace(&m, b, &candidates[0], false);
            let w = if on_digits(&m) {
                exp::ct_window(8 * len)
            } else {
                exp::ct_window_limbs(8 * len)
            };
            let table = 1usize << w;
            // Every lookup reads entries 0, 1, ..., table - 1 in order.
            let reads: Vec<usize> = reference
                .iter()
                .filter_map(|s| match s {
                    Step::Read(i) => Some(*i),
                    _ => None,
                })
                .collect();
            assert_eq!(reads.len() % table, 0, "len {len}");
            for (k, &i) in reads.iter().enumerate() {
                assert_eq!(i, k % table, "len {len}: read {k}");
            }
            for e in &candidates[1..] {
                assert_eq!(trace(&m, b, e, false), reference, "{r} len {len} e={e:x?}");
            }
            let vt: Vec<Vec<Step>> = candidates.iter().map(|e| trace(&m, b, e, true)).collect();
            assert_ne!(
                vt[1], vt[2],
                "{r} len {len}: vartime traces of all ones and one bit"
            );
        }
    }
}

/// `FixedBase::pow` takes the same steps for every exponent of one length: one read of
/// each row in turn, every one of its 2^w entries in order, and a product after each
/// read but the first; on `cios` (limbs) and on `auto` (the 52-bit digits where the CPU
/// has AVX-512 IFMA), under both policies. Exponents of other lengths do differ.
#[test]
fn fixed_base_steps_do_not_depend_on_the_exponent_bits() {
    let mut rng = TestRng::new(0xf1b);
    let w = FixedBase::<u64>::WINDOW as usize;
    let size = 1usize << w;
    for bits in [192u32, 1024, 2048] {
        let n = kit::random_modulus(&mut rng, bits);
        let x = kit::random_below(&mut rng, &n);
        for (name, r) in ["cios", "auto"]
            .into_iter()
            .flat_map(|k| Reduction::ALL.map(|r| (k, r)))
        {
            let k = lab::by_name::<u64>(name).unwrap();
            let m =
                Modulus::with_kernel(&kit::to_limbs::<u64>(&n, bits.div_ceil(64) as usize), k, r)
                    .unwrap();
            let g = Residue::new(&m, &kit::to_limbs::<u64>(&x, m.limbs())).unwrap();
            let powers = FixedBase::new(&g, 40).unwrap();
            let steps = |e: &[u8]| {
                let mut t: Vec<Step> = Vec::new();
                powers.pow_traced(e, &mut t).unwrap();
                t
            };
            let mut lengths = Vec::new();
            for len in [1usize, 3, 32, 40] {
                let mut one_bit = vec![0u8; len];
                one_bit[len - 1] = 1;
                let candidates = [
                    vec![0u8; len],
                    vec![0xff; len],
                    one_bit,
                    random_bytes(&mut rng, len),
                ];
                let reference = steps(&candidates[0]);
                let digits = (8 * len).div_ceil(w);
                let mut want = Vec::new();
                for i in 0..digits {
                    want.extend((0..size).map(Step::Read));
                    if i > 0 {
                        want.push(Step::Mul);
                    }
                }
                assert_eq!(reference, want, "{name} {r} {bits} bits, len {len}");
                for e in &candidates[1..] {
                    assert_eq!(steps(e), reference, "{name} {r} {bits} bits, e={e:x?}");
                }
                lengths.push(reference.len());
            }
            lengths.dedup();
            assert_eq!(lengths.len(), 4, "{name} {r}: one trace per length");
        }
    }
}

/// Whether `pow` runs in the kernel's own domain for `m` (the 52-bit digits).
fn on_digits(m: &Modulus<u64>) -> bool {
    m.engine().pow_domain(m).is_some()
}

/// Whether AVX-512 IFMA is here; says so when the test is skipped.
fn ifma_here(test: &str) -> bool {
    if montmul::arch::Avx512Ifma::new().is_some() {
        true
    } else {
        montmul_testkit::skipped!("SKIPPED: {test}: no AVX-512 IFMA");
        false
    }
}

/// `pow` on the digit path (`amm52-ifma` and `auto` moduli) against the oracle for
/// `n`, under both policies: bases 0, 1, n-1 and random, exponents empty, 0, 1,
/// all ones and random of up to `max_exp_len` bytes.
#[cfg(target_arch = "x86_64")]
fn check_digit_path(rng: &mut TestRng, n: &BigUint, max_exp_len: usize) {
    let s = (n.bits() as u32).div_ceil(64) as usize;
    let bases = [
        BigUint::from(0u32),
        BigUint::from(1u32),
        n - 1u32,
        kit::random_below(rng, n),
    ];
    let mut exps = vec![vec![], vec![0], vec![1], vec![0, 1], vec![0xff]];
    for len in [3, 16, 64, 128, 256, 512, 800] {
        if len > max_exp_len {
            break;
        }
        exps.push(vec![0xff; len]);
        exps.push(random_bytes(rng, len));
    }
    for name in ["amm52-ifma", "auto"] {
        for r in Reduction::ALL {
            let k = lab::by_name::<u64>(name).expect("registered");
            let m = Modulus::with_kernel(&kit::to_limbs::<u64>(n, s), k, r).unwrap();
            if name == "amm52-ifma" || m.limbs() >= 10 {
                assert!(on_digits(&m), "{name} {r} {} bits", n.bits());
            }
            let bound = kit::from_limbs(m.bound());
            for b in &bases {
                let x = Residue::new(&m, &kit::to_limbs::<u64>(b, m.limbs())).unwrap();
                for e in &exps {
                    let want = kit::pow_mod(b, &BigUint::from_bytes_be(e), n);
                    let got = x.pow(e);
                    assert_eq!(
                        kit::from_limbs(&got.to_limbs()),
                        want,
                        "{name} {r} n={n:x} b={b:x} e={e:x?}"
                    );
                    assert!(kit::from_limbs(got.montgomery_limbs()) < bound);
                }
            }
        }
    }
}

/// The digit-domain exponentiation at 640 to 16384 bits: random moduli (top bit of the
/// top limb set and clear), the kit's edge moduli, and the sizes where the digit
/// domain's shift e = 52 d' - 64 s is 0 (13, 26, 39 limbs with two spare bits) or where
/// R' > 4n needs one more digit (832 bits: 16 digits would be exactly 64 s).
#[test]
#[cfg(target_arch = "x86_64")]
fn ifma_digit_path_matches_the_oracle() {
    if !ifma_here("ifma_digit_path_matches_the_oracle") {
        return;
    }
    let mut rng = TestRng::new(0x1fa);
    let sizes: &[(u32, usize)] = &[
        // Exponents up to 6400 bits: every window width.
        (640, 800),
        (700, 64),
        (830, 128),
        (831, 64),
        (832, 128),
        (1023, 64),
        (1024, 512),
        (1090, 64),
        (1662, 64),
        (1664, 64),
        (2048, 64),
        (2494, 16),
        (3072, 16),
        (4096, 16),
        (5440, 8),
        (6144, 8),
        (8192, 8),
        // From 30 digit vectors (189 limbs, 12033 bits) on the squarings are the wide squaring
        // (`sqr_lanes`).
        (12032, 4),
        (12033, 4),
        (16384, 4),
    ];
    for &(bits, max_len) in sizes {
        let n = kit::random_modulus(&mut rng, bits);
        check_digit_path(&mut rng, &n, max_len);
    }
    for bits in [640, 832, 1024, 2048, 4096, 8192] {
        for n in kit::edge_moduli(bits, 64) {
            check_digit_path(&mut rng, &n, 16);
        }
    }
    // Small moduli forced onto `amm52-ifma`: the domain's constants by doublings up to
    // 41 bits (n <= 2^e, e = 40 at one limb), by Montgomery products from 42 bits.
    for bits in [3, 17, 40, 41, 42, 43, 63, 64, 65, 100, 128] {
        let n = kit::random_modulus(&mut rng, bits);
        check_digit_path(&mut rng, &n, 16);
    }
    // The digit counts themselves: e = 0 at 13 limbs and 830 bits, one more digit at
    // 831 and 832 bits; R' > 4n always.
    use montmul::arch::x86_64::avx512ifma::exp::shape;
    assert_eq!(shape(13, 830), (16, 2, 0));
    assert_eq!(shape(13, 832), (17, 3, 52));
    assert_eq!(shape(16, 1024), (20, 3, 16));
    for s in 1..=257usize {
        for bits in [64 * s as u32 - 63, 64 * s as u32 - 2, 64 * s as u32] {
            let (d, v, e) = shape(s, bits);
            assert!(52 * d >= bits as usize + 2 && e < 104 && v <= 40 && 8 * v >= d);
        }
    }
}

/// The digit path's steps do not depend on the exponent's bits, and are the limb
/// path's (the same ladder) where both take the same window width (up to 768-bit
/// exponents; above, the limb path's windows are wider: `exp::ct_window_limbs`).
#[test]
fn ifma_digit_path_steps_do_not_depend_on_the_exponent_bits() {
    if !ifma_here("ifma_digit_path_steps_do_not_depend_on_the_exponent_bits") {
        return;
    }
    let mut rng = TestRng::new(98);
    for bits in [832, 1024] {
        let n = kit::random_modulus(&mut rng, bits);
        for r in Reduction::ALL {
            let s = (bits as usize).div_ceil(64);
            let limbs = kit::to_limbs::<u64>(&n, s);
            let ifma = lab::by_name::<u64>("amm52-ifma").unwrap();
            let m = Modulus::with_kernel(&limbs, ifma, r).unwrap();
            assert!(on_digits(&m));
            let limb_m = Modulus::with_kernel(&limbs, lab::by_name("cios").unwrap(), r).unwrap();
            assert!(!on_digits(&limb_m));
            let x = kit::random_below(&mut rng, &n);
            let base = Residue::new(&m, &kit::to_limbs::<u64>(&x, m.limbs())).unwrap();
            let limb_base = Residue::new(&limb_m, &kit::to_limbs::<u64>(&x, m.limbs())).unwrap();
            for len in [1usize, 3, 40, 96, 128] {
                let random = random_bytes(&mut rng, len);
                let mut one_bit = vec![0u8; len];
                one_bit[len - 1] = 1;
                let candidates = [vec![0u8; len], vec![0xff; len], one_bit, random];
                let reference = trace(&m, base.montgomery_limbs(), &candidates[0], false);
                let w = exp::ct_window(8 * len);
                assert!(reference.contains(&Step::Read((1 << w) - 1)));
                assert!(!reference.contains(&Step::Read(1 << w)));
                if w == exp::ct_window_limbs(8 * len) {
                    let limbs = trace(&limb_m, limb_base.montgomery_limbs(), &candidates[0], false);
                    assert!(
                        limbs == reference,
                        "{r} {bits} bits, len {len}: not the limb path's steps"
                    );
                }
                for e in &candidates[1..] {
                    assert_eq!(
                        trace(&m, base.montgomery_limbs(), e, false),
                        reference,
                        "{r} {bits} bits, len {len} e={e:x?}"
                    );
                }
            }
        }
    }
}
