//! Extra-P's text input format (layout in [`super`]): reading it into profile records.
//!
//! ```
//! let text = "PARAMETER n\nPARAMETER p\nPOINTS ( 64 1 ) ( 128 2 )\nREGION cols\nMETRIC rt\nDATA 1.5 1.6\nDATA 3.1 3.0\n";
//! let recs = lca::extrap::text::read(text).unwrap();
//! assert_eq!(recs.len(), 4); // 2 points x 2 repetitions
//! assert_eq!(recs[0].to_string(), "n=64 tag=cols p=1 rt=1.5");
//! assert_eq!(recs[3].to_string(), "n=128 tag=cols p=2 rt=3");
//! ```

use super::{check_params, valid_key, ExtrapError, Measurement, RecordBuilder};
use crate::record::Record;

/// Column (1-based, characters) of byte offset `byte` in `line`.
fn column(line: &str, byte: usize) -> usize {
    line[..byte].chars().count() + 1
}

/// A number token at byte `at` of `line`.
fn number(line: &str, at: usize, token: &str, lineno: usize) -> Result<f64, ExtrapError> {
    token
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| ExtrapError {
            line: lineno,
            column: column(line, at),
            message: format!("expected a finite number, found `{token}`"),
        })
}

/// The whitespace-separated tokens of `s` (starting at byte `base` of its line) with their
/// byte offsets in the line.
fn tokens(s: &str, base: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(st)) => {
                out.push((base + st, &s[st..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(st) = start {
        out.push((base + st, &s[st..]));
    }
    out
}

/// Parses the coordinates after `POINTS` (at byte `base` of `line`): parenthesized groups
/// of `dims` numbers each (a number may sit in its own parentheses), or with one parameter
/// bare numbers.
fn points(
    line: &str,
    base: usize,
    dims: usize,
    lineno: usize,
) -> Result<Vec<Vec<f64>>, ExtrapError> {
    let body = &line[base..];
    let err = |byte: usize, message: String| ExtrapError {
        line: lineno,
        column: column(line, byte),
        message,
    };
    if !body.contains('(') {
        if dims != 1 {
            return Err(err(
                base,
                format!(
                    "expected points in parentheses with {dims} coordinates each, like `( 64 4 )`"
                ),
            ));
        }
        return tokens(body, base)
            .into_iter()
            .map(|(at, t)| Ok(vec![number(line, at, t, lineno)?]))
            .collect();
    }
    // Split parentheses from numbers.
    let spaced: String = body
        .chars()
        .map(|c| if c == '(' || c == ')' { ' ' } else { c })
        .collect();
    let mut toks: Vec<(usize, Tok)> = body
        .char_indices()
        .filter_map(|(i, c)| match c {
            '(' => Some((base + i, Tok::Open)),
            ')' => Some((base + i, Tok::Close)),
            _ => None,
        })
        .collect();
    toks.extend(
        tokens(&spaced, base)
            .into_iter()
            .map(|(at, t)| (at, Tok::Num(t))),
    );
    toks.sort_by_key(|t| t.0);
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current: Vec<f64> = Vec::new();
    let mut group_start = base;
    for (at, tok) in toks {
        match tok {
            Tok::Open => {
                depth += 1;
                if depth == 1 {
                    group_start = at;
                    current.clear();
                } else if depth > 2 {
                    return Err(err(at, "expected at most two levels of parentheses".into()));
                }
            }
            Tok::Close => {
                if depth == 0 {
                    return Err(err(at, "expected `(` before `)`".into()));
                }
                depth -= 1;
                if depth == 0 {
                    if current.len() != dims {
                        return Err(err(
                            group_start,
                            format!(
                                "expected {dims} coordinate(s) per point (one per PARAMETER), found {}",
                                current.len()
                            ),
                        ));
                    }
                    out.push(std::mem::take(&mut current));
                }
            }
            Tok::Num(t) => {
                if depth == 0 {
                    return Err(err(at, "expected `(` before a point's coordinates".into()));
                }
                current.push(number(line, at, t, lineno)?);
            }
        }
    }
    if depth > 0 {
        return Err(err(line.len(), "expected `)`, found end of line".into()));
    }
    Ok(out)
}

/// A token of a POINTS line.
enum Tok<'a> {
    Open,
    Close,
    Num(&'a str),
}

/// The DATA lines of one REGION/METRIC block.
struct Block {
    line: usize,
    count: usize,
}

fn close(block: &Option<Block>, points: usize) -> Result<(), ExtrapError> {
    match block {
        Some(b) if b.count != points => Err(ExtrapError {
            line: b.line,
            column: 1,
            message: format!(
                "expected one DATA line per point ({points}) in this block, found {}",
                b.count
            ),
        }),
        _ => Ok(()),
    }
}

/// Reads an Extra-P text file into records. Errors name line and column.
pub fn read(text: &str) -> Result<Vec<Record>, ExtrapError> {
    let mut params: Vec<String> = Vec::new();
    let mut pts: Vec<Vec<f64>> = Vec::new();
    let mut region: Option<String> = None;
    let mut metric = "time".to_string();
    let mut block: Option<Block> = None;
    let mut builder: Option<RecordBuilder> = None;
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let start = line.len() - t.len();
        let field = t.split_whitespace().next().unwrap_or("");
        let rest_at = start + field.len();
        let rest = line[rest_at..].trim();
        let rest_col = rest_at + (line[rest_at..].len() - line[rest_at..].trim_start().len());
        let err = |byte: usize, message: String| ExtrapError {
            line: lineno,
            column: column(line, byte),
            message,
        };
        match field {
            "PARAMETER" => {
                if !pts.is_empty() {
                    return Err(err(start, "expected PARAMETER lines before POINTS".into()));
                }
                let names: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
                if names.is_empty() {
                    return Err(err(
                        rest_col,
                        "expected parameter names after PARAMETER".into(),
                    ));
                }
                params.extend(names);
                check_params(&params).map_err(|m| err(rest_col, m))?;
                if params.len() > 4 {
                    return Err(err(
                        start,
                        "expected at most 4 parameters (the format's limit)".into(),
                    ));
                }
            }
            "POINTS" => {
                if params.is_empty() {
                    return Err(err(start, "expected PARAMETER lines before POINTS".into()));
                }
                if builder.is_some() {
                    return Err(err(
                        start,
                        "expected every POINTS line before the first DATA".into(),
                    ));
                }
                pts.extend(points(line, rest_at, params.len(), lineno)?);
            }
            "REGION" | "METRIC" => {
                if rest.is_empty() {
                    return Err(err(rest_col, format!("expected a name after {field}")));
                }
                close(&block, pts.len())?;
                block = None;
                if field == "METRIC" {
                    if !valid_key(rest) || rest == "tag" || params.iter().any(|p| p == rest) {
                        return Err(err(
                            rest_col,
                            format!("expected a metric name usable as a record key (a letter or `_`, then letters, digits, `_ . -`; not a parameter or `tag`), found `{rest}`"),
                        ));
                    }
                    metric = rest.to_string();
                } else {
                    region = Some(rest.split_whitespace().collect::<Vec<_>>().join("_"));
                }
            }
            "DATA" => {
                if pts.is_empty() {
                    return Err(err(
                        start,
                        "expected PARAMETER and POINTS lines before DATA".into(),
                    ));
                }
                let b = block.get_or_insert(Block {
                    line: lineno,
                    count: 0,
                });
                if b.count >= pts.len() {
                    return Err(err(
                        start,
                        format!(
                            "expected one DATA line per point ({}), found more",
                            pts.len()
                        ),
                    ));
                }
                let values = tokens(&line[rest_at..], rest_at);
                if values.is_empty() {
                    return Err(err(rest_col, "expected values after DATA".into()));
                }
                let builder = builder.get_or_insert_with(|| RecordBuilder::new(params.clone()));
                for (rep, (at, v)) in values.into_iter().enumerate() {
                    let value = number(line, at, v, lineno)?;
                    builder
                        .add(Measurement {
                            callpath: region.as_deref(),
                            coordinate: &pts[b.count],
                            metric: &metric,
                            repetition: rep,
                            value,
                            line: lineno,
                        })
                        .map_err(|m| err(at, m))?;
                }
                b.count += 1;
            }
            _ => {
                return Err(err(
                    start,
                    format!("expected PARAMETER, POINTS, REGION, METRIC or DATA, found `{field}`"),
                ))
            }
        }
    }
    close(&block, pts.len())?;
    builder
        .map(RecordBuilder::finish)
        .ok_or_else(|| ExtrapError {
            line: text.lines().count().max(1),
            column: 1,
            message: "expected DATA lines, found none".into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_parameter_bare_points_and_two_metrics() {
        let text = "# c\nPARAMETER p\nPOINTS 1 2 4\n\nREGION main loop\nMETRIC li\nDATA 0\nDATA 0.5\nDATA 1.5\nMETRIC rt\nDATA 2 2.2\nDATA 1\nDATA 0.5\n";
        let r = read(text).unwrap();
        let lines: Vec<String> = r.iter().map(|r| r.to_string()).collect();
        assert_eq!(
            lines,
            [
                "tag=main_loop p=1 li=0 rt=2",
                "tag=main_loop p=2 li=0.5 rt=1",
                "tag=main_loop p=4 li=1.5 rt=0.5",
                "tag=main_loop p=1 rt=2.2",
            ]
        );
        assert_eq!(r[0].line(), 7);
    }

    #[test]
    fn nested_parentheses_and_no_region() {
        let text = "PARAMETER n p\nPOINTS ((64) (1)) ((128) (2))\nDATA 1\nDATA 2\n";
        let r = read(text).unwrap();
        assert_eq!(r[1].to_string(), "n=128 p=2 time=2");
        assert_eq!(r[1].tag(), None);
    }

    #[test]
    fn errors_name_line_and_column() {
        let cases = [
            ("PARAMETER n\nPOINTS 1 x 3\n", 2, 10),
            ("PARAMETER n p\nPOINTS ( 1 2 ) ( 3 )\n", 2, 16),
            ("PARAMETER n p\nPOINTS 1 2\n", 2, 7),
            ("PARAMETER n\nPOINTS 1 2\nDATA 1\nDATA 2\nDATA 3\n", 5, 1),
            (
                "PARAMETER n\nPOINTS 1 2\nREGION a\nDATA 1\nREGION b\n",
                4,
                1,
            ),
            ("PARAMETER n\nPOINTS 1 2\nDATA 1\n", 3, 1),
            ("PARAMETER n\nPOINTS 1\nMETRIC bad name\n", 3, 8),
            ("PARAMETER n\nPOINTS 1\nDATA 1 nan\n", 3, 8),
            ("PARAMETER tag\n", 1, 11),
            ("PARAMETER n\nFOO 1\n", 2, 1),
            ("PARAMETER n\nPOINTS ( 1\n", 2, 11),
            ("DATA 1\n", 1, 1),
            ("PARAMETER n\nPOINTS 1\n", 2, 1),
        ];
        for (text, line, col) in cases {
            let e = read(text).unwrap_err();
            assert_eq!((e.line, e.column), (line, col), "{text:?}: {e}");
        }
    }
}
