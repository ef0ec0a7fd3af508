//! Constant-time evidence for the RSA private operation under valgrind memcheck: a key
//! is built from secret numbers marked undefined, then decrypts and signs, so that
//! memcheck reports every branch and every memory address that depends on d, p, q or
//! the CRT numbers derived from them.
//!
//! The method is montmul's own harness (`crates/montmul/examples/ct_valgrind.rs`,
//! Langley's ctgrind): `VALGRIND_MAKE_MEM_UNDEFINED` on the secrets through `crabgrind`,
//! every output marked defined again before it is checked. What is secret: every byte
//! of d, p and q but the first (the byte length and top bits, public: `Modulus` sizes
//! itself from the bit length) and, for p and q, the last (their oddness, checked when
//! the modulus is built). What runs: [`RsaPrivateKey::from_components`] (the
//! consistency checks, dp, dq and qinv derived), `decrypt_raw` on random and edge
//! ciphertexts (CRT, Garner's step on residues, blinding, the fault check), and
//! PKCS #1 v1.5 and PSS signing; first with the CPU features valgrind reports, then with
//! ADX assumed (`montmul::testing::assume_adx`), so that the `mulx` kernels run too.
//! Each output is checked to carry memcheck's undefined bits before it is declassified,
//! so that a clean run is not a run where the secrets never reached the arithmetic.
//! Flags revealed by design (the key is consistent, the fault check passed) are
//! declassified by the library itself right before it branches on them.
//!
//! Key generation is not covered here (its prime search rejects candidates in variable
//! time by design; the primes kept go through the same arithmetic).
//!
//! ```text
//! cargo build --release -p montmul-pk --features ct-valgrind --example ct_valgrind_rsa
//! valgrind --error-exitcode=1 --expensive-definedness-checks=yes \
//!     target/release/examples/ct_valgrind_rsa
//! ```
//!
//! `cargo test -p montmul-pk --test rsa_ct_valgrind` runs the second step when the
//! binary is there. Without valgrind the program is a plain oracle check.

use crabgrind::memcheck::{mark_memory, vbits, MemState};
use der::Decode;
use montmul_pk::rsa::RsaPrivateKey;
use rand_core::OsRng;
use sha2::Sha256;

fn under_valgrind() -> bool {
    crabgrind::valgrind::running_mode().is_valgrind()
}

/// Marks `bytes` secret (undefined); nothing when not under valgrind.
fn secret(bytes: &[u8]) {
    if !bytes.is_empty() && under_valgrind() {
        mark_memory(bytes.as_ptr().cast(), bytes.len(), MemState::Undefined)
            .expect("under valgrind");
    }
}

/// Checks that memcheck sees `bytes` as derived from the secrets (some bits undefined):
/// the marking reached the computation, so a clean run means something.
fn tainted(bytes: &[u8], what: &str) {
    if !bytes.is_empty() && under_valgrind() {
        let mut v = vec![0u8; bytes.len()];
        vbits(bytes.as_ptr().cast(), &mut v).expect("under valgrind");
        assert!(
            v.iter().any(|&b| b != 0),
            "{what}: the output is not derived from the secrets"
        );
    }
}

/// Marks `bytes` public (defined) again: an output about to be checked.
fn public(bytes: &[u8]) {
    if !bytes.is_empty() && under_valgrind() {
        let _ = mark_memory(bytes.as_ptr().cast(), bytes.len(), MemState::Defined);
    }
}

fn errors() -> usize {
    if under_valgrind() {
        crabgrind::valgrind::count_errors()
    } else {
        0
    }
}

/// One round: build the key from secret numbers, decrypt and sign; returns the number
/// of checks made.
fn round(pem: &str, label: &str) -> usize {
    let (_, der) = der::pem::decode_vec(pem.as_bytes()).expect("pem");
    let info = pkcs8::PrivateKeyInfo::from_der(&der).expect("pkcs8");
    let k = pkcs1::RsaPrivateKey::from_der(info.private_key).expect("pkcs1");
    let n = k.modulus.as_bytes().to_vec();
    let e = k.public_exponent.as_bytes().to_vec();
    let (d, p, q) = (
        k.private_exponent.as_bytes().to_vec(),
        k.prime1.as_bytes().to_vec(),
        k.prime2.as_bytes().to_vec(),
    );
    secret(&d[1..]);
    secret(&p[1..p.len() - 1]);
    secret(&q[1..q.len() - 1]);
    let before = errors();
    let key = RsaPrivateKey::from_components(&n, &e, &d, &p, &q).expect("a consistent key");
    let public_key = key.to_public_key();
    let size = key.size();
    let mut checks = 0;
    // Messages: 0, 1, n - 1, and random ones; each encrypted, then decrypted in secret.
    let mut messages = vec![vec![0u8; size], {
        let mut one = vec![0u8; size];
        one[size - 1] = 1;
        one
    }];
    let mut nm1 = n.clone();
    nm1[size - 1] -= 1;
    messages.push(nm1);
    for i in 0..3u8 {
        let mut m = vec![0u8; size];
        for (j, b) in m.iter_mut().enumerate().skip(1) {
            *b = (j as u8).wrapping_mul(31).wrapping_add(i * 77);
        }
        messages.push(m);
    }
    for m in &messages {
        let c = public_key.encrypt_raw(m).expect("encrypts");
        let got = key.decrypt_raw(&c, &mut OsRng).expect("decrypts");
        tainted(&got, label);
        public(&got);
        assert_eq!(&*got, m, "{label}: decrypt_raw");
        checks += 1;
    }
    let sig = key
        .sign_pkcs1v15::<Sha256>(b"message", &mut OsRng)
        .expect("signs");
    public(&sig);
    public_key
        .verify_pkcs1v15::<Sha256>(b"message", &sig)
        .expect("verifies");
    let pss = key
        .sign_pss::<Sha256>(b"message", &mut OsRng)
        .expect("signs");
    public(&pss);
    public_key
        .verify_pss::<Sha256>(b"message", &pss)
        .expect("verifies");
    checks += 2;
    println!(
        "{label}: {checks} checks, {} memcheck errors",
        errors() - before
    );
    checks
}

fn main() {
    if under_valgrind() {
        println!("montmul-pk RSA constant-time harness under valgrind: d, p, q marked undefined");
    } else {
        println!("montmul-pk RSA constant-time harness NOT under valgrind: only an oracle check");
    }
    let pem = include_str!("../tests/data/rsa2048.pem");
    let mut checks = round(pem, "RSA-2048, CPU as detected");
    if cfg!(target_arch = "x86_64") && under_valgrind() {
        montmul::testing::assume_adx();
        checks += round(pem, "RSA-2048, ADX assumed");
    }
    println!("{checks} checks, {} memcheck errors in all", errors());
}
