//! Measuring versions at a design point: repeated runs under a pplib session, profiled with
//! `pp` (session and every fragment, with a p = 1 baseline).
//!
//! Everything measured in one phase of the study is timed together by pp's campaign runner
//! ([`pp::campaign::time_round_robin`], through [`time_round_robin`]): one repetition of
//! each thing (version, size, p) in turn, then the next round (in the opposite order), so
//! the repetitions of every point are spread over the whole phase, and a disturbance from
//! other load, or a drift of the machine's speed (on a virtual machine, other guests on the
//! same host slow it in ways no counter here shows), hits all points alike instead of one
//! of them wholesale. A first round runs each once unrecorded (warm-up: thread creation,
//! page faults, clock ramp). During every repetition the other load on the machine is
//! measured ([`super::load`]); only quiet repetitions count, a disturbed one is repeated
//! (after waiting for quiet) up to a limit, and the fastest quiet repetition is kept (other
//! load only ever makes a run slower). The things are run in this process
//! ([`InProcess`], the campaign's [`PointRunner`] for the study's versions).

use super::case::Version;
use super::load::Gate;
use super::run::{Categories, Run};
use pp::campaign::{KeepLogs, PointRunner, RunError};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One thing to time: a version at a design point (size, p, iterations).
#[derive(Clone, Copy)]
pub struct Spec<'a> {
    /// The version.
    pub version: &'a Version,
    /// Size.
    pub n: u64,
    /// Iterations.
    pub iters: u64,
    /// Its processors.
    pub p: usize,
}

impl Spec<'_> {
    /// Name used in file names and messages (`dp`).
    pub fn label(&self) -> String {
        self.version.name.to_string()
    }
}

pub use pp::campaign::Repeats;

/// The study's repetitions: `quiet` per thing measured, more (up to three times as many)
/// while the phase's `budget` lasts, at least [`MIN_ROUNDS`], one warm-up round, waiting
/// up to `wait` for quiet before a phase (a third of it between rounds and after a
/// disturbed repetition).
pub fn study_repeats(quiet: usize, wait: Duration, budget: Duration) -> Repeats {
    Repeats {
        quiet,
        most: 3 * quiet,
        min_rounds: MIN_ROUNDS,
        budget: Some(budget),
        fill_budget: true,
        warmup: 1,
        wait,
    }
}

/// Fewest rounds of repetitions, whatever the budget.
pub const MIN_ROUNDS: usize = 5;

/// The repetitions of one [`Spec`] at one point.
#[derive(Clone, Debug)]
pub struct Timing {
    /// Seconds of the kept repetition: the fastest quiet one (the fastest of all when none
    /// was quiet).
    pub seconds: f64,
    /// Median seconds of the quiet repetitions (of all when none was quiet).
    pub median: f64,
    /// Third-fastest seconds of the same repetitions (the slowest when fewer than three).
    pub third: f64,
    /// Quiet repetitions.
    pub quiet: usize,
    /// All recorded repetitions (warm-up not counted).
    pub reps: usize,
    /// Other load's share of the machine during the kept repetition (None: not measurable).
    pub foreign: Option<f64>,
    /// The kept repetition's log.
    pub log: PathBuf,
}

impl Timing {
    /// (median − fastest) / fastest of the counted repetitions: how much they spread.
    pub fn spread(&self) -> f64 {
        (self.median - self.seconds) / self.seconds
    }

    /// (third-fastest − fastest) / fastest of the counted repetitions: how much the kept
    /// time would change without its two fastest repetitions, the run-to-run spread of the
    /// kept value itself (the median's spread is that of a single repetition, far wider on
    /// a shared machine).
    pub fn kept_spread(&self) -> f64 {
        (self.third - self.seconds) / self.seconds
    }
}

/// A measured point: the run (fastest quiet repetition), its `pp` analysis and its timing.
pub struct Measured {
    /// Time and categories.
    pub run: Run,
    /// The `pp` analysis of the kept repetition's log (the baseline of later points when
    /// p = 1).
    pub analysis: pp::Analysis,
    /// How it was timed.
    pub timing: Timing,
}

