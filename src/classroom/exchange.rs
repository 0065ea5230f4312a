//! A lesson's checkpoints in the formats the systems teachers use read: a Moodle XML quiz
//! (numerical questions with their tolerance and each usual mistake as a wrong answer with its
//! feedback, multiple choice with the right option, ordering as Moodle's ordering question) and
//! GIFT (the same, but GIFT has no ordering question: those are left out and named in a comment).
//! Each writer has its reader, so a file round-trips: what is read back is the questions, answers,
//! tolerances, options and mistakes that were written.

use std::fmt::Write;

use super::handout::data_html;
use crate::lessons::checkpoint::{Answer, AnswerKind, Checkpoint, Mistake, format_number};
use crate::markup::escape_html as escape;
use crate::{Error, Result};

/// One question as a quiz carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct QuizQuestion {
    /// Its id (the checkpoint's).
    pub id: String,
    /// What kind of answer.
    pub kind: AnswerKind,
    /// The question as HTML: the prompt, its data, the tolerance.
    pub html: String,
    /// The answer.
    pub answer: Answer,
    /// How far a number may be from the answer (numerical questions).
    pub tolerance: f64,
    /// The options, in the order written (choice and ordering questions).
    pub options: Vec<String>,
    /// The usual mistakes, each a wrong answer with its feedback (numerical questions).
    pub mistakes: Vec<Mistake>,
    /// The working, shown after the attempt.
    pub steps: Vec<String>,
}

impl From<&Checkpoint> for QuizQuestion {
    fn from(c: &Checkpoint) -> Self {
        let q = &c.question;
        let mut html = format!("<p>{}</p>", escape(&q.prompt));
        if !q.data.is_null() {
            // One line (a newline between tags is a space in HTML): GIFT keeps a question on its lines.
            html.push_str(&data_html(&q.data).replace('\n', " "));
        }
        let _ = write!(html, "<p><i>{}</i></p>", escape(&q.tolerance_text()));
        // A mistake that gives the right answer too is no mistake to name (the checker skips it).
        let mistakes = match &c.solution.answer {
            Answer::Number(key) => {
                c.solution.mistakes.iter().filter(|m| (m.value - key).abs() > q.tolerance).cloned().collect()
            }
            _ => Vec::new(),
        };
        QuizQuestion {
            id: q.id.clone(),
            kind: q.kind,
            html,
            answer: c.solution.answer.clone(),
            tolerance: q.tolerance,
            options: q.options.clone(),
            mistakes,
            steps: c.solution.steps.clone(),
        }
    }
}

/// A number as both formats write it: the shortest text that reads back as the same f64.
fn number(x: f64) -> String {
    format!("{x}")
}

fn steps_html(steps: &[String]) -> String {
    if steps.is_empty() {
        return String::new();
    }
    let items: String = steps.iter().map(|s| format!("<li>{}</li>", escape(s))).collect();
    format!("<ol>{items}</ol>")
}

/// XML element text: escaped (HTML inside a quiz's text is written escaped, which Moodle reads
/// back as the HTML).
fn text_element(tag: &str, format: Option<&str>, text: &str) -> String {
    match format {
        Some(f) => format!("<{tag} format=\"{f}\"><text>{}</text></{tag}>", escape(text)),
        None => format!("<{tag}><text>{}</text></{tag}>", escape(text)),
    }
}

/// The quiz as Moodle XML, in a category named after the lesson.
/// A quiz's file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuizFormat {
    /// Moodle XML.
    Moodle,
    /// GIFT, Moodle's text format.
    Gift,
}

impl QuizFormat {
    /// By a file's extension: `.xml` is Moodle XML, anything else GIFT.
    pub fn of_path(path: &std::path::Path) -> Self {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("xml")) {
            QuizFormat::Moodle
        } else {
            QuizFormat::Gift
        }
    }
}

