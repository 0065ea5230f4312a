//! Tests of the roster reader and the draws' random sequence (SplitMix64).

use super::*;

#[test]
fn splitmix64_is_the_published_sequence() {
    // The first outputs of SplitMix64 seeded with 1234567 (Vigna's reference implementation).
    let mut r = SplitMix64::new(1234567);
    assert_eq!(r.next_u64(), 6457827717110365317);
    assert_eq!(r.next_u64(), 3203168211198807973);
    assert_eq!(r.next_u64(), 9817491932198370423);
}

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
