//! Constant-time evidence for montmul-pk's private operations under valgrind memcheck:
//! keys are built from secret numbers marked undefined, then decrypt, sign and derive, so
//! that memcheck reports every branch and every memory address that depends on a
//! private key, a nonce or the validity of a padding.
//!
//! The method is montmul's own harness (`crates/montmul/examples/ct_valgrind.rs`,
//! Langley's ctgrind): `VALGRIND_MAKE_MEM_UNDEFINED` on the secrets through `crabgrind`,
//! every output marked defined again before it is checked. Each output derived from the
//! secrets is checked to carry memcheck's undefined bits before it is declassified, so
//! that a clean run is not a run where the secrets never reached the arithmetic. Values
//! revealed by design (a key is consistent, the fault check passed, an OAEP padding is
//! valid, a DSA signature's r and s, a public key) are declassified by the library itself
//! (`rsa::private::declassify`, `dh::ffc::declassify_bytes`) right where they leave.
//!
//! The cases, each first with the CPU features valgrind reports, then with ADX assumed
//! (`montmul::testing::assume_adx`), so that the `mulx` kernels run too:
//!
//! - RSA (the fixed RSA-2048 test key): every byte of d, p and q secret but the first
//!   (the byte length and top bits, public: `Modulus` sizes itself from the bit length)
//!   and, for p and q, the last (their oddness, checked when the modulus is built).
//!   [`RsaPrivateKey::from_components`] (consistency checks, dp, dq and qinv derived),
//!   `decrypt_raw` on edge and random values (CRT, Garner's step, blinding, the fault
//!   check) with each way of running the CRT halves ([`CrtHalves`]; `Lockstep` takes
//!   the one-by-one path where valgrind hides AVX-512), PKCS #1 v1.5 and PSS signing.
//! - RSAES-OAEP decryption of valid blocks and of every invalid class (first byte, label
//!   hash, a nonzero padding byte, a wrong separator, no separator, a wrong label): the
//!   decrypted block is secret (it comes from d); the one declassified value on failure is
//!   the verdict, and every failure is the same error text.
//! - RSAES-PKCS1-v1_5 decryption with implicit rejection, valid and invalid paddings:
//!   the library declassifies nothing; the real or synthetic message and its length are
//!   chosen by masks. The harness declassifies the returned `Vec` (its length, an output)
//!   and checks the bytes against the same key loaded without marks (the synthetic
//!   message is deterministic).
//! - DSA signing with RFC 6979 nonces (2048/224 and 2048/256): x secret, hence the nonce
//!   k; r and s are declassified by the library as the signature leaves, and must equal
//!   the signature of the unmarked key.
//! - Diffie-Hellman derive (ffdhe2048 with a 224-bit exponent, and 1024-bit PKCS #3 and
//!   X9.42 parameters, without and with q): the exponent secret, the shared secret
//!   checked to be derived from it and equal to the unmarked key's.
//!
//! - RSA keys read from PKCS #1 (the two- and the three-prime key) with every secret
//!   integer marked in the document as above: the stored exponents compared with the
//!   derived ones, the stored coefficients checked by a product, then `decrypt_raw`.
//! - RSA with a three-prime key (the committed RSA-2048 one OpenSSL made): d and the
//!   three primes secret as above, [`RsaPrivateKey::from_multi_prime_components`],
//!   `decrypt_raw` with each [`CrtHalves`] mode, PKCS #1 v1.5 signing, OAEP decryption.
//! - RSA-2048 key generation, of two primes ([`RsaPrivateKey::generate`]) and of three
//!   ([`RsaPrivateKey::generate_multi_prime`]), with an RNG that marks every
//!   byte it gives secret, so that each candidate prime and each Miller-Rabin base is
//!   secret from its draw: trial division, Miller-Rabin, the gcd(e, r - 1) test, each
//!   prime's floor and the distance between every two, d and the CRT numbers (the third
//!   prime's d_3 and t_3 too), the key's checks. A rejected candidate or key is public
//!   by design: the library declassifies each verdict where it branches on it, and n
//!   as the public key; no other branch may depend on a candidate. The key must decrypt
//!   what its public key encrypts.
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
use montmul::Modulus;
use montmul_pk::dh::{DhPrivateKey, DhPublicKey};
use montmul_pk::dsa::DsaPrivateKey;
use montmul_pk::rsa::{CrtHalves, RsaPrivateKey, RsaPublicKey};
use montmul_pk::Error;
use rand_core::OsRng;
use sha2::{Digest, Sha224, Sha256, Sha512};

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

