//! Overheads whose sum follows the measured time: once every category's form is chosen,
//! the coefficients of the overheads of running in parallel ([`super::VANISHING`]) are
//! re-estimated together against the fragment's measured time, each held close to its own
//! fit.
//!
//! Each category is fitted on its own, by the error it puts into the fragment's time; the
//! run time is their sum. Where the categories' forms miss their measurements in ways that
//! do not cancel (one form bends where another cannot), the sum misses the time by more
//! than it must. The joint step keeps every category's form (its terms, see
//! [`super::CategoryModel::terms`]) and the work (`pc`, measured at p = 1) and solves one
//! linear least-squares problem over the p > 1 configurations k:
//!
//! `Σ_k ((Σ_j C_j(k) − O(k)) / tt(k))² + λ · Σ_j Σ_k ((C_j(k) − C_j⁰(k)) / s_j(k))²`
//!
//! where `C_j` is overhead j with re-estimated coefficients, `C_j⁰` its own fit, `O(k)` the
//! measured time at k less the categories that are not re-estimated (the work, as
//! measured), `tt(k)` the fragment's processor-time there and
//! `s_j(k) = max(|C_j⁰(k)|, HOLD_FLOOR·tt(k))`. The second sum holds each category near its
//! own fit *relative to its own size*, so a category of a few per mille of the time cannot
//! absorb what the others miss ([`HOLD_FLOOR`] keeps a category that crosses 0 from being
//! pinned there). λ large gives the separate fits back; λ small lets the terms trade time.
//! A category whose joint coefficients would make it implausible (idle and spinning time
//! negative, `ml` below minus the work, at a measured value of a variable or twice the
//! largest) keeps its own fit and the others are solved again without it.
//!
//! The step is applied only on evidence: the folds of [`super::heldout`] (each
//! configuration left out, the largest size, the largest p, everything above half of each)
//! refit the overheads' coefficients on the training configurations, separately and jointly
//! with each λ of [`WEIGHTS`], and predict the held-out configurations' overhead time. The
//! λ with the lowest held-out score is kept when that score is below the separate fits'
//! score by [`MIN_GAIN`] of it; otherwise the separate fits stand. The forms and their
//! held-out scores (`cv`) stay those of the separate fits; each re-estimated category's
//! `fitted` values and R² are recomputed at the p > 1 configurations.
//!
//! ```
//! use lca::{extraction::Extraction, policy::fit_fragment, record::parse_records};
//! // Exact categories: nothing to gain, the step is not applied.
//! let mut text = String::new();
//! for n in [64.0f64, 128.0, 256.0, 512.0, 1024.0] {
//!     let pc = 1e-9 * n * n;
//!     for p in [1.0f64, 2.0, 4.0, 8.0, 16.0] {
//!         let li = 2e-7 * n * (p - 1.0);
//!         let ml = 0.05 * pc * (p - 1.0);
//!         let rt = pc + ml;
//!         text += &format!("n={n} p={p} li={li} ml={ml} pc={pc} rt={rt} tt={}\n", rt + li);
//!     }
//! }
//! let records = parse_records(&text).unwrap();
//! let vars = ["n".to_string(), "p".to_string()];
//! let f = fit_fragment(&records, "t.pp", None, &vars, &Extraction::default()).unwrap();
//! assert!(f.joint.is_none());
//! ```

use super::combination::combination;
use super::heldout::{held_out, HeldOut};
use super::observations::Observations;
use super::{CategoryModel, FragmentModels, PROCESSORS, VANISHING};
use crate::dataset::Dataset;
use crate::expr::{BinOp, Bindings, Expr};
use crate::fit::round_sig;
use crate::record::{Record, RecordError};
use nalgebra::{DMatrix, DVector};
use std::collections::HashMap;

/// The weights λ of the penalty that holds each category near its own fit, tried in turn.
pub const WEIGHTS: [f64; 6] = [0.03, 0.1, 0.3, 1.0, 3.0, 10.0];

