//! The Porter stemmer (M. F. Porter, 1980), as in the reference C implementation that Lucene's
//! `PorterStemmer` ports, including its two documented departures from the paper (`bli`→`ble`,
//! `logi`→`log`) and leaving words of one or two letters alone.
//!
//! Written out rather than taken from a crate because the crates available implement Porter2
//! (Snowball English), which stems differently and would move the Anserini reproduction.

/// Stem one lower-case word. As Lucene's `PorterStemmer`, which works on Java's UTF-16 `char`s:
/// a word of one or two UTF-16 units is left alone, and a letter outside a–z is a consonant
/// (`naïve` → `naïv`, as Lucene stems it).
pub fn stem(word: &str) -> String {
    if word.is_ascii() {
        if word.len() <= 2 {
            return word.to_string();
        }
        let b = stem_bytes(word.as_bytes().to_vec());
        return String::from_utf8(b).unwrap_or_else(|_| word.to_string());
    }
    // Each UTF-16 unit outside ASCII becomes OTHER (a consonant no rule names), stemmed as
    // bytes; the rules only cut and write ASCII suffixes, so the units before the cut are put
    // back as they were.
    const OTHER: u8 = 0xFF;
    let units: Vec<u16> = word.encode_utf16().collect();
    if units.len() <= 2 {
        return word.to_string();
    }
    let bytes = units.iter().map(|&u| if u < 0x80 { u as u8 } else { OTHER }).collect();
    let stemmed = stem_bytes(bytes);
    let out: Vec<u16> = stemmed
        .iter()
        .zip(&units)
        .map(|(&b, &u)| if b == OTHER { u } else { u16::from(b) })
        .chain(stemmed.iter().skip(units.len()).map(|&b| u16::from(b)))
        .collect();
    String::from_utf16_lossy(&out)
}

/// Porter's steps over a word of at least three units.
fn stem_bytes(b: Vec<u8>) -> Vec<u8> {
    let k = b.len() - 1;
    let mut s = Stemmer { b, k, j: 0 };
    s.step1ab();
    if s.k > 0 {
        s.step1c();
        s.step2();
        s.step3();
        s.step4();
        s.step5();
    }
    s.b.truncate(s.k + 1);
    s.b
}

struct Stemmer {
    b: Vec<u8>,
    /// Index of the last character of the current word.
    k: usize,
    /// End of the stem found by the last successful `ends`; -1 when the suffix is the whole word,
    /// exactly as in the C original.
    j: isize,
}

impl Stemmer {
    fn cons(&self, i: usize) -> bool {
        match self.b[i] {
            b'a' | b'e' | b'i' | b'o' | b'u' => false,
            b'y' => i == 0 || !self.cons(i - 1),
            _ => true,
        }
    }

    /// The measure m of b[0..=j]: the number of VC sequences.
    fn m(&self) -> usize {
        let j = self.j;
        let mut n = 0;
        let mut i: isize = 0;
        loop {
            if i > j {
                return n;
            }
            if !self.cons(i as usize) {
                break;
            }
            i += 1;
        }
        i += 1;
        loop {
            loop {
                if i > j {
                    return n;
                }
                if self.cons(i as usize) {
                    break;
                }
                i += 1;
            }
            i += 1;
            n += 1;
            loop {
                if i > j {
                    return n;
                }
                if !self.cons(i as usize) {
                    break;
                }
                i += 1;
            }
            i += 1;
        }
    }

    fn vowel_in_stem(&self) -> bool {
        (0..=self.j).any(|i| !self.cons(i as usize))
    }

    fn doublec(&self, j: usize) -> bool {
        j >= 1 && self.b[j] == self.b[j - 1] && self.cons(j)
    }

    fn cvc(&self, i: usize) -> bool {
        if i < 2 || !self.cons(i) || self.cons(i - 1) || !self.cons(i - 2) {
            return false;
        }
        !matches!(self.b[i], b'w' | b'x' | b'y')
    }

