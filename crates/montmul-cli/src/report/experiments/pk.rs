//! RSA and DSS built on the residues of one kernel's modulus: what seeds 001 and 004
//! time per Montgomery algorithm, when the library they compare (montmul-pk) always
//! uses montmul's default kernel.
//!
//! Seed 001 (`001_1b4cdf28a5f4f2c4.txt`) times RSA-2048 encryption and decryption with
//! classic 32-bit, classic 64-bit and 2-way SIMD Montgomery code; seed 004
//! (`004_2081c68bf825cc4c.txt`, Koc 1997) times RSA public/private and DSS sign/verify
//! with 1024-bit operands for each of SOS, CIOS, FIOS, FIPS and CIHS. Here each
//! operation is the textbook one on [`Residue`]s of a [`montmul::Modulus`] built with the chosen
//! `montmul::lab` kernel:
//!
//! - RSA public: `m^e mod n`, e = 65537, by [`Residue::pow_vartime`] (public data);
//! - RSA private: the two CRT half exponentiations `c_p^dp mod p` and `c_q^dq mod q` by
//!   the constant-time [`Residue::pow`]; the reductions `c mod p`, `c mod q` and Garner's
//!   recombination (one half-size product, well under 1% of the time) are done once
//!   outside the timing for every implementation alike, and checked;
//! - DSS sign (FIPS 186 with a 160-bit q, as in 1997, SHA-1 digest): `r = (g^k mod p)
//!   mod q` by [`Residue::pow`], `s = k^-1 (H + x r) mod q` in num-bigint;
//! - DSS verify: `w = s^-1`, `u1 = H w`, `u2 = r w mod q`, then `(g^u1 y^u2 mod p) mod
//!   q = r` with two [`Residue::pow_vartime`] and one product.
//!
//! The same RSA halves also run on GMP (`mpz_powm_sec`, `mpz_powm`) and OpenSSL's
//! `BN_mod_exp_mont_consttime` (the peers of `montmul-peers`), so that seed 001's
//! comparison with GMP and OpenSSL is made on the very same arithmetic: the system's
//! generic GMP 6.2 in this process, and GMP 6.3 built for this CPU in its own
//! (`montmul_peers::gmp63`), which checks its results itself and is timed after the
//! others, on the same halves. Every result is checked against num-bigint (`modpow`,
//! the signature equations) before anything is timed; a disagreement is an error, not
//! a row. Keys come from OpenSSL's generator.
//!
//! [`libraries`] gives the seeds' sections the whole library operations instead
//! (montmul-pk beside OpenSSL 3.0, ring, the `rsa` crate and OpenSSL 4.0), as
//! `montmul bench --pk --openssl4` measures them.

use std::collections::BTreeMap;

use montmul::{Limb, Residue};
use montmul_peers::gmp::{Exp, Gmp};
use montmul_peers::gmp63::{self, Gmp63Error, Job};
use montmul_peers::openssl::OpenSsl;
use montmul_peers::pk::PkOp;
use montmul_peers::{Contender, Inputs};
use montmul_testkit::rand_core::RngCore;
use montmul_testkit::TestRng;
use num_bigint::BigUint;
use sha1::{Digest, Sha1};

use crate::bench::{measure, Stat};
use crate::report::timing::{kernel_modulus, Budget, DEFAULT};
use crate::CliError;

/// One public-key operation, as the seeds name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    /// RSA encryption / the public operation, e = 65537.
    RsaPublic,
    /// RSA decryption / the private operation, by CRT.
    RsaPrivate,
    /// DSS signature.
    DssSign,
    /// DSS verification.
    DssVerify,
}

/// The arithmetic an operation runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// `montmul::lab` kernel `name` at `word`-bit limbs.
    Kernel {
        /// The kernel's name (`cios`, `two-way`, ...).
        name: &'static str,
        /// 8, 16, 32 or 64.
        word: u32,
    },
    /// montmul's default kernel for 64-bit limbs, as `Modulus::new` (and montmul-pk)
    /// picks it.
    Default,
    /// The system GMP 6.2's `mpz_powm_sec` ([`Exp::Sec`]) or `mpz_powm`
    /// ([`Exp::Plain`]); RSA only.
    Gmp(Exp),
    /// The same on GMP 6.3 built for this CPU (`peers/gmp63`, a subprocess); RSA only,
    /// and `None` where its binary is not built.
    Gmp63(Exp),
    /// OpenSSL's `BN_mod_exp_mont_consttime`; RSA only.
    OpenSsl,
}

