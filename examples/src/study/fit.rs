//! Step 2: fitting every fragment's categories with `lca`'s automatic search.
//!
//! The records are per fragment *execution* (the study divides each run's totals by its
//! iterations), so the models are processor-seconds per execution in the size variable and
//! p. Fitted categories: `li ip sl wc`, and the busy time split by the baseline into `pc`
//! (pure computation) and `ml` (memory and runtime loss), or `rt` when a record has no
//! baseline split. A category that is zero in every record is left out (it adds nothing).

use super::model::{CategoryFit, FragmentFit};
pub use super::select::{
    fit_log_space, fit_single_term, loo_rel_err, mean_rel_err, positive_at_points, predicts_better,
    r_squared,
};
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
            // Pure computation is the same number in every record of a size (the p = 1
            // busy time, copied by the baseline): fitted on the p = 1 records only, one
            // point per size. Repeated copies would let the search's leave-one-out error
            // keep each point's twin and so favour models that interpolate every size.
            let single: Vec<Record>;
            let source_records = if cat == "pc" {
                single = records
                    .iter()
                    .filter(|r| r.number_opt("p").ok().flatten().is_none_or(|p| p == 1.0))
                    .cloned()
                    .collect();
                &single[..]
            } else {
                records
            };
            let data = Dataset::from_records(source_records, source, cat, &vars, &extraction)
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
                // Fit its logarithm too (relative errors) and keep whichever predicts the
                // points left out of its fit better, relatively ([`loo_rel_err`]: a model
                // with more coefficients than the data demand misses them).
                // Work is positive: a model that gives 0 or less at a measured point (a
                // search without a constant term at the smallest size, `log2(k)` at k = 1)
                // loses to the logarithm's fit, positive everywhere.
                if let Some(log) =
                    fit_log_space(&data, &opts).map_err(|e| data_err(e.to_string()))?
                {
                    if !positive_at_points(&data, &best.expr) || predicts_better(&data, &log, &best)
                    {
                        best = log;
                    }
                }
                // One growth term and no constant (one coefficient): what three sizes can
                // still tell (the search needs two points more than coefficients, so with
                // three sizes it can only offer a constant).
                if let Some(single) = fit_single_term(&data) {
                    if !positive_at_points(&data, &best.expr)
                        || predicts_better(&data, &single, &best)
                    {
                        best = single;
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
/// automatic search (of the values, or of their logarithms where all are positive: whichever
/// misses the points less, relatively) when there are at least three distinct sizes and the
/// best model explains at least [`MIN_R2`]; otherwise (too few sizes to tell a form, or noise) as a share of the
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
    let mut searched = None;
    if sizes >= 3 && !vars.is_empty() {
        let opts = SearchOptions {
            max_terms: max_terms(&scaled),
            ..SearchOptions::default()
        };
        let fit = auto_fit(&scaled, &opts)?;
        let mut best = fit.best().clone();
        // As for pure computation: the overheads span decades over the sizes, and a fit in
        // linear space serves the largest sizes only. Fit the logarithm too (relative
        // errors, where every value is positive) and keep whichever predicts the points
        // left out of its fit better, relatively.
        if let Some(log) = fit_log_space(&scaled, &opts)? {
            if log.quality.r2.is_finite()
                && log.quality.r2 >= MIN_R2
                && predicts_better(&scaled, &log, &best)
            {
                best = log;
            }
        }
        if best.quality.r2.is_finite() && best.quality.r2 >= MIN_R2 {
            searched = Some(best);
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
    // A fixed cost per execution (a parallel loop's fork and join, waking the other
    // threads) plus a share of pure computation, fitted to relative errors: the
    // overheads of the small sizes are mostly the fixed part, which a share of pc alone
    // misses by far. Kept when it misses the points less, relatively, than the search.
    // Relative to the values where every value is positive; otherwise (relative errors of
    // values near 0 weigh without bound; `ml`, a difference of two times, changes sign with
    // noise) relative to the fragment's work at the point, so that every size counts as
    // much as its work (a least-squares share of pc alone is set by the largest sizes,
    // whose noise then decides the sign at the small ones), and only when the search found
    // nothing.
    let positive = scaled.points.iter().all(|pt| pt.y > 0.0);
    let share = if positive {
        fixed_plus_share(&scaled.points, &at, &|pt| pt.y)
    } else if searched.is_none() {
        fixed_plus_share(&scaled.points, &at, &at)
    } else {
        None
    };
    if let (Some(b), Some((c, k))) = (base, share) {
        let expr = Expr::bin(
            BinOp::Add,
            Expr::Num(c),
            Expr::bin(BinOp::Mul, Expr::Num(k), b.clone()),
        );
        let err = mean_rel_err(&scaled, &expr);
        if searched
            .as_ref()
            .is_none_or(|s| err < mean_rel_err(&scaled, &s.expr))
        {
            return Ok(Some(CategoryFit {
                category: data.category.clone(),
                r2: r_squared(&scaled, &expr),
                expr: Expr::bin(BinOp::Mul, p_minus_1, expr),
                form: format!("(p-1)*({c:.3e} + {k:.4}*pc)"),
                points: scaled.points.len(),
            }));
        }
    }
    if let Some(best) = searched {
        return Ok(Some(CategoryFit {
            category: data.category.clone(),
            expr: Expr::bin(BinOp::Mul, p_minus_1, best.expr.clone()),
            form: format!("(p-1)*({})", best.label),
            r2: best.quality.r2,
            points: scaled.points.len(),
        }));
    }
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

/// `y ≈ c + k·b(x)` by least squares of the errors relative to `scale` (weights
/// 1/scale²: the value itself, or the fragment's work at the point) over `points` whose
/// scale is finite and not 0, `b` the pure-computation model at a point. None with fewer
/// than two such points or a singular system.
pub fn fixed_plus_share(
    points: &[lca::dataset::DataPoint],
    b: &dyn Fn(&lca::dataset::DataPoint) -> f64,
    scale: &dyn Fn(&lca::dataset::DataPoint) -> f64,
) -> Option<(f64, f64)> {
    // Normal equations of min Σ ((c + k·b − y) / scale)².
    let (mut s11, mut s12, mut s22, mut t1, mut t2, mut count) = (0.0, 0.0, 0.0, 0.0, 0.0, 0);
    for pt in points {
        let x = b(pt);
        let d = scale(pt);
        if d == 0.0 || !d.is_finite() || !x.is_finite() || !pt.y.is_finite() {
            continue;
        }
        let w = 1.0 / (d * d);
        s11 += w;
        s12 += w * x;
        s22 += w * x * x;
        t1 += w * pt.y;
        t2 += w * x * pt.y;
        count += 1;
    }
    let det = s11 * s22 - s12 * s12;
    if count < 2 || det.abs() <= f64::EPSILON * s11 * s22 {
        return None;
    }
    let c = (t1 * s22 - t2 * s12) / det;
    let k = (s11 * t2 - s12 * t1) / det;
    (c.is_finite() && k.is_finite()).then_some((c, k))
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
    fn fixed_plus_share_recovers_a_fixed_cost_and_a_share() {
        let pts: Vec<lca::dataset::DataPoint> = [1.0, 10.0, 100.0]
            .iter()
            .enumerate()
            .map(|(i, b)| lca::dataset::DataPoint {
                x: vec![*b],
                y: 2e-6 + 0.1 * b,
                line: i + 1,
            })
            .collect();
        let (c, k) = fixed_plus_share(&pts, &|pt| pt.x[0], &|pt| pt.y).unwrap();
        assert!((c - 2e-6).abs() < 1e-9 && (k - 0.1).abs() < 1e-9, "{c} {k}");
        assert!(fixed_plus_share(&pts[..1], &|pt| pt.x[0], &|pt| pt.y).is_none());
        // Relative to the work: the same exact fit, whatever the weights.
        let (c, k) = fixed_plus_share(&pts, &|pt| pt.x[0], &|pt| pt.x[0]).unwrap();
        assert!((c - 2e-6).abs() < 1e-9 && (k - 0.1).abs() < 1e-9, "{c} {k}");
    }

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
