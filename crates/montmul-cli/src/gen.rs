//! `montmul gen`: emit a size-specialised, fully unrolled Montgomery kernel (seed 000,
//! sec. 5) as a standalone Rust or C file.

use std::path::PathBuf;

use montmul_gen::{generate, Spec, Word};

use crate::output::{self, write_atomically};
use crate::CliError;

/// Arguments of `montmul gen`.
#[derive(clap::Args)]
pub struct Args {
    /// Modulus size in bits, 64 to 4096.
    #[arg(long)]
    bits: u32,
    /// Output language: rust or c.
    #[arg(long)]
    lang: String,
    /// Algorithm: cios, fios or sos.
    #[arg(long, default_value = "cios")]
    algo: String,
    /// Word (limb) size in bits: 32 or 64.
    #[arg(long, default_value_t = 64)]
    word: u32,
    /// Subtraction-less kernel: inputs and output in [0, 2n), two bits of headroom.
    #[arg(long)]
    lazy: bool,
    /// Write the file here (atomically) instead of to standard output.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Prints or writes the generated kernel.
pub fn run(args: Args) -> Result<(), CliError> {
    let spec = Spec::new(
        args.bits,
        args.lang.parse()?,
        args.algo.parse()?,
        Word::from_bits(args.word)?,
        args.lazy,
    )?;
    let source = generate(&spec);
    match args.out {
        Some(path) => write_atomically(&path, &source)?,
        None => output::stdout(&source)?,
    }
    Ok(())
}
