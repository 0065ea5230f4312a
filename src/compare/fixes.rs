//! "Why not?" answered with what would bring the passage in: for a passage a method ranks outside
//! the top k, the smallest changes that put it inside, each *verified* by ranking again with the
//! same code — never suggested from a formula.
//!
//! The edits searched: to the question — add one of the passage's words, drop a question word,
//! swap a question word for one of the passage's — and, for the lexical methods (BM25, TF-IDF),
//! to the knobs: k1, b, the analyzer. Dense, SPLADE and late interaction re-encode each edited
//! question. One edit first; where none is enough, pairs of the most promising single edits
//! (those that lifted the passage most). Each fix found carries the rank it reached.

use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::analysis::{Analyzer, AnalyzerConfig, Preset};
use crate::config::Settings;
use crate::corpus::DocId;
use crate::progress::{Progress, check_cancel};
use crate::retrieve::{MethodKind, Retriever};
use crate::workbench::Workbench;
use crate::{Error, Result};

/// How deep a ranking is read to say where a passage stands.
const DEPTH: usize = 1000;
// `rank_text` says the depth in words; the two are changed together.
const _: () = assert!(DEPTH == 1000);

/// The methods whose fixes can be searched and whose ranks Page Hunt scores: each scores every
/// passage, so a passage outside the top k still has a rank to reach.
pub const SCORING_EVERY_PASSAGE: [MethodKind; 5] =
    [MethodKind::Bm25, MethodKind::TfIdf, MethodKind::Dense, MethodKind::Splade, MethodKind::LateInteraction];

/// Where a passage stands, as every front end says it: "rank 7", or "not in the first 1,000"
/// when it is not within the depth read.
pub fn rank_text(rank: Option<usize>) -> String {
    match rank {
        Some(r) => format!("rank {r}"),
        None => "not in the first 1,000".to_string(),
    }
}
/// The passage's words tried as additions and swaps.
const PASSAGE_WORDS: usize = 12;
/// The single edits combined into pairs.
const PAIRED: usize = 6;
/// Fixes kept.
const KEPT: usize = 5;

/// One change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum Edit {
    /// A word of the passage added to the question.
    Add {
        /// The word.
        word: String,
    },
    /// A word of the question dropped.
    Drop {
        /// The word.
        word: String,
    },
    /// A question word replaced by a word of the passage.
    Swap {
        /// The question's word.
        from: String,
        /// The passage's word.
        to: String,
    },
    /// A knob of the method turned.
    Turn {
        /// The knob and its value before.
        from: KnobValue,
        /// The same knob and its value after.
        to: KnobValue,
    },
}

/// A lexical method's knob with its value: typed, so a change is applied as it was made and a
/// mistyped knob cannot be written (no name parsed back).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "knob", content = "value", rename_all = "snake_case")]
pub enum KnobValue {
    /// BM25's k1.
    K1(f64),
    /// BM25's b.
    B(f64),
    /// The analyzer the index is built with.
    Analyzer(AnalyzerConfig),
}

impl KnobValue {
    /// The knob's name, as the command line's flag spells it (`k1`, `b`, `analyzer`).
    pub fn name(&self) -> &'static str {
        match self {
            KnobValue::K1(_) => "k1",
            KnobValue::B(_) => "b",
            KnobValue::Analyzer(_) => "analyzer",
        }
    }

    /// The value as the command line takes it (`2`, `0.75`, `english`).
    pub fn value_text(&self) -> String {
        match self {
            KnobValue::K1(x) | KnobValue::B(x) => format!("{x}"),
            KnobValue::Analyzer(a) => a.to_string(),
        }
    }

    /// Set the knob in `settings`.
    pub fn apply(&self, settings: &mut Settings) {
        match *self {
            KnobValue::K1(x) => settings.bm25.k1 = x,
            KnobValue::B(x) => settings.bm25.b = x,
            KnobValue::Analyzer(a) => settings.analyzer = a,
        }
    }
}

