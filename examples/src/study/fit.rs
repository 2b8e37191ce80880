//! Step 2: fitting every fragment's categories with `lca`'s automatic search.
//!
//! The records are per fragment *execution* (the study divides each run's totals by its
//! iterations), so the models are processor-seconds per execution in the size variable and
//! p. Fitted categories: `li ip sl wc`, and the busy time split by the baseline into `pc`
//! (pure computation) and `ml` (memory and runtime loss), or `rt` when a record has no
//! baseline split. A category that is zero in every record is left out (it adds nothing).

use super::model::{CategoryFit, FragmentFit};
use lca::dataset::Dataset;
use lca::expr::{BinOp, Expr};
use lca::extraction::Extraction;
use lca::record::Record;
use lca::search::{auto_fit, SearchOptions};

/// Categories fitted, in annotation order.
pub const FITTED: [&str; 7] = ["pc", "ml", "rt", "li", "ip", "sl", "wc"];

/// Errors of the fitting step.
#[derive(Debug, thiserror::Error)]
pub enum FitStepError {
    /// The records of a fragment and category could not form a data set.
    #[error("fragment {fragment}, category {category}: {message}")]
    Data {
        /// Fragment.
        fragment: String,
        /// Category.
        category: String,
        /// What lca said.
        message: String,
    },
}

/// The fragment tags of `records`, in order of first appearance.
pub fn fragment_names(records: &[Record]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in records {
        if let Some(t) = r.tag() {
            if !names.iter().any(|x| x == t) {
                names.push(t.to_string());
            }
        }
    }
    names
}

/// Fits every category of every fragment of `records` as a function of `variables`
/// (e.g. `["n", "p"]`). `source` names the records in messages.
///
/// A category whose best model explains less than [`MIN_R2`] of its variance is noise at
/// this measurement precision (typically `ml`, a difference of two noisy times): it is left
/// out of the models, and the returned notes say so.
pub fn fit_fragments(
    records: &[Record],
    source: &str,
    variables: &[String],
) -> Result<(Vec<FragmentFit>, Vec<String>), FitStepError> {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for name in fragment_names(records) {
        let mine: Vec<&Record> = records
            .iter()
            .filter(|r| r.tag() == Some(name.as_str()))
            .collect();
        let has = |c: &str| mine.iter().any(|r| r.has(c));
        let mut categories = Vec::new();
        for cat in FITTED {
            if !has(cat) || (cat == "rt" && has("pc")) {
                continue;
            }
            let data_err = |message: String| FitStepError::Data {
                fragment: name.clone(),
                category: cat.to_string(),
                message,
            };
            let extraction =
                Extraction::parse(&format!("tag={name}")).map_err(|e| data_err(e.to_string()))?;
            // Pure computation is the p = 1 busy time by definition: a function of the
            // size variables only.
            let vars: Vec<String> = if cat == "pc" {
                variables.iter().filter(|v| *v != "p").cloned().collect()
            } else {
                variables.to_vec()
            };
            let data = Dataset::from_records(records, source, cat, &vars, &extraction)
                .map_err(|e| data_err(e.to_string()))?;
            if data.points.iter().all(|p| p.y == 0.0) {
                continue;
            }
            if VANISHING.contains(&cat) {
                if let Some(fit) =
                    fit_vanishing(&data, &categories).map_err(|e| data_err(e.to_string()))?
                {
                    categories.push(fit);
                }
                continue;
            }
            let opts = SearchOptions {
                max_terms: max_terms(&data),
                ..SearchOptions::default()
            };
            let fit = auto_fit(&data, &opts).map_err(|e| data_err(e.to_string()))?;
            let mut best = fit.best().clone();
            if cat == "pc" || cat == "rt" {
                // Work spans decades over the sizes: a least-squares fit in linear space
                // serves the largest sizes and misses the small ones by far, relatively.
                // Fit its logarithm too (relative errors) and keep whichever misses the
                // measured points less, relatively.
                if let Some(log) =
                    fit_log_space(&data, &opts).map_err(|e| data_err(e.to_string()))?
                {
                    if mean_rel_err(&data, &log.expr) < mean_rel_err(&data, &best.expr) {
                        best = log;
                    }
                }
            }
            let low = best.quality.r2.is_nan() || best.quality.r2 < MIN_R2;
            if low && (cat == "pc" || cat == "rt") {
                // The fragment's own work is never noise: keep its best model, say it is poor.
                notes.push(format!(
                    "fragment {name}, category {cat}: best model `{}` has R² = {:.2} < {MIN_R2} (noisy measurements): kept, as the fragment's work cannot be left out",
                    best.expr, best.quality.r2
                ));
            } else if low {
                notes.push(format!(
                    "fragment {name}, category {cat}: best model `{}` has R² = {:.2} < {MIN_R2}: treated as measurement noise and left out",
                    best.expr, best.quality.r2
                ));
                continue;
            }
            categories.push(CategoryFit {
                category: cat.to_string(),
                expr: best.expr.clone(),
                form: best.label.clone(),
                r2: best.quality.r2,
                points: data.points.len(),
            });
        }
        out.push(FragmentFit { name, categories });
    }
    Ok((out, notes))
}

