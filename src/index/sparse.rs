//! The sparse index: one tantivy index per corpus and analyzer, plus the exact statistics every
//! lexical formula needs.
//!
//! tantivy stores postings (term → documents with frequencies and positions) and its own one-byte
//! length norms. RankLens also keeps each document's exact token count (Σ tf over its postings,
//! read once when the index opens), so BM25 and TF-IDF use exact |d| and avgdl; only the `tantivy` variant uses the engine's norms, to show
//! the difference. The index is built as a single segment in corpus order, so tantivy's document
//! number *is* the [`DocId`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tantivy::directory::{MmapDirectory, RamDirectory};
use tantivy::postings::Postings;
use tantivy::schema::{Field, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions, Value};
use tantivy::tokenizer::TokenizerManager;
use tantivy::{DocSet, Index, IndexReader, InvertedIndexReader, Searcher, TERMINATED, TantivyDocument, Term};

use super::impacts;
use super::tokenizer::{self, TOKENIZER_NAME};
use crate::analysis::{Analyzer, AnalyzerConfig};
use crate::corpus::{Corpus, Doc, DocId};
use crate::formula::{TfIdfVariant, okapi_raw_idf};
use crate::progress::{Progress, check_cancel};
use crate::{Error, Result};

const META_FILE: &str = "ranklens-index.json";

/// The on-disk index format. 2: the `english` analyzer makes Lucene's terms (emoji kept, ² and
/// ¼ dropped, Thai runs whole, non-ASCII words stemmed), so an index of format 1 holds other
/// terms and is rebuilt, not reopened.
pub const INDEX_FORMAT: u32 = 2;

/// Where the index lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexLocation {
    /// In memory (small corpora, tests).
    Ram,
    /// In a folder, kept for later runs; documents are stored so the corpus can be reopened from it.
    Dir(PathBuf),
}

/// Collection-wide statistics.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CollectionStats {
    /// Number of documents (N).
    pub n_docs: u64,
    /// Total tokens indexed.
    pub total_tokens: u64,
    /// Average exact document length.
    pub avgdl: f64,
    /// Distinct terms.
    pub vocabulary: u64,
    /// Mean of rank_bm25's raw idf over the vocabulary (for Okapi's ε floor).
    pub okapi_mean_idf: f64,
}

/// Per-document vector lengths for the TF-IDF variants, computed once at open.
#[derive(Debug, Clone, Default)]
pub struct DocNorms {
    /// |d| with w = tf · log2(N/df).
    pub cosine_log2: Vec<f64>,
    /// |d| with w = log10(tf + 1) · log10(N/df).
    pub textbook: Vec<f64>,
}

#[derive(Debug, Serialize, Deserialize)]
struct IndexMeta {
    format: u32,
    analyzer: AnalyzerConfig,
    corpus_name: String,
    fingerprint: String,
    n_docs: u64,
}

/// A built or opened index with its statistics.
pub struct SparseIndex {
    analyzer: Analyzer,
    index: Index,
    _reader: IndexReader,
    searcher: Searcher,
    /// The body field's postings in the single segment (`None` for an empty index).
    inverted: Option<Arc<InvertedIndexReader>>,
    body: Field,
    doc_lens: Vec<u32>,
    stats: CollectionStats,
    norms: DocNorms,
    /// The postings in plain arrays with their bounds, for fast and pruned scoring.
    impacts: impacts::Impacts,
    /// Each term's ordinal (its postings in `impacts`), hashed with FxHash: a question looks up
    /// each of its terms, and SipHash (the standard map's, which resists flooding by keys an
    /// attacker chooses, not a concern for a corpus's own vocabulary) cost more than the lookup.
    ordinals: rustc_hash::FxHashMap<Box<str>, u32>,
}

impl std::fmt::Debug for SparseIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseIndex").field("analyzer", &self.analyzer.config()).field("stats", &self.stats).finish()
    }
}

struct Fields {
    body: Field,
    id: Field,
    title: Field,
    text: Field,
    meta: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(TOKENIZER_NAME)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let body = b.add_text_field("body", TextOptions::default().set_indexing_options(indexing));
    let id = b.add_text_field("id", STORED);
    let title = b.add_text_field("title", STORED);
    let text = b.add_text_field("text", STORED);
    let meta = b.add_text_field("meta", STORED);
    (b.build(), Fields { body, id, title, text, meta })
}

