//! `montmul::lanes::pow_x2` (two exponentiations in lockstep on `amm52x2-ifma`) against
//! the num-bigint oracle and against `Residue::pow`: every digit count the pair kernel
//! has (512 to 4096 bits per half), equal and different moduli, top bit set and clear,
//! both reduction policies, edge bases (0, 1, n - 1) and exponents (empty, 0,
//! all-ones, leading zero bytes, different lengths); `pow_lanes` with two jobs picks
//! the same engine. The trace test checks that the steps depend on the exponents'
//! byte lengths only and, in lockstep, are those of one `pow`. On a CPU without
//! AVX-512 IFMA the results are still checked (the sequential fallback) and the tests
//! say that the lockstep path was skipped.

use montmul::exp::Step;
use montmul::lanes::{pow_lanes, pow_x2, pow_x2_traced};
use montmul::{Modulus, Reduction, Residue};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// Whether the CPU has AVX-512 IFMA; says so once per test when it does not.
fn ifma_here(test: &str) -> bool {
    let here = montmul::arch::Avx512Ifma::new().is_some();
    if !here {
        montmul_testkit::skipped!(
            "{test}: lockstep SKIPPED: no AVX-512 IFMA (sequential fallback checked)"
        );
    }
    here
}

/// A modulus of the value `n` under `reduction`, on the kernel `auto` picks (Full) or
/// on `amm52-ifma` where the CPU has it (Lazy: a kernel given by name).
fn modulus(n: &BigUint, reduction: Reduction) -> Modulus<u64> {
    let limbs = kit::to_limbs::<u64>(n, (n.bits() as u32).div_ceil(64) as usize);
    match reduction {
        Reduction::Full => Modulus::new(&limbs).unwrap(),
        Reduction::Lazy => lazy_on_ifma(&limbs).unwrap_or_else(|| Modulus::new(&limbs).unwrap()),
    }
}

/// A modulus under lazy reduction on `amm52-ifma`, where the CPU has it.
#[cfg(target_arch = "x86_64")]
fn lazy_on_ifma(limbs: &[u64]) -> Option<Modulus<u64>> {
    montmul::arch::Avx512Ifma::new()?;
    let ifma = &montmul::arch::x86_64::avx512ifma::Amm52Ifma;
    Some(Modulus::with_kernel(limbs, ifma, Reduction::Lazy).unwrap())
}

/// No `amm52-ifma` off x86-64: the test then checks `auto`'s modulus.
#[cfg(not(target_arch = "x86_64"))]
fn lazy_on_ifma(_: &[u64]) -> Option<Modulus<u64>> {
    None
}

fn residue(m: &Modulus<u64>, x: &BigUint) -> Residue<u64> {
    Residue::from_be_bytes(m, &x.to_bytes_be()).unwrap()
}

fn value(x: &Residue<u64>) -> BigUint {
    BigUint::from_bytes_be(&x.to_be_bytes())
}

/// Whether `m`'s products run on `amm52-ifma`.
fn on_ifma(m: &Modulus<u64>) -> bool {
    m.engine().info().name == "amm52-ifma"
}

/// Whether the pair kernel takes `m` (on a CPU with AVX-512 IFMA): its products run on
/// `amm52-ifma`, or its kernel is `auto` (which gives 7 and 8 limbs to `mulx-cios`).
fn pair_takes(m: &Modulus<u64>) -> bool {
    on_ifma(m) || m.kernel().info().name == "auto"
}

/// Whether `lanes` picks lockstep for `ma`, `mb` (the arch layer's rule).
#[cfg(target_arch = "x86_64")]
fn picked(ma: &Modulus<u64>, mb: &Modulus<u64>) -> bool {
    montmul::arch::x86_64::avx512ifma::x2::picked(ma, mb)
}

#[cfg(not(target_arch = "x86_64"))]
fn picked(_: &Modulus<u64>, _: &Modulus<u64>) -> bool {
    false
}

/// Whether this CPU splits 512-bit multiply-adds in two (`Avx512Ifma::splits_512`);
/// false without AVX-512 IFMA.
fn splits_512() -> bool {
    montmul::arch::Avx512Ifma::new().is_some_and(|t| t.splits_512())
}

