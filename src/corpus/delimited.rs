//! Delimited text (CSV, TSV) read record by record, each with the line it starts on. A quote that
//! opens a field and never closes costs the line it opened on, not the rest of the file: the
//! reader reports that line and goes on with the next one.

use std::path::Path;

use crate::{Error, Result};

/// One record: the line it starts on and its fields, or what is wrong with it.
pub(crate) struct Row {
    /// 1-based line where the record starts.
    pub line: usize,
    /// The fields, or a message saying why the record cannot be read.
    pub fields: std::result::Result<csv::ByteRecord, String>,
}

/// A header and the records below it.
pub(crate) struct Delimited {
    /// Column names, trimmed.
    pub header: Vec<String>,
    /// Records in file order.
    pub rows: Vec<Row>,
}

/// How the quotes of one record's bytes behave, by the rules of the `csv` crate: a quote opens a
/// field only at its start, `""` inside is a quote, and a record ends at `\n`, `\r` or `\r\n`
/// outside quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct QuoteScan {
    /// A quote never closes, or a field that ran over a line break "closed" at a quote followed by
    /// something other than a delimiter or the end of the record (that quote opened a field of a
    /// later line: the real opening quote was never closed), or a bare quote sits inside an
    /// unquoted field after such a field.
    broken: bool,
    /// The first quoted field that runs over a line break: (byte offset, 1-based line).
    first_multiline: Option<(usize, usize)>,
    /// The last quote that opened a field.
    last_open: Option<(usize, usize)>,
}

impl QuoteScan {
    /// The quote to blame when the record is wrong: the first that ran over a line break.
    fn culprit(self) -> Option<(usize, usize)> {
        self.first_multiline.or(self.last_open)
    }
}

fn scan_quotes(bytes: &[u8], delimiter: u8) -> QuoteScan {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        FieldStart,
        Unquoted,
        Quoted,
        QuoteInQuoted,
    }
    let mut scan = QuoteScan::default();
    let mut state = State::FieldStart;
    let (mut line, mut open, mut multiline) = (1, (0, 1), false);
    for (i, &b) in bytes.iter().enumerate() {
        let end_of_record = b == b'\n' || b == b'\r';
        state = match state {
            State::FieldStart if b == b'"' => {
                open = (i, line);
                scan.last_open = Some(open);
                multiline = false;
                State::Quoted
            }
            State::Quoted if b == b'"' => State::QuoteInQuoted,
            State::Quoted => State::Quoted,
            State::QuoteInQuoted if b == b'"' => State::Quoted,
            State::QuoteInQuoted if multiline && b != delimiter && !end_of_record => {
                scan.broken = true;
                return scan;
            }
            _ if b == delimiter || end_of_record => State::FieldStart,
            // A bare quote inside an unquoted field after a field ran over a line break: no CSV
            // writer makes that, so the quotes are out of step (a stray one opened earlier).
            State::Unquoted | State::QuoteInQuoted if b == b'"' && scan.first_multiline.is_some() => {
                scan.broken = true;
                return scan;
            }
            _ => State::Unquoted,
        };
        if b == b'\n' {
            line += 1;
            if state == State::Quoted && !multiline {
                multiline = true;
                scan.first_multiline.get_or_insert(open);
            }
        }
    }
    scan.broken = state == State::Quoted;
    scan
}

