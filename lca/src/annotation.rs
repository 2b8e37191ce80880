//! Model annotations: the `// lcm:` comment lines of docs/models.md.
//!
//! This module owns the format. One annotation per line comment:
//!
//! ```text
//! // lcm: fragment NAME          the fragment whose models follow
//! // lcm: CATEGORY = EXPR        a fitted model (CATEGORY: li ip sl wc cl rc ml os pc rt tt …)
//! // lcm: input NAME             data read by the code below
//! // lcm: output NAME            data written by the code below
//! // lcm: p = EXPR               processor override
//! // lcm: iterations = EXPR      trip count of a sequential loop
//! // lcm: range VAR = MIN..MAX, … the measured range of the models' variables
//! // lcm: like NAME              start from every model of measured fragment NAME
//! // lcm: contention = EXPR      slowdown beside concurrent tasks, a share of pc
//! ```
//!
//! # Derived models (restructuring rules)
//!
//! In the source of a restructured version, a category's expression may refer to a model
//! of the measured version: `FRAGMENT.CATEGORY` (`// lcm: sl = fill.sl / shards`) is one
//! dotted variable of the expression ([`references`] lists them; the fragment name is
//! everything before the last dot). `like NAME` makes a fragment inherit every category
//! model of the measured fragment NAME; `contention = EXPR` marks a fragment that runs
//! beside other busy tasks. `lcm predict --models FILE` resolves them against the models
//! file; docs/models.md describes the rules. A models file itself holds fitted models
//! only: a reference, `like` or `contention` there is an error.
//!
//! Spaces around tokens are free; `lcm:` must follow `//` (after optional spaces). `p` and
//! `iterations` are reserved and never categories.
//!
//! # The range annotation
//!
//! `// lcm: range n = 64..1024, p = 1..16` says that the fragment's models were fitted on
//! records with n from 64 to 1024 and p from 1 to 16 (the smallest and largest measured
//! value of each variable; numbers as in expressions, `MIN <= MAX`, each variable once,
//! separated by commas). It belongs to the fragment above it, like a model line. Tools that
//! evaluate the models at a point warn when the point lies beyond 2x that range
//! ([`crate::range`]). A fragment without a range line has no known range: no warning.
//! A variable's bounds may be followed by the growth of the models' error beyond them,
//! `n = 64..1024 (beyond: +4.2% per 2x)` ([`crate::extrapolation`]), which `lcm compare`
//! adds to its uncertainty per doubling beyond the range.
//!
//! # Models files
//!
//! A models file is what `lca model --emit annotation` writes and what `lcm predict
//! --models FILE`, `lcm compare --models FILE`, `lcm tree --models FILE` and `lca eval
//! --models FILE` read ([`parse_models`]): a sequence of annotation lines, one block per
//! fragment:
//!
//! ```text
//! # lca model -f fft.pp -v n,p --all-tags --emit annotation
//! // lcm: fragment cols
//! // lcm: range n = 64..1024, p = 1..16
//! // lcm: li = 1.1e-7*n*log2(n)*p
//! // lcm: rt = 2.09e-9*n^2*log2(n)
//!
//! // lcm: fragment session
//! // lcm: range n = 64..1024, p = 1..16
//! // lcm: rt = 0.0021*n
//! ```
//!
//! Blank lines, `#` comments and ordinary `//` comments are skipped. Every model line and
//! range line belongs to the `fragment` line above it; a fragment appears once, a category
//! and the range at most once per fragment; `input`, `output`, `p` and `iterations` lines
//! belong in source code, not in a models file. Model values are processor-seconds of the
//! fragment over what `pp` measured (a whole run for a fragment record; `session` is the
//! whole-program record). Errors name the 1-based line and column.
//!
//! ```
//! use lca::annotation::{parse_line, Annotation};
//! let a = parse_line("    // lcm: rt = 2e-9*n^2").unwrap().unwrap();
//! match &a {
//!     Annotation::Model { category, expr } => {
//!         assert_eq!(category, "rt");
//!         assert_eq!(expr.to_string(), "2e-9*n^2");
//!     }
//!     _ => unreachable!(),
//! }
//! assert_eq!(a.to_string(), "// lcm: rt = 2e-9*n^2");
//! assert_eq!(parse_line("// an ordinary comment").unwrap(), None);
//! ```

