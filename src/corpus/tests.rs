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
