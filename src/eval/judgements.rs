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
///
/// What SQLite promises, kept for the user's grades:
/// - on open, the database is checked (`PRAGMA quick_check`); a sound one is copied to
///   `<file>.bak` (a consistent copy, `VACUUM INTO`), so the grades as of the last good start can
///   always be restored; a damaged one is left untouched and refused with a message naming the
///   backup and how to restore it;
/// - a grade that cannot be written (the file is locked by another program, the disk is full) is
///   kept in memory, shown as given, and written with the next grade that can be; whatever is
///   still unwritten when the store closes goes to `<file>.unsaved.tsv`.
pub struct JudgementStore {
    conn: Mutex<Connection>,
    path: PathBuf,
    /// Grades not yet written: (corpus, qid, question, doc, grade or `None` to clear).
    pending: Mutex<Vec<PendingGrade>>,
    /// In memory only (the file could not be used): everything is written to the spill file when
    /// the store closes.
    memory_only: bool,
}

type PendingGrade = (String, String, String, String, Option<i32>);

impl std::fmt::Debug for JudgementStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgementStore").field("path", &self.path).field("memory_only", &self.memory_only).finish()
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

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS grades (
         corpus TEXT NOT NULL,
         qid TEXT NOT NULL,
         question TEXT NOT NULL,
         doc TEXT NOT NULL,
         grade INTEGER NOT NULL CHECK (grade BETWEEN 0 AND 3),
         PRIMARY KEY (corpus, qid, doc)
     );";

/// How long a write waits for another program's lock before the grade is kept in memory.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(250);

/// `<file><suffix>`, next to the file.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

