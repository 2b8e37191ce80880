//! The candidate models of one category, each with the recipe that refits its form on
//! fewer observations (what [`super::heldout`] needs), and the bound on coefficients.

use super::heldout::Refit;
use crate::dataset::{DataPoint, Dataset};
use crate::expr::{BinOp, Expr, Func};
use crate::fit::{fit_linear_scaled, round_sig, FittedModel};
use crate::hypothesis::{Hypothesis, HypothesisKind};
use crate::linear::{fit_columns_weighted, Quality};
use crate::search::{auto_fit, SearchOptions, ZeroAt, EXPONENTS, LOG_POWERS};

/// One candidate model of a category.
pub struct Candidate {
    /// The model fitted on all observations (expression in the category's unit and the
    /// observations' variables; label = its form).
    pub model: FittedModel,
    /// Refits the form on training observations.
    pub refit: Box<Refit<'static>>,
    /// The model as `Σ coefficient · basis`, one entry per coefficient its fit determined
    /// (a nonlinear form is one entry, coefficient 1 times the whole expression): what
    /// [`super::joint`] re-estimates.
    pub terms: Vec<(f64, Expr)>,
}

/// `Σ coefficient · basis` of a linear model fitted over `bases`.
fn linear_model_terms(bases: &[Expr], m: &FittedModel) -> Vec<(f64, Expr)> {
    bases
        .iter()
        .zip(&m.coefficients)
        .map(|(b, c)| (c.value, b.clone()))
        .collect()
}

/// A nonlinear model as one term: its whole expression times 1.
pub fn whole(expr: &Expr) -> Vec<(f64, Expr)> {
    vec![(1.0, expr.clone())]
}

/// Most coefficients a model may spend along one variable with `distinct` values:
/// `distinct − 2` (at least 1). Along a variable, a model is its terms that involve the
/// variable plus one lumped coefficient for all that do not; two values more than
/// coefficients are left so that a form cannot pass through every point (a measurable
/// residual) and one point can be left out to test it.
pub fn coefficient_budget(distinct: usize) -> usize {
    distinct.saturating_sub(2).max(1)
}

/// Whether a linear model of `terms` respects [`coefficient_budget`] along every variable
/// of `data`.
pub fn within_budget(terms: &[Expr], data: &Dataset) -> bool {
    data.variables.iter().enumerate().all(|(i, v)| {
        let with: usize = terms.iter().filter(|t| t.variables().contains(v)).count();
        let without = terms.iter().any(|t| !t.variables().contains(v));
        with + usize::from(without) <= coefficient_budget(data.distinct(i).len())
    })
}

/// The search's term limit for `data`: the budget of its least-sampled variable (values
/// that do not vary do not count), between 1 and 3.
pub fn max_terms(data: &Dataset) -> usize {
    let least = (0..data.variables.len())
        .map(|i| data.distinct(i).len())
        .filter(|&d| d >= 2)
        .min()
        .unwrap_or(3);
    coefficient_budget(least).clamp(1, 3)
}

/// The terms of a linear model (from its coefficients), None for a nonlinear one.
fn model_terms(m: &FittedModel) -> Option<Vec<Expr>> {
    if m.nonlinear {
        return None;
    }
    m.coefficients
        .iter()
        .map(|c| c.term.as_deref().and_then(|t| crate::expr::parse(t).ok()))
        .collect()
}

fn linear_terms(h: &Hypothesis) -> Option<&[Expr]> {
    match &h.kind {
        HypothesisKind::Linear { terms } => Some(terms),
        HypothesisKind::Nonlinear { .. } => None,
    }
}

/// A linear candidate of `terms` fitted to errors relative to `scale`; None when over
/// budget or when it cannot be fitted.
fn linear(terms: Vec<Expr>, data: &Dataset, scale: &[f64]) -> Option<Candidate> {
    if !within_budget(&terms, data) {
        return None;
    }
    let m = fit_linear_scaled(&terms, data, scale).ok()?;
    Some(Candidate {
        terms: linear_model_terms(&terms, &m),
        model: m,
        refit: Box::new(move |d: &Dataset, s: &[f64]| {
            fit_linear_scaled(&terms, d, s).ok().map(|f| f.expr)
        }),
    })
}

