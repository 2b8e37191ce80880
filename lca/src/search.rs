//! `--auto`: search of the performance-model normal form
//! `c0 + Σ_k c_k · Π_v x_v^{i} · log2(x_v)^{j}` (Extra-P's exponents, up to three terms).
//!
//! Hypothesis generation, fitting and selection are kept apart:
//!
//! 1. **Generation** ([`term_pool`]): per variable, the 59 factors `x^i log2(x)^j` with
//!    `i ∈ {0, 1/4, 1/3, 1/2, 2/3, 3/4, 4/5, 1, 5/4, 4/3, 3/2, 5/3, 7/4, 2, 9/4, 7/3, 5/2,
//!    8/3, 11/4, 3}`, `j ∈ {0, 1, 2}`, `(i, j) ≠ (0, 0)`. Columns are computed once per data
//!    set; factors that are not finite on the data (`log2` of x ≤ 0) are dropped.
//! 2. **Screening** (fast, approximate): candidate term sets are scored by incremental
//!    Gram–Schmidt (columns orthonormalized against the constant once, each candidate then
//!    needs one projection), which gives residuals and the hat-matrix diagonal, hence
//!    leave-one-out errors, in O(m·k) per candidate. With one variable all single terms, the
//!    pairs built on the 24 best singles, and 3-term extensions of the 8 best pairs are
//!    scored. With several variables each variable is first screened on *slices* (points
//!    where the others are fixed; the two extreme slices and the middle one), a term set's
//!    score being pooled over the slices (with and without a constant, singles and pairs
//!    on the 12 best singles); the factors of the best sets (3 per variable) form a small
//!    pool together with all their cross products, and every set of up to 3 terms of that
//!    pool is scored on all points. So sums (`0.5*n*log2(p) + 4*p + 10`) and products are
//!    both found, unlike Extra-P's one term per variable.
//! 3. **Selection**: the best screened sets are refitted by SVD ([`crate::fit`]); terms
//!    whose 90% interval contains 0 are removed one at a time (the constant too), and the
//!    models are ranked by the penalized score `(cv + 1e-7) · penalty^terms`, where cv is
//!    the relative LOO error of [`crate::linear::cv_error`] (robust to zeros) and
//!    `penalty` is [`term_penalty`] (a term must lower the error by that factor to be
//!    kept; 2.26 for 5 points of one variable, 1.39 for a 5×5 grid). A model of several
//!    terms where a growth term has a negative coefficient (cancellation) is implausible
//!    for a cost and extrapolates badly: its score is multiplied by [`NEGATIVE_PENALTY`].
//!
//! Screening and fitting both weigh every point by `1 / |y|` (relative errors, see
//! [`crate::linear`]): timing data has multiplicative noise, and small values must count as
//! much as large ones. How often the selected model extrapolates within 10% under 2% noise
//! is measured by `cargo run --release -p lca --example noisesweep`.
//!
//! A set needs at least `coefficients + 2` points.

#![allow(clippy::needless_range_loop)] // index loops over parallel arrays read best here

use crate::dataset::Dataset;
use crate::expr::Expr;
use crate::fit::{fit_linear_columns, FitError, FittedModel};
use std::collections::{BTreeMap, HashSet};

mod screen;
mod terms;
use screen::{pooled_rank, screen};
use terms::Shift;
pub use terms::{term_pool, Factor, Term, ZeroAt, EXPONENTS, LOG_POWERS};

/// Per-term factor of the selection score for a data set of `points` distinct points
/// (repetitions of one configuration count once) over `variables` variables:
/// `P^(1/points)` with `P = 60^variables − 1` candidate terms of the normal form.
/// Callers count only the variables that take two or more values among the points
/// ([`crate::dataset::Dataset::varying_variables`]): a variable held at one value (the
/// overheads of records at p = 1 and 2 are observed at p = 2 alone) offers no terms to
/// choose from, and counting it would ask a term to lower the error 5.1-fold instead of
/// 2.26-fold at 5 points, enough to drop real overheads as noise.
///
/// This is the risk-inflation criterion (Foster & George, 1994: a term costs `2·ln P` on
/// the scale `points · ln RSS`) written as a factor on the RMS cross-validation error: the
/// more terms a search can choose from, the more a chosen term must lower the error to
/// show it is not fitted noise, and the fewer points, the less a lowered error proves. With
/// one variable at 5 points a term must lower the error 2.26-fold, at 16 points 1.29-fold;
/// with two variables on a 5×5 grid 1.39-fold.
pub fn term_penalty(points: usize, variables: usize) -> f64 {
    let candidates = 60f64.powi(variables.max(1) as i32) - 1.0;
    (candidates.ln() / points.max(1) as f64).exp()
}

