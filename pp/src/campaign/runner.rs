//! How one point of a campaign is run once: [`PointRunner`]. The campaign decides when and
//! how often; the runner only runs. [`super::exec::ExecRunner`] runs a user's executable;
//! a program can also measure closures in its own process (the end-to-end study does).

use std::path::Path;

/// A repetition that failed: what ran and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{point}: {message}")]
pub struct RunError {
    /// The point, as its runner names it.
    pub point: String,
    /// What went wrong (the program's exit status and last words, for an executable).
    pub message: String,
}

/// Runs one point once.
pub trait PointRunner {
    /// What a point is.
    type Point;

    /// A short name of `point` for messages and file names: letters, digits, `-`, `_`,
    /// `=` and `.` only.
    fn label(&self, point: &Self::Point) -> String;

    /// Runs `point` once, recording a pplib log into `log` when given (no recording
    /// otherwise: warm-up), and returns the timed seconds of the run.
    fn run(&mut self, point: &Self::Point, log: Option<&Path>) -> Result<f64, RunError>;
}
