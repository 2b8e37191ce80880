//! What a sweep is asked to compute, and the observer interface for timelines.

use pplib::log::{CounterId, Nanos};

use crate::stack::{Frame, ThreadState};

/// Which fragment windows to profile besides the session.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TagSelection {
    /// The session only.
    #[default]
    None,
    /// The session and fragment NAME.
    One(String),
    /// The session and every fragment.
    All,
}

impl TagSelection {
    /// Whether fragment `tag` gets a window of its own.
    pub fn selects(&self, tag: &str) -> bool {
        match self {
            TagSelection::None => false,
            TagSelection::One(t) => t == tag,
            TagSelection::All => true,
        }
    }

    /// [`TagSelection::selects`] for every name of a string table (indexed by name id).
    pub fn selected_names(&self, names: &[String]) -> Vec<bool> {
        names.iter().map(|n| self.selects(n)).collect()
    }
}

/// Which counters of the log mean what (ids from the log header).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CounterRoles {
    /// Cumulative CPU time of the thread in nanoseconds (`cpu_ns`).
    pub cpu_ns: Option<CounterId>,
    /// Cumulative last-level-cache misses of the thread (`llc_misses`).
    pub llc_misses: Option<CounterId>,
    /// Cumulative involuntary context switches of the thread (`nivcsw`): times the OS
    /// took its processor away (another process or thread was given it).
    pub nivcsw: Option<CounterId>,
}

impl CounterRoles {
    /// Finds the roles by counter name (`cpu_ns`, `llc_misses`, `nivcsw`) in a header's
    /// counter list.
    pub fn from_names(names: &[String]) -> CounterRoles {
        let find = |n: &str| {
            names
                .iter()
                .position(|c| c == n)
                .and_then(|i| u16::try_from(i).ok())
                .map(CounterId)
        };
        CounterRoles {
            cpu_ns: find("cpu_ns"),
            llc_misses: find("llc_misses"),
            nivcsw: find("nivcsw"),
        }
    }
}

/// Configuration of one sweep.
#[derive(Debug, Clone, Default)]
pub struct SweepConfig {
    /// p, the number of processors (>= 1).
    pub processors: u32,
    /// Fragment windows to profile.
    pub tags: TagSelection,
    /// Record task and wait durations per window.
    pub histograms: bool,
    /// Counter roles.
    pub counters: CounterRoles,
}

/// Receives the intervals and constructs of the sweep as they complete (for timelines).
///
/// Threads are identified by their slot (the index in the `threads` given to
/// [`crate::sweep::Sweep::new`]).
pub trait Observer {
    /// A thread was in `state` from `start` to `end`; `in_task` says whether its innermost
    /// open task owns the time (Busy time that becomes Wasted if that task ends wasted).
    fn segment(&mut self, slot: usize, state: ThreadState, in_task: bool, start: Nanos, end: Nanos);
    /// A construct was opened.
    fn opened(&mut self, slot: usize, frame: &Frame);
    /// A construct was closed at `end`; `wasted` for a task closed as wasted.
    fn closed(&mut self, slot: usize, frame: &Frame, end: Nanos, wasted: bool);
    /// The numbers of processors in each state changed at `time` (session-wide view; Busy
    /// includes work that may later prove wasted).
    fn rates(&mut self, time: Nanos, rates: Rates);
}

/// Processors in each category at an instant (may be fractional when oversubscribed).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rates {
    /// Idle processors while work exists.
    pub li: f64,
    /// Idle processors while no work exists.
    pub ip: f64,
    /// Spinning processors.
    pub sl: f64,
    /// Busy processors.
    pub busy: f64,
}
