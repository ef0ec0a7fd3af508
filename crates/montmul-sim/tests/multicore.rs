//! The multi-core model against montmul's core, and its memory traffic against seed 002,
//! Tables 2 and 3, counted by the simulator over the ranges the tables state.

use montmul_sim::multicore::method_one::Block;
use montmul_sim::multicore::{self, Config, Method, Report};
use montmul_sim::{check, SimError};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

/// The platform, with the result left in the cores' registers (as in seed 002's counts).
fn config(method: Method, cores: usize, bits: u32, word: u32, registers: usize) -> Config {
    Config {
        method,
        cores,
        bits,
        word,
        registers,
        write_back: false,
    }
}

/// `c` with the result stored to the data memory at the end.
fn written(c: Config) -> Config {
    Config {
        write_back: true,
        ..c
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
    traffic_with_result(method, cores, s, registers, false).0
}

/// [`traffic`], and the stores of the epilogue (with `write_back`, they include the
/// result's words).
fn traffic_with_result(
    method: Method,
    cores: usize,
    s: u64,
    registers: usize,
    write_back: bool,
) -> ((u64, u64, u64), u64) {
    let bits = 16 * s as u32 - 1;
    let (m, x, y) = check::random_operands(bits, s * 31 + cores as u64).unwrap();
    let c = Config {
        write_back,
        ..config(method, cores, bits, 16, registers)
    };
    let r = run(&c, &m, &x, &y);
    (
        (
            r.stats.loads.operand,
            r.stats.loads.transfer,
            r.stats.stores.transfer,
        ),
        r.stats.stores.epilogue,
    )
}

#[test]
fn table_3_single_core_every_register_file_range() {
    for s in [4u64, 8, 13] {
        let su = s as usize;
        // (S_rf values in the range, N_load-opr, N_load-tr, N_store-tr) from Table 3, with
        // each range closed below (k words stay when S_rf >= k: docs/ARCHITECTURES.md).
        let rows = [
            (vec![3 * su, 4 * su], 3 * s, 0, 0),
            (vec![2 * su, 3 * su - 1], s * s + 2 * s, 0, 0),
            (vec![su, 2 * su - 1], 2 * s * s + s, 0, 0),
            (vec![0, su - 1], 2 * s * s + s, s * (s - 1), s * s),
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

/// The parts method-I's last iteration is split into (`multicore::method_one`, module
/// `split`), from the program's structure: none below 3 cores or when s < 2p; otherwise
/// the iteration's carry blocks (cuts at the positions t from 2 to s - 1 with
/// t + s - 1 = 0 mod `block`), the lowest merged down to p - 1 parts, and none
/// without a cut.
fn method_i_split_parts(s: u64, p: u64, block: u64) -> Option<u64> {
    method_i_split_bounds(s, p, block).map(|b| b.len() as u64 - 1)
}

/// The positions where [`method_i_split_parts`]'s parts start, and s.
fn method_i_split_bounds(s: u64, p: u64, block: u64) -> Option<Vec<u64>> {
    if p < 3 || s < 2 * p {
        return None;
    }
    let cuts: Vec<u64> = (2..s)
        .filter(|t| (t + s - 1).is_multiple_of(block))
        .collect();
    let kept = cuts.len().min(p as usize - 2);
    let bounds = std::iter::once(0)
        .chain(cuts[cuts.len() - kept..].iter().copied())
        .chain([s]);
    (!cuts.is_empty()).then(|| bounds.collect())
}

#[test]
fn table_2_and_3_method_i_every_register_file_range() {
    let block = multicore::method_one::BLOCK as u64;
    for (s, p) in [(8u64, 2usize), (8, 4), (12, 3), (12, 5), (16, 2), (16, 4)] {
        let (su, pu) = (s as usize, p as u64);
        let rows = [
            (vec![2 * su, 3 * su], 2 * pu * s + s),
            (vec![su, 2 * su - 1], s * s + pu * s + s),
            (vec![1, su - 1], 2 * s * s + s),
        ];
        for (regs, opr) in rows {
            for (r, write_back) in regs.into_iter().flat_map(|r| [(r, false), (r, true)]) {
                // Table 2: N_load-tr = s(s - 1), N_store-tr = s^2 for method-I. The last
                // iteration's s words are not stored as Z: they go into the final
                // subtraction, whose s result words are stored with write-back
                // (counted with the epilogue), so the loop stores s(s - 1) and with
                // the written result s^2.
                let (counts, epilogue_stores) =
                    traffic_with_result(Method::MethodI, p, s, r, write_back);
                assert_eq!(
                    counts,
                    (opr, s * (s - 1), s * (s - 1)),
                    "s = {s}, p = {p}, S_rf = {r}"
                );
                // The epilogue's other stores. With the last iteration split into k
                // parts: T, two words of each boundary and a carry per part boundary,
                // and the selector (n < w s here: no kept bit of Z moves). Otherwise,
                // with the final subtraction shared (p >= 2, s >= 2p): the words of
                // the other cores' parts ((p - 1) s / p, all from the last core), p - 1
                // carries and the selector.
                let moved = match method_i_split_parts(s, pu, block) {
                    Some(k) => 1 + 3 * (k - 1) + 1,
                    None if s >= 2 * pu => (pu - 1) * s / pu + pu,
                    None => 0,
                };
                let result = if write_back { s } else { 0 };
                assert_eq!(
                    epilogue_stores,
                    result + moved,
                    "s = {s}, p = {p}, S_rf = {r}, write-back {write_back}"
                );
            }
        }
    }
    // The cases above cover both epilogues.
    assert_eq!(method_i_split_parts(8, 4, block), Some(2));
    assert_eq!(method_i_split_parts(12, 5, block), Some(3));
    assert_eq!(method_i_split_parts(16, 2, block), None);
}

#[test]
fn table_2_and_3_method_ii_every_register_file_range() {
    for (s, p) in [(8u64, 2usize), (8, 4), (12, 3), (12, 4)] {
        let (su, pu) = (s as usize, p as u64);
        let q = su / p; // s/p
        let tr = (2 * (pu - 1) * s, pu * s); // Table 2
        let rows = [
            (vec![3 * q, 3 * q + 5], 2 * s + pu * s, tr),
            (vec![2 * q, 3 * q - 1], s * s + pu * s + s, tr),
            (vec![q, 2 * q - 1], 2 * s * s + pu * s, tr),
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
        // S_rf < s/p: every word of Z is stored and reloaded. The stores are Table 3's
        // s^2 + s. The loads differ from the table, which also has every core load Y_i
        // once per iteration in total (2s^2 + s; here each core needs Y_i: 2s^2 + ps)
        // and reloads the p - 1 boundary words twice (s^2 + (2p - 3)s; here once:
        // (s - p + 1)(s - 1) + 2(p - 1)s).
        for r in [0, q - 1] {
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
    // Sec. 5, s = 64: N_total 16384 for method-I (p = 4) and 10112 for method-II (p = 8).
    // The text puts S_rf = 16 = 2s/p (p = 8) in the range (s/p, 2s/p]; with the ranges
    // closed below, as Fig. 6 needs, those rows start one register lower: S_rf = 15.
    let total = |method, p, regs| {
        let (opr, ltr, str_) = traffic(method, p, 64, regs);
        opr + ltr + str_
    };
    // Method-I's last s stores are the result words, stored with write-back (the
    // epilogue's, see above; the words, carries and selector that its final
    // subtraction moves between cores are counted apart).
    let total_i = |regs| {
        let ((opr, ltr, str_), _) = traffic_with_result(Method::MethodI, 4, 64, regs, true);
        opr + ltr + str_ + 64
    };
    assert_eq!(total_i(15), 16384);
    assert_eq!(total(Method::MethodII, 8, 15), 10112);
    // At S_rf = 16 method-I is in the same row, and method-II keeps X too (2s/p = 16):
    // s^2 + 4ps - s.
    assert_eq!(total_i(16), 16384);
    assert_eq!(total(Method::MethodII, 8, 16), 64 * 64 + 4 * 8 * 64 - 64);
}

/// (N_mul, N_add) counted by the machine in the loop, for an n-bit modulus on p cores.
fn loop_counts(method: Method, cores: usize, bits: u32) -> (u64, u64) {
    let (m, x, y) = check::random_operands(bits, 7).unwrap();
    let r = run(&config(method, cores, bits, 16, 16), &m, &x, &y);
    (r.stats.loop_muls, r.stats.loop_adds)
}

#[test]
fn n_mul_is_2s2_plus_s_whatever_p() {
    for s in [4u64, 9, 16] {
        for (method, p) in [
            (Method::SingleCore, 1),
            (Method::MethodI, 3),
            (Method::MethodII, 2),
            (Method::MethodII, 4),
        ] {
            for bits in [16 * s as u32 - 1, 16 * s as u32] {
                let (muls, _) = loop_counts(method, p, bits);
                // Table 2: N_mul = 2s^2 + s (s products X_j Y_i, s products M_j T and T).
                assert_eq!(muls, 2 * s * s + s, "{method:?} p = {p} s = {s} n = {bits}");
            }
        }
    }
    // The epilogue selects each of the s + 1 result words with one more Mul.
    let (m, x, y) = check::random_operands(16 * 9, 7).unwrap();
    let r = run(&config(Method::MethodII, 3, 16 * 9, 16, 16), &m, &x, &y);
    assert_eq!(r.stats.muls, 2 * 81 + 9 + 10);
}

/// N_add of method-I's loop, from the program's structure (`multicore::method_one`):
/// iteration i is cut at the positions t in 1..=s with t + i = 0 mod `block` (c_i cuts).
/// Every iteration has its row P (s additions) and row Q (s, plus one fold per cut,
/// except a cut at position 1, where Q's first block has no addition); W = U + Q has s + 1
/// additions and a capture and a restore per cut; from the second iteration on, U = Z + P
/// has the same. When n = w s, the carry out of W (and of U) makes Z's extra bit (one
/// addition each), and from iteration p on the row P adds the bit its core kept.
fn method_i_n_add(s: u64, p: u64, block: u64, top_bit: bool) -> u64 {
    let split = method_i_split_parts(s, p, block);
    (0..s)
        .map(|i| {
            if let (Some(parts), true) = (split, i + 1 == s) {
                return method_i_split_n_add(s, p, block, parts, top_bit);
            }
            let cuts = (1..=s).filter(|t| (t + i) % block == 0).count() as u64;
            let at_one = u64::from((1 + i) % block == 0);
            let rows = 2 * s + cuts - at_one;
            let chain = s + 1 + 2 * cuts;
            // The first iteration (U = P) runs its row P in blocks: a capture and a
            // restore per cut after position 1.
            let chains = if i == 0 {
                chain + 2 * (cuts - at_one)
            } else {
                2 * chain
            };
            let bit = if !top_bit {
                0
            } else if i == 0 {
                1
            } else {
                2 + u64::from(i >= p)
            };
            rows + chains + bit
        })
        .sum()
}

/// N_add of method-I's last iteration split into `parts` parts (module `split` of
/// `multicore::method_one`): each part's rows P and Q (K additions each, K its
/// positions); part 0's chains U and W on its hi_0 + 1 positions and the carry out of
/// its top; every other part's chains V = P + Q, + B and + Z on its K + 1 positions,
/// each with the carry out of its top; and, when n = w s, the bit of Z its core kept
/// (added to a high half).
fn method_i_split_n_add(s: u64, p: u64, block: u64, parts: u64, top_bit: bool) -> u64 {
    let hi_0 = method_i_split_bounds(s, p, block).expect("split")[1];
    let rows = 2 * s;
    let first = 2 * (hi_0 + 1) + 1;
    let others = 3 * (s - hi_0) + 6 * (parts - 1);
    rows + first + others + u64::from(top_bit)
}

#[test]
fn n_add_is_four_per_word_and_a_few_per_iteration() {
    for s in [4u64, 9, 16] {
        // One core: four additions per word, T's addition, and the carries out of the
        // rows' top words: 4s + 3 per iteration, 3s + 1 in the first (Z = 0). Table 2's
        // 4s^2 + s counts 4s + 1.
        let one = (s - 1) * (4 * s + 3) + 3 * s + 1;
        assert_eq!(one, 4 * s * s + 2 * s - 2);
        let (_, adds) = loop_counts(Method::SingleCore, 1, 16 * s as u32 - 1);
        assert_eq!(adds, one, "single core s = {s}");
        // n = w s: Z may reach R, so its extra bit is carried: two more per iteration.
        let (_, adds) = loop_counts(Method::SingleCore, 1, 16 * s as u32);
        assert_eq!(adds, 4 * s * s + 4 * s - 3, "single core s = {s} n = ws");
        // Method-I: four additions per word and 2 per iteration (U_0 is T's addition;
        // the top words of U and W), plus 5 per cut (a capture and a restore in U and in
        // W, a fold in Q); see `method_i_n_add`.
        for p in [2u64, 3, 4, 5].into_iter().filter(|&p| p <= s) {
            for (bits, top_bit) in [(16 * s as u32 - 1, false), (16 * s as u32, true)] {
                let (_, adds) = loop_counts(Method::MethodI, p as usize, bits);
                let block = multicore::method_one::BLOCK as u64;
                assert_eq!(
                    adds,
                    method_i_n_add(s, p, block, top_bit),
                    "method-I p = {p} s = {s} n = {bits}"
                );
            }
        }
        // Method-II: each of the p - 1 lower cores also has the top additions of its own
        // rows (2), keeps its carry E_hi (2) and adds the boundary word from the core
        // above (3): 7 more per iteration (2 in the first).
        // (Slices of at least two words: a one-word row needs no addition.)
        for p in [2u64, 4].into_iter().filter(|&p| 2 * p <= s) {
            let (_, adds) = loop_counts(Method::MethodII, p as usize, 16 * s as u32 - 1);
            assert_eq!(
                adds,
                (s - 1) * (4 * s + 3 + 7 * (p - 1)) + 3 * s + 1 + 2 * (p - 1),
                "method-II p = {p} s = {s}"
            );
        }
    }
    // With no cut (block >= 2s: t + i < 2s) method-I's iteration is 4s + 2 additions
    // (3s + 1 in the first), one less than the single core's: U_0 doubles as T's
    // addition.
    assert_eq!(
        method_i_n_add(16, 4, 32, false),
        15 * (4 * 16 + 2) + 3 * 16 + 1
    );
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
                                run(&written(c), &m, a, b);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Method-I's split last iteration (p >= 3) on every part count and core assignment the
/// sizes below reach: 2 to p - 1 parts, the bit of Z kept by the last iteration's core
/// added in its own part or sent to another (n = w s), X and M resident or not, edge
/// moduli and operands. The epilogue's stores show that the split ran.
#[test]
fn method_i_split_last_iteration_is_exact() {
    let mut rng = TestRng::new(11);
    let mut splits = 0;
    for word in multicore::WORDS {
        for s in [8u64, 9, 12, 16, 21] {
            for bits in [word * s as u32 - 1, word * s as u32] {
                let m = if bits % 2 == 0 {
                    kit::random_modulus(&mut rng, bits)
                } else {
                    kit::edge_moduli(bits, word).swap_remove(0)
                };
                let ops = kit::edge_operands(&m, word, word * s as u32);
                let pairs = [
                    (ops[0].clone(), ops[ops.len() - 1].clone()),
                    (ops[ops.len() - 1].clone(), ops[ops.len() - 1].clone()),
                    (
                        kit::random_below(&mut rng, &m),
                        kit::random_below(&mut rng, &m),
                    ),
                ];
                for p in (3..=s / 2).filter(|p| *p <= 8) {
                    for block in [3, 5, multicore::method_one::BLOCK as u64] {
                        for (k, regs) in [0, s as usize, 2 * s as usize].into_iter().enumerate() {
                            // The result written back or not, in turn.
                            let c = Config {
                                write_back: (k as u64 + s + p + block).is_multiple_of(2),
                                ..config(Method::MethodI, p as usize, bits, word, regs)
                            };
                            for (x, y) in &pairs {
                                let r = multicore::simulate_blocks(
                                    &c,
                                    Block::Rows(block as usize),
                                    &m,
                                    x,
                                    y,
                                )
                                .unwrap();
                                assert_eq!(
                                    r.product,
                                    kit::mont_mul(x, y, &m, r.r_bits),
                                    "{c:?} block {block}"
                                );
                                if let Some(b) = method_i_split_bounds(s, p, block) {
                                    // Stores of the split (T, two words and a carry per
                                    // boundary, the selector, the kept bit of Z when
                                    // part 0 does not make H_(s-p)) and, written back,
                                    // the result.
                                    let k = b.len() as u64 - 1;
                                    let top_bit = bits == word * s as u32;
                                    let moved =
                                        2 + 3 * (k - 1) + u64::from(top_bit && s - p >= b[1]);
                                    let result = if c.write_back { s } else { 0 };
                                    assert_eq!(
                                        r.stats.stores.epilogue,
                                        result + moved,
                                        "{c:?} block {block}"
                                    );
                                    splits += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(splits > 500, "{splits}");
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
    // More cores than modelled, though not more than the 1024 words of 16384 bits.
    let many = config(Method::MethodII, multicore::MAX_CORES + 1, 16384, 16, 16);
    assert!(
        matches!(
            many.validate(),
            Err(SimError::InvalidParameter { name: "cores", .. })
        ),
        "{:?}",
        many.validate()
    );
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

/// Seed 002, Fig. 6 (n = 256, w = 16, S_rf = 16): cycles per multiplication, simulated
/// on real operands (each product checked), against the published points: every point
/// within 10 %, with the result left in the cores' registers, as the seed leaves it.
#[test]
fn seed_002_fig_6() {
    const PUBLISHED: [(Method, usize, f64); 5] = [
        (Method::SingleCore, 1, 2512.0),
        (Method::MethodI, 2, 1664.0),
        (Method::MethodII, 2, 1342.0),
        (Method::MethodI, 4, 852.0),
        (Method::MethodII, 4, 682.0),
    ];
    let (m, x, y) = check::random_operands(256, 1).unwrap();
    let cycles = |method, p| {
        run(&config(method, p, 256, 16, 16), &m, &x, &y)
            .stats
            .cycles
    };
    for (method, p, published) in PUBLISHED {
        let error = cycles(method, p) as f64 / published - 1.0;
        assert!(
            error.abs() <= 0.10,
            "{method:?} p = {p}: {:+.1} %",
            100.0 * error
        );
        // Written back, the same run stores the result's words too (method-I: s, its
        // top word is 0 in memory already; the others: s + 1) and loads nothing more.
        let c = config(method, p, 256, 16, 16);
        let (kept, stored) = (run(&c, &m, &x, &y), run(&written(c), &m, &x, &y));
        let words = if method == Method::MethodI { 16 } else { 17 };
        assert_eq!(stored.stats.loads, kept.stats.loads, "{method:?} p = {p}");
        assert_eq!(
            stored.stats.stores.epilogue,
            kept.stats.stores.epilogue + words,
            "{method:?} p = {p}"
        );
    }
    // Method-I gets worse beyond 4 cores (the memory port: X is loaded once per core).
    let i4 = cycles(Method::MethodI, 4);
    for p in 5..=8 {
        assert!(cycles(Method::MethodI, p) > i4, "method-I p = {p}");
    }
    // Method-II is fastest on 6 cores.
    let ii: Vec<u64> = (1..=8)
        .map(|p| {
            let method = if p == 1 {
                Method::SingleCore
            } else {
                Method::MethodII
            };
            cycles(method, p)
        })
        .collect();
    let best = (1..=8).min_by_key(|&p| ii[p - 1]);
    assert_eq!(best, Some(6), "method-II: {ii:?}");
    // Method-II ahead of method-I at every core count.
    for p in [2, 4, 6, 8] {
        assert!(
            cycles(Method::MethodII, p) < cycles(Method::MethodI, p),
            "p = {p}"
        );
    }
}

/// Method-I's block size is the smallest with the fewest cycles on 4 cores (Fig. 6's
/// operands), over every size from 2 to 2s (no cut).
#[test]
fn method_i_block_is_the_best_on_4_cores() {
    let (m, x, y) = check::random_operands(256, 1).unwrap();
    let c = config(Method::MethodI, 4, 256, 16, 16);
    let cycles: Vec<(u64, usize)> = (2..=32)
        .map(|block| {
            let r = multicore::simulate_blocks(&c, Block::Rows(block), &m, &x, &y).unwrap();
            assert_eq!(
                r.product,
                kit::mont_mul(&x, &y, &m, r.r_bits),
                "block {block}"
            );
            (r.stats.cycles, block)
        })
        .collect();
    let best = cycles.iter().min().map(|&(_, block)| block);
    assert_eq!(best, Some(multicore::method_one::BLOCK), "{cycles:?}");
}

/// N_add of method-I's loop in column form (`multicore::method_one::generate_columns`):
/// 8 additions per word (two carry words, each word's sum added in two `Add`/`Adc`
/// pairs per product), 4 at word 0 (T's, and its carries), 1 at the top (C1 + C2).
/// The first iteration (Z = 0) has no Z_j to add: 6 per word, 2 at word 0. When n = w s
/// the top also makes Z's extra bit (1 more), and every later iteration adds the bit
/// that came from the previous core (2 more): 8s^2 - 5s without the bit, 8s^2 - 2s - 2
/// with it.
fn method_i_columns_n_add(s: u64, top_bit: bool) -> u64 {
    (0..s)
        .map(|i| {
            let bit = u64::from(top_bit);
            if i == 0 {
                2 + 6 * (s - 1) + 1 + bit
            } else {
                4 + 8 * (s - 1) + 1 + 3 * bit
            }
        })
        .sum()
}

/// The column form of method-I: exact, Table 2's N_mul, its own N_add (twice Table 2's
/// per word), and the same loads and stores as the row form (Tables 2 and 3, every
/// register file range).
#[test]
fn method_i_column_form_is_exact_and_counts() {
    let columns = Block::Columns;
    for s in [4u64, 9, 16] {
        for p in [1u64, 2, 3, 4] {
            for (bits, top_bit) in [(16 * s as u32 - 1, false), (16 * s as u32, true)] {
                let (m, x, y) = check::random_operands(bits, s + 10 * p).unwrap();
                for regs in [0, s as usize, 2 * s as usize] {
                    let c = config(Method::MethodI, p as usize, bits, 16, regs);
                    let r = multicore::simulate_blocks(&c, columns, &m, &x, &y).unwrap();
                    assert_eq!(r.product, kit::mont_mul(&x, &y, &m, r.r_bits), "{c:?}");
                    let row = run(&c, &m, &x, &y);
                    // Z's extra bit travels every iteration here, from iteration s - p
                    // on in the row form.
                    let bits_moved = if top_bit { s - p } else { 0 };
                    let mut loads = row.stats.loads;
                    let mut stores = row.stats.stores;
                    loads.transfer += bits_moved;
                    stores.transfer += bits_moved;
                    // Where the row form splits its last iteration, its epilogue moves
                    // other words (`table_2_and_3_method_i_every_register_file_range`);
                    // the column form's final subtraction is the shared one.
                    let block = multicore::method_one::BLOCK as u64;
                    if method_i_split_parts(s, p, block).is_some() {
                        loads.epilogue = r.stats.loads.epilogue;
                        stores.epilogue = r.stats.stores.epilogue;
                        let moved = (p - 1) * s / p + p;
                        assert_eq!(r.stats.stores.epilogue, moved, "{c:?}");
                    }
                    assert_eq!(r.stats.loads, loads, "{c:?}");
                    assert_eq!(r.stats.stores, stores, "{c:?}");
                    assert_eq!(r.stats.loop_muls, 2 * s * s + s, "{c:?}");
                    assert_eq!(
                        r.stats.loop_adds,
                        method_i_columns_n_add(s, top_bit),
                        "{c:?}"
                    );
                }
            }
        }
    }
    assert_eq!(method_i_columns_n_add(16, false), 8 * 256 - 5 * 16);
    assert_eq!(method_i_columns_n_add(16, true), 8 * 256 - 2 * 16 - 2);
    // Both word sizes, edge operands.
    let mut rng = TestRng::new(9);
    for word in multicore::WORDS {
        for bits in [33u32, 64, 129] {
            let s = bits.div_ceil(word) as usize;
            for m in kit::edge_moduli(bits, word) {
                let ops = kit::edge_operands(&m, word, word * s as u32);
                let (a, b) = (&ops[0], &ops[ops.len() - 1]);
                let r = kit::random_below(&mut rng, &m);
                for p in 1..=s.min(4) {
                    let c = config(Method::MethodI, p, bits, word, 16);
                    for (x, y) in [(a, b), (b, b), (&r, b)] {
                        for c in [c, written(c)] {
                            let out = multicore::simulate_blocks(&c, columns, &m, x, y).unwrap();
                            assert_eq!(out.product, kit::mont_mul(x, y, &m, out.r_bits), "{c:?}");
                        }
                    }
                }
            }
        }
    }
}

/// The column form is not method-I's default: at n = 256, w = 16, S_rf = 16 it is
/// slower than the row form on 2 to 8 cores (docs/ARCHITECTURES.md: its 13 instructions
/// per word against about 10 in the row form, with the same memory accesses).
#[test]
fn method_i_column_form_is_slower_than_the_row_form() {
    let (m, x, y) = check::random_operands(256, 1).unwrap();
    for p in 2..=8 {
        let c = config(Method::MethodI, p, 256, 16, 16);
        let columns = multicore::simulate_blocks(&c, Block::Columns, &m, &x, &y).unwrap();
        let rows = run(&c, &m, &x, &y);
        assert!(
            columns.stats.cycles > rows.stats.cycles,
            "p = {p}: {} against {}",
            columns.stats.cycles,
            rows.stats.cycles
        );
    }
}