/// The pair ladder run directly (the arch layer's `x2::pow_x2`), at sizes `lanes`
/// does not pick too: `None` where the pair kernel does not fit.
#[cfg(target_arch = "x86_64")]
fn forced(
    a: &Residue<u64>,
    ea: &[u8],
    b: &Residue<u64>,
    eb: &[u8],
) -> Option<(Residue<u64>, Residue<u64>)> {
    let (ma, mb) = (a.modulus(), b.modulus());
    let (x, y) = montmul::arch::x86_64::avx512ifma::x2::pow_x2(
        (ma, a.montgomery_limbs(), ea),
        (mb, b.montgomery_limbs(), eb),
        &mut (),
    )?;
    Some((
        Residue::from_montgomery(ma, x).unwrap(),
        Residue::from_montgomery(mb, y).unwrap(),
    ))
}

#[cfg(not(target_arch = "x86_64"))]
fn forced(
    _: &Residue<u64>,
    _: &[u8],
    _: &Residue<u64>,
    _: &[u8],
) -> Option<(Residue<u64>, Residue<u64>)> {
    None
}

/// Whether `pow_x2` runs `ma`, `mb` in lockstep: by its trace against one `pow`'s of
/// the longer length (lockstep), or both `pow`s' (sequential).
fn lockstep(a: &Residue<u64>, b: &Residue<u64>, ea: &[u8], eb: &[u8]) -> bool {
    let mut pair: Vec<Step> = Vec::new();
    pow_x2_traced(a, ea, b, eb, &mut pair).unwrap();
    let longer = vec![0u8; ea.len().max(eb.len())];
    let mut one: Vec<Step> = Vec::new();
    a.pow_traced(&longer, &mut one);
    if pair == one {
        return true;
    }
    let mut two: Vec<Step> = Vec::new();
    a.pow_traced(ea, &mut two);
    b.pow_traced(eb, &mut two);
    assert!(pair == two, "neither lockstep nor sequential steps");
    false
}

/// One pair against the oracle and against two `pow`s, through `pow_x2` and through
/// `pow_lanes`.
fn check(
    (ma, na, xa, ea): (&Modulus<u64>, &BigUint, &BigUint, &[u8]),
    (mb, nb, xb, eb): (&Modulus<u64>, &BigUint, &BigUint, &[u8]),
    what: &str,
) {
    let (a, b) = (residue(ma, xa), residue(mb, xb));
    let (ya, yb) = pow_x2(&a, ea, &b, eb).unwrap();
    let want_a = kit::pow_mod(xa, &BigUint::from_bytes_be(ea), na);
    let want_b = kit::pow_mod(xb, &BigUint::from_bytes_be(eb), nb);
    assert_eq!(value(&ya), want_a, "{what}: half a");
    assert_eq!(value(&yb), want_b, "{what}: half b");
    assert!(ya == a.pow(ea) && yb == b.pow(eb), "{what}: not pow's");
    // Below the bound, as every residue.
    assert!(kit::from_limbs(ya.montgomery_limbs()) < kit::from_limbs(ma.bound()));
    assert!(kit::from_limbs(yb.montgomery_limbs()) < kit::from_limbs(mb.bound()));
    // The pair ladder itself, wherever it fits (both on `amm52-ifma`, one digit
    // count), also where `lanes` does not pick it.
    if let Some((za, zb)) = forced(&a, ea, &b, eb) {
        assert!(za == ya && zb == yb, "{what}: lockstep differs");
    }
    let lanes = pow_lanes(&[a, b], &[ea, eb]).unwrap();
    assert!(
        lanes[0] == ya && lanes[1] == yb,
        "{what}: pow_lanes differs"
    );
}

/// The sizes per half: one or two for each vector count 2 ..= 10 of the pair kernel
/// (448, 512, 832, 1024, 1280, 1536, 1792, 2048, 2304, 2560, 3072, 3584, 4096 bits;
/// `auto` gives 448 and 512 to `mulx-cios` under `Full` on a CPU with BMI2 and ADX).
/// Every form this CPU picks runs: where it splits 512-bit multiply-adds, 832 bits (17
/// or 18 digits) and 1024 bits under `Full` (20 digits) on 256-bit registers
/// (`x2::X2_YMM_DIGITS`), the others on 512-bit ones; elsewhere the chained form at 2
/// and 3 vectors and the low-first one from 4 (`x2::X2_LOW_FIRST_VECTORS`). The unit test in
/// `x2.rs` compares every form digit for digit, whatever the CPU.
const SIZES: [u32; 13] = [
    448, 512, 832, 1024, 1280, 1536, 1792, 2048, 2304, 2560, 3072, 3584, 4096,
];