/// Absolute floor added to the CV error before the penalty (so exact fits compare by size).
pub const CV_FLOOR: f64 = 1e-7;

/// Score factor for a model of several terms where some term has a negative coefficient.
pub const NEGATIVE_PENALTY: f64 = 3.0;

/// Options of the automatic search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOptions {
    /// Most non-constant terms in a model (1..=3).
    pub max_terms: usize,
    /// How many ranked models to return.
    pub keep: usize,
    /// A known zero of the quantity (`ip`, `sl`, `ml` are 0 at p = 1, `li` mostly): the model is
    /// constrained to vanish wherever the variable has that value, whatever the others.
    /// `None` (default): free constant term.
    pub zero_at: Option<ZeroAt>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            max_terms: 3,
            keep: 5,
            zero_at: None,
        }
    }
}

/// Result of [`auto_fit`]: models best first by penalized cross-validation score.
#[derive(Debug, Clone)]
pub struct AutoFit {
    /// The per-term penalty factor used ([`term_penalty`] of the data set).
    pub penalty: f64,
    /// Ranked models (at least one).
    pub ranked: Vec<FittedModel>,
    /// Their penalized scores (`(cv + 1e-7) · penalty^terms`, see [`term_penalty`]),
    /// same order.
    pub scores: Vec<f64>,
}

impl AutoFit {
    /// The selected model.
    pub fn best(&self) -> &FittedModel {
        &self.ranked[0]
    }
}

/// Points grouped by the values of all variables except `var`.
fn slices(data: &Dataset, var: usize) -> Vec<Vec<usize>> {
    let mut groups: BTreeMap<Vec<u64>, Vec<usize>> = BTreeMap::new();
    for (i, p) in data.points.iter().enumerate() {
        let key: Vec<u64> =
            p.x.iter()
                .enumerate()
                .filter(|(j, _)| *j != var)
                .map(|(_, v)| v.to_bits())
                .collect();
        groups.entry(key).or_default().push(i);
    }
    groups.into_values().collect()
}