fn tokenizers(analyzer: &Analyzer) -> TokenizerManager {
    let manager = TokenizerManager::default();
    manager.register(TOKENIZER_NAME, tokenizer::AnalyzerTokenizer::new(analyzer.clone()));
    manager
}

impl SparseIndex {
    /// Index a corpus. Work is reported to `progress` and stops with `Error::Cancelled` when asked.
    ///
    /// An index for a folder is written into a staging folder beside it and renamed into place
    /// only when whole, so a full disk, a cancel or a killed process never leaves a half index
    /// under the folder's name (the staging folder is removed on every error).
    pub fn build(
        corpus: &Corpus,
        config: AnalyzerConfig,
        location: &IndexLocation,
        progress: &dyn Progress,
    ) -> Result<SparseIndex> {
        let analyzer = Analyzer::new(config);
        let (_, f) = schema();
        let dir = match location {
            IndexLocation::Ram => {
                let index = Self::write(corpus, &analyzer, RamDirectory::create(), false, progress)?;
                return Self::from_index(index, analyzer, f.body, progress);
            }
            IndexLocation::Dir(dir) => dir,
        };
        if Self::is_stored(dir) || dir.join("meta.json").exists() {
            return Err(Error::invalid(
                dir.display().to_string(),
                "an index already exists here; choose an empty folder or delete it first",
            ));
        }
        if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
            return Err(Error::invalid(
                dir.display().to_string(),
                "the folder is not empty; choose an empty or a new folder for the index",
            ));
        }
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        let staging = crate::fsutil::staging_path(dir);
        let written = (|| {
            std::fs::create_dir_all(&staging).map_err(|e| Error::io(&staging, e))?;
            let mmap =
                MmapDirectory::open(&staging).map_err(|e| Error::caused(format!("index: {}", staging.display()), e))?;
            let index = Self::write(corpus, &analyzer, mmap, true, progress).map_err(|e| match e {
                Error::Tantivy(t) => Error::caused(format!("index: writing {}", dir.display()), t),
                other => other,
            })?;
            drop(index);
            let meta = IndexMeta {
                format: INDEX_FORMAT,
                analyzer: config,
                corpus_name: corpus.name.clone(),
                fingerprint: corpus.fingerprint(),
                n_docs: corpus.len() as u64,
            };
            let json =
                serde_json::to_string_pretty(&meta).map_err(|e| Error::caused("index: writing its description", e))?;
            crate::fsutil::write_atomic(&staging.join(META_FILE), json)?;
            if dir.is_dir() {
                std::fs::remove_dir(dir).map_err(|e| Error::io(dir, e))?;
            }
            std::fs::rename(&staging, dir).map_err(|e| Error::io(dir, e))
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
        let mut index = Index::open_in_dir(dir).map_err(|e| Error::caused(format!("index: {}", dir.display()), e))?;
        index.set_tokenizers(tokenizers(&analyzer));
        Self::from_index(index, analyzer, f.body, progress)
    }

    /// Does `dir` hold a whole index written by [`SparseIndex::build`]?
    pub fn is_stored(dir: &Path) -> bool {
        dir.join(META_FILE).is_file()
    }

    /// Add every document of the corpus, in order, to one segment in `directory`.
    fn write(
        corpus: &Corpus,
        analyzer: &Analyzer,
        directory: impl Into<Box<dyn tantivy::Directory>>,
        store: bool,
        progress: &dyn Progress,
    ) -> Result<Index> {
        let (schema, f) = schema();
        let builder = Index::builder().schema(schema).tokenizers(tokenizers(analyzer));
        let mut writer = builder.single_segment_index_writer(directory, 50_000_000)?;
        progress.stage("indexing", corpus.len() as u64);
        for (i, (_, doc)) in corpus.iter().enumerate() {
            let mut d = TantivyDocument::default();
            d.add_text(f.body, doc.full_text());
            if store {
                d.add_text(f.id, &doc.id);
                d.add_text(f.title, &doc.title);
                d.add_text(f.text, &doc.text);
                d.add_text(f.meta, serde_json::to_string(&doc.fields).unwrap_or_default());
            }
            writer.add_document(d)?;
            if i % 256 == 255 {
                progress.advance(256);
                check_cancel(progress)?;
            }
        }
        progress.advance(corpus.len() as u64 % 256);
        let mut index = writer.finalize()?;
        index.set_tokenizers(tokenizers(analyzer));
        Ok(index)
    }

    /// Open an index written by [`SparseIndex::build`] into a folder, with the corpus stored in it.
    pub fn open(dir: &Path, progress: &dyn Progress) -> Result<(SparseIndex, Corpus)> {
        let meta_path = dir.join(META_FILE);
        let bytes = std::fs::read(&meta_path).map_err(|e| Error::io(&meta_path, e))?;
        let meta: IndexMeta = serde_json::from_slice(&bytes)
            .map_err(|e| Error::invalid(meta_path.display().to_string(), format!("not a RankLens index: {e}")))?;
        if meta.format != INDEX_FORMAT {
            return Err(Error::invalid(
                meta_path.display().to_string(),
                format!(
                    "an index of format {} (this RankLens reads format {INDEX_FORMAT}, whose analyzers make other \
                     terms): build it again with `ranklens index`",
                    meta.format
                ),
            ));
        }
        let analyzer = Analyzer::new(meta.analyzer);
        let mut index = Index::open_in_dir(dir).map_err(|e| Error::caused(format!("index: {}", dir.display()), e))?;
        index.set_tokenizers(tokenizers(&analyzer));
        let (_, f) = schema();
        let opened = Self::from_index(index, analyzer, f.body, progress)?;
        let mut docs = Vec::with_capacity(opened.doc_lens.len());
        for doc in 0..opened.doc_lens.len() as u32 {
            let stored: TantivyDocument = opened.searcher.doc(tantivy::DocAddress::new(0, doc))?;
            let get = |field: Field| stored.get_first(field).and_then(|v| v.as_str()).unwrap_or("").to_string();
            docs.push(Doc {
                id: get(f.id),
                title: get(f.title),
                text: get(f.text),
                fields: serde_json::from_str(&get(f.meta)).unwrap_or_default(),
            });
        }
        let mut corpus = Corpus::from_docs(meta.corpus_name, docs);
        corpus.source = Some(dir.to_path_buf());
        if corpus.fingerprint() != meta.fingerprint {
            return Err(Error::invalid(dir.display().to_string(), "stored documents do not match the index metadata"));
        }
        Ok((opened, corpus))
    }

    /// Read the statistics every formula needs in one pass over the postings: exact document
    /// lengths (Σ tf over a document's terms — tantivy itself only keeps a lossy one-byte norm),
    /// the TF-IDF vector norms and the mean Okapi idf.
    fn from_index(index: Index, analyzer: Analyzer, body: Field, progress: &dyn Progress) -> Result<Self> {
        let reader = index.reader()?;
        let searcher = reader.searcher();
        let segments = searcher.segment_readers();
        if segments.len() > 1 {
            return Err(Error::Index(format!("expected one segment, found {}", segments.len())));
        }
        let inverted = match segments.first() {
            Some(s) => Some(s.inverted_index(body)?),
            None => None,
        };
        let n = segments.first().map(|s| s.max_doc() as usize).unwrap_or(0);
        let n_docs = n as u64;
        let mut doc_lens = vec![0u32; n];
        let mut norms = DocNorms { cosine_log2: vec![0.0; n], textbook: vec![0.0; n] };
        let (mut vocabulary, mut idf_sum) = (0u64, 0.0);
        let mut impacts = impacts::ImpactsBuilder::default();
        let mut ordinals = rustc_hash::FxHashMap::default();
        if let Some(inverted) = &inverted {
            progress.stage("collection statistics", 0);
            let mut stream = inverted.terms().stream().map_err(|e| Error::caused("index", e))?;
            while stream.advance() {
                if vocabulary % 1024 == 0 {
                    check_cancel(progress)?;
                }
                let info = stream.value().clone();
                let df = u64::from(info.doc_freq);
                if let Ok(term) = std::str::from_utf8(stream.key()) {
                    ordinals.insert(Box::from(term), vocabulary as u32);
                }
                vocabulary += 1;
                idf_sum += okapi_raw_idf(n_docs, df);
                let (log2, log10) = (TfIdfVariant::CosineLog2, TfIdfVariant::Textbook);
                let (idf2, idf10) = (log2.idf(n_docs, df), log10.idf(n_docs, df));
                let mut postings = inverted
                    .read_postings_from_terminfo(&info, IndexRecordOption::WithFreqs)
                    .map_err(|e| Error::caused("index", e))?;
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    let tf = postings.term_freq();
                    impacts.push(doc, tf);
                    let i = doc as usize;
                    doc_lens[i] += tf;
                    let tf = f64::from(tf);
                    norms.cosine_log2[i] += (log2.tf_weight(tf) * idf2).powi(2);
                    norms.textbook[i] += (log10.tf_weight(tf) * idf10).powi(2);
                    doc = postings.advance();
                }
                impacts.end_term();
            }
            for v in norms.cosine_log2.iter_mut().chain(norms.textbook.iter_mut()) {
                *v = v.sqrt();
            }
        }
        let total_tokens: u64 = doc_lens.iter().map(|&l| u64::from(l)).sum();
        let stats = CollectionStats {
            n_docs,
            total_tokens,
            avgdl: if n_docs == 0 { 0.0 } else { total_tokens as f64 / n_docs as f64 },
            vocabulary,
            okapi_mean_idf: if vocabulary == 0 { 0.0 } else { idf_sum / vocabulary as f64 },
        };
        let impacts = impacts.finish(&doc_lens);
        Ok(SparseIndex {
            analyzer,
            index,
            _reader: reader,
            searcher,
            inverted,
            body,
            doc_lens,
            stats,
            norms,
            impacts,
            ordinals,
        })
    }

