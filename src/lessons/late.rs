//! Late interaction by hand: every word piece of the question and of the passage keeps its own
//! vector, and the score is MaxSim — for each question piece its best cosine among the passage's
//! pieces, summed: Σᵢ maxⱼ cos(qᵢ, dⱼ). A page that works it from a small table of cosines, and an
//! assignment: the score from the table, which passage piece a question piece aligns with, the
//! score once a passage piece is struck out, and which passage comes first.

use std::sync::Arc;

use super::data::Ordered;

use super::checkpoint::Checkpoint;
use super::drawer::{Drawer, round4};
use super::exercises::{self, mistake, number_within};
use super::{Lesson, LessonKit, Open, f4};
use crate::config::Settings;
use crate::corpus::DocId;
use crate::lcg::SplitMix64;
use crate::retrieve::{Detail, MethodKind, Prepared, QueryContext, Retriever};
use crate::workbench::Workbench;
use crate::{Error, Result};

/// The cosines of a question's pieces (rows) against a few of a passage's pieces (columns): every
/// piece some question piece aligns with, and up to two that none does. Rounded to four decimals
/// as the data prints them, so the row maxima are the passage's MaxSim parts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SimTable {
    /// The question's pieces, in order.
    pub rows: Vec<String>,
    /// The passage's pieces chosen, labelled `A: piece`, `B: piece`, … in passage order.
    pub columns: Vec<String>,
    /// Row-major cosines.
    pub cells: Vec<f64>,
}

/// Letters that label a table's columns: at most fourteen on a lesson's page, nine in an
/// assignment (a handout's width).
const LETTERS: &[u8] = b"ABCDEFGHIJKLMN";
const ASSIGNMENT_COLUMNS: usize = 9;

impl SimTable {
    fn row(&self, i: usize) -> &[f64] {
        let n = self.columns.len();
        &self.cells[i * n..(i + 1) * n]
    }
    fn row_max(&self, i: usize) -> f64 {
        self.row(i).iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }
    /// Σᵢ maxⱼ over the table, leaving out column `skip`.
    fn maxsim_without(&self, skip: Option<usize>) -> f64 {
        (0..self.rows.len())
            .map(|i| {
                self.row(i)
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| Some(*j) != skip)
                    .map(|(_, v)| *v)
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .sum()
    }
    fn maxsim(&self) -> f64 {
        self.maxsim_without(None)
    }
    /// The table as a question gives it: a row per question piece, a column per passage piece.
    fn data(&self) -> Vec<CosineRow<'_>> {
        self.rows
            .iter()
            .enumerate()
            .map(|(i, r)| CosineRow {
                piece: r,
                cosines: Ordered(self.columns.iter().cloned().zip(self.row(i).iter().copied()).collect()),
            })
            .collect()
    }
}

/// The table of a passage for a prepared question, read from the late interaction explanation
/// (the code that ranks): `extra` more columns than the aligned ones, drawn with `rng` when given.
/// `None` when the columns would be more than `max_columns`.
pub(crate) fn sim_table(
    prepared: &dyn Prepared,
    d: DocId,
    extra: usize,
    max_columns: usize,
    rng: Option<&mut SplitMix64>,
) -> Result<Option<(SimTable, f64)>> {
    let e = prepared.explain(d)?;
    let Detail::MaxSim { alignments, query_tokens, doc_tokens, matrix } = e.detail else {
        return Err(Error::invalid("lesson", "the late interaction explanation has no similarity matrix"));
    };
    let n = doc_tokens.len();
    if n == 0 || matrix.len() != query_tokens.len() * n {
        return Ok(None);
    }
    let mut cols: Vec<usize> = alignments.iter().map(|a| a.doc_pos).collect();
    cols.sort_unstable();
    cols.dedup();
    let mut others: Vec<usize> = (0..n).filter(|j| !cols.contains(j)).collect();
    match rng {
        Some(rng) => rng.shuffle(&mut others),
        None => others.reverse(),
    }
    cols.extend(others.into_iter().take(extra));
    cols.sort_unstable();
    if cols.len() > max_columns.min(LETTERS.len()) {
        return Ok(None);
    }
    let columns = cols
        .iter()
        .zip(LETTERS)
        .map(|(&j, &l)| format!("{}: {}", l as char, doc_tokens.get(j).map_or("", String::as_str)))
        .collect();
    let mut cells = Vec::with_capacity(query_tokens.len() * cols.len());
    for i in 0..query_tokens.len() {
        for &j in &cols {
            cells.push(round4(f64::from(matrix[i * n + j])));
        }
    }
    Ok(Some((SimTable { rows: query_tokens, columns, cells }, e.value)))
}

