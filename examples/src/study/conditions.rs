//! How quiet the machine was while a study measured: per timing, the kept and median
//! seconds, the quiet repetitions and the other load; for the whole study, the load
//! averages and the time spent waiting for other load to pass (pp's campaign runner's
//! [`LoadConditions`]).

use super::measure::{Spec, Timing};
use pp::campaign::LoadConditions;

/// How one thing was timed at one point (for the report's measurement conditions).
#[derive(Clone, Debug, PartialEq)]
pub struct TimingNote {
    /// What: the version's name.
    pub label: String,
    /// Size.
    pub n: u64,
    /// Processors.
    pub p: usize,
    /// Kept (fastest quiet) seconds.
    pub seconds: f64,
    /// (median − kept) / kept of the counted repetitions.
    pub spread: f64,
    /// Quiet repetitions.
    pub quiet: usize,
    /// Recorded repetitions.
    pub reps: usize,
    /// Other load's share of the machine during the kept repetition.
    pub foreign: Option<f64>,
}

impl TimingNote {
    /// The note of `t`, the timing of `spec`.
    pub fn of(spec: &Spec, t: &Timing) -> TimingNote {
        TimingNote {
            label: spec.label(),
            n: spec.n,
            p: spec.p,
            seconds: t.seconds,
            spread: t.spread(),
            quiet: t.quiet,
            reps: t.reps,
            foreign: t.foreign,
        }
    }
}

/// The machine's load while the study measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Conditions {
    /// Load averages (1, 5, 15 minutes) before the first measurement.
    pub load_before: Option<(f64, f64, f64)>,
    /// Load averages after the last one.
    pub load_after: Option<(f64, f64, f64)>,
    /// Seconds spent waiting for other load to pass.
    pub waited: f64,
    /// 100 ms windows found busy while waiting.
    pub busy_windows: usize,
    /// Whether other load could be measured (Linux `/proc`).
    pub probed: bool,
    /// Every timing.
    pub timings: Vec<TimingNote>,
}

impl Conditions {
    /// The conditions of a study whose campaign saw `load`, with its `timings`.
    pub fn of(load: LoadConditions, timings: Vec<TimingNote>) -> Conditions {
        Conditions {
            load_before: load.load_before,
            load_after: load.load_after,
            waited: load.waited,
            busy_windows: load.busy_windows,
            probed: load.probed,
            timings,
        }
    }
}
