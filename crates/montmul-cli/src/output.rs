//! Where the CLI's results go: standard output, or a file replaced atomically.
//!
//! Every result goes through here, so that each write failure has one answer: a full
//! disk (`> /dev/full`) or any other error is `error: cannot write output: ...` and exit
//! status 2, while a reader that closed the pipe early (`montmul gen ... | head -1`)
//! ends the program quietly, as SIGPIPE ends a C program.
//!
//! A file given with `--out` is complete or untouched: the text goes to a temporary
//! file made by `tempfile` in the destination's directory (a fresh, unpredictable name,
//! created exclusively, so a planted symlink is never followed), which is then renamed
//! over the destination. The temporary file is created before any work, so a
//! destination that cannot be written fails at once, not after minutes of measuring.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::CliError;

/// The status a shell reports for a writer cut off by its reader: 128 + SIGPIPE.
const BROKEN_PIPE_STATUS: i32 = 141;

/// Writes `text` to standard output and flushes it. A closed pipe ends the program
/// quietly; any other failure is an error.
pub fn stdout(text: &str) -> Result<(), CliError> {
    stdout_bytes(text.as_bytes())
}

/// [`stdout`] for binary output (a signature, a DER key).
pub fn stdout_bytes(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(BROKEN_PIPE_STATUS),
        Err(e) => Err(CliError(format!("cannot write output: {e}"))),
    }
}

/// `println!` through [`stdout`]: evaluates to `Result<(), CliError>`.
macro_rules! outln {
    () => {
        $crate::output::stdout("\n")
    };
    ($($arg:tt)*) => {
        $crate::output::stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;

/// A destination file opened for an atomic replacement: the temporary file beside it
/// exists from [`AtomicFile::create`] on, and nothing at the destination changes
/// before [`AtomicFile::commit`]. Dropped without a commit, it leaves nothing behind.
pub struct AtomicFile {
    path: PathBuf,
    temp: NamedTempFile,
}

impl AtomicFile {
    /// Checks that `path` may be replaced and creates the temporary file beside it.
    ///
    /// Refused: a path without a file name, a directory, anything but a regular file
    /// (a device, a FIFO), a file the user could not write directly (read-only by its
    /// mode, or refused when opened for writing), and a directory where no file can be
    /// created. A symlink at `path` is replaced by the new file, never written through.
    pub fn create(path: &Path) -> Result<Self, CliError> {
        let fail = |why: String| CliError(format!("cannot write {}: {why}", path.display()));
        if path.file_name().is_none() {
            return Err(fail("not a file name".into()));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let existing = match fs::metadata(path) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(fail(e.to_string())),
        };
        if let Some(meta) = &existing {
            if meta.is_dir() {
                return Err(fail("it is a directory".into()));
            }
            if !meta.is_file() {
                return Err(fail("not a regular file".into()));
            }
            // Renaming over a file needs only the directory's permission; refuse what
            // the user could not overwrite in place. Opening without truncation
            // changes nothing.
            if meta.permissions().readonly() {
                return Err(fail("the file is read-only; not replaced".into()));
            }
            if let Err(e) = fs::OpenOptions::new().write(true).open(path) {
                return Err(fail(format!("{e}; not replaced")));
            }
        }
        let mut builder = tempfile::Builder::new();
        builder.prefix(".montmul-").suffix(".tmp");
        set_mode(&mut builder, existing.as_ref());
        let temp = builder
            .tempfile_in(dir)
            .map_err(|e| fail(format!("{}: {}", dir.display(), without_temp_path(&e))))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            temp,
        })
    }

    /// Writes `text` (text or bytes) to the temporary file, syncs it and renames it
    /// over the destination. On failure the destination is as it was and no temporary
    /// file is left.
    pub fn commit(mut self, text: impl AsRef<[u8]>) -> Result<(), CliError> {
        let fail = |e: &dyn std::fmt::Display| {
            CliError(format!("cannot write {}: {e}", self.path.display()))
        };
        let file = self.temp.as_file_mut();
        file.write_all(text.as_ref())
            .and_then(|()| file.sync_all())
            .map_err(|e| fail(&e))?;
        self.temp
            .persist(&self.path)
            .map(drop)
            .map_err(|e| fail(&e.error))
    }
}

/// Makes the temporary file readable and writable by its owner only (mode 0600), for
/// a private key; the destination gets this mode when the file is committed.
#[cfg(unix)]
pub fn owner_only(file: &AtomicFile) -> Result<(), CliError> {
    use std::os::unix::fs::PermissionsExt;
    file.temp
        .as_file()
        .set_permissions(fs::Permissions::from_mode(0o600))
        .map_err(|e| CliError(format!("cannot write {}: {e}", file.path.display())))
}

/// Elsewhere the file keeps the system's default permissions.
#[cfg(not(unix))]
pub fn owner_only(_: &AtomicFile) -> Result<(), CliError> {
    Ok(())
}

/// The mode of the new file: the replaced file's, or the one a plain create gives
/// (0666 less the umask, which the system applies) rather than tempfile's 0600.
#[cfg(unix)]
fn set_mode(builder: &mut tempfile::Builder<'_, '_>, existing: Option<&fs::Metadata>) {
    use std::os::unix::fs::PermissionsExt;
    builder.permissions(existing.map_or_else(
        || fs::Permissions::from_mode(0o666),
        fs::Metadata::permissions,
    ));
}

/// Elsewhere the new file keeps the system's default permissions.
#[cfg(not(unix))]
fn set_mode(_: &mut tempfile::Builder<'_, '_>, _: Option<&fs::Metadata>) {}

/// The system's reason without the name of the temporary file that tempfile appends
/// as `... at path "..."` (the user never named that file).
fn without_temp_path(e: &io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at path \"") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// Writes `text` (text or bytes) to `path` atomically: see [`AtomicFile`].
pub fn write_atomically(path: &Path, text: impl AsRef<[u8]>) -> Result<(), CliError> {
    AtomicFile::create(path)?.commit(text)
}
