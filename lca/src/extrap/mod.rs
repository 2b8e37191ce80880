//! Extra-P interoperability: `lca` reads Extra-P's text and JSON Lines input formats and
//! writes JSON Lines, so that measurements move between the two tools.
//!
//! Extra-P (<https://github.com/extra-p/extrap>) models one *metric* of one *callpath*
//! over up to four *parameters*; a measurement may be repeated. `lca` reads such files into
//! the profile records of [`crate::record`], one record per callpath, point and repetition:
//!
//! | Extra-P | record |
//! |---|---|
//! | parameter `n` with coordinate 64 | `n=64` |
//! | callpath (`REGION`, `"callpath"`) `cols` | `tag=cols` (a fragment); no callpath: a session record |
//! | metric `rt` with value 0.5 | `rt=0.5`; no metric: `time` (wall-clock seconds) |
//! | repetition k of a point | the k-th record of that callpath and point |
//!
//! The metrics of one callpath, point and repetition form one record, so `lca model` sees
//! the categories together (`li`, `rt`, `tt`, … as `pp` names them). Parameter and metric
//! names must be record keys (a letter or `_`, then letters, digits, `_ . -`); `tag` cannot
//! be a parameter. Values must be finite numbers.
//!
//! # Text format ([`text`])
//!
//! Lines `PARAMETER NAME…` (one or more lines), `POINTS` with one point per parenthesized
//! group of coordinates (`POINTS ( 64 1 ) ( 128 1 )`; with one parameter the parentheses are
//! optional: `POINTS 64 128 256`; several POINTS lines add up), `REGION CALLPATH` and
//! `METRIC NAME` (each applies to the DATA lines that follow), and `DATA VALUE…`: one DATA
//! line per point, in POINTS order, its values the repetitions. A new REGION or METRIC
//! starts the points again; each such block needs exactly one DATA line per point. `#`
//! starts a comment line, blank lines are skipped.
//!
//! # JSON Lines format ([`jsonl`])
//!
//! One JSON object per line: `{"params": {"n": 64, "p": 4}, "callpath": "cols", "metric":
//! "rt", "value": 0.5}`. `params` and `value` are required (`value` is a number or an array
//! of repetitions), `callpath` and `metric` are optional. Every line names the same
//! parameters. Repeated lines of one callpath, metric and point are repetitions.
//!
//! `lca model --emit extrap` writes this format ([`jsonl::write`]): one line per selected
//! record and category, parameters the `-v` variables, plus `time` = tt / p when the record
//! has `tt` and `p` (Extra-P's usual metric, wall-clock seconds).
//!
//! The layouts follow Extra-P's `docs/file-formats.md` and its readers
//! `extrap/fileio/file_reader/text_file_reader.py` and `jsonlines_file_reader.py`.

pub mod jsonl;
pub mod text;

use crate::record::{parse_records, Record};
use std::collections::HashMap;
use std::fmt;

/// The input formats `lca` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// `pp -l` profile records ([`crate::record`]).
    Records,
    /// Extra-P's text format.
    ExtrapText,
    /// Extra-P's JSON Lines format.
    ExtrapJsonl,
}

impl InputFormat {
    /// Guesses the format from the first line that is neither blank nor a `#` comment: `{`
    /// starts JSON Lines, `PARAMETER` the text format; anything else is records.
    pub fn detect(text: &str) -> InputFormat {
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or("");
        if first.starts_with('{') {
            InputFormat::ExtrapJsonl
        } else if first.split_whitespace().next() == Some("PARAMETER") {
            InputFormat::ExtrapText
        } else {
            InputFormat::Records
        }
    }
}

/// A malformed Extra-P file: 1-based line and character column, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ExtrapError {
    /// 1-based line.
    pub line: usize,
    /// 1-based character column.
    pub column: usize,
    /// What was expected and what came.
    pub message: String,
}

