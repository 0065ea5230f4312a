//! Relevance grades given in the app, stored in the workspace's SQLite database so they survive
//! restarts, exported and imported as TREC qrels.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};

use super::Qrels;
use crate::{Error, Result};

/// The grade scale: 0 not relevant … 3 perfectly relevant (as relevance-tuning tools use).
pub const MAX_GRADE: i32 = 3;

/// Grades per corpus, keyed by query id and document id.
pub struct JudgementStore {
    conn: Mutex<Connection>,
    path: PathBuf,
}

impl std::fmt::Debug for JudgementStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgementStore").field("path", &self.path).finish()
    }
}

/// The query id of a question: the shipped id when the corpus has this exact question, else a
/// stable id derived from the text (`q-` and 12 hex digits of its sha256).
pub fn question_id(question: &str, shipped: &[crate::corpus::Query]) -> String {
    let q = question.trim();
    if let Some(s) = shipped.iter().find(|s| s.text.trim() == q) {
        return s.id.clone();
    }
    format!("q-{}", &hex::encode(Sha256::digest(q.as_bytes()))[..12])
}

impl JudgementStore {
    /// Open (creating if needed) the store.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        let conn = Connection::open(path).map_err(|e| Error::caused(format!("sql: {}", path.display()), e))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS grades (
                 corpus TEXT NOT NULL,
                 qid TEXT NOT NULL,
                 question TEXT NOT NULL,
                 doc TEXT NOT NULL,
                 grade INTEGER NOT NULL CHECK (grade BETWEEN 0 AND 3),
                 PRIMARY KEY (corpus, qid, doc)
             );",
        )?;
        Ok(Self { conn: Mutex::new(conn), path: path.to_path_buf() })
    }

    fn conn(&self) -> Result<std::sync::MutexGuard<'_, Connection>> {
        self.conn.lock().map_err(|_| Error::Sql("judgement store lock poisoned".into()))
    }

    /// Set (or, with `None`, clear) a grade.
    pub fn set(&self, corpus: &str, qid: &str, question: &str, doc: &str, grade: Option<i32>) -> Result<()> {
        let conn = self.conn()?;
        match grade {
            Some(g) if (0..=MAX_GRADE).contains(&g) => {
                conn.execute(
                    "INSERT OR REPLACE INTO grades (corpus, qid, question, doc, grade) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![corpus, qid, question, doc, g],
                )?;
            }
            Some(g) => return Err(Error::invalid("grade", format!("grades go from 0 to {MAX_GRADE}, got {g}"))),
            None => {
                conn.execute(
                    "DELETE FROM grades WHERE corpus = ?1 AND qid = ?2 AND doc = ?3",
                    params![corpus, qid, doc],
                )?;
            }
        }
        Ok(())
    }

    /// Every grade of a corpus as qrels.
    pub fn qrels(&self, corpus: &str) -> Result<Qrels> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare("SELECT qid, doc, grade FROM grades WHERE corpus = ?1")?;
        let mut q = Qrels::default();
        let rows = stmt.query_map(params![corpus], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, i32>(2)?))
        })?;
        for row in rows {
            let (qid, doc, g) = row?;
            q.insert(&qid, &doc, g);
        }
        Ok(q)
    }

    /// Import qrels (replacing grades of the same query and document). Returns how many.
    pub fn import(&self, corpus: &str, qrels: &Qrels) -> Result<usize> {
        let mut conn = self.conn()?;
        let tx = conn.transaction()?;
        let mut n = 0;
        for (qid, docs) in &qrels.judgements {
            for (doc, g) in docs {
                let g = (*g).clamp(0, MAX_GRADE);
                tx.execute(
                    "INSERT OR REPLACE INTO grades (corpus, qid, question, doc, grade) VALUES (?1, ?2, '', ?3, ?4)",
                    params![corpus, qid, doc, g],
                )?;
                n += 1;
            }
        }
        tx.commit()?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_persist_and_round_trip_through_trec() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        {
            let s = JudgementStore::open(&path).unwrap();
            s.set("c", "q1", "What?", "d2", Some(3)).unwrap();
            s.set("c", "q1", "What?", "d1", Some(0)).unwrap();
            s.set("c", "q2", "Who?", "d9", Some(1)).unwrap();
            s.set("c", "q2", "Who?", "d9", Some(2)).unwrap();
            s.set("other", "q1", "What?", "d2", Some(1)).unwrap();
            assert!(s.set("c", "q1", "What?", "d3", Some(4)).is_err());
            s.set("c", "q1", "What?", "d7", Some(1)).unwrap();
            s.set("c", "q1", "What?", "d7", None).unwrap();
        }
        let s = JudgementStore::open(&path).unwrap();
        let q = s.qrels("c").unwrap();
        assert_eq!(q.to_trec(), "q1 0 d1 0\nq1 0 d2 3\nq2 0 d9 2\n");
        let (parsed, warnings) = Qrels::parse(&q.to_trec(), Path::new("x"));
        assert!(warnings.is_empty());
        let fresh = JudgementStore::open(&dir.path().join("k.sqlite")).unwrap();
        assert_eq!(fresh.import("c", &parsed).unwrap(), 3);
        assert_eq!(fresh.qrels("c").unwrap(), q);
    }

    #[test]
    fn question_ids_are_stable() {
        let shipped = vec![crate::corpus::Query { id: "q7".into(), text: "What is E140?".into() }];
        assert_eq!(question_id(" What is E140? ", &shipped), "q7");
        let a = question_id("something new", &shipped);
        assert_eq!(a, question_id("something new", &[]));
        assert!(a.starts_with("q-") && a.len() == 14);
    }
}
