//! What an assignment writes: each student's `questions.json` and handout, and the checksummed
//! `key.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::lessons::checkpoint::{Checkpoint, Question};
use crate::{Error, Result};

/// One student's questions, with their keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sheet {
    /// The student.
    pub student: String,
    /// The questions (keys included).
    pub questions: Vec<Checkpoint>,
}

/// A whole assignment.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// The lesson.
    pub lesson: String,
    /// The lesson's title.
    pub title: String,
    /// The seed.
    pub seed: u64,
    /// The corpus the variants were drawn from.
    pub corpus: String,
    /// One sheet per student, in roster order.
    pub sheets: Vec<Sheet>,
    /// The text of every passage a question names, by id (what the handouts print).
    pub texts: BTreeMap<String, String>,
}

/// What a student is given: `questions.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Questions {
    /// The student.
    pub student: String,
    /// The lesson.
    pub lesson: String,
    /// The questions, without their answers.
    pub questions: Vec<Question>,
}

/// `key.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Key {
    /// The lesson.
    pub lesson: String,
    /// The seed.
    pub seed: u64,
    /// student → question id → the question with its solution.
    pub students: BTreeMap<String, BTreeMap<String, Checkpoint>>,
    /// sha256 of the lesson, seed and students (canonical JSON): an edited key no longer matches.
    pub checksum: String,
}

impl Key {
    /// The checksum of a key's content.
    pub fn compute_checksum(
        lesson: &str,
        seed: u64,
        students: &BTreeMap<String, BTreeMap<String, Checkpoint>>,
    ) -> String {
        let body = serde_json::json!({"lesson": lesson, "seed": seed, "students": students});
        hex::encode(Sha256::digest(body.to_string().as_bytes()))
    }

    /// Read and check a key file.
    pub fn read(path: &Path) -> Result<Key> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Key::parse(&bytes, &path.display().to_string())
    }

    /// Parse and check a key's bytes.
    pub fn parse(bytes: &[u8], source: &str) -> Result<Key> {
        let key: Key = serde_json::from_slice(bytes)
            .map_err(|e| Error::invalid(format!("{source}:{}", e.line()), format!("not an assignment key: {e}")))?;
        let expected = Key::compute_checksum(&key.lesson, key.seed, &key.students);
        if expected != key.checksum {
            return Err(Error::invalid(
                source,
                "the key's checksum no longer matches its content: it was edited after `ranklens assignment new` wrote it (make it again with the same lesson, roster and seed)",
            ));
        }
        Ok(key)
    }
}

impl Assignment {
    /// The key of every student's questions.
    pub fn key(&self) -> Key {
        let students: BTreeMap<String, BTreeMap<String, Checkpoint>> = self
            .sheets
            .iter()
            .map(|s| {
                let qs = s.questions.iter().map(|c| (c.question.id.clone(), c.clone())).collect();
                (s.student.clone(), qs)
            })
            .collect();
        let checksum = Key::compute_checksum(&self.lesson, self.seed, &students);
        Key { lesson: self.lesson.clone(), seed: self.seed, students, checksum }
    }

    /// A student's `questions.json`.
    pub fn questions(&self, sheet: &Sheet) -> Questions {
        Questions {
            student: sheet.student.clone(),
            lesson: self.lesson.clone(),
            questions: sheet.questions.iter().map(|c| c.question.clone()).collect(),
        }
    }

    /// Write `DIR/<student>/questions.json`, `DIR/<student>/handout.html` and `DIR/key.json`.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let mut written = Vec::new();
        let title = &self.title;
        for sheet in &self.sheets {
            let folder = dir.join(&sheet.student);
            std::fs::create_dir_all(&folder).map_err(|e| Error::io(&folder, e))?;
            let q = folder.join("questions.json");
            let json = serde_json::to_vec_pretty(&self.questions(sheet))
                .map_err(|e| Error::invalid("questions", e.to_string()))?;
            crate::fsutil::write_atomic(&q, json)?;
            let h = folder.join("handout.html");
            let subtitle = format!(
                "Assignment for {} — lesson `{}`, drawn from {} (seed {}). Work each answer by hand from the passages and \
                 the statistics given; numbers to four decimals.",
                sheet.student, self.lesson, self.corpus, self.seed
            );
            let page = super::printout::handout(
                &format!("{title}: assignment"),
                &subtitle,
                &sheet.student,
                &sheet.questions,
                &self.texts,
            );
            crate::fsutil::write_atomic(&h, page)?;
            written.extend([q, h]);
        }
        let k = dir.join("key.json");
        let json = serde_json::to_vec_pretty(&self.key()).map_err(|e| Error::invalid("key", e.to_string()))?;
        crate::fsutil::write_atomic(&k, json)?;
        written.push(k);
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_s_checksum_is_the_sha256_of_its_content_and_an_edit_is_refused() {
        // sha256 of `{"lesson":"bm25","seed":7,"students":{}}`, by Python's hashlib.
        let empty = BTreeMap::new();
        assert_eq!(
            Key::compute_checksum("bm25", 7, &empty),
            "b872fda6100954ce934b9f3badc87a7e85abd17810ee39df73228c990e4a4880"
        );
        let key = Key { lesson: "bm25".into(), seed: 7, students: empty, checksum: String::new() };
        let good = serde_json::json!({
            "lesson": "bm25", "seed": 7, "students": {},
            "checksum": "b872fda6100954ce934b9f3badc87a7e85abd17810ee39df73228c990e4a4880"
        });
        assert_eq!(Key::parse(good.to_string().as_bytes(), "key.json").unwrap().seed, key.seed);
        let mut edited = good.clone();
        edited["seed"] = serde_json::json!(8);
        let e = Key::parse(edited.to_string().as_bytes(), "key.json").unwrap_err().to_string();
        assert!(e.contains("key.json") && e.contains("checksum no longer matches"), "{e}");
    }
}