impl Arith {
    /// The label in the tables.
    pub fn label(&self) -> String {
        match self {
            Arith::Kernel { name, word } => format!("montmul {name}, w={word}"),
            Arith::Default => "montmul default kernel, w=64".into(),
            Arith::Gmp(Exp::Sec) => "GMP 6.2 mpz_powm_sec".into(),
            Arith::Gmp(Exp::Plain) => "GMP 6.2 mpz_powm".into(),
            Arith::Gmp63(Exp::Sec) => "GMP 6.3 mpz_powm_sec".into(),
            Arith::Gmp63(Exp::Plain) => "GMP 6.3 mpz_powm".into(),
            Arith::OpenSsl => "OpenSSL BN_mod_exp_mont_consttime".into(),
        }
    }

    /// Whether this is a peer's exponentiation rather than a montmul kernel.
    pub fn is_peer(&self) -> bool {
        matches!(self, Arith::Gmp(_) | Arith::Gmp63(_) | Arith::OpenSsl)
    }
}

/// An RSA key from OpenSSL's generator, with a message and its ciphertext.
pub struct Rsa {
    n: BigUint,
    e: BigUint,
    p: BigUint,
    q: BigUint,
    dp: BigUint,
    dq: BigUint,
    msg: BigUint,
    ct: BigUint,
}

impl Rsa {
    /// A fresh `bits`-bit key (e = 65537) and a random message below n.
    pub fn generate(bits: u32, seed: u64) -> Result<Self, CliError> {
        let f = |v: &Vec<u8>| BigUint::from_bytes_be(v);
        let [n, e, d, p, q] = montmul_peers::pk::openssl::rsa_numbers(bits)?.map(|v| f(&v));
        let one = BigUint::from(1u32);
        let (dp, dq) = (&d % (&p - &one), &d % (&q - &one));
        let msg = random_below(&n, seed);
        let ct = msg.modpow(&e, &n);
        Ok(Rsa {
            n,
            e,
            p,
            q,
            dp,
            dq,
            msg,
            ct,
        })
    }

    /// Garner's recombination of the halves `mp = c^dp mod p`, `mq = c^dq mod q`.
    fn garner(&self, mp: &BigUint, mq: &BigUint) -> Result<BigUint, CliError> {
        let qinv = self
            .q
            .modinv(&self.p)
            .ok_or_else(|| CliError("RSA key: q has no inverse mod p".into()))?;
        let h = (qinv * ((mp + &self.p) - (mq % &self.p))) % &self.p;
        Ok(mq + h * &self.q)
    }
}

/// DSS parameters and key from OpenSSL's generator, a SHA-1 digest, a nonce and the
/// signature num-bigint computes from them.
pub struct Dss {
    p: BigUint,
    q: BigUint,
    g: BigUint,
    x: BigUint,
    y: BigUint,
    h: BigUint,
    k: BigUint,
    r: BigUint,
    s: BigUint,
}

impl Dss {
    /// Fresh parameters with a `bits`-bit p (OpenSSL's default q: 160 bits at 1024).
    pub fn generate(bits: u32, seed: u64) -> Result<Self, CliError> {
        let [p, q, g, x, y] =
            montmul_peers::pk::openssl::dsa_numbers(bits)?.map(|v| BigUint::from_bytes_be(&v));
        let digest = Sha1::digest(b"montmul report: seed 004's DSS");
        let mut h = BigUint::from_bytes_be(&digest);
        let (hb, qb) = (h.bits(), q.bits());
        if hb > qb {
            h >>= hb - qb;
        }
        let k = random_below(&q, seed) + 1u32;
        let r = g.modpow(&k, &p) % &q;
        let kinv = k
            .modinv(&q)
            .ok_or_else(|| CliError("DSS: the nonce has no inverse".into()))?;
        let s = kinv * (&h + &x * &r) % &q;
        Ok(Dss {
            p,
            q,
            g,
            x,
            y,
            h,
            k,
            r,
            s,
        })
    }

    /// The bits of q.
    pub fn q_bits(&self) -> u64 {
        self.q.bits()
    }

