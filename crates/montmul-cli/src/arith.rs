//! `montmul mul` and `montmul exp`: one Montgomery computation from the command line.

use montmul::encoding::{be_bytes_to_limbs, hex_to_be_bytes};
use montmul::{lab, Limb, Modulus, Reduction, Residue};

use crate::output::outln;
use crate::CliError;

/// The longest exponent `exp` takes, in bits (seconds of work at the largest modulus).
const MAX_EXP_BITS: usize = 65536;

/// Options shared by `mul` and `exp`: which algorithm, word size and reduction policy.
#[derive(clap::Args)]
pub struct Engine {
    /// Algorithm or kernel name (see `montmul algos`); `auto` picks the fastest.
    #[arg(long, default_value = "auto")]
    algo: String,
    /// Word (limb) size in bits: 8, 16, 32 or 64.
    #[arg(long, default_value_t = 64)]
    word: u32,
    /// Reduction policy: full (results in [0, n)) or lazy (subtraction-less, [0, 2n)).
    /// Default: the algorithm's own.
    #[arg(long, value_parser = parse_reduction)]
    reduction: Option<Reduction>,
}

pub(crate) fn parse_reduction(s: &str) -> Result<Reduction, String> {
    Reduction::ALL
        .into_iter()
        .find(|r| r.name() == s)
        .ok_or_else(|| format!("unknown reduction '{s}' (full or lazy)"))
}

/// Arguments of `montmul mul`.
#[derive(clap::Args)]
pub struct MulArgs {
    /// The odd modulus N (hex).
    #[arg(long)]
    modulus: String,
    /// First operand A < N (hex).
    #[arg(long)]
    a: String,
    /// Second operand B < N (hex).
    #[arg(long)]
    b: String,
    #[command(flatten)]
    engine: Engine,
}

/// Arguments of `montmul exp`.
#[derive(clap::Args)]
pub struct ExpArgs {
    /// The odd modulus N (hex).
    #[arg(long)]
    modulus: String,
    /// The base B < N (hex).
    #[arg(long)]
    base: String,
    /// The exponent E (hex; may be empty, meaning 0).
    #[arg(long, allow_hyphen_values = false)]
    exp: String,
    /// Use the variable-time sliding window (faster; for public exponents only).
    /// Default: the constant-time fixed window.
    #[arg(long)]
    vartime: bool,
    #[command(flatten)]
    engine: Engine,
}

/// Runs `f` with the modulus built for the word size the user chose.
macro_rules! with_word {
    ($word:expr, $f:ident ( $($arg:expr),* )) => {
        match $word {
            8 => $f::<u8>($($arg),*),
            16 => $f::<u16>($($arg),*),
            32 => $f::<u32>($($arg),*),
            64 => $f::<u64>($($arg),*),
            w => Err(CliError(format!("word size must be 8, 16, 32 or 64, not {w}"))),
        }
    };
}

fn build<L: Limb>(engine: &Engine, modulus: &str) -> Result<Modulus<L>, CliError> {
    let k = lab::by_name::<L>(&engine.algo)?;
    let bytes = hex_to_be_bytes(modulus).map_err(|e| CliError(format!("--modulus: {e}")))?;
    let reduction = engine.reduction.unwrap_or(k.info().reductions[0]);
    Ok(Modulus::with_kernel(
        &be_bytes_to_limbs(&bytes),
        k,
        reduction,
    )?)
}

fn operand<L: Limb>(m: &Modulus<L>, flag: &str, text: &str) -> Result<Residue<L>, CliError> {
    Residue::from_hex(m, text).map_err(|e| CliError(format!("{flag}: {e}")))
}

fn mul_with<L: Limb>(args: &MulArgs) -> Result<(), CliError> {
    let m = build::<L>(&args.engine, &args.modulus)?;
    let a = operand(&m, "--a", &args.a)?;
    let b = operand(&m, "--b", &args.b)?;
    // Public results, printed without leading zeros.
    outln!("0x{}", (&a * &b).to_hex_vartime())?;
    Ok(())
}

fn exp_with<L: Limb>(args: &ExpArgs) -> Result<(), CliError> {
    let m = build::<L>(&args.engine, &args.modulus)?;
    let base = operand(&m, "--base", &args.base)?;
    let e = if args.exp.trim().is_empty() {
        Vec::new()
    } else {
        hex_to_be_bytes(&args.exp).map_err(|e| CliError(format!("--exp: {e}")))?
    };
    // One squaring per exponent bit: bound the time a single call may take.
    let bits = e
        .iter()
        .position(|&b| b != 0)
        .map_or(0, |i| (e.len() - i) * 8 - e[i].leading_zeros() as usize);
    if bits > MAX_EXP_BITS {
        return Err(CliError(format!(
            "--exp: at most {MAX_EXP_BITS} bits, not {bits}"
        )));
    }
    let result = if args.vartime {
        base.pow_vartime(&e)
    } else {
        base.pow(&e)
    };
    outln!("0x{}", result.to_hex_vartime())?;
    Ok(())
}

/// `montmul mul`: prints A*B mod N.
pub fn mul(args: MulArgs) -> Result<(), CliError> {
    with_word!(args.engine.word, mul_with(&args))
}

/// `montmul exp`: prints B^E mod N.
pub fn exp(args: ExpArgs) -> Result<(), CliError> {
    with_word!(args.engine.word, exp_with(&args))
}
