//! How much of a profile the recording itself took: the events each thread recorded times
//! the cost of recording one event, in processor-seconds and as a share of the session's
//! `tt` (docs/event-logs.md, "The cost of recording").
//!
//! The cost of one event comes from the log, in this order ([`CostSource`]):
//! - **measured**: pplib measured it on the recording machine when the session ended and
//!   wrote it into the binary log's header ([`pplib::log::Header::event_cost_ps`]);
//! - **stated**: a text trace's `event_cost_ns` line;
//! - **log gaps**: a binary log recorded by pplib (its clock is pplib's TSC or
//!   CLOCK_MONOTONIC) without the field, written before it existed or cut short: the 1st
//!   percentile of the positive gaps between consecutive events of a thread, over the
//!   first [`GAP_SAMPLE_PER_THREAD`] events of each thread (at most [`GAP_SAMPLE_EVENTS`]
//!   in all). Two consecutive events are at least one event's recording apart (the
//!   first's stores, the second's loads, and the program's code in between), so this is an
//!   upper bound of the cost of one event, close to it where the program records events
//!   back to back (nested fragments, a `par` and its first task);
//! - **unknown**: otherwise (other text traces, synthetic logs): no estimate.
//!
//! The estimate counts only the direct cost of each event (the clock reading and the stores
//! that record it); what recording does to the program besides (the cache lines its
//! buffers take, the work a clock reading keeps from overlapping, the writer thread,
//! reading counters) is not in it, so where the cost per event is measured, the share is
//! a lower bound of the dilation of the run.

use pplib::log::{EventBatch, EventCode, LogReader, ThreadId};
use serde::Serialize;

use crate::profile::Profile;

/// The most events of one thread the log-gap estimate looks at (from the thread's start).
pub const GAP_SAMPLE_PER_THREAD: usize = 1 << 16;

/// The most events of all threads the log-gap estimate looks at.
pub const GAP_SAMPLE_EVENTS: usize = 1 << 20;

/// Where the cost of one event came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CostSource {
    /// Measured by pplib at the end of the session, stored in the binary log's header.
    Measured,
    /// Stated by the text trace's `event_cost_ns` line.
    Stated,
    /// Estimated from the smallest gaps between events of the log (an upper bound of
    /// one event's cost).
    LogGaps,
    /// Not known: the log neither says nor allows an estimate.
    Unknown,
}

impl CostSource {
    /// How the text output says where the cost came from.
    pub fn describe(self) -> &'static str {
        match self {
            CostSource::Measured => "measured by pplib at the session's end",
            CostSource::Stated => "stated by the trace",
            CostSource::LogGaps => {
                "an upper bound from the log's closest events; the log predates pplib's own \
                 measure"
            }
            CostSource::Unknown => "unknown",
        }
    }
}

/// The recording cost of one thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadRecording {
    /// The thread id.
    pub thread: u32,
    /// Events it recorded.
    pub events: u64,
    /// Seconds its recording took (`None`: cost unknown).
    pub cost_s: Option<f64>,
    /// That share of the session's elapsed time (the thread's processor's time).
    pub share_of_elapsed: Option<f64>,
}

/// The recording cost of a log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordingCost {
    /// Events of all threads.
    pub events: u64,
    /// Nanoseconds per recorded event (`None`: unknown).
    pub event_cost_ns: Option<f64>,
    /// Where [`RecordingCost::event_cost_ns`] came from.
    pub source: CostSource,
    /// Processor-seconds the recording took: `events × event_cost_ns`.
    pub cost_s: Option<f64>,
    /// That share of the session's `tt`.
    pub share_of_tt: Option<f64>,
    /// Per thread, in thread id order.
    pub threads: Vec<ThreadRecording>,
}