    /// The analyzer the index was built with.
    pub fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// Collection statistics.
    pub fn stats(&self) -> &CollectionStats {
        &self.stats
    }

    /// TF-IDF document norms.
    pub fn norms(&self) -> &DocNorms {
        &self.norms
    }

    /// Exact length of a document in tokens.
    pub fn doc_len(&self, doc: DocId) -> u32 {
        self.doc_lens.get(doc.index()).copied().unwrap_or(0)
    }

    /// Number of documents.
    pub fn num_docs(&self) -> usize {
        self.doc_lens.len()
    }

    /// The tantivy pieces, for the engine's own scoring.
    pub fn tantivy(&self) -> (&Index, &Searcher, Field) {
        (&self.index, &self.searcher, self.body)
    }

    fn term(&self, term: &str) -> Term {
        Term::from_field_text(self.body, term)
    }

    fn inverted(&self) -> Result<Option<&Arc<InvertedIndexReader>>> {
        Ok(self.inverted.as_ref())
    }

    /// The postings as plain arrays with their bounds.
    pub fn impacts(&self) -> &impacts::Impacts {
        &self.impacts
    }

    /// A term's ordinal in the dictionary (the index of its postings in [`SparseIndex::impacts`]).
    pub fn term_ord(&self, term: &str) -> Option<usize> {
        self.ordinals.get(term).map(|&o| o as usize)
    }