/// The joint fit's held-out score must be below the separate fits' by this fraction of it
/// (a tenth) to be kept: λ is itself chosen on the same folds, so a smaller gain is not
/// taken as evidence that the categories should leave their own fits.
pub const MIN_GAIN: f64 = 0.1;

/// The least scale of a category's distance to its own fit, as a fraction of the
/// fragment's time (1 %): a category's own value where it is larger.
pub const HOLD_FLOOR: f64 = 0.01;

/// What the joint step did to one fragment.
#[derive(Debug, Clone, PartialEq)]
pub struct JointStep {
    /// The penalty weight λ chosen.
    pub weight: f64,
    /// Held-out errors of the overheads' time with each category's own coefficients
    /// (fractions of the fragment's time).
    pub separate: HeldOut,
    /// Held-out errors with the coefficients re-estimated jointly at `weight`.
    pub joint: HeldOut,
    /// How far each re-estimated category moved.
    pub moved: Vec<Moved>,
}

/// How far one category's model moved in the joint step.
#[derive(Debug, Clone, PartialEq)]
pub struct Moved {
    /// Category key.
    pub category: String,
    /// Mean over the p > 1 configurations of `|C − C⁰| / tt`: the change as a fraction of
    /// the fragment's time.
    pub time_share: f64,
    /// Each coefficient's new value over its own fit's value, in the order of its terms.
    pub ratios: Vec<f64>,
}

/// One overhead category in the joint problem.
struct Overhead {
    name: String,
    /// Its terms' bases and its own fit's coefficients.
    bases: Vec<Expr>,
    own: Vec<f64>,
    /// `columns[i][k]`: basis i at configuration k.
    columns: Vec<Vec<f64>>,
    /// Measured value at each configuration (0 where absent).
    measured: Vec<f64>,
    /// `grid[i][g]`: basis i at point g of the plausibility grid
    /// ([`super::choose::grid_of`]).
    grid: Vec<Vec<f64>>,
    /// The least value the category may take at each grid point (0 for idle and spinning
    /// time, minus the work for `ml`).
    floor: Vec<f64>,
}

impl Overhead {
    /// The category with coefficients `c` at configuration `k`.
    fn value(&self, c: &[f64], k: usize) -> f64 {
        c.iter().zip(&self.columns).map(|(c, col)| c * col[k]).sum()
    }

    /// Whether the category with coefficients `c` is finite and not below its floor at
    /// every grid point.
    fn plausible(&self, c: &[f64]) -> bool {
        self.floor.iter().enumerate().all(|(g, f)| {
            let v: f64 = c.iter().zip(&self.grid).map(|(c, col)| c * col[g]).sum();
            v.is_finite() && v >= *f
        })
    }
}

/// The joint problem of one fragment over its p > 1 configurations.
struct Problem {
    /// Configuration index of each configuration's variable values (bit patterns).
    index: HashMap<Vec<u64>, usize>,
    /// The measured time less the categories that are not re-estimated, per configuration:
    /// what the overheads must add up to (`O(k)`).
    target: Vec<f64>,
    /// The fragment's processor-time per configuration (the error scale).
    tt: Vec<f64>,
    /// The target as observations (one per configuration, scale `tt`): what the held-out
    /// folds leave out and predict.
    sums: Observations,
    overheads: Vec<Overhead>,
}