impl Edit {
    /// In words: `add "sync"`, `k1 1.2 → 2.0`.
    pub fn text(&self) -> String {
        match self {
            Edit::Add { word } => format!("add \"{word}\""),
            Edit::Drop { word } => format!("drop \"{word}\""),
            Edit::Swap { from, to } => format!("\"{from}\" → \"{to}\""),
            Edit::Turn { from, to } => format!("{} {} → {}", to.name(), from.value_text(), to.value_text()),
        }
    }
}

/// A change that brings the passage into the top k, checked by ranking again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fix {
    /// The question to ask.
    pub question: String,
    /// What changed.
    pub edits: Vec<Edit>,
    /// The knobs turned, as the command line's flags and values (`k1` → `2`): what to pass
    /// `ranklens search` to rank it again (empty for question edits alone). Written from the
    /// typed edits, never read back.
    pub settings: BTreeMap<String, String>,
    /// The rank the passage reached (1-based, at most k).
    pub rank: usize,
    /// Ranked again with the method's own code (always true: a fix is never reported unverified).
    pub verified: bool,
}

/// What was found for one passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fixes {
    /// The passage's id.
    pub passage: String,
    /// The method's label.
    pub method: String,
    /// The question as asked.
    pub question: String,
    /// The top k it should enter.
    pub k: usize,
    /// Its rank now (`None`: not among the first 1,000 the method returns).
    pub rank: Option<usize>,
    /// The smallest fixes, fewest edits first, then best rank.
    pub fixes: Vec<Fix>,
    /// Candidate changes ranked.
    pub tried: usize,
    /// Seconds the search took.
    pub seconds: f64,
    /// Why there is no fix, or that none was needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A candidate: the question, the settings, and the edits that made them.
#[derive(Clone)]
struct Candidate {
    question: Vec<String>,
    settings: Settings,
    edits: Vec<Edit>,
}

impl Candidate {
    fn text(&self) -> String {
        self.question.join(" ")
    }
}

/// Whether the method has lexical knobs (k1, b, analyzer) worth turning.
fn lexical(kind: MethodKind) -> bool {
    matches!(kind, MethodKind::Bm25 | MethodKind::TfIdf)
}

