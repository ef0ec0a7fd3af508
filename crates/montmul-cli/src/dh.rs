//! `montmul dh`: finite-field Diffie-Hellman keys and shared secrets, in the style of
//! `openssl genpkey`/`pkey`/`pkeyutl -derive`, on montmul-pk. Keys are written as
//! OpenSSL writes them (PKCS #8 "PRIVATE KEY" and "PUBLIC KEY" PEM, `--der` for DER).
//!
//! `derive` writes the secret as `openssl pkeyutl -derive` does by default in OpenSSL
//! 3.0: without its leading zero bytes. `--pad` keeps them, giving exactly the size of
//! p (OpenSSL's `-pkeyopt dh_pad:1`, and what TLS 1.3 uses); the library always
//! computes the padded form in constant time.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use montmul_pk::dh::{DhGroup, DhParams, DhPrivateKey, DhPublicKey};
use rand_core::OsRng;
use zeroize::Zeroizing;

use crate::dsa::{about, read_input};
use crate::output::write_atomically;
use crate::CliError;

/// The DH subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Generate a private key in a named group or with parameters from a file.
    Keygen(KeygenArgs),
    /// Write the public key of a private key.
    Pub(PubArgs),
    /// Derive the shared secret with a peer's public key.
    Derive(DeriveArgs),
}

/// Arguments of `montmul dh`.
#[derive(Args)]
#[command(arg_required_else_help = false)]
pub struct DhArgs {
    #[command(subcommand)]
    command: Command,
}

/// Arguments of `montmul dh keygen`.
#[derive(Args)]
pub struct KeygenArgs {
    /// A named group: ffdhe2048, ffdhe3072, ffdhe4096, ffdhe6144, ffdhe8192, modp1536,
    /// modp2048, modp3072, modp4096, modp6144, modp8192.
    #[arg(long, required_unless_present = "params", conflicts_with = "params")]
    group: Option<String>,
    /// Parameters ("DH PARAMETERS" or "X9.42 DH PARAMETERS", PEM or DER).
    #[arg(long)]
    params: Option<PathBuf>,
    /// Write PKCS #8 DER instead of PEM.
    #[arg(long)]
    der: bool,
    /// Where to write the private key.
    #[arg(long)]
    out: PathBuf,
}

/// Arguments of `montmul dh pub`.
#[derive(Args)]
pub struct PubArgs {
    /// The private key (PKCS #8, PEM or DER).
    #[arg(long)]
    key: PathBuf,
    /// Write DER instead of PEM.
    #[arg(long)]
    der: bool,
    /// Where to write the public key.
    #[arg(long)]
    out: PathBuf,
}

/// Arguments of `montmul dh derive`.
#[derive(Args)]
pub struct DeriveArgs {
    /// Our private key (PKCS #8, PEM or DER).
    #[arg(long)]
    key: PathBuf,
    /// The peer's public key ("PUBLIC KEY" PEM or DER).
    #[arg(long)]
    peer: PathBuf,
    /// Keep the leading zero bytes: exactly as many bytes as p has.
    #[arg(long)]
    pad: bool,
    /// Where to write the secret (raw bytes).
    #[arg(long)]
    out: PathBuf,
}

/// Runs `montmul dh ...`.
pub fn run(args: DhArgs) -> Result<(), CliError> {
    match args.command {
        Command::Keygen(a) => {
            let params = match (&a.group, &a.params) {
                (Some(name), _) => DhParams::group(DhGroup::from_name(name).ok_or_else(|| {
                    let names: Vec<_> = DhGroup::ALL.iter().map(|g| g.name()).collect();
                    CliError(format!(
                        "unknown group '{name}' (one of {})",
                        names.join(", ")
                    ))
                })?),
                (None, Some(path)) => {
                    DhParams::from_pem_or_der(&read_input(path)?).map_err(about(path))?
                }
                (None, None) => return Err(CliError("--group or --params is required".into())),
            };
            let key = DhPrivateKey::generate(&params, &mut OsRng)?;
            let bytes = if a.der {
                key.to_pkcs8_der()?
            } else {
                Zeroizing::new(key.to_pkcs8_pem()?.as_bytes().to_vec())
            };
            write_atomically(&a.out, bytes)
        }
        Command::Pub(a) => {
            let key = DhPrivateKey::from_pem_or_der(&read_input(&a.key)?).map_err(about(&a.key))?;
            let public = key.public_key();
            let bytes = if a.der {
                public.to_public_key_der()?
            } else {
                public.to_public_key_pem()?.into_bytes()
            };
            write_atomically(&a.out, bytes)
        }
        Command::Derive(a) => {
            let key = DhPrivateKey::from_pem_or_der(&read_input(&a.key)?).map_err(about(&a.key))?;
            let peer =
                DhPublicKey::from_pem_or_der(&read_input(&a.peer)?).map_err(about(&a.peer))?;
            let secret = key.derive(&peer).map_err(about(&a.peer))?;
            let start = if a.pad {
                0
            } else {
                // OpenSSL's default: no leading zero bytes (the length tells how many
                // there were, as it does for OpenSSL).
                secret.iter().take_while(|&&b| b == 0).count()
            };
            write_atomically(&a.out, &secret[start..])
        }
    }
}
