//! Escaping text for HTML and XML: the one escape every page RankLens writes goes through (reports,
//! handouts, quizzes); and a score as the lessons and the "what moved it" summaries print it.

/// A number to four decimals (`0.1234`), as the lessons and the summaries of what moved a passage
/// print scores.
pub fn f4(x: f64) -> String {
    format!("{x:.4}")
}

/// `s` with `&`, `<`, `>`, `"` and `'` written as entities: safe as element text and inside a quoted
/// attribute, in HTML and XML alike.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_special_character_becomes_its_entity_and_nothing_else_changes() {
        assert_eq!(
            escape_html(r#"<a href="x">Tom & Jerry's</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"
        );
        assert_eq!(escape_html("plain — text"), "plain — text");
        assert_eq!(escape_html("&amp;"), "&amp;amp;", "an entity already written is escaped again");
    }
}