    /// Documents containing an (analysed) term.
    pub fn doc_freq(&self, term: &str) -> Result<u64> {
        let Some(inv) = self.inverted()? else {
            return Ok(0);
        };
        Ok(u64::from(inv.doc_freq(&self.term(term)).map_err(|e| Error::caused("index", e))?))
    }

    /// Call `f(doc, tf)` for every posting of a term, in DocId order. Returns the document frequency.
    pub fn for_each_posting(&self, term: &str, mut f: impl FnMut(DocId, u32)) -> Result<u64> {
        let Some(inv) = self.inverted()? else {
            return Ok(0);
        };
        let Some(mut postings) =
            inv.read_postings(&self.term(term), IndexRecordOption::WithFreqs).map_err(|e| Error::caused("index", e))?
        else {
            return Ok(0);
        };
        let df = u64::from(postings.doc_freq());
        let mut doc = postings.doc();
        while doc != TERMINATED {
            f(DocId(doc), postings.term_freq());
            doc = postings.advance();
        }
        Ok(df)
    }

    /// Occurrences of a term in one document (0 when absent).
    pub fn term_freq(&self, term: &str, doc: DocId) -> Result<u32> {
        Ok(self.positions(term, doc)?.len() as u32)
    }

    /// Positions of a term in one document (empty when absent).
    pub fn positions(&self, term: &str, doc: DocId) -> Result<Vec<u32>> {
        let Some(inv) = self.inverted()? else {
            return Ok(Vec::new());
        };
        let Some(mut postings) = inv
            .read_postings(&self.term(term), IndexRecordOption::WithFreqsAndPositions)
            .map_err(|e| Error::caused("index", e))?
        else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        // `seek` requires a target at or after the current document.
        if postings.doc() <= doc.0 && postings.seek(doc.0) == doc.0 {
            postings.positions(&mut out);
        }
        Ok(out)
    }

