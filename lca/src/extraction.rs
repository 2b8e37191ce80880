//! Extraction expressions (`lca -x`): which records take part in a fit.
//!
//! ```text
//! extraction := clause ('||' clause)*
//! clause     := cmp (('&&' | whitespace) cmp)*      // a bare `k=v k2=v2` list is an AND
//! cmp        := KEY OP VALUE                         // no spaces inside a comparison
//! OP         := '=' | '==' | '!=' | '<' | '<=' | '>' | '>='
//! ```
//!
//! `&&` binds tighter than `||`. Values compare numerically when both sides are numbers,
//! otherwise as text (only `=`/`==`/`!=` then). A record without the key never matches.
//!
//! ```
//! use lca::extraction::Extraction;
//! let x = Extraction::parse("n=1024 && tag=cols || p>=8").unwrap();
//! let r = &lca::record::parse_records("n=1024 tag=cols p=2 li=1").unwrap()[0];
//! assert!(x.matches(r));
//! assert!(!Extraction::parse("n=512 p=2").unwrap().matches(r));
//! ```

use crate::record::Record;
use std::fmt;

/// Comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `=` or `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// One `key OP value` comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Record key.
    pub key: String,
    /// Operator.
    pub op: CmpOp,
    /// Value text.
    pub value: String,
}

/// A parsed extraction: an OR of ANDs of comparisons. The empty extraction matches all.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Extraction {
    /// Alternatives; each is a conjunction.
    pub any_of: Vec<Vec<Comparison>>,
}

/// A malformed extraction expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "extraction `{text}`: expected `key=value` comparisons joined by && or ||, found `{found}`"
)]
pub struct ExtractionError {
    /// The whole expression.
    pub text: String,
    /// The offending piece.
    pub found: String,
}

impl Extraction {
    /// Parses an extraction expression.
    pub fn parse(text: &str) -> Result<Extraction, ExtractionError> {
        let err = |found: &str| ExtractionError {
            text: text.to_string(),
            found: found.to_string(),
        };
        let mut any_of = Vec::new();
        if text.trim().is_empty() {
            return Ok(Extraction::default());
        }
        for alt in text.split("||") {
            let mut all = Vec::new();
            for piece in alt.split("&&") {
                for tok in piece.split_whitespace() {
                    all.push(parse_cmp(tok).ok_or_else(|| err(tok))?);
                }
                if piece.trim().is_empty() {
                    return Err(err(if alt.trim().is_empty() { "||" } else { "&&" }));
                }
            }
            any_of.push(all);
        }
        Ok(Extraction { any_of })
    }

    /// True when the record satisfies the extraction.
    pub fn matches(&self, r: &Record) -> bool {
        self.any_of.is_empty()
            || self
                .any_of
                .iter()
                .any(|all| all.iter().all(|c| c.matches(r)))
    }
}

fn parse_cmp(tok: &str) -> Option<Comparison> {
    const OPS: [(&str, CmpOp); 7] = [
        ("==", CmpOp::Eq),
        ("!=", CmpOp::Ne),
        ("<=", CmpOp::Le),
        (">=", CmpOp::Ge),
        ("=", CmpOp::Eq),
        ("<", CmpOp::Lt),
        (">", CmpOp::Gt),
    ];
    let pos = tok.find(['=', '!', '<', '>'])?;
    let (key, rest) = tok.split_at(pos);
    let (sym, op) = OPS.iter().find(|(s, _)| rest.starts_with(s))?;
    let value = &rest[sym.len()..];
    if key.is_empty() || value.is_empty() {
        return None;
    }
    Some(Comparison {
        key: key.to_string(),
        op: *op,
        value: value.to_string(),
    })
}

impl Comparison {
    /// True when the record has the key and the comparison holds.
    pub fn matches(&self, r: &Record) -> bool {
        let Some(v) = r.get(&self.key) else {
            return false;
        };
        match (v.parse::<f64>(), self.value.parse::<f64>()) {
            (Ok(a), Ok(b)) => match self.op {
                CmpOp::Eq => a == b,
                CmpOp::Ne => a != b,
                CmpOp::Lt => a < b,
                CmpOp::Le => a <= b,
                CmpOp::Gt => a > b,
                CmpOp::Ge => a >= b,
            },
            _ => match self.op {
                CmpOp::Eq => v == self.value,
                CmpOp::Ne => v != self.value,
                _ => false,
            },
        }
    }
}

impl fmt::Display for Extraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, all) in self.any_of.iter().enumerate() {
            if i > 0 {
                write!(f, " || ")?;
            }
            for (j, c) in all.iter().enumerate() {
                if j > 0 {
                    write!(f, " && ")?;
                }
                let op = match c.op {
                    CmpOp::Eq => "=",
                    CmpOp::Ne => "!=",
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    CmpOp::Ge => ">=",
                };
                write!(f, "{}{}{}", c.key, op, c.value)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn and_or_and_numbers() {
        let recs = parse_records("n=1024 tag=cols p=4\nn=512 tag=rows p=8\nn=1e3 p=2").unwrap();
        let sel = |x: &str| {
            let e = Extraction::parse(x).unwrap();
            recs.iter().filter(|r| e.matches(r)).count()
        };
        assert_eq!(sel(""), 3);
        assert_eq!(sel("n=1024"), 1);
        assert_eq!(sel("n=1000"), 1);
        assert_eq!(sel("n=1024 && tag=cols"), 1);
        assert_eq!(sel("n=1024 tag=rows"), 0);
        assert_eq!(sel("tag=cols || tag=rows"), 2);
        assert_eq!(sel("p>=4"), 2);
        assert_eq!(sel("p<4 || tag!=cols"), 2);
        assert_eq!(sel("tag<x"), 0);
        assert!(Extraction::parse("n").is_err());
        assert!(Extraction::parse("n=1 &&").is_err());
        assert!(Extraction::parse("|| n=1").is_err());
        assert!(Extraction::parse("=3").is_err());
        assert_eq!(
            Extraction::parse("a=1 b<2||c!=x").unwrap().to_string(),
            "a=1 && b<2 || c!=x"
        );
    }
}
