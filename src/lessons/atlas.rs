//! The methods atlas: one card per retrieval method of the overview, in RankLens's own words, and
//! whether RankLens runs it.

use super::Lesson;
use crate::retrieve::MethodKind;

/// The atlas as a lesson (for `ranklens lesson atlas`).
pub fn atlas_lesson() -> Lesson {
    let mut l = Lesson::new("atlas", "Methods atlas");
    for card in &ATLAS {
        l.h(card.name);
        l.p(format!("Stores: {}", card.stores));
        l.p(format!("When a question arrives: {}", card.at_query_time));
        l.p(format!("Its brain: {}", card.brain));
        l.p(format!("Use it when: {}", card.use_when));
        match card.runs_here {
            RunsHere::Method(kind) => {
                l.p(format!("Run it: the {} column of the app; {}.", kind.label(), kind.info().command))
            }
            RunsHere::Lesson(id) => l.p(format!("Run it: ranklens lesson {id}.")),
            RunsHere::Rag => l.p("Run it: the RAG prompt view of the app."),
            RunsHere::No(why) => l.warn(format!("Not run here. {why}")),
        }
    }
    l
}

/// Where a method can be tried in RankLens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunsHere {
    /// A column of the compare view.
    Method(MethodKind),
    /// A lesson (by id).
    Lesson(&'static str),
    /// The RAG prompt view.
    Rag,
    /// Not computed here, and why.
    No(&'static str),
}

/// One card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtlasCard {
    /// Method name.
    pub name: &'static str,
    /// What it keeps before any question arrives.
    pub stores: &'static str,
    /// What happens when a question arrives.
    pub at_query_time: &'static str,
    /// Where its "brain" is: what knowledge makes it work.
    pub brain: &'static str,
    /// When to reach for it.
    pub use_when: &'static str,
    /// Where to try it in RankLens.
    pub runs_here: RunsHere,
}

