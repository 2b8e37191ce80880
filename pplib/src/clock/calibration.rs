//! The time-stamp counter's rate against CLOCK_MONOTONIC, measured across the session
//! instead of by sleeping before it.
//!
//! A log holds raw TSC readings and, in its header, the time scale that converts them
//! (a reference reading, the nanoseconds it stands for, and the rate); readers apply it, so
//! the rate need not be known when recording begins. It is measured between *pairs*:
//! readings of the TSC bracketed by two readings of CLOCK_MONOTONIC, retried until the
//! bracket is tight (a few hundred nanoseconds). Over a baseline of B between two pairs
//! the rate is good to about 2 × bracket / B.
//!
//! - **Session start**: one pair, the session's reference. The first session of a process
//!   also takes a second one [`PROVISIONAL_BASELINE`] later (busy-waiting 100 µs): a
//!   provisional rate, good to about 1e-3, for the header written at the start and for
//!   [`super::raw_micros`]. Later sessions start from the last rate measured.
//! - **While recording**: the writer thread measures the rate anew (a pair, no wait) when
//!   the baseline has doubled since its last measure or [`REMEASURE_AT_MOST_NS`] passed, and
//!   rewrites the header's scale ([`Remeasure`]): the log of a process killed before its
//!   session ends converts with a rate measured up to about its last written chunk.
//! - **Session end**: after the last event, the final pair. The rate from the process's
//!   first pair (its first session's start) to this one converts the log: one session's
//!   start-to-end rate, or, for later sessions, a longer baseline still. When that baseline
//!   is shorter than [`MIN_BASELINE`] (a first session shorter than 20 ms) the rest of it is
//!   slept then, after the program's work; the program's own timed region never holds it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use crate::counters::tsc;
use crate::log::binary::TimeScale;
use crate::sys;

/// The shortest baseline the final rate is measured over (a rate good to about 1e-5).
pub(crate) const MIN_BASELINE: Duration = Duration::from_millis(20);

/// The baseline of the provisional rate of a process's first session.
pub(crate) const PROVISIONAL_BASELINE: Duration = Duration::from_micros(100);

/// The longest the writer goes on without measuring the rate, while it writes (ns).
pub(crate) const REMEASURE_AT_MOST_NS: u64 = 100_000_000;

/// One bracketed reading of both clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pair {
    /// TSC ticks.
    raw: u64,
    /// CLOCK_MONOTONIC nanoseconds at the middle of the bracket.
    ns: u64,
}

/// The process's first pair: the far end of every later session's baseline.
static FIRST: OnceLock<Pair> = OnceLock::new();

/// The latest rate measured, in nanoseconds per tick × 2^32 (0: none yet). Baselines only
/// grow (they all start at [`FIRST`]), so the latest is the most precise.
static RATE_Q32: AtomicU64 = AtomicU64::new(0);

/// A reading of both clocks, retried until the bracket is tight.
fn pair() -> Pair {
    let mut best = (0, 0, u64::MAX);
    for _ in 0..50 {
        let a = sys::monotonic_ns();
        let t = tsc::read();
        let b = sys::monotonic_ns();
        let width = b.saturating_sub(a);
        if width < best.2 {
            best = (t, a + width / 2, width);
        }
        if width < 200 {
            break;
        }
    }
    Pair {
        raw: best.0,
        ns: best.1,
    }
}

/// The rate between two pairs (ns per tick × 2^32), or `None` when no tick passed.
fn rate_q32(from: Pair, to: Pair) -> Option<u64> {
    let ticks = to.raw.checked_sub(from.raw).filter(|t| *t > 0)?;
    let ns = to.ns.saturating_sub(from.ns);
    let rate = (u128::from(ns) << 32) / u128::from(ticks);
    Some(rate.clamp(1, u128::from(u64::MAX)) as u64)
}

/// Makes `rate` the latest one, for [`super::raw_micros`] and the next session's start.
fn publish(rate: u64) {
    RATE_Q32.store(rate, Ordering::Relaxed);
    super::set_raw_per_microsecond(rate);
}

/// The calibration of one session's TSC readings: its reference pair and the process's
/// first pair.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TscCalibration {
    first: Pair,
    start: Pair,
}

