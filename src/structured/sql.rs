//! A real SQLite database built from the corpus's CSV tables, queried read-only.
//!
//! Text search returns the passages most *like* a question; a table answers "which errors added
//! since 4.0 stop syncing?" exactly and completely. The user's SQL runs on a connection that can
//! only read: opened `SQLITE_OPEN_READ_ONLY`, `PRAGMA query_only`, an authorizer that refuses every
//! action but reading (so ATTACH, PRAGMA writes and DDL are refused before they run), a time limit
//! enforced by a progress handler and a row cap. Versions compare numerically part by part through
//! the `version_cmp(a, b)` function and the `version` collation (4.10 comes after 4.9).

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::functions::FunctionFlags;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use serde::{Deserialize, Serialize};

use crate::corpus::delimited::{Delimited, Row, read_delimited};
use crate::corpus::{LoadWarning, compare_versions};
use crate::{Error, Result};

/// The longest statement, in bytes.
pub const MAX_SQL_BYTES: usize = 100_000;
/// The longest text or blob a statement may build, in bytes.
pub const MAX_VALUE_BYTES: usize = 10_000_000;

/// Limits for user SQL.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SqlLimits {
    /// Wall-clock budget per statement.
    pub time_limit_ms: u64,
    /// Rows returned at most.
    pub max_rows: usize,
}

impl Default for SqlLimits {
    fn default() -> Self {
        Self { time_limit_ms: 2000, max_rows: 1000 }
    }
}

/// A cell value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SqlValue {
    /// NULL.
    Null,
    /// INTEGER.
    Integer(i64),
    /// REAL.
    Real(f64),
    /// TEXT (BLOBs are shown as their length).
    Text(String),
}

impl std::fmt::Display for SqlValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SqlValue::Null => f.write_str("NULL"),
            SqlValue::Integer(i) => write!(f, "{i}"),
            SqlValue::Real(r) => write!(f, "{r}"),
            SqlValue::Text(s) => f.write_str(s),
        }
    }
}

/// Rows returned by a statement. Rows are an exact answer, not a ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SqlResult {
    /// The statement as run.
    pub sql: String,
    /// Column names.
    pub columns: Vec<String>,
    /// Rows in the statement's order.
    pub rows: Vec<Vec<SqlValue>>,
    /// True when the row cap cut the result.
    pub truncated: bool,
    /// The WHERE conditions (split at top-level AND), for the explanation.
    pub conditions: Vec<String>,
    /// Passage ids linked from rows (a `passage` column), in row order.
    pub passages: Vec<String>,
    /// Milliseconds taken.
    pub elapsed_ms: f64,
}

/// A table name with its (column, declared type) pairs.
pub type TableSchema = (String, Vec<(String, String)>);

/// A CSV file's header and its (line, fields) rows.
type CsvRows = (Vec<String>, Vec<(usize, Vec<String>)>);

/// The workspace database holding the corpus's tables.
#[derive(Debug, Clone)]
pub struct SqlDatabase {
    path: PathBuf,
    tables: Vec<String>,
}

/// Compare two strings as versions when both are, else as text.
fn version_order(a: &str, b: &str) -> Ordering {
    compare_versions(a, b).unwrap_or_else(|| a.cmp(b))
}

fn register_version_helpers(conn: &Connection) -> Result<()> {
    conn.create_collation("version", version_order)?;
    conn.create_scalar_function(
        "version_cmp",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let a: String = ctx.get::<rusqlite::types::Value>(0).map(value_text)?;
            let b: String = ctx.get::<rusqlite::types::Value>(1).map(value_text)?;
            Ok(match version_order(&a, &b) {
                Ordering::Less => -1i64,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            })
        },
    )?;
    Ok(())
}

fn value_text(v: rusqlite::types::Value) -> String {
    match v {
        rusqlite::types::Value::Null => String::new(),
        rusqlite::types::Value::Integer(i) => i.to_string(),
        rusqlite::types::Value::Real(r) => r.to_string(),
        rusqlite::types::Value::Text(t) => t,
        rusqlite::types::Value::Blob(b) => String::from_utf8_lossy(&b).into_owned(),
    }
}

