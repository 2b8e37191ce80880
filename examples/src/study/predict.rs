//! Step 3: predictions with `lcm`'s library (`lcm::predict::Program`): the annotated source is
//! read, its parallel structure recognized and composed into a PAMELA model once, then
//! evaluated at every design point.

use super::model::{CategoryFit, FragmentFit};
use lcm::predict::{PredictError, PredictOptions, Prediction, Program};
use std::collections::BTreeMap;
use std::path::Path;

/// The annotated source could not be turned into a model.
#[derive(Debug, thiserror::Error)]
#[error("lcm could not model {file}: {source}")]
pub struct PredictStepError {
    /// The annotated source.
    pub file: String,
    /// What lcm said.
    #[source]
    pub source: PredictError,
}

/// One version's composed model, ready to evaluate.
pub struct Predictor {
    program: Program,
    /// lcm's warnings (unrecognized parallelism, …), one line each.
    pub warnings: Vec<String>,
}

impl Predictor {
    /// Reads the annotated `text` (named `file`) starting at function `entry`. `models`: the
    /// measured version's models file (`lca --emit annotation` format), which the source's
    /// fragments take or derive from by their rules; `machine`: the machine file (`lcm
    /// calibrate` prices for data-trace communication; None: lcm's defaults); `measured`:
    /// the source of the measured version, so data moves it already had (inside its
    /// fragment models) are not priced twice.
    pub fn new(
        file: &str,
        text: &str,
        entry: &str,
        models: &Path,
        machine: Option<&Path>,
        measured: Option<&Path>,
    ) -> Result<Predictor, PredictStepError> {
        let opts = PredictOptions {
            entry: entry.to_string(),
            models: Some(models.to_path_buf()),
            machine: machine.map(Path::to_path_buf),
            measured: measured.map(Path::to_path_buf),
        };
        let program =
            Program::from_source(file, text, &opts).map_err(|source| PredictStepError {
                file: file.to_string(),
                source,
            })?;
        let warnings = program.warnings.iter().map(|w| w.to_string()).collect();
        Ok(Predictor { program, warnings })
    }

    /// The fragment models lcm predicts with (the models file's, or derived from them by
    /// the source's rules), as the study's report shows them: the form of a model that
    /// differs from the fitted one of the same fragment names the source whose rules made
    /// it.
    pub fn fragment_fits(&self, fitted: &[FragmentFit]) -> Vec<FragmentFit> {
        self.program
            .fragment_models()
            .into_iter()
            .map(|m| {
                let fit = fitted.iter().find(|f| f.name == m.name);
                let categories = m
                    .categories
                    .into_iter()
                    .map(|(category, expr)| {
                        let same = fit.and_then(|f| {
                            f.categories
                                .iter()
                                .find(|c| c.category == category && c.expr == expr)
                        });
                        same.cloned().unwrap_or_else(|| CategoryFit {
                            form: format!("rule in {}: {expr}", self.program.file),
                            category,
                            expr,
                            r2: f64::NAN,
                            points: 0,
                        })
                    })
                    .collect();
                FragmentFit {
                    name: m.name,
                    categories,
                }
            })
            .collect()
    }

    /// The fragments whose models are totals over several executions (`// lcm: iterations
    /// = EXPR` in the fragment's block), in tree order without repeats.
    pub fn fragments_with_totals(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for f in self.program.root.fragments() {
            if f.executions.is_some() && !names.contains(&f.name) {
                names.push(f.name.clone());
            }
        }
        names
    }

    /// The recognized structure, as `lcm tree` prints it.
    pub fn tree(&self) -> String {
        self.program.tree_text()
    }

    /// The prediction at `vars` (name, value) pairs.
    pub fn predict(&self, vars: &[(String, f64)]) -> Result<Prediction, PredictError> {
        let bindings: BTreeMap<String, f64> = vars.iter().cloned().collect();
        self.program.predict(&bindings)
    }

    /// The predicted run time at `vars`, seconds.
    pub fn seconds(&self, vars: &[(String, f64)]) -> Result<f64, PredictError> {
        self.predict(vars).map(|p| p.seconds)
    }
}

/// What `lcm` predicts for fragment `name` at `vars`: its processors p_f and seconds per
/// execution (T_f plus the data-trace communication before it), from lcm's accounting of
/// the prediction. A fragment with several instances (called from several places) gets
/// their mean weighted by executions. None when the prediction fails or holds no such
/// fragment.
pub fn fragment_time(model: &Predictor, name: &str, vars: &[(String, f64)]) -> Option<(f64, f64)> {
    let prediction = model.predict(vars).ok()?;
    let (mut runs, mut procs, mut seconds) = (0.0, 0.0, 0.0);
    for f in prediction
        .accounting
        .fragments
        .iter()
        .filter(|f| f.name == name)
    {
        let weight = f.executions.max(f64::MIN_POSITIVE);
        runs += weight;
        procs += weight * f.procs;
        seconds += weight * (f.time_s + f.comm_s);
    }
    (runs > 0.0).then(|| (procs / runs, seconds / runs))
}
