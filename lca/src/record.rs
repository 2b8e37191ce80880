//! Profile records (docs/records.md): the lines `pp -l` appends to a data file and `lca`
//! reads.
//!
//! One record per line, `key=value` tokens separated by spaces (any run of blanks is
//! accepted), in the order: the user's note tokens (`n=1024 impl=dp`), `tag=NAME` for a
//! fragment record, `p=`, then the categories present among
//! `li fj ip sl wc cl rc ml os pc rt tt over` (seconds summed over processors). `fj`
//! (fork/join latency) is a part of `li`, not a term of `li + ip + sl + wc + rt = tt`: see
//! [`PART_KEYS`]. `#` starts a
//! comment line; blank lines are skipped. Values are kept as text; numeric accessors parse
//! them on demand and report the line of a value that is not a finite number.
//!
//! ```
//! let recs = lca::record::parse_records("# runs\nn=1024 tag=cols p=4 li=0.0132 rt=1.73 tt=1.7436\n").unwrap();
//! assert_eq!(recs.len(), 1);
//! assert_eq!(recs[0].line(), 2);
//! assert_eq!(recs[0].get("tag"), Some("cols"));
//! assert_eq!(recs[0].number("p").unwrap(), 4.0);
//! assert_eq!(recs[0].category("time").unwrap(), Some(1.7436 / 4.0));
//! ```

use category::{Category, ProfileRecord};
use std::fmt;

/// The category keys `pp` writes, in record order (seconds summed over processors), without
/// the parts of [`PART_KEYS`]: the keys of [`Category::PRIMARY`].
pub const CATEGORY_KEYS: [&str; 12] = category::keys(Category::PRIMARY);

/// Keys `pp` writes for a part of a category, with that category ([`Category::PARTS`]):
/// `fj`, fork/join latency, is the part of `li` during which parallel work was open but no
/// thread ran a task (the runtime's fork wake-up and join latency). A part is read like any
/// category (`lca -c fj`) but is never added to the others: `li` already holds it.
pub const PART_KEYS: [(&str, &str); 1] = part_keys();

const fn part_keys() -> [(&'static str, &'static str); 1] {
    let mut out = [("", ""); 1];
    let mut i = 0;
    while i < out.len() {
        let part = Category::PARTS[i];
        if let Some(whole) = part.part_of() {
            out[i] = (part.key(), whole.key());
        }
        i += 1;
    }
    out
}

/// One profile record: ordered `key=value` pairs and the 1-based line it came from. A
/// record read from text keeps its values as text and parses them on demand; a record made
/// from `pp`'s [`ProfileRecord`] ([`Record::from_profile`]) keeps the numbers as given
/// beside their text form.
#[derive(Debug, Clone)]
pub struct Record {
    line: usize,
    fields: Vec<(String, String)>,
    /// The number of each field when the record was made from numbers (parallel to
    /// `fields`; empty for a record read from text).
    numbers: Vec<Option<f64>>,
}

impl PartialEq for Record {
    /// Records are equal when their lines and fields are: the numbers of a record made from
    /// a [`ProfileRecord`] are what its text reads back as.
    fn eq(&self, other: &Record) -> bool {
        self.line == other.line && self.fields == other.fields
    }
}

/// A record that could not be read, or a value that is not what was asked for.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordError {
    /// A token that is not `key=value`.
    #[error("line {line}, column {column}: expected `key=value`, found `{found}`")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based character column of the token.
        column: usize,
        /// The token.
        found: String,
    },
    /// The same key twice in one record.
    #[error("line {line}: expected each key once, found `{key}` twice")]
    DuplicateKey {
        /// 1-based line.
        line: usize,
        /// The key.
        key: String,
    },
    /// A value that should be a finite number.
    #[error("line {line}: `{key}`: expected a finite number, found `{found}`")]
    NotNumeric {
        /// 1-based line.
        line: usize,
        /// The key.
        key: String,
        /// The value text.
        found: String,
    },
    /// A key the caller needs is absent.
    #[error("line {line}: expected a value for `{key}`, found none")]
    Missing {
        /// 1-based line.
        line: usize,
        /// The key.
        key: String,
    },
}

