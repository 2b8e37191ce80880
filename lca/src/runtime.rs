//! The run-time model of Crovella's Figure 5.4, step 3: auto-fit every category of one
//! fragment (or of the whole session) over the variables and sum them,
//! `T(n, p) = Σ_C C(n, p) / p` (seconds of wall-clock time).
//!
//! The sum is the one rule of [`category::time`]: the categories that partition the
//! processor-time, `li ip sl wc rt` (`tt = li + ip + sl + wc + rt`), with `pc + ml` for a
//! fitted `rt`'s place; the other categories (`cl rc os`) are fitted and emitted too but
//! not added again. Every record's measured time is `tt / p`.

use crate::annotation::FragmentModel;
use crate::dataset::{DataError, Dataset};
use crate::expr::{Bindings, Expr};
use crate::extraction::{CmpOp, Comparison, Extraction};
use crate::fit::FitError;
use crate::record::{Record, CATEGORY_KEYS};
use crate::search::{AutoFit, SearchOptions};

/// The categories that partition the processor-time (`tt = li + ip + sl + wc + rt`,
/// [`category::time::TT_PARTITION`]); what is summed into the run time is
/// [`category::time::time_terms`] of the categories present.
pub const PARTITION: [&str; 5] = category::keys(category::time::TT_PARTITION);

/// Failure of the run-time model.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// Records unusable.
    #[error(transparent)]
    Data(#[from] DataError),
    /// The fitting policy failed.
    #[error(transparent)]
    Policy(#[from] crate::policy::PolicyError),
    /// A category could not be fitted.
    #[error("category `{category}`: {error}")]
    Fit {
        /// Category.
        category: String,
        /// Why.
        error: Box<FitError>,
    },
    /// No category to fit.
    #[error("{source_name}: expected categories ({}) in the selected records, found none", CATEGORY_KEYS.join(" "))]
    NoCategories {
        /// Data file.
        source_name: String,
    },
}

/// One measured point with the model's prediction.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PredictionRow {
    /// Variable values.
    pub x: Vec<f64>,
    /// Measured wall-clock time tt / p (seconds).
    pub measured: f64,
    /// Predicted T (seconds).
    pub predicted: f64,
    /// |predicted − measured| / measured.
    pub relative_error: f64,
    /// Data-file line.
    pub line: usize,
}

/// Every category's auto-fit, the summed run-time model and its check against the data.
#[derive(Debug, Clone)]
pub struct RuntimeModel {
    /// Fragment tag, `None` for whole-session records.
    pub tag: Option<String>,
    /// Variables.
    pub variables: Vec<String>,
    /// `(category, search result)` in record order.
    pub categories: Vec<(String, AutoFit)>,
    /// `T = (Σ_partition C) / p`, in seconds.
    pub total: Expr,
    /// Predicted vs measured at every record.
    pub rows: Vec<PredictionRow>,
    /// Mean of the rows' relative errors.
    pub mean_relative_error: f64,
    /// What the fitting policy decided that a user should know (categories left out, …).
    pub notes: Vec<String>,
    /// Set when the overheads' coefficients were re-estimated jointly so that their sum
    /// follows the measured time ([`crate::policy::joint`]).
    pub joint: Option<crate::policy::JointStep>,
}

impl RuntimeModel {
    /// The fitted models as a models-file fragment (`// lcm:` lines); fragment name is the
    /// tag, or `session`.
    pub fn fragment_model(&self) -> FragmentModel {
        FragmentModel {
            name: self.tag.clone().unwrap_or_else(|| "session".into()),
            categories: self
                .categories
                .iter()
                .map(|(c, a)| (c.clone(), a.best().expr.clone()))
                .collect(),
            ranges: Vec::new(),
        }
    }
}

/// The records of fragment `tag` (or the untagged ones) that match `extraction`.
fn fragment_records(records: &[Record], tag: Option<&str>, extraction: &Extraction) -> Vec<Record> {
    let mut x = extraction.clone();
    if let Some(t) = tag {
        let c = Comparison {
            key: "tag".into(),
            op: CmpOp::Eq,
            value: t.into(),
        };
        if x.any_of.is_empty() {
            x.any_of.push(vec![c]);
        } else {
            x.any_of.iter_mut().for_each(|all| all.push(c.clone()));
        }
    }
    records
        .iter()
        .filter(|r| x.matches(r) && (tag.is_some() || r.tag().is_none()))
        .cloned()
        .collect()
}

