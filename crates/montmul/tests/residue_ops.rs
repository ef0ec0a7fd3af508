//! The owned `Residue` and what public-key code needs from it, against num-bigint: the
//! in-place operations, reduction of wide values, fixed-length output, inverses, random
//! residues, exponent traces, `Debug`, cross-modulus use and length checks. Every word
//! size, 64 to 16384 bits, edge moduli (all ones, one high bit, middle limbs all ones,
//! top bit clear) and edge operands (0, 1, 2, n-1, n-2, (n-1)/2, R mod n, all-ones
//! limbs), under both reduction policies.

use std::panic::{catch_unwind, AssertUnwindSafe};

use assert_no_alloc::{assert_no_alloc, reset_violation_count, violation_count, AllocDisabler};
use montmul::lab::{self as kernel, exp::Step};
use montmul::{Error, Limb, Modulus, Reduction, Residue};
use montmul_testkit::{self as kit, num_bigint::BigUint, TestRng};
use num_traits::{One, Zero};
use rand_core::{CryptoRng, RngCore};

/// Counts, per thread, the allocations made inside `assert_no_alloc` (warning mode: a
/// count, not an abort), so that a test can check that in-place operations allocate
/// nothing.
#[global_allocator]
static GLOBAL: AllocDisabler = AllocDisabler;

/// The test kit's SplitMix, declared fit for `Residue::random` (tests only).
struct Rng(TestRng);

impl RngCore for Rng {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest)
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.0.try_fill_bytes(dest)
    }
}

impl CryptoRng for Rng {}

/// Sizes per word: every word size up to a few thousand bits, 64-bit limbs to 16384.
fn sizes<L: Limb>() -> &'static [u32] {
    match L::BITS {
        8 => &[64, 65, 127, 256, 521],
        16 => &[64, 130, 1024],
        32 => &[64, 521, 2048],
        _ => &[64, 65, 256, 1024, 4096, 16384],
    }
}

/// Edge moduli and one random one of `bits` bits.
fn moduli<L: Limb>(bits: u32, rng: &mut TestRng) -> Vec<BigUint> {
    let mut out = kit::edge_moduli(bits, L::BITS);
    out.push(kit::random_modulus(rng, bits));
    out
}

/// `n` under both policies: `cios` lazy and the default kernel (`auto`) with its
/// preferred policy.
fn contexts<L: Limb>(n: &BigUint) -> Vec<Modulus<L>> {
    let limbs = kit::to_limbs::<L>(n, (n.bits() as u32).div_ceil(L::BITS) as usize);
    let cios = kernel::by_name::<L>("cios").expect("cios exists");
    vec![
        Modulus::new(&limbs).expect("odd modulus"),
        Modulus::with_kernel(&limbs, cios, Reduction::Lazy).expect("cios is lazy"),
    ]
}

/// A few operands: the edge cases (without the long all-ones list) and two random ones.
fn operands<L: Limb>(m: &Modulus<L>, n: &BigUint, rng: &mut TestRng) -> Vec<BigUint> {
    let r_bits = L::BITS * m.limbs() as u32;
    let mut out: Vec<BigUint> = kit::edge_operands(n, L::BITS, r_bits)
        .into_iter()
        .take(9)
        .collect();
    // The all-ones value of every limb below the top one.
    let ones = (BigUint::one() << (L::BITS * (m.limbs() as u32 - 1))) - 1u32;
    out.push(ones % n);
    out.push(kit::random_below(rng, n));
    out.push(kit::random_below(rng, n));
    out
}

fn residue<L: Limb>(m: &Modulus<L>, x: &BigUint) -> Residue<L> {
    Residue::new(m, &kit::to_limbs::<L>(x, m.limbs())).expect("x < n")
}

fn value<L: Limb>(r: &Residue<L>) -> BigUint {
    kit::from_limbs(&r.to_limbs())
}

fn below_bound<L: Limb>(r: &Residue<L>) -> bool {
    kit::from_limbs(r.montgomery_limbs()) < kit::from_limbs(r.modulus().bound())
}

