//! Profile records (docs/records.md): the line format `lca` reads.
//!
//! One line per profile: the note's `key=value` tokens, then `tag=NAME` for a fragment,
//! then `p=`, then the measured categories among `li ip sl wc cl rc ml os pc rt tt over` in
//! that order, in seconds, each formatted as the shortest decimal that reads back as the
//! same `f64`.

use crate::profile::Profile;

/// Why a note is not a list of `key=value` tokens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("note token {token:?}: expected key=value with a key of letters, digits and '_' and a value without spaces")]
pub struct NoteError {
    /// The offending token.
    pub token: String,
}

/// Splits a note into `key=value` tokens, checking their shape.
pub fn parse_note(note: &str) -> Result<Vec<String>, NoteError> {
    note.split_whitespace()
        .map(|tok| {
            let ok = tok.split_once('=').is_some_and(|(k, v)| {
                !k.is_empty()
                    && !v.is_empty()
                    && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            if ok {
                Ok(tok.to_owned())
            } else {
                Err(NoteError {
                    token: tok.to_owned(),
                })
            }
        })
        .collect()
}

/// Formats seconds as the shortest decimal that round-trips (`0`, `0.0132`, `1.7436`,
/// `2.5e-7`): plain notation from 1e-4 to 1e15, exponent notation outside.
pub fn format_seconds(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".to_owned()
    } else if (1e-4..1e15).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// The record line of `profile` with the note tokens first (no trailing newline).
pub fn format_record(note: &[String], profile: &Profile) -> String {
    let mut parts: Vec<String> = note.to_vec();
    if let Some(tag) = &profile.tag {
        // A record token cannot hold whitespace: such characters in a name become '_'.
        let tag: String = tag
            .chars()
            .map(|c| if c.is_whitespace() { '_' } else { c })
            .collect();
        parts.push(format!("tag={tag}"));
    }
    parts.push(format!("p={}", profile.processors));
    for (c, v) in profile.categories() {
        parts.push(format!("{}={}", c.key(), format_seconds(v)));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_round_trip() {
        for v in [0.0132, 1.7436, 0.1 + 0.2, 2.5e-7, 123456.789, 1e-9, 3e20] {
            let s = format_seconds(v);
            assert_eq!(s.parse::<f64>().unwrap(), v, "{s}");
        }
        assert_eq!(format_seconds(0.0), "0");
        assert_eq!(format_seconds(0.0132), "0.0132");
        assert_eq!(format_seconds(2.5e-7), "2.5e-7");
    }

    #[test]
    fn notes_must_be_key_value() {
        assert_eq!(parse_note("n=1024 impl=dp").unwrap(), ["n=1024", "impl=dp"]);
        assert!(parse_note("n=1 oops").is_err());
        assert!(parse_note("=3").is_err());
        assert_eq!(parse_note("").unwrap(), Vec::<String>::new());
    }
}
