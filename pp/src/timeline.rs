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
    names: Vec<String>,
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
            out: BufWriter::new(file),
            names,
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

    fn emit(&mut self, v: serde_json::Value) {
        let sep = if self.first { "" } else { ",\n" };
        self.first = false;
        let text = format!("{sep}{v}");
        self.raw(&text);
    }

    fn us(&mut self, t: u64) -> f64 {
        let origin = *self.origin.get_or_insert(t);
        t.saturating_sub(origin) as f64 / 1e3
    }

    fn slice(&mut self, tid: usize, name: &str, cat: &str, start: u64, end: u64) {
        let ts = self.us(start);
        let dur = end.saturating_sub(start) as f64 / 1e3;
        self.emit(
            json!({"name": name, "cat": cat, "ph": "X", "ts": ts, "dur": dur,
                         "pid": PID, "tid": tid}),
        );
    }

    fn construct_name(&self, c: Construct, wasted: bool) -> String {
        let name = |id: pplib::log::NameId| {
            self.names
                .get(id.0 as usize)
                .cloned()
                .unwrap_or_else(|| "<undefined>".to_owned())
        };
        match c {
            Construct::Session => "session".to_owned(),
            Construct::Frag(n) => name(n),
            Construct::Par => "par".to_owned(),
            Construct::Task if wasted => "task (wasted)".to_owned(),
            Construct::Task => "task".to_owned(),
            Construct::Wait(n) => format!("wait {}", name(n)),
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
                None => self.slice(tid, "Busy", "state", start.0, end.0),
            },
            ThreadState::Busy => self.slice(tid, "Busy", "state", start.0, end.0),
            ThreadState::Idle => self.slice(tid, "Idle", "state", start.0, end.0),
            ThreadState::Spinning => self.slice(tid, "Spinning", "state", start.0, end.0),
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
            let name = if wasted { "Wasted" } else { "Busy" };
            for (s, e) in buf {
                self.slice(Self::state_tid(slot), name, "state", s, e);
            }
        }
        let name = self.construct_name(frame.construct, wasted);
        self.slice(
            Self::construct_tid(slot),
            &name,
            "construct",
            frame.begin.0,
            end.0,
        );
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