impl JudgementStore {
    /// Open (creating if needed) the store, check it and back it up. A damaged database is an
    /// error that says where the backup is and how to restore it; the file is not touched.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        let backup = Self::backup_path(path);
        let damaged = |why: String| {
            let restore = if backup.is_file() {
                format!(
                    "the grades as of the last good start are in {}: close RankLens and copy that file over \
                     {} to restore them",
                    backup.display(),
                    path.display()
                )
            } else {
                "there is no backup yet".to_string()
            };
            Error::invalid(
                path.display().to_string(),
                format!("the judgements database is damaged ({why}); it is left as it is; {restore}"),
            )
        };
        let existed = path.is_file();
        let conn = Connection::open(path).map_err(|e| Error::caused(format!("sql: {}", path.display()), e))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        if existed {
            let check: String =
                conn.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(|e| damaged(e.to_string()))?;
            if check != "ok" {
                return Err(damaged(check));
            }
        }
        conn.execute_batch(SCHEMA).map_err(|e| damaged(e.to_string()))?;
        if existed {
            // A consistent copy, written beside and renamed over the last backup.
            let tmp = sibling(path, ".bak.tmp");
            let _ = std::fs::remove_file(&tmp);
            let copied = conn.execute("VACUUM INTO ?1", params![tmp.to_string_lossy()]);
            match copied {
                Ok(_) => std::fs::rename(&tmp, &backup).map_err(|e| Error::io(&backup, e))?,
                Err(e) => {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(Error::caused(
                        format!("sql: backing up {} to {}", path.display(), backup.display()),
                        e,
                    ));
                }
            }
        }
        let store =
            Self { conn: Mutex::new(conn), path: path.to_path_buf(), pending: Mutex::default(), memory_only: false };
        store.take_in_spill()?;
        Ok(store)
    }

    /// Grades an earlier session could not write (its spill file) go into the database now; the
    /// spill file is removed only once they are committed.
    fn take_in_spill(&self) -> Result<usize> {
        let spill = Self::spill_path(&self.path);
        let Ok(text) = std::fs::read_to_string(&spill) else { return Ok(0) };
        let mut grades = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let f: Vec<&str> = line.split('\t').collect();
            let grade = match f.get(3) {
                Some(&"-") => None,
                Some(g) => match g.parse::<i32>() {
                    Ok(g) if (0..=MAX_GRADE).contains(&g) => Some(g),
                    _ => return Err(Error::invalid(format!("{}:{}", spill.display(), i + 1), "not a grade")),
                },
                None if line.trim().is_empty() => continue,
                None => {
                    return Err(Error::invalid(
                        format!("{}:{}", spill.display(), i + 1),
                        "expected corpus, query id, document id and grade separated by tabs",
                    ));
                }
            };
            grades.push((f[0].to_string(), f[1].to_string(), String::new(), f[2].to_string(), grade));
        }
        let mut conn = self.conn()?;
        let tx = conn.transaction()?;
        for g in &grades {
            Self::write(&tx, g)?;
        }
        tx.commit()?;
        drop(conn);
        std::fs::remove_file(&spill).map_err(|e| Error::io(&spill, e))?;
        Ok(grades.len())
    }

    /// A store kept in memory, for when the file cannot be used: grades work for this session
    /// and are written to [`JudgementStore::spill_path`] of `path` when the store closes.
    pub fn in_memory(path: &Path) -> Result<Self> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(SCHEMA)?;
        Ok(Self { conn: Mutex::new(conn), path: path.to_path_buf(), pending: Mutex::default(), memory_only: true })
    }

    /// Where the backup of `path` is kept.
    pub fn backup_path(path: &Path) -> PathBuf {
        sibling(path, ".bak")
    }

    /// Where grades that could not be written to `path` go when the store closes
    /// (`corpus<TAB>qid<TAB>doc<TAB>grade` lines; a grade of `-` clears).
    pub fn spill_path(path: &Path) -> PathBuf {
        sibling(path, ".unsaved.tsv")
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Grades given but not yet written to the file.
    pub fn unsaved(&self) -> usize {
        self.pending.lock().map(|p| p.len()).unwrap_or(0)
    }

    fn conn(&self) -> Result<std::sync::MutexGuard<'_, Connection>> {
        self.conn.lock().map_err(|_| Error::Sql("judgement store lock poisoned".into()))
    }

    fn write(conn: &Connection, (corpus, qid, question, doc, grade): &PendingGrade) -> rusqlite::Result<usize> {
        match grade {
            Some(g) => conn.execute(
                "INSERT OR REPLACE INTO grades (corpus, qid, question, doc, grade) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![corpus, qid, question, doc, g],
            ),
            None => conn
                .execute("DELETE FROM grades WHERE corpus = ?1 AND qid = ?2 AND doc = ?3", params![corpus, qid, doc]),
        }
    }

    /// Set (or, with `None`, clear) a grade. When the file cannot be written, the grade is kept
    /// (and shown) all the same and the error says so; it is written with the next grade that can be.
    pub fn set(&self, corpus: &str, qid: &str, question: &str, doc: &str, grade: Option<i32>) -> Result<()> {
        if let Some(g) = grade.filter(|g| !(0..=MAX_GRADE).contains(g)) {
            return Err(Error::invalid("grade", format!("grades go from 0 to {MAX_GRADE}, got {g}")));
        }
        let mut pending = self.pending.lock().map_err(|_| Error::Sql("judgement store lock poisoned".into()))?;
        pending.push((corpus.into(), qid.into(), question.into(), doc.into(), grade));
        let mut conn = self.conn()?;
        let written = conn.transaction().and_then(|tx| {
            for p in pending.iter() {
                Self::write(&tx, p)?;
            }
            tx.commit()
        });
        match written {
            Ok(()) => {
                pending.clear();
                Ok(())
            }
            Err(e) => {
                let why = match e.sqlite_error_code() {
                    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                        "the file is locked by another program (another RankLens?)".to_string()
                    }
                    Some(rusqlite::ErrorCode::DiskFull) => "the disk is full".to_string(),
                    _ => e.to_string(),
                };
                Err(Error::Sql(format!(
                    "{}: {why}; {} grade(s) are kept in memory and will be written with the next grade that \
                     can be (or to {} when RankLens closes)",
                    self.path.display(),
                    pending.len(),
                    Self::spill_path(&self.path).display()
                )))
            }
        }
    }

    /// Every grade of a corpus as qrels, including those not yet written.
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
        if let Ok(pending) = self.pending.lock() {
            for (c, qid, _, doc, grade) in pending.iter().filter(|p| p.0 == corpus) {
                debug_assert_eq!(c, corpus);
                match grade {
                    Some(g) => q.insert(qid, doc, *g),
                    None => q.remove(qid, doc),
                }
            }
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

    /// Write what could not be written to the spill file (every grade, for a store in memory).
    fn spill(&self) -> Result<usize> {
        let mut lines: Vec<String> = Vec::new();
        let cell = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        if self.memory_only {
            let conn = self.conn()?;
            let mut stmt = conn.prepare("SELECT corpus, qid, doc, grade FROM grades ORDER BY corpus, qid, doc")?;
            let rows = stmt.query_map([], |r| {
                Ok(format!(
                    "{}\t{}\t{}\t{}",
                    cell(&r.get::<_, String>(0)?),
                    cell(&r.get::<_, String>(1)?),
                    cell(&r.get::<_, String>(2)?),
                    r.get::<_, i32>(3)?
                ))
            })?;
            for row in rows {
                lines.push(row?);
            }
        }
        if let Ok(pending) = self.pending.lock() {
            for (corpus, qid, _, doc, grade) in pending.iter() {
                let g = grade.map_or("-".to_string(), |g| g.to_string());
                lines.push(format!("{}\t{}\t{}\t{g}", cell(corpus), cell(qid), cell(doc)));
            }
        }
        if lines.is_empty() {
            return Ok(0);
        }
        use std::io::Write;
        let spill = Self::spill_path(&self.path);
        let mut f =
            std::fs::OpenOptions::new().create(true).append(true).open(&spill).map_err(|e| Error::io(&spill, e))?;
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        f.write_all(text.as_bytes()).and_then(|()| f.sync_all()).map_err(|e| Error::io(&spill, e))?;
        Ok(lines.len())
    }
}

