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
    /// Time waited so far: what the source's pauses took (at most the budget, overrun by
    /// one pause's stretch).
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
    /// and at most the budget left: the last window is cut to the time left, and with no
    /// time left it does not wait at all. The time waited is the time the source's pauses
    /// took (a sleep the scheduler stretched counts as long as it took), so all waits
    /// together end at the budget, overrun by at most one pause's stretch. Returns the
    /// share of the last window (None where it cannot be measured, or when nothing was
    /// waited).
    pub fn wait_quiet(&mut self, max: Duration) -> Option<f64> {
        if !self.available {
            return None;
        }
        let limit = max.min(self.budget.saturating_sub(self.waited));
        let mut spent = Duration::ZERO;
        let mut share = None;
        while spent < limit {
            let window = self.window.min(limit - spent);
            let probe = Probe::start_with(&mut self.source);
            spent += self.source.pause(window);
            share = probe.share_with(&mut self.source);
            if is_quiet(share) {
                break;
            }
            self.busy_windows += 1;
        }
        self.waited += spent;
        share
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
        /// How much longer than asked every pause takes (a loaded scheduler's delay).
        pub stretch: Duration,
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
                stretch: Duration::ZERO,
            }
        }
    }

    impl LoadSource for Scripted {
        fn sample(&mut self) -> Option<Sample> {
            Some(self.now)
        }
        fn pause(&mut self, d: Duration) -> Duration {
            let share = self.shares[self.at.min(self.shares.len() - 1)];
            self.at += 1;
            self.pauses += 1;
            self.now.total += 100;
            self.now.busy += (100.0 * share).round() as u64;
            d + self.stretch
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
        // Always busy: a wait of 350 ms looks at 4 windows, the last one cut to 50 ms.
        let mut g = Gate::with_source(Scripted::new(&[0.9]), Duration::from_millis(500));
        assert_eq!(g.wait_quiet(Duration::from_millis(350)), Some(0.9));
        assert_eq!(g.busy_windows, 4);
        assert_eq!(g.waited, Duration::from_millis(350));
        // 150 ms of budget left: that much more, whatever the caller allows.
        g.wait_quiet(Duration::from_secs(5));
        assert_eq!(g.waited, Duration::from_millis(500));
        assert_eq!(g.busy_windows, 6);
        // Budget spent: no window looked at, nothing waited, however often it is asked.
        for _ in 0..30 {
            assert_eq!(g.wait_quiet(Duration::from_secs(5)), None);
        }
        assert_eq!(g.busy_windows, 6);
        assert_eq!(g.waited, Duration::from_millis(500));
        // A zero wait does not wait either.
        let mut g = Gate::with_source(Scripted::new(&[0.9]), Duration::from_secs(5));
        assert_eq!(g.wait_quiet(Duration::ZERO), None);
        assert_eq!(g.waited, Duration::ZERO);
    }

    #[test]
    fn pauses_count_as_long_as_they_took_and_the_budget_holds() {
        // Every window sleeps 10 ms longer than asked on a loaded machine. The first wait
        // (700 ms) takes 6 windows of 110 ms and one cut to the 40 ms left (50 ms): 710 ms;
        // the second the 290 ms left of the budget in 110 + 110 + 80 ms; then no more. The
        // budget is overrun by the last pause's stretch only.
        let mut source = Scripted::new(&[0.9]);
        source.stretch = Duration::from_millis(10);
        let mut g = Gate::with_source(source, Duration::from_secs(1));
        for _ in 0..20 {
            g.wait_quiet(Duration::from_millis(700));
        }
        assert_eq!(g.busy_windows, 10);
        assert_eq!(g.waited, Duration::from_millis(1010));
    }

    #[test]
    fn unreadable_counters_never_wait() {
        struct Blind;
        impl LoadSource for Blind {
            fn sample(&mut self) -> Option<Sample> {
                None
            }
            fn pause(&mut self, _: Duration) -> Duration {
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