/// The forms of the automatic search's models of `data` (up to five), within budget,
/// fitted to errors relative to `scale`.
pub fn searched(data: &Dataset, scale: &[f64], zero_at: Option<ZeroAt>) -> Vec<Candidate> {
    let opts = SearchOptions {
        max_terms: max_terms(data),
        keep: 5,
        zero_at,
    };
    let Ok(a) = auto_fit(data, &opts) else {
        return Vec::new();
    };
    a.ranked
        .iter()
        .filter_map(|m| linear(model_terms(m)?, data, scale))
        .collect()
}

/// The power law `C·Π x^a` with fitted exponents (a straight line in log-log space:
/// `ln y = ln C + Σ a·ln x`), over the variables with three or more distinct values; None
/// unless every value and variable is positive. Fitted to the errors in `y` relative to
/// `scale` (to first order: `ln y` weighted by `y / scale`). Exponents are kept to three
/// significant digits.
pub fn power_law(data: &Dataset, scale: &[f64]) -> Option<Candidate> {
    let vars: Vec<String> = (0..data.variables.len())
        .filter(|&i| data.distinct(i).len() >= 3)
        .map(|i| data.variables[i].clone())
        .collect();
    if vars.is_empty() {
        return None;
    }
    let fit_power = move |d: &Dataset, s: &[f64]| -> Option<Expr> {
        let logs = ln_data(d)?;
        let mut terms = vec![Expr::Num(1.0)];
        for v in &vars {
            terms.push(Expr::call(Func::Ln, vec![Expr::var(v)]));
        }
        let w: Vec<f64> = d.points.iter().zip(s).map(|(pt, s)| s / pt.y).collect();
        let f = fit_linear_scaled(&terms, &logs, &w).ok()?;
        let mut e = Expr::Num(crate::fit::round_sig(f.coefficients[0].value.exp(), 6));
        for (v, c) in vars.iter().zip(&f.coefficients[1..]) {
            let a = crate::fit::round_sig(c.value, 3);
            if !a.is_finite() || a.abs() > 8.0 {
                return None;
            }
            if a != 0.0 {
                let x = Expr::bin(BinOp::Pow, Expr::var(v), Expr::Num(a));
                e = Expr::bin(BinOp::Mul, e, x);
            }
        }
        Some(e)
    };
    let expr = fit_power(data, scale)?;
    let y = data.ys();
    let fitted: Vec<f64> = data
        .points
        .iter()
        .map(|pt| expr.eval(&data.bindings(pt)).unwrap_or(f64::NAN))
        .collect();
    if fitted.iter().any(|v| !v.is_finite()) {
        return None;
    }
    Some(Candidate {
        terms: whole(&expr),
        model: FittedModel {
            label: "power law".into(),
            coefficients: Vec::new(),
            quality: Quality::new(&y, &fitted, &fitted, 1 + data.variables.len()),
            expr,
            fitted,
            nonlinear: true,
        },
        refit: Box::new(fit_power),
    })
}

fn ln_data(data: &Dataset) -> Option<Dataset> {
    let mut out = data.clone();
    for pt in &mut out.points {
        if pt.y.is_nan() || pt.y <= 0.0 {
            return None;
        }
        pt.y = pt.y.ln();
    }
    Some(out)
}

/// Every single growth term without a constant, `k·x^i·log2(x)^j` (the normal form's
/// exponents), for data of one variable: what few sizes can still tell.
pub fn single_terms(data: &Dataset, scale: &[f64]) -> Vec<Candidate> {
    let [v] = &data.variables[..] else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (num, den) in EXPONENTS {
        for log in LOG_POWERS {
            let mut factors = Vec::new();
            match (num, den) {
                (0, _) => {}
                (1, 1) => factors.push(v.clone()),
                (_, 1) => factors.push(format!("{v}^{num}")),
                _ => factors.push(format!("{v}^({num}/{den})")),
            }
            match log {
                0 => {}
                1 => factors.push(format!("log2({v})")),
                _ => factors.push(format!("log2({v})^{log}")),
            }
            if factors.is_empty() {
                continue;
            }
            if let Some(c) = formula(&factors.join("*"), data, scale, true) {
                out.push(c);
            }
        }
    }
    out
}

