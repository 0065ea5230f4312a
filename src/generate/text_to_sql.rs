//! Text to SQL over the corpus's tables: the model is shown each table's schema and three of its
//! rows, and writes one statement for a question. Nothing it writes is trusted: the statement is
//! read out of its reply, refused unless it is exactly one `SELECT` (or `WITH … SELECT`), and run
//! on the read-only connection every statement runs on (opened read-only, `PRAGMA query_only`, an
//! authorizer that denies every write, ATTACH and PRAGMA, and the time, row and size limits), so a
//! model that answers `DROP TABLE errors;` changes nothing and is told why.

use serde::{Deserialize, Serialize};

use super::{Generator, prompts};
use crate::progress::Progress;
use crate::structured::{SqlDatabase, SqlLimits, SqlResult, strip_comments};
use crate::{Error, Result};

/// Example rows of each table the prompt shows.
pub const EXAMPLE_ROWS: usize = 3;
/// A text column with at most this many distinct values has them all listed in the prompt.
pub const FEW_VALUES: usize = 20;
/// Characters of one example value the prompt shows.
const EXAMPLE_VALUE_CHARS: usize = 60;

/// What became of the model's statement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SqlOutcome {
    /// It ran: its rows.
    Rows(SqlResult),
    /// It was not run, or the database refused it: why. Nothing was changed.
    Refused(String),
    /// It was a read that failed (a syntax error, an unknown column): the database's message.
    Failed(String),
}

/// A question asked of the tables in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SqlAsk {
    /// The question.
    pub question: String,
    /// The model's reply as written.
    pub reply: String,
    /// The statement read from it (empty when the reply held none).
    pub sql: String,
    /// Which model wrote it.
    pub model: String,
    /// What the reply was held to while it was written, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constrained: Option<String>,
    /// The reply came from the workspace's store of replies.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stored: bool,
}

/// The schema and example rows of every table, as the prompt shows them: `errors(code TEXT, …)`
/// then up to three rows as `column=value | …`.
pub fn schema_text(db: &SqlDatabase) -> Result<String> {
    let mut out = String::new();
    for (table, columns) in db.schema()? {
        let cols: Vec<String> = columns.iter().map(|(c, t)| format!("{c} {t}")).collect();
        out.push_str(&format!("{table}({})\n", cols.join(", ")));
        let sql = format!("SELECT * FROM \"{}\" LIMIT {EXAMPLE_ROWS}", table.replace('"', "\"\""));
        let rows = db.query(&sql, SqlLimits::default())?;
        if !rows.rows.is_empty() {
            out.push_str(&format!("Example rows of {table}:\n"));
        }
        for row in &rows.rows {
            let cells: Vec<String> = rows
                .columns
                .iter()
                .zip(row)
                .map(|(c, v)| {
                    let v = v.to_string();
                    let short: String = v.chars().take(EXAMPLE_VALUE_CHARS).collect();
                    format!("{c}={}", if short.len() < v.len() { format!("{short}…") } else { short })
                })
                .collect();
            out.push_str(&format!("  {}\n", cells.join(" | ")));
        }
        // A text column of few values lists them all: the model then writes a value the column
        // holds (`'Clear the cache'`, not `'Clear cache'`).
        let mut listed = Vec::new();
        for (c, t) in &columns {
            if !t.eq_ignore_ascii_case("TEXT") {
                continue;
            }
            let q = |c: &str| format!("\"{}\"", c.replace('"', "\"\""));
            let sql = format!(
                "SELECT DISTINCT {col} FROM {tab} WHERE {col} IS NOT NULL ORDER BY {col} LIMIT {}",
                FEW_VALUES + 1,
                col = q(c),
                tab = q(&table)
            );
            let values = db.query(&sql, SqlLimits::default())?;
            if (2..=FEW_VALUES).contains(&values.rows.len()) {
                let shown: Vec<String> =
                    values.rows.iter().filter_map(|r| r.first()).map(|v| format!("'{v}'")).collect();
                listed.push(format!("  {c}: {}", shown.join(", ")));
            }
        }
        if !listed.is_empty() {
            out.push_str(&format!("Every value of these columns of {table}:\n{}\n", listed.join("\n")));
        }
    }
    Ok(out.trim_end().to_string())
}

