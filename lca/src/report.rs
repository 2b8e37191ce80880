//! Ranking and presenting fitted models: the human table in the spirit of Crovella's
//! Figure 5.2 and the `--json` document.
//!
//! Ranking: best first by `score = (cv + 1e-7) · 1.3^terms` (LOO-CV error with the same
//! penalty for needless terms as the automatic search; `terms` counts coefficients other
//! than a constant).
//!
//! JSON fields (`--json`): `datafile`, `category`, `variables`, `extraction`, `points`,
//! `models` (best first), each with `form` (the hypothesis), `model` (explicit expression),
//! `r2`, `adj_r2`, `cv` (relative LOO error, fraction), `score`, `nonlinear`, and
//! `coefficients` (`name`, `term` or null, `value`, `half_width` (90%), `contains_zero`).

use crate::expr::{format_number, Expr};
use crate::fit::{round_sig, FittedModel};
use crate::search::{CV_FLOOR, TERM_PENALTY};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Penalized cross-validation score used for ranking.
pub fn score(m: &FittedModel) -> f64 {
    let terms = m
        .coefficients
        .iter()
        .filter(|c| c.term.as_deref() != Some("1"))
        .count();
    let cv = if m.quality.cv.is_nan() {
        f64::INFINITY
    } else {
        m.quality.cv
    };
    (cv + CV_FLOOR) * TERM_PENALTY.powi(terms as i32)
}

/// Sorts models best first (stable: ties keep input order).
pub fn rank(mut models: Vec<FittedModel>) -> Vec<FittedModel> {
    models.sort_by(|a, b| score(a).total_cmp(&score(b)));
    models
}

fn sig(v: f64) -> String {
    format_number(round_sig(v, 4))
}

fn coef_text(value: f64, hw: f64, flagged: bool) -> String {
    let hw = if hw.is_finite() {
        sig(hw)
    } else {
        "inf".into()
    };
    format!(
        "({} +/- {}){}",
        sig(value),
        hw,
        if flagged { "?" } else { "" }
    )
}

/// The model with every coefficient written `(value +/- half-width)`, `?` marking an
/// interval that contains 0.
pub fn model_with_intervals(m: &FittedModel) -> String {
    if !m.nonlinear {
        let mut s = String::new();
        for (i, c) in m.coefficients.iter().enumerate() {
            if i > 0 {
                s.push_str(" + ");
            }
            s.push_str(&coef_text(c.value, c.half_width, c.contains_zero));
            match c.term.as_deref() {
                Some("1") | None => {}
                Some(t) => {
                    let _ = write!(s, "*{t}");
                }
            }
        }
        return s;
    }
    let subst: BTreeMap<String, Expr> = m
        .coefficients
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                Expr::Var(coef_text(c.value, c.half_width, c.contains_zero)),
            )
        })
        .collect();
    crate::expr::parse(&m.label)
        .map(|e| e.substitute(&subst).to_string())
        .unwrap_or_else(|_| m.label.clone())
}

/// What the table header says about the data.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Data file.
    pub datafile: String,
    /// Category.
    pub category: String,
    /// Variables.
    pub variables: Vec<String>,
    /// Extraction text (empty for none).
    pub extraction: String,
    /// Number of points.
    pub points: usize,
}

/// The human table (Figure 5.2 style), best first.
pub fn table(h: &Header, models: &[FittedModel]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "lca {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(
        s,
        "Datafile: {}, Variable{}: {}, Category: {}, Constraints: {}, Points: {}",
        h.datafile,
        if h.variables.len() > 1 { "s" } else { "" },
        h.variables.join(" "),
        h.category,
        if h.extraction.is_empty() {
            "none"
        } else {
            &h.extraction
        },
        h.points
    );
    let rows: Vec<(String, &FittedModel)> = models
        .iter()
        .map(|m| (model_with_intervals(m), m))
        .collect();
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(5).max(5);
    let _ = writeln!(
        s,
        " #  {:<w$}  {:>8}  {:>8}  {:>8}",
        "model", "R2", "adj R2", "LOO-CV"
    );
    for (i, (text, m)) in rows.iter().enumerate() {
        let cv = if m.quality.cv.is_finite() {
            format!("{:.2}%", 100.0 * m.quality.cv)
        } else {
            "n/a".into()
        };
        let _ = writeln!(
            s,
            "{:>2}  {:<w$}  {:>8.4}  {:>8.4}  {:>8}",
            i + 1,
            text,
            m.quality.r2,
            m.quality.adj_r2,
            cv
        );
    }
    if models.iter().any(|m| m.has_needless_term()) {
        let _ = writeln!(
            s,
            "?: the coefficient's 90% confidence interval contains 0: the term may be needless."
        );
    }
    if let Some(best) = models.first() {
        let _ = writeln!(s, "Best: {} = {}", h.category, best.expr);
    }
    s
}

/// The `--json` document.
pub fn json(h: &Header, models: &[FittedModel]) -> serde_json::Value {
    serde_json::json!({
        "datafile": h.datafile,
        "category": h.category,
        "variables": h.variables,
        "extraction": h.extraction,
        "points": h.points,
        "models": models.iter().map(|m| serde_json::json!({
            "form": m.label,
            "model": m.expr.to_string(),
            "r2": finite_or_null(m.quality.r2),
            "adj_r2": finite_or_null(m.quality.adj_r2),
            "cv": finite_or_null(m.quality.cv),
            "score": finite_or_null(score(m)),
            "nonlinear": m.nonlinear,
            "coefficients": m.coefficients.iter().map(|c| serde_json::json!({
                "name": c.name,
                "term": c.term,
                "value": c.value,
                "half_width": finite_or_null(c.half_width),
                "contains_zero": c.contains_zero,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn finite_or_null(v: f64) -> serde_json::Value {
    if v.is_finite() {
        serde_json::json!(v)
    } else {
        serde_json::Value::Null
    }
}
