//! `montmul bench --pk`: the public-key operations of montmul-pk beside OpenSSL 3.0
//! (the `openssl` crate), ring and the `rsa` crate, on the same keys, in the same
//! process, interleaved round by round (the machinery of [`crate::bench`]); with
//! `--openssl4`, also OpenSSL 4.0 as Python's `cryptography` bundles it, timed by
//! `benches/openssl4.py` in a subprocess on the same keys.
//!
//! Every key is generated once per size by OpenSSL (RSA, DSA) or by montmul (DH over
//! the RFC 7919 groups) and read by every library from the same DER. Before any timing,
//! the results are checked: every RSA signer gives montmul's PKCS#1 v1.5 signature
//! bytes, every verifier accepts the signature, montmul's DSA signature verifies in
//! OpenSSL and OpenSSL's in montmul, and OpenSSL derives montmul's DH secret. A
//! disagreement is an error, not a row.
//!
//! With `--threads 2`, RSA signing is also timed with the private operation's two CRT
//! halves on two cores ([`CrtHalves::TwoThreads`]), as the row `montmul-2threads`
//! beside the one-core `montmul` (halves in lockstep where the CPU allows).

use std::cell::RefCell;
use std::io::Write;
use std::process::Command;
use std::time::Duration;

use montmul_peers::pk::{self, PkContender, PkInputs, PkOp};
use montmul_pk::dh::{DhGroup, DhParams, DhPrivateKey, DhPublicKey};
use montmul_pk::dsa::{DsaPrivateKey, DsaPublicKey, DsaSignature};
use montmul_pk::rsa::{CrtHalves, RsaPrivateKey, RsaPublicKey};
use rand_core::OsRng;
use sha2::Sha256;

use crate::bench::{measure, print_rows, Args, Row, Stat};
use crate::CliError;

/// The message every library signs.
const MESSAGE: &[u8] = b"montmul bench --pk";

/// The operations, as `--ops` names them, with their default sizes.
const OPS: [(&str, PkOp, &[u32]); 5] = [
    ("rsa-sign", PkOp::RsaSign, &[2048, 3072, 4096]),
    ("rsa-verify", PkOp::RsaVerify, &[2048, 3072, 4096]),
    ("dsa-sign", PkOp::DsaSign, &[2048, 3072]),
    ("dsa-verify", PkOp::DsaVerify, &[2048, 3072]),
    ("dh-derive", PkOp::DhDerive, &[2048, 3072]),
];

/// montmul-pk's side of one operation, with its key and input prepared once.
enum Montmul {
    RsaSign(RsaPrivateKey),
    RsaVerify(RsaPublicKey, Vec<u8>),
    DsaSign(DsaPrivateKey),
    DsaVerify(DsaPublicKey, DsaSignature),
    DhDerive(DhPrivateKey, DhPublicKey),
}

impl Montmul {
    fn once(&self) -> Result<Vec<u8>, montmul_pk::Error> {
        Ok(match self {
            Montmul::RsaSign(key) => key.sign_pkcs1v15::<Sha256>(MESSAGE, &mut OsRng)?,
            Montmul::RsaVerify(key, sig) => {
                vec![u8::from(
                    key.verify_pkcs1v15::<Sha256>(MESSAGE, sig).is_ok(),
                )]
            }
            Montmul::DsaSign(key) => key.sign::<Sha256>(MESSAGE)?.to_der()?,
            Montmul::DsaVerify(key, sig) => {
                vec![u8::from(key.verify::<Sha256>(MESSAGE, sig).is_ok())]
            }
            Montmul::DhDerive(key, peer) => key.derive(peer)?.to_vec(),
        })
    }
}

impl PkContender for Montmul {
    fn name(&self) -> &'static str {
        match self {
            Montmul::RsaSign(key) if key.crt_halves() == CrtHalves::TwoThreads => {
                "montmul-2threads"
            }
            _ => "montmul",
        }
    }

    fn output(&mut self) -> Result<Vec<u8>, String> {
        self.once().map_err(|e| e.to_string())
    }

    fn run(&mut self, iters: u64) {
        for _ in 0..iters {
            std::hint::black_box(self.once().ok());
        }
    }
}

/// The keys and inputs of one operation at one size, for montmul and for the peers.
struct Setup {
    montmul: Montmul,
    peers: PkInputs,
    /// The private key and, for DH, the peer's public key, as PEM, for `--openssl4`.
    pem: Vec<String>,
}

