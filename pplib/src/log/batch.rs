//! Events in batches, without heap data: the fast way to read a log.
//!
//! [`crate::log::ThreadStream`] yields one [`Event`] at a time; an [`EventKind::Counters`]
//! event carries a `Vec`, so every event is a large value. A consumer that reads millions
//! of events (`pp`) asks the stream for a batch instead
//! ([`crate::log::ThreadStream::next_batch`]): the stream decodes up to
//! [`EventBatch::CAPACITY`] events into a reused [`EventBatch`] of [`CompactEvent`]s (24
//! bytes each, `Copy`), with the values of `counters` events in a side list. Both ways of
//! reading give the same events and the same errors, at the same positions.
//!
//! ```
//! use pplib::log::{EventBatch, EventCode, LogReader};
//!
//! let trace = "pptrace 1\nprocessors 1\n0 0 session_begin\n5 0 counters cpu_ns=4\n9 0 session_end\n";
//! let reader = LogReader::from_bytes(trace.as_bytes().to_vec(), "example.pptrace").unwrap();
//! let mut stream = reader.streams().remove(0);
//! let mut batch = EventBatch::new();
//! stream.next_batch(&mut batch).unwrap();
//! let codes: Vec<_> = batch.events().iter().map(|e| e.code).collect();
//! assert_eq!(codes, [EventCode::SessionBegin, EventCode::Counters, EventCode::SessionEnd]);
//! let (_, values) = batch.iter().nth(1).unwrap();
//! assert_eq!(values[0].1, 4);
//! stream.next_batch(&mut batch).unwrap();
//! assert!(batch.is_empty()); // the end of the stream
//! ```

use super::event::{CounterId, Event, EventKind, NameId, Nanos, Position};

/// What an event is, without its arguments (the codes of the binary format).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum EventCode {
    /// `session_begin`.
    SessionBegin = 0,
    /// `session_end`.
    SessionEnd = 1,
    /// `frag_begin NAME` (the name id is [`CompactEvent::arg`]).
    FragBegin = 2,
    /// `frag_end NAME` (the name id is [`CompactEvent::arg`]).
    FragEnd = 3,
    /// `par_begin`.
    ParBegin = 4,
    /// `par_end`.
    ParEnd = 5,
    /// `task_begin`.
    TaskBegin = 6,
    /// `task_end`.
    TaskEnd = 7,
    /// `task_end wasted`.
    TaskEndWasted = 8,
    /// `wait_begin KIND` (the kind's name id is [`CompactEvent::arg`]).
    WaitBegin = 9,
    /// `wait_end`.
    WaitEnd = 10,
    /// `counters` (the number of values is [`CompactEvent::arg`]).
    Counters = 11,
}

impl EventCode {
    /// The code of a binary-format event code byte, if it is one.
    #[inline]
    pub fn from_u8(code: u8) -> Option<EventCode> {
        Some(match code {
            0 => EventCode::SessionBegin,
            1 => EventCode::SessionEnd,
            2 => EventCode::FragBegin,
            3 => EventCode::FragEnd,
            4 => EventCode::ParBegin,
            5 => EventCode::ParEnd,
            6 => EventCode::TaskBegin,
            7 => EventCode::TaskEnd,
            8 => EventCode::TaskEndWasted,
            9 => EventCode::WaitBegin,
            10 => EventCode::WaitEnd,
            11 => EventCode::Counters,
            _ => return None,
        })
    }

    /// The code and argument of an event kind (for counters: the number of values).
    pub fn of(kind: &EventKind) -> (EventCode, u32) {
        match kind {
            EventKind::SessionBegin => (EventCode::SessionBegin, 0),
            EventKind::SessionEnd => (EventCode::SessionEnd, 0),
            EventKind::FragBegin(n) => (EventCode::FragBegin, n.0),
            EventKind::FragEnd(n) => (EventCode::FragEnd, n.0),
            EventKind::ParBegin => (EventCode::ParBegin, 0),
            EventKind::ParEnd => (EventCode::ParEnd, 0),
            EventKind::TaskBegin => (EventCode::TaskBegin, 0),
            EventKind::TaskEnd { wasted: false } => (EventCode::TaskEnd, 0),
            EventKind::TaskEnd { wasted: true } => (EventCode::TaskEndWasted, 0),
            EventKind::WaitBegin(n) => (EventCode::WaitBegin, n.0),
            EventKind::WaitEnd => (EventCode::WaitEnd, 0),
            EventKind::Counters(v) => (
                EventCode::Counters,
                u32::try_from(v.len()).unwrap_or(u32::MAX),
            ),
        }
    }
}

/// The position of a compact event: a byte offset, or (top bit set) a line number.
const LINE_BIT: u64 = 1 << 63;

/// One event of an [`EventBatch`]: 24 bytes, no heap data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactEvent {
    /// When it happened (nanoseconds, converted with the log's time scale).
    pub time: Nanos,
    /// Where it was read from (see [`CompactEvent::pos`]).
    at: u64,
    /// The name id of `frag_begin`, `frag_end` and `wait_begin`; the number of values of
    /// `counters` (in the batch's counter list, after those of earlier `counters` events);
    /// 0 otherwise.
    pub arg: u32,
    /// What happened.
    pub code: EventCode,
}

