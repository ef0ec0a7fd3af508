//! `montmul rsa`: RSA keys, signatures and encryption from the command line, in the style
//! of `openssl genpkey`, `openssl pkey`, `openssl dgst -sign/-verify` and
//! `openssl pkeyutl -encrypt/-decrypt`.
//!
//! Keys are written as OpenSSL writes them (PKCS #8 "PRIVATE KEY" and
//! SubjectPublicKeyInfo "PUBLIC KEY", PEM by default, `--der` for DER) and read in any
//! PEM or DER form OpenSSL writes. A private key file is created with mode 0600.
//! `verify` prints `Verified OK` and exits 0, or `Verification failure` and exits 1;
//! every error is one `error: ...` line and exit status 2. `encrypt`/`decrypt` take
//! `pkeyutl`'s defaults: PKCS #1 v1.5, whose decryption rejects a bad padding implicitly
//! (a synthetic message, as OpenSSL 3.2+), or with `--oaep` OAEP with SHA-1 for the label
//! and MGF1 unless `--hash` says otherwise. `keygen --primes N` makes a multi-prime key
//! (RFC 8017 3.2) as `openssl genpkey -pkeyopt rsa_keygen_primes:N` does, up to OpenSSL's
//! cap for the size.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use montmul_pk::rsa::{RsaPrivateKey, RsaPublicKey};
use montmul_pk::Error;
use rand_core::OsRng;
use sha2::{Digest, Sha256, Sha384, Sha512};

use crate::output::{self, outln, AtomicFile};
use crate::progress::Spinner;
use crate::CliError;

/// The largest key file read, in bytes: an 8192-bit PEM private key is about 6.5 KB.
const MAX_KEY_FILE: u64 = 1 << 20;

/// Arguments of `montmul rsa`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: RsaCommand,
}

#[derive(clap::Subcommand)]
enum RsaCommand {
    /// Generate a private key (PKCS #8 PEM, as `openssl genpkey` writes), of two primes
    /// or, with --primes, more.
    Keygen(KeygenArgs),
    /// Write the public key of a private key (SubjectPublicKeyInfo PEM).
    Pub(PubArgs),
    /// Sign a file (PKCS #1 v1.5, or PSS with --pss).
    Sign(SignArgs),
    /// Verify a signature: `Verified OK` (exit 0) or `Verification failure` (exit 1).
    Verify(VerifyArgs),
    /// Encrypt a short message (PKCS #1 v1.5, or OAEP with --oaep), as `openssl pkeyutl -encrypt`.
    Encrypt(EncryptArgs),
    /// Decrypt a ciphertext (PKCS #1 v1.5 with implicit rejection, or OAEP with --oaep).
    Decrypt(DecryptArgs),
}

/// The hash of a signature.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Hash {
    Sha256,
    Sha384,
    Sha512,
}

#[derive(clap::Args)]
struct KeygenArgs {
    /// Modulus size in bits, 2048 to 8192.
    #[arg(long, default_value_t = 2048)]
    bits: usize,
    /// Public exponent (decimal, or hex with 0x), odd, at least 3.
    #[arg(long, default_value = "65537")]
    e: String,
    /// Number of primes (a multi-prime key, RFC 8017; `openssl genpkey -pkeyopt
    /// rsa_keygen_primes:N`): 2 to OpenSSL's cap, 3 below 4096 bits, 4 below 8192, 5 at
    /// 8192.
    #[arg(long, default_value_t = 2)]
    primes: usize,
    /// Where to write the key (default: standard output, PEM only).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write DER instead of PEM.
    #[arg(long)]
    der: bool,
}

#[derive(clap::Args)]
struct PubArgs {
    /// The private key (PEM or DER, PKCS #8 or PKCS #1).
    #[arg(long)]
    key: PathBuf,
    /// Where to write the public key (default: standard output, PEM only).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write DER instead of PEM.
    #[arg(long)]
    der: bool,
}

#[derive(clap::Args)]
struct SignArgs {
    /// The private key (PEM or DER, PKCS #8 or PKCS #1).
    #[arg(long)]
    key: PathBuf,
    /// The file to sign; `-` for standard input.
    #[arg(long = "in")]
    input: PathBuf,
    /// Where to write the signature (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The hash.
    #[arg(long, value_enum, default_value = "sha256")]
    hash: Hash,
    /// RSASSA-PSS (MGF1 with the same hash, salt as long as the hash) instead of
    /// PKCS #1 v1.5.
    #[arg(long)]
    pss: bool,
}

