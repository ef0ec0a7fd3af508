//! `montmul`: the command line of the montmul engine and laboratory.
//!
//! Numbers are big-endian hexadecimal with an optional `0x`. Bad input prints one line
//! `error: ...` on stderr and exits with status 2; nothing is ever half-written.

mod algos;
mod arith;
mod bench;
mod bench_lanes;
mod bench_pk;
mod bench_threads;
mod ct_check;
mod ct_subjects;
mod dh;
mod dsa;
mod gen;
mod output;
mod progress;
mod report;
mod rsa;
mod selftest;
mod sim;
mod tune;
mod welch;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Montgomery multiplication engine and laboratory.
#[derive(Parser)]
#[command(name = "montmul", version, about, long_about = None)]
#[command(arg_required_else_help = false)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every algorithm and kernel, its seed, word sizes, and whether this CPU runs it.
    Algos(algos::Args),
    /// Print A*B mod N, computed with one Montgomery algorithm.
    Mul(arith::MulArgs),
    /// Print B^E mod N, computed with one Montgomery algorithm.
    Exp(arith::ExpArgs),
    /// Time montmul's kernels (and, with --peers, GMP, OpenSSL, num-bigint, crypto-bigint),
    /// with --lanes its multi-buffer kernels, or with --pk its RSA, DSA and DH beside
    /// OpenSSL, ring and the rsa crate.
    Bench(bench::Args),
    /// Cycle-level models of seed 002's multi-core platform and seed 003's systolic arrays.
    Sim(sim::Args),
    /// Emit a fully unrolled, branch-free Montgomery kernel for one modulus size (Rust or C).
    Gen(gen::Args),
    /// Re-run every seed's experiments here; write an HTML report with plots, Markdown, JSON, CSV.
    Report(report::Args),
    /// Measure the size thresholds of the `auto` kernel on this machine and write the table.
    Tune(tune::Args),
    /// Check every kernel, word size and reduction policy against num-bigint; exit 1 on a mismatch.
    Selftest(selftest::Args),
    /// Statistical (dudect-style) constant-time check: Welch's t of the timings of
    /// fixed against random secret inputs, per path, kernel and size.
    CtCheck(ct_check::Args),
    /// RSA keys, signatures and encryption: keygen, pub, sign, verify, encrypt, decrypt.
    Rsa(rsa::Args),
    /// DSA: parameters, keys, signatures (FIPS 186-4, RFC 6979), OpenSSL's formats.
    Dsa(dsa::DsaArgs),
    /// Finite-field Diffie-Hellman: keys and shared secrets (RFC 7919, RFC 3526 groups).
    Dh(dh::DhArgs),
}

/// A failure to report: one line on stderr, exit status 2.
#[derive(Debug)]
pub struct CliError(String);

impl<E: std::fmt::Display> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError(e.to_string())
    }
}

/// A safety net for a `println!` that bypasses [`output::stdout`]: its panic on a
/// failed write ends the program as [`output::stdout`] would, quietly for a closed pipe
/// (Rust ignores SIGPIPE, so the write fails with `BrokenPipe`), else with
/// `error: cannot write output: ...` and exit status 2.
fn end_failed_prints_like_output() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = text.strip_prefix("failed printing to stdout: ") {
            if why.contains("Broken pipe") {
                // 128 + SIGPIPE, the status a shell reports for a writer cut off by its reader.
                std::process::exit(141);
            }
            eprintln!("error: cannot write output: {why}");
            std::process::exit(2);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    end_failed_prints_like_output();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind::{DisplayHelp, DisplayVersion};
            if matches!(e.kind(), DisplayHelp | DisplayVersion) {
                return match output::stdout(&e.to_string()) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(CliError(msg)) => {
                        eprintln!("error: {msg}");
                        ExitCode::from(2)
                    }
                };
            }
            // clap's first line already reads "error: ..."; the usage lines after it are
            // dropped so that a script sees exactly one line.
            let text = e.to_string();
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let mut line = lines
                .next()
                .unwrap_or("error: invalid arguments")
                .to_string();
            if line.ends_with(':') {
                // "the following required arguments were not provided:" names them next.
                line.push(' ');
                line.push_str(lines.next().unwrap_or(""));
            }
            if e.kind() == clap::error::ErrorKind::MissingSubcommand {
                // The same line lists the subcommands and gives the usage.
                for more in lines {
                    if more.starts_with("[subcommands:") {
                        line.push(' ');
                        line.push_str(more);
                    } else if let Some(usage) = more.strip_prefix("Usage: ") {
                        line.push_str("; usage: ");
                        line.push_str(usage);
                    }
                }
            }
            eprintln!("{line}");
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Algos(args) => algos::run(args),
        Command::Mul(args) => arith::mul(args),
        Command::Exp(args) => arith::exp(args),
        Command::Bench(args) => bench::run_bench(args),
        Command::Sim(args) => sim::run(args),
        Command::Gen(args) => gen::run(args),
        Command::Tune(args) => tune::run(args),
        Command::Selftest(args) => match selftest::run(args) {
            Ok(code) => return code,
            Err(e) => Err(e),
        },
        Command::CtCheck(args) => ct_check::run(args),
        Command::Rsa(args) => match rsa::run(args) {
            Ok(code) => return code,
            Err(e) => Err(e),
        },
        Command::Dsa(args) => dsa::run(args),
        Command::Dh(args) => dh::run(args),
        Command::Report(args) => report::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}
