//! Nothing a user types or opens can crash RankLens or change their data: generated inputs for
//! the SQL guard, the corpus, question and judgement readers, the analyzers and the report writers.
//!
//! Each property runs 1,000 cases (`RANKLENS_PROPTEST_CASES` raises it for a soak run).

mod common;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use ranklens::structured::{SqlDatabase, SqlLimits};

fn cases() -> u32 {
    common::proptest_cases()
}

/// Every file under a folder with its bytes, to compare before and after.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The sample's table as a database in its own folder.
fn sample_database() -> (tempfile::TempDir, SqlDatabase) {
    let dir = tempfile::tempdir().unwrap();
    let (db, warnings) =
        SqlDatabase::create(&dir.path().join("tables.sqlite"), &[common::sample("acme-sync/errors.csv")]).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    (dir, db)
}

/// Pieces of SQL, writing and reading, well- and ill-formed, ASCII and not.
fn sql_statement() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::sample::select(vec![
            "SELECT",
            "*",
            "FROM",
            "errors",
            "WHERE",
            "AND",
            "OR",
            "NOT",
            "code",
            "meaning",
            "added_in",
            "passage",
            "INSERT INTO errors VALUES (1)",
            "UPDATE errors SET code = 0",
            "DELETE FROM errors",
            "DROP TABLE errors",
            "CREATE TABLE t(x)",
            "ALTER TABLE errors ADD y",
            "ATTACH 'other.db' AS o",
            "DETACH o",
            "ATTACH DATABASE 'file:/etc/passwd?mode=ro' AS p",
            "PRAGMA writable_schema = 1",
            "PRAGMA journal_mode = WAL",
            "PRAGMA query_only = 0",
            "VACUUM",
            "VACUUM INTO 'copy.db'",
            "REINDEX",
            "ANALYZE",
            "BEGIN EXCLUSIVE",
            "COMMIT",
            "SAVEPOINT s",
            "RELEASE s",
            "ROLLBACK",
            "REPLACE INTO errors VALUES (1)",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
            "SELECT load_extension('x')",
            "SELECT zeroblob(2000000000)",
            "SELECT randomblob(1000000000)",
            "SELECT printf('%.*c', 2000000000, 'x')",
            "version_cmp(added_in, '4.0')",
            "COLLATE version",
            "ORDER BY",
            "GROUP BY",
            "LIMIT 5",
            "(",
            ")",
            ",",
            ";",
            "'",
            "\"",
            "=",
            ">=",
            "--",
            "/*",
            "*/",
            "'ß'",
            "\"é\"",
            "WHERE é = 'x'",
            "'ﬁ AND ß'",
            "ﬃ",
            "\u{0}",
            "ǅ",
            "İ",
        ])
        .prop_map(str::to_string),
        "\\PC{0,12}",
    ];
    prop_oneof![
        prop::collection::vec(piece, 0..14).prop_map(|p| p.join(" ")),
        "\\PC{0,80}",
        "SELECT code FROM errors WHERE \\PC{0,40}",
        // Valid statements with any text in their literals and names.
        ("[^']{0,20}", "[^\"]{1,10}", 0i64..100).prop_map(|(lit, name, n)| format!(
            "SELECT code AS \"{name}\", '{lit}' FROM errors WHERE meaning <> '{lit}' AND stops_sync < {n} ORDER BY code"
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Whatever the statement, the database file and its folder are exactly as they were, and
    /// no statement panics.
    #[test]
    fn no_statement_changes_the_database_or_its_folder(sql in sql_statement()) {
        let (dir, db) = sample_database();
        let before = snapshot(dir.path());
        let limits = SqlLimits { time_limit_ms: 200, max_rows: 50 };
        if let Ok(r) = db.query(&sql, limits) {
            prop_assert!(r.rows.len() <= 50);
        }
        prop_assert_eq!(snapshot(dir.path()), before, "{}", sql);
    }
}

#[test]
fn statements_that_would_exhaust_memory_or_time_are_stopped_with_the_limit_named() {
    let (dir, db) = sample_database();
    let before = snapshot(dir.path());
    let limits = SqlLimits { time_limit_ms: 300, max_rows: 10 };
    for (sql, says) in [
        ("SELECT randomblob(100000000)", "limit of 10000000 bytes"),
        ("SELECT length(printf('%.*c', 50000000, 'x'))", "limit of 10000000 bytes"),
        ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", "300 ms"),
        ("VACUUM INTO 'copy.db'", "refused"),
        ("ATTACH DATABASE 'other.db' AS o", "refused: ATTACH"),
    ] {
        let e = db.query(sql, limits).expect_err(sql).to_string();
        assert!(e.contains(says), "{sql}: {e}");
    }
    let long = format!("SELECT 1 {}", "+ 1 ".repeat(30_000));
    let e = db.query(&long, limits).expect_err("long").to_string();
    assert!(e.contains("120008 bytes long; the limit is 100000"), "{e}");
    // 9 + 4 × 30,000 bytes, less the trailing space. A value under the limit is fine.
    let r = db.query("SELECT length(randomblob(1000000))", limits).unwrap();
    assert_eq!(r.rows[0][0].to_string(), "1000000");
    assert_eq!(snapshot(dir.path()), before);
}

/// `ATTACH` in any spelling, of a real database next to it: always refused, so no statement can
/// read another file.
fn attach_statement() -> impl Strategy<Value = (String, bool)> {
    let spelling =
        prop::sample::select(vec!["ATTACH", "attach", "AtTaCh", "ATTACH DATABASE", "attach /* x */ database"]);
    let target =
        prop::sample::select(vec!["'{other}'", "'file:{other}?mode=ro'", "'file:{other}?immutable=1'", "x'00'"]);
    let then = prop::sample::select(vec!["", "; SELECT * FROM o.secret", " -- comment"]);
    (spelling, target, then, any::<bool>()).prop_map(|(s, t, then, vacuum)| {
        if vacuum { (format!("VACUUM INTO {t}{then}"), true) } else { (format!("{s} {t} AS o{then}"), false) }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn no_statement_reads_or_writes_another_file((template, vacuum) in attach_statement()) {
        let (dir, db) = sample_database();
        let other = dir.path().join("other.sqlite");
        {
            let conn = rusqlite::Connection::open(&other).unwrap();
            conn.execute_batch("CREATE TABLE secret(x); INSERT INTO secret VALUES ('do not read');").unwrap();
        }
        let before = snapshot(dir.path());
        let sql = template.replace("{other}", &other.display().to_string());
        let e = db.query(&sql, SqlLimits::default()).expect_err(&sql).to_string();
        prop_assert!(e.contains("refused") || e.contains("one statement"), "{}: {}", sql, e);
        prop_assert!(!e.contains("do not read"));
        prop_assert_eq!(snapshot(dir.path()), before, "{} (vacuum: {})", sql, vacuum);
    }
}

/// Text from the corners of Unicode: combining marks, right-to-left, emoji with joiners, NUL,
/// quotes, separators, line breaks of every kind, markup.
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::sample::select(vec![
            "e\u{301}",
            "\u{202e}evil\u{202c}",
            "שלום",
            "مرحبا",
            "👩\u{200d}👩\u{200d}👧",
            "🏳️‍🌈",
            "\u{0}",
            "\u{feff}",
            "\"",
            "\"\"",
            "'",
            ",",
            "\t",
            "\n",
            "\r\n",
            "\r",
            "\u{2028}",
            "\u{85}",
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "&amp;",
            "]]>",
            "| a | b |",
            "*bold*",
            "`code`",
            "[x](javascript:1)",
            "# heading",
            "İ",
            "ß",
            "ﬁ",
            "Σ",
            "\u{fffd}",
            "\\",
            "\\u{d800}",
            " ",
            "  ",
        ])
        .prop_map(str::to_string),
        "\\PC{1,8}",
        "[a-z]{1,8}",
    ];
    prop::collection::vec(piece, 0..12).prop_map(|p| p.join(""))
}

/// Documents with distinct ids of any text (quotes, commas, spaces, markup, right-to-left; no
/// white space at either end, which no format keeps) and some text that is not white space.
fn documents() -> impl Strategy<Value = Vec<(String, String, String)>> {
    prop::collection::vec((hostile_text(), hostile_text(), hostile_text()), 1..12).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (id, title, text))| {
                let id = id.replace(|c: char| c.is_control(), "");
                (format!("{i}{}{i}", id.trim()), title, format!("{text} w{i}"))
            })
            .collect()
    })
}

