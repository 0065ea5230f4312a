//! Loaders for every input shape RankLens accepts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Qrels;
use super::delimited::{Delimited, Row, read_delimited};
use super::{Corpus, Doc, LoadReport, Query};
use crate::{Error, Result};

/// How a folder of text files becomes documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Split {
    /// One document per file.
    #[default]
    File,
    /// One passage per blank-line-separated paragraph; headings become passage titles.
    Paragraph,
}

/// The shape of the input; `None` in [`LoadOptions`] means "detect".
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Format {
    /// A folder of `.txt` / `.md` files.
    Folder,
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated with a header.
    Csv,
    /// Tab-separated with a header.
    Tsv,
    /// `corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`.
    Beir,
    /// SQuAD's JSON (v1.1 or v2.0): paragraphs, questions and their answers.
    Squad,
}

/// Options for [`load`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoadOptions {
    /// Force a format instead of detecting one.
    pub format: Option<Format>,
    /// File or paragraph documents for folders.
    pub split: Split,
}

/// [`load`], refusing a corpus with no document: the error names the path and the first problems
/// found, each with its file and line — what the app and the command line both check before
/// anything is indexed.
pub fn load_documents(path: &Path, options: LoadOptions) -> Result<Corpus> {
    let corpus = load(path, options)?;
    if !corpus.is_empty() {
        return Ok(corpus);
    }
    let why: Vec<String> = corpus.report.warnings.iter().take(3).map(ToString::to_string).collect();
    let more = corpus.report.warnings.len().saturating_sub(why.len());
    let mut message = format!("no documents could be loaded ({})", corpus.report);
    if !why.is_empty() {
        message.push_str(&format!(": {}", why.join("; ")));
    }
    if more > 0 {
        message.push_str(&format!("; and {more} more"));
    }
    Err(Error::invalid(path.display().to_string(), message))
}

/// Load a corpus from a path. Problems inside the input become warnings in `corpus.report`; only
/// an unreadable path is an error.
pub fn load(path: &Path, options: LoadOptions) -> Result<Corpus> {
    let format = match options.format {
        Some(f) => f,
        None => detect(path)?,
    };
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "corpus".into());
    let mut corpus = Corpus { name, source: Some(path.to_path_buf()), ..Default::default() };
    match format {
        Format::Folder => load_folder(path, options.split, &mut corpus)?,
        Format::Jsonl => load_jsonl(path, &mut corpus)?,
        Format::Csv => load_delimited(path, b',', &mut corpus)?,
        Format::Tsv => load_delimited(path, b'\t', &mut corpus)?,
        Format::Beir => load_beir(path, &mut corpus)?,
        Format::Squad => load_squad(path, &mut corpus)?,
    }
    Ok(corpus)
}

fn detect(path: &Path) -> Result<Format> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        if path.join("corpus.jsonl").is_file() {
            return Ok(Format::Beir);
        }
        return Ok(Format::Folder);
    }
    let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    if ext == "json" && super::squad::looks_like_squad(&read_start(path)?) {
        return Ok(Format::Squad);
    }
    match ext.as_str() {
        "jsonl" | "ndjson" | "json" => Ok(Format::Jsonl),
        "csv" => Ok(Format::Csv),
        "tsv" | "tab" => Ok(Format::Tsv),
        _ => Err(Error::invalid(
            path.display().to_string(),
            "cannot tell the format: use a folder, .jsonl, .csv, .tsv or a BEIR folder (with corpus.jsonl)",
        )),
    }
}

/// The first few kilobytes of a file, to tell its shape.
fn read_start(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::new();
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    file.take(4096).read_to_end(&mut buf).map_err(|e| Error::io(path, e))?;
    Ok(buf)
}

/// SQuAD's paragraphs as passages, its questions and their answers, and each answerable
/// question's own paragraph as its judgement.
fn load_squad(path: &Path, corpus: &mut Corpus) -> Result<()> {
    let bytes = read(path)?;
    corpus.report.files += 1;
    let squad = super::squad::parse(&bytes, path)?;
    for doc in squad.docs {
        add_doc(corpus, path, None, doc);
    }
    corpus.queries = squad.answers.questions.clone();
    corpus.qrels = Some(squad.qrels);
    corpus.answers = Some(squad.answers);
    Ok(())
}

