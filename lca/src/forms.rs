//! The forms file: default model forms per (category, variable).
//!
//! The file shipped with `lca` (`lca/forms.txt`, compiled in) holds Crovella's Table 5.1
//! and more; `--forms FILE` replaces it. Format, one form per line (`#` starts a comment):
//!
//! ```text
//! CATEGORY  VARIABLE  FORM
//! li        p         k1*p*sqrt(p) + k2
//! rc        p         max(k1*p + k2, k3)
//! *         n         k1*n*log2(n) + k2      # `*`: every category
//! ip        *         k1*x                   # `*` variable: `x` stands for it
//! ```
//!
//! Forms apply to single-variable fits only.

use crate::hypothesis::{Hypothesis, HypothesisError};
use std::collections::BTreeMap;

/// The forms file shipped with lca.
pub const SHIPPED: &str = include_str!("../forms.txt");

/// One row of a forms file.
#[derive(Debug, Clone, PartialEq)]
pub struct FormRow {
    /// Category or `*`.
    pub category: String,
    /// Variable or `*`.
    pub variable: String,
    /// The form text.
    pub form: String,
    /// 1-based line.
    pub line: usize,
}

/// A parsed forms file.
#[derive(Debug, Clone, PartialEq)]
pub struct FormsFile {
    /// File name for messages.
    pub source: String,
    /// Rows in file order.
    pub rows: Vec<FormRow>,
}

/// A malformed forms file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}: line {line}: {message}")]
pub struct FormsError {
    /// File name.
    pub source_name: String,
    /// 1-based line.
    pub line: usize,
    /// What was expected and what came.
    pub message: String,
}

impl FormsFile {
    /// The shipped forms.
    pub fn shipped() -> FormsFile {
        FormsFile::parse(SHIPPED, "forms.txt (shipped)").expect("the shipped forms file parses")
    }

    /// Parses a forms file; every form is checked (syntax, parameters) here.
    pub fn parse(text: &str, source: &str) -> Result<FormsFile, FormsError> {
        let mut rows = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let t = raw.split('#').next().unwrap_or("").trim();
            if t.is_empty() {
                continue;
            }
            let err = |message: String| FormsError {
                source_name: source.into(),
                line,
                message,
            };
            let mut it = t.split_whitespace();
            let (cat, var) = (it.next(), it.next());
            let form = it.collect::<Vec<_>>().join(" ");
            let (Some(cat), Some(var), false) = (cat, var, form.is_empty()) else {
                return Err(err(format!(
                    "expected `CATEGORY VARIABLE FORM`, found `{t}`"
                )));
            };
            let var_name = if var == "*" { "x" } else { var };
            Hypothesis::form(&form, &[var_name.to_string()]).map_err(|e| err(e.to_string()))?;
            rows.push(FormRow {
                category: cat.into(),
                variable: var.into(),
                form,
                line,
            });
        }
        Ok(FormsFile {
            source: source.into(),
            rows,
        })
    }

    /// The hypotheses for `category` over `variables` (empty unless exactly one variable),
    /// deduplicated, in file order.
    pub fn hypotheses(
        &self,
        category: &str,
        variables: &[String],
    ) -> Result<Vec<Hypothesis>, HypothesisError> {
        let [v] = variables else {
            return Ok(Vec::new());
        };
        let mut out: Vec<Hypothesis> = Vec::new();
        for r in &self.rows {
            if (r.category != category && r.category != "*")
                || (r.variable != *v && r.variable != "*")
            {
                continue;
            }
            let mut h = Hypothesis::form(&r.form, &[r.variable.replace('*', "x")])?;
            if r.variable == "*" && v != "x" {
                let ren: BTreeMap<String, String> = [("x".to_string(), v.clone())].into();
                let text = crate::expr::parse(&r.form)
                    .map(|e| e.rename_vars(&ren).to_string())
                    .unwrap_or_else(|_| r.form.clone());
                h = Hypothesis::form(&text, variables)?;
            }
            if !out.iter().any(|o| o.label == h.label) {
                out.push(h);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_has_table_5_1() {
        let f = FormsFile::shipped();
        let li: Vec<String> = f
            .hypotheses("li", &["p".into()])
            .unwrap()
            .into_iter()
            .map(|h| h.label)
            .collect();
        assert!(li.contains(&"k1*p*sqrt(p) + k2".to_string()), "{li:?}");
        assert!(li.contains(&"k1".to_string()));
        let rc = f.hypotheses("rc", &["p".into()]).unwrap();
        assert!(rc.iter().any(|h| h.label == "max(k1*p + k2, k3)"));
        let rt = f.hypotheses("rt", &["n".into()]).unwrap();
        assert!(rt.iter().any(|h| h.label == "k1*n^3 + k2"));
        assert!(f
            .hypotheses("li", &["n".into(), "p".into()])
            .unwrap()
            .is_empty());
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = FormsFile::parse("# c\nli p k1*p +\n", "my.forms").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().starts_with("my.forms: line 2:"), "{e}");
        assert!(FormsFile::parse("li p\n", "f").is_err());
        let f = FormsFile::parse("ip * k1*x + k2\n", "f").unwrap();
        let h = f.hypotheses("ip", &["q".into()]).unwrap();
        assert_eq!(h[0].label, "k1*q + k2");
    }
}
