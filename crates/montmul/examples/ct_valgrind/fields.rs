//! The small-field cases: `FieldModulus<N>`'s operations on secret elements.

use crate::api;
use crate::memcheck::{public, public_bytes, secret, secret_bytes};
use crate::run::Run;
use crate::values::{be_padded, edges, random_bytes};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{from_limbs, random_modulus, to_limbs};

/// The small fields' operations on secret elements, for `N` limbs: a modulus with the
/// top bit set and one with it clear, by `auto` (`mulx-cios` with ADX at 4 to 8 limbs)
/// or with the portable kernel forced.
fn field_case<const N: usize>(run: &mut Run, portable: bool) -> String {
    let mut kernels = Vec::new();
    for bits in [64 * N as u32, 64 * N as u32 - 5] {
        let n = random_modulus(&mut run.rng, bits);
        let nl: [u64; N] = to_limbs::<u64>(&n, N).try_into().expect("N limbs");
        let (p, name) = api::field(&nl, portable).expect("odd n");
        if !portable && api::field_mulx(N) {
            assert_eq!(
                name, "mulx-cios",
                "the small field's auto at {N} limbs with ADX"
            );
        }
        if portable {
            assert_eq!(name, "cios-fixed");
        }
        kernels.push(name);
        let len = bits.div_ceil(8) as usize;
        let ys = edges(&mut run.rng, &n);
        for (i, (x, y)) in edges(&mut run.rng, &n)
            .iter()
            .zip(ys.iter().rev())
            .enumerate()
        {
            let y = if i == 1 { x } else { y };
            let xl: [u64; N] = to_limbs::<u64>(x, N).try_into().expect("N limbs");
            let yl: [u64; N] = to_limbs::<u64>(y, N).try_into().expect("N limbs");
            let e = random_bytes(&mut run.rng, 5);
            let choice_cell = [i % 2 == 0];
            let x_bytes = be_padded(x, len + 1);
            let x_hex: String = be_padded(x, len)
                .iter()
                .map(|b| format!("{b:02X}"))
                .collect();
            for v in [&xl, &yl] {
                secret(v);
            }
            secret(&e);
            secret(&choice_cell);
            secret(&x_bytes);
            // The hex digits are secret, the `0x` prefix is the text's format.
            let x_hex = format!("0x{x_hex}");
            secret_bytes(x_hex.as_ptr().wrapping_add(2), x_hex.len() - 2);
            let choice = core::hint::black_box(&choice_cell)[0];
            let got = api::field_ops(
                &p,
                &xl,
                &yl,
                &e,
                choice,
                &x_bytes,
                &x_hex,
                secret_bytes,
                public_bytes,
            );
            public(&e);
            public(&choice_cell);
            let choice = core::hint::black_box(&choice_cell)[0];
            let ee = BigUint::from_bytes_be(&e);
            let want = [
                x * y % &n,
                x * x % &n,
                (x + y) % &n,
                (x + &n - y) % &n,
                (&n - x) % &n,
                x.modpow(&ee, &n),
                if choice { y.clone() } else { x.clone() },
                x.clone(),
                x.clone(),
                x.clone(),
            ];
            for (k, (g, w)) in got.values.iter().zip(&want).enumerate() {
                assert_eq!(&from_limbs(g), w, "field operation {k}");
            }
            assert_eq!(
                got.flags,
                [x == y, *x == BigUint::default()],
                "ct_eq, is_zero"
            );
            assert_eq!(got.bytes[0], be_padded(x, len), "to_be_bytes");
            let want_hex: String = be_padded(x, len)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(got.bytes[1], want_hex.into_bytes(), "to_hex");
        }
    }
    format!(
        "-> {}: mul square add sub neg pow ct_eq is_zero select from/to limbs bytes hex",
        kernels.join(", ")
    )
}

/// [`field_case`] for N = 1, 4 (by `auto` and with `cios-fixed` forced), 6 and 9.
pub fn fields(run: &mut Run) {
    run.case("field N=1 auto", |run| field_case::<1>(run, false));
    run.case("field N=4 auto", |run| field_case::<4>(run, false));
    run.case("field N=4 cios-fixed", |run| field_case::<4>(run, true));
    run.case("field N=6 auto", |run| field_case::<6>(run, false));
    run.case("field N=9 auto", |run| field_case::<9>(run, false));
}
