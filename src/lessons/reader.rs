//! Retrieve then read: a retriever finds a handful of passages, then a reader finds the answer span
//! in them — or says there is none. Worked on the documents' trace with the trained reader's own
//! arithmetic (the span search and the decision are `crate::read`'s), then measured on the
//! sample's questions with answers (answer recall and exact match as k grows), and the toy
//! extractor beside a model on a question asked in other words.

use serde::Serialize;

use super::checkpoint::Checkpoint;
use super::drawer::Drawer;
use super::exercises::{self, mistake};
use super::{Lesson, LessonKit, LessonParams, Open};
use crate::Result;
use crate::compare::{AnswerStudy, answer_study};
use crate::config::Settings;
use crate::lcg::SplitMix64;
use crate::models::QaWindow;
use crate::read::trained::{TOP_SPANS, best_spans, bytes_of, no_answer};
use crate::read::{PassageReading, ReadDetail, Reader, ReaderKind, Span, ToyReader, decide, extract_answer};
use crate::retrieve::MethodKind;

/// One passage of the trace: its id, its dense score, and its tokens with their start and end
/// scores (`[CLS]` first).
struct Traced {
    id: &'static str,
    dense: f64,
    tokens: &'static [(&'static str, f64, f64)],
}

/// The documents' trace of "When was Mozart born?": the dense scores 18.4 / 11.2 / 6.7, and d2's
/// S·p′ of "27" = 7.9 and E·p′ of "1756" = 8.3 are theirs; the other scores are filled in to tell
/// the same story (d1, ranked first, answers nothing; d2 holds the answer; d3 is a distractor).
const TRACE: [Traced; 3] = [
    Traced {
        id: "d1",
        dense: 18.4,
        tokens: &[
            ("[CLS]", 5.2, 5.8),
            ("mozart", 1.2, 0.4),
            ("was", -0.8, -1.1),
            ("a", -1.5, -1.9),
            ("composer", 3.1, 4.0),
            ("of", -1.2, -0.9),
            ("the", -0.3, -1.6),
            ("classical", 4.6, 2.2),
            ("period", 1.0, 4.8),
        ],
    },
    Traced {
        id: "d2",
        dense: 11.2,
        tokens: &[
            ("[CLS]", 3.1, 2.9),
            ("mozart", 0.9, -0.5),
            ("was", -1.1, -1.4),
            ("born", 0.6, -0.2),
            ("on", 1.8, -1.0),
            ("27", 7.9, 1.2),
            ("january", 2.4, 4.1),
            ("1756", 3.3, 8.3),
            ("in", -0.7, -1.2),
            ("salzburg", 2.2, 3.0),
        ],
    },
    Traced {
        id: "d3",
        dense: 6.7,
        tokens: &[
            ("[CLS]", 6.5, 5.8),
            ("he", -0.4, -1.0),
            ("died", 0.7, -0.3),
            ("in", 0.2, -0.8),
            ("vienna", 2.9, 2.2),
            ("in", -0.5, -1.1),
            ("1791", 2.4, 2.6),
        ],
    },
];

const QUESTION: &str = "When was Mozart born?";

/// A traced passage as the reader's own window: its tokens, their scores, each passage token's
/// place in a text of its words joined by spaces.
fn window(t: &Traced) -> (QaWindow, String) {
    let mut text = String::new();
    let mut offsets = vec![None];
    for (w, _, _) in &t.tokens[1..] {
        if !text.is_empty() {
            text.push(' ');
        }
        offsets.push(Some(text.len()..text.len() + w.len()));
        text.push_str(w);
    }
    let window = QaWindow {
        tokens: t.tokens.iter().map(|(w, _, _)| w.to_string()).collect(),
        offsets,
        start: t.tokens.iter().map(|x| x.1 as f32).collect(),
        end: t.tokens.iter().map(|x| x.2 as f32).collect(),
    };
    (window, text)
}