/// MaxSim from the table.
pub fn maxsim(id: &str, passage: &str, question: &str, t: &SimTable) -> Checkpoint {
    let key = t.maxsim();
    let rows = t.rows.len() as f64;
    let column_max: f64 =
        (0..t.columns.len()).map(|j| (0..t.rows.len()).map(|i| t.row(i)[j]).fold(f64::NEG_INFINITY, f64::max)).sum();
    let parts: Vec<String> = (0..t.rows.len()).map(|i| f4(t.row_max(i))).collect();
    number_within(
        id,
        format!(
            "The table gives the cosine of each of the question's word pieces (rows) with some of {passage}'s (columns), among them every piece the question's pieces match best. What is {passage}'s late interaction score, Σ over the rows of the row's largest cosine?"
        ),
        CosinesData { question, passage, cosines: t.data(), struck: None },
        key,
        exercises::TOLERANCE,
        vec![format!("MaxSim = {} = {}", parts.join(" + "), f4(key))],
        vec![
            mistake("the mean of the rows' maxima, not their sum", key / rows),
            mistake("every cosine of the table added", t.cells.iter().sum()),
            mistake("the columns' maxima added (the passage's side)", column_max),
            mistake("the largest cosine of the table only", t.cells.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        ],
    )
}

/// Which column the question's piece on row `i` aligns with.
pub fn aligned(id: &str, passage: &str, question: &str, t: &SimTable, i: usize) -> Checkpoint {
    let scored: Vec<(String, f64)> = t.columns.iter().cloned().zip(t.row(i).iter().copied()).collect();
    exercises::best_of(
        id,
        format!(
            "Which of {passage}'s pieces does the question's piece `{}` (row {}) align with? Answer with its column, as `A: piece`.",
            t.rows[i],
            i + 1
        ),
        CosinesData { question, passage, cosines: t.data(), struck: None },
        &scored,
        |c, v| format!("{c}: cosine {v:.4}, the row's largest — its part of the score"),
    )
}

/// The score once column `j` is struck out: each row that took its maximum there falls to its next best.
pub fn struck(id: &str, passage: &str, question: &str, t: &SimTable, j: usize) -> Checkpoint {
    let key = t.maxsim_without(Some(j));
    let lost: f64 = (0..t.rows.len()).filter(|&i| t.row(i)[j] >= t.row_max(i)).map(|i| t.row_max(i)).sum();
    let column: f64 = (0..t.rows.len()).map(|i| t.row(i)[j]).sum();
    number_within(
        id,
        format!(
            "If {passage} did not have the piece in column {}, what would its score be from the table? (Each row takes its largest cosine among the other columns.)",
            t.columns[j]
        ),
        CosinesData { question, passage, cosines: t.data(), struck: Some(&t.columns[j]) },
        key,
        exercises::TOLERANCE,
        vec![
            format!("with every column: {}", f4(t.maxsim())),
            format!("the rows whose largest cosine was in {} take their next best: {}", t.columns[j], f4(key)),
        ],
        vec![
            mistake("the rows that matched it counted as 0", t.maxsim() - lost),
            mistake("the whole column taken away from the score", t.maxsim() - column),
        ],
    )
}

/// The late interaction retriever of an engine (over the dense model's token vectors when no
/// ColBERT is loaded), or why there is none.
fn retriever(workbench: &Workbench) -> Result<Arc<dyn Retriever>> {
    workbench.retriever(MethodKind::LateInteraction, &Settings::default())
}

pub fn build(kit: &LessonKit, on: &Open) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    l.p("A dense model squeezes a passage into one vector before it sees the question. Late interaction (ColBERT) keeps a vector per word piece and compares late, once the question is known: each question piece takes its best cosine among the passage's pieces, and the score is the sum, MaxSim = Σᵢ maxⱼ cos(qᵢ, dⱼ). Every part of the score is one pair of pieces, which is why its explanation is an alignment.");
    let (engine, question) = match retriever(&on.workbench) {
        Ok(_) => (on.workbench.clone(), on.question.trim().to_string()),
        Err(e) if !Arc::ptr_eq(&on.workbench, &kit.sample) => {
            l.warn(format!(
                "The open corpus cannot be ranked by late interaction yet ({}): this page uses the Acme Sync sample.",
                e.report()
            ));
            (kit.sample.clone(), "How do I reset my password?".to_string())
        }
        Err(e) => {
            l.warn(format!("Not run here: {} (ranklens models fetch --role dense).", e.report()));
            return Ok(l);
        }
    };
    let late = retriever(&engine)?;
    let prepared = late.prepare(&QueryContext::new(&question))?;
    let hits = prepared.search(5)?.hits;
    let corpus = engine.corpus();
    let Some(top) = hits.first().map(|h| h.doc) else {
        l.warn("Late interaction ranked nothing for this question.");
        return Ok(l);
    };
    let name = corpus.external_id(top).to_string();
    l.h(format!("`{question}`"));
    l.p(format!(
        "Late interaction puts {name} first: \"{}\" (the column {}).",
        corpus.doc(top).map(|d| d.full_text()).unwrap_or_default(),
        late.label()
    ));
    let table = match sim_table(prepared.as_ref(), top, 2, LETTERS.len(), None)? {
        Some(t) => Some(t),
        None => sim_table(prepared.as_ref(), top, 0, LETTERS.len(), None)?,
    };
    let Some((table, value)) = table else {
        l.p("The question's pieces align with more of this passage's pieces than a table to work by hand holds; the Explain view shows every alignment.");
        return Ok(l);
    };
    l.check(maxsim("late-maxsim", &name, &question, &table));
    let mut header = vec!["question piece".to_string()];
    header.extend(table.columns.iter().cloned());
    header.push("row's largest".into());
    let rows: Vec<Vec<String>> = (0..table.rows.len())
        .map(|i| {
            let mut r = vec![table.rows[i].clone()];
            r.extend(table.row(i).iter().map(|v| f4(*v)));
            r.push(f4(table.row_max(i)));
            r
        })
        .collect();
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    l.table(&format!("Cosines of the question's pieces with {name}'s"), &header_refs, rows);
    if let Some(i) = clear_row(&table) {
        l.check(aligned("late-aligned", &name, &question, &table, i));
    }
    l.p(format!(
        "The retriever's score is {} (its cosines unrounded); the table's are rounded to four decimals. A word the model's vocabulary lacks is read as pieces (`##` marks a piece that continues a word), and each piece is a row or a column of its own.",
        f4(value)
    ));
    Ok(l)
}

