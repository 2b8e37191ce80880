//! Offline replays of studies measured on another machine, with today's tools and library
//! APIs only: `lca` fits the measured version's records as `lca model --all-tags --emit
//! annotation` does ([`fit_models`]), `lcm` predicts both versions from their annotated
//! sources with those models and a machine file ([`Versions`]), and the predictions are
//! scored against the times the study measured ([`score`]), point by point ([`points`]).
//! [`fft`] adds the FFT's per-fragment stage table, [`sensitivity`] the replay at half and
//! double of each machine key. [`device16`] replays the three studies a 16-core host left
//! on one day, from that day's fixture.
//!
//! Test support: a fixture that cannot be read or parsed panics with a message naming what
//! was expected.

pub mod device16;
pub mod fft;
pub mod points;
pub mod score;
pub mod sensitivity;

use lca::expr::Bindings;
use lca::extraction::Extraction;
use lca::search::SearchOptions;
use lcm::predict::{PredictOptions, Prediction, Program};
use std::path::{Path, PathBuf};

/// The text of `path` (panics with the path when it cannot be read).
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Fits every fragment of the records `records_text` (named `source`, as the models file's
/// header names it) over `variables`, as `lca model -f SOURCE -v VARIABLES --all-tags --emit
/// annotation` does, and writes the models file to `dir/models.lcm` (its path returned).
pub fn fit_models(records_text: &str, source: &str, variables: &[&str], dir: &Path) -> PathBuf {
    let format = lca::extrap::InputFormat::detect(records_text);
    let records =
        lca::extrap::read_records(records_text, format).unwrap_or_else(|e| panic!("{source}: {e}"));
    let vars: Vec<String> = variables.iter().map(|v| v.to_string()).collect();
    let extraction = Extraction::default();
    let fits = lca::models_file::fit_all(
        &records,
        source,
        &vars,
        &extraction,
        &SearchOptions::default(),
    );
    let text = lca::models_file::models_file(&fits, &records, &vars, &extraction, source)
        .unwrap_or_else(|e| panic!("{source}: the models file: {e}"));
    let path = dir.join("models.lcm");
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

/// The two versions of a study's program as `lcm predict` reads them: the predicted
/// version's and the measured version's annotated sources, the function both start from,
/// and the measured version's fitted models.
#[derive(Debug, Clone)]
pub struct Versions {
    /// The predicted version's source.
    pub other: PathBuf,
    /// The measured version's source (also `--measured`: data moves it already had are
    /// inside its fragment models, not priced again).
    pub base: PathBuf,
    /// The entry function (`--entry`).
    pub entry: String,
    /// The models file (`--models`).
    pub models: PathBuf,
}

impl Versions {
    /// The predicted version's composed model with the machine file `machine`.
    pub fn other_program(&self, machine: &Path) -> Program {
        self.program(&self.other, machine)
    }

    /// The measured version's composed model with the machine file `machine`.
    pub fn base_program(&self, machine: &Path) -> Program {
        self.program(&self.base, machine)
    }

    /// `lcm predict SOURCE --entry E --models M --machine MACHINE --measured BASE`, composed.
    fn program(&self, source: &Path, machine: &Path) -> Program {
        let opts = PredictOptions {
            entry: self.entry.clone(),
            models: Some(self.models.clone()),
            machine: Some(machine.to_path_buf()),
            measured: Some(self.base.clone()),
        };
        let name = source
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        Program::from_source(&name, &read(source), &opts)
            .unwrap_or_else(|e| panic!("{}: {e}", source.display()))
    }
}

/// The prediction of `program` at `bindings` (panics naming them when lcm fails).
pub fn predict(program: &Program, bindings: &Bindings) -> Prediction {
    program
        .predict(bindings)
        .unwrap_or_else(|e| panic!("{} at {bindings:?}: {e}", program.file))
}

/// Bindings from (name, value) pairs.
pub fn bindings(pairs: &[(&str, f64)]) -> Bindings {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}
