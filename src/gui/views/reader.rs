//! The Reader panel (under Compare; one passage of it in Explain): a column's top k read by the
//! chosen reader — the answer and the passage it came from, each passage's best span highlighted
//! in its text with its score, the trained reader's start and end scores over the passage's
//! tokens as two strips with its top five spans and the no-answer score, the language model's
//! span and no-answer probabilities, and what happens with each passage left out.

use std::sync::Arc;

use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, RichText, Sense, Stroke, StrokeKind, Ui, Vec2};

use super::{Memo, Same};
use crate::compare::ColumnId;
use crate::gui::command::{ModelCommand, ReadCommand};
use crate::gui::context::ViewContext;
use crate::gui::state::ReaderChoice;
use crate::gui::theme;
use crate::models::Role;
use crate::read::{LeftOut, PassageReading, ReadDetail, ReaderKind, Readout};

/// One passage's reading as drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct PassageData {
    /// Its id and rank.
    pub id: String,
    /// Its rank.
    pub rank: usize,
    /// Its text.
    pub text: String,
    /// The best span's bytes, when there is one.
    pub best: Option<std::ops::Range<usize>>,
    /// `score · no-answer` as shown.
    pub figures: String,
    /// Whether it holds the answer.
    pub answer: bool,
    /// The trained reader's strips: each passage token with its start and end score, and which
    /// tokens start and end the best span.
    pub strips: Option<Strips>,
    /// The top spans: text, start score, end score, sum (trained) or probability (generator).
    pub top: Vec<(String, String)>,
    /// A note (a reply that was no span).
    pub note: Option<String>,
}

/// A window's passage tokens with their scores.
#[derive(Debug, Clone, PartialEq)]
pub struct Strips {
    /// (token, S·p′, E·p′) for each passage token of the window the best span came from.
    pub tokens: Vec<(String, f32, f32)>,
    /// Index (into `tokens`) of the best span's first and last token.
    pub span: Option<(usize, usize)>,
    /// `[CLS]`'s start and end scores in that window.
    pub cls: (f32, f32),
}

/// What the panel shows of a reading, built once per reading.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadingData {
    /// The question.
    pub question: String,
    /// The answer line.
    pub answer: String,
    /// Where it came from, with its score and the no-answer's.
    pub from: String,
    /// The reader and the ranking read.
    pub reader: String,
    /// The reader's note.
    pub note: Option<String>,
    /// What its scores are.
    pub unit: &'static str,
    /// Each passage.
    pub passages: Vec<PassageData>,
    /// Each passage left out: (passage, what happens).
    pub left_out: Vec<(String, String)>,
}

fn number(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{v:.3}"))
}

fn strips(p: &PassageReading) -> Option<Strips> {
    let ReadDetail::Span { windows } = &p.detail else { return None };
    let parts = p.best.as_ref().and_then(|s| s.parts);
    let w = windows.get(parts.map_or(0, |x| x.window))?;
    let passage: Vec<usize> = w.passage_tokens().collect();
    let tokens = passage.iter().map(|&i| (w.tokens[i].clone(), w.start[i], w.end[i])).collect();
    let span = parts.and_then(|x| {
        let a = passage.iter().position(|&i| i == x.start_token)?;
        let b = passage.iter().position(|&i| i == x.end_token)?;
        Some((a, b))
    });
    Some(Strips { tokens, span, cls: (w.start.first().copied().unwrap_or(0.0), w.end.first().copied().unwrap_or(0.0)) })
}

fn top(p: &PassageReading, kind: ReaderKind) -> Vec<(String, String)> {
    match (&p.detail, kind) {
        (ReadDetail::Span { .. }, _) => p
            .top
            .iter()
            .map(|s| {
                let figures = match s.parts {
                    Some(x) => format!(
                        "S·p′ {:.2} + E·p′ {:.2} = {:.2}",
                        x.start_score,
                        x.end_score,
                        x.start_score + x.end_score
                    ),
                    None => number(s.score),
                };
                (s.text.clone(), figures)
            })
            .collect(),
        (ReadDetail::Generator(g), _) => {
            let mut rows: Vec<(String, String)> = Vec::new();
            if let Some(s) = &p.best {
                let tokens: Vec<String> = g.tokens.iter().map(|(t, l)| format!("{t:?} {:.2}", l.exp())).collect();
                rows.push((
                    s.text.clone(),
                    format!("P = {} (ln {}) · tokens: {}", prob(s.score), number(s.score), tokens.join(", ")),
                ));
            }
            if let Some(n) = p.no_answer_score {
                rows.push(("no answer".into(), format!("P = {} (ln {n:.3})", prob(Some(n)))));
            }
            rows
        }
        _ => Vec::new(),
    }
}

