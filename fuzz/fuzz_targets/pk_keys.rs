//! Every key and parameter parser of montmul-pk (RSA, DSA, DH: PEM or DER, each form
//! OpenSSL writes) on arbitrary bytes: a typed error or a key, never a panic. A private
//! RSA key that parses writes itself back as PKCS#8 and reads back to the same public
//! key, and its private operation inverts its public one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use montmul_pk::dh::{DhParams, DhPrivateKey, DhPublicKey};
use montmul_pk::dsa::{DsaParams, DsaPrivateKey, DsaPublicKey};
use montmul_pk::rsa::{RsaPrivateKey, RsaPublicKey};
use rand_core::OsRng;

fuzz_target!(|data: &[u8]| {
    if let Ok(key) = RsaPrivateKey::from_any(data) {
        let der = key
            .to_pkcs8_der()
            .expect("a key that was read can be written");
        let again = RsaPrivateKey::from_any(&der).expect("what was written reads back");
        assert_eq!(again.public_key().n(), key.public_key().n());
        assert_eq!(again.public_key().e(), key.public_key().e());
        let mut m = vec![0u8; key.size()];
        m[key.size() - 1] = 2;
        let c = key.public_key().encrypt_raw(&m).expect("2 is below n");
        let back = key.decrypt_raw(&c, &mut OsRng).expect("a consistent key");
        assert_eq!(&back[..], &m[..]);
    }
    let _ = RsaPublicKey::from_any(data);
    let _ = DsaParams::from_pem_or_der(data);
    let _ = DsaPrivateKey::from_pem_or_der(data);
    let _ = DsaPublicKey::from_pem_or_der(data);
    let _ = DhParams::from_pem_or_der(data);
    let _ = DhPrivateKey::from_pem_or_der(data);
    let _ = DhPublicKey::from_pem_or_der(data);
});
