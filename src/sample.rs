//! The bundled corpora (the Acme Sync help centre and the lesson corpora), shipped inside the
//! binary so that an installed `ranklens` finds them wherever it runs.
//!
//! They are written out once into the workspace, in a folder named by a hash of their contents
//! (an upgrade with other files writes a new folder), because the loaders, the SQLite import and
//! the graph reader all read files. Run from a checkout, the checkout's own `sample-corpus/` is
//! used instead, so a developer's edits to it show at once.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::{Error, Result};

/// Every bundled file, by its path under `sample-corpus/`.
const FILES: &[(&str, &[u8])] = &[
    ("acme-sync/answers.tsv", include_bytes!("../sample-corpus/acme-sync/answers.tsv")),
    ("acme-sync/corpus.jsonl", include_bytes!("../sample-corpus/acme-sync/corpus.jsonl")),
    ("acme-sync/errors.csv", include_bytes!("../sample-corpus/acme-sync/errors.csv")),
    ("acme-sync/graph.txt", include_bytes!("../sample-corpus/acme-sync/graph.txt")),
    ("acme-sync/questions.tsv", include_bytes!("../sample-corpus/acme-sync/questions.tsv")),
    ("lessons/README.md", include_bytes!("../sample-corpus/lessons/README.md")),
    ("lessons/bm25-example.json", include_bytes!("../sample-corpus/lessons/bm25-example.json")),
    ("lessons/isro.jsonl", include_bytes!("../sample-corpus/lessons/isro.jsonl")),
    ("lessons/mozart.jsonl", include_bytes!("../sample-corpus/lessons/mozart.jsonl")),
    ("lessons/reader.jsonl", include_bytes!("../sample-corpus/lessons/reader.jsonl")),
];

/// The sample's passages (title and text), read from the bytes inside the binary: texts that are
/// always there, for timing the model's kernels on this CPU.
pub fn passages() -> Vec<String> {
    let Some((_, bytes)) = FILES.iter().find(|(name, _)| *name == "acme-sync/corpus.jsonl") else {
        return Vec::new();
    };
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            let field = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").trim().to_string();
            format!("{} {}", field("title"), field("text")).trim().to_string()
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// The Acme Sync sample corpus folder.
pub fn acme_sync() -> Result<PathBuf> {
    Ok(root()?.join("acme-sync"))
}

/// The folder of the lesson corpora (`isro.jsonl`, `mozart.jsonl`, `reader.jsonl`, the BM25
/// example).
pub fn lessons() -> Result<PathBuf> {
    Ok(root()?.join("lessons"))
}

/// `sample-corpus/` of the checkout the program runs from, else the bundled copy in the workspace.
fn root() -> Result<PathBuf> {
    let local = Path::new("sample-corpus");
    if local.join("acme-sync").join("corpus.jsonl").is_file() {
        return Ok(local.to_path_buf());
    }
    write_bundle(&crate::workspace_dir().join("sample"))
}

/// A short hash of every bundled file's name and bytes.
fn bundle_hash() -> String {
    let mut h = Sha256::new();
    for (name, bytes) in FILES {
        h.update(name.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    hex::encode(&h.finalize()[..8])
}

/// Write the bundle under `base` (once: a finished copy is reused) and return its folder. The
/// copy is written into a private folder and renamed into place, so a half-written copy is never
/// seen, and two processes starting at once both end up with a whole one.
fn write_bundle(base: &Path) -> Result<PathBuf> {
    let target = base.join(bundle_hash());
    if target.join("acme-sync").join("corpus.jsonl").is_file() {
        return Ok(target);
    }
    let tmp = base.join(format!(".partial-{}-{}", std::process::id(), bundle_hash()));
    let _ = std::fs::remove_dir_all(&tmp);
    for (name, bytes) in FILES {
        let path = tmp.join(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        std::fs::write(&path, bytes).map_err(|e| Error::io(&path, e))?;
    }
    match std::fs::rename(&tmp, &target) {
        Ok(()) => Ok(target),
        // Another process put its copy in place first: use that one.
        Err(_) if target.join("acme-sync").join("corpus.jsonl").is_file() => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(target)
        }
        Err(e) => Err(Error::io(&target, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_is_written_once_and_equals_the_checkout() {
        let base = tempfile::tempdir().unwrap();
        let dir = write_bundle(base.path()).unwrap();
        for (name, _) in FILES {
            let written = std::fs::read(dir.join(name)).unwrap();
            let source = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus").join(name)).unwrap();
            assert_eq!(written, source, "{name}");
        }
        // A second call reuses the copy; nothing partial is left behind.
        assert_eq!(write_bundle(base.path()).unwrap(), dir);
        let entries: Vec<_> = std::fs::read_dir(base.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(entries.len(), 1, "{entries:?}");
    }

    #[test]
    fn every_file_of_the_sample_folders_is_bundled() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
        let mut on_disk = Vec::new();
        for sub in ["acme-sync", "lessons"] {
            for e in std::fs::read_dir(root.join(sub)).unwrap() {
                on_disk.push(format!("{sub}/{}", e.unwrap().file_name().to_string_lossy()));
            }
        }
        on_disk.sort();
        let bundled: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(bundled, on_disk);
    }
}