/// A returned vector whose length is an output (public) and whose bytes come from the
/// secrets: its length (the `Vec` itself) is marked public, its bytes checked to be
/// tainted ([`tainted`]), then marked public. `&mut`, so that the compiler reloads the
/// length after the marking rather than keep a copy in a register, which memcheck would
/// still see as undefined.
fn output_vec(v: &mut Vec<u8>, what: &str) {
    if under_valgrind() {
        let _ = mark_memory(
            (v as *mut Vec<u8>).cast(),
            core::mem::size_of::<Vec<u8>>(),
            MemState::Defined,
        );
    }
    let v = core::hint::black_box(v);
    tainted(v, what);
    public(v);
}

fn errors() -> usize {
    if under_valgrind() {
        crabgrind::valgrind::count_errors()
    } else {
        0
    }
}

/// Prints a case's line and returns its number of checks.
fn report(label: &str, case: &str, checks: usize, before: usize) -> usize {
    println!(
        "{label}, {case}: {checks} checks, {} memcheck errors",
        errors() - before
    );
    checks
}

/// The RSA cases: the key built from secret numbers, raw decryption, both signatures,
/// OAEP and PKCS #1 v1.5 decryption; returns the number of checks made.
fn rsa_round(pem: &str, label: &str) -> usize {
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
    let mut key = RsaPrivateKey::from_components(&n, &e, &d, &p, &q).expect("a consistent key");
    let public_key = key.to_public_key();
    let size = key.size();
    // Messages: 0, 1, n - 1, and random ones; each encrypted, then decrypted in secret.
    let messages = edge_messages(
        &n,
        (0..3u8).map(|i| {
            let mut m = vec![0u8; size];
            for (j, b) in m.iter_mut().enumerate().skip(1) {
                *b = (j as u8).wrapping_mul(31).wrapping_add(i * 77);
            }
            m
        }),
    );
    let mut checks = decrypt_each(&mut key, &public_key, CrtHalves::Lockstep, &messages, label);
    // The other ways of running the CRT halves (the default is `Lockstep`).
    for how in [CrtHalves::OneByOne, CrtHalves::TwoThreads] {
        checks += decrypt_each(&mut key, &public_key, how, &messages[..3], label);
    }
    key.set_crt_halves(CrtHalves::Lockstep);
    sign_pkcs1v15_checked(&key, &public_key, label);
    let pss = key
        .sign_pss::<Sha256>(b"message", &mut OsRng)
        .expect("signs");
    tainted(&pss, label);
    public(&pss);
    public_key
        .verify_pss::<Sha256>(b"message", &pss)
        .expect("verifies");
    checks += 2;
    report(
        label,
        "RSA-2048 raw decryption, PKCS #1 v1.5 and PSS signing",
        checks,
        before,
    );

    // The same key without marks: the oracle for implicit rejection.
    let plain = RsaPrivateKey::from_pkcs8_pem(pem).expect("the test key");
    checks + oaep_case(&key, &public_key, label) + pkcs1v15_case(&key, &plain, &public_key, label)
}

/// The messages 0, 1 and n - 1 for the modulus `n` (big-endian, the key's size), then
/// `others`.
fn edge_messages(n: &[u8], others: impl IntoIterator<Item = Vec<u8>>) -> Vec<Vec<u8>> {
    let size = n.len();
    let mut one = vec![0u8; size];
    one[size - 1] = 1;
    let mut n_minus_1 = n.to_vec();
    n_minus_1[size - 1] -= 1;
    let mut messages = vec![vec![0u8; size], one, n_minus_1];
    messages.extend(others);
    messages
}

