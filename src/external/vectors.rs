//! Your own embeddings: passage and query vectors computed elsewhere, read from a file, become a
//! dense column and a map; `ranklens embed` writes RankLens's own in the same formats.
//!
//! Formats:
//! - `.npy` (NumPy), float32, float16 or float64, shape N × d, C order; the ids in a `.ids.txt`
//!   beside it (`passages.npy` → `passages.ids.txt`, one per line), or else in corpus order;
//! - `.jsonl`, one `{"id": …, "vector": [...]}` per line;
//! - `.safetensors`, the tensor `embeddings` (or the file's only 2-D tensor), the ids as a JSON
//!   list in the metadata key `ids`.
//!
//! A count or dimension that does not fit is an error naming both numbers.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::corpus::Corpus;
use crate::{Error, Result};

/// The largest vector file read.
pub const MAX_VECTOR_BYTES: u64 = 8 << 30;

/// A file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorFormat {
    /// NumPy `.npy`.
    Npy,
    /// JSON Lines.
    Jsonl,
    /// safetensors.
    Safetensors,
}

impl VectorFormat {
    /// From a file's extension.
    pub fn from_path(path: &Path) -> Result<VectorFormat> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("npy") => Ok(VectorFormat::Npy),
            Some("jsonl" | "ndjson") => Ok(VectorFormat::Jsonl),
            Some("safetensors") => Ok(VectorFormat::Safetensors),
            _ => Err(Error::invalid(
                path.display().to_string(),
                "not a vector file: give a .npy, .jsonl or .safetensors file",
            )),
        }
    }

    /// The extension written.
    pub fn extension(self) -> &'static str {
        match self {
            VectorFormat::Npy => "npy",
            VectorFormat::Jsonl => "jsonl",
            VectorFormat::Safetensors => "safetensors",
        }
    }
}

impl std::str::FromStr for VectorFormat {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        VectorFormat::from_path(Path::new(&format!("x.{s}")))
    }
}

/// Vectors as read: rows with their ids (or none: corpus order).
#[derive(Debug, Clone, PartialEq)]
pub struct VectorFile {
    /// One id per row, when the file gives them.
    pub ids: Option<Vec<String>>,
    /// Vector size.
    pub dim: usize,
    /// Row-major rows × dim.
    pub data: Vec<f32>,
}

/// `passages.npy` → `passages.ids.txt`.
pub fn ids_path(path: &Path) -> PathBuf {
    path.with_extension("ids.txt")
}

fn f16_to_f32(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

/// Read a `.npy` array of two dimensions; (rows, dim, values).
pub fn read_npy(bytes: &[u8], source: &str) -> Result<(usize, usize, Vec<f32>)> {
    let bad = |m: String| Error::invalid(source, m);
    if !bytes.starts_with(b"\x93NUMPY") || bytes.len() < 10 {
        return Err(bad("not a NumPy .npy file (no \\x93NUMPY magic)".into()));
    }
    let (header_len, start): (usize, usize) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(bad(format!("npy format version {v} is not supported"))),
    };
    let header = bytes
        .get(start..start.saturating_add(header_len))
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| bad("the npy header is cut short".into()))?;
    let item = |key: &str| -> Option<&str> {
        let at = header.find(&format!("'{key}'"))? + key.len() + 2;
        let rest = header[at..].trim_start().strip_prefix(':')?.trim_start();
        Some(rest)
    };
    let descr = item("descr")
        .and_then(|r| r.strip_prefix('\''))
        .and_then(|r| r.split('\'').next())
        .ok_or_else(|| bad("the npy header has no descr".into()))?;
    if item("fortran_order").is_some_and(|r| r.starts_with("True")) {
        return Err(bad("Fortran-ordered arrays are not supported: save with np.ascontiguousarray".into()));
    }
    let shape: Vec<usize> = item("shape")
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.split(')').next())
        .map(|s| s.split(',').filter(|p| !p.trim().is_empty()).map(|p| p.trim().parse::<usize>()).collect())
        .transpose()
        .ok()
        .flatten()
        .ok_or_else(|| bad("the npy header has no readable shape".into()))?;
    let [rows, dim] = shape[..] else {
        return Err(bad(format!("expected a 2-D array (vectors × dimensions), found shape {shape:?}")));
    };
    let width = match descr {
        "<f4" | "=f4" => 4,
        "<f2" | "=f2" => 2,
        "<f8" | "=f8" => 8,
        other => return Err(bad(format!("dtype {other:?} is not supported: save as float32, float16 or float64"))),
    };
    let body = &bytes[start + header_len..];
    let need =
        rows.checked_mul(dim).and_then(|n| n.checked_mul(width)).ok_or_else(|| bad("the shape is too large".into()))?;
    if body.len() != need {
        return Err(bad(format!(
            "the header says {rows} × {dim} values ({need} bytes) but the file holds {} bytes",
            body.len()
        )));
    }
    let values = match width {
        4 => body.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
        2 => body.chunks_exact(2).map(|c| f16_to_f32(u16::from_le_bytes([c[0], c[1]]))).collect(),
        _ => body
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f32)
            .collect(),
    };
    Ok((rows, dim, values))
}

