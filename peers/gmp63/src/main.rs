//! `montmul-gmp63`: GMP 6.3 built for this CPU, timed in a process of its own for
//! `montmul report` and `montmul bench --peers` (whose own process links the system
//! libgmp 6.2, with the same `__gmpz_*` symbols).
//!
//! ```text
//! montmul-gmp63 --info      # GMP's version and how it was built (JSON)
//! montmul-gmp63 --json      # times the jobs of a JSON request read from stdin
//! ```
//!
//! The request: `{"rounds": R, "batch_ms": B, "jobs": [{"op", "n", "a", "b", "e"}]}`,
//! numbers in hexadecimal, `op` one of
//!
//! - `mul`: the chain `x = x b mod n` (`mpz_mul` then `mpz_tdiv_r`), the substitute for a
//!   Montgomery product that montmul-peers times for GMP 6.2;
//! - `sqr`: the chain `x = x^2 mod n`, the same way;
//! - `powm_sec`: `mpz_powm_sec(a, e, n)`; `powm`: `mpz_powm(a, e, n)`.
//!
//! The answer: `{"gmp": version, "jobs": [{"op", "result", "ns"}]}`, where `result` is
//! `a b mod n`, `a^2 mod n` or `a^e mod n` (hexadecimal) for the caller to check before
//! it trusts `ns`, the median nanoseconds per operation over R rounds, every job's
//! batches (each calibrated to about B ms) taking turns in each round, as montmul's own
//! `measure` does.

#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, CStr, CString};
use std::io::Read;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// What the build script found (`--info`).
const BUILD_INFO: &str = include_str!(concat!(env!("OUT_DIR"), "/build_info.json"));

/// `__mpz_struct` from `gmp.h`: allocated limbs, signed size, limb pointer.
#[repr(C)]
struct MpzStruct {
    alloc: c_int,
    size: c_int,
    d: *mut u64,
}

// The GMP 6.3 that build.rs built and links statically.
extern "C" {
    static __gmp_version: *const c_char;
    fn __gmpz_init(x: *mut MpzStruct);
    fn __gmpz_clear(x: *mut MpzStruct);
    fn __gmpz_set_str(x: *mut MpzStruct, s: *const c_char, base: c_int) -> c_int;
    fn __gmpz_get_str(s: *mut c_char, base: c_int, x: *const MpzStruct) -> *mut c_char;
    fn __gmpz_sizeinbase(x: *const MpzStruct, base: c_int) -> usize;
    fn __gmpz_mul(r: *mut MpzStruct, a: *const MpzStruct, b: *const MpzStruct);
    fn __gmpz_tdiv_r(r: *mut MpzStruct, n: *const MpzStruct, d: *const MpzStruct);
    fn __gmpz_powm(
        r: *mut MpzStruct,
        b: *const MpzStruct,
        e: *const MpzStruct,
        m: *const MpzStruct,
    );
    fn __gmpz_powm_sec(
        r: *mut MpzStruct,
        b: *const MpzStruct,
        e: *const MpzStruct,
        m: *const MpzStruct,
    );
}

/// An owned GMP integer, cleared on drop.
struct Mpz(MpzStruct);

impl Mpz {
    /// Zero.
    fn new() -> Self {
        let mut x = MpzStruct {
            alloc: 0,
            size: 0,
            d: std::ptr::null_mut(),
        };
        // SAFETY: `x` is a writable mpz struct; mpz_init fills it in.
        unsafe { __gmpz_init(&mut x) };
        Mpz(x)
    }

    /// The integer of a hexadecimal string (empty: zero).
    fn from_hex(hex: &str) -> Result<Self, String> {
        let mut x = Mpz::new();
        if hex.is_empty() {
            return Ok(x);
        }
        let c = CString::new(hex).map_err(|_| format!("not hexadecimal: {hex:?}"))?;
        // SAFETY: `x` is initialised; `c` is a live NUL-terminated string.
        if unsafe { __gmpz_set_str(&mut x.0, c.as_ptr(), 16) } != 0 {
            return Err(format!("not hexadecimal: {hex:?}"));
        }
        Ok(x)
    }