/// One file as chunks (a record, or an inserted bad line), tracking the line each starts on.
struct Chunks {
    bytes: Vec<u8>,
    line: usize,
}

impl Chunks {
    fn new() -> Self {
        Chunks { bytes: Vec::new(), line: 1 }
    }
    /// Append a chunk ending in a newline; returns the line it starts on.
    fn push(&mut self, chunk: &[u8]) -> usize {
        let at = self.line;
        self.bytes.extend_from_slice(chunk);
        self.line += chunk.iter().filter(|&&b| b == b'\n').count();
        at
    }
}

fn csv_record(fields: &[&str], delimiter: u8) -> Vec<u8> {
    // TSV as RankLens reads it has no quoting: fields are written as they are.
    let quoting = if delimiter == b'\t' { csv::QuoteStyle::Never } else { csv::QuoteStyle::Necessary };
    let mut w = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .quote_style(quoting)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(vec![]);
    w.write_record(fields).unwrap();
    w.into_inner().unwrap()
}

/// Write documents in a format with bad lines inserted; returns the bytes and the line numbers of
/// the bad lines.
fn mutated_file(docs: &[(String, String, String)], format: &str, bad: &[(usize, usize)]) -> (Vec<u8>, Vec<usize>) {
    let bad_lines: &[&[u8]] = match format {
        "jsonl" => &[
            b"{\"_id\": \"x",
            b"{\"title\":\"no id\",\"text\":\"t\"}",
            b"[1,2]",
            b"{\"_id\":\"bad\",\"text\":\"\xff\xfe\"}",
            b"\"just a string\"",
        ],
        "csv" => &[b"only-one-field", b"a,b,c,extra", b"\xff,\xfe,x"],
        "stray-quote" => &[b"bad,\"never closed", b"bad,\"never \"\" closed either, no", b"\"bad,never closed,x"],
        _ => &[b"only-one-field", b"a\tb\tc\textra", b"\xff\t\xfe\tx", b"two\tfields"],
    };
    let mut out = Chunks::new();
    let stray = format == "stray-quote";
    let delimiter = if format == "tsv" { b'\t' } else { b',' };
    let format = if stray { "csv" } else { format };
    if format != "jsonl" {
        out.push(&csv_record(&["id", "title", "text"], delimiter));
    }
    let mut lines = Vec::new();
    for (i, (id, title, text)) in docs.iter().enumerate() {
        for &(at, kind) in bad {
            if at % (docs.len() + 1) == i {
                let mut line = bad_lines[kind % bad_lines.len()].to_vec();
                line.push(b'\n');
                lines.push(out.push(&line));
            }
        }
        let record = match format {
            "jsonl" => format!("{}\n", serde_json::json!({"_id": id, "title": title, "text": text})).into_bytes(),
            _ => csv_record(&[id, title, text], delimiter),
        };
        out.push(&record);
    }
    for &(at, kind) in bad {
        if at % (docs.len() + 1) == docs.len() {
            let mut line = bad_lines[kind % bad_lines.len()].to_vec();
            line.push(b'\n');
            lines.push(out.push(&line));
        }
    }
    (out.bytes, lines)
}

