//! Profile records (docs/records.md): the line format `lca` reads.
//!
//! One line per profile: the note's `key=value` tokens, then `tag=NAME` for a fragment,
//! then `p=`, then the measured categories among `li fj ip sl wc cl rc ml os pc rt tt over`
//! in that order, in seconds, each formatted as the shortest decimal that reads back as the
//! same `f64`. `fj` (fork/join latency) is a part of `li`, not a term of
//! `li + ip + sl + wc + rt = tt`.

use crate::profile::Profile;
pub use ::category::ProfileRecord;

/// Why a note cannot head a record: a token that is not `key=value`, or whose key is one
/// `pp` writes itself or comes twice (a record with two values for a key is ambiguous).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("note token {token:?}: expected {expected}")]
pub struct NoteError {
    /// The offending token.
    pub token: String,
    /// What a token must be.
    pub expected: String,
}

/// The keys `pp` writes after the note: `tag`, `p` and every category key.
pub fn reserved_keys() -> impl Iterator<Item = &'static str> {
    ["tag", "p"]
        .into_iter()
        .chain(crate::category::Category::ALL.iter().map(|c| c.key()))
}

/// Splits a note into `key=value` tokens, checking their shape and that no key is one
/// `pp` writes itself ([`reserved_keys`]) or comes twice.
pub fn parse_note(note: &str) -> Result<Vec<String>, NoteError> {
    let mut keys: Vec<&str> = Vec::new();
    note.split_whitespace()
        .map(|tok| {
            let err = |expected: String| NoteError {
                token: tok.to_owned(),
                expected,
            };
            let key = tok
                .split_once('=')
                .filter(|(k, v)| {
                    !k.is_empty()
                        && !v.is_empty()
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                })
                .map(|(k, _)| k)
                .ok_or_else(|| {
                    err("key=value with a key of letters, digits and '_' and a value without spaces".to_owned())
                })?;
            if reserved_keys().any(|r| r == key) {
                let all: Vec<&str> = reserved_keys().collect();
                return Err(err(format!(
                    "a key other than those pp writes itself ({})",
                    all.join(" ")
                )));
            }
            if keys.contains(&key) {
                return Err(err(format!("a key not given before in the note ({key})")));
            }
            keys.push(key);
            Ok(tok.to_owned())
        })
        .collect()
}

pub use ::category::format_seconds;

/// The record of `profile` as a value, with the note's `key=value` tokens first (tokens as
/// [`parse_note`] accepts them).
pub fn profile_record(note: &[String], profile: &Profile) -> ProfileRecord {
    ProfileRecord {
        note: note
            .iter()
            .map(|t| match t.split_once('=') {
                Some((k, v)) => (k.to_owned(), v.to_owned()),
                None => (t.clone(), String::new()),
            })
            .collect(),
        tag: profile.tag.clone(),
        processors: profile.processors,
        categories: profile.categories(),
    }
}

/// The record line of `profile` with the note tokens first (no trailing newline).
pub fn format_record(note: &[String], profile: &Profile) -> String {
    profile_record(note, profile).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_must_be_key_value() {
        assert_eq!(parse_note("n=1024 impl=dp").unwrap(), ["n=1024", "impl=dp"]);
        assert!(parse_note("n=1 oops").is_err());
        assert!(parse_note("=3").is_err());
        assert_eq!(parse_note("").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn notes_may_not_use_keys_pp_writes_or_repeat_one() {
        for key in ["p", "tag", "li", "rt", "tt", "over", "pc"] {
            let e = parse_note(&format!("n=1 {key}=7")).unwrap_err();
            assert_eq!(e.token, format!("{key}=7"));
            assert!(e.to_string().contains("pp writes itself"), "{e}");
        }
        let e = parse_note("n=1 impl=a n=2").unwrap_err();
        assert_eq!(e.token, "n=2");
        assert!(parse_note("pp=1 tags=2 n_p=3").is_ok());
    }
}