/// A float32 `.npy` of rows × dim.
pub fn write_npy(rows: usize, dim: usize, data: &[f32]) -> Vec<u8> {
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {dim}), }}");
    // Pad so that the data starts on a 64-byte boundary, ending the header with a newline.
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - total % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + data.len() * 4);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for x in data {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

impl VectorFile {
    /// Read a vector file, with its ids where the format or a `.ids.txt` beside it gives them.
    pub fn load(path: &Path) -> Result<VectorFile> {
        let format = VectorFormat::from_path(path)?;
        let len = std::fs::metadata(path).map_err(|e| Error::io(path, e))?.len();
        if len > MAX_VECTOR_BYTES {
            return Err(Error::invalid(
                path.display().to_string(),
                format!("{len} bytes; the limit is {MAX_VECTOR_BYTES}"),
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let source = path.display().to_string();
        let mut file = Self::parse(&bytes, format, &source)?;
        if file.ids.is_none() {
            let ids = ids_path(path);
            if ids.is_file() {
                let text = std::fs::read_to_string(&ids).map_err(|e| Error::io(&ids, e))?;
                let list: Vec<String> = text.lines().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect();
                if list.len() != file.len() {
                    return Err(Error::invalid(
                        ids.display().to_string(),
                        format!("{} ids for {} vectors in {}", list.len(), file.len(), path.display()),
                    ));
                }
                file.ids = Some(list);
            }
        }
        Ok(file)
    }

    /// Parse bytes of a format (`source` names them in errors).
    pub fn parse(bytes: &[u8], format: VectorFormat, source: &str) -> Result<VectorFile> {
        let file = match format {
            VectorFormat::Npy => {
                let (_, dim, data) = read_npy(bytes, source)?;
                VectorFile { ids: None, dim, data }
            }
            VectorFormat::Jsonl => Self::parse_jsonl(bytes, source)?,
            VectorFormat::Safetensors => Self::parse_safetensors(bytes, source)?,
        };
        if let Some(i) = file.data.iter().position(|x| !x.is_finite()) {
            let row = i.checked_div(file.dim).unwrap_or(0);
            return Err(Error::invalid(
                source,
                format!("vector {} holds a value that is not a finite number", row + 1),
            ));
        }
        Ok(file)
    }

    fn parse_jsonl(bytes: &[u8], source: &str) -> Result<VectorFile> {
        let text = std::str::from_utf8(bytes).map_err(|e| Error::invalid(source, format!("not UTF-8 text: {e}")))?;
        let (mut ids, mut data, mut dim) = (Vec::new(), Vec::new(), None);
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = format!("{source}:{}", i + 1);
            let v: Value = serde_json::from_str(line).map_err(|e| Error::invalid(&at, format!("not JSON: {e}")))?;
            let id = match v.get("id").or_else(|| v.get("_id")) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => return Err(Error::invalid(&at, "no \"id\"")),
            };
            let Some(Value::Array(xs)) = v.get("vector").or_else(|| v.get("embedding")) else {
                return Err(Error::invalid(&at, "no \"vector\" list"));
            };
            let row: Option<Vec<f32>> = xs.iter().map(|x| x.as_f64().map(|f| f as f32)).collect();
            let row = row.ok_or_else(|| Error::invalid(&at, "the vector holds something that is not a number"))?;
            match dim {
                None => dim = Some(row.len()),
                Some(d) if d != row.len() => {
                    return Err(Error::invalid(
                        &at,
                        format!("a vector of {} dimensions after vectors of {d}", row.len()),
                    ));
                }
                Some(_) => {}
            }
            ids.push(id);
            data.extend(row);
        }
        let dim = dim.ok_or_else(|| Error::invalid(source, "no vectors in the file"))?;
        Ok(VectorFile { ids: Some(ids), dim, data })
    }

    fn parse_safetensors(bytes: &[u8], source: &str) -> Result<VectorFile> {
        let bad = |m: String| Error::invalid(source, m);
        let (_, meta) = safetensors::SafeTensors::read_metadata(bytes)
            .map_err(|e| bad(format!("not a readable safetensors file: {e}")))?;
        let st = safetensors::SafeTensors::deserialize(bytes)
            .map_err(|e| bad(format!("not a readable safetensors file: {e}")))?;
        let names = st.names();
        let name = if names.contains(&"embeddings") {
            "embeddings".to_string()
        } else {
            let two_d: Vec<&str> =
                names.iter().copied().filter(|n| st.tensor(n).is_ok_and(|t| t.shape().len() == 2)).collect();
            match two_d.as_slice() {
                [one] => one.to_string(),
                _ => {
                    return Err(bad(format!(
                        "expected a tensor named `embeddings` or exactly one 2-D tensor; found {names:?}"
                    )));
                }
            }
        };
        let t = st.tensor(&name).map_err(|e| bad(e.to_string()))?;
        let [_, dim] = t.shape()[..] else {
            return Err(bad(format!("`{name}` has shape {:?}, not vectors × dimensions", t.shape())));
        };
        let raw = t.data();
        let data: Vec<f32> = match t.dtype() {
            safetensors::Dtype::F32 => {
                raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
            }
            safetensors::Dtype::F16 => {
                raw.chunks_exact(2).map(|c| f16_to_f32(u16::from_le_bytes([c[0], c[1]]))).collect()
            }
            safetensors::Dtype::BF16 => {
                raw.chunks_exact(2).map(|c| half::bf16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f32()).collect()
            }
            other => return Err(bad(format!("`{name}` is {other:?}: give float32, float16 or bfloat16"))),
        };
        let ids = match meta.metadata().as_ref().and_then(|m| m.get("ids")) {
            None => None,
            Some(json) => Some(
                serde_json::from_str::<Vec<String>>(json)
                    .map_err(|e| bad(format!("the metadata `ids` is not a JSON list of strings: {e}")))?,
            ),
        };
        let file = VectorFile { ids, dim, data };
        if let Some(ids) = &file.ids
            && ids.len() != file.len()
        {
            return Err(bad(format!("{} ids for {} vectors", ids.len(), file.len())));
        }
        Ok(file)
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }

    /// True when there are no vectors.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One row.
    pub fn row(&self, i: usize) -> Option<&[f32]> {
        self.data.get(i * self.dim..(i + 1) * self.dim)
    }

    /// Write the vectors (and, for `.npy`, their ids in a `.ids.txt` beside), each file atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        let bytes = match VectorFormat::from_path(path)? {
            VectorFormat::Npy => {
                if let Some(ids) = &self.ids {
                    let text: String = ids.iter().map(|i| format!("{}\n", i.replace(['\n', '\r'], " "))).collect();
                    crate::fsutil::write_atomic(&ids_path(path), text)?;
                }
                write_npy(self.len(), self.dim, &self.data)
            }
            VectorFormat::Jsonl => {
                let mut out = String::new();
                for i in 0..self.len() {
                    let id = self.ids.as_ref().and_then(|ids| ids.get(i)).cloned().unwrap_or_else(|| i.to_string());
                    // As f64, which holds every f32 exactly: reading back gives the same bits.
                    let row: Vec<f64> = self.row(i).unwrap_or(&[]).iter().map(|x| f64::from(*x)).collect();
                    out.push_str(&serde_json::json!({ "id": id, "vector": row }).to_string());
                    out.push('\n');
                }
                out.into_bytes()
            }
            VectorFormat::Safetensors => {
                let raw: Vec<u8> = self.data.iter().flat_map(|x| x.to_le_bytes()).collect();
                let view =
                    safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![self.len(), self.dim], &raw)
                        .map_err(|e| Error::caused("vectors: writing safetensors", e))?;
                let meta = self
                    .ids
                    .as_ref()
                    .map(|ids| HashMap::from([("ids".to_string(), serde_json::to_string(ids).unwrap_or_default())]));
                safetensors::serialize([("embeddings", view)], meta)
                    .map_err(|e| Error::caused("vectors: writing safetensors", e))?
            }
        };
        crate::fsutil::write_atomic(path, bytes)
    }
}

