//! Runs written by other systems, read so that they can stand beside RankLens's own methods.
//!
//! Formats: TREC's six columns `qid Q0 docid rank score tag` (Anserini, Pyserini, trec_eval), CSV
//! or TSV with a header naming the query, document, score and/or rank columns, MS MARCO's
//! headerless `qid <tab> pid <tab> rank`, JSON Lines with one `{qid, docid, score}` object per line,
//! and a ranx / pytrec_eval JSON object `{qid: {docid: score}}`. Any of them may be gzipped.
//!
//! Each query's list is put in the order trec_eval scores it (score descending, then document id
//! descending), so the metrics RankLens shows are trec_eval's. A file that gives ranks but no
//! scores is ordered by rank and scored 1/rank, and says so. Nothing is dropped silently: a bad
//! line, a duplicate document or ranks that disagree with the scores are reported with the file
//! and line.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::Run;
use crate::corpus::LoadWarning;
use crate::fsutil::read_at_most;
use crate::{Error, Result};

/// The largest run RankLens reads, decompressed (a run of a million queries at depth 1,000 is
/// about 40 GB in TREC format; real runs are far smaller).
pub const MAX_RUN_BYTES: u64 = 4 << 30;

/// At most this many problems are listed one by one; the rest are counted.
pub const MAX_WARNINGS: usize = 100;

/// How a run file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RunFormat {
    /// `qid Q0 docid rank score tag`, whitespace-separated.
    Trec,
    /// Comma-separated with a header.
    Csv,
    /// Tab-separated with a header.
    Tsv,
    /// MS MARCO: `qid <tab> pid <tab> rank`, no header, no score.
    MsMarco,
    /// One JSON object per line with query, document and score and/or rank.
    Jsonl,
    /// One JSON object `{qid: {docid: score}}` (ranx, pytrec_eval).
    JsonDict,
}

impl RunFormat {
    /// The format a file name says (`.gz` looked through), if it says one.
    pub fn from_name(path: &Path) -> Option<RunFormat> {
        let name = path.file_name()?.to_string_lossy().to_lowercase();
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        let ext = name.rsplit_once('.').map(|(_, e)| e)?;
        match ext {
            "trec" | "run" | "res" | "txt" => Some(RunFormat::Trec),
            "csv" => Some(RunFormat::Csv),
            "tsv" => Some(RunFormat::Tsv),
            "jsonl" | "ndjson" => Some(RunFormat::Jsonl),
            "json" => Some(RunFormat::JsonDict),
            _ => None,
        }
    }

    /// Guess from the first non-empty line when the name says nothing.
    fn sniff(text: &str) -> Option<RunFormat> {
        let first = text.lines().map(str::trim).find(|l| !l.is_empty())?;
        if first.starts_with('{') {
            // One object of objects is a ranx/pytrec_eval dict; anything else is JSON Lines.
            let dict = match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(o)) => o.values().all(Value::is_object) && !o.is_empty(),
                _ => false,
            };
            return Some(if dict { RunFormat::JsonDict } else { RunFormat::Jsonl });
        }
        if first.split_whitespace().count() == 6 && !first.contains(',') {
            return Some(RunFormat::Trec);
        }
        if first.contains('\t') {
            return Some(RunFormat::Tsv);
        }
        first.contains(',').then_some(RunFormat::Csv)
    }

    /// The format's name as a person writes it.
    pub fn name(self) -> &'static str {
        match self {
            RunFormat::Trec => "TREC",
            RunFormat::Csv => "CSV",
            RunFormat::Tsv => "TSV",
            RunFormat::MsMarco => "MS MARCO TSV",
            RunFormat::Jsonl => "JSON Lines",
            RunFormat::JsonDict => "JSON",
        }
    }
}

/// A run read from a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunFile {
    /// What the run's column is called (the file name without its extensions, unless given).
    pub name: String,
    /// The file.
    pub source: PathBuf,
    /// How it was written.
    pub format: RunFormat,
    /// Each query's ranked list, in trec_eval's order.
    #[serde(skip)]
    pub run: Run,
    /// The file gave ranks only; each document scores 1/rank.
    pub ranks_only: bool,
    /// Entries read (after duplicates and bad lines).
    pub entries: usize,
    /// Problems found, with their lines (at most [`MAX_WARNINGS`]).
    pub warnings: Vec<LoadWarning>,
    /// Problems beyond those listed.
    pub more_warnings: usize,
}

/// One line of a run.
struct Entry {
    qid: String,
    docid: String,
    score: Option<f64>,
    rank: Option<u64>,
    line: usize,
}

/// Problems of one file, listed up to a limit and counted beyond it.
struct Problems {
    file: PathBuf,
    listed: Vec<LoadWarning>,
    more: usize,
}

impl Problems {
    fn add(&mut self, line: Option<usize>, message: impl Into<String>) {
        if self.listed.len() < MAX_WARNINGS {
            self.listed.push(LoadWarning { file: self.file.clone(), line, message: message.into() });
        } else {
            self.more += 1;
        }
    }
}

