//! GMP 6.3 built for this CPU (`peers/gmp63`), through `montmul_peers::gmp63`: its
//! results agree with num-bigint on random and edge inputs, a wrong expected answer is
//! refused, and `--info` says which kernels the build uses. Skips loudly where the
//! binary is not built (`cargo test --workspace` never builds it).

use std::time::Duration;

use montmul_peers::gmp63::{self, Gmp63Error, Job, Op};
use montmul_peers::Inputs;

/// Whether the binary is there; says so loudly when it is not.
fn built(test: &str) -> bool {
    match gmp63::info() {
        Ok(_) => true,
        Err(Gmp63Error::Absent(why)) => {
            montmul_testkit::skipped!("\n*** SKIPPED {test}: {why} ***\n");
            false
        }
        Err(e) => panic!("the GMP 6.3 binary is there but fails: {e}"),
    }
}

/// Inputs from hexadecimal-free parts: big-endian bytes.
fn inputs(n: &[u8], a: &[u8], b: &[u8], e: &[u8]) -> Inputs {
    Inputs {
        n: n.to_vec(),
        a: a.to_vec(),
        b: b.to_vec(),
        e: e.to_vec(),
    }
}

const FAST: Duration = Duration::from_micros(200);

#[test]
fn agrees_with_num_bigint_on_random_and_edge_inputs() {
    if !built("agrees_with_num_bigint_on_random_and_edge_inputs") {
        return;
    }
    let mut cases: Vec<Inputs> = [64, 256, 1024, 2048]
        .iter()
        .map(|&bits| Inputs::random(bits, 7))
        .collect();
    // One limb with the top bit set; operands 0, 1, n - 1 and all-ones limbs; the
    // exponent 1 and an all-ones exponent; a modulus with the top bit clear.
    let n1 = 0xffff_ffff_ffff_ffc5u64.to_be_bytes(); // 2^64 - 59, odd
    let nm1 = 0xffff_ffff_ffff_ffc4u64.to_be_bytes();
    cases.push(inputs(&n1, &[], &[1], &[1]));
    cases.push(inputs(&n1, &nm1, &nm1, &[0xff; 8]));
    let mut n2 = vec![0xffu8; 32];
    n2[0] = 0x7f; // top bit clear, all other limbs all-ones
    let mut a2 = vec![0xffu8; 32];
    a2[0] = 0x3f;
    cases.push(inputs(&n2, &a2, &[1], &[0xff; 32]));
    for c in &cases {
        let rows = gmp63::rows(c, &["mul", "sqr", "exp"], 1, FAST).expect("GMP 6.3 agrees");
        let names: Vec<_> = rows.iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(
            names,
            [
                ("mul", gmp63::NAME),
                ("sqr", gmp63::NAME),
                ("exp", gmp63::NAME),
                ("exp", gmp63::NAME_POWM)
            ]
        );
        assert!(rows.iter().all(|r| r.2 > 0.0 && r.2.is_finite()));
    }
}

#[test]
fn a_wrong_answer_is_refused() {
    if !built("a_wrong_answer_is_refused") {
        return;
    }
    let i = Inputs::random(256, 3);
    // a * b mod n is below n, so n itself is never the product.
    let job = Job {
        op: Op::Mul,
        inputs: i.clone(),
        expected: i.n.clone(),
    };
    match gmp63::time(&[job], 1, FAST) {
        Err(Gmp63Error::Failed(why)) => assert!(why.contains("disagrees"), "{why}"),
        other => panic!("a wrong answer was accepted: {other:?}"),
    }
    // An even modulus is refused by mpz_powm_sec's precondition, as an error.
    let even = inputs(&[0x10, 0x00], &[3], &[3], &[5]);
    let job = Job {
        op: Op::PowmSec,
        inputs: even,
        expected: vec![0],
    };
    assert!(matches!(
        gmp63::time(&[job], 1, FAST),
        Err(Gmp63Error::Failed(_))
    ));
}

#[test]
fn info_names_the_kernels_and_finds_mulx() {
    if !built("info_names_the_kernels_and_finds_mulx") {
        return;
    }
    let info = gmp63::info().unwrap();
    assert!(info.version.starts_with("6.3"), "{}", info.version);
    assert_eq!(info.kernels.len(), 4, "{:?}", info.kernels);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("adx") {
        assert!(info.uses_mulx(), "{}", info.summary());
    }
}

#[test]
fn an_absent_binary_is_absent() {
    // Another process's environment, so that the other tests keep the default path.
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "absent_probe", "--ignored", "--nocapture"])
        .env(gmp63::ENV, "/nonexistent/montmul-gmp63")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Run by [`an_absent_binary_is_absent`] with `$MONTMUL_GMP63` pointing nowhere.
#[test]
#[ignore = "run by an_absent_binary_is_absent in a process of its own"]
fn absent_probe() {
    let i = Inputs::random(128, 1);
    match gmp63::rows(&i, &["mul"], 1, FAST) {
        Err(Gmp63Error::Absent(why)) => assert!(why.contains("--manifest-path peers/gmp63")),
        other => panic!("{other:?}"),
    }
}