/// The request for a statement answering `question` over `schema` ([`schema_text`]).
pub fn sql_request(schema: &str, question: &str) -> super::ChatRequest {
    prompts::TEXT_TO_SQL.request(&[("schema", schema), ("question", question.trim())])
}

/// Ask `generator` for a statement answering `question` over `db`'s tables. The statement is read
/// from the reply and not run: [`check`] it, show it, then [`run`] it.
pub fn write_sql(
    generator: &dyn Generator,
    db: &SqlDatabase,
    question: &str,
    progress: &dyn Progress,
) -> Result<SqlAsk> {
    let schema = schema_text(db)?;
    let shape = select_shape(db)?;
    let generated = generator.chat(&sql_request(&schema, question).shaped(shape), &mut |_| {}, progress)?;
    Ok(SqlAsk {
        question: question.trim().to_string(),
        sql: extract_sql(&generated.text),
        reply: generated.text,
        model: generator.info().label(),
        constrained: generated.constrained,
        stored: generated.stored,
    })
}

/// One SELECT over `db`'s own tables and columns: what the reply is held to.
pub fn select_shape(db: &SqlDatabase) -> Result<super::Shape> {
    let tables = db.schema()?.into_iter().map(|(t, cols)| (t, cols.into_iter().map(|(c, _)| c).collect())).collect();
    Ok(super::Shape::Select { tables })
}

/// The statement in a model's reply: the first fenced block if there is one (```sql … ```), else
/// the text from the first line that starts with a SQL keyword, up to a blank line or a fence;
/// else the whole reply trimmed. A `SQL:` label is dropped. Nothing is cut from the statement
/// itself: `SELECT 1; DROP TABLE t` stays whole, so [`check`] sees the second statement.
pub fn extract_sql(reply: &str) -> String {
    let text = reply.trim();
    if let Some(start) = text.find("```") {
        let after = &text[start + 3..];
        let body = after.strip_prefix("sql").or_else(|| after.strip_prefix("SQL")).unwrap_or(after);
        let end = body.find("```").unwrap_or(body.len());
        let inner = body[..end].trim();
        if !inner.is_empty() {
            return inner.to_string();
        }
    }
    let keywords = ["SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "DROP", "CREATE", "ALTER", "ATTACH", "PRAGMA"];
    let lines: Vec<&str> = text.lines().collect();
    let unlabel = |l: &str| -> String {
        let t = l.trim();
        match t.get(..4) {
            Some(head) if head.eq_ignore_ascii_case("sql:") => t[4..].trim().to_string(),
            _ => t.to_string(),
        }
    };
    let start = lines.iter().position(|l| {
        let first = unlabel(l).split_whitespace().next().unwrap_or("").to_ascii_uppercase();
        keywords.iter().any(|k| first.trim_start_matches('(') == *k)
    });
    match start {
        Some(i) => {
            let mut out = vec![unlabel(lines[i])];
            for l in &lines[i + 1..] {
                if l.trim().is_empty() || l.trim_start().starts_with("```") {
                    break;
                }
                out.push(l.trim_end().to_string());
            }
            out.join("\n").trim().to_string()
        }
        None => unlabel(text),
    }
}

/// One question of a text-to-SQL set with the statement that answers it (written by hand).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldQuestion {
    /// The question in words.
    pub question: String,
    /// The statement whose rows are the answer.
    pub sql: String,
}