/// The query, document, score and rank column names a header may use (lower case).
const QUERY_NAMES: &[&str] = &["qid", "query_id", "queryid", "query-id", "query", "topic", "q_id", "question_id"];
const DOC_NAMES: &[&str] = &[
    "docid",
    "doc_id",
    "doc",
    "document",
    "document_id",
    "docno",
    "pid",
    "passage_id",
    "corpus_id",
    "corpus-id",
    "id",
];
const SCORE_NAMES: &[&str] = &["score", "sim", "similarity", "relevance"];
const RANK_NAMES: &[&str] = &["rank", "position", "pos"];

fn find(names: &[&str], header: &[String]) -> Option<usize> {
    names.iter().find_map(|n| header.iter().position(|h| h == n))
}

impl RunFile {
    /// The run's name from its path: `runs/bm25.trec.gz` → `bm25`.
    pub fn default_name(path: &Path) -> String {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        let stem = match name.rsplit_once('.') {
            Some((stem, _)) if !stem.is_empty() => stem,
            _ => name,
        };
        stem.to_string()
    }

    /// Read a run file (plain or gzipped); `name` overrides the name taken from the file.
    pub fn load(path: &Path, name: Option<&str>) -> Result<RunFile> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let bytes = read_capped(file, MAX_RUN_BYTES, path)?;
        let name = name.map(str::to_string).unwrap_or_else(|| Self::default_name(path));
        Self::parse(&bytes, RunFormat::from_name(path), path, &name)
    }

    /// Read a run from bytes; `format` is guessed from the contents when not given.
    pub fn parse(bytes: &[u8], format: Option<RunFormat>, source: &Path, name: &str) -> Result<RunFile> {
        let text = String::from_utf8_lossy(bytes);
        let where_ = || source.display().to_string();
        let mut problems = Problems { file: source.to_path_buf(), listed: Vec::new(), more: 0 };
        if text.contains('\u{FFFD}') && std::str::from_utf8(bytes).is_err() {
            problems.add(None, "not valid UTF-8; the bad bytes were replaced");
        }
        let Some(mut format) = format.or_else(|| RunFormat::sniff(&text)) else {
            return Err(Error::invalid(where_(), "no run in it (TREC, CSV, TSV, JSON Lines or JSON)"));
        };
        let entries = match format {
            RunFormat::Trec => trec_entries(&text, &mut problems),
            RunFormat::Csv | RunFormat::Tsv | RunFormat::MsMarco => {
                let delimiter = if format == RunFormat::Csv { b',' } else { b'\t' };
                let (entries, marco) =
                    delimited_entries(&text, delimiter, &mut problems).map_err(|m| Error::invalid(where_(), m))?;
                if marco {
                    format = RunFormat::MsMarco;
                }
                entries
            }
            RunFormat::Jsonl => jsonl_entries(&text, &mut problems),
            RunFormat::JsonDict => dict_entries(&text).map_err(|m| Error::invalid(where_(), m))?,
        };
        if entries.is_empty() {
            let first = problems.listed.first().map(|w| format!(" (first problem: {w})")).unwrap_or_default();
            return Err(Error::invalid(where_(), format!("no {} run lines could be read{first}", format.name())));
        }
        let (run, ranks_only, count) = order(entries, name, &mut problems);
        Ok(RunFile {
            name: name.to_string(),
            source: source.to_path_buf(),
            format,
            run,
            ranks_only,
            entries: count,
            warnings: problems.listed,
            more_warnings: problems.more,
        })
    }

    /// Number of queries with a ranking.
    pub fn num_queries(&self) -> usize {
        self.run.results.len()
    }

    /// Does this file look like a run rather than a corpus? Judged from its name (`.trec`, `.run`)
    /// or its first lines: TREC's `Q0` column, or a header / first object naming both a query and
    /// a document column. Reads at most 64 KiB.
    pub fn looks_like_run(path: &Path) -> bool {
        if path.is_dir() {
            return false;
        }
        let Ok(file) = std::fs::File::open(path) else { return false };
        let mut head = Vec::new();
        let gz = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"));
        let read = if gz {
            flate2::read::MultiGzDecoder::new(file).take(64 << 10).read_to_end(&mut head)
        } else {
            file.take(64 << 10).read_to_end(&mut head)
        };
        if read.is_err() && head.is_empty() {
            return false;
        }
        if matches!(RunFormat::from_name(path), Some(RunFormat::Trec)) {
            return true;
        }
        let text = String::from_utf8_lossy(&head);
        let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else { return false };
        let f: Vec<&str> = first.split_whitespace().collect();
        if f.len() == 6 && f[1].eq_ignore_ascii_case("q0") {
            return true;
        }
        let names: Vec<String> = if first.starts_with('{') {
            match serde_json::from_str::<Value>(first) {
                Ok(Value::Object(o)) => o.keys().map(|k| k.to_lowercase()).collect(),
                _ => return false,
            }
        } else {
            first.split([',', '\t']).map(|h| h.trim().to_lowercase()).collect()
        };
        find(QUERY_NAMES, &names).is_some() && find(DOC_NAMES, &names).is_some_and(|d| names[d] != "id")
    }
}