fn every_size(reduction: Reduction, test: &str) {
    let ifma = ifma_here(test);
    let mut rng = TestRng::new(0x0c2_0002 + reduction as u64);
    for bits in SIZES {
        let bytes = bits as usize / 8;
        // Top bit set, top bit clear (one bit shorter: the same limb count under both
        // policies, so the same digit count); the same modulus twice, as one handle
        // and as two.
        let na = kit::random_modulus(&mut rng, bits);
        let nb = kit::random_modulus(&mut rng, bits - 1);
        let (ma, mb) = (modulus(&na, reduction), modulus(&nb, reduction));
        let ma2 = modulus(&na, reduction);
        let x = |rng: &mut TestRng, n: &BigUint| kit::random_below(rng, n);
        let full = |rng: &mut TestRng| {
            let mut e = kit::random_below_pow2(rng, bits).to_bytes_be();
            e.resize(bytes, 0xa5);
            e
        };
        let ones = vec![0xffu8; bytes];
        let (xa, xb) = (x(&mut rng, &na), x(&mut rng, &nb));
        let (ea, eb) = (full(&mut rng), full(&mut rng));
        let what = format!("{bits} bits, {reduction:?}");
        // Random bases and exponents of the modulus' length.
        check(
            (&ma, &na, &xa, &ea),
            (&mb, &nb, &xb, &eb),
            &format!("{what}, random"),
        );
        // In lockstep exactly where `lanes` picks it: both moduli on `amm52-ifma` or
        // on `auto` (whose 448 and 512 bits, under Full, run on `mulx-cios`), and at
        // most 32 digits. `check` runs the pair ladder at every size.
        let picked = picked(&ma, &mb);
        assert_eq!(
            lockstep(&residue(&ma, &xa), &residue(&mb, &xb), &ea, &eb),
            picked,
            "{what}: lockstep or not"
        );
        // Picked from 448 to 1536 bits, under both policies; where the CPU does not
        // split 512-bit multiply-adds, to 5 vectors per half: to 2048 bits under Full
        // (40 digits; under Lazy 2048 bits take 41, 6 vectors), not from 2304.
        if ifma && bits <= 1536 {
            assert!(picked, "{what}: not picked");
        }
        if ifma && !splits_512() {
            assert_eq!(
                picked,
                bits < 2048 || (bits == 2048 && reduction == Reduction::Full),
                "{what}: picked or not, 512-bit at full rate"
            );
        }
        // The pair ladder runs at every size on `amm52-ifma` and `auto`.
        let ab = (&residue(&ma, &xa), &residue(&mb, &xb));
        let fits = forced(ab.0, &ea, ab.1, &eb).is_some();
        assert_eq!(
            fits,
            ifma && pair_takes(&ma) && pair_takes(&mb),
            "{what}: fits or not"
        );
        if ifma && (reduction == Reduction::Lazy || bits >= 1024) {
            assert!(on_ifma(&ma) && on_ifma(&mb), "{what}: not on amm52-ifma");
        }
        // The same modulus in both halves, one handle and two.
        check(
            (&ma, &na, &xa, &eb),
            (&ma, &na, &xb.clone().min(&na - 1u32), &ea),
            &format!("{what}, same handle"),
        );
        check(
            (&ma, &na, &xa, &ea),
            (&ma2, &na, &(&na - 1u32), &ones),
            &format!("{what}, equal moduli, n - 1, all-ones"),
        );
        // Edge bases and exponents, of different lengths.
        let zero = BigUint::from(0u32);
        let one = BigUint::from(1u32);
        check(
            (&ma, &na, &zero, &ones),
            (&mb, &nb, &(&nb - 1u32), &[0, 0, 0xff]),
            &format!("{what}, 0^ones, (n-1)^255 with leading zeros"),
        );
        check(
            (&ma, &na, &one, &[]),
            (&mb, &nb, &xb, &ones[..5]),
            &format!("{what}, 1^(), x^(5 bytes of ones)"),
        );
        check(
            (&ma, &na, &xa, &[0]),
            (&mb, &nb, &zero, &[]),
            &format!("{what}, x^0, 0^()"),
        );
        let mut padded = vec![0u8; 4];
        padded.extend(&ea[..bytes / 2]);
        check(
            (&ma, &na, &xa, &padded),
            (&mb, &nb, &(&nb - 1u32), &eb[..3]),
            &format!("{what}, leading zero bytes, lengths differ"),
        );
    }
}

#[test]
fn every_size_agrees_with_the_oracle_and_pow_full() {
    every_size(
        Reduction::Full,
        "every_size_agrees_with_the_oracle_and_pow_full",
    );
}