/// Every card, in the order of the overview.
pub const ATLAS: [AtlasCard; 23] = [
    AtlasCard {
        name: "Boolean retrieval",
        stores: "An inverted index: each term's list of documents (and positions, for phrases).",
        at_query_time: "Intersects, unites and subtracts those lists as AND, OR and NOT say; no scores.",
        brain: "The person who writes the query.",
        use_when: "Legal, patent and systematic-review searches that must be exact and repeatable.",
        runs_here: RunsHere::Method(MethodKind::Boolean),
    },
    AtlasCard {
        name: "TF-IDF",
        stores: "Term counts per document and document frequencies per term.",
        at_query_time: "Weights shared terms by count × rarity and compares vectors by cosine.",
        brain: "Counting: rare words shared by question and passage matter most.",
        use_when: "A transparent baseline; teaching; small collections.",
        runs_here: RunsHere::Method(MethodKind::TfIdf),
    },
    AtlasCard {
        name: "BM25",
        stores: "The same inverted index, plus every document's length.",
        at_query_time: "Sums per-term scores that saturate with repetition (k1) and discount long documents (b).",
        brain: "A probabilistic model of relevance with two tuned parameters.",
        use_when: "Almost always as the first stage: fast, strong, explainable, no training.",
        runs_here: RunsHere::Method(MethodKind::Bm25),
    },
    AtlasCard {
        name: "Learned sparse (SPLADE)",
        stores: "An inverted index of model-weighted vocabulary terms, including terms the text does not contain.",
        at_query_time: "Encodes the question into weighted terms (with expansions) and takes the dot product.",
        brain: "A masked language model fine-tuned to predict useful terms.",
        use_when: "You want vocabulary expansion but keep an inverted index and term-level explanations.",
        runs_here: RunsHere::Method(MethodKind::Splade),
    },
    AtlasCard {
        name: "Dense bi-encoder",
        stores: "One vector per passage from a neural encoder.",
        at_query_time: "Encodes the question into a vector and finds the nearest passages by cosine.",
        brain: "A transformer trained on question–passage pairs to place meaning close together.",
        use_when: "Paraphrases and vocabulary mismatch; semantic search; multilingual corpora.",
        runs_here: RunsHere::Method(MethodKind::Dense),
    },
    AtlasCard {
        name: "Late interaction (ColBERT)",
        stores: "One vector per token of every passage.",
        at_query_time: "Each question token finds its most similar passage token; the maxima are summed (MaxSim).",
        brain: "A transformer trained so token vectors align across question and passage.",
        use_when: "Higher precision than one vector per passage, with token-level explanations; as a reranker on large corpora.",
        runs_here: RunsHere::Method(MethodKind::LateInteraction),
    },
    AtlasCard {
        name: "SQL over a table",
        stores: "Rows with typed columns.",
        at_query_time: "Runs a statement that filters, joins and counts exactly.",
        brain: "The schema and the person (or model) who writes the SQL.",
        use_when: "Questions that ask for all, how many, or a comparison over fields.",
        runs_here: RunsHere::Method(MethodKind::Sql),
    },
    AtlasCard {
        name: "Text to SQL",
        stores: "The tables' schema and a few example rows, in the prompt.",
        at_query_time: "A language model writes one SELECT for the question; it runs read-only, and only if it reads.",
        brain: "The language model that turns the question into SQL, and the person who checks it before it runs.",
        use_when: "Counting and filtering questions over a table asked in words; always show the SQL.",
        runs_here: RunsHere::Method(MethodKind::Sql),
    },
    AtlasCard {
        name: "Knowledge graph",
        stores: "Typed entities and typed links, each citing its sources.",
        at_query_time: "Matches a pattern with variables, joining facts along paths.",
        brain: "The people (or extractors) who entered the facts.",
        use_when: "Multi-hop questions whose answer is a chain of facts; answers complete relative to the graph.",
        runs_here: RunsHere::Method(MethodKind::Graph),
    },
    AtlasCard {
        name: "Fusion",
        stores: "Nothing of its own: the inputs' indexes.",
        at_query_time: "Runs several methods and combines their rankings (RRF) or normalised scores.",
        brain: "The assumption that the inputs make different mistakes.",
        use_when: "Hybrid lexical + dense search; cheap robustness — but see the lesson where it hurts.",
        runs_here: RunsHere::Method(MethodKind::Fusion),
    },
    AtlasCard {
        name: "Cross-encoder reranker",
        stores: "Nothing per passage; a model.",
        at_query_time: "Reads the question and each shortlisted passage together and scores the pair.",
        brain: "A transformer trained on relevance judgements, attending across question and passage.",
        use_when: "Reordering the top 20–100 of a first stage when precision at the top matters.",
        runs_here: RunsHere::Method(MethodKind::Rerank),
    },
    AtlasCard {
        name: "Query rewriting and HyDE",
        stores: "Nothing new: it changes the question.",
        at_query_time: "Rewrites or expands the question, or drafts an answer and searches with that.",
        brain: "A person or a language model that knows how the documents are worded.",
        use_when: "The user's words differ from the corpus's; the draft is a search aid, never evidence.",
        runs_here: RunsHere::Lesson("mismatch"),
    },
    AtlasCard {
        name: "Agentic search",
        stores: "Any of the indexes above, as tools.",
        at_query_time: "A model plans, searches, reads and searches again until it can answer.",
        brain: "A language model that decides which tool to call next.",
        use_when: "Multi-step questions across sources; when latency and cost allow several rounds.",
        runs_here: RunsHere::Method(MethodKind::Agent),
    },
    AtlasCard {
        name: "RAG prompt",
        stores: "Nothing: it assembles the retrieved passages.",
        at_query_time: "Numbers the top passages into a prompt that asks a model to answer only from them and cite them.",
        brain: "The retriever that chose the passages, then the language model that reads them.",
        use_when: "Grounded answers with citations a reader can check.",
        runs_here: RunsHere::Rag,
    },
    AtlasCard {
        name: "Chunking",
        stores: "Passages cut from documents.",
        at_query_time: "Nothing extra; the cut decides what any method can match and return.",
        brain: "Whoever chose the cut: paragraphs, windows with overlap, sections.",
        use_when: "Always: long documents must be cut, and a bad cut separates facts from their subjects.",
        runs_here: RunsHere::Lesson("chunking"),
    },
    AtlasCard {
        name: "GraphRAG",
        stores: "A graph extracted from the corpus by a model (entities, relations, each citing its passage), with \
                 community summaries.",
        at_query_time: "Local search: the entities the question names and their neighbours' passages. Global \
                        search: every community summary asked, the helpful notes put into one answer.",
        brain: "The language model that extracted entities and wrote the summaries.",
        use_when: "Global questions about a whole corpus (\"what are the main themes?\"), and questions about how \
                   named things relate.",
        runs_here: RunsHere::Method(MethodKind::GraphLocal),
    },
    AtlasCard {
        name: "Entity resolution",
        stores: "Records from several sources.",
        at_query_time: "Scores candidate pairs (string similarity, field agreement) and merges matches.",
        brain: "The field weights and threshold (Fellegi–Sunter) or a trained matcher.",
        use_when: "Before building a graph or joining tables from different sources.",
        runs_here: RunsHere::Lesson("entities"),
    },
    AtlasCard {
        name: "Dense retriever training",
        stores: "Training pairs and hard negatives.",
        at_query_time: "Nothing: it changes the encoder before indexing.",
        brain: "Contrastive learning on question–passage pairs from the target domain.",
        use_when: "A domain where off-the-shelf encoders lose to BM25 and you have (or can make) training data. \
                   Retraining the whole encoder needs a GPU and hours; a linear adapter on the question's vector \
                   trains in seconds on the CPU from the same pairs, and is what RankLens trains.",
        runs_here: RunsHere::Method(MethodKind::DenseAdapter),
    },
    AtlasCard {
        name: "Generative retrieval",
        stores: "The corpus inside a model's weights, with documents named by identifiers.",
        at_query_time: "The model generates the identifiers of relevant documents.",
        brain: "A sequence-to-sequence model trained to map questions to document ids.",
        use_when: "Research settings with static corpora; updates mean retraining.",
        runs_here: RunsHere::No(
            "It needs a model trained on this corpus's document identifiers, and none exists for a corpus you just opened.",
        ),
    },
    AtlasCard {
        name: "Closed-book answering",
        stores: "Nothing outside the model.",
        at_query_time: "A language model answers from what it memorised in training.",
        brain: "The model's parameters.",
        use_when: "General knowledge when no citation is needed; never for private or fresh facts.",
        runs_here: RunsHere::Rag,
    },
    AtlasCard {
        name: "ColPali (visual late interaction)",
        stores: "Token vectors of page images, from a vision-language model.",
        at_query_time: "MaxSim between question tokens and image-patch vectors.",
        brain: "A vision-language model trained for retrieval.",
        use_when: "PDFs and scans whose layout, tables and figures carry the meaning.",
        runs_here: RunsHere::No(
            "It needs a vision-language model and page images; RankLens indexes text. Late interaction over text tokens runs in the Compare view.",
        ),
    },
    AtlasCard {
        name: "Reasoning-intensive retrieval",
        stores: "Any index; often also rewritten queries or reasoning traces.",
        at_query_time: "A model reasons about what would answer the question before or while retrieving.",
        brain: "A reasoning language model, or a retriever trained on reasoning-heavy queries.",
        use_when: "Questions whose relevant documents share no surface or topical similarity with them.",
        runs_here: RunsHere::Method(MethodKind::ReasonBm25),
    },
    AtlasCard {
        name: "LLM listwise reranking",
        stores: "Nothing per passage; a language model.",
        at_query_time: "A language model reads the question and a list of passages and outputs an order.",
        brain: "A large language model prompted (or tuned) to rank.",
        use_when: "The last, most expensive stage over a short list, when a cross-encoder is not enough.",
        runs_here: RunsHere::Method(MethodKind::Listwise),
    },
];
