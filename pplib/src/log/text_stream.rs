//! The streams of a text trace: one pass over the text, shared by the streams of a
//! [`crate::log::LogReader::streams`] call, parses every event line once and hands it to
//! its thread's queue; each stream takes its thread's events from its queue, reading on
//! only when the queue is empty. What is held is what the streams' consumer has not taken
//! yet: for a trace in time order (what converters write) and a consumer that merges the
//! threads by time (`pp`), a few events per thread, whatever the size of the file.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use super::batch::{CompactEvent, EventBatch, EventCode, EventSink};
use super::counter_check::{counter_error, CounterTrack};
use super::error::LogError;
use super::event::{Event, EventKind, Nanos, Position, ThreadId};
use super::text::{fields, read_thread, syntax, Lines, Lookup, TextLog};
use super::text_event::parse_event;

/// One thread's events read from the text and not yet taken by its stream.
#[derive(Debug, Default)]
struct Queue {
    events: EventBatch,
    /// The thread's first bad line (its stream ends with it, after `events`).
    error: Option<Box<LogError>>,
    /// The stream has ended or was dropped: the thread's lines are skipped.
    closed: bool,
}

/// Why the pass over the text stopped for every thread.
#[derive(Debug, Clone)]
enum Failure {
    /// The text could not be read again (`kind`, what the system said).
    Io(std::io::ErrorKind, String),
    /// The text differs from what was opened (the file changed since), at this line.
    Changed(u64),
}

/// The pass over the text shared by a set of streams.
struct Pump {
    lines: Option<Lines>,
    queues: Vec<Queue>,
    failed: Option<Failure>,
}

impl std::fmt::Debug for Pump {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pump")
            .field("line", &self.lines.as_ref().map(|l| l.line))
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl Pump {
    /// Moves the next events of thread `slot` into `out` (emptied first), reading on until
    /// there is one. `Ok(false)`: the thread has no more events (`out` empty); `Err`: its
    /// stream's final error, after the events it was given before.
    fn fill(&mut self, log: &TextLog, slot: usize, out: &mut EventBatch) -> Result<bool, LogError> {
        out.clear();
        loop {
            let q = &mut self.queues[slot];
            if !q.events.is_empty() {
                std::mem::swap(out, &mut q.events);
                return Ok(true);
            }
            if let Some(e) = q.error.take() {
                q.closed = true;
                return Err(*e);
            }
            if let Some(f) = &self.failed {
                self.queues[slot].closed = true;
                return Err(failure_error(&log.path, f));
            }
            if !self.read_line(log) {
                self.queues[slot].closed = true;
                return Ok(false);
            }
        }
    }

    /// Reads one line and queues its event (or error) for its thread; `false` at the end
    /// of the text.
    fn read_line(&mut self, log: &TextLog) -> bool {
        let path = &log.path;
        let Some(lines) = self.lines.as_mut() else {
            return false;
        };
        match lines.advance(path) {
            Ok(true) => {}
            Ok(false) => {
                self.lines = None;
                return false;
            }
            Err(LogError::Io { source, .. }) => {
                self.failed = Some(Failure::Io(source.kind(), source.to_string()));
                return true;
            }
            Err(_) => {
                self.failed = Some(Failure::Changed(lines.line));
                return true;
            }
        }
        let line_no = lines.line;
        let Ok(line) = std::str::from_utf8(&lines.buf) else {
            self.failed = Some(Failure::Changed(line_no));
            return true;
        };
        let mut f = fields(line);
        // Header lines, blank and comment lines (opening the trace checked them).
        let Some(time) = f
            .next()
            .filter(|h| h.starts_with(|c: char| c.is_ascii_digit()))
        else {
            return true;
        };
        let pos = Position::Line(line_no);
        let slot = read_thread(path, pos, f.next())
            .ok()
            .and_then(|t| log.slots.get(t));
        let Some(slot) = slot else {
            self.failed = Some(Failure::Changed(line_no));
            return true;
        };
        let q = &mut self.queues[slot];
        if q.closed || q.error.is_some() {
            return true;
        }
        match parse_event(path, pos, time, f, &mut Lookup(log)) {
            Ok((time, kind)) => q.events.push(&Event {
                time,
                thread: log.threads[slot],
                kind,
                pos,
            }),
            Err(e) => q.error = Some(Box::new(e)),
        }
        true
    }
}

/// The error every stream gives after the pass over the text failed.
fn failure_error(path: &Path, f: &Failure) -> LogError {
    match f {
        Failure::Io(kind, message) => LogError::Io {
            path: path.to_owned(),
            source: std::io::Error::new(*kind, message.clone()),
        },
        Failure::Changed(line) => syntax(
            path,
            Position::Line(*line),
            "the trace as it was when opened",
            "a line that differs (the file changed while it was read)",
        ),
    }
}

/// The pass over the text of one set of streams.
#[derive(Debug, Clone)]
pub(crate) struct SharedPump(Arc<Mutex<Pump>>);

impl SharedPump {
    /// A pass from the start of the text of `log`, for streams of all its threads.
    pub(crate) fn new(log: &TextLog) -> SharedPump {
        let (lines, failed) = match log.origin.reopen(&log.path) {
            Ok(read) => (Some(Lines::new(read)), None),
            Err(e) => (None, Some(Failure::Io(e.kind(), e.to_string()))),
        };
        SharedPump(Arc::new(Mutex::new(Pump {
            lines,
            queues: (0..log.threads.len()).map(|_| Queue::default()).collect(),
            failed,
        })))
    }