    /// The verification equation in num-bigint: the oracle.
    fn verify_oracle(&self, r: &BigUint, s: &BigUint) -> bool {
        let Some(w) = s.modinv(&self.q) else {
            return false;
        };
        let u1 = &self.h * &w % &self.q;
        let u2 = r * &w % &self.q;
        let v = self.g.modpow(&u1, &self.p) * self.y.modpow(&u2, &self.p) % &self.p % &self.q;
        &v == r
    }
}

/// A random number below `bound` (at least 1), reproducible from `seed`.
fn random_below(bound: &BigUint, seed: u64) -> BigUint {
    let mut rng = TestRng::new(seed);
    let mut bytes = vec![0u8; bound.to_bytes_be().len() + 8];
    rng.fill_bytes(&mut bytes);
    BigUint::from_bytes_be(&bytes) % bound
}

/// One operation's loop, ready to time.
type Runner = Box<dyn FnMut(u64)>;

/// Medians in ns of every `(arith, op)` pair, timed together (rounds interleaved), each
/// checked against num-bigint first. `None` where the arithmetic cannot run the
/// operation (a kernel without this word size, size or CPU feature; DSS on GMP or
/// OpenSSL, which the report times as whole library operations instead; GMP 6.3 where
/// its binary is not built: [`gmp63::info`] says why).
pub fn time(
    budget: Budget,
    ariths: &[Arith],
    ops: &[Op],
    rsa: &Rsa,
    dss: Option<&Dss>,
) -> Result<BTreeMap<(String, Op), Option<f64>>, CliError> {
    let mut out = BTreeMap::new();
    let mut keys = Vec::new();
    let mut runners: Vec<Runner> = Vec::new();
    let mut gmp63_keys = Vec::new();
    let mut gmp63_jobs = Vec::new();
    for a in ariths {
        for &op in ops {
            if let Arith::Gmp63(exp) = *a {
                match gmp63_jobs_for(exp, op, rsa) {
                    Some(jobs) => {
                        gmp63_keys.push(((a.label(), op), jobs.len()));
                        gmp63_jobs.extend(jobs);
                    }
                    None => {
                        out.insert((a.label(), op), None);
                    }
                }
                continue;
            }
            let runner = match (a, op, dss) {
                (_, Op::DssSign | Op::DssVerify, None) => None,
                (_, Op::RsaPublic | Op::RsaPrivate, _) => rsa_runner(*a, op, rsa)?,
                (_, _, Some(d)) => dss_runner(*a, op, rsa, d)?,
            };
            match runner {
                Some(r) => {
                    keys.push((a.label(), op));
                    runners.push(r);
                }
                None => {
                    out.insert((a.label(), op), None);
                }
            }
        }
    }
    let mut boxed: Vec<Box<dyn FnMut(u64) + '_>> = runners
        .into_iter()
        .map(|r| r as Box<dyn FnMut(u64)>)
        .collect();
    let medians = measure(&mut boxed, budget.rounds, budget.batch, Stat::Median);
    for (k, ns) in keys.into_iter().zip(medians) {
        out.insert(k, Some(ns));
    }
    if !gmp63_jobs.is_empty() {
        match gmp63::time(&gmp63_jobs, budget.rounds, budget.batch) {
            Ok(times) => {
                // An operation's time is the sum of its jobs' medians (the two CRT
                // halves of a decryption).
                let mut times = times.into_iter();
                for (k, count) in gmp63_keys {
                    out.insert(k, Some(times.by_ref().take(count).sum()));
                }
            }
            Err(Gmp63Error::Absent(_)) => {
                out.extend(gmp63_keys.into_iter().map(|(k, _)| (k, None)));
            }
            Err(e) => return Err(CliError(e.to_string())),
        }
    }
    Ok(out)
}

