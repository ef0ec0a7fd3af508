//! RSA keys: the raw operations against num-bigint, key generation, every PEM/DER form
//! both ways with the `openssl` command, and bad keys refused with typed errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use montmul_pk::rsa::{CrtHalves, RsaPrivateKey, RsaPublicKey};
use montmul_pk::Error;
use num_bigint::BigUint;
use num_integer::Integer;
use rand_core::{OsRng, RngCore};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).expect("test data")
}

fn text(name: &str) -> String {
    String::from_utf8(read(name)).expect("utf-8")
}

/// The committed key's numbers, read by the `pkcs1` crate alone: the oracle's view.
struct Numbers {
    n: BigUint,
    e: BigUint,
    d: BigUint,
    p: BigUint,
    q: BigUint,
}

fn numbers(pem_pkcs8: &str) -> Numbers {
    use der::Decode;
    let (_, der) = der::pem::decode_vec(pem_pkcs8.as_bytes()).expect("pem");
    let info = pkcs8::PrivateKeyInfo::from_der(&der).expect("pkcs8");
    let k = pkcs1::RsaPrivateKey::from_der(info.private_key).expect("pkcs1");
    let b = |u: pkcs1::UintRef<'_>| BigUint::from_bytes_be(u.as_bytes());
    Numbers {
        n: b(k.modulus),
        e: b(k.public_exponent),
        d: b(k.private_exponent),
        p: b(k.prime1),
        q: b(k.prime2),
    }
}

fn be(x: &BigUint, k: usize) -> Vec<u8> {
    let b = x.to_bytes_be();
    let mut out = vec![0u8; k - b.len()];
    out.extend(b);
    out
}

/// Random values below n, and the edges 0, 1, 2, n - 1, n - 2 and all-ones limbs below n.
fn inputs(n: &BigUint, k: usize) -> Vec<BigUint> {
    let mut v: Vec<BigUint> = [0u32, 1, 2].iter().map(|&x| BigUint::from(x)).collect();
    v.push(n - 1u32);
    v.push(n - 2u32);
    v.push((BigUint::from(1u32) << (8 * (k - 1))) - 1u32);
    for _ in 0..6 {
        let mut bytes = vec![0u8; k];
        OsRng.fill_bytes(&mut bytes);
        v.push(BigUint::from_bytes_be(&bytes) % n);
    }
    v
}

fn raw_ops_against_num_bigint(file: &str) {
    let pem = text(file);
    let num = numbers(&pem);
    let mut key = RsaPrivateKey::from_pkcs8_pem(&pem).expect("loads");
    let public = key.to_public_key();
    let k = key.size();
    assert_eq!(k, (num.n.bits() as usize).div_ceil(8));
    assert_eq!(public.n(), num.n.to_bytes_be());
    // Every way of running the CRT halves (in lockstep where the size allows).
    for how in [
        CrtHalves::Lockstep,
        CrtHalves::OneByOne,
        CrtHalves::TwoThreads,
    ] {
        key.set_crt_halves(how);
        for m in inputs(&num.n, k) {
            let c = m.modpow(&num.e, &num.n);
            assert_eq!(public.encrypt_raw(&be(&m, k)).expect("encrypts"), be(&c, k));
            let got = key.decrypt_raw(&be(&c, k), &mut OsRng).expect("decrypts");
            assert_eq!(*got, be(&m, k), "m^e^d = m ({how:?})");
            // CRT equals the plain c^d mod n.
            assert_eq!(*got, be(&c.modpow(&num.d, &num.n), k), "{how:?}");
        }
    }
    // Not k bytes, or not below n: InvalidLength, for both operations.
    for bad in [
        vec![0u8; k - 1],
        vec![0u8; k + 1],
        be(&num.n, k),
        vec![0xff; k],
    ] {
        assert_eq!(public.encrypt_raw(&bad), Err(Error::InvalidLength));
        assert_eq!(key.decrypt_raw(&bad, &mut OsRng), Err(Error::InvalidLength));
    }
}

#[test]
fn raw_operations_2048_against_num_bigint() {
    raw_ops_against_num_bigint("rsa2048.pem");
}

#[test]
fn raw_operations_4096_against_num_bigint() {
    raw_ops_against_num_bigint("rsa4096.pem");
}