/// Each message encrypted with the public key, then decrypted by the marked key with its
/// CRT halves run as `how`: the result must carry the key's taint and equal the message.
/// Returns the number of checks.
fn decrypt_each(
    key: &mut RsaPrivateKey,
    public_key: &RsaPublicKey,
    how: CrtHalves,
    messages: &[Vec<u8>],
    label: &str,
) -> usize {
    key.set_crt_halves(how);
    for m in messages {
        let c = public_key.encrypt_raw(m).expect("encrypts");
        let got = key.decrypt_raw(&c, &mut OsRng).expect("decrypts");
        tainted(&got, label);
        public(&got);
        assert_eq!(&*got, m, "{label}: decrypt_raw, {how:?}");
    }
    messages.len()
}

/// A PKCS #1 v1.5 signature (SHA-256) by the marked key: tainted, then verified.
fn sign_pkcs1v15_checked(key: &RsaPrivateKey, public_key: &RsaPublicKey, label: &str) {
    let sig = key
        .sign_pkcs1v15::<Sha256>(b"message", &mut OsRng)
        .expect("signs");
    tainted(&sig, label);
    public(&sig);
    public_key
        .verify_pkcs1v15::<Sha256>(b"message", &sig)
        .expect("verifies");
}

/// MGF1 with SHA-256 (RFC 8017 B.2.1), XORed into `out`: the harness builds OAEP blocks
/// by hand, independently of the library's encoder.
fn mgf1_xor(out: &mut [u8], seed: &[u8]) {
    for (i, chunk) in out.chunks_mut(32).enumerate() {
        let h = Sha256::new()
            .chain_update(seed)
            .chain_update((i as u32).to_be_bytes())
            .finalize();
        for (o, m) in chunk.iter_mut().zip(h) {
            *o ^= m;
        }
    }
}

/// An EME-OAEP block (SHA-256, empty label) of `msg` in `k` bytes, `corrupt` applied to
/// the first byte and to DB = lHash || PS || 0x01 || M before masking.
fn oaep_block(k: usize, msg: &[u8], corrupt: impl FnOnce(&mut u8, &mut [u8])) -> Vec<u8> {
    let mut seed = [0x5au8; 32];
    let mut db = vec![0u8; k - 33];
    db[..32].copy_from_slice(&Sha256::digest(b""));
    let sep = db.len() - msg.len() - 1;
    db[sep] = 1;
    db[sep + 1..].copy_from_slice(msg);
    let mut first = 0u8;
    corrupt(&mut first, &mut db);
    mgf1_xor(&mut db, &seed);
    mgf1_xor(&mut seed, &db);
    [&[first][..], &seed, &db].concat()
}

/// OAEP decryption with the key's secrets marked: valid blocks of several lengths decrypt
/// to their message, every invalid class fails with the one error text.
fn oaep_case(key: &RsaPrivateKey, public_key: &RsaPublicKey, label: &str) -> usize {
    let before = errors();
    let k = key.size();
    let max = k - 2 * 32 - 2;
    let mut checks = 0;
    for len in [0, 1, 77, max] {
        let msg: Vec<u8> = (0..len).map(|i| (i as u8) ^ 0xa5).collect();
        let c = public_key
            .encrypt_oaep::<Sha256>(&mut OsRng, &msg, b"")
            .expect("encrypts");
        let mut got = key
            .decrypt_oaep::<Sha256>(&mut OsRng, &c, b"")
            .expect("decrypts");
        output_vec(&mut got, label);
        assert_eq!(&got[..], &msg[..], "{label}: OAEP length {len}");
        checks += 1;
    }
    let msg = b"attack at dawn";
    let sep = k - 33 - msg.len() - 1;
    type Corrupt = Box<dyn FnOnce(&mut u8, &mut [u8])>;
    let cases: Vec<(&str, Corrupt)> = vec![
        ("first byte 1", Box::new(|first, _| *first = 1)),
        ("label hash", Box::new(|_, db| db[0] ^= 1)),
        ("label hash, last byte", Box::new(|_, db| db[31] ^= 0x80)),
        ("nonzero padding byte", Box::new(|_, db| db[40] = 2)),
        ("separator 0x02", Box::new(move |_, db| db[sep] = 2)),
        (
            "no separator",
            Box::new(move |_, db| db[sep..].iter_mut().for_each(|b| *b = 0)),
        ),
    ];
    let mut texts = Vec::new();
    // The valid block under a wrong label.
    let good = public_key
        .encrypt_raw(&oaep_block(k, msg, |_, _| {}))
        .expect("below n");
    let mut got = key
        .decrypt_oaep::<Sha256>(&mut OsRng, &good, b"")
        .expect("the hand-built block is valid");
    output_vec(&mut got, label);
    assert_eq!(&got[..], msg, "{label}: hand-built OAEP block");
    let err = key
        .decrypt_oaep::<Sha256>(&mut OsRng, &good, b"other label")
        .expect_err("a wrong label");
    texts.push(("wrong label", err));
    checks += 2;
    for (what, corrupt) in cases {
        let c = public_key
            .encrypt_raw(&oaep_block(k, msg, corrupt))
            .expect("below n");
        let err = key
            .decrypt_oaep::<Sha256>(&mut OsRng, &c, b"")
            .expect_err(what);
        texts.push((what, err));
        checks += 1;
    }
    for (what, err) in &texts {
        assert_eq!(*err, Error::Decryption, "{label}: OAEP {what}");
        assert_eq!(
            err.to_string(),
            Error::Decryption.to_string(),
            "{label}: OAEP {what}: one error text for every failure"
        );
    }
    report(label, "RSA-2048 OAEP decryption", checks, before)
}

