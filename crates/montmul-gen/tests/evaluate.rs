//! Every algorithm, word size and reduction, at sizes from 64 to 4096 bits, run as an
//! operation list (no compiler needed) and checked against the num-bigint oracle. The
//! evaluator also asserts the carry bounds: no double-width sum may exceed 2w bits.

#[path = "support/cases.rs"]
mod cases;

use montmul_gen::eval::{evaluate, Inputs};
use montmul_gen::{algo, Algo, Function, Lang, Spec, Word};
use montmul_testkit::num_bigint::BigUint;

/// At most this many cases per kernel: the largest kernels run a sample of them.
const MAX_CASES: usize = 120;

fn check(bits: u32) {
    for word in Word::ALL {
        for algo in Algo::ALL {
            for lazy in [false, true] {
                let spec = Spec::new(bits, Lang::Rust, algo, word, lazy).expect("valid spec");
                let programs = Function::ALL.map(|f| (f, algo::build(&spec, f)));
                let all = cases::cases(&spec);
                let stride = all.len().div_ceil(MAX_CASES);
                for case in all.iter().step_by(stride) {
                    let limbs = |x: &BigUint| cases::limbs(&spec, x);
                    let (a, b, n) = (limbs(&case.a), limbs(&case.b), limbs(&case.n));
                    let inputs = Inputs {
                        a: &a,
                        b: &b,
                        n: &n,
                        n0: cases::n0(&spec, &case.n),
                    };
                    for (function, program) in &programs {
                        let r = evaluate(program, word, inputs, spec.limbs());
                        let got = r
                            .iter()
                            .rev()
                            .fold(BigUint::from(0u32), |acc, &w| (acc << word.bits()) + w);
                        assert_eq!(
                            got,
                            cases::expected(&spec, case, *function),
                            "{}: {function:?} n = {:x}, a = {:x}, b = {:x}",
                            spec.command(),
                            case.n,
                            case.a,
                            case.b
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn one_and_two_words() {
    check(64);
    check(65);
    check(127);
}

#[test]
fn odd_sizes() {
    check(521);
    check(1000);
}

#[test]
fn largest_size() {
    check(4096);
}