fn prob(score: Option<f64>) -> String {
    score.map_or("—".into(), |s| format!("{:.3}", s.exp()))
}

impl ReadingData {
    /// The data of a reading over `corpus`, with the question's gold answers where known.
    pub fn build(reading: &Readout, corpus: &crate::corpus::Corpus, gold: Option<&[String]>) -> Self {
        let kind = reading.reader.kind;
        let answer_passage = reading.decision.answer.as_ref().map(|a| a.passage.clone());
        let passages = reading
            .passages
            .iter()
            .map(|p| PassageData {
                id: p.passage.clone(),
                rank: p.rank,
                text: corpus.lookup(&p.passage).and_then(|d| corpus.doc(d)).map(|d| d.text.clone()).unwrap_or_default(),
                best: p.best.as_ref().map(|s| s.bytes.clone()),
                figures: match kind {
                    ReaderKind::Toy => match &p.detail {
                        ReadDetail::Toy { anchor: Some(a) } => format!("anchor “{a}”"),
                        _ => "no anchor found".into(),
                    },
                    ReaderKind::Generator => format!(
                        "P(span) {} · P(no answer) {}",
                        prob(p.best.as_ref().and_then(|s| s.score)),
                        prob(p.no_answer_score)
                    ),
                    ReaderKind::Span => format!(
                        "best span {} · no-answer {}",
                        number(p.best.as_ref().and_then(|s| s.score)),
                        number(p.no_answer_score)
                    ),
                },
                answer: answer_passage.as_deref() == Some(p.passage.as_str()),
                strips: strips(p),
                top: top(p, kind),
                note: p.note.clone(),
            })
            .collect();
        let (answer, from) = match &reading.decision.answer {
            Some(a) => (
                format!("Answer: {}", a.span.text),
                format!(
                    "from {} (rank {}) · score {} · no-answer {}",
                    a.passage,
                    a.rank,
                    number(a.span.score),
                    number(reading.decision.no_answer_score)
                ),
            ),
            None => (
                "No answer".to_string(),
                format!(
                    "the reader declines: no-answer {} beats every span read",
                    number(reading.decision.no_answer_score)
                ),
            ),
        };
        let left_out = reading.leave_one_out(gold).iter().map(left_out_line).collect();
        Self {
            question: reading.question.clone(),
            answer,
            from,
            reader: format!("{} · passages from {} · {:.1} s", reading.reader.label(), reading.method, reading.seconds),
            note: reading.reader.note.clone(),
            unit: kind.score_unit(),
            passages,
            left_out,
        }
    }
}

fn left_out_line(l: &LeftOut) -> (String, String) {
    let answer = l.decision.answer.as_ref().map_or("no answer".to_string(), |a| format!("“{}”", a.span.text));
    let verdict = match (l.changed, l.right_without) {
        (false, _) => "the answer does not change".to_string(),
        (true, Some(true)) => format!("the answer becomes {answer}, which is right: this passage pulled it away"),
        (true, Some(false)) => format!("the answer becomes {answer}: the answer depends on this passage"),
        (true, None) => format!("the answer becomes {answer}"),
    };
    (format!("without {} (rank {})", l.passage, l.rank), verdict)
}

/// The panel under Compare: its choices and its drawing of the last reading.
#[derive(Default)]
pub struct ReaderPanel {
    data: Memo<Option<Same<Readout>>, Option<ReadingData>>,
    column: Option<ColumnId>,
}

impl ReaderPanel {
    /// The reading shown, as drawn data.
    fn data(&mut self, ctx: &ViewContext<'_>) -> Option<&ReadingData> {
        let reading = ctx.jobs.read.latest().cloned();
        let corpus = ctx.workbench().map(|e| e.corpus().clone());
        self.data
            .get(reading.clone().map(Same), || {
                let (reading, corpus) = (reading?, corpus?);
                let gold = corpus
                    .answers
                    .as_ref()
                    .and_then(|a| a.gold_for_text(&reading.question))
                    .map(|(_, g)| g.answers.clone());
                Some(ReadingData::build(&reading, &corpus, gold.as_deref()))
            })
            .as_ref()
    }