/// The RFC 7919 group of `bits` bits that `dh-derive` runs on.
fn dh_group(bits: u32) -> Result<DhGroup, CliError> {
    match bits {
        2048 => Ok(DhGroup::Ffdhe2048),
        3072 => Ok(DhGroup::Ffdhe3072),
        4096 => Ok(DhGroup::Ffdhe4096),
        6144 => Ok(DhGroup::Ffdhe6144),
        8192 => Ok(DhGroup::Ffdhe8192),
        _ => Err(CliError(format!(
            "--bits: dh-derive runs on the RFC 7919 groups, 2048, 3072, 4096, 6144 or 8192 \
             bits, not {bits}"
        ))),
    }
}

fn setup(op: PkOp, bits: u32) -> Result<Setup, CliError> {
    let mut peers = PkInputs {
        private_pkcs8: Vec::new(),
        public_spki: Vec::new(),
        message: MESSAGE.to_vec(),
        signature: Vec::new(),
    };
    let montmul = match op {
        PkOp::RsaSign | PkOp::RsaVerify => {
            let (private, public) = pk::openssl::generate_rsa(bits)?;
            let key = RsaPrivateKey::from_pkcs8_der(&private)?;
            peers.signature = key.sign_pkcs1v15::<Sha256>(MESSAGE, &mut OsRng)?;
            (peers.private_pkcs8, peers.public_spki) = (private, public);
            if op == PkOp::RsaSign {
                Montmul::RsaSign(key)
            } else {
                Montmul::RsaVerify(key.to_public_key(), peers.signature.clone())
            }
        }
        PkOp::DsaSign | PkOp::DsaVerify => {
            let (private, public) = pk::openssl::generate_dsa(bits)?;
            let key = DsaPrivateKey::from_pkcs8_der(&private)?;
            let sig = key.sign::<Sha256>(MESSAGE)?;
            peers.signature = sig.to_der()?;
            (peers.private_pkcs8, peers.public_spki) = (private, public);
            if op == PkOp::DsaSign {
                Montmul::DsaSign(key)
            } else {
                Montmul::DsaVerify(key.public_key(), sig)
            }
        }
        PkOp::DhDerive => {
            let params = DhParams::group(dh_group(bits)?);
            let key = DhPrivateKey::generate(&params, &mut OsRng)?;
            let peer = DhPrivateKey::generate(&params, &mut OsRng)?.public_key();
            peers.private_pkcs8 = key.to_pkcs8_der()?.to_vec();
            peers.public_spki = peer.to_public_key_der()?;
            Montmul::DhDerive(key, peer)
        }
    };
    let mut pem = vec![pem_of("PRIVATE KEY", &peers.private_pkcs8)];
    if op == PkOp::DhDerive {
        pem.push(pem_of("PUBLIC KEY", &peers.public_spki));
    }
    Ok(Setup {
        montmul,
        peers,
        pem,
    })
}

/// PEM text of a DER document (for the OpenSSL 4.0 script, which reads PEM).
fn pem_of(label: &str, der: &[u8]) -> String {
    der::pem::encode_string(label, der::pem::LineEnding::LF, der)
        .expect("a PEM label and DER of bounded size always encode")
}

