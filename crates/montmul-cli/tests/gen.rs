//! `montmul gen` from the outside: what it prints, what it writes, how it refuses.

mod common;

use std::path::Path;

use montmul_gen::{generate, Algo, Lang, Spec, Word};

use common::{montmul_output, refused_saying, Dir};

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn prints_the_generated_file() {
    let out = montmul_output(&[
        "gen", "--bits", "192", "--lang", "c", "--algo", "fios", "--word", "32", "--lazy",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let spec = Spec::new(192, Lang::C, Algo::Fios, Word::W32, true).expect("valid");
    assert_eq!(
        String::from_utf8(out.stdout).expect("text"),
        generate(&spec)
    );

    // Defaults: cios, 64-bit words, full reduction.
    let out = montmul_output(&["gen", "--bits", "256", "--lang", "rust"]);
    let spec = Spec::new(256, Lang::Rust, Algo::Cios, Word::W64, false).expect("valid");
    assert_eq!(
        String::from_utf8(out.stdout).expect("text"),
        generate(&spec)
    );
}

#[test]
fn refuses_bad_requests() {
    refused_saying(
        &["gen", "--bits", "63", "--lang", "c"],
        "64 to 4096 bits, not 63",
    );
    refused_saying(&["gen", "--bits", "5000", "--lang", "c"], "not 5000");
    refused_saying(
        &["gen", "--bits", "256", "--lang", "go"],
        "unknown language 'go'",
    );
    refused_saying(
        &["gen", "--bits", "256", "--lang", "c", "--word", "16"],
        "32 or 64, not 16",
    );
    refused_saying(
        &["gen", "--bits", "256", "--lang", "c", "--algo", "fips"],
        "unknown algorithm 'fips'",
    );
    refused_saying(&["gen", "--bits", "many", "--lang", "c"], "--bits");
    refused_saying(&["gen", "--lang", "c"], "--bits");
}

#[test]
fn writes_the_file_whole_or_not_at_all() {
    let scratch = Dir::new();
    let dir = scratch.root();
    let path = dir.join("k.rs");
    let path_text = path.to_str().expect("utf-8 path");
    let out = montmul_output(&["gen", "--bits", "512", "--lang", "rust", "--out", path_text]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "--out prints nothing");
    let spec = Spec::new(512, Lang::Rust, Algo::Cios, Word::W64, false).expect("valid");
    assert_eq!(
        std::fs::read_to_string(&path).expect("written"),
        generate(&spec)
    );
    assert_eq!(entries(dir), ["k.rs"], "no temporary file is left");

    // A bad request leaves the existing file as it was.
    refused_saying(
        &["gen", "--bits", "1", "--lang", "rust", "--out", path_text],
        "not 1",
    );
    assert_eq!(
        std::fs::read_to_string(&path).expect("kept"),
        generate(&spec)
    );

    // Unwritable targets: a missing directory, and a path that is a directory.
    let missing = dir.join("no-such-dir").join("k.c");
    refused_saying(
        &[
            "gen",
            "--bits",
            "256",
            "--lang",
            "c",
            "--out",
            missing.to_str().expect("utf-8"),
        ],
        "cannot write",
    );
    std::fs::create_dir_all(dir.join("taken").join("inner")).expect("dir");
    let taken = dir.join("taken");
    refused_saying(
        &[
            "gen",
            "--bits",
            "256",
            "--lang",
            "c",
            "--out",
            taken.to_str().expect("utf-8"),
        ],
        "cannot write",
    );
    assert_eq!(entries(dir), ["k.rs", "taken"], "no temporary file is left");
}