impl RecordingCost {
    /// The recording cost of `events_per_thread` recorded events at `event_cost` (ns per
    /// event and its source, or `None`), against the `session` profile.
    pub fn new(
        events_per_thread: &[(ThreadId, u64)],
        event_cost: Option<(f64, CostSource)>,
        session: &Profile,
    ) -> RecordingCost {
        let ns = event_cost.map(|(ns, _)| ns);
        let seconds = |events: u64| ns.map(|ns| events as f64 * ns * 1e-9);
        let share = |s: Option<f64>, of: f64| s.filter(|_| of > 0.0).map(|s| s / of);
        let threads: Vec<ThreadRecording> = events_per_thread
            .iter()
            .map(|&(thread, events)| ThreadRecording {
                thread: thread.0,
                events,
                cost_s: seconds(events),
                share_of_elapsed: share(seconds(events), session.elapsed),
            })
            .collect();
        let events = threads.iter().map(|t| t.events).sum();
        RecordingCost {
            events,
            event_cost_ns: ns,
            source: event_cost.map_or(CostSource::Unknown, |(_, source)| source),
            cost_s: seconds(events),
            share_of_tt: share(seconds(events), session.tt),
            threads,
        }
    }

    /// The threads that recorded the most events, most first (at most `n`, none without
    /// events).
    pub fn densest_threads(&self, n: usize) -> Vec<&ThreadRecording> {
        let mut threads: Vec<&ThreadRecording> =
            self.threads.iter().filter(|t| t.events > 0).collect();
        threads.sort_by(|a, b| b.events.cmp(&a.events).then(a.thread.cmp(&b.thread)));
        threads.truncate(n);
        threads
    }

    /// The line of the default output, e.g. `recording: 120000 events, ~9.48 ns each
    /// (measured by pplib at the session's end): 1.138 ms, 0.84% of tt`; `None` when the
    /// cost is unknown. The share is of the session's `tt`: a line that follows a
    /// fragment's table (`after_session` false) says so.
    pub fn line(&self, after_session: bool) -> Option<String> {
        let (ns, cost_s) = (self.event_cost_ns?, self.cost_s?);
        let of = if after_session {
            "tt"
        } else {
            "the session's tt"
        };
        let share = self
            .share_of_tt
            .map_or_else(String::new, |s| format!(", {} of {of}", percent(s)));
        Some(format!(
            "recording: {} events, ~{ns:.2} ns each ({}): {}{share}",
            self.events,
            self.source.describe(),
            duration(cost_s)
        ))
    }
}

/// Seconds with three decimals in the unit that suits them: `1.250 s`, `3.400 ms`,
/// `0.680 µs`.
fn duration(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.3} s")
    } else if seconds >= 1e-3 {
        format!("{:.3} ms", seconds * 1e3)
    } else {
        format!("{:.3} µs", seconds * 1e6)
    }
}

/// A share as a percentage with two decimals (three below 0.1 %).
pub fn percent(fraction: f64) -> String {
    let pct = fraction * 100.0;
    if pct.abs() < 0.1 {
        format!("{pct:.3}%")
    } else {
        format!("{pct:.2}%")
    }
}

/// The cost of one event of the log opened by `reader` and where it came from (see the
/// module docs), or `None`.
pub fn event_cost(reader: &LogReader) -> Option<(f64, CostSource)> {
    let header = reader.header();
    if let Some(ps) = header.event_cost_ps {
        let source = match reader.is_text() {
            true => CostSource::Stated,
            false => CostSource::Measured,
        };
        return Some((ps as f64 / 1000.0, source));
    }
    let pplib_clock = [
        pplib::clock::ClockSource::Tsc,
        pplib::clock::ClockSource::Monotonic,
    ]
    .iter()
    .any(|c| c.header_name() == header.clock);
    if reader.is_text() || !pplib_clock {
        return None;
    }
    smallest_gap_ns(reader).map(|ns| (ns, CostSource::LogGaps))
}

