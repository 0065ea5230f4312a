//! Retrieve, then read, as use cases both front ends call: a ranking's top k read for one
//! question, and a question set with answers read at several k — the trade-off the documents ask
//! a student to explain: a reader given more passages sees the answer more often (answer recall@k
//! rises), and also more distractors (its exact match may fall).

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::config::Settings;
use crate::corpus::{AnswerFormat, AnswerSet, Corpus};
use crate::eval::answers::{AnswerScores, Rules, has_answer, score_all};
use crate::progress::{CancelOnly, Progress, check_cancel};
use crate::read::{Reader, ReaderInfo, Readout, read};
use crate::retrieve::{Ranking, Retriever};
use crate::workbench::Workbench;

/// The k the trade-off is measured at (the documents' "from 1 to 20").
pub const CURVE_KS: [usize; 6] = [1, 2, 3, 5, 10, 20];

/// The top `k` passages of a ranking as (id, text): what a reader reads (the passage's text, not
/// its title, so a span's offsets are into `Doc::text`).
pub fn top_passages(corpus: &Corpus, ranking: &Ranking, k: usize) -> Vec<(String, String)> {
    ranking.hits.iter().take(k).filter_map(|h| corpus.doc(h.doc)).map(|d| (d.id.clone(), d.text.clone())).collect()
}

/// Read the top `k` passages of `ranking` for its question.
pub fn read_ranking(
    corpus: &Corpus,
    ranking: &Ranking,
    question: &str,
    k: usize,
    reader: &dyn Reader,
    progress: &dyn Progress,
) -> Result<Readout> {
    read(reader, question, &ranking.method, &top_passages(corpus, ranking, k), progress)
}

/// SQuAD's rules for a question set: v1.1's script for SQuAD v1.1, v2.0's for everything else
/// (the same scores on answerable questions, and it knows unanswerable ones).
pub fn rules_for(set: &AnswerSet) -> Rules {
    if set.format == AnswerFormat::SquadV1 { Rules::V1 } else { Rules::V2 }
}

/// One k of the trade-off.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Passages read.
    pub k: usize,
    /// Answer recall@k, in percent: the answerable questions with an answer string in a passage of
    /// the top k (DPR's top-k accuracy).
    pub recall: f64,
    /// The reader's exact match at k, in percent (none without a reader).
    pub exact_match: Option<f64>,
    /// Its F1 at k.
    pub f1: Option<f64>,
    /// Questions it answered (did not decline) at k.
    pub answered: usize,
}

/// One question of the set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionAnswers {
    /// Its id.
    pub id: String,
    /// The question.
    pub question: String,
    /// Its gold answers (none: the corpus cannot answer it).
    pub gold: Vec<String>,
    /// The first rank whose passage holds an answer, within the largest k.
    pub found_at: Option<usize>,
    /// The reader's answer at each k of the study (`""` where it declined).
    pub predictions: Vec<String>,
}

/// A question set read through one method's rankings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerStudy {
    /// The method whose rankings were read.
    pub method: String,
    /// The reader, when there was one.
    pub reader: Option<ReaderInfo>,
    /// Whose rules scored the answers.
    pub rules: Rules,
    /// Each k.
    pub points: Vec<CurvePoint>,
    /// Each question.
    pub questions: Vec<QuestionAnswers>,
    /// Questions with at least one answer (those recall is over).
    pub answerable: usize,
    /// Seconds reading took, in all (retrieval left out).
    pub reading_seconds: f64,
}

impl AnswerStudy {
    /// The point at k.
    pub fn at(&self, k: usize) -> Option<&CurvePoint> {
        self.points.iter().find(|p| p.k == k)
    }

    /// Seconds of reading per question.
    pub fn seconds_per_question(&self) -> f64 {
        if self.questions.is_empty() { 0.0 } else { self.reading_seconds / self.questions.len() as f64 }
    }

