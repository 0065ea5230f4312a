//! Metadata filters: keep only documents whose field satisfies a condition, before ranking.
//!
//! Values compare version-aware when both sides look like dotted numbers (`4.10` > `4.9`), as
//! numbers when both parse as numbers, and as text otherwise.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::Doc;
use crate::{Error, Result};

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompareOp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `~` (substring, case-insensitive)
    Contains,
}

impl CompareOp {
    fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "=",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
            CompareOp::Contains => "~",
        }
    }
}

/// `field op value`, e.g. `release >= 4`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldFilter {
    /// Field name (`page`, `release`, any extra column).
    pub field: String,
    /// How to compare.
    pub op: CompareOp,
    /// The value to compare with.
    pub value: String,
}

impl fmt::Display for FieldFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.field, self.op.symbol(), self.value)
    }
}

/// The longest filter, in bytes.
pub const MAX_FILTER_BYTES: usize = 4096;

/// Operators, longest first at each position so `>=` is not read as `>`.
const OPERATORS: [(&str, CompareOp); 7] = [
    (">=", CompareOp::Ge),
    ("<=", CompareOp::Le),
    ("!=", CompareOp::Ne),
    ("=", CompareOp::Eq),
    ("<", CompareOp::Lt),
    (">", CompareOp::Gt),
    ("~", CompareOp::Contains),
];

impl std::str::FromStr for FieldFilter {
    type Err = Error;
    /// `field op value`: the first operator from the left splits the two sides, so a field name
    /// holds no operator character and the value may hold any (`title ~ a<b` looks for `a<b`).
    fn from_str(s: &str) -> Result<Self> {
        if s.len() > MAX_FILTER_BYTES {
            return Err(Error::invalid(
                "filter",
                format!("the filter is {} bytes long; the limit is {MAX_FILTER_BYTES}", s.len()),
            ));
        }
        let usage = "`field op value` (op: = != < <= > >= ~), e.g. `release >= 4`";
        let first = s.char_indices().find_map(|(i, _)| {
            OPERATORS.iter().find(|(sym, _)| s[i..].starts_with(sym)).map(|&(sym, op)| (i, sym, op))
        });
        let Some((at, sym, op)) = first else {
            return Err(Error::invalid("filter", format!("{s:?} has no comparison; write {usage}")));
        };
        let (field, value) = (s[..at].trim(), s[at + sym.len()..].trim());
        if field.is_empty() {
            return Err(Error::invalid("filter", format!("{s:?} has no field name before `{sym}`; write {usage}")));
        }
        if value.is_empty() {
            return Err(Error::invalid("filter", format!("{s:?} has no value after `{sym}`; write {usage}")));
        }
        Ok(FieldFilter { field: field.to_string(), op, value: value.to_string() })
    }
}

impl FieldFilter {
    /// Does the document satisfy the condition? A document without the field does not.
    pub fn matches(&self, doc: &Doc) -> bool {
        let Some(v) = doc.fields.get(&self.field) else {
            return false;
        };
        if self.op == CompareOp::Contains {
            return v.to_lowercase().contains(&self.value.to_lowercase());
        }
        let ord = compare_values(v, &self.value);
        match self.op {
            CompareOp::Eq => ord == Ordering::Equal,
            CompareOp::Ne => ord != Ordering::Equal,
            CompareOp::Lt => ord == Ordering::Less,
            CompareOp::Le => ord != Ordering::Greater,
            CompareOp::Gt => ord == Ordering::Greater,
            CompareOp::Ge => ord != Ordering::Less,
            CompareOp::Contains => false,
        }
    }
}

fn version_parts(s: &str) -> Option<Vec<u64>> {
    let s = s.trim().trim_start_matches(['v', 'V']);
    if s.is_empty() {
        return None;
    }
    s.split('.').map(|p| p.parse::<u64>().ok()).collect()
}

/// Compare two dotted versions numerically part by part; missing parts count as 0 (`4` = `4.0`).
/// Returns `None` when either side is not a version.
pub fn compare_versions(a: &str, b: &str) -> Option<Ordering> {
    let (a, b) = (version_parts(a)?, version_parts(b)?);
    let n = a.len().max(b.len());
    for i in 0..n {
        let (x, y) = (a.get(i).copied().unwrap_or(0), b.get(i).copied().unwrap_or(0));
        match x.cmp(&y) {
            Ordering::Equal => continue,
            other => return Some(other),
        }
    }
    Some(Ordering::Equal)
}

fn compare_values(a: &str, b: &str) -> Ordering {
    if let Some(o) = compare_versions(a, b) {
        return o;
    }
    if let (Ok(x), Ok(y)) = (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        return x.total_cmp(&y);
    }
    a.cmp(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn doc(release: &str) -> Doc {
        let mut fields = BTreeMap::new();
        fields.insert("release".to_string(), release.to_string());
        Doc { id: "d".into(), title: String::new(), text: "t".into(), fields }
    }

    #[test]
    fn versions_compare_part_by_part() {
        assert_eq!(compare_versions("4.10", "4.9"), Some(Ordering::Greater));
        assert_eq!(compare_versions("4", "4.0"), Some(Ordering::Equal));
        assert_eq!(compare_versions("v3.9.1", "4"), Some(Ordering::Less));
        assert_eq!(compare_versions("beta", "4"), None);
    }

    #[test]
    fn filters_parse_and_match() {
        let f: FieldFilter = "release >= 4".parse().expect("parses");
        assert_eq!(f.op, CompareOp::Ge);
        assert!(f.matches(&doc("4.10")));
        assert!(f.matches(&doc("4")));
        assert!(!f.matches(&doc("3.9")));
        let lt: FieldFilter = "release<4.2".parse().expect("parses");
        assert!(lt.matches(&doc("4.1")) && !lt.matches(&doc("4.10")));
        let missing: FieldFilter = "page = errors".parse().expect("parses");
        assert!(!missing.matches(&doc("4")));
        assert!("release".parse::<FieldFilter>().is_err());
        assert!(">= 4".parse::<FieldFilter>().is_err());
        // The first operator splits: the value keeps the rest, operators and all.
        let f: FieldFilter = "title ~ a<=b = c".parse().expect("parses");
        assert_eq!((f.field.as_str(), f.op, f.value.as_str()), ("title", CompareOp::Contains, "a<=b = c"));
        let e = "release >= ".parse::<FieldFilter>().expect_err("no value").to_string();
        assert!(e.contains("no value after `>=`"), "{e}");
    }

    /// A filter as its parts: a field without operator characters, any value.
    fn filter() -> impl Strategy<Value = FieldFilter> {
        let op = prop::sample::select(OPERATORS.iter().map(|(_, op)| *op).collect::<Vec<_>>());
        ("[^=!<>~]{1,20}", op, "\\PC{1,30}")
            .prop_map(|(field, op, value)| FieldFilter {
                field: field.trim().to_string(),
                op,
                value: value.trim().to_string(),
            })
            .prop_filter("non-empty sides", |f| !f.field.is_empty() && !f.value.is_empty())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases()))]

        #[test]
        fn any_string_parses_or_is_refused(s in "\\PC{0,80}|[a-z =!<>~.0-9]{0,40}") {
            if let Ok(f) = s.parse::<FieldFilter>() {
                prop_assert!(!f.field.is_empty() && !f.value.is_empty());
                prop_assert_eq!(f.to_string().parse::<FieldFilter>().ok(), Some(f));
            }
        }

        #[test]
        fn a_printed_filter_parses_back_to_the_same_parts(f in filter()) {
            prop_assert_eq!(f.to_string().parse::<FieldFilter>().ok(), Some(f));
        }
    }
}
