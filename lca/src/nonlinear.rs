//! Nonlinear forms (`max(k1*p + k2, k3)`, `k1*exp(k2*n)`, thresholds): least squares by
//! Nelder–Mead (`argmin`), started from linear fits. Unlike linear forms (weighted by
//! `1 / |y|`, see [`crate::linear`]) they minimize the absolute squared error, and their R²
//! is the unweighted one; their cross-validation error is relative like every model's.
//!
//! Starting points: every `max`/`min` is replaced by each of its arguments in turn (a
//! *branch*); in a branch, parameters that multiply one additive term are fitted by linear
//! least squares while the remaining ones run over a small grid (`{±3, ±1, ±0.3, 0} / x_max`,
//! for up to two of them); parameters of dropped arguments start at `min(y)` (for `max`) or
//! `max(y)` (for `min`), so the start reproduces the branch's fit. The three best starts
//! are polished by Nelder–Mead on the full form, minimizing RSS / Σy², and the best result
//! is restarted once.
//!
//! Statistics: 90% half-widths from the linearized covariance `s² (JᵀJ)⁻¹` (numeric
//! Jacobian); a parameter that does not influence the fit (a `max` argument that never
//! wins) gets an infinite half-width. LOO-CV refits without each point in turn, starting
//! from the full optimum.

use crate::dataset::Dataset;
use crate::expr::{BinOp, Expr, Func};
use crate::fit::{bindings, point_text, round_sig, Coefficient, FitError, FittedModel};
use crate::linear::{fit_columns, Quality};
use crate::stats::t_quantile;
use argmin::core::{CostFunction, Error as ArgminError, Executor};
use argmin::solver::neldermead::NelderMead;
use nalgebra::DMatrix;
use std::collections::BTreeMap;

#[derive(Clone, Copy)]
struct Problem<'a> {
    form: &'a Expr,
    params: &'a [String],
    xs: &'a [Vec<f64>],
    vars: &'a [String],
    y: &'a [f64],
    norm: f64,
}

fn eval_at(form: &Expr, params: &[String], k: &[f64], vars: &[String], x: &[f64]) -> f64 {
    form.eval_with(&|name| {
        if let Some(i) = params.iter().position(|p| p == name) {
            return Some(k[i]);
        }
        vars.iter().position(|v| v == name).map(|i| x[i])
    })
    .unwrap_or(f64::NAN)
}

impl Problem<'_> {
    fn sse(&self, k: &[f64]) -> f64 {
        let mut s = 0.0;
        for (x, y) in self.xs.iter().zip(self.y) {
            let f = eval_at(self.form, self.params, k, self.vars, x);
            s += (f - y).powi(2);
        }
        if s.is_finite() {
            s / self.norm
        } else {
            1e300
        }
    }
}

impl CostFunction for Problem<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, k: &Self::Param) -> Result<f64, ArgminError> {
        Ok(self.sse(k))
    }
}

fn nelder_mead(p: &Problem<'_>, start: &[f64], iters: u64) -> (Vec<f64>, f64) {
    let q = start.len();
    let mut simplex = vec![start.to_vec()];
    for i in 0..q {
        let mut v = start.to_vec();
        let d = if v[i] != 0.0 { 0.1 * v[i].abs() } else { 1e-3 };
        v[i] += d;
        simplex.push(v);
    }
    let solver = match NelderMead::new(simplex).with_sd_tolerance(1e-18) {
        Ok(s) => s,
        Err(_) => return (start.to_vec(), p.sse(start)),
    };
    let res = Executor::new(*p, solver)
        .configure(|s| s.max_iters(iters))
        .run();
    match res {
        Ok(r) => {
            let best = r
                .state()
                .best_param
                .clone()
                .unwrap_or_else(|| start.to_vec());
            let c = p.sse(&best);
            (best, c)
        }
        Err(_) => (start.to_vec(), p.sse(start)),
    }
}

