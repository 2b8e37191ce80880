//! Measurement campaigns: run a program over a grid of sizes, processor counts and
//! repetitions, behind a quiet-machine gate, and write profile records for `lca`.
//!
//! The `pp-campaign` command does it for any executable:
//!
//! ```text
//! pp-campaign --grid n=256,512 --p 1..2 --reps 5 -o fft.pp -- ./fft2d -n {n} -p {p}
//! lca model -f fft.pp -v n,p --all-tags --emit annotation > fft.models
//! ```
//!
//! What a campaign does ([`run`]):
//! 1. every point of the [`grid::Grid`] (every combination of the variables' values and p;
//!    paired variables take their values together)
//!    is run by a [`runner::PointRunner`] (for an executable, [`exec::ExecRunner`]: the
//!    [`template::CommandTemplate`] rendered at the point, p in the environment, and
//!    `PPLIB_LOG` naming one log per repetition);
//! 2. round robin ([`schedule`]): warm-up, then one repetition of every point per round,
//!    rounds in alternating order, until every point has the quiet repetitions asked for
//!    (or the most rounds allowed) ([`rounds::time_round_robin`]);
//! 3. behind the quiet-machine gate ([`gate`]): the machine is **quiet** when the
//!    processors' time that went to other processes (or to the host of a virtual machine)
//!    is below [`load::QUIET_SHARE`] (3%) of all processors' time. The gate waits for a
//!    quiet 100 ms window before the campaign, after every round and after every disturbed
//!    repetition (within a waiting budget); a repetition is **quiet** when the other load
//!    during it stayed below the same share. Only quiet repetitions count (all of them at a
//!    point where none was quiet, or where `/proc` cannot be read; the summary says so);
//! 4. every counted repetition is profiled by pp with the p = 1 point of the same variables
//!    as baseline ([`records`]) and becomes records: one per profile (the session and every
//!    fragment) with the point's variables, `rep=` and `run_s=` (its timed seconds) in the
//!    note. One file holds them all, fragments told apart by `tag=`: what `lca model
//!    --all-tags` reads. Per execution ([`per_execution`]), every fragment's record is
//!    divided by the times it ran and the session's by the run's iterations; a fragment
//!    whose executions at p > 1 differ from its p = 1 point's (one run concurrently on
//!    several threads: overlapping runs count once) is warned about
//!    ([`execution_counts`]).
//!
//! A program that measures code in its own process (the end-to-end study) implements
//! [`runner::PointRunner`] over its own points and calls [`rounds::time_round_robin`] with
//! a [`gate::Gate`] directly, and writes its records per execution with
//! [`per_execution::per_execution_records`].

pub mod exec;
pub mod execution_counts;
pub mod gate;
pub mod grid;
pub mod header;
pub mod load;
pub mod per_execution;
pub mod records;
pub mod rounds;
pub mod run_warnings;
pub mod runner;
pub mod schedule;
pub mod summary;
pub mod template;

use std::path::PathBuf;
use std::time::Duration;

pub use exec::ExecRunner;
pub use gate::Gate;
pub use grid::{Grid, Point};
pub use load::{LoadSource, Probe, ProcStat, QUIET_SHARE};
pub use per_execution::{
    executions_per_run, per_execution_records, Iterations, PerExecution, RunDivision,
};
pub use records::Records;
pub use rounds::{
    time_round_robin, time_round_robin_reporting, KeepLogs, PointTimes, Repetition, RoundDone,
    SPREAD_RUNS,
};
pub use run_warnings::{RunAt, RunCheck, RunWarning, RunWarnings};
pub use runner::{PointRunner, RunError};
pub use schedule::Repeats;
pub use summary::{LoadConditions, Summary, SPREAD_LIMIT};
pub use template::CommandTemplate;

