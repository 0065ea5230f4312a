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
            AnswerKind::Number => parse_number(t).map(Answer::Number),
            AnswerKind::Choice => Ok(Answer::Choice(t.to_string())),
            AnswerKind::Ordering => {
                let parts: Vec<String> =
                    t.split([',', '>', ' ']).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
                Ok(Answer::Ordering(parts))
            }
        }
    }
}

/// Read a number as people write it: a decimal point or a decimal comma (`2,9267`), thousands
/// separated by commas, dots, spaces or apostrophes (`1,234.5`, `1.234,5`, `1 234,5`, `12'345`), a
/// sign (`-`, `−`, `+`), a percent (`60%` is 0.6) or a fraction (`3/5`). A form that reads two ways
/// is refused with the reason, never guessed: `1,000` is one thousand with a thousands comma and
/// one with a decimal comma. (`1.386` is not refused: a dot alone is the decimal point.)
pub fn parse_number(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let not_a_number = || format!("{t:?} is not a number");
    if t.is_empty() {
        return Err("no answer".into());
    }
    if let Some(rest) = t.strip_suffix('%') {
        return parse_number(rest).map(|x| x / 100.0).map_err(|_| not_a_number());
    }
    if let Some((a, b)) = t.split_once('/') {
        let (a, b) = (parse_number(a).map_err(|_| not_a_number())?, parse_number(b).map_err(|_| not_a_number())?);
        if b == 0.0 {
            return Err(format!("{t:?} divides by zero"));
        }
        return Ok(a / b);
    }
    let (negative, body) = match t.chars().next() {
        Some(c @ ('-' | '−')) => (true, t[c.len_utf8()..].trim_start()),
        Some('+') => (false, t[1..].trim_start()),
        _ => (false, t),
    };
    // An exponent is left to Rust's reader (`1e-3`), with a decimal point only.
    if body.contains(['e', 'E']) {
        return match body.parse::<f64>() {
            Ok(x) if x.is_finite() && body.chars().all(|c| c.is_ascii_digit() || ".eE+-".contains(c)) => {
                Ok(if negative { -x } else { x })
            }
            _ => Err(not_a_number()),
        };
    }
    if body.is_empty() || !body.chars().all(|c| c.is_ascii_digit() || ".,' \u{a0}\u{202f}".contains(c)) {
        return Err(not_a_number());
    }
    let digits_only = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    // The decimal separator: the last of `.` and `,` when both appear; a lone `.`; a lone `,`
    // unless it is followed by exactly three digits (then it reads two ways).
    let (dots, commas) = (body.matches('.').count(), body.matches(',').count());
    let decimal: Option<char> = match (dots, commas) {
        (_, 0) if dots > 1 => None,
        (1, 0) => Some('.'),
        (0, 1) => {
            let (head, tail) = body.split_once(',').unwrap_or((body, ""));
            let head_digits: String = head.chars().filter(char::is_ascii_digit).collect();
            if tail.len() == 3 && digits_only(tail) && !head_digits.is_empty() && !head_digits.starts_with('0') {
                return Err(format!(
                    "{t:?} reads two ways: {head_digits}{tail} with a thousands comma, or {head_digits}.{tail} with a \
                     decimal comma; write it without the comma, or with a decimal point"
                ));
            }
            Some(',')
        }
        // No separator at all, or several commas (thousands).
        (0, _) => None,
        _ => {
            let (last_dot, last_comma) = (body.rfind('.').unwrap_or(0), body.rfind(',').unwrap_or(0));
            Some(if last_dot > last_comma { '.' } else { ',' })
        }
    };
    let (whole, fraction) = match decimal {
        Some(d) => {
            let at = body.rfind(d).unwrap_or(body.len());
            (&body[..at], &body[at + d.len_utf8()..])
        }
        None => (body, ""),
    };
    if decimal.is_some() && !digits_only(fraction) {
        return Err(not_a_number());
    }
    // The whole part: digits, or groups of three after the first, split by one kind of separator.
    let separators: Vec<char> = whole.chars().filter(|c| !c.is_ascii_digit()).collect();
    let whole_digits: String = if separators.is_empty() {
        whole.to_string()
    } else {
        let sep = separators[0];
        if separators.iter().any(|c| *c != sep) || Some(sep) == decimal {
            return Err(format!("{t:?} mixes its separators"));
        }
        let groups: Vec<&str> = whole.split(sep).collect();
        let first_ok = groups[0].len() <= 3 && digits_only(groups[0]);
        if !first_ok || groups[1..].iter().any(|g| g.len() != 3 || !digits_only(g)) {
            return Err(format!("{t:?} groups its digits unevenly: thousands come in threes"));
        }
        groups.concat()
    };
    if whole_digits.is_empty() && fraction.is_empty() {
        return Err(not_a_number());
    }
    let plain = format!(
        "{}.{}",
        if whole_digits.is_empty() { "0" } else { &whole_digits },
        if fraction.is_empty() { "0" } else { fraction }
    );
    match plain.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(if negative { -x } else { x }),
        _ => Err(not_a_number()),
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

/// What is asked, as a student gets it (`questions.json`, a handout): the question with everything
/// needed to answer it by hand, and how its answer will be judged — never the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
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
}

