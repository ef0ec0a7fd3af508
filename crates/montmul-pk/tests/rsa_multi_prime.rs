//! Multi-prime RSA keys (RFC 8017 3.2, `otherPrimeInfos`): the private operation against
//! num-bigint on edge and random inputs (OpenSSL's three- and four-prime keys, and keys
//! built here from primes of unequal sizes down to one limb), the PKCS #1 and PKCS #8
//! forms read and written back byte for byte, inconsistent keys refused with typed
//! errors, and interop with the `openssl` command: montmul decrypts what OpenSSL
//! encrypts (OAEP and PKCS #1 v1.5) with a three-prime key it generated, and OpenSSL
//! verifies montmul's signatures and reads the keys montmul writes. Without `openssl`
//! the interop test prints a `SKIPPED` line.

use std::path::{Path, PathBuf};
use std::process::Command;

use der::{Decode, Encode};
use montmul_pk::rsa::{CrtHalves, RsaPrivateKey, MAX_PRIMES};
use montmul_pk::Error;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::One;
use rand_core::OsRng;
use sha2::Sha256;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn text(name: &str) -> String {
    std::fs::read_to_string(data(name)).expect("test data")
}

/// A key's numbers as the `pkcs1` crate alone reads them: the oracle's view.
struct Numbers {
    n: BigUint,
    e: BigUint,
    d: BigUint,
    primes: Vec<BigUint>,
}

fn pkcs1_der(pem_pkcs8: &str) -> Vec<u8> {
    let (_, der) = der::pem::decode_vec(pem_pkcs8.as_bytes()).expect("pem");
    let info = pkcs8::PrivateKeyInfo::from_der(&der).expect("pkcs8");
    info.private_key.to_vec()
}

fn numbers(pem_pkcs8: &str) -> Numbers {
    let der = pkcs1_der(pem_pkcs8);
    let k = pkcs1::RsaPrivateKey::from_der(&der).expect("pkcs1");
    let big = |u: der::asn1::UintRef<'_>| BigUint::from_bytes_be(u.as_bytes());
    let mut primes = vec![big(k.prime1), big(k.prime2)];
    for o in k.other_prime_infos.iter().flatten() {
        primes.push(big(o.prime));
    }
    Numbers {
        n: big(k.modulus),
        e: big(k.public_exponent),
        d: big(k.private_exponent),
        primes,
    }
}

fn be(x: &BigUint, len: usize) -> Vec<u8> {
    let b = x.to_bytes_be();
    let mut out = vec![0u8; len - b.len()];
    out.extend_from_slice(&b);
    out
}

/// `decrypt_raw` against `c^d mod n` for 0, 1, n - 1, the all-ones-limb values below n
/// and random values, with each way of running the CRT halves (the other ways on the
/// largest edge values and the random ones).
fn check_private_op(key: &mut RsaPrivateKey, num: &Numbers, what: &str) {
    let k = key.size();
    let r_bits = 64 * k.div_ceil(8) as u32;
    let mut inputs = montmul_testkit::edge_operands(&num.n, 64, r_bits);
    for _ in 0..6 {
        inputs.push(montmul_testkit::random_below(&mut OsRng, &num.n));
    }
    for how in [
        CrtHalves::Lockstep,
        CrtHalves::OneByOne,
        CrtHalves::TwoThreads,
    ] {
        key.set_crt_halves(how);
        // Every input on the default path, a few on the others.
        let inputs = match how {
            CrtHalves::Lockstep => &inputs[..],
            _ => &inputs[inputs.len() - 8..],
        };
        for c in inputs {
            let want = c.modpow(&num.d, &num.n);
            let got = key
                .decrypt_raw(&be(c, k), &mut OsRng)
                .unwrap_or_else(|e| panic!("{what}, {how:?}: {e}"));
            assert_eq!(
                BigUint::from_bytes_be(&got),
                want,
                "{what}, {how:?}, c = {c}"
            );
        }
    }
    key.set_crt_halves(CrtHalves::default());
}

#[test]
fn openssl_multi_prime_keys_private_op_against_num_bigint() {
    for (name, primes) in [("rsa2048-3primes.pem", 3), ("rsa4096-4primes.pem", 4)] {
        let pem = text(name);
        let num = numbers(&pem);
        assert_eq!(num.primes.len(), primes, "{name}");
        let mut key = RsaPrivateKey::from_pkcs8_pem(&pem).expect("loads");
        assert_eq!(key.prime_count(), primes);
        check_private_op(&mut key, &num, name);
    }
}