/// TSV has no quoting: its fields hold no tab and no line break.
fn tsv_safe(docs: Vec<(String, String, String)>) -> Vec<(String, String, String)> {
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    docs.into_iter().map(|(id, title, text)| (clean(&id), clean(&title), clean(&text))).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Good records among bad lines: every good one loads exactly as written, every bad one is
    /// reported with its file and line, and nothing else is.
    #[test]
    fn every_good_record_loads_and_every_bad_line_is_named(
        docs in documents(),
        format in prop::sample::select(vec!["jsonl", "csv", "tsv"]),
        bad in prop::collection::vec((0usize..20, 0usize..5), 0..4),
    ) {
        let docs = if format == "tsv" { tsv_safe(docs) } else { docs };
        let (bytes, bad_lines) = mutated_file(&docs, format, &bad);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("corpus.{format}"));
        std::fs::write(&path, &bytes).unwrap();
        let corpus = ranklens::corpus::load(&path, Default::default()).unwrap();
        let loaded: Vec<(String, String, String)> =
            corpus.docs().iter().map(|d| (d.id.clone(), d.title.clone(), d.text.clone())).collect();
        prop_assert_eq!(&loaded, &docs, "{}", String::from_utf8_lossy(&bytes));
        let mut warned: Vec<usize> = corpus.report.warnings.iter().filter_map(|w| w.line).collect();
        warned.sort();
        prop_assert_eq!(&warned, &bad_lines, "{:?}", corpus.report.warnings);
        prop_assert!(corpus.report.warnings.iter().all(|w| w.file == path));
        prop_assert_eq!(corpus.report.skipped, bad_lines.len());
    }

    /// A quote that opens a CSV field and never closes costs its own line: when no quote follows
    /// it (the unterminated quote), every other record loads and its line is named. When quotes
    /// follow, they may pair up with it into well-formed records (CSV cannot tell a stray quote
    /// from a field over several lines); then every record before it still loads and the stray
    /// region shows, as a warning at or after its line or as the record it made.
    #[test]
    fn a_stray_quote_costs_its_own_line(
        docs in documents(),
        at in 0usize..20,
        kind in 0usize..3,
        quotes_follow in any::<bool>(),
    ) {
        let at = at % (docs.len() + 1);
        let docs: Vec<(String, String, String)> = docs
            .into_iter()
            .enumerate()
            .map(|(i, (id, title, text))| {
                // Without `"`, `,` or line breaks a field needs no quotes.
                let plain = |s: String| s.replace(['"', ',', '\n', '\r'], "'");
                if quotes_follow || i < at { (id, title, text) } else { (id, plain(title), plain(text)) }
            })
            .collect();
        let (bytes, bad_lines) = mutated_file(&docs, "stray-quote", &[(at, kind)]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("corpus.csv");
        std::fs::write(&path, &bytes).unwrap();
        let corpus = ranklens::corpus::load(&path, Default::default()).unwrap();
        let loaded: Vec<(String, String, String)> =
            corpus.docs().iter().map(|d| (d.id.clone(), d.title.clone(), d.text.clone())).collect();
        let warned: Vec<usize> = corpus.report.warnings.iter().filter_map(|w| w.line).collect();
        let stray_end = bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(bad_lines[0] - 1).map_or(0, |(i, _)| i);
        let quote_after = bytes[stray_end..].contains(&b'"');
        if !quote_after {
            prop_assert_eq!(&loaded, &docs, "{}", String::from_utf8_lossy(&bytes));
            prop_assert_eq!(&warned, &bad_lines, "{:?}", corpus.report.warnings);
            prop_assert!(corpus.report.warnings[0].message.contains("never closes"));
        } else {
            prop_assert_eq!(&loaded[..at], &docs[..at]);
            let visible = warned.iter().any(|&l| l >= bad_lines[0])
                || loaded.iter().any(|(id, title, text)| id.contains("bad") || title.contains("never") || text.contains("never"));
            prop_assert!(visible, "{:?}", corpus.report.warnings);
        }
    }

    /// Arbitrary bytes, in every format: a corpus or an error naming the file, never a panic; every
    /// warning names the file and a line that exists.
    #[test]
    fn arbitrary_bytes_load_or_fail_with_the_file_named(
        bytes in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..400),
            prop::collection::vec(prop::sample::select(b"{}[]\":,\t\n\r _idtext\\\xff\x00a1".to_vec()), 0..400),
        ],
        format in prop::sample::select(vec!["jsonl", "csv", "tsv"]),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("corpus.{format}"));
        std::fs::write(&path, &bytes).unwrap();
        let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
        match ranklens::corpus::load(&path, Default::default()) {
            Ok(corpus) => {
                for w in &corpus.report.warnings {
                    prop_assert_eq!(&w.file, &path);
                    prop_assert!(w.line.is_some_and(|l| (1..=lines).contains(&l)), "{}", w);
                }
                // Counted from the file, not from the loader: no line gives two records, every id
                // has words and is the corpus's only one of its name.
                prop_assert!(corpus.len() + corpus.report.skipped <= lines, "{} + {} records from {} lines",
                    corpus.len(), corpus.report.skipped, lines);
                let mut ids = std::collections::BTreeSet::new();
                for d in corpus.docs() {
                    prop_assert!(!d.id.trim().is_empty(), "an empty id was loaded");
                    prop_assert!(ids.insert(d.id.clone()), "{:?} loaded twice", d.id);
                }
                prop_assert!(corpus.report.skipped <= corpus.report.warnings.len());
            }
            Err(e) => prop_assert!(e.to_string().contains("corpus."), "{}", e),
        }
    }
}