#[derive(clap::Args)]
struct VerifyArgs {
    /// The public key (PEM or DER, SubjectPublicKeyInfo or PKCS #1).
    #[arg(long = "pub")]
    public: PathBuf,
    /// The signed file; `-` for standard input.
    #[arg(long = "in")]
    input: PathBuf,
    /// The signature.
    #[arg(long)]
    sig: PathBuf,
    /// The hash.
    #[arg(long, value_enum, default_value = "sha256")]
    hash: Hash,
    /// RSASSA-PSS (any salt length, as OpenSSL's `rsa_pss_saltlen:auto`) instead of
    /// PKCS #1 v1.5.
    #[arg(long)]
    pss: bool,
}

/// The hash of OAEP, for the label and MGF1 alike (`openssl pkeyutl`'s `rsa_oaep_md` and
/// `rsa_mgf1_md`); SHA-1 is `pkeyutl`'s default.
#[derive(Clone, Copy, clap::ValueEnum)]
enum OaepHash {
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

#[derive(clap::Args)]
struct EncryptArgs {
    /// The public key (PEM or DER, SubjectPublicKeyInfo or PKCS #1).
    #[arg(long = "pub")]
    public: PathBuf,
    /// The message; `-` for standard input. At most k - 11 bytes (PKCS #1 v1.5) or
    /// k - 2 hLen - 2 (OAEP) for a k-byte modulus.
    #[arg(long = "in")]
    input: PathBuf,
    /// Where to write the ciphertext (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
    /// RSAES-OAEP instead of PKCS #1 v1.5 (`-pkeyopt rsa_padding_mode:oaep`).
    #[arg(long)]
    oaep: bool,
    /// The OAEP hash, for the label and MGF1 [default: sha1, as `openssl pkeyutl`].
    #[arg(long, value_enum, requires = "oaep")]
    hash: Option<OaepHash>,
}

#[derive(clap::Args)]
struct DecryptArgs {
    /// The private key (PEM or DER, PKCS #8 or PKCS #1).
    #[arg(long)]
    key: PathBuf,
    /// The ciphertext, exactly k bytes; `-` for standard input.
    #[arg(long = "in")]
    input: PathBuf,
    /// Where to write the message (default: standard output; a new file gets mode 0600).
    #[arg(long)]
    out: Option<PathBuf>,
    /// RSAES-OAEP instead of PKCS #1 v1.5 (`-pkeyopt rsa_padding_mode:oaep`).
    #[arg(long)]
    oaep: bool,
    /// The OAEP hash, for the label and MGF1 [default: sha1, as `openssl pkeyutl`].
    #[arg(long, value_enum, requires = "oaep")]
    hash: Option<OaepHash>,
}

/// Runs `montmul rsa ...`: the exit status on success (0, or 1 for a signature that
/// does not verify).
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    match args.command {
        RsaCommand::Keygen(a) => keygen(a).map(|()| ExitCode::SUCCESS),
        RsaCommand::Pub(a) => public(a).map(|()| ExitCode::SUCCESS),
        RsaCommand::Sign(a) => sign(a).map(|()| ExitCode::SUCCESS),
        RsaCommand::Verify(a) => verify(a),
        RsaCommand::Encrypt(a) => encrypt(a).map(|()| ExitCode::SUCCESS),
        RsaCommand::Decrypt(a) => decrypt(a).map(|()| ExitCode::SUCCESS),
    }
}

/// The library's error, as the CLI prints it.
fn lib(e: Error) -> CliError {
    CliError(e.to_string())
}

/// A whole file of at most `limit` bytes.
fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, CliError> {
    let fail = |e: &dyn std::fmt::Display| CliError(format!("cannot read {}: {e}", path.display()));
    let file = File::open(path).map_err(|e| fail(&e))?;
    let mut data = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut data)
        .map_err(|e| fail(&e))?;
    if data.len() as u64 > limit {
        return Err(fail(&format!("larger than {limit} bytes")));
    }
    Ok(data)
}

fn read_private(path: &Path) -> Result<RsaPrivateKey, CliError> {
    let data = zeroize::Zeroizing::new(read_limited(path, MAX_KEY_FILE)?);
    RsaPrivateKey::from_any(&data).map_err(lib)
}

/// The hash of a file, or of standard input for `-`, read in blocks.
fn hash_input<D: Digest>(path: &Path) -> Result<Vec<u8>, CliError> {
    let mut reader: Box<dyn Read> = if path == Path::new("-") {
        Box::new(io::stdin().lock())
    } else {
        let file = File::open(path)
            .map_err(|e| CliError(format!("cannot read {}: {e}", path.display())))?;
        Box::new(file)
    };
    let mut h = D::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(CliError(format!("cannot read {}: {e}", path.display()))),
        }
    }
    Ok(h.finalize().to_vec())
}

