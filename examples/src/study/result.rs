//! What a study found ([`StudyResult`]) and how it can fail ([`StudyError`]).

use super::case::Case;
use super::compare::{FragmentCheck, PointResult, Summary};
use super::conditions::Conditions;
use super::design::Design;
use super::model::FragmentFit;
use super::run::Run;
use super::{fit, measure, predict, report};

/// Everything a study found.
pub struct StudyResult {
    /// The program and its versions.
    pub case: Case,
    /// The design.
    pub design: Design,
    /// Cores used (largest p).
    pub cores: usize,
    /// Whether it was a quick run.
    pub quick: bool,
    /// Runs of the measured version.
    pub base_runs: Vec<Run>,
    /// Runs of the predicted version.
    pub other_runs: Vec<Run>,
    /// The fitted models.
    pub fits: Vec<FragmentFit>,
    /// The other version's fragment models as lcm resolved them (the fitted ones, or
    /// derived from them and the machine file's keys by the rules in its source).
    pub other_fits: Vec<FragmentFit>,
    /// One entry per point of the predicted version.
    pub points: Vec<PointResult>,
    /// Points where only the base version runs: (size, p, predicted, measured) seconds.
    pub base_only: Vec<(u64, usize, f64, f64)>,
    /// Per-fragment comparison in the predicted version's runs.
    pub fragment_checks: Vec<FragmentCheck>,
    /// The summary.
    pub summary: Summary,
    /// Where and why predictions fall short.
    pub findings: Vec<String>,
    /// Warnings of the tools.
    pub warnings: Vec<String>,
    /// How quiet the machine was while the study measured.
    pub conditions: Conditions,
    /// Seconds the study took.
    pub elapsed: f64,
}

/// Errors of a study.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// A measurement failed.
    #[error(transparent)]
    Measure(#[from] measure::MeasureError),
    /// Fitting failed.
    #[error(transparent)]
    Fit(#[from] fit::FitStepError),
    /// Prediction could not start (the annotated source is not understood).
    #[error(transparent)]
    Predict(#[from] predict::PredictStepError),
    /// The report could not be written.
    #[error(transparent)]
    Report(#[from] report::ReportError),
    /// Records written by pp could not be read back.
    #[error("reading back the records: {0}")]
    Records(String),
    /// A file could not be written.
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

impl StudyResult {
    /// Iterations used at size n.
    pub fn iters_of(&self, n: u64) -> u64 {
        (self.case.iterations)(n, self.design.target_seconds)
    }
}