    /// Does b[0..=k] end with `s`? On success j marks the end of the stem before it.
    fn ends(&mut self, s: &str) -> bool {
        let s = s.as_bytes();
        let len = s.len();
        if len > self.k + 1 || &self.b[self.k + 1 - len..=self.k] != s {
            return false;
        }
        self.j = self.k as isize - len as isize;
        true
    }

    /// Replace b[j+1..=k] by `s`.
    fn setto(&mut self, s: &str) {
        let start = (self.j + 1) as usize;
        self.b.truncate(start);
        self.b.extend_from_slice(s.as_bytes());
        self.k = start + s.len() - 1;
    }

    fn r(&mut self, s: &str) {
        if self.m() > 0 {
            self.setto(s);
        }
    }

    fn step1ab(&mut self) {
        if self.b[self.k] == b's' {
            if self.ends("sses") {
                self.k -= 2;
            } else if self.ends("ies") {
                self.setto("i");
            } else if self.b[self.k - 1] != b's' {
                self.k -= 1;
            }
        }
        if self.ends("eed") {
            if self.m() > 0 {
                self.k -= 1;
            }
        } else if (self.ends("ed") || self.ends("ing")) && self.vowel_in_stem() {
            self.k = self.j as usize;
            if self.ends("at") {
                self.setto("ate");
            } else if self.ends("bl") {
                self.setto("ble");
            } else if self.ends("iz") {
                self.setto("ize");
            } else if self.doublec(self.k) {
                self.k -= 1;
                if matches!(self.b[self.k], b'l' | b's' | b'z') {
                    self.k += 1;
                }
            } else if self.m() == 1 && self.cvc(self.k) {
                self.setto("e");
            }
        }
    }

    fn step1c(&mut self) {
        if self.ends("y") && self.vowel_in_stem() {
            self.b[self.k] = b'i';
        }
    }

    fn step2(&mut self) {
        let rules: &[(&str, &str)] = match self.b[self.k - 1] {
            b'a' => &[("ational", "ate"), ("tional", "tion")],
            b'c' => &[("enci", "ence"), ("anci", "ance")],
            b'e' => &[("izer", "ize")],
            b'l' => &[("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")],
            b'o' => &[("ization", "ize"), ("ation", "ate"), ("ator", "ate")],
            b's' => &[("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")],
            b't' => &[("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")],
            b'g' => &[("logi", "log")],
            _ => &[],
        };
        self.apply_first(rules);
    }

    fn step3(&mut self) {
        let rules: &[(&str, &str)] = match self.b[self.k] {
            b'e' => &[("icate", "ic"), ("ative", ""), ("alize", "al")],
            b'i' => &[("iciti", "ic")],
            b'l' => &[("ical", "ic"), ("ful", "")],
            b's' => &[("ness", "")],
            _ => &[],
        };
        self.apply_first(rules);
    }

    /// Apply the first rule whose suffix matches (replacing only when m > 0), as the C `switch`.
    fn apply_first(&mut self, rules: &[(&str, &str)]) {
        for (suffix, replacement) in rules {
            if self.ends(suffix) {
                self.r(replacement);
                return;
            }
        }
    }

    fn step4(&mut self) {
        let matched = match self.b[self.k - 1] {
            b'a' => self.ends("al"),
            b'c' => self.ends("ance") || self.ends("ence"),
            b'e' => self.ends("er"),
            b'i' => self.ends("ic"),
            b'l' => self.ends("able") || self.ends("ible"),
            b'n' => self.ends("ant") || self.ends("ement") || self.ends("ment") || self.ends("ent"),
            b'o' => {
                (self.ends("ion") && self.j >= 0 && matches!(self.b[self.j as usize], b's' | b't')) || self.ends("ou")
            }
            b's' => self.ends("ism"),
            b't' => self.ends("ate") || self.ends("iti"),
            b'u' => self.ends("ous"),
            b'v' => self.ends("ive"),
            b'z' => self.ends("ize"),
            _ => false,
        };
        if matched && self.m() > 1 {
            self.k = self.j as usize;
        }
    }

