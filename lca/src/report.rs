//! Ranking and presenting fitted models: the human table in the spirit of Crovella's
//! Figure 5.2 and the `--json` document.
//!
//! Two criteria, as the issue and Crovella's Figure 5.2 ask ([`Ranking`]):
//! - **Order**: the models are listed best first by leave-one-out cross-validation error
//!   (`cv`, the relative LOO error of [`crate::linear::cv_error`]), lowest first; ties keep
//!   input order.
//! - **Selection**: the model used (`Selected:` line, `--emit annotation`, `lca model`) has
//!   the lowest *penalized* score `(cv + 1e-7) · penalty^terms`, `terms` counting the
//!   coefficients other than a constant and `penalty` being
//!   [`crate::search::term_penalty`] of the data (the same criterion as the automatic
//!   search): a more complex model is selected only when it lowers the CV error by
//!   `penalty` per extra term. It is marked `*` in the table; when it is not the first
//!   row, a more complex model has a lower CV error that does not pay for its terms.
//!
//! With `lca -c CATEGORY --auto` the models are the fitting policy's candidates
//! ([`crate::policy`], the one `lca model` uses), listed in its order and the first
//! selected ([`Criterion::Policy`]): `cv` is then the held-out score (configurations left
//! out one at a time, and the largest values of each variable left out, relative to the
//! fragment's time) and `score` the penalized one.
//!
//! JSON fields (`--json`): `datafile`, `category`, `variables`, `extraction`, `points`,
//! `zero_at` (the `--zero-at` text, or null),
//! `order` (`"loo_cv"`, or `"policy"`), `selection` (`"penalized_loo_cv"`, or `"policy"`),
//! `term_penalty` (the factor),
//! `selected` (index into `models` of the selected model), `models` (ordered by `cv`),
//! each with `form` (the hypothesis), `model` (explicit expression), `r2`, `adj_r2`, `cv`
//! (relative LOO error, fraction; null when undefined), `score` (penalized), `selected`
//! (bool), `nonlinear`, and `coefficients` (`name`, `term` or null, `value`, `half_width`
//! (90%), `contains_zero`). The `lca` binary adds `skipped` (formulae that could not be
//! fitted, with why) and `notes` (what the fitting policy decided that a user should know:
//! observations used, categories left out, regime changes).

use crate::expr::{format_number, BinOp, Expr};
use crate::fit::{round_sig, FittedModel};
use crate::search::{CV_FLOOR, NEGATIVE_PENALTY};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Number of coefficients other than a constant.
pub fn terms(m: &FittedModel) -> usize {
    m.coefficients
        .iter()
        .filter(|c| c.term.as_deref() != Some("1"))
        .count()
}

fn cv_or_inf(m: &FittedModel) -> f64 {
    if m.quality.cv.is_nan() {
        f64::INFINITY
    } else {
        m.quality.cv
    }
}

/// Penalized cross-validation score used for selection: `(cv + 1e-7) · penalty^terms`,
/// times [`NEGATIVE_PENALTY`] for a model of several terms where a growth term has a
/// negative coefficient (cancellation between terms is implausible for a cost and
/// extrapolates badly).
pub fn score(m: &FittedModel, penalty: f64) -> f64 {
    let n = terms(m);
    let cancel = n > 1
        && m.coefficients
            .iter()
            .any(|c| c.term.as_deref().is_some_and(|t| t != "1") && c.value < 0.0);
    let factor = if cancel { NEGATIVE_PENALTY } else { 1.0 };
    factor * (cv_or_inf(m) + CV_FLOOR) * penalty.powi(n as i32)
}

/// Sorts models best first by cross-validation error (stable: ties keep input order).
pub fn rank(mut models: Vec<FittedModel>) -> Vec<FittedModel> {
    models.sort_by(|a, b| cv_or_inf(a).total_cmp(&cv_or_inf(b)));
    models
}

/// How a [`Ranking`] orders its models and selects one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Criterion {
    /// Listed by LOO-CV error, selected by the penalized LOO-CV [`score`] (forms fitted to
    /// every point; `lca -c` with default forms or formulae, and with `--zero-at`).
    LooCv,
    /// The fitting policy's order ([`crate::policy`]): by penalized held-out score (leave
    /// one configuration out, and the largest size and p left out), the first selected
    /// (`lca -c --auto`, `lca model`).
    Policy,
}