/// PKCS #1 v1.5 decryption with implicit rejection, the key's secrets marked: valid
/// blocks give their message, invalid ones the synthetic message of the unmarked key.
fn pkcs1v15_case(
    key: &RsaPrivateKey,
    plain: &RsaPrivateKey,
    public_key: &RsaPublicKey,
    label: &str,
) -> usize {
    let before = errors();
    let k = key.size();
    let mut checks = 0;
    for len in [0, 1, 100, k - 11] {
        let msg: Vec<u8> = (0..len).map(|i| (i as u8) ^ 0x3c).collect();
        let c = public_key
            .encrypt_pkcs1v15(&mut OsRng, &msg)
            .expect("encrypts");
        let mut got = key.decrypt_pkcs1v15(&mut OsRng, &c).expect("decrypts");
        output_vec(&mut got, label);
        assert_eq!(&got[..], &msg[..], "{label}: PKCS #1 v1.5 length {len}");
        checks += 1;
    }
    // 0x00 0x02 PS 0x00 M with PS of `ps` nonzero bytes, then `corrupt`.
    let block = |ps: usize, corrupt: &dyn Fn(&mut [u8])| {
        let mut em = vec![0u8; k];
        em[1] = 2;
        em[2..2 + ps].iter_mut().for_each(|b| *b = 0x11);
        em[2 + ps] = 0;
        em[3 + ps..].iter_mut().for_each(|b| *b = 0x42);
        corrupt(&mut em);
        em
    };
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        ("PS of 8 bytes", block(8, &|_| {}), true),
        ("PS of 200 bytes", block(200, &|_| {}), true),
        ("empty message", block(k - 3, &|_| {}), true),
        ("first byte 1", block(20, &|em| em[0] = 1), false),
        ("block type 1", block(20, &|em| em[1] = 1), false),
        ("block type 0", block(20, &|em| em[1] = 0), false),
        ("PS of 7 bytes", block(7, &|_| {}), false),
        ("PS of 0 bytes", block(0, &|_| {}), false),
        ("no separator", block(20, &|em| em[22] = 0x33), false),
    ];
    for (what, em, valid) in cases {
        let c = public_key.encrypt_raw(&em).expect("below n");
        let mut got = key.decrypt_pkcs1v15(&mut OsRng, &c).expect("decrypts");
        output_vec(&mut got, label);
        let expected = plain.decrypt_pkcs1v15(&mut OsRng, &c).expect("decrypts");
        assert_eq!(&got[..], &expected[..], "{label}: PKCS #1 v1.5 {what}");
        if valid {
            let sep = em[2..].iter().position(|&b| b == 0).expect("a separator") + 2;
            assert_eq!(&got[..], &em[sep + 1..], "{label}: PKCS #1 v1.5 {what}");
        } else {
            assert!(got.len() <= k - 11, "{label}: PKCS #1 v1.5 {what}");
        }
        checks += 1;
    }
    report(
        label,
        "RSA-2048 PKCS #1 v1.5 decryption, implicit rejection",
        checks,
        before,
    )
}