impl CompactEvent {
    /// An event at byte offset `offset` of a binary log.
    #[inline]
    pub fn at_offset(time: Nanos, code: EventCode, arg: u32, offset: u64) -> CompactEvent {
        CompactEvent {
            time,
            at: offset & !LINE_BIT,
            arg,
            code,
        }
    }

    /// An event read from `pos`.
    pub fn at(time: Nanos, code: EventCode, arg: u32, pos: Position) -> CompactEvent {
        let at = match pos {
            Position::Offset(o) => o & !LINE_BIT,
            Position::Line(l) => (l & !LINE_BIT) | LINE_BIT,
        };
        CompactEvent {
            time,
            at,
            arg,
            code,
        }
    }

    /// Where the event was read from.
    #[inline]
    pub fn pos(&self) -> Position {
        if self.at & LINE_BIT != 0 {
            Position::Line(self.at & !LINE_BIT)
        } else {
            Position::Offset(self.at)
        }
    }

    /// The name argument of `frag_begin`, `frag_end` and `wait_begin`.
    #[inline]
    pub fn name(&self) -> NameId {
        NameId(self.arg)
    }

    /// The full event kind; `values` are the event's counter values (for `counters`).
    pub fn kind(&self, values: &[(CounterId, u64)]) -> EventKind {
        let n = NameId(self.arg);
        match self.code {
            EventCode::SessionBegin => EventKind::SessionBegin,
            EventCode::SessionEnd => EventKind::SessionEnd,
            EventCode::FragBegin => EventKind::FragBegin(n),
            EventCode::FragEnd => EventKind::FragEnd(n),
            EventCode::ParBegin => EventKind::ParBegin,
            EventCode::ParEnd => EventKind::ParEnd,
            EventCode::TaskBegin => EventKind::TaskBegin,
            EventCode::TaskEnd => EventKind::TaskEnd { wasted: false },
            EventCode::TaskEndWasted => EventKind::TaskEnd { wasted: true },
            EventCode::WaitBegin => EventKind::WaitBegin(n),
            EventCode::WaitEnd => EventKind::WaitEnd,
            EventCode::Counters => EventKind::Counters(values.to_vec()),
        }
    }
}

/// A consumer of one thread's events, fed by [`crate::log::ThreadStream::next_into`]
/// straight from the decoder: no [`EventBatch`] in between, so a consumer that turns
/// events into something else (`pp`'s per-thread lanes) reads each event once, from
/// registers. An [`EventBatch`] is a sink that keeps them.
pub trait EventSink {
    /// Takes the next event; `values` are its counter values (empty but for
    /// [`EventCode::Counters`], which has [`CompactEvent::arg`] of them). Returns `false`
    /// to stop the decoding after this event.
    fn event(&mut self, event: CompactEvent, values: &[(CounterId, u64)]) -> bool;
}

impl EventSink for EventBatch {
    #[inline(always)]
    fn event(&mut self, event: CompactEvent, values: &[(CounterId, u64)]) -> bool {
        self.events.push(event);
        if !values.is_empty() {
            self.counters.extend_from_slice(values);
        }
        true
    }
}

/// A reusable buffer of decoded events of one thread, in that thread's order.
#[derive(Debug, Clone, Default)]
pub struct EventBatch {
    pub(crate) events: Vec<CompactEvent>,
    pub(crate) counters: Vec<(CounterId, u64)>,
}

impl EventBatch {
    /// The most events a stream puts into one batch.
    pub const CAPACITY: usize = 2048;

    /// An empty batch.
    pub fn new() -> EventBatch {
        EventBatch {
            events: Vec::with_capacity(EventBatch::CAPACITY),
            counters: Vec::new(),
        }
    }

    /// Empties the batch (keeps its memory).
    pub fn clear(&mut self) {
        self.events.clear();
        self.counters.clear();
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when the batch holds no event.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events, in the thread's order.
    pub fn events(&self) -> &[CompactEvent] {
        &self.events
    }

    /// The values of all `counters` events of the batch, in order: event i's values follow
    /// those of the `counters` events before it; it has [`CompactEvent::arg`] of them.
    pub fn counter_values(&self) -> &[(CounterId, u64)] {
        &self.counters
    }

    /// Each event with its counter values (empty except for `counters`).
    pub fn iter(&self) -> impl Iterator<Item = (&CompactEvent, &[(CounterId, u64)])> {
        let mut at = 0usize;
        self.events.iter().map(move |e| {
            if e.code == EventCode::Counters {
                let n = e.arg as usize;
                let values = &self.counters[at..at + n];
                at += n;
                (e, values)
            } else {
                (e, &[][..])
            }
        })
    }

    /// Appends a decoded event.
    pub fn push(&mut self, event: &Event) {
        let (code, arg) = EventCode::of(&event.kind);
        if let EventKind::Counters(values) = &event.kind {
            self.counters.extend_from_slice(values);
        }
        self.events
            .push(CompactEvent::at(event.time, code, arg, event.pos));
    }
}