impl RecordError {
    /// The 1-based line the error concerns.
    pub fn line(&self) -> usize {
        match self {
            RecordError::Syntax { line, .. }
            | RecordError::DuplicateKey { line, .. }
            | RecordError::NotNumeric { line, .. }
            | RecordError::Missing { line, .. } => *line,
        }
    }
}

fn valid_key(k: &str) -> bool {
    let mut c = k.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || "_.-".contains(ch))
}

/// The records of `pp`'s profile records, numbered as the lines of a data file that holds
/// them in order from line `first_line` on (after `first_line − 1` header lines): what
/// [`parse_records`] gives for that file's text, without the text round trip.
pub fn from_profile_records(first_line: usize, records: &[ProfileRecord]) -> Vec<Record> {
    records
        .iter()
        .enumerate()
        .map(|(i, r)| Record::from_profile(first_line + i, r))
        .collect()
}

/// Parses a whole data file. Errors name the line (and column for a malformed token).
pub fn parse_records(text: &str) -> Result<Vec<Record>, RecordError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if let Some(r) = parse_record_line(raw, i + 1)? {
            out.push(r);
        }
    }
    Ok(out)
}

/// Parses one line; `Ok(None)` for blank and `#` comment lines.
pub fn parse_record_line(raw: &str, line: usize) -> Result<Option<Record>, RecordError> {
    let t = raw.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // Character column of the current token, counted as the line is walked (linear time).
    let mut column = 1;
    for tok in raw.split(|c: char| c.is_whitespace()) {
        let tok_column = column;
        column += tok.chars().count() + 1;
        if tok.is_empty() {
            continue;
        }
        let syntax = || RecordError::Syntax {
            line,
            column: tok_column,
            found: excerpt(tok),
        };
        let Some((k, v)) = tok.split_once('=') else {
            return Err(syntax());
        };
        if !valid_key(k) || v.is_empty() {
            return Err(syntax());
        }
        if !seen.insert(k) {
            return Err(RecordError::DuplicateKey {
                line,
                key: excerpt(k),
            });
        }
        fields.push((k.to_string(), v.to_string()));
    }
    Ok(Some(Record::new(line, fields)))
}

/// At most [`EXCERPT_CHARS`] characters of input text for an error message, with `…` when
/// cut, so that a message never echoes more than a short piece of a huge token.
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

/// How many characters of an offending token error messages quote.
pub const EXCERPT_CHARS: usize = 60;

/// The largest data file `lca` reads (bytes). Records take about 25 times their text's
/// size in memory at worst (a field per 4 bytes), so the cap bounds memory to about a
/// gigabyte; real data files (one short line per run) stay far below it.
pub const MAX_DATA_BYTES: u64 = 32 << 20;

/// Reads all of `reader` as UTF-8 text, refusing more than `limit` bytes (without reading
/// beyond them) and text that is not UTF-8.
pub fn read_capped(reader: impl std::io::Read, limit: u64) -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    reader.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "expected at most {} MiB of text, found more (split the file)",
                limit >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "expected UTF-8 text, found a byte that is not at offset {}",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

impl Record {
    /// A record from ordered pairs (for tests and generated data); `line` is the 1-based
    /// line number used in error messages.
    pub fn new(line: usize, fields: Vec<(String, String)>) -> Record {
        Record {
            line,
            fields,
            numbers: Vec::new(),
        }
    }

    /// The record of `pp`'s profile record `r`, as if read from `line` of a data file that
    /// holds `r`'s line (docs/records.md): the same keys and text, and the processor count
    /// and category values as the numbers `pp` computed (no text in between).
    pub fn from_profile(line: usize, r: &ProfileRecord) -> Record {
        let mut fields = Vec::with_capacity(r.note.len() + r.categories.len() + 2);
        let mut numbers = Vec::with_capacity(fields.capacity());
        for (k, v) in &r.note {
            fields.push((k.clone(), v.clone()));
            numbers.push(None);
        }
        if let Some(tag) = r.tag_token() {
            fields.push(("tag".to_owned(), tag));
            numbers.push(None);
        }
        fields.push(("p".to_owned(), r.processors.to_string()));
        numbers.push(Some(f64::from(r.processors)));
        for (c, v) in &r.categories {
            fields.push((c.key().to_owned(), category::format_seconds(*v)));
            numbers.push(Some(*v));
        }
        Record {
            line,
            fields,
            numbers,
        }
    }

