//! Signatures and ciphertexts on arbitrary bytes, under fixed test keys: RSA PKCS#1 v1.5
//! and PSS verification, PKCS#1 v1.5 and OAEP decryption, DSA signatures in DER and
//! P1363 form. Never a panic; and PKCS#1 v1.5 decryption, which rejects bad padding
//! implicitly, answers every ciphertext of the key's length below n with a message
//! (an error only for the wrong length or a value not below n).
#![no_main]

use libfuzzer_sys::fuzz_target;
use montmul_pk::dsa::{DsaPrivateKey, DsaSignature};
use montmul_pk::rsa::RsaPrivateKey;
use montmul_pk::Error;
use rand_core::OsRng;
use sha2::Sha256;
use std::sync::OnceLock;

fn rsa() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| {
        RsaPrivateKey::from_any(include_bytes!(
            "../../crates/montmul-pk/tests/data/rsa2048.pem"
        ))
        .expect("the committed test key")
    })
}

fn dsa() -> &'static DsaPrivateKey {
    static KEY: OnceLock<DsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| {
        DsaPrivateKey::from_pem_or_der(include_bytes!(
            "../../crates/montmul-pk/tests/data/dsa_2048_256.pem"
        ))
        .expect("the committed test key")
    })
}

fuzz_target!(|data: &[u8]| {
    let key = rsa();
    let public = key.public_key();
    let _ = public.verify_pkcs1v15::<Sha256>(b"message", data);
    let _ = public.verify_pss::<Sha256>(b"message", data);
    match key.decrypt_pkcs1v15(&mut OsRng, data) {
        Ok(msg) => assert!(msg.len() <= key.size() - 11),
        Err(Error::InvalidLength) => {
            let below_n = data.len() == key.size() && data < public.n();
            assert!(!below_n, "a ciphertext of length k below n was refused");
        }
        Err(e) => panic!("PKCS#1 v1.5 decryption failed with {e}"),
    }
    let _ = key.decrypt_oaep::<Sha256>(&mut OsRng, data, b"");
    let dsa = dsa().public_key();
    if let Ok(sig) = DsaSignature::from_der(data) {
        let _ = dsa.verify::<Sha256>(b"message", &sig);
    }
    if let Ok(sig) = DsaSignature::from_p1363(data, 32) {
        let _ = dsa.verify::<Sha256>(b"message", &sig);
    }
});
