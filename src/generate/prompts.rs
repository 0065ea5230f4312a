//! Every prompt RankLens sends a language model, as data: the system message, the worked examples
//! given as earlier turns (small models follow an example far better than an instruction alone),
//! the template of the last turn with its `{placeholders}`, and the most tokens the answer may
//! take. The tasks fill them in (`tasks.rs` and the model's methods); the Models view lists them
//! all, so what the model is asked is never hidden in code.

use super::{ChatRequest, Message};

/// One task's prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prompt {
    /// What it asks for (`rewrite`, `judge`), as the views name it.
    pub task: &'static str,
    /// The system message.
    pub system: &'static str,
    /// Worked examples, each a user turn (the template filled in) and the model's answer.
    pub examples: &'static [(&'static str, &'static str)],
    /// The last user turn, with `{name}` where each value goes.
    pub template: &'static str,
    /// At most this many tokens of answer.
    pub max_tokens: usize,
}

impl Prompt {
    /// The template with each `{name}` replaced by its value (values are inserted as they are:
    /// a value holding `{x}` stays as written).
    pub fn fill(&self, values: &[(&str, &str)]) -> String {
        fill(self.template, values)
    }

    /// The request: the system message, the examples as earlier turns, then the template filled
    /// with `values`; at temperature 0.
    pub fn request(&self, values: &[(&str, &str)]) -> ChatRequest {
        let mut messages = vec![Message::system(self.system)];
        for (user, assistant) in self.examples {
            messages.push(Message::user(*user));
            messages.push(Message::assistant(*assistant));
        }
        messages.push(Message::user(self.fill(values)));
        ChatRequest::new(messages, self.max_tokens)
    }

    /// A short hash of everything it sends besides the values (system, examples, template): what
    /// a cache of the model's answers is keyed by, so editing the prompt invalidates them.
    pub fn hash(&self) -> String {
        let mut text = format!("{}\u{1f}{}", self.system, self.template);
        for (u, a) in self.examples {
            text.push_str(&format!("\u{1f}{u}\u{1f}{a}"));
        }
        crate::models::text_hash(&text)[..16].to_string()
    }

    /// The placeholders its template names, in order of first appearance.
    pub fn placeholders(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        let mut rest = self.template;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else { break };
            let name = &after[..close];
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !out.contains(&name) {
                out.push(name);
            }
            rest = &after[close + 1..];
        }
        out
    }
}

