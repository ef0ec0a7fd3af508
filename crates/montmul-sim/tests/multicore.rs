//! The multi-core model against montmul's core, and its memory traffic against seed 002,
//! Tables 2 and 3, counted by the simulator over the ranges the tables state.

use montmul_sim::multicore::{self, Config, Method, Report};
use montmul_sim::{check, SimError};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

fn config(method: Method, cores: usize, bits: u32, word: u32, registers: usize) -> Config {
    Config {
        method,
        cores,
        bits,
        word,
        registers,
    }
}

/// Runs and checks against the num-bigint oracle (fully reduced product).
fn run(c: &Config, m: &BigUint, x: &BigUint, y: &BigUint) -> Report {
    let r = multicore::simulate(c, m, x, y).expect("valid parameters");
    assert_eq!(r.product, kit::mont_mul(x, y, m, r.r_bits), "{c:?} m={m:x}");
    r
}

/// (N_load-opr, N_load-tr, N_store-tr) counted by the model for s words, with
/// n = w s - 1 so that Z < 2M < R (no extra top bit to move).
fn traffic(method: Method, cores: usize, s: u64, registers: usize) -> (u64, u64, u64) {
    let bits = 16 * s as u32 - 1;
    let (m, x, y) = check::random_operands(bits, s * 31 + cores as u64).unwrap();
    let r = run(&config(method, cores, bits, 16, registers), &m, &x, &y);
    (
        r.stats.loads.operand,
        r.stats.loads.transfer,
        r.stats.stores.transfer,
    )
}

#[test]
fn table_3_single_core_every_register_file_range() {
    for s in [4u64, 8, 13] {
        let su = s as usize;
        // (S_rf values in the range, N_load-opr, N_load-tr, N_store-tr) from Table 3.
        let rows = [
            (vec![3 * su + 1, 4 * su], 3 * s, 0, 0),
            (vec![2 * su + 1, 3 * su], s * s + 2 * s, 0, 0),
            (vec![su + 1, 2 * su], 2 * s * s + s, 0, 0),
            (vec![0, su], 2 * s * s + s, s * (s - 1), s * s),
        ];
        for (regs, opr, ltr, str_) in rows {
            for r in regs {
                assert_eq!(
                    traffic(Method::SingleCore, 1, s, r),
                    (opr, ltr, str_),
                    "s = {s}, S_rf = {r}"
                );
            }
        }
    }
}

#[test]
fn table_2_and_3_method_i_every_register_file_range() {
    for (s, p) in [(8u64, 2usize), (8, 4), (12, 3), (12, 5)] {
        let (su, pu) = (s as usize, p as u64);
        let rows = [
            (vec![2 * su + 1, 3 * su], 2 * pu * s + s),
            (vec![su + 1, 2 * su], s * s + pu * s + s),
            (vec![1, su], 2 * s * s + s),
        ];
        for (regs, opr) in rows {
            for r in regs {
                // Table 2: N_load-tr = s(s - 1), N_store-tr = s^2 for method-I.
                assert_eq!(
                    traffic(Method::MethodI, p, s, r),
                    (opr, s * (s - 1), s * s),
                    "s = {s}, p = {p}, S_rf = {r}"
                );
            }
        }
    }
}

#[test]
fn table_2_and_3_method_ii_every_register_file_range() {
    for (s, p) in [(8u64, 2usize), (8, 4), (12, 3), (12, 4)] {
        let (su, pu) = (s as usize, p as u64);
        let q = su / p; // s/p
        let tr = (2 * (pu - 1) * s, pu * s); // Table 2
        let rows = [
            (vec![3 * q + 1, 3 * q + 5], 2 * s + pu * s, tr),
            (vec![2 * q + 1, 3 * q], s * s + pu * s + s, tr),
            (vec![q + 1, 2 * q], 2 * s * s + pu * s, tr),
        ];
        for (regs, opr, (ltr, str_)) in rows {
            for r in regs {
                assert_eq!(
                    traffic(Method::MethodII, p, s, r),
                    (opr, ltr, str_),
                    "s = {s}, p = {p}, S_rf = {r}"
                );
            }
        }
        // S_rf <= s/p: every word of Z is stored and reloaded. The stores are Table 3's
        // s^2 + s. The loads differ from the table, which also has every core load Y_i
        // once per iteration in total (2s^2 + s; here each core needs Y_i: 2s^2 + ps)
        // and reloads the p - 1 boundary words twice (s^2 + (2p - 3)s; here once:
        // (s - p + 1)(s - 1) + 2(p - 1)s).
        for r in [0, q] {
            assert_eq!(
                traffic(Method::MethodII, p, s, r),
                (
                    2 * s * s + pu * s,
                    (s - pu + 1) * (s - 1) + 2 * (pu - 1) * s,
                    s * s + s
                ),
                "s = {s}, p = {p}, S_rf = {r}"
            );
        }
    }
}

#[test]
fn seed_002_totals_example() {
    // Sec. 5: S_rf = 16, s = 64: N_total 16384 for method-I (p = 4), 10112 for
    // method-II (p = 8). Both are in rows the model reproduces exactly.
    let total = |method, p| {
        let (opr, ltr, str_) = traffic(method, p, 64, 16);
        opr + ltr + str_
    };
    assert_eq!(total(Method::MethodI, 4), 16384);
    assert_eq!(total(Method::MethodII, 8), 10112);
}

