//! Global search (Edge et al. 2024): the question put to every summarised community (map: what
//! in the summary helps, with a score from 0 to 100), then the most helpful notes put together
//! into one answer (reduce). For questions about the whole corpus ("what are the main themes?")
//! that no single passage answers. Every note keeps its community, and the answer cites notes.

use serde::{Deserialize, Serialize};

use super::graph::ModelGraph;
use crate::Result;
use crate::generate::{Generator, prompts};
use crate::progress::{Progress, check_cancel};

/// Communities asked at most (the largest with a summary).
pub const MAX_MAP: usize = 8;

/// One community's note for the question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapNote {
    /// The community.
    pub community: usize,
    /// What the model said helps.
    pub text: String,
    /// Its score, 0–100 (0 when the model gave none it could read).
    pub score: u32,
    /// Whether a `Score:` line was read.
    pub scored: bool,
}

/// A global answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GlobalAnswer {
    /// The question.
    pub question: String,
    /// Every community's note, most helpful first.
    pub notes: Vec<MapNote>,
    /// The answer from the notes scored above 0 (empty when none was).
    pub answer: String,
    /// The notes the answer was written from, in the order numbered in its prompt.
    pub used: Vec<usize>,
    /// Seconds in all.
    pub seconds: f64,
}

/// Read a map reply: its text without the score line, and the score (the last `Score: N`, held to
/// 0–100).
pub fn read_note(reply: &str) -> (String, Option<u32>) {
    let mut score = None;
    let mut lines = Vec::new();
    for line in reply.lines() {
        let lower = line.trim().to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("score:").or_else(|| lower.strip_prefix("**score:**")) {
            let digits: String = rest.trim().chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse::<u64>() {
                score = Some(n.min(100) as u32);
                continue;
            }
        }
        lines.push(line.trim());
    }
    (lines.join(" ").split_whitespace().collect::<Vec<_>>().join(" "), score)
}

/// Answer `question` from `graph`'s community summaries.
pub fn global_answer(
    generator: &dyn Generator,
    graph: &ModelGraph,
    question: &str,
    progress: &dyn Progress,
) -> Result<GlobalAnswer> {
    let started = std::time::Instant::now();
    let summarised: Vec<_> = graph.data().communities.iter().filter(|c| c.summary.is_some()).take(MAX_MAP).collect();
    progress.stage("global search: asking each community", summarised.len() as u64 + 1);
    let mut notes = Vec::new();
    for c in summarised {
        check_cancel(progress)?;
        let summary = c.summary.as_deref().unwrap_or_default();
        let request = prompts::GLOBAL_MAP.request(&[("summary", summary), ("question", question.trim())]);
        let reply = generator.chat(&request, &mut |_| {}, progress)?.text;
        let (text, score) = read_note(&reply);
        notes.push(MapNote { community: c.id, text, score: score.unwrap_or(0), scored: score.is_some() });
        progress.advance(1);
    }
    notes.sort_by(|a, b| b.score.cmp(&a.score).then(a.community.cmp(&b.community)));
    let helpful: Vec<&MapNote> = notes.iter().filter(|n| n.score > 0 && !n.text.is_empty()).collect();
    let (answer, used) = if helpful.is_empty() {
        (String::new(), Vec::new())
    } else {
        let points: String = helpful.iter().enumerate().map(|(i, n)| format!("[{}] {}\n", i + 1, n.text)).collect();
        let request = prompts::GLOBAL_REDUCE.request(&[("points", &points), ("question", question.trim())]);
        let text = generator.chat(&request, &mut |_| {}, progress)?.text;
        (text.trim().to_string(), helpful.iter().map(|n| n.community).collect())
    };
    progress.advance(1);
    Ok(GlobalAnswer { question: question.trim().into(), notes, answer, used, seconds: started.elapsed().as_secs_f64() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_reads_its_last_score_held_to_100() {
        assert_eq!(read_note("E104 is a token error.\nScore: 80"), ("E104 is a token error.".into(), Some(80)));
        assert_eq!(read_note("Nothing here.\n**Score:** 0"), ("Nothing here.".into(), Some(0)));
        assert_eq!(read_note("Score: 30\nmore\nscore: 250"), ("more".into(), Some(100)));
        assert_eq!(read_note("No score at all"), ("No score at all".into(), None));
        assert_eq!(read_note("Score: high"), ("Score: high".into(), None));
    }
}