/// Errors of a measurement.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    /// The program failed.
    #[error("{version} at n={n} p={p}: {message}")]
    Program {
        /// Version.
        version: String,
        /// Size.
        n: u64,
        /// Processors.
        p: usize,
        /// What it said.
        message: String,
    },
    /// A repetition failed in the campaign runner.
    #[error("{0}")]
    Campaign(String),
    /// `pp` could not profile the log.
    #[error("profiling {0}")]
    Profile(#[from] pp::PpError),
}

/// Categories of a `pp` profile as a map (only measured ones).
pub fn categories_of(profile: &pp::Profile) -> Categories {
    profile
        .categories()
        .into_iter()
        .map(|(c, v)| (c.key().to_string(), v))
        .collect()
}

/// One repetition of `spec`: its seconds.
fn run_once(spec: &Spec, log: Option<&Path>) -> Result<f64, MeasureError> {
    (spec.version.run)(spec.n, spec.p, spec.iters, log).map_err(|message| MeasureError::Program {
        version: spec.label(),
        n: spec.n,
        p: spec.p,
        message,
    })
}

/// The study's versions run in this process: the campaign's runner of a [`Spec`].
pub struct InProcess<'a> {
    versions: std::marker::PhantomData<&'a Version>,
}

impl<'a> PointRunner for InProcess<'a> {
    type Point = Spec<'a>;

    fn label(&self, s: &Self::Point) -> String {
        format!("{}-n{}-p{}", s.label(), s.n, s.p)
    }

    fn run(&mut self, s: &Self::Point, log: Option<&Path>) -> Result<f64, RunError> {
        run_once(s, log).map_err(|e| RunError {
            point: self.label(s),
            message: e.to_string(),
        })
    }
}

/// Times every spec of `specs`, round robin, as the module docs say; every recorded
/// repetition logs into `dir`, and the kept one's log is left there ([`Timing::log`]) for
/// [`profile`]. `progress` is told after every round.
pub fn time_round_robin<'a>(
    specs: &[Spec<'a>],
    rep: &Repeats,
    dir: &Path,
    gate: &mut Gate,
    progress: &dyn Fn(usize),
) -> Result<Vec<Timing>, MeasureError> {
    let mut runner = InProcess {
        versions: std::marker::PhantomData,
    };
    let times = pp::campaign::time_round_robin(
        specs,
        &mut runner,
        rep,
        gate,
        dir,
        KeepLogs::Kept,
        &mut |r| progress(r),
    )
    .map_err(|e| MeasureError::Campaign(e.to_string()))?;
    Ok(times
        .into_iter()
        .map(|t| {
            let kept = t.kept();
            Timing {
                seconds: kept.seconds,
                median: t.median(),
                third: t.third(),
                quiet: t.quiet(),
                reps: t.reps.len(),
                foreign: kept.foreign,
                log: kept.log.clone().unwrap_or_default(),
            }
        })
        .collect())
}

/// Profiles the kept repetition of `timing` (of `spec`) with `pp`, with `baseline` for
/// `pc`/`ml`, and removes its log.
pub fn profile(
    spec: &Spec,
    timing: Timing,
    baseline: Option<&pp::Analysis>,
) -> Result<Measured, MeasureError> {
    let analysis = pp::analyze(&timing.log, &pp::Options::all_tags());
    let _ = std::fs::remove_file(&timing.log);
    let mut analysis = analysis?;
    if let Some(b) = baseline {
        analysis.apply_baseline(b);
    }
    let session = categories_of(analysis.session());
    let fragments = analysis
        .profiles
        .iter()
        .filter_map(|pr| pr.tag.as_ref().map(|t| (t.clone(), categories_of(pr))))
        .collect();
    Ok(Measured {
        run: Run {
            version: spec.version.name.to_string(),
            n: spec.n,
            p: spec.p,
            iters: spec.iters,
            seconds: timing.seconds,
            session,
            fragments,
        },
        analysis,
        timing,
    })
}
