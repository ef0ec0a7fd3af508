//! Generated multi-prime RSA keys (`RsaPrivateKey::generate_multi_prime`) against
//! independent oracles: a three-prime RSA-2048 key and a four-prime RSA-4096 key, each
//! read back by the `pkcs1` crate alone and checked with num-bigint (the product of the
//! primes is n with exactly the bits asked for and a top nibble of 9 or more, each prime
//! passes the test's own Miller-Rabin, the primes have the sizes of the split and are
//! far apart, d e = 1 mod lcm(r_i - 1), every CRT number), the private operation against
//! `c^d mod n`, the PKCS #1 and PKCS #8 PEM forms read and written back byte for byte,
//! and the `openssl` command: `pkey -check` accepts the key, `pkeyutl -verify` verifies
//! montmul's signatures and montmul decrypts what `pkeyutl -encrypt` makes (skipped,
//! loudly, without `openssl`); a five-prime RSA-8192 key likewise, the most OpenSSL
//! makes. Refusals: a prime count outside 2..=cap at each size, 17 primes.
//!
//! Time, in the test profile on this 2-core machine shared with other builds: key
//! generation takes 0.1 to 0.2 s at 2048 bits (three primes), 0.1 to 0.4 s at 4096 (four)
//! and 0.2 to 2 s at 8192 (five); the whole file 6 to 9 s, most of it the 8192-bit
//! case's num-bigint checks and `openssl pkey -check`. Each test prints its split with
//! `--nocapture`.

use std::process::Command;

use der::Decode;
use montmul_pk::rsa::{max_generated_primes, RsaPrivateKey, GENERATE_MAX_BITS};
use montmul_pk::Error;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};
use rand_core::OsRng;
use sha2::{Digest, Sha256};

/// Miller-Rabin with 12 random bases on num-bigint: the test's own primality verdict,
/// independent of the crate's (a composite passes with probability below 4^-12 = 2^-24
/// whatever it is, far below that for these random primes; 12 rather than more keeps
/// the 8192-bit case within seconds).
fn oracle_probable_prime(n: &BigUint) -> bool {
    if n < &BigUint::from(5u32) || n.is_even() {
        return n == &BigUint::from(2u32) || n == &BigUint::from(3u32);
    }
    let nm1 = n - 1u32;
    let s = nm1.trailing_zeros().expect("n > 1");
    let d = &nm1 >> s;
    (0..12).all(|_| {
        let a = montmul_testkit::random_below(&mut OsRng, &(n - 3u32)) + 2u32;
        let mut x = a.modpow(&d, n);
        if x.is_one() || x == nm1 {
            return true;
        }
        for _ in 1..s {
            x = x.modpow(&BigUint::from(2u32), n);
            if x == nm1 {
                return true;
            }
        }
        false
    })
}

fn big(bytes: &[u8]) -> BigUint {
    BigUint::from_bytes_be(bytes)
}