/// The reader's reading of a traced passage, computed by its own span search.
fn reading(t: &Traced, rank: usize) -> PassageReading {
    let (w, text) = window(t);
    let windows = vec![w];
    let top: Vec<Span> = best_spans(&windows, 30, TOP_SPANS)
        .iter()
        .filter_map(|s| Span::at(&text, bytes_of(&windows, s)?, Some(round1(f64::from(s.score)))))
        .collect();
    PassageReading {
        passage: t.id.to_string(),
        rank,
        best: top.first().cloned(),
        top,
        no_answer_score: no_answer(&windows).map(|x| round1(f64::from(x))),
        detail: ReadDetail::Span { windows },
        note: None,
    }
}

/// Tenths, as the trace is worked (the f32 scores' last bits are not the lesson's).
fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The scores of a passage as the checkpoints give them.
#[derive(Serialize)]
struct ScoreTable<'a> {
    question: &'a str,
    passage: &'a str,
    tokens: Vec<TokenScores<'a>>,
}

#[derive(Serialize)]
struct TokenScores<'a> {
    token: &'a str,
    start: f64,
    end: f64,
}

/// Several passages' best spans and no-answer scores.
#[derive(Serialize)]
struct Readings {
    question: String,
    passages: Vec<PassageSummary>,
}

#[derive(Serialize)]
struct PassageSummary {
    passage: String,
    best_span: String,
    span_score: f64,
    no_answer_score: f64,
}

fn table(t: &Traced) -> ScoreTable<'_> {
    ScoreTable {
        question: QUESTION,
        passage: t.id,
        tokens: t.tokens.iter().map(|(token, start, end)| TokenScores { token, start: *start, end: *end }).collect(),
    }
}

fn summaries(readings: &[PassageReading]) -> Readings {
    Readings {
        question: QUESTION.into(),
        passages: readings
            .iter()
            .map(|p| PassageSummary {
                passage: p.passage.clone(),
                best_span: p.best.as_ref().map(|s| s.text.clone()).unwrap_or_default(),
                span_score: p.best.as_ref().and_then(|s| s.score).unwrap_or(0.0),
                no_answer_score: p.no_answer_score.unwrap_or(0.0),
            })
            .collect(),
    }
}

/// The decision's text as the choices name it.
fn said(d: &crate::read::Decision) -> String {
    d.answer.as_ref().map_or("no answer".into(), |a| a.span.text.clone())
}