/// The 1st percentile of the positive gaps between consecutive events of a thread (neither
/// of them a `counters` event), over the first events of each thread (see the module
/// docs); `None` without any such gap.
fn smallest_gap_ns(reader: &LogReader) -> Option<f64> {
    let mut gaps = Vec::new();
    let mut batch = EventBatch::new();
    let mut budget = GAP_SAMPLE_EVENTS;
    for mut stream in reader.streams() {
        let mut taken = 0;
        let mut last: Option<u64> = None;
        while taken < GAP_SAMPLE_PER_THREAD && budget > 0 {
            // An error ends the sample of this thread: the profile reports it.
            if stream.next_batch(&mut batch).is_err() && batch.is_empty() {
                break;
            }
            if batch.is_empty() {
                break;
            }
            for e in batch.events() {
                if taken == GAP_SAMPLE_PER_THREAD || budget == 0 {
                    break;
                }
                taken += 1;
                budget -= 1;
                if e.code == EventCode::Counters {
                    last = None;
                    continue;
                }
                if let Some(gap) = last.map(|l| e.time.0.saturating_sub(l)) {
                    if gap > 0 {
                        gaps.push(gap);
                    }
                }
                last = Some(e.time.0);
            }
        }
    }
    if gaps.is_empty() {
        return None;
    }
    let at = gaps.len() / 100;
    let (_, gap, _) = gaps.select_nth_unstable(at);
    Some(*gap as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session profile of `processors` × `elapsed` seconds of Remaining Time.
    pub(crate) fn session(elapsed: f64, processors: u32) -> Profile {
        let tt = elapsed * f64::from(processors);
        Profile {
            tag: None,
            processors,
            elapsed,
            li: 0.0,
            fj: 0.0,
            ip: 0.0,
            sl: 0.0,
            wc: 0.0,
            rt: tt,
            tt,
            over: None,
            pc: None,
            ml: None,
            cl: None,
            rc: None,
            os: None,
            llc_misses: None,
            nivcsw: None,
            nivcsw_busy: None,
            executions: None,
            threads: Vec::new(),
            unattributed: (0.0, 0.0),
            durations: None,
            rt_nanos: crate::accum::ThreadNanos::ZERO,
        }
    }

    #[test]
    fn the_cost_is_events_times_the_cost_of_one_per_thread_and_in_all() {
        // p = 2 over 10 ms: tt 20 ms. 1e6 events at 10 ns: 10 ms, half of tt.
        let threads = [(ThreadId(0), 250_000), (ThreadId(3), 750_000)];
        let r = RecordingCost::new(
            &threads,
            Some((10.0, CostSource::Measured)),
            &session(0.01, 2),
        );
        assert_eq!(r.events, 1_000_000);
        assert!((r.cost_s.unwrap() - 0.01).abs() < 1e-12);
        assert!((r.share_of_tt.unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(r.threads[1].thread, 3);
        assert!((r.threads[1].share_of_elapsed.unwrap() - 0.75).abs() < 1e-12);
        assert_eq!(
            r.densest_threads(5)
                .iter()
                .map(|t| t.thread)
                .collect::<Vec<_>>(),
            [3, 0]
        );
        assert_eq!(
            r.line(true).unwrap(),
            "recording: 1000000 events, ~10.00 ns each (measured by pplib at the session's \
             end): 10.000 ms, 50.00% of tt"
        );
    }

    #[test]
    fn an_unknown_cost_gives_counts_only_and_no_line() {
        let r = RecordingCost::new(&[(ThreadId(0), 4)], None, &session(0.01, 1));
        assert_eq!((r.events, r.source), (4, CostSource::Unknown));
        assert_eq!((r.cost_s, r.share_of_tt), (None, None));
        assert_eq!(r.threads[0].share_of_elapsed, None);
        assert_eq!(r.line(true), None);
        // No time at all: counts and cost, no share.
        let r = RecordingCost::new(
            &[(ThreadId(0), 4)],
            Some((1.0, CostSource::Stated)),
            &session(0.0, 1),
        );
        assert_eq!(r.share_of_tt, None);
        assert!(r
            .line(true)
            .unwrap()
            .ends_with("ns each (stated by the trace): 0.004 µs"));
        let r = RecordingCost::new(
            &[(ThreadId(0), 500)],
            Some((1.0, CostSource::Stated)),
            &session(0.001, 1),
        );
        assert!(r
            .line(false)
            .unwrap()
            .ends_with(": 0.500 µs, 0.050% of the session's tt"));
    }

    #[test]
    fn small_shares_keep_three_decimals() {
        assert_eq!(percent(0.0084), "0.84%");
        assert_eq!(percent(0.00012), "0.012%");
        assert_eq!(percent(0.25), "25.00%");
    }
}