/// Applies the joint step to `out` (the chosen models of the fragment whose records are
/// `records`) when the held-out folds support it, and returns what it did; None when it
/// does not apply (no overhead model, no p among `variables`, too few p > 1
/// configurations for the coefficients) or does not pay.
pub fn rebalance(
    out: &mut FragmentModels,
    records: &[&Record],
    source: &str,
    variables: &[String],
) -> Result<Option<JointStep>, RecordError> {
    let Some(problem) = Problem::new(out, records, source, variables)? else {
        return Ok(None);
    };
    let sums = &problem.sums;
    let separate = held_out(sums, &|d: &Dataset, _: &[f64]| problem.refit(d, None));
    let tried: Vec<(f64, HeldOut)> = WEIGHTS
        .iter()
        .map(|&w| {
            let h = held_out(sums, &|d: &Dataset, _: &[f64]| problem.refit(d, Some(w)));
            (w, h)
        })
        .collect();
    let Some((weight, joint)) = tried
        .into_iter()
        .filter(|(_, h)| h.score < (1.0 - MIN_GAIN) * separate.score)
        .min_by(|a, b| a.1.score.total_cmp(&b.1.score))
    else {
        return Ok(None);
    };
    let all: Vec<usize> = (0..problem.tt.len()).collect();
    let own: Vec<Vec<f64>> = problem.overheads.iter().map(|o| o.own.clone()).collect();
    let Some(coefficients) = problem.joint(&all, &own, weight) else {
        return Ok(None);
    };
    let moved = problem.apply(out, &coefficients);
    if moved.is_empty() {
        return Ok(None);
    }
    Ok(Some(JointStep {
        weight,
        separate,
        joint,
        moved,
    }))
}

/// The p > 1 configurations of a fragment's records, and how to read one category's
/// measurement at each of them.
struct Configurations<'a> {
    records: &'a [&'a Record],
    source: &'a str,
    variables: &'a [String],
    /// The variable values of each configuration, in the order of the `tt` observations.
    configs: Vec<Vec<f64>>,
    /// Configuration index of each configuration's variable values (bit patterns).
    index: HashMap<Vec<u64>, usize>,
}

impl<'a> Configurations<'a> {
    /// The configurations of the observations `tt`.
    fn of(
        tt: &Observations,
        records: &'a [&'a Record],
        source: &'a str,
        variables: &'a [String],
    ) -> Self {
        let configs: Vec<Vec<f64>> = tt.data.points.iter().map(|pt| pt.x.clone()).collect();
        let index: HashMap<Vec<u64>, usize> = configs
            .iter()
            .enumerate()
            .map(|(k, x)| (key(x), k))
            .collect();
        Configurations {
            records,
            source,
            variables,
            configs,
            index,
        }
    }

    /// `category`'s measured value at each configuration (0 where absent).
    fn measured(&self, category: &str) -> Result<Vec<f64>, RecordError> {
        let obs = Observations::from_records(self.records, self.source, category, self.variables)?;
        let mut v = vec![0.0; self.configs.len()];
        for pt in &obs.data.points {
            if let Some(&k) = self.index.get(&key(&pt.x)) {
                v[k] = pt.y;
            }
        }
        Ok(v)
    }
}

/// What the overheads must add up to at each configuration: the time `tt` less every
/// category summed into it that is not re-estimated (the work), as measured.
fn overhead_target(
    out: &FragmentModels,
    chosen: &[&CategoryModel],
    configs: &Configurations,
    tt: &Observations,
) -> Result<Vec<f64>, RecordError> {
    let keys: Vec<&str> = out.categories.iter().map(|c| c.category.as_str()).collect();
    let terms = ::category::time::time_terms_of_keys(keys.iter().copied());
    let mut target: Vec<f64> = tt.data.ys();
    for c in &out.categories {
        let adjusted = chosen.iter().any(|o| o.category == c.category);
        if adjusted || !::category::time::counts(&terms, &c.category) {
            continue;
        }
        for (t, v) in target.iter_mut().zip(configs.measured(&c.category)?) {
            *t -= v;
        }
    }
    Ok(target)
}