/// Writes `bytes` to `out` atomically (mode 0600 when `secret`), or to standard output.
fn emit(out: Option<&Path>, bytes: &[u8], secret: bool) -> Result<(), CliError> {
    match out {
        Some(path) => {
            let file = AtomicFile::create(path)?;
            if secret {
                output::owner_only(&file)?;
            }
            file.commit(bytes)
        }
        None => output::stdout_bytes(bytes),
    }
}

/// A public exponent given in decimal or `0x` hex, as big-endian bytes.
fn parse_exponent(text: &str) -> Result<Vec<u8>, CliError> {
    let bad = || CliError(format!("--e: not a number: '{text}'"));
    let value = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).map_err(|_| bad())?,
        None => text.parse::<u64>().map_err(|_| bad())?,
    };
    Ok(value.to_be_bytes().to_vec())
}

fn keygen(args: KeygenArgs) -> Result<(), CliError> {
    if args.der && args.out.is_none() {
        return Err(CliError("--der needs --out".into()));
    }
    let e = parse_exponent(&args.e)?;
    // The destination is checked before the work.
    let file = args.out.as_deref().map(AtomicFile::create).transpose()?;
    let key = {
        let _spinner = Spinner::start(format!("generating a {}-bit RSA key", args.bits));
        RsaPrivateKey::generate_multi_prime(args.bits, args.primes, &e, &mut OsRng).map_err(lib)?
    };
    let bytes = if args.der {
        key.to_pkcs8_der().map_err(lib)?
    } else {
        zeroize::Zeroizing::new(key.to_pkcs8_pem().map_err(lib)?.as_bytes().to_vec())
    };
    match file {
        Some(file) => {
            output::owner_only(&file)?;
            file.commit(&bytes)
        }
        None => output::stdout_bytes(&bytes),
    }
}

fn public(args: PubArgs) -> Result<(), CliError> {
    if args.der && args.out.is_none() {
        return Err(CliError("--der needs --out".into()));
    }
    let key = read_private(&args.key)?.to_public_key();
    let bytes = if args.der {
        key.to_public_key_der().map_err(lib)?
    } else {
        key.to_public_key_pem().map_err(lib)?.into_bytes()
    };
    emit(args.out.as_deref(), &bytes, false)
}

fn sign(args: SignArgs) -> Result<(), CliError> {
    let key = read_private(&args.key)?;
    let file = args.out.as_deref().map(AtomicFile::create).transpose()?;
    let sig = match (args.hash, args.pss) {
        (Hash::Sha256, false) => sign_v15::<Sha256>(&key, &args.input),
        (Hash::Sha384, false) => sign_v15::<Sha384>(&key, &args.input),
        (Hash::Sha512, false) => sign_v15::<Sha512>(&key, &args.input),
        (Hash::Sha256, true) => sign_pss::<Sha256>(&key, &args.input),
        (Hash::Sha384, true) => sign_pss::<Sha384>(&key, &args.input),
        (Hash::Sha512, true) => sign_pss::<Sha512>(&key, &args.input),
    }?;
    match file {
        Some(file) => file.commit(&sig),
        None => output::stdout_bytes(&sig),
    }
}

fn sign_v15<D: Digest + sha2::digest::const_oid::AssociatedOid>(
    key: &RsaPrivateKey,
    input: &Path,
) -> Result<Vec<u8>, CliError> {
    let hash = hash_input::<D>(input)?;
    key.sign_pkcs1v15_prehash::<D>(&hash, &mut OsRng)
        .map_err(lib)
}

fn sign_pss<D: Digest>(key: &RsaPrivateKey, input: &Path) -> Result<Vec<u8>, CliError> {
    let hash = hash_input::<D>(input)?;
    key.sign_pss_with::<D, D>(&hash, <D as Digest>::output_size(), &mut OsRng)
        .map_err(lib)
}

