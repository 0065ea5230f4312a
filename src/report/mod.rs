//! Reports people can share: one question compared across methods, or a question set evaluated.
//!
//! Every report carries a [`Stamp`] with what makes it reproducible (RankLens version, corpus
//! fingerprint, analyzer, model ids and file hashes, every parameter, the date) and is written as
//! self-contained HTML (inline SVG charts, no external assets, no scripts), Markdown, JSON (all
//! that is needed to re-open it, with a checksum so a modified or truncated file is refused) or
//! CSV (one row per question, method, rank, passage, score).

mod build;
mod csv_out;
mod html;
mod markdown;
mod svg;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use build::{comparison_report, study_report};

use crate::compare::{Comparison, Study};
use crate::config::Settings;
use crate::eval::Metric;
use crate::retrieve::{Explanation, MethodKind};
use crate::{Error, Result};

/// What makes a report reproducible.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stamp {
    /// RankLens version that wrote it.
    pub ranklens_version: String,
    /// UTC date and time it was written (ISO 8601).
    pub created: String,
    /// Corpus name.
    pub corpus_name: String,
    /// sha256 over every document (see `Corpus::fingerprint`).
    pub corpus_fingerprint: String,
    /// Where the corpus was loaded from.
    pub corpus_source: Option<String>,
    /// Passages in the corpus.
    pub corpus_size: usize,
    /// The analyzer of the lexical methods.
    pub analyzer: String,
    /// Model id → file → sha256, for every model used.
    pub models: BTreeMap<String, BTreeMap<String, String>>,
    /// Every parameter (k, k1, b, variants, RRF k, fusion weights, filter, methods).
    pub settings: Settings,
}

/// A passage as shown in a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassageInfo {
    /// External id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Text (cut to a few hundred characters).
    pub snippet: String,
}

/// One method's explanation of one passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExplainedHit {
    /// Method label.
    pub method: String,
    /// Family.
    pub kind: MethodKind,
    /// Passage external id.
    pub passage: String,
    /// Rank in that method's list.
    pub rank: usize,
    /// The explanation.
    pub explanation: Explanation,
}

/// The PCA map in a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapData {
    /// (passage id, x, y).
    pub points: Vec<(String, f64, f64)>,
    /// Share of total variance per axis.
    pub variance_share: [f64; 2],
    /// The question's position.
    pub query: Option<[f64; 2]>,
    /// True-cosine nearest passages (id, cosine).
    pub neighbours: Vec<(String, f32)>,
}

/// One question, every method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonReport {
    /// Reproducibility stamp.
    pub stamp: Stamp,
    /// The question.
    pub question: String,
    /// Every method's result (documents by internal id; see `passages`).
    pub comparison: Comparison,
    /// Internal id (as text, for JSON) → passage, for every passage the report mentions.
    pub passages: BTreeMap<String, PassageInfo>,
    /// Explanations of each method's top passages.
    pub explanations: Vec<ExplainedHit>,
    /// The map, when a dense model was loaded.
    pub map: Option<MapData>,
    /// Per-method metrics when the question has judgements.
    pub metrics: Option<BTreeMap<String, BTreeMap<Metric, f64>>>,
}

/// A question set, every method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyReport {
    /// Reproducibility stamp.
    pub stamp: Stamp,
    /// The evaluation.
    pub study: Study,
    /// Each method's top 10 per question: method label → qid → (passage, score).
    pub top: BTreeMap<String, BTreeMap<String, Vec<(String, f64)>>>,
    /// The questions by id.
    pub questions: BTreeMap<String, String>,
}

/// What a report holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReportBody {
    /// One question.
    Comparison(Box<ComparisonReport>),
    /// A question set.
    Study(Box<StudyReport>),
}

impl ComparisonReport {
    /// The passage of an internal id.
    pub fn passage(&self, doc: crate::corpus::DocId) -> Option<&PassageInfo> {
        self.passages.get(&doc.0.to_string())
    }
}

impl ReportBody {
    /// The stamp.
    pub fn stamp(&self) -> &Stamp {
        match self {
            ReportBody::Comparison(c) => &c.stamp,
            ReportBody::Study(s) => &s.stamp,
        }
    }
}

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

/// An ISO 8601 UTC timestamp for now, without a date library (days-from-civil inverse).
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    format_utc(secs)
}

/// Format seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Escape text for HTML and XML.
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_by_hand() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
        // 2026-11-29 12:10:21 UTC
        assert_eq!(format_utc(1_795_954_221), "2026-11-29T12:10:21Z");
    }

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