/// Passage vectors matched to a corpus and query vectors by query id: the data of a dense column
/// from files.
#[derive(Debug, Clone)]
pub struct VectorSet {
    /// The column's name (the passage file's name unless given).
    pub name: String,
    /// The passage file.
    pub passages_file: PathBuf,
    /// The query file, if any.
    pub queries_file: Option<PathBuf>,
    /// Vector size.
    pub dim: usize,
    /// L2-normalised passage rows in corpus order, as a dense index.
    pub passages: std::sync::Arc<crate::index::encoded::DenseIndex>,
    /// L2-normalised query vectors by query id.
    pub queries: BTreeMap<String, Vec<f32>>,
    /// What was noticed while matching (ids the corpus does not hold, zero vectors).
    pub warnings: Vec<String>,
    /// A local model folder that encodes typed questions into the same space.
    pub query_model: Option<PathBuf>,
    /// The passages' PCA map (fitted once, when the set is opened for the app or a report).
    pub map: Option<std::sync::Arc<crate::project::PcaMap>>,
}

/// Scale a row to unit length (a zero row stays zero).
pub fn normalize(row: &mut [f32]) -> bool {
    let norm = row.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if norm > 0.0 {
        for x in row.iter_mut() {
            *x = (f64::from(*x) / norm) as f32;
        }
        true
    } else {
        false
    }
}

