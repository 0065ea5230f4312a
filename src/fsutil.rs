//! Writing files so that a failure (a full disk, a killed process) never leaves a half-written
//! file under the name the user asked for, and reading a whole input only up to a bound.
//!
//! The bytes go to a temporary file in the same folder, are flushed to disk, and only then
//! renamed over the final name (a rename within one file system is atomic on every platform
//! RankLens runs on). On any failure the temporary file is removed and a file already at the
//! final name is left as it was.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Error, Result};

/// All of `reader` when it holds at most `cap` bytes; `None` when it holds more (of which at
/// most `cap + 1` bytes were read, so an endless or huge input is never held in memory).
pub fn read_at_most(reader: impl Read, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    reader.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= cap).then_some(bytes))
}

/// A name beside `path` no other writer uses: `.<name>.tmp-<pid>-<n>`.
pub fn staging_path(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp-{}-{n}", std::process::id()))
}

/// Write `bytes` to `path` atomically: the whole file or, on an error naming the path, nothing
/// new (an older file at `path` is kept).
pub fn write_atomic(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    let tmp = staging_path(path);
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes.as_ref())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_write_replaces_the_whole_file_and_leaves_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.html");
        write_atomic(&path, "first").unwrap();
        write_atomic(&path, "second, longer").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second, longer");
        assert_eq!(names(dir.path()), ["report.html"]);
    }

    #[test]
    fn a_failed_rename_keeps_the_old_file_and_removes_the_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        // The final name is a folder with something in it: the rename must fail.
        let path = dir.path().join("out");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("keep"), "kept").unwrap();
        let err = write_atomic(&path, "new").unwrap_err().to_string();
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert_eq!(names(dir.path()), ["out"]);
        assert_eq!(std::fs::read_to_string(path.join("keep")).unwrap(), "kept");
    }

    #[test]
    fn a_missing_folder_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no-such-folder").join("r.md");
        let err = write_atomic(&path, "x").unwrap_err().report();
        assert!(err.contains("no-such-folder/r.md") && err.contains("No such file"), "{err}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any input and cap: the whole input when it fits, nothing when it is longer.
        #[test]
        fn read_at_most_gives_all_or_nothing(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64), cap in 0u64..80) {
            let got = read_at_most(bytes.as_slice(), cap).unwrap();
            proptest::prop_assert_eq!(got, (bytes.len() as u64 <= cap).then(|| bytes.clone()));
        }
    }
}