/// GMP 6.3's jobs for an RSA `op` with `mpz_powm_sec` or `mpz_powm`: `m^e mod n` for
/// the public one, the two CRT halves for the private one, each with the answer
/// num-bigint gives (the message, or its residue mod the prime), which the client
/// checks before it returns a time. `None` for DSS.
fn gmp63_jobs_for(exp: Exp, op: Op, rsa: &Rsa) -> Option<Vec<Job>> {
    let gop = match exp {
        Exp::Sec => gmp63::Op::PowmSec,
        Exp::Plain => gmp63::Op::Powm,
    };
    let be = |x: &BigUint| x.to_bytes_be();
    let job = |n: &BigUint, a: &BigUint, e: &BigUint, expected: &BigUint| Job {
        op: gop,
        inputs: Inputs {
            n: be(n),
            a: be(a),
            b: be(a),
            e: be(e),
        },
        expected: be(expected),
    };
    match op {
        Op::RsaPublic => Some(vec![job(&rsa.n, &rsa.msg, &rsa.e, &rsa.ct)]),
        Op::RsaPrivate => Some(vec![
            job(&rsa.p, &(&rsa.ct % &rsa.p), &rsa.dp, &(&rsa.msg % &rsa.p)),
            job(&rsa.q, &(&rsa.ct % &rsa.q), &rsa.dq, &(&rsa.msg % &rsa.q)),
        ]),
        Op::DssSign | Op::DssVerify => None,
    }
}

/// The runner of `op` on kernel `name` with `L` limbs, checked; `None` where the kernel
/// cannot run here.
fn kernel_runner<L: Limb>(
    name: &str,
    op: Op,
    rsa: &Rsa,
    dss: Option<&Dss>,
) -> Result<Option<Runner>, CliError> {
    let be = |x: &BigUint| x.to_bytes_be();
    let int = |r: &Residue<L>| BigUint::from_bytes_be(&r.to_be_bytes());
    let wrong = |what: &str| {
        CliError(format!(
            "montmul:{name} with {}-bit limbs disagrees with num-bigint on {what}",
            L::BITS
        ))
    };
    Ok(match (op, dss) {
        (Op::RsaPublic, _) => {
            let Some(m) = kernel_modulus::<L>(name, &be(&rsa.n))? else {
                return Ok(None);
            };
            let x = Residue::from_be_bytes(&m, &be(&rsa.msg))?;
            let e = be(&rsa.e);
            if int(&x.pow_vartime(&e)) != rsa.ct {
                return Err(wrong("an RSA encryption"));
            }
            Some(Box::new(move |iters| {
                for _ in 0..iters {
                    std::hint::black_box(x.pow_vartime(&e));
                }
            }))
        }
        (Op::RsaPrivate, _) => {
            let (Some(mp), Some(mq)) = (
                kernel_modulus::<L>(name, &be(&rsa.p))?,
                kernel_modulus::<L>(name, &be(&rsa.q))?,
            ) else {
                return Ok(None);
            };
            let cp = Residue::from_be_bytes(&mp, &be(&(&rsa.ct % &rsa.p)))?;
            let cq = Residue::from_be_bytes(&mq, &be(&(&rsa.ct % &rsa.q)))?;
            // The exponents padded to the primes' lengths, as a key stores them.
            let pad = |x: &BigUint, len: usize| {
                let b = be(x);
                let mut v = vec![0u8; len.saturating_sub(b.len())];
                v.extend(b);
                v
            };
            let dp = pad(&rsa.dp, be(&rsa.p).len());
            let dq = pad(&rsa.dq, be(&rsa.q).len());
            let m = rsa.garner(&int(&cp.pow(&dp)), &int(&cq.pow(&dq)))?;
            if m != rsa.msg {
                return Err(wrong("an RSA decryption (CRT)"));
            }
            Some(Box::new(move |iters| {
                for _ in 0..iters {
                    std::hint::black_box((cp.pow(&dp), cq.pow(&dq)));
                }
            }))
        }
        (Op::DssSign, Some(d)) => {
            let Some(m) = kernel_modulus::<L>(name, &be(&d.p))? else {
                return Ok(None);
            };
            let g = Residue::from_be_bytes(&m, &be(&d.g))?;
            let q_len = be(&d.q).len();
            let mut k = vec![0u8; q_len.saturating_sub(be(&d.k).len())];
            k.extend(be(&d.k));
            let (q, x, h, kk) = (d.q.clone(), d.x.clone(), d.h.clone(), d.k.clone());
            let sign = move || -> (BigUint, BigUint) {
                let r = int(&g.pow(&k)) % &q;
                let kinv = kk.modinv(&q).unwrap_or_default();
                let s = kinv * (&h + &x * &r) % &q;
                (r, s)
            };
            let (r, s) = sign();
            if (&r, &s) != (&d.r, &d.s) || !d.verify_oracle(&r, &s) {
                return Err(wrong("a DSS signature"));
            }
            Some(Box::new(move |iters| {
                for _ in 0..iters {
                    std::hint::black_box(sign());
                }
            }))
        }
        (Op::DssVerify, Some(d)) => {
            let Some(m) = kernel_modulus::<L>(name, &be(&d.p))? else {
                return Ok(None);
            };
            let g = Residue::from_be_bytes(&m, &be(&d.g))?;
            let y = Residue::from_be_bytes(&m, &be(&d.y))?;
            let (q, h) = (d.q.clone(), d.h.clone());
            let verify = move |r: &BigUint, s: &BigUint| -> Result<bool, montmul::Error> {
                let Some(w) = s.modinv(&q) else {
                    return Ok(false);
                };
                let u1 = (&h * &w % &q).to_bytes_be();
                let u2 = (r * &w % &q).to_bytes_be();
                let v = g.pow_vartime(&u1).try_mul(&y.pow_vartime(&u2))?;
                Ok(&(int(&v) % &q) == r)
            };
            let bad_r = (&d.r + 1u32) % &d.q;
            if !verify(&d.r, &d.s)? || verify(&bad_r, &d.s)? != d.verify_oracle(&bad_r, &d.s) {
                return Err(wrong("a DSS verification"));
            }
            let (r, s) = (d.r.clone(), d.s.clone());
            Some(Box::new(move |iters| {
                for _ in 0..iters {
                    std::hint::black_box(verify(&r, &s).ok());
                }
            }))
        }
        (Op::DssSign | Op::DssVerify, None) => None,
    })
}

