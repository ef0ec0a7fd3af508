//! Constant-time evidence under valgrind memcheck: montmul's constant-time paths run
//! with their secret inputs marked undefined, so that memcheck reports every branch and
//! every memory address that depends on them.
//!
//! The method is Adam Langley's ctgrind, as BoringSSL's `CONSTTIME_SECRET` and
//! `CONSTTIME_DECLASSIFY` use it: memcheck tracks, bit by bit, whether a value was
//! initialised, and complains when an uninitialised value decides a conditional jump
//! ("Conditional jump or move depends on uninitialised value(s)") or forms an address
//! ("Use of uninitialised value of size 8"). Marking the secrets undefined
//! (`VALGRIND_MAKE_MEM_UNDEFINED`, here through the `crabgrind` crate) turns those
//! complaints into a list of secret-dependent branches and addresses; each output is
//! marked defined again (`VALGRIND_MAKE_MEM_DEFINED`) before it is compared with the
//! num-bigint oracle, so the checks of this program do not count. Data flow alone
//! (additions, products, masks, `cmov`) is not reported: it is the constant-time way.
//!
//! What runs, for 8-, 16-, 32- and 64-bit limbs and both reduction policies:
//! - every scalar kernel `auto` can pick (`cios`, `cios-fixed` with its `Words` form,
//!   `gen-cios`, `mulx-cios`, `mulx-redc` with its stack-array form, `karatsuba`), by
//!   name and through `auto`, first with the CPU features valgrind reports (no ADX) and
//!   then with ADX assumed (`montmul::testing::assume_adx`), which is checked to make
//!   `auto` pick the `mulx` kernels: products and squares of secret operands;
//! - `exp::pow` with a secret base and a secret exponent (windows of 1, 3, 4 and 5 bits);
//! - the table reads on their own (`arch::select`, `arch::generic::select`, and
//!   `arch::generic::masked_or` with masks from `exp::entry_mask`) with a secret index;
//! - the construction of a `Modulus` from a secret modulus (RSA's p and q), whose
//!   modular doublings and Montgomery squares (through its kernel) build R mod n and
//!   R^2 mod n; its bit length and oddness are public and stay defined;
//! - the `Residue` operations on secret values: products, sums, `pow`, `ct_eq`, the
//!   wide reductions (`from_limbs_reduced`, `from_be_bytes_reduced`), the inverse
//!   (`inv`), the fixed-length outputs (`write_be_bytes`, `to_be_bytes_padded`,
//!   `to_be_bytes`, `to_hex`) with `ct_is_zero`, and the in-place forms, among them
//!   `pow_assign` and `pow_vartime_assign` in one reused `PowScratch`;
//! - the small fields (`FieldModulus<N>` for N = 1, 4, 6, 9, on `mulx-cios` with ADX
//!   assumed and on `cios-fixed`): arithmetic, `pow`, `ct_eq`, `select` and the
//!   conversions from and to limbs, bytes and hex.
//!
//! Whether a value is below n or has an inverse is public by design: the library
//! declassifies those flags itself (`ct::declassify`, a memcheck client request with
//! this feature) right before it branches on them. Each group of cases ends with a
//! summary line.
//!
//! The AVX-512 IFMA paths cannot run under valgrind (it does not decode AVX-512); they
//! are left to the statistical check (`docs/SECURITY.md`).
//!
//! Build in release mode (overflow checks are value-dependent branches) and run:
//!
//! ```text
//! cargo build --release -p montmul --features ct-valgrind --example ct_valgrind
//! valgrind --error-exitcode=1 --expensive-definedness-checks=yes \
//!     target/release/examples/ct_valgrind
//! ```
//!
//! `cargo test -p montmul --test ct_valgrind` does the second step when the binary is
//! there. Without valgrind the program runs the same cases as a plain oracle check.

mod api;
mod fields;
mod kernels;
mod memcheck;
mod residues;
mod run;
mod secret_moduli;
mod table_reads;
mod values;

use fields::fields;
use kernels::kernels;
use memcheck::under_valgrind;
use montmul_testkit::TestRng;
use residues::{residues, residues_more};
use run::Run;
use secret_moduli::secret_moduli;
use table_reads::table_reads;

fn main() {
    let valgrind = under_valgrind();
    if valgrind {
        println!("montmul constant-time harness under valgrind: secrets marked undefined");
    } else {
        println!("montmul constant-time harness NOT under valgrind: only an oracle check");
    }
    let mut run = Run {
        rng: TestRng::new(0x5ec2_e7c7),
        cases: 0,
        failed: Vec::new(),
        engine: None,
    };
    let detected = api::has_adx();
    println!("BMI2 and ADX detected: {detected}");
    let mut before = Vec::new();
    run.group("kernels, CPU as detected", |run| {
        before = kernels(run, "detected")
    });
    if !detected {
        let mulx: Vec<_> = before.iter().filter(|p| p.2.starts_with("mulx")).collect();
        assert!(
            mulx.is_empty(),
            "auto picked a mulx kernel without ADX: {mulx:?}"
        );
    }

    // Valgrind runs mulx/adcx/adox on any x86-64 host; natively only a CPU with them
    // does.
    if cfg!(target_arch = "x86_64") && (valgrind || detected) {
        api::assume_adx();
        println!("BMI2 and ADX assumed (montmul::testing::assume_adx)");
        let mut after = Vec::new();
        run.group("kernels, ADX assumed", |run| after = kernels(run, "adx"));
        let t = api::thresholds();
        for (s, policy, engine) in &after {
            let want = if t.mulx_cios.contains(s) {
                Some("mulx-cios")
            } else if ((t.mulx_from..t.karatsuba_from).contains(s) || t.mulx_redc.contains(s))
                && !api::has_ifma()
            {
                Some("mulx-redc")
            } else {
                None
            };
            if let Some(want) = want {
                assert_eq!(*engine, want, "auto at {s} limbs ({policy}) with ADX");
            }
            println!("auto with ADX, {s:>3} limbs {policy}: {engine}");
        }
    } else {
        println!("SKIPPED the mulx kernels: not under valgrind and no ADX on this CPU");
    }

    run.group("table reads", table_reads);
    run.group("secret moduli", secret_moduli);
    run.group("residue operations", residues);
    run.group(
        "residue reductions, inverse, encodings, in place",
        residues_more,
    );
    run.group("small fields", fields);

    println!(
        "AVX-512 IFMA: {}; the IFMA paths (amm52-ifma, its exponentiation) are not run \
         here (valgrind cannot execute AVX-512): they are left to the statistical check",
        if api::has_ifma() {
            "detected"
        } else {
            "not detected"
        }
    );
    println!(
        "{} cases, {} with secret-dependent branches or addresses{}",
        run.cases,
        run.failed.len(),
        if valgrind {
            ""
        } else {
            " (not checked: not under valgrind)"
        }
    );
    if !run.failed.is_empty() {
        let shown = run.failed.len().min(12);
        println!(
            "LEAKS in: {}{}",
            run.failed[..shown].join("; "),
            if shown < run.failed.len() {
                "; ..."
            } else {
                ""
            }
        );
        std::process::exit(1);
    }
}