pub fn build(kit: &LessonKit, params: &LessonParams, on: &Open) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    l.p("A retriever ranks passages; a reader then reads the top k and finds the answer as a span of one of them. \
         A trained extractive reader (BERT with a two-number head) reads `[CLS] question [SEP] passage [SEP]` and gives \
         every passage token p′ᵢ a start score S·p′ᵢ and an end score E·p′ᵢ; the span i ≤ j with the largest \
         S·p′ᵢ + E·p′ⱼ is the passage's best, and `[CLS]`'s own start plus end is the score of \"no answer\". Long \
         passages are cut into overlapping windows and the best span over all of them wins.");
    l.h(format!("The documents' trace: `{QUESTION}`"));
    l.table(
        "Retrieve: the dense scores of three passages",
        &["rank", "passage", "dense score", "text"],
        TRACE
            .iter()
            .enumerate()
            .map(|(i, t)| vec![(i + 1).to_string(), t.id.into(), format!("{:.1}", t.dense), window(t).1])
            .collect(),
    );
    let d2 = &TRACE[1];
    l.table(
        "Read d2: each token's start score S·p′ and end score E·p′ (7.9 and 8.3 are the documents'; the rest filled in to match)",
        &["token", "S·p′", "E·p′"],
        d2.tokens.iter().map(|(t, s, e)| vec![t.to_string(), format!("{s:.1}"), format!("{e:.1}")]).collect(),
    );
    let readings: Vec<PassageReading> = TRACE.iter().enumerate().map(|(i, t)| reading(t, i + 1)).collect();
    let score = |t: &Traced, a: &str, b: &str| -> Option<(f64, f64, f64)> {
        let s = t.tokens.iter().find(|x| x.0 == a)?;
        let e = t.tokens.iter().find(|x| x.0 == b)?;
        Some((s.1, e.2, s.1 + e.2))
    };
    if let Some((s, e, key)) = score(d2, "27", "1756") {
        let (s27e, s1756) = (d2.tokens[5].2, d2.tokens[7].1);
        l.check(exercises::number(
            "reader-span-score",
            "What is the score of the span \"27 january 1756\" in d2? (S·p′ of its first token + E·p′ of its last)"
                .into(),
            table(d2),
            key,
            vec![format!("S·p′(27) + E·p′(1756) = {s:.1} + {e:.1} = {key:.1}")],
            vec![
                mistake("multiplied instead of added", s * e),
                mistake("both scores of the first token", s + s27e),
                mistake("both scores of the last token", s1756 + e),
                mistake("start and end swapped", s27e + s1756),
            ],
        ));
    }
    let rows: Vec<Vec<String>> = readings
        .iter()
        .map(|p| {
            let top: Vec<String> =
                p.top.iter().take(3).map(|s| format!("\"{}\" {:.1}", s.text, s.score.unwrap_or(0.0))).collect();
            vec![p.passage.clone(), top.join(", "), format!("{:.1}", p.no_answer_score.unwrap_or(0.0))]
        })
        .collect();
    l.table(
        "Each passage's best spans (by the reader's span search) and its no-answer score",
        &["passage", "best spans", "no answer"],
        rows,
    );
    let all = decide(&readings);
    let mut options: Vec<String> = readings.iter().filter_map(|p| p.best.as_ref().map(|s| s.text.clone())).collect();
    options.push("no answer".into());
    let opts: Vec<&str> = options.iter().map(String::as_str).collect();
    l.check(exercises::choice(
        "reader-k3",
        "Readout all three passages, what does the reader answer? (the best span over them, unless the lowest no-answer score beats it)".into(),
        summaries(&readings),
        &opts,
        &said(&all),
        format!(
            "The best span is \"{}\" ({:.1}); the lowest no-answer score is {:.1}: the span wins.",
            all.answer.as_ref().map_or("", |a| a.span.text.as_str()),
            all.answer.as_ref().and_then(|a| a.span.score).unwrap_or(0.0),
            all.no_answer_score.unwrap_or(0.0)
        ),
    ));
    let first = decide(readings.iter().take(1));
    l.check(exercises::choice(
        "reader-k1",
        "With k = 1 the reader sees only d1, the dense retriever's first. What does it answer?".into(),
        summaries(&readings[..1]),
        &opts,
        &said(&first),
        format!(
            "d1's best span scores {:.1} and its no-answer {:.1}: the no-answer wins. The passage ranked first does not answer; a larger k finds the one that does.",
            readings[0].best.as_ref().and_then(|s| s.score).unwrap_or(0.0),
            readings[0].no_answer_score.unwrap_or(0.0)
        ),
    ));
    l.p("A larger k lets the reader reach the passage that answers — and lets every other passage it reads compete with it. d3's spans score low here; a passage with a span that scores higher than the answer's would pull the answer away.");
    measured(&mut l, kit)?;
    paraphrase(&mut l, kit, on)?;
    toy_page(&mut l, kit, params)?;
    Ok(l)
}

/// The reader the lesson can run at once: the trained one when it is here, else the toy.
fn quick_reader(kit: &LessonKit) -> Box<dyn Reader> {
    match kit.sample.reader(ReaderKind::Span) {
        Ok(r) => Box::new(ArcReader(r)),
        Err(_) => Box::new(ToyReader),
    }
}

struct ArcReader(std::sync::Arc<dyn Reader>);

