//! Step 2: fitting every fragment's categories with `lca`'s fitting policy
//! ([`lca::policy`]: pure computation from the p = 1 records, overheads that vanish at
//! p = 1, candidates chosen by held-out and extrapolation error, coefficients bounded by the
//! data). The study chooses no model itself.
//!
//! The records are per fragment *execution* (the study divides each run's totals by its
//! iterations), so the models are processor-seconds per execution in the size variable and
//! p.

use super::model::{CategoryFit, FragmentFit};
use lca::extraction::Extraction;
use lca::record::Record;

/// Errors of the fitting step.
#[derive(Debug, thiserror::Error)]
pub enum FitStepError {
    /// lca could not model a fragment.
    #[error(transparent)]
    Policy(#[from] lca::policy::PolicyError),
}

/// Fits every category of every fragment of `records` as a function of `variables`
/// (e.g. `["n", "p"]`) with [`lca::policy::fit_fragments`]. `source` names the records in
/// messages. The notes say what the policy decided (categories left out as noise, …).
pub fn fit_fragments(
    records: &[Record],
    source: &str,
    variables: &[String],
) -> Result<(Vec<FragmentFit>, Vec<String>), FitStepError> {
    let fitted = lca::policy::fit_fragments(records, source, variables, &Extraction::default())?;
    let mut notes = Vec::new();
    let fits = fitted
        .into_iter()
        .map(|f| {
            notes.extend(f.notes.iter().cloned());
            FragmentFit {
                name: f.tag.clone().unwrap_or_else(|| "session".into()),
                categories: f
                    .categories
                    .iter()
                    .map(|c| CategoryFit {
                        category: c.category.clone(),
                        expr: c.model.expr.clone(),
                        form: c.model.label.clone(),
                        r2: c.model.quality.r2,
                        points: c.observations,
                    })
                    .collect(),
            }
        })
        .collect();
    Ok((fits, notes))
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