// ---- Report writers -------------------------------------------------------------------------

/// A marker element and attribute: if either appears in a parsed report, input became markup.
const INJECTED: &str = "<x-injected data-pwn=\"1\" onload=\"alert(1)\">";

/// A one-question report over documents, a question and a run label made of hostile text, with
/// a run whose documents are not in the corpus (their ids are hostile text too).
fn hostile_report(
    docs: &[(String, String, String)],
    question: &str,
    label: &str,
    absent: &[String],
) -> ranklens::report::ReportBody {
    use ranklens::compare::Plan;
    use ranklens::config::Settings;
    use ranklens::retrieve::MethodKind;
    let corpus = ranklens::corpus::Corpus::from_docs(
        format!("corpus {INJECTED}"),
        docs.iter().map(|(id, title, text)| ranklens::corpus::Doc {
            id: id.clone(),
            title: title.clone(),
            text: text.clone(),
            fields: Default::default(),
        }),
    );
    let mut corpus = corpus;
    corpus.queries = vec![ranklens::corpus::Query { id: "q".into(), text: question.to_string() }];
    let engine = ranklens::workbench::Workbench::new(corpus);
    let mut run = String::new();
    for (i, id) in absent.iter().chain(docs.iter().map(|d| &d.0)).enumerate() {
        run.push_str(&format!("{}\n", serde_json::json!({"qid": "q", "docid": id, "score": 10.0 - i as f64})));
    }
    let run = ranklens::eval::RunFile::parse(run.as_bytes(), None, Path::new("run.jsonl"), label).unwrap();
    let settings = Settings { methods: vec![MethodKind::Bm25, MethodKind::TfIdf], ..Settings::default() };
    let plan = Plan::of_kinds(&settings, &settings.methods).with_runs(&[std::sync::Arc::new(run)]);
    let query = engine.query_context(question, &settings);
    let result = plan.run(&engine, &query, &ranklens::progress::NoProgress).unwrap();
    ranklens::report::ReportBody::Comparison(Box::new(ranklens::report::comparison_report(
        &engine, &result, &settings, None,
    )))
}

