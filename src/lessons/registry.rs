//! Every lesson, once: the list the app's Lessons view, `ranklens lesson`, the atlas, the
//! assignments and the tests all go through. Adding a lesson is one entry here and its page file.

use super::entry::{AssignmentEntry, LessonEntry};
use super::{Knob, Lesson, LessonKit, LessonParams, Open};
use super::{
    bm25, chunking, dense, entities, fusion, index, late, metrics, mismatch, reader, splade, structure, tfidf,
};
use crate::models::Role;
use crate::{Error, Result};

/// Every lesson, in the order they are listed.
pub const LESSONS: &[LessonEntry] = &[
    LessonEntry {
        id: "tfidf",
        title: "Cosine over TF-IDF",
        build: |kit, _, on| tfidf::build(kit, on),
        knobs: &[],
        assignment: Some(AssignmentEntry {
            asks: "tf-idf weights, an idf, a cosine, which passage wins",
            draw: tfidf::assignment,
            needs: &[],
        }),
    },
    LessonEntry {
        id: "bm25",
        title: "Why BM25 flips tf-idf",
        build: bm25::build,
        knobs: &[Knob::Bm25K, Knob::Bm25B, Knob::IdfBase],
        assignment: Some(AssignmentEntry {
            asks: "BM25 idf, a term's contribution, the effect of k1 and b",
            draw: bm25::assignment,
            needs: &[],
        }),
    },
    LessonEntry {
        id: "index",
        title: "The inverted index",
        build: index::build,
        knobs: &[],
        assignment: Some(AssignmentEntry {
            asks: "document frequency, a postings list, Boolean AND and OR",
            draw: index::assignment,
            needs: &[],
        }),
    },
    LessonEntry {
        id: "metrics",
        title: "Measuring a ranking",
        build: |kit, _, on| metrics::build(kit, on),
        knobs: &[],
        assignment: Some(AssignmentEntry {
            asks: "precision, recall, AP and nDCG@10 of a ranking with judgements",
            draw: metrics::assignment,
            needs: &[],
        }),
    },
    LessonEntry {
        id: "dense",
        title: "Dense scores, down to words",
        build: |kit, _, on| dense::build(kit, on),
        knobs: &[],
        assignment: Some(AssignmentEntry {
            asks: "which passage wins by cosine and by BM25, a cosine from its token parts",
            draw: dense::assignment,
            needs: &[Role::Dense],
        }),
    },
    LessonEntry {
        id: "splade",
        title: "SPLADE: learned weights and expansion",
        build: |kit, _, on| splade::build(kit, on),
        knobs: &[],
        assignment: Some(AssignmentEntry {
            asks: "a SPLADE score from its weights, the term that carries it, the part from expansion",
            draw: splade::assignment,
            needs: &[Role::Splade],
        }),
    },
    LessonEntry {
        id: "late",
        title: "Late interaction: MaxSim by hand",
        build: |kit, _, on| late::build(kit, on),
        knobs: &[],
        assignment: Some(AssignmentEntry {
            asks: "MaxSim from a table of cosines, an alignment, a piece struck out",
            draw: late::assignment,
            needs: &[Role::Dense],
        }),
    },
    LessonEntry {
        id: "reader",
        title: "Retrieve then read",
        build: reader::build,
        knobs: &[Knob::ReaderK],
        assignment: Some(AssignmentEntry {
            asks: "a span's score from start and end scores, a passage's answer or no answer, the answer over two passages",
            draw: reader::assignment,
            needs: &[],
        }),
    },
    LessonEntry {
        id: "mismatch",
        title: "Vocabulary mismatch, rewriting and HyDE",
        build: |kit, p, _| mismatch::build(kit, p),
        knobs: &[Knob::Rewrite, Knob::Draft, Knob::Reasoning],
        assignment: None,
    },
    LessonEntry {
        id: "fusion",
        title: "Fusion can hurt",
        build: |kit, _, on| fusion::build(kit, on),
        knobs: &[],
        assignment: Some(AssignmentEntry {
            asks: "reciprocal rank fusion of two rankings by hand: a fused score, the fused first",
            draw: fusion::assignment,
            needs: &[Role::Dense],
        }),
    },
    LessonEntry {
        id: "structure",
        title: "Exact lists need structure",
        build: |kit, _, _| structure::build(kit),
        knobs: &[],
        assignment: None,
    },
    LessonEntry {
        id: "chunking",
        title: "Chunking",
        build: |kit, p, _| chunking::build(kit, p),
        knobs: &[Knob::ChunkWords, Knob::ChunkOverlap, Knob::BadCutChars],
        assignment: None,
    },
    LessonEntry {
        id: "entities",
        title: "Entity resolution",
        build: |kit, p, _| entities::build(kit, p),
        knobs: &[Knob::ErThreshold, Knob::NameAgreeAt, Knob::NameM, Knob::NameU, Knob::TypeM, Knob::TypeU],
        assignment: None,
    },
];

/// The lesson with this id, or an error listing them.
pub fn lesson(id: &str) -> Result<&'static LessonEntry> {
    LESSONS.iter().find(|l| l.id == id).ok_or_else(|| {
        Error::invalid(
            "lesson",
            format!(
                "unknown lesson {id:?}; choose one of {}",
                LESSONS.iter().map(|l| l.id).collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

/// The lessons that have an assignment.
pub fn with_assignments() -> impl Iterator<Item = (&'static LessonEntry, &'static AssignmentEntry)> {
    LESSONS.iter().filter_map(|l| l.assignment.as_ref().map(|a| (l, a)))
}

/// Build a lesson by id, on the open corpus and question when given (else the sample's).
pub fn build(id: &str, kit: &LessonKit, params: &LessonParams, open: Option<&Open>) -> Result<Lesson> {
    let sample = Open { workbench: kit.sample.clone(), question: params.question.clone() };
    let on = match open {
        Some(o) if !o.question.trim().is_empty() => o,
        _ => &sample,
    };
    let entry = lesson(id)?;
    let mut page = (entry.build)(kit, params, on)?;
    page.id = entry.id.to_string();
    page.title = entry.title.to_string();
    Ok(page)
}