/// All of `reader` (gunzipped when it starts with gzip's magic bytes), or an error naming `path`
/// when it holds more than `cap` bytes, before or after decompression: a run is read whole, so
/// its size is bounded before it is in memory.
fn read_capped(reader: impl Read, cap: u64, path: &Path) -> Result<Vec<u8>> {
    let too_large = || {
        Error::invalid(
            path.display().to_string(),
            format!("larger than {}, the most RankLens reads for a run", size_text(cap)),
        )
    };
    let bytes = read_at_most(reader, cap).map_err(|e| Error::io(path, e))?.ok_or_else(too_large)?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    read_at_most(flate2::read::MultiGzDecoder::new(bytes.as_slice()), cap)
        .map_err(|e| Error::caused(format!("{}: not a readable gzip file", path.display()), e))?
        .ok_or_else(too_large)
}

/// A size as people write it: whole GiB when it is some, bytes otherwise.
fn size_text(bytes: u64) -> String {
    const GIB: u64 = 1 << 30;
    if bytes >= GIB && bytes.is_multiple_of(GIB) { format!("{} GiB", bytes / GIB) } else { format!("{bytes} bytes") }
}

fn parse_score(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(format!("score {s:?} is not a finite number")),
        Err(_) => Err(format!("score {s:?} is not a number")),
    }
}

fn parse_rank(s: &str) -> std::result::Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(r) if r > 0 => Ok(r),
        _ => Err(format!("rank {s:?} is not a whole number from 1")),
    }
}

fn trec_entries(text: &str, problems: &mut Problems) -> Vec<Entry> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() || f[0].starts_with('#') {
            continue;
        }
        let [q, _, d, rank, score, _tag] = f.as_slice() else {
            problems.add(Some(line_no), format!("expected 6 columns `qid Q0 docid rank score tag`, found {}", f.len()));
            continue;
        };
        let score = match parse_score(score) {
            Ok(s) => s,
            Err(m) => {
                problems.add(Some(line_no), format!("{m}; line skipped"));
                continue;
            }
        };
        // trec_eval ignores the rank column; an unreadable one is only worth a note.
        let rank = parse_rank(rank).map_err(|m| problems.add(Some(line_no), format!("{m}; the score orders it"))).ok();
        out.push(Entry { qid: q.to_string(), docid: d.to_string(), score: Some(score), rank, line: line_no });
    }
    out
}

/// CSV or TSV rows. With a header naming the columns; a headerless TSV of three columns whose
/// third is a rank is MS MARCO's format (the `bool` says so).
fn delimited_entries(
    text: &str,
    delimiter: u8,
    problems: &mut Problems,
) -> std::result::Result<(Vec<Entry>, bool), String> {
    // TSV (BEIR, MS MARCO, RankLens's own) has no quoting: a `"` in an id is part of the id.
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .quoting(delimiter != b'\t')
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut records = reader.records();
    let Some(first) = records.next() else { return Ok((Vec::new(), false)) };
    let first = first.map_err(|e| format!("cannot read the first line: {e}"))?;
    let header: Vec<String> = first.iter().map(|h| h.trim().trim_start_matches('\u{feff}').to_lowercase()).collect();
    let columns = (find(QUERY_NAMES, &header), find(DOC_NAMES, &header));
    let marco = delimiter == b'\t' && header.len() == 3 && parse_rank(&header[2]).is_ok();
    let (q, d, s, r, skip_first) = match columns {
        // QUERY_NAMES and DOC_NAMES share no name, so the two columns differ.
        (Some(q), Some(d)) => (q, d, find(SCORE_NAMES, &header), find(RANK_NAMES, &header), true),
        _ if marco => (0, 1, None, Some(2), false),
        _ => {
            return Err(format!(
                "the header {:?} names no query column ({}) and document column ({})",
                first.iter().collect::<Vec<_>>(),
                QUERY_NAMES.join(", "),
                DOC_NAMES.join(", ")
            ));
        }
    };
    if s.is_none() && r.is_none() {
        return Err("the header names neither a score nor a rank column".into());
    }
    let mut out = Vec::new();
    let rows = std::iter::once(Ok(first)).chain(records);
    for (i, record) in rows.enumerate() {
        if i == 0 && skip_first {
            continue;
        }
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map(|p| p.line() as usize);
                problems.add(line, format!("unreadable row: {e}"));
                continue;
            }
        };
        let line = record.position().map(|p| p.line() as usize).unwrap_or(i + 1);
        if record.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        let field = |c: usize| record.get(c).map(str::trim).filter(|f| !f.is_empty());
        let (Some(qid), Some(docid)) = (field(q), field(d)) else {
            problems.add(Some(line), "no query or document id; row skipped");
            continue;
        };
        let scored = s.and_then(field).map(parse_score);
        match entry(qid.to_string(), docid.to_string(), scored, r.and_then(field).map(parse_rank), line) {
            Ok(e) => out.push(e),
            Err(m) => problems.add(Some(line), format!("{m}; row skipped")),
        }
    }
    Ok((out, marco))
}