/// The overheads `chosen`, their bases evaluated at the configurations and on the
/// plausibility grid of `sums`; None when a basis is not finite somewhere.
fn overheads_of(
    out: &FragmentModels,
    chosen: Vec<&CategoryModel>,
    configs: &Configurations,
    sums: &Observations,
) -> Result<Option<Vec<Overhead>>, RecordError> {
    let grid = super::choose::grid_of(&sums.data);
    let work = out
        .categories
        .iter()
        .find(|c| c.category == "pc" || c.category == "rt")
        .map(|c| &c.model.expr);
    let at = |e: &Expr, points: &[Bindings]| -> Option<Vec<f64>> {
        points
            .iter()
            .map(|b| e.eval(b).ok().filter(|v| v.is_finite()))
            .collect()
    };
    let config_bindings: Vec<Bindings> = configs
        .configs
        .iter()
        .map(|x| bindings(configs.variables, x))
        .collect();
    let work_floor: Vec<f64> = grid
        .iter()
        .map(|b| {
            work.and_then(|w| w.eval(b).ok())
                .map_or(f64::NEG_INFINITY, |w| -w)
        })
        .collect();
    let mut overheads = Vec::new();
    for c in chosen {
        let bases: Vec<Expr> = c.terms.iter().map(|t| t.1.clone()).collect();
        let columns: Option<Vec<Vec<f64>>> =
            bases.iter().map(|b| at(b, &config_bindings)).collect();
        let on_grid: Option<Vec<Vec<f64>>> = bases.iter().map(|b| at(b, &grid)).collect();
        let (Some(columns), Some(on_grid)) = (columns, on_grid) else {
            return Ok(None);
        };
        overheads.push(Overhead {
            name: c.category.clone(),
            own: c.terms.iter().map(|t| t.0).collect(),
            bases,
            columns,
            measured: configs.measured(&c.category)?,
            grid: on_grid,
            floor: if c.category == "ml" {
                work_floor.clone()
            } else {
                vec![0.0; grid.len()]
            },
        });
    }
    Ok(Some(overheads))
}

impl Problem {
    /// The joint problem of the overheads of `out`; None when there is no overhead model,
    /// no p among `variables`, too few p > 1 configurations for the coefficients, or a
    /// basis that is not finite at a configuration or grid point.
    fn new(
        out: &FragmentModels,
        records: &[&Record],
        source: &str,
        variables: &[String],
    ) -> Result<Option<Problem>, RecordError> {
        let Some(pi) = variables.iter().position(|v| v == PROCESSORS) else {
            return Ok(None);
        };
        let chosen: Vec<&CategoryModel> = out
            .categories
            .iter()
            .filter(|c| VANISHING.contains(&c.category.as_str()) && !c.terms.is_empty())
            .collect();
        if chosen.is_empty() {
            return Ok(None);
        }
        let tt = Observations::from_records(records, source, "tt", variables)?
            .filter(|pt| pt.x[pi] > 1.0);
        let configs = Configurations::of(&tt, records, source, variables);
        let target = overhead_target(out, &chosen, &configs, &tt)?;
        let coefficients: usize = chosen.iter().map(|c| c.terms.len()).sum();
        if coefficients + 2 > configs.configs.len() {
            return Ok(None);
        }
        let mut sums = tt.clone();
        for (pt, t) in sums.data.points.iter_mut().zip(&target) {
            pt.y = *t;
        }
        let Some(overheads) = overheads_of(out, chosen, &configs, &sums)? else {
            return Ok(None);
        };
        Ok(Some(Problem {
            index: configs.index,
            target,
            tt: tt.scale,
            sums,
            overheads,
        }))
    }

    /// The overheads' sum fitted on the configurations of `d` (a training fold):
    /// separately (`weight` None) or jointly.
    fn refit(&self, d: &Dataset, weight: Option<f64>) -> Option<Expr> {
        let rows: Vec<usize> = d
            .points
            .iter()
            .map(|pt| self.index.get(&key(&pt.x)).copied())
            .collect::<Option<_>>()?;
        let own: Vec<Vec<f64>> = self
            .overheads
            .iter()
            .map(|o| self.separate(o, &rows))
            .collect::<Option<_>>()?;
        let coefficients = match weight {
            None => own,
            Some(w) => self.joint(&rows, &own, w)?,
        };
        let sum = self
            .overheads
            .iter()
            .zip(&coefficients)
            .map(|(o, c)| combination(&o.bases, c))
            .reduce(|a, b| Expr::bin(BinOp::Add, a, b))?;
        Some(sum)
    }