/// The answers file a corpus folder ships (`answers.tsv` or `answers.jsonl`), its answers located
/// in their passages.
fn load_shipped_answers(dir: &Path, corpus: &mut Corpus) -> Result<()> {
    for name in ["answers.tsv", "answers.jsonl"] {
        let path = dir.join(name);
        if path.is_file() {
            let mut set = super::load_answers(&path, &mut corpus.report)?;
            let mut report = std::mem::take(&mut corpus.report);
            super::locate_spans(&mut set, corpus, &mut report);
            corpus.report = report;
            corpus.answers = Some(set);
            break;
        }
    }
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// Lines of a byte buffer with 1-based numbers; invalid UTF-8 lines come back as `Err(())`.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, std::result::Result<&str, ()>)> {
    bytes.split(|&b| b == b'\n').enumerate().map(|(i, line)| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        (i + 1, std::str::from_utf8(line).map_err(|_| ()))
    })
}

fn add_doc(corpus: &mut Corpus, file: &Path, line: Option<usize>, doc: Doc) {
    if doc.title.trim().is_empty() && doc.text.trim().is_empty() {
        corpus.report.skip(file, line, format!("document {:?} is empty; skipped", doc.id));
        return;
    }
    if corpus.by_id.contains_key(&doc.id) {
        corpus.report.skip(file, line, format!("duplicate id {:?}; the first one is kept", doc.id));
        return;
    }
    corpus.push(doc);
}

fn json_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn load_jsonl(path: &Path, corpus: &mut Corpus) -> Result<()> {
    let bytes = read(path)?;
    corpus.report.files += 1;
    for (n, line) in lines(&bytes) {
        let Ok(line) = line else {
            corpus.report.skip(path, Some(n), "line is not valid UTF-8; skipped");
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let obj = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(obj)) => obj,
            Ok(_) => {
                corpus.report.skip(path, Some(n), "line is JSON but not an object; skipped");
                continue;
            }
            Err(e) => {
                corpus.report.skip(path, Some(n), format!("malformed JSON ({e}); skipped"));
                continue;
            }
        };
        let Some(id) = ["_id", "id", "docid", "doc_id"].iter().find_map(|k| obj.get(*k).and_then(json_string)) else {
            corpus.report.skip(path, Some(n), "missing field \"_id\" (or \"id\"); skipped");
            continue;
        };
        let Some(text) = ["text", "contents", "body"].iter().find_map(|k| obj.get(*k).and_then(json_string)) else {
            corpus.report.skip(path, Some(n), format!("document {id:?}: missing field \"text\"; skipped"));
            continue;
        };
        let title = obj.get("title").and_then(json_string).unwrap_or_default();
        let fields = obj
            .iter()
            .filter(|(k, _)| {
                !matches!(k.as_str(), "_id" | "id" | "docid" | "doc_id" | "text" | "contents" | "body" | "title")
            })
            .filter_map(|(k, v)| json_string(v).map(|s| (k.clone(), s)))
            .collect();
        add_doc(corpus, path, Some(n), Doc { id, title, text, fields });
    }
    Ok(())
}

fn column(headers: &[String], names: &[&str]) -> Option<usize> {
    headers.iter().position(|h| names.iter().any(|n| h.eq_ignore_ascii_case(n)))
}

fn load_delimited(path: &Path, delimiter: u8, corpus: &mut Corpus) -> Result<()> {
    let bytes = read(path)?;
    corpus.report.files += 1;
    let Delimited { header: headers, rows } = read_delimited(&bytes, delimiter, delimiter == b',', path)?;
    let id_col = column(&headers, &["id", "_id", "docid", "doc_id"]);
    let text_col = column(&headers, &["text", "body", "contents", "content", "passage"]);
    let (Some(id_col), Some(text_col)) = (id_col, text_col) else {
        return Err(Error::invalid(
            format!("{}:1", path.display()),
            format!("the header must name an id column and a text column (found: {})", headers.join(", ")),
        ));
    };
    let title_col = column(&headers, &["title"]);
    for Row { line, fields } in rows {
        let record = match fields {
            Ok(r) => r,
            Err(message) => {
                corpus.report.skip(path, Some(line), message);
                continue;
            }
        };
        if record.len() != headers.len() {
            corpus.report.skip(
                path,
                Some(line),
                format!("row has {} fields, the header has {}; skipped", record.len(), headers.len()),
            );
            continue;
        }
        let Ok(values) = record
            .iter()
            .map(|f| std::str::from_utf8(f).map(str::to_string))
            .collect::<std::result::Result<Vec<String>, _>>()
        else {
            corpus.report.skip(path, Some(line), "row is not valid UTF-8; skipped");
            continue;
        };
        let id = values[id_col].trim().to_string();
        if id.is_empty() {
            corpus.report.skip(path, Some(line), format!("missing field {:?}; skipped", headers[id_col]));
            continue;
        }
        let fields = headers
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != id_col && *i != text_col && Some(*i) != title_col)
            .map(|(i, h)| (h.clone(), values[i].clone()))
            .collect();
        let doc = Doc {
            id,
            title: title_col.map(|c| values[c].clone()).unwrap_or_default(),
            text: values[text_col].clone(),
            fields,
        };
        add_doc(corpus, path, Some(line), doc);
    }
    Ok(())
}