    /// Draw the panel.
    pub fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(engine) = ctx.workbench() else { return };
        let Some(ranked) = ctx.ranked() else { return };
        let ranked_columns: Vec<(ColumnId, String)> = ranked
            .run
            .comparison
            .runs
            .iter()
            .filter(|r| r.ranking().is_some_and(|x| !x.unranked && !x.hits.is_empty()))
            .map(|r| (r.id.clone(), r.label.clone()))
            .collect();
        let Some(first) = ranked_columns.first() else { return };
        let column = match &self.column {
            Some(c) if ranked_columns.iter().any(|(id, _)| id == c) => c.clone(),
            _ => first.0.clone(),
        };
        let choice = ctx.data.persisted.reading;
        let kind = choice.reader.unwrap_or_else(|| engine.default_reader_kind());
        egui::CollapsingHeader::new(RichText::new("Read: the answer in the top passages").strong())
            .id_salt("reader-panel")
            .default_open(true)
            .show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    let mut k = choice.k;
                    let label = ui.label("Read the top");
                    ui.add(egui::DragValue::new(&mut k).range(1..=20)).labelled_by(label.id);
                    let label = ui.label("of");
                    let shown = ranked_columns.iter().find(|(id, _)| *id == column).map_or("", |(_, l)| l.as_str());
                    egui::ComboBox::from_id_salt("reader-column")
                        .selected_text(crate::gui::widgets::ellipsis(shown, 28))
                        .show_ui(ui, |ui| {
                            for (id, l) in &ranked_columns {
                                if ui.selectable_label(*id == column, l).clicked() {
                                    self.column = Some(id.clone());
                                }
                            }
                        })
                        .response
                        .labelled_by(label.id);
                    let label = ui.label("with");
                    let mut reader = kind;
                    egui::ComboBox::from_id_salt("reader-kind")
                        .selected_text(reader.label())
                        .show_ui(ui, |ui| {
                            for r in ReaderKind::ALL {
                                ui.selectable_value(&mut reader, r, r.label());
                            }
                        })
                        .response
                        .labelled_by(label.id);
                    if k != choice.k || reader != kind {
                        ctx.send(ReadCommand::SetChoice(ReaderChoice { reader: Some(reader), k }));
                    }
                    let running = ctx.jobs.read.is_running();
                    if ui.add_enabled(!running, egui::Button::new("Read")).clicked() {
                        ctx.send(ReadCommand::Read(column.clone()));
                    }
                    if running {
                        crate::gui::widgets::spinner_ui(ui);
                    }
                });
                cost_ui(ui, ctx, kind, choice.k);
                match self.data(ctx) {
                    Some(d) if d.question == ranked.run.comparison.question => reading_ui(ui, d),
                    Some(_) => {
                        ui.weak("The last reading was of another question; press Read.");
                    }
                    None => {
                        ui.weak(
                            "Press Read: the reader reads each passage for the question and picks the answer span.",
                        );
                    }
                }
            });
    }
}

/// What reading will cost, before it runs; and, for a reader not here, why and how to get it.
fn cost_ui(ui: &mut Ui, ctx: &ViewContext<'_>, kind: ReaderKind, k: usize) {
    let Some(engine) = ctx.workbench() else { return };
    let generator = engine.generator().map(|g| g.info().model.clone());
    ui.label(RichText::new(crate::compare::cost::reader_cost(kind, k, generator.as_deref())).small());
    match kind {
        ReaderKind::Span if !engine.has_model(Role::Reader) => {
            ui.colored_label(theme::WARNING, crate::workbench::NO_TRAINED_READER);
            if ui.button("Fetch the reader model").clicked() {
                ctx.send(ModelCommand::Fetch(Role::Reader));
            }
        }
        ReaderKind::Generator if !engine.has_model(Role::Generator) => {
            ui.colored_label(theme::WARNING, "No language model is loaded: load one in Models → Generator.");
        }
        _ => {}
    }
}

/// A reading: the answer, then each passage.
pub fn reading_ui(ui: &mut Ui, d: &ReadingData) {
    ui.label(RichText::new(&d.answer).heading().strong());
    ui.label(&d.from);
    ui.label(RichText::new(&d.reader).small().weak());
    if let Some(n) = &d.note {
        ui.label(RichText::new(n).small().color(theme::WARNING));
    }
    ui.label(RichText::new(format!("Scores: {}", d.unit)).small());
    for p in &d.passages {
        ui.separator();
        passage_ui(ui, p);
    }
    if !d.left_out.is_empty() {
        ui.separator();
        ui.label(RichText::new("Each passage left out in turn").strong());
        egui::Grid::new("reader-left-out").striped(true).show(ui, |ui| {
            for (who, what) in &d.left_out {
                ui.label(who);
                ui.label(what);
                ui.end_row();
            }
        });
    }
}