/// The answer to a question, its working, and what the usual mistakes give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Solution {
    /// The answer.
    pub answer: Answer,
    /// The working, line by line, shown on reveal.
    pub steps: Vec<String>,
    /// The usual mistakes and what each gives.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mistakes: Vec<Mistake>,
}

/// One question of a lesson or an assignment with its solution: the one shape a lesson's
/// checkpoint, an assignment's `questions.json` (the question half) and its key (both halves)
/// share. Serialised flat, as one object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// What is asked.
    #[serde(flatten)]
    pub question: Question,
    /// Its answer and working.
    #[serde(flatten)]
    pub solution: Solution,
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

impl Question {
    /// How the tolerance is stated with the question.
    pub fn tolerance_text(&self) -> String {
        match self.kind {
            AnswerKind::Number if self.tolerance == 0.0 => "exactly".into(),
            AnswerKind::Number => format!("right within ±{}", fine(self.tolerance)),
            AnswerKind::Choice => "one of the options".into(),
            AnswerKind::Ordering => "every option, in order".into(),
        }
    }
}

impl Checkpoint {
    /// How the tolerance is stated with the question.
    pub fn tolerance_text(&self) -> String {
        self.question.tolerance_text()
    }

    /// Check an answer.
    pub fn check(&self, given: &Answer) -> Verdict {
        match (&self.solution.answer, given) {
            (Answer::Number(key), Answer::Number(x)) => self.check_number(*key, *x),
            (Answer::Choice(key), Answer::Choice(x)) => {
                let correct = normalise(key) == normalise(x);
                let known = self.question.options.is_empty()
                    || self.question.options.iter().any(|o| normalise(o) == normalise(x));
                let message = if correct {
                    format!("Right: {key}.")
                } else if !known {
                    format!("{x:?} is not one of the options ({}).", self.question.options.join(", "))
                } else {
                    format!("Not {x}: the answer is {key}. {}", self.solution.steps.last().cloned().unwrap_or_default())
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
        if (x - key).abs() <= self.question.tolerance {
            return Verdict { correct: true, mistake: None, message: format!("Right: {}.", format_number(key)) };
        }
        // The usual mistake the value matches: the nearest one within the tolerance (never one
        // that gives the right answer too).
        let matched = self
            .solution
            .mistakes
            .iter()
            .filter(|m| {
                (m.value - x).abs() <= self.question.tolerance && (m.value - key).abs() > self.question.tolerance
            })
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
                    fine(self.question.tolerance),
                    self.solution.mistakes.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join("; ")
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
            question: Question {
                id: "idf".into(),
                prompt: "idf of mars".into(),
                kind: AnswerKind::Number,
                data: serde_json::json!({"N": 4, "df": 1}),
                options: Vec::new(),
                tolerance: 0.005,
            },
            solution: Solution {
                answer: Answer::Number(2.0),
                steps: vec!["idf = log2(4/1) = 2".into()],
                mistakes: vec![
                    Mistake { name: "ln instead of log2".into(), value: 4f64.ln() },
                    Mistake { name: "log10 instead of log2".into(), value: 4f64.log10() },
                ],
            },
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
    fn numbers_are_read_as_people_write_them_and_an_ambiguous_one_is_refused() {
        let n = |s: &str| parse_number(s).unwrap();
        assert_eq!(n("2,9267"), 2.9267);
        assert_eq!(n("1.386"), 1.386);
        assert_eq!(n("1,234.5"), 1234.5);
        assert_eq!(n("1.234,5"), 1234.5);
        assert_eq!(n("1 234,5"), 1234.5);
        assert_eq!(n("12'345"), 12345.0);
        assert_eq!(n("1,234,567"), 1234567.0);
        assert_eq!(n("1.234.567"), 1234567.0);
        assert_eq!(n("0,693"), 0.693, "a leading 0 is no thousands group");
        assert_eq!(n("60%"), 0.6);
        assert_eq!(n("12,5 %"), 0.125);
        assert_eq!(n("3/5"), 0.6);
        assert_eq!(n("−0.25"), -0.25);
        assert_eq!(n("+4"), 4.0);
        assert_eq!(n(".5"), 0.5);
        assert_eq!(n("1e-3"), 0.001);
        // A sign before an exponent, as before any number.
        assert_eq!(n("-1e-3"), -0.001);
        assert_eq!(n("−2.5e2"), -250.0);
        let why = |s: &str| parse_number(s).unwrap_err();
        assert!(why("1,000").contains("reads two ways: 1000 with a thousands comma, or 1.000 with a decimal comma"));
        assert!(why("12,345").contains("reads two ways"));
        assert!(why("1,23,456").contains("unevenly"), "{}", why("1,23,456"));
        // The first group holds one to three digits: not four, not none.
        assert!(why("1234 567").contains("unevenly"), "{}", why("1234 567"));
        assert!(why("'234").contains("unevenly"), "{}", why("'234"));
        assert!(why("1.234,567.8").contains("mixes"), "{}", why("1.234,567.8"));
        // Two kinds of thousands separator before a decimal point of a third kind.
        assert!(why("1 234,567.5").contains("mixes"), "{}", why("1 234,567.5"));
        assert!(why("1/0").contains("divides by zero"));
        // Digits past what a float holds read as infinity, which is no answer.
        assert!(why(&"9".repeat(400)).contains("is not a number"));
        assert!(why(&format!("{},5", "9".repeat(400))).contains("is not a number"));
        // A separator with no digits after it is half a number, not a whole one.
        for bad in ["", "two", "NaN", "inf", "1..2", "1,,2", "--1", "1e400", "%", "/", "1.", "1,", "-5,"] {
            assert!(parse_number(bad).is_err(), "{bad:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]
        /// A number written in any of the usual conventions reads back as itself; text never panics.
        #[test]
        fn a_number_written_any_usual_way_reads_back(
            whole in 0u64..10_000_000, cents in 0u32..10_000, style in 0usize..5, text in "\\PC{0,16}"
        ) {
            let _ = parse_number(&text);
            let frac = format!("{cents:04}");
            let grouped = |sep: &str| {
                let digits = whole.to_string();
                let mut out = String::new();
                for (i, c) in digits.chars().enumerate() {
                    if i > 0 && (digits.len() - i) % 3 == 0 {
                        out.push_str(sep);
                    }
                    out.push(c);
                }
                out
            };
            let written = match style {
                0 => format!("{whole}.{frac}"),
                1 => format!("{}.{frac}", grouped(",")),
                2 => format!("{}, {frac}", grouped(".")).replace(", ", ","),
                3 => format!("{},{frac}", grouped(" ")),
                _ => format!("{}.{frac}", grouped("'")),
            };
            let want: f64 = format!("{whole}.{frac}").parse().unwrap();
            proptest::prop_assert_eq!(parse_number(&written), Ok(want), "{}", written);
        }
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
        let mut c = idf_checkpoint();
        c.question.kind = AnswerKind::Ordering;
        c.solution.answer = Answer::Ordering(vec!["a".into(), "b".into(), "c".into()]);
        assert!(c.check(&Answer::Ordering(vec!["A".into(), "b".into(), "c".into()])).correct);
        let v = c.check(&Answer::Ordering(vec!["a".into(), "c".into(), "b".into()]));
        assert!(!v.correct && v.message.contains("#2"), "{}", v.message);
        let mut choice = idf_checkpoint();
        choice.question.kind = AnswerKind::Choice;
        choice.question.options = vec!["d1".into(), "d2".into()];
        choice.solution.answer = Answer::Choice("d1".into());
        assert!(choice.check(&Answer::Choice(" D1".into())).correct);
        assert!(choice.check(&Answer::Choice("d9".into())).message.contains("not one of the options"));
        assert!(choice.check(&Answer::Number(1.0)).message.contains("one of the options"));
    }

    #[test]
    fn the_nearest_usual_mistake_is_named_and_never_one_the_tolerance_cannot_tell_from_the_key() {
        // Key 10 ± 1; mistakes at 2 and 3; 2.75 is within 1 of both, and 0.25 from 3.
        let with = |mistakes: &[(&str, f64)], key: f64, tolerance: f64| {
            let mut c = idf_checkpoint();
            c.question.tolerance = tolerance;
            c.solution.answer = Answer::Number(key);
            c.solution.mistakes = mistakes.iter().map(|(n, v)| Mistake { name: (*n).into(), value: *v }).collect();
            c
        };
        for order in [[("two", 2.0), ("three", 3.0)], [("three", 3.0), ("two", 2.0)]] {
            let v = with(&order, 10.0, 1.0).check(&Answer::Number(2.75));
            assert_eq!(v.mistake.as_deref(), Some("three"), "{order:?}: {}", v.message);
        }
        // A mistake exactly the tolerance from the key (1.5 against 1 ± 0.5) gives an answer the
        // checker would call right: it is never named, even for a value near it.
        let v = with(&[("edge", 1.5)], 1.0, 0.5).check(&Answer::Number(1.75));
        assert_eq!(v.mistake, None, "{}", v.message);
        assert!(v.message.contains("matches none of the usual mistakes (edge)"), "{}", v.message);
        // One just beyond it is.
        let v = with(&[("beyond", 1.625)], 1.0, 0.5).check(&Answer::Number(1.75));
        assert_eq!(v.mistake.as_deref(), Some("beyond"), "{}", v.message);
    }

    #[test]
    fn a_choice_with_no_list_of_options_takes_any_answer_as_an_attempt() {
        let mut c = idf_checkpoint();
        c.question.kind = AnswerKind::Choice;
        c.solution.answer = Answer::Choice("d1".into());
        let v = c.check(&Answer::Choice("d7".into()));
        assert!(!v.correct && v.message.starts_with("Not d7: the answer is d1."), "{}", v.message);
        assert!(c.check(&Answer::Choice("D1 ".into())).correct);
    }

    #[test]
    fn answers_are_written_as_a_person_writes_them() {
        // Four decimals at most, trailing zeros and a lone point dropped, −0 written 0.
        assert_eq!(Answer::Number(2.0 / 3.0).to_text(), "0.6667");
        assert_eq!(Answer::Number(1.5).to_text(), "1.5");
        assert_eq!(Answer::Number(40.0).to_text(), "40");
        assert_eq!(Answer::Number(-0.00001).to_text(), "0");
        assert_eq!(Answer::Choice("d2".into()).to_text(), "d2");
        assert_eq!(Answer::Ordering(vec!["d2".into(), "d1".into(), "d3".into()]).to_text(), "d2, d1, d3");
        // What is written reads back as the same answer.
        let o = Answer::Ordering(vec!["d2".into(), "d1".into()]);
        assert_eq!(Answer::parse(AnswerKind::Ordering, &o.to_text()), Ok(o));
    }
}