/// A lesson's checkpoints as a quiz file; a lesson with none is an error naming it. What `ranklens
/// lesson NAME --format moodle|gift` prints and Lessons → Export quiz… saves.
pub fn quiz(lesson: &crate::lessons::Lesson, format: QuizFormat) -> Result<String> {
    let checkpoints: Vec<Checkpoint> = lesson.checkpoints().cloned().collect();
    if checkpoints.is_empty() {
        return Err(crate::Error::invalid("lesson", format!("the {} lesson has no checkpoints to export", lesson.id)));
    }
    Ok(match format {
        QuizFormat::Moodle => moodle_xml(&lesson.title, &checkpoints),
        QuizFormat::Gift => gift(&lesson.title, &checkpoints),
    })
}

/// The checkpoints as a Moodle XML quiz: one category named after the lesson, each checkpoint a
/// question of the type its answer calls for.
pub fn moodle_xml(title: &str, checkpoints: &[Checkpoint]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<quiz>\n");
    let _ = writeln!(
        out,
        "  <question type=\"category\"><category><text>$course$/RankLens/{}</text></category></question>",
        escape(title)
    );
    for c in checkpoints {
        let q = QuizQuestion::from(c);
        let kind = match q.kind {
            AnswerKind::Number => "numerical",
            AnswerKind::Choice => "multichoice",
            AnswerKind::Ordering => "ordering",
        };
        let _ = writeln!(out, "  <question type=\"{kind}\">");
        let _ = writeln!(out, "    {}", text_element("name", None, &q.id));
        let _ = writeln!(out, "    {}", text_element("questiontext", Some("html"), &q.html));
        let _ = writeln!(out, "    {}", text_element("generalfeedback", Some("html"), &steps_html(&q.steps)));
        let _ = writeln!(
            out,
            "    <defaultgrade>1</defaultgrade>\n    <penalty>0</penalty>\n    <hidden>0</hidden>\n    <idnumber>{}</idnumber>",
            escape(&q.id)
        );
        match &q.answer {
            Answer::Number(key) => {
                let answer = |fraction: u32, value: f64, feedback: &str| {
                    format!(
                        "    <answer fraction=\"{fraction}\" format=\"moodle_auto_format\"><text>{}</text>{}<tolerance>{}</tolerance></answer>\n",
                        number(value),
                        text_element("feedback", Some("html"), feedback),
                        number(q.tolerance)
                    )
                };
                out.push_str(&answer(100, *key, &format!("Right: {}.", format_number(*key))));
                for m in &q.mistakes {
                    let fb = format!("That is what you get with {}; the answer is {}.", m.name, format_number(*key));
                    out.push_str(&answer(0, m.value, &fb));
                }
                out.push_str(
                    "    <unitgradingtype>0</unitgradingtype>\n    <unitpenalty>0</unitpenalty>\n    <showunits>3</showunits>\n    <unitsleft>0</unitsleft>\n",
                );
            }
            Answer::Choice(right) => {
                out.push_str(
                    "    <single>true</single>\n    <shuffleanswers>true</shuffleanswers>\n    <answernumbering>abc</answernumbering>\n",
                );
                let options = if q.options.is_empty() { vec![right.clone()] } else { q.options.clone() };
                for o in &options {
                    let ok = o.trim().eq_ignore_ascii_case(right.trim());
                    let fb = if ok { "Right.".to_string() } else { format!("Not {o}: the answer is {right}.") };
                    let _ = writeln!(
                        out,
                        "    <answer fraction=\"{}\" format=\"html\"><text>{}</text>{}</answer>",
                        if ok { 100 } else { 0 },
                        escape(o),
                        text_element("feedback", Some("html"), &fb)
                    );
                }
            }
            Answer::Ordering(order) => {
                out.push_str(
                    "    <layouttype>VERTICAL</layouttype>\n    <selecttype>ALL</selecttype>\n    <selectcount>0</selectcount>\n    <gradingtype>ABSOLUTE_POSITION</gradingtype>\n    <showgrading>SHOW</showgrading>\n    <numberingstyle>none</numberingstyle>\n",
                );
                for (i, o) in order.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "    <answer fraction=\"{}\" format=\"moodle_auto_format\"><text>{}</text></answer>",
                        i + 1,
                        escape(o)
                    );
                }
            }
        }
        out.push_str("  </question>\n");
    }
    out.push_str("</quiz>\n");
    out
}

