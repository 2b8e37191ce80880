//! Extra-P's JSON Lines format (layout in [`super`]): reading it into profile records and
//! writing records in it.
//!
//! ```
//! let text = r#"{"params": {"n": 64, "p": 2}, "callpath": "cols", "metric": "rt", "value": [1.5, 1.6]}
//! {"params": {"n": 64, "p": 2}, "callpath": "cols", "metric": "li", "value": 0.25}
//! "#;
//! let recs = lca::extrap::jsonl::read(text).unwrap();
//! assert_eq!(recs[0].to_string(), "n=64 tag=cols p=2 rt=1.5 li=0.25");
//! assert_eq!(recs[1].to_string(), "n=64 tag=cols p=2 rt=1.6");
//! // Written back: one line per category (categories in `pp`'s order), read again.
//! let back = lca::extrap::jsonl::write(&recs, &["n".into(), "p".into()]).unwrap();
//! let again = lca::extrap::jsonl::read(&back).unwrap();
//! assert_eq!(again[0].to_string(), "n=64 tag=cols p=2 li=0.25 rt=1.5");
//! assert_eq!(again[1].to_string(), "n=64 tag=cols p=2 rt=1.6");
//! ```

use super::{check_params, valid_key, ExtrapError, Measurement, RecordBuilder};
use crate::record::{Record, RecordError, CATEGORY_KEYS};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Column (1-based, characters) of the first occurrence of `needle` in `line`, else 1.
fn column_of(line: &str, needle: &str) -> usize {
    line.find(needle)
        .map(|b| line[..b].chars().count() + 1)
        .unwrap_or(1)
}

fn finite(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

/// One measurement line of a JSON Lines file, checked: its coordinate (in the order of
/// `names`), callpath, metric and repeated values.
struct MeasurementLine {
    names: Vec<String>,
    coordinate: Vec<f64>,
    callpath: Option<String>,
    metric: String,
    values: Vec<f64>,
}

/// The text of one line and its number, to build errors that point into it.
struct LineAt<'a> {
    text: &'a str,
    lineno: usize,
}

impl LineAt<'_> {
    /// An error at the first occurrence of `needle` in the line (column 1 when absent).
    fn err(&self, needle: &str, message: String) -> ExtrapError {
        ExtrapError {
            line: self.lineno,
            column: column_of(self.text, needle),
            message,
        }
    }
}

/// Parses one non-blank line into a measurement line: a JSON object whose `params` have
/// the names of the first line (`params` remembers them), finite coordinates, string
/// `callpath` and `metric` (a valid record key, `time` when absent) and a finite `value`
/// or non-empty array of them.
fn measurement_line(
    at: &LineAt,
    params: &mut Option<Vec<String>>,
) -> Result<MeasurementLine, ExtrapError> {
    let value: Value = serde_json::from_str(at.text).map_err(|e| ExtrapError {
        line: at.lineno,
        column: e.column().max(1),
        message: format!("expected a JSON object on this line: {e}"),
    })?;
    let Value::Object(obj) = value else {
        return Err(at.err(
            "",
            "expected a JSON object, found another JSON value".into(),
        ));
    };
    let (names, coordinate) = line_params(at, &obj, params)?;
    let text_field = |key: &str| -> Result<Option<&str>, ExtrapError> {
        match obj.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(at.err(
                &format!("\"{key}\""),
                format!("expected a string for `{key}`, found {other}"),
            )),
        }
    };
    let callpath =
        text_field("callpath")?.map(|c| c.split_whitespace().collect::<Vec<_>>().join("_"));
    let metric = text_field("metric")?.unwrap_or("time").to_string();
    if !valid_key(&metric) || metric == "tag" || names.contains(&metric) {
        return Err(at.err(
            "\"metric\"",
            format!("expected a metric name usable as a record key (a letter or `_`, then letters, digits, `_ . -`; not a parameter or `tag`), found `{metric}`"),
        ));
    }
    let values: Vec<f64> = match obj.get("value") {
        Some(Value::Array(vs)) if !vs.is_empty() => vs.iter().map(finite).collect::<Option<_>>(),
        Some(v) => finite(v).map(|x| vec![x]),
        None => None,
    }
    .ok_or_else(|| {
        at.err(
            "\"value\"",
            "expected `\"value\"`: a finite number or a non-empty array of them".into(),
        )
    })?;
    Ok(MeasurementLine {
        names,
        coordinate,
        callpath,
        metric,
        values,
    })
}

/// The parameter names and coordinate of a line's `params` object; the names must be those
/// of the first line (remembered in `params`) and valid, the values finite.
fn line_params(
    at: &LineAt,
    obj: &Map<String, Value>,
    params: &mut Option<Vec<String>>,
) -> Result<(Vec<String>, Vec<f64>), ExtrapError> {
    let Some(Value::Object(ps)) = obj.get("params") else {
        return Err(at.err(
            "\"params\"",
            "expected `\"params\": {NAME: NUMBER, ...}`".into(),
        ));
    };
    let names: Vec<String> = ps.keys().cloned().collect();
    let known = params.get_or_insert_with(|| names.clone());
    if *known != names {
        return Err(at.err(
            "\"params\"",
            format!(
                "expected the parameters of the first line ({}), found {}",
                known.join(", "),
                names.join(", ")
            ),
        ));
    }
    check_params(known).map_err(|m| at.err("\"params\"", m))?;
    let mut coordinate = Vec::with_capacity(names.len());
    for (k, v) in ps {
        coordinate.push(finite(v).ok_or_else(|| {
            at.err(
                &format!("\"{k}\""),
                format!("expected a finite number for parameter `{k}`, found {v}"),
            )
        })?);
    }
    Ok((names, coordinate))
}