/// Crovella's typical forms for the category (the shipped forms file, linear ones), for
/// data of one variable.
pub fn typical_forms(category: &str, data: &Dataset, scale: &[f64]) -> Vec<Candidate> {
    let Ok(hyps) = crate::forms::FormsFile::shipped().hypotheses(category, &data.variables) else {
        return Vec::new();
    };
    hyps.into_iter()
        .filter_map(|h| linear(linear_terms(&h)?.to_vec(), data, scale))
        .collect()
}

/// The constant model `c` (one coefficient).
pub fn constant(data: &Dataset, scale: &[f64]) -> Option<Candidate> {
    formula("1", data, scale, false)
}

/// A `k`-free formula as a candidate (within budget, and positive at every point when
/// `positive`).
fn formula(text: &str, data: &Dataset, scale: &[f64], positive: bool) -> Option<Candidate> {
    let h = Hypothesis::formula(text, &data.variables).ok()?;
    let c = linear(linear_terms(&h)?.to_vec(), data, scale)?;
    let m = &c.model;
    if positive
        && !data
            .points
            .iter()
            .all(|pt| m.expr.eval(&data.bindings(pt)).is_ok_and(|v| v > 0.0))
    {
        return None;
    }
    Some(c)
}

/// The model 0: the category left out.
pub fn zero(data: &Dataset) -> Candidate {
    let y = data.ys();
    let fitted = vec![0.0; y.len()];
    Candidate {
        terms: Vec::new(),
        model: FittedModel {
            label: "0".into(),
            coefficients: Vec::new(),
            expr: Expr::Num(0.0),
            quality: Quality::new(&y, &fitted, &fitted, 0),
            fitted,
            nonlinear: false,
        },
        refit: Box::new(|_: &Dataset, _: &[f64]| Some(Expr::Num(0.0))),
    }
}

/// `(p − 1)`.
fn p_minus_1(p: &str) -> Expr {
    Expr::bin(BinOp::Sub, Expr::var(p), Expr::Num(1.0))
}

/// `data` (points with p > 1) as `y / (p − 1)` with its scale divided alike, without `p`
/// unless `keep_p`.
pub fn per_extra_processor(
    data: &Dataset,
    scale: &[f64],
    p: &str,
    keep_p: bool,
) -> Option<(Dataset, Vec<f64>)> {
    let pi = data.variables.iter().position(|v| v == p)?;
    let mut out = data.clone();
    let mut s = scale.to_vec();
    if !keep_p {
        out.variables.remove(pi);
    }
    for (pt, s) in out.points.iter_mut().zip(&mut s) {
        let q = pt.x[pi];
        if q <= 1.0 {
            return None;
        }
        pt.y /= q - 1.0;
        *s /= q - 1.0;
        if !keep_p {
            pt.x.remove(pi);
        }
    }
    Some((out, s))
}

/// The candidates of `scaled` (see [`per_extra_processor`]) multiplied by `(p − 1)`: the
/// models refit on the scaled training observations.
pub fn times_p_minus_1(inner: Vec<Candidate>, p: &str, keep_p: bool) -> Vec<Candidate> {
    inner
        .into_iter()
        .map(|c| {
            let factor = p_minus_1(p);
            let mut m = c.model;
            m.expr = Expr::bin(BinOp::Mul, factor.clone(), m.expr);
            m.label = format!("(p-1)*({})", m.label);

            let refit = c.refit;
            let terms = c
                .terms
                .into_iter()
                .map(|(k, b)| (k, Expr::bin(BinOp::Mul, factor.clone(), b)))
                .collect();
            let p = p.to_string();
            Candidate {
                terms,
                model: m,
                refit: Box::new(move |d: &Dataset, s: &[f64]| {
                    let (d, s) = per_extra_processor(d, s, &p, keep_p)?;
                    Some(Expr::bin(BinOp::Mul, factor.clone(), refit(&d, &s)?))
                }),
            }
        })
        .collect()
}

