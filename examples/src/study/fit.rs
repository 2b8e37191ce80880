//! Step 2: fitting every fragment's categories with `lca`'s automatic search.
//!
//! The records are per fragment *execution* (the study divides each run's totals by its
//! iterations), so the models are processor-seconds per execution in the size variable and
//! p. Fitted categories: `li ip sl wc`, and the busy time split by the baseline into `pc`
//! (pure computation) and `ml` (memory and runtime loss), or `rt` when a record has no
//! baseline split. A category that is zero in every record is left out (it adds nothing).

use super::model::{CategoryFit, FragmentFit};
use lca::dataset::Dataset;
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
            let opts = SearchOptions {
                max_terms: max_terms(&data),
                ..SearchOptions::default()
            };
            let fit = auto_fit(&data, &opts).map_err(|e| data_err(e.to_string()))?;
            let best = fit.best();
            if best.quality.r2.is_nan() || best.quality.r2 < MIN_R2 {
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