/// `template` with each `{name}` replaced by its value, in one pass: a value is never read again
/// for placeholders (a passage that holds `{question}` stays as written).
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            values.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v, close))
        });
        match value {
            Some((v, close)) => {
                out.push_str(v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A question rewritten as a keyword query.
pub const REWRITE: Prompt = Prompt {
    task: "rewrite",
    system: "You turn questions into short keyword search queries, in the words a document that answers them would \
             use (names, technical terms, synonyms). Reply with the query only, on one line.",
    examples: &[("why does my phone screen keep getting darker?", "automatic brightness dimming display settings")],
    template: "{question}",
    max_tokens: 48,
};

/// A hypothetical answer to search with (HyDE).
pub const HYDE: Prompt = Prompt {
    task: "draft",
    system: "You write short reference passages.",
    examples: &[],
    template: "Write a short passage, two or three sentences, that answers the question below the way an \
               encyclopedia or a manual would.\n\nQuestion: {question}",
    max_tokens: 128,
};

/// The reader's answer from numbered passages, citing them.
pub const RAG: Prompt = Prompt {
    task: "answer",
    system: "You answer questions only from the passages you are given, and cite them by number.",
    examples: &[],
    template: "Answer the question using only the numbered passages below. Cite every claim with the passage number \
               in brackets, like [2]. If the passages do not contain the answer, say that you cannot answer from \
               them.\n\n{passages}Question: {question}\nAnswer:",
    max_tokens: 256,
};

/// The same question answered from what the model knows, with no passages (closed book).
pub const CLOSED_BOOK: Prompt = Prompt {
    task: "closed-book answer",
    system: "You answer questions briefly from what you know.",
    examples: &[],
    template: "Answer the question in two or three sentences.\n\nQuestion: {question}\nAnswer:",
    max_tokens: 160,
};

/// The judge's default prompt (the app and `ranklens judge` let it be edited).
pub const JUDGE: Prompt = Prompt {
    task: "judge",
    system: "You judge whether a passage is relevant to a search question.",
    examples: &[
        (
            "Question: How long does a passport renewal take?\n\nPassage: Passport renewals are processed in six to \
             eight weeks; expedited service takes two to three weeks.\n\nDoes the passage answer the question or give \
             information that helps answer it? Reply with one word: yes or no.",
            "yes",
        ),
        (
            "Question: How long does a passport renewal take?\n\nPassage: The city library opens at nine on weekdays \
             and at ten on Saturdays.\n\nDoes the passage answer the question or give information that helps answer \
             it? Reply with one word: yes or no.",
            "no",
        ),
    ],
    template: "Question: {question}\n\nPassage: {passage}\n\nDoes the passage answer the question or give \
               information that helps answer it? Reply with one word: yes or no.",
    max_tokens: 3,
};

/// The worked examples of the judge's prompt as (question, passage, answer): an edited template is
/// filled with them too, so the examples always read as the template asks.
pub const JUDGE_EXAMPLES: [(&str, &str, &str); 2] = [
    (
        "How long does a passport renewal take?",
        "Passport renewals are processed in six to eight weeks; expedited service takes two to three weeks.",
        "yes",
    ),
    (
        "How long does a passport renewal take?",
        "The city library opens at nine on weekdays and at ten on Saturdays.",
        "no",
    ),
];

/// A window of passages put in order (RankGPT's prompt, Sun et al. 2023): numbered passages, then
/// the order as `[2] > [1] > …`.
pub const LISTWISE: Prompt = Prompt {
    task: "listwise order",
    system: "You are RankGPT, an intelligent assistant that can rank passages based on their relevancy to the query.",
    examples: &[],
    template: "I will provide you with {n} passages, each indicated by a number identifier []. Rank the passages based \
               on their relevance to the search query: {question}\n\n{passages}Search Query: {question}\nRank the {n} \
               passages above based on their relevance to the search query. The passages should be listed in \
               descending order using identifiers. The most relevant passages should be listed first. The output \
               format should be [] > [], e.g., [1] > [2]. Only respond with the ranking results, do not say any word \
               or explain.",
    // About five tokens per identifier (`[12] > `), for the largest window (set per request).
    max_tokens: 110,
};

/// Words of each passage a listwise window shows (RankGPT cuts at 300 tokens; a small model's
/// context holds twenty of these with room to answer).
pub const LISTWISE_WORDS: usize = 80;

/// What answering a question needs, written before searching (reasoning expansion, after BRIGHT,
/// Su et al. 2024).
pub const REASON: Prompt = Prompt {
    task: "reasoning",
    system: "You think about what a question needs before anyone searches for it.",
    examples: &[],
    template: "Before searching, write what a good answer to this question needs: the concepts, facts, terms and \
               kinds of evidence a relevant document would contain. Three or four sentences, no answer.\n\n\
               Question: {question}",
    max_tokens: 160,
};

/// One SQLite statement written for a question from the tables' schema and example rows.
pub const TEXT_TO_SQL: Prompt = Prompt {
    task: "text to SQL",
    system: "You write one SQLite SELECT statement that answers a question from the tables described. Select only \
             what the question asks for: for \"which …\" the column that names each row, for \"how many\" a COUNT. \
             Compare with the values a column holds; find a word in free text with LIKE '%word%'. Reply with the \
             statement only, on one line, ending with a semicolon.",
    examples: &[(
        "Tables:\nbooks(title TEXT, author TEXT, year INTEGER, pages INTEGER)\nExample rows of books:\n  title=Emma | \
         author=Jane Austen | year=1815 | pages=474\n\nQuestion: which books by Jane Austen have more than 400 \
         pages?\nSQL:",
        "SELECT title FROM books WHERE author = 'Jane Austen' AND pages > 400;",
    )],
    template: "Tables:\n{schema}\n\nQuestion: {question}\nSQL:",
    max_tokens: 160,
};

/// The agent's instructions when it calls tools in words (the embedded model): each turn a thought
/// and one action with its input, or the answer. `{tools}` lists the tools, one per line.
pub const AGENT: Prompt = Prompt {
    task: "agent",
    system: "You answer questions about a document collection by searching it with tools, then answering from the \
             passages you read.\nTools:\n{tools}\nEach turn, write either\nThought: what you need next\nAction: \
             the tool's name\nInput: what to give it\nor, once the passages answer the question,\nAnswer: the \
             answer, citing the passages by number like [2].",
    examples: &[
        (
            "Question: When did the library start opening until nine?",
            "Thought: I need passages about the library's opening hours.\nAction: bm25\nInput: library opening hours \
             nine",
        ),
        (
            "Observation:\n[1] (hours-2) Since March 2021 the library opens until nine on weekdays.\n[2] (hours-1) \
             The library is closed on public holidays.",
            "Answer: The library has opened until nine on weekdays since March 2021 [1].",
        ),
    ],
    template: "Question: {question}",
    max_tokens: 120,
};

/// The agent's instruction when it is offered the chat API's tools (a server).
pub const AGENT_TOOLS: Prompt = Prompt {
    task: "agent (tools)",
    system: "You answer questions about a document collection. Call the search tools to find passages; each result \
             is numbered like [3]. When the passages you read answer the question, reply with the answer in plain \
             text, citing the passages by number like [3]. Do not answer from memory.",
    examples: &[],
    template: "{question}",
    max_tokens: 200,
};

/// The agent's nudge when a model offered tools called none and wrote nothing.
pub const AGENT_NUDGE_TOOLS: &str = "Call a tool, or answer citing passages like [2].";

/// The agent's nudge when a reply in the text protocol holds neither an action nor an answer.
pub const AGENT_NUDGE_TEXT: &str = "Write `Action:` and `Input:` lines to search, or `Answer:` to answer.";

/// Appended to the last word when the reply must begin with the answer.
pub const AGENT_START_WITH_ANSWER: &str = "Start with `Answer:`.";

/// What the agent is told when its rounds or tokens are spent.
pub const AGENT_LAST_WORD: &str = "You have used every search you may. Answer the question now from the passages \
                                   read so far, citing them by number like [2]; if they do not answer it, say so.";

/// Entities and relations read from one passage into a JSON schema (GraphRAG's extraction).
pub const EXTRACT: Prompt = Prompt {
    task: "graph extraction",
    system: "You extract the entities a passage names and the relations it states between them, as JSON: \
             {\"entities\": [{\"name\": …, \"type\": …}], \"relations\": [{\"source\": …, \"relation\": …, \
             \"target\": …}]}. Use the passage's own names. Reply with the JSON only.",
    // The worked example is about nothing a bundled corpus holds, so no fact of it can leak into a
    // graph as if the passage had said it.
    examples: &[(
        "Passage: The Hubble Space Telescope was carried into orbit by the space shuttle Discovery in 1990. NASA \
         operates it with the European Space Agency.\nJSON:",
        "{\"entities\": [{\"name\": \"Hubble Space Telescope\", \"type\": \"telescope\"}, {\"name\": \"Discovery\", \
         \"type\": \"spacecraft\"}, {\"name\": \"1990\", \"type\": \"date\"}, {\"name\": \"NASA\", \"type\": \
         \"organization\"}, {\"name\": \"European Space Agency\", \"type\": \"organization\"}], \"relations\": \
         [{\"source\": \"Discovery\", \"relation\": \"carried_into_orbit\", \"target\": \"Hubble Space Telescope\"}, \
         {\"source\": \"Hubble Space Telescope\", \"relation\": \"launched_in\", \"target\": \"1990\"}, {\"source\": \
         \"NASA\", \"relation\": \"operates\", \"target\": \"Hubble Space Telescope\"}, {\"source\": \"European Space \
         Agency\", \"relation\": \"operates\", \"target\": \"Hubble Space Telescope\"}]}",
    )],
    template: "Passage: {passage}\nJSON:",
    // Ten entities and ten relations, held to the schema, fit.
    max_tokens: 420,
};

/// A community of the extracted graph summarised from its entities and relations.
pub const COMMUNITY: Prompt = Prompt {
    task: "community summary",
    system: "You summarise a group of related entities from a document collection in two or three sentences, \
             saying what they are and how they relate. Use only the facts given.",
    examples: &[],
    template: "Entities: {entities}\nRelations:\n{relations}\n\nSummary:",
    max_tokens: 120,
};

/// Global search's map step: what one community's summary says about the question, with a score.
pub const GLOBAL_MAP: Prompt = Prompt {
    task: "global search (map)",
    system: "You read a summary of part of a document collection and say what in it helps answer a question.",
    examples: &[],
    template: "Summary: {summary}\n\nQuestion: {question}\n\nWrite the points of the summary that help answer the \
               question, in one or two sentences, then on the last line `Score: N` where N from 0 to 100 says how \
               much they help (0 if the summary is unrelated).",
    max_tokens: 120,
};

/// Global search's reduce step: the answer from the best points of the map step.
pub const GLOBAL_REDUCE: Prompt = Prompt {
    task: "global search (reduce)",
    system: "You answer a question about a whole document collection from notes on its parts.",
    examples: &[],
    template: "Notes, most helpful first:\n{points}\nQuestion: {question}\n\nAnswer in three or four sentences \
               from the notes, citing them by number like [2].",
    max_tokens: 200,
};

/// The extractive reader's question to a language model: one passage, one question, and a reply
/// that is a span of the passage copied word for word, or `no answer`. The embedded model is held
/// to a span while it writes (and its `no answer` is scored apart); a server's reply is checked.
pub const READ: Prompt = Prompt {
    task: "read",
    system: "You answer questions by copying the shortest part of the passage that answers them, word for word. \
             If the passage does not answer the question, reply: no answer",
    examples: &[
        (
            "Passage: Wolfgang Amadeus Mozart was born in Salzburg in 1756, the son of the violinist Leopold \
             Mozart.\n\nQuestion: In which year was Mozart born?",
            "1756",
        ),
        ("Passage: The library opens at nine and closes at six.\n\nQuestion: Who built the library?", "no answer"),
    ],
    template: "Passage: {passage}\n\nQuestion: {question}",
    max_tokens: 40,
};

/// What the reader replies when the passage does not answer ([`READ`]).
pub const NO_ANSWER: &str = "no answer";

/// Every prompt, in the order the Models view lists them.
pub const ALL: &[&Prompt] = &[
    &REWRITE,
    &HYDE,
    &REASON,
    &RAG,
    &READ,
    &CLOSED_BOOK,
    &JUDGE,
    &LISTWISE,
    &TEXT_TO_SQL,
    &AGENT,
    &AGENT_TOOLS,
    &EXTRACT,
    &COMMUNITY,
    &GLOBAL_MAP,
    &GLOBAL_REDUCE,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_is_filled_once_and_a_value_is_never_read_again() {
        assert_eq!(
            fill("Q: {question} / {passage}", &[("question", "a {passage}"), ("passage", "b")]),
            "Q: a {passage} / b"
        );
        assert_eq!(fill("{missing} {question}", &[("question", "x")]), "{missing} x", "an unknown name stays");
        assert_eq!(fill("no placeholders {", &[]), "no placeholders {");
        assert_eq!(JUDGE.placeholders(), ["question", "passage"]);
        assert_eq!(RAG.placeholders(), ["passages", "question"]);
    }

    #[test]
    fn a_request_is_the_system_the_examples_then_the_filled_template() {
        let r = REWRITE.request(&[("question", "why is sync slow?")]);
        let roles: Vec<&str> = r.messages.iter().map(|m| m.role.name()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
        assert_eq!(r.messages[3].content, "why is sync slow?");
        assert_eq!(r.max_tokens, 48);
        // The judge's examples are its template filled with the example pairs.
        for ((user, answer), (q, p, a)) in JUDGE.examples.iter().zip(JUDGE_EXAMPLES) {
            assert_eq!(*user, JUDGE.fill(&[("question", q), ("passage", p)]));
            assert_eq!(*answer, a);
        }
        for p in ALL {
            assert!(!p.system.is_empty() && p.max_tokens > 0, "{}", p.task);
        }
    }
}
