//! `--timeline`: a Chrome trace-event JSON file (`{"traceEvents":[...]}`) that opens in
//! ui.perfetto.dev (or chrome://tracing).
//!
//! Process 1 holds, per log thread N, two tracks:
//! - `thread N state`: complete events `Busy`, `Wasted`, `Idle`, `Spinning` covering the
//!   time the thread was present (Busy time inside a task is written when the task ends,
//!   as `Wasted` if it ended wasted);
//! - `thread N constructs`: nested complete events for each construct, named `session`,
//!   the fragment name, `par`, `task` / `task (wasted)`, `wait KIND`.
//!
//! and a counter track `processors` with four series, the processors in each state over
//! time: `li` and `ip` (idle while work exists / not), `sl` (spinning), `busy` (Busy,
//! including work that later proves wasted). Times are microseconds from the log's first
//! event (fractional: nanosecond precision).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use pplib::log::{Nanos, ThreadId};
use serde_json::json;

use crate::error::PpError;
use crate::stack::{Construct, Frame, ThreadState};
use crate::sweep::{Observer, Rates};

/// Writes the timeline while the sweep runs.
#[derive(Debug)]
pub struct Timeline {
    path: PathBuf,
    out: BufWriter<File>,
    names: SliceNames,
    threads: Vec<ThreadId>,
    origin: Option<u64>,
    first: bool,
    /// Rates at the latest time, written once time moves on (one sample per instant).
    rates_at: Option<(u64, Rates)>,
    last_rates: Option<Rates>,
    /// Per thread: one buffer of Busy intervals per open task (outermost first).
    pending: Vec<Vec<Vec<(u64, u64)>>>,
    error: Option<std::io::Error>,
}

const PID: u32 = 1;

/// A name outside the string table, as a JSON string.
const UNDEFINED: &str = "\"<undefined>\"";
const UNDEFINED_WAIT: &str = "\"wait <undefined>\"";

/// The state slices' names, as JSON strings.
const BUSY: &str = "\"Busy\"";
const WASTED: &str = "\"Wasted\"";
const IDLE: &str = "\"Idle\"";
const SPINNING: &str = "\"Spinning\"";

/// The names of construct slices, as JSON strings.
#[derive(Debug, Default)]
struct SliceNames {
    /// Per name id: the fragment slice's name...
    frags: Vec<String>,
    /// ...and the wait slice's (`wait KIND`).
    waits: Vec<String>,
}

impl SliceNames {
    fn new(names: &[String]) -> SliceNames {
        SliceNames {
            frags: names.iter().map(|n| json_string(n)).collect(),
            waits: names
                .iter()
                .map(|n| json_string(&format!("wait {n}")))
                .collect(),
        }
    }

    /// The name of a construct's slice.
    fn of(&self, c: Construct, wasted: bool) -> &str {
        match c {
            Construct::Session => "\"session\"",
            Construct::Frag(n) => self.frags.get(n.0 as usize).map_or(UNDEFINED, |s| s),
            Construct::Par => "\"par\"",
            Construct::Task if wasted => "\"task (wasted)\"",
            Construct::Task => "\"task\"",
            Construct::Wait(n) => self.waits.get(n.0 as usize).map_or(UNDEFINED_WAIT, |s| s),
        }
    }
}