/// SQL type of a column from its values: INTEGER where every value is an integer written as
/// SQLite writes it back (so `007`, `+5` and `-0` keep their spelling as TEXT: a code or a postal
/// code is not a number), else TEXT. Versions such as `4.10` stay TEXT (4.10 ≠ 4.1).
fn column_type(values: &[&str]) -> &'static str {
    let non_empty: Vec<&&str> = values.iter().filter(|v| !v.is_empty()).collect();
    let integer = |v: &str| v.parse::<i64>().is_ok_and(|i| i.to_string() == v);
    if !non_empty.is_empty() && non_empty.iter().all(|v| integer(v)) { "INTEGER" } else { "TEXT" }
}

fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

impl SqlDatabase {
    /// Build a database at `path` from CSV files, one table per file named after the file stem.
    /// The file is written next to `path` and renamed into place, so a failure leaves no partial
    /// database. Bad rows become warnings naming file and line.
    pub fn create(path: &Path, csv_files: &[PathBuf]) -> Result<(SqlDatabase, Vec<LoadWarning>)> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        let mut warnings = Vec::new();
        let mut tables = Vec::new();
        {
            let mut conn = Connection::open(&tmp).map_err(|e| Error::caused(format!("sql: {}", tmp.display()), e))?;
            register_version_helpers(&conn)?;
            let tx = conn.transaction()?;
            for csv_path in csv_files {
                let name = csv_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let (header, rows) = read_csv(csv_path, &mut warnings)?;
                let types: Vec<&str> = (0..header.len())
                    .map(|c| column_type(&rows.iter().map(|(_, r)| r[c].as_str()).collect::<Vec<_>>()))
                    .collect();
                let cols: Vec<String> =
                    header.iter().zip(&types).map(|(h, t)| format!("{} {t}", quote_ident(h))).collect();
                tx.execute(&format!("CREATE TABLE {} ({})", quote_ident(&name), cols.join(", ")), [])?;
                let placeholders = vec!["?"; header.len()].join(", ");
                let mut insert = tx.prepare(&format!("INSERT INTO {} VALUES ({placeholders})", quote_ident(&name)))?;
                for (_, row) in &rows {
                    let values: Vec<rusqlite::types::Value> = row
                        .iter()
                        .zip(&types)
                        .map(|(v, t)| match (*t, v.parse::<i64>()) {
                            (_, _) if v.is_empty() => rusqlite::types::Value::Null,
                            ("INTEGER", Ok(i)) => rusqlite::types::Value::Integer(i),
                            _ => rusqlite::types::Value::Text(v.clone()),
                        })
                        .collect();
                    insert.execute(rusqlite::params_from_iter(values))?;
                }
                tables.push(name);
            }
            tx.commit()?;
        }
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
        Ok((SqlDatabase { path: path.to_path_buf(), tables }, warnings))
    }

    /// Open an existing database file.
    pub fn open(path: &Path) -> Result<SqlDatabase> {
        let db = SqlDatabase { path: path.to_path_buf(), tables: Vec::new() };
        let conn = db.read_only_connection(&Arc::new(Mutex::new(None)))?;
        let mut stmt = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
        let tables = stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(SqlDatabase { tables, ..db })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Table names.
    pub fn tables(&self) -> &[String] {
        &self.tables
    }

    /// Column names and types of a table, for the editor's schema list.
    pub fn schema(&self) -> Result<Vec<TableSchema>> {
        let conn = Connection::open_with_flags(&self.path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let mut out = Vec::new();
        for t in &self.tables {
            let mut stmt = conn.prepare(&format!("PRAGMA table_info({})", quote_ident(t)))?;
            let cols = stmt
                .query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            out.push((t.clone(), cols));
        }
        Ok(out)
    }

    fn read_only_connection(&self, denied: &Arc<Mutex<Option<String>>>) -> Result<Connection> {
        let mut conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI,
        )
        .map_err(|e| Error::caused(format!("sql: {}", self.path.display()), e))?;
        conn.pragma_update(None, "query_only", true)?;
        // Bound what one statement can build in memory (`randomblob(1e9)` would take a gigabyte).
        conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES as i32)?;
        conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_BYTES as i32)?;
        register_version_helpers(&conn)?;
        let denied = denied.clone();
        conn.authorizer(Some(move |ctx: AuthContext<'_>| {
            let refused = match ctx.action {
                AuthAction::Read { .. } | AuthAction::Select | AuthAction::Recursive => None,
                AuthAction::Function { function_name } => {
                    (function_name.eq_ignore_ascii_case("load_extension")).then(|| "load_extension".to_string())
                }
                AuthAction::Insert { .. } => Some("INSERT".into()),
                AuthAction::Update { .. } => Some("UPDATE".into()),
                AuthAction::Delete { .. } => Some("DELETE".into()),
                AuthAction::Attach { .. } => Some("ATTACH".into()),
                AuthAction::Detach { .. } => Some("DETACH".into()),
                AuthAction::Pragma { pragma_name, .. } => Some(format!("PRAGMA {pragma_name}")),
                AuthAction::DropTable { .. }
                | AuthAction::DropIndex { .. }
                | AuthAction::DropView { .. }
                | AuthAction::DropTrigger { .. }
                | AuthAction::DropTempTable { .. }
                | AuthAction::DropTempIndex { .. }
                | AuthAction::DropTempView { .. }
                | AuthAction::DropTempTrigger { .. }
                | AuthAction::DropVtable { .. } => Some("DROP".into()),
                AuthAction::CreateTable { .. }
                | AuthAction::CreateIndex { .. }
                | AuthAction::CreateView { .. }
                | AuthAction::CreateTrigger { .. }
                | AuthAction::CreateTempTable { .. }
                | AuthAction::CreateTempIndex { .. }
                | AuthAction::CreateTempView { .. }
                | AuthAction::CreateTempTrigger { .. }
                | AuthAction::CreateVtable { .. } => Some("CREATE".into()),
                AuthAction::AlterTable { .. } => Some("ALTER TABLE".into()),
                _ => Some("this statement".into()),
            };
            match refused {
                None => Authorization::Allow,
                Some(what) => {
                    if let Ok(mut d) = denied.lock() {
                        d.get_or_insert(what);
                    }
                    Authorization::Deny
                }
            }
        }))?;
        Ok(conn)
    }

    /// Run one read-only statement within the limits. Writes, schema changes, ATTACH, PRAGMA,
    /// several statements at once, syntax errors and time-outs are clear errors; the database is
    /// never changed.
    pub fn query(&self, sql: &str, limits: SqlLimits) -> Result<SqlResult> {
        // Comments go first: `SELECT …; -- why` is one statement with a comment after it.
        let body = strip_comments(sql);
        let trimmed = body.trim().trim_end_matches(';').trim();
        if trimmed.is_empty() {
            return Err(Error::Sql("the statement is empty".into()));
        }
        if trimmed.len() > MAX_SQL_BYTES {
            return Err(Error::Sql(format!(
                "the statement is {} bytes long; the limit is {MAX_SQL_BYTES}",
                trimmed.len()
            )));
        }
        if has_second_statement(trimmed) {
            return Err(Error::Sql("run one statement at a time (found a `;` between statements)".into()));
        }
        let denied = Arc::new(Mutex::new(None));
        let mut conn = self.read_only_connection(&denied)?;
        let start = Instant::now();
        let budget = Duration::from_millis(limits.time_limit_ms);
        let timed_out = Arc::new(Mutex::new(false));
        let flag = timed_out.clone();
        conn.progress_handler(
            1000,
            Some(move || {
                let over = start.elapsed() > budget;
                if over && let Ok(mut f) = flag.lock() {
                    *f = true;
                }
                over
            }),
        )?;
        let first_word = trimmed.split_whitespace().next().unwrap_or("").to_uppercase();
        let refused = |e: rusqlite::Error| -> Error {
            if let Some(what) = denied.lock().ok().and_then(|d| d.clone()) {
                // The authorizer sees the statement's inner steps (a DROP first deletes from the
                // schema table); name what the user wrote when it is a known writing keyword.
                let what = match first_word.as_str() {
                    "INSERT" | "UPDATE" | "DELETE" | "DROP" | "CREATE" | "ALTER" | "ATTACH" | "DETACH" | "PRAGMA"
                    | "REPLACE" | "VACUUM" | "REINDEX" | "ANALYZE" => first_word.clone(),
                    _ => what,
                };
                return Error::Sql(format!(
                    "refused: {what} is not allowed; this connection is read-only (SELECT only)"
                ));
            }
            if timed_out.lock().map(|f| *f).unwrap_or(false) {
                return Error::Sql(format!(
                    "stopped after the {} ms time limit; nothing was changed",
                    limits.time_limit_ms
                ));
            }
            match e {
                rusqlite::Error::MultipleStatement => Error::Sql("run one statement at a time".into()),
                rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::TooBig => Error::Sql(format!(
                    "the statement builds a value longer than the limit of {MAX_VALUE_BYTES} bytes; nothing was changed"
                )),
                other => Error::Sql(other.to_string()),
            }
        };
        let mut stmt = conn.prepare(trimmed).map_err(&refused)?;
        if !stmt.readonly() {
            return Err(Error::Sql("refused: only statements that read are allowed".into()));
        }
        let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let passage_col = columns.iter().position(|c| c.eq_ignore_ascii_case("passage"));
        let mut rows_out = Vec::new();
        let mut truncated = false;
        let mut rows = stmt.query([]).map_err(&refused)?;
        loop {
            let row = match rows.next() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(e) => return Err(refused(e)),
            };
            if rows_out.len() >= limits.max_rows {
                truncated = true;
                break;
            }
            let mut out = Vec::with_capacity(columns.len());
            for i in 0..columns.len() {
                out.push(match row.get_ref(i).map_err(&refused)? {
                    ValueRef::Null => SqlValue::Null,
                    ValueRef::Integer(v) => SqlValue::Integer(v),
                    ValueRef::Real(v) => SqlValue::Real(v),
                    ValueRef::Text(t) => SqlValue::Text(String::from_utf8_lossy(t).into_owned()),
                    ValueRef::Blob(b) => SqlValue::Text(format!("<{} bytes>", b.len())),
                });
            }
            rows_out.push(out);
        }
        let passages = passage_col
            .map(|c| rows_out.iter().filter_map(|r| r.get(c)).map(ToString::to_string).collect())
            .unwrap_or_default();
        Ok(SqlResult {
            sql: trimmed.to_string(),
            columns,
            rows: rows_out,
            truncated,
            conditions: where_conditions(trimmed),
            passages,
            elapsed_ms: start.elapsed().as_secs_f64() * 1000.0,
        })
    }
}