/// Text with GIFT's special characters escaped (`~ = # { } :` and the backslash).
fn gift_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '~' | '=' | '#' | '{' | '}' | ':' | '\\') {
            out.push('\\');
        }
        out.push(if c == '\n' { ' ' } else { c });
    }
    out
}

/// The quiz as GIFT. Ordering questions, which GIFT cannot carry, are named in a comment.
pub fn gift(title: &str, checkpoints: &[Checkpoint]) -> String {
    let mut out = format!("// RankLens: {title}\n$CATEGORY: $course$/RankLens/{title}\n\n");
    for c in checkpoints {
        let q = QuizQuestion::from(c);
        let head = format!("::{}::[html]{}", gift_escape(&q.id), gift_escape(&q.html));
        match &q.answer {
            Answer::Number(key) => {
                let _ = write!(
                    out,
                    "{head}{{#\n\t={}:{}#{}\n",
                    number(*key),
                    number(q.tolerance),
                    gift_escape(&format!("Right: {}.", format_number(*key)))
                );
                for m in &q.mistakes {
                    let fb = format!("That is what you get with {}; the answer is {}.", m.name, format_number(*key));
                    let _ = writeln!(out, "\t=%0%{}:{}#{}", number(m.value), number(q.tolerance), gift_escape(&fb));
                }
                out.push_str("}\n\n");
            }
            Answer::Choice(right) => {
                let _ = writeln!(out, "{head}{{");
                let options = if q.options.is_empty() { vec![right.clone()] } else { q.options.clone() };
                for o in &options {
                    let ok = o.trim().eq_ignore_ascii_case(right.trim());
                    let _ = writeln!(out, "\t{}{}", if ok { '=' } else { '~' }, gift_escape(o));
                }
                out.push_str("}\n\n");
            }
            Answer::Ordering(_) => {
                let _ = writeln!(
                    out,
                    "// {} asks for an ordering, which GIFT cannot carry: use the Moodle XML file for it.\n",
                    q.id
                );
            }
        }
    }
    out
}

/// Undo [`gift_escape`].
fn gift_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Split at the first `sep` that is not escaped.
fn split_unescaped(s: &str, sep: char) -> Option<(&str, &str)> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == sep {
            return Some((&s[..i], &s[i + c.len_utf8()..]));
        }
    }
    None
}

/// Read a number written by [`number`], or as GIFT allows.
fn read_number(s: &str, at: &str) -> Result<f64> {
    s.trim().parse::<f64>().map_err(|_| Error::invalid(at, format!("{:?} is not a number", s.trim())))
}

/// Read a GIFT file of numerical and multiple-choice questions (as [`gift`] writes them, and as
/// people write them by hand: one question per blank-line-separated block, comments with `//`).
/// Each question's place is named by its line in `source`.
pub fn read_gift(text: &str, source: &str) -> Result<Vec<QuizQuestion>> {
    let mut out = Vec::new();
    let mut block = String::new();
    let mut start = 0;
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().chain(std::iter::once(&"")).enumerate() {
        let t = line.trim();
        if t.is_empty() {
            if !block.trim().is_empty() {
                out.push(read_gift_question(&block, &format!("{source}:{}", start + 1))?);
            }
            block.clear();
            continue;
        }
        if t.starts_with("//") || t.starts_with("$CATEGORY") {
            continue;
        }
        if block.is_empty() {
            start = i;
        }
        block.push_str(line);
        block.push('\n');
    }
    Ok(out)
}