#[test]
fn raw_operations_1024_and_3072_against_num_bigint() {
    raw_ops_against_num_bigint("rsa1024.pem");
    raw_ops_against_num_bigint("rsa3072.pem");
}

/// p of 960 bits and q of 1088 (`openssl prime`, the key built by Python's
/// `cryptography`): halves of different sizes, which cannot run in lockstep.
#[test]
fn raw_operations_unbalanced_primes_against_num_bigint() {
    raw_ops_against_num_bigint("rsa2048-unbalanced.pem");
}

#[test]
fn generated_key_is_consistent() {
    let key = RsaPrivateKey::generate(2048, &mut OsRng).expect("generates");
    assert_eq!(key.bits(), 2048);
    let der = key.to_pkcs8_pem().expect("writes");
    let num = numbers(&der);
    assert_eq!(num.e, BigUint::from(65537u32));
    assert_eq!(&num.p * &num.q, num.n);
    assert_eq!(num.p.bits(), 1024);
    assert_eq!(num.q.bits(), 1024);
    let (pm1, qm1) = (&num.p - 1u32, &num.q - 1u32);
    let lcm = pm1.lcm(&qm1);
    assert_eq!((&num.d * &num.e) % &lcm, BigUint::from(1u32));
    assert!(num.d < lcm, "d is reduced mod lcm(p - 1, q - 1)");
    assert!(num.d.bits() > 1024);
    let diff = if num.p > num.q {
        &num.p - &num.q
    } else {
        &num.q - &num.p
    };
    assert!(diff.bits() > 1024 - 100);
    // Fermat to a few bases on both primes: an independent primality verdict.
    for prime in [&num.p, &num.q] {
        for b in [2u32, 3, 5, 7] {
            assert_eq!(
                BigUint::from(b).modpow(&(prime - 1u32), prime),
                BigUint::from(1u32)
            );
        }
    }
    let m = BigUint::from(0x1234_5678u32);
    let c = m.modpow(&num.e, &num.n);
    let got = key
        .decrypt_raw(&be(&c, key.size()), &mut OsRng)
        .expect("decrypts");
    assert_eq!(*got, be(&m, key.size()));
    // A custom exponent.
    let key3 = RsaPrivateKey::generate_with_exponent(2048, &[3], &mut OsRng).expect("e = 3");
    assert_eq!(key3.public_key().e(), &[3]);
}

#[test]
fn key_sizes_and_exponents_outside_the_range_are_refused() {
    for bits in [0usize, 1024, 2047, 2050 - 1, 8194, 16384] {
        match RsaPrivateKey::generate(bits, &mut OsRng) {
            Err(Error::KeySize { min, max, .. }) => assert_eq!((min, max), (2048, 8192)),
            other => panic!("{bits}: {other:?}"),
        }
    }
    for e in [&[][..], &[1], &[2], &[0x01, 0x00, 0x00], &[0xff; 33]] {
        assert!(matches!(
            RsaPrivateKey::generate_with_exponent(2048, e, &mut OsRng),
            Err(Error::InvalidKey(_))
        ));
    }
    // Public keys: too small, even, bad exponents.
    let num = numbers(&text("rsa2048.pem"));
    let n = num.n.to_bytes_be();
    assert!(matches!(
        RsaPublicKey::new(&n[..64], &[1, 0, 1]),
        Err(Error::KeySize { .. })
    ));
    for empty in [&[][..], &[0, 0]] {
        assert!(matches!(
            RsaPublicKey::new(empty, &[1, 0, 1]),
            Err(Error::KeySize { bits: 0, .. })
        ));
    }
    let mut even = n.clone();
    *even.last_mut().expect("n") &= 0xfe;
    assert!(matches!(
        RsaPublicKey::new(&even, &[1, 0, 1]),
        Err(Error::InvalidKey(_))
    ));
    for e in [&[][..], &[1], &[4], &n[..]] {
        assert!(matches!(
            RsaPublicKey::new(&n, e),
            Err(Error::InvalidKey(_))
        ));
    }
}