/// The runner of `op` on `arith`, checked.
fn rsa_runner(arith: Arith, op: Op, rsa: &Rsa) -> Result<Option<Runner>, CliError> {
    match arith {
        Arith::Kernel { name, word } => by_word(name, word, op, rsa, None),
        Arith::Default => by_word(DEFAULT, 64, op, rsa, None),
        Arith::Gmp(exp) => peer_runner(arith, op, rsa, move |i| Box::new(Gmp::new(i, exp))),
        Arith::OpenSsl => peer_runner(arith, op, rsa, |i| Box::new(OpenSsl::new(i))),
        // Timed in its own process by `time`, never here.
        Arith::Gmp63(_) => Ok(None),
    }
}

/// The runner of a DSS `op` on `arith`, checked: montmul's kernels only.
fn dss_runner(arith: Arith, op: Op, rsa: &Rsa, dss: &Dss) -> Result<Option<Runner>, CliError> {
    match arith {
        Arith::Kernel { name, word } => by_word(name, word, op, rsa, Some(dss)),
        Arith::Default => by_word(DEFAULT, 64, op, rsa, Some(dss)),
        _ => Ok(None),
    }
}

/// [`kernel_runner`] at `word`-bit limbs ([`DEFAULT`]: the default kernel).
fn by_word(
    name: &str,
    word: u32,
    op: Op,
    rsa: &Rsa,
    dss: Option<&Dss>,
) -> Result<Option<Runner>, CliError> {
    match word {
        8 => kernel_runner::<u8>(name, op, rsa, dss),
        16 => kernel_runner::<u16>(name, op, rsa, dss),
        32 => kernel_runner::<u32>(name, op, rsa, dss),
        64 => kernel_runner::<u64>(name, op, rsa, dss),
        w => Err(CliError(format!("no {w}-bit limbs"))),
    }
}