fn read_gift_question(block: &str, at: &str) -> Result<QuizQuestion> {
    let bad = |why: &str| Error::invalid(at, why.to_string());
    let rest = block.trim().strip_prefix("::").ok_or_else(|| bad("a question starts with ::its name::"))?;
    let (id, rest) = split_unescaped(rest, ':').ok_or_else(|| bad("the name is not closed by ::"))?;
    let rest = rest.strip_prefix(':').ok_or_else(|| bad("the name is not closed by ::"))?;
    let (text, answers) = split_unescaped(rest, '{').ok_or_else(|| bad("no {answers} after the question"))?;
    let answers = answers.trim_end();
    let answers = answers.strip_suffix('}').ok_or_else(|| bad("the answers are not closed by }"))?;
    let html = gift_unescape(text.trim().strip_prefix("[html]").unwrap_or(text.trim()));
    let mut q = QuizQuestion {
        id: gift_unescape(id),
        kind: AnswerKind::Choice,
        html,
        answer: Answer::Choice(String::new()),
        tolerance: 0.0,
        options: Vec::new(),
        mistakes: Vec::new(),
        steps: Vec::new(),
    };
    // Each answer starts at an unescaped `=` or `~` (a numerical one after the leading `#`).
    let numerical = answers.trim_start().starts_with('#');
    let body = if numerical { answers.trim_start()[1..].to_string() } else { answers.to_string() };
    let mut items: Vec<(char, String)> = Vec::new();
    let mut escaped = false;
    for c in body.chars() {
        if escaped {
            if let Some((_, s)) = items.last_mut() {
                s.push('\\');
                s.push(c);
            }
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '=' | '~' => items.push((c, String::new())),
            c => {
                if let Some((_, s)) = items.last_mut() {
                    s.push(c);
                }
            }
        }
    }
    if numerical && items.is_empty() && !body.trim().is_empty() {
        // `{#4:0}`: one answer, written without its `=`.
        items.push(('=', body.trim().to_string()));
    }
    let mut right: Option<String> = None;
    for (mark, item) in items {
        let (value, feedback) = match split_unescaped(&item, '#') {
            Some((v, f)) => (v.trim().to_string(), gift_unescape(f.trim())),
            None => (item.trim().to_string(), String::new()),
        };
        if numerical {
            q.kind = AnswerKind::Number;
            let (credit, value) = match value.strip_prefix('%').and_then(|v| v.split_once('%')) {
                Some((credit, v)) => (credit.trim().parse::<f64>().map_err(|_| bad("a credit is not a number"))?, v),
                None => (100.0, value.as_str()),
            };
            let (x, tolerance) = match value.split_once(':') {
                Some((x, t)) => (read_number(x, at)?, read_number(t, at)?),
                None => (read_number(value, at)?, 0.0),
            };
            if credit >= 100.0 {
                q.answer = Answer::Number(x);
                q.tolerance = tolerance;
            } else {
                let name = feedback
                    .strip_prefix("That is what you get with ")
                    .and_then(|f| f.split_once("; the answer is"))
                    .map_or(feedback.clone(), |(n, _)| n.to_string());
                q.mistakes.push(Mistake { name, value: x });
            }
        } else {
            let option = gift_unescape(&value);
            if mark == '=' {
                right = Some(option.clone());
            }
            q.options.push(option);
        }
    }
    if numerical {
        if !matches!(q.answer, Answer::Number(_)) {
            return Err(bad("a numerical question has no answer with full credit"));
        }
    } else {
        q.answer = Answer::Choice(right.ok_or_else(|| bad("no option is marked right with ="))?);
    }
    Ok(q)
}