impl Reader for ArcReader {
    fn info(&self) -> crate::read::ReaderInfo {
        self.0.info()
    }
    fn read_passage(
        &self,
        q: &str,
        id: &str,
        rank: usize,
        text: &str,
        p: &dyn crate::progress::Progress,
    ) -> Result<PassageReading> {
        self.0.read_passage(q, id, rank, text, p)
    }
}

/// The k trade-off on the sample's questions with answers.
fn measured(l: &mut Lesson, kit: &LessonKit) -> Result<()> {
    let Some(answers) = kit.sample.corpus().answers.clone() else { return Ok(()) };
    let settings = Settings::default();
    let bm25 = kit.sample.retriever(MethodKind::Bm25, &settings)?;
    let reader = quick_reader(kit);
    let ks = [1, 2, 3, 5, 10, 20];
    let study = answer_study(
        &kit.sample,
        bm25.as_ref(),
        &settings,
        &answers,
        Some(reader.as_ref()),
        &ks,
        None,
        &crate::progress::NoProgress,
    )?;
    l.h(format!(
        "Measured: BM25 then the {} on the sample's {} questions",
        reader.info().kind.label(),
        study.questions.len()
    ));
    l.p(format!(
        "{} of them have an answer in some passage; {} do not (the right answer to those is \"no answer\"). For each k the reader reads BM25's top k; answer recall@k counts the answerable questions whose top k holds an answer, exact match the reader's answers that equal one (SQuAD's rules). The same measurement runs in Evaluate → Retrieve, then read, with the language model as the reader, and from `ranklens eval --answers -k 1,2,3,5,10,20 --reader generator`.",
        study.answerable,
        study.questions.len() - study.answerable
    ));
    let lines = curve_series(&study);
    l.blocks.push(super::lesson::Block::Curves {
        caption: "Answer recall@k and exact match as k grows".into(),
        x_label: "k".into(),
        y_label: "%".into(),
        series: lines,
        markers: Vec::new(),
    });
    let best = study.points.iter().filter_map(|p| Some((p.k, p.exact_match?))).fold(
        None::<(usize, f64)>,
        |b, (k, em)| match b {
            Some((_, bem)) if bem >= em => b,
            _ => Some((k, em)),
        },
    );
    if let Some((k, em)) = best {
        let last = study.points.last().map_or(0, |p| p.k);
        l.check(exercises::count(
            "reader-best-k",
            format!("From the measurement above: at which k is the reader's exact match highest (the smallest such k, of {ks:?})?"),
            CurveData { points: study.points.iter().map(|p| (p.k, p.recall, p.exact_match.unwrap_or(0.0))).collect() },
            k,
            vec![format!("exact match is {em:.1} at k = {k}")],
            vec![mistake("the largest k (more passages are not automatically better)", last as f64)],
        ));
    }
    l.p(study.verdict());
    Ok(())
}

#[derive(Serialize)]
struct CurveData {
    /// (k, recall@k, exact match).
    points: Vec<(usize, f64, f64)>,
}

/// The curve's lines for a plot: answer recall@k and exact match.
fn curve_series(study: &AnswerStudy) -> Vec<(String, Vec<[f64; 2]>)> {
    vec![
        ("answer recall@k".into(), study.points.iter().map(|p| [p.k as f64, p.recall]).collect()),
        ("exact match".into(), study.points.iter().filter_map(|p| Some([p.k as f64, p.exact_match?])).collect()),
    ]
}