/// The key's numbers as the `pkcs1` crate reads its PKCS #1 DER, checked with
/// num-bigint against everything a `bits`-bit key of `u` primes with exponent `e` must
/// be.
fn check_numbers(key: &RsaPrivateKey, bits: usize, u: usize, e: u32) {
    let der = key.to_pkcs1_der().expect("writes");
    let k = pkcs1::RsaPrivateKey::from_der(&der).expect("the pkcs1 crate reads it");
    let n = big(k.modulus.as_bytes());
    let d = big(k.private_exponent.as_bytes());
    assert_eq!(big(k.public_exponent.as_bytes()), BigUint::from(e));
    let mut primes = vec![big(k.prime1.as_bytes()), big(k.prime2.as_bytes())];
    let mut crt = vec![
        (big(k.exponent1.as_bytes()), None),
        (
            big(k.exponent2.as_bytes()),
            Some(big(k.coefficient.as_bytes())),
        ),
    ];
    for o in k.other_prime_infos.iter().flatten() {
        primes.push(big(o.prime.as_bytes()));
        crt.push((
            big(o.exponent.as_bytes()),
            Some(big(o.coefficient.as_bytes())),
        ));
    }
    let what = format!("{bits}-bit key of {u} primes");
    assert_eq!(primes.len(), u, "{what}");
    assert_eq!(key.prime_count(), u, "{what}");

    // n: the product, exactly `bits` bits, beginning with 0x9 or more.
    assert_eq!(primes.iter().product::<BigUint>(), n, "{what}: product");
    assert_eq!(n.bits() as usize, bits, "{what}: length of n");
    assert!(
        &n >> (bits - 4) >= BigUint::from(9u32),
        "{what}: top nibble of n"
    );
    assert_eq!(key.bits(), bits);

    // The sizes of the split: bits = u q + m, m primes of q + 1 bits, the others q.
    let (quo, rmd) = (bits / u, bits % u);
    let mut sizes: Vec<usize> = primes.iter().map(|p| p.bits() as usize).collect();
    sizes.sort_unstable();
    let mut want: Vec<usize> = (0..u).map(|i| quo + usize::from(i < rmd)).collect();
    want.sort_unstable();
    assert_eq!(sizes, want, "{what}: prime sizes");
    assert!(primes[0] > primes[1], "{what}: p > q");

    // Each prime: prime, coprime to e after -1, far from every other one.
    let e_big = BigUint::from(e);
    for (i, r) in primes.iter().enumerate() {
        assert!(oracle_probable_prime(r), "{what}: prime {i}");
        assert!((r - 1u32).gcd(&e_big).is_one(), "{what}: gcd(e, r_{i} - 1)");
        for s in &primes[..i] {
            let gap = if r > s { r - s } else { s - r };
            assert!(gap > BigUint::one() << (quo - 100), "{what}: |r_{i} - r_j|");
        }
    }

    // d = e^-1 mod lambda(n), below n, above 2^(bits/2).
    let lambda = primes
        .iter()
        .fold(BigUint::one(), |acc, r| acc.lcm(&(r - 1u32)));
    assert!((&d * &e_big % &lambda).is_one(), "{what}: d e mod lambda");
    assert!(d < lambda, "{what}: d reduced mod lambda");
    assert!(d > BigUint::one() << (bits / 2), "{what}: d large");

    // The CRT numbers: d_i = d mod (r_i - 1); qinv = q^-1 mod p; past the second,
    // t_i = (r_1 ... r_(i-1))^-1 mod r_i.
    let mut prefix = &primes[0] * &primes[1];
    for (i, (r, (d_i, t_i))) in primes.iter().zip(&crt).enumerate() {
        assert_eq!(d_i, &(&d % (r - 1u32)), "{what}: d_{i}");
        match (i, t_i) {
            (0, _) => {}
            (1, Some(qinv)) => assert!((qinv * r % &primes[0]).is_one(), "{what}: qinv"),
            (_, Some(t_i)) => {
                assert!((t_i * &prefix % r).is_one(), "{what}: t_{i}");
                prefix *= r;
            }
            (_, None) => unreachable!(),
        }
    }

    // The private operation against c^d mod n, on 0, 1, n - 1 and random values.
    let size = key.size();
    let mut inputs = vec![BigUint::zero(), BigUint::one(), &n - 1u32];
    for _ in 0..2 {
        inputs.push(montmul_testkit::random_below(&mut OsRng, &n));
    }
    for c in inputs {
        let mut c_be = vec![0u8; size];
        let b = c.to_bytes_be();
        c_be[size - b.len()..].copy_from_slice(&b);
        let got = key.decrypt_raw(&c_be, &mut OsRng).expect("decrypts");
        assert_eq!(big(&got), c.modpow(&d, &n), "{what}: c^d, c = {c}");
    }
}

