//! Tests of the corpus: ids, example questions, fingerprints.

use super::*;

#[test]
fn duplicate_ids_keep_the_first_and_warn() {
    let c = Corpus::from_texts("t", [("a", "one"), ("b", "two"), ("a", "three")]);
    assert_eq!(c.len(), 2);
    assert_eq!(c.report.skipped, 1);
    assert_eq!(c.doc(DocId(0)).map(|d| d.text.as_str()), Some("one"));
    assert_eq!(c.lookup("b"), Some(DocId(1)));
}

#[test]
fn example_questions_come_from_the_question_set_else_the_titles() {
    let mut c = Corpus::from_texts("t", [("a", "x"), ("b", "y"), ("c", "z")]);
    assert!(c.example_questions(3).is_empty(), "no titles, no questions");
    let titles = ["Resetting a password", "", "Billing   and\ninvoices", "Resetting a password"];
    let mut d = Corpus::from_docs(
        "t",
        titles.iter().enumerate().map(|(i, t)| Doc {
            id: i.to_string(),
            title: t.to_string(),
            text: "x".into(),
            fields: Default::default(),
        }),
    );
    // Titled documents: 0, 2, 3; spread over 3 → all; the repeated title once, spaces folded.
    assert_eq!(d.example_questions(3), ["Resetting a password", "Billing and invoices"]);
    d.queries = (0..10).map(|i| Query { id: i.to_string(), text: format!("question {i}") }).collect();
    // Spread over ten questions: 0, 3, 6 (i · 10 / 3).
    assert_eq!(d.example_questions(3), ["question 0", "question 3", "question 6"]);
    c.queries.push(Query { id: "q".into(), text: "why?".into() });
    assert_eq!(c.example_questions(4), ["why?"]);
}

#[test]
fn fingerprint_changes_with_content_and_order() {
    let a = Corpus::from_texts("t", [("a", "one"), ("b", "two")]);
    let b = Corpus::from_texts("t", [("b", "two"), ("a", "one")]);
    let c = Corpus::from_texts("other name", [("a", "one"), ("b", "two")]);
    assert_ne!(a.fingerprint(), b.fingerprint());
    assert_eq!(a.fingerprint(), c.fingerprint());
    assert_eq!(a.fingerprint().len(), 64);
}

#[test]
fn a_corpus_with_no_document_is_refused_naming_its_first_problems() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docs.jsonl");
    let lines: Vec<String> = (1..=5).map(|i| format!("not json {i}")).collect();
    std::fs::write(&path, lines.join("\n")).unwrap();
    let e = load_documents(&path, LoadOptions::default()).unwrap_err().to_string();
    assert!(e.starts_with(&path.display().to_string()), "{e}");
    assert!(e.contains("no documents could be loaded"), "{e}");
    // The first three problems, then how many more.
    assert!(e.contains("docs.jsonl:1: ") && e.contains("docs.jsonl:3: ") && !e.contains("docs.jsonl:4: "), "{e}");
    assert!(e.ends_with("; and 2 more"), "{e}");
    // One readable document is a corpus.
    std::fs::write(&path, format!("{}\n{{\"_id\": \"a\", \"text\": \"one\"}}", lines[0])).unwrap();
    let c = load_documents(&path, LoadOptions::default()).unwrap();
    assert_eq!((c.len(), c.report.warnings.len()), (1, 1));
}