    /// The 1-based line of the data file this record came from.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The `(key, value)` pairs in file order.
    pub fn fields(&self) -> &[(String, String)] {
        &self.fields
    }

    /// The keys in file order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|(k, _)| k.as_str())
    }

    /// The raw text of a value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// True when the record has this key.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The value as a finite number; `Missing` or `NotNumeric` (naming the line) otherwise.
    pub fn number(&self, key: &str) -> Result<f64, RecordError> {
        let at = self.fields.iter().position(|(k, _)| k == key);
        let given = at.and_then(|i| self.numbers.get(i).copied().flatten());
        match at.map(|i| self.fields[i].1.as_str()) {
            None => Err(RecordError::Missing {
                line: self.line,
                key: key.to_string(),
            }),
            Some(v) => match given.map_or_else(|| v.parse::<f64>(), Ok) {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(RecordError::NotNumeric {
                    line: self.line,
                    key: key.to_string(),
                    found: excerpt(v),
                }),
            },
        }
    }

    /// The value as a number when present (`Ok(None)` when absent).
    pub fn number_opt(&self, key: &str) -> Result<Option<f64>, RecordError> {
        if self.has(key) {
            self.number(key).map(Some)
        } else {
            Ok(None)
        }
    }

    /// The fragment tag (`tag=NAME`), `None` for a whole-session record.
    pub fn tag(&self) -> Option<&str> {
        self.get("tag")
    }

    /// A category value in seconds: any key, or `time` = `tt / p` (wall-clock seconds).
    /// `Ok(None)` when the category is absent from this record.
    pub fn category(&self, name: &str) -> Result<Option<f64>, RecordError> {
        if name == "time" && !self.has("time") {
            let Some(tt) = self.number_opt("tt")? else {
                return Ok(None);
            };
            let p = self.number("p")?;
            if p <= 0.0 {
                return Err(RecordError::NotNumeric {
                    line: self.line,
                    key: "p".into(),
                    found: format!("{p} (must be positive for time = tt/p)"),
                });
            }
            return Ok(Some(tt / p));
        }
        self.number_opt(name)
    }

    /// The category keys of [`CATEGORY_KEYS`] this record carries, in that order (parts
    /// such as `fj` are not among them, see [`Record::parts`]).
    pub fn categories(&self) -> Vec<&'static str> {
        CATEGORY_KEYS
            .iter()
            .copied()
            .filter(|k| self.has(k))
            .collect()
    }

    /// The part keys of [`PART_KEYS`] this record carries, each with the category it is a
    /// part of.
    pub fn parts(&self) -> Vec<(&'static str, &'static str)> {
        PART_KEYS
            .iter()
            .copied()
            .filter(|(k, _)| self.has(k))
            .collect()
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (k, v)) in self.fields.iter().enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_design_example() {
        let text = "n=1024 impl=dp tag=cols p=4 li=0.0132 ip=0.0004 sl=0 rt=1.73 tt=1.7436";
        let r = parse_records(text).unwrap();
        assert_eq!(r[0].to_string(), text);
        assert_eq!(r[0].categories(), ["li", "ip", "sl", "rt", "tt"]);
        assert_eq!(r[0].get("impl"), Some("dp"));
        assert_eq!(r[0].number("sl").unwrap(), 0.0);
        assert_eq!(r[0].category("wc").unwrap(), None);
    }

    #[test]
    fn reads_fork_join_latency_as_a_part_of_li() {
        let text = "n=8 p=4 li=0.02 fj=0.015 ip=0.001 sl=0 wc=0 rt=0.5 tt=0.521";
        let r = &parse_records(text).unwrap()[0];
        assert_eq!(r.to_string(), text);
        assert_eq!(r.categories(), ["li", "ip", "sl", "wc", "rt", "tt"]);
        assert_eq!(r.parts(), [("fj", "li")]);
        assert_eq!(r.category("fj").unwrap(), Some(0.015));
        // Records written before pp reported fj have no part.
        let old = &parse_records("p=4 li=0.02 rt=1 tt=1.02").unwrap()[0];
        assert!(old.parts().is_empty());
    }

    #[test]
    fn a_profile_record_reads_as_its_line_does() {
        let r = ProfileRecord {
            note: vec![("n".into(), "1024".into()), ("impl".into(), "dp".into())],
            tag: Some("row pass".into()),
            processors: 4,
            categories: vec![
                (Category::Li, 0.1 + 0.2),
                (Category::Fj, 2.5e-7),
                (Category::Rt, 1.73),
                (Category::Tt, 2.0300000000000002),
            ],
        };
        let typed = from_profile_records(2, std::slice::from_ref(&r));
        let read = parse_records(&format!("# header\n{r}\n")).unwrap();
        assert_eq!(typed[0].line(), 2);
        assert_eq!(typed, read);
        assert_eq!(typed[0].to_string(), r.to_string());
        assert_eq!(typed[0].tag(), Some("row_pass"));
        assert_eq!(typed[0].categories(), ["li", "rt", "tt"]);
        assert_eq!(typed[0].parts(), [("fj", "li")]);
        for k in ["n", "p", "li", "fj", "rt", "tt"] {
            assert_eq!(
                typed[0].number(k).unwrap(),
                read[0].number(k).unwrap(),
                "{k}"
            );
        }
        assert_eq!(typed[0].number("li").unwrap(), 0.1 + 0.2);
        assert_eq!(
            typed[0].category("time").unwrap(),
            Some(2.0300000000000002 / 4.0)
        );
        // A value that is not finite is refused as if read from text.
        let bad = ProfileRecord {
            categories: vec![(Category::Rt, f64::INFINITY)],
            ..r
        };
        let e = Record::from_profile(7, &bad).number("rt").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 7: `rt`: expected a finite number, found `inf`"
        );
    }

    #[test]
    fn category_keys_are_the_vocabulary() {
        assert_eq!(
            CATEGORY_KEYS.join(" "),
            "li ip sl wc cl rc ml os pc rt tt over"
        );
        assert_eq!(PART_KEYS, [("fj", "li")]);
    }

    #[test]
    fn many_fields_on_one_line_take_linear_time() {
        // 200 000 distinct keys on one line; quadratic duplicate or column checks would
        // take minutes here, linear ones milliseconds.
        let line: Vec<String> = (0..200_000).map(|i| format!("k{i}=1")).collect();
        let t = std::time::Instant::now();
        let r = parse_records(&line.join(" ")).unwrap();
        assert_eq!(r[0].fields().len(), 200_000);
        let e = parse_records(&format!("{} k7=2 bad", line.join(" "))).unwrap_err();
        assert!(
            matches!(e, RecordError::DuplicateKey { line: 1, .. }),
            "{e}"
        );
        assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    }

    #[test]
    fn read_capped_refuses_more_than_the_limit() {
        assert_eq!(read_capped(&b"p=1 li=2\n"[..], 9).unwrap(), "p=1 li=2\n");
        let e = read_capped(&b"p=1 li=2\n"[..], 8).unwrap_err();
        assert!(e.to_string().contains("at most"), "{e}");
        // A reader that never ends is read only up to the limit.
        let e = read_capped(std::io::repeat(0), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("at most 1 MiB"), "{e}");
        assert!(read_capped(&[0xffu8, 0][..], 8).is_err());
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_records("p=1 li=2\n\np=2 li 3\n").unwrap_err();
        assert_eq!(
            e,
            RecordError::Syntax {
                line: 3,
                column: 5,
                found: "li".into()
            }
        );
        assert!(matches!(
            parse_records("p=1 p=2").unwrap_err(),
            RecordError::DuplicateKey { line: 1, .. }
        ));
        assert!(parse_records("=3").is_err());
        assert!(parse_records("p=").is_err());
        let r = parse_records("#c\np=1 li=abc rt=inf ip=NaN").unwrap();
        let e = r[0].number("li").unwrap_err();
        assert_eq!(e.line(), 2);
        assert_eq!(
            e.to_string(),
            "line 2: `li`: expected a finite number, found `abc`"
        );
        assert!(r[0].number("rt").is_err());
        assert!(r[0].number("ip").is_err());
        // A huge token is quoted by its first characters only.
        let e = parse_records(&format!("p=1 {}", "x".repeat(1_000_000))).unwrap_err();
        assert!(e.to_string().len() < 120, "{e}");
        assert!(e.to_string().ends_with("x…`"), "{e}");
        assert!(matches!(
            r[0].number("tt").unwrap_err(),
            RecordError::Missing { line: 2, .. }
        ));
    }
}