/// The PKCS #1 and PKCS #8 PEM forms, read back and written again byte for byte.
fn check_round_trip(key: &RsaPrivateKey) {
    let pkcs8 = key.to_pkcs8_pem().expect("writes");
    let pkcs1 = key.to_pkcs1_pem().expect("writes");
    for again in [
        RsaPrivateKey::from_pkcs8_pem(&pkcs8).expect("reads PKCS #8"),
        RsaPrivateKey::from_pkcs1_pem(&pkcs1).expect("reads PKCS #1"),
        RsaPrivateKey::from_any(pkcs8.as_bytes()).expect("reads"),
    ] {
        assert_eq!(again.prime_count(), key.prime_count());
        assert_eq!(again.public_key(), key.public_key());
        assert_eq!(*again.to_pkcs8_pem().expect("writes"), *pkcs8);
        assert_eq!(*again.to_pkcs1_pem().expect("writes"), *pkcs1);
    }
}

/// `openssl` with args; None (and a loud SKIPPED) when the command is absent.
fn openssl(args: &[&str]) -> Option<std::process::Output> {
    match Command::new("openssl").args(args).output() {
        Ok(out) => Some(out),
        Err(_) => {
            montmul_testkit::skipped!(
                "SKIPPED: multi-prime keygen interop: the `openssl` command is not installed"
            );
            None
        }
    }
}