/// Any input error: records (their own messages) or Extra-P (line:column).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InputError {
    /// A profile-records file.
    #[error(transparent)]
    Records(#[from] crate::record::RecordError),
    /// An Extra-P file.
    #[error(transparent)]
    Extrap(#[from] ExtrapError),
}

/// Reads `text` in `format` into profile records.
pub fn read_records(text: &str, format: InputFormat) -> Result<Vec<Record>, InputError> {
    Ok(match format {
        InputFormat::Records => parse_records(text)?,
        InputFormat::ExtrapText => text::read(text)?,
        InputFormat::ExtrapJsonl => jsonl::read(text)?,
    })
}

/// True when `name` can be a record key.
pub(crate) fn valid_key(name: &str) -> bool {
    let mut c = name.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || "_.-".contains(ch))
}

/// One measured value of Extra-P's model: where it is and what it is.
pub(crate) struct Measurement<'a> {
    pub callpath: Option<&'a str>,
    pub coordinate: &'a [f64],
    pub metric: &'a str,
    pub repetition: usize,
    pub value: f64,
    pub line: usize,
}

/// Gathers measurements into records: one per callpath, coordinate and repetition, the
/// metrics as keys, in order of first appearance.
#[derive(Default)]
pub(crate) struct RecordBuilder {
    params: Vec<String>,
    index: HashMap<(Option<String>, Vec<u64>, usize), usize>,
    records: Vec<(usize, Vec<(String, String)>)>,
}

impl RecordBuilder {
    pub fn new(params: Vec<String>) -> RecordBuilder {
        RecordBuilder {
            params,
            ..RecordBuilder::default()
        }
    }

    /// Adds one value; `Err` with a message when the record already has this metric.
    pub fn add(&mut self, m: Measurement<'_>) -> Result<(), String> {
        let key = (
            m.callpath.map(str::to_string),
            m.coordinate.iter().map(|v| v.to_bits()).collect(),
            m.repetition,
        );
        let params = &self.params;
        let records = &mut self.records;
        let at = *self.index.entry(key).or_insert_with(|| {
            let mut fields: Vec<(String, String)> = Vec::new();
            let value = |v: f64| crate::expr::format_number(v);
            for (p, v) in params.iter().zip(m.coordinate) {
                if p != "p" {
                    fields.push((p.clone(), value(*v)));
                }
            }
            if let Some(c) = m.callpath {
                fields.push(("tag".into(), c.to_string()));
            }
            for (p, v) in params.iter().zip(m.coordinate) {
                if p == "p" {
                    fields.push((p.clone(), value(*v)));
                }
            }
            records.push((m.line, fields));
            records.len() - 1
        });
        let fields = &mut records[at].1;
        if fields.iter().any(|(k, _)| k == m.metric) {
            return Err(format!(
                "expected one value of metric `{}` per point and repetition, found a second one",
                m.metric
            ));
        }
        fields.push((m.metric.to_string(), crate::expr::format_number(m.value)));
        Ok(())
    }

    pub fn finish(self) -> Vec<Record> {
        self.records
            .into_iter()
            .map(|(line, fields)| Record::new(line, fields))
            .collect()
    }
}

/// Checks a parameter list: record keys, not `tag`, each once.
pub(crate) fn check_params(params: &[String]) -> Result<(), String> {
    for (i, p) in params.iter().enumerate() {
        if !valid_key(p) || p == "tag" {
            return Err(format!(
                "expected a parameter name usable as a record key (a letter or `_`, then letters, digits, `_ . -`; not `tag`), found `{p}`"
            ));
        }
        if params[..i].contains(p) {
            return Err(format!("expected each parameter once, found `{p}` twice"));
        }
    }
    Ok(())
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputFormat::Records => "records",
            InputFormat::ExtrapText => "extrap-text",
            InputFormat::ExtrapJsonl => "extrap-jsonl",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_the_format() {
        assert_eq!(
            InputFormat::detect("# c\n\nPARAMETER n\n"),
            InputFormat::ExtrapText
        );
        assert_eq!(
            InputFormat::detect("{\"params\":{}}"),
            InputFormat::ExtrapJsonl
        );
        assert_eq!(InputFormat::detect("n=1 p=2 rt=3"), InputFormat::Records);
        assert_eq!(InputFormat::detect(""), InputFormat::Records);
    }
}