#[test]
fn every_size_agrees_with_the_oracle_and_pow_lazy() {
    every_size(
        Reduction::Lazy,
        "every_size_agrees_with_the_oracle_and_pow_lazy",
    );
}

/// Pairs the pair kernel does not take (digit counts differ, sizes outside it, 32-bit
/// limbs) fall back to two `pow`s, with the same results.
#[test]
fn pairs_outside_the_kernel_fall_back() {
    let mut rng = TestRng::new(0x0c2_0003);
    for (bits_a, bits_b) in [(1024, 2048), (256, 256), (64, 1024), (4160, 4160)] {
        let (na, nb) = (
            kit::random_modulus(&mut rng, bits_a),
            kit::random_modulus(&mut rng, bits_b),
        );
        let (ma, mb) = (modulus(&na, Reduction::Full), modulus(&nb, Reduction::Full));
        let (xa, xb) = (
            kit::random_below(&mut rng, &na),
            kit::random_below(&mut rng, &nb),
        );
        let (ea, eb) = ([0x80u8, 1, 2, 3], [0xffu8; 9]);
        check(
            (&ma, &na, &xa, &ea),
            (&mb, &nb, &xb, &eb),
            &format!("{bits_a} and {bits_b} bits"),
        );
        assert!(!lockstep(&residue(&ma, &xa), &residue(&mb, &xb), &ea, &eb));
    }
    let n = kit::random_modulus(&mut rng, 1024);
    let m = Modulus::<u32>::from_be_bytes(&n.to_bytes_be()).unwrap();
    let x = kit::random_below(&mut rng, &n);
    let a = Residue::from_be_bytes(&m, &x.to_bytes_be()).unwrap();
    let (ya, yb) = pow_x2(&a, &[7, 7], &a, &[9]).unwrap();
    assert!(ya == a.pow(&[7, 7]) && yb == a.pow(&[9]));
    assert_eq!(
        BigUint::from_bytes_be(&yb.to_be_bytes()),
        kit::pow_mod(&x, &BigUint::from(9u32), &n)
    );
}

/// The steps (products, squarings, table reads) depend on the exponents' byte lengths
/// only: exponents of equal lengths and different values give equal traces; in
/// lockstep (where `lanes` picks it) they are one `pow`'s of the longer length,
/// otherwise both `pow`s'. (The pair ladder's steps come from `exp::fixed_window`,
/// the same code at every size.)
#[test]
fn steps_depend_on_the_byte_lengths_only() {
    let ifma = ifma_here("steps_depend_on_the_byte_lengths_only");
    let mut rng = TestRng::new(0x0c2_0004);
    for bits in [512u32, 1024, 1536, 2048] {
        let (na, nb) = (
            kit::random_modulus(&mut rng, bits),
            kit::random_modulus(&mut rng, bits),
        );
        let (ma, mb) = (modulus(&na, Reduction::Full), modulus(&nb, Reduction::Full));
        let a = residue(&ma, &kit::random_below(&mut rng, &na));
        let b = residue(&mb, &kit::random_below(&mut rng, &nb));
        for (la, lb) in [(bits as usize / 8, bits as usize / 8), (3, 40), (0, 7)] {
            let traces: Vec<Vec<Step>> = [0x00u8, 0xff, 0x5a]
                .iter()
                .map(|&fill| {
                    let ea = vec![fill; la];
                    let eb: Vec<u8> = (0..lb).map(|i| fill ^ (i as u8)).collect();
                    let mut t: Vec<Step> = Vec::new();
                    pow_x2_traced(&a, &ea, &b, &eb, &mut t).unwrap();
                    t
                })
                .collect();
            assert!(!traces[0].is_empty());
            // (Compared with `==`: a failure would print thousands of steps.)
            let same = traces[0] == traces[1] && traces[0] == traces[2];
            assert!(same, "{bits} bits, lengths {la}, {lb}: steps differ");
            let mut want: Vec<Step> = Vec::new();
            if picked(&ma, &mb) {
                a.pow_traced(&vec![0u8; la.max(lb)], &mut want);
            } else {
                a.pow_traced(&vec![0u8; la], &mut want);
                b.pow_traced(&vec![0u8; lb], &mut want);
            }
            assert!(traces[0] == want, "{bits} bits: not the expected steps");
            if ifma && bits >= 1024 {
                assert!(
                    on_ifma(&ma) && on_ifma(&mb),
                    "{bits} bits: not on amm52-ifma"
                );
            }
        }
    }
}