fn in_place_chain<L: Limb>() {
    let mut rng = TestRng::new(0x1a5e + L::BITS as u64);
    for &bits in sizes::<L>() {
        for n in moduli::<L>(bits, &mut rng) {
            for m in contexts::<L>(&n) {
                let xs = operands(&m, &n, &mut rng);
                for (i, a) in xs.iter().enumerate() {
                    let b = &xs[(i * 7 + 3) % xs.len()];
                    let (ra, rb) = (residue(&m, a), residue(&m, b));
                    let ctx = format!("w{} n={n:x} a={a:x} b={b:x}", L::BITS);
                    let mut x = ra.clone();
                    let mut want = a.clone();
                    x.mul_assign(&rb);
                    want = want * b % &n;
                    assert_eq!(value(&x), want, "mul_assign {ctx}");
                    assert_eq!(value(&(&ra * &rb)), want, "mul {ctx}");
                    x.square_assign();
                    want = &want * &want % &n;
                    assert_eq!(value(&x), want, "square_assign {ctx}");
                    x += &ra;
                    want = (want + a) % &n;
                    assert_eq!(value(&x), want, "add_assign {ctx}");
                    x -= &rb;
                    want = (want + &n - b) % &n;
                    assert_eq!(value(&x), want, "sub_assign {ctx}");
                    x.neg_assign();
                    want = (&n - want) % &n;
                    assert_eq!(value(&x), want, "neg_assign {ctx}");
                    x *= rb.clone();
                    want = want * b % &n;
                    assert_eq!(value(&x), want, "MulAssign {ctx}");
                    assert!(below_bound(&x), "bound {ctx}");
                    assert_eq!(value(&(&ra + &rb)), (a + b) % &n, "add {ctx}");
                    assert_eq!(value(&(&ra - &rb)), (a + &n - b) % &n, "sub {ctx}");
                    assert_eq!(value(&-&ra), (&n - a) % &n, "neg {ctx}");
                    assert_eq!(value(&ra.square()), a * a % &n, "square {ctx}");
                    assert_eq!(ra.ct_is_zero() == L::ONE, a.is_zero(), "is_zero {ctx}");
                }
            }
        }
    }
}

#[test]
fn in_place_operations_match_the_oracle() {
    in_place_chain::<u8>();
    in_place_chain::<u16>();
    in_place_chain::<u32>();
    in_place_chain::<u64>();
}

#[test]
fn in_place_operations_allocate_nothing() {
    let mut rng = TestRng::new(7);
    for bits in [256, 1024, 2048, 4096] {
        let n = kit::random_modulus(&mut rng, bits);
        for m in contexts::<u64>(&n) {
            let a = residue(&m, &kit::random_below(&mut rng, &n));
            let b = residue(&m, &kit::random_below(&mut rng, &n));
            let mut x = a.clone();
            reset_violation_count();
            assert_no_alloc(|| {
                for _ in 0..10 {
                    x.mul_assign(&b);
                    x.square_assign();
                    x.add_assign(&a);
                    x.sub_assign(&b);
                    x.neg_assign();
                    x *= &a;
                    x += &b;
                    x -= &a;
                }
            });
            let kernel = m.engine().info().name;
            assert_eq!(violation_count(), 0, "{bits} bits, {kernel}");
            // The check does see allocations: a by-value product allocates.
            assert_no_alloc(|| drop(&x * &a));
            assert!(violation_count() > 0);
        }
    }
}

fn wide_reduction<L: Limb>() {
    let mut rng = TestRng::new(0x3ed + L::BITS as u64);
    for &bits in sizes::<L>() {
        for n in moduli::<L>(bits, &mut rng) {
            for m in contexts::<L>(&n) {
                let s = m.limbs();
                for len in [0, 1, s - 1, s, s + 1, 2 * s, 2 * s + 1, 3 * s + 2] {
                    let w = L::BITS * len as u32;
                    let all_ones = (BigUint::one() << w) - 1u32;
                    let random = kit::random_below_pow2(&mut rng, w);
                    for x in [BigUint::zero(), all_ones, random, n.clone()] {
                        if x.bits() > w as u64 {
                            continue;
                        }
                        let limbs = kit::to_limbs::<L>(&x, len);
                        let r = Residue::from_limbs_reduced(&m, &limbs);
                        let ctx = format!("w{} n={n:x} len {len} x={x:x}", L::BITS);
                        assert_eq!(value(&r), &x % &n, "limbs {ctx}");
                        assert!(below_bound(&r), "bound {ctx}");
                    }
                }
                let k = m.byte_len();
                for len in [0, 1, k - 1, k, k + 1, 2 * k, 2 * k + 3] {
                    let x = kit::random_below_pow2(&mut rng, 8 * len as u32);
                    let mut bytes = x.to_bytes_be();
                    if x.is_zero() {
                        bytes.clear();
                    }
                    // Leading zero bytes up to `len`: the length counts, not the value.
                    let mut padded = vec![0u8; len.saturating_sub(bytes.len())];
                    padded.extend_from_slice(&bytes);
                    let r = Residue::from_be_bytes_reduced(&m, &padded);
                    assert_eq!(value(&r), &x % &n, "bytes w{} n={n:x} len {len}", L::BITS);
                }
            }
        }
    }
}