/// `form` with each max/min replaced by one argument; also returns for every dropped
/// parameter whether it came from a `max` (true) or `min` (false).
fn branches(form: &Expr, limit: usize) -> Vec<(Expr, BTreeMap<String, bool>)> {
    fn go(e: &Expr) -> Vec<(Expr, BTreeMap<String, bool>)> {
        match e {
            Expr::Call(f @ (Func::Max | Func::Min), args) => {
                let mut out = Vec::new();
                for (i, a) in args.iter().enumerate() {
                    for (b, mut dropped) in go(a) {
                        for (j, other) in args.iter().enumerate() {
                            if j != i {
                                for v in other.variables() {
                                    dropped.entry(v).or_insert(*f == Func::Max);
                                }
                            }
                        }
                        out.push((b, dropped));
                    }
                }
                out.truncate(16);
                out
            }
            Expr::Call(f, args) => {
                // Other functions: keep the first branch of each argument.
                let mut dropped = BTreeMap::new();
                let mut new_args = Vec::new();
                for a in args {
                    let (b, d) = go(a).swap_remove(0);
                    dropped.extend(d);
                    new_args.push(b);
                }
                vec![(Expr::Call(*f, new_args), dropped)]
            }
            Expr::Neg(a) => go(a)
                .into_iter()
                .map(|(b, d)| (Expr::Neg(Box::new(b)), d))
                .collect(),
            Expr::Bin(op, a, b) => {
                let mut out = Vec::new();
                for (x, dx) in go(a) {
                    for (y, dy) in go(b) {
                        let mut d = dx.clone();
                        d.extend(dy);
                        out.push((Expr::bin(*op, x.clone(), y), d));
                    }
                }
                out.truncate(16);
                out
            }
            other => vec![(other.clone(), BTreeMap::new())],
        }
    }
    let mut v = go(form);
    v.truncate(limit);
    v
}

fn is_param_of(name: &str, params: &[String]) -> bool {
    params.iter().any(|p| p == name)
}

/// Splits a term into (param, rest) if it is a product with exactly one parameter factor.
fn linear_split(t: &Expr, params: &[String]) -> Option<(String, Expr)> {
    fn factors(t: &Expr, out: &mut Vec<Expr>) {
        if let Expr::Bin(BinOp::Mul, a, b) = t {
            factors(a, out);
            factors(b, out);
        } else {
            out.push(t.clone());
        }
    }
    let mut fs = Vec::new();
    factors(t, &mut fs);
    let mut param = None;
    let mut rest = Vec::new();
    for f in fs {
        match &f {
            Expr::Var(n) if is_param_of(n, params) && param.is_none() => param = Some(n.clone()),
            _ => {
                if f.variables().iter().any(|v| is_param_of(v, params)) {
                    return None;
                }
                rest.push(f);
            }
        }
    }
    Some((
        param?,
        rest.into_iter()
            .reduce(|a, b| Expr::bin(BinOp::Mul, a, b))
            .unwrap_or(Expr::Num(1.0)),
    ))
}

/// A branch's additive terms sorted by how their parameters get starting values.
struct BranchTerms {
    /// Terms linear in one parameter: (parameter, sign, the term without that parameter);
    /// these parameters come from least squares.
    lin: Vec<(String, f64, Expr)>,
    /// The other terms: (sign, term), a fixed offset once the nonlinear parameters are set.
    offset_terms: Vec<(f64, Expr)>,
    /// The branch's parameters that are not linear ones: set from a grid.
    nonlin: Vec<String>,
}

impl BranchTerms {
    /// Sorts `branch`'s terms: the first term linear in a parameter makes that parameter
    /// linear; every other term is an offset.
    fn split(branch: &Expr, params: &[String]) -> Self {
        let present = branch.variables();
        let terms = branch.additive_terms();
        let mut lin: Vec<(String, f64, Expr)> = Vec::new();
        let mut offset_terms: Vec<(f64, Expr)> = Vec::new();
        for (sign, t) in &terms {
            match linear_split(t, params) {
                Some((k, rest)) if !lin.iter().any(|(n, ..)| *n == k) => {
                    lin.push((k, *sign, rest));
                }
                _ => offset_terms.push((*sign, t.clone())),
            }
        }
        let nonlin: Vec<String> = params
            .iter()
            .filter(|p| present.contains(*p) && !lin.iter().any(|(n, ..)| n == *p))
            .cloned()
            .collect();
        BranchTerms {
            lin,
            offset_terms,
            nonlin,
        }
    }