impl Drop for JudgementStore {
    /// Last chance for grades not yet written: the file, else the spill file.
    fn drop(&mut self) {
        let retried = !self.memory_only
            && self.unsaved() > 0
            && self.conn().is_ok_and(|mut conn| {
                let Ok(pending) = self.pending.lock() else { return false };
                conn.transaction()
                    .and_then(|tx| {
                        for p in pending.iter() {
                            Self::write(&tx, p)?;
                        }
                        tx.commit()
                    })
                    .is_ok()
            });
        if retried && let Ok(mut p) = self.pending.lock() {
            p.clear();
        }
        let _ = self.spill();
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
        assert_eq!(q.to_trec().unwrap(), "q1 0 d1 0\nq1 0 d2 3\nq2 0 d9 2\n");
        let (parsed, warnings) = Qrels::parse(&q.to_trec().unwrap(), Path::new("x"));
        assert!(warnings.is_empty());
        let fresh = JudgementStore::open(&dir.path().join("k.sqlite")).unwrap();
        assert_eq!(fresh.import("c", &parsed).unwrap(), 3);
        assert_eq!(fresh.qrels("c").unwrap(), q);
    }

    #[test]
    fn a_damaged_database_is_refused_untouched_with_its_backup_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        {
            let s = JudgementStore::open(&path).unwrap();
            s.set("c", "q1", "What?", "d1", Some(2)).unwrap();
        }
        // Second open: the sound file is backed up, grades and all.
        drop(JudgementStore::open(&path).unwrap());
        let backup = JudgementStore::backup_path(&path);
        assert_eq!(JudgementStore::open(&backup).unwrap().qrels("c").unwrap().to_trec().unwrap(), "q1 0 d1 2\n");
        // Damage: overwrite the middle of the file.
        let mut bytes = std::fs::read(&path).unwrap();
        let garbage = vec![0xA5u8; bytes.len() / 2];
        let at = bytes.len() / 4;
        bytes.splice(at..at + garbage.len(), garbage);
        std::fs::write(&path, &bytes).unwrap();
        let backup_before = std::fs::read(&backup).unwrap();
        let err = JudgementStore::open(&path).unwrap_err().to_string();
        assert!(err.contains("the judgements database is damaged"), "{err}");
        assert!(err.contains(&backup.display().to_string()) && err.contains("copy that file over"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "the damaged file is left as it was");
        assert_eq!(std::fs::read(&backup).unwrap(), backup_before, "the backup is not overwritten");
        // Following the message restores the grades.
        std::fs::copy(&backup, &path).unwrap();
        assert_eq!(JudgementStore::open(&path).unwrap().qrels("c").unwrap().to_trec().unwrap(), "q1 0 d1 2\n");
    }

    #[test]
    fn a_locked_database_keeps_grades_in_memory_until_they_can_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let s = JudgementStore::open(&path).unwrap();
        s.set("c", "q1", "What?", "d1", Some(1)).unwrap();
        // Another program holds a write lock.
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN EXCLUSIVE").unwrap();
        let err = s.set("c", "q1", "What?", "d2", Some(3)).unwrap_err().to_string();
        assert!(err.contains("locked by another program") && err.contains("1 grade(s) are kept"), "{err}");
        assert_eq!(s.unsaved(), 1);
        other.execute_batch("COMMIT").unwrap();
        // Shown as given all along, written with the next grade.
        s.set("c", "q2", "Who?", "d3", Some(0)).unwrap();
        assert_eq!(s.unsaved(), 0);
        drop(s);
        let again = JudgementStore::open(&path).unwrap();
        assert_eq!(again.qrels("c").unwrap().to_trec().unwrap(), "q1 0 d1 1\nq1 0 d2 3\nq2 0 d3 0\n");
    }

    #[test]
    fn grades_that_never_reach_the_file_are_spilled_and_taken_in_at_the_next_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        {
            let s = JudgementStore::in_memory(&path).unwrap();
            s.set("c", "q1", "What?", "d1", Some(2)).unwrap();
            s.set("c", "q\t1", "What?", "d2", Some(3)).unwrap();
            s.set("c", "q1", "What?", "d2", None).unwrap();
            let q = s.qrels("c").unwrap();
            assert_eq!((q.grade("q\t1", "d2"), q.grade("q1", "d1"), q.grade("q1", "d2")), (Some(3), Some(2), None));
            assert!(q.to_tsv().unwrap_err().to_string().contains("tab"), "no writer makes a broken line");
        }
        let spill = JudgementStore::spill_path(&path);
        assert_eq!(std::fs::read_to_string(&spill).unwrap(), "c\tq 1\td2\t3\nc\tq1\td1\t2\n");
        let s = JudgementStore::open(&path).unwrap();
        let q = s.qrels("c").unwrap();
        assert_eq!(q.to_tsv().unwrap(), "query-id\tcorpus-id\tscore\nq 1\td2\t3\nq1\td1\t2\n");
        assert!(q.to_trec().unwrap_err().to_string().contains("query id \"q 1\""));
        assert!(!spill.exists(), "taken in");
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