use crate::expr::{self, Expr};
use crate::range::{parse_ranges, VarRange};
use std::fmt;

/// One `// lcm:` annotation.
#[derive(Debug, Clone, PartialEq)]
pub enum Annotation {
    /// `// lcm: fragment NAME`
    Fragment(String),
    /// `// lcm: CATEGORY = EXPR` (a category's model, in processor-seconds).
    Model {
        /// The category key (`rt`, `li`, …).
        category: String,
        /// Its model.
        expr: Expr,
    },
    /// `// lcm: input NAME`
    Input(String),
    /// `// lcm: output NAME`
    Output(String),
    /// `// lcm: p = EXPR`
    Processors(Expr),
    /// `// lcm: iterations = EXPR`
    Iterations(Expr),
    /// `// lcm: range VAR = MIN..MAX, …` (the measured range of the models' variables).
    Range(Vec<VarRange>),
    /// `// lcm: like NAME`: the fragment starts from every category model of the measured
    /// fragment NAME (from the models file); its own category lines replace some of them.
    Like(String),
    /// `// lcm: contention = EXPR`: the fragment shares the machine with concurrent tasks;
    /// its pure computation slows by the share EXPR (added to its memory loss).
    Contention(Expr),
}

/// The reserved key of [`Annotation::Contention`].
pub const CONTENTION: &str = "contention";

/// The measured models an expression refers to: its dotted variables `FRAGMENT.CATEGORY`
/// (`fill.sl` gives `("fill", "sl")`), split at the last dot, in name order.
pub fn references(expr: &Expr) -> Vec<(String, String)> {
    expr.variables()
        .into_iter()
        .filter_map(|v| {
            let (frag, cat) = v.rsplit_once('.')?;
            Some((frag.to_string(), cat.to_string()))
        })
        .collect()
}

/// A malformed annotation: 1-based line (1 for [`parse_line`]) and character column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct AnnotationError {
    /// 1-based line number (1 when a single line was parsed).
    pub line: usize,
    /// 1-based character column in that line.
    pub column: usize,
    /// What was expected and what came.
    pub message: String,
}

impl AnnotationError {
    /// The same error attributed to another line (for callers that parse lines of a file
    /// one by one with [`parse_line`]).
    pub fn at_line(mut self, line: usize) -> AnnotationError {
        self.line = line;
        self
    }
}