fn text_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        let hidden = p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if p.is_dir() {
            text_files(&p, out)?;
        } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("txt") || e.eq_ignore_ascii_case("md")) {
            out.push(p);
        }
    }
    Ok(())
}

fn load_folder(dir: &Path, split: Split, corpus: &mut Corpus) -> Result<()> {
    let mut files = Vec::new();
    text_files(dir, &mut files)?;
    if files.is_empty() {
        corpus.report.warn(dir, None, "no .txt or .md files found");
    }
    for file in files {
        let bytes = match std::fs::read(&file) {
            Ok(b) => b,
            Err(e) => {
                corpus.report.skip(&file, None, format!("cannot read: {e}"));
                continue;
            }
        };
        corpus.report.files += 1;
        let text = match std::str::from_utf8(&bytes) {
            Ok(s) => s.to_string(),
            Err(e) => {
                let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
                corpus.report.warn(&file, Some(line), "invalid UTF-8; the bad bytes are replaced by U+FFFD");
                String::from_utf8_lossy(&bytes).into_owned()
            }
        };
        // Markdown's HTML comments and tags are markup, not text: neither indexed nor shown.
        let text = if file.extension().is_some_and(|e| e.eq_ignore_ascii_case("md")) {
            let stripped = strip_html(&text);
            if stripped != text {
                corpus.report.markup_files += 1;
            }
            stripped
        } else {
            text
        };
        let rel = file.strip_prefix(dir).unwrap_or(&file).with_extension("");
        let base_id = rel.to_string_lossy().replace('\\', "/");
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        match split {
            Split::File => {
                let title = first_heading(&text).unwrap_or(stem);
                let mut fields = BTreeMap::new();
                fields.insert("page".to_string(), base_id.clone());
                add_doc(corpus, &file, None, Doc { id: base_id, title, text, fields });
            }
            Split::Paragraph => {
                let page_title = first_heading(&text).unwrap_or(stem);
                let paragraphs = paragraphs(&text, &page_title);
                if paragraphs.is_empty() {
                    corpus.report.skip(&file, None, "no paragraph of text (only blank lines and headings); skipped");
                }
                for (n, p) in paragraphs.into_iter().enumerate() {
                    let mut fields = BTreeMap::new();
                    fields.insert("page".to_string(), base_id.clone());
                    let doc = Doc { id: format!("{base_id}-{}", n + 1), title: p.title, text: p.text, fields };
                    add_doc(corpus, &file, Some(p.line), doc);
                }
            }
        }
    }
    Ok(())
}

/// Markdown text without its HTML: comments (`<!-- … -->`, over lines too) and tags (`<a id=…>`,
/// `</a>`, `<br/>`) are removed, the text between tags kept. Line breaks inside a comment are
/// kept, so line numbers stay those of the file. A `<` that does not open a tag (`a < b`) stays.
pub fn strip_html(text: &str) -> String {
    // Removing a piece can join its neighbours into a new comment (`<!<!---->-->`): strip again
    // until nothing changes (each pass that changes anything shortens the text).
    let mut out = strip_html_once(text);
    loop {
        let again = strip_html_once(&out);
        if again == out {
            return out;
        }
        out = again;
    }
}