#[test]
fn wide_values_reduce_as_the_oracle_does() {
    wide_reduction::<u8>();
    wide_reduction::<u16>();
    wide_reduction::<u32>();
    wide_reduction::<u64>();
}

fn fixed_output<L: Limb>() {
    let mut rng = TestRng::new(0xb17e + L::BITS as u64);
    for &bits in sizes::<L>() {
        for n in moduli::<L>(bits, &mut rng) {
            for m in contexts::<L>(&n) {
                let k = m.byte_len();
                assert_eq!(k, bits.div_ceil(8) as usize);
                for x in operands(&m, &n, &mut rng) {
                    let r = residue(&m, &x);
                    let mut want = vec![0u8; k];
                    let raw = x.to_bytes_be();
                    if !x.is_zero() {
                        want[k - raw.len()..].copy_from_slice(&raw);
                    }
                    let ctx = format!("w{} n={n:x} x={x:x}", L::BITS);
                    assert_eq!(r.to_be_bytes(), want, "to_be_bytes {ctx}");
                    assert_eq!(r.to_be_bytes_padded(k).unwrap(), want, "padded {ctx}");
                    let mut longer = vec![0u8; 5];
                    longer.extend_from_slice(&want);
                    assert_eq!(r.to_be_bytes_padded(k + 5).unwrap(), longer, "{ctx}");
                    let mut out = vec![0xaau8; k + 5];
                    r.write_be_bytes(&mut out).unwrap();
                    assert_eq!(out, longer, "write_be_bytes {ctx}");
                    assert_eq!(
                        r.to_be_bytes_padded(k - 1),
                        Err(Error::OutputTooShort {
                            needed: k,
                            got: k - 1
                        }),
                        "{ctx}"
                    );
                    assert_eq!(
                        r.write_be_bytes(&mut vec![0u8; k - 1]),
                        Err(Error::OutputTooShort {
                            needed: k,
                            got: k - 1
                        })
                    );
                    let hex: String = want.iter().map(|b| format!("{b:02x}")).collect();
                    assert_eq!(r.to_hex(), hex, "to_hex {ctx}");
                    assert_eq!(r.to_hex_vartime(), format!("{x:x}"), "to_hex_vartime {ctx}");
                    assert_eq!(r.to_be_bytes_vartime(), raw_or_empty(&x), "{ctx}");
                }
            }
        }
    }
}

fn raw_or_empty(x: &BigUint) -> Vec<u8> {
    if x.is_zero() {
        Vec::new()
    } else {
        x.to_bytes_be()
    }
}

#[test]
fn fixed_length_output_keeps_leading_zeros() {
    fixed_output::<u8>();
    fixed_output::<u16>();
    fixed_output::<u32>();
    fixed_output::<u64>();
}