/// The fitted models of one fragment, as read from a models file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FragmentModel {
    /// Fragment name.
    pub name: String,
    /// `(category, model)` in file order.
    pub categories: Vec<(String, Expr)>,
    /// The measured range of the variables (empty when unknown).
    pub ranges: Vec<VarRange>,
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Parses one line. `Ok(None)` when the line is not an `// lcm:` comment (code, other
/// comments, blank lines); an error when it is one but malformed.
pub fn parse_line(comment_text: &str) -> Result<Option<Annotation>, AnnotationError> {
    let col_of = |byte: usize| comment_text[..byte].chars().count() + 1;
    let trimmed = comment_text.trim_start();
    let Some(after_slashes) = trimmed.strip_prefix("//") else {
        return Ok(None);
    };
    let body_trim = after_slashes.trim_start();
    let Some(rest) = body_trim.strip_prefix("lcm:") else {
        return Ok(None);
    };
    let rest_start = comment_text.len() - rest.len();
    let err = |byte: usize, message: String| AnnotationError {
        line: 1,
        column: col_of(byte),
        message,
    };
    let content = rest.trim();
    if content.is_empty() {
        return Err(err(
            comment_text.len(),
            "expected `fragment NAME`, `like NAME`, `input NAME`, `output NAME` or `KEY = EXPR` after `lcm:`, found end of line".into(),
        ));
    }
    let content_start = rest_start + (rest.len() - rest.trim_start().len());
    if let Some(body) = content.strip_prefix("range") {
        let ranged = body.starts_with(char::is_whitespace) && !body.trim_start().starts_with('=');
        if ranged && body.contains('=') {
            let body_start = content_start + "range".len();
            return parse_ranges(body)
                .map(|r| Some(Annotation::Range(r)))
                .map_err(|(at, message)| err(body_start + at, message));
        }
    }
    // KEY = EXPR
    if let Some(eq) = content.find('=') {
        let key = content[..eq].trim();
        let expr_text = &content[eq + 1..];
        let expr_start = content_start + eq + 1;
        if !is_ident(key) {
            return Err(err(
                content_start,
                format!(
                    "expected a category name or `p` or `iterations` before `=`, found `{key}`"
                ),
            ));
        }
        let expr = expr::parse(expr_text).map_err(|e| {
            err(
                expr_start,
                format!("expected {}, found {}", e.expected, e.found),
            )
            .with_column(col_of(expr_start) + e.column - 1)
        })?;
        return Ok(Some(match key {
            "p" => Annotation::Processors(expr),
            "iterations" => Annotation::Iterations(expr),
            CONTENTION => Annotation::Contention(expr),
            _ => Annotation::Model {
                category: key.to_string(),
                expr,
            },
        }));
    }
    let mut words = content.split_whitespace();
    let keyword = words.next().unwrap_or("");
    let name = words.next();
    let extra = words.next();
    let make: fn(String) -> Annotation = match keyword {
        "fragment" => Annotation::Fragment,
        "input" => Annotation::Input,
        "output" => Annotation::Output,
        "like" => Annotation::Like,
        _ => {
            return Err(err(
                content_start,
                format!(
                "expected `fragment`, `like`, `input`, `output` or `KEY = EXPR`, found `{keyword}`"
            ),
            ))
        }
    };
    match (name, extra) {
        (Some(n), None) if is_ident_or_path(n) => Ok(Some(make(n.to_string()))),
        (Some(n), None) => Err(err(
            content_start + content.find(n).unwrap_or(0),
            format!("expected a name after `{keyword}`, found `{n}`"),
        )),
        (None, _) => Err(err(
            comment_text.trim_end().len(),
            format!("expected a name after `{keyword}`, found end of line"),
        )),
        (Some(_), Some(x)) => Err(err(
            content_start + content.rfind(x).unwrap_or(0),
            format!("expected end of line after `{keyword} NAME`, found `{x}`"),
        )),
    }
}

/// Fragment and data names: identifiers, also with `.`, `-`, `:` or `/` inside (`fft.cols`).
fn is_ident_or_path(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_alphanumeric() || ch == '_')
        && c.all(|ch| ch.is_alphanumeric() || "_.-:/".contains(ch))
}

impl AnnotationError {
    fn with_column(mut self, column: usize) -> AnnotationError {
        self.column = column;
        self
    }
}

/// Reads a models file: the `// lcm: fragment` / `// lcm: CATEGORY = EXPR` lines written
/// by `lca --emit annotation`. Errors name the 1-based line.
pub fn parse_models(text: &str) -> Result<Vec<FragmentModel>, AnnotationError> {
    let mut out: Vec<FragmentModel> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let parsed = parse_line(raw).map_err(|e| e.at_line(line))?;
        let err = |message: String| AnnotationError {
            line,
            column: raw.len() - raw.trim_start().len() + 1,
            message,
        };
        match parsed {
            None if t.starts_with("//") => continue,
            None => {
                return Err(err(format!(
                    "expected an `// lcm:` line, found `{}`",
                    truncate(t)
                )))
            }
            Some(Annotation::Fragment(name)) => {
                if out.iter().any(|f| f.name == name) {
                    return Err(err(format!(
                        "expected each fragment once, found `{name}` again"
                    )));
                }
                out.push(FragmentModel {
                    name,
                    ..FragmentModel::default()
                });
            }
            Some(Annotation::Model { category, expr }) => {
                let Some(frag) = out.last_mut() else {
                    return Err(err(format!(
                        "expected `// lcm: fragment NAME` before the model of `{category}`"
                    )));
                };
                if frag.categories.iter().any(|(c, _)| *c == category) {
                    return Err(err(format!(
                        "expected each category once per fragment, found `{category}` again in `{}`",
                        frag.name
                    )));
                }
                if let Some((rf, rc)) = references(&expr).into_iter().next() {
                    return Err(err(format!(
                        "expected a fitted model of `{category}` in a models file, found a reference to `{rf}.{rc}` (references belong in the restructured source)"
                    )));
                }
                frag.categories.push((category, expr));
            }
            Some(Annotation::Range(ranges)) => {
                let Some(frag) = out.last_mut() else {
                    return Err(err(
                        "expected `// lcm: fragment NAME` before the range line".into(),
                    ));
                };
                if !frag.ranges.is_empty() {
                    return Err(err(format!(
                        "expected one range line per fragment, found a second one in `{}`",
                        frag.name
                    )));
                }
                frag.ranges = ranges;
            }
            Some(other) => {
                return Err(err(format!(
                    "expected `fragment` or `CATEGORY = EXPR` in a models file, found `{other}`"
                )))
            }
        }
    }
    Ok(out)
}

