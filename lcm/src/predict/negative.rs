//! Models that evaluate negative at a prediction point: a fitted expression used where it
//! no longer describes a cost (typically beyond its measured range, a form with a negative
//! term that overtakes the others).
//!
//! # The rule
//! At every point a prediction evaluates, each fragment's category models are checked
//! (at the fragment's own variables, as the prediction uses them):
//! - a category other than `ml` below zero is flagged: no cost is negative;
//! - `ml` (memory loss) may be negative (a run that computed in less processor time than
//!   its p = 1 baseline, docs/predicates.md), but not below minus the pure computation: it
//!   is flagged when `pc + ml < 0` (`ml < 0` without `pc`);
//! - a derived fragment's references to measured models (`merge.pc` in
//!   `pc = sort.pc + merge.pc*(…)`) are checked on their own, by the same rule for their
//!   category (an `ml` reference is not checked: its work is not at hand): a negative
//!   measured model inside a rule can leave the rule's sum positive and still wrong.
//!
//! Nothing is clamped: the composition uses the models as they are, so a flagged point's
//! prediction (and any ranking or crossover there) rests on a model outside its validity;
//! clamping one term at 0 would hide that and still leave the rest of the fit wrong. The
//! warnings name the fragment, its line, the model and its value; `lcm compare` marks the
//! rows, and a predicted time below zero is always flagged.
//!
//! ```
//! use lcm::predict::negative::{check, NegativeModel};
//! use lcm::predict::tree::Fragment;
//! let mut f = Fragment::named("merge");
//! f.categories = vec![("pc".into(), lca::expr::parse("2 - n").unwrap())];
//! let at = |e: &lca::expr::Expr| e.eval(&[("n".to_string(), 3.0)].into()).ok();
//! let found = check(&f, 7, &at);
//! assert_eq!(found[0].model, "pc");
//! assert_eq!(found[0].value_s, -1.0);
//! ```

use super::tree::Fragment;
use lca::expr::{Bindings, Expr};
use serde::Serialize;

/// A model of a fragment that evaluates below zero at a point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NegativeModel {
    /// The fragment.
    pub fragment: String,
    /// Its source line.
    pub line: usize,
    /// The category (`pc`), or the measured model a restructuring rule refers to
    /// (`merge.pc`).
    pub model: String,
    /// Its value at the point, processor-seconds per execution (`ml`: `pc + ml`).
    pub value_s: f64,
}

/// The category named by a model's name: `pc` for `pc`, `merge.pc` and `merge.pc_p2`.
fn category_of(model: &str) -> &str {
    let c = model.rsplit('.').next().unwrap_or(model);
    match c.rsplit_once("_p") {
        Some((cat, k)) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => cat,
        _ => c,
    }
}

/// The models of fragment `f` (at `line`) that are negative by the module's rule, with
/// `value` evaluating an expression at the point (`None` where it cannot: not checked).
pub fn check(
    f: &Fragment,
    line: usize,
    value: &dyn Fn(&Expr) -> Option<f64>,
) -> Vec<NegativeModel> {
    let mut out = Vec::new();
    let own = |c: &str| {
        f.categories
            .iter()
            .find(|(k, _)| k == c)
            .and_then(|(_, e)| value(e))
    };
    let mut flag = |model: &str, v: f64| {
        out.push(NegativeModel {
            fragment: f.name.clone(),
            line,
            model: model.to_string(),
            value_s: v,
        })
    };
    for (c, e) in &f.categories {
        let Some(v) = value(e) else { continue };
        if c == "ml" {
            let with_pc = v + own("pc").unwrap_or(0.0);
            if with_pc < 0.0 {
                flag(c, with_pc);
            }
        } else if v < 0.0 {
            flag(c, v);
        }
    }
    for (name, e) in &f.referenced {
        if category_of(name) == "ml" {
            continue;
        }
        if let Some(v) = value(e).filter(|v| *v < 0.0) {
            flag(name, v);
        }
    }
    out
}

/// The warning lines for stderr of the negative models found at `points` (each point's
/// user bindings with its findings): one line per fragment and model, with the first
/// points it was negative at and its value there.
pub fn warning_lines(points: &[(&Bindings, &[NegativeModel])]) -> Vec<String> {
    let mut groups: Vec<(&NegativeModel, Vec<String>)> = Vec::new();
    for (b, found) in points {
        let at: Vec<String> = b.iter().map(|(k, v)| format!("{k}={v}")).collect();
        for m in found.iter() {
            let shown = format!("{} s at {}", super::report::secs(m.value_s), at.join(" "));
            let same = |g: &NegativeModel| {
                g.fragment == m.fragment && g.line == m.line && g.model == m.model
            };
            match groups.iter_mut().find(|(g, _)| same(g)) {
                Some((_, v)) => v.push(shown),
                None => groups.push((m, vec![shown])),
            }
        }
    }
    const SHOWN: usize = 3;
    groups
        .into_iter()
        .map(|(m, values)| {
            let more = values.len().saturating_sub(SHOWN);
            let mut list = values[..values.len().min(SHOWN)].join(", ");
            if more > 0 {
                list.push_str(&format!(" and {more} more point(s)"));
            }
            let what = if m.model.contains('.') {
                format!("the measured model `{}` its rule refers to", m.model)
            } else if m.model == "ml" {
                "category `ml` (with `pc`: pc + ml)".to_string()
            } else {
                format!("category `{}`", m.model)
            };
            format!(
                "warning: fragment `{}` (line {}): {what} evaluates negative: {list}; the model is used outside its validity (not clamped: the prediction there is not to be trusted)",
                m.fragment, m.line
            )
        })
        .collect()
}

/// The warning for stderr when a predicted time itself is negative at `b`.
pub fn negative_time_warning(file: &str, b: &Bindings, seconds: f64) -> Option<String> {
    (seconds < 0.0).then(|| {
        let at: Vec<String> = b.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!(
            "warning: {file}: the predicted time at {} is negative ({} s): a model evaluates below zero there (see the warnings above); not clamped",
            at.join(" "),
            super::report::secs(seconds)
        )
    })
}