/// The row (a word piece, not [CLS] or [SEP]) with the strongest alignment among those whose
/// largest cosine leads its runner-up clearly.
fn clear_row(t: &SimTable) -> Option<usize> {
    clear_rows(t).into_iter().max_by(|&a, &b| t.row_max(a).total_cmp(&t.row_max(b)))
}

fn clear_rows(t: &SimTable) -> Vec<usize> {
    (0..t.rows.len())
        .filter(|&i| !t.rows[i].starts_with('['))
        .filter(|&i| {
            let scored: Vec<(String, f64)> = t.row(i).iter().map(|v| (String::new(), *v)).collect();
            exercises::clear_winner(&scored)
        })
        .collect()
}

/// This lesson's questions in an assignment, drawn for one student: MaxSim from a table of at
/// most nine columns, a piece's alignment (its row's winner leads clearly), the score with an
/// aligned column struck out, and which of three passages late interaction puts first (clear by a
/// margin).
pub(super) fn assignment(draw: &Drawer<'_>, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
    let late = retriever(draw.workbench)?;
    let (question, passage, table, row, column, data, scored) =
        draw.until(rng, "a passage whose MaxSim table fits a page", |rng| {
            let question = draw.asked_question(rng)?;
            let prepared = late.prepare(&QueryContext::new(&question))?;
            let mut ds = draw.passages(rng, 3);
            ds.sort_by_key(|&d| draw.name(d));
            let d = ds[rng.below(ds.len())];
            let Some((table, _)) = sim_table(prepared.as_ref(), d, 2, ASSIGNMENT_COLUMNS, Some(rng))? else {
                return Ok(None);
            };
            let rows = clear_rows(&table);
            if table.rows.len() > 9 || rows.is_empty() {
                return Ok(None);
            }
            let row = rows[rng.below(rows.len())];
            // A column some row takes its maximum in, so striking it changes the score.
            let aligned: Vec<usize> = (0..table.columns.len())
                .filter(|&j| (0..table.rows.len()).any(|i| table.row(i)[j] >= table.row_max(i)))
                .collect();
            let Some(&column) = rng.pick(&aligned) else { return Ok(None) };
            let scored = exercises::scores_under(late.as_ref(), &QueryContext::new(&question), &ds, draw.corpus())?;
            if !exercises::clear_winner(&scored) {
                return Ok(None);
            }
            let data = draw.texts(&question, &ds);
            Ok(Some((question, draw.name(d), table, row, column, data, scored)))
        })?;
    Ok(vec![
        maxsim("q1", &passage, &question, &table),
        aligned("q2", &passage, &question, &table, row),
        struck("q3", &passage, &question, &table, column),
        exercises::best_of(
            "q4",
            "Read the passages: which of them does late interaction put first?".into(),
            data,
            &scored,
            |d, v| format!("{d}: MaxSim {}", f4(v)),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::checkpoint::Answer;
    use crate::lessons::exercises::named;

    #[test]
    fn maxsim_and_a_struck_column_by_hand_and_each_mistake_from_a_wrong_value_worked_by_hand() {
        // sync:  A 0.9  B 0.2  C 0.1
        // token: A 0.3  B 0.7  C 0.6
        let t = SimTable {
            rows: vec!["sync".into(), "token".into()],
            columns: vec!["A: sync".into(), "B: token".into(), "C: tokens".into()],
            cells: vec![0.9, 0.2, 0.1, 0.3, 0.7, 0.6],
        };
        // MaxSim = 0.9 + 0.7 = 1.6. Mean of the maxima 0.8; every cell 2.8; the columns'
        // maxima 0.9 + 0.7 + 0.6 = 2.2; the largest cell 0.9.
        let c = maxsim("q1", "d1", "sync token", &t);
        assert!(c.check(&Answer::Number(1.6)).correct);
        named(&c, 0.8, "the mean of the rows' maxima, not their sum");
        named(&c, 2.8, "every cosine of the table added");
        named(&c, 2.2, "the columns' maxima added (the passage's side)");
        named(&c, 0.9, "the largest cosine of the table only");
        // B struck out: sync keeps A's 0.9, token falls to C's 0.6: 1.5. Token's row counted as
        // 0: 1.6 − 0.7 = 0.9; B's whole column taken away: 1.6 − (0.2 + 0.7) = 0.7.
        let c = struck("q3", "d1", "sync token", &t, 1);
        assert!(c.check(&Answer::Number(1.5)).correct);
        named(&c, 0.9, "the rows that matched it counted as 0");
        named(&c, 0.7, "the whole column taken away from the score");
    }
}

/// One row of the table of cosines: the question's piece and its cosine with each passage piece.
#[derive(serde::Serialize)]
struct CosineRow<'a> {
    #[serde(rename = "question piece")]
    piece: &'a str,
    #[serde(flatten)]
    cosines: Ordered<f64>,
}

/// A question, a passage and the table of cosines (with the column struck out, when one is).
#[derive(serde::Serialize)]
struct CosinesData<'a> {
    question: &'a str,
    passage: &'a str,
    cosines: Vec<CosineRow<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    struck: Option<&'a str>,
}
