//! Step 3: predictions with `lcm`'s library (`lcm::predict::Program`): the annotated source is
//! read, its parallel structure recognized and composed into a PAMELA model once, then
//! evaluated at every design point.

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
    /// Reads the annotated `text` (named `file`) starting at function `entry`. `machine`:
    /// the machine file (`lcm calibrate` prices for data-trace communication; None: lcm's
    /// defaults); `measured`: the source of the measured version, so data moves it already
    /// had (inside its fragment models) are not priced twice.
    pub fn new(
        file: &str,
        text: &str,
        entry: &str,
        machine: Option<&Path>,
        measured: Option<&Path>,
    ) -> Result<Predictor, PredictStepError> {
        let opts = PredictOptions {
            entry: entry.to_string(),
            machine: machine.map(Path::to_path_buf),
            measured: measured.map(Path::to_path_buf),
            ..PredictOptions::default()
        };
        let program =
            Program::from_source(file, text, &opts).map_err(|source| PredictStepError {
                file: file.to_string(),
                source,
            })?;
        let warnings = program.warnings.iter().map(|w| w.to_string()).collect();
        Ok(Predictor { program, warnings })
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

/// The processors `lcm` gives fragment `name` at `vars` (its task's share of p; the whole p
/// when the fragment is not found) and the data-trace communication seconds it adds before
/// each execution (0 when none).
pub fn fragment_processors(model: &Predictor, name: &str, vars: &[(String, f64)]) -> (f64, f64) {
    let p = vars.iter().find(|(k, _)| k == "p").map_or(1.0, |(_, v)| *v);
    model
        .predict(vars)
        .ok()
        .and_then(|pr| {
            pr.accounting
                .fragments
                .iter()
                .find(|f| f.name == name)
                .map(|f| (f.procs, f.comm_s))
        })
        .unwrap_or((p, 0.0))
}

/// The predicted seconds per item of each stage of `pipeline` at `vars` (the point's
/// bindings, with the hand-off cost bound to 0): the sum of its fragments' models at their
/// processors, with the data-trace communication before them.
pub fn stage_times(
    model: &Predictor,
    fits: &[super::model::FragmentFit],
    pipeline: &super::case::Pipeline,
    vars: &[(String, f64)],
) -> [f64; 2] {
    pipeline.stages.map(|stage| {
        stage
            .iter()
            .map(|name| {
                let Some(f) = fits.iter().find(|f| f.name == *name) else {
                    return 0.0;
                };
                let (p_f, comm) = fragment_processors(model, name, vars);
                let mut b: BTreeMap<String, f64> = vars.iter().cloned().collect();
                b.insert("p".into(), p_f);
                f.seconds(&b) + comm
            })
            .sum()
    })
}

/// The hand-off price of the other version's pipeline at one point.
#[derive(Clone, Debug, PartialEq)]
pub struct Handoff {
    /// Size.
    pub n: u64,
    /// Processors.
    pub p: usize,
    /// Predicted seconds per item of each stage (without hand-offs).
    pub stages: [f64; 2],
    /// Measured hand-off seconds per item on the pipeline's critical path.
    pub seconds: f64,
    /// Measured seconds the second stage's first fragment pays per execution for reading
    /// data written on the first stage's processor (the size's transfer price).
    pub transfer: f64,
}