/// Read a CSV with a header; rows with the wrong number of fields, unreadable rows and quotes that
/// never close become warnings naming the line.
fn read_csv(path: &Path, warnings: &mut Vec<LoadWarning>) -> Result<CsvRows> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let Delimited { header, rows: records } = read_delimited(&bytes, b',', true, path)?;
    if header.is_empty() || header.iter().any(String::is_empty) {
        return Err(Error::invalid(format!("{}:1", path.display()), "every column needs a name"));
    }
    let mut rows = Vec::new();
    let mut warn = |line: usize, message: String| {
        warnings.push(LoadWarning { file: path.to_path_buf(), line: Some(line), message })
    };
    for Row { line, fields } in records {
        let record = match fields {
            Ok(r) => r,
            Err(message) => {
                warn(line, message);
                continue;
            }
        };
        if record.len() != header.len() {
            warn(line, format!("row has {} fields, the header has {}; skipped", record.len(), header.len()));
            continue;
        }
        match record.iter().map(|v| std::str::from_utf8(v).map(|v| v.trim().to_string())).collect() {
            Ok(values) => rows.push((line, values)),
            Err(_) => warn(line, "row is not valid UTF-8; skipped".into()),
        }
    }
    Ok((header, rows))
}

/// The WHERE clause of a statement split at top-level `AND`s (outside parentheses and quotes).
///
/// Works on bytes with ASCII case folding, so every offset found in the folded text is a valid
/// offset in the statement (full Unicode upper-casing changes lengths: `ﬁ` becomes `FI`).
pub fn where_conditions(sql: &str) -> Vec<String> {
    let upper = sql.to_ascii_uppercase();
    let Some(start) = find_keyword(&upper, "WHERE", 0) else {
        return Vec::new();
    };
    let body_start = start + "WHERE".len();
    let end = ["GROUP BY", "ORDER BY", "LIMIT", "HAVING", "WINDOW"]
        .iter()
        .filter_map(|k| find_keyword(&upper, k, body_start))
        .min()
        .unwrap_or(sql.len());
    let bytes = &upper.as_bytes()[..end];
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut last) = (0i32, None::<u8>, body_start);
    let mut i = body_start;
    while i < bytes.len() {
        match (quote, bytes[i]) {
            (None, q @ (b'\'' | b'"')) => quote = Some(q),
            (Some(q), c) if c == q => quote = None,
            (None, b'(') => depth += 1,
            (None, b')') => depth -= 1,
            (None, b'A') if depth == 0 && keyword_at(bytes, i, b"AND") => {
                parts.push(sql.get(last..i).unwrap_or_default().trim().to_string());
                last = i + 3;
                i += 3;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(sql.get(last..end).unwrap_or_default().trim().to_string());
    parts.retain(|p| !p.is_empty());
    parts
}

/// Does `keyword` start at byte `i`, with no letter, digit or `_` on either side?
fn keyword_at(bytes: &[u8], i: usize, keyword: &[u8]) -> bool {
    let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    bytes[i..].starts_with(keyword)
        && (i == 0 || !word(&bytes[i - 1]))
        && bytes.get(i + keyword.len()).is_none_or(|b| !word(b))
}

/// Is there a `;` outside quotes, i.e. a second statement?
/// `sql` without `-- …` line comments and `/* … */` block comments (outside quotes).
pub fn strip_comments(sql: &str) -> String {
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

fn has_second_statement(sql: &str) -> bool {
    let mut quote: Option<char> = None;
    for c in sql.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ';') => return true,
            _ => {}
        }
    }
    false
}