#[test]
fn multi_prime_keys_are_written_back_as_openssl_wrote_them() {
    for name in ["rsa2048-3primes.pem", "rsa4096-4primes.pem"] {
        let pem = text(name);
        let key = RsaPrivateKey::from_pkcs8_pem(&pem).expect("loads");
        let (_, pkcs8_der) = der::pem::decode_vec(pem.as_bytes()).expect("pem");
        assert_eq!(
            &key.to_pkcs8_der().expect("writes")[..],
            &pkcs8_der[..],
            "{name}"
        );
        assert_eq!(&*key.to_pkcs8_pem().expect("writes"), &pem, "{name}");
        let pkcs1 = key.to_pkcs1_der().expect("writes");
        assert_eq!(&pkcs1[..], &pkcs1_der(&pem)[..], "{name}");
        // And read back from each form, PEM and DER.
        for again in [
            RsaPrivateKey::from_pkcs1_der(&pkcs1),
            RsaPrivateKey::from_pkcs1_pem(&key.to_pkcs1_pem().expect("writes")),
            RsaPrivateKey::from_any(&pkcs8_der),
            RsaPrivateKey::from_any(key.to_pkcs1_pem().expect("writes").as_bytes()),
        ] {
            let again = again.expect("reads back");
            assert_eq!(again.prime_count(), key.prime_count());
            assert_eq!(again.public_key(), key.public_key());
        }
    }
    // OpenSSL's "traditional" (PKCS #1) form of the three-prime key.
    let trad = RsaPrivateKey::from_pkcs1_pem(&text("rsa2048-3primes-pkcs1.pem")).expect("reads");
    assert_eq!(trad.prime_count(), 3);
}

/// A random probable prime of exactly `bits` bits by num-bigint (Miller-Rabin with 32
/// random bases): the test's own, independent of the crate's prime search.
fn oracle_prime(bits: u64) -> BigUint {
    loop {
        let mut c = montmul_testkit::random_below_pow2(&mut OsRng, bits as u32);
        c.set_bit(bits - 1, true);
        c.set_bit(bits - 2, true);
        c.set_bit(0, true);
        let nm1 = &c - 1u32;
        let s = nm1.trailing_zeros().expect("c > 1");
        let d = &nm1 >> s;
        let probable = (0..32).all(|_| {
            let a = montmul_testkit::random_below(&mut OsRng, &(&c - 3u32)) + 2u32;
            let mut x = a.modpow(&d, &c);
            if x.is_one() || x == nm1 {
                return true;
            }
            for _ in 1..s {
                x = x.modpow(&BigUint::from(2u32), &c);
                if x == nm1 {
                    return true;
                }
            }
            false
        });
        if probable {
            return c;
        }
    }
}

/// A key of the primes of `sizes` bits, in that order, with e = 65537 and
/// d = e^-1 mod lcm(r_i - 1), all by num-bigint.
fn oracle_key(sizes: &[u64]) -> Numbers {
    let e = BigUint::from(65537u32);
    loop {
        let primes: Vec<BigUint> = sizes.iter().map(|&b| oracle_prime(b)).collect();
        let distinct = primes
            .iter()
            .enumerate()
            .all(|(i, p)| primes[..i].iter().all(|q| q != p));
        let lambda = primes
            .iter()
            .fold(BigUint::one(), |acc, p| acc.lcm(&(p - 1u32)));
        let Some(d) = e.modinv(&lambda) else {
            continue;
        };
        let n: BigUint = primes.iter().product();
        if distinct && n.bits() >= 1024 {
            return Numbers { n, e, d, primes };
        }
    }
}

fn from_numbers(num: &Numbers, primes: &[BigUint]) -> Result<RsaPrivateKey, Error> {
    let bytes: Vec<Vec<u8>> = primes.iter().map(|p| p.to_bytes_be()).collect();
    let refs: Vec<&[u8]> = bytes.iter().map(|p| &p[..]).collect();
    RsaPrivateKey::from_multi_prime_components(
        &num.n.to_bytes_be(),
        &num.e.to_bytes_be(),
        &num.d.to_bytes_be(),
        &refs,
    )
}

#[test]
fn keys_of_unequal_primes_down_to_one_limb_against_num_bigint() {
    // p of one limb (64 bits) beside a long q; a further prime of one limb; five primes.
    for sizes in [
        &[64u64, 500, 470][..],
        &[520, 480, 64],
        &[300, 200, 240, 180, 128],
    ] {
        let num = oracle_key(sizes);
        let mut key = from_numbers(&num, &num.primes).expect("a consistent key");
        assert_eq!(key.prime_count(), sizes.len());
        check_private_op(&mut key, &num, &format!("primes of {sizes:?} bits"));
        // The same key with its primes in another order (other coefficients).
        let mut reversed = num.primes.clone();
        reversed.reverse();
        let mut key = from_numbers(&num, &reversed).expect("any order");
        check_private_op(
            &mut key,
            &num,
            &format!("primes of {sizes:?} bits, reversed"),
        );
        // Written and read back.
        let der = key.to_pkcs8_der().expect("writes");
        let again = RsaPrivateKey::from_pkcs8_der(&der).expect("reads back");
        assert_eq!(again.prime_count(), sizes.len());
    }
}