    /// The combinations of nonlinear parameter values to try: a grid of 7 values scaled by
    /// the largest |x| for one or two of them, the middle of the y range for more.
    fn combinations(&self, xmax: f64, ymin: f64, ymax: f64) -> Vec<Vec<f64>> {
        let grid: Vec<f64> = [-3.0, -1.0, -0.3, 0.0, 0.3, 1.0, 3.0]
            .iter()
            .map(|g| g / xmax)
            .collect();
        match self.nonlin.len() {
            0 => vec![vec![]],
            1 => grid.iter().map(|&a| vec![a]).collect(),
            2 => grid
                .iter()
                .flat_map(|&a| grid.iter().map(move |&b| vec![a, b]))
                .collect(),
            n => vec![vec![(ymin + ymax) / 2.0; n]],
        }
    }

    /// Values for the nonlinear parameters (`combo`) and for the parameters of dropped
    /// branches (the y minimum for those dropped at their maximum, else the y maximum).
    fn substitution(
        &self,
        combo: &[f64],
        dropped: &BTreeMap<String, bool>,
        params: &[String],
        ymin: f64,
        ymax: f64,
    ) -> BTreeMap<String, Expr> {
        let mut subst: BTreeMap<String, Expr> = self
            .nonlin
            .iter()
            .cloned()
            .zip(combo.iter().map(|&v| Expr::Num(v)))
            .collect();
        for (k, from_max) in dropped {
            if is_param_of(k, params) && !subst.contains_key(k) {
                subst.insert(k.clone(), Expr::Num(if *from_max { ymin } else { ymax }));
            }
        }
        subst
    }

    /// The offset and each linear parameter's column at every data point under `subst`;
    /// `None` when any value is not finite.
    fn columns(
        &self,
        data: &Dataset,
        subst: &BTreeMap<String, Expr>,
    ) -> Option<(Vec<f64>, Vec<Vec<f64>>)> {
        let mut offset = vec![0.0; data.len()];
        let mut cols = vec![vec![0.0; data.len()]; self.lin.len()];
        for i in 0..data.len() {
            let b = bindings(data, i);
            let look = |n: &str| {
                b.get(n).copied().or_else(|| match subst.get(n) {
                    Some(Expr::Num(v)) => Some(*v),
                    _ => None,
                })
            };
            for (s, t) in &self.offset_terms {
                offset[i] += s * t.eval_with(&look).unwrap_or(f64::NAN);
            }
            for (j, (_, s, rest)) in self.lin.iter().enumerate() {
                cols[j][i] = s * rest.eval_with(&look).unwrap_or(f64::NAN);
            }
        }
        if offset
            .iter()
            .chain(cols.iter().flatten())
            .any(|v| !v.is_finite())
        {
            return None;
        }
        Some((offset, cols))
    }

    /// One start under `subst`: the linear parameters by least squares on y minus the
    /// offset, the others from `subst`. Returns (branch SSE, params); `None` when the
    /// columns are not finite or the least squares fails.
    fn start(
        &self,
        subst: &BTreeMap<String, Expr>,
        params: &[String],
        data: &Dataset,
        y: &[f64],
    ) -> Option<(f64, Vec<f64>)> {
        let lin = &self.lin;
        let (offset, cols) = self.columns(data, subst)?;
        let resid: Vec<f64> = y.iter().zip(&offset).map(|(a, b)| a - b).collect();
        let coef = if lin.is_empty() {
            Some(vec![])
        } else {
            fit_columns(&cols, &resid).ok().map(|f| f.coefficients)
        };
        let coef = coef?;
        let mut k = vec![0.0; params.len()];
        for (i, p) in params.iter().enumerate() {
            if let Some(j) = lin.iter().position(|(n, ..)| n == p) {
                k[i] = coef[j];
            } else if let Some(Expr::Num(v)) = subst.get(p) {
                k[i] = *v;
            }
        }
        let sse: f64 = (0..data.len())
            .map(|i| {
                let f: f64 = offset[i] + (0..lin.len()).map(|j| coef[j] * cols[j][i]).sum::<f64>();
                (f - y[i]).powi(2)
            })
            .sum();
        Some((sse, k))
    }
}