fn distinct_count(data: &Dataset, rows: &[usize], var: usize) -> usize {
    let mut v: Vec<u64> = rows
        .iter()
        .map(|&i| data.points[i].x[var].to_bits())
        .collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

/// Per-variable screening: the factors of `var` that best explain the slices.
fn variable_terms(data: &Dataset, var: usize, limit: usize, shift: Shift) -> Vec<Factor> {
    // Only the constrained variable's own factors are shifted; along the other variables
    // the constrained model still has a constant (its terms without their factor).
    let shift = shift.filter(|(v, _)| *v == var);
    let pool: Vec<Factor> = term_pool(var)
        .into_iter()
        .filter(|f| data.points.iter().all(|p| f.eval(p.x[var]).is_finite()))
        .collect();
    let mut rows_sets: Vec<Vec<usize>> = slices(data, var)
        .into_iter()
        .filter(|rows| distinct_count(data, rows, var) >= 3)
        .collect();
    if rows_sets.is_empty() {
        rows_sets.push((0..data.len()).collect());
    }
    // At most three slices: the extremes and the middle of the other variables' range
    // (slices are ordered by the other variables' values).
    if rows_sets.len() > 3 {
        let last = rows_sets.len() - 1;
        let picks = [0, last / 2, last];
        rows_sets = picks.iter().map(|&i| rows_sets[i].clone()).collect();
    }
    // Pooled screening: a term set's score is the RMS of its relative LOO errors over
    // all slices, so every slice's points count (no voting between noisy slices).
    let np = pool.len();
    let prepared: Vec<(Vec<f64>, Vec<Vec<f64>>)> = rows_sets
        .iter()
        .map(|rows| {
            let y: Vec<f64> = rows.iter().map(|&i| data.points[i].y).collect();
            let cols = pool
                .iter()
                .map(|f| {
                    rows.iter()
                        .map(|&i| f.eval_shifted(data.points[i].x[var], shift))
                        .collect()
                })
                .collect();
            (y, cols)
        })
        .collect();
    let max_terms = prepared
        .iter()
        .map(|(y, _)| y.len().saturating_sub(3))
        .min()
        .unwrap_or(0)
        .min(2);
    let points = rows_sets
        .iter()
        .map(|rows| distinct_count(data, rows, var))
        .min()
        .unwrap_or(0);
    let penalty = term_penalty(points, 1);
    let mut ranked = if shift.is_some() {
        pooled_rank(&prepared, np, max_terms, false, penalty)
    } else {
        let mut r = pooled_rank(&prepared, np, max_terms, true, penalty);
        // Without a constant only single terms: a needless constant mostly hides those.
        r.extend(pooled_rank(&prepared, np, max_terms.min(1), false, penalty));
        r
    };
    ranked.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut out: Vec<Factor> = Vec::new();
    for (_, set) in ranked {
        for i in set {
            if !out.contains(&pool[i]) {
                out.push(pool[i]);
            }
        }
        if out.len() >= limit {
            break;
        }
    }
    out.truncate(limit);
    out
}

/// Searches the normal form for the data (see the module docs).
pub fn auto_fit(data: &Dataset, opts: &SearchOptions) -> Result<AutoFit, FitError> {
    let y = data.ys();
    let shift = resolve_shift(data, opts.zero_at.as_ref())?;
    // 1. Generation.
    let cols_all: Vec<(Term, Vec<f64>)> = generate_terms(data, shift)
        .into_iter()
        .filter(|t| t.allowed(shift))
        .map(|t| {
            let c = t.column(data, shift);
            (t, c)
        })
        .filter(|(_, c)| c.iter().all(|v| v.is_finite()) && c.iter().any(|v| *v != 0.0))
        .collect();
    let cols: Vec<Vec<f64>> = cols_all.iter().map(|(_, c)| c.clone()).collect();
    // 2. Screening.
    let exhaustive3 = cols.len() <= 40;
    // (Constants are removed in selection when needless; the slice stage, where a needless
    // constant would hide the right term, also screens constant-free sets.)
    let penalty = term_penalty(data.distinct_points(), data.varying_variables());
    let with_constant = shift.is_none();
    let screened = screen(
        &cols,
        &y,
        opts.max_terms,
        exhaustive3,
        8,
        with_constant,
        penalty,
    );
    // 3. Selection.
    let sets = screened.into_iter().map(|(_, set)| set);
    let mut models = select(data, &cols_all, sets, shift, penalty)?;
    models.truncate(opts.keep.max(1));
    Ok(AutoFit {
        penalty,
        scores: models.iter().map(|m| m.0).collect(),
        ranked: models.into_iter().map(|m| m.1).collect(),
    })
}

/// The `zero_at` constraint resolved against the data's variables.
fn resolve_shift(data: &Dataset, zero_at: Option<&ZeroAt>) -> Result<Shift, FitError> {
    let Some(z) = zero_at else {
        return Ok(None);
    };
    let Some(v) = data.variables.iter().position(|n| *n == z.variable) else {
        return Err(FitError::Constraint {
            source_name: data.source.clone(),
            message: format!(
                "zero_at: expected one of the variables {}, found `{}`",
                data.variables.join(", "),
                z.variable
            ),
        });
    };
    if !z.value.is_finite() {
        return Err(FitError::Constraint {
            source_name: data.source.clone(),
            message: format!("zero_at: expected a finite value, found {}", z.value),
        });
    }
    Ok(Some((v, z.value)))
}

/// The candidate terms: with one variable its whole pool; with several, the products of
/// zero or one factor per variable (not all zero) among each variable's best factors
/// (screened on slices).
fn generate_terms(data: &Dataset, shift: Shift) -> Vec<Term> {
    let nv = data.variables.len();
    if nv == 1 {
        return term_pool(0).into_iter().map(|f| Term(vec![f])).collect();
    }
    let per_var: Vec<Vec<Factor>> = (0..nv)
        .map(|v| {
            if data.distinct(v).len() < 2 {
                vec![]
            } else {
                variable_terms(data, v, 3, shift)
            }
        })
        .collect();
    let mut combos: Vec<Vec<Factor>> = vec![vec![]];
    for fs in &per_var {
        let mut next = Vec::new();
        for c in &combos {
            next.push(c.clone());
            for f in fs {
                let mut d = c.clone();
                d.push(*f);
                next.push(d);
            }
        }
        combos = next;
    }
    combos
        .into_iter()
        .filter(|c| !c.is_empty())
        .map(Term)
        .collect()
}

/// Refits every screened set of term indices into `cols_all` (fastest-growing term
/// first, a constant unless constrained), removes needless terms, and returns the
/// distinct models with their penalized scores, best first.
fn select(
    data: &Dataset,
    cols_all: &[(Term, Vec<f64>)],
    sets: impl Iterator<Item = Vec<usize>>,
    shift: Shift,
    penalty: f64,
) -> Result<Vec<(f64, FittedModel)>, FitError> {
    let mut models: Vec<(f64, FittedModel)> = Vec::new();
    let mut seen = HashSet::new();
    let mut last_err = None;
    for mut set in sets {
        set.sort_by(|&a, &b| cols_all[b].0.growth().total_cmp(&cols_all[a].0.growth()));
        let mut chosen: Vec<(Expr, Vec<f64>)> = set
            .iter()
            .map(|&i| {
                (
                    cols_all[i].0.shifted_expr(&data.variables, shift),
                    cols_all[i].1.clone(),
                )
            })
            .collect();
        if shift.is_none() {
            chosen.push((Expr::Num(1.0), vec![1.0; data.len()]));
        }
        if chosen.is_empty() {
            continue;
        }
        match refine(chosen, data) {
            Ok(m) => {
                if seen.insert(m.label.clone()) {
                    models.push((crate::report::score(&m, penalty), m));
                }
            }
            Err(e) => last_err = Some(e),
        }
    }
    if models.is_empty() {
        return Err(last_err.unwrap_or_else(|| FitError::Linear {
            source_name: data.source.clone(),
            label: "c0 + Σ c_k x^i log2(x)^j".into(),
            error: crate::linear::LinearError::TooFewPoints {
                needed: 3,
                coefficients: 1,
                got: data.len(),
            },
        }));
    }
    models.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(models)
}

/// SVD fit, then backward elimination of terms whose interval contains 0.
fn refine(mut chosen: Vec<(Expr, Vec<f64>)>, data: &Dataset) -> Result<FittedModel, FitError> {
    loop {
        let terms: Vec<Expr> = chosen.iter().map(|c| c.0.clone()).collect();
        let cols: Vec<Vec<f64>> = chosen.iter().map(|c| c.1.clone()).collect();
        let label =
            Expr::linear_combination(&terms.iter().map(|t| (1.0, t.clone())).collect::<Vec<_>>())
                .to_string();
        let m = fit_linear_columns(&label, &terms, &cols, data)?;
        if chosen.len() <= 1 {
            return Ok(m);
        }
        // The least significant flagged coefficient; a term whose contribution is below
        // 1e-9 of the data (rounding noise of an exact fit) counts as flagged too.
        let ymax = data.points.iter().fold(0.0f64, |a, p| a.max(p.y.abs()));
        let negligible = |j: usize| {
            let cmax = chosen[j].1.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            (m.coefficients[j].value * cmax).abs() <= 1e-9 * ymax
        };
        let worst = m
            .coefficients
            .iter()
            .enumerate()
            .filter(|(j, c)| c.contains_zero || negligible(*j))
            .max_by(|a, b| {
                let ra = a.1.half_width / a.1.value.abs().max(1e-300);
                let rb = b.1.half_width / b.1.value.abs().max(1e-300);
                ra.total_cmp(&rb)
            })
            .map(|(i, _)| i);
        match worst {
            Some(i) => {
                chosen.remove(i);
            }
            None => return Ok(m),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::DataPoint;

    #[test]
    fn pool_has_59_factors() {
        assert_eq!(term_pool(0).len(), 59);
        let t = Term(vec![
            Factor {
                var: 0,
                num: 1,
                den: 1,
                log: 0,
            },
            Factor {
                var: 1,
                num: 0,
                den: 1,
                log: 1,
            },
        ]);
        assert_eq!(
            t.to_expr(&["n".into(), "p".into()]).to_string(),
            "n*log2(p)"
        );
        let t = Term(vec![Factor {
            var: 0,
            num: 4,
            den: 3,
            log: 2,
        }]);
        assert_eq!(t.to_expr(&["p".into()]).to_string(), "p^(4/3)*log2(p)^2");
    }

    #[test]
    fn recovers_a_sum_over_two_variables() {
        let mut pts = Vec::new();
        for &n in &[1000.0, 2000.0, 4000.0, 8000.0, 16000.0] {
            for &p in &[1.0, 2.0, 4.0, 8.0, 16.0] {
                pts.push(DataPoint {
                    x: vec![n, p],
                    y: 0.5 * n * f64::log2(p) + 4.0 * p + 10.0,
                    line: 0,
                });
            }
        }
        let d = Dataset::new("li", &["n", "p"], pts);
        let a = auto_fit(&d, &SearchOptions::default()).unwrap();
        let best = a.best();
        assert_eq!(
            best.label,
            "n*log2(p) + p + 1",
            "{:?}",
            a.ranked.iter().map(|m| &m.label).collect::<Vec<_>>()
        );
        assert_eq!(best.expr.to_string(), "0.5*n*log2(p) + 4*p + 10");
    }
}