fn truncate(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

impl fmt::Display for Annotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Annotation::Fragment(n) => write!(f, "// lcm: fragment {n}"),
            Annotation::Model { category, expr } => write!(f, "// lcm: {category} = {expr}"),
            Annotation::Input(n) => write!(f, "// lcm: input {n}"),
            Annotation::Output(n) => write!(f, "// lcm: output {n}"),
            Annotation::Processors(e) => write!(f, "// lcm: p = {e}"),
            Annotation::Iterations(e) => write!(f, "// lcm: iterations = {e}"),
            Annotation::Like(n) => write!(f, "// lcm: like {n}"),
            Annotation::Contention(e) => write!(f, "// lcm: {CONTENTION} = {e}"),
            Annotation::Range(ranges) => {
                write!(f, "// lcm: range ")?;
                for (i, r) in ranges.iter().enumerate() {
                    let text = crate::range::RangeText(r);
                    write!(f, "{}{text}", if i > 0 { ", " } else { "" })?;
                }
                Ok(())
            }
        }
    }
}

impl FragmentModel {
    /// Models of one fragment without a measured range.
    pub fn new(name: &str, categories: Vec<(String, Expr)>) -> FragmentModel {
        FragmentModel {
            name: name.to_string(),
            categories,
            ranges: Vec::new(),
        }
    }

    /// The annotation lines of this fragment (`fragment` line first, then the range when
    /// known), as `lca --emit annotation` writes them.
    pub fn annotations(&self) -> Vec<Annotation> {
        let mut v = vec![Annotation::Fragment(self.name.clone())];
        if !self.ranges.is_empty() {
            v.push(Annotation::Range(self.ranges.clone()));
        }
        v.extend(self.categories.iter().map(|(c, e)| Annotation::Model {
            category: c.clone(),
            expr: e.clone(),
        }));
        v
    }

    /// The model of one category, if present.
    pub fn category(&self, name: &str) -> Option<&Expr> {
        self.categories
            .iter()
            .find(|(c, _)| c == name)
            .map(|(_, e)| e)
    }
}

impl fmt::Display for FragmentModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in self.annotations() {
            writeln!(f, "{a}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_forms_parse_and_print() {
        for line in [
            "// lcm: fragment cols",
            "// lcm: rt = 2.09e-9*n^2*log2(n)",
            "// lcm: li = 1.1e-7*n*log2(n)*p*sqrt(p)",
            "// lcm: input a",
            "// lcm: output a",
            "// lcm: p = p/2 - 1",
            "// lcm: iterations = iters",
            "// lcm: range n = 64..1024, p = 1..16",
            "// lcm: range x = 0.001..2.5",
        ] {
            let a = parse_line(line).unwrap().unwrap();
            assert_eq!(a.to_string(), line);
        }
        assert_eq!(
            parse_line("  //lcm:   p=4").unwrap(),
            Some(Annotation::Processors(Expr::Num(4.0)))
        );
        assert_eq!(parse_line("let x = 1; // lcm: rt = n").unwrap(), None);
        assert_eq!(parse_line("// lcmx").unwrap(), None);
        assert_eq!(parse_line("").unwrap(), None);
    }