/// Why a campaign could not run or finish.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// The grid, the command or an option is malformed (exit status 2 in `pp-campaign`).
    #[error("{0}")]
    Usage(String),
    /// A repetition failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A log could not be profiled.
    #[error(transparent)]
    Profile(#[from] crate::error::PpError),
    /// A file or directory could not be written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// A campaign over an executable.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The grid.
    pub grid: Grid,
    /// What runs at a point.
    pub runner: ExecRunner,
    /// Repetitions and waiting.
    pub repeats: Repeats,
    /// Longest total wait for quiet.
    pub wait_budget: Duration,
    /// Tokens written first in every record (`impl=dp`).
    pub note: Vec<String>,
    /// Where the repetitions' logs go (created; removed afterwards unless `keep_logs`).
    pub logs: PathBuf,
    /// Leave the counted repetitions' logs in `logs`.
    pub keep_logs: bool,
    /// Records per execution ([`per_execution`]): every fragment's amounts divided by the
    /// times it ran in the repetition (pp's `executions`), the session's and the
    /// per-iteration fragments' by the runs' iterations (`Iterations::Count(1)`: left
    /// whole), so that models are per execution as `lcm` counts a loop's fragments.
    /// `None`: whole repetitions.
    pub per_execution: Option<PerExecution>,
}

/// What a campaign measured.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Points, in grid order.
    pub points: Vec<Point>,
    /// Their repetitions (logs removed unless kept).
    pub times: Vec<PointTimes>,
    /// Their records.
    pub records: Records,
    /// Summary for the user.
    pub summary: Summary,
}

/// Runs `campaign` (see the module docs); `progress` is told after every round (rounds
/// done); [`run_reporting`] tells it how many points have their quiet repetitions as well.
pub fn run(campaign: &Campaign, progress: &mut dyn FnMut(usize)) -> Result<Outcome, CampaignError> {
    run_reporting(campaign, &mut |done: &RoundDone| progress(done.round))
}

/// [`run`], telling `progress` after every round where the campaign stands
/// ([`RoundDone`], whose [`RoundDone::line`] is `pp-campaign`'s progress line).
pub fn run_reporting(
    campaign: &Campaign,
    progress: &mut dyn FnMut(&RoundDone),
) -> Result<Outcome, CampaignError> {
    let io = |path: &std::path::Path, e: std::io::Error| CampaignError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    if let Some(d) = &campaign.per_execution {
        d.iterations.check(&campaign.grid)?;
    }
    std::fs::create_dir_all(&campaign.logs).map_err(|e| io(&campaign.logs, e))?;
    let points = campaign.grid.points();
    let mut warnings = grid_warnings(campaign);
    let mut gate = Gate::new(campaign.wait_budget);
    let load_before = load::load_average();
    let mut runner = campaign.runner.clone();
    let times = time_round_robin_reporting(
        &points,
        &mut runner,
        &campaign.repeats,
        &mut gate,
        &campaign.logs,
        KeepLogs::Counted,
        progress,
    );
    let result = times.map_err(CampaignError::from).and_then(|times| {
        let per_execution = campaign.per_execution.as_ref();
        let recs = records::records(&points, &times, &campaign.note, per_execution)?;
        Ok((times, recs))
    });
    if !campaign.keep_logs {
        let _ = std::fs::remove_dir_all(&campaign.logs);
    }
    let (mut times, recs) = result?;
    if !campaign.keep_logs {
        for t in &mut times {
            t.reps.iter_mut().for_each(|r| r.log = None);
        }
    }
    warnings.extend(recs.warnings.iter().cloned());
    let load = LoadConditions {
        load_before,
        load_after: load::load_average(),
        waited: gate.waited.as_secs_f64(),
        busy_windows: gate.busy_windows,
        probed: gate.available,
    };
    let mut summary = Summary::of(
        &points,
        &times,
        campaign.repeats.quiet,
        recs.lines.len(),
        load,
        warnings,
    );
    summary.run_warnings = recs.run_warnings.clone();
    Ok(Outcome {
        points,
        times,
        records: recs,
        summary,
    })
}

/// What is wrong with the grid before anything runs: no p = 1 (no baseline), a variable
/// whose values differ but which the command does not use.
fn grid_warnings(campaign: &Campaign) -> Vec<String> {
    let mut warnings = Vec::new();
    if !campaign.grid.ps.contains(&1) {
        warnings
            .push("the p list has no 1: no baseline, so the records have no pc and ml".to_string());
    }
    for name in campaign.grid.variables() {
        let values = campaign.grid.values_of(name).unwrap_or_default();
        let varies = values.iter().any(|v| *v != values[0]);
        if varies && !campaign.runner.template.uses(name) {
            warnings.push(format!(
                "variable {name} is not in the command: its points run the same command"
            ));
        }
    }
    warnings
}