#[test]
fn n_mul_is_2s2_plus_s_plus_the_final_selection() {
    for (method, p) in [
        (Method::SingleCore, 1),
        (Method::MethodI, 3),
        (Method::MethodII, 3),
    ] {
        let s = 9u64;
        let (m, x, y) = check::random_operands(16 * s as u32, 7).unwrap();
        let r = run(&config(method, p, 16 * s as u32, 16, 16), &m, &x, &y);
        // The loop: 2s^2 + s (Table 2); the epilogue selects each of the s + 1 result
        // words with one Mul.
        assert_eq!(r.stats.muls, 2 * s * s + s + s + 1, "{method:?}");
    }
}

#[test]
fn every_method_is_exact_on_random_and_edge_operands() {
    let mut rng = TestRng::new(5);
    for word in multicore::WORDS {
        for bits in [17u32, 31, 32, 33, 64, 100, 128, 129] {
            let s = bits.div_ceil(word) as usize;
            let mut moduli = kit::edge_moduli(bits, word);
            moduli.push(kit::random_modulus(&mut rng, bits));
            for m in moduli {
                let ops = kit::edge_operands(&m, word, word * s as u32);
                let pairs: Vec<(BigUint, BigUint)> = ops
                    .iter()
                    .zip(ops.iter().rev())
                    .map(|(a, b)| (a.clone(), b.clone()))
                    .chain(std::iter::once((
                        kit::random_below(&mut rng, &m),
                        kit::random_below(&mut rng, &m),
                    )))
                    .collect();
                for p in 1..=s.min(4) {
                    for regs in [0, 2, 16, 64] {
                        let methods: &[Method] = if p == 1 {
                            &[Method::SingleCore, Method::MethodI, Method::MethodII]
                        } else {
                            &[Method::MethodI, Method::MethodII]
                        };
                        for &method in methods {
                            let c = config(method, p, bits, word, regs);
                            for (a, b) in pairs.iter().step_by(3) {
                                run(&c, &m, a, b);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn checked_run_agrees_with_the_core() {
    let (m, x, y) = check::random_operands(256, 2).unwrap();
    for (method, p) in [
        (Method::SingleCore, 1),
        (Method::MethodI, 4),
        (Method::MethodII, 6),
    ] {
        let r = multicore::simulate_checked(&config(method, p, 256, 16, 16), &m, &x, &y).unwrap();
        assert!(r.stats.cycles > 0);
    }
}

#[test]
fn bad_parameters_are_typed_errors() {
    let (m, x, y) = check::random_operands(64, 1).unwrap();
    let bad = [
        config(Method::MethodII, 0, 64, 16, 16),
        config(Method::MethodII, 2, 64, 8, 16),
        config(Method::MethodI, 5, 64, 16, 16),
        config(Method::SingleCore, 2, 64, 16, 16),
        config(Method::MethodII, 2, 64, 16, 1 << 20),
        config(Method::MethodII, 2, 65, 16, 16),
    ];
    for c in bad {
        assert!(
            matches!(
                multicore::simulate(&c, &m, &x, &y),
                Err(SimError::InvalidParameter { .. })
            ),
            "{c:?}"
        );
    }
    let c = config(Method::MethodII, 2, 64, 16, 16);
    assert_eq!(
        multicore::simulate(&c, &m, &y, &m),
        Err(SimError::OperandTooLarge)
    );
    assert_eq!(
        multicore::simulate(&c, &(&m + 1u32), &x, &y),
        Err(SimError::InvalidModulus)
    );
}

/// Seed 002, Fig. 6 (n = 256, w = 16, S_rf = 16): what the model reproduces.
///
/// The model's absolute cycle counts are about 1.45 times the figure's (with one carry
/// flag a word costs 7 additions instead of the 4 the seed counts): docs/ARCHITECTURES.md
/// sets every point side by side. Checked here is what carries over: method-II's 4-core
/// speed-up within 10 % of the published 3.68, method-II ahead of method-I at every core
/// count, and method-I levelling off beyond 4 cores against the single memory port.
/// (The 2-core speed-ups come out 13 % above the published ones, method-I's 4-core one
/// 15 % below.)
#[test]
fn seed_002_fig_6_shape() {
    let (m, x, y) = check::random_operands(256, 1).unwrap();
    let cycles = |method, p| {
        let r = run(&config(method, p, 256, 16, 16), &m, &x, &y);
        (
            r.stats.cycles,
            r.stats.loads.total() + r.stats.stores.total(),
        )
    };
    let (single, _) = cycles(Method::SingleCore, 1);
    let speedup = |c: u64| single as f64 / c as f64;
    let (ii4, _) = cycles(Method::MethodII, 4);
    let published_ii4 = 2512.0 / 682.0;
    assert!(
        (speedup(ii4) / published_ii4 - 1.0).abs() < 0.10,
        "method-II p=4: {}",
        speedup(ii4)
    );
    for p in [2, 4, 6, 8] {
        let (one, _) = cycles(Method::MethodI, p);
        let (two, _) = cycles(Method::MethodII, p);
        assert!(two < one, "p = {p}: method-II {two} vs method-I {one}");
    }
    // Method-I at 8 cores: within 25 % of the bound of one memory access per cycle, and
    // less than 10 % faster than at 4 cores.
    let (i8, accesses) = cycles(Method::MethodI, 8);
    assert!(
        i8 as f64 <= 1.25 * accesses as f64,
        "{i8} cycles for {accesses} accesses"
    );
    let (i4, _) = cycles(Method::MethodI, 4);
    assert!(
        i8 as f64 > 0.9 * i4 as f64,
        "method-I keeps scaling: {i4} -> {i8}"
    );
}