    /// The postings list of a term: (DocId, tf) pairs.
    pub fn postings(&self, term: &str) -> Result<Vec<(DocId, u32)>> {
        let mut out = Vec::new();
        self.for_each_posting(term, |d, tf| out.push((d, tf)))?;
        Ok(out)
    }

    /// Every term with its document frequency, in term order.
    pub fn vocabulary(&self) -> Result<Vec<(String, u64)>> {
        let Some(inv) = self.inverted()? else {
            return Ok(Vec::new());
        };
        let mut stream = inv.terms().stream().map_err(|e| Error::caused("index", e))?;
        let mut out = Vec::new();
        while stream.advance() {
            out.push((String::from_utf8_lossy(stream.key()).into_owned(), u64::from(stream.value().doc_freq)));
        }
        Ok(out)
    }

    /// The length tantivy itself uses for a document: its one-byte norm, decoded.
    pub fn tantivy_doc_len(&self, doc: DocId) -> Result<u32> {
        let Some(segment) = self.searcher.segment_readers().first() else {
            return Ok(0);
        };
        let reader = segment.get_fieldnorms_reader(self.body)?;
        Ok(reader.fieldnorm(doc.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Preset;
    use crate::progress::NoProgress;

    fn isro() -> Corpus {
        Corpus::from_texts(
            "isro",
            [
                ("D1", "chandrayaan moon south pole landing twenty23"),
                ("D2", "aditya sun lagrange point solar observatory"),
                ("D3", "mangalyaan mars orbiter atmosphere mission twenty13"),
                ("D4", "pslv rocket satellites launch mission orbit"),
            ],
        )
    }

    #[test]
    fn statistics_are_exact() {
        let idx =
            SparseIndex::build(&isro(), AnalyzerConfig::preset(Preset::Whitespace), &IndexLocation::Ram, &NoProgress)
                .expect("builds");
        assert_eq!(idx.stats().n_docs, 4);
        assert_eq!(idx.stats().total_tokens, 24);
        assert_eq!(idx.stats().avgdl, 6.0);
        assert_eq!(idx.stats().vocabulary, 23);
        assert_eq!(idx.doc_freq("mission").expect("df"), 2);
        assert_eq!(idx.postings("mission").expect("postings"), [(DocId(2), 1), (DocId(3), 1)]);
        assert_eq!(idx.positions("atmosphere", DocId(2)).expect("positions"), [3]);
        assert_eq!(idx.doc_freq("pluto").expect("df"), 0);
        // |D3| with w = tf·log2(4/df): five terms of idf 2 and `mission` of idf 1 → √21.
        assert!((idx.norms().cosine_log2[2] - 21f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn on_disk_index_reopens_with_its_corpus() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("idx");
        let corpus = isro();
        let built =
            SparseIndex::build(&corpus, AnalyzerConfig::default(), &IndexLocation::Dir(path.clone()), &NoProgress)
                .expect("builds");
        drop(built);
        let (idx, reopened) = SparseIndex::open(&path, &NoProgress).expect("opens");
        assert_eq!(reopened.fingerprint(), corpus.fingerprint());
        assert_eq!(idx.analyzer().config(), AnalyzerConfig::default());
        assert_eq!(idx.doc_freq("mission").expect("df"), 2);
        let again = SparseIndex::build(&corpus, AnalyzerConfig::default(), &IndexLocation::Dir(path), &NoProgress);
        assert!(again.is_err(), "refuses to overwrite an existing index");
    }
}
