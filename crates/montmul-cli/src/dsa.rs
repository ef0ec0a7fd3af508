//! `montmul dsa`: DSA parameters, keys, signatures and verification, in the style of
//! `openssl genpkey`/`pkey`/`dgst`, on montmul-pk. Keys are written as OpenSSL writes
//! them (PKCS #8 "PRIVATE KEY" and "PUBLIC KEY" PEM, `--der` for DER) and read in
//! every form OpenSSL writes; signatures are DER `Dss-Sig-Value`, as `openssl dgst
//! -sign` writes them.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use montmul_pk::dsa::{DsaParams, DsaPrivateKey, DsaPublicKey, DsaSignature};
use rand_core::OsRng;
use zeroize::Zeroizing;

use crate::output::{outln, write_atomically};
use crate::progress::Spinner;
use crate::CliError;

/// The DSA subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Generate domain parameters (FIPS 186-4 A.1.1.2, A.2.3).
    Params(ParamsArgs),
    /// Generate a private key (with new parameters, or those of --params).
    Keygen(KeygenArgs),
    /// Write the public key of a private key.
    Pub(PubArgs),
    /// Sign a message (RFC 6979 deterministic nonce).
    Sign(SignArgs),
    /// Verify a signature: `Verified OK` (exit 0) or `Verification failure` (exit 1).
    Verify(VerifyArgs),
}

/// Arguments of `montmul dsa`.
#[derive(Args)]
#[command(arg_required_else_help = false)]
pub struct DsaArgs {
    #[command(subcommand)]
    command: Command,
}

/// The sizes of new parameters.
#[derive(Args)]
pub struct Sizes {
    /// The size of p in bits (2048 or 3072).
    #[arg(long, default_value_t = 2048)]
    bits: usize,
    /// The size of q in bits (224 or 256).
    #[arg(long, default_value_t = 256)]
    qbits: usize,
}

/// Arguments of `montmul dsa params`.
#[derive(Args)]
pub struct ParamsArgs {
    #[command(flatten)]
    sizes: Sizes,
    /// Write DER instead of PEM.
    #[arg(long)]
    der: bool,
    /// Where to write the parameters.
    #[arg(long)]
    out: PathBuf,
}

/// Arguments of `montmul dsa keygen`.
#[derive(Args)]
pub struct KeygenArgs {
    #[command(flatten)]
    sizes: Sizes,
    /// Use these parameters ("DSA PARAMETERS" PEM or DER) instead of generating new ones.
    #[arg(long, conflicts_with_all = ["bits", "qbits"])]
    params: Option<PathBuf>,
    /// Write PKCS #8 DER instead of PEM.
    #[arg(long)]
    der: bool,
    /// Where to write the private key.
    #[arg(long)]
    out: PathBuf,
}

/// Arguments of `montmul dsa pub`.
#[derive(Args)]
pub struct PubArgs {
    /// The private key (PKCS #8 or traditional, PEM or DER).
    #[arg(long)]
    key: PathBuf,
    /// Write DER instead of PEM.
    #[arg(long)]
    der: bool,
    /// Where to write the public key.
    #[arg(long)]
    out: PathBuf,
}

/// The message digests the commands offer.
#[derive(Clone, Copy, ValueEnum)]
pub enum Hash {
    /// SHA-224.
    Sha224,
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

/// Arguments of `montmul dsa sign`.
#[derive(Args)]
pub struct SignArgs {
    /// The private key (PKCS #8 or traditional, PEM or DER).
    #[arg(long)]
    key: PathBuf,
    /// The message (`-` for standard input).
    #[arg(long = "in")]
    input: PathBuf,
    /// Where to write the DER signature.
    #[arg(long)]
    out: PathBuf,
    /// The message digest.
    #[arg(long, value_enum, default_value = "sha256")]
    hash: Hash,
}

/// Arguments of `montmul dsa verify`.
#[derive(Args)]
pub struct VerifyArgs {
    /// The public key ("PUBLIC KEY" PEM or DER).
    #[arg(long = "pub")]
    public: PathBuf,
    /// The message (`-` for standard input).
    #[arg(long = "in")]
    input: PathBuf,
    /// The DER signature.
    #[arg(long)]
    sig: PathBuf,
    /// The message digest.
    #[arg(long, value_enum, default_value = "sha256")]
    hash: Hash,
}

/// The contents of `path`, or of standard input for `-`.
pub fn read_input(path: &Path) -> Result<Zeroizing<Vec<u8>>, CliError> {
    let fail = |e: std::io::Error| CliError(format!("cannot read {}: {e}", path.display()));
    let mut bytes = Zeroizing::new(Vec::new());
    if path == Path::new("-") {
        std::io::stdin().read_to_end(&mut bytes).map_err(fail)?;
    } else {
        *bytes = std::fs::read(path).map_err(fail)?;
    }
    Ok(bytes)
}

/// A library error about the file at `path`, as one line.
pub fn about(path: &Path) -> impl Fn(montmul_pk::Error) -> CliError + '_ {
    move |e| CliError(format!("{}: {e}", path.display()))
}