/// `(p − 1)·(c + k·work)` and `(p − 1)·k·work`, `work` the fragment's fitted pure
/// computation (or run time): an overhead per extra processor that is a fixed cost (fork,
/// join, wake-up) plus a share of the work. Fitted to errors relative to `scale`.
pub fn shares_of_work(data: &Dataset, scale: &[f64], p: &str, work: &Expr) -> Vec<Candidate> {
    let mut out = Vec::new();
    for fixed in [true, false] {
        let Some((c, k)) = fit_share(data, scale, p, work, fixed) else {
            continue;
        };
        let expr = share_expr(p, work, c, k, fixed);
        let fitted: Vec<f64> = data
            .points
            .iter()
            .map(|pt| expr.eval(&data.bindings(pt)).unwrap_or(f64::NAN))
            .collect();
        let y = data.ys();
        let label = if fixed {
            format!("(p-1)*({c:.3e} + {k:.4}*work)")
        } else {
            format!("(p-1)*{k:.4}*work")
        };
        let mut terms = Vec::new();
        if fixed {
            terms.push((c, p_minus_1(p)));
        }
        let share = Expr::bin(BinOp::Mul, p_minus_1(p), work.clone());
        terms.push((k, share));
        let (p, work) = (p.to_string(), work.clone());
        out.push(Candidate {
            terms,
            model: FittedModel {
                label,
                coefficients: Vec::new(),
                expr,
                quality: Quality::new(&y, &fitted, &fitted, 1 + usize::from(fixed)),
                fitted,
                nonlinear: false,
            },
            refit: Box::new(move |d: &Dataset, s: &[f64]| {
                let (c, k) = fit_share(d, s, &p, &work, fixed)?;
                Some(share_expr(&p, &work, c, k, fixed))
            }),
        });
    }
    out
}

fn share_expr(p: &str, work: &Expr, c: f64, k: f64, fixed: bool) -> Expr {
    // 6 significant digits, as every fitted model keeps (`crate::fit::round_sig`): the
    // expression is printed in notes and models files.
    let (c, k) = (round_sig(c, 6), round_sig(k, 6));
    let share = Expr::bin(BinOp::Mul, Expr::Num(k), work.clone());
    let inner = if fixed {
        Expr::bin(BinOp::Add, Expr::Num(c), share)
    } else {
        share
    };
    Expr::bin(BinOp::Mul, p_minus_1(p), inner)
}

/// Least squares of `y ≈ (p − 1)·(c + k·work)` (c = 0 unless `fixed`) relative to `scale`.
fn fit_share(
    data: &Dataset,
    scale: &[f64],
    p: &str,
    work: &Expr,
    fixed: bool,
) -> Option<(f64, f64)> {
    let pi = data.variables.iter().position(|v| v == p)?;
    let (mut c0, mut c1, mut y) = (Vec::new(), Vec::new(), Vec::new());
    for pt in &data.points {
        let q = pt.x[pi] - 1.0;
        let b = work.eval(&data.bindings(pt)).ok()?;
        if !b.is_finite() {
            return None;
        }
        c0.push(q);
        c1.push(q * b);
        y.push(pt.y);
    }
    let cols = if fixed { vec![c0, c1] } else { vec![c1] };
    let f = fit_columns_weighted(&cols, &y, scale).ok()?;
    let (c, k) = if fixed {
        (f.coefficients[0], f.coefficients[1])
    } else {
        (0.0, f.coefficients[0])
    };
    (c.is_finite() && k.is_finite()).then_some((c, k))
}

/// Keeps the points of `data` where `keep` holds.
pub fn points_where(data: &Dataset, keep: impl Fn(&DataPoint) -> bool) -> Dataset {
    let mut out = data.clone();
    out.points.retain(keep);
    out
}

/// Growth forms in p for an overhead, each 0 at p = 1: Crovella's typical forms (Table
/// 5.1: Amdahl's `p − 1`, Markatos' `log2(p)`, Zhang and Srinivasan's `p·sqrt(p)`, and
/// `p·log2(p)`), and the saturating `1 − 1/p`: a cost that appears with a second
/// processor and then stops growing (a shared resource, such as the memory bus or the
/// allocator's lock, that one extra processor already holds busy).
pub const P_FORMS: [&str; 5] = ["log2(p)", "p - 1", "p*log2(p)", "p*sqrt(p) - 1", "1 - 1/p"];