/// An entry from what a row gives: both ids, and a score and/or a rank (each may have failed to
/// parse, with the reason).
fn entry(
    qid: String,
    docid: String,
    score: Option<std::result::Result<f64, String>>,
    rank: Option<std::result::Result<u64, String>>,
    line: usize,
) -> std::result::Result<Entry, String> {
    let (score, rank) = (score.transpose()?, rank.transpose()?);
    if score.is_none() && rank.is_none() {
        return Err("neither a score nor a rank".into());
    }
    Ok(Entry { qid, docid, score, rank, line })
}

/// A JSON id: a string, or a number written as JSON wrote it.
fn json_id(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn json_number(v: &Value) -> Option<std::result::Result<f64, String>> {
    match v {
        Value::Number(n) => {
            Some(n.as_f64().filter(|x| x.is_finite()).ok_or_else(|| format!("{n} is not a finite number")))
        }
        Value::String(s) => Some(parse_score(s)),
        Value::Null => None,
        other => Some(Err(format!("{other} is not a number"))),
    }
}

fn jsonl_entries(text: &str, problems: &mut Problems) -> Vec<Entry> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let obj = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                problems.add(Some(line_no), "not a JSON object; line skipped");
                continue;
            }
            Err(e) => {
                problems.add(Some(line_no), format!("malformed JSON: {e}; line skipped"));
                continue;
            }
        };
        let lower: BTreeMap<String, &Value> = obj.iter().map(|(k, v)| (k.to_lowercase(), v)).collect();
        let get = |names: &[&str]| names.iter().find_map(|n| lower.get(*n).copied());
        let (Some(qid), Some(docid)) = (get(QUERY_NAMES).and_then(json_id), get(DOC_NAMES).and_then(json_id)) else {
            problems.add(Some(line_no), "no query or document id; line skipped");
            continue;
        };
        let score = get(SCORE_NAMES).and_then(json_number).map(|r| r.map_err(|m| format!("score {m}")));
        let rank = get(RANK_NAMES)
            .map(|v| json_id(v).ok_or_else(|| format!("rank {v} is not a whole number")).and_then(|s| parse_rank(&s)));
        match entry(qid, docid, score, rank, line_no) {
            Ok(e) => out.push(e),
            Err(m) => problems.add(Some(line_no), format!("{m}; line skipped")),
        }
    }
    out
}

/// `{qid: {docid: score}}`: a value that is not a number is an error naming the query and document.
fn dict_entries(text: &str) -> std::result::Result<Vec<Entry>, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("{}:{}: malformed JSON: {e}", e.line(), e.column()))?;
    let Value::Object(queries) = value else {
        return Err("expected an object {query id: {document id: score}}".into());
    };
    let mut out = Vec::new();
    for (qid, docs) in queries {
        let Value::Object(docs) = docs else {
            return Err(format!("query {qid:?}: expected an object {{document id: score}}"));
        };
        for (docid, score) in docs {
            let score = json_number(&score)
                .unwrap_or_else(|| Err("null is not a number".into()))
                .map_err(|m| format!("query {qid:?}, document {docid:?}: {m}"))?;
            out.push(Entry { qid: qid.clone(), docid, score: Some(score), rank: None, line: 1 });
        }
    }
    Ok(out)
}