    /// One category's own coefficients on `rows`: least squares of its measured values
    /// relative to the time.
    fn separate(&self, o: &Overhead, rows: &[usize]) -> Option<Vec<f64>> {
        let a = DMatrix::from_fn(rows.len(), o.bases.len(), |r, i| {
            o.columns[i][rows[r]] / self.tt[rows[r]]
        });
        let b = DVector::from_fn(rows.len(), |r, _| o.measured[rows[r]] / self.tt[rows[r]]);
        least_squares(a, b)
    }

    /// Every category's coefficients on `rows`, jointly against the target with weight
    /// `weight` on the distance to `own` (see the module docs). A category whose joint
    /// coefficients would make it implausible keeps `own`, and the others are solved
    /// again without it.
    fn joint(&self, rows: &[usize], own: &[Vec<f64>], weight: f64) -> Option<Vec<Vec<f64>>> {
        let mut free = vec![true; self.overheads.len()];
        loop {
            let solved = self.joint_of(rows, own, weight, &free)?;
            let mut changed = false;
            for (j, o) in self.overheads.iter().enumerate() {
                if free[j] && !o.plausible(&solved[j]) {
                    free[j] = false;
                    changed = true;
                }
            }
            if !changed {
                return Some(solved);
            }
        }
    }

    /// [`Problem::joint`] with the categories that are not `free` held at `own`.
    fn joint_of(
        &self,
        rows: &[usize],
        own: &[Vec<f64>],
        weight: f64,
        free: &[bool],
    ) -> Option<Vec<Vec<f64>>> {
        let solved: Vec<usize> = (0..self.overheads.len()).filter(|&j| free[j]).collect();
        if solved.is_empty() {
            return Some(own.to_vec());
        }
        let width: usize = solved.iter().map(|&j| self.overheads[j].bases.len()).sum();
        let m = rows.len();
        let height = m * (1 + solved.len());
        let mut a = DMatrix::zeros(height, width);
        let mut b = DVector::zeros(height);
        for (r, &k) in rows.iter().enumerate() {
            let held: f64 = (0..self.overheads.len())
                .filter(|&j| !free[j])
                .map(|j| self.overheads[j].value(&own[j], k))
                .sum();
            b[r] = (self.target[k] - held) / self.tt[k];
        }
        let root = weight.sqrt();
        let mut first = 0;
        for (s, &j) in solved.iter().enumerate() {
            let o = &self.overheads[j];
            for (r, &k) in rows.iter().enumerate() {
                let pen = m * (1 + s) + r;
                let own_value = o.value(&own[j], k);
                let scale = own_value.abs().max(HOLD_FLOOR * self.tt[k]);
                for (i, col) in o.columns.iter().enumerate() {
                    a[(r, first + i)] = col[k] / self.tt[k];
                    a[(pen, first + i)] = root * col[k] / scale;
                }
                b[pen] = root * own_value / scale;
            }
            first += o.bases.len();
        }
        let x: Vec<f64> = least_squares(a, b)?
            .into_iter()
            .map(|v| round_sig(v, 6))
            .collect();
        let mut out = own.to_vec();
        let mut first = 0;
        for &j in &solved {
            let len = self.overheads[j].bases.len();
            out[j] = x[first..first + len].to_vec();
            first += len;
        }
        Some(out)
    }

