//! A report in each format (HTML, Markdown, JSON, CSV), written and read back: the JSON carries
//! a checksum of its body, so an edited report is refused.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{ReportBody, csv_out, html, markdown};
use crate::{Error, Result};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// Self-contained HTML.
    Html,
    /// Markdown.
    Markdown,
    /// JSON that the app can re-open.
    Json,
    /// CSV rows.
    Csv,
}

impl ReportFormat {
    /// From a file extension.
    pub fn from_path(path: &Path) -> Result<ReportFormat> {
        match path.extension().map(|e| e.to_string_lossy().to_lowercase()).as_deref() {
            Some("html" | "htm") => Ok(ReportFormat::Html),
            Some("md" | "markdown") => Ok(ReportFormat::Markdown),
            Some("json") => Ok(ReportFormat::Json),
            Some("csv") => Ok(ReportFormat::Csv),
            _ => Err(Error::invalid(
                path.display().to_string(),
                "the report format comes from the extension: .html, .md, .json or .csv",
            )),
        }
    }
}

const MAGIC: &str = "ranklens-report";
const FORMAT_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct ReportFile {
    format: String,
    version: u32,
    /// sha256 of the body serialised compactly, so any edit is detected.
    checksum: String,
    body: serde_json::Value,
}

fn checksum(body: &serde_json::Value) -> String {
    hex::encode(Sha256::digest(serde_json::to_string(body).unwrap_or_default().as_bytes()))
}

/// Render a report in a format.
pub fn render(body: &ReportBody, format: ReportFormat) -> Result<String> {
    Ok(match format {
        ReportFormat::Html => html::render(body),
        ReportFormat::Markdown => markdown::render(body),
        ReportFormat::Csv => csv_out::render(body)?,
        ReportFormat::Json => {
            let value = serde_json::to_value(body).map_err(|e| Error::caused("report: writing JSON", e))?;
            let file =
                ReportFile { format: MAGIC.into(), version: FORMAT_VERSION, checksum: checksum(&value), body: value };
            serde_json::to_string_pretty(&file).map_err(|e| Error::caused("report: writing JSON", e))?
        }
    })
}

/// Write a report; the format comes from the extension. Written to a temporary file first and
/// renamed, so a failed write leaves no half report.
pub fn write(body: &ReportBody, path: &Path) -> Result<()> {
    let text = render(body, ReportFormat::from_path(path)?)?;
    crate::fsutil::write_atomic(path, text)
}

/// Read a JSON report back, refusing files that are truncated, edited or not reports.
pub fn load(path: &Path) -> Result<ReportBody> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse(&bytes, &path.display().to_string())
}

/// Parse a JSON report (`source` names it in errors).
pub fn parse(bytes: &[u8], source: &str) -> Result<ReportBody> {
    let file: ReportFile = serde_json::from_slice(bytes).map_err(|e| {
        let hint = if e.is_eof() { " (the file ends early: truncated?)" } else { "" };
        Error::invalid(format!("{source}:{}:{}", e.line(), e.column()), format!("not a readable report: {e}{hint}"))
    })?;
    if file.format != MAGIC {
        return Err(Error::invalid(source, format!("not a RankLens report (format {:?})", file.format)));
    }
    if file.version != FORMAT_VERSION {
        return Err(Error::invalid(
            source,
            format!("report format {} is not supported (this RankLens reads {FORMAT_VERSION})", file.version),
        ));
    }
    if checksum(&file.body) != file.checksum {
        return Err(Error::invalid(
            source,
            "checksum mismatch: the report was modified after it was written; refusing it",
        ));
    }
    serde_json::from_value(file.body)
        .map_err(|e| Error::invalid(source, format!("the report's contents do not fit: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_survive_a_round_trip_through_text() {
        let body = serde_json::json!({"a": 0.1f32, "b": [1.0, -0.0, 1e300, 3], "c": {"z": 1, "a": "x"}});
        let file = ReportFile { format: MAGIC.into(), version: 1, checksum: checksum(&body), body };
        let text = serde_json::to_string_pretty(&file).unwrap();
        let back: ReportFile = serde_json::from_str(&text).unwrap();
        assert_eq!(checksum(&back.body), file.checksum);
    }

    #[test]
    fn formats_come_from_extensions() {
        assert_eq!(ReportFormat::from_path(Path::new("a.HTML")).unwrap(), ReportFormat::Html);
        assert_eq!(ReportFormat::from_path(Path::new("a.md")).unwrap(), ReportFormat::Markdown);
        assert!(ReportFormat::from_path(Path::new("a.pdf")).is_err());
    }
}