/// PEM text or DER bytes, as `--der` asks.
fn pem_or_der(
    der: bool,
    pem: impl FnOnce() -> Result<String, montmul_pk::Error>,
    der_bytes: impl FnOnce() -> Result<Vec<u8>, montmul_pk::Error>,
) -> Result<Vec<u8>, CliError> {
    Ok(if der {
        der_bytes()?
    } else {
        pem()?.into_bytes()
    })
}

fn read_private(path: &Path) -> Result<DsaPrivateKey, CliError> {
    DsaPrivateKey::from_pem_or_der(&read_input(path)?).map_err(about(path))
}

/// New domain parameters of `bits` and `qbits` (FIPS 186-4 A.1.1.2), with a spinner
/// while they are searched for (about a second and a half at 3072 bits).
fn generate_params(bits: usize, qbits: usize) -> Result<DsaParams, CliError> {
    let _spinner = Spinner::start(format!("generating {bits}-bit DSA parameters"));
    let (params, _seed) = DsaParams::generate(bits, qbits, &mut OsRng)?;
    Ok(params)
}

/// Runs `montmul dsa ...`.
pub fn run(args: DsaArgs) -> Result<(), CliError> {
    match args.command {
        Command::Params(a) => {
            // Check the destination before the work.
            let file = crate::output::AtomicFile::create(&a.out)?;
            let params = generate_params(a.sizes.bits, a.sizes.qbits)?;
            file.commit(pem_or_der(a.der, || params.to_pem(), || params.to_der())?)
        }
        Command::Keygen(a) => {
            let params = match &a.params {
                Some(path) => {
                    DsaParams::from_pem_or_der(&read_input(path)?).map_err(about(path))?
                }
                None => {
                    // The destination is checked before the work (a bad size is
                    // refused at once and leaves nothing behind).
                    let file = crate::output::AtomicFile::create(&a.out)?;
                    let params = generate_params(a.sizes.bits, a.sizes.qbits)?;
                    let key = DsaPrivateKey::generate(&params, &mut OsRng)?;
                    return file.commit(private_bytes(&key, a.der)?);
                }
            };
            let key = DsaPrivateKey::generate(&params, &mut OsRng)?;
            write_atomically(&a.out, private_bytes(&key, a.der)?)
        }
        Command::Pub(a) => {
            let public = read_private(&a.key)?.public_key();
            write_atomically(
                &a.out,
                pem_or_der(
                    a.der,
                    || public.to_public_key_pem(),
                    || public.to_public_key_der(),
                )?,
            )
        }
        Command::Sign(a) => {
            let key = read_private(&a.key)?;
            let msg = read_input(&a.input)?;
            let sig = match a.hash {
                Hash::Sha224 => key.sign::<sha2::Sha224>(&msg),
                Hash::Sha256 => key.sign::<sha2::Sha256>(&msg),
                Hash::Sha384 => key.sign::<sha2::Sha384>(&msg),
                Hash::Sha512 => key.sign::<sha2::Sha512>(&msg),
            }?;
            write_atomically(&a.out, sig.to_der()?)
        }
        Command::Verify(a) => {
            let public =
                DsaPublicKey::from_pem_or_der(&read_input(&a.public)?).map_err(about(&a.public))?;
            let msg = read_input(&a.input)?;
            let sig_bytes = read_input(&a.sig)?;
            // A signature that does not parse is a failed verification, as for OpenSSL.
            let ok = DsaSignature::from_der(&sig_bytes).is_ok_and(|sig| {
                match a.hash {
                    Hash::Sha224 => public.verify::<sha2::Sha224>(&msg, &sig),
                    Hash::Sha256 => public.verify::<sha2::Sha256>(&msg, &sig),
                    Hash::Sha384 => public.verify::<sha2::Sha384>(&msg, &sig),
                    Hash::Sha512 => public.verify::<sha2::Sha512>(&msg, &sig),
                }
                .is_ok()
            });
            verdict(ok)
        }
    }
}

/// Prints the verdict of a verification; a failure exits with status 1.
pub fn verdict(ok: bool) -> Result<(), CliError> {
    if ok {
        outln!("Verified OK")
    } else {
        outln!("Verification failure")?;
        std::process::exit(1);
    }
}

fn private_bytes(key: &DsaPrivateKey, der: bool) -> Result<Zeroizing<Vec<u8>>, CliError> {
    Ok(if der {
        key.to_pkcs8_der()?
    } else {
        Zeroizing::new(key.to_pkcs8_pem()?.as_bytes().to_vec())
    })
}
