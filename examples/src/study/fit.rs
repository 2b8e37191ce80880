//! Step 2: fitting every fragment's categories as `lca model --all-tags --emit annotation`
//! does ([`lca::models_file`]: the records file's text read as the command reads it, every
//! fragment fitted by [`lca::policy`] through [`lca::runtime::fit_runtime`], the models
//! printed with the digits their confidence intervals justify, [`lca::precision`]). The
//! study chooses no model itself, and its `models.lcm` is the file the command writes.
//!
//! The records are per *execution* (pp's rule, [`pp::campaign::per_execution_records`]:
//! every fragment's totals divided by the times it ran, the session's by the run's
//! iterations), so the models are processor-seconds per execution in the size variable and
//! p.

use super::model::{CategoryFit, FragmentFit};
use lca::extraction::Extraction;
use lca::search::SearchOptions;

/// Errors of the fitting step.
#[derive(Debug, thiserror::Error)]
pub enum FitStepError {
    /// The records could not be read.
    #[error("{0}")]
    Records(String),
    /// No fragment could be fitted.
    #[error("{source_name}: no fragment could be fitted: {errors}")]
    NoneFitted {
        /// The records file.
        source_name: String,
        /// Why each failed.
        errors: String,
    },
}

/// What the fitting step produced: the fragments' fits, the models file's text (as `lca
/// model --all-tags --emit annotation` prints it) and lca's notes.
pub struct Fitted {
    /// One fit per fitted fragment (the session's included), in record order.
    pub fits: Vec<FragmentFit>,
    /// The models file.
    pub models_text: String,
    /// What the fitting policy decided (categories left out as noise, fragments skipped).
    pub notes: Vec<String>,
}

/// Fits every category of every fragment of the records file `text` (named `source`) as a
/// function of `variables` (e.g. `["n", "p"]`), as `lca model -f SOURCE -v VARIABLES
/// --all-tags --emit annotation` does.
pub fn fit_fragments(
    text: &str,
    source: &str,
    variables: &[String],
) -> Result<Fitted, FitStepError> {
    let format = lca::extrap::InputFormat::detect(text);
    let records = lca::extrap::read_records(text, format)
        .map_err(|e| FitStepError::Records(format!("{source}: {e}")))?;
    let extraction = Extraction::default();
    let all = lca::models_file::fit_all(
        &records,
        source,
        variables,
        &extraction,
        &SearchOptions::default(),
    );
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    let mut fits = Vec::new();
    for (tag, fit) in &all {
        let name = tag
            .clone()
            .unwrap_or_else(|| lca::models_file::SESSION.into());
        match fit {
            Ok(m) => {
                notes.extend(m.notes.iter().cloned());
                let printed = lca::models_file::printed_categories(m);
                let categories = m
                    .categories
                    .iter()
                    .zip(printed)
                    .map(|((category, a), (_, expr))| CategoryFit {
                        category: category.clone(),
                        expr,
                        form: a.best().label.clone(),
                        r2: a.best().quality.r2,
                        points: m.rows.len(),
                    })
                    .collect();
                fits.push(FragmentFit { name, categories });
            }
            Err(e) => {
                notes.push(format!("fragment `{name}` skipped: {e}"));
                errors.push(format!("{name}: {e}"));
            }
        }
    }
    if fits.is_empty() {
        return Err(FitStepError::NoneFitted {
            source_name: source.to_string(),
            errors: errors.join("; "),
        });
    }
    let models_text = lca::models_file::models_file(&all, &records, variables, &extraction, source)
        .map_err(|e| FitStepError::Records(format!("{source}: {e}")))?;
    Ok(Fitted {
        fits,
        models_text,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let f = fit_fragments(&text, "test", &["n".into(), "p".into()]).unwrap();
        let (fits, notes) = (f.fits, f.notes);
        assert!(
            f.models_text.contains("// lcm: fragment cols"),
            "{}",
            f.models_text
        );
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