fn ids() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(hostile_text(), 0..3)
        .prop_map(|v| v.into_iter().enumerate().map(|(i, t)| format!("{t}{INJECTED}{i}")).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Parsed by an HTML5 parser, the report holds no element or attribute from the input, and
    /// the question is the heading's text exactly.
    #[test]
    fn html_reports_never_turn_input_into_markup(
        docs in documents(), question in hostile_text(), label in hostile_text(), absent in ids(),
    ) {
        let question = format!("{question} {INJECTED} w0");
        let label = format!("{label}{INJECTED}");
        let body = hostile_report(&docs, &question, &label, &absent);
        let html = ranklens::report::render(&body, ranklens::report::ReportFormat::Html).unwrap();
        let page = scraper::Html::parse_document(&html);
        for node in page.tree.nodes() {
            if let Some(el) = node.value().as_element() {
                prop_assert!(!matches!(el.name(), "x-injected" | "script" | "img" | "iframe"), "<{}>", el.name());
                for (name, _) in el.attrs() {
                    prop_assert!(name != "data-pwn" && !name.starts_with("on"), "attribute {}", name);
                }
            }
        }
        let h1 = scraper::Selector::parse("h1").unwrap();
        let heading: String = page.select(&h1).next().map(|h| h.text().collect()).unwrap_or_default();
        // An HTML parser drops NUL and reads `\r\n` and `\r` as `\n`.
        let want = question.replace('\0', "").replace("\r\n", "\n").replace('\r', "\n");
        prop_assert_eq!(heading.trim(), want.trim());
    }

    /// Markdown: no raw HTML from the input reaches a CommonMark parser, every table row has as
    /// many cells as its header, and the heading reads back as the question.
    #[test]
    fn markdown_reports_escape_what_markdown_would_read(
        docs in documents(), question in hostile_text(), label in hostile_text(), absent in ids(),
    ) {
        use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
        let question = format!("{question} {INJECTED} w0");
        let body = hostile_report(&docs, &question, &format!("{label}|{INJECTED}"), &absent);
        let md = ranklens::report::render(&body, ranklens::report::ReportFormat::Markdown).unwrap();
        let (mut in_heading, mut heading, mut cells, mut header_cells) = (false, String::new(), 0usize, None);
        for event in Parser::new_ext(&md, Options::ENABLE_TABLES) {
            match event {
                Event::Html(h) | Event::InlineHtml(h) => prop_assert!(false, "raw HTML {:?} in\n{}", h, md),
                Event::Start(Tag::Heading { .. }) => in_heading = heading.is_empty(),
                Event::End(TagEnd::Heading(_)) => in_heading = false,
                Event::Text(t) | Event::Code(t) if in_heading => heading.push_str(&t),
                Event::Start(Tag::TableHead | Tag::TableRow) => cells = 0,
                Event::Start(Tag::TableCell) => cells += 1,
                Event::End(TagEnd::TableHead) => header_cells = Some(cells),
                Event::End(TagEnd::TableRow) => prop_assert_eq!(Some(cells), header_cells, "{}", md),
                Event::End(TagEnd::Table) => header_cells = None,
                _ => {}
            }
        }
        // CommonMark may replace NUL by U+FFFD; compare without either.
        let words = |s: &str| s.replace(['\0', '\u{fffd}'], "").split_whitespace().collect::<Vec<_>>().join(" ");
        prop_assert_eq!(words(&heading), words(&question));
    }

    /// CSV: read back, every row has five fields; the question, method and passage read back as
    /// written, except that text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab,
    /// carriage return first) is kept as text with a leading `'`.
    #[test]
    fn csv_reports_read_back_as_written(
        docs in documents(), question in hostile_text(), label in hostile_text(), absent in ids(),
    ) {
        let question = format!("{question} w0");
        let body = hostile_report(&docs, &question, &label, &absent);
        let text = ranklens::report::render(&body, ranklens::report::ReportFormat::Csv).unwrap();
        let as_text = |s: &str| if s.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{s}") } else { s.to_string() };
        let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
        let mut run_ids = Vec::new();
        let question_cell = as_text(&question);
        for row in reader.records() {
            let row = row.unwrap();
            prop_assert_eq!(row.len(), 5);
            prop_assert_eq!(&row[0], question_cell.as_str());
            prop_assert!(row[4].parse::<f64>().is_ok());
            if row[1] == as_text(&label) {
                run_ids.push(row[3].to_string());
            }
        }
        // A run file's ids are read trimmed; a column shows the top 10.
        let want: Vec<String> =
            absent.iter().chain(docs.iter().map(|d| &d.0)).map(|s| as_text(s.trim())).take(10).collect();
        prop_assert_eq!(run_ids, want);
    }

    /// JSON: written and read back, the report is the same value (rankings marked provisional, made
    /// while the corpus was encoded, too).
    #[test]
    fn json_reports_round_trip(
        docs in documents(), question in hostile_text(), label in hostile_text(), absent in ids(), provisional in any::<bool>(),
    ) {
        let mut body = hostile_report(&docs, &format!("{question} w0"), &label, &absent);
        let ranklens::report::ReportBody::Comparison(report) = &mut body else { panic!("one question's report") };
        let mut marked = 0;
        for run in &mut report.comparison.runs {
            if let ranklens::compare::Outcome::Ranked(r) = &mut run.outcome {
                r.provisional = provisional;
                marked += 1;
            }
        }
        prop_assert!(marked > 0, "a ranked column to mark");
        let text = ranklens::report::render(&body, ranklens::report::ReportFormat::Json).unwrap();
        prop_assert_eq!(ranklens::report::parse(text.as_bytes(), "r.json").unwrap(), body);
    }
}