/// Starting points from one branch: linear parameters by least squares over a grid of the
/// nonlinear ones. Returns the two candidates with the lowest branch SSE.
fn branch_starts(
    branch: &Expr,
    dropped: &BTreeMap<String, bool>,
    params: &[String],
    data: &Dataset,
    y: &[f64],
) -> Vec<Vec<f64>> {
    let ymin = y.iter().copied().fold(f64::INFINITY, f64::min);
    let ymax = y.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let xmax = data
        .points
        .iter()
        .flat_map(|p| p.x.iter())
        .fold(1e-300f64, |a, v| a.max(v.abs()));
    let terms = BranchTerms::split(branch, params);
    let mut scored: Vec<(f64, Vec<f64>)> = terms
        .combinations(xmax, ymin, ymax)
        .iter()
        .filter_map(|combo| {
            let subst = terms.substitution(combo, dropped, params, ymin, ymax);
            terms.start(&subst, params, data, y)
        })
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    scored.into_iter().take(2).map(|(_, k)| k).collect()
}

fn optimize(p: &Problem<'_>, starts: &[Vec<f64>], iters: u64) -> (Vec<f64>, f64) {
    let mut ranked: Vec<(f64, Vec<f64>)> = starts.iter().map(|s| (p.sse(s), s.clone())).collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best = (ranked[0].1.clone(), ranked[0].0);
    for (_, s) in ranked.iter().take(3) {
        let (k, c) = nelder_mead(p, s, iters);
        if c < best.1 {
            best = (k, c);
        }
    }
    let (k, c) = nelder_mead(p, &best.0, iters);
    if c < best.1 {
        best = (k, c);
    }
    best
}

/// 90 % confidence half-widths of the parameters `k` from the linearized covariance
/// (central-difference Jacobian at `k`, Student t); infinite where it is singular.
fn half_widths(p: &Problem<'_>, k: &[f64], fitted: &[f64]) -> Vec<f64> {
    let (m, q) = (p.y.len(), k.len());
    let rss: f64 = p.y.iter().zip(fitted).map(|(a, b)| (a - b).powi(2)).sum();
    let dof = (m - q).max(1) as f64;
    let s2 = rss / dof;
    let t = t_quantile(0.95, dof);
    let mut jac = DMatrix::<f64>::zeros(m, q);
    for j in 0..q {
        let h = if k[j] != 0.0 { 1e-6 * k[j].abs() } else { 1e-8 };
        let mut kp = k.to_vec();
        let mut km = k.to_vec();
        kp[j] += h;
        km[j] -= h;
        for (i, x) in p.xs.iter().enumerate() {
            jac[(i, j)] = (eval_at(p.form, p.params, &kp, p.vars, x)
                - eval_at(p.form, p.params, &km, p.vars, x))
                / (2.0 * h);
        }
    }
    let jtj = jac.transpose() * &jac;
    let inv = jtj.clone().try_inverse();
    (0..q)
        .map(|j| match &inv {
            Some(inv) if jtj[(j, j)] > 0.0 && inv[(j, j)] >= 0.0 => t * (s2 * inv[(j, j)]).sqrt(),
            _ => f64::INFINITY,
        })
        .collect()
}

/// Leave-one-out predictions: the form refitted without each point in turn (started from
/// `k`), evaluated there; the fitted values themselves beyond 200 points (too costly).
fn leave_one_out(p: &Problem<'_>, k: &[f64], fitted: &[f64]) -> Vec<f64> {
    let m = p.y.len();
    if m > 200 {
        return fitted.to_vec();
    }
    (0..m)
        .map(|i| {
            let xs_i: Vec<Vec<f64>> = (0..m)
                .filter(|&j| j != i)
                .map(|j| p.xs[j].clone())
                .collect();
            let y_i: Vec<f64> = (0..m).filter(|&j| j != i).map(|j| p.y[j]).collect();
            let pi = Problem {
                form: p.form,
                params: p.params,
                xs: &xs_i,
                vars: p.vars,
                y: &y_i,
                norm: p.norm,
            };
            let (ki, _) = nelder_mead(&pi, k, 1500);
            eval_at(p.form, p.params, &ki, p.vars, &p.xs[i])
        })
        .collect()
}