#[test]
fn two_primes_through_the_multi_prime_constructor_are_the_two_prime_key() {
    let num = numbers(&text("rsa2048.pem"));
    let key = from_numbers(&num, &num.primes).expect("loads");
    let plain = RsaPrivateKey::from_pkcs8_pem(&text("rsa2048.pem")).expect("loads");
    assert_eq!(key.prime_count(), 2);
    assert_eq!(
        &key.to_pkcs8_der().expect("writes")[..],
        &plain.to_pkcs8_der().expect("writes")[..]
    );
}

#[test]
fn inconsistent_multi_prime_keys_are_refused() {
    let num = numbers(&text("rsa2048-3primes.pem"));
    let invalid = |r: Result<RsaPrivateKey, Error>, what: &str| match r {
        Err(Error::InvalidKey(_)) => {}
        other => panic!("{what}: {other:?}"),
    };
    let p = &num.primes;
    // A prime left out, one changed, one repeated, a product equal to n but not of the
    // key's primes (p1 p2 as one "prime"), d off by one.
    invalid(from_numbers(&num, &p[..2]), "two of three primes");
    invalid(
        from_numbers(&num, &[p[0].clone(), p[1].clone(), &p[2] + 2u32]),
        "a changed prime",
    );
    invalid(
        from_numbers(
            &num,
            &[p[0].clone(), p[1].clone(), p[2].clone(), p[2].clone()],
        ),
        "a repeated prime",
    );
    invalid(
        from_numbers(&num, &[&p[0] * &p[1], BigUint::one(), p[2].clone()]),
        "a prime of 1",
    );
    let wrong_d = Numbers {
        d: &num.d + 2u32,
        n: num.n.clone(),
        e: num.e.clone(),
        primes: vec![],
    };
    invalid(from_numbers(&wrong_d, p), "d + 2");
    invalid(from_numbers(&num, &p[..1]), "one prime");
    let many: Vec<BigUint> = vec![BigUint::from(3u32); MAX_PRIMES + 1];
    invalid(from_numbers(&num, &many), "17 primes");

    // PKCS #1 documents whose further prime's exponent or coefficient is wrong, or
    // whose otherPrimeInfos is empty.
    let der = pkcs1_der(&text("rsa2048-3primes.pem"));
    let k = pkcs1::RsaPrivateKey::from_der(&der).expect("pkcs1");
    let others = k.other_prime_infos.clone().expect("three primes");
    let bumped = |x: der::asn1::UintRef<'_>| {
        let mut v = x.as_bytes().to_vec();
        *v.last_mut().expect("nonempty") ^= 2;
        v
    };
    let (d3, t3) = (bumped(others[0].exponent), bumped(others[0].coefficient));
    // t_3 + r_3: congruent to the coefficient mod r_3, but not it.
    let r3 = BigUint::from_bytes_be(others[0].prime.as_bytes());
    let t3_plus_r3 = (BigUint::from_bytes_be(others[0].coefficient.as_bytes()) + &r3).to_bytes_be();
    for (what, exponent, coefficient) in [
        ("d_3", &d3[..], others[0].coefficient.as_bytes()),
        ("t_3", others[0].exponent.as_bytes(), &t3[..]),
        ("t_3 + r_3", others[0].exponent.as_bytes(), &t3_plus_r3[..]),
    ] {
        let info = pkcs1::OtherPrimeInfo {
            prime: others[0].prime,
            exponent: der::asn1::UintRef::new(exponent).expect("uint"),
            coefficient: der::asn1::UintRef::new(coefficient).expect("uint"),
        };
        let bad = pkcs1::RsaPrivateKey {
            other_prime_infos: Some(vec![info]),
            ..k.clone()
        };
        invalid(
            RsaPrivateKey::from_pkcs1_der(&bad.to_der().expect("encodes")),
            what,
        );
    }
    let empty = pkcs1::RsaPrivateKey {
        other_prime_infos: Some(vec![]),
        ..k.clone()
    };
    match RsaPrivateKey::from_pkcs1_der(&empty.to_der().expect("encodes")) {
        Err(Error::Encoding(_)) => {}
        other => panic!("empty otherPrimeInfos: {other:?}"),
    }
    // A fourth prime that does not divide n.
    let extra = pkcs1::RsaPrivateKey {
        other_prime_infos: Some(vec![others[0].clone(), others[0].clone()]),
        ..k.clone()
    };
    invalid(
        RsaPrivateKey::from_pkcs1_der(&extra.to_der().expect("encodes")),
        "a repeated OtherPrimeInfo",
    );
}