/// A JSON string of `s`.
fn json_string(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// Writes `x` as `serde_json` writes an `f64`.
fn write_number(out: &mut impl Write, x: f64) -> std::io::Result<()> {
    serde_json::to_writer(out, &x).map_err(std::io::Error::other)
}

impl Timeline {
    /// Creates `path` and writes the metadata (track names) for `threads`.
    pub fn create(
        path: &Path,
        log_name: &str,
        names: Vec<String>,
        threads: Vec<ThreadId>,
    ) -> Result<Timeline, PpError> {
        let file = File::create(path).map_err(|e| PpError::Output {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let mut t = Timeline {
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 20, file),
            names: SliceNames::new(&names),
            pending: vec![Vec::new(); threads.len()],
            threads,
            origin: None,
            first: true,
            rates_at: None,
            last_rates: None,
            error: None,
        };
        t.raw("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
        t.emit(json!({"name": "process_name", "ph": "M", "pid": PID,
                      "args": {"name": format!("pp: {log_name}")}}));
        for slot in 0..t.threads.len() {
            let id = t.threads[slot];
            let (state, cons) = (Self::state_tid(slot), Self::construct_tid(slot));
            t.emit(
                json!({"name": "thread_name", "ph": "M", "pid": PID, "tid": state,
                          "args": {"name": format!("thread {id} state")}}),
            );
            t.emit(
                json!({"name": "thread_sort_index", "ph": "M", "pid": PID, "tid": state,
                          "args": {"sort_index": 2 * slot}}),
            );
            t.emit(
                json!({"name": "thread_name", "ph": "M", "pid": PID, "tid": cons,
                          "args": {"name": format!("thread {id} constructs")}}),
            );
            t.emit(
                json!({"name": "thread_sort_index", "ph": "M", "pid": PID, "tid": cons,
                          "args": {"sort_index": 2 * slot + 1}}),
            );
        }
        Ok(t)
    }

    fn state_tid(slot: usize) -> usize {
        2 * slot + 1
    }

    fn construct_tid(slot: usize) -> usize {
        2 * slot + 2
    }

    fn raw(&mut self, s: &str) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(s.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    /// The separator before the next trace event.
    fn separate(&mut self) {
        let sep = if self.first { "" } else { ",\n" };
        self.first = false;
        self.raw(sep);
    }

    /// Writes a trace event built as a JSON value (metadata: a few per thread).
    fn emit(&mut self, v: serde_json::Value) {
        self.separate();
        let text = v.to_string();
        self.raw(&text);
    }

    fn us(&mut self, t: u64) -> f64 {
        let origin = *self.origin.get_or_insert(t);
        t.saturating_sub(origin) as f64 / 1e3
    }

    /// Writes a complete event (`"ph":"X"`). The bulk of a timeline: written straight to
    /// the file, with the bytes `serde_json` gives for the same object (keys in order, numbers
    /// and the name in its formatting); `name` is already a JSON string.
    fn slice(&mut self, tid: usize, name: &str, cat: &str, start: u64, end: u64) {
        let ts = self.us(start);
        let dur = end.saturating_sub(start) as f64 / 1e3;
        self.separate();
        if self.error.is_none() {
            let result = write!(self.out, "{{\"cat\":\"{cat}\",\"dur\":")
                .and_then(|()| write_number(&mut self.out, dur))
                .and_then(|()| {
                    write!(
                        self.out,
                        ",\"name\":{name},\"ph\":\"X\",\"pid\":{PID},\"tid\":{tid},\"ts\":"
                    )
                })
                .and_then(|()| write_number(&mut self.out, ts))
                .and_then(|()| self.out.write_all(b"}"));
            if let Err(e) = result {
                self.error = Some(e);
            }
        }
    }

    fn flush_rates(&mut self) {
        if let Some((t, r)) = self.rates_at.take() {
            if self.last_rates != Some(r) {
                self.last_rates = Some(r);
                let ts = self.us(t);
                self.emit(
                    json!({"name": "processors", "ph": "C", "ts": ts, "pid": PID,
                                 "args": {"li": r.li, "ip": r.ip, "sl": r.sl, "busy": r.busy}}),
                );
            }
        }
    }

    /// Ends the JSON document and flushes the file.
    pub fn finish(mut self) -> Result<(), PpError> {
        self.flush_rates();
        self.raw("\n]}\n");
        if self.error.is_none() {
            if let Err(e) = self.out.flush() {
                self.error = Some(e);
            }
        }
        match self.error {
            None => Ok(()),
            Some(e) => Err(PpError::Output {
                path: self.path,
                message: e.to_string(),
            }),
        }
    }
}

impl Observer for Timeline {
    fn segment(
        &mut self,
        slot: usize,
        state: ThreadState,
        in_task: bool,
        start: Nanos,
        end: Nanos,
    ) {
        let tid = Self::state_tid(slot);
        match state {
            ThreadState::Busy if in_task => match self.pending[slot].last_mut() {
                Some(buf) => buf.push((start.0, end.0)),
                None => self.slice(tid, BUSY, "state", start.0, end.0),
            },
            ThreadState::Busy => self.slice(tid, BUSY, "state", start.0, end.0),
            ThreadState::Idle => self.slice(tid, IDLE, "state", start.0, end.0),
            ThreadState::Spinning => self.slice(tid, SPINNING, "state", start.0, end.0),
        }
    }

    fn opened(&mut self, slot: usize, frame: &Frame) {
        self.us(frame.begin.0);
        if frame.construct == Construct::Task {
            self.pending[slot].push(Vec::new());
        }
    }

    fn closed(&mut self, slot: usize, frame: &Frame, end: Nanos, wasted: bool) {
        if frame.construct == Construct::Task {
            let buf = self.pending[slot].pop().unwrap_or_default();
            let name = if wasted { WASTED } else { BUSY };
            for (s, e) in buf {
                self.slice(Self::state_tid(slot), name, "state", s, e);
            }
        }
        // The names are taken out of `self` while the slice is written through it.
        let names = std::mem::take(&mut self.names);
        self.slice(
            Self::construct_tid(slot),
            names.of(frame.construct, wasted),
            "construct",
            frame.begin.0,
            end.0,
        );
        self.names = names;
    }

    fn rates(&mut self, time: Nanos, r: Rates) {
        if let Some((t, _)) = self.rates_at {
            if t != time.0 {
                self.flush_rates();
            }
        }
        self.rates_at = Some((time.0, r));
    }
}
