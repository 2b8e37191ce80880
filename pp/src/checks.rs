//! Checks of how a run was set up and what happened around it, reported as warnings (on
//! stderr by the `pp` command, in `warnings` of `--json`):
//!
//! - **p against the threads of the log.** Work is recorded by the threads that opened a
//!   task (in a log without tasks: the threads that were ever Busy). More of them than p
//!   means the program ran more workers than the profile has processors: their Busy time
//!   beyond p is counted as oversubscription (`over`) and the idle time is misjudged.
//!   Fewer threads than p (counting every thread with an event) means processors that no
//!   thread ever used: their whole time is idle (`li`/`ip`), a loss of the set-up, not of
//!   the program. Either way the fix is p = the number of threads the program really runs
//!   (`PPLIB_PROCESSORS`, the rayon pool size, `OMP_NUM_THREADS`).
//! - **Disturbance**, from the session profile's scheduling counters: `os` over its limit
//!   of `tt`, or involuntary context switches above a rate per Busy second
//!   ([`crate::disturbance`], which says where the limits come from and when a run is
//!   only preempted rather than disturbed).
//! - **The recording's own cost** ([`crate::recording`]): the events recorded times the
//!   cost of one event above [`RECORDING_SHARE_LIMIT`] of `tt`. The categories then
//!   describe the recorded program as much as the program that will ship; the warning names
//!   the threads that recorded most and how to record coarser.

use crate::recording::{percent, CostSource, RecordingCost};
use crate::sweep::ThreadCounts;

/// A recording that took more than this share of `tt` (its direct cost alone) is warned
/// about. The same limit as the time Busy threads wait for a processor
/// ([`crate::disturbance::OS_SHARE_LIMIT`]): the
/// time-dependent categories move by about as much between quiet repetitions, so a larger
/// share changes what they say. And the estimate is a lower bound of the dilation (the
/// cache lines and lost overlap a recording also costs are not in it), so that at 2 % the
/// run may well be dilated by more (pplib's `overhead` benchmark aims at 3 % for its
/// loop of 1 µs items).
pub const RECORDING_SHARE_LIMIT: f64 = 0.02;

/// The threads a recording warning names at most.
const DENSEST_NAMED: usize = 3;

/// What to do about a recording that costs too much (the advice of docs/event-logs.md,
/// "The cost of recording").
const RECORD_COARSER: &str = "record coarser: one task per rayon run of items \
     (pp_for_each_run or pp_for_each) instead of one per item (pp_for_each_item), no \
     fragments inside the hot loop (a fragment around the loop, or per iteration of an \
     outer loop), fewer joins, tasks and waits per unit of work (docs/event-logs.md, \
     \"The cost of recording\")";

const SET_P: &str = "set p to the number of threads the program runs (PPLIB_PROCESSORS, \
                     the rayon pool size, OMP_NUM_THREADS)";

/// Warnings about p against the threads that appeared in the log and recorded work.
pub fn thread_count_warnings(processors: u32, threads: &ThreadCounts) -> Vec<String> {
    let mut out = Vec::new();
    if threads.appeared == 0 {
        return out;
    }
    let (workers, what) = if threads.ran_tasks > 0 {
        (threads.ran_tasks, "ran tasks")
    } else {
        (threads.busy, "were Busy")
    };
    if workers > processors {
        out.push(format!(
            "{workers} threads {what} but p = {processors}: Busy time beyond p processors is \
             counted as oversubscription and idle time is misjudged; {SET_P}"
        ));
    }
    if threads.appeared < processors {
        let missing = processors - threads.appeared;
        out.push(format!(
            "only {} thread(s) appeared but p = {processors}: {missing} processor(s) never had \
             a thread and all their time counts as idle (li, ip); {SET_P}",
            threads.appeared
        ));
    }
    out
}

/// The warning that the recording took more than [`RECORDING_SHARE_LIMIT`] of `tt` (none
/// when it did not, or when its cost is unknown).
pub fn recording_warnings(recording: &RecordingCost) -> Vec<String> {
    let (Some(share), Some(ns)) = (recording.share_of_tt, recording.event_cost_ns) else {
        return Vec::new();
    };
    if share <= RECORDING_SHARE_LIMIT {
        return Vec::new();
    }
    let threads: Vec<String> = recording
        .densest_threads(DENSEST_NAMED)
        .iter()
        .map(|t| {
            let of_time = t.share_of_elapsed.map_or_else(String::new, |s| {
                format!(", {} of the elapsed time", percent(s))
            });
            format!("thread {} ({} events{of_time})", t.thread, t.events)
        })
        .collect();
    let bound = match recording.source {
        CostSource::LogGaps => "",
        _ => ": a lower bound of the run's dilation",
    };
    vec![format!(
        "the recording itself took {} of tt ({} events at ~{ns:.2} ns each, {}{bound}), \
         more than {:.0}%: the categories describe the recorded program as much as the \
         program; most events on {}; {RECORD_COARSER}",
        percent(share),
        recording.events,
        recording.source.describe(),
        RECORDING_SHARE_LIMIT * 100.0,
        threads.join(", "),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(appeared: u32, ran_tasks: u32, busy: u32) -> ThreadCounts {
        ThreadCounts {
            appeared,
            ran_tasks,
            busy,
        }
    }

    #[test]
    fn p_matching_the_workers_gives_no_warning() {
        // main thread outside the pool (Busy, no task) + 2 workers, p = 2.
        assert!(thread_count_warnings(2, &counts(3, 2, 3)).is_empty());
        assert!(thread_count_warnings(4, &counts(4, 4, 4)).is_empty());
        assert!(thread_count_warnings(4, &counts(0, 0, 0)).is_empty());
    }

    #[test]
    fn more_workers_than_p() {
        let w = thread_count_warnings(2, &counts(3, 3, 3));
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("3 threads ran tasks but p = 2"),
            "{}",
            w[0]
        );
        // Without tasks, Busy threads are the workers.
        let w = thread_count_warnings(2, &counts(3, 0, 3));
        assert!(
            w[0].starts_with("3 threads were Busy but p = 2"),
            "{}",
            w[0]
        );
    }

    #[test]
    fn fewer_threads_than_p() {
        let w = thread_count_warnings(2, &counts(1, 1, 1));
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("only 1 thread(s) appeared but p = 2: 1 processor(s)"),
            "{}",
            w[0]
        );
        assert!(w[0].contains("OMP_NUM_THREADS"));
    }
}
