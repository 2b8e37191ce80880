//! Hypotheses: model forms with unknown coefficients, before any data is seen.
//!
//! Two ways to write one (docs/models.md grammar):
//! - a **formula** (command line, `k`-free): every top-level additive term gets its own
//!   coefficient: `n^2*log2(n) + n` means `k1*n^2*log2(n) + k2*n`; write `+ 1` for a
//!   constant;
//! - a **form** (forms file) with explicit parameters `k1`, `k2`, …: `k1*p*sqrt(p) + k2`.
//!   When every parameter multiplies exactly one additive term the form is linear and is
//!   fitted by SVD least squares; otherwise (`max(k1*p + k2, k3)`, `k1*exp(k2*n)`) it is
//!   nonlinear and fitted by Nelder–Mead (see [`crate::nonlinear`]).
//!
//! Variables may be written by name or as `x0`, `x1`, … (in `-v` order), as in Crovella's
//! `lca`.

use crate::expr::{self, BinOp, Expr, ExprError};
use std::collections::BTreeMap;

/// A model form to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Hypothesis {
    /// The form as the user wrote it (or as the search generated it).
    pub label: String,
    /// Linear or nonlinear structure.
    pub kind: HypothesisKind,
}

/// The structure of a hypothesis.
#[derive(Debug, Clone, PartialEq)]
pub enum HypothesisKind {
    /// `Σ c_j · terms[j]`; a term `1` is the constant.
    Linear {
        /// Basis functions of the variables.
        terms: Vec<Expr>,
    },
    /// A form with parameters entering nonlinearly.
    Nonlinear {
        /// The form, using the parameters as variables.
        form: Expr,
        /// Parameter names (`k1`, …), sorted.
        params: Vec<String>,
    },
}

/// A form that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HypothesisError {
    /// Syntax error.
    #[error("formula `{text}`: {error}")]
    Syntax {
        /// The formula.
        text: String,
        /// Where and what.
        error: ExprError,
    },
    /// A name that is neither a variable nor a parameter.
    #[error("formula `{text}`: expected only the variables {vars} (or x0, x1, …) and parameters k1, k2, …, found `{name}`")]
    UnknownName {
        /// The formula.
        text: String,
        /// The name.
        name: String,
        /// The variables, printed.
        vars: String,
    },
    /// A form with parameters where none are allowed or vice versa.
    #[error("formula `{text}`: {message}")]
    Shape {
        /// The formula.
        text: String,
        /// What is wrong.
        message: String,
    },
}