fn verify(args: VerifyArgs) -> Result<ExitCode, CliError> {
    let key = RsaPublicKey::from_any(&read_limited(&args.public, MAX_KEY_FILE)?).map_err(lib)?;
    // A signature is k bytes; anything longer is refused by the length check anyway.
    let sig = read_limited(&args.sig, MAX_KEY_FILE)?;
    let result = match (args.hash, args.pss) {
        (Hash::Sha256, false) => verify_v15::<Sha256>(&key, &args.input, &sig),
        (Hash::Sha384, false) => verify_v15::<Sha384>(&key, &args.input, &sig),
        (Hash::Sha512, false) => verify_v15::<Sha512>(&key, &args.input, &sig),
        (Hash::Sha256, true) => verify_pss::<Sha256>(&key, &args.input, &sig),
        (Hash::Sha384, true) => verify_pss::<Sha384>(&key, &args.input, &sig),
        (Hash::Sha512, true) => verify_pss::<Sha512>(&key, &args.input, &sig),
    }?;
    match result {
        Ok(()) => {
            outln!("Verified OK")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(Error::Verification) => {
            outln!("Verification failure")?;
            Ok(ExitCode::from(1))
        }
        Err(e) => Err(lib(e)),
    }
}

/// The verdict of the library, or a failure to read the input.
type Verdict = Result<Result<(), Error>, CliError>;

fn verify_v15<D: Digest + sha2::digest::const_oid::AssociatedOid>(
    key: &RsaPublicKey,
    input: &Path,
    sig: &[u8],
) -> Verdict {
    let hash = hash_input::<D>(input)?;
    Ok(key.verify_pkcs1v15_prehash::<D>(&hash, sig))
}

fn verify_pss<D: Digest>(key: &RsaPublicKey, input: &Path, sig: &[u8]) -> Verdict {
    let hash = hash_input::<D>(input)?;
    Ok(key.verify_pss_with::<D, D>(&hash, sig, None))
}

/// A file of at most `limit` bytes, or standard input for `-`.
fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>, CliError> {
    if path != Path::new("-") {
        return read_limited(path, limit);
    }
    let mut data = Vec::new();
    io::stdin()
        .lock()
        .take(limit + 1)
        .read_to_end(&mut data)
        .map_err(|e| CliError(format!("cannot read standard input: {e}")))?;
    if data.len() as u64 > limit {
        return Err(CliError(format!(
            "cannot read standard input: larger than {limit} bytes"
        )));
    }
    Ok(data)
}

fn encrypt(args: EncryptArgs) -> Result<(), CliError> {
    let key = RsaPublicKey::from_any(&read_limited(&args.public, MAX_KEY_FILE)?).map_err(lib)?;
    // A message longer than the modulus is refused by the library; the limit only bounds
    // what is read.
    let msg = zeroize::Zeroizing::new(read_input(&args.input, MAX_KEY_FILE)?);
    let file = args.out.as_deref().map(AtomicFile::create).transpose()?;
    let rng = &mut OsRng;
    let ct = match (args.oaep, args.hash.unwrap_or(OaepHash::Sha1)) {
        (false, _) => key.encrypt_pkcs1v15(rng, &msg),
        (true, OaepHash::Sha1) => key.encrypt_oaep::<sha1::Sha1>(rng, &msg, b""),
        (true, OaepHash::Sha256) => key.encrypt_oaep::<Sha256>(rng, &msg, b""),
        (true, OaepHash::Sha384) => key.encrypt_oaep::<Sha384>(rng, &msg, b""),
        (true, OaepHash::Sha512) => key.encrypt_oaep::<Sha512>(rng, &msg, b""),
    }
    .map_err(lib)?;
    match file {
        Some(file) => file.commit(&ct),
        None => output::stdout_bytes(&ct),
    }
}

fn decrypt(args: DecryptArgs) -> Result<(), CliError> {
    let key = read_private(&args.key)?;
    // A ciphertext is k bytes; anything longer is refused by the length check anyway.
    let ct = read_input(&args.input, MAX_KEY_FILE)?;
    let file = args.out.as_deref().map(AtomicFile::create).transpose()?;
    let rng = &mut OsRng;
    let msg = match (args.oaep, args.hash.unwrap_or(OaepHash::Sha1)) {
        // Implicit rejection: a bad padding gives a synthetic message, not an error.
        (false, _) => key.decrypt_pkcs1v15(rng, &ct),
        (true, OaepHash::Sha1) => key.decrypt_oaep::<sha1::Sha1>(rng, &ct, b""),
        (true, OaepHash::Sha256) => key.decrypt_oaep::<Sha256>(rng, &ct, b""),
        (true, OaepHash::Sha384) => key.decrypt_oaep::<Sha384>(rng, &ct, b""),
        (true, OaepHash::Sha512) => key.decrypt_oaep::<Sha512>(rng, &ct, b""),
    }
    .map_err(lib)?;
    match file {
        Some(file) => {
            output::owner_only(&file)?;
            file.commit(&msg)
        }
        None => output::stdout_bytes(&msg),
    }
}
