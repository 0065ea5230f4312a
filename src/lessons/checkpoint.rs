//! Checkpoints: predict, then reveal. Before a number or a ranking is shown, the student answers
//! it — a number, a choice or an ordering — and the checker says whether it is right, within a
//! tolerance stated with the question. A wrong number is met with the step that went wrong: the
//! checkpoint carries the answer recomputed with each usual mistake (ln instead of log2, no +1,
//! no length normalisation, …), and the checker names the one the student's value matches, or
//! says that none does.
//!
//! A checkpoint is plain data (serialisable, the same in the app, the CLI, a handout and an
//! assignment's key); its key and its mistakes are computed by the code that ranks
//! ([`super::exercises`]).

use serde::{Deserialize, Serialize};

/// What kind of answer a checkpoint asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// A number, right within the tolerance.
    Number,
    /// One of the options.
    Choice,
    /// The options in order.
    Ordering,
}

/// A student's answer, or a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Answer {
    /// A number.
    Number(f64),
    /// One option.
    Choice(String),
    /// Options in order.
    Ordering(Vec<String>),
}

impl Answer {
    /// The answer as a person writes it.
    pub fn to_text(&self) -> String {
        match self {
            Answer::Number(x) => format_number(*x),
            Answer::Choice(c) => c.clone(),
            Answer::Ordering(o) => o.join(", "),
        }
    }

    /// Read what a student typed for a question of this kind: a number (a comma as the decimal
    /// separator is accepted), an option, or options separated by commas, `>` or spaces.
    pub fn parse(kind: AnswerKind, text: &str) -> Result<Answer, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err("no answer".into());
        }
        match kind {
            AnswerKind::Number => {
                let cleaned = if t.contains('.') { t.to_string() } else { t.replacen(',', ".", 1) };
                match cleaned.parse::<f64>() {
                    Ok(x) if x.is_finite() => Ok(Answer::Number(x)),
                    _ => Err(format!("{t:?} is not a number")),
                }
            }
            AnswerKind::Choice => Ok(Answer::Choice(t.to_string())),
            AnswerKind::Ordering => {
                let parts: Vec<String> =
                    t.split([',', '>', ' ']).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
                Ok(Answer::Ordering(parts))
            }
        }
    }
}

/// A number as the checker prints it: up to four decimals, no trailing zeros.
pub fn format_number(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

/// A small number to as many decimals as it needs (up to eight): a tolerance.
fn fine(x: f64) -> String {
    let s = format!("{x:.8}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A usual mistake and the value it gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mistake {
    /// The step that went wrong, as the feedback names it (`ln instead of log2`).
    pub name: String,
    /// What the answer comes to with that mistake.
    pub value: f64,
}

/// One question of a lesson or an assignment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Stable within its lesson or assignment (`q1`, `bm25-idf`).
    pub id: String,
    /// The question.
    pub prompt: String,
    /// What kind of answer.
    pub kind: AnswerKind,
    /// Everything needed to answer it by hand (passages' terms and counts, N, df, parameters, a
    /// ranking and its judgements …).
    pub data: serde_json::Value,
    /// For a choice or an ordering, the options.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// How far a number may be from the key and still be right (absolute).
    pub tolerance: f64,
    /// The answer.
    pub answer: Answer,
    /// The working, line by line, shown on reveal.
    pub steps: Vec<String>,
    /// The usual mistakes and what each gives.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mistakes: Vec<Mistake>,
}

/// What the checker says of an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Right?
    pub correct: bool,
    /// The usual mistake the answer matches, when it is wrong and matches one.
    pub mistake: Option<String>,
    /// What to tell the student.
    pub message: String,
}

impl Checkpoint {
    /// The question without its answer, steps or mistakes: what a student is given.
    pub fn question(&self) -> Checkpoint {
        Checkpoint { answer: Answer::Choice(String::new()), steps: Vec::new(), mistakes: Vec::new(), ..self.clone() }
    }

    /// How the tolerance is stated with the question.
    pub fn tolerance_text(&self) -> String {
        match self.kind {
            AnswerKind::Number if self.tolerance == 0.0 => "exactly".into(),
            AnswerKind::Number => format!("right within ±{}", fine(self.tolerance)),
            AnswerKind::Choice => "one of the options".into(),
            AnswerKind::Ordering => "every option, in order".into(),
        }
    }

    /// Check an answer.
    pub fn check(&self, given: &Answer) -> Verdict {
        match (&self.answer, given) {
            (Answer::Number(key), Answer::Number(x)) => self.check_number(*key, *x),
            (Answer::Choice(key), Answer::Choice(x)) => {
                let correct = normalise(key) == normalise(x);
                let known = self.options.is_empty() || self.options.iter().any(|o| normalise(o) == normalise(x));
                let message = if correct {
                    format!("Right: {key}.")
                } else if !known {
                    format!("{x:?} is not one of the options ({}).", self.options.join(", "))
                } else {
                    format!("Not {x}: the answer is {key}. {}", self.steps.last().cloned().unwrap_or_default())
                };
                Verdict { correct, mistake: None, message: message.trim().to_string() }
            }
            (Answer::Ordering(key), Answer::Ordering(x)) => {
                let (k, g): (Vec<String>, Vec<String>) =
                    (key.iter().map(|s| normalise(s)).collect(), x.iter().map(|s| normalise(s)).collect());
                let correct = k == g;
                let first_wrong = k.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(k.len().min(g.len()));
                let message = if correct {
                    format!("Right: {}.", key.join(", "))
                } else if g.len() != k.len() {
                    format!("The order has {} items; yours has {}.", k.len(), g.len())
                } else {
                    format!("The first place that differs is #{}: the answer is {}.", first_wrong + 1, key.join(", "))
                };
                Verdict { correct, mistake: None, message }
            }
            (key, _) => Verdict {
                correct: false,
                mistake: None,
                message: format!("this question wants {}", describe_kind(key)),
            },
        }
    }