/// Checks every library's result against montmul's before anything is timed.
fn check_agreement(
    op: PkOp,
    setup: &mut Setup,
    peers: &mut [Box<dyn PkContender>],
    name: &str,
    bits: u32,
) -> Result<(), CliError> {
    let disagree = |who: &str, what: &str| {
        CliError(format!(
            "{who} disagrees with montmul on {name} at {bits} bits: {what}"
        ))
    };
    let ours = setup
        .montmul
        .output()
        .map_err(|e| disagree("montmul", &e))?;
    for p in peers.iter_mut() {
        let theirs = p.output().map_err(|e| disagree(p.name(), &e))?;
        match op {
            PkOp::RsaSign if theirs != ours => {
                return Err(disagree(p.name(), "a different signature"))
            }
            PkOp::RsaVerify | PkOp::DsaVerify if theirs != [1] || ours != [1] => {
                return Err(disagree(p.name(), "the signature is refused"))
            }
            PkOp::DsaSign => {
                // DSA signatures are randomised in OpenSSL: cross-verify instead.
                let mine = PkInputs {
                    signature: ours.clone(),
                    ..setup.peers.clone()
                };
                let mut verifier = pk::openssl::new(PkOp::DsaVerify, &mine)?;
                if verifier.output()? != [1] {
                    return Err(disagree(p.name(), "OpenSSL refuses montmul's signature"));
                }
                let Montmul::DsaSign(key) = &setup.montmul else {
                    unreachable!("a dsa-sign setup holds a DSA key")
                };
                let sig = DsaSignature::from_der(&theirs)?;
                if key.public_key().verify::<Sha256>(MESSAGE, &sig).is_err() {
                    return Err(disagree(p.name(), "montmul refuses its signature"));
                }
            }
            // OpenSSL may strip leading zero bytes of a DH secret; montmul keeps the
            // length of p.
            PkOp::DhDerive if montmul_peers::trim(&theirs) != montmul_peers::trim(&ours) => {
                return Err(disagree(p.name(), "a different shared secret"))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The script that times OpenSSL 4.0 (Python's `cryptography`).
const OPENSSL4_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/openssl4.py");

/// Whether an OpenSSL version text is OpenSSL 4's (`OpenSSL 4.0.0 14 Apr 2026`).
fn is_openssl4(version: &str) -> bool {
    version.starts_with("OpenSSL 4.")
}

/// OpenSSL 4.0's version text (`OpenSSL 4.0.0 14 Apr 2026`) where python3 and its
/// `cryptography` package are installed; otherwise one sentence saying what is missing,
/// for a report to show in place of the OpenSSL 4.0 numbers.
pub(crate) fn openssl4_version() -> Result<String, String> {
    let out = Command::new("python3")
        .arg(OPENSSL4_SCRIPT)
        .arg("--version")
        .output()
        .map_err(|e| format!("OpenSSL 4.0 is not measured: python3 cannot run here ({e})."))?;
    let text = String::from_utf8_lossy(&out.stdout);
    match text.lines().next().map(str::trim) {
        Some(v) if out.status.success() && is_openssl4(v) => Ok(v.to_string()),
        Some(v) if out.status.success() => Err(format!(
            "OpenSSL 4.0 is not measured: python3's cryptography package uses {v} (a distribution's \
             build linked to the system OpenSSL; `pip install cryptography` gives the wheel that bundles \
             OpenSSL 4)."
        )),
        _ => Err(format!(
            "OpenSSL 4.0 is not measured: {} (install it with `pip install cryptography`).",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("python3 gave no version")
                .trim_start_matches("error: ")
        )),
    }
}

/// OpenSSL 4.0's time for `name` on the setup's keys, in nanoseconds (the median
/// round, or the fastest with [`Stat::Min`]), from `benches/openssl4.py` (Python's
/// `cryptography`).
fn openssl4(name: &str, setup: &Setup, rounds: usize, stat: Stat) -> Result<f64, CliError> {
    let script = OPENSSL4_SCRIPT;
    let dir = tempfile::tempdir()?;
    let mut paths = Vec::new();
    for (i, pem) in setup.pem.iter().enumerate() {
        let path = dir.path().join(format!("key{i}.pem"));
        std::fs::File::create(&path)?.write_all(pem.as_bytes())?;
        paths.push(path);
    }
    let out = Command::new("python3")
        .arg(script)
        .arg(name)
        .args(&paths)
        .args([
            "--rounds",
            &rounds.to_string(),
            "--stat",
            stat.name(),
            "--json",
        ])
        .output()
        .map_err(|e| CliError(format!("--openssl4: cannot run python3: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(CliError(format!(
            "--openssl4: {script} failed: {}",
            err.lines()
                .last()
                .unwrap_or("no message")
                .trim_start_matches("error: ")
        )));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let version = v["openssl"].as_str().unwrap_or("no version");
    if !is_openssl4(version) {
        return Err(CliError(format!(
            "--openssl4: python3's cryptography package uses {version}, not OpenSSL 4 \
             (`pip install cryptography` gives the wheel that bundles it)"
        )));
    }
    v["us"]
        .as_f64()
        .map(|us| us * 1e3)
        .ok_or_else(|| CliError("--openssl4: the script printed no time".into()))
}

/// One operation at one size, timed: montmul-pk and every peer that implements it, on
/// the same fresh key, their results checked against montmul's first
/// ([`check_agreement`]), then interleaved round by round ([`measure`]).
pub(crate) struct Timed {
    /// (library, ns per operation: the median round, or the fastest with
    /// [`Stat::Min`]), montmul first.
    pub(crate) times: Vec<(String, f64)>,
    /// The peers left out, each with its reason (ring refuses RSA keys below 2048 bits).
    pub(crate) left_out: Vec<String>,
    setup: Setup,
}

impl Timed {
    /// OpenSSL 4.0's time (ns, summarised by `stat`) for the same operation on the
    /// same keys, in a subprocess (`benches/openssl4.py`), as `--openssl4` adds it;
    /// check [`openssl4_version`] first to tell a missing Python from a failure.
    pub(crate) fn openssl4(&self, name: &str, rounds: usize, stat: Stat) -> Result<f64, CliError> {
        openssl4(name, &self.setup, rounds, stat)
    }
}

/// Times `op` (named `name`, as `--ops` names it) at `bits` bits, each row's rounds
/// summarised by `stat`: the measurement of `montmul bench --pk`, shared with `montmul
/// report`'s public-key rows. With
/// `two_threads`, RSA signing is also timed with the CRT halves on two cores (the row
/// `montmul-2threads`).
pub(crate) fn time_op(
    op: PkOp,
    name: &str,
    bits: u32,
    rounds: usize,
    target: Duration,
    stat: Stat,
    two_threads: bool,
) -> Result<Timed, CliError> {
    let mut setup = setup(op, bits)?;
    let (mut peers, left_out) = pk::all(op, &setup.peers);
    if two_threads && op == PkOp::RsaSign {
        let mut key = RsaPrivateKey::from_pkcs8_der(&setup.peers.private_pkcs8)?;
        key.set_crt_halves(CrtHalves::TwoThreads);
        peers.insert(0, Box::new(Montmul::RsaSign(key)));
    }
    check_agreement(op, &mut setup, &mut peers, name, bits)?;
    let mut names = vec!["montmul".to_string()];
    names.extend(peers.iter().map(|p| p.name().to_string()));
    let cells: Vec<RefCell<Box<dyn PkContender>>> = peers.into_iter().map(RefCell::new).collect();
    let mine = RefCell::new(&mut setup.montmul);
    let mut runners: Vec<Box<dyn FnMut(u64) + '_>> =
        vec![Box::new(|iters| mine.borrow_mut().run(iters))];
    for cell in &cells {
        runners.push(Box::new(move |iters| cell.borrow_mut().run(iters)));
    }
    let times = measure(&mut runners, rounds, target, stat);
    drop(runners);
    Ok(Timed {
        times: names.into_iter().zip(times).collect(),
        left_out,
        setup,
    })
}

/// `montmul bench --pk`.
pub fn run(args: &Args, openssl4_too: bool) -> Result<(), CliError> {
    let two_threads = match args.threads {
        None | Some(1) => false,
        Some(2) => true,
        Some(n) => {
            return Err(CliError(format!(
                "--threads: with --pk, 2 runs RSA's two CRT halves on two cores; {n} has no \
                 meaning there"
            )))
        }
    };
    let mut chosen = Vec::new();
    for name in &args.ops {
        match OPS.iter().find(|(n, ..)| n == name) {
            Some(op) => chosen.push(*op),
            None => {
                return Err(CliError(format!(
                    "--ops: unknown operation '{name}' with --pk ({})",
                    OPS.map(|o| o.0).join(", ")
                )))
            }
        }
    }
    if chosen.is_empty() {
        chosen = OPS.to_vec();
    }
    if two_threads && !chosen.iter().any(|&(_, op, _)| op == PkOp::RsaSign) {
        return Err(CliError(
            "--threads 2: only rsa-sign has two halves to run on two cores; add it to --ops".into(),
        ));
    }
    for &b in &args.bits {
        if !(1024..=8192).contains(&b) || b % 1024 != 0 {
            return Err(CliError(format!(
                "--bits: {b} is not a multiple of 1024 in 1024..8192 (with --pk)"
            )));
        }
        // Refused before any key is made, not after the other operations have run.
        if chosen.iter().any(|&(_, op, _)| op == PkOp::DhDerive) {
            dh_group(b)?;
        }
    }
    let target = Duration::from_millis(args.batch_ms.max(1));
    let steps: usize = chosen
        .iter()
        .map(|(_, _, sizes)| {
            if args.bits.is_empty() {
                sizes.len()
            } else {
                args.bits.len()
            }
        })
        .sum();
    let bar = crate::progress::bar(steps as u64, "bench --pk");
    let mut rows = Vec::new();
    for (name, op, sizes) in chosen {
        let sizes = if args.bits.is_empty() {
            sizes.to_vec()
        } else {
            args.bits.clone()
        };
        for bits in sizes {
            bar.set_message(format!("{name} {bits}: keys, agreement and timing"));
            let timed = time_op(op, name, bits, args.rounds, target, args.stat, two_threads)?;
            for why in &timed.left_out {
                bar.suspend(|| eprintln!("note: {name} {bits}: left out {why}"));
            }
            for (impl_name, ns) in timed.times.iter().cloned() {
                rows.push(Row::new(name, bits, impl_name, ns));
            }
            if openssl4_too {
                bar.set_message(format!("{name} {bits}: OpenSSL 4.0"));
                let ns = timed.openssl4(name, args.rounds, args.stat)?;
                rows.push(Row::new(name, bits, "openssl-4.0".into(), ns));
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    print_rows(&rows, args.json, args.stat)
}