/// DSA signing with x secret: the key rebuilt from a marked copy of the test key's x,
/// signatures over several hashes equal to the unmarked key's (RFC 6979 is
/// deterministic) and verified.
fn dsa_round(label: &str) -> usize {
    let before = errors();
    let mut checks = 0;
    for pem in [
        include_str!("../tests/data/dsa.pem"),
        include_str!("../tests/data/dsa_2048_256.pem"),
    ] {
        let plain = DsaPrivateKey::from_pkcs8_pem(pem).expect("the test key");
        let x = plain.x().to_vec();
        secret(&x);
        let key = DsaPrivateKey::from_components(plain.params().clone(), &x).expect("x in range");
        tainted(key.x(), label);
        assert_eq!(key.public_key(), plain.public_key(), "{label}: DSA y");
        // The nonce itself is derived from the secret x.
        let q = Modulus::<u64>::from_be_bytes(plain.params().q()).expect("q");
        let (nonce, _) =
            montmul_pk::rfc6979::generate_k::<Sha256>(&q, key.x(), &Sha256::digest(b"m"));
        tainted(&nonce, label);
        public(&nonce);
        let verifier = plain.public_key();
        for msg in [&b""[..], b"m", b"sample", &[0xffu8; 300]] {
            let sigs = [
                (key.sign::<Sha256>(msg), plain.sign::<Sha256>(msg)),
                (key.sign::<Sha224>(msg), plain.sign::<Sha224>(msg)),
                (key.sign::<Sha512>(msg), plain.sign::<Sha512>(msg)),
            ];
            for (got, expected) in sigs {
                let got = got.expect("signs");
                assert_eq!(got, expected.expect("signs"), "{label}: DSA signature");
                checks += 1;
            }
            let sig = key.sign::<Sha256>(msg).expect("signs");
            verifier.verify::<Sha256>(msg, &sig).expect("verifies");
        }
    }
    report(label, "DSA 2048/224 and 2048/256 signing", checks, before)
}

/// Diffie-Hellman with the exponent secret: the key rebuilt from a marked copy of the
/// test key's x; its public key and the secret derived with a peer equal the unmarked
/// key's.
fn dh_round(label: &str) -> usize {
    let before = errors();
    let mut checks = 0;
    for (pem, peer) in [
        (
            include_str!("../tests/data/dh_ffdhe2048_short.pem"),
            include_str!("../tests/data/dh_ffdhe2048_b.pub.pem"),
        ),
        (
            include_str!("../tests/data/dh_pkcs3_1024_a.pem"),
            include_str!("../tests/data/dh_pkcs3_1024_b.pub.pem"),
        ),
        (
            include_str!("../tests/data/dh_x942_1024_a.pem"),
            include_str!("../tests/data/dh_x942_1024_b.pub.pem"),
        ),
    ] {
        let plain = DhPrivateKey::from_pkcs8_pem(pem).expect("the test key");
        let peer = DhPublicKey::from_pem_or_der(peer.as_bytes()).expect("the peer");
        let x = plain.x().to_vec();
        secret(&x);
        // The second key of these parameters: its y by g's precomputed powers
        // (`montmul::FixedBase`), with x secret.
        let key = DhPrivateKey::from_components(plain.params().clone(), &x).expect("x in range");
        tainted(key.x(), label);
        assert_eq!(key.public_key(), plain.public_key(), "{label}: DH y");
        let z = key.derive(&peer).expect("derives");
        tainted(&z, label);
        public(&z);
        assert_eq!(
            z,
            plain.derive(&peer).expect("derives"),
            "{label}: DH secret"
        );
        checks += 2;
    }
    report(label, "DH ffdhe2048 and 1024-bit derive", checks, before)
}

/// The operating system's randomness with every byte it gives marked secret: key
/// generation's candidates, from their first draw, and its Miller-Rabin bases.
struct SecretRng;