    fn lock(&self) -> MutexGuard<'_, Pump> {
        // A stream that panicked while holding the lock left the queues consistent (each
        // step of the pass completes before the next).
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The events of one thread of a text trace.
#[derive(Debug)]
pub(crate) struct TextStream {
    log: Arc<TextLog>,
    pump: SharedPump,
    slot: usize,
    thread: ThreadId,
    /// Events taken from the queue, from `next` on not yet given.
    taken: EventBatch,
    next: usize,
    next_value: usize,
    /// The stream's final error, after `taken`.
    error: Option<LogError>,
    /// The queue has nothing more (after `taken` and `error`).
    drained: bool,
    last: Option<Nanos>,
    counters: CounterTrack,
}

impl TextStream {
    pub(crate) fn new(log: Arc<TextLog>, pump: SharedPump, thread: ThreadId) -> TextStream {
        let slot = log.slots.get(thread);
        TextStream {
            counters: CounterTrack::new(Arc::clone(&log.counter_rules)),
            slot: slot.unwrap_or(0),
            drained: slot.is_none(),
            log,
            pump,
            thread,
            taken: EventBatch::default(),
            next: 0,
            next_value: 0,
            error: None,
            last: None,
        }
    }

    /// The next event (checked: time order, counters) with the range of its counter values
    /// in `taken`; `None` at the end of the thread.
    fn advance(&mut self) -> Option<Result<(CompactEvent, std::ops::Range<usize>), LogError>> {
        loop {
            if let Some(&e) = self.taken.events().get(self.next) {
                self.next += 1;
                let n = if e.code == EventCode::Counters {
                    e.arg as usize
                } else {
                    0
                };
                let values = self.next_value..self.next_value + n;
                self.next_value += n;
                return Some(self.check(e, values));
            }
            if let Some(e) = self.error.take() {
                self.drained = true;
                return Some(Err(e));
            }
            if self.drained {
                return None;
            }
            self.next = 0;
            self.next_value = 0;
            let log = Arc::clone(&self.log);
            match self.pump.lock().fill(&log, self.slot, &mut self.taken) {
                Ok(true) => {}
                Ok(false) => self.drained = true,
                Err(e) => self.error = Some(e),
            }
        }
    }

    /// The checks of the stream on event `e` (values: its counter values in `taken`).
    fn check(
        &mut self,
        e: CompactEvent,
        values: std::ops::Range<usize>,
    ) -> Result<(CompactEvent, std::ops::Range<usize>), LogError> {
        let pos = e.pos();
        if let Some(previous) = self.last {
            if e.time < previous {
                return Err(LogError::TimeBackwards {
                    path: self.log.path.clone(),
                    pos,
                    thread: self.thread,
                    time: e.time,
                    previous,
                });
            }
        }
        if e.code == EventCode::Counters {
            let v = &self.taken.counter_values()[values.clone()];
            if let Err(detail) = self.counters.sample(v, e.time.0) {
                return Err(counter_error(
                    &self.log.path,
                    pos,
                    self.thread,
                    e.time,
                    detail,
                ));
            }
        }
        self.last = Some(e.time);
        Ok((e, values))
    }

    /// The next event of the thread; `None` at its end.
    pub(crate) fn next_event(&mut self) -> Option<Result<Event, LogError>> {
        Some(self.advance()?.map(|(e, values)| Event {
            time: e.time,
            thread: self.thread,
            kind: match e.code {
                EventCode::Counters => {
                    EventKind::Counters(self.taken.counter_values()[values].to_vec())
                }
                _ => e.kind(&[]),
            },
            pos: e.pos(),
        }))
    }

    /// Hands at most `limit` events to `sink` (see [`crate::log::ThreadStream::next_into`]).
    pub(crate) fn next_into<K: EventSink>(
        &mut self,
        sink: &mut K,
        limit: usize,
    ) -> Result<usize, LogError> {
        let mut n = 0;
        while n < limit {
            match self.advance() {
                Some(Ok((e, values))) => {
                    n += 1;
                    if !sink.event(e, &self.taken.counter_values()[values]) {
                        break;
                    }
                }
                Some(Err(e)) => return Err(e),
                None => break,
            }
        }
        Ok(n)
    }
}

impl Drop for TextStream {
    /// The pass stops keeping this thread's lines.
    fn drop(&mut self) {
        if !self.drained || self.error.is_some() {
            let mut pump = self.pump.lock();
            if let Some(q) = pump.queues.get_mut(self.slot) {
                *q = Queue {
                    closed: true,
                    ..Queue::default()
                };
            }
        }
    }
}