/// The model `total` against each selected record's measured time (`time`, from `tt` and
/// `p`); `p` comes from the record when it is not among `variables`.
pub(crate) fn prediction_rows(
    selected: &[Record],
    source: &str,
    variables: &[String],
    total: &Expr,
) -> Result<Vec<PredictionRow>, ModelError> {
    let time = Dataset::from_records(selected, source, "time", variables, &Extraction::default())?;
    let mut rows = Vec::new();
    for (pt, r) in time
        .points
        .iter()
        .zip(selected.iter().filter(|r| r.has("tt")))
    {
        let mut b: Bindings = time.bindings(pt);
        if !b.contains_key("p") {
            if let Ok(p) = r.number("p") {
                b.insert("p".into(), p);
            }
        }
        let predicted = total.eval_with(&|n| b.get(n).copied()).unwrap_or(f64::NAN);
        rows.push(PredictionRow {
            x: pt.x.clone(),
            measured: pt.y,
            predicted,
            relative_error: (predicted - pt.y).abs() / pt.y.abs().max(1e-300),
            line: pt.line,
        });
    }
    Ok(rows)
}

/// Fits the run-time model of fragment `tag` (or of untagged records) from the records
/// that match `extraction`, every category by the fitting policy ([`crate::policy`]).
/// `p` must be among `variables` or present in every record. `options` is not used: the
/// policy sets the search's limits from the data.
pub fn fit_runtime(
    records: &[Record],
    source: &str,
    tag: Option<&str>,
    variables: &[String],
    extraction: &Extraction,
    options: &SearchOptions,
) -> Result<RuntimeModel, ModelError> {
    let selected = fragment_records(records, tag, extraction);
    if !selected.iter().any(|r| {
        CATEGORY_KEYS
            .iter()
            .any(|c| *c != "tt" && *c != "over" && r.has(c))
    }) {
        return Err(ModelError::NoCategories {
            source_name: source.into(),
        });
    }
    // The policy chooses every category's model (see crate::policy); each is reported as
    // a one-model search result.
    let fitted =
        crate::policy::fit_fragment(&selected, source, tag, variables, &Extraction::default())?;
    let _ = options;
    let categories: Vec<(String, AutoFit)> = fitted
        .categories
        .iter()
        .map(|c| {
            (
                c.category.clone(),
                AutoFit {
                    penalty: c.penalty,
                    ranked: vec![c.model.clone()],
                    scores: vec![c.held_out.score],
                },
            )
        })
        .collect();
    let total = fitted.time();
    let rows = prediction_rows(&selected, source, variables, &total)?;
    let mean_relative_error =
        rows.iter().map(|r| r.relative_error).sum::<f64>() / rows.len().max(1) as f64;
    Ok(RuntimeModel {
        tag: tag.map(str::to_string),
        variables: variables.to_vec(),
        categories,
        total,
        rows,
        mean_relative_error,
        notes: fitted.notes,
        joint: fitted.joint,
    })
}