/// The formula as error messages quote it: at most 200 characters (a forms file line can
/// be megabytes long).
fn quoted(text: &str) -> String {
    match text.char_indices().nth(200) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

fn is_param(name: &str) -> bool {
    name.len() >= 2 && name.starts_with('k') && name[1..].chars().all(|c| c.is_ascii_digit())
}

fn aliases(variables: &[String]) -> BTreeMap<String, String> {
    variables
        .iter()
        .enumerate()
        .filter(|(i, _)| !variables.contains(&format!("x{i}")))
        .map(|(i, v)| (format!("x{i}"), v.clone()))
        .collect()
}

fn parse_with_vars(text: &str, variables: &[String]) -> Result<Expr, HypothesisError> {
    let e = expr::parse(text).map_err(|error| HypothesisError::Syntax {
        text: quoted(text),
        error,
    })?;
    let e = e.rename_vars(&aliases(variables));
    for name in e.variables() {
        if !variables.contains(&name) && !is_param(&name) {
            return Err(HypothesisError::UnknownName {
                text: quoted(text),
                name,
                vars: variables.join(", "),
            });
        }
    }
    Ok(e)
}

/// Splits `t` into (parameter, rest) when it is `k`, `k*rest`, `rest*k` (a product chain
/// with exactly one factor that is a parameter and no other parameters).
fn split_param_factor(t: &Expr) -> Option<(String, Expr)> {
    let mut factors = Vec::new();
    flatten_product(t, &mut factors)?;
    let mut param = None;
    let mut rest = Vec::new();
    for f in factors {
        match f {
            Expr::Var(n) if is_param(&n) && param.is_none() => param = Some(n),
            other => {
                if other.variables().iter().any(|v| is_param(v)) {
                    return None;
                }
                rest.push(other)
            }
        }
    }
    let param = param?;
    let rest = rest
        .into_iter()
        .reduce(|a, b| Expr::bin(BinOp::Mul, a, b))
        .unwrap_or(Expr::Num(1.0));
    Some((param, rest))
}

/// Factors of a `*` chain (no division of a parameter).
fn flatten_product(t: &Expr, out: &mut Vec<Expr>) -> Option<()> {
    match t {
        Expr::Bin(BinOp::Mul, a, b) => {
            flatten_product(a, out)?;
            flatten_product(b, out)
        }
        Expr::Bin(BinOp::Div, a, b) => {
            if b.variables().iter().any(|v| is_param(v)) {
                return None;
            }
            let mut inner = Vec::new();
            flatten_product(a, &mut inner)?;
            // Put the divisor on the last non-parameter factor.
            inner.push(Expr::bin(BinOp::Div, Expr::Num(1.0), (**b).clone()));
            out.extend(inner);
            Some(())
        }
        other => {
            out.push(other.clone());
            Some(())
        }
    }
}

impl Hypothesis {
    /// A `k`-free formula: one coefficient per top-level additive term.
    pub fn formula(text: &str, variables: &[String]) -> Result<Hypothesis, HypothesisError> {
        let e = parse_with_vars(text, variables)?;
        if e.variables().iter().any(|v| is_param(v)) {
            return Hypothesis::form(text, variables);
        }
        let terms: Vec<Expr> = e.additive_terms().into_iter().map(|(_, t)| t).collect();
        Ok(Hypothesis {
            label: e.to_string(),
            kind: HypothesisKind::Linear { terms },
        })
    }

    /// A form with parameters `k1`, `k2`, …; linear when every parameter multiplies exactly
    /// one additive term.
    pub fn form(text: &str, variables: &[String]) -> Result<Hypothesis, HypothesisError> {
        let e = parse_with_vars(text, variables)?;
        let params: Vec<String> = e.variables().into_iter().filter(|v| is_param(v)).collect();
        if params.is_empty() {
            return Err(HypothesisError::Shape {
                text: quoted(text),
                message: "expected parameters k1, k2, … in a form".into(),
            });
        }
        let label = e.to_string();
        let mut terms = Vec::new();
        let mut seen = Vec::new();
        let mut linear = true;
        for (sign, t) in e.additive_terms() {
            match split_param_factor(&t) {
                Some((k, rest)) if !seen.contains(&k) => {
                    seen.push(k);
                    terms.push(if sign < 0.0 {
                        Expr::Neg(Box::new(rest))
                    } else {
                        rest
                    });
                }
                _ => {
                    linear = false;
                    break;
                }
            }
        }
        if linear {
            Ok(Hypothesis {
                label,
                kind: HypothesisKind::Linear { terms },
            })
        } else {
            Ok(Hypothesis {
                label,
                kind: HypothesisKind::Nonlinear { form: e, params },
            })
        }
    }

    /// A linear hypothesis from basis terms (used by the automatic search).
    pub fn linear(terms: Vec<Expr>) -> Hypothesis {
        let label =
            Expr::linear_combination(&terms.iter().map(|t| (1.0, t.clone())).collect::<Vec<_>>())
                .to_string();
        Hypothesis {
            label,
            kind: HypothesisKind::Linear { terms },
        }
    }

    /// Number of coefficients to fit.
    pub fn coefficient_count(&self) -> usize {
        match &self.kind {
            HypothesisKind::Linear { terms } => terms.len(),
            HypothesisKind::Nonlinear { params, .. } => params.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn formulas_split_terms() {
        let h = Hypothesis::formula("n^2*log2(n) + n", &vars(&["n"])).unwrap();
        let HypothesisKind::Linear { terms } = &h.kind else {
            panic!()
        };
        assert_eq!(terms.len(), 2);
        assert_eq!(terms[0].to_string(), "n^2*log2(n)");
        let h = Hypothesis::formula("x0*x1 + 1", &vars(&["n", "p"])).unwrap();
        assert_eq!(h.label, "n*p + 1");
        assert!(matches!(
            Hypothesis::formula("n + q", &vars(&["n"])),
            Err(HypothesisError::UnknownName { .. })
        ));
        let e = Hypothesis::formula("n +", &vars(&["n"])).unwrap_err();
        assert!(e.to_string().contains("column 4"), "{e}");
    }

    #[test]
    fn forms_are_classified() {
        let v = vars(&["p"]);
        let h = Hypothesis::form("k1*p*sqrt(p) + k2", &v).unwrap();
        assert!(
            matches!(&h.kind, HypothesisKind::Linear { terms } if terms.len() == 2 && terms[1] == Expr::Num(1.0))
        );
        let h = Hypothesis::form("k1*log2(p)/p - k2", &v).unwrap();
        assert!(matches!(&h.kind, HypothesisKind::Linear { .. }));
        for nl in ["max(k1*p + k2, k3)", "k1*exp(k2*p)", "k1*p + k1", "k1*k2*p"] {
            let h = Hypothesis::form(nl, &v).unwrap();
            assert!(matches!(&h.kind, HypothesisKind::Nonlinear { .. }), "{nl}");
        }
        assert!(Hypothesis::form("p", &v).is_err());
    }
}
