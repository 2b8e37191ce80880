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
//!    models are ranked by `score = (cv + 1e-7) · 1.3^terms`, where cv is the relative LOO
//!    error of [`crate::linear::cv_error`] (robust to zeros): a term must lower the
//!    cross-validation error by 30% to be kept.
//!
//! A set needs at least `coefficients + 2` points.

#![allow(clippy::needless_range_loop)] // index loops over parallel arrays read best here

use crate::dataset::Dataset;
use crate::expr::{BinOp, Expr, Func};
use crate::fit::{fit_linear_columns, FitError, FittedModel};
use std::collections::{BTreeMap, HashSet};

mod screen;
use screen::{penalized, pooled_rank, screen};

/// Extra-P's exponents `i` as (numerator, denominator).
pub const EXPONENTS: [(i32, i32); 20] = [
    (0, 1),
    (1, 4),
    (1, 3),
    (1, 2),
    (2, 3),
    (3, 4),
    (4, 5),
    (1, 1),
    (5, 4),
    (4, 3),
    (3, 2),
    (5, 3),
    (7, 4),
    (2, 1),
    (9, 4),
    (7, 3),
    (5, 2),
    (8, 3),
    (11, 4),
    (3, 1),
];

/// Logarithm powers `j`.
pub const LOG_POWERS: [u32; 3] = [0, 1, 2];

/// Penalty factor per non-constant term.
pub const TERM_PENALTY: f64 = 1.3;

/// Absolute floor added to the CV error before the penalty (so exact fits compare by size).
pub const CV_FLOOR: f64 = 1e-7;

/// Score factor for a model of several terms where some term has a negative coefficient.
pub const NEGATIVE_PENALTY: f64 = 3.0;

/// `x_var^(num/den) · log2(x_var)^log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Factor {
    /// Variable index in the data set.
    pub var: usize,
    /// Exponent numerator.
    pub num: i32,
    /// Exponent denominator.
    pub den: i32,
    /// Power of log2.
    pub log: u32,
}

impl Factor {
    /// Value at `x`.
    pub fn eval(&self, x: f64) -> f64 {
        let p = if self.num == 0 {
            1.0
        } else if self.den == 1 {
            x.powi(self.num)
        } else if self.num == 1 && self.den == 2 {
            x.sqrt()
        } else {
            x.powf(self.num as f64 / self.den as f64)
        };
        p * x.log2().powi(self.log as i32)
    }

    /// The factor as expression pieces (multiplied together).
    fn pieces(&self, name: &str) -> Vec<Expr> {
        let x = Expr::var(name);
        let mut v = Vec::new();
        match (self.num, self.den) {
            (0, _) => {}
            (1, 1) => v.push(x.clone()),
            (n, 1) => v.push(Expr::bin(BinOp::Pow, x.clone(), Expr::Num(n as f64))),
            (1, 2) => v.push(Expr::call(Func::Sqrt, vec![x.clone()])),
            (n, d) => v.push(Expr::bin(
                BinOp::Pow,
                x.clone(),
                Expr::bin(BinOp::Div, Expr::Num(n as f64), Expr::Num(d as f64)),
            )),
        }
        let l = Expr::call(Func::Log2, vec![x]);
        match self.log {
            0 => {}
            1 => v.push(l),
            j => v.push(Expr::bin(BinOp::Pow, l, Expr::Num(j as f64))),
        }
        v
    }
}

/// A product of factors of distinct variables.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Term(pub Vec<Factor>);

impl Term {
    /// The term as an expression over the data set's variable names.
    pub fn to_expr(&self, vars: &[String]) -> Expr {
        self.0
            .iter()
            .flat_map(|f| f.pieces(&vars[f.var]))
            .reduce(|a, b| Expr::bin(BinOp::Mul, a, b))
            .unwrap_or(Expr::Num(1.0))
    }

    /// Sort key: total exponent, then log powers (terms print fastest-growing first).
    pub fn growth(&self) -> f64 {
        self.0
            .iter()
            .map(|f| f.num as f64 / f.den as f64 + 0.01 * f.log as f64)
            .sum()
    }

    fn column(&self, data: &Dataset) -> Vec<f64> {
        data.points
            .iter()
            .map(|p| self.0.iter().map(|f| f.eval(p.x[f.var])).product())
            .collect()
    }
}