/// Models ordered by cross-validation error, and the one selected by penalized score.
#[derive(Debug, Clone)]
pub struct Ranking {
    /// Best first by LOO-CV error ([`Criterion::LooCv`]) or by the policy's penalized
    /// held-out score ([`Criterion::Policy`]).
    pub models: Vec<FittedModel>,
    /// Index in `models` of the selected model (lowest score).
    pub selected: usize,
    /// The per-term penalty factor of the selection.
    pub penalty: f64,
    /// Each model's selection score, same order as `models`.
    pub scores: Vec<f64>,
    /// How the models are ordered and selected.
    pub criterion: Criterion,
}

impl Ranking {
    /// Orders `models` (at least one) by CV error and selects by penalized score; the
    /// first of equal scores wins.
    pub fn new(models: Vec<FittedModel>, penalty: f64) -> Ranking {
        let models = rank(models);
        let scores: Vec<f64> = models.iter().map(|m| score(m, penalty)).collect();
        let mut selected = 0;
        for (i, s) in scores.iter().enumerate() {
            if *s < scores[selected] {
                selected = i;
            }
        }
        Ranking {
            models,
            selected,
            penalty,
            scores,
            criterion: Criterion::LooCv,
        }
    }

    /// The fitting policy's candidates (at least one), best first with their penalized
    /// held-out scores (`quality.cv` = the held-out score): the first is selected.
    pub fn policy(ranked: Vec<(FittedModel, f64)>, penalty: f64) -> Ranking {
        let (models, scores) = ranked.into_iter().unzip();
        Ranking {
            models,
            selected: 0,
            penalty,
            scores,
            criterion: Criterion::Policy,
        }
    }