/// Fits a nonlinear form (see the module docs).
pub fn fit_nonlinear(
    label: &str,
    form: &Expr,
    params: &[String],
    data: &Dataset,
) -> Result<FittedModel, FitError> {
    let m = data.len();
    let q = params.len();
    let y = data.ys();
    if m < q + 1 {
        return Err(FitError::Linear {
            source_name: data.source.clone(),
            label: label.into(),
            error: crate::linear::LinearError::TooFewPoints {
                needed: q + 1,
                coefficients: q,
                got: m,
            },
        });
    }
    let xs: Vec<Vec<f64>> = data.points.iter().map(|p| p.x.clone()).collect();
    let norm = y.iter().map(|v| v * v).sum::<f64>().max(1e-300);
    let problem = Problem {
        form,
        params,
        xs: &xs,
        vars: &data.variables,
        y: &y,
        norm,
    };
    let mut starts = Vec::new();
    for (b, dropped) in branches(form, 8) {
        starts.extend(branch_starts(&b, &dropped, params, data, &y));
    }
    starts.push(vec![1.0; q]);
    let (k, _) = optimize(&problem, &starts, 4000);
    let fitted: Vec<f64> = xs
        .iter()
        .map(|x| eval_at(form, params, &k, &data.variables, x))
        .collect();
    if let Some(i) = fitted.iter().position(|v| !v.is_finite()) {
        return Err(FitError::NotFinite {
            source_name: data.source.clone(),
            line: data.points[i].line,
            label: label.into(),
            term: label.into(),
            value: fitted[i],
            at: point_text(data, i),
        });
    }
    if k.iter().any(|v| !v.is_finite()) {
        return Err(FitError::NoConvergence {
            source_name: data.source.clone(),
            label: label.into(),
        });
    }
    let half = half_widths(&problem, &k, &fitted);
    let loo = leave_one_out(&problem, &k, &fitted);
    let quality = Quality::new(&y, &fitted, &loo, q);
    let coefficients = params
        .iter()
        .zip(&k)
        .zip(&half)
        .map(|((n, &v), &h)| Coefficient {
            name: n.clone(),
            term: None,
            value: v,
            half_width: h,
            contains_zero: v.abs().partial_cmp(&h) != Some(std::cmp::Ordering::Greater),
        })
        .collect();
    let subst: BTreeMap<String, Expr> = params
        .iter()
        .zip(&k)
        .map(|(n, &v)| (n.clone(), Expr::Num(round_sig(v, 6))))
        .collect();
    Ok(FittedModel {
        label: label.into(),
        coefficients,
        expr: form.substitute(&subst),
        quality,
        fitted,
        nonlinear: true,
    })
}

#[cfg(test)]
mod tests {
    use crate::dataset::{DataPoint, Dataset};
    use crate::fit::fit;
    use crate::hypothesis::Hypothesis;

    fn data(f: impl Fn(f64) -> f64, xs: &[f64]) -> Dataset {
        Dataset::new(
            "rc",
            &["p"],
            xs.iter()
                .map(|&x| DataPoint {
                    x: vec![x],
                    y: f(x),
                    line: 0,
                })
                .collect(),
        )
    }

    #[test]
    fn fits_a_threshold() {
        let xs: Vec<f64> = (1..=16).map(f64::from).collect();
        let d = data(|p| (0.5 * p - 1.0).max(2.0), &xs);
        let h = Hypothesis::form("max(k1*p + k2, k3)", &["p".into()]).unwrap();
        let m = fit(&h, &d).unwrap();
        let k: Vec<f64> = m.coefficients.iter().map(|c| c.value).collect();
        assert!((k[0] - 0.5).abs() < 1e-4, "{k:?}");
        assert!((k[1] + 1.0).abs() < 1e-3, "{k:?}");
        assert!((k[2] - 2.0).abs() < 1e-3, "{k:?}");
        assert!(m.quality.r2 > 0.9999);
        assert!(m.nonlinear);
    }

    #[test]
    fn fits_an_exponential() {
        let xs: Vec<f64> = (1..=10).map(f64::from).collect();
        let d = data(|n| 2.0 * (0.3 * n).exp(), &xs);
        let h = Hypothesis::form("k1*exp(k2*p)", &["p".into()]).unwrap();
        let m = fit(&h, &d).unwrap();
        assert!(
            (m.coefficients[0].value - 2.0).abs() < 1e-3,
            "{:?}",
            m.coefficients
        );
        assert!((m.coefficients[1].value - 0.3).abs() < 1e-4);
        assert!(m.quality.cv < 1e-3);
    }
}