fn strip_html_once(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let from = &rest[at..];
        if let Some(body) = from.strip_prefix("<!--") {
            let end = body.find("-->").map_or(body.len(), |e| e + 3);
            out.extend(body[..end].chars().filter(|&c| c == '\n'));
            rest = &body[end..];
            continue;
        }
        let opens_tag = from[1..].chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '/');
        match from.find(['>', '\n']).filter(|_| opens_tag) {
            Some(end) if from.as_bytes()[end] == b'>' => rest = &from[end + 1..],
            _ => {
                out.push('<');
                rest = &from[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn heading(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let level = t.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&level) && t[level..].starts_with(' ') { Some(t[level..].trim()) } else { None }
}

fn first_heading(text: &str) -> Option<String> {
    text.lines().find_map(heading).map(str::to_string)
}

/// A paragraph cut from a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Paragraph {
    /// The nearest heading above it (or the page title).
    pub title: String,
    /// The paragraph's text, lines joined with single spaces... kept as written.
    pub text: String,
    /// 1-based line where it starts.
    pub line: usize,
}

/// Cut text at blank lines; heading lines set the title of the paragraphs below them.
pub(crate) fn paragraphs(text: &str, page_title: &str) -> Vec<Paragraph> {
    let mut out = Vec::new();
    let mut title = page_title.to_string();
    let mut current: Vec<&str> = Vec::new();
    let mut start = 0;
    let flush = |current: &mut Vec<&str>, title: &str, start: usize, out: &mut Vec<Paragraph>| {
        if !current.is_empty() {
            out.push(Paragraph { title: title.to_string(), text: current.join("\n"), line: start });
            current.clear();
        }
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            flush(&mut current, &title, start, &mut out);
        } else if let Some(h) = heading(line) {
            flush(&mut current, &title, start, &mut out);
            title = h.to_string();
        } else {
            if current.is_empty() {
                start = i + 1;
            }
            current.push(line.trim_end());
        }
    }
    flush(&mut current, &title, start, &mut out);
    out
}

/// Load `queries.jsonl` (`{"_id","text"}`) or a TSV of `id<TAB>text`.
pub fn load_queries(path: &Path, report: &mut LoadReport) -> Result<Vec<Query>> {
    let bytes = read(path)?;
    report.files += 1;
    let jsonl = path.extension().is_some_and(|e| e == "jsonl");
    let mut out = Vec::new();
    for (n, line) in lines(&bytes) {
        let Ok(line) = line else {
            report.skip(path, Some(n), "line is not valid UTF-8; skipped");
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        if jsonl {
            match serde_json::from_str::<Value>(line) {
                Ok(v) => {
                    let id = v.get("_id").or_else(|| v.get("id")).and_then(json_string);
                    let text = v.get("text").or_else(|| v.get("query")).and_then(json_string);
                    match (id, text) {
                        (Some(id), Some(text)) => out.push(Query { id, text }),
                        _ => report.skip(path, Some(n), "query needs \"_id\" and \"text\"; skipped"),
                    }
                }
                Err(e) => report.skip(path, Some(n), format!("malformed JSON ({e}); skipped")),
            }
        } else {
            let mut parts = line.splitn(2, '\t');
            match (parts.next(), parts.next()) {
                (Some(id), Some(text)) if !id.trim().is_empty() => {
                    out.push(Query { id: id.trim().to_string(), text: text.trim().to_string() })
                }
                _ => report.skip(path, Some(n), "expected: query id<TAB>question; skipped"),
            }
        }
    }
    Ok(out)
}

/// Every question of a BEIR folder's `queries.jsonl`, whichever split judges it (a corpus loaded
/// from the folder keeps only the test split's; training on another split reads them all here).
pub fn beir_queries(dir: &Path) -> Result<Vec<Query>> {
    let mut report = LoadReport::default();
    load_queries(&dir.join("queries.jsonl"), &mut report)
}

fn load_beir(dir: &Path, corpus: &mut Corpus) -> Result<()> {
    load_jsonl(&dir.join("corpus.jsonl"), corpus)?;
    corpus.name = dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "beir".into());
    let queries = dir.join("queries.jsonl");
    if queries.is_file() {
        corpus.queries = load_queries(&queries, &mut corpus.report)?;
    }
    let questions = dir.join("questions.tsv");
    if questions.is_file() {
        load_questions_tsv(&questions, corpus)?;
    }
    load_shipped_answers(dir, corpus)?;
    let qrels = dir.join("qrels").join("test.tsv");
    if qrels.is_file() {
        let (q, warnings) = Qrels::load(&qrels)?;
        corpus.report.files += 1;
        corpus.report.warnings.extend(warnings);
        // Evaluation uses the test split: keep only the queries it judges.
        corpus.queries.retain(|query| q.judged(&query.id));
        corpus.qrels = Some(q);
    }
    Ok(())
}

