//! Listwise reranking by a language model (RankGPT, Sun et al. 2023): a first stage's top passages
//! read in windows of twenty, each window put in order by the model, sliding from the bottom of
//! the list to the top with a step of ten, so a passage the model likes climbs window by window.
//!
//! The model's order is never trusted: repeated, missing and unknown identifiers are mended and
//! counted ([`crate::generate::permutation`]); a window whose reply is empty, a refusal, names no
//! passage or fails on the server keeps the order it was given and says why; the other windows go
//! on. Passages that hold instructions to a model are named beside the window (RankLens acts on
//! none of them). With three orders, the same list is also given reversed and shuffled, the three
//! results aggregated by Borda count, and Kendall τ between them shows how far the model's order
//! depends on the order it read.

use std::sync::Arc;
use std::time::Instant;

use super::{
    Detail, Explanation, ListOrder, ListWindow, MethodKind, ModelRerank, Prepared, QueryContext, Ranking, Retriever,
};
use crate::corpus::{Corpus, DocId};
use crate::generate::permutation::{self, Reading, Repairs};
use crate::generate::{Generator, prompts};
use crate::progress::{CancelOnly, NoProgress, Progress, check_cancel};
use crate::{Error, Result};

/// Reorders a first stage's top passages with a language model, window by window.
#[derive(Clone)]
pub struct ListwiseRetriever {
    first: Arc<dyn Retriever>,
    generator: Arc<dyn Generator>,
    corpus: Arc<Corpus>,
    knobs: ModelRerank,
    /// Every window read so far, counted by what became of its reply.
    tally: Arc<std::sync::Mutex<WindowTally>>,
}

/// What became of the windows' replies over every question prepared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WindowTally {
    /// Windows whose model was asked (a window of one passage is not).
    pub asked: usize,
    /// Replies that were whole permutations of their window: read with nothing mended.
    pub whole: usize,
    /// Replies read as an order after mending (ids missing, repeated or unknown).
    pub mended: usize,
    /// Windows that kept the order they were given (a reply naming fewer than half of them, none,
    /// an empty reply, a failure).
    pub kept: usize,
    /// Replies held to a permutation while they were written.
    pub held: usize,
    /// Replies from the workspace's store of replies.
    pub stored: usize,
}

impl WindowTally {
    /// `20 windows asked: 18 whole permutations, 2 mended, 0 kept their order; 20 held to a
    /// permutation while written, 0 from the store of replies`.
    pub fn line(&self) -> String {
        format!(
            "{} windows asked: {} whole permutations, {} mended, {} kept their order; {} held to a permutation while \
             written, {} from the store of replies",
            self.asked, self.whole, self.mended, self.kept, self.held, self.stored
        )
    }
}

/// The windows of a list of `n` passages, bottom first: `(start, end)` of `window` passages moving
/// up by `step`, the last one clamped to the top so every passage is read (RankGPT's loop stops
/// before a window that would start above the top; here it is clamped).
pub fn windows(n: usize, window: usize, step: usize) -> Vec<(usize, usize)> {
    let (window, step) = (window.max(1), step.max(1));
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    let mut end = n;
    loop {
        let start = end.saturating_sub(window);
        out.push((start, end));
        if start == 0 {
            break;
        }
        end = end.saturating_sub(step);
    }
    out
}

/// A question's list ordered by the model: the final order, every window's trace, and (with three
/// orders) each order's result.
struct Ordered {
    order: Vec<DocId>,
    windows: Vec<ListWindow>,
}

impl ListwiseRetriever {
    /// Reorder `first`'s top `knobs.depth` with `generator`.
    pub fn new(
        first: Arc<dyn Retriever>,
        generator: Arc<dyn Generator>,
        corpus: Arc<Corpus>,
        knobs: ModelRerank,
    ) -> Self {
        Self { first, generator, corpus, knobs, tally: Arc::default() }
    }

    /// The windows read so far, counted by what became of their replies.
    pub fn tally(&self) -> WindowTally {
        self.tally.lock().map(|t| *t).unwrap_or_default()
    }