impl rand_core::RngCore for SecretRng {
    fn next_u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        self.fill_bytes(&mut b);
        u32::from_le_bytes(b)
    }

    fn next_u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        self.fill_bytes(&mut b);
        u64::from_le_bytes(b)
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        OsRng.fill_bytes(dest);
        secret(dest);
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl rand_core::CryptoRng for SecretRng {}

/// RSA-2048 key generation with every random byte secret, of two primes
/// ([`RsaPrivateKey::generate`]) or of three
/// ([`RsaPrivateKey::generate_multi_prime`]): the prime search (trial division,
/// Miller-Rabin, the gcd(e, r - 1) test, and for three primes each prime's floor), the
/// distance between every two primes, d = e^-1 mod lcm(r_i - 1) and the CRT numbers, the
/// key's checks. A rejected candidate or key is public by design (its verdict is
/// declassified by the library); n is declassified as the public key. The key must
/// decrypt what its public key encrypts, the result carrying the marks.
fn keygen_case(label: &str, primes: usize) -> usize {
    let before = errors();
    let key = if primes == 2 {
        RsaPrivateKey::generate(2048, &mut SecretRng)
    } else {
        RsaPrivateKey::generate_multi_prime(2048, primes, &[1, 0, 1], &mut SecretRng)
    }
    .expect("generates");
    let public_key = key.to_public_key();
    assert_eq!(public_key.bits(), 2048, "{label}: key size");
    assert_eq!(key.prime_count(), primes, "{label}: number of primes");
    let mut checks = 1;
    let size = key.size();
    for i in 0..2u8 {
        let mut m = vec![0u8; size];
        for (j, b) in m.iter_mut().enumerate().skip(1) {
            *b = (j as u8).wrapping_mul(13).wrapping_add(i);
        }
        let c = public_key.encrypt_raw(&m).expect("encrypts");
        let got = key.decrypt_raw(&c, &mut OsRng).expect("decrypts");
        tainted(&got, label);
        public(&got);
        assert_eq!(&*got, &m[..], "{label}: the generated key");
        checks += 1;
    }
    let case = if primes == 2 {
        "RSA-2048 key generation".to_string()
    } else {
        format!("RSA-2048 {primes}-prime key generation")
    };
    report(label, &case, checks, before)
}

/// A three-prime key (the committed RSA-2048 one OpenSSL made) built from marked copies
/// of d and its three primes ([`RsaPrivateKey::from_multi_prime_components`]), then raw
/// decryption on edge and random values with each way of running the CRT halves,
/// PKCS #1 v1.5 signing and OAEP decryption.
fn multi_prime_case(label: &str) -> usize {
    let pem = include_str!("../tests/data/rsa2048-3primes.pem");
    let (_, der) = der::pem::decode_vec(pem.as_bytes()).expect("pem");
    let info = pkcs8::PrivateKeyInfo::from_der(&der).expect("pkcs8");
    let k = pkcs1::RsaPrivateKey::from_der(info.private_key).expect("pkcs1");
    let n = k.modulus.as_bytes().to_vec();
    let e = k.public_exponent.as_bytes().to_vec();
    let d = k.private_exponent.as_bytes().to_vec();
    let mut primes = vec![k.prime1.as_bytes().to_vec(), k.prime2.as_bytes().to_vec()];
    for o in k.other_prime_infos.iter().flatten() {
        primes.push(o.prime.as_bytes().to_vec());
    }
    assert_eq!(primes.len(), 3, "{label}: a three-prime key");
    secret(&d[1..]);
    for r in &primes {
        secret(&r[1..r.len() - 1]);
    }
    let before = errors();
    let refs: Vec<&[u8]> = primes.iter().map(|r| &r[..]).collect();
    let mut key =
        RsaPrivateKey::from_multi_prime_components(&n, &e, &d, &refs).expect("a consistent key");
    let public_key = key.to_public_key();
    let size = key.size();
    let messages = edge_messages(
        &n,
        (0..2u8).map(|i| {
            let mut m: Vec<u8> = (0..size).map(|j| (j as u8) ^ (i * 91)).collect();
            m[0] = 0;
            m
        }),
    );
    let mut checks = 0;
    for how in [
        CrtHalves::Lockstep,
        CrtHalves::OneByOne,
        CrtHalves::TwoThreads,
    ] {
        checks += decrypt_each(&mut key, &public_key, how, &messages, label);
    }
    key.set_crt_halves(CrtHalves::Lockstep);
    sign_pkcs1v15_checked(&key, &public_key, label);
    let c = public_key
        .encrypt_oaep::<Sha256>(&mut OsRng, b"three primes", b"")
        .expect("encrypts");
    let mut got = key
        .decrypt_oaep::<Sha256>(&mut OsRng, &c, b"")
        .expect("decrypts");
    output_vec(&mut got, label);
    assert_eq!(&got[..], b"three primes", "{label}: three-prime OAEP");
    checks += 2;
    report(
        label,
        "RSA-2048 three-prime raw decryption, signing and OAEP",
        checks,
        before,
    )
}