impl TscCalibration {
    /// Takes the session's reference pair (and, in a process's first session, the
    /// provisional rate over [`PROVISIONAL_BASELINE`]).
    pub(crate) fn begin() -> TscCalibration {
        let start = pair();
        let first = *FIRST.get_or_init(|| start);
        if RATE_Q32.load(Ordering::Relaxed) == 0 {
            let until = start.ns + PROVISIONAL_BASELINE.as_nanos() as u64;
            while sys::monotonic_ns() < until {
                std::hint::spin_loop();
            }
            publish(rate_q32(start, pair()).unwrap_or(1 << 32));
        }
        TscCalibration { first, start }
    }

    /// The scale with the latest rate: approximate until the session ends.
    pub(crate) fn provisional_scale(&self) -> TimeScale {
        self.scale(RATE_Q32.load(Ordering::Relaxed).max(1))
    }

    /// Measures the rate up to now (no wait) and returns the scale with it.
    pub(crate) fn measure(&self) -> TimeScale {
        if let Some(rate) = rate_q32(self.first, pair()) {
            publish(rate);
        }
        self.provisional_scale()
    }

    /// The final scale, measured after the session's last event: first sleeps what is left
    /// of [`MIN_BASELINE`] since the process's first pair.
    pub(crate) fn finish(&self) -> TimeScale {
        let baseline = Duration::from_nanos(sys::monotonic_ns().saturating_sub(self.first.ns));
        if let Some(rest) = MIN_BASELINE.checked_sub(baseline) {
            std::thread::sleep(rest);
        }
        self.measure()
    }

    fn scale(&self, rate: u64) -> TimeScale {
        TimeScale {
            ref_raw: self.start.raw,
            ref_ns: self.start.ns,
            ns_per_raw_q32: rate,
        }
    }
}

/// When the writer thread measures the rate anew while the session records: at its first
/// look, then each time the baseline has doubled, and at least every
/// [`REMEASURE_AT_MOST_NS`] while it writes.
#[derive(Debug)]
pub(crate) struct Remeasure {
    calibration: TscCalibration,
    /// CLOCK_MONOTONIC at the last measure (the session's start before the first).
    last_ns: u64,
}

impl Remeasure {
    /// Measures for `calibration`'s session.
    pub(crate) fn new(calibration: TscCalibration) -> Remeasure {
        Remeasure {
            calibration,
            last_ns: calibration.start.ns,
        }
    }

    /// The scale measured now if a measure is due, else `None` (one CLOCK_MONOTONIC read).
    pub(crate) fn due(&mut self) -> Option<TimeScale> {
        let now = sys::monotonic_ns();
        if !self.is_due(now) {
            return None;
        }
        self.last_ns = now;
        Some(self.calibration.measure())
    }

    /// True if a measure at `now` (CLOCK_MONOTONIC ns) is due.
    fn is_due(&self, now: u64) -> bool {
        let since = now.saturating_sub(self.last_ns);
        let baseline = self.last_ns.saturating_sub(self.calibration.first.ns);
        since >= baseline.min(REMEASURE_AT_MOST_NS)
    }

    /// The final scale ([`TscCalibration::finish`]).
    pub(crate) fn finish(&self) -> TimeScale {
        self.calibration.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_between_two_pairs_is_nanoseconds_per_tick() {
        let a = Pair { raw: 1000, ns: 50 };
        let b = Pair {
            raw: 3000,
            ns: 1050,
        };
        assert_eq!(rate_q32(a, b), Some(1 << 31)); // 1000 ns over 2000 ticks
        assert_eq!(rate_q32(b, a), None);
        assert_eq!(rate_q32(a, a), None);
    }

    #[test]
    fn remeasures_when_the_baseline_doubled_or_after_100_ms() {
        let ms = 1_000_000;
        let at = |first_ms: u64, last_ms: u64| Remeasure {
            calibration: TscCalibration {
                first: Pair {
                    raw: 0,
                    ns: first_ms * ms,
                },
                start: Pair {
                    raw: 0,
                    ns: last_ms * ms,
                },
            },
            last_ns: last_ms * ms,
        };
        // The first session, at its start: due at the first look.
        assert!(at(1000, 1000).is_due(1000 * ms));
        // Last measured 5 ms into the process's first session: due again 5 ms later.
        assert!(!at(1000, 1005).is_due(1009 * ms));
        assert!(at(1000, 1005).is_due(1010 * ms));
        // A baseline of 10 s: due every 100 ms, not every 10 s.
        assert!(!at(1000, 11_000).is_due(11_099 * ms));
        assert!(at(1000, 11_000).is_due(11_100 * ms));
    }
}
