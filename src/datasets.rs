//! Test collections by name: the public BEIR collections (SciFact, NFCorpus, FiQA, ArguAna …),
//! each fetched from its published zip into the workspace's data folder, checked against the md5
//! BEIR's README gives for it, and unpacked atomically (into a staging folder renamed into place
//! only once whole), so `--dataset scifact` works anywhere after `ranklens data fetch scifact`.
//!
//! A download that is refused, cut short or does not match its md5 leaves nothing behind, and the
//! error names the URL and the folder to put the files in by hand. A zip whose entries would land
//! outside the folder (`../x`, an absolute path) is refused whole.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use md5::{Digest, Md5};
use serde::Serialize;

use crate::progress::{Progress, check_cancel};
use crate::{Error, Result};

/// Where BEIR publishes its collections (its README's download links).
pub const BEIR_URL: &str = "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets";

/// One public collection: its BEIR name, what it is, its size, and the md5 of its zip as BEIR's
/// README gives it (beir-cellar/beir, README at ef83d29).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Collection {
    /// BEIR's name (`scifact`), what `--dataset` takes.
    pub name: &'static str,
    /// What it is.
    pub about: &'static str,
    /// Test questions.
    pub queries: &'static str,
    /// Passages.
    pub passages: &'static str,
    /// md5 of the zip.
    pub md5: &'static str,
}

/// The public BEIR collections, smallest first.
pub const COLLECTIONS: [Collection; 14] = [
    Collection {
        name: "scifact",
        about: "scientific claims against paper abstracts",
        queries: "300",
        passages: "5K",
        md5: "5f7d1de60b170fc8027bb7898e2efca1",
    },
    Collection {
        name: "nfcorpus",
        about: "nutrition questions against medical articles",
        queries: "323",
        passages: "3.6K",
        md5: "a89dba18a62ef92f7d323ec890a0d38d",
    },
    Collection {
        name: "arguana",
        about: "arguments against their counter-arguments",
        queries: "1,406",
        passages: "8.67K",
        md5: "8ad3e3c2a5867cdced806d6503f29b99",
    },
    Collection {
        name: "scidocs",
        about: "paper titles against cited papers",
        queries: "1,000",
        passages: "25K",
        md5: "38121350fc3a4d2f48850f6aff52e4a9",
    },
    Collection {
        name: "fiqa",
        about: "financial questions against forum answers",
        queries: "648",
        passages: "57K",
        md5: "17918ed23cd04fb15047f73e6c3bd9d9",
    },
    Collection {
        name: "trec-covid",
        about: "COVID-19 questions against CORD-19 articles",
        queries: "50",
        passages: "171K",
        md5: "ce62140cb23feb9becf6270d0d1fe6d1",
    },
    Collection {
        name: "webis-touche2020",
        about: "controversial questions against arguments",
        queries: "49",
        passages: "382K",
        md5: "46f650ba5a527fc69e0a6521c5a23563",
    },
    Collection {
        name: "cqadupstack",
        about: "StackExchange questions against their duplicates",
        queries: "13,145",
        passages: "457K",
        md5: "4e41456d7df8ee7760a7f866133bda78",
    },
    Collection {
        name: "quora",
        about: "questions against their duplicates",
        queries: "10,000",
        passages: "523K",
        md5: "18fb154900ba42a600f84b839c173167",
    },
    Collection {
        name: "nq",
        about: "Google questions against Wikipedia",
        queries: "3,452",
        passages: "2.68M",
        md5: "d4d3d2e48787a744b6f6e691ff534307",
    },
    Collection {
        name: "dbpedia-entity",
        about: "entity questions against DBpedia",
        queries: "400",
        passages: "4.63M",
        md5: "c2a39eb420a3164af735795df012ac2c",
    },
    Collection {
        name: "hotpotqa",
        about: "multi-hop questions against Wikipedia",
        queries: "7,405",
        passages: "5.23M",
        md5: "f412724f78b0d91183a0e86805e16114",
    },
    Collection {
        name: "fever",
        about: "claims against Wikipedia",
        queries: "6,666",
        passages: "5.42M",
        md5: "5a818580227bfb4b35bb6fa46d9b6c03",
    },
    Collection {
        name: "climate-fever",
        about: "climate claims against Wikipedia",
        queries: "1,535",
        passages: "5.42M",
        md5: "8b66f0a9126c521bae2bde127b4dc99d",
    },
];

/// A collection by name.
pub fn collection(name: &str) -> Option<&'static Collection> {
    COLLECTIONS.iter().find(|c| c.name == name)
}