/// All single-variable factors of the normal form for variable `var`.
pub fn term_pool(var: usize) -> Vec<Factor> {
    let mut v = Vec::new();
    for &(num, den) in &EXPONENTS {
        for &log in &LOG_POWERS {
            if num == 0 && log == 0 {
                continue;
            }
            v.push(Factor { var, num, den, log });
        }
    }
    v
}

/// Options of the automatic search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOptions {
    /// Most non-constant terms in a model (1..=3).
    pub max_terms: usize,
    /// How many ranked models to return.
    pub keep: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            max_terms: 3,
            keep: 5,
        }
    }
}

/// Result of [`auto_fit`]: models best first by penalized cross-validation score.
#[derive(Debug, Clone)]
pub struct AutoFit {
    /// Ranked models (at least one).
    pub ranked: Vec<FittedModel>,
    /// Their scores (`(cv + 1e-7) · 1.15^terms`), same order.
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
fn variable_terms(data: &Dataset, var: usize, limit: usize) -> Vec<Factor> {
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
                        .map(|&i| f.eval(data.points[i].x[var]))
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
    let mut ranked = pooled_rank(&prepared, np, max_terms, true);
    // Without a constant only single terms: a needless constant mostly hides those.
    ranked.extend(pooled_rank(&prepared, np, max_terms.min(1), false));
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
    let nv = data.variables.len();
    let y = data.ys();
    // 1. Generation.
    let terms: Vec<Term> = if nv == 1 {
        term_pool(0).into_iter().map(|f| Term(vec![f])).collect()
    } else {
        let per_var: Vec<Vec<Factor>> = (0..nv)
            .map(|v| {
                if data.distinct(v).len() < 2 {
                    vec![]
                } else {
                    variable_terms(data, v, 3)
                }
            })
            .collect();
        let mut pool: Vec<Term> = Vec::new();
        // All products choosing zero or one factor per variable (not all zero).
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
        for c in combos {
            if !c.is_empty() {
                pool.push(Term(c));
            }
        }
        pool
    };
    let cols_all: Vec<(Term, Vec<f64>)> = terms
        .into_iter()
        .map(|t| {
            let c = t.column(data);
            (t, c)
        })
        .filter(|(_, c)| c.iter().all(|v| v.is_finite()))
        .collect();
    let cols: Vec<Vec<f64>> = cols_all.iter().map(|(_, c)| c.clone()).collect();
    // 2. Screening.
    let exhaustive3 = cols.len() <= 40;
    // (Constants are removed in selection when needless; the slice stage, where a needless
    // constant would hide the right term, also screens constant-free sets.)
    let screened = screen(&cols, &y, opts.max_terms, exhaustive3, 8, true);
    // 3. Selection.
    let mut models: Vec<(f64, FittedModel)> = Vec::new();
    let mut seen = HashSet::new();
    let mut last_err = None;
    for (_, mut set) in screened {
        set.sort_by(|&a, &b| cols_all[b].0.growth().total_cmp(&cols_all[a].0.growth()));
        let mut chosen: Vec<(Expr, Vec<f64>)> = set
            .iter()
            .map(|&i| {
                (
                    cols_all[i].0.to_expr(&data.variables),
                    cols_all[i].1.clone(),
                )
            })
            .collect();
        chosen.push((Expr::Num(1.0), vec![1.0; data.len()]));
        match refine(chosen, data) {
            Ok(m) => {
                if seen.insert(m.label.clone()) {
                    let nterms = m
                        .coefficients
                        .iter()
                        .filter(|c| c.term.as_deref() != Some("1"))
                        .count();
                    // A growth term with a negative coefficient (cancellation between
                    // terms) is implausible for a cost and extrapolates badly: penalize.
                    let cancel = m
                        .coefficients
                        .iter()
                        .any(|c| c.term.as_deref() != Some("1") && c.value < 0.0)
                        && nterms > 1;
                    let factor = if cancel { NEGATIVE_PENALTY } else { 1.0 };
                    models.push((factor * penalized(m.quality.cv, nterms), m));
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
    models.truncate(opts.keep.max(1));
    Ok(AutoFit {
        scores: models.iter().map(|m| m.0).collect(),
        ranked: models.into_iter().map(|m| m.1).collect(),
    })
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
