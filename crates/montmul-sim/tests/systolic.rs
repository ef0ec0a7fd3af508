//! The systolic models against montmul's core and the num-bigint oracle, and their cycle
//! counts against seed 003's table and formulas.

use montmul_sim::systolic::{self, Arch, Config};
use montmul_sim::{check, SimError};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

fn config(arch: Arch, radix: u32, bits: u32, word: u32, pes: Option<usize>) -> Config {
    Config {
        arch,
        radix,
        bits,
        word,
        pes,
    }
}

/// Runs `config` on `(m, x, y)`, checks the product against the oracle (congruent, below
/// 2M) and returns the cycle count.
fn run_checked(config: &Config, m: &BigUint, x: &BigUint, y: &BigUint) -> u64 {
    let run = systolic::simulate(config, m, x, y).expect("valid parameters");
    let want = kit::mont_mul(x, y, m, run.r_bits);
    assert!(
        run.product < (m << 1u32),
        "{config:?}: product not below 2M"
    );
    assert_eq!(&run.product % m, want, "{config:?} m={m:x} x={x:x} y={y:x}");
    run.cycles
}

#[test]
fn seed_003_table_tenca_koc_and_optimized_radix_2() {
    // (n, Tenca-Koc min latency, optimized min latency), seed 003 "Implementation Results".
    let table = [
        (1024, 2113, 1088),
        (2048, 4225, 2176),
        (3072, 6337, 3264),
        (4096, 8449, 4352),
    ];
    for (i, (bits, tk, opt)) in table.into_iter().enumerate() {
        let (m, x, y) = check::random_operands(bits, 3 + i as u64).unwrap();
        let c = config(Arch::TencaKoc, 2, bits, 16, None);
        assert_eq!(run_checked(&c, &m, &x, &y), tk, "Tenca-Koc n = {bits}");
        // The slides' formula 2n + e - 1 leaves out the operand-fetch cycle.
        let e = u64::from((bits + 1).div_ceil(16));
        assert_eq!(tk, 2 * u64::from(bits) + e - 1 + 1);
        // The seed's (e + 1) / 2 PEs (e is odd here).
        assert_eq!(c.pe_count() as u64, e.div_ceil(2));
        let c = config(Arch::Optimized, 2, bits, 16, None);
        assert_eq!(run_checked(&c, &m, &x, &y), opt, "optimized n = {bits}");
        assert_eq!(opt, u64::from(bits) + e - 1, "slides: n + e - 1");
    }
}

#[test]
fn seed_003_radix_4_optimized_1024() {
    let (m, x, y) = check::random_operands(1024, 11).unwrap();
    let c = config(Arch::Optimized, 4, 1024, 16, None);
    assert_eq!(run_checked(&c, &m, &x, &y), 576);
    assert_eq!(c.pe_count(), 65);
}

#[test]
fn fewer_tenca_koc_pes_stall_and_more_do_not_help() {
    let bits = 256;
    let (m, x, y) = check::random_operands(bits, 5).unwrap();
    // e = 17: 9 PEs give the minimum, 2D + e = 529 cycles.
    let e = 17u64;
    let min = run_checked(&config(Arch::TencaKoc, 2, bits, 16, None), &m, &x, &y);
    assert_eq!(min, 2 * 256 + e);
    assert_eq!(
        run_checked(&config(Arch::TencaKoc, 2, bits, 16, Some(20)), &m, &x, &y),
        min
    );
    for p in [1u64, 2, 3, 5, 8] {
        let cycles = run_checked(
            &config(Arch::TencaKoc, 2, bits, 16, Some(p as usize)),
            &m,
            &x,
            &y,
        );
        assert!(cycles > min, "p = {p}: {cycles} cycles");
        // Tenca-Koc's count for a stalled pipeline, ceil(D/p)(e + 1) + 2(p - 1), plus the
        // operand-fetch cycle (D = 256 is a multiple of every p tried here but 3 and 5).
        if 256 % p == 0 {
            assert_eq!(cycles, 256 / p * (e + 1) + 2 * (p - 1) + 1, "p = {p}");
        }
    }
}

#[test]
fn every_variant_is_exact_on_edge_moduli_and_operands() {
    for word in systolic::WORDS {
        for bits in [2, 3, 7, 8, 9, 17, 33, 64, 65] {
            for m in kit::edge_moduli(bits, word) {
                let ops = kit::edge_operands(&m, word, bits);
                for arch in Arch::ALL {
                    for radix in [2, 4] {
                        let c = config(arch, radix, bits, word, None);
                        for (a, b) in ops.iter().zip(ops.iter().rev()) {
                            run_checked(&c, &m, a, b);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn random_operands_agree_with_the_core() {
    let mut rng = TestRng::new(99);
    for bits in [100, 255, 256, 511] {
        let m = kit::random_modulus(&mut rng, bits);
        for word in systolic::WORDS {
            for arch in Arch::ALL {
                for radix in [2, 4] {
                    let x = kit::random_below(&mut rng, &m);
                    let y = kit::random_below(&mut rng, &m);
                    let c = config(
                        arch,
                        radix,
                        bits,
                        word,
                        Some(3).filter(|_| arch == Arch::TencaKoc),
                    );
                    let run = systolic::simulate_checked(&c, &m, &x, &y).expect("matches the core");
                    assert_eq!(
                        run.product.clone() % &m,
                        kit::mont_mul(&x, &y, &m, run.r_bits)
                    );
                }
            }
        }
    }
}

#[test]
fn bad_parameters_are_typed_errors() {
    let (m, x, y) = check::random_operands(64, 1).unwrap();
    let bad = [
        config(Arch::TencaKoc, 3, 64, 16, None),
        config(Arch::TencaKoc, 2, 64, 7, None),
        config(Arch::TencaKoc, 2, 64, 16, Some(0)),
        config(Arch::Optimized, 2, 64, 16, Some(3)),
        config(Arch::TencaKoc, 2, 65, 16, None),
        // Past the modelled limit: refused, not allocated.
        config(Arch::TencaKoc, 2, 64, 16, Some(systolic::MAX_PES + 1)),
        config(Arch::TencaKoc, 2, 64, 16, Some(usize::MAX)),
    ];
    for c in bad {
        assert!(
            matches!(
                systolic::simulate(&c, &m, &x, &y),
                Err(SimError::InvalidParameter { .. })
            ),
            "{c:?}"
        );
    }
    let c = config(Arch::TencaKoc, 2, 64, 16, None);
    assert_eq!(
        systolic::simulate(&c, &m, &m, &y),
        Err(SimError::OperandTooLarge)
    );
    let even = &m - 1u32;
    assert_eq!(
        systolic::simulate(&c, &even, &x, &y),
        Err(SimError::InvalidModulus)
    );
    assert!(Arch::from_name("tenca").is_err());
    assert_eq!(Arch::from_name("optimized"), Ok(Arch::Optimized));
}
