//! Writing a generated file so that it is either complete or absent.

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::GenError;

/// Writes `text` to `path` atomically: into a temporary file in the same directory,
/// flushed to disk, then renamed over `path`. On any failure the temporary file is
/// removed and `path` is left as it was.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), GenError> {
    let fail = |e: std::io::Error| GenError::Write {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let name = path.file_name().ok_or_else(|| {
        fail(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a file name",
        ))
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let temp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = fs::File::create(&temp).and_then(|mut f| {
        f.write_all(text.as_bytes())?;
        f.sync_all()
    });
    let result = written.and_then(|()| fs::rename(&temp, path));
    if let Err(e) = result {
        // The temporary file may not exist (create failed); either way none is left.
        let _ = fs::remove_file(&temp);
        return Err(fail(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_files_and_leaves_nothing_on_failure() {
        let dir = std::env::temp_dir().join(format!("montmul-gen-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("k.c");
        write_atomically(&path, "first").unwrap();
        write_atomically(&path, "second").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "second");
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "a temporary file was left"
        );

        // Renaming onto a directory fails after the temporary file was written.
        let blocked = dir.join("sub");
        fs::create_dir_all(blocked.join("inner")).unwrap();
        let err = write_atomically(&blocked, "text").unwrap_err();
        assert!(matches!(err, GenError::Write { .. }), "{err}");
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            2,
            "a temporary file was left"
        );

        let missing = dir.join("no-such-dir").join("k.c");
        assert!(write_atomically(&missing, "text").is_err());
        fs::remove_dir_all(&dir).unwrap();
    }
}
