//! The public-key peers agree with each other on keys OpenSSL generates: the three RSA
//! signers give the same PKCS#1 v1.5 signature bytes, the verifiers accept it and
//! refuse a corrupted one, OpenSSL's DSA signature verifies, and both sides of a DH
//! exchange derive the same secret.

use montmul_peers::pk::{self, PkInputs, PkOp};
use openssl::dh::Dh;
use openssl::dsa::Dsa;
use openssl::pkey::PKey;
use openssl::rsa::Rsa;

fn outputs(op: PkOp, inputs: &PkInputs) -> Vec<(&'static str, Vec<u8>)> {
    let (peers, left_out) = pk::all(op, inputs);
    assert!(left_out.is_empty(), "peers left out: {left_out:?}");
    peers
        .into_iter()
        .map(|mut p| {
            let out = p.output().unwrap_or_else(|e| panic!("{}: {e}", p.name()));
            (p.name(), out)
        })
        .collect()
}

#[test]
fn rsa_signers_agree_and_verifiers_check() {
    let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
    let mut inputs = PkInputs {
        private_pkcs8: key.private_key_to_pkcs8().unwrap(),
        public_spki: key.public_key_to_der().unwrap(),
        message: b"montmul peers".to_vec(),
        signature: Vec::new(),
    };
    let sigs = outputs(PkOp::RsaSign, &inputs);
    assert_eq!(sigs.len(), 3);
    assert_eq!(sigs[0].1.len(), 256);
    for (name, sig) in &sigs {
        assert_eq!(sig, &sigs[0].1, "{name} disagrees with {}", sigs[0].0);
    }
    inputs.signature = sigs[0].1.clone();
    for (name, ok) in outputs(PkOp::RsaVerify, &inputs) {
        assert_eq!(ok, [1], "{name} refuses a good signature");
    }
    inputs.signature[100] ^= 1;
    for (name, ok) in outputs(PkOp::RsaVerify, &inputs) {
        assert_eq!(ok, [0], "{name} accepts a corrupted signature");
    }
}

#[test]
fn openssl_dsa_signs_what_it_verifies() {
    let key = PKey::from_dsa(Dsa::generate(2048).unwrap()).unwrap();
    let mut inputs = PkInputs {
        private_pkcs8: key.private_key_to_pkcs8().unwrap(),
        public_spki: key.public_key_to_der().unwrap(),
        message: b"montmul peers".to_vec(),
        signature: Vec::new(),
    };
    let sigs = outputs(PkOp::DsaSign, &inputs);
    assert_eq!(sigs.len(), 1, "only OpenSSL implements DSA among the peers");
    inputs.signature = sigs[0].1.clone();
    assert_eq!(outputs(PkOp::DsaVerify, &inputs)[0].1, [1]);
    inputs.message[0] ^= 1;
    assert_eq!(outputs(PkOp::DsaVerify, &inputs)[0].1, [0]);
}

#[test]
fn openssl_dh_sides_derive_one_secret() {
    let gen = || {
        let params = Dh::get_2048_256().unwrap();
        PKey::from_dh(params.generate_key().unwrap()).unwrap()
    };
    let (a, b) = (gen(), gen());
    let side = |own: &PKey<openssl::pkey::Private>, peer: &PKey<openssl::pkey::Private>| {
        let inputs = PkInputs {
            private_pkcs8: own.private_key_to_pkcs8().unwrap(),
            public_spki: peer.public_key_to_der().unwrap(),
            message: Vec::new(),
            signature: Vec::new(),
        };
        outputs(PkOp::DhDerive, &inputs)[0].1.clone()
    };
    let (ab, ba) = (side(&a, &b), side(&b, &a));
    assert!(ab.len() >= 200, "a 2048-bit secret, got {} bytes", ab.len());
    assert_eq!(ab, ba);
}