impl VectorSet {
    /// Match passage vectors (and query vectors) to a corpus.
    pub fn open(passages: &Path, queries: Option<&Path>, corpus: &Corpus, name: Option<&str>) -> Result<VectorSet> {
        let file = VectorFile::load(passages)?;
        let source = passages.display().to_string();
        let mut warnings = Vec::new();
        let dim = file.dim;
        let mut rows = vec![0f32; corpus.len() * dim];
        match &file.ids {
            None => {
                if file.len() != corpus.len() {
                    return Err(Error::invalid(
                        source,
                        format!(
                            "{} vectors for the corpus's {} passages; give their ids (in {}) or one vector per \
                             passage in corpus order",
                            file.len(),
                            corpus.len(),
                            ids_path(passages).display()
                        ),
                    ));
                }
                rows.copy_from_slice(&file.data);
            }
            Some(ids) => {
                let mut seen = vec![false; corpus.len()];
                let mut unknown = 0usize;
                for (i, id) in ids.iter().enumerate() {
                    match corpus.lookup(id) {
                        Some(d) => {
                            let row = file.row(i).unwrap_or(&[]);
                            rows[d.index() * dim..(d.index() + 1) * dim].copy_from_slice(row);
                            seen[d.index()] = true;
                        }
                        None => unknown += 1,
                    }
                }
                let missing: Vec<&str> =
                    corpus.docs().iter().zip(&seen).filter(|(_, s)| !**s).map(|(d, _)| d.id.as_str()).collect();
                if !missing.is_empty() {
                    return Err(Error::invalid(
                        source,
                        format!(
                            "{} of the corpus's {} passages have no vector (the first: {:?}); the file holds {} vectors",
                            missing.len(),
                            corpus.len(),
                            missing[0],
                            file.len()
                        ),
                    ));
                }
                if unknown > 0 {
                    warnings.push(format!("{source}: {unknown} vectors have ids the corpus does not hold; not used"));
                }
            }
        }
        let zero = rows.chunks_mut(dim.max(1)).map(normalize).filter(|ok| !ok).count();
        if zero > 0 {
            warnings.push(format!("{source}: {zero} passage vectors are all zeros (cosine 0 with any question)"));
        }
        let mut set = VectorSet {
            name: name.map(str::to_string).unwrap_or_else(|| crate::eval::RunFile::default_name(passages)),
            passages_file: passages.to_path_buf(),
            queries_file: queries.map(Path::to_path_buf),
            dim,
            passages: std::sync::Arc::new(crate::index::encoded::DenseIndex::whole(
                name.map(str::to_string).unwrap_or_else(|| crate::eval::RunFile::default_name(passages)),
                dim,
                rows,
            )),
            queries: BTreeMap::new(),
            warnings,
            query_model: None,
            map: None,
        };
        if let Some(q) = queries {
            let file = VectorFile::load(q)?;
            if file.dim != dim {
                return Err(Error::invalid(
                    q.display().to_string(),
                    format!("the query vectors have {} dimensions and the passage vectors {dim}", file.dim),
                ));
            }
            let ids: Vec<String> = match file.ids.clone() {
                Some(ids) => ids,
                None if file.len() == corpus.queries.len() => corpus.queries.iter().map(|q| q.id.clone()).collect(),
                None => {
                    return Err(Error::invalid(
                        q.display().to_string(),
                        format!(
                            "{} query vectors for the corpus's {} questions; give their ids (in {})",
                            file.len(),
                            corpus.queries.len(),
                            ids_path(q).display()
                        ),
                    ));
                }
            };
            for (i, id) in ids.into_iter().enumerate() {
                let mut row = file.row(i).unwrap_or(&[]).to_vec();
                normalize(&mut row);
                set.queries.insert(id, row);
            }
        }
        Ok(set)
    }