/// One passage: its text with the best span highlighted, its figures, the strips and top spans.
pub fn passage_ui(ui: &mut Ui, p: &PassageData) {
    let mark = if p.answer { "  ← the answer" } else { "" };
    ui.label(RichText::new(format!("{}. {} · {}{mark}", p.rank, p.id, p.figures)).strong());
    let mut job = LayoutJob::default();
    let plain = TextFormat { color: ui.visuals().text_color(), ..Default::default() };
    let marked = TextFormat {
        color: Color32::BLACK,
        background: if p.answer { theme::HIGHLIGHT } else { theme::HIGHLIGHT.gamma_multiply(0.45) },
        ..Default::default()
    };
    match p.best.clone().filter(|r| p.text.get(r.clone()).is_some()) {
        Some(r) => {
            job.append(&p.text[..r.start], 0.0, plain.clone());
            job.append(&p.text[r.clone()], 0.0, marked);
            job.append(&p.text[r.end..], 0.0, plain);
        }
        None => job.append(&p.text, 0.0, plain),
    }
    job.wrap.max_width = ui.available_width();
    ui.label(job);
    if let Some(n) = &p.note {
        ui.label(RichText::new(n).small().color(theme::WARNING));
    }
    if let Some(s) = &p.strips {
        strips_ui(ui, s);
    }
    if !p.top.is_empty() {
        egui::Grid::new(format!("reader-top-{}", p.id)).striped(true).show(ui, |ui| {
            for (span, figures) in &p.top {
                ui.label(RichText::new(crate::gui::widgets::ellipsis(span, 60)).monospace());
                ui.label(RichText::new(figures).small());
                ui.end_row();
            }
        });
    }
}

/// A score as a colour: white at the lowest of its strip, deep blue at the highest.
fn heat(v: f32, lo: f32, hi: f32) -> Color32 {
    let t = if hi > lo { ((v - lo) / (hi - lo)).clamp(0.0, 1.0) } else { 0.5 };
    Color32::from_rgb((255.0 - 255.0 * t) as u8, (255.0 - 170.0 * t) as u8, (255.0 - 60.0 * t) as u8)
}

/// The start scores (top) and end scores (bottom) of each passage token, one cell a token, the
/// best span's start and end cells outlined.
fn strips_ui(ui: &mut Ui, s: &Strips) {
    let n = s.tokens.len().max(1);
    let cell = (ui.available_width() / n as f32).clamp(3.0, 24.0);
    let (rect, response) = ui.allocate_exact_size(Vec2::new(cell * n as f32, 30.0), Sense::hover());
    let painter = ui.painter_at(rect);
    let (slo, shi) = s.tokens.iter().fold((f32::MAX, f32::MIN), |(a, b), t| (a.min(t.1), b.max(t.1)));
    let (elo, ehi) = s.tokens.iter().fold((f32::MAX, f32::MIN), |(a, b), t| (a.min(t.2), b.max(t.2)));
    let mut hovered = None;
    for (i, (_, start, end)) in s.tokens.iter().enumerate() {
        let x = rect.min.x + cell * i as f32;
        let top = egui::Rect::from_min_size(egui::pos2(x, rect.min.y), Vec2::new(cell - 0.5, 14.0));
        let bottom = egui::Rect::from_min_size(egui::pos2(x, rect.min.y + 15.0), Vec2::new(cell - 0.5, 14.0));
        painter.rect_filled(top, 0.0, heat(*start, slo, shi));
        painter.rect_filled(bottom, 0.0, heat(*end, elo, ehi));
        if let Some((a, b)) = s.span {
            let stroke = Stroke::new(2.0, theme::ERROR);
            if i == a {
                painter.rect_stroke(top, 0.0, stroke, StrokeKind::Inside);
            }
            if i == b {
                painter.rect_stroke(bottom, 0.0, stroke, StrokeKind::Inside);
            }
        }
        if response.hovered() && ui.rect_contains_pointer(top.union(bottom)) {
            hovered = Some(i);
        }
    }
    if let Some(i) = hovered {
        let (t, a, b) = &s.tokens[i];
        response.on_hover_text(format!("{t}: S·p′ {a:.2} (start) · E·p′ {b:.2} (end)"));
    }
    ui.label(
        RichText::new(format!(
            "Start scores S·p′ (top) and end scores E·p′ (bottom) over the passage's {} tokens; outlined: the \
             winning start and end. [CLS] (the no-answer): {:.2} + {:.2} = {:.2}.",
            s.tokens.len(),
            s.cls.0,
            s.cls.1,
            s.cls.0 + s.cls.1
        ))
        .small(),
    );
}

/// The reading of one passage, from the last reading, if it read that passage (Explain).
pub fn passage_of(reading: &Arc<Readout>, corpus: &crate::corpus::Corpus, id: &str) -> Option<PassageData> {
    let data = ReadingData::build(reading, corpus, None);
    data.passages.into_iter().find(|p| p.id == id)
}