/// Categories that are overheads of running in parallel: zero (or nearly) at p = 1 by
/// definition, so they are modelled as `(p - 1) * f(...)` and fitted on the p > 1 records
/// only (a free constant would put a spurious value at p = 1, and the p = 1 records would
/// dominate the fit of a quantity that is only interesting above it).
pub const VANISHING: [&str; 5] = ["ml", "li", "sl", "ip", "wc"];

/// Fits a [`VANISHING`] category: `y / (p - 1)` on the records with p > 1, as a function of
/// the other variables (and of p too when there are three or more p > 1), with lca's
/// automatic search when there are at least three distinct sizes and the best model explains
/// at least [`MIN_R2`]; otherwise (too few sizes to tell a form, or noise) as a share of the
/// fragment's pure computation, `k * pc` (least squares), which carries the size dependence
/// that was fitted well. None when every p > 1 value is zero, or there is no p.
pub fn fit_vanishing(
    data: &Dataset,
    fitted: &[CategoryFit],
) -> Result<Option<CategoryFit>, lca::fit::FitError> {
    let Some(pi) = data.variables.iter().position(|v| v == "p") else {
        return Ok(None);
    };
    let above: Vec<&lca::dataset::DataPoint> =
        data.points.iter().filter(|pt| pt.x[pi] > 1.0).collect();
    if above.is_empty() || above.iter().all(|pt| pt.y == 0.0) {
        return Ok(None);
    }
    let mut ps: Vec<f64> = above.iter().map(|pt| pt.x[pi]).collect();
    ps.sort_by(f64::total_cmp);
    ps.dedup();
    let keep_p = ps.len() >= 3;
    let vars: Vec<String> = data
        .variables
        .iter()
        .enumerate()
        .filter(|(i, _)| keep_p || *i != pi)
        .map(|(_, v)| v.clone())
        .collect();
    let points: Vec<lca::dataset::DataPoint> = above
        .iter()
        .map(|pt| lca::dataset::DataPoint {
            x: pt
                .x
                .iter()
                .enumerate()
                .filter(|(i, _)| keep_p || *i != pi)
                .map(|(_, v)| *v)
                .collect(),
            y: pt.y / (pt.x[pi] - 1.0),
            line: pt.line,
        })
        .collect();
    let scaled = Dataset {
        source: data.source.clone(),
        category: data.category.clone(),
        variables: vars.clone(),
        points,
    };
    let p_minus_1 = Expr::bin(BinOp::Sub, Expr::Var("p".into()), Expr::Num(1.0));
    let sizes = (0..vars.len())
        .map(|i| scaled.distinct(i).len())
        .max()
        .unwrap_or(0);
    if sizes >= 3 && !vars.is_empty() {
        let opts = SearchOptions {
            max_terms: max_terms(&scaled),
            ..SearchOptions::default()
        };
        let fit = auto_fit(&scaled, &opts)?;
        let best = fit.best();
        if best.quality.r2.is_finite() && best.quality.r2 >= MIN_R2 {
            return Ok(Some(CategoryFit {
                category: data.category.clone(),
                expr: Expr::bin(BinOp::Mul, p_minus_1, best.expr.clone()),
                form: format!("(p-1)*({})", best.label),
                r2: best.quality.r2,
                points: scaled.points.len(),
            }));
        }
    }
    // A share of pure computation (or of the mean when there is none).
    let base = fitted
        .iter()
        .find(|c| c.category == "pc" || c.category == "rt")
        .map(|c| &c.expr);
    let at = |pt: &lca::dataset::DataPoint| -> f64 {
        let Some(e) = base else { return 1.0 };
        let vars = scaled.bindings(pt);
        e.eval(&vars).unwrap_or(f64::NAN)
    };
    let (mut num, mut den) = (0.0, 0.0);
    for pt in &scaled.points {
        let b = at(pt);
        if b.is_finite() {
            num += pt.y * b;
            den += b * b;
        }
    }
    if den <= 0.0 {
        return Ok(None);
    }
    let k = num / den;
    let mean = scaled.points.iter().map(|pt| pt.y).sum::<f64>() / scaled.points.len() as f64;
    let (ss_res, ss_tot) = scaled.points.iter().fold((0.0, 0.0), |(r, t), pt| {
        let e = pt.y - k * at(pt);
        (r + e * e, t + (pt.y - mean) * (pt.y - mean))
    });
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        f64::NAN
    };
    let (expr, form) = match base {
        Some(b) => (
            Expr::bin(
                BinOp::Mul,
                p_minus_1,
                Expr::bin(BinOp::Mul, Expr::Num(k), b.clone()),
            ),
            format!("(p-1)*{k:.4}*pc"),
        ),
        None => (
            Expr::bin(BinOp::Mul, p_minus_1, Expr::Num(k)),
            "(p-1)*1".to_string(),
        ),
    };
    Ok(Some(CategoryFit {
        category: data.category.clone(),
        expr,
        form,
        r2,
        points: scaled.points.len(),
    }))
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