    fn name(&self, d: DocId) -> String {
        self.corpus.external_id(d).to_string()
    }

    /// A passage as a window shows it: its first [`prompts::LISTWISE_WORDS`] words, title first.
    fn shown(&self, d: DocId) -> String {
        let text = self.corpus.doc(d).map(|x| x.passage_text()).unwrap_or_default();
        let words: Vec<&str> = text.split_whitespace().collect();
        let mut out = words.iter().take(prompts::LISTWISE_WORDS).copied().collect::<Vec<_>>().join(" ");
        if words.len() > prompts::LISTWISE_WORDS {
            out.push_str(" …");
        }
        out
    }

    /// The request that orders `docs` for `question`.
    pub fn request(&self, question: &str, docs: &[DocId]) -> crate::generate::ChatRequest {
        let mut passages = String::new();
        for (i, &d) in docs.iter().enumerate() {
            passages.push_str(&format!("[{}] {}\n\n", i + 1, self.shown(d)));
        }
        let n = docs.len().to_string();
        let mut r = prompts::LISTWISE.request(&[("n", &n), ("question", question.trim()), ("passages", &passages)]);
        // About five tokens an identifier (`[12] > `), and a few to spare.
        r.max_tokens = 5 * docs.len() + 10;
        // Held to a permutation of the window where the generator can be (the embedded model); a
        // window too large for the grammar is read as written.
        if (1..=crate::generate::shape::MAX_PERMUTATION).contains(&docs.len()) {
            r = r.shaped(crate::generate::Shape::Permutation { n: docs.len() });
        }
        r
    }

    /// Ask the model to order one window; `None` for a window of one passage (nothing to order,
    /// nothing asked).
    fn ask(
        &self,
        question: &str,
        docs: &[DocId],
        progress: &dyn Progress,
    ) -> Result<Option<crate::generate::Generated>> {
        if docs.len() < 2 {
            return Ok(None);
        }
        let reply = self.generator.chat(&self.request(question, docs), &mut |_| {}, &CancelOnly(progress))?;
        Ok(Some(reply))
    }

    /// Slide the windows over `list` (best first), reordering each with the model.
    fn order(&self, question: &str, mut list: Vec<DocId>, progress: &dyn Progress) -> Result<Ordered> {
        let spans = windows(list.len(), self.knobs.window, self.knobs.step);
        let mut traces = Vec::with_capacity(spans.len());
        for (w, &(start, end)) in spans.iter().enumerate() {
            check_cancel(progress)?;
            progress.stage(
                &format!("Asking {} to order window {} of {}", self.generator.info().model, w + 1, spans.len()),
                0,
            );
            let docs: Vec<DocId> = list[start..end].to_vec();
            let started = Instant::now();
            let instructions: Vec<(String, String)> = docs
                .iter()
                .filter_map(|&d| {
                    let text = self.corpus.doc(d).map(|x| x.passage_text()).unwrap_or_default();
                    permutation::instruction_in(&text).map(|i| (self.name(d), i))
                })
                .collect();
            let asked = Asked::of(self.ask(question, &docs, progress));
            if asked.cancelled {
                return Err(Error::Cancelled);
            }
            let reading = asked.reply.clone().map(|text| {
                let read = permutation::read_window(&text, docs.len());
                (text, read)
            });
            if docs.len() > 1
                && let Ok(mut t) = self.tally.lock()
            {
                t.asked += 1;
                match &reading {
                    Ok((_, Reading::Order(_, r))) if r.is_empty() => t.whole += 1,
                    Ok((_, Reading::Order(..))) => t.mended += 1,
                    _ => t.kept += 1,
                }
                t.held += usize::from(asked.constrained.is_some());
                t.stored += usize::from(asked.stored);
            }
            let (new, repairs, kept) = match reading {
                Err(e) => (docs.clone(), Repairs::default(), Some(e)),
                Ok((_, Reading::Order(order, repairs))) => (order.iter().map(|&i| docs[i]).collect(), repairs, None),
                Ok((_, Reading::TooFew { named })) => (
                    docs.clone(),
                    Repairs::default(),
                    Some(format!(
                        "the reply named {named} of {} passages, which is no order of the window, so the window keeps \
                         the order it was given",
                        docs.len()
                    )),
                ),
                Ok((text, Reading::Nothing)) if text.trim().is_empty() => {
                    (docs.clone(), Repairs::default(), Some("the model's reply was empty".into()))
                }
                Ok((_, Reading::Nothing)) => (
                    docs.clone(),
                    Repairs::default(),
                    Some("the reply named no passage of the window (a refusal, or prose)".into()),
                ),
            };
            list.splice(start..end, new.iter().copied());
            progress.note(&format!(
                "window {} of {}: {}{}",
                w + 1,
                spans.len(),
                match &kept {
                    Some(why) => format!("kept its order ({why})"),
                    None => new.iter().map(|&d| self.name(d)).collect::<Vec<_>>().join(" > "),
                },
                if asked.stored { " (from the store of replies)" } else { "" }
            ));
            traces.push(ListWindow {
                start,
                end,
                input: docs.iter().map(|&d| self.name(d)).collect(),
                output: new.iter().map(|&d| self.name(d)).collect(),
                repairs,
                kept,
                reply: asked.reply.as_ref().map(|t| t.chars().take(300).collect()).unwrap_or_default(),
                instructions,
                seconds: started.elapsed().as_secs_f64(),
                constrained: asked.constrained,
                stored: asked.stored,
            });
        }
        Ok(Ordered { order: list, windows: traces })
    }
}

