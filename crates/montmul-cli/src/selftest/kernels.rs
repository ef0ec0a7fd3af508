//! The one-product kernels on a case ([`super::case::Case`]): every kernel of a word
//! size, each under every policy it offers, checked against num-bigint.

use montmul::lab::{self, Kernel};
use montmul::{Error, FixedBase, Limb, Modulus, Reduction, Residue};
use montmul_testkit as kit;
use num_bigint::BigUint;

use super::case::{hex, named, Case, Checker, Tally};

/// The kernels of `L` that `algos` names (every one where it is empty) and that have
/// `L`'s words.
pub(super) fn selected<L: Limb>(
    algos: &[String],
) -> impl Iterator<Item = &'static dyn Kernel<L>> + '_ {
    lab::all::<L>().iter().copied().filter(move |k| {
        let info = k.info();
        info.words.contains(&L::BITS) && named(algos, info.name)
    })
}

/// Runs case `c` through every kernel of `L` (of those named in `algos`, where it is
/// not empty) under every policy it offers.
pub(super) fn run_word<L: Limb>(c: &Case, algos: &[String], t: &mut Tally) {
    for k in selected::<L>(algos) {
        for &r in k.info().reductions {
            run_variant(k, r, c, t);
        }
    }
}

/// Runs case `c` through kernel `k` with `L` words under `r`.
fn run_variant<L: Limb>(k: &'static dyn Kernel<L>, r: Reduction, c: &Case, t: &mut Tally) {
    let name = k.info().name;
    let n = &c.n;
    let given = kit::to_limbs::<L>(n, c.bits.div_ceil(L::BITS) as usize);
    let made = Modulus::with_kernel(&given, k, r);
    if let Err(e @ (Error::UnsupportedSize { .. } | Error::Unavailable { .. })) = &made {
        t.skips
            .push((name.to_string(), L::BITS, r.name(), e.to_string(), c.bits));
        return;
    }
    t.runs += 1;
    let mut ch = Checker {
        case: c,
        kernel: name,
        word: L::BITS,
        reduction: r,
        tally: t,
    };
    let zero = BigUint::ZERO;
    let m = match made {
        Ok(m) => m,
        Err(e) => {
            ch.check("Modulus::with_kernel", &zero, &zero, false, || {
                (e.to_string(), "Ok".into())
            });
            return;
        }
    };
    let s = m.limbs();
    let r_bits = L::BITS * s as u32;
    let bound = kit::from_limbs(m.bound());

    // The raw product and square: z < bound and z R = x y (mod n).
    let (x, y) = match r {
        Reduction::Full => (&c.a, &c.b),
        Reduction::Lazy => (&c.a2, &c.b2),
    };
    let (xl, yl) = (kit::to_limbs::<L>(x, s), kit::to_limbs::<L>(y, s));
    let mut out = vec![L::ZERO; s];
    for (op, y) in [("mont_mul", y), ("mont_sqr", x)] {
        if op == "mont_mul" {
            m.mont_mul(&xl, &yl, &mut out);
        } else {
            m.mont_sqr(&xl, &mut out);
        }
        let z = kit::from_limbs(&out);
        let ok = z < bound && (&z << r_bits) % n == x * y % n;
        ch.check(op, x, y, ok, || {
            let want = kit::mont_mul(x, y, n, r_bits);
            (
                format!("0x{z:x}"),
                format!("0x{want:x} (mod n, below 0x{bound:x})"),
            )
        });
    }

    // The residues: in through `Residue::new`, out through `to_limbs`.
    let (a, b) = (&c.a, &c.b);
    let (ra, rb) = match (
        Residue::new(&m, &kit::to_limbs::<L>(a, s)),
        Residue::new(&m, &kit::to_limbs::<L>(b, s)),
    ) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (Err(e), _) | (_, Err(e)) => {
            ch.check("Residue::new", a, b, false, || (e.to_string(), "Ok".into()));
            return;
        }
    };
    ch.same("Residue +", &(&ra + &rb), &((a + b) % n));
    ch.same("Residue -", &(&ra - &rb), &((a + n - b) % n));
    ch.same("Residue neg", &(-&ra), &((n - a) % n));
    ch.same("Residue *", &(&ra * &rb), &(a * b % n));
    ch.same("Residue square", &ra.square(), &(a * a % n));

    // Exponentiation: 0 (empty and a zero byte), short, and long where the size has one.
    for (e, want) in c.exps.iter().zip(&c.powers) {
        ch.same(&format!("pow e=0x{}", hex(e)), &ra.pow(e), want);
        ch.same(
            &format!("pow_vartime e=0x{}", hex(e)),
            &ra.pow_vartime(e),
            want,
        );
    }

    // On `auto` (FixedBase reaches the kernels through the same products as `pow`):
    // the same base's precomputed powers, made for exponents as long as the short one
    // (a longer one costs more products than the rest of the case), on the exponents 0
    // and the short one.
    if name == "auto" {
        let max_len = c.exps[2].len();
        let short = c
            .exps
            .iter()
            .zip(&c.powers)
            .filter(|(e, _)| e.len() <= max_len);
        let powers = FixedBase::new(&ra, max_len);
        for (e, want) in short {
            let op = format!("FixedBase::pow e=0x{}", hex(e));
            match powers.as_ref().map_err(Clone::clone).and_then(|p| p.pow(e)) {
                Ok(got) => ch.same(&op, &got, want),
                Err(err) => ch.check(&op, a, &zero, false, || (err.to_string(), "Ok".into())),
            }
        }
    }

    // Inverses, where they exist; else both must say so.
    for (op, got) in [("inv", ra.inv()), ("inv_vartime", ra.inv_vartime())] {
        match (got, &c.inverse) {
            (Ok(got), Some(want)) => ch.same(op, &got, want),
            (Err(Error::NotInvertible), None) => ch.check(op, a, &zero, true, Default::default),
            (got, want) => {
                let got = match got {
                    Ok(r) => format!("0x{:x}", kit::from_limbs(&r.to_limbs())),
                    Err(e) => e.to_string(),
                };
                let want = want
                    .as_ref()
                    .map_or("NotInvertible".into(), |w| format!("0x{w:x}"));
                ch.check(op, a, &zero, false, || (got, want));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use montmul::lab::KernelInfo;

    /// CIOS with the lowest bit of its output flipped: every product is wrong.
    struct Broken;
    impl Kernel<u16> for Broken {
        fn info(&self) -> &'static KernelInfo {
            lab::by_name::<u16>("cios").expect("cios").info()
        }
        fn mul_exact(&self, m: &Modulus<u16>, a: &[u16], b: &[u16], out: &mut [u16]) {
            lab::by_name::<u16>("cios")
                .expect("cios")
                .mul_exact(m, a, b, out);
            out[0] ^= 1;
        }
    }
    static BROKEN: Broken = Broken;

    #[test]
    fn a_wrong_kernel_gives_reproducers() {
        let case = Case::new(7, 100, 3);
        let mut t = Tally::default();
        run_variant::<u16>(&BROKEN, Reduction::Full, &case, &mut t);
        assert_eq!(t.runs, 1);
        assert!(t.checks > 10, "{}", t.checks);
        let first = t.mismatches.first().expect("a mismatch");
        assert!(
            first.starts_with(
                "mismatch: kernel=cios word=16 policy=full bits=100 case=3 op=mont_mul"
            ),
            "{first}"
        );
        assert!(first.contains(&format!("n=0x{:x}", case.n)), "{first}");
        // The same case through the real kernel agrees everywhere.
        let mut t = Tally::default();
        run_variant(
            lab::by_name::<u16>("cios").expect("cios"),
            Reduction::Full,
            &case,
            &mut t,
        );
        assert!(t.mismatches.is_empty(), "{:?}", t.mismatches);
        assert_eq!(t.checks, 2 + 5 + 2 * 4 + 2);
        // `auto` adds the fixed base's powers on the exponents 0 (two forms) and the
        // short one.
        let mut t = Tally::default();
        run_variant(
            lab::by_name::<u16>("auto").expect("auto"),
            Reduction::Full,
            &case,
            &mut t,
        );
        assert!(t.mismatches.is_empty(), "{:?}", t.mismatches);
        assert_eq!(t.checks, 2 + 5 + 2 * 4 + 3 + 2);
    }

    #[test]
    fn the_selection_runs_only_what_it_names() {
        let case = Case::new(3, 256, 5);
        let mut t = Tally::default();
        run_word::<u64>(&case, &["auto".to_string()], &mut t);
        let mut all = Tally::default();
        run_word::<u64>(&case, &[], &mut all);
        // `auto` offers both policies: two runs, of the 64-bit kernels' many.
        assert_eq!(t.runs, 2);
        assert!(all.runs > 10, "{}", all.runs);
        assert!(t.mismatches.is_empty() && all.mismatches.is_empty());
    }
}