/// Reads a JSON Lines file into records. Errors name line and column.
pub fn read(text: &str) -> Result<Vec<Record>, ExtrapError> {
    let mut params: Option<Vec<String>> = None;
    let mut builder: Option<RecordBuilder> = None;
    let mut repetitions: HashMap<(Option<String>, String, Vec<u64>), usize> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = LineAt {
            text: line,
            lineno: i + 1,
        };
        let m = measurement_line(&at, &mut params)?;
        let builder = builder.get_or_insert_with(|| RecordBuilder::new(m.names.clone()));
        let key = (
            m.callpath.clone(),
            m.metric.clone(),
            m.coordinate.iter().map(|v| v.to_bits()).collect(),
        );
        for value in m.values {
            let rep = repetitions.entry(key.clone()).or_insert(0);
            builder
                .add(Measurement {
                    callpath: m.callpath.as_deref(),
                    coordinate: &m.coordinate,
                    metric: &m.metric,
                    repetition: *rep,
                    value,
                    line: at.lineno,
                })
                .map_err(|e| at.err("\"value\"", e))?;
            *rep += 1;
        }
    }
    builder
        .map(RecordBuilder::finish)
        .ok_or_else(|| ExtrapError {
            line: text.lines().count().max(1),
            column: 1,
            message: "expected JSON lines with measurements, found none".into(),
        })
}

/// Writes records as JSON Lines: for every record that carries all `variables`, one line
/// per category it has (the keys of [`CATEGORY_KEYS`] and `time`; `time` = tt / p is
/// added when the record has `tt` and `p` but no `time`), `params` the variables,
/// `callpath` the tag (absent for session records). A value that is not a number is an
/// error naming its line.
pub fn write(records: &[Record], variables: &[String]) -> Result<String, RecordError> {
    let mut out = String::new();
    for r in records {
        if !variables.iter().all(|v| r.has(v)) {
            continue;
        }
        let mut params = Map::new();
        for v in variables {
            params.insert(v.clone(), Value::from(r.number(v)?));
        }
        let mut metrics: Vec<(&str, f64)> = Vec::new();
        for k in CATEGORY_KEYS {
            if let Some(v) = r.number_opt(k)? {
                metrics.push((k, v));
            }
        }
        if r.has("time") || (r.has("tt") && r.has("p")) {
            if let Some(t) = r.category("time")? {
                metrics.push(("time", t));
            }
        }
        for (metric, value) in metrics {
            let mut line = Map::new();
            line.insert("params".into(), Value::Object(params.clone()));
            if let Some(tag) = r.tag() {
                line.insert("callpath".into(), Value::from(tag));
            }
            line.insert("metric".into(), Value::from(metric));
            line.insert("value".into(), Value::from(value));
            out.push_str(&Value::Object(line).to_string());
            out.push('\n');
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn repetitions_and_defaults() {
        let text = "{\"params\":{\"p\":1},\"value\":2}\n\n{\"params\":{\"p\":1},\"value\":3}\n{\"params\":{\"p\":2},\"metric\":\"rt\",\"value\":[4,5]}\n";
        let r = read(text).unwrap();
        let lines: Vec<String> = r.iter().map(|r| r.to_string()).collect();
        assert_eq!(lines, ["p=1 time=2", "p=1 time=3", "p=2 rt=4", "p=2 rt=5"]);
        assert_eq!(r[1].line(), 3);
    }

    #[test]
    fn errors_name_line_and_column() {
        let cases = [
            (
                "{\"params\":{\"p\":1},\"value\":2}\n{\"params\":{\"p\":1},\"value\":}\n",
                2,
                27,
            ),
            (
                "{\"params\":{\"p\":1},\"value\":2}\n{\"params\":{\"n\":1},\"value\":2}\n",
                2,
                2,
            ),
            ("{\"params\":{\"p\":\"x\"},\"value\":2}\n", 1, 12),
            ("{\"params\":{\"p\":1}}\n", 1, 1),
            ("{\"params\":{\"p\":1},\"value\":[]}\n", 1, 19),
            (
                "{\"params\":{\"p\":1},\"metric\":\"a b\",\"value\":1}\n",
                1,
                19,
            ),
            ("{\"params\":{\"tag\":1},\"value\":1}\n", 1, 2),
            ("[1]\n", 1, 1),
            ("\n", 1, 1),
        ];
        for (text, line, col) in cases {
            let e = read(text).unwrap_err();
            assert_eq!((e.line, e.column), (line, col), "{text:?}: {e}");
        }
    }

    #[test]
    fn writes_categories_and_time() {
        let recs =
            parse_records("n=4 tag=cols p=2 li=1 rt=3 tt=4\nn=4 p=2 tt=2\np=3 rt=1\n").unwrap();
        let text = write(&recs, &["n".into(), "p".into()]).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 6, "{text}");
        assert_eq!(
            lines[0],
            r#"{"callpath":"cols","metric":"li","params":{"n":4.0,"p":2.0},"value":1.0}"#
        );
        assert!(lines[3].contains(r#""metric":"time""#), "{text}");
        assert!(lines[3].ends_with(r#""value":2.0}"#), "{text}");
        assert!(!lines[4].contains("callpath"), "{text}");
        let back = read(&text).unwrap();
        assert_eq!(
            back[0].to_string(),
            "n=4 tag=cols p=2 li=1 rt=3 tt=4 time=2"
        );
    }
}