/// Read a Moodle XML quiz's numerical, multiple-choice and ordering questions. Others are
/// skipped; a question that cannot be read is an error naming it.
pub fn read_moodle_xml(text: &str, source: &str) -> Result<Vec<QuizQuestion>> {
    let doc = roxmltree::Document::parse(text).map_err(|e| Error::invalid(source, format!("not XML: {e}")))?;
    fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, tag: &str) -> Option<roxmltree::Node<'a, 'i>> {
        n.children().find(|c| c.has_tag_name(tag))
    }
    fn text_of(n: Option<roxmltree::Node>) -> String {
        n.and_then(|n| child(n, "text")).and_then(|t| t.text()).unwrap_or_default().to_string()
    }
    let mut out = Vec::new();
    for q in doc.descendants().filter(|n| n.has_tag_name("question")) {
        let kind = match q.attribute("type") {
            Some("numerical") => AnswerKind::Number,
            Some("multichoice") => AnswerKind::Choice,
            Some("ordering") => AnswerKind::Ordering,
            _ => continue,
        };
        let id = text_of(child(q, "name"));
        let at = format!("{source}: question {id:?}");
        let bad = |why: &str| Error::invalid(&at, why.to_string());
        let mut question = QuizQuestion {
            id: id.clone(),
            kind,
            html: text_of(child(q, "questiontext")),
            answer: Answer::Choice(String::new()),
            tolerance: 0.0,
            options: Vec::new(),
            mistakes: Vec::new(),
            steps: Vec::new(),
        };
        let mut ordering: Vec<(f64, String)> = Vec::new();
        for a in q.children().filter(|c| c.has_tag_name("answer")) {
            let fraction: f64 =
                a.attribute("fraction").unwrap_or("0").parse().map_err(|_| bad("a fraction is not a number"))?;
            let value = text_of(Some(a));
            match kind {
                AnswerKind::Number => {
                    let x = read_number(&value, &at)?;
                    let tolerance =
                        child(a, "tolerance").and_then(|t| t.text()).map_or(Ok(0.0), |t| read_number(t, &at))?;
                    if fraction >= 100.0 {
                        question.answer = Answer::Number(x);
                        question.tolerance = tolerance;
                    } else {
                        let fb = text_of(child(a, "feedback"));
                        let name = fb
                            .strip_prefix("That is what you get with ")
                            .and_then(|f| f.split_once("; the answer is"))
                            .map_or(fb.clone(), |(n, _)| n.to_string());
                        question.mistakes.push(Mistake { name, value: x });
                    }
                }
                AnswerKind::Choice => {
                    if fraction >= 100.0 {
                        question.answer = Answer::Choice(value.clone());
                    }
                    question.options.push(value);
                }
                AnswerKind::Ordering => ordering.push((fraction, value)),
            }
        }
        match kind {
            AnswerKind::Number if !matches!(question.answer, Answer::Number(_)) => {
                return Err(bad("no answer with fraction 100"));
            }
            AnswerKind::Choice if question.answer == Answer::Choice(String::new()) => {
                return Err(bad("no option with fraction 100"));
            }
            AnswerKind::Ordering => {
                question.options = ordering.iter().map(|(_, v)| v.clone()).collect();
                ordering.sort_by(|a, b| a.0.total_cmp(&b.0));
                question.answer = Answer::Ordering(ordering.into_iter().map(|(_, v)| v).collect());
            }
            _ => {}
        }
        out.push(question);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::checkpoint::{Question, Solution};

    fn checkpoints() -> Vec<Checkpoint> {
        let number = Checkpoint {
            question: Question {
                id: "idf".into(),
                prompt: "idf of {mars}: log2(N/df) = ?".into(),
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
                    Mistake { name: "no mistake at all".into(), value: 2.001 },
                ],
            },
        };
        let choice = Checkpoint {
            question: Question {
                id: "first".into(),
                prompt: "Which passage does BM25 put first? (a ~ b = c # d)".into(),
                kind: AnswerKind::Choice,
                data: serde_json::Value::Null,
                options: vec!["d1".into(), "d2 & co".into(), "d3".into()],
                tolerance: 0.0,
            },
            solution: Solution { answer: Answer::Choice("d2 & co".into()), steps: vec![], mistakes: vec![] },
        };
        let order = Checkpoint {
            question: Question {
                id: "postings".into(),
                prompt: "Order the postings".into(),
                kind: AnswerKind::Ordering,
                data: serde_json::Value::Null,
                options: vec!["d3".into(), "d1".into(), "d2".into()],
                tolerance: 0.0,
            },
            solution: Solution {
                answer: Answer::Ordering(vec!["d1".into(), "d2".into(), "d3".into()]),
                steps: vec![],
                mistakes: vec![],
            },
        };
        vec![number, choice, order]
    }

    #[test]
    fn a_moodle_quiz_reads_back_with_its_answers_tolerances_and_mistakes() {
        let xml = moodle_xml("BM25 <lesson>", &checkpoints());
        let back = read_moodle_xml(&xml, "quiz.xml").unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(
            (back[0].kind, &back[0].answer, back[0].tolerance),
            (AnswerKind::Number, &Answer::Number(2.0), 0.005)
        );
        // The mistake that gives the right answer too is left out; ln 4 is kept, bit for bit.
        assert_eq!(back[0].mistakes, [Mistake { name: "ln instead of log2".into(), value: 4f64.ln() }]);
        assert!(back[0].html.contains("<td>4</td>"), "{}", back[0].html);
        assert_eq!(back[1].answer, Answer::Choice("d2 & co".into()));
        assert_eq!(back[1].options, ["d1", "d2 & co", "d3"]);
        assert_eq!(back[2].answer, Answer::Ordering(vec!["d1".into(), "d2".into(), "d3".into()]));
        assert!(xml.contains("<tolerance>0.005</tolerance>") && xml.contains("<answer fraction=\"100\""));
        assert!(xml.contains("$course$/RankLens/BM25 &lt;lesson&gt;"));
    }

    #[test]
    fn a_gift_file_reads_back_and_names_what_it_cannot_carry() {
        let text = gift("BM25", &checkpoints());
        let back = read_gift(&text, "quiz.gift").unwrap();
        assert_eq!(back.len(), 2, "{text}");
        let want: Vec<QuizQuestion> = checkpoints()[..2].iter().map(QuizQuestion::from).collect();
        for (b, w) in back.iter().zip(&want) {
            assert_eq!(
                (&b.id, b.kind, &b.answer, b.tolerance, &b.options, &b.mistakes),
                (&w.id, w.kind, &w.answer, w.tolerance, &w.options, &w.mistakes)
            );
            assert_eq!(b.html, w.html, "the question's text survives its escapes");
        }
        assert!(text.contains("// postings asks for an ordering, which GIFT cannot carry"));
        // Written by hand, as the GIFT documentation shows it.
        let hand =
            read_gift("// a comment\n::Q1:: What is 2 + 2? {#4:0}\n\n::Q2::Pick one {~a =b ~c}\n", "h.gift").unwrap();
        assert_eq!((hand[0].answer.clone(), hand[0].tolerance), (Answer::Number(4.0), 0.0));
        assert_eq!(hand[1].answer, Answer::Choice("b".into()));
        let e = read_gift("::Q:: no answers\n", "bad.gift").unwrap_err().to_string();
        assert!(e.contains("bad.gift:1") && e.contains("no {answers}"), "{e}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]
        /// Any text and any numbers survive a round trip through both formats; any input to the
        /// readers is an error or questions, never a panic.
        #[test]
        fn any_question_round_trips_and_no_input_panics(
            id in "[a-z0-9_-]{1,12}", prompt in "\\PC{0,60}", option in "\\PC{1,20}", key in -1e6f64..1e6,
            tolerance in 0f64..10.0, junk in "\\PC{0,200}"
        ) {
            // Junk is questions or an error naming its file; a question read has an id.
            for (read, file) in [(read_gift(&junk, "j.gift"), "j.gift"), (read_moodle_xml(&junk, "j.xml"), "j.xml")] {
                match read {
                    Ok(qs) => proptest::prop_assert!(qs.iter().all(|q| !q.id.is_empty()), "{:?}", qs),
                    Err(e) => proptest::prop_assert!(e.to_string().contains(file), "{}", e),
                }
            }
            let mut c = checkpoints();
            c[0].question.id = id.clone();
            c[0].question.prompt = prompt.clone();
            c[0].solution.answer = Answer::Number(key);
            c[0].question.tolerance = tolerance;
            c[0].solution.mistakes = vec![Mistake { name: "a slip".into(), value: key + tolerance + 1.0 }];
            let opt = option.trim().to_string();
            proptest::prop_assume!(!opt.is_empty() && !opt.eq_ignore_ascii_case("d1") && !opt.eq_ignore_ascii_case("d3"));
            c[1].question.options[1] = opt.clone();
            c[1].solution.answer = Answer::Choice(opt.clone());
            for back in [read_gift(&gift("t", &c), "t.gift").unwrap(), read_moodle_xml(&moodle_xml("t", &c), "t.xml").unwrap()] {
                proptest::prop_assert_eq!(&back[0].id, &id);
                proptest::prop_assert_eq!(&back[0].answer, &Answer::Number(key));
                proptest::prop_assert_eq!(back[0].tolerance, tolerance);
                proptest::prop_assert_eq!(back[0].mistakes[0].value, key + tolerance + 1.0);
                proptest::prop_assert_eq!(&back[1].answer, &Answer::Choice(opt.clone()));
            }
        }
    }
}