fn ok(out: &std::process::Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// OpenSSL checks the key (PKCS #8 and PKCS #1 files), verifies montmul's PKCS #1 v1.5
/// and PSS signatures with it, and encrypts (PKCS #1 v1.5 and OAEP) what montmul
/// decrypts.
fn check_with_openssl(key: &RsaPrivateKey, what: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8").to_string();
    std::fs::write(path("k8.pem"), key.to_pkcs8_pem().expect("w").as_bytes()).expect("w");
    std::fs::write(path("k1.pem"), key.to_pkcs1_pem().expect("w").as_bytes()).expect("w");
    let Some(out) = openssl(&["pkey", "-check", "-noout", "-in", &path("k8.pem")]) else {
        return;
    };
    let said = ok(&out, &format!("{what}: pkey -check"));
    assert!(said.contains("Key is valid"), "{what}: pkey -check: {said}");
    let out = openssl(&["rsa", "-check", "-noout", "-in", &path("k1.pem")]).expect("ran");
    let said = ok(&out, &format!("{what}: rsa -check (PKCS #1)"));
    assert!(said.contains("RSA key ok"), "{what}: rsa -check: {said}");

    // montmul signs, `openssl pkeyutl -verify` verifies the SHA-256 digest.
    let msg = b"signed with a generated multi-prime key";
    std::fs::write(path("digest"), Sha256::digest(msg)).expect("w");
    let sigs = [
        ("pkcs1", key.sign_pkcs1v15::<Sha256>(msg, &mut OsRng)),
        ("pss", key.sign_pss::<Sha256>(msg, &mut OsRng)),
    ];
    for (mode, sig) in sigs {
        std::fs::write(path("sig"), sig.expect("signs")).expect("w");
        let out = openssl(&[
            "pkeyutl",
            "-verify",
            "-inkey",
            &path("k8.pem"),
            "-in",
            &path("digest"),
            "-sigfile",
            &path("sig"),
            "-pkeyopt",
            "digest:sha256",
            "-pkeyopt",
            &format!("rsa_padding_mode:{mode}"),
        ])
        .expect("ran");
        let said = ok(&out, &format!("{what}: pkeyutl -verify, {mode}"));
        assert!(said.contains("Signature Verified Successfully"), "{said}");
    }

    // `openssl pkeyutl -encrypt` (v1.5, and OAEP with its default SHA-1), montmul
    // decrypts.
    std::fs::write(path("msg"), msg).expect("w");
    for (mode, oaep) in [("pkcs1", false), ("oaep", true)] {
        let out = openssl(&[
            "pkeyutl",
            "-encrypt",
            "-inkey",
            &path("k8.pem"),
            "-pkeyopt",
            &format!("rsa_padding_mode:{mode}"),
            "-in",
            &path("msg"),
            "-out",
            &path("ct"),
        ])
        .expect("ran");
        ok(&out, &format!("{what}: pkeyutl -encrypt, {mode}"));
        let c = std::fs::read(path("ct")).expect("ciphertext");
        let got = if oaep {
            key.decrypt_oaep::<sha1::Sha1>(&mut OsRng, &c, b"")
        } else {
            key.decrypt_pkcs1v15(&mut OsRng, &c)
        };
        assert_eq!(&got.expect("decrypts")[..], msg, "{what}: {mode}");
    }
}

fn generate_and_check(bits: usize, u: usize) {
    let t = std::time::Instant::now();
    let key =
        RsaPrivateKey::generate_multi_prime(bits, u, &[1, 0, 1], &mut OsRng).expect("generates");
    let generated = t.elapsed();
    check_numbers(&key, bits, u, 65537);
    let oracle = t.elapsed() - generated;
    check_round_trip(&key);
    check_with_openssl(&key, &format!("{bits}-bit key of {u} primes"));
    println!(
        "{bits}-bit key of {u} primes: generated in {generated:?}, num-bigint checks \
         {oracle:?}, forms and openssl {:?}",
        t.elapsed() - generated - oracle
    );
}

#[test]
fn three_prime_2048_bit_key() {
    generate_and_check(2048, 3);
}

#[test]
fn four_prime_4096_bit_key() {
    generate_and_check(4096, 4);
}

#[test]
fn three_primes_with_an_odd_split_and_e_3() {
    // 2050 = 3 * 683 + 1: one prime a bit longer than the others.
    let key = RsaPrivateKey::generate_multi_prime(2050, 3, &[3], &mut OsRng).expect("generates");
    check_numbers(&key, 2050, 3, 3);
}

#[test]
fn prime_counts_outside_the_cap_are_refused() {
    for (bits, primes) in [
        (2048, 0),
        (2048, 1),
        (2048, 4),
        (3072, 4),
        (4096, 5),
        (8190, 5),
        (8192, 6),
        (8192, 17),
        (2048, 17),
    ] {
        let max = max_generated_primes(bits);
        match RsaPrivateKey::generate_multi_prime(bits, primes, &[1, 0, 1], &mut OsRng) {
            Err(e @ Error::PrimeCount { .. }) => {
                assert_eq!(e, Error::PrimeCount { primes, bits, max });
                let text = e.to_string();
                assert!(
                    text.contains(&format!("2..={max}")) && text.contains(&format!("{bits}-bit")),
                    "{text}"
                );
            }
            other => panic!("{bits} bits, {primes} primes: {other:?}"),
        }
    }
    assert_eq!(
        Error::PrimeCount {
            primes: 4,
            bits: 2048,
            max: 3
        }
        .to_string(),
        "prime count 4 is outside 2..=3 for 2048-bit keys"
    );
    // The size is checked first, then the count, then e.
    assert!(matches!(
        RsaPrivateKey::generate_multi_prime(GENERATE_MAX_BITS + 2, 3, &[1, 0, 1], &mut OsRng),
        Err(Error::KeySize { .. })
    ));
    assert!(matches!(
        RsaPrivateKey::generate_multi_prime(2049, 3, &[1, 0, 1], &mut OsRng),
        Err(Error::KeySize { .. })
    ));
    assert!(matches!(
        RsaPrivateKey::generate_multi_prime(2048, 3, &[4], &mut OsRng),
        Err(Error::InvalidKey(_))
    ));
    assert!(matches!(
        RsaPrivateKey::generate_multi_prime(2048, 4, &[4], &mut OsRng),
        Err(Error::PrimeCount { .. })
    ));
}

#[test]
fn five_prime_8192_bit_key() {
    generate_and_check(8192, 5);
}
