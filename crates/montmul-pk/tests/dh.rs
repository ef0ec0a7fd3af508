//! Diffie-Hellman against independent oracles: num-bigint for the arithmetic, a
//! test-only Miller-Rabin on num-bigint for the primality of the named groups, and the
//! `openssl` command for parameters, keys and derived secrets both ways.

use std::path::Path;
use std::process::Command;

use montmul_pk::dh::{DhGroup, DhParams, DhPrivateKey, DhPublicKey};
use montmul_pk::Error;
use num_bigint::BigUint;
use num_traits::One;
use rand_core::OsRng;

fn data(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn big(bytes: &[u8]) -> BigUint {
    BigUint::from_bytes_be(bytes)
}

/// Whether the `openssl` command runs here; a loud skip line when not.
fn have_openssl(test: &str) -> bool {
    let ok = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        montmul_testkit::skipped!("SKIPPED: {test}: no openssl command");
    }
    ok
}

/// Runs openssl with `args`, returns stdout; panics with stderr on failure.
fn openssl(args: &[&str]) -> Vec<u8> {
    let out = Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl runs");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Miller-Rabin on num-bigint with fixed bases: the test's own primality oracle.
fn probably_prime(n: &BigUint, bases: &[u32]) -> bool {
    let one = BigUint::one();
    let n1 = n - &one;
    let s = n1.trailing_zeros().expect("n > 1");
    let d = &n1 >> s;
    'bases: for &a in bases {
        let mut x = BigUint::from(a).modpow(&d, n);
        if x == one || x == n1 {
            continue;
        }
        for _ in 1..s {
            x = x.modpow(&BigUint::from(2u32), n);
            if x == n1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

#[test]
fn named_groups_are_safe_primes() {
    for group in DhGroup::ALL {
        let params = DhParams::group(group);
        let p = big(params.p());
        let q = big(params.q().expect("named groups know q"));
        assert_eq!(p.bits() as usize, group.bits(), "{group}");
        assert_eq!(params.bits(), group.bits());
        assert_eq!(&q * 2u32 + 1u32, p, "{group}: q = (p - 1) / 2");
        assert!(probably_prime(&p, &[2, 3]), "{group}: p prime");
        assert!(probably_prime(&q, &[2, 3]), "{group}: q prime");
        // 2 generates the subgroup of order q (p = 7 mod 8, so 2 is a square).
        assert!(
            BigUint::from(2u32).modpow(&q, &p).is_one(),
            "{group}: g^q = 1"
        );
        assert_eq!(DhGroup::from_name(group.name()), Some(group));
    }
    assert_eq!(DhGroup::from_name("modp_2048"), Some(DhGroup::Modp2048));
    assert_eq!(DhGroup::from_name("ffdhe1024"), None);
}

#[test]
fn named_groups_match_openssl() {
    if !have_openssl("named_groups_match_openssl") {
        return;
    }
    for group in DhGroup::ALL {
        let name = group.name().replace("modp", "modp_");
        let pem = openssl(&[
            "genpkey",
            "-genparam",
            "-algorithm",
            "DH",
            "-pkeyopt",
            &format!("group:{name}"),
        ]);
        let params =
            DhParams::from_pem(std::str::from_utf8(&pem).unwrap()).expect("OpenSSL's parameters");
        assert_eq!(params.named_group(), Some(group), "{group}");
        assert_eq!(params.p(), DhGroup::prime(group).as_slice());
        // Written back as OpenSSL writes them.
        assert_eq!(
            params.to_pem().unwrap().as_bytes(),
            pem.as_slice(),
            "{group}"
        );
    }
}

#[test]
fn keys_and_secrets_match_num_bigint() {
    for group in [DhGroup::Ffdhe2048, DhGroup::Modp1536, DhGroup::Ffdhe3072] {
        let params = DhParams::group(group);
        let p = big(params.p());
        // The first key by the ladder, the second and third by g's precomputed powers
        // (made with the second).
        let a = DhPrivateKey::generate(&params, &mut OsRng).unwrap();
        let b = DhPrivateKey::generate(&params, &mut OsRng).unwrap();
        let c = DhPrivateKey::generate(&params.clone(), &mut OsRng).unwrap();
        for k in [&a, &b, &c] {
            let x = big(k.x());
            assert!(
                x >= BigUint::one() && x.bits() as usize <= group.private_bits(),
                "{group}: x range"
            );
            assert_eq!(big(k.public_key().y()), BigUint::from(2u32).modpow(&x, &p));
        }
        let sa = a.derive(&b.public_key()).unwrap();
        let sb = b.derive(&a.public_key()).unwrap();
        assert_eq!(sa, sb, "{group}: both sides agree");
        assert_eq!(sa.len(), params.size());
        let expect = big(b.public_key().y()).modpow(&big(a.x()), &p);
        assert_eq!(big(&sa), expect);
    }
}

#[test]
fn edge_exponents_and_params_without_q() {
    let params = DhParams::from_pem(&data("dh_pkcs3_1024.params.pem")).unwrap();
    assert_eq!(params.q(), None);
    assert_eq!(params.named_group(), None);
    let p = big(params.p());
    let g = big(params.g());
    let pm2 = (&p - 2u32).to_bytes_be();
    for x in [vec![1u8], vec![2], pm2.clone(), vec![0xff; 8]] {
        let k = DhPrivateKey::from_components(params.clone(), &x).unwrap();
        assert_eq!(big(k.public_key().y()), g.modpow(&big(&x), &p));
    }
    // A fresh key has bits(p) - 1 bits at most.
    let k = DhPrivateKey::generate(&params, &mut OsRng).unwrap();
    assert!(big(k.x()).bits() < p.bits());
    for bad in [
        vec![0u8],
        vec![],
        (&p - 1u32).to_bytes_be(),
        p.to_bytes_be(),
    ] {
        assert!(matches!(
            DhPrivateKey::from_components(params.clone(), &bad),
            Err(Error::InvalidKey(_))
        ));
    }
}

#[test]
fn out_of_range_peers_are_rejected() {
    for params in [
        DhParams::group(DhGroup::Ffdhe2048),
        DhParams::from_pem(&data("dh_pkcs3_1024.params.pem")).unwrap(),
        DhParams::from_pem(&data("dh_x942_1024.params.pem")).unwrap(),
    ] {
        let p = big(params.p());
        let mut bad = vec![
            BigUint::from(0u32),
            BigUint::one(),
            &p - 1u32, // of order 2
            p.clone(),
            &p + 1u32,
            BigUint::one() << (params.bits() + 8),
        ];
        if params.q().is_some() {
            // Outside the subgroup of order q: -2 for a safe prime (-1 is not a square,
            // 2 is), a random square-free value for the X9.42 group.
            bad.push(&p - 2u32);
        }
        for y in bad {
            assert_eq!(
                DhPublicKey::new(params.clone(), &y.to_bytes_be()),
                Err(Error::OutOfRange),
                "{params:?} y = {y:x}"
            );
        }
        assert!(DhPublicKey::new(params.clone(), &[2]).is_ok() || params.q().is_some());
        assert!(
            DhPublicKey::new(params.clone(), &(&p - 2u32).to_bytes_be()).is_ok()
                || params.q().is_some()
        );
    }
}

#[test]
fn named_groups_subgroup_check_against_num_bigint() {
    // In every named group, y = r^2 mod p (in the subgroup of order q) and y = -r^2
    // (outside: -1 is not a square, as p = 3 mod 4) for random r: DhPublicKey::new
    // accepts exactly those with y^q = 1 mod p by num-bigint's modpow.
    let (mut accepted, mut refused, mut pairs) = (0, 0, 0);
    for group in DhGroup::ALL {
        let params = DhParams::group(group);
        let (p, q) = (big(params.p()), big(params.q().expect("q")));
        let rounds = if params.bits() > 4096 { 1 } else { 3 };
        for _ in 0..rounds {
            pairs += 1;
            let mut r = vec![0u8; params.size()];
            rand_core::RngCore::fill_bytes(&mut OsRng, &mut r);
            let square = big(&r).modpow(&BigUint::from(2u32), &p);
            for y in [square.clone(), &p - &square] {
                let want = y.modpow(&q, &p).is_one();
                match DhPublicKey::new(params.clone(), &y.to_bytes_be()) {
                    Ok(_) if want => accepted += 1,
                    Err(Error::OutOfRange) if !want => refused += 1,
                    other => panic!("{group:?}, y = {y:x}: {other:?}, y^q = 1: {want}"),
                }
            }
        }
    }
    assert_eq!(
        (accepted, refused),
        (pairs, pairs),
        "every square in, every -square out"
    );
}

#[test]
fn parameters_differ_refused() {
    let a = DhPrivateKey::generate(&DhParams::group(DhGroup::Ffdhe2048), &mut OsRng).unwrap();
    let b = DhPrivateKey::generate(&DhParams::group(DhGroup::Modp2048), &mut OsRng).unwrap();
    assert!(matches!(
        a.derive(&b.public_key()),
        Err(Error::InvalidKey(_))
    ));
}

#[test]
fn keys_round_trip_pem_and_der() {
    for name in [
        "dh_ffdhe2048_a.pem",
        "dh_x942_1024_a.pem",
        "dh_pkcs3_1024_a.pem",
    ] {
        let pem = data(name);
        let key = DhPrivateKey::from_pkcs8_pem(&pem).unwrap();
        // OpenSSL writes a minimal x; ours is padded to the group's length, so compare
        // the values and the re-read key.
        let again = DhPrivateKey::from_pkcs8_pem(&key.to_pkcs8_pem().unwrap()).unwrap();
        assert_eq!(big(again.x()), big(key.x()), "{name}");
        assert_eq!(
            key.to_pkcs8_pem().unwrap().as_str(),
            pem,
            "{name}: as OpenSSL writes it"
        );
        let der = key.to_pkcs8_der().unwrap();
        assert_eq!(
            big(DhPrivateKey::from_pkcs8_der(&der).unwrap().x()),
            big(key.x())
        );
        let public = key.public_key();
        let back = DhPublicKey::from_public_key_pem(&public.to_public_key_pem().unwrap()).unwrap();
        assert_eq!(back, public);
        assert_eq!(
            DhPublicKey::from_public_key_der(&public.to_public_key_der().unwrap()).unwrap(),
            public
        );
    }
    let x942 = DhParams::from_pem(&data("dh_x942_1024.params.pem")).unwrap();
    assert!(x942.q().is_some());
    // OpenSSL's file also holds the seed and counter of its generation, which are not
    // kept: the numbers are.
    assert_eq!(DhParams::from_pem(&x942.to_pem().unwrap()).unwrap(), x942);
    assert_eq!(DhParams::from_der(&x942.to_der().unwrap()).unwrap(), x942);
    let pkcs3 = DhParams::from_pem(&data("dh_pkcs3_1024.params.pem")).unwrap();
    assert_eq!(pkcs3.to_pem().unwrap(), data("dh_pkcs3_1024.params.pem"));
    assert_eq!(DhParams::from_der(&pkcs3.to_der().unwrap()).unwrap(), pkcs3);
}

#[test]
fn bad_encodings_are_typed_errors() {
    let pem = data("dh_ffdhe2048_a.pem");
    let public = data("dh_ffdhe2048_b.pub.pem");
    let cut = &pem[..pem.len() / 2];
    for bad in [
        cut,
        "",
        "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n",
        public.as_str(),
    ] {
        assert!(
            matches!(DhPrivateKey::from_pkcs8_pem(bad), Err(Error::Encoding(_))),
            "{bad}"
        );
    }
    assert!(matches!(
        DhPublicKey::from_public_key_pem(&pem),
        Err(Error::Encoding(_))
    ));
    assert!(matches!(
        DhParams::from_pem(&public),
        Err(Error::Encoding(_))
    ));
    assert!(DhPrivateKey::from_pkcs8_der(&[0x30, 0x03, 0x02, 0x01]).is_err());
    assert!(DhParams::from_der(&[]).is_err());
    // Another algorithm's key: the DSA test key.
    let dsa = data("dsa_2048_256.pem");
    assert!(matches!(
        DhPrivateKey::from_pkcs8_pem(&dsa),
        Err(Error::Encoding(_))
    ));
    // Parameters out of range: a 256-bit prime, an even "prime", g = 1.
    let small = [0xffu8; 32];
    assert!(matches!(
        DhParams::new(&small, &[2], None),
        Err(Error::KeySize { .. })
    ));
    let mut even = DhGroup::Ffdhe2048.prime();
    *even.last_mut().unwrap() = 0xfe;
    assert!(matches!(
        DhParams::new(&even, &[2], None),
        Err(Error::InvalidKey(_))
    ));
    assert!(matches!(
        DhParams::new(&DhGroup::Ffdhe2048.prime(), &[1], None),
        Err(Error::InvalidKey(_))
    ));
}

#[test]
fn secrets_match_openssl_pkeyutl() {
    if !have_openssl("secrets_match_openssl_pkeyutl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let cases = [
        ("dh_ffdhe2048_a.pem", "dh_ffdhe2048_b.pub.pem"),
        ("dh_ffdhe2048_short.pem", "dh_ffdhe2048_b.pub.pem"),
        ("dh_x942_1024_a.pem", "dh_x942_1024_b.pub.pem"),
        ("dh_pkcs3_1024_a.pem", "dh_pkcs3_1024_b.pub.pem"),
    ];
    for (key, peer) in cases {
        let ours = DhPrivateKey::from_pkcs8_pem(&data(key)).unwrap();
        let theirs = DhPublicKey::from_public_key_pem(&data(peer)).unwrap();
        let secret = ours.derive(&theirs).unwrap();
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let (k, pk) = (base.join(key), base.join(peer));
        let (k, pk) = (k.to_str().unwrap(), pk.to_str().unwrap());
        if !key.contains("x942") {
            // (OpenSSL refuses the option for X9.42 keys.)
            let padded = openssl(&[
                "pkeyutl", "-derive", "-inkey", k, "-peerkey", pk, "-pkeyopt", "dh_pad:1",
            ]);
            assert_eq!(secret.as_slice(), padded.as_slice(), "{key}");
        }
        // OpenSSL 3.0's default drops the leading zero bytes.
        let plain = openssl(&["pkeyutl", "-derive", "-inkey", k, "-peerkey", pk]);
        let zeros = secret.iter().take_while(|&&b| b == 0).count();
        assert_eq!(&secret[zeros..], plain.as_slice(), "{key}");
        if key.contains("short") {
            assert_eq!(
                zeros, 1,
                "the committed key gives a secret with a leading zero"
            );
        }
    }
    // Keys generated here, read by OpenSSL, derive the same secret as OpenSSL.
    for group in [DhGroup::Ffdhe2048, DhGroup::Modp2048] {
        let params = DhParams::group(group);
        let ours = DhPrivateKey::generate(&params, &mut OsRng).unwrap();
        let theirs = DhPrivateKey::from_pkcs8_pem(&data("dh_ffdhe2048_a.pem")).unwrap();
        std::fs::write(path("ours.pem"), ours.to_pkcs8_pem().unwrap().as_bytes()).unwrap();
        std::fs::write(
            path("ours.pub.pem"),
            ours.public_key().to_public_key_pem().unwrap(),
        )
        .unwrap();
        let peer_pem = if group == DhGroup::Ffdhe2048 {
            theirs.public_key().to_public_key_pem().unwrap()
        } else {
            let other = DhPrivateKey::generate(&params, &mut OsRng).unwrap();
            std::fs::write(path("other.pem"), other.to_pkcs8_pem().unwrap().as_bytes()).unwrap();
            other.public_key().to_public_key_pem().unwrap()
        };
        std::fs::write(path("peer.pub.pem"), &peer_pem).unwrap();
        let peer = DhPublicKey::from_public_key_pem(&peer_pem).unwrap();
        let secret = ours.derive(&peer).unwrap();
        let theirs_says = openssl(&[
            "pkeyutl",
            "-derive",
            "-inkey",
            &path("ours.pem"),
            "-peerkey",
            &path("peer.pub.pem"),
            "-pkeyopt",
            "dh_pad:1",
        ]);
        assert_eq!(secret.as_slice(), theirs_says.as_slice(), "{group}");
        // OpenSSL reads our public key the same way.
        let text = openssl(&["pkey", "-pubin", "-in", &path("ours.pub.pem"), "-pubout"]);
        assert_eq!(
            text,
            ours.public_key().to_public_key_pem().unwrap().into_bytes()
        );
    }
}
