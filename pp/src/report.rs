//! The `--json` document.
//!
//! ```text
//! {
//!   "pp_version": "0.1.0",
//!   "logs": [                                  one entry per LOG argument
//!     {
//!       "log": "run.pplog",                    the file
//!       "processors": 4,                       p
//!       "clock": "CLOCK_MONOTONIC",            clock of the time stamps
//!       "events": 12345,                       events read
//!       "threads": [0, 1, 2, 3],               thread ids of the log
//!       "warnings": ["..."],                   non-fatal findings (also on stderr)
//!       "thread_counts": {"appeared": 3,       threads with an event,
//!                         "ran_tasks": 3,      threads that opened a task,
//!                         "busy": 3},          threads ever Busy (the check of p)
//!       "disturbed": false,                    whether the run was disturbed: os over
//!                                              2% of tt, or more involuntary context
//!                                              switches per Busy second than 1000 (10
//!                                              without cpu_ns counters); see the
//!                                              warnings and pp::disturbance
//!       "recording": {                         what the recording itself cost
//!         "events": 120000,                    events of all threads
//!         "event_cost_ns": 9.48 | null,        ns per recorded event (null: unknown)
//!         "source": "measured",                where it came from: "measured" (by pplib
//!                                              at the session's end), "stated" (a text
//!                                              trace's event_cost_ns line), "log_gaps"
//!                                              (estimated from the log's closest events,
//!                                              an upper bound), "unknown"
//!         "cost_s": 0.00114 | null,            processor-seconds: events × event_cost_ns
//!         "share_of_tt": 0.0084 | null,        that share of the session's tt (a lower
//!                                              bound of the dilation when measured)
//!         "threads": [{"thread", "events", "cost_s", "share_of_elapsed"}]
//!                                              per thread: its events, their cost and its
//!                                              share of the session's elapsed time
//!       },
//!       "profiles": [                          the session first, then fragments
//!         {
//!           "tag": null | "NAME",              null for the session
//!           "processors": 4,
//!           "elapsed": 1.23,                   window length, seconds
//!           "li", "fj", "ip", "sl", "wc", "rt", "tt": processor-seconds (always present;
//!                                              fj, fork/join latency, is a part of li)
//!           "over", "pc", "ml", "cl", "rc", "os": processor-seconds, only when measured
//!           "llc_misses": 1.2e6,               misses during Busy time (with counters)
//!           "nivcsw": 12.0,                    involuntary context switches during Busy
//!                                              time (with nivcsw counters)
//!           "nivcsw_busy": 1.9,                Busy seconds those switches were counted in
//!           "executions": 13,                  fragments only: times the fragment ran
//!                                              (overlapping executions count once)
//!           "threads": [{"thread", "li", "ip", "sl", "wc", "rt"}],   per-thread rows
//!           "unattributed": [li, ip],          idle processor-seconds without an idle thread
//!           "durations": {"tasks": {"count", "p50", "p90", "p99", "max"} | null,
//!                         "waits": ... },      seconds; only with --histograms
//!           "record": "n=1 p=4 li=...",        the record line (docs/records.md)
//!           "diagnosis": "primary loss: ..."   the one-line diagnosis
//!         }
//!       ]
//!     }
//!   ]
//! }
//! ```

use serde::Serialize;

use crate::analysis::Analysis;
use crate::profile::Profile;
use crate::record::format_record;
use crate::recording::RecordingCost;
use crate::table::diagnosis;

/// The whole `--json` document.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// Version of `pp`.
    pub pp_version: &'static str,
    /// One entry per log.
    pub logs: Vec<LogReport<'a>>,
}

/// One log in the JSON document.
#[derive(Debug, Serialize)]
pub struct LogReport<'a> {
    /// The file.
    pub log: String,
    /// p.
    pub processors: u32,
    /// Clock of the time stamps.
    pub clock: &'a str,
    /// Events read.
    pub events: u64,
    /// Thread ids.
    pub threads: &'a [u32],
    /// Non-fatal findings.
    pub warnings: &'a [String],
    /// The threads that appeared and recorded work (the check of p).
    pub thread_counts: crate::sweep::ThreadCounts,
    /// Whether the run was disturbed ([`crate::disturbance`]).
    pub disturbed: bool,
    /// What the recording itself cost.
    pub recording: &'a RecordingCost,
    /// The profiles.
    pub profiles: Vec<ProfileReport<'a>>,
}

/// One profile in the JSON document: the [`Profile`] fields plus its record and diagnosis.
#[derive(Debug, Serialize)]
pub struct ProfileReport<'a> {
    /// The profile.
    #[serde(flatten)]
    pub profile: &'a Profile,
    /// Its record line.
    pub record: String,
    /// Its one-line diagnosis.
    pub diagnosis: String,
}

impl<'a> Report<'a> {
    /// The document for `analyses`, with `note` tokens in the record lines.
    pub fn new(analyses: &'a [Analysis], note: &[String]) -> Report<'a> {
        Report {
            pp_version: env!("CARGO_PKG_VERSION"),
            logs: analyses
                .iter()
                .map(|a| LogReport {
                    log: a.log.display().to_string(),
                    processors: a.processors,
                    clock: &a.clock,
                    events: a.events,
                    threads: &a.threads,
                    warnings: &a.warnings,
                    thread_counts: a.thread_counts,
                    disturbed: a.disturbed,
                    recording: &a.recording,
                    profiles: a
                        .profiles
                        .iter()
                        .map(|p| ProfileReport {
                            profile: p,
                            record: format_record(note, p),
                            diagnosis: diagnosis(p),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// Pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the report serializes")
    }
}
