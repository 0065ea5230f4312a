//! A SQLite cache of encodings keyed by model id and text hash, so reopening a corpus does not
//! re-encode it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use crate::{Error, Result};

/// Cached encodings in a workspace database.
pub struct EmbeddingCache {
    conn: Mutex<Connection>,
    path: PathBuf,
}

impl std::fmt::Debug for EmbeddingCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddingCache").field("path", &self.path).finish()
    }
}

/// sha256 of a text, hex.
pub fn text_hash(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

impl EmbeddingCache {
    /// Open (creating if needed) the cache database.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        let conn = Connection::open(path).map_err(|e| Error::caused(format!("sql: {}", path.display()), e))?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE IF NOT EXISTS encodings (
                 model_id TEXT NOT NULL,
                 kind TEXT NOT NULL,
                 text_hash TEXT NOT NULL,
                 data BLOB NOT NULL,
                 PRIMARY KEY (model_id, kind, text_hash)
             );",
        )?;
        Ok(Self { conn: Mutex::new(conn), path: path.to_path_buf() })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A cached blob.
    pub fn get(&self, model_id: &str, kind: &str, text: &str) -> Result<Option<Vec<u8>>> {
        let conn = self.conn.lock().map_err(|_| Error::Sql("cache lock poisoned".into()))?;
        Ok(conn
            .query_row(
                "SELECT data FROM encodings WHERE model_id = ?1 AND kind = ?2 AND text_hash = ?3",
                params![model_id, kind, text_hash(text)],
                |r| r.get::<_, Vec<u8>>(0),
            )
            .optional()?)
    }

    /// Store blobs for several texts in one transaction.
    pub fn put_many(&self, model_id: &str, kind: &str, items: &[(&str, Vec<u8>)]) -> Result<()> {
        let mut conn = self.conn.lock().map_err(|_| Error::Sql("cache lock poisoned".into()))?;
        let tx = conn.transaction()?;
        {
            let mut stmt = tx.prepare(
                "INSERT OR REPLACE INTO encodings (model_id, kind, text_hash, data) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (text, data) in items {
                stmt.execute(params![model_id, kind, text_hash(text), data])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// How many of `texts` are stored for a model and kind.
    pub fn count_stored<'a>(
        &self,
        model_id: &str,
        kind: &str,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> Result<usize> {
        let conn = self.conn.lock().map_err(|_| Error::Sql("cache lock poisoned".into()))?;
        let mut stmt = conn.prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM encodings WHERE model_id = ?1 AND kind = ?2 AND text_hash = ?3)",
        )?;
        let mut n = 0;
        for text in texts {
            if stmt.query_row(params![model_id, kind, text_hash(text)], |r| r.get::<_, bool>(0))? {
                n += 1;
            }
        }
        Ok(n)
    }

    /// Number of entries for a model and kind.
    pub fn count(&self, model_id: &str, kind: &str) -> Result<usize> {
        let conn = self.conn.lock().map_err(|_| Error::Sql("cache lock poisoned".into()))?;
        let n: i64 = conn.query_row(
            "SELECT COUNT(*) FROM encodings WHERE model_id = ?1 AND kind = ?2",
            params![model_id, kind],
            |r| r.get(0),
        )?;
        Ok(n as usize)
    }
}

/// f32 slice ↔ little-endian bytes.
pub fn f32s_to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Little-endian bytes → f32 values (a trailing partial value is ignored).
pub fn bytes_to_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_counts() {
        let dir = tempfile::tempdir().unwrap();
        let cache = EmbeddingCache::open(&dir.path().join("c.sqlite")).unwrap();
        assert_eq!(cache.get("m", "dense", "hello").unwrap(), None);
        cache.put_many("m", "dense", &[("hello", f32s_to_bytes(&[1.5, -2.0])), ("bye", vec![])]).unwrap();
        let got = cache.get("m", "dense", "hello").unwrap().unwrap();
        assert_eq!(bytes_to_f32s(&got), [1.5, -2.0]);
        assert_eq!(cache.count("m", "dense").unwrap(), 2);
        assert_eq!(cache.count("other", "dense").unwrap(), 0);
        assert_eq!(cache.count_stored("m", "dense", ["bye", "hello", "hello", "new"]).unwrap(), 3);
        assert_eq!(cache.count_stored("m", "tokens", ["bye"]).unwrap(), 0);
    }
}