/// The toy beside a model on a question asked in words its passage does not use.
fn paraphrase(l: &mut Lesson, kit: &LessonKit, on: &Open) -> Result<()> {
    let corpus = kit.sample.corpus();
    let Some(answers) = &corpus.answers else { return Ok(()) };
    let Some((q, gold)) = answers
        .questions
        .iter()
        .filter_map(|q| Some((q, answers.gold(&q.id)?)))
        .find(|(_, g)| g.wording.as_deref() == Some("paraphrase") && !g.spans.is_empty())
    else {
        return Ok(());
    };
    let Some(doc) = corpus.lookup(&gold.spans[0].doc).and_then(|d| corpus.doc(d)) else { return Ok(()) };
    l.h(format!("In other words: `{}`", q.text));
    l.p(format!("{} answers it (\"{}\"), in words the question does not use.", doc.id, doc.text));
    let toy = extract_answer(&q.text, &doc.text)
        .map_or("no answer (no word of the question is in the passage)".into(), |a| a.answer);
    let mut rows = vec![vec!["toy (anchor and boundary)".into(), toy]];
    let model = kit.sample.reader(ReaderKind::Span).or_else(|_| on.workbench.reader(ReaderKind::Generator));
    match model {
        Ok(r) => {
            let read = r.read_passage(&q.text, &doc.id, 1, &doc.text, &crate::progress::NoProgress)?;
            let said = read.best.as_ref().map_or("no answer".into(), |s| s.text.clone());
            rows.push(vec![r.info().label(), said]);
        }
        Err(e) => l.warn(format!(
            "No model reader here ({}): load the language model (Models → Generator) to see one read it.",
            e.report().lines().next().unwrap_or("")
        )),
    }
    l.table(&format!("Gold: {}", gold.answers.join(" | ")), &["reader", "answer"], rows);
    l.p("The toy can only find an answer right after a word of the question; a model reads what the words mean.");
    Ok(())
}

/// The toy on the lesson corpora, with the knob's k: where it works and where it does not.
fn toy_page(l: &mut Lesson, kit: &LessonKit, params: &LessonParams) -> Result<()> {
    let k = params.reader_k.max(1);
    l.h(format!("The toy reads the top {k} of the lesson corpora"));
    l.warn("The anchor-and-boundary extractor is a toy: it takes the words after the question's last content word. It is here so the failures above can be seen, not as a reader.");
    for (name, question) in [("reader", "What did Mangalyaan study?"), ("mozart", "Where was Mozart born?")] {
        let corpus = kit.corpus(name)?;
        let engine = crate::workbench::Workbench::new(corpus);
        let r = engine.retriever(MethodKind::Bm25, &Settings::default())?;
        let ranking = r.search(&engine.query_context(question, &Settings::default()), k)?;
        let rows = ranking
            .hits
            .iter()
            .filter_map(|h| engine.corpus().doc(h.doc))
            .map(|d| match extract_answer(question, &d.text) {
                Some(a) => vec![d.id.clone(), a.anchor, a.answer],
                None => vec![d.id.clone(), "—".into(), "no anchor found".into()],
            })
            .collect();
        l.table(&format!("`{question}` (BM25's top {k})"), &["passage", "anchor", "answer"], rows);
    }
    Ok(())
}