/// OpenSSL's rule for long public exponents: any odd e below n up to 3072 bits, at most
/// 64 bits of e above; keys of 4096 bits with a 65-bit exponent are neither loaded nor
/// generated (the refusal comes before any prime is drawn).
#[test]
fn long_public_exponents_follow_openssls_rule() {
    let (e64, e65) = ([0xffu8; 8], [0x01, 0, 0, 0, 0, 0, 0, 0, 0x01]);
    let long = |n: &[u8], e: &[u8]| match RsaPublicKey::new(n, e) {
        Err(Error::InvalidKey(why)) => why.contains("at most 64 bits"),
        Err(other) => panic!("{other:?}"),
        Ok(_) => false,
    };
    let n3072 = numbers(&text("rsa3072.pem")).n.to_bytes_be();
    let n4096 = numbers(&text("rsa4096.pem")).n.to_bytes_be();
    assert!(!long(&n3072, &e65), "3072 bits take any odd e below n");
    assert!(!long(&n4096, &e64), "4096 bits take a 64-bit e");
    assert!(long(&n4096, &e65), "4096 bits refuse a 65-bit e");
    assert!(
        long(&n4096, &[&[0u8; 4][..], &e65].concat()),
        "leading zeros do not count"
    );
    for bits in [4096, 8192] {
        assert!(matches!(
            RsaPrivateKey::generate_with_exponent(bits, &e65, &mut OsRng),
            Err(Error::InvalidKey(why)) if why.contains("at most 64 bits")
        ));
    }
}

