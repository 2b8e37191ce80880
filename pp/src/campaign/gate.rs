//! The quiet-machine gate: before a repetition, wait until the machine is quiet, within a
//! budget of waiting for the whole campaign, and keep account of how busy it was.
//!
//! "Quiet" means: over a window of [`WINDOW`] (100 ms), the processors' time that went to
//! processes other than this one and its children (or, in a virtual machine, to the host)
//! was below [`QUIET_SHARE`] (3%) of all processors' time. A repetition is judged the same
//! way over its own duration ([`super::load::Probe`]).

use std::time::Duration;

pub use super::load::QUIET_SHARE;
use super::load::{is_quiet, LoadSource, Probe, ProcStat};

/// Length of the window over which [`Gate::wait_quiet`] looks at the machine.
pub const WINDOW: Duration = Duration::from_millis(100);

/// Waits for quiet before measuring, within a time budget for the whole campaign, and keeps
/// account of the machine's load for the report. Reads the counters through `S` (the
/// kernel's by default).
#[derive(Clone, Debug)]
pub struct Gate<S = ProcStat> {
    source: S,
    /// Longest total wait.
    budget: Duration,
    /// Window length.
    window: Duration,
    /// Time waited so far (whole windows).
    pub waited: Duration,
    /// Windows that were looked at and found busy.
    pub busy_windows: usize,
    /// Whether the counters can be read here.
    pub available: bool,
}

impl Gate<ProcStat> {
    /// A gate on the kernel's counters that waits at most `budget` in total.
    pub fn new(budget: Duration) -> Gate {
        Gate::with_source(ProcStat, budget)
    }
}

impl<S: LoadSource> Gate<S> {
    /// A gate on `source` that waits at most `budget` in total.
    pub fn with_source(mut source: S, budget: Duration) -> Gate<S> {
        let available = source.sample().is_some();
        Gate {
            source,
            budget,
            window: WINDOW,
            waited: Duration::ZERO,
            busy_windows: 0,
            available,
        }
    }

    /// Waits until a window passes with other load below [`QUIET_SHARE`], at most `max`
    /// (and at most the budget left; a window once begun is finished). Returns the share of
    /// the last window (None where it cannot be measured: then it returns at once).
    pub fn wait_quiet(&mut self, max: Duration) -> Option<f64> {
        if !self.available {
            return None;
        }
        let limit = max.min(self.budget.saturating_sub(self.waited));
        let mut spent = Duration::ZERO;
        loop {
            let probe = Probe::start_with(&mut self.source);
            self.source.pause(self.window);
            spent += self.window;
            let share = probe.share_with(&mut self.source);
            let quiet = is_quiet(share);
            if !quiet {
                self.busy_windows += 1;
            }
            if quiet || spent >= limit {
                self.waited += spent;
                return share;
            }
        }
    }

    /// A probe started now on the gate's counters.
    pub fn probe(&mut self) -> Probe {
        Probe::start_with(&mut self.source)
    }

    /// The other load's share since `probe` started, on the gate's counters.
    pub fn share_since(&mut self, probe: &Probe) -> Option<f64> {
        probe.share_with(&mut self.source)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::campaign::load::Sample;

    /// A scripted machine: every reading advances the counters by one step whose other
    /// load is the next share of `shares` (the last one repeats); 100 ticks per step, this
    /// process idle.
    pub(crate) struct Scripted {
        pub shares: Vec<f64>,
        pub at: usize,
        pub now: Sample,
        pub pauses: usize,
    }

    impl Scripted {
        pub(crate) fn new(shares: &[f64]) -> Scripted {
            Scripted {
                shares: shares.to_vec(),
                at: 0,
                now: Sample {
                    busy: 0,
                    total: 0,
                    own: 0,
                },
                pauses: 0,
            }
        }
    }

    impl LoadSource for Scripted {
        fn sample(&mut self) -> Option<Sample> {
            Some(self.now)
        }
        fn pause(&mut self, _: Duration) {
            let share = self.shares[self.at.min(self.shares.len() - 1)];
            self.at += 1;
            self.pauses += 1;
            self.now.total += 100;
            self.now.busy += (100.0 * share).round() as u64;
        }
    }

    #[test]
    fn waits_through_busy_windows_until_a_quiet_one() {
        let mut g = Gate::with_source(Scripted::new(&[0.5, 0.2, 0.01]), Duration::from_secs(10));
        let share = g.wait_quiet(Duration::from_secs(1));
        assert_eq!(share, Some(0.01));
        assert_eq!(g.busy_windows, 2);
        assert_eq!(g.waited, 3 * WINDOW);
    }

    #[test]
    fn stops_at_its_limit_and_at_the_budget() {
        // Always busy: a wait of 350 ms looks at 4 windows (the last one begun is finished).
        let mut g = Gate::with_source(Scripted::new(&[0.9]), Duration::from_millis(500));
        assert_eq!(g.wait_quiet(Duration::from_millis(350)), Some(0.9));
        assert_eq!(g.busy_windows, 4);
        assert_eq!(g.waited, 4 * WINDOW);
        // 100 ms of budget left: one more window, whatever the caller allows.
        g.wait_quiet(Duration::from_secs(5));
        assert_eq!(g.waited, 5 * WINDOW);
        // Budget spent: one window still looked at (a zero limit stops after the first).
        g.wait_quiet(Duration::from_secs(5));
        assert_eq!(g.busy_windows, 6);
    }

    #[test]
    fn unreadable_counters_never_wait() {
        struct Blind;
        impl LoadSource for Blind {
            fn sample(&mut self) -> Option<Sample> {
                None
            }
            fn pause(&mut self, _: Duration) {
                panic!("a blind gate must not wait");
            }
        }
        let mut g = Gate::with_source(Blind, Duration::from_secs(1));
        assert!(!g.available);
        assert_eq!(g.wait_quiet(Duration::from_secs(1)), None);
        assert_eq!(g.waited, Duration::ZERO);
    }

    #[test]
    fn the_kernels_counters_work_here_or_say_they_cannot() {
        let mut g = Gate::new(Duration::from_millis(300));
        let share = g.wait_quiet(Duration::from_millis(300));
        if g.available {
            assert!((0.0..=1.0).contains(&share.unwrap_or(0.0)));
            assert!(g.waited >= WINDOW);
        } else {
            assert!(share.is_none());
        }
    }
}
