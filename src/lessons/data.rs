//! What a question gives the student to work from (`Question::data`, printed by the handouts and
//! written in `questions.json`): one struct per exercise, deriving `Serialize`, beside the
//! exercise that fills it; here the shapes several share. The JSON names are the students' (`N`,
//! `df`, `passage_terms`), the field order the order they are printed in.

use serde::Serialize;
use serde::ser::SerializeMap;

/// One passage (or the question) as the cosine exercise gives it: term → (tf, df).
pub type TermCounts = std::collections::BTreeMap<String, (u32, u64)>;

/// An exercise's data as the question holds it. The shapes here have string keys only, so
/// serialising cannot fail; if one ever did, the question would carry no data rather than stop
/// the lesson.
pub(crate) fn to_data(data: &impl Serialize) -> serde_json::Value {
    serde_json::to_value(data).unwrap_or(serde_json::Value::Null)
}

/// Term counts as the exercises give them: term → `{tf, df}`, terms in order (a field's
/// `serialize_with`).
pub(crate) fn counts<S: serde::Serializer>(c: &impl std::borrow::Borrow<TermCounts>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct TfDf {
        tf: u32,
        df: u64,
    }
    let c = c.borrow();
    let mut map = s.serialize_map(Some(c.len()))?;
    for (term, &(tf, df)) in c {
        map.serialize_entry(term, &TfDf { tf, df })?;
    }
    map.end()
}

/// A map whose keys are made at run time (a column per passage, per question piece), in the
/// order given.
pub(crate) struct Ordered<T>(pub Vec<(String, T)>);

impl<T: Serialize> Serialize for Ordered<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// A passage by its id and its terms' counts.
#[derive(Serialize)]
pub(crate) struct PassageCounts {
    pub id: String,
    #[serde(serialize_with = "counts")]
    pub terms: TermCounts,
}

/// A passage by its id, its length and its terms' counts.
#[derive(Serialize)]
pub(crate) struct PassageDlCounts {
    pub id: String,
    pub dl: u32,
    #[serde(serialize_with = "counts")]
    pub terms: TermCounts,
}

/// A question, N, the question's term counts and the passages' (cosine TF-IDF by hand).
#[derive(Serialize)]
pub(crate) struct TfIdfTable<'a> {
    pub question: &'a str,
    #[serde(rename = "N")]
    pub n: u64,
    #[serde(serialize_with = "counts")]
    pub question_terms: &'a TermCounts,
    pub passages: Vec<PassageCounts>,
}

/// A question, N, avgdl, the parameters and the passages' lengths and counts (BM25 by hand).
#[derive(Serialize)]
pub(crate) struct Bm25Table<'a> {
    pub question: &'a str,
    #[serde(rename = "N")]
    pub n: u64,
    pub avgdl: f64,
    pub k1: f64,
    pub b: f64,
    pub passages: Vec<PassageDlCounts>,
}

/// A term's tf and document frequency in a BM25 table (BM25 writes df as n).
#[derive(Serialize)]
pub(crate) struct TermTfN<'a> {
    pub term: &'a str,
    pub tf: u32,
    pub n: u64,
}

/// A passage by its id and its text.
#[derive(Serialize)]
pub(crate) struct PassageText {
    pub id: String,
    pub text: String,
}

/// A question and passages to read (which one a method puts first).
#[derive(Serialize)]
pub(crate) struct QuestionTexts<'a> {
    pub question: &'a str,
    pub passages: Vec<PassageText>,
}

/// A question and one passage's text.
#[derive(Serialize)]
pub(crate) struct QuestionPassage<'a> {
    pub question: &'a str,
    pub passage: &'a str,
}

/// BM25's two parameters.
#[derive(Serialize)]
pub(crate) struct K1B {
    pub k1: f64,
    pub b: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_ordered_maps_keep_their_order_and_shape() {
        let mut c = TermCounts::new();
        c.insert("mars".into(), (2, 1));
        c.insert("atmosphere".into(), (1, 3));
        let p = PassageCounts { id: "d1".into(), terms: c };
        assert_eq!(
            to_data(&p).to_string(),
            r#"{"id":"d1","terms":{"atmosphere":{"tf":1,"df":3},"mars":{"tf":2,"df":1}}}"#
        );
        let o = Ordered(vec![("w d9".to_string(), 0.5), ("w d1".to_string(), 1.0)]);
        assert_eq!(to_data(&o).to_string(), r#"{"w d9":0.5,"w d1":1.0}"#);
    }
}
