//! Choosing between candidate models of one quantity: the automatic search's model of the
//! values, the model of their logarithms and a single growth term are scored on one scale,
//! the relative error at points left out of the fit ([`loo_rel_err`]), so a model with more
//! coefficients than the data demand loses; plus the small measures the fitting step uses.

use lca::dataset::Dataset;
use lca::expr::Expr;
use lca::search::{auto_fit, SearchOptions};

/// The relative leave-one-out error of `model`'s form on `data` (root mean square of
/// `(ŷ₋ᵢ − yᵢ) / yᵢ`, each point predicted by the form refitted without it; a form fitted to
/// the logarithm, `exp(…)`, is refitted to the logarithms): how the study chooses between
/// the search's model of the values, of their logarithms and a single term, whose own
/// scores are not on one scale. A form with more coefficients than the data demand
/// interpolates the points it was fitted to and misses the one left out. Infinite when
/// the form cannot be refitted or evaluated.
pub fn loo_rel_err(data: &Dataset, model: &lca::fit::FittedModel) -> f64 {
    let (form, log) = match model
        .label
        .strip_prefix("exp(")
        .and_then(|l| l.strip_suffix(')'))
    {
        Some(inner) => (inner, true),
        None => (model.label.as_str(), false),
    };
    let Ok(h) = lca::hypothesis::Hypothesis::formula(form, &data.variables) else {
        return f64::INFINITY;
    };
    let (mut sum, mut count) = (0.0, 0usize);
    for i in 0..data.points.len() {
        let mut rest = data.clone();
        let left = rest.points.remove(i);
        if left.y == 0.0 {
            continue;
        }
        if log {
            for q in &mut rest.points {
                q.y = q.y.ln();
            }
        }
        let Ok(m) = lca::fit::fit(&h, &rest) else {
            return f64::INFINITY;
        };
        let Ok(v) = m.expr.eval(&data.bindings(&left)) else {
            return f64::INFINITY;
        };
        let v = if log { v.exp() } else { v };
        if !v.is_finite() {
            return f64::INFINITY;
        }
        sum += ((v - left.y) / left.y).powi(2);
        count += 1;
    }
    if count == 0 {
        f64::INFINITY
    } else {
        (sum / count as f64).sqrt()
    }
}

/// Whether `candidate` predicts the points of `data` left out of its fit better than
/// `best` ([`loo_rel_err`]). Where neither can be refitted without a point (two sizes), the
/// one with no more coefficients that misses the points less, relatively, in-sample.
pub fn predicts_better(
    data: &Dataset,
    candidate: &lca::fit::FittedModel,
    best: &lca::fit::FittedModel,
) -> bool {
    let (c, b) = (loo_rel_err(data, candidate), loo_rel_err(data, best));
    if c.is_finite() || b.is_finite() {
        return c < b;
    }
    candidate.coefficients.len() <= best.coefficients.len()
        && mean_rel_err(data, &candidate.expr) < mean_rel_err(data, &best.expr)
}

/// The best model of one growth term without a constant, `k * x^i * log2(x)^j` for the
/// normal form's exponents (lca's [`lca::search::EXPONENTS`], [`lca::search::LOG_POWERS`])
/// of the data's single variable, by the least relative leave-one-out error; positive at
/// every point. None for data of several variables or fewer than two points.
pub fn fit_single_term(data: &Dataset) -> Option<lca::fit::FittedModel> {
    if data.variables.len() != 1 || data.distinct_points() < 2 {
        return None;
    }
    let v = &data.variables[0];
    let mut best: Option<lca::fit::FittedModel> = None;
    for (num, den) in lca::search::EXPONENTS {
        for log in lca::search::LOG_POWERS {
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
            let Ok(h) = lca::hypothesis::Hypothesis::formula(&factors.join("*"), &data.variables)
            else {
                continue;
            };
            let Ok(m) = lca::fit::fit(&h, data) else {
                continue;
            };
            if !m.quality.cv.is_finite() || !positive_at_points(data, &m.expr) {
                continue;
            }
            if best.as_ref().is_none_or(|b| m.quality.cv < b.quality.cv) {
                best = Some(m);
            }
        }
    }
    best
}

/// Whether `expr` is positive (and can be evaluated) at every point of `data`.
pub fn positive_at_points(data: &Dataset, expr: &Expr) -> bool {
    data.points
        .iter()
        .all(|pt| expr.eval(&data.bindings(pt)).is_ok_and(|v| v > 0.0))
}

/// R² of `expr` on `data` (NaN when the values do not vary).
pub fn r_squared(data: &Dataset, expr: &Expr) -> f64 {
    let n = data.points.len().max(1) as f64;
    let mean = data.points.iter().map(|pt| pt.y).sum::<f64>() / n;
    let (mut res, mut tot) = (0.0, 0.0);
    for pt in &data.points {
        let v = expr.eval(&data.bindings(pt)).unwrap_or(f64::NAN);
        res += (pt.y - v) * (pt.y - v);
        tot += (pt.y - mean) * (pt.y - mean);
    }
    if tot > 0.0 {
        1.0 - res / tot
    } else {
        f64::NAN
    }
}

/// Mean relative error (a fraction) of `expr` on the points of `data` (infinite when it
/// cannot be evaluated).
pub fn mean_rel_err(data: &Dataset, expr: &Expr) -> f64 {
    let mut sum = 0.0;
    let mut count = 0usize;
    for pt in &data.points {
        let vars = data.bindings(pt);
        let Ok(v) = expr.eval(&vars) else {
            return f64::INFINITY;
        };
        if pt.y != 0.0 {
            sum += ((v - pt.y) / pt.y).abs();
            count += 1;
        }
    }
    if count == 0 {
        f64::INFINITY
    } else {
        sum / count as f64
    }
}

/// The best model of `ln y` (lca's automatic search), returned as `exp(model)` with its R²
/// in linear space; None when some y is not positive.
pub fn fit_log_space(
    data: &Dataset,
    opts: &SearchOptions,
) -> Result<Option<lca::fit::FittedModel>, lca::fit::FitError> {
    if data.points.iter().any(|pt| pt.y.is_nan() || pt.y <= 0.0) {
        return Ok(None);
    }
    let logs = Dataset {
        points: data
            .points
            .iter()
            .map(|pt| lca::dataset::DataPoint {
                x: pt.x.clone(),
                y: pt.y.ln(),
                line: pt.line,
            })
            .collect(),
        ..data.clone()
    };
    let fit = auto_fit(&logs, opts)?;
    let mut best = fit.best().clone();
    best.expr = Expr::Call(lca::expr::Func::Exp, vec![best.expr.clone()]);
    best.label = format!("exp({})", best.label);
    let mean = data.points.iter().map(|pt| pt.y).sum::<f64>() / data.points.len() as f64;
    let (mut res, mut tot) = (0.0, 0.0);
    for pt in &data.points {
        let vars = data.bindings(pt);
        let v = best.expr.eval(&vars).unwrap_or(f64::NAN);
        res += (pt.y - v) * (pt.y - v);
        tot += (pt.y - mean) * (pt.y - mean);
    }
    best.quality.r2 = if tot > 0.0 { 1.0 - res / tot } else { f64::NAN };
    Ok(Some(best))
}