/// Smallest R² for a category model to be kept.
pub const MIN_R2: f64 = 0.5;

/// Most terms the search may use: with few distinct values of a variable a 3-term model
/// interpolates its points exactly and extrapolates wildly, so allow at most
/// (distinct values of the best-sampled variable − 2) terms, between 1 and 3.
fn max_terms(data: &Dataset) -> usize {
    let most = (0..data.variables.len())
        .map(|i| data.distinct(i).len())
        .max()
        .unwrap_or(0);
    most.saturating_sub(2).clamp(1, 3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lca::record::parse_records;
    use std::collections::BTreeMap;

    #[test]
    fn fits_each_fragment_and_skips_all_zero_categories() {
        // rt = 2e-9 n^2 exactly, li = 1e-6 * (p - 1) * n, sl = 0.
        let mut text = String::new();
        for n in [64.0f64, 128.0, 256.0, 512.0, 1024.0] {
            for p in [1.0f64, 2.0, 3.0, 4.0] {
                let li = 1e-6 * (p - 1.0) * n;
                let rt = 2e-9 * n * n;
                text.push_str(&format!(
                    "n={n} tag=cols p={p} li={li} sl=0 rt={rt} tt={}\n",
                    li + rt
                ));
            }
        }
        let records = parse_records(&text).unwrap();
        let (fits, notes) = fit_fragments(&records, "test", &["n".into(), "p".into()]).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(fits.len(), 1);
        let cats: Vec<&str> = fits[0]
            .categories
            .iter()
            .map(|c| c.category.as_str())
            .collect();
        assert_eq!(cats, vec!["rt", "li"]);
        let mut vars = BTreeMap::new();
        vars.insert("n".to_string(), 300.0);
        vars.insert("p".to_string(), 2.0);
        let want = (2e-9 * 300.0 * 300.0 + 1e-6 * 300.0) / 2.0;
        let got = fits[0].seconds(&vars);
        assert!((got - want).abs() / want < 0.05, "got {got}, want {want}");
    }
}
