//! Text to SQL over the corpus's tables: the model is shown each table's schema and three of its
//! rows, and writes one statement for a question. Nothing it writes is trusted: the statement is
//! read out of its reply, refused unless it is exactly one `SELECT` (or `WITH … SELECT`), and run
//! on the read-only connection every statement runs on (opened read-only, `PRAGMA query_only`, an
//! authorizer that denies every write, ATTACH and PRAGMA, and the time, row and size limits), so a
//! model that answers `DROP TABLE errors;` changes nothing and is told why.

use serde::{Deserialize, Serialize};

use super::{Generator, prompts};
use crate::progress::Progress;
use crate::structured::{SqlDatabase, SqlLimits, SqlResult};
use crate::{Error, Result};

/// Example rows of each table the prompt shows.
pub const EXAMPLE_ROWS: usize = 3;
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
    let generated = generator.chat(&sql_request(&schema, question), &mut |_| {}, progress)?;
    Ok(SqlAsk {
        question: question.trim().to_string(),
        sql: extract_sql(&generated.text),
        reply: generated.text,
        model: generator.info().label(),
    })
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
        word if STATEMENT_WORDS.contains(&word) => {
            Err(format!("the model wrote a {word} statement; only a SELECT may run, and nothing was changed"))
        }
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

/// `sql` without `-- …` line comments and `/* … */` block comments (outside quotes).
fn strip_comments(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            (None, '\'' | '"' | '`') => {
                quote = Some(c);
                out.push(c);
            }
            (None, '-') if chars.peek() == Some(&'-') => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            (None, '/') if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for n in chars.by_ref() {
                    if last == '*' && n == '/' {
                        break;
                    }
                    last = n;
                }
                out.push(' ');
            }
            (None, c) => out.push(c),
        }
    }
    out
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
        assert_eq!(statements("SELECT 1;;  ;"), 1);
        assert_eq!(statements("SELECT 'a;b'; SELECT 2"), 2);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]
        #[test]
        fn reading_and_checking_any_reply_never_panics(reply in "\\PC{0,200}") {
            let sql = extract_sql(&reply);
            let _ = check(&sql);
            let _ = strip_comments(&reply);
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