#[test]
fn inconsistent_keys_are_refused() {
    let num = numbers(&text("rsa2048.pem"));
    let b = |x: &BigUint| x.to_bytes_be();
    let (n, e, d, p, q) = (b(&num.n), b(&num.e), b(&num.d), b(&num.p), b(&num.q));
    assert!(RsaPrivateKey::from_components(&n, &e, &d, &p, &q).is_ok());
    let two = BigUint::from(2u32);
    // (what, e, d, p, q)
    type Case = (&'static str, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);
    let cases: Vec<Case> = vec![
        (
            "p + 2",
            e.clone(),
            d.clone(),
            b(&(&num.p + &two)),
            q.clone(),
        ),
        ("p = 1, q = n", e.clone(), d.clone(), vec![1], n.clone()),
        (
            "d + 2",
            e.clone(),
            b(&(&num.d + &two)),
            p.clone(),
            q.clone(),
        ),
        ("d = n", e.clone(), n.clone(), p.clone(), q.clone()),
        ("e = 3", vec![3], d.clone(), p.clone(), q.clone()),
        ("empty p", e.clone(), d.clone(), vec![], q.clone()),
    ];
    for (what, e, d, p, q) in cases {
        match RsaPrivateKey::from_components(&n, &e, &d, &p, &q) {
            Err(Error::InvalidKey(_)) => {}
            other => panic!("{what}: {other:?}"),
        }
    }
    // PKCS #1 keys whose dp or qinv does not match: refused on load. qinv + p is
    // congruent to the coefficient (its product with q is 1 mod p) but not it.
    let key = RsaPrivateKey::from_pkcs8_pem(&text("rsa2048.pem")).expect("loads");
    let der = key.to_pkcs1_der().expect("writes");
    let parsed = <pkcs1::RsaPrivateKey as der::Decode>::from_der(&der).expect("pkcs1");
    let mut dp = parsed.exponent1.as_bytes().to_vec();
    *dp.last_mut().expect("dp") ^= 2;
    let qinv = BigUint::from_bytes_be(parsed.coefficient.as_bytes());
    assert!(&qinv * &num.q % &num.p == BigUint::from(1u32) && qinv < num.p);
    let mut qinv_flipped = b(&qinv);
    *qinv_flipped.last_mut().expect("qinv") ^= 2;
    let (zero, qinv_plus_p) = (vec![0u8], b(&(&qinv + &num.p)));
    for (what, dp, qinv) in [
        ("dp", &dp[..], parsed.coefficient.as_bytes()),
        ("qinv", parsed.exponent1.as_bytes(), &qinv_flipped[..]),
        ("qinv + p", parsed.exponent1.as_bytes(), &qinv_plus_p[..]),
        ("qinv = 0", parsed.exponent1.as_bytes(), &zero[..]),
        ("qinv = p", parsed.exponent1.as_bytes(), &p[..]),
    ] {
        let bad = pkcs1::RsaPrivateKey {
            exponent1: pkcs1::UintRef::new(dp).expect("uint"),
            coefficient: pkcs1::UintRef::new(qinv).expect("uint"),
            ..parsed.clone()
        };
        let bad_der = der::Encode::to_der(&bad).expect("encodes");
        match RsaPrivateKey::from_pkcs1_der(&bad_der) {
            Err(Error::InvalidKey(m)) => assert!(m.contains("CRT"), "{what}: {m}"),
            other => panic!("{what}: {other:?}"),
        }
    }
}

#[test]
fn a_key_from_its_crt_numbers_against_num_bigint() {
    // dp, dq and qinv from num-bigint (the oracle), given with n, e, d, p and q: the
    // key is the one OpenSSL wrote, byte for byte.
    let pem = text("rsa2048.pem");
    let num = numbers(&pem);
    let one = BigUint::from(1u32);
    let dp = &num.d % (&num.p - &one);
    let dq = &num.d % (&num.q - &one);
    let qinv = num.q.modpow(&(&num.p - 2u32), &num.p);
    assert_eq!(&qinv * &num.q % &num.p, one);
    let b = |x: &BigUint| x.to_bytes_be();
    let (n, e, d, p, q) = (b(&num.n), b(&num.e), b(&num.d), b(&num.p), b(&num.q));
    let (dp, dq, qinv) = (b(&dp), b(&dq), b(&qinv));
    let key = RsaPrivateKey::from_crt_components(&n, &e, &d, &[&p, &q], [&dp, &dq, &qinv], &[])
        .expect("consistent");
    assert_eq!(*key.to_pkcs8_pem().expect("writes"), pem);
    // Leading zero bytes are allowed, as in the other constructors.
    let padded = [&[0u8, 0][..], &qinv].concat();
    assert!(
        RsaPrivateKey::from_crt_components(&n, &e, &d, &[&p, &q], [&dp, &dq, &padded], &[]).is_ok()
    );
    // dp and dq swapped, qinv of the other order (p^-1 mod q), or a further prime's
    // numbers for a two-prime key: refused.
    let pinv = b(&num.p.modpow(&(&num.q - 2u32), &num.q));
    let other = [&dp[..], &qinv[..]];
    for (what, crt, others) in [
        ("dp and dq swapped", [&dq[..], &dp[..], &qinv[..]], &[][..]),
        ("p^-1 mod q", [&dp[..], &dq[..], &pinv[..]], &[][..]),
        (
            "a third prime's numbers",
            [&dp[..], &dq[..], &qinv[..]],
            &[other][..],
        ),
    ] {
        match RsaPrivateKey::from_crt_components(&n, &e, &d, &[&p, &q], crt, others) {
            Err(Error::InvalidKey(_)) => {}
            other => panic!("{what}: {other:?}"),
        }
    }
}

#[test]
fn every_form_openssl_writes_loads_and_montmul_writes_the_same_bytes() {
    let key = RsaPrivateKey::from_pkcs8_pem(&text("rsa2048.pem")).expect("pkcs8 pem");
    let public = key.to_public_key();
    let loaded = [
        RsaPrivateKey::from_pkcs8_der(&read("rsa2048.der")).expect("pkcs8 der"),
        RsaPrivateKey::from_pkcs1_pem(&text("rsa2048-pkcs1.pem")).expect("pkcs1 pem"),
        RsaPrivateKey::from_pkcs1_der(&read("rsa2048-pkcs1.der")).expect("pkcs1 der"),
        RsaPrivateKey::from_any(&read("rsa2048.pem")).expect("any"),
        RsaPrivateKey::from_any(&read("rsa2048.der")).expect("any"),
        RsaPrivateKey::from_any(&read("rsa2048-pkcs1.pem")).expect("any"),
        RsaPrivateKey::from_any(&read("rsa2048-pkcs1.der")).expect("any"),
    ];
    for k in &loaded {
        assert_eq!(k.public_key(), &public);
    }
    for p in [
        RsaPublicKey::from_public_key_pem(&text("rsa2048-pub.pem")).expect("spki pem"),
        RsaPublicKey::from_public_key_der(&read("rsa2048-pub.der")).expect("spki der"),
        RsaPublicKey::from_pkcs1_pem(&text("rsa2048-pub-pkcs1.pem")).expect("pkcs1 pem"),
        RsaPublicKey::from_any(&read("rsa2048-pub.pem")).expect("any"),
        RsaPublicKey::from_any(&read("rsa2048-pub.der")).expect("any"),
        RsaPublicKey::from_any(&read("rsa2048-pub-pkcs1.pem")).expect("any"),
    ] {
        assert_eq!(p, public);
    }
    // DER is canonical: montmul writes exactly OpenSSL's bytes.
    assert_eq!(*key.to_pkcs8_pem().expect("w"), text("rsa2048.pem"));
    assert_eq!(*key.to_pkcs8_der().expect("w"), read("rsa2048.der"));
    assert_eq!(*key.to_pkcs1_pem().expect("w"), text("rsa2048-pkcs1.pem"));
    assert_eq!(*key.to_pkcs1_der().expect("w"), read("rsa2048-pkcs1.der"));
    assert_eq!(
        public.to_public_key_pem().expect("w"),
        text("rsa2048-pub.pem")
    );
    assert_eq!(
        public.to_public_key_der().expect("w"),
        read("rsa2048-pub.der")
    );
    assert_eq!(
        public.to_pkcs1_pem().expect("w"),
        text("rsa2048-pub-pkcs1.pem")
    );
    // An RSA-PSS key from `openssl genpkey -algorithm RSA-PSS`.
    let pss = RsaPrivateKey::from_pkcs8_pem(&text("rsapss2048.pem")).expect("RSA-PSS key");
    assert_eq!(pss.bits(), 2048);
}

#[test]
fn bad_documents_give_typed_errors() {
    let pem = text("rsa2048.pem");
    let der = read("rsa2048.der");
    // Truncated PEM and DER, at many lengths.
    for cut in [0, 10, 30, pem.len() / 2, pem.len() - 30] {
        assert!(matches!(
            RsaPrivateKey::from_pkcs8_pem(&pem[..cut]),
            Err(Error::Encoding(_))
        ));
    }
    for cut in (0..der.len()).step_by(37) {
        assert!(matches!(
            RsaPrivateKey::from_pkcs8_der(&der[..cut]),
            Err(Error::Encoding(_))
        ));
        assert!(RsaPrivateKey::from_any(&der[..cut]).is_err());
    }
    // Garbage, and a bit flipped in each byte of the DER: an error or (where the flip
    // lands in a number) an inconsistent key, never a panic.
    assert!(RsaPublicKey::from_any(b"not a key").is_err());
    for i in 0..der.len() {
        let mut bad = der.clone();
        bad[i] ^= 0x10;
        assert!(RsaPrivateKey::from_pkcs8_der(&bad).is_err(), "byte {i}");
    }
    // Wrong key types: EC and DSA keys from `openssl genpkey`.
    for other in ["ec.pem", "dsa.pem"] {
        match RsaPrivateKey::from_any(&read(other)) {
            Err(Error::Encoding(why)) => assert!(why.contains("not an RSA key"), "{why}"),
            r => panic!("{other}: {r:?}"),
        }
    }
    // A public key where a private one is expected, and the reverse.
    assert!(matches!(
        RsaPrivateKey::from_any(&read("rsa2048-pub.pem")),
        Err(Error::Encoding(_))
    ));
    assert!(matches!(
        RsaPublicKey::from_any(&read("rsa2048.pem")),
        Err(Error::Encoding(_))
    ));
    assert!(matches!(
        RsaPublicKey::from_public_key_pem(&text("rsa2048-pub-pkcs1.pem")),
        Err(Error::Encoding(_))
    ));
}

#[test]
fn debug_prints_no_secret() {
    let key = RsaPrivateKey::from_pkcs8_pem(&text("rsa2048.pem")).expect("loads");
    let shown = format!("{key:?}");
    assert!(shown.contains("2048"));
    let num = numbers(&text("rsa2048.pem"));
    for secret in [&num.d, &num.p, &num.q] {
        let hex = secret.to_str_radix(16);
        assert!(!shown.contains(&hex[..16]), "{shown}");
    }
    assert!(shown.len() < 100, "{shown}");
}

/// `openssl` with args; None (and a loud SKIPPED) when the command is absent.
fn openssl(args: &[&str]) -> Option<std::process::Output> {
    match Command::new("openssl").args(args).output() {
        Ok(out) => Some(out),
        Err(_) => {
            montmul_testkit::skipped!("SKIPPED: the `openssl` command is not installed");
            None
        }
    }
}

#[test]
fn openssl_checks_the_keys_montmul_writes_and_montmul_reads_what_openssl_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = RsaPrivateKey::generate(2048, &mut OsRng).expect("generates");
    let public = key.to_public_key();
    let files: [(&str, Vec<u8>); 6] = [
        ("k8.pem", key.to_pkcs8_pem().expect("w").as_bytes().to_vec()),
        ("k8.der", key.to_pkcs8_der().expect("w").to_vec()),
        ("k1.pem", key.to_pkcs1_pem().expect("w").as_bytes().to_vec()),
        ("k1.der", key.to_pkcs1_der().expect("w").to_vec()),
        (
            "pub.pem",
            public.to_public_key_pem().expect("w").into_bytes(),
        ),
        ("pub.der", public.to_public_key_der().expect("w")),
    ];
    for (name, bytes) in &files {
        std::fs::write(dir.path().join(name), bytes).expect("write");
    }
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8").to_string();
    for (name, form) in [
        ("k8.pem", "PEM"),
        ("k8.der", "DER"),
        ("k1.pem", "PEM"),
        ("k1.der", "DER"),
    ] {
        let Some(out) = openssl(&[
            "rsa",
            "-check",
            "-noout",
            "-inform",
            form,
            "-in",
            &path(name),
        ]) else {
            return;
        };
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && said.contains("RSA key ok"),
            "{name}: {said}"
        );
        let out = openssl(&[
            "pkey",
            "-check",
            "-noout",
            "-inform",
            form,
            "-in",
            &path(name),
        ])
        .expect("openssl");
        assert!(out.status.success(), "pkey -check {name}");
    }
    // The public key OpenSSL derives from montmul's private key is montmul's.
    for (name, form) in [("k8.pem", "PEM"), ("k1.der", "DER")] {
        let out =
            openssl(&["pkey", "-inform", form, "-in", &path(name), "-pubout"]).expect("openssl");
        assert!(out.status.success());
        assert_eq!(out.stdout, files[4].1, "{name}");
    }
    for name in ["pub.pem", "pub.der"] {
        let form = if name.ends_with("der") { "DER" } else { "PEM" };
        let out = openssl(&[
            "pkey",
            "-pubin",
            "-inform",
            form,
            "-in",
            &path(name),
            "-noout",
            "-text",
        ])
        .expect("openssl");
        assert!(out.status.success(), "{name}");
    }
    // OpenSSL writes the key back in each of its forms; montmul reads each.
    let forms: [(&[&str], bool); 5] = [
        (&["pkey", "-outform", "DER"], true),
        (&["rsa", "-traditional"], true),
        (&["rsa", "-traditional", "-outform", "DER"], true),
        (&["rsa", "-pubout", "-outform", "DER"], false),
        (&["rsa", "-RSAPublicKey_out"], false),
    ];
    for (args, private) in forms {
        let mut all: Vec<&str> = args.to_vec();
        let input = path("k8.pem");
        all.extend(["-in", &input]);
        let out = openssl(&all).expect("openssl");
        assert!(out.status.success(), "{args:?}");
        if private {
            let back = RsaPrivateKey::from_any(&out.stdout).expect("montmul reads it");
            assert_eq!(back.public_key(), &public, "{args:?}");
        } else {
            assert_eq!(RsaPublicKey::from_any(&out.stdout).expect("reads"), public);
        }
    }
    // Raw RSA both ways: OpenSSL encrypts without padding, montmul decrypts, and back.
    let mut m = vec![0u8; key.size()];
    OsRng.fill_bytes(&mut m[1..]);
    std::fs::write(dir.path().join("m"), &m).expect("write");
    let out = openssl(&[
        "pkeyutl",
        "-encrypt",
        "-pubin",
        "-inkey",
        &path("pub.pem"),
        "-pkeyopt",
        "rsa_padding_mode:none",
        "-in",
        &path("m"),
    ])
    .expect("openssl");
    assert!(out.status.success());
    assert_eq!(
        *key.decrypt_raw(&out.stdout, &mut OsRng).expect("decrypts"),
        m
    );
    std::fs::write(
        dir.path().join("c"),
        public.encrypt_raw(&m).expect("encrypts"),
    )
    .expect("write");
    let out = openssl(&[
        "pkeyutl",
        "-decrypt",
        "-inkey",
        &path("k8.pem"),
        "-pkeyopt",
        "rsa_padding_mode:none",
        "-in",
        &path("c"),
    ])
    .expect("openssl");
    assert!(out.status.success());
    assert_eq!(out.stdout, m);
}
