//! The study's four phases, each a function from the previous phases' outputs to its own:
//!
//! - [`measure::measure`] → [`measure::Measurement`]: the base version at every design
//!   point, profiled with the p = 1 baseline;
//! - [`fit::fit`] → [`fit::Fitted`]: lca's models of every fragment (`models.lcm`, as `lca
//!   model --all-tags --emit annotation` writes it), the machine file (as `lcm calibrate`)
//!   and the versions' annotated sources;
//! - [`predict::predict`] → [`predict::Predictions`]: lcm's predictions of both versions
//!   at every point, written to disk before the other version runs;
//! - [`validate::validate`] → [`validate::Validation`]: the other version (and the base
//!   version again) measured at those points and compared.
//!
//! What they share is the measuring [`Bench`]: the configuration, the quiet-machine gate,
//! the repetitions, the logs directory, and the warnings and timing notes collected on the
//! way.

pub mod fit;
pub mod measure;
pub mod predict;
pub mod validate;

use super::case::Case;
use super::conditions::TimingNote;
use super::design::Design;
use super::load::Gate;
use super::measure::Repeats;
use super::{Config, StudyError};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What the phases measure with, and what they collect on the way.
pub struct Bench<'c> {
    /// The study's configuration.
    pub cfg: &'c Config,
    /// The program.
    pub case: &'c Case,
    /// Its design points.
    pub design: &'c Design,
    /// The quiet-machine gate (one waiting budget for the whole study).
    pub gate: Gate,
    /// Repetitions of every timing.
    pub repeats: Repeats,
    /// Where repetitions write their logs.
    pub logs: PathBuf,
    /// When the study started.
    pub start: Instant,
    /// Warnings of the tools, in order.
    pub warnings: Vec<String>,
    /// How every timing went, in order.
    pub timings: Vec<TimingNote>,
}

impl Bench<'_> {
    /// A progress line on stderr (verbose studies only).
    pub fn say(&self, msg: String) {
        self.sayer()(msg)
    }

    /// What [`Bench::say`] does, apart from the bench (for progress during a campaign,
    /// which holds the bench's gate).
    pub fn sayer(&self) -> impl Fn(String) + 'static {
        let (verbose, start) = (self.cfg.verbose, self.start);
        move |msg| {
            if verbose {
                eprintln!("[{:6.1}s] {msg}", start.elapsed().as_secs_f64());
            }
        }
    }

    /// Writes `text` to `name` in the report directory.
    pub fn write(&self, name: &str, text: &str) -> Result<PathBuf, StudyError> {
        let path = self.cfg.out.join(name);
        write(&path, text)?;
        Ok(path)
    }

    /// Whether the other version runs at p (the design predicts there and it can run).
    pub fn runs_other(&self, p: usize) -> bool {
        self.design.predicted_ps.contains(&p) && p >= self.case.other.min_p
    }
}

/// Writes `text` to `path`.
pub fn write(path: &Path, text: &str) -> Result<(), StudyError> {
    std::fs::write(path, text).map_err(|source| StudyError::Io {
        path: path.display().to_string(),
        source,
    })
}