    fn check_number(&self, key: f64, x: f64) -> Verdict {
        if (x - key).abs() <= self.tolerance {
            return Verdict { correct: true, mistake: None, message: format!("Right: {}.", format_number(key)) };
        }
        // The usual mistake the value matches: the nearest one within the tolerance (never one
        // that gives the right answer too).
        let matched = self
            .mistakes
            .iter()
            .filter(|m| (m.value - x).abs() <= self.tolerance && (m.value - key).abs() > self.tolerance)
            .min_by(|a, b| (a.value - x).abs().total_cmp(&(b.value - x).abs()));
        match matched {
            Some(m) => Verdict {
                correct: false,
                mistake: Some(m.name.clone()),
                message: format!(
                    "{} is what you get with {}; the answer is {}.",
                    format_number(x),
                    m.name,
                    format_number(key)
                ),
            },
            None => Verdict {
                correct: false,
                mistake: None,
                message: format!(
                    "{} is not {} (±{}), and it matches none of the usual mistakes ({}): redo the steps.",
                    format_number(x),
                    format_number(key),
                    fine(self.tolerance),
                    self.mistakes.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join("; ")
                ),
            },
        }
    }
}

fn describe_kind(a: &Answer) -> &'static str {
    match a {
        Answer::Number(_) => "a number",
        Answer::Choice(_) => "one of the options",
        Answer::Ordering(_) => "an ordering",
    }
}

/// Case and surrounding space do not make an answer wrong.
fn normalise(s: &str) -> String {
    s.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idf_checkpoint() -> Checkpoint {
        Checkpoint {
            id: "idf".into(),
            prompt: "idf of mars".into(),
            kind: AnswerKind::Number,
            data: serde_json::json!({"N": 4, "df": 1}),
            options: Vec::new(),
            tolerance: 0.005,
            answer: Answer::Number(2.0),
            steps: vec!["idf = log2(4/1) = 2".into()],
            mistakes: vec![
                Mistake { name: "ln instead of log2".into(), value: 4f64.ln() },
                Mistake { name: "log10 instead of log2".into(), value: 4f64.log10() },
            ],
        }
    }

    #[test]
    fn a_number_within_the_tolerance_is_right_and_a_usual_mistake_is_named() {
        let c = idf_checkpoint();
        assert!(c.check(&Answer::Number(2.004)).correct);
        let v = c.check(&Answer::Number(1.386));
        assert!(!v.correct);
        assert_eq!(v.mistake.as_deref(), Some("ln instead of log2"));
        assert_eq!(v.message, "1.386 is what you get with ln instead of log2; the answer is 2.");
        let v = c.check(&Answer::Number(3.0));
        assert_eq!(v.mistake, None);
        assert!(v.message.contains("matches none of the usual mistakes"), "{}", v.message);
    }

    #[test]
    fn answers_are_read_as_typed() {
        assert_eq!(Answer::parse(AnswerKind::Number, " 1,5 "), Ok(Answer::Number(1.5)));
        assert!(Answer::parse(AnswerKind::Number, "two").unwrap_err().contains("not a number"));
        assert!(Answer::parse(AnswerKind::Number, "NaN").is_err());
        assert_eq!(
            Answer::parse(AnswerKind::Ordering, "d2 > d1, d3"),
            Ok(Answer::Ordering(vec!["d2".into(), "d1".into(), "d3".into()]))
        );
        let c = Checkpoint {
            kind: AnswerKind::Ordering,
            answer: Answer::Ordering(vec!["a".into(), "b".into(), "c".into()]),
            ..idf_checkpoint()
        };
        assert!(c.check(&Answer::Ordering(vec!["A".into(), "b".into(), "c".into()])).correct);
        let v = c.check(&Answer::Ordering(vec!["a".into(), "c".into(), "b".into()]));
        assert!(!v.correct && v.message.contains("#2"), "{}", v.message);
        let choice = Checkpoint {
            kind: AnswerKind::Choice,
            options: vec!["d1".into(), "d2".into()],
            answer: Answer::Choice("d1".into()),
            ..idf_checkpoint()
        };
        assert!(choice.check(&Answer::Choice(" D1".into())).correct);
        assert!(choice.check(&Answer::Choice("d9".into())).message.contains("not one of the options"));
        assert!(choice.check(&Answer::Number(1.0)).message.contains("one of the options"));
    }
}
