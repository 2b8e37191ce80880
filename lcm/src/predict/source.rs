//! Reading an annotated Rust source: the `syn` syntax tree plus the `// lcm:` comment lines
//! (which `syn` drops) indexed by line, and the fragment rule.
//!
//! # Annotation blocks
//! An annotation block is the run of comment lines (`//`, ordinary comments included)
//! directly above a statement or expression, with no blank line in between; its `// lcm:`
//! lines annotate that statement.
//!
//! # The fragment rule
//! A fragment starts at the first statement below a block that holds
//! `// lcm: fragment NAME` and extends over the following statements of the same block (`{ }`)
//! up to, not including, the first statement that is preceded by a blank line or carries an
//! annotation block of its own, or to the end of the enclosing block. Everything inside those
//! statements — loops, calls, even parallel iterators — is covered by the fragment's model and
//! is not looked into, except for channel `send` / `recv` (a `recv` in a fragment happens
//! before its work, a `send` after it), which link fragments of different tasks.

use super::error::PredictError;
use lca::annotation::{parse_line, Annotation};
use std::collections::BTreeMap;

/// An annotated source file.
#[derive(Debug)]
pub struct SourceFile {
    /// The name used in messages (the path as given).
    pub name: String,
    /// The text's lines (index 0 is line 1).
    pub lines: Vec<String>,
    /// `// lcm:` annotations by 1-based line.
    pub annotations: BTreeMap<usize, Annotation>,
    /// The parsed syntax tree.
    pub syntax: syn::File,
}

impl SourceFile {
    /// Parses `text` (named `name` in messages). Malformed annotations, Rust syntax errors
    /// and nesting beyond [`super::nesting::MAX_SYNTAX_DEPTH`] are errors naming the line.
    pub fn parse(name: &str, text: &str) -> Result<SourceFile, PredictError> {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut annotations = BTreeMap::new();
        for (i, l) in lines.iter().enumerate() {
            if !l.trim_start().starts_with("//") {
                continue;
            }
            match parse_line(l) {
                Ok(Some(a)) => {
                    annotations.insert(i + 1, a);
                }
                Ok(None) => {}
                Err(e) => {
                    return Err(PredictError::Annotation {
                        file: name.to_string(),
                        line: i + 1,
                        column: e.column,
                        message: e.message,
                    })
                }
            }
        }
        super::nesting::check(name, text)?;
        let syntax = syn::parse_file(text).map_err(|e| {
            let start = e.span().start();
            PredictError::Syntax {
                file: name.to_string(),
                line: start.line,
                column: start.column + 1,
                message: e.to_string(),
            }
        })?;
        Ok(SourceFile {
            name: name.to_string(),
            lines,
            annotations,
            syntax,
        })
    }

    fn line_text(&self, line: usize) -> &str {
        line.checked_sub(1)
            .and_then(|i| self.lines.get(i))
            .map(String::as_str)
            .unwrap_or("")
    }

    /// Whether 1-based `line` is blank.
    pub fn is_blank(&self, line: usize) -> bool {
        self.line_text(line).trim().is_empty()
    }

    fn is_comment(&self, line: usize) -> bool {
        self.line_text(line).trim_start().starts_with("//")
    }

    /// The `// lcm:` annotations of the comment block directly above the code starting at
    /// `line` (with their lines), top to bottom. Annotations are whole-line comments only.
    pub fn block_above(&self, line: usize) -> Vec<(usize, Annotation)> {
        let mut out = Vec::new();
        let mut l = line;
        while l > 1 && self.is_comment(l - 1) {
            l -= 1;
            if let Some(a) = self.annotations.get(&l) {
                out.push((l, a.clone()));
            }
        }
        out.reverse();
        out
    }

    /// Whether a blank line lies strictly between lines `a` and `b`.
    pub fn blank_between(&self, a: usize, b: usize) -> bool {
        (a + 1..b).any(|l| self.is_blank(l))
    }
}