/// Search for the smallest changes that bring `doc` into `kind`'s top `k` for `question`.
pub fn find_fixes(
    workbench: &Workbench,
    kind: MethodKind,
    settings: &Settings,
    question: &str,
    doc: DocId,
    k: usize,
    progress: &dyn Progress,
) -> Result<Fixes> {
    let started = Instant::now();
    let corpus = workbench.corpus();
    let passage = corpus.doc(doc).ok_or_else(|| Error::invalid("passage", "no such passage in the corpus"))?;
    let k = k.max(1);
    let retriever = workbench.retriever(kind, settings)?;
    let mut out = Fixes {
        passage: passage.id.clone(),
        method: retriever.label(),
        question: question.to_string(),
        k,
        rank: None,
        fixes: Vec::new(),
        tried: 0,
        seconds: 0.0,
        note: None,
    };
    out.rank = rank_of(workbench, retriever.as_ref(), settings, question, doc, progress)?;
    if out.rank.is_some_and(|r| r <= k) {
        out.note = Some(format!("already at rank {} of the top {k}: nothing to fix", out.rank.unwrap_or(0)));
        out.seconds = started.elapsed().as_secs_f64();
        return Ok(out);
    }
    let words: Vec<String> = question.split_whitespace().map(str::to_string).collect();
    let base = Candidate { question: words.clone(), settings: settings.clone(), edits: Vec::new() };
    let singles = single_edits(workbench, kind, settings, &words, &passage.passage_text());
    // Retrievers by settings: question edits share the method's own.
    let mut retrievers: Vec<(Settings, std::sync::Arc<dyn Retriever>)> = vec![(settings.clone(), retriever)];
    let mut reached: Vec<(Candidate, Option<usize>)> = Vec::new();
    progress.stage("trying changes", singles.len() as u64);
    for edit in singles {
        check_cancel(progress)?;
        let c = apply(&base, &edit);
        let r = rank_with(workbench, &mut retrievers, kind, &c, doc, progress)?;
        out.tried += 1;
        progress.advance(1);
        reached.push((c, r));
    }
    let mut fixes = found(&reached, k);
    if fixes.is_empty() {
        // Pairs of the single edits that lifted the passage most (a question edit with a knob, two
        // question edits on different words).
        reached.sort_by_key(|(_, r)| r.unwrap_or(usize::MAX));
        let best: Vec<&Candidate> = reached.iter().take(PAIRED).map(|(c, _)| c).collect();
        let mut pairs = Vec::new();
        for (i, a) in best.iter().enumerate() {
            for b in &best[i + 1..] {
                if let (Some(ea), Some(eb)) = (a.edits.first(), b.edits.first())
                    && compatible(ea, eb)
                {
                    pairs.push(apply(&apply(&base, ea), eb));
                }
            }
        }
        progress.stage("trying pairs of changes", pairs.len() as u64);
        let mut second = Vec::new();
        for c in pairs {
            check_cancel(progress)?;
            let r = rank_with(workbench, &mut retrievers, kind, &c, doc, progress)?;
            out.tried += 1;
            progress.advance(1);
            second.push((c, r));
        }
        fixes = found(&second, k);
    }
    if fixes.is_empty() {
        out.note =
            Some(format!("no change of one or two edits among the {} tried brings it into the top {k}", out.tried));
    }
    out.fixes = fixes;
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

/// The candidates that reached the top k, as fixes: fewest edits, then best rank, then question.
fn found(reached: &[(Candidate, Option<usize>)], k: usize) -> Vec<Fix> {
    let mut fixes: Vec<Fix> = reached
        .iter()
        .filter_map(|(c, r)| r.filter(|r| *r <= k).map(|r| (c, r)))
        .map(|(c, rank)| Fix {
            question: c.text(),
            settings: c
                .edits
                .iter()
                .filter_map(|e| match e {
                    Edit::Turn { to, .. } => Some((to.name().to_string(), to.value_text())),
                    _ => None,
                })
                .collect(),
            edits: c.edits.clone(),
            rank,
            verified: true,
        })
        .collect();
    fixes.sort_by(|a, b| (a.edits.len(), a.rank, &a.question).cmp(&(b.edits.len(), b.rank, &b.question)));
    let mut seen = HashSet::new();
    fixes.retain(|f| seen.insert((f.question.clone(), f.settings.clone())));
    fixes.truncate(KEPT);
    fixes
}

/// Two edits that can stand together: not two changes of one knob, not two changes of one word.
fn compatible(a: &Edit, b: &Edit) -> bool {
    let touched = |e: &Edit| -> String {
        match e {
            Edit::Add { word } => format!("+{word}"),
            Edit::Drop { word } | Edit::Swap { from: word, .. } => format!("w{word}"),
            Edit::Turn { to, .. } => format!("s{}", to.name()),
        }
    };
    touched(a) != touched(b)
}

/// A candidate with one more edit.
fn apply(c: &Candidate, e: &Edit) -> Candidate {
    let mut next = c.clone();
    match e {
        Edit::Add { word } => next.question.push(word.clone()),
        Edit::Drop { word } => {
            if let Some(i) = next.question.iter().position(|w| w == word) {
                next.question.remove(i);
            }
        }
        Edit::Swap { from, to } => {
            if let Some(w) = next.question.iter_mut().find(|w| *w == from) {
                *w = to.clone();
            }
        }
        Edit::Turn { to, .. } => to.apply(&mut next.settings),
    }
    next.edits.push(e.clone());
    next
}

/// Every single edit worth trying: the passage's most telling words added, each question word
/// dropped, each question word the passage lacks swapped for one of the passage's best words;
/// for the lexical methods, k1, b and the analyzer.
fn single_edits(
    workbench: &Workbench,
    kind: MethodKind,
    settings: &Settings,
    words: &[String],
    passage: &str,
) -> Vec<Edit> {
    let analyzer =
        Analyzer::new(if lexical(kind) { settings.analyzer } else { AnalyzerConfig::preset(Preset::English) });
    let stem = |w: &str| analyzer.terms(w).into_iter().next();
    let asked: HashSet<String> = words.iter().filter_map(|w| stem(w)).collect();
    let in_passage: HashSet<String> = analyzer.terms(passage).into_iter().collect();
    let index = workbench.built_index(analyzer.config());
    let n = index.as_ref().map_or(1, |i| i.num_docs().max(1)) as f64;
    // The passage's words by tf × idf (idf from the index the method reads, where built), one
    // surface form per term.
    let mut tf: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for t in analyzer.tokens(passage) {
        if asked.contains(&t.text) {
            continue;
        }
        let surface = passage.get(t.offset_from..t.offset_to).unwrap_or(&t.text).to_lowercase();
        if surface.chars().count() < 3 || !surface.chars().all(char::is_alphanumeric) {
            continue;
        }
        tf.entry(t.text).or_insert((0, surface)).0 += 1;
    }
    let mut scored: Vec<(f64, String)> = tf
        .into_iter()
        .map(|(term, (count, surface))| {
            let df = index.as_ref().and_then(|i| i.doc_freq(&term).ok()).unwrap_or(1).max(1) as f64;
            (count as f64 * (n / df).ln_1p(), surface)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let best: Vec<String> = scored.into_iter().take(PASSAGE_WORDS).map(|(_, w)| w).collect();
    let mut edits: Vec<Edit> = best.iter().map(|w| Edit::Add { word: w.clone() }).collect();
    let mut seen = HashSet::new();
    for w in words {
        if !seen.insert(w.clone()) {
            continue;
        }
        if words.len() > 1 {
            edits.push(Edit::Drop { word: w.clone() });
        }
        if stem(w).is_some_and(|s| !in_passage.contains(&s)) {
            edits.extend(best.iter().take(4).map(|to| Edit::Swap { from: w.clone(), to: to.clone() }));
        }
    }
    if lexical(kind) {
        if kind == MethodKind::Bm25 {
            for k1 in [0.3, 0.6, 0.9, 1.2, 1.6, 2.0] {
                if (k1 - settings.bm25.k1).abs() > 1e-9 {
                    edits.push(Edit::Turn { from: KnobValue::K1(settings.bm25.k1), to: KnobValue::K1(k1) });
                }
            }
            for b in [0.0, 0.25, 0.5, 0.75, 1.0] {
                if (b - settings.bm25.b).abs() > 1e-9 {
                    edits.push(Edit::Turn { from: KnobValue::B(settings.bm25.b), to: KnobValue::B(b) });
                }
            }
        }
        for p in Preset::ALL {
            let to = AnalyzerConfig::preset(p);
            if to != settings.analyzer {
                edits.push(Edit::Turn { from: KnobValue::Analyzer(settings.analyzer), to: KnobValue::Analyzer(to) });
            }
        }
    }
    edits
}

/// The rank of `doc` for a candidate, with a retriever for its settings (built once per settings).
fn rank_with(
    workbench: &Workbench,
    retrievers: &mut Vec<(Settings, std::sync::Arc<dyn Retriever>)>,
    kind: MethodKind,
    c: &Candidate,
    doc: DocId,
    progress: &dyn Progress,
) -> Result<Option<usize>> {
    let at = match retrievers.iter().position(|(s, _)| *s == c.settings) {
        Some(i) => i,
        None => {
            if c.settings.analyzer != retrievers[0].0.analyzer {
                workbench.index(c.settings.analyzer, progress)?;
            }
            retrievers.push((c.settings.clone(), workbench.retriever(kind, &c.settings)?));
            retrievers.len() - 1
        }
    };
    let (settings, retriever) = &retrievers[at];
    rank_of(workbench, retriever.as_ref(), settings, &c.text(), doc, progress)
}

/// Where `doc` stands in the method's ranking of `question` (1-based; `None` past [`DEPTH`]).
pub fn rank_of(
    workbench: &Workbench,
    retriever: &dyn Retriever,
    settings: &Settings,
    question: &str,
    doc: DocId,
    progress: &dyn Progress,
) -> Result<Option<usize>> {
    if question.trim().is_empty() {
        return Ok(None);
    }
    let prepared = retriever.prepare_with(&workbench.query_context(question, settings), progress)?;
    let ranking = prepared.search(DEPTH)?;
    Ok(ranking.hits.iter().position(|h| h.doc == doc).map(|p| p + 1))
}

/// The passage's words most worth adding to a question (by tf × idf, those the question lacks),
/// at most `n`: the candidates [`find_fixes`] adds, for a lesson's "which one word?".
pub fn passage_words(
    workbench: &Workbench,
    kind: MethodKind,
    settings: &Settings,
    question: &str,
    doc: DocId,
    n: usize,
) -> Vec<String> {
    let Some(passage) = workbench.corpus().doc(doc) else { return Vec::new() };
    let words: Vec<String> = question.split_whitespace().map(str::to_string).collect();
    single_edits(workbench, kind, settings, &words, &passage.passage_text())
        .into_iter()
        .filter_map(|e| match e {
            Edit::Add { word } => Some(word),
            _ => None,
        })
        .take(n)
        .collect()
}

/// The rank `doc` reaches when each word is added to the question, ranked by the method's own code.
pub fn ranks_with_each_word(
    workbench: &Workbench,
    kind: MethodKind,
    settings: &Settings,
    question: &str,
    doc: DocId,
    words: &[String],
    progress: &dyn Progress,
) -> Result<Vec<(String, Option<usize>)>> {
    let retriever = workbench.retriever(kind, settings)?;
    words
        .iter()
        .map(|w| {
            let asked = format!("{} {w}", question.trim());
            Ok((w.clone(), rank_of(workbench, retriever.as_ref(), settings, &asked, doc, progress)?))
        })
        .collect()
}

/// Over a question set: every relevant passage a method leaves outside its top k, and how many
/// a fix of at most two edits brings in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Missed {
    /// The method's label.
    pub method: String,
    /// The top k.
    pub k: usize,
    /// Judged questions read.
    pub questions: usize,
    /// Relevant passages outside the top k.
    pub outside: usize,
    /// Of them, those with a verified fix.
    pub fixed: usize,
    /// Fixed with one edit.
    pub one_edit: usize,
    /// `fixed / outside`.
    pub share: f64,
    /// The median seconds the search took per passage (fixed or not).
    pub median_seconds: f64,
    /// Each passage's search, in question order.
    pub passages: Vec<Fixes>,
}

/// [`find_fixes`] for every relevant passage outside the top k of the first `questions` judged
/// questions of the corpus.
pub fn missed(
    workbench: &Workbench,
    kind: MethodKind,
    settings: &Settings,
    k: usize,
    questions: usize,
    progress: &dyn Progress,
) -> Result<Missed> {
    let corpus = workbench.corpus();
    let Some(qrels) = corpus.qrels.as_ref() else {
        return Err(Error::invalid("corpus", "it has no judgements (qrels): nothing counts as missed"));
    };
    let retriever = workbench.retriever(kind, settings)?;
    let judged: Vec<&crate::corpus::Query> =
        corpus.queries.iter().filter(|q| qrels.judgements.contains_key(&q.id)).take(questions).collect();
    let mut out = Missed {
        method: retriever.label(),
        k,
        questions: judged.len(),
        outside: 0,
        fixed: 0,
        one_edit: 0,
        share: 0.0,
        median_seconds: 0.0,
        passages: Vec::new(),
    };
    for q in &judged {
        check_cancel(progress)?;
        let prepared = retriever.prepare_with(&workbench.query_context(&q.text, settings), progress)?;
        let top: HashSet<DocId> = prepared.search(k)?.hits.iter().map(|h| h.doc).collect();
        let relevant = qrels.judgements.get(&q.id).into_iter().flatten().filter(|(_, g)| **g > 0);
        for (id, _) in relevant {
            let Some(doc) = corpus.lookup(id) else { continue };
            if top.contains(&doc) {
                continue;
            }
            let f = find_fixes(workbench, kind, settings, &q.text, doc, k, &crate::progress::NoProgress)?;
            out.outside += 1;
            if let Some(best) = f.fixes.first() {
                out.fixed += 1;
                out.one_edit += usize::from(best.edits.len() == 1);
            }
            out.passages.push(f);
        }
    }
    out.share = out.fixed as f64 / out.outside.max(1) as f64;
    let mut secs: Vec<f64> = out.passages.iter().map(|f| f.seconds).collect();
    secs.sort_by(f64::total_cmp);
    out.median_seconds = match secs.len() {
        0 => 0.0,
        n if n % 2 == 1 => secs[n / 2],
        n => (secs[n / 2 - 1] + secs[n / 2]) / 2.0,
    };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_to_the_question_and_the_knobs() {
        let base = Candidate {
            question: vec!["how".into(), "long".into(), "expire".into()],
            settings: Settings::default(),
            edits: Vec::new(),
        };
        let c = apply(&base, &Edit::Add { word: "cache".into() });
        assert_eq!(c.text(), "how long expire cache");
        let c = apply(&c, &Edit::Swap { from: "long".into(), to: "days".into() });
        assert_eq!(c.text(), "how days expire cache");
        let c = apply(&c, &Edit::Drop { word: "how".into() });
        assert_eq!(c.text(), "days expire cache");
        let c = apply(&c, &Edit::Turn { from: KnobValue::K1(0.9), to: KnobValue::K1(2.0) });
        assert_eq!(c.settings.bm25.k1, 2.0);
        assert_eq!(c.edits.len(), 4);
        assert_eq!(c.edits[3].text(), "k1 0.9 → 2");
        let c = apply(&c, &Edit::Turn { from: KnobValue::B(0.75), to: KnobValue::B(0.25) });
        assert_eq!((c.settings.bm25.k1, c.settings.bm25.b), (2.0, 0.25));
        let whitespace = AnalyzerConfig::preset(Preset::Whitespace);
        let english = AnalyzerConfig::preset(Preset::English);
        let c = apply(&c, &Edit::Turn { from: KnobValue::Analyzer(english), to: KnobValue::Analyzer(whitespace) });
        assert_eq!(c.settings.analyzer, whitespace);
        assert_eq!(c.edits[5].text(), "analyzer english → whitespace");
    }

    #[test]
    fn two_changes_of_one_word_or_one_knob_do_not_pair() {
        let k1 = |v: f64| Edit::Turn { from: KnobValue::K1(0.9), to: KnobValue::K1(v) };
        assert!(!compatible(&k1(1.2), &k1(2.0)));
        assert!(compatible(&k1(1.2), &Edit::Turn { from: KnobValue::B(0.4), to: KnobValue::B(0.0) }));
        assert!(!compatible(&Edit::Drop { word: "a".into() }, &Edit::Swap { from: "a".into(), to: "b".into() }));
        assert!(compatible(&Edit::Add { word: "a".into() }, &Edit::Drop { word: "a".into() }));
    }
}
