//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use pplib::log::{Event, EventKind, LogReader};

/// One session records at a time per process: tests that record take this lock.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An event as `.pptrace` text (without time and thread), e.g. `frag_begin solve`.
pub fn describe(reader: &LogReader, kind: &EventKind) -> String {
    match kind {
        EventKind::SessionBegin => "session_begin".into(),
        EventKind::SessionEnd => "session_end".into(),
        EventKind::FragBegin(n) => format!("frag_begin {}", reader.name(*n)),
        EventKind::FragEnd(n) => format!("frag_end {}", reader.name(*n)),
        EventKind::ParBegin => "par_begin".into(),
        EventKind::ParEnd => "par_end".into(),
        EventKind::TaskBegin => "task_begin".into(),
        EventKind::TaskEnd { wasted: false } => "task_end".into(),
        EventKind::TaskEnd { wasted: true } => "task_end wasted".into(),
        EventKind::WaitBegin(n) => format!("wait_begin {}", reader.name(*n)),
        EventKind::WaitEnd => "wait_end".into(),
        EventKind::Counters(v) => {
            let mut s = String::from("counters");
            for (id, value) in v {
                s += &format!(" {}={value}", reader.header().counters[id.0 as usize]);
            }
            s
        }
    }
}

/// A thread's events, read back: its scheduling samples apart from the others.
pub struct ThreadLog {
    pub name: Option<String>,
    /// Every event but the scheduling samples.
    pub events: Vec<Event>,
    pub text: Vec<String>,
    /// The scheduling samples: `counters` events that carry `nivcsw` (pplib takes them at
    /// a thread's first event, par boundaries, hand-offs and ends, whatever else records).
    pub sched: Vec<Event>,
}

/// True for a scheduling sample of `reader`'s log.
pub fn is_sched_sample(reader: &LogReader, kind: &EventKind) -> bool {
    matches!(kind, EventKind::Counters(v)
        if v.iter().any(|(id, _)| reader.header().counters[id.0 as usize] == "nivcsw"))
}

/// Reads a complete log: every thread's events (panics on any read error).
pub fn read(path: &Path) -> (LogReader, Vec<ThreadLog>) {
    let reader = LogReader::open(path).unwrap_or_else(|e| panic!("{e}"));
    assert!(reader.truncated().is_none(), "log unexpectedly truncated");
    let threads = reader
        .streams()
        .into_iter()
        .map(|s| {
            let name = reader.thread_name(s.thread()).map(str::to_owned);
            let (sched, events): (Vec<Event>, Vec<Event>) = s
                .map(|e| e.unwrap_or_else(|e| panic!("{e}")))
                .partition(|e| is_sched_sample(&reader, &e.kind));
            let text = events.iter().map(|e| describe(&reader, &e.kind)).collect();
            ThreadLog {
                name,
                events,
                text,
                sched,
            }
        })
        .collect();
    (reader, threads)
}

/// Asserts that a thread's begin/end events nest properly (the check `pp` makes).
pub fn assert_nested(text: &[String]) {
    let mut stack: Vec<String> = Vec::new();
    for e in text {
        let (what, name) = e.split_once(' ').unwrap_or((e.as_str(), ""));
        if let Some(construct) = what.strip_suffix("_begin") {
            stack.push(format!(
                "{construct}{}",
                if construct == "frag" { name } else { "" }
            ));
        } else if let Some(construct) = what.strip_suffix("_end") {
            let want = format!("{construct}{}", if construct == "frag" { name } else { "" });
            assert_eq!(
                stack.pop().as_deref(),
                Some(want.as_str()),
                "unmatched {e} in {text:?}"
            );
        }
    }
    assert!(stack.is_empty(), "unclosed {stack:?} in {text:?}");
}