/// Read a text-to-SQL set: a tab-separated file with the header `question<TAB>sql`, one question a
/// line; blank lines are skipped. A line without both fields is an error naming the file and line.
pub fn read_gold(path: &std::path::Path, text: &str) -> Result<Vec<GoldQuestion>> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(Error::invalid(path.display().to_string(), "empty: expected a `question<TAB>sql` header"));
    };
    let names: Vec<&str> = header.split('\t').map(str::trim).collect();
    if names != ["question", "sql"] {
        return Err(Error::invalid(
            format!("{}: line 1", path.display()),
            format!("the header is {header:?}; expected `question<TAB>sql`"),
        ));
    }
    lines
        .map(|(i, line)| match line.split_once('\t') {
            Some((q, sql)) if !q.trim().is_empty() && !sql.trim().is_empty() && !sql.contains('\t') => {
                Ok(GoldQuestion { question: q.trim().to_string(), sql: sql.trim().to_string() })
            }
            _ => Err(Error::invalid(
                format!("{}: line {}", path.display(), i + 1),
                "expected a question, a tab, and its SQL statement",
            )),
        })
        .collect()
}

/// Whether two results hold the same rows, in any order (execution accuracy: a statement is right
/// when its rows are the gold statement's). Values compare as SQLite shows them, so `3` and `3.0`
/// differ as they would to a reader; column names do not matter.
pub fn same_rows(a: &SqlResult, b: &SqlResult) -> bool {
    let key = |r: &SqlResult| {
        let mut rows: Vec<Vec<String>> =
            r.rows.iter().map(|row| row.iter().map(|v| format!("{v:?}")).collect()).collect();
        rows.sort();
        rows
    };
    a.columns.len() == b.columns.len() && key(a) == key(b)
}

/// The words that begin a statement other than a read.
const STATEMENT_WORDS: [&str; 18] = [
    "INSERT",
    "UPDATE",
    "DELETE",
    "REPLACE",
    "DROP",
    "CREATE",
    "ALTER",
    "ATTACH",
    "DETACH",
    "PRAGMA",
    "VACUUM",
    "REINDEX",
    "ANALYZE",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "EXPLAIN",
];

/// Why a statement may not run, before the database sees it: empty, more than one statement, or
/// not a read (`SELECT`, or `WITH` and a `SELECT`). `Ok` does not mean it will run: the read-only
/// connection refuses what slips past (a `WITH` that writes, a function that is not allowed).
pub fn check(sql: &str) -> std::result::Result<(), String> {
    let body = strip_comments(sql);
    let trimmed = body.trim().trim_end_matches(';').trim();
    if trimmed.is_empty() {
        return Err("the model wrote no statement".into());
    }
    if statements(trimmed) > 1 {
        return Err("the model wrote more than one statement; exactly one SELECT may run".into());
    }
    let first = trimmed
        .split(|c: char| c.is_whitespace() || c == '(')
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_ascii_uppercase();
    match first.as_str() {
        "SELECT" | "WITH" | "VALUES" => Ok(()),
        "" => Err("the model wrote no statement".into()),
        word if STATEMENT_WORDS.contains(&word) => Err(format!(
            "the model wrote {} {word} statement; only a SELECT may run, and nothing was changed",
            if word.starts_with(['A', 'E', 'I', 'O', 'U']) { "an" } else { "a" }
        )),
        _ => Err("the model's reply is not a SQL statement, so nothing ran".into()),
    }
}

/// Run a model's statement: [`check`]ed first, then on the read-only connection under `limits`.
/// A refusal by the database (a write it caught, a PRAGMA) is [`SqlOutcome::Refused`]; a read that
/// fails is [`SqlOutcome::Failed`].
pub fn run(db: &SqlDatabase, sql: &str, limits: SqlLimits) -> SqlOutcome {
    if let Err(why) = check(sql) {
        return SqlOutcome::Refused(why);
    }
    match db.query(sql, limits) {
        Ok(rows) => SqlOutcome::Rows(rows),
        Err(Error::Sql(m)) if m.starts_with("refused") || m.contains("one statement") => SqlOutcome::Refused(m),
        Err(e) => SqlOutcome::Failed(e.to_string()),
    }
}