// ---- The command line -------------------------------------------------------------------------

/// Run the CLI with `stdin` piped in; (exit code, stdout, stderr).
fn cli(args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(args)
        .env("RANKLENS_WORKSPACE", tempfile::tempdir().unwrap().keep())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_cli_refuses_hostile_queries_with_a_clear_error() {
    let nots = format!("{}sync", "NOT ".repeat(20_000));
    let (code, _, err) = cli(&["search", "--method", "boolean", &nots], "");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("nests more than 100 levels of parentheses and NOTs (at character 401)"), "{err}");
    // 200,000 characters: longer than Linux lets one argument be, so it comes on standard input.
    let parens = format!("{}sync{}", "(".repeat(100_000), ")".repeat(100_000));
    let (code, _, err) = cli(&["search", "--method", "boolean", "-"], &parens);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("nests more than 100 levels") && err.contains("(at character 101)"), "{err}");
    let (code, _, err) = cli(&["sql", "-"], &format!("SELECT 1 {}", "+ 1 ".repeat(30_000)));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("the limit is 100000"), "{err}");
    let (code, _, err) = cli(&["graph", &vec!["desktop-app loads ?p"; 17].join(" . ")], "");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("more than 16 triples"), "{err}");
    let (code, _, err) = cli(&["search", "--filter", "release >=", "sync"], "");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no value after `>=`"), "{err}");
    // A missing file is named once, with what the system said once.
    let (code, _, err) = cli(&["search", "--corpus", "/no/such/corpus.jsonl", "sync"], "");
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    assert!(err.contains("/no/such/corpus.jsonl"), "{err}");
    // A flat query of thousands of words is fine.
    let words: Vec<String> = (0..5000).map(|i| format!("w{i}")).collect();
    let (code, out, err) = cli(&["search", "--method", "boolean", "-"], &format!("sync OR {}", words.join(" OR ")));
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("· 12 matching"), "{out}");
}