/// Byte position of a keyword at word boundaries, outside quotes, at or after `from`.
fn find_keyword(upper: &str, keyword: &str, from: usize) -> Option<usize> {
    let bytes = upper.as_bytes();
    let mut quote = None::<u8>;
    for i in 0..bytes.len() {
        match (quote, bytes[i]) {
            (None, q @ (b'\'' | b'"')) => quote = Some(q),
            (Some(q), c) if c == q => quote = None,
            (None, _) if i >= from && keyword_at(bytes, i, keyword.as_bytes()) => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_clause_splits_at_top_level_and() {
        let c = where_conditions(
            "SELECT a FROM t WHERE x = 'a AND b' AND (y = 1 OR z = 2) AND version_cmp(v, '4') >= 0 ORDER BY a",
        );
        assert_eq!(c, ["x = 'a AND b'", "(y = 1 OR z = 2)", "version_cmp(v, '4') >= 0"]);
        assert!(where_conditions("SELECT 1").is_empty());
        // Offsets survive text whose upper case is longer or shorter (`ﬁ` → `FI`, `ı` → `I`).
        let c = where_conditions("SELECT 'ﬁ' AS \"ı𼺴\" FROM t WHERE a = 'ﬁ AND ß' AND \"ı AND\" > 1 LIMIT 3");
        assert_eq!(c, ["a = 'ﬁ AND ß'", "\"ı AND\" > 1"]);
        assert!(has_second_statement("SELECT 1; SELECT 2"));
        assert!(!has_second_statement("SELECT ';' FROM t"));
    }

    #[test]
    fn versions_are_text_columns() {
        assert_eq!(column_type(&["4.1", "4.10", "3.2"]), "TEXT");
        assert_eq!(column_type(&["1", "0", ""]), "INTEGER");
        assert_eq!(column_type(&["1", "007"]), "TEXT", "a leading zero is kept");
        assert_eq!(column_type(&["+5"]), "TEXT");
    }
}