/// Group by query, drop duplicates (keeping the first), order as trec_eval scores, and check that
/// the file's own ranks agree. Returns the run, whether it is ranks-only, and the entries kept.
fn order(entries: Vec<Entry>, name: &str, problems: &mut Problems) -> (Run, bool, usize) {
    let ranks_only = entries.iter().all(|e| e.score.is_none());
    let mut by_query: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for e in entries {
        if !ranks_only && e.score.is_none() {
            problems.add(Some(e.line), "no score where the other lines have one; line skipped");
            continue;
        }
        if let Some(first) = seen.insert((e.qid.clone(), e.docid.clone()), e.line) {
            problems.add(
                Some(e.line),
                format!("document {} is listed again for query {}; the first (line {first}) is kept", e.docid, e.qid),
            );
            seen.insert((e.qid.clone(), e.docid.clone()), first);
            continue;
        }
        by_query.entry(e.qid.clone()).or_default().push(e);
    }
    let mut run = Run::new(name);
    let (mut kept, mut disagree, mut first_disagreement) = (0, 0, None);
    for (qid, mut list) in by_query {
        if ranks_only {
            list.sort_by_key(|e| (e.rank.unwrap_or(u64::MAX), e.line));
        } else {
            // What the file says its order is: its ranks where it gives them, else its lines.
            let file_order: Vec<usize> = {
                let mut idx: Vec<usize> = (0..list.len()).collect();
                idx.sort_by_key(|&i| (list[i].rank.unwrap_or(u64::MAX), list[i].line));
                idx
            };
            let score = |e: &Entry| e.score.unwrap_or(0.0);
            let mut ordered: Vec<usize> = (0..list.len()).collect();
            ordered.sort_by(|&a, &b| {
                score(&list[b]).total_cmp(&score(&list[a])).then_with(|| list[b].docid.cmp(&list[a].docid))
            });
            let differs = file_order.iter().zip(&ordered).any(|(a, b)| score(&list[*a]) != score(&list[*b]));
            if differs {
                disagree += 1;
                first_disagreement.get_or_insert((qid.clone(), list[file_order[0]].line));
            }
            let mut taken: Vec<Option<Entry>> = list.into_iter().map(Some).collect();
            list = ordered.into_iter().filter_map(|i| taken[i].take()).collect();
        }
        kept += list.len();
        let ranked =
            list.into_iter().enumerate().map(|(i, e)| (e.docid, e.score.unwrap_or(1.0 / (i + 1) as f64))).collect();
        run.insert(qid, ranked);
    }
    if let Some((qid, line)) = first_disagreement {
        problems.add(
            Some(line),
            format!(
                "the file's order disagrees with its scores for {disagree} quer{} (first: query {qid}); \
                 RankLens orders by score, as trec_eval does",
                if disagree == 1 { "y" } else { "ies" }
            ),
        );
    }
    (run, ranks_only, kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(text: &str, format: Option<RunFormat>) -> Result<RunFile> {
        RunFile::parse(text.as_bytes(), format, Path::new("r"), "r")
    }

    #[test]
    fn formats_are_known_by_name_or_by_their_first_line() {
        use RunFormat::*;
        for (name, want) in [
            ("bm25.trec", Some(Trec)),
            ("x.run", Some(Trec)),
            ("x.res", Some(Trec)),
            ("x.txt", Some(Trec)),
            ("runs/X.TREC.gz", Some(Trec)),
            ("x.csv", Some(Csv)),
            ("x.tsv", Some(Tsv)),
            ("x.jsonl", Some(Jsonl)),
            ("x.ndjson.gz", Some(Jsonl)),
            ("x.json", Some(JsonDict)),
            ("x.parquet", None),
            ("run", None),
        ] {
            assert_eq!(RunFormat::from_name(Path::new(name)), want, "{name}");
        }
        assert_eq!(RunFile::default_name(Path::new("runs/bm25.trec.gz")), "bm25");
        assert_eq!(RunFile::default_name(Path::new("a.b.trec")), "a.b");
        // A name that is all extension keeps its name.
        assert_eq!(RunFile::default_name(Path::new("runs/.trec")), ".trec");
        for (first, want) in [
            (r#"{"q1": {"d1": 1.0}}"#, Some(JsonDict)),
            // An empty object, or one whose values are not objects, is a JSON Lines record.
            ("{}", Some(Jsonl)),
            (r#"{"q1": 3}"#, Some(Jsonl)),
            ("q1 Q0 d1 1 2.5 bm25", Some(Trec)),
            // Six fields with a comma in one, or three separated by tabs: not TREC.
            ("q1 Q0 d1 1 2.5 a,b", Some(Csv)),
            ("q1\td1\t2.5", Some(Tsv)),
            ("q1,d1,2.5", Some(Csv)),
            ("q1 d1", None),
            ("\n  \n", None),
        ] {
            assert_eq!(RunFormat::sniff(first), want, "{first:?}");
        }
    }

    fn list(r: &RunFile, q: &str) -> Vec<(String, f64)> {
        r.run.results.get(q).cloned().unwrap_or_default()
    }

    /// Each warning's line and message.
    fn notes(r: &RunFile) -> Vec<(Option<usize>, &str)> {
        r.warnings.iter().map(|w| (w.line, w.message.as_str())).collect()
    }

    fn gzip(plain: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut gz, plain).unwrap();
        gz.finish().unwrap()
    }

    #[test]
    fn trec_lines_are_ordered_as_trec_eval_scores_them() {
        // q1: d3 and d1 tie at 2.0; trec_eval breaks ties by document id descending (d3 first).
        let text = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 3.5 t\n# a comment\nq1 Q0 d3 3 2.0 t\n\nq2 Q0 x 1 1e-3 t\n";
        let r = parse(text, Some(RunFormat::Trec)).unwrap();
        assert_eq!(list(&r, "q1"), [("d2".into(), 3.5), ("d3".into(), 2.0), ("d1".into(), 2.0)]);
        assert_eq!(list(&r, "q2"), [("x".into(), 0.001)]);
        assert_eq!((r.entries, r.num_queries(), r.ranks_only), (4, 2, false));
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert!(r.warnings[0].message.contains("disagrees with its scores for 1 query (first: query q1)"));
    }

    #[test]
    fn bad_lines_and_duplicates_are_reported_with_their_lines_and_the_rest_loads() {
        let text = "q Q0 a 1 3 t\nq Q0 b 2 NaN t\nq Q0 c 3 x t\nq Q0 a 4 1 t\nq Q0 d\nq Q0 e 5 0.5 t\n";
        let r = parse(text, Some(RunFormat::Trec)).unwrap();
        assert_eq!(list(&r, "q"), [("a".into(), 3.0), ("e".into(), 0.5)]);
        let lines: Vec<Option<usize>> = r.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [Some(2), Some(3), Some(5), Some(4)], "{:?}", r.warnings);
        assert!(r.warnings[0].message.contains("not a finite number"));
        assert!(r.warnings[3].message.contains("listed again for query q; the first (line 1) is kept"));
    }

    #[test]
    fn csv_tsv_jsonl_and_dicts_read_the_same_run() {
        let trec = parse("1 Q0 a 1 2.5 t\n1 Q0 b 2 1.5 t\n2 Q0 c 1 0.5 t\n", None).unwrap();
        let csv = parse("query_id,doc_id,score\n1,a,2.5\n1,b,1.5\n2,c,0.5\n", Some(RunFormat::Csv)).unwrap();
        let tsv =
            parse("QID\tDocID\tRank\tScore\n1\ta\t1\t2.5\n1\tb\t2\t1.5\n2\tc\t1\t0.5\n", Some(RunFormat::Tsv)).unwrap();
        let jsonl = parse(
            "{\"qid\": 1, \"docid\": \"a\", \"score\": 2.5}\n{\"qid\": \"1\", \"docid\": \"b\", \"score\": \"1.5\"}\n{\"query\": \"2\", \"doc\": \"c\", \"score\": 0.5}\n",
            None,
        )
        .unwrap();
        let dict = parse("{\"1\": {\"a\": 2.5, \"b\": 1.5}, \"2\": {\"c\": 0.5}}", None).unwrap();
        assert_eq!(
            [trec.format, csv.format, tsv.format, jsonl.format, dict.format],
            [RunFormat::Trec, RunFormat::Csv, RunFormat::Tsv, RunFormat::Jsonl, RunFormat::JsonDict]
        );
        for other in [&csv, &tsv, &jsonl, &dict] {
            assert_eq!(other.run.results, trec.run.results, "{:?}", other.format);
            assert!(other.warnings.is_empty(), "{:?}: {:?}", other.format, other.warnings);
        }
    }

    #[test]
    fn ms_marco_ranks_only_score_one_over_rank() {
        let r = parse("7\tp3\t2\n7\tp9\t1\n8\tp1\t1\n", Some(RunFormat::Tsv)).unwrap();
        assert_eq!(r.format, RunFormat::MsMarco);
        assert!(r.ranks_only);
        assert_eq!(list(&r, "7"), [("p9".into(), 1.0), ("p3".into(), 0.5)]);
        // Only a tab-separated file of three columns whose third is a rank from 1 is MS MARCO's.
        for (text, format) in [
            ("7\tp3\t0\n", RunFormat::Tsv),
            ("7\tp3\t2\tx\n", RunFormat::Tsv),
            ("7,p3,2\n", RunFormat::Csv),
            ("a\tb\tc\td\n1\t2\t3\t4\n", RunFormat::Tsv),
        ] {
            let e = parse(text, Some(format)).unwrap_err().to_string();
            assert!(e.starts_with("r: the header") && e.contains("names no query column"), "{text:?}: {e}");
        }
    }

    #[test]
    fn json_lines_ids_are_strings_or_numbers_and_never_blank() {
        let text = "{\"qid\": \" q \", \"docid\": 7, \"score\": 1}\n{\"qid\": \"  \", \"docid\": \"a\", \"score\": 1}\n\
                    {\"qid\": \"q\", \"docid\": \"\", \"score\": 1}\n{\"qid\": true, \"docid\": \"b\", \"score\": 1}\n";
        let r = parse(text, Some(RunFormat::Jsonl)).unwrap();
        assert_eq!(list(&r, "q"), [("7".into(), 1.0)]);
        let skipped = "no query or document id; line skipped";
        assert_eq!(notes(&r), [(Some(2), skipped), (Some(3), skipped), (Some(4), skipped)]);
    }

    #[test]
    fn ranks_are_whole_numbers_from_one() {
        assert_eq!(parse_rank(" 1 "), Ok(1));
        assert_eq!(parse_rank("1000"), Ok(1000));
        for bad in ["0", "-1", "1.5", "", "x"] {
            assert_eq!(parse_rank(bad), Err(format!("rank {bad:?} is not a whole number from 1")), "{bad:?}");
        }
        // TREC's rank column is only noted when unreadable: the score orders the line.
        let r = parse("q Q0 a 0 2 t\n", Some(RunFormat::Trec)).unwrap();
        assert_eq!(list(&r, "q"), [("a".into(), 2.0)]);
        assert_eq!(notes(&r), [(Some(1), "rank \"0\" is not a whole number from 1; the score orders it")]);
    }

    #[test]
    fn a_header_without_ids_or_a_file_without_runs_is_an_error_naming_the_file() {
        let e = parse("a,b,c\n1,2,3\n", Some(RunFormat::Csv)).unwrap_err().to_string();
        assert!(e.starts_with("r: the header") && e.contains("query column"), "{e}");
        let e = parse("qid,docid\nq,d\n", Some(RunFormat::Csv)).unwrap_err().to_string();
        assert!(e.contains("neither a score nor a rank"), "{e}");
        let e = parse("q Q0 d\n", Some(RunFormat::Trec)).unwrap_err().to_string();
        assert!(e.contains("no TREC run lines could be read (first problem: r:1: expected 6 columns"), "{e}");
        assert!(parse("", None).unwrap_err().to_string().contains("no run in it"));
    }

    #[test]
    fn names_formats_and_gzip() {
        assert_eq!(RunFile::default_name(Path::new("/x/bm25.trec.gz")), "bm25");
        assert_eq!(RunFile::default_name(Path::new("dense.run")), "dense");
        assert_eq!(RunFile::default_name(Path::new("plain")), "plain");
        assert_eq!(RunFormat::from_name(Path::new("a.tsv.gz")), Some(RunFormat::Tsv));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sys.trec.gz");
        std::fs::write(&path, gzip(b"q Q0 d 1 1.5 t\n")).unwrap();
        let r = RunFile::load(&path, None).unwrap();
        assert_eq!((r.name.as_str(), list(&r, "q")), ("sys", vec![("d".to_string(), 1.5)]));
        let named = RunFile::load(&path, Some("mine")).unwrap();
        assert_eq!(named.name, "mine");
        std::fs::write(&path, [0x1f, 0x8b, 0, 1, 2]).unwrap();
        assert!(RunFile::load(&path, None).unwrap_err().report().contains("not a readable gzip file"));
    }

    #[test]
    fn a_run_larger_than_the_cap_is_refused_before_or_after_gunzip() {
        let p = Path::new("big.trec");
        let read = |bytes: &[u8], cap| read_capped(bytes, cap, p).map_err(|e| e.to_string());
        let refused = "big.trec: larger than 10 bytes, the most RankLens reads for a run";
        assert_eq!(read(b"0123456789", 10), Ok(b"0123456789".to_vec()));
        assert_eq!(read(b"0123456789X", 10).unwrap_err(), refused);
        assert_eq!(read(b"", 0), Ok(Vec::new()));
        // 40 zero bytes compress to fewer than 40: the cap applies to what they expand to.
        let (exact, over) = (gzip(&[0; 40]), gzip(&[0; 41]));
        assert!(exact.len() < 40 && over.len() < 40, "{} {}", exact.len(), over.len());
        assert_eq!(read(&exact, 40), Ok(vec![0; 40]));
        assert_eq!(read(&over, 40).unwrap_err(), "big.trec: larger than 40 bytes, the most RankLens reads for a run");
        // A compressed file over the cap is refused without being expanded.
        assert!(read(&exact, exact.len() as u64 - 1).unwrap_err().contains("larger than"));
        assert_eq!(size_text(MAX_RUN_BYTES), "4 GiB");
        assert_eq!(size_text(1 << 30), "1 GiB");
        assert_eq!(size_text((1 << 30) + 1), "1073741825 bytes");
        assert_eq!(size_text(5), "5 bytes");
    }

    #[test]
    fn runs_are_told_apart_from_corpora() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("a.trec", "1 Q0 d 1 2 t\n", true),
            ("b.txt", "1 Q0 d 1 2 t\n", true),
            ("c.csv", "qid,docid,score\n1,d,2\n", true),
            ("d.jsonl", "{\"qid\": \"1\", \"docid\": \"d\", \"score\": 2}\n", true),
            ("corpus.jsonl", "{\"_id\": \"d\", \"title\": \"\", \"text\": \"hello\"}\n", false),
            ("corpus.csv", "id,title,text\nd,t,hello\n", false),
            ("queries.tsv", "query-id\tid\ttext\n", false),
        ];
        for (name, text, run) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            assert_eq!(RunFile::looks_like_run(&path), run, "{name}");
        }
        assert!(!RunFile::looks_like_run(dir.path()));
        // Gzipped: judged from what it expands to, even when the stream is cut short (a download
        // that stopped) — what could be read is enough.
        let gz = gzip("qid,docid,score\n1,d,2\n".repeat(50).as_bytes());
        for (name, bytes) in [("whole.csv.gz", &gz[..]), ("cut.csv.gz", &gz[..gz.len() - 8])] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            assert!(RunFile::looks_like_run(&path), "{name}");
        }
        let path = dir.path().join("broken.csv.gz");
        std::fs::write(&path, [0x1f, 0x8b, 0, 1, 2]).unwrap();
        assert!(!RunFile::looks_like_run(&path));
    }

    #[test]
    fn warnings_stop_being_listed_at_the_limit_and_are_counted() {
        let text: String =
            (0..250).map(|i| format!("q Q0 d{i} 1 x t\n")).chain(["q Q0 ok 1 1 t\n".to_string()]).collect();
        let r = parse(&text, Some(RunFormat::Trec)).unwrap();
        assert_eq!((r.warnings.len(), r.more_warnings, r.entries), (MAX_WARNINGS, 150, 1));
    }

    fn id() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_.:-]{1,12}"
    }

    /// A valid run: per query, distinct documents with finite scores.
    fn run_strategy() -> impl Strategy<Value = BTreeMap<String, BTreeMap<String, f64>>> {
        prop::collection::btree_map(id(), prop::collection::btree_map(id(), -1e6f64..1e6, 1..8), 1..6)
    }

    fn expected(run: &BTreeMap<String, BTreeMap<String, f64>>) -> BTreeMap<String, Vec<(String, f64)>> {
        run.iter()
            .map(|(q, docs)| {
                let mut v: Vec<(String, f64)> = docs.iter().map(|(d, s)| (d.clone(), *s)).collect();
                v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
                (q.clone(), v)
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases()))]

        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600), which in 0usize..7) {
            let formats = [None, Some(RunFormat::Trec), Some(RunFormat::Csv), Some(RunFormat::Tsv), Some(RunFormat::Jsonl), Some(RunFormat::JsonDict), Some(RunFormat::MsMarco)];
            if let Ok(r) = RunFile::parse(&bytes, formats[which], Path::new("x"), "x") {
                prop_assert!(r.entries > 0);
                prop_assert_eq!(r.entries, r.run.results.values().map(Vec::len).sum::<usize>());
            }
        }

        #[test]
        fn every_format_reads_back_what_was_written(run in run_strategy()) {
            let want = expected(&run);
            let rows: Vec<(&String, &String, f64)> = run.iter().flat_map(|(q, d)| d.iter().map(move |(d, s)| (q, d, *s))).collect();
            let trec: String = rows.iter().map(|(q, d, s)| format!("{q} Q0 {d} 1 {s} t\n")).collect();
            let csv: String = std::iter::once("qid,docid,score\n".to_string()).chain(rows.iter().map(|(q, d, s)| format!("{q},{d},{s}\n"))).collect();
            let tsv: String = std::iter::once("query\tdoc\tscore\n".to_string()).chain(rows.iter().map(|(q, d, s)| format!("{q}\t{d}\t{s}\n"))).collect();
            let jsonl: String = rows.iter().map(|(q, d, s)| format!("{}\n", serde_json::json!({"qid": q, "docid": d, "score": s}))).collect();
            let dict = serde_json::to_string(&run).unwrap();
            for (text, format) in [(trec, RunFormat::Trec), (csv, RunFormat::Csv), (tsv, RunFormat::Tsv), (jsonl, RunFormat::Jsonl), (dict, RunFormat::JsonDict)] {
                let r = RunFile::parse(text.as_bytes(), Some(format), Path::new("x"), "x").unwrap();
                prop_assert_eq!(&r.run.results, &want, "{:?}", format);
            }
        }

        #[test]
        fn a_broken_line_is_reported_by_number_and_every_good_line_still_loads(
            run in run_strategy(), at in 0usize..40, junk in "[^\n]{0,20}",
        ) {
            let good: Vec<String> = run.iter().flat_map(|(q, d)| d.iter().map(move |(d, s)| format!("{q} Q0 {d} 1 {s} t"))).collect();
            let at = at % (good.len() + 1);
            // A line that is not six fields with a finite score (one of the ways a file goes wrong).
            let bad = format!("x{} BROKEN", junk.replace(char::is_whitespace, "_"));
            let mut lines = good.clone();
            lines.insert(at, bad);
            let r = RunFile::parse(lines.join("\n").as_bytes(), Some(RunFormat::Trec), Path::new("x"), "x").unwrap();
            prop_assert_eq!(&r.run.results, &expected(&run));
            prop_assert!(r.warnings.iter().any(|w| w.line == Some(at + 1)), "{:?}", r.warnings);
        }

        /// RankLens's own writers (TREC, and TSV for ids with spaces) read back to the same run,
        /// or refuse, naming the id, when a line could not carry it: never a broken line.
        #[test]
        fn ranklens_runs_read_back_or_are_refused(
            run in prop::collection::btree_map(
                prop_oneof!["[A-Za-z0-9_.:-]{1,8}", "[a-z]{1,4} [a-z]{1,4}", "\\PC{1,6}"],
                prop::collection::btree_map(prop_oneof!["[A-Za-z0-9_.:-]{1,8}", "[a-z]{1,4} [a-z]{1,4}", "\\PC{1,6}"], -1e6f64..1e6, 1..6),
                1..5,
            ),
            tsv in any::<bool>(),
        ) {
            let mut written = crate::eval::Run::new("BM25 (lucene, k1=0.9)");
            for (q, docs) in &run {
                let mut list: Vec<(String, f64)> = docs.iter().map(|(d, s)| (d.clone(), *s)).collect();
                list.sort_by(|a, b| b.1.total_cmp(&a.1));
                written.insert(q.clone(), list);
            }
            let format = if tsv { crate::corpus::IdFormat::Tsv } else { crate::corpus::IdFormat::Trec };
            let ids_ok = run.iter().all(|(q, d)| {
                crate::corpus::check_id(q, "query", format).is_ok()
                    && d.keys().all(|d| crate::corpus::check_id(d, "document", format).is_ok())
            });
            match if tsv { written.to_tsv() } else { written.to_trec() } {
                Ok(text) => {
                    prop_assert!(ids_ok);
                    let format = if tsv { RunFormat::Tsv } else { RunFormat::Trec };
                    let r = RunFile::parse(text.as_bytes(), Some(format), Path::new("x"), "x").unwrap();
                    prop_assert!(r.warnings.is_empty(), "{:?}", r.warnings);
                    prop_assert_eq!(&r.run.results, &expected(&run));
                }
                Err(e) => {
                    prop_assert!(!ids_ok);
                    prop_assert!(e.to_string().contains(" id \""), "{}", e);
                }
            }
        }
    }
}
