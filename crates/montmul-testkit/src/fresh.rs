//! Whether a prebuilt binary a test runs (the valgrind harnesses, built in release with
//! a feature `cargo test` does not turn on) is older than the sources it is built from:
//! such a binary would check the code as it was, and the test would pass or fail for
//! the wrong reason.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The most recently modified `.rs` file under `paths` (files or directories, relative to
/// `root`), with its modification time.
///
/// # Panics
/// When a directory cannot be read or a file's modification time is unknown.
pub fn newest_source(root: &Path, paths: &[&str]) -> Option<(SystemTime, PathBuf)> {
    let mut todo: Vec<PathBuf> = paths.iter().map(|p| root.join(p)).collect();
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    while let Some(path) = todo.pop() {
        if path.is_dir() {
            let entries =
                std::fs::read_dir(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            todo.extend(entries.map(|e| e.expect("a directory entry").path()));
        } else if path.extension().is_some_and(|x| x == "rs") {
            let modified = path
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or_else(|e| panic!("modification time of {}: {e}", path.display()));
            if newest.as_ref().is_none_or(|(t, _)| modified > *t) {
                newest = Some((modified, path));
            }
        }
    }
    newest
}

/// Fails the calling test, with the command that rebuilds it, when the binary `bin` is
/// older than any `.rs` file under `sources` (relative to `root`).
///
/// # Panics
/// When `bin` is stale, or its or a source's modification time is unknown.
pub fn assert_built_after(bin: &Path, root: &Path, sources: &[&str], build: &str) {
    let built = bin
        .metadata()
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("modification time of {}: {e}", bin.display()));
    if let Some((changed, file)) = newest_source(root, sources) {
        assert!(
            changed <= built,
            "{} is older than {}, so it would check the code as it was: rebuild it with\n\n    \
             {build}\n\nand run the test again",
            bin.display(),
            file.display()
        );
    }
}
