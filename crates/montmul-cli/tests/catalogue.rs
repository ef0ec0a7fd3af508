//! The bad-input catalogue of `docs/SECURITY.md`, walked through the CLI: every row
//! whose input is a `montmul` command line is run, and must give its documented exit
//! status and stderr line, print nothing, and leave the scratch directory as it was.
//! Every other row (the library's) must name the test files that show its answer, and
//! they must exist.

#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The catalogue section of `docs/SECURITY.md`.
fn catalogue() -> String {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/SECURITY.md");
    let text = fs::read_to_string(&doc).expect("docs/SECURITY.md");
    let start = text
        .find("\n## Bad-input catalogue\n")
        .expect("a `## Bad-input catalogue` section");
    let rest = &text[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
    rest[..end].to_string()
}

/// One table row: (input, status, answer), code spans unwrapped.
fn rows(section: &str) -> Vec<(String, String, String)> {
    let unwrap = |cell: &str| cell.trim().trim_matches('`').trim().replace("\u{1}", "|");
    section
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
        .skip(1) // the header
        .map(|l| {
            // `\|` is a pipe inside a cell.
            let cells: Vec<String> = l.replace("\\|", "\u{1}").split('|').map(unwrap).collect();
            assert_eq!(cells.len(), 6, "a row of four cells: {l}");
            (cells[2].clone(), cells[3].clone(), cells[4].clone())
        })
        .collect()
}

/// What is under `dir`: each path with its type and, for a regular file, its contents.
fn snapshot(dir: &Path) -> Vec<(PathBuf, String, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        let kind = fs::symlink_metadata(&path).expect("meta").file_type();
        if kind.is_dir() {
            out.push((path.clone(), "dir".into(), None));
            out.extend(snapshot(&path));
        } else if kind.is_file() {
            let text = fs::read(&path).expect("read");
            out.push((path, "file".into(), Some(text)));
        } else {
            out.push((path, format!("{kind:?}"), None));
        }
    }
    out.sort();
    out
}

/// Replaces the catalogue's placeholders.
fn expand(text: &str, dir: &Path) -> String {
    let ones = vec!["1"; 65].join(",");
    let big_exp = format!("1{}", "0".repeat(16384));
    let big_modulus = format!("1{}1", "0".repeat(4200));
    text.replace("$DIR", dir.to_str().expect("utf-8 path"))
        .replace("$ONES65", &ones)
        .replace("$BIG_EXP", &big_exp)
        .replace("$BIG_MODULUS", &big_modulus)
}