/// A key read from its PKCS #1 document (`pem`, PKCS #8 around it) with every secret
/// integer marked where it lies in the document: as in [`rsa_round`], every byte but
/// the first, and for the primes the last. The stored coefficients (qinv, and t_i of a
/// further prime) are checked by a product on load, the exponents compared with the
/// derived ones; then raw decryption on edge values.
fn stored_crt_case(pem: &str, what: &str, label: &str) -> usize {
    let (_, der) = der::pem::decode_vec(pem.as_bytes()).expect("pem");
    let info = pkcs8::PrivateKeyInfo::from_der(&der).expect("pkcs8");
    let doc = info.private_key.to_vec();
    let k = pkcs1::RsaPrivateKey::from_der(&doc).expect("pkcs1");
    let n = k.modulus.as_bytes().to_vec();
    // (value, whether its last byte stays public); positions found before any marking.
    let mut secrets = vec![
        (k.private_exponent, false),
        (k.prime1, true),
        (k.prime2, true),
        (k.exponent1, false),
        (k.exponent2, false),
        (k.coefficient, false),
    ];
    for o in k.other_prime_infos.iter().flatten() {
        secrets.extend([(o.prime, true), (o.exponent, false), (o.coefficient, false)]);
    }
    let spans: Vec<(usize, usize)> = secrets
        .iter()
        .map(|(x, odd)| {
            let x = x.as_bytes();
            let at = doc
                .windows(x.len())
                .position(|w| w == x)
                .expect("the integer in its document");
            (at + 1, at + x.len() - usize::from(*odd))
        })
        .collect();
    for (from, to) in spans {
        secret(&doc[from..to]);
    }
    let before = errors();
    let mut key = RsaPrivateKey::from_pkcs1_der(&doc).expect("a consistent key");
    let public_key = key.to_public_key();
    let messages = edge_messages(&n, []);
    let checks = decrypt_each(&mut key, &public_key, CrtHalves::Lockstep, &messages, label);
    report(label, what, checks, before)
}

/// Every case with the CPU features as `label` says.
fn round(pem: &str, label: &str) -> usize {
    rsa_round(pem, label)
        + stored_crt_case(pem, "RSA-2048 read with its CRT numbers", label)
        + stored_crt_case(
            include_str!("../tests/data/rsa2048-3primes.pem"),
            "RSA-2048 three-prime read with its CRT numbers",
            label,
        )
        + multi_prime_case(label)
        + keygen_case(label, 2)
        + keygen_case(label, 3)
        + dsa_round(label)
        + dh_round(label)
}

fn main() {
    if under_valgrind() {
        println!(
            "montmul-pk constant-time harness under valgrind: RSA d, p, q (two and three \
             primes; in a PKCS #1 document, with the CRT numbers), two- and three-prime key generation's random bytes, the OAEP and \
             PKCS #1 v1.5 blocks, DSA x and k, DH x marked undefined"
        );
    } else {
        println!("montmul-pk constant-time harness NOT under valgrind: only an oracle check");
    }
    let pem = include_str!("../tests/data/rsa2048.pem");
    let mut checks = round(pem, "CPU as detected");
    if cfg!(target_arch = "x86_64") && under_valgrind() {
        montmul::testing::assume_adx();
        checks += round(pem, "ADX assumed");
    }
    println!("{checks} checks, {} memcheck errors in all", errors());
}