    /// What belongs with a passage vector file, found beside it: the question vectors (the
    /// file's name with `passages` or `corpus` turned into `queries`, as `ranklens embed` writes
    /// them) and a model folder for typed questions (`query-model/` holding a `config.json`).
    pub fn companions(passages: &Path) -> (Option<PathBuf>, Option<PathBuf>) {
        let beside = |from: &str| {
            let name = passages.file_name()?.to_string_lossy().into_owned();
            name.contains(from)
                .then(|| passages.with_file_name(name.replacen(from, "queries", 1)))
                .filter(|p| p.is_file())
        };
        let queries = beside("passages").or_else(|| beside("corpus"));
        let model = passages.parent().map(|d| d.join("query-model")).filter(|d| d.join("config.json").is_file());
        (queries, model)
    }

    /// The same set with its PCA map fitted (a set too small or degenerate to map keeps none).
    pub fn with_map(mut self) -> VectorSet {
        self.map = crate::project::PcaMap::fit(&self.index()).ok().map(std::sync::Arc::new);
        self
    }

    /// The passage vectors as a dense index (for the column and the map).
    pub fn index(&self) -> std::sync::Arc<crate::index::encoded::DenseIndex> {
        self.passages.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_round_trips_and_reads_numpy_headers() {
        let data = [1.0f32, -2.5, 0.0, 3.25, 7.0, 1e-3];
        let bytes = write_npy(2, 3, &data);
        assert_eq!((bytes.len() - data.len() * 4) % 64, 0, "data aligned to 64 bytes");
        assert_eq!(read_npy(&bytes, "x").unwrap(), (2, 3, data.to_vec()));
        // What numpy 1.x writes for np.zeros((2, 2), np.float16): version 1, header padded.
        let mut np = b"\x93NUMPY\x01\x00".to_vec();
        let header = "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }";
        let padded = format!("{header}{}\n", " ".repeat(128 - 10 - header.len() - 1));
        np.extend_from_slice(&(padded.len() as u16).to_le_bytes());
        np.extend_from_slice(padded.as_bytes());
        // 1.0, 2.0, -0.5, 65504 (the largest f16) in half precision.
        for bits in [0x3c00u16, 0x4000, 0xb800, 0x7bff] {
            np.extend_from_slice(&bits.to_le_bytes());
        }
        assert_eq!(read_npy(&np, "x").unwrap(), (2, 2, vec![1.0, 2.0, -0.5, 65504.0]));
        let three_d = String::from_utf8_lossy(&write_npy(2, 3, &data)).replace("(2, 3)", "(2, 3, 1)");
        assert!(read_npy(three_d.as_bytes(), "x").is_err());
        let short = &bytes[..bytes.len() - 4];
        assert!(
            read_npy(short, "v.npy").unwrap_err().to_string().contains("2 × 3 values (24 bytes) but the file holds 20")
        );
    }

    #[test]
    fn every_format_writes_what_it_reads() {
        let dir = tempfile::tempdir().unwrap();
        let file = VectorFile { ids: Some(vec!["a".into(), "b x".into()]), dim: 2, data: vec![0.5, -1.0, 2.0, 3.0] };
        for ext in ["npy", "jsonl", "safetensors"] {
            let path = dir.path().join(format!("v.{ext}"));
            file.write(&path).unwrap();
            assert_eq!(VectorFile::load(&path).unwrap(), file, "{ext}");
        }
        assert_eq!(std::fs::read_to_string(dir.path().join("v.ids.txt")).unwrap(), "a\nb x\n");
    }

    #[test]
    fn counts_and_dimensions_that_do_not_fit_name_both_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = Corpus::from_texts("t", [("a", "alpha"), ("b", "beta"), ("c", "gamma")]);
        let p = dir.path().join("p.npy");
        VectorFile { ids: None, dim: 2, data: vec![1.0, 0.0, 0.0, 1.0] }.write(&p).unwrap();
        let e = VectorSet::open(&p, None, &corpus, None).unwrap_err().to_string();
        assert!(e.contains("2 vectors for the corpus's 3 passages"), "{e}");
        let p = dir.path().join("p.jsonl");
        VectorFile {
            ids: Some(vec!["a".into(), "b".into(), "zz".into()]),
            dim: 2,
            data: vec![3.0, 4.0, 0.0, 1.0, 1.0, 1.0],
        }
        .write(&p)
        .unwrap();
        let e = VectorSet::open(&p, None, &corpus, None).unwrap_err().to_string();
        assert!(e.contains("1 of the corpus's 3 passages have no vector (the first: \"c\")"), "{e}");
        let p = dir.path().join("ok.jsonl");
        VectorFile {
            ids: Some(vec!["c".into(), "b".into(), "a".into(), "zz".into()]),
            dim: 2,
            data: vec![0.0, 2.0, 0.0, 1.0, 3.0, 4.0, 1.0, 1.0],
        }
        .write(&p)
        .unwrap();
        let q = dir.path().join("q.jsonl");
        VectorFile { ids: Some(vec!["1".into()]), dim: 3, data: vec![1.0, 0.0, 0.0] }.write(&q).unwrap();
        let e = VectorSet::open(&p, Some(&q), &corpus, None).unwrap_err().to_string();
        assert!(e.contains("the query vectors have 3 dimensions and the passage vectors 2"), "{e}");
        let set = VectorSet::open(&p, None, &corpus, Some("mine")).unwrap();
        // Corpus order, normalised: a = (3, 4)/5.
        assert_eq!(&set.passages.vectors[..2], &[0.6, 0.8]);
        assert_eq!(set.warnings, [format!("{}: 1 vectors have ids the corpus does not hold; not used", p.display())]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any bytes in any format: vectors or an error, never a panic.
        #[test]
        fn arbitrary_bytes_read_or_are_refused(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300), f in 0usize..3) {
            let format = [VectorFormat::Npy, VectorFormat::Jsonl, VectorFormat::Safetensors][f];
            if let Ok(v) = VectorFile::parse(&bytes, format, "v") {
                proptest::prop_assert!(v.data.iter().all(|x| x.is_finite()));
                proptest::prop_assert_eq!(v.data.len(), v.len() * v.dim);
            }
        }

        /// Any vectors written in any format read back equal.
        #[test]
        fn written_vectors_read_back(
            ids in proptest::collection::btree_set("[^\\n\\r]{1,12}", 1..6),
            dim in 1usize..5,
            values in proptest::collection::vec(proptest::prop_oneof![
                -1e30f32..1e30, -1.0f32..1.0, proptest::prelude::Just(0.0f32), proptest::prelude::Just(f32::MIN_POSITIVE)
            ], 20),
            f in 0usize..3,
        ) {
            let ids: Vec<String> = ids.into_iter().map(|i| i.trim().to_string()).filter(|i| !i.is_empty()).collect();
            proptest::prop_assume!(!ids.is_empty() && ids.iter().collect::<std::collections::BTreeSet<_>>().len() == ids.len());
            let data: Vec<f32> = (0..ids.len() * dim).map(|i| values[i % values.len()]).collect();
            let file = VectorFile { ids: Some(ids), dim, data };
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(format!("v.{}", ["npy", "jsonl", "safetensors"][f]));
            file.write(&path).unwrap();
            proptest::prop_assert_eq!(VectorFile::load(&path).unwrap(), file);
        }

        /// Mutations of a valid .npy: whole rows of the values the bytes hold, or an error naming
        /// the file; the file unchanged reads as written.
        #[test]
        fn mutated_npy_is_read_or_refused(at in 0usize..200, byte in proptest::prelude::any::<u8>(), cut in 0usize..200) {
            let mut bytes = write_npy(3, 4, &[1.5; 12]);
            let i = at % bytes.len();
            let unchanged = bytes[i] == byte && cut % 8 == 0;
            bytes[i] = byte;
            bytes.truncate(bytes.len().saturating_sub(cut % 8));
            match read_npy(&bytes, "v.npy") {
                Ok((rows, dim, data)) => {
                    proptest::prop_assert_eq!(data.len(), rows * dim);
                    // The data lie in the file after a header: never more values than its bytes hold
                    // (two bytes a value at the narrowest, float16).
                    proptest::prop_assert!(data.len() * 2 <= bytes.len());
                    if unchanged {
                        proptest::prop_assert_eq!((rows, dim, data), (3, 4, vec![1.5; 12]));
                    }
                }
                Err(e) => {
                    proptest::prop_assert!(!unchanged, "the file unchanged was refused: {}", e);
                    proptest::prop_assert!(e.to_string().contains("v.npy"), "{}", e);
                }
            }
        }
    }
}
