//! `Residue::pow` (constant-time fixed window) and `pow_vartime` (sliding window) on
//! every kernel, word size and policy against num-bigint's `modpow`, with a base of any
//! length reduced by `Residue::from_be_bytes_reduced` (also checked) and an exponent of
//! any length, leading zero bytes included; and `inv` / `inv_vartime` of the base
//! against num-bigint's `modinv`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use montmul::{Limb, Residue};
use montmul_fuzz::{
    big, cap, cost, for_word, from_limbs, modulus_for, odd_modulus, pick_kernel, Cost, Input,
};

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let word = input.byte();
    for_word!(word, run(&mut input));
});

fn run<L: Limb>(input: &mut Input) {
    let Some((k, reduction)) = pick_kernel::<L>(input.byte(), input.byte()) else {
        return;
    };
    // Bytes of the modulus and of the exponent: each exponent bit costs about 1.25
    // products; the 64-bit kernels reach the IFMA digit ladder's sizes (from 8 limbs).
    let (max_n, max_e) = match cost(k) {
        Cost::BitSerial => (48, 16),
        Cost::Portable => (cap::<L>(128), 32),
        Cost::Fast => (cap::<L>(520), 64),
    };
    let n = odd_modulus(input.bytes(max_n));
    let Some(m) = modulus_for::<L>(&n, k, reduction) else {
        return;
    };
    let name = k.info().name;
    let base_bytes = input.bytes(2 * m.byte_len() + 16);
    let base = Residue::from_be_bytes_reduced(&m, base_bytes);
    let b = big(base_bytes) % &n;
    assert_eq!(from_limbs(&base.to_limbs()), b, "{name} reduced base");
    // The inverses (the same for every kernel: they work on the modulus' words).
    let want_inv = b.modinv(&n);
    for (op, got) in [("inv", base.inv()), ("inv_vartime", base.inv_vartime())] {
        match (&want_inv, got) {
            (Some(want), Ok(got)) => assert_eq!(&from_limbs(&got.to_limbs()), want, "{op}"),
            (None, Err(montmul::Error::NotInvertible)) => {}
            (want, got) => panic!("{op}: got {got:?}, want {want:?}"),
        }
    }
    let e_bytes = input.bytes(max_e);
    let want = b.modpow(&big(e_bytes), &n);
    let got = base.pow(e_bytes);
    assert_eq!(from_limbs(&got.to_limbs()), want, "{name} pow");
    assert_eq!(
        from_limbs(&base.pow_vartime(e_bytes).to_limbs()),
        want,
        "{name} pow_vartime"
    );
    // A leading zero byte changes the work of `pow`, never its value.
    let mut longer = vec![0u8];
    longer.extend_from_slice(e_bytes);
    assert!(
        base.pow(&longer) == got,
        "{name} pow with a leading zero byte"
    );
}