/// Size factors tried with [`P_FORMS`]: the usual complexities.
pub const SIZE_FORMS: [&str; 7] = [
    "sqrt(x)",
    "x",
    "x*log2(x)",
    "x^(3/2)",
    "x^2",
    "x^2*log2(x)",
    "x^3",
];

/// Separable overheads `g(p)·(c + k·h(size))`: `g` one of [`P_FORMS`], `h` the fragment's
/// work model or one of [`SIZE_FORMS`] of the size variable (also `g(p)·k·h` and `c·g(p)`):
/// a cost per processor that grows with the size as the work or a usual complexity.
pub fn separable(data: &Dataset, scale: &[f64], p: &str, work: Option<&Expr>) -> Vec<Candidate> {
    let sizes: Vec<&String> = data.variables.iter().filter(|v| *v != p).collect();
    let mut hs: Vec<Expr> = work.cloned().into_iter().collect();
    if let [size] = &sizes[..] {
        for f in SIZE_FORMS {
            if let Ok(e) = crate::expr::parse(&f.replace('x', size)) {
                hs.push(e);
            }
        }
    }
    let mut out = Vec::new();
    for g in P_FORMS {
        let Ok(g) = crate::expr::parse(&g.replace('p', p)) else {
            continue;
        };
        out.extend(linear(vec![g.clone()], data, scale));
        for h in &hs {
            let gh = Expr::bin(BinOp::Mul, h.clone(), g.clone());
            out.extend(linear(vec![gh.clone()], data, scale));
            out.extend(linear(vec![gh, g.clone()], data, scale));
        }
    }
    out
}

/// A user's form as a candidate, not held to [`coefficient_budget`] (the user asked for
/// it): a linear form fitted to the errors relative to `scale`, a nonlinear one by the
/// nonlinear solver. None when it cannot be fitted to `data` (a variable it uses is not
/// one of the data's, too few points).
pub fn hypothesis(h: &Hypothesis, data: &Dataset, scale: &[f64]) -> Option<Candidate> {
    let mut model = match &h.kind {
        HypothesisKind::Linear { terms } => fit_linear_scaled(terms, data, scale).ok()?,
        HypothesisKind::Nonlinear { .. } => crate::fit::fit(h, data).ok()?,
    };
    model.label = h.label.clone();
    let terms = match &h.kind {
        HypothesisKind::Linear { terms } => linear_model_terms(terms, &model),
        HypothesisKind::Nonlinear { .. } => whole(&model.expr),
    };
    let h = h.clone();
    Some(Candidate {
        terms,
        model,
        refit: Box::new(move |d: &Dataset, s: &[f64]| match &h.kind {
            HypothesisKind::Linear { terms } => fit_linear_scaled(terms, d, s).ok().map(|f| f.expr),
            HypothesisKind::Nonlinear { .. } => crate::fit::fit(&h, d).ok().map(|f| f.expr),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::parse;

    /// A share of the work is written with 6 significant digits, as every fitted model
    /// (notes print it): `(p - 1)*(0.858014*(…))`, not `0.8580142439248235`.
    #[test]
    fn shares_of_the_work_keep_six_significant_digits() {
        let work = parse("1.66e-8*n^2").unwrap();
        let mut points = Vec::new();
        let mut scale = Vec::new();
        for n in [256.0f64, 512.0, 1024.0] {
            for p in [1.0f64, 2.0] {
                let w = 1.66e-8 * n * n;
                let y = (p - 1.0) * 0.8580142439248235 * w * (1.0 + 1e-3 * n.ln());
                points.push(DataPoint {
                    x: vec![n, p],
                    y,
                    line: 0,
                });
                scale.push(w + y);
            }
        }
        let data = Dataset {
            source: "t".into(),
            category: "li".into(),
            variables: vec!["n".into(), "p".into()],
            points,
        };
        let shares = shares_of_work(&data, &scale, "p", &work);
        assert_eq!(shares.len(), 2);
        for c in shares {
            let text = c.model.expr.to_string();
            let longest = text
                .split(|ch: char| !(ch.is_ascii_digit() || ch == '.'))
                .map(|t| t.chars().filter(char::is_ascii_digit).count())
                .max()
                .unwrap_or(0);
            assert!(longest <= 7, "{text}");
        }
    }
}