fn inverses<L: Limb>() {
    let mut rng = TestRng::new(0x1feed + L::BITS as u64);
    for &bits in sizes::<L>() {
        let mut ns = moduli::<L>(bits, &mut rng);
        // A composite modulus with a small factor, so that some values share it.
        let composite = (kit::random_modulus(&mut rng, bits - 2) * 3u32) | BigUint::one();
        if composite.bits() >= 2 {
            ns.push(composite);
        }
        for n in ns {
            for m in contexts::<L>(&n) {
                let mut xs = operands(&m, &n, &mut rng);
                xs.push(BigUint::from(3u32) % &n);
                xs.push(BigUint::from(9u32) % &n);
                for x in xs {
                    let r = residue(&m, &x);
                    let want = x.modinv(&n);
                    let ctx = format!("w{} n={n:x} x={x:x}", L::BITS);
                    for (name, got) in [("inv", r.inv()), ("inv_vartime", r.inv_vartime())] {
                        match &want {
                            Some(y) => {
                                let got = got.unwrap_or_else(|e| panic!("{name} {ctx}: {e}"));
                                assert_eq!(&value(&got), y, "{name} {ctx}");
                                assert!(below_bound(&got), "{name} bound {ctx}");
                                assert_eq!(value(&(&got * &r)), BigUint::one() % &n);
                            }
                            None => assert_eq!(got.err(), Some(Error::NotInvertible), "{ctx}"),
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn inverses_match_the_oracle() {
    inverses::<u8>();
    inverses::<u16>();
    inverses::<u32>();
    inverses::<u64>();
}

/// Inverses where the constant-time inverse's 64-bit approximations (the low 31 and top
/// 33 bits of each value) are least informative: n = 2^k - 1 and n = 2^(k-1) + 1 (long
/// top and bottom runs), and values sharing long top or bottom runs with n (n - 2^j,
/// n with its low j bits cleared) or with each other (2^j, 2^j + 1, 2^j - 1).
fn inverse_approximation_edges<L: Limb>() {
    for &bits in sizes::<L>() {
        let ones = (BigUint::one() << bits) - 1u32;
        let sparse = (BigUint::one() << (bits - 1)) + 1u32;
        for n in [ones, sparse] {
            let m = &contexts::<L>(&n)[0];
            let mut xs = Vec::new();
            for j in [
                1,
                30,
                31,
                32,
                33,
                62,
                63,
                64,
                65,
                bits / 2,
                bits - 2,
                bits - 1,
            ] {
                let p = BigUint::one() << j;
                xs.push(&p % &n);
                xs.push((&p + 1u32) % &n);
                xs.push((&p - 1u32) % &n);
                if p < n {
                    xs.push(&n - &p);
                }
                xs.push((&n >> j) << j);
            }
            for x in xs {
                let r = residue(m, &x);
                let ctx = format!("w{} n={n:x} x={x:x}", L::BITS);
                match x.modinv(&n) {
                    Some(y) => {
                        let got = r.inv().unwrap_or_else(|e| panic!("{ctx}: {e}"));
                        assert_eq!(value(&got), y, "{ctx}");
                        assert!(below_bound(&got), "bound {ctx}");
                    }
                    None => assert_eq!(r.inv().err(), Some(Error::NotInvertible), "{ctx}"),
                }
            }
        }
    }
}

#[test]
fn inverses_where_the_approximation_is_coarsest() {
    inverse_approximation_edges::<u8>();
    inverse_approximation_edges::<u16>();
    inverse_approximation_edges::<u32>();
    inverse_approximation_edges::<u64>();
}

fn random_residues<L: Limb>() {
    let mut rng = TestRng::new(0x5eed + L::BITS as u64);
    for &bits in sizes::<L>() {
        for n in moduli::<L>(bits, &mut rng) {
            for m in contexts::<L>(&n) {
                let mut a = Rng(TestRng::new(bits as u64));
                let mut b = Rng(TestRng::new(bits as u64));
                let xs: Vec<BigUint> = (0..8)
                    .map(|_| value(&Residue::random(&m, &mut a)))
                    .collect();
                let ys: Vec<BigUint> = (0..8)
                    .map(|_| value(&Residue::random(&m, &mut b)))
                    .collect();
                assert_eq!(xs, ys, "the same seed draws the same residues");
                assert!(xs.iter().all(|x| x < &n));
                // 8 draws of at least 63 bits: equal ones would mean a broken draw.
                assert!(xs.windows(2).all(|p| p[0] != p[1]), "w{} n={n:x}", L::BITS);
            }
        }
    }
    // A small modulus: every value shows up, none beyond.
    let m = Modulus::<L>::new(&[L::from_u64(11)]).unwrap();
    let mut r = Rng(TestRng::new(3));
    let mut seen = [0u32; 11];
    for _ in 0..1100 {
        let v = kit::from_limbs(&Residue::random(&m, &mut r).to_limbs());
        seen[v.iter_u64_digits().next().unwrap_or(0) as usize] += 1;
    }
    assert!(seen.iter().all(|&c| c > 50), "{seen:?}");
}

#[test]
fn random_residues_are_below_n_and_reproducible() {
    random_residues::<u8>();
    random_residues::<u16>();
    random_residues::<u32>();
    random_residues::<u64>();
}

#[test]
fn pow_steps_depend_on_the_exponent_length_only() {
    let mut rng = TestRng::new(0xe4);
    for bits in [64u32, 521, 2048] {
        let n = kit::random_modulus(&mut rng, bits);
        for m in contexts::<u64>(&n) {
            let x = kit::random_below(&mut rng, &n);
            let base = residue(&m, &x);
            // Equal byte lengths, different bit lengths: leading zero bytes and bits.
            let exps: [&[u8]; 5] = [
                &[0x00, 0x00, 0x00, 0x01],
                &[0x00, 0x00, 0x80, 0x00],
                &[0x01, 0x00, 0x00, 0x00],
                &[0x7f, 0xff, 0xff, 0xff],
                &[0xff, 0xff, 0xff, 0xff],
            ];
            let mut traces: Vec<Vec<Step>> = Vec::new();
            for e in exps {
                let mut trace = Vec::new();
                let got = base.pow_traced(e, &mut trace);
                let want = kit::pow_mod(&x, &BigUint::from_bytes_be(e), &n);
                assert_eq!(value(&got), want, "n={n:x} e={e:02x?}");
                assert_eq!(value(&base.pow(e)), want);
                assert_eq!(value(&base.pow_vartime(e)), want);
                traces.push(trace);
            }
            assert!(traces.iter().all(|t| t == &traces[0]), "{bits} bits");
            // A longer exponent takes more steps: the trace does see the length.
            let mut longer = Vec::new();
            base.pow_traced(&[0, 0, 0, 0, 1], &mut longer);
            assert_ne!(longer, traces[0]);
        }
    }
}

#[test]
fn debug_prints_no_value() {
    let n = BigUint::parse_bytes(b"c0ffee1234567890abcdef0123456789", 16).unwrap();
    for m in contexts::<u64>(&n) {
        let r = residue(&m, &BigUint::parse_bytes(b"deadbeef42", 16).unwrap());
        let shown = format!("{r:?}");
        assert_eq!(shown, "Residue { bits: 128, .. }");
        let shown = format!("{m:?}");
        assert!(
            !shown.contains("c0ffee") && !shown.contains("deadbeef"),
            "{shown}"
        );
        assert!(shown.contains("bits: 128"), "{shown}");
    }
}

#[test]
fn moduli_clone_cheaply_and_residues_of_different_moduli_do_not_mix() {
    let limbs = [0xffff_ffff_ffff_ffc5u64];
    let m = Modulus::<u64>::new(&limbs).unwrap();
    let clone = m.clone();
    assert!(m.same_handle(&clone) && m == clone);
    // Built twice: not the same handle, but equal, so the residues combine.
    let again = Modulus::<u64>::new(&limbs).unwrap();
    assert!(!m.same_handle(&again) && m == again);
    let a = Residue::new(&m, &[5]).unwrap();
    let b = Residue::new(&again, &[7]).unwrap();
    assert_eq!((&a * &b).to_limbs(), vec![35]);
    assert_eq!(a, Residue::new(&clone, &[5]).unwrap());

    // Another modulus, or the same n under another policy: a mismatch.
    let cios = kernel::by_name::<u64>("cios").unwrap();
    for other in [
        Modulus::<u64>::new(&[0xffff_ffff_ffff_ff9d]).unwrap(),
        Modulus::with_kernel(&limbs, cios, Reduction::Lazy).unwrap(),
    ] {
        let c = Residue::new(&other, &[5]).unwrap();
        assert_eq!(a.try_mul(&c).err(), Some(Error::ModulusMismatch));
        assert_eq!(a.try_add(&c).err(), Some(Error::ModulusMismatch));
        assert_eq!(a.try_sub(&c).err(), Some(Error::ModulusMismatch));
        let mut x = a.clone();
        assert_eq!(x.try_mul_assign(&c), Err(Error::ModulusMismatch));
        assert_eq!(x.try_add_assign(&c), Err(Error::ModulusMismatch));
        assert_eq!(x.try_sub_assign(&c), Err(Error::ModulusMismatch));
        assert_eq!(x, a, "a failed try_ leaves the value unchanged");
        // Equality across moduli is false, not a panic.
        assert!(a != c);
        assert_eq!(a.ct_eq(&c), 0);
        assert!(catch_unwind(AssertUnwindSafe(|| &a * &c)).is_err());
        assert!(catch_unwind(AssertUnwindSafe(|| &a + &c)).is_err());
        assert!(catch_unwind(AssertUnwindSafe(|| &a - &c)).is_err());
        assert!(catch_unwind(AssertUnwindSafe(|| {
            let mut y = a.clone();
            y *= &c;
        }))
        .is_err());
    }
}

#[test]
fn residues_outlive_the_modulus_they_were_made_from() {
    // No lifetime: a residue keeps its modulus alive.
    let r = {
        let m = Modulus::<u32>::new(&[0xffff_fffb, 0xffff_ffff]).unwrap();
        Residue::new(&m, &[3, 1]).unwrap()
    };
    let sq = r.square();
    let want = BigUint::from(0x1_0000_0003u64).pow(2) % BigUint::from(0xffff_ffff_ffff_fffbu64);
    assert_eq!(value(&sq), want);
    // Residues are Send: a batch job can move them to another thread.
    let moved = std::thread::spawn(move || sq.to_limbs()).join().unwrap();
    assert_eq!(kit::from_limbs(&moved), want);
}

#[test]
fn from_montgomery_says_what_is_wrong() {
    let m = Modulus::<u64>::new(&[0xffff_ffff_ffff_ffc5, 0xff]).unwrap();
    assert_eq!(
        Residue::from_montgomery(&m, vec![1]).err(),
        Some(Error::WrongLength {
            expected: 2,
            got: 1
        })
    );
    assert_eq!(
        Residue::from_montgomery(&m, vec![1, 2, 3]).err(),
        Some(Error::WrongLength {
            expected: 2,
            got: 3
        })
    );
    assert_eq!(
        Residue::from_montgomery(&m, m.bound().to_vec()).err(),
        Some(Error::OperandTooLarge)
    );
    let r = Residue::from_montgomery(&m, m.r1().to_vec()).unwrap();
    assert_eq!(r.to_limbs(), vec![1, 0]);
}

/// Issue 19, finding 7: a short (or long) slice given to `Modulus::mont_mul` or
/// `mont_sqr` is refused with a panic, never computed on.
#[test]
fn mont_mul_refuses_slices_of_the_wrong_length() {
    let n = kit::random_modulus(&mut TestRng::new(19), 256);
    for m in contexts::<u64>(&n) {
        let s = m.limbs();
        let (a, b) = (m.r1().to_vec(), m.r2().to_vec());
        let short = vec![1u64; s - 1];
        let long = vec![1u64; s + 1];
        let mut out = vec![0u64; s];
        // R * R^2 / R = R^2 mod n (below 2n with lazy reduction).
        m.mont_mul(&a, &b, &mut out);
        assert_eq!(kit::from_limbs(&out) % &n, kit::from_limbs(m.r2()));
        for (x, y, o) in [
            (&short, &b, s),
            (&a, &short, s),
            (&a, &b, s - 1),
            (&long, &b, s),
        ] {
            let mut o = vec![0u64; o];
            let r = catch_unwind(AssertUnwindSafe(|| m.mont_mul(x, y, &mut o)));
            assert!(
                r.is_err(),
                "mont_mul with {} {} {}",
                x.len(),
                y.len(),
                o.len()
            );
        }
        for (x, o) in [(&short, s), (&a, s - 1), (&long, s + 1)] {
            let mut o = vec![0u64; o];
            let r = catch_unwind(AssertUnwindSafe(|| m.mont_sqr(x, &mut o)));
            assert!(r.is_err(), "mont_sqr with {} {}", x.len(), o.len());
        }
    }
}