/// Read delimited bytes: the first record is the header. `quoting` is off for TSV, where a `"`
/// is an ordinary character.
///
/// A record that a quote stretched over several lines is suspect when its quotes do not close
/// properly ([`QuoteScan::broken`]) or when it has a different number of fields from the header:
/// the line where the first such quote opened is reported, everything from the record's start to
/// the end of that line is skipped, and reading starts again on the next line. So one stray quote
/// costs its own line, not the records after it.
pub(crate) fn read_delimited(bytes: &[u8], delimiter: u8, quoting: bool, path: &Path) -> Result<Delimited> {
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    let (mut start, mut lines_before) = (0usize, 0usize);
    loop {
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .flexible(true)
            .quoting(quoting)
            .has_headers(false)
            .from_reader(&bytes[start..]);
        let mut record = csv::ByteRecord::new();
        // The line to skip, and the byte after it where reading starts again.
        let mut resync = None;
        loop {
            let at = lines_before + reader.position().line() as usize;
            let fields = match reader.read_byte_record(&mut record) {
                Ok(false) => break,
                Ok(true) => Ok(record.clone()),
                Err(e) => Err(format!("unreadable row ({e}); skipped")),
            };
            let (line, from) = record
                .position()
                .map_or((at, start), |p| (lines_before + p.line() as usize, start + p.byte() as usize));
            let to = start + reader.position().byte() as usize;
            let spans_lines =
                bytes[from..to].iter().rev().skip_while(|&&b| b == b'\n' || b == b'\r').any(|&b| b == b'\n');
            if quoting {
                let scan = scan_quotes(&bytes[from..to], delimiter);
                let miscounted = matches!((&header, &fields), (Some(h), Ok(r)) if r.len() != h.len());
                if (scan.broken || (spans_lines && miscounted))
                    && let Some((open, open_line)) = scan.culprit()
                {
                    resync = Some((line + open_line - 1, from + open));
                    break;
                }
            }
            match (&header, fields) {
                (None, Ok(h)) => {
                    header = Some(h.iter().map(|f| String::from_utf8_lossy(f).trim().to_string()).collect());
                }
                (None, Err(e)) => {
                    return Err(Error::invalid(format!("{}:{line}", path.display()), format!("the header: {e}")));
                }
                (Some(_), fields) => rows.push(Row { line, fields }),
            }
        }
        let Some((line, open)) = resync else { break };
        if header.is_none() {
            return Err(Error::invalid(
                format!("{}:{line}", path.display()),
                "a quote in the header opens and never closes; close it with a second `\"`",
            ));
        }
        let next = bytes[open..].iter().position(|&b| b == b'\n').map(|p| open + p + 1);
        let message = match next {
            Some(_) => format!(
                "a quote opens on this line and never closes; the line is skipped and reading goes on at line {}",
                line + 1
            ),
            None => "a quote opens on this line and never closes; the line is skipped".to_string(),
        };
        rows.push(Row { line, fields: Err(message) });
        let Some(next) = next else { break };
        lines_before = line;
        start = next;
    }
    Ok(Delimited { header: header.unwrap_or_default(), rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Delimited {
        read_delimited(text.as_bytes(), b',', true, Path::new("t.csv")).expect("reads")
    }

    fn texts(d: &Delimited) -> Vec<(usize, String)> {
        d.rows
            .iter()
            .map(|r| match &r.fields {
                Ok(f) => {
                    (r.line, f.iter().map(|x| String::from_utf8_lossy(x).into_owned()).collect::<Vec<_>>().join("|"))
                }
                Err(e) => (r.line, format!("ERR {e}")),
            })
            .collect()
    }

    #[test]
    fn an_unclosed_quote_costs_its_own_line_only() {
        let d = read("id,text\na,one\nb,\"two never closed\nc,three\nd,\"four\nspans\"\n");
        assert_eq!(
            texts(&d),
            [
                (2, "a|one".to_string()),
                (3, "ERR a quote opens on this line and never closes; the line is skipped and reading goes on at line 4"
                    .to_string()),
                (4, "c|three".to_string()),
                (5, "d|four\nspans".to_string()),
            ]
        );
        let scan = scan_quotes(b"a,\"x\"\"y\"\nb,\"", b',');
        assert_eq!((scan.broken, scan.last_open), (true, Some((11, 2))));
        assert!(!scan_quotes(b"a,b\"c\n", b',').broken, "a quote inside a field is literal");
        assert!(!scan_quotes(b"a,\"x\" y\n", b',').broken, "on one line the csv crate's leniency stands");
        let scan = scan_quotes(b"a,\"x\ny\"\r\n", b',');
        assert_eq!((scan.broken, scan.first_multiline), (false, Some((2, 1))), "a field over two lines");
        // The stray quote of line 2 "closes" at the opening quote of line 3's `","` and the rest
        // never closes: the culprit is the first quote that ran over a line break.
        let d = read("id,title,text\nbad,\"never closed\nd0,\",\", w0\nd1,, w1\n");
        assert_eq!(texts(&d).iter().map(|r| r.0).collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(texts(&d)[1].1, "d0|,| w0");
        let e = read_delimited(b"id,\"text\nx,y\n", b',', true, Path::new("t.csv")).err().map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("t.csv:1") && e.contains("header")));
    }
}