/// The human report of `lca model`: each category's selected model, T, and predicted vs
/// measured time.
pub fn table(source: &str, m: &RuntimeModel) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "lca {} model", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(
        s,
        "Datafile: {source}, Fragment: {}, Variables: {}, Points: {}",
        m.tag.as_deref().unwrap_or("(session)"),
        m.variables.join(" "),
        m.rows.len()
    );
    // Models as printed: coefficients with the digits their intervals justify.
    let printed = crate::models_file::printed_categories(m);
    let w = printed
        .iter()
        .map(|(_, e)| e.to_string().len())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = writeln!(
        s,
        "{:<8}  {:<w$}  {:>8}  {:>8}",
        "category", "model", "R2", "LOO-CV"
    );
    for ((c, a), (_, e)) in m.categories.iter().zip(&printed) {
        let b = a.best();
        let _ = writeln!(
            s,
            "{:<8}  {:<w$}  {:>8.4}  {:>7.2}%",
            c,
            e.to_string(),
            b.quality.r2,
            100.0 * b.quality.cv
        );
    }
    let vars = m.variables.join(", ");
    let total = crate::models_file::printed_total(m);
    let _ = writeln!(s, "T({vars}) = {total}   [seconds]");
    for v in &m.variables {
        let _ = write!(s, "{v:>10}  ");
    }
    let _ = writeln!(
        s,
        "{:>12}  {:>12}  {:>8}",
        "measured", "predicted", "rel.err"
    );
    for r in &m.rows {
        for x in &r.x {
            let _ = write!(s, "{:>10}  ", crate::expr::format_number(*x));
        }
        let _ = writeln!(
            s,
            "{:>12.6e}  {:>12.6e}  {:>7.2}%",
            r.measured,
            r.predicted,
            100.0 * r.relative_error
        );
    }
    let _ = writeln!(
        s,
        "Mean relative error: {:.2}%",
        100.0 * m.mean_relative_error
    );
    for n in &m.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

/// The `lca model --json` document: `fragment`, `variables`, `categories` (each `category`,
/// `model`, `r2`, `cv`), `total` (T in seconds, expression text), `rows` (`x`, `measured`,
/// `predicted`, `relative_error`, `line`), `mean_relative_error`, `notes` (what the
/// fitting policy decided, e.g. categories left out) and `joint`: null, or, when the
/// overheads' coefficients were re-estimated together so that their sum follows the
/// measured time ([`crate::policy::joint`]), `weight` (the penalty weight λ chosen),
/// `separate_score` and `joint_score` (held-out errors of the overheads' time, fractions
/// of the fragment's time, with each category's own coefficients and with the joint ones)
/// and `moved` (per re-estimated category: `category`, `time_share` = mean of
/// |new − own| / tt over the p > 1 configurations, `ratios` = each coefficient's new value
/// over its own fit's, in the order of its terms).
pub fn json(m: &RuntimeModel) -> serde_json::Value {
    serde_json::json!({
        "fragment": m.tag,
        "variables": m.variables,
        "categories": m.categories.iter().map(|(c, a)| serde_json::json!({
            "category": c,
            "model": a.best().expr.to_string(),
            "r2": a.best().quality.r2,
            "cv": if a.best().quality.cv.is_finite() { serde_json::json!(a.best().quality.cv) } else { serde_json::Value::Null },
        })).collect::<Vec<_>>(),
        "total": m.total.to_string(),
        "rows": m.rows,
        "mean_relative_error": m.mean_relative_error,
        "notes": m.notes,
        "joint": m.joint.as_ref().map(|j| serde_json::json!({
            "weight": j.weight,
            "separate_score": j.separate.score,
            "joint_score": j.joint.score,
            "moved": j.moved.iter().map(|m| serde_json::json!({
                "category": m.category,
                "time_share": m.time_share,
                "ratios": m.ratios,
            })).collect::<Vec<_>>(),
        })),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn sums_categories() {
        let mut text = String::new();
        for n in [100.0, 200.0, 400.0, 800.0, 1600.0] {
            for p in [1.0f64, 2.0, 4.0, 8.0, 16.0] {
                let rt = 1e-3 * n;
                let li = 1e-4 * n * p.log2();
                let ip = 2e-3 * (p - 1.0);
                let tt = rt + li + ip;
                text.push_str(&format!(
                    "n={n} tag=cols p={p} li={li} ip={ip} rt={rt} tt={tt}\nn={n} p={p} rt=1 tt=1\n"
                ));
            }
        }
        let recs = parse_records(&text).unwrap();
        let vars = vec!["n".to_string(), "p".to_string()];
        let m = fit_runtime(
            &recs,
            "t.pp",
            Some("cols"),
            &vars,
            &Extraction::default(),
            &SearchOptions::default(),
        )
        .unwrap();
        assert_eq!(m.categories.len(), 3);
        assert!(m.mean_relative_error < 1e-6, "{}", m.mean_relative_error);
        assert_eq!(m.rows.len(), 25);
        let fm = m.fragment_model();
        assert_eq!(fm.name, "cols");
        assert_eq!(fm.category("rt").unwrap().to_string(), "0.001*n");
    }
}
