//! Builds GMP 6.3 from the source that gmp-mpfr-sys 1.7.1 bundles, configured for the
//! build host (`configure` without `--host` and without `--enable-fat`, so that
//! `config.guess` names this CPU and the mpn directory of its kernels is linked in), as
//! a static library; then checks what was built and writes the answer for `--info`:
//!
//! - the host `configure` chose (`zen4-pc-linux-gnu` on an EPYC 9004, say);
//! - the source file behind `mpn_mul_1`, `mpn_addmul_1`, `mpn_mul_basecase` and
//!   `mpn_sqr_basecase` (the links `configure` made in `mpn/`);
//! - which of `mulx`, `adox`, `adcx` the disassembly (`objdump -d`) of those functions
//!   in the built `libgmp.a` contains.
//!
//! `--enable-fat` is avoided on purpose: its run-time dispatch picks kernels by CPU
//! model, and a model it does not know gets older or generic kernels (GMP 6.3 maps
//! every AMD family 0x19 part, Zen 3 and Zen 4, to the Zen 1 kernels; an unknown Intel
//! model fell back to the generic x86-64 ones).
//!
//! The source directory: `GMP63_SRC` if set, else gmp-mpfr-sys's `gmp-6.3.0-c` found
//! through `cargo metadata` (the package is pinned in Cargo.lock as an optional
//! dependency that is never enabled).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The mpn functions whose kernels the `--info` check reports.
const KERNELS: [&str; 4] = ["mul_1", "addmul_1", "mul_basecase", "sqr_basecase"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=GMP63_SRC");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let src = source_dir();
    let build = out.join("gmp-build");
    let lib = build.join(".libs").join("libgmp.a");
    if !lib.exists() {
        std::fs::create_dir_all(&build).expect("create the build directory");
        run(
            Command::new("sh")
                .arg(src.join("configure"))
                .args(["--disable-shared", "--with-pic"])
                .current_dir(&build),
            "configure",
        );
        let jobs = env::var("NUM_JOBS").unwrap_or_else(|_| "2".into());
        run(
            Command::new("make")
                .arg(format!("-j{jobs}"))
                .current_dir(&build),
            "make",
        );
    }
    let info = serde_json::json!({
        "gmp_source": src.display().to_string(),
        "configure": "configure --disable-shared --with-pic (no --host, no --enable-fat)",
        "host": makefile_var(&build, "host"),
        "kernels": KERNELS
            .iter()
            .map(|k| {
                let target = std::fs::read_link(build.join("mpn").join(format!("{k}.asm")))
                    .map(|p| {
                        let s = p.display().to_string();
                        // `../<src>/mpn/x86_64/zen3/mul_1.asm` -> `x86_64/zen3/mul_1.asm`
                        s.rsplit_once("/mpn/").map_or(s.clone(), |(_, t)| t.to_string())
                    })
                    .unwrap_or_else(|_| "C (no assembler kernel linked)".into());
                (k.to_string(), serde_json::Value::String(target))
            })
            .collect::<serde_json::Map<_, _>>(),
        "disassembly": disassembly_check(&lib),
    });
    std::fs::write(
        out.join("build_info.json"),
        serde_json::to_string_pretty(&info).expect("json"),
    )
    .expect("write build_info.json");
    println!(
        "cargo:rustc-link-search=native={}",
        lib.parent().expect("lib dir").display()
    );
    println!("cargo:rustc-link-lib=static=gmp");
}

/// Runs a command, failing the build with its name when it fails.
fn run(cmd: &mut Command, what: &str) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(status.success(), "{what} failed: {status}");
}

/// The GMP source directory.
fn source_dir() -> PathBuf {
    if let Some(dir) = env::var_os("GMP63_SRC") {
        return PathBuf::from(dir);
    }
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest =
        Path::new(&env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("Cargo.toml");
    let target = env::var("TARGET").expect("cargo sets TARGET");
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--all-features",
            "--filter-platform",
        ])
        .arg(&target)
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed (run `cargo fetch --manifest-path peers/gmp63/Cargo.toml` first, or set \
         GMP63_SRC to a GMP 6.3 source directory): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata json");
    let pkg = meta["packages"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "gmp-mpfr-sys"))
        .expect("gmp-mpfr-sys in cargo metadata");
    let dir = Path::new(pkg["manifest_path"].as_str().expect("manifest_path"))
        .parent()
        .expect("package dir")
        .join("gmp-6.3.0-c");
    assert!(
        dir.join("configure").exists(),
        "no GMP source at {}",
        dir.display()
    );
    dir
}

/// The value of `name = value` in the generated top-level Makefile.
fn makefile_var(build: &Path, name: &str) -> String {
    std::fs::read_to_string(build.join("Makefile"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix(&format!("{name} = ")).map(str::to_string))
        })
        .unwrap_or_else(|| "unknown".into())
}

/// For each kernel, the instructions of {mulx, adox, adcx} that its disassembly in
/// `lib` contains; `null` where objdump is missing or the function is not found.
fn disassembly_check(lib: &Path) -> serde_json::Value {
    let Ok(out) = Command::new("objdump")
        .args(["-d", "--no-show-raw-insn"])
        .arg(lib)
        .output()
    else {
        return serde_json::Value::Null;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut result = serde_json::Map::new();
    for k in KERNELS {
        let header = format!("<__gmpn_{k}>:");
        let body: Option<Vec<&str>> = text.split("\n\n").find_map(|block| {
            block
                .trim_start()
                .lines()
                .next()
                .filter(|l| l.ends_with(&header))
                .map(|_| block.lines().collect())
        });
        let value = match body {
            None => serde_json::Value::Null,
            Some(lines) => serde_json::Value::Array(
                ["mulx", "adox", "adcx"]
                    .iter()
                    .filter(|ins| {
                        lines
                            .iter()
                            .any(|l| l.split_whitespace().nth(1) == Some(**ins))
                    })
                    .map(|ins| serde_json::Value::String(ins.to_string()))
                    .collect(),
            ),
        };
        result.insert(k.to_string(), value);
    }
    serde_json::Value::Object(result)
}