/// A question file: a header naming `id` and `question`, optionally `judgements`
/// (`doc:grade doc:grade`), `sql` and `graph` (a template and a pattern tied to the question).
pub fn load_questions_tsv(path: &Path, corpus: &mut Corpus) -> Result<()> {
    let bytes = read(path)?;
    corpus.report.files += 1;
    let mut header: Vec<String> = Vec::new();
    let mut qrels = corpus.qrels.take().unwrap_or_default();
    for (n, line) in lines(&bytes) {
        let Ok(line) = line else {
            corpus.report.skip(path, Some(n), "line is not valid UTF-8; skipped");
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if header.is_empty() {
            header = fields.iter().map(|f| f.trim().to_lowercase()).collect();
            if !header.iter().any(|h| h == "id") || !header.iter().any(|h| h == "question") {
                return Err(Error::invalid(
                    format!("{}:{n}", path.display()),
                    "the header must name `id` and `question`",
                ));
            }
            continue;
        }
        let get = |name: &str| -> Option<String> {
            let i = header.iter().position(|h| h == name)?;
            fields.get(i).map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
        };
        let (Some(id), Some(question)) = (get("id"), get("question")) else {
            corpus.report.skip(path, Some(n), "a question needs an id and a question; skipped");
            continue;
        };
        for judgement in get("judgements").unwrap_or_default().split_whitespace() {
            match judgement.rsplit_once(':').map(|(d, g)| (d, g.parse::<i32>())) {
                Some((doc, Ok(grade))) => qrels.insert(&id, doc, grade),
                _ => corpus.report.warn(path, Some(n), format!("judgement {judgement:?} is not doc:grade; ignored")),
            }
        }
        corpus.templates.insert(id.clone(), super::QueryTemplates { sql: get("sql"), graph: get("graph") });
        corpus.queries.push(Query { id, text: question });
    }
    if !qrels.judgements.is_empty() {
        corpus.qrels = Some(qrels);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).ok();
        }
        std::fs::write(&p, bytes).ok();
        p
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any text: the same lines, no comment left, and text without `<` untouched.
        #[test]
        fn stripping_html_keeps_the_lines_and_leaves_no_comment(text in "(<!--|-->|<[a-z/!]|>|\n|[a-z <]){0,60}") {
            let out = strip_html(&text);
            proptest::prop_assert_eq!(out.matches('\n').count(), text.matches('\n').count());
            proptest::prop_assert!(!out.contains("<!--"), "{:?} → {:?}", text, out);
            if !text.contains('<') {
                proptest::prop_assert_eq!(out, text);
            }
        }
    }

    #[test]
    fn markdown_html_comments_and_tags_are_not_text() {
        let md = "<!-- Old headings. Do not remove\nthe anchors below -->\n<a id=\"x\"></a>\n# Caching\nResults <b>stay</b> valid.\nIf a < b then b > a.\n";
        let stripped = strip_html(md);
        assert_eq!(stripped, "\n\n\n# Caching\nResults stay valid.\nIf a < b then b > a.\n");
        assert_eq!(stripped.lines().count(), md.lines().count(), "line numbers stay the file's");
        assert_eq!(strip_html("<!-- never closed"), "");
        assert_eq!(strip_html("x <not a tag"), "x <not a tag");
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "c.md", md.as_bytes());
        write(dir.path(), "t.txt", b"<b>kept in a text file</b>");
        let c = load(dir.path(), LoadOptions::default()).expect("loads");
        let md_doc = c.docs().iter().find(|d| d.id == "c").expect("c");
        assert!(!md_doc.text.contains('<') || md_doc.text.contains("a < b"), "{}", md_doc.text);
        assert!(!md_doc.text.contains("Old headings"));
        assert_eq!(c.docs().iter().find(|d| d.id == "t").map(|d| d.text.as_str()), Some("<b>kept in a text file</b>"));
        assert_eq!(c.report.markup_files, 1);
    }

    #[test]
    fn jsonl_loads_good_lines_and_warns_on_each_bad_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut bytes = b"{\"_id\":\"d1\",\"title\":\"T\",\"text\":\"one\",\"page\":\"p\",\"release\":4.2}\n".to_vec();
        bytes.extend_from_slice(b"{\"_id\":\"d2\",\"text\":\n"); // 2: malformed
        bytes.extend_from_slice(b"{\"title\":\"no id\",\"text\":\"x\"}\n"); // 3: missing id
        bytes.extend_from_slice(b"{\"id\":\"d1\",\"text\":\"dup\"}\n"); // 4: duplicate
        bytes.extend_from_slice(b"{\"id\":7,\"text\":\"  \"}\n"); // 5: empty
        bytes.extend_from_slice(b"{\"id\":\"d3\",\"text\":\"bad \xff byte\"}\n"); // 6: invalid UTF-8
        bytes.extend_from_slice(b"{\"id\":\"d4\"}\n"); // 7: missing text
        bytes.extend_from_slice(b"[1,2]\n"); // 8: not an object
        bytes.extend_from_slice(b"{\"id\":5,\"text\":\"numeric id\"}"); // 9: fine
        let path = write(dir.path(), "c.jsonl", &bytes);
        let c = load(&path, LoadOptions::default()).expect("loads");
        assert_eq!(c.docs().iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["d1", "5"]);
        let lines: Vec<_> = c.report.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [Some(2), Some(3), Some(4), Some(5), Some(6), Some(7), Some(8)]);
        assert_eq!(c.report.skipped, 7);
        assert!(c.report.warnings.iter().all(|w| w.file == path));
        assert_eq!(c.docs()[0].fields.get("release").map(String::as_str), Some("4.2"));
        assert!(c.report.warnings[1].message.contains("\"_id\""));
    }

    #[test]
    fn csv_and_tsv_use_the_header_and_name_bad_rows() {
        let dir = tempfile::tempdir().expect("tempdir");
        let csv = write(dir.path(), "c.csv", b"id,title,text,page\na,A,\"alpha, quoted\",p1\nb,B,beta\nc,C,gamma,p3\n");
        let c = load(&csv, LoadOptions::default()).expect("loads");
        assert_eq!(c.len(), 2);
        assert_eq!(c.docs()[0].text, "alpha, quoted");
        assert_eq!(c.report.warnings.len(), 1);
        assert_eq!(c.report.warnings[0].line, Some(3));
        let tsv = write(dir.path(), "c.tsv", b"docid\ttext\nx\tone \"quoted\" word\n");
        let t = load(&tsv, LoadOptions::default()).expect("loads");
        assert_eq!(t.docs()[0].text, "one \"quoted\" word");
        let bad = write(dir.path(), "bad.csv", b"name,words\n");
        let err = load(&bad, LoadOptions::default()).expect_err("no id column");
        assert!(err.to_string().contains("bad.csv:1"), "{err}");
    }

    #[test]
    fn folder_by_file_and_by_paragraph() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(
            dir.path(),
            "b.md",
            b"# Caching\n\nCached results stay valid.\nThen replaced.\n\n## Limits\nAt most 5 devices.\n",
        );
        write(dir.path(), "a.txt", b"plain file");
        write(dir.path(), "sub/c.txt", b"bad \xff\nsecond");
        write(dir.path(), "ignored.pdf", b"%PDF");
        let files = load(dir.path(), LoadOptions::default()).expect("loads");
        assert_eq!(files.docs().iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["a", "b", "sub/c"]);
        assert_eq!(files.docs()[1].title, "Caching");
        assert_eq!(files.report.warnings.len(), 1);
        assert_eq!(files.report.warnings[0].line, Some(1));
        let paras = load(dir.path(), LoadOptions { split: Split::Paragraph, ..Default::default() }).expect("loads");
        let ids: Vec<_> = paras.docs().iter().map(|d| (d.id.as_str(), d.title.as_str())).collect();
        assert_eq!(ids, [("a-1", "a"), ("b-1", "Caching"), ("b-2", "Limits"), ("sub/c-1", "c")]);
        assert_eq!(paras.docs()[1].text, "Cached results stay valid.\nThen replaced.");
    }

    #[test]
    fn unreadable_path_is_an_error_naming_it() {
        let err = load(Path::new("/no/such/corpus.jsonl"), LoadOptions::default()).expect_err("missing");
        assert!(err.to_string().contains("/no/such/corpus.jsonl"));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut seed = 0x9e3779b97f4a7c15u64;
        for round in 0..200 {
            let len = (seed % 300) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    b"{}\",:\n\t abc_id\xff\x00"[(seed % 16) as usize]
                })
                .collect();
            for ext in ["jsonl", "csv", "tsv"] {
                let name = format!("f{round}.{ext}");
                let p = write(dir.path(), &name, &bytes);
                match load(&p, LoadOptions::default()) {
                    Ok(corpus) => {
                        for w in &corpus.report.warnings {
                            assert_eq!(w.file, p, "{w}");
                        }
                        assert!(corpus.docs().iter().all(|d| !d.id.trim().is_empty()), "{name}: an empty id");
                    }
                    Err(e) => assert!(e.to_string().contains(&name), "{name}: {e}"),
                }
            }
        }
    }
}