    /// Lower-case hexadecimal, `0` for zero.
    fn to_hex(&self) -> String {
        // SAFETY: `self.0` is initialised.
        let digits = unsafe { __gmpz_sizeinbase(&self.0, 16) };
        // Room for the digits, a sign and the NUL, as gmp.h documents for mpz_get_str.
        let mut buf = vec![0u8; digits + 2];
        // SAFETY: the buffer holds sizeinbase + 2 bytes; mpz_get_str writes a
        // NUL-terminated string into it.
        unsafe { __gmpz_get_str(buf.as_mut_ptr().cast(), 16, &self.0) };
        CStr::from_bytes_until_nul(&buf)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Whether this is zero (the `size` field of gmp.h's struct).
    fn is_zero(&self) -> bool {
        self.0.size == 0
    }
}

impl Drop for Mpz {
    fn drop(&mut self) {
        // SAFETY: initialised by mpz_init, cleared exactly once here.
        unsafe { __gmpz_clear(&mut self.0) }
    }
}

/// The request read from stdin.
#[derive(Deserialize)]
struct Request {
    rounds: usize,
    batch_ms: u64,
    jobs: Vec<JobSpec>,
}

/// One job of the request.
#[derive(Deserialize)]
struct JobSpec {
    op: String,
    n: String,
    a: String,
    #[serde(default)]
    b: String,
    #[serde(default)]
    e: String,
}

/// One job's answer.
#[derive(Serialize)]
struct JobResult {
    op: String,
    result: String,
    ns: f64,
}

/// A job, its integers prepared.
struct Job {
    op: Op,
    n: Mpz,
    a: Mpz,
    b: Mpz,
    e: Mpz,
    x: Mpz,
    t: Mpz,
}

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Mul,
    Sqr,
    PowmSec,
    Powm,
}

impl Job {
    fn new(spec: &JobSpec) -> Result<Self, String> {
        let op = match spec.op.as_str() {
            "mul" => Op::Mul,
            "sqr" => Op::Sqr,
            "powm_sec" => Op::PowmSec,
            "powm" => Op::Powm,
            o => return Err(format!("unknown op {o:?} (mul, sqr, powm_sec, powm)")),
        };
        let n = Mpz::from_hex(&spec.n)?;
        let (a, b, e) = (
            Mpz::from_hex(&spec.a)?,
            Mpz::from_hex(&spec.b)?,
            Mpz::from_hex(&spec.e)?,
        );
        if n.is_zero() || n.0.size < 0 {
            return Err("the modulus must be positive".into());
        }
        if matches!(op, Op::PowmSec | Op::Powm) && (e.is_zero() || e.0.size < 0) {
            return Err("the exponent must be positive".into());
        }
        // mpz_powm_sec needs an odd modulus: the low bit of the lowest limb.
        // SAFETY: n is positive, so `d` points at `size >= 1` live limbs.
        if op == Op::PowmSec && unsafe { *n.0.d } & 1 == 0 {
            return Err("mpz_powm_sec needs an odd modulus".into());
        }
        let x = Mpz::from_hex(&spec.a)?;
        Ok(Job {
            op,
            n,
            a,
            b,
            e,
            x,
            t: Mpz::new(),
        })
    }

    /// The job's result for the caller's check.
    fn result(&mut self) -> String {
        let mut r = Mpz::new();
        // SAFETY: live, initialised integers; `r` and `t` are distinct from the inputs;
        // the modulus is positive (odd for powm_sec) and the exponent positive.
        unsafe {
            match self.op {
                Op::Mul | Op::Sqr => {
                    let b: *const MpzStruct = if self.op == Op::Mul {
                        &self.b.0
                    } else {
                        &self.a.0
                    };
                    __gmpz_mul(&mut self.t.0, &self.a.0, b);
                    __gmpz_tdiv_r(&mut r.0, &self.t.0, &self.n.0);
                }
                Op::PowmSec => __gmpz_powm_sec(&mut r.0, &self.a.0, &self.e.0, &self.n.0),
                Op::Powm => __gmpz_powm(&mut r.0, &self.a.0, &self.e.0, &self.n.0),
            }
        }
        r.to_hex()
    }