    /// The selected model.
    pub fn selected(&self) -> &FittedModel {
        &self.models[self.selected]
    }
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
/// interval that contains 0; a model whose coefficients are not those of its expression
/// (none: a power law, a share of the work; or those of an inner form, as in the policy's
/// `(p − 1)·f`) as its expression.
pub fn model_with_intervals(m: &FittedModel) -> String {
    if m.coefficients.is_empty() || (!m.nonlinear && !coefficients_make(m)) {
        return m.expr.to_string();
    }
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
                    // A shifted term (`p - 1`, from `zero_at`) is a sum: parenthesize.
                    let sum = matches!(
                        crate::expr::parse(t),
                        Ok(Expr::Bin(BinOp::Add | BinOp::Sub, ..))
                    );
                    if sum {
                        let _ = write!(s, "*({t})");
                    } else {
                        let _ = write!(s, "*{t}");
                    }
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

/// Whether the linear model's coefficients times their terms are its expression.
fn coefficients_make(m: &FittedModel) -> bool {
    let terms: Option<Vec<(f64, Expr)>> = m
        .coefficients
        .iter()
        .map(|c| {
            let t = crate::expr::parse(c.term.as_deref()?).ok()?;
            Some((round_sig(c.value, 6), t))
        })
        .collect();
    terms.is_some_and(|t| Expr::linear_combination(&t).to_string() == m.expr.to_string())
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
    /// The `--zero-at` constraint as written (`p=1`), if any.
    pub zero_at: Option<String>,
}

/// The human table (Figure 5.2 style), best first by LOO-CV, the selected model marked.
pub fn table(h: &Header, r: &Ranking) -> String {
    let models = &r.models;
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
    if let Some(z) = &h.zero_at {
        let _ = writeln!(s, "Zero at: {z} (no free constant; every model is 0 there)");
    }
    let rows: Vec<(String, &FittedModel)> = models
        .iter()
        .map(|m| (model_with_intervals(m), m))
        .collect();
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(5).max(5);
    let cv_name = match r.criterion {
        Criterion::LooCv => "LOO-CV",
        Criterion::Policy => "held-out",
    };
    let _ = writeln!(
        s,
        " #   {:<w$}  {:>8}  {:>8}  {:>8}  {:>8}",
        "model", "R2", "adj R2", cv_name, "score"
    );
    for (i, (text, m)) in rows.iter().enumerate() {
        let pct = |v: f64| {
            if v.is_finite() {
                format!("{:.2}%", 100.0 * v)
            } else {
                "n/a".into()
            }
        };
        let _ = writeln!(
            s,
            "{:>2}{}  {:<w$}  {:>8.4}  {:>8.4}  {:>8}  {:>8}",
            i + 1,
            if i == r.selected { '*' } else { ' ' },
            text,
            m.quality.r2,
            m.quality.adj_r2,
            pct(m.quality.cv),
            pct(r.scores[i])
        );
    }
    s.push_str(&order_lines(r));
    if let Some(best) = models.get(r.selected) {
        let printed = crate::precision::justified_expr(best);
        let _ = writeln!(s, "Selected: {} = {printed}", h.category);
    }
    s
}

/// The table's lines that say how the models are ordered and selected, and what `?` means.
fn order_lines(r: &Ranking) -> String {
    let mut s = String::new();
    match r.criterion {
        Criterion::LooCv => {
            let _ = writeln!(
                s,
                "Order: leave-one-out cross-validation error (LOO-CV, relative RMS), lowest first."
            );
            let _ = writeln!(
                s,
                "*: selected by score = LOO-CV x {:.3}^terms: each term must lower LOO-CV {:.3}-fold.",
                r.penalty, r.penalty
            );
        }
        Criterion::Policy => {
            let _ = writeln!(
                s,
                "Order: the fitting policy of `lca model`: score = held-out x {:.3}^coefficients, lowest first.",
                r.penalty
            );
            let _ = writeln!(
                s,
                "held-out: mean error, relative to the fragment's time, of configurations left out\n  one at a time and of the largest values of each variable left out (extrapolation)."
            );
        }
    }
    if r.models.iter().any(|m| m.has_needless_term()) {
        let _ = writeln!(
            s,
            "?: the coefficient's 90% confidence interval contains 0: the term may be needless."
        );
    }
    s
}

/// The `--json` document.
pub fn json(h: &Header, r: &Ranking) -> serde_json::Value {
    serde_json::json!({
        "datafile": h.datafile,
        "category": h.category,
        "variables": h.variables,
        "extraction": h.extraction,
        "points": h.points,
        "zero_at": h.zero_at,
        "order": match r.criterion { Criterion::LooCv => "loo_cv", Criterion::Policy => "policy" },
        "selection": match r.criterion { Criterion::LooCv => "penalized_loo_cv", Criterion::Policy => "policy" },
        "term_penalty": r.penalty,
        "selected": r.selected,
        "models": r.models.iter().enumerate().map(|(i, m)| serde_json::json!({
            "form": m.label,
            "model": m.expr.to_string(),
            "r2": finite_or_null(m.quality.r2),
            "adj_r2": finite_or_null(m.quality.adj_r2),
            "cv": finite_or_null(m.quality.cv),
            "score": finite_or_null(r.scores[i]),
            "selected": i == r.selected,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{DataPoint, Dataset};
    use crate::fit::fit;
    use crate::hypothesis::Hypothesis;

    /// The list is ordered by CV; the selection pays a penalty per term, so a model with a
    /// slightly lower CV but a needless extra term is listed first and not selected.
    #[test]
    fn order_by_cv_selection_by_penalized_score() {
        // y = 2p + 0.002p² with a ±1% deterministic wiggle: the p² term lowers the CV a
        // little, not by the penalty factor.
        let pts = (1..=12)
            .map(|p| {
                let p = p as f64;
                let wiggle = if p as i64 % 2 == 0 { 1.01 } else { 0.99 };
                DataPoint {
                    x: vec![p],
                    y: (2.0 * p + 0.002 * p * p) * wiggle,
                    line: 0,
                }
            })
            .collect();
        let d = Dataset::new("li", &["p"], pts);
        let vars = d.variables.clone();
        let models: Vec<FittedModel> = ["p", "p^2 + p", "log2(p) + 1"]
            .iter()
            .map(|f| fit(&Hypothesis::formula(f, &vars).unwrap(), &d).unwrap())
            .collect();
        let r = Ranking::new(models, 2.0);
        let cvs: Vec<f64> = r.models.iter().map(|m| m.quality.cv).collect();
        assert!(cvs.windows(2).all(|w| w[0] <= w[1]), "{cvs:?}");
        assert_eq!(r.models[0].label, "p^2 + p", "{cvs:?}");
        assert_eq!(r.selected().label, "p");
        assert_eq!(r.selected, 1);
        let h = Header {
            datafile: "-".into(),
            category: "li".into(),
            variables: vars,
            extraction: String::new(),
            points: 12,
            zero_at: None,
        };
        let t = table(&h, &r);
        assert!(t.contains("\n 2*  "), "{t}");
        assert!(t.contains("each term must lower LOO-CV 2.000-fold"), "{t}");
        let j = json(&h, &r);
        assert_eq!(j["selected"], 1);
        assert_eq!(j["models"][1]["selected"], true);
        assert_eq!(j["models"][0]["selected"], false);
        assert_eq!(j["order"], "loo_cv");
    }
}
