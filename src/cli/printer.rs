//! One printer for every command: a command builds one result struct, and the same struct is
//! printed as an aligned table for people, as CSV rows where the result is a list, or as JSON for
//! programs (ripgrep's interchangeable printers).

use std::io::Write;

use serde::Serialize;

use super::args::OutputFormat;

/// A command's result, printable in each output format.
pub trait Printable: Serialize {
    /// The text a person reads (`--format table`).
    fn table(&self) -> String;

    /// The header and rows for `--format csv`, for results that are lists; `None` prints the
    /// table instead.
    fn csv(&self) -> Option<Vec<Vec<String>>> {
        None
    }
}

/// Print a result in the chosen format on stdout.
pub fn print(result: &impl Printable, format: OutputFormat) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    match (format, result.csv()) {
        (OutputFormat::Json, _) => writeln!(stdout.lock(), "{}", serde_json::to_string_pretty(result)?)?,
        (OutputFormat::Csv, Some(rows)) => {
            let mut w = csv::Writer::from_writer(stdout.lock());
            for row in rows {
                w.write_record(&row)?;
            }
            w.flush()?;
        }
        (OutputFormat::Table | OutputFormat::Csv, _) => write!(stdout.lock(), "{}", result.table())?,
    }
    Ok(())
}
