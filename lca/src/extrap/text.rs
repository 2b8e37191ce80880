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

/// The parentheses and number tokens of `body` (starting at byte `base` of its line), with
/// their byte offsets in the line, in order.
fn point_tokens(body: &str, base: usize) -> Vec<(usize, Tok<'_>)> {
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
    // Parentheses are one byte, as are the spaces that replace them: a token of `spaced`
    // is the same bytes of `body`.
    toks.extend(
        tokens(&spaced, base)
            .into_iter()
            .map(|(at, t)| (at, Tok::Num(&body[at - base..at - base + t.len()]))),
    );
    toks.sort_by_key(|t| t.0);
    toks
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
    let toks = point_tokens(body, base);
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

/// One non-blank, non-comment line of a text file, split into its keyword and the rest,
/// with the byte offsets errors point at.
struct Statement<'a> {
    line: &'a str,
    lineno: usize,
    /// Byte offset of the keyword.
    start: usize,
    field: &'a str,
    /// Byte offset just after the keyword.
    rest_at: usize,
    /// The text after the keyword, trimmed.
    rest: &'a str,
    /// Byte offset of the first character of `rest`.
    rest_col: usize,
}

impl<'a> Statement<'a> {
    /// Splits line `lineno`; `None` for blank lines and `#` comments.
    fn split(line: &'a str, lineno: usize) -> Option<Self> {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            return None;
        }
        let start = line.len() - t.len();
        let field = t.split_whitespace().next().unwrap_or("");
        let rest_at = start + field.len();
        let rest = line[rest_at..].trim();
        let rest_col = rest_at + (line[rest_at..].len() - line[rest_at..].trim_start().len());
        Some(Statement {
            line,
            lineno,
            start,
            field,
            rest_at,
            rest,
            rest_col,
        })
    }

    /// An error at byte `byte` of the line.
    fn err(&self, byte: usize, message: String) -> ExtrapError {
        ExtrapError {
            line: self.lineno,
            column: column(self.line, byte),
            message,
        }
    }
}

/// What a text file has declared so far, and the records built from its DATA lines.
struct TextReader {
    params: Vec<String>,
    pts: Vec<Vec<f64>>,
    region: Option<String>,
    metric: String,
    block: Option<Block>,
    builder: Option<RecordBuilder>,
}

impl TextReader {
    fn new() -> Self {
        TextReader {
            params: Vec::new(),
            pts: Vec::new(),
            region: None,
            metric: "time".to_string(),
            block: None,
            builder: None,
        }
    }

    /// Applies one statement, by its keyword.
    fn statement(&mut self, s: &Statement) -> Result<(), ExtrapError> {
        match s.field {
            "PARAMETER" => self.parameter(s),
            "POINTS" => self.points(s),
            "REGION" | "METRIC" => self.region_or_metric(s),
            "DATA" => self.data(s),
            _ => Err(s.err(
                s.start,
                format!(
                    "expected PARAMETER, POINTS, REGION, METRIC or DATA, found `{}`",
                    s.field
                ),
            )),
        }
    }

    /// `PARAMETER NAME...`: more parameter names, before any POINTS, at most 4 in all.
    fn parameter(&mut self, s: &Statement) -> Result<(), ExtrapError> {
        if !self.pts.is_empty() {
            return Err(s.err(s.start, "expected PARAMETER lines before POINTS".into()));
        }
        let names: Vec<String> = s.rest.split_whitespace().map(str::to_string).collect();
        if names.is_empty() {
            return Err(s.err(
                s.rest_col,
                "expected parameter names after PARAMETER".into(),
            ));
        }
        self.params.extend(names);
        check_params(&self.params).map_err(|m| s.err(s.rest_col, m))?;
        if self.params.len() > 4 {
            return Err(s.err(
                s.start,
                "expected at most 4 parameters (the format's limit)".into(),
            ));
        }
        Ok(())
    }

    /// `POINTS ...`: more coordinates, after the parameters and before the first DATA.
    fn points(&mut self, s: &Statement) -> Result<(), ExtrapError> {
        if self.params.is_empty() {
            return Err(s.err(s.start, "expected PARAMETER lines before POINTS".into()));
        }
        if self.builder.is_some() {
            return Err(s.err(
                s.start,
                "expected every POINTS line before the first DATA".into(),
            ));
        }
        self.pts
            .extend(points(s.line, s.rest_at, self.params.len(), s.lineno)?);
        Ok(())
    }

    /// `REGION NAME` or `METRIC NAME`: closes the DATA block before it and names the next.
    fn region_or_metric(&mut self, s: &Statement) -> Result<(), ExtrapError> {
        let rest = s.rest;
        if rest.is_empty() {
            return Err(s.err(s.rest_col, format!("expected a name after {}", s.field)));
        }
        close(&self.block, self.pts.len())?;
        self.block = None;
        if s.field == "METRIC" {
            if !valid_key(rest) || rest == "tag" || self.params.iter().any(|p| p == rest) {
                return Err(s.err(
                    s.rest_col,
                    format!("expected a metric name usable as a record key (a letter or `_`, then letters, digits, `_ . -`; not a parameter or `tag`), found `{rest}`"),
                ));
            }
            self.metric = rest.to_string();
        } else {
            self.region = Some(rest.split_whitespace().collect::<Vec<_>>().join("_"));
        }
        Ok(())
    }

    /// `DATA VALUE...`: the repetitions at the block's next point.
    fn data(&mut self, s: &Statement) -> Result<(), ExtrapError> {
        if self.pts.is_empty() {
            return Err(s.err(
                s.start,
                "expected PARAMETER and POINTS lines before DATA".into(),
            ));
        }
        let b = self.block.get_or_insert(Block {
            line: s.lineno,
            count: 0,
        });
        if b.count >= self.pts.len() {
            return Err(s.err(
                s.start,
                format!(
                    "expected one DATA line per point ({}), found more",
                    self.pts.len()
                ),
            ));
        }
        let values = tokens(&s.line[s.rest_at..], s.rest_at);
        if values.is_empty() {
            return Err(s.err(s.rest_col, "expected values after DATA".into()));
        }
        let params = &self.params;
        let builder = self
            .builder
            .get_or_insert_with(|| RecordBuilder::new(params.clone()));
        for (rep, (at, v)) in values.into_iter().enumerate() {
            let value = number(s.line, at, v, s.lineno)?;
            builder
                .add(Measurement {
                    callpath: self.region.as_deref(),
                    coordinate: &self.pts[b.count],
                    metric: &self.metric,
                    repetition: rep,
                    value,
                    line: s.lineno,
                })
                .map_err(|m| s.err(at, m))?;
        }
        b.count += 1;
        Ok(())
    }

    /// The records, after closing the last block; `lines` is the file's line count.
    fn finish(self, lines: usize) -> Result<Vec<Record>, ExtrapError> {
        close(&self.block, self.pts.len())?;
        self.builder
            .map(RecordBuilder::finish)
            .ok_or_else(|| ExtrapError {
                line: lines.max(1),
                column: 1,
                message: "expected DATA lines, found none".into(),
            })
    }
}

/// Reads an Extra-P text file into records. Errors name line and column.
pub fn read(text: &str) -> Result<Vec<Record>, ExtrapError> {
    let mut reader = TextReader::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(statement) = Statement::split(line, i + 1) {
            reader.statement(&statement)?;
        }
    }
    reader.finish(text.lines().count())
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