/// `openssl` with args; None (and a loud SKIPPED) when the command is absent.
fn openssl(args: &[&str]) -> Option<std::process::Output> {
    match Command::new("openssl").args(args).output() {
        Ok(out) => Some(out),
        Err(_) => {
            montmul_testkit::skipped!(
                "SKIPPED: multi-prime interop: the `openssl` command is not installed"
            );
            None
        }
    }
}

fn ok(out: &std::process::Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn openssl_three_prime_key_interop() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8").to_string();
    let Some(out) = openssl(&[
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-pkeyopt",
        "rsa_keygen_primes:3",
        "-out",
        &path("key.pem"),
    ]) else {
        return;
    };
    ok(&out, "genpkey");
    let key = RsaPrivateKey::from_any(&std::fs::read(path("key.pem")).expect("key"))
        .expect("montmul reads OpenSSL's three-prime key");
    assert_eq!(key.prime_count(), 3);
    let public = key.to_public_key();
    std::fs::write(path("pub.pem"), public.to_public_key_pem().expect("w")).expect("write");
    let msg = b"three primes, one modulus";
    std::fs::write(path("msg"), msg).expect("write");

    // OpenSSL encrypts (OAEP with its default SHA-1, and v1.5), montmul decrypts.
    for (mode, oaep) in [("oaep", true), ("pkcs1", false)] {
        let ct = path(&format!("ct-{mode}"));
        let out = openssl(&[
            "pkeyutl",
            "-encrypt",
            "-pubin",
            "-inkey",
            &path("pub.pem"),
            "-pkeyopt",
            &format!("rsa_padding_mode:{mode}"),
            "-in",
            &path("msg"),
            "-out",
            &ct,
        ])
        .expect("openssl ran before");
        ok(&out, "pkeyutl -encrypt");
        let c = std::fs::read(&ct).expect("ciphertext");
        let got = if oaep {
            key.decrypt_oaep::<sha1::Sha1>(&mut OsRng, &c, b"")
                .expect("decrypts")
        } else {
            key.decrypt_pkcs1v15(&mut OsRng, &c).expect("decrypts")
        };
        assert_eq!(&got[..], msg, "{mode}");
    }

    // montmul signs (PKCS #1 v1.5 and PSS), OpenSSL verifies.
    let sigs = [
        (
            "v15",
            key.sign_pkcs1v15::<Sha256>(msg, &mut OsRng).expect("signs"),
        ),
        (
            "pss",
            key.sign_pss::<Sha256>(msg, &mut OsRng).expect("signs"),
        ),
    ];
    for (what, sig) in sigs {
        std::fs::write(path("sig"), &sig).expect("write");
        let mut args = vec![
            "dgst",
            "-sha256",
            "-verify",
            &path("pub.pem"),
            "-signature",
            &path("sig"),
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        if what == "pss" {
            for a in [
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                "rsa_pss_saltlen:-1",
            ] {
                args.push(a.into());
            }
        }
        args.push(path("msg"));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = openssl(&args).expect("openssl ran before");
        ok(&out, what);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Verified OK"),
            "{what}"
        );
    }

    // OpenSSL checks and uses the keys montmul writes: PKCS #8 and PKCS #1, PEM.
    std::fs::write(path("k8.pem"), key.to_pkcs8_pem().expect("w").as_bytes()).expect("w");
    std::fs::write(path("k1.pem"), key.to_pkcs1_pem().expect("w").as_bytes()).expect("w");
    let c = public
        .encrypt_oaep::<sha1::Sha1>(&mut OsRng, msg, b"")
        .expect("encrypts");
    std::fs::write(path("ct"), &c).expect("write");
    for k in ["k8.pem", "k1.pem"] {
        let out = openssl(&["rsa", "-check", "-noout", "-in", &path(k)]).expect("ran");
        ok(&out, "rsa -check");
        let out = openssl(&[
            "pkeyutl",
            "-decrypt",
            "-inkey",
            &path(k),
            "-pkeyopt",
            "rsa_padding_mode:oaep",
            "-in",
            &path("ct"),
        ])
        .expect("ran");
        ok(&out, "pkeyutl -decrypt");
        assert_eq!(&out.stdout[..], msg, "{k}");
    }
}