/// An RSA operation on a peer's exponentiation (`a^e mod n` of [`Contender`]): the
/// public one on n, the private one as its two CRT halves.
fn peer_runner(
    arith: Arith,
    op: Op,
    rsa: &Rsa,
    make: impl Fn(&Inputs) -> Box<dyn Contender>,
) -> Result<Option<Runner>, CliError> {
    let be = |x: &BigUint| x.to_bytes_be();
    let inputs = |n: &BigUint, a: &BigUint, e: &BigUint| Inputs {
        n: be(n),
        a: be(a),
        b: be(a),
        e: be(e),
    };
    let wrong = |what: &str| {
        CliError(format!(
            "{} disagrees with num-bigint on {what}",
            arith.label()
        ))
    };
    let int = |v: Vec<u8>| BigUint::from_bytes_be(&v);
    match op {
        Op::RsaPublic => {
            let mut c = make(&inputs(&rsa.n, &rsa.msg, &rsa.e));
            if int(c.exp_result()) != rsa.ct {
                return Err(wrong("an RSA encryption"));
            }
            Ok(Some(Box::new(move |iters| c.run_exp(iters))))
        }
        Op::RsaPrivate => {
            let mut cp = make(&inputs(&rsa.p, &(&rsa.ct % &rsa.p), &rsa.dp));
            let mut cq = make(&inputs(&rsa.q, &(&rsa.ct % &rsa.q), &rsa.dq));
            if rsa.garner(&int(cp.exp_result()), &int(cq.exp_result()))? != rsa.msg {
                return Err(wrong("an RSA decryption (CRT)"));
            }
            Ok(Some(Box::new(move |iters| {
                for _ in 0..iters {
                    cp.run_exp(1);
                    cq.run_exp(1);
                }
            })))
        }
        Op::DssSign | Op::DssVerify => Ok(None),
    }
}

/// The library row of OpenSSL 4.0 in [`libraries`].
pub const OPENSSL4: &str = "openssl-4.0";

/// Whole library operations at one size, as [`libraries`] measures them.
pub struct Libraries {
    /// (library, median ns per operation in the order of the `ops` asked for), montmul-pk
    /// first, then the in-process peers (OpenSSL 3.0 as `openssl`, ring, the `rsa`
    /// crate), then [`OPENSSL4`] where Python's `cryptography` is installed.
    pub rows: Vec<(String, Vec<Option<f64>>)>,
    /// Sentences for [`crate::report::model::Section::not_built`]: an operation that
    /// could not be measured and, where python3 or `cryptography` is missing, that the
    /// OpenSSL 4.0 row is absent.
    pub notes: Vec<String>,
    /// Sentences for the section's findings: a peer that refused the key of an
    /// operation (ring takes no RSA key below 2048 bits), so its cell is empty.
    pub refused: Vec<String>,
}

/// `ops` (named as `montmul bench --pk --ops` names them) at `bits` bits as whole
/// library operations: [`crate::bench_pk::time_op`]'s measurement (montmul-pk beside
/// OpenSSL 3.0, ring and the `rsa` crate on one OpenSSL-generated key, every result
/// checked across the libraries first), and OpenSSL 4.0 on the same key through
/// `benches/openssl4.py` (checked there: its signature must verify). What could not be
/// measured is a note, never a number.
pub fn libraries(bits: u32, ops: &[(&'static str, PkOp)], budget: Budget) -> Libraries {
    let mut rows: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    let mut notes = Vec::new();
    let mut refused = Vec::new();
    let openssl4 = crate::bench_pk::openssl4_version();
    if let Err(why) = &openssl4 {
        notes.push(format!("The {OPENSSL4} row is absent. {why}"));
    }
    let mut put = |who: &str, i: usize, ns: f64| {
        let row = match rows.iter().position(|(n, _)| n == who) {
            Some(r) => r,
            None => {
                rows.push((who.to_string(), vec![None; ops.len()]));
                rows.len() - 1
            }
        };
        rows[row].1[i] = Some(ns);
    };
    for (i, &(name, op)) in ops.iter().enumerate() {
        match crate::bench_pk::time_op(
            op,
            name,
            bits,
            budget.rounds,
            budget.batch,
            Stat::Median,
            false,
        ) {
            Ok(timed) => {
                refused.extend(timed.left_out.iter().map(|w| {
                    let (who, why) = w.split_once(": ").unwrap_or((w, "refused"));
                    format!("{who} has no {bits}-bit {name} time: it refused the key ({why}).")
                }));
                for (who, ns) in &timed.times {
                    put(if who == "montmul" { "montmul-pk" } else { who }, i, *ns);
                }
                if openssl4.is_ok() {
                    match timed.openssl4(name, budget.rounds, Stat::Median) {
                        Ok(ns) => put(OPENSSL4, i, ns),
                        Err(e) => notes.push(format!(
                            "{bits}-bit {name} of {OPENSSL4} could not be measured here: {}",
                            e.0
                        )),
                    }
                }
            }
            Err(e) => notes.push(format!(
                "{bits}-bit {name} of the libraries could not be measured here: {}",
                e.0
            )),
        }
    }
    Libraries {
        rows,
        notes,
        refused,
    }
}