/// What a question set's file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QaFormat {
    /// SQuAD's JSON: paragraphs, questions and answer spans — a whole collection.
    Squad,
    /// DPR's `question<TAB>["answer", …]`: questions and answers only, read against a corpus
    /// loaded beside them.
    Dpr,
}

/// A question set with answers, published as one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct QaSet {
    /// Its name (`squad-dev`).
    pub name: &'static str,
    /// What it is.
    pub about: &'static str,
    /// Questions.
    pub questions: &'static str,
    /// The file as kept in its folder.
    pub file: &'static str,
    /// Where it is published.
    pub url: &'static str,
    /// Whether the published file is gzipped.
    pub gz: bool,
    /// Its shape.
    pub format: QaFormat,
}

/// The question sets with answers: SQuAD's dev sets (each a whole collection) and DPR's
/// open-domain test questions (answers only: read them against a corpus such as BEIR's `nq`).
/// None has a published checksum; each is checked by reading it whole (every SQuAD answer's offset
/// against its paragraph) before it is kept.
pub const QA_SETS: [QaSet; 4] = [
    QaSet {
        name: "squad-dev",
        about: "SQuAD v1.1 dev: Wikipedia paragraphs, questions, answer spans",
        questions: "10,570",
        file: "dev-v1.1.json",
        url: "https://rajpurkar.github.io/SQuAD-explorer/dataset/dev-v1.1.json",
        gz: false,
        format: QaFormat::Squad,
    },
    QaSet {
        name: "squad2-dev",
        about: "SQuAD v2.0 dev: as v1.1, half the questions unanswerable",
        questions: "11,873",
        file: "dev-v2.0.json",
        url: "https://rajpurkar.github.io/SQuAD-explorer/dataset/dev-v2.0.json",
        gz: false,
        format: QaFormat::Squad,
    },
    QaSet {
        name: "nq-test",
        about: "Natural Questions (DPR's open-domain test answers; corpus: nq)",
        questions: "3,610",
        file: "nq-test.qa.csv",
        url: "https://dl.fbaipublicfiles.com/dpr/data/retriever/nq-test.qa.csv",
        gz: false,
        format: QaFormat::Dpr,
    },
    QaSet {
        name: "trivia-test",
        about: "TriviaQA (DPR's open-domain test answers)",
        questions: "11,313",
        file: "trivia-test.qa.csv",
        url: "https://dl.fbaipublicfiles.com/dpr/data/retriever/trivia-test.qa.csv.gz",
        gz: true,
        format: QaFormat::Dpr,
    },
];

/// A question set by name.
pub fn qa_set(name: &str) -> Option<&'static QaSet> {
    QA_SETS.iter().find(|q| q.name == name)
}

/// A question set's file once fetched.
pub fn qa_file(data: &Path, q: &QaSet) -> PathBuf {
    data.join(q.name).join(q.file)
}

/// The workspace's folder of collections.
pub fn data_dir(workspace: &Path) -> PathBuf {
    workspace.join("data")
}

/// Whether a folder holds a BEIR collection (its corpus, questions and judgements).
pub fn is_collection(dir: &Path) -> bool {
    dir.join("corpus.jsonl").is_file() && dir.join("queries.jsonl").is_file() && dir.join("qrels").is_dir()
}