/// The arguments of a row whose input is a `montmul` command line.
fn cli_command(input: &str) -> Option<&str> {
    input
        .strip_prefix("montmul")
        .filter(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// The test sources a row names (`crates/x/tests/a.rs`, `tests/{a,b}.rs`, `a.rs`), each
/// resolved to a file of the repository where one exists: from the repository's root,
/// from a crate's directory, or by file name under `crates/`.
fn named_sources(row: &str, root: &Path) -> Vec<(String, Option<PathBuf>)> {
    let mut names = Vec::new();
    for word in row.split(|c: char| !(c.is_alphanumeric() || "_./{},-".contains(c))) {
        let Some(stem) = word.strip_suffix(".rs") else {
            continue;
        };
        // `dir/{a,b}_x` names `dir/a_x.rs` and `dir/b_x.rs`.
        match (stem.find('{'), stem.find('}')) {
            (Some(open), Some(close)) if open < close => {
                for alt in stem[open + 1..close].split(',') {
                    names.push(format!("{}{alt}{}.rs", &stem[..open], &stem[close + 1..]));
                }
            }
            _ => names.push(format!("{stem}.rs")),
        }
    }
    let crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates/")
        .map(|e| e.expect("entry").path())
        .collect();
    names
        .into_iter()
        .map(|name| {
            let direct = std::iter::once(root.join(&name))
                .chain(crates.iter().map(|c| c.join(&name)))
                .find(|p| p.is_file());
            let found = direct.or_else(|| {
                crates
                    .iter()
                    .flat_map(|c| [c.join("tests"), c.join("src")])
                    .find_map(|dir| find_file(&dir, &name))
            });
            (name, found)
        })
        .collect()
}

/// A file named `name` under `dir`, at any depth.
fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    for entry in fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.is_dir() {
            if let Some(found) = find_file(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|f| f == name) {
            return Some(path);
        }
    }
    None
}

/// The first 300 characters of `text`, for messages.
fn truncated(text: &str) -> String {
    text.chars().take(300).collect()
}

#[test]
fn every_catalogued_bad_input_gets_its_one_error_line() {
    let dir = std::env::temp_dir().join(format!("montmul-catalogue-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("taken")).expect("scratch dir");
    let ro = dir.join("ro.rs");
    fs::write(&ro, "keep\n").expect("write");
    let mut perms = fs::metadata(&ro).expect("meta").permissions();
    perms.set_readonly(true);
    fs::set_permissions(&ro, perms).expect("read-only");
    // A file that is not a regular one, safe to lose if a regression replaced it (a
    // device such as /dev/null is not: as root, a rename would replace it).
    #[cfg(unix)]
    let _socket = std::os::unix::net::UnixListener::bind(dir.join("sock")).expect("socket");
    let before = snapshot(&dir);

    let section = catalogue();
    let mut ran = 0;
    let mut failures = Vec::new();
    for (input, status, answer) in rows(&section) {
        let Some(command) = cli_command(&input) else {
            continue; // a library row, or one run by another test
        };
        if status != "2" {
            continue; // the closed pipe: tests/reliability.rs
        }
        let (command, full) = match command.strip_suffix("> /dev/full") {
            Some(c) => (c, true),
            None => (command, false),
        };
        let args: Vec<String> = command
            .split_whitespace()
            .map(|a| expand(a, &dir))
            .collect();
        let stdout = if full {
            let Ok(f) = fs::OpenOptions::new().write(true).open("/dev/full") else {
                montmul_testkit::skipped!("SKIPPED: {input}: no /dev/full");
                continue;
            };
            Stdio::from(f)
        } else {
            Stdio::piped()
        };
        let out = Command::new(env!("CARGO_BIN_EXE_montmul"))
            .args(&args)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let want = format!("{}\n", expand(&answer, &dir));
        // Every row is run, and every failing one reported, not only the first.
        let mut wrong = Vec::new();
        if out.status.code() != Some(2) {
            wrong.push(format!("exit status {:?}", out.status.code()));
        }
        if stderr != want {
            wrong.push(format!("stderr {:?}", truncated(&stderr)));
        }
        if !out.stdout.is_empty() {
            wrong.push("printed to stdout".to_string());
        }
        if snapshot(&dir) != before {
            wrong.push("the directory changed".to_string());
        }
        if !wrong.is_empty() {
            failures.push(format!("{}: {}", truncated(&input), wrong.join("; ")));
        }
        ran += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 40, "only {ran} rows ran: is the table intact?");
    let mut perms = fs::metadata(&ro).expect("meta").permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    fs::set_permissions(&ro, perms).expect("writable");
    fs::remove_dir_all(&dir).expect("clean up");
}

/// The rows the walk above does not run (the library's; outputs that another test
/// checks) each name at least one test source, and every source named exists: a row
/// cannot point at a test that was renamed or never written.
#[test]
fn every_other_row_names_test_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let section = catalogue();
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in section
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
        .skip(1)
    {
        // `\|` is a pipe inside a cell.
        let line = line.replace("\\|", "\u{1}");
        let cells: Vec<&str> = line.split('|').collect();
        let input = cells[2].trim().trim_matches('`');
        let status = cells[3].trim();
        if cli_command(input).is_some() && status == "2" {
            continue; // run by the walk
        }
        let named = named_sources(&line, &root);
        if named.is_empty() {
            failures.push(format!("names no test file: {}", truncated(&line)));
        }
        for (name, found) in named {
            if found.is_none() {
                failures.push(format!("{name}: no such file: {}", truncated(&line)));
            }
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        checked >= 20,
        "only {checked} rows checked: is the table intact?"
    );
}