/// A drawn token's scores, tenths.
fn draw_score(rng: &mut SplitMix64, lo: f64, hi: f64) -> f64 {
    round1(lo + (hi - lo) * (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
}

/// This lesson's questions in an assignment, drawn for one student: a passage of the corpus with
/// start and end scores drawn for its first words; the score of a span, the passage's answer
/// (its best span or no answer), and what the reader answers over it and a second passage. The
/// draw is kept only when the best spans lead by at least 0.5.
pub(super) fn assignment(draw: &Drawer<'_>, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
    let (words, starts, ends, cls, other) = draw.until(rng, "a passage whose best span leads", |rng| {
        let Some(&d) = rng.pick(&draw.workable) else { return Ok(None) };
        let words: Vec<String> = draw
            .text(d)
            .split_whitespace()
            .take(9)
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
            .filter(|w| !w.is_empty())
            .collect();
        if words.len() < 5 {
            return Ok(None);
        }
        let starts: Vec<f64> = words.iter().map(|_| draw_score(rng, -2.0, 8.0)).collect();
        let ends: Vec<f64> = words.iter().map(|_| draw_score(rng, -2.0, 8.0)).collect();
        let cls = (draw_score(rng, 2.0, 7.0), draw_score(rng, 2.0, 7.0));
        let other = (draw_score(rng, 6.0, 16.0), draw_score(rng, 4.0, 14.0));
        let (w, _) = drawn_window(&words, &starts, &ends, cls);
        let spans = best_spans(std::slice::from_ref(&w), 30, 3);
        let leads = spans.len() >= 2 && spans[0].score - spans[1].score >= 0.5;
        let clear = (f64::from(spans.first().map_or(0.0, |s| s.score)) - (cls.0 + cls.1)).abs() >= 0.5
            && (other.0 - f64::from(spans.first().map_or(0.0, |s| s.score))).abs() >= 0.5;
        Ok((leads && clear).then_some((words, starts, ends, cls, other)))
    })?;
    let (window, text) = drawn_window(&words, &starts, &ends, cls);
    let windows = vec![window];
    let spans = best_spans(&windows, 30, 3);
    let name =
        |s: &crate::read::trained::TokenSpan| bytes_of(&windows, s).map(|r| text[r].to_string()).unwrap_or_default();
    let data = DrawnTable {
        words: words
            .iter()
            .zip(starts.iter().zip(&ends))
            .map(|(w, (s, e))| DrawnToken { token: w.clone(), start: *s, end: *e })
            .collect(),
        cls_start: cls.0,
        cls_end: cls.1,
    };
    let mut out = Vec::new();
    // q1: the score of a span that is not the best.
    // A span of two to four words whose words stand once in the passage, so the question names one span.
    let phrase = |i: usize, j: usize| words[i..=j].join(" ");
    let once = |i: usize, j: usize| {
        (0..words.len()).filter(|&a| a + (j - i) < words.len() && phrase(a, a + j - i) == phrase(i, j)).count() == 1
    };
    let spans_once: Vec<(usize, usize)> = (0..words.len() - 1)
        .flat_map(|i| (i + 1..words.len().min(i + 4)).map(move |j| (i, j)))
        .filter(|&(i, j)| once(i, j))
        .collect();
    let (i, j) = spans_once.get(rng.below(spans_once.len().max(1))).copied().unwrap_or((0, 1));
    let key = starts[i] + ends[j];
    out.push(exercises::number(
        "q1",
        format!(
            "What is the score of the span \"{}\" (S·p′ of its first word + E·p′ of its last)?",
            words[i..=j].join(" ")
        ),
        &data,
        key,
        vec![format!("{:.1} + {:.1} = {key:.1}", starts[i], ends[j])],
        vec![mistake("multiplied", starts[i] * ends[j]), mistake("start and end swapped", ends[i] + starts[j])],
    ));
    // q2: the passage's answer: its best span, or no answer.
    let reading = PassageReading {
        passage: "this passage".into(),
        rank: 1,
        best: spans.first().and_then(|s| Span::at(&text, bytes_of(&windows, s)?, Some(round1(f64::from(s.score))))),
        top: Vec::new(),
        no_answer_score: Some(round1(cls.0 + cls.1)),
        detail: ReadDetail::Toy { anchor: None },
        note: None,
    };
    let alone = decide(std::iter::once(&reading));
    let mut options: Vec<String> = spans.iter().map(&name).collect();
    options.push("no answer".into());
    let opts: Vec<&str> = options.iter().map(String::as_str).collect();
    out.push(exercises::choice(
        "q2",
        "Read alone, what does this passage answer: its best span, or no answer ([CLS]'s start + end)?".into(),
        &data,
        &opts,
        &said(&alone),
        format!("best span \"{}\" {:.1} against no-answer {:.1}", name(&spans[0]), spans[0].score, cls.0 + cls.1),
    ));
    // q3: with a second passage (its best span's score and its no-answer), what is the answer?
    let second = PassageReading {
        passage: "the second passage".into(),
        rank: 2,
        best: Span::at("its span", 0..8, Some(other.0)),
        top: Vec::new(),
        no_answer_score: Some(other.1),
        detail: ReadDetail::Toy { anchor: None },
        note: None,
    };
    let both = decide([&reading, &second]);
    let key = match &both.answer {
        Some(a) if a.passage == "the second passage" => "the second passage's span".to_string(),
        Some(_) => format!("\"{}\"", name(&spans[0])),
        None => "no answer".into(),
    };
    out.push(exercises::choice(
        "q3",
        format!(
            "The reader also reads a second passage: its best span scores {:.1} and its no-answer {:.1}. Over both passages, what does it answer?",
            other.0, other.1
        ),
        &data,
        &[&format!("\"{}\"", name(&spans[0])), "the second passage's span", "no answer"],
        &key,
        "the best span over both passages, unless the lowest no-answer score beats it".into(),
    ));
    // q4: P(start) of the best span's first word: a softmax over [CLS] and every word's start score.
    let first = spans[0].start.saturating_sub(1).min(words.len() - 1);
    let total: f64 = std::iter::once(cls.0).chain(starts.iter().copied()).map(f64::exp).sum();
    let key = starts[first].exp() / total;
    let words_only: f64 = starts.iter().copied().map(f64::exp).sum();
    let linear: f64 = std::iter::once(cls.0).chain(starts.iter().copied()).sum();
    out.push(exercises::number(
        "q4",
        format!(
            "What is P(start) of \"{}\" (word {} of the passage), the best span's first word: the softmax of the start scores over [CLS] and every word?",
            words[first],
            first + 1
        ),
        &data,
        key,
        vec![format!("e^{:.1} / (e^{:.1} [CLS] + Σ e^S·p′ of the words) = {key:.3}", starts[first], cls.0)],
        vec![
            mistake("[CLS] left out of the softmax", starts[first].exp() / words_only),
            mistake("the scores divided without e^", starts[first] / linear),
        ],
    ));
    Ok(out)
}

/// A drawn passage's window: `[CLS]` then its words.
fn drawn_window(words: &[String], starts: &[f64], ends: &[f64], cls: (f64, f64)) -> (QaWindow, String) {
    let text = words.join(" ");
    let mut offsets = vec![None];
    let mut at = 0;
    for w in words {
        offsets.push(Some(at..at + w.len()));
        at += w.len() + 1;
    }
    let mut tokens = vec!["[CLS]".to_string()];
    tokens.extend(words.iter().cloned());
    let start = std::iter::once(cls.0).chain(starts.iter().copied()).map(|x| x as f32).collect();
    let end = std::iter::once(cls.1).chain(ends.iter().copied()).map(|x| x as f32).collect();
    (QaWindow { tokens, offsets, start, end }, text)
}

#[derive(Serialize)]
struct DrawnTable {
    words: Vec<DrawnToken>,
    cls_start: f64,
    cls_end: f64,
}

#[derive(Serialize)]
struct DrawnToken {
    token: String,
    start: f64,
    end: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_reads_as_the_documents_say() {
        let readings: Vec<PassageReading> = TRACE.iter().enumerate().map(|(i, t)| reading(t, i + 1)).collect();
        // d2's best span: "27" (7.9) to "1756" (8.3), 16.2.
        let best = readings[1].best.as_ref().unwrap();
        assert_eq!((best.text.as_str(), best.score), ("27 january 1756", Some(16.2)));
        // Over the three, d2's span beats every span of d1 and the no-answer.
        let all = decide(&readings);
        assert_eq!(said(&all), "27 january 1756");
        assert_eq!(all.no_answer_score, Some(6.0));
        // d1 alone: its best span 4.6 + 4.8 = 9.4 loses to its no-answer 5.2 + 5.8 = 11.0.
        assert_eq!(readings[0].best.as_ref().and_then(|s| s.score), Some(9.4));
        assert_eq!(said(&decide(readings.iter().take(1))), "no answer");
    }
}
