//! Discrete-event simulation of a PAMELA model in virtual time.
//!
//! Every `par` branch is a process with its own virtual clock. `delay` advances the
//! clock; `use` acquires a resource multiset: FCFS resources of multiplicity m serve m
//! holders at a time in arrival order (a multiset request waits until all of its units
//! are free at once and never blocks requests behind it that can be served); PS resources
//! share their m servers among all current users (rate min(1, m/n) each). `exp(mean)` and
//! `uniform(a, b)` time arguments are drawn at each execution. `if (c)` with 0 < c < 1
//! takes the first branch with probability c. When no event is left while processes are
//! still blocked (a `wait` that no `signal` will satisfy), the run reports a deadlock.
//!
//! `use(r, t)` is `P(r) ; delay(t) ; V(r)` (thesis section 3.2.3): the holder releases at
//! the end of its service and continues at once; `V` hands the unit straight to the first
//! waiter (it never becomes free in between), which becomes runnable at that instant.
//!
//! The order of things that happen at one virtual time is the [`Arbitration`]:
//! * [`Arbitration::Random`] (default): every event at equal times in a random order
//!   drawn from the seed. This is the language's non-deterministic conflict arbitration
//!   (thesis section 3.2.3); replications sample the arbitrations.
//! * [`Arbitration::Fifo`]: the deterministic order of the PAMELA run-time library that
//!   produced the thesis's simulation results (thesis appendix E.2-E.3): one event list
//!   ordered by time stamp, equal time stamps in the order they were enqueued (forked
//!   children in fork order, a woken waiter behind what is already runnable); a process
//!   that delays keeps running when no other process is scheduled *earlier* than its
//!   wake-up time (`pam_delay`), so it goes ahead of those scheduled at the same time;
//!   `V` serves the resource's waiters in blocking order. This reproduces Table 6.2's
//!   simulated times (9, 43, 207, 900, 3822) and the node completion times of the
//!   trace in Fig. 6.14 exactly.
mod engine;
mod events;
mod fcfs;
mod program;
mod ps;
mod resources;
mod step;

use super::error::PamelaError;
use super::eval::Bindings;
pub(crate) use program::SimProgram;

/// How to simulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// Number of independent replications (at least 1).
    pub runs: usize,
    /// Seed of the first replication; replication k uses a stream derived from seed and k.
    pub seed: u64,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions { runs: 1, seed: 1 }
    }
}

/// How events at equal virtual times are ordered (the language's conflict arbitration;
/// module docs give the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Arbitration {
    /// In a random order drawn from the seed (the default: the language's
    /// non-deterministic arbitration; replications sample it).
    #[default]
    Random,
    /// The PAMELA run-time library's order (thesis appendix E): time stamps, first
    /// enqueued first among equals, a delaying process keeps control unless another is
    /// scheduled earlier. Deterministic.
    Fifo,
}

/// Result of the replications. Times are in the model's time unit.
#[derive(Clone, Debug, PartialEq)]
pub struct SimReport {
    /// Mean simulated completion time of `main`.
    pub mean: f64,
    /// Sample standard deviation over the runs (0 for one run).
    pub sd: f64,
    /// Number of runs.
    pub runs: usize,
    /// The compiled lower bound `T_main` at the same bindings.
    pub t_lower: f64,
    /// Completion time of every run.
    pub samples: Vec<f64>,
    /// Events processed over all runs.
    pub events: u64,
}

impl SimReport {
    /// `t_lower / mean` (1 when both are 0).
    pub fn ratio(&self) -> f64 {
        if self.mean == 0.0 {
            if self.t_lower == 0.0 {
                1.0
            } else {
                f64::INFINITY
            }
        } else {
            self.t_lower / self.mean
        }
    }
}

/// Runs `p` `options.runs` times and summarizes; `t_lower` is filled in by the caller.
pub(crate) fn replicate(
    prog: &SimProgram,
    bindings: &Bindings,
    options: &SimOptions,
    arbitration: Arbitration,
    max_events: u64,
) -> Result<SimReport, PamelaError> {
    let runs = options.runs.max(1);
    let mut samples = Vec::with_capacity(runs);
    let mut events = 0;
    for k in 0..runs {
        let seed = options
            .seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(k as u64);
        let (t, ev) = prog.run(
            bindings,
            seed,
            true,
            arbitration,
            max_events.saturating_sub(events),
        )?;
        samples.push(t);
        events += ev;
    }
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let sd = if samples.len() > 1 {
        (samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    Ok(SimReport {
        mean,
        sd,
        runs,
        t_lower: f64::NAN,
        samples,
        events,
    })
}
