//! Lessons → Page Hunt: a passage of the open corpus is shown (not its question); the player
//! writes a question, RankLens ranks it with the round's method in the background, and the try
//! scores by the passage's rank — the points said before the round — with the why-not solver's
//! par beside it (`lessons::page_hunt`, the same code as `ranklens lesson page-hunt`).

use egui::{RichText, Ui};

use crate::compare::fixes::rank_text;
use crate::gui::command::{ShellCommand, ToolCommand};
use crate::gui::context::ViewContext;
use crate::gui::jobs::JobKind;
use crate::gui::theme;
use crate::lessons::page_hunt::{Attempt, METHODS, ROUNDS, Round, draw_passage};
use crate::retrieve::MethodKind;

/// One try kept for the score: the passage, the round, the question and its points.
#[derive(Debug, Clone, PartialEq)]
struct Scored {
    passage: String,
    round: Round,
    question: String,
    points: u32,
}

/// The game's state: the round, the method, the passage's seed, the question being written and
/// the tries scored so far.
#[derive(Debug, Clone)]
pub struct PageHuntState {
    round: Round,
    method: MethodKind,
    seed: u64,
    question: String,
    scored: Vec<Scored>,
}

impl Default for PageHuntState {
    fn default() -> Self {
        Self { round: Round::Any, method: MethodKind::Bm25, seed: 1, question: String::new(), scored: Vec::new() }
    }
}

/// The game.
pub fn page_hunt_ui(ui: &mut Ui, ctx: &ViewContext<'_>, state: &mut PageHuntState) {
    ui.horizontal_wrapped(|ui| {
        ui.heading("Page Hunt");
        ui.weak("Write the question that brings this passage up. (After Ma et al., SIGIR 2009.)");
    });
    let Some(engine) = ctx.workbench() else {
        ui.label("Open a corpus from the File menu: the game hunts its passages.");
        return;
    };
    // Class mode: one round at a time, large, for a projector.
    let class = ctx.data.class_mode;
    let big = if class { 1.6 } else { 1.0 };
    if class {
        let at = ROUNDS.iter().position(|r| *r == state.round).unwrap_or(0);
        ui.horizontal(|ui| {
            ui.label(
                RichText::new(format!("Round {} of {}: {}", at + 1, ROUNDS.len(), state.round.title()))
                    .size(24.0)
                    .strong(),
            );
            ui.add_space(12.0);
            if ui.add_enabled(at > 0, egui::Button::new("◀ Previous round")).clicked() {
                state.round = ROUNDS[at - 1];
            }
            if ui.add_enabled(at + 1 < ROUNDS.len(), egui::Button::new("Next round ▶")).clicked() {
                state.round = ROUNDS[at + 1];
            }
        });
    } else {
        ui.horizontal_wrapped(|ui| {
            ui.label("Round:");
            for r in ROUNDS {
                if ui.selectable_label(state.round == r, r.title()).clicked() {
                    state.round = r;
                }
            }
        });
    }
    if state.round.lets_choose_method() {
        ui.horizontal_wrapped(|ui| {
            ui.label("Method:");
            for m in METHODS {
                if ui.selectable_label(state.method == m, m.label()).clicked() {
                    state.method = m;
                }
            }
        });
    }
    let Some(doc) = draw_passage(engine, state.seed) else {
        ui.label("The corpus has no passage to hunt.");
        return;
    };
    let corpus = engine.corpus();
    let passage_id = corpus.external_id(doc).to_string();
    let text = corpus.doc(doc).map(|d| d.passage_text()).unwrap_or_default();
    let method_label = state.round.scoring_method(state.method).label();
    ui.add_space(4.0);
    ui.label(RichText::new(state.round.rules(method_label)).italics().size(13.0 * big));
    ui.add_space(4.0);
    ui.group(|ui| {
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("Passage {passage_id}")).strong());
            if ui.button("Another passage").clicked() {
                state.seed = state.seed.wrapping_add(1);
            }
        });
        ui.label(RichText::new(&text).size(16.0 * big));
    });
    let running = ctx.jobs.page_hunt.is_running();
    let mut ask = false;
    ui.horizontal(|ui| {
        let l = ui.label("Your question");
        let r = ui.add(egui::TextEdit::singleline(&mut state.question).desired_width(520.0)).labelled_by(l.id);
        if r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            ask = true;
        }
        if ui.add_enabled(!running && !state.question.trim().is_empty(), egui::Button::new("Try it")).clicked() {
            ask = true;
        }
    });
    if ask && !running && !state.question.trim().is_empty() {
        ctx.send(ToolCommand::PageHunt {
            doc,
            kind: state.method,
            round: state.round,
            question: state.question.trim().to_string(),
        });
    }
    if running {
        ui.horizontal(|ui| {
            crate::gui::widgets::spinner_ui(ui);
            ui.label("Ranking your question and the solver's…");
            if ui.button("Stop").clicked() {
                ctx.send(ShellCommand::Cancel(JobKind::PageHunt));
            }
        });
    }
    if let Some(e) = ctx.jobs.page_hunt.failure() {
        ui.colored_label(theme::ERROR, e.report());
    }
    let shown = ctx.jobs.page_hunt.ready().filter(|a| a.passage == passage_id && a.round == state.round);
    if let Some(a) = shown {
        let scored =
            Scored { passage: a.passage.clone(), round: a.round, question: a.question.clone(), points: a.points };
        if state.scored.last() != Some(&scored) {
            state.scored.push(scored);
        }
        attempt_ui(ui, a, big);
    }
    if !state.scored.is_empty() {
        let total: u32 = state.scored.iter().map(|s| s.points).sum();
        ui.add_space(6.0);
        let n = state.scored.len();
        let tries = if n == 1 { "try" } else { "tries" };
        ui.label(RichText::new(format!("Score: {total} points in {n} {tries}")).strong().size(14.0 * big));
    }
}

/// A try: the rank under each method, the points, a refusal, and the par.
fn attempt_ui(ui: &mut Ui, a: &Attempt, big: f32) {
    ui.add_space(6.0);
    ui.group(|ui| {
        if let Some(why) = &a.refused {
            ui.colored_label(theme::ERROR, why);
        } else {
            for r in &a.ranks {
                let at = rank_text(r.rank);
                ui.label(format!("{}: {at}", r.method));
            }
        }
        ui.label(
            RichText::new(format!("{} of {} points for \"{}\"", a.points, a.max_points, a.question)).size(18.0 * big),
        );
        match (&a.par, &a.par_note) {
            (Some(p), _) => {
                let at = p.rank.map_or_else(|| "not found".to_string(), |r| format!("rank {r}"));
                ui.label(format!(
                    "Par, the solver's shortest question (ranked again): \"{}\" — {} word(s), {at}, {} points",
                    p.question, p.words, p.points
                ));
            }
            (None, Some(note)) => {
                ui.weak(note);
            }
            (None, None) => {}
        }
    });
}