    #[test]
    fn derived_forms_parse_and_print() {
        for line in [
            "// lcm: like fill",
            "// lcm: like fft.cols",
            "// lcm: contention = corun_cols",
            "// lcm: sl = fill.sl/shards",
            "// lcm: wc = search.pc*(p*span - 1)",
            "// lcm: ml = n*2*(p - 1)/p*max(concurrent_key_s - sharded_key_s, 0)",
            "// lcm: pc = fft.cols.pc*0.0025",
        ] {
            let a = parse_line(line).unwrap().unwrap();
            assert_eq!(a.to_string(), line);
        }
        let Some(Annotation::Model { expr, .. }) =
            parse_line("// lcm: wc = search.pc*(p*span - 1) + fft.cols.wc").unwrap()
        else {
            panic!("a model line")
        };
        assert_eq!(
            references(&expr),
            [
                ("fft.cols".to_string(), "wc".to_string()),
                ("search".to_string(), "pc".to_string())
            ]
        );
        assert_eq!(
            parse_line("// lcm: contention = 0.2").unwrap(),
            Some(Annotation::Contention(Expr::Num(0.2)))
        );
        // Numbers keep their dots; a dot before a digit is no reference.
        let Some(Annotation::Model { expr, .. }) = parse_line("// lcm: rt = 2.5e-3*n").unwrap()
        else {
            panic!("a model line")
        };
        assert!(references(&expr).is_empty());
        assert!(parse_line("// lcm: rt = fill.").is_err());
        assert!(parse_line("// lcm: rt = fill.5").is_err());
        assert!(parse_line("// lcm: like").is_err());
        assert!(parse_line("// lcm: like a b").is_err());
        assert!(parse_line("// lcm: contention =").is_err());
    }

    #[test]
    fn models_files_hold_no_derived_models() {
        let e = parse_models("// lcm: fragment a\n// lcm: sl = b.sl/2\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("`b.sl`"), "{e}");
        let e = parse_models("// lcm: fragment a\n// lcm: like b\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse_models("// lcm: fragment a\n// lcm: contention = 1\n").unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn errors_point_at_the_column() {
        let e = parse_line("// lcm: rt = 2*n +").unwrap_err();
        assert_eq!(e.column, 19, "{e}");
        let e = parse_line("// lcm: rt = 2*$n").unwrap_err();
        assert_eq!(e.column, 16, "{e}");
        let e = parse_line("// lcm: frobnicate x").unwrap_err();
        assert_eq!(e.column, 9);
        assert!(e.message.contains("frobnicate"));
        assert!(parse_line("// lcm: fragment").is_err());
        assert!(parse_line("// lcm: fragment a b").is_err());
        assert!(parse_line("// lcm:").is_err());
        assert!(parse_line("// lcm: 2x = n").is_err());
        let e = parse_line("// lcm: range n = 64..1024, p = 16..1").unwrap_err();
        assert_eq!(e.column, 33, "{e}");
        // `range = EXPR` is a model of a category called `range`, not a range line.
        assert!(matches!(
            parse_line("// lcm: range = 2*n").unwrap(),
            Some(Annotation::Model { .. })
        ));
    }

    #[test]
    fn models_file() {
        let text = "# written by lca\n// lcm: fragment cols\n// lcm: rt = 2e-9*n^2\n\n// lcm: li = 3*p\n// lcm: fragment rows\n// lcm: ip = 1e-5*p\n";
        let m = parse_models(text).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].name, "cols");
        assert_eq!(m[0].categories.len(), 2);
        assert_eq!(m[0].category("li").unwrap().to_string(), "3*p");
        assert_eq!(m[1].categories[0].0, "ip");
        let again = parse_models(&format!("{}{}", m[0], m[1])).unwrap();
        assert_eq!(again, m);
        let text = "// lcm: fragment cols\n// lcm: range n = 64..1024, p = 1..16\n// lcm: rt = n\n";
        let m = parse_models(text).unwrap();
        assert_eq!(
            m[0].ranges,
            [
                VarRange::new("n", 64.0, 1024.0),
                VarRange::new("p", 1.0, 16.0)
            ]
        );
        assert_eq!(m[0].to_string(), text);
    }

    #[test]
    fn models_file_errors_name_the_line() {
        let e = parse_models("// lcm: rt = n\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse_models("// lcm: fragment a\n// lcm: rt = n\n// lcm: rt = 2*n\n").unwrap_err();
        assert_eq!(e.line, 3);
        let e = parse_models("// lcm: fragment a\nrt = n\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse_models("// lcm: fragment a\n// lcm: rt = n*(\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().starts_with("line 2, column 17:"), "{e}");
        let e = parse_models("// lcm: fragment a\n// lcm: input x\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse_models("// lcm: range n = 1..2\n").unwrap_err();
        assert_eq!(e.line, 1);
        let twice = "// lcm: fragment a\n// lcm: range n = 1..2\n// lcm: range p = 1..2\n";
        assert_eq!(parse_models(twice).unwrap_err().line, 3);
    }
}
