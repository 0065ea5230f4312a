//! Tests of the roster reader.

use super::*;

#[test]
fn a_roster_with_a_header_blank_lines_and_quotes_is_read() {
    let r = parse_roster(b"name,email\n\nAda Lovelace,ada@x\n\"Turing, Alan\",a@t\n", "r.csv").unwrap();
    assert_eq!(r, ["Ada Lovelace", "Turing, Alan"]);
}

#[test]
fn roster_errors_name_the_line() {
    let e = parse_roster(b"Ada\nBob\nada\n", "r.csv").unwrap_err().to_string();
    assert!(e.contains("r.csv:3") && e.contains("line 1"), "{e}");
    let e = parse_roster(b"Ada\n,x\n", "r.csv").unwrap_err().to_string();
    assert!(e.contains("r.csv:2") && e.contains("empty"), "{e}");
    let e = parse_roster(b"a/b\n", "r.csv").unwrap_err().to_string();
    assert!(e.contains("r.csv:1"), "{e}");
    assert!(parse_roster(b"name\n", "r.csv").is_err());
}