/// How many statements `sql` holds: pieces between `;` outside quotes that hold anything.
fn statements(sql: &str) -> usize {
    let mut count = 0;
    let mut quote: Option<char> = None;
    let mut piece = false;
    for c in sql.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => {
                quote = Some(c);
                piece = true;
            }
            (None, ';') => {
                count += usize::from(piece);
                piece = false;
            }
            (None, c) if !c.is_whitespace() => piece = true,
            _ => {}
        }
    }
    count + usize::from(piece)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors_table(dir: &std::path::Path) -> SqlDatabase {
        let csv = dir.join("errors.csv");
        std::fs::write(&csv, "code,stops_sync\nE1,1\nE2,0\n").unwrap();
        SqlDatabase::create(&dir.join("t.sqlite"), &[csv]).unwrap().0
    }

    #[test]
    fn the_database_s_refusal_is_a_refusal_and_a_failed_read_a_failure() {
        let dir = tempfile::tempdir().unwrap();
        let db = errors_table(dir.path());
        // It passes the check (it begins WITH) and the read-only connection refuses it.
        match run(&db, "WITH x AS (SELECT 1) DELETE FROM errors", SqlLimits::default()) {
            SqlOutcome::Refused(m) => assert!(m.starts_with("refused"), "{m}"),
            other => panic!("{other:?}"),
        }
        match run(&db, "SELECT nosuch FROM errors", SqlLimits::default()) {
            SqlOutcome::Failed(m) => assert!(m.contains("nosuch"), "{m}"),
            other => panic!("{other:?}"),
        }
        match run(&db, "SELECT code FROM errors WHERE stops_sync = 1", SqlLimits::default()) {
            SqlOutcome::Rows(r) => assert!(r.rows.len() == 1 && format!("{:?}", r.rows[0]).contains("E1"), "{r:?}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_fenced_statement_is_taken_whole_before_any_line_of_prose() {
        assert_eq!(extract_sql("Here:\n```sql\nSELECT a\nFROM t\n```\nor SELECT b FROM t"), "SELECT a\nFROM t");
        // A blank line inside the fence, or a line of prose that begins with a keyword, would end
        // or replace the statement if lines were read instead.
        assert_eq!(extract_sql("```sql\nSELECT a\n\nFROM t\n```"), "SELECT a\n\nFROM t");
        assert_eq!(extract_sql("Select this:\n```sql\nSELECT b FROM t\n```"), "SELECT b FROM t");
    }

    #[test]
    fn a_reply_of_only_a_bracket_wrote_no_statement_and_quoted_semicolons_do_not_count() {
        assert_eq!(check("("), Err("the model wrote no statement".to_string()));
        assert_eq!(statements("SELECT 'a;b' FROM t"), 1);
        assert_eq!(statements("SELECT \"x;\" FROM t; SELECT 1"), 2);
        assert_eq!(statements("SELECT 'it''s;' FROM t;"), 1);
    }

    #[test]
    fn the_statement_is_read_out_of_a_chatty_reply() {
        assert_eq!(extract_sql("SELECT code FROM errors;"), "SELECT code FROM errors;");
        assert_eq!(
            extract_sql("Here is the query:\n```sql\nSELECT code\nFROM errors WHERE stops_sync = 1;\n```\nIt lists…"),
            "SELECT code\nFROM errors WHERE stops_sync = 1;"
        );
        assert_eq!(
            extract_sql("Sure! The statement is\n\nSQL: select * from errors;\n\nThis returns"),
            "select * from errors;"
        );
        assert_eq!(extract_sql("  DROP TABLE errors;  "), "DROP TABLE errors;");
        assert_eq!(extract_sql("SELECT 1; DROP TABLE errors;"), "SELECT 1; DROP TABLE errors;", "kept whole");
        assert_eq!(extract_sql("I cannot help with that."), "I cannot help with that.");
    }

    #[test]
    fn the_schema_shows_example_rows_and_every_value_of_a_column_of_few() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("errors.csv");
        std::fs::write(
            &csv,
            "code,severity,fix,stops_sync\nE1,error,Sign in again,1\nE2,warning,Rename the file,0\nE3,error,Sign in \
             again,0\nE4,info,Retry later,0\n",
        )
        .unwrap();
        let (db, _) = SqlDatabase::create(&dir.path().join("t.sqlite"), &[csv]).unwrap();
        let text = schema_text(&db).unwrap();
        assert_eq!(
            text,
            "errors(code TEXT, severity TEXT, fix TEXT, stops_sync INTEGER)\nExample rows of errors:\n  code=E1 | \
             severity=error | fix=Sign in again | stops_sync=1\n  code=E2 | severity=warning | fix=Rename the file | \
             stops_sync=0\n  code=E3 | severity=error | fix=Sign in again | stops_sync=0\nEvery value of these columns \
             of errors:\n  code: 'E1', 'E2', 'E3', 'E4'\n  severity: 'error', 'info', 'warning'\n  fix: 'Rename the file', \
             'Retry later', 'Sign in again'"
        );
    }

    #[test]
    fn a_gold_set_is_read_and_its_bad_lines_are_named() {
        let path = std::path::Path::new("gold.tsv");
        let set =
            read_gold(path, "question\tsql\nWhich stop?\tSELECT code FROM errors WHERE stops_sync = 1\n\n").unwrap();
        assert_eq!(
            set,
            [GoldQuestion {
                question: "Which stop?".into(),
                sql: "SELECT code FROM errors WHERE stops_sync = 1".into()
            }]
        );
        let e = read_gold(path, "question\tsql\nok\tSELECT 1\nno tab here\n").unwrap_err().to_string();
        assert!(e.contains("gold.tsv: line 3"), "{e}");
        let e = read_gold(path, "q\ts\n").unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("header"), "{e}");
        assert!(read_gold(path, "").is_err());
    }

    #[test]
    fn rows_are_the_same_in_any_order_and_with_the_same_width() {
        use crate::structured::SqlValue::{Integer, Text};
        let r = |rows: Vec<Vec<crate::structured::SqlValue>>| SqlResult {
            sql: String::new(),
            columns: rows.first().map(|x| (0..x.len()).map(|i| format!("c{i}")).collect()).unwrap_or_default(),
            rows,
            truncated: false,
            conditions: vec![],
            passages: vec![],
            elapsed_ms: 0.0,
        };
        let a = r(vec![vec![Text("E104".into())], vec![Text("E180".into())]]);
        let b = r(vec![vec![Text("E180".into())], vec![Text("E104".into())]]);
        assert!(same_rows(&a, &b));
        assert!(!same_rows(&a, &r(vec![vec![Text("E104".into())]])), "a row missing");
        assert!(!same_rows(&r(vec![vec![Integer(3)]]), &r(vec![vec![Text("3".into())]])), "3 is not '3'");
        assert!(!same_rows(&a, &r(vec![vec![Text("E104".into()), Integer(1)], vec![Text("E180".into()), Integer(1)]])));
        // Duplicates count: a multiset, not a set.
        assert!(!same_rows(&r(vec![vec![Integer(1)], vec![Integer(1)]]), &r(vec![vec![Integer(1)]])));
    }

    #[test]
    fn only_one_select_passes_the_check() {
        assert!(check("SELECT code FROM errors WHERE severity = 'error';").is_ok());
        assert!(check("with x as (select 1) select * from x").is_ok());
        assert!(check("-- the codes\nSELECT code FROM errors").is_ok());
        assert!(check("SELECT ';' AS semicolon;").is_ok(), "a semicolon in quotes is not a second statement");
        let why = |s: &str| check(s).unwrap_err();
        assert!(why("DROP TABLE errors;").contains("DROP statement"), "{}", why("DROP TABLE errors;"));
        assert!(why("SELECT 1; DROP TABLE errors;").contains("more than one statement"));
        assert!(why("ATTACH DATABASE 'x.db' AS x").contains("ATTACH"));
        assert!(why("PRAGMA writable_schema = 1").contains("PRAGMA"));
        assert!(why("/* hidden */ DELETE FROM errors").contains("DELETE"));
        assert!(why("   ;  ").contains("no statement"));
        assert!(why("I cannot help with that.").contains("not a SQL statement"));
        assert_eq!(
            why("INSERT INTO errors VALUES (1)"),
            "the model wrote an INSERT statement; only a SELECT may run, and nothing was changed"
        );
        assert!(why("ATTACH DATABASE 'x.db' AS x").starts_with("the model wrote an ATTACH"));
        assert!(why("DROP TABLE errors").starts_with("the model wrote a DROP"));
        assert!(check("SELECT code FROM errors; -- the codes that stop syncing").is_ok());
        assert_eq!(statements("SELECT 1;;  ;"), 1);
        assert_eq!(statements("SELECT 'a;b'; SELECT 2"), 2);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]
        /// Any reply: the statement read out of it is trimmed text of the reply, and what passes
        /// the check is one statement that begins with a read.
        #[test]
        fn any_reply_reads_to_one_trimmed_statement_and_only_a_read_passes(reply in "\\PC{0,200}") {
            let sql = extract_sql(&reply);
            proptest::prop_assert_eq!(sql.trim(), sql.as_str());
            proptest::prop_assert!(sql.len() <= reply.len(), "{:?} → {:?}", reply, sql);
            match check(&sql) {
                Ok(()) => {
                    let body = strip_comments(&sql).to_ascii_uppercase();
                    let body = body.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
                    proptest::prop_assert!(
                        ["SELECT", "WITH", "VALUES"].iter().any(|k| body.starts_with(k)),
                        "{:?} passed", sql
                    );
                }
                Err(why) => proptest::prop_assert!(why.starts_with("the model"), "{:?}", why),
            }
        }

        /// A second statement after a read, in prose or in a fence, is always refused and never
        /// cut away by the reader.
        #[test]
        fn a_statement_after_a_read_is_always_refused(
            prose in "[a-zA-Z ,.]{0,40}",
            word in proptest::sample::select(STATEMENT_WORDS.to_vec()),
            tail in "[a-z_ ]{0,20}",
            fenced in proptest::prelude::any::<bool>(),
        ) {
            let statement = format!("SELECT code FROM errors; {word} {tail}");
            let reply = if fenced {
                format!("Here: {prose}\n```sql\n{statement}\n```\nDone.")
            } else {
                format!("Here: {prose}\n\n{statement}")
            };
            let sql = extract_sql(&reply);
            proptest::prop_assert!(sql.contains(word), "{:?} → {:?}", reply, sql);
            proptest::prop_assert!(check(&sql).is_err(), "{:?} passed", sql);
        }

        /// Any text: the reader never panics; every question it reads is one line's two fields.
        #[test]
        fn any_gold_file_reads_or_names_its_line(body in "[a-zA-Z0-9 ;'\t\n]{0,200}") {
            let text = format!("question\tsql\n{body}");
            match read_gold(std::path::Path::new("g.tsv"), &text) {
                Ok(set) => {
                    let lines = text.lines().skip(1).filter(|l| !l.trim().is_empty()).count();
                    proptest::prop_assert_eq!(set.len(), lines);
                    for g in &set {
                        proptest::prop_assert!(!g.question.is_empty() && !g.sql.is_empty());
                        proptest::prop_assert!(!g.question.contains('\t') && !g.sql.contains('\t'));
                    }
                }
                Err(e) => proptest::prop_assert!(e.to_string().contains("g.tsv: line "), "{}", e),
            }
        }

        /// A set written out reads back as it was.
        #[test]
        fn a_written_gold_set_reads_back(items in proptest::collection::vec(("[a-zA-Z?][a-zA-Z ?]{0,30}[a-zA-Z?]", "SELECT [a-z0-9 =']{1,30}[a-z0-9']"), 0..10)) {
            let mut text = String::from("question\tsql\n");
            for (q, s) in &items {
                text.push_str(&format!("{q}\t{s}\n"));
            }
            let set = read_gold(std::path::Path::new("g.tsv"), &text).unwrap();
            let got: Vec<(String, String)> = set.into_iter().map(|g| (g.question, g.sql)).collect();
            proptest::prop_assert_eq!(got, items);
        }

        #[test]
        fn a_second_statement_after_a_select_is_always_refused(
            head in "[a-z_ ]{0,20}", tail in "(DROP TABLE errors|DELETE FROM errors|ATTACH 'x' AS y|PRAGMA query_only=0)"
        ) {
            let sql = format!("SELECT {head}1; {tail}");
            proptest::prop_assert!(check(&extract_sql(&sql)).is_err());
        }
    }
}