/// What became of asking for one window's order.
struct Asked {
    /// The reply's text, or why there is none (`Err(Error::Cancelled)` passed on as it is).
    reply: std::result::Result<String, String>,
    cancelled: bool,
    constrained: Option<String>,
    stored: bool,
}

impl Asked {
    fn of(result: Result<Option<crate::generate::Generated>>) -> Self {
        match result {
            Ok(Some(g)) => Self { reply: Ok(g.text), cancelled: false, constrained: g.constrained, stored: g.stored },
            Ok(None) => Self {
                reply: Err("one passage: there is nothing to order, so the model was not asked".into()),
                cancelled: false,
                constrained: None,
                stored: false,
            },
            Err(Error::Cancelled) => {
                Self { reply: Err(String::new()), cancelled: true, constrained: None, stored: false }
            }
            Err(e) => Self {
                reply: Err(format!("the model failed: {}", e.report())),
                cancelled: false,
                constrained: None,
                stored: false,
            },
        }
    }
}

impl Retriever for ListwiseRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::Listwise
    }

    fn over_questions(&self) -> Option<String> {
        let t = self.tally();
        (t.asked > 0).then(|| t.line())
    }

    fn label(&self) -> String {
        format!(
            "Listwise ({} over {} top {}, windows of {} step {}{})",
            self.generator.info().model,
            self.first.kind().label(),
            self.knobs.depth,
            self.knobs.window,
            self.knobs.step,
            if self.knobs.three_orders { ", three orders aggregated" } else { "" }
        )
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        self.prepare_with(query, &NoProgress)
    }

    fn prepare_with(&self, query: &QueryContext, progress: &dyn Progress) -> Result<Arc<dyn Prepared>> {
        let first = self.first.search(query, self.knobs.depth)?;
        let list = first.docs();
        let question = query.text();
        let forward = self.order(question, list.clone(), progress)?;
        let (order, orders, tau) = if self.knobs.three_orders && list.len() > 1 {
            let mut reversed = list.clone();
            reversed.reverse();
            let mut shuffled = list.clone();
            seeded_shuffle(&mut shuffled, 42);
            let back = self.order(question, reversed, progress)?;
            let mixed = self.order(question, shuffled, progress)?;
            let results = [forward.order.clone(), back.order, mixed.order];
            let tau: Vec<Vec<f64>> =
                results.iter().map(|a| results.iter().map(|b| permutation::kendall_tau(a, b)).collect()).collect();
            let mut summed = permutation::borda(&results);
            // Most points first; ties keep the first stage's order.
            let first_rank = |d: &DocId| list.iter().position(|x| x == d).unwrap_or(usize::MAX);
            summed.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| first_rank(&a.0).cmp(&first_rank(&b.0))));
            let names = ["as ranked", "reversed", "shuffled (seed 42)"];
            let orders = names
                .iter()
                .zip(&results)
                .map(|(n, o)| ListOrder { name: n.to_string(), ids: o.iter().map(|&d| self.name(d)).collect() })
                .collect();
            (summed.into_iter().map(|(d, _)| d).collect(), orders, tau)
        } else {
            (forward.order.clone(), Vec::new(), Vec::new())
        };
        let mut repairs = Repairs::default();
        for w in &forward.windows {
            repairs.extend(&w.repairs);
        }
        Ok(Arc::new(PreparedListwise {
            label: self.label(),
            first_label: first.method.clone(),
            first: list,
            order,
            windows: forward.windows,
            repairs,
            orders,
            tau,
            query: query.clone(),
        }))
    }
}