    /// Writes the joint coefficients into `out`'s models (expression, terms, fitted values
    /// and R² at the p > 1 configurations, coefficient values of a plain linear model)
    /// and says how far each moved; categories held at their own fit are left alone.
    fn apply(&self, out: &mut FragmentModels, coefficients: &[Vec<f64>]) -> Vec<Moved> {
        let mut moved = Vec::new();
        let n = self.tt.len();
        for (o, c) in self.overheads.iter().zip(coefficients) {
            if *c == o.own {
                continue;
            }
            let Some(cm) = out.categories.iter_mut().find(|m| m.category == o.name) else {
                continue;
            };
            let time_share = (0..n)
                .map(|k| ((o.value(c, k) - o.value(&o.own, k)) / self.tt[k]).abs())
                .sum::<f64>()
                / n as f64;
            moved.push(Moved {
                category: o.name.clone(),
                time_share,
                ratios: c.iter().zip(&o.own).map(|(a, b)| a / b).collect(),
            });
            let model = &mut cm.model;
            let same_terms = !model.nonlinear
                && model.coefficients.len() == c.len()
                && model.coefficients.iter().zip(&o.bases).all(|(k, b)| {
                    k.term
                        .as_deref()
                        .and_then(|t| crate::expr::parse(t).ok())
                        .is_some_and(|t| t == *b)
                });
            if same_terms {
                for (k, v) in model.coefficients.iter_mut().zip(c) {
                    k.value = *v;
                }
            }
            model.expr = combination(&o.bases, c);
            model.fitted = (0..n).map(|k| o.value(c, k)).collect();
            model.quality.r2 = r_squared(&o.measured, &model.fitted);
            cm.terms = c.iter().copied().zip(o.bases.iter().cloned()).collect();
        }
        moved
    }
}

/// `1 − Σ (y − f)² / Σ (y − ȳ)²` (NaN when every y is alike).
fn r_squared(y: &[f64], fitted: &[f64]) -> f64 {
    let mean = y.iter().sum::<f64>() / y.len().max(1) as f64;
    let ss_tot: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    let ss_res: f64 = y.iter().zip(fitted).map(|(v, f)| (v - f).powi(2)).sum();
    if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        f64::NAN
    }
}

fn key(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

fn bindings(variables: &[String], x: &[f64]) -> Bindings {
    variables.iter().cloned().zip(x.iter().copied()).collect()
}

/// Least squares `a·x ≈ b` with columns scaled to unit norm (SVD; singular values below
/// `1e-10` of the largest are dropped); None when not finite.
fn least_squares(mut a: DMatrix<f64>, b: DVector<f64>) -> Option<Vec<f64>> {
    let norms: Vec<f64> = (0..a.ncols())
        .map(|j| a.column(j).norm())
        .map(|n| if n > 0.0 { n } else { 1.0 })
        .collect();
    for (j, n) in norms.iter().enumerate() {
        a.column_mut(j).scale_mut(1.0 / n);
    }
    let svd = a.svd(true, true);
    let eps = 1e-10 * svd.singular_values.max();
    let x = svd.solve(&b, eps).ok()?;
    let out: Vec<f64> = x.iter().zip(&norms).map(|(v, n)| v / n).collect();
    out.iter().all(|v| v.is_finite()).then_some(out)
}

/// The note `lca model` prints when the step was applied to `fragment`.
pub fn note(fragment: &str, step: &JointStep) -> String {
    let moved: Vec<String> = step
        .moved
        .iter()
        .map(|m| format!("{} by {:.2} %", m.category, 100.0 * m.time_share))
        .collect();
    format!(
        "fragment {fragment}: overheads {} re-estimated jointly so that their sum follows the measured time (λ = {}; held-out error of their sum {:.1} % separately, {:.1} % jointly); each moved, in mean share of the time: {}",
        step.moved.iter().map(|m| m.category.as_str()).collect::<Vec<_>>().join(", "),
        step.weight,
        100.0 * step.separate.score,
        100.0 * step.joint.score,
        moved.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The least-squares solver recovers an exact combination of badly scaled columns.
    #[test]
    fn least_squares_recovers_badly_scaled_columns() {
        let xs = [1.0f64, 2.0, 4.0, 8.0, 16.0];
        let a = DMatrix::from_fn(5, 2, |r, c| if c == 0 { 1e-9 } else { 1e6 * xs[r] });
        let b = DVector::from_fn(5, |r, _| 3.0 * 1e-9 + 2e-6 * 1e6 * xs[r]);
        let x = least_squares(a, b).unwrap();
        assert!(
            (x[0] / 3.0 - 1.0).abs() < 1e-6 && (x[1] / 2e-6 - 1.0).abs() < 1e-9,
            "{x:?}"
        );
    }
}