/// A file name and contents for a folder corpus.
fn folder_file() -> impl Strategy<Value = (String, Vec<u8>)> {
    let name = (
        "[a-c]{1,2}",
        prop::sample::select(vec!["txt", "md", "TXT", "pdf", ""]),
        prop::sample::select(vec!["", "sub/", ".hidden/"]),
    )
        .prop_map(
            |(stem, ext, dir)| if ext.is_empty() { format!("{dir}{stem}") } else { format!("{dir}{stem}.{ext}") },
        );
    let bytes = prop_oneof![
        hostile_text().prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..200),
        prop::collection::vec(prop::sample::select(b"# \n\nab\xff\x00".to_vec()), 0..200),
    ];
    (name, bytes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// A folder of any files, cut by file or by paragraph: no panic; every visible `.txt`/`.md`
    /// file is loaded or named in a warning; nothing else is read.
    #[test]
    fn folders_of_any_files_load_or_name_each_file(files in prop::collection::vec(folder_file(), 0..8), paragraphs in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in &files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, bytes).unwrap();
        }
        let split = if paragraphs { ranklens::corpus::Split::Paragraph } else { ranklens::corpus::Split::File };
        let corpus = ranklens::corpus::load(dir.path(), ranklens::corpus::LoadOptions { split, ..Default::default() }).unwrap();
        let mut text_files: Vec<&String> = files
            .iter()
            .map(|(n, _)| n)
            .filter(|n| !n.starts_with('.') && (n.to_lowercase().ends_with(".txt") || n.to_lowercase().ends_with(".md")))
            .collect();
        text_files.sort();
        text_files.dedup();
        prop_assert_eq!(corpus.report.files, text_files.len());
        for name in text_files {
            let id = name.rsplit_once('.').map_or(name.as_str(), |(stem, _)| stem);
            let loaded = corpus.docs().iter().any(|d| d.id == id || d.id.starts_with(&format!("{id}-")));
            let named = corpus.report.warnings.iter().any(|w| w.file == dir.path().join(name));
            prop_assert!(loaded || named, "{} neither loaded nor named: {:?}", name, corpus.report.warnings);
        }
        if files.iter().all(|(n, _)| n.starts_with('.')) {
            prop_assert!(corpus.report.warnings.iter().any(|w| w.message.contains("no .txt or .md files")));
        }
    }

    /// A BEIR folder whose three files hold anything: a corpus or an error naming a file.
    #[test]
    fn beir_folders_with_any_contents_load_or_name_the_file(
        corpus_bytes in prop::collection::vec(any::<u8>(), 0..300),
        queries in hostile_text(),
        qrels in prop::collection::vec(prop_oneof!["\\PC{0,20}", "q[0-2]\td[0-2]\t[0-2]", "query-id\tcorpus-id\tscore"], 0..10),
        good in documents(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut jsonl: Vec<u8> = good.iter().map(|(id, title, text)| format!("{}\n", serde_json::json!({"_id": id, "title": title, "text": text}))).collect::<String>().into_bytes();
        jsonl.extend_from_slice(&corpus_bytes);
        std::fs::write(dir.path().join("corpus.jsonl"), &jsonl).unwrap();
        std::fs::write(dir.path().join("queries.jsonl"), queries.as_bytes()).unwrap();
        std::fs::create_dir_all(dir.path().join("qrels")).unwrap();
        std::fs::write(dir.path().join("qrels/test.tsv"), qrels.join("\n")).unwrap();
        let corpus = ranklens::corpus::load(dir.path(), Default::default()).unwrap();
        // Every good document before the junk loads (the junk may start mid-line and spoil the
        // last good line only if it lacks its newline, which it never does here).
        for (id, title, text) in &good {
            let d = corpus.docs().iter().find(|d| &d.id == id);
            prop_assert!(d.is_some_and(|d| &d.title == title && &d.text == text), "{} missing", id);
        }
        for w in &corpus.report.warnings {
            prop_assert!(w.file.starts_with(dir.path()) && w.line.is_some());
        }
    }
}

#[test]
fn nesting_in_json_inputs_is_an_error_on_its_line_not_a_stack_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let path = dir.path().join("c.jsonl");
    std::fs::write(&path, format!("{{\"_id\":\"a\",\"text\":\"fine\"}}\n{deep}\n{{\"_id\":\"b\",\"text\":{deep}}}\n"))
        .unwrap();
    let corpus = ranklens::corpus::load(&path, Default::default()).unwrap();
    assert_eq!(corpus.len(), 1);
    let lines: Vec<Option<usize>> = corpus.report.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, [Some(2), Some(3)]);
    assert!(corpus.report.warnings[0].message.contains("recursion limit"), "{}", corpus.report.warnings[0]);
    let run = format!("{{\"q1\": {deep}}}");
    let e =
        ranklens::eval::RunFile::parse(run.as_bytes(), None, Path::new("run.json"), "run").err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("run.json") && e.contains("recursion limit")));
    let report = format!("{{\"format\":\"ranklens-report\",\"version\":1,\"checksum\":\"x\",\"body\":{deep}}}");
    let e = ranklens::report::parse(report.as_bytes(), "r.json").err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("r.json") && e.contains("recursion limit")));
}