/// What `--dataset` was given, as a folder: a path that exists is itself; a collection's name is its
/// folder in `data` when fetched; anything else says what to do.
pub fn resolve(given: &str, data: &Path) -> std::result::Result<PathBuf, String> {
    let path = PathBuf::from(given);
    if path.exists() {
        return Ok(path);
    }
    if let Some(q) = qa_set(given) {
        let file = qa_file(data, q);
        return if file.is_file() {
            Ok(file)
        } else {
            Err(format!(
                "{} is not here yet: run `ranklens data fetch {}` (it goes to {})",
                q.name,
                q.name,
                file.display()
            ))
        };
    }
    match collection(given) {
        Some(c) if is_collection(&data.join(c.name)) => Ok(data.join(c.name)),
        Some(c) => Err(format!(
            "{} is not here yet: run `ranklens data fetch {}` (it goes to {})",
            c.name,
            c.name,
            data.join(c.name).display()
        )),
        None => Err(format!(
            "no folder {given}, and no collection of that name ({}; `ranklens data list` shows them)",
            COLLECTIONS.iter().map(|c| c.name).chain(QA_SETS.iter().map(|q| q.name)).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// Fetches collections into a data folder.
#[derive(Debug, Clone)]
pub struct Fetcher {
    data: PathBuf,
    base_url: String,
    /// md5s to expect in place of the published ones, by name.
    pins: std::collections::BTreeMap<String, String>,
}

impl Fetcher {
    /// Into `data`, from BEIR's published zips.
    pub fn new(data: PathBuf) -> Self {
        Self { data, base_url: BEIR_URL.to_string(), pins: Default::default() }
    }

    /// Expect `md5` for the collection `name` instead of BEIR's (tests serve zips of their own).
    pub fn with_pin(mut self, name: &str, md5: &str) -> Self {
        self.pins.insert(name.to_string(), md5.to_string());
        self
    }

    /// From another address (a mirror, or a loopback server in tests).
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into().trim_end_matches('/').to_string();
        self
    }

    /// The zip's address.
    pub fn url(&self, c: &Collection) -> String {
        format!("{}/{}.zip", self.base_url, c.name)
    }

    /// A question set's address: its published one, or its file name under the base URL given.
    pub fn qa_url(&self, q: &QaSet) -> String {
        if self.base_url == BEIR_URL {
            q.url.to_string()
        } else {
            let published = q.url.rsplit('/').next().unwrap_or(q.file);
            format!("{}/{published}", self.base_url)
        }
    }

    /// A question set's file, fetched when it is not there yet: downloaded, unzipped when
    /// gzipped, read whole (SQuAD's every answer checked against its paragraph; DPR's every line),
    /// and only then moved into place. Nothing is left behind by a failure.
    pub fn fetch_qa(&self, q: &QaSet, progress: &dyn Progress) -> Result<PathBuf> {
        let dest = qa_file(&self.data, q);
        if dest.is_file() {
            return Ok(dest);
        }
        fs::create_dir_all(&self.data).map_err(|e| Error::io(&self.data, e))?;
        let url = self.qa_url(q);
        let part = self.data.join(format!(".{}-{}.part", q.name, std::process::id()));
        let staging = self.data.join(format!(".{}-{}.staging", q.name, std::process::id()));
        let folder = self.data.join(q.name);
        let by_hand = || format!("download {url} yourself into {}", folder.display());
        let failed = |message: String| Error::Download { collection: q.name.to_string(), message };
        let result = (|| {
            let md5 = self.download(&url, &part, progress).map_err(|e| match e {
                Error::Cancelled => Error::Cancelled,
                e => failed(format!("{}; or {}", e.report(), by_hand())),
            })?;
            if let Some(expected) = self.pins.get(q.name)
                && md5 != *expected
            {
                return Err(failed(format!(
                    "{url}: md5 {md5} is not the expected {expected} (a changed or damaged file); nothing was kept"
                )));
            }
            fs::create_dir_all(&staging).map_err(|e| Error::io(&staging, e))?;
            let file = staging.join(q.file);
            if q.gz {
                let input = fs::File::open(&part).map_err(|e| Error::io(&part, e))?;
                let mut out = fs::File::create(&file).map_err(|e| Error::io(&file, e))?;
                std::io::copy(&mut flate2::read::GzDecoder::new(input), &mut out)
                    .map_err(|e| Error::caused(format!("{url}: not gzip"), e))?;
            } else {
                fs::rename(&part, &file).map_err(|e| Error::io(&file, e))?;
            }
            match q.format {
                QaFormat::Squad => {
                    let bytes = fs::read(&file).map_err(|e| Error::io(&file, e))?;
                    crate::corpus::squad::parse(&bytes, &file)?;
                }
                QaFormat::Dpr => {
                    crate::corpus::load_answers(&file, &mut crate::corpus::LoadReport::default())?;
                }
            }
            let _ = fs::remove_dir_all(&folder);
            fs::rename(&staging, &folder).map_err(|e| Error::io(&folder, e))?;
            Ok(dest.clone())
        })();
        let _ = fs::remove_file(&part);
        let _ = fs::remove_dir_all(&staging);
        result
    }

    /// The collection's folder, fetched and unpacked when it is not there yet (or a question
    /// set's file, [`Fetcher::fetch_qa`]).
    pub fn fetch(&self, name: &str, progress: &dyn Progress) -> Result<PathBuf> {
        if let Some(q) = qa_set(name) {
            return self.fetch_qa(q, progress);
        }
        let Some(c) = collection(name) else {
            return Err(Error::invalid("collection", resolve(name, &self.data).err().unwrap_or_default()));
        };
        let dest = self.data.join(c.name);
        if is_collection(&dest) {
            return Ok(dest);
        }
        fs::create_dir_all(&self.data).map_err(|e| Error::io(&self.data, e))?;
        let url = self.url(c);
        let part = self.data.join(format!(".{}-{}.zip.part", c.name, std::process::id()));
        let staging = self.data.join(format!(".{}-{}.staging", c.name, std::process::id()));
        let by_hand = || {
            format!(
                "download {url} yourself and unzip it into {} (its corpus.jsonl, queries.jsonl and qrels/ go in {})",
                self.data.display(),
                dest.display()
            )
        };
        let failed = |message: String| Error::Download { collection: c.name.to_string(), message };
        let result = (|| {
            let md5 = self.download(&url, &part, progress).map_err(|e| match e {
                Error::Cancelled => Error::Cancelled,
                e => failed(format!("{}; or {}", e.report(), by_hand())),
            })?;
            let expected = self.pins.get(c.name).map(String::as_str).unwrap_or(c.md5);
            if md5 != expected {
                return Err(failed(format!(
                    "{url}: md5 {md5} is not the published {expected} (a changed or damaged file); nothing was \
                     kept; or {}",
                    by_hand()
                )));
            }
            unzip(&part, &staging, progress)?;
            // The zip holds one folder named after the collection.
            let inside = staging.join(c.name);
            let root = if is_collection(&inside) { inside } else { staging.clone() };
            if !is_collection(&root) {
                return Err(Error::invalid(
                    url.clone(),
                    "the zip holds no corpus.jsonl, queries.jsonl and qrels/ folder".to_string(),
                ));
            }
            let _ = fs::remove_dir_all(&dest);
            fs::rename(&root, &dest).map_err(|e| Error::io(&dest, e))?;
            Ok(dest.clone())
        })();
        let _ = fs::remove_file(&part);
        let _ = fs::remove_dir_all(&staging);
        result
    }

    /// Stream `url` into `file`, its md5 taken on the way; cancellable between reads.
    fn download(&self, url: &str, file: &Path, progress: &dyn Progress) -> Result<String> {
        let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .tls_config(tls)
            .timeout_connect(Some(Duration::from_secs(15)))
            .timeout_recv_body(Some(Duration::from_secs(600)))
            .http_status_as_error(false)
            .build()
            .into();
        let mut resp = agent.get(url).call().map_err(|e| Error::caused(format!("{url}: no answer"), e))?;
        if resp.status() != 200 {
            return Err(Error::Unavailable(format!("{url}: HTTP {}", resp.status().as_u16())));
        }
        let total =
            resp.headers().get("content-length").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
        progress.stage(&format!("downloading {url}"), total.unwrap_or(0));
        let mut out = fs::File::create(file).map_err(|e| Error::io(file, e))?;
        let mut reader = resp.body_mut().as_reader();
        let mut h = Md5::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut got = 0u64;
        loop {
            check_cancel(progress)?;
            let n = reader.read(&mut buf).map_err(|e| Error::caused(format!("{url}: the download broke off"), e))?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
            out.write_all(&buf[..n]).map_err(|e| Error::io(file, e))?;
            got += n as u64;
            progress.advance(n as u64);
        }
        out.flush().map_err(|e| Error::io(file, e))?;
        if let Some(t) = total.filter(|&t| t != got) {
            return Err(Error::Unavailable(format!("{url}: {got} of {t} bytes arrived (cut short)")));
        }
        Ok(hex::encode(h.finalize()))
    }

    /// Every collection with whether it is here.
    pub fn list(&self) -> Vec<(Collection, Option<PathBuf>)> {
        COLLECTIONS.iter().map(|c| (*c, Some(self.data.join(c.name)).filter(|p| is_collection(p)))).collect()
    }

    /// Every question set with whether it is here.
    pub fn list_qa(&self) -> Vec<(QaSet, Option<PathBuf>)> {
        QA_SETS.iter().map(|q| (*q, Some(qa_file(&self.data, q)).filter(|p| p.is_file()))).collect()
    }
}

/// Unpack `zip` into `into`, refusing it whole when an entry's path would land outside the folder.
/// Whether a zip entry's own name keeps it inside the folder it is unpacked into: relative, no
/// `..` step anywhere, no drive letter — stricter than the zip crate's sanitising, which would
/// quietly rewrite `/tmp/x` to `tmp/x` rather than refuse it.
fn stays_inside(name: &str) -> bool {
    let name = name.replace('\\', "/");
    !name.starts_with('/') && !name.split('/').any(|step| step == ".." || step.contains(':'))
}

fn unzip(zip: &Path, into: &Path, progress: &dyn Progress) -> Result<()> {
    let file = fs::File::open(zip).map_err(|e| Error::io(zip, e))?;
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| Error::caused(format!("{}: not a zip", zip.display()), e))?;
    // Every name checked before anything is written.
    for i in 0..archive.len() {
        let entry = archive.by_index(i).map_err(|e| Error::caused(format!("{}: entry {i}", zip.display()), e))?;
        let name = entry
            .name()
            .map(|n| n.into_owned())
            .map_err(|e| Error::caused(format!("{}: entry {i}'s name", zip.display()), e))?;
        if entry.enclosed_name().is_none() || !stays_inside(&name) {
            return Err(Error::invalid(
                zip.display().to_string(),
                format!("its entry {name:?} would land outside the folder; nothing was unpacked"),
            ));
        }
    }
    progress.stage("unpacking", archive.len() as u64);
    fs::create_dir_all(into).map_err(|e| Error::io(into, e))?;
    for i in 0..archive.len() {
        check_cancel(progress)?;
        let mut entry = archive.by_index(i).map_err(|e| Error::caused(format!("{}: entry {i}", zip.display()), e))?;
        let Some(name) = entry.enclosed_name() else { continue };
        let path = into.join(name);
        if entry.is_dir() {
            fs::create_dir_all(&path).map_err(|e| Error::io(&path, e))?;
        } else {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
            }
            let mut out = fs::File::create(&path).map_err(|e| Error::io(&path, e))?;
            std::io::copy(&mut entry, &mut out).map_err(|e| Error::io(&path, e))?;
        }
        progress.advance(1);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_resolves_to_its_fetched_folder_and_otherwise_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let e = resolve("scifact", &data).unwrap_err();
        assert!(e.contains("ranklens data fetch scifact") && e.contains("data/scifact"), "{e}");
        let e = resolve("no-such", &data).unwrap_err();
        assert!(e.contains("nfcorpus") && e.contains("ranklens data list"), "{e}");
        let here = data.join("scifact");
        fs::create_dir_all(here.join("qrels")).unwrap();
        fs::write(here.join("corpus.jsonl"), "").unwrap();
        fs::write(here.join("queries.jsonl"), "").unwrap();
        assert_eq!(resolve("scifact", &data).unwrap(), here);
        // A path that exists is itself, whatever its name.
        assert_eq!(resolve(&dir.path().display().to_string(), &data).unwrap(), dir.path());
    }

    #[test]
    fn a_collection_needs_its_corpus_its_questions_and_its_judgements_and_a_qa_set_its_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(data_dir(dir.path()), dir.path().join("data"));
        let c = dir.path().join("c");
        fs::create_dir_all(&c).unwrap();
        // Each part alone and each pair: not a collection; all three: one.
        let parts: [(&str, bool); 3] = [("corpus.jsonl", false), ("queries.jsonl", false), ("qrels", true)];
        for mask in 0..8u32 {
            let _ = fs::remove_dir_all(&c);
            fs::create_dir_all(&c).unwrap();
            for (i, (name, is_dir)) in parts.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    match is_dir {
                        true => fs::create_dir_all(c.join(name)).unwrap(),
                        false => fs::write(c.join(name), "").unwrap(),
                    }
                }
            }
            assert_eq!(is_collection(&c), mask == 7, "parts {mask:03b}");
        }
        let squad = qa_set("squad2-dev").map(|q| (q.name, q.file));
        assert_eq!(squad, Some(("squad2-dev", "dev-v2.0.json")));
        assert!(qa_set("squad3-dev").is_none());
        let q = qa_set("squad-dev").unwrap();
        assert_eq!(qa_file(Path::new("/w/data"), q), Path::new("/w/data/squad-dev/dev-v1.1.json"));
    }

    #[test]
    fn every_collection_has_an_md5_and_a_distinct_name() {
        let mut names: Vec<&str> = COLLECTIONS.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COLLECTIONS.len());
        assert!(COLLECTIONS.iter().all(|c| c.md5.len() == 32 && c.md5.chars().all(|x| x.is_ascii_hexdigit())));
        assert_eq!(Fetcher::new(PathBuf::from("d")).url(&COLLECTIONS[0]), format!("{BEIR_URL}/scifact.zip"));
    }
}