/// A shuffle that gives the same order on every machine.
fn seeded_shuffle<T>(items: &mut [T], seed: u64) {
    crate::lcg::SplitMix64::new(seed).shuffle(items);
}

struct PreparedListwise {
    label: String,
    first_label: String,
    /// The first stage's list, best first.
    first: Vec<DocId>,
    /// The model's order, best first.
    order: Vec<DocId>,
    windows: Vec<ListWindow>,
    repairs: Repairs,
    orders: Vec<ListOrder>,
    tau: Vec<Vec<f64>>,
    query: QueryContext,
}

impl PreparedListwise {
    /// A passage's score: its place in the model's order counted from the bottom (N for the first
    /// of N, 1 for the last): an order, not a sum.
    fn score(&self, rank: usize) -> f64 {
        (self.order.len() + 1 - rank) as f64
    }
}

impl Prepared for PreparedListwise {
    fn search(&self, k: usize) -> Result<Ranking> {
        let scored =
            self.order.iter().enumerate().filter(|(_, d)| self.query.allows(**d)).map(|(i, &d)| (d, self.score(i + 1)));
        Ok(Ranking::top(self.label.clone(), MethodKind::Listwise, scored, k))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&self.label));
        }
        let before = self.first.iter().position(|&d| d == doc).map(|i| i + 1);
        let after = self.order.iter().position(|&d| d == doc).map(|i| i + 1);
        let value = after.map_or(0.0, |r| self.score(r));
        let n = self.order.len();
        let kept = self.windows.iter().filter(|w| w.kept.is_some()).count();
        let held = self.windows.iter().filter(|w| w.constrained.is_some()).count();
        let stored = self.windows.iter().filter(|w| w.stored).count();
        let how = match (held, stored) {
            (0, 0) => String::new(),
            (h, 0) => format!(" {h} held to a whole permutation while written."),
            (0, s) => format!(" {s} from the store of replies."),
            (h, s) => format!(" {h} held to a whole permutation while written; {s} from the store of replies."),
        };
        let summary = match (before, after) {
            (Some(b), Some(a)) => format!(
                "{} put it {a} of {n} (it was {b} in {}). {} window(s) read; {} kept their order.{how} The model's \
                 order is a guess to check against the passages.",
                self.label,
                self.first_label,
                self.windows.len(),
                kept
            ),
            _ => format!("Not in {}'s top {n}, so the model never read it: 0.", self.first_label),
        };
        let mut e = Explanation::new(
            self.label.clone(),
            value,
            "score = N + 1 − the passage's place in the model's order (N passages reordered)",
            summary,
        )
        .without_split(
            "the model's order of a list, not a sum of parts: each window's order in and out is the explanation",
        );
        e.detail = Detail::Listwise {
            first_stage: self.first_label.clone(),
            before,
            after,
            windows: self.windows.clone(),
            repairs: self.repairs.clone(),
            orders: self.orders.clone(),
            tau: self.tau.clone(),
        };
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{ChatRequest, Finish, Generated, GeneratorInfo, Sink};
    use std::sync::Mutex;

    /// A first stage that ranks the corpus's passages in the order given.
    struct Fixed(Vec<DocId>);

    impl Retriever for Fixed {
        fn kind(&self) -> MethodKind {
            MethodKind::Bm25
        }
        fn label(&self) -> String {
            "Fixed".into()
        }
        fn prepare(&self, _: &QueryContext) -> Result<Arc<dyn Prepared>> {
            Ok(Arc::new(FixedList(self.0.clone())))
        }
    }

    struct FixedList(Vec<DocId>);

    impl Prepared for FixedList {
        fn search(&self, k: usize) -> Result<Ranking> {
            let n = self.0.len() as f64;
            let scored = self.0.iter().enumerate().map(|(i, &d)| (d, n - i as f64));
            Ok(Ranking::top("Fixed".into(), MethodKind::Bm25, scored, k))
        }
        fn explain(&self, _: DocId) -> Result<Explanation> {
            Err(Error::Query("not asked".into()))
        }
    }

    /// One scripted window: the passages (by their text's first word) in the order the model
    /// gives them, or a reply written as it is; held to a permutation or not; from the store or not.
    struct Reply {
        order: Option<Vec<&'static str>>,
        text: &'static str,
        held: bool,
        stored: bool,
    }

    fn ordered(order: &[&'static str]) -> Reply {
        Reply { order: Some(order.to_vec()), text: "", held: false, stored: false }
    }

    fn written(text: &'static str) -> Reply {
        Reply { order: None, text, held: false, stored: false }
    }

    /// A model that gives each window, in turn, the reply scripted for it, and keeps every request.
    struct Script {
        info: GeneratorInfo,
        replies: Mutex<std::collections::VecDeque<Reply>>,
        asked: Mutex<Vec<ChatRequest>>,
    }

    impl Script {
        fn new(replies: Vec<Reply>) -> Arc<Self> {
            let info = GeneratorInfo {
                model: "scripted".into(),
                size: None,
                place: crate::generate::Place::Scripted("test".into()),
                caveat: None,
            };
            Arc::new(Self { info, replies: Mutex::new(replies.into()), asked: Mutex::default() })
        }

        fn requests(&self) -> usize {
            self.asked.lock().unwrap().len()
        }
    }

    /// The window's number of the passage whose shown text starts with `word` (`[2] bravo …`).
    fn number_of(prompt: &str, word: &str) -> usize {
        prompt
            .lines()
            .find_map(|l| {
                let (n, rest) = l.strip_prefix('[')?.split_once("] ")?;
                rest.starts_with(word).then(|| n.parse().ok()).flatten()
            })
            .unwrap_or_else(|| panic!("{word} is not in the window:\n{prompt}"))
    }

    impl Generator for Script {
        fn info(&self) -> &GeneratorInfo {
            &self.info
        }

        fn chat(&self, request: &ChatRequest, _: Sink<'_>, _: &dyn Progress) -> Result<Generated> {
            self.asked.lock().unwrap().push(request.clone());
            let reply = self.replies.lock().unwrap().pop_front().expect("a reply scripted for every window");
            let prompt = request.messages.last().map(|m| m.content.clone()).unwrap_or_default();
            let text = match &reply.order {
                Some(words) => {
                    words.iter().map(|w| format!("[{}]", number_of(&prompt, w))).collect::<Vec<_>>().join(" > ")
                }
                None => reply.text.to_string(),
            };
            Ok(Generated {
                text,
                model: "scripted".into(),
                finish: Finish::Stop,
                prompt_tokens: 0,
                completion_tokens: 0,
                seconds: 0.0,
                constrained: reply.held.then(|| "permutation".to_string()),
                stored: reply.stored,
                logprobs: Vec::new(),
            })
        }
    }

    fn corpus(texts: &[(&str, &str)]) -> Arc<Corpus> {
        Arc::new(Corpus::from_texts("t", texts.iter().copied()))
    }

    fn listwise(corpus: &Arc<Corpus>, model: &Arc<Script>, knobs: ModelRerank) -> ListwiseRetriever {
        let first: Vec<DocId> = (0..corpus.len() as u32).map(DocId).collect();
        ListwiseRetriever::new(Arc::new(Fixed(first)), model.clone(), corpus.clone(), knobs)
    }

    fn knobs(depth: usize, window: usize, step: usize, three_orders: bool) -> ModelRerank {
        ModelRerank { depth, window, step, three_orders, ..ModelRerank::default() }
    }

    fn ids(corpus: &Corpus, r: &Ranking) -> Vec<String> {
        r.docs().into_iter().map(|d| corpus.external_id(d).to_string()).collect()
    }

    #[test]
    fn every_window_is_counted_by_what_became_of_its_reply() {
        let c = corpus(&[("a", "alpha one"), ("b", "bravo two"), ("c", "charlie three"), ("d", "delta four")]);
        // Windows of two moving up one: (2, 4), (1, 3), (0, 2), each asked (two passages are
        // something to order). The first reply is whole and held to a permutation, the second
        // names one passage twice (mended) and is held too, the third is empty (its window keeps
        // its order) and comes from the store.
        let model = Script::new(vec![
            Reply { held: true, ..ordered(&["delta", "charlie"]) },
            Reply { held: true, ..written("[2] > [2] > [1]") },
            Reply { stored: true, ..written("") },
        ]);
        let lw = listwise(&c, &model, knobs(4, 2, 1, false));
        assert_eq!(lw.over_questions(), None, "nothing asked yet, nothing to say");
        assert_eq!(lw.tally(), WindowTally::default());
        let q = QueryContext::new("which?");
        let r = lw.search(&q, 10).unwrap();
        assert_eq!(model.requests(), 3);
        // a b c d → window (2, 4) gives a b d c → window (1, 3) [b d] read as "d, then b" → a d b c
        // → window (0, 2) kept.
        assert_eq!(ids(&c, &r), ["a", "d", "b", "c"]);
        let want = WindowTally { asked: 3, whole: 1, mended: 1, kept: 1, held: 2, stored: 1 };
        assert_eq!(lw.tally(), want);
        let line = "3 windows asked: 1 whole permutations, 1 mended, 1 kept their order; 2 held to a permutation \
                    while written, 1 from the store of replies";
        assert_eq!(want.line(), line);
        assert_eq!(lw.over_questions().as_deref(), Some(line));
        // Each request asks for about five tokens an identifier and ten to spare.
        for r in model.asked.lock().unwrap().iter() {
            assert_eq!(r.max_tokens, 5 * 2 + 10);
        }
        assert_eq!(
            lw.label(),
            "Listwise (scripted over BM25 top 4, windows of 2 step 1)",
            "the label names the model, the first stage and the knobs"
        );
        assert_eq!(
            listwise(&c, &model, knobs(20, 20, 10, true)).label(),
            "Listwise (scripted over BM25 top 20, windows of 20 step 10, three orders aggregated)"
        );
    }

    #[test]
    fn one_passage_asks_nothing_and_counts_no_window() {
        let c = corpus(&[("a", "alpha one")]);
        let model = Script::new(Vec::new());
        // Three orders of one passage are one order: nothing reversed or shuffled either.
        let lw = listwise(&c, &model, knobs(5, 20, 10, true));
        let q = QueryContext::new("which?");
        let p = lw.prepare(&q).unwrap();
        assert_eq!(model.requests(), 0);
        assert_eq!(lw.tally(), WindowTally::default());
        assert_eq!(lw.over_questions(), None);
        let e = p.explain(DocId(0)).unwrap();
        let Detail::Listwise { orders, tau, windows, before, after, .. } = &e.detail else { panic!("{:?}", e.detail) };
        assert!(orders.is_empty() && tau.is_empty(), "{orders:?} {tau:?}");
        assert_eq!((windows.len(), *before, *after), (1, Some(1), Some(1)));
        assert!(windows[0].kept.as_deref().unwrap_or_default().contains("nothing to order"));
    }

    #[test]
    fn a_window_of_two_is_asked_and_sized_by_its_passages() {
        let c = corpus(&[("a", "alpha one"), ("b", "bravo two"), ("c", "charlie three")]);
        let model = Script::new(vec![ordered(&["bravo", "alpha"])]);
        let lw = listwise(&c, &model, knobs(2, 20, 10, false));
        let r = lw.search(&QueryContext::new("which?"), 10).unwrap();
        assert_eq!(model.requests(), 1, "two passages are an order to ask for");
        assert_eq!(ids(&c, &r), ["b", "a"]);
        let three = lw.request("which?", &[DocId(0), DocId(1), DocId(2)]);
        assert_eq!(three.max_tokens, 25, "5 · 3 + 10");
    }

    #[test]
    fn a_window_shows_eighty_words_and_marks_a_cut() {
        let words = |n: usize| (0..n).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
        let (w79, w80, w81, w82) = (words(79), words(80), words(81), words(82));
        let c = corpus(&[("a", &w79), ("b", &w80), ("c", &w81), ("d", &w82)]);
        let model = Script::new(Vec::new());
        let lw = listwise(&c, &model, knobs(4, 20, 10, false));
        assert_eq!(prompts::LISTWISE_WORDS, 80);
        assert_eq!(lw.shown(DocId(0)), w79);
        assert_eq!(lw.shown(DocId(1)), w80, "eighty words are shown whole");
        assert_eq!(lw.shown(DocId(2)), format!("{w80} …"));
        assert_eq!(lw.shown(DocId(3)), format!("{w80} …"));
    }

    #[test]
    fn three_orders_that_tie_keep_the_first_stage_s_order() {
        let c = corpus(&[("a", "alpha one"), ("b", "bravo two"), ("c", "charlie three")]);
        // As ranked a b c, reversed read as c a b, shuffled read as b c a: each passage is first,
        // second and third once, so Borda gives each 3 + 2 + 1 points and the first stage decides.
        let model = Script::new(vec![
            ordered(&["alpha", "bravo", "charlie"]),
            ordered(&["charlie", "alpha", "bravo"]),
            ordered(&["bravo", "charlie", "alpha"]),
        ]);
        let lw = listwise(&c, &model, knobs(3, 20, 10, true));
        let q = QueryContext::new("which?");
        let p = lw.prepare(&q).unwrap();
        assert_eq!(model.requests(), 3);
        assert_eq!(ids(&c, &p.search(10).unwrap()), ["a", "b", "c"]);
        let e = p.explain(DocId(0)).unwrap();
        let Detail::Listwise { orders, before, after, .. } = &e.detail else { panic!("{:?}", e.detail) };
        assert_eq!(orders.len(), 3);
        assert_eq!(orders[1].ids, ["c", "a", "b"]);
        assert_eq!(orders[2].ids, ["b", "c", "a"]);
        assert_eq!((*before, *after), (Some(1), Some(1)));
        assert_eq!(e.value, 3.0, "first of three: N + 1 − 1");
        let e = p.explain(DocId(2)).unwrap();
        let Detail::Listwise { before, after, .. } = &e.detail else { panic!("{:?}", e.detail) };
        assert_eq!((*before, *after, e.value), (Some(3), Some(3), 1.0));
    }

    #[test]
    fn windows_slide_from_the_bottom_and_the_last_reaches_the_top() {
        assert_eq!(windows(100, 20, 10).len(), 9);
        assert_eq!(windows(100, 20, 10)[0], (80, 100));
        assert_eq!(*windows(100, 20, 10).last().unwrap(), (0, 20));
        assert_eq!(windows(20, 20, 10), [(0, 20)]);
        // RankGPT would stop after (5, 25); the top five are read here in a last window.
        assert_eq!(windows(25, 20, 10), [(5, 25), (0, 15)]);
        assert_eq!(windows(3, 20, 10), [(0, 3)]);
        assert!(windows(0, 20, 10).is_empty(), "no passage, no window, no request");
    }

    #[test]
    fn the_shuffle_is_a_permutation_and_the_same_every_time() {
        let mut a: Vec<u32> = (0..20).collect();
        let mut b = a.clone();
        seeded_shuffle(&mut a, 42);
        seeded_shuffle(&mut b, 42);
        assert_eq!(a, b);
        assert_ne!(a, (0..20).collect::<Vec<_>>());
        a.sort_unstable();
        assert_eq!(a, (0..20).collect::<Vec<_>>());
    }
}