    /// What the numbers say about "a larger k is not automatically better": where exact match
    /// peaks, and whether it falls after the peak while recall still rises.
    pub fn verdict(&self) -> String {
        let scored: Vec<(usize, f64, f64)> =
            self.points.iter().filter_map(|p| p.exact_match.map(|em| (p.k, em, p.recall))).collect();
        let (Some(first), Some(last)) = (self.points.first(), self.points.last()) else {
            return "No question was read.".into();
        };
        let recall = format!(
            "Answer recall rises from {:.1} % at k = {} to {:.1} % at k = {}",
            first.recall, first.k, last.recall, last.k
        );
        let Some(&(best_k, best_em, _)) = scored.iter().max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0))) else {
            return format!("{recall}; with no reader, exact match was not measured.");
        };
        let Some(&(last_k, last_em, _)) = scored.last() else { return recall };
        if last_em < best_em {
            format!(
                "{recall}, but exact match peaks at k = {best_k} ({best_em:.1}) and falls to {last_em:.1} at k = \
                 {last_k}: the passages past the peak added more distractors than answers. A larger k is not \
                 automatically better."
            )
        } else {
            format!(
                "{recall}, and exact match does not fall with k (best {best_em:.1} at k = {best_k}, {last_em:.1} at \
                 k = {last_k}): on this set, with this reader, the extra passages did not pull the answers away."
            )
        }
    }
}

/// Read a question set with answers through `retriever` at each of `ks`: retrieval once per
/// question at the largest k, each passage read once, and the answer at each k decided over the
/// first k (what reading them again would give: passages are read independently). Without a
/// reader only answer recall is measured. `limit` takes the first questions only.
#[allow(clippy::too_many_arguments)]
pub fn answer_study(
    workbench: &Workbench,
    retriever: &dyn Retriever,
    settings: &Settings,
    answers: &AnswerSet,
    reader: Option<&dyn Reader>,
    ks: &[usize],
    limit: Option<usize>,
    progress: &dyn Progress,
) -> Result<AnswerStudy> {
    let mut ks: Vec<usize> = ks.iter().copied().filter(|&k| k > 0).collect();
    ks.sort_unstable();
    ks.dedup();
    let depth = ks.last().copied().unwrap_or(1);
    let corpus = workbench.corpus();
    let rules = rules_for(answers);
    let questions: Vec<_> = answers.questions.iter().take(limit.unwrap_or(usize::MAX)).collect();
    progress.stage(&format!("Reading {} questions", questions.len()), questions.len() as u64);
    let mut rows = Vec::with_capacity(questions.len());
    let mut readings: Vec<Option<Readout>> = Vec::with_capacity(questions.len());
    let mut reading_seconds = 0.0;
    for q in &questions {
        check_cancel(progress)?;
        let gold = answers.gold(&q.id).map(|g| g.answers.clone()).unwrap_or_default();
        let ranking = retriever.search(&workbench.query_context(&q.text, settings), depth)?;
        let passages = top_passages(corpus, &ranking, depth);
        let found_at = passages.iter().position(|(_, text)| has_answer(text, &gold)).map(|i| i + 1);
        let reading = match reader {
            Some(r) => {
                let reading = read(r, &q.text, &ranking.method, &passages, &CancelOnly(progress))?;
                reading_seconds += reading.seconds;
                Some(reading)
            }
            None => None,
        };
        let predictions = match &reading {
            Some(r) => ks.iter().map(|&k| r.at_k(k).text().to_string()).collect(),
            None => Vec::new(),
        };
        rows.push(QuestionAnswers { id: q.id.clone(), question: q.text.clone(), gold, found_at, predictions });
        readings.push(reading);
        progress.advance(1);
    }
    let answerable = rows.iter().filter(|r| !crate::eval::answers::unanswerable(&r.gold)).count();
    let points = ks
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            let hits = rows
                .iter()
                .filter(|r| !crate::eval::answers::unanswerable(&r.gold))
                .filter(|r| r.found_at.is_some_and(|f| f <= k))
                .count();
            let recall = if answerable == 0 { 0.0 } else { 100.0 * hits as f64 / answerable as f64 };
            let scores: Option<AnswerScores> =
                reader.map(|_| score_all(rows.iter().map(|r| (r.gold.as_slice(), r.predictions[i].as_str())), rules));
            let answered = rows.iter().filter(|r| r.predictions.get(i).is_some_and(|p| !p.is_empty())).count();
            CurvePoint { k, recall, exact_match: scores.map(|s| s.exact_match), f1: scores.map(|s| s.f1), answered }
        })
        .collect();
    Ok(AnswerStudy {
        method: retriever.label(),
        reader: reader.map(Reader::info),
        rules,
        points,
        questions: rows,
        answerable,
        reading_seconds,
    })
}
