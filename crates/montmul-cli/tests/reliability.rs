//! Output destinations beyond the catalogue's one-line errors: a closed pipe, and what
//! an atomic `--out` leaves behind (modes, symlinks). The error cases themselves are
//! rows of the catalogue (`tests/catalogue.rs`).

mod common;

use std::fs;
use std::io::Read;
use std::process::Stdio;

use common::{montmul_command, Dir};

fn gen_out(path: &std::path::Path) -> std::process::Output {
    montmul_command()
        .args(["gen", "--bits", "256", "--lang", "c", "--out"])
        .arg(path)
        .output()
        .expect("runs")
}

#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    // The kernel for 4096 bits is far larger than a pipe's buffer, so the writer is
    // still writing when the reader goes away after one byte.
    let mut child = montmul_command()
        .args(["gen", "--bits", "4096", "--lang", "c"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut first = [0u8; 1];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("one byte");
    let out = child.wait_with_output().expect("ends");
    assert_eq!(out.status.code(), Some(141), "128 + SIGPIPE");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[cfg(unix)]
#[test]
fn a_new_file_gets_the_mode_of_a_plain_create_and_a_replaced_one_keeps_its_own() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = Dir::new();
    let dir = scratch.root();
    let mode = |p: &std::path::Path| fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    // What this process' umask gives a new file (the child inherits the umask).
    let plain = dir.join("plain");
    fs::File::create(&plain).expect("create");
    let new = dir.join("new.c");
    assert!(gen_out(&new).status.success());
    assert_eq!(mode(&new), mode(&plain), "not tempfile's 0600");

    let kept = dir.join("kept.c");
    fs::write(&kept, "old").expect("write");
    fs::set_permissions(&kept, fs::Permissions::from_mode(0o640)).expect("chmod");
    assert!(gen_out(&kept).status.success());
    assert_eq!(mode(&kept), 0o640);
    assert_ne!(fs::read_to_string(&kept).expect("read"), "old");
}

#[cfg(unix)]
#[test]
fn a_symlink_at_the_destination_is_replaced_not_written_through() {
    let scratch = Dir::new();
    let dir = scratch.root();
    let victim = dir.join("victim");
    fs::write(&victim, "untouched").expect("write");
    let link = dir.join("k.c");
    std::os::unix::fs::symlink(&victim, &link).expect("symlink");
    assert!(gen_out(&link).status.success());
    assert_eq!(fs::read_to_string(&victim).expect("read"), "untouched");
    assert!(!fs::symlink_metadata(&link).expect("meta").is_symlink());
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["k.c", "victim"], "no temporary file is left");
}
