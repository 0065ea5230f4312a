//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared evaluation collections: `$RANKLENS_DATA`, else `../shared/data` next to the
/// repository. A missing folder fails the test with instructions rather than skipping it.
pub fn shared_data(name: &str) -> PathBuf {
    let base = std::env::var_os("RANKLENS_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("shared").join("data"));
    let dir = base.join(name);
    assert!(
        dir.join("corpus.jsonl").is_file(),
        "{} not found: put the BEIR collections in ../shared/data or set RANKLENS_DATA",
        dir.display()
    );
    dir
}

/// The bundled sample corpus.
pub fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-corpus").join(name)
}