    fn step5(&mut self) {
        self.j = self.k as isize;
        if self.b[self.k] == b'e' {
            let a = self.m();
            if a > 1 || (a == 1 && !self.cvc(self.k - 1)) {
                self.k -= 1;
            }
        }
        if self.b[self.k] == b'l' && self.doublec(self.k) && self.m() > 1 {
            self.k -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::stem;

    /// Pairs from Martin Porter's published vocabulary/output lists (voc.txt / output.txt).
    #[test]
    fn matches_porters_reference_output() {
        let cases = [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("caress", "caress"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("bled", "bled"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("tanned", "tan"),
            ("falling", "fall"),
            ("hissing", "hiss"),
            ("fizzed", "fizz"),
            ("failing", "fail"),
            ("filing", "file"),
            ("happy", "happi"),
            ("sky", "sky"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("rational", "ration"),
            ("valenci", "valenc"),
            ("digitizer", "digit"),
            ("conformabli", "conform"),
            ("radicalli", "radic"),
            ("differentli", "differ"),
            ("vileli", "vile"),
            ("analogousli", "analog"),
            ("vietnamization", "vietnam"),
            ("predication", "predic"),
            ("operator", "oper"),
            ("feudalism", "feudal"),
            ("decisiveness", "decis"),
            ("hopefulness", "hope"),
            ("callousness", "callous"),
            ("formaliti", "formal"),
            ("sensitiviti", "sensit"),
            ("sensibiliti", "sensibl"),
            ("triplicate", "triplic"),
            ("formative", "form"),
            ("formalize", "formal"),
            ("electriciti", "electr"),
            ("electrical", "electr"),
            ("hopeful", "hope"),
            ("goodness", "good"),
            ("revival", "reviv"),
            ("allowance", "allow"),
            ("inference", "infer"),
            ("airliner", "airlin"),
            ("gyroscopic", "gyroscop"),
            ("adjustable", "adjust"),
            ("defensible", "defens"),
            ("irritant", "irrit"),
            ("replacement", "replac"),
            ("adjustment", "adjust"),
            ("dependent", "depend"),
            ("adoption", "adopt"),
            ("homologou", "homolog"),
            ("communism", "commun"),
            ("activate", "activ"),
            ("angulariti", "angular"),
            ("homologous", "homolog"),
            ("effective", "effect"),
            ("bowdlerize", "bowdler"),
            ("probate", "probat"),
            ("rate", "rate"),
            ("cease", "ceas"),
            ("controll", "control"),
            ("roll", "roll"),
            ("generalizations", "gener"),
            ("oscillators", "oscil"),
            ("abilities", "abil"),
            ("is", "is"),
            ("as", "as"),
            ("encryption", "encrypt"),
            ("expire", "expir"),
            ("expired", "expir"),
            ("caching", "cach"),
            ("cached", "cach"),
            ("devices", "devic"),
            ("archaeology", "archaeolog"),
            ("news", "new"),
            ("skies", "ski"),
        ];
        for (word, expected) in cases {
            assert_eq!(stem(word), expected, "stem({word})");
        }
    }

    #[test]
    fn short_and_non_ascii_words_are_left_alone() {
        assert_eq!(stem("at"), "at");
        // Lucene stems by UTF-16 unit, a letter outside a–z being a consonant (recorded from
        // Lucene 9.9.1 in tests/fixtures/lucene): "naïve" loses its e, "agées" its s and e.
        assert_eq!(stem("naïve"), "naïv");
        assert_eq!(stem("agées"), "agé");
        assert_eq!(stem("né"), "né");
        assert_eq!(stem("日本"), "日本");
        // A supplementary character is two units: three units are stemmed.
        assert_eq!(stem("𝒜s"), "𝒜");
        assert_eq!(stem("s"), "s");
    }
}
