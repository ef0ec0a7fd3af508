//! The command line from outside: `montmul algos`, `mul` and `exp` for every algorithm
//! and word size against num-bigint, and one-line errors with exit status 2.

mod common;

use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

use common::{montmul, refused};

/// One algorithm as `montmul algos --json` lists it.
struct Algorithm {
    name: String,
    words: Vec<u64>,
    /// The limb counts it has code for; `None`: every count.
    limbs: Option<Vec<u64>>,
    /// Whether this CPU runs it.
    available: bool,
}

/// Every available one-product algorithm, read from `montmul algos --json`.
fn algorithms() -> Vec<Algorithm> {
    listed().into_iter().filter(|a| a.available).collect()
}

/// Every one-product algorithm `montmul algos --json` lists, available here or not.
fn listed() -> Vec<Algorithm> {
    let (code, out, err) = montmul(&["algos", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    v.as_array()
        .expect("an array")
        .iter()
        // The multi-buffer kernels (lanes > 1) are not `--algo` kernels: `bench --lanes`.
        .filter(|a| a["lanes"].as_u64() == Some(1))
        .map(|a| {
            for key in [
                "name",
                "seed",
                "words",
                "constant_time",
                "available",
                "limbs",
            ] {
                assert!(a.get(key).is_some(), "algos --json lacks '{key}'");
            }
            let numbers = |v: &serde_json::Value| -> Vec<u64> {
                v.as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|w| w.as_u64())
                    .collect()
            };
            Algorithm {
                name: a["name"].as_str().unwrap().to_string(),
                words: numbers(&a["words"]),
                limbs: (!a["limbs"].is_null()).then(|| numbers(&a["limbs"])),
                available: a["available"].as_bool().expect("a boolean"),
            }
        })
        .collect()
}

fn hex(x: &BigUint) -> String {
    format!("0x{x:x}")
}

#[test]
fn algos_lists_every_seed_algorithm() {
    let names: Vec<String> = algorithms().into_iter().map(|a| a.name).collect();
    let (_, table, _) = montmul(&["algos"]);
    const SEED_ALGORITHMS: &[&str] = &[
        "sos", "cios", "fios", "fips", "cihs", "radix2", "mwr2mm", "two-way", "columns",
    ];
    for &want in SEED_ALGORITHMS {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from {names:?}"
        );
        assert!(table.contains(want));
    }
}

#[test]
fn mul_and_exp_agree_with_num_bigint() {
    let mut rng = TestRng::new(2024);
    for Algorithm {
        name, words, limbs, ..
    } in algorithms()
    {
        for w in words {
            for bits in [64u32, 100, 256, 1023] {
                let n = kit::random_modulus(&mut rng, bits);
                let a = kit::random_below(&mut rng, &n);
                let b = kit::random_below(&mut rng, &n);
                let e = kit::random_below_pow2(&mut rng, 40);
                let ws = w.to_string();
                let (code, out, err) = montmul(&[
                    "mul",
                    "--modulus",
                    &hex(&n),
                    "--a",
                    &hex(&a),
                    "--b",
                    &hex(&b),
                    "--algo",
                    &name,
                    "--word",
                    &ws,
                ]);
                let s = u64::from(bits.div_ceil(w as u32));
                if limbs.as_ref().is_some_and(|l| !l.contains(&s)) {
                    // No code for this size: a one-line error that says so.
                    assert_eq!(code, 2, "{name} w={w} bits={bits}: {out}");
                    assert_eq!(
                        err.trim(),
                        format!(
                            "error: algorithm '{name}' has no code for moduli of {s} limbs (see `montmul algos`)"
                        )
                    );
                    continue;
                }
                assert_eq!(code, 0, "{name} w={w}: {err}");
                assert_eq!(
                    out.trim(),
                    hex(&((&a * &b) % &n)),
                    "mul {name} w={w} bits={bits}"
                );
                let (code, out, err) = montmul(&[
                    "exp",
                    "--modulus",
                    &hex(&n),
                    "--base",
                    &hex(&a),
                    "--exp",
                    &hex(&e),
                    "--algo",
                    &name,
                    "--word",
                    &ws,
                ]);
                assert_eq!(code, 0, "{name} w={w}: {err}");
                assert_eq!(
                    out.trim(),
                    hex(&a.modpow(&e, &n)),
                    "exp {name} w={w} bits={bits}"
                );
            }
        }
    }
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let cases: &[&[&str]] = &[
        &["mul", "--modulus", "0x10", "--a", "1", "--b", "1"],
        &["mul", "--modulus", "0", "--a", "0", "--b", "0"],
        &["mul", "--modulus", "1", "--a", "0", "--b", "0"],
        &["mul", "--modulus", "0x1g", "--a", "1", "--b", "1"],
        &["mul", "--modulus", "0xb", "--a", "0xb", "--b", "1"],
        &[
            "mul",
            "--modulus",
            "0xb",
            "--a",
            "1",
            "--b",
            "1",
            "--algo",
            "nope",
        ],
        &[
            "mul",
            "--modulus",
            "0xb",
            "--a",
            "1",
            "--b",
            "1",
            "--word",
            "12",
        ],
        &["mul", "--modulus", "0xb", "--a", "1"],
        &["exp", "--modulus", "0xb", "--base", "0xc", "--exp", "3"],
        &["exp", "--modulus", "0xb", "--base", "2", "--exp", "xyz"],
        &["frobnicate"],
    ];
    for args in cases {
        refused(args);
    }
}

/// A kernel this CPU cannot run (`amm52-ifma` without AVX-512 IFMA, say) is refused
/// by `mul` and `exp` with one line naming it and exit status 2, nothing on stdout. On
/// a CPU that runs every kernel there is nothing to refuse, and the test says so.
#[test]
fn a_kernel_this_cpu_cannot_run_is_one_line_and_status_2() {
    let unavailable: Vec<Algorithm> = listed().into_iter().filter(|a| !a.available).collect();
    if unavailable.is_empty() {
        montmul_testkit::skipped!(
            "a_kernel_this_cpu_cannot_run: SKIPPED: this CPU runs every kernel, none to refuse"
        );
        return;
    }
    for Algorithm { name, words, .. } in &unavailable {
        let word = words[0].to_string();
        let runs: [&[&str]; 2] = [
            &["mul", "--modulus", "0x1d", "--a", "1", "--b", "2"],
            &["exp", "--modulus", "0x1d", "--base", "2", "--exp", "3"],
        ];
        for run in runs {
            let mut args = run.to_vec();
            args.extend(["--algo", name, "--word", &word]);
            let (code, out, err) = montmul(&args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(out.is_empty(), "{args:?} printed {out}");
            let want = format!("error: algorithm '{name}' needs a CPU feature this machine lacks");
            assert_eq!(err, want + "\n", "{args:?}");
        }
    }
}

#[test]
fn exponent_zero_and_empty() {
    for e in ["0", ""] {
        let (code, out, err) = montmul(&["exp", "--modulus", "0xb", "--base", "5", "--exp", e]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.trim(), "0x1");
    }
}