    /// `iters` operations, chained for the products.
    fn run(&mut self, iters: u64) {
        let mut r = Mpz::new();
        for _ in 0..iters {
            // SAFETY: as in `result`; `x`, `t` and `r` are distinct objects, and
            // mpz_mul allows its two inputs to be the same.
            unsafe {
                match self.op {
                    Op::Mul | Op::Sqr => {
                        let b: *const MpzStruct = if self.op == Op::Mul {
                            &self.b.0
                        } else {
                            &self.x.0
                        };
                        __gmpz_mul(&mut self.t.0, &self.x.0, b);
                        __gmpz_tdiv_r(&mut self.x.0, &self.t.0, &self.n.0);
                    }
                    Op::PowmSec => __gmpz_powm_sec(&mut r.0, &self.a.0, &self.e.0, &self.n.0),
                    Op::Powm => __gmpz_powm(&mut r.0, &self.a.0, &self.e.0, &self.n.0),
                }
            }
        }
        std::hint::black_box(&r);
    }
}

/// Iterations that make one batch last about `target`.
fn calibrate(job: &mut Job, target: Duration) -> u64 {
    let mut iters = 1u64;
    loop {
        let t = Instant::now();
        job.run(iters);
        let dt = t.elapsed();
        if dt >= target || iters >= 1 << 24 {
            return iters;
        }
        let scale = (target.as_secs_f64() / dt.as_secs_f64().max(1e-9)).clamp(2.0, 100.0);
        iters = ((iters as f64) * scale).ceil() as u64;
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn version() -> String {
    // SAFETY: `__gmp_version` is a constant NUL-terminated string in libgmp.
    unsafe { CStr::from_ptr(__gmp_version) }
        .to_string_lossy()
        .into_owned()
}

fn time(req: Request) -> Result<serde_json::Value, String> {
    let mut jobs = req
        .jobs
        .iter()
        .map(Job::new)
        .collect::<Result<Vec<_>, _>>()?;
    let results: Vec<String> = jobs.iter_mut().map(Job::result).collect();
    let target = Duration::from_millis(req.batch_ms.clamp(1, 10_000));
    let rounds = req.rounds.clamp(1, 10_000);
    let iters: Vec<u64> = jobs.iter_mut().map(|j| calibrate(j, target)).collect();
    let mut samples = vec![Vec::with_capacity(rounds); jobs.len()];
    for _ in 0..rounds {
        for (i, j) in jobs.iter_mut().enumerate() {
            let t = Instant::now();
            j.run(iters[i]);
            samples[i].push(t.elapsed().as_nanos() as f64 / iters[i] as f64);
        }
    }
    let out: Vec<JobResult> = req
        .jobs
        .iter()
        .zip(results)
        .zip(samples)
        .map(|((spec, result), s)| JobResult {
            op: spec.op.clone(),
            result,
            ns: median(s),
        })
        .collect();
    Ok(serde_json::json!({ "gmp": version(), "jobs": out }))
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_default();
    let answer = match arg.as_str() {
        "--info" => {
            let mut info: serde_json::Value =
                serde_json::from_str(BUILD_INFO).expect("build.rs writes JSON");
            info["gmp"] = serde_json::Value::String(version());
            Ok(info)
        }
        "--json" => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("stdin: {e}"))
                .and_then(|_| serde_json::from_str(&text).map_err(|e| format!("request: {e}")))
                .and_then(time)
        }
        _ => Err("usage: montmul-gmp63 --info | --json < request.json".into()),
    };
    match answer {
        Ok(v) => println!("{v}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
