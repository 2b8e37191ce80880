//! Lanes: the per-thread pass of the fast pipeline.
//!
//! A [`Lane`] reads one thread's stream (the decoder hands it each event as it decodes
//! it: [`pplib::log::EventSink`], no event batch in between) and does, for that thread
//! alone, what does not need the other threads: it keeps the thread's stack of open
//! constructs (as their begin events; a [`ThreadStack`] for the end of the log), so it
//! finds an end that matches no begin, works out the thread's state after each event, and
//! drops the *inert* events (a `frag_begin` / `frag_end` of a fragment that has no
//! window, which leaves the thread's state as it is: see [`Sweep::is_inert`]). What is
//! left are [`Transition`]s: 16 bytes each (time, thread slot, event code, argument, new
//! state), which the merge ([`crate::pipeline`]) puts in global time order for
//! [`Sweep::transition`]. Lanes of different threads are independent, so they can run on
//! different cores, and the merge and the global sweep see fewer, smaller items.
//!
//! A lane stops at its thread's first error: the stream's error (after the stream's last
//! event), or an end that matches no begin (at that event). The error travels after the
//! lane's transitions with the time it sorts at ([`LaneBatch::error`]), so the merge hands
//! it to the sweep at the same point of the global order at which the reference pipeline
//! ([`crate::merge`] into [`Sweep::event`]) meets it: the first error in global order is
//! the one reported, in the same words. A begin event on a thread that has
//! [`MAX_DEPTH`] constructs open is refused the same way (stop, or drop it with
//! [`Lane::drop_unmatched_ends`]), so a thread's stack never holds more.

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::sync::Arc;

use pplib::log::{
    CompactEvent, CounterId, EventBatch, EventCode, EventSink, LogError, NameId, ThreadId,
};

use crate::merge::{BatchSource, QUEUE};
use crate::stack::{Construct, Frame, Mismatch, ThreadStack, ThreadState, MAX_DEPTH};
use crate::sweep::{mismatch_error, Dropped, Sweep, SweepError, SweepErrorKind};

mod transition;
pub use transition::Transition;

/// The first error of a lane's thread.
#[derive(Debug)]
pub enum LaneError {
    /// The stream's error (bad bytes, time going backwards, truncation, ...).
    Log(LogError),
    /// An end event that matches no begin.
    Mismatch(SweepError),
}

/// A run of a lane's transitions, with the counter values of its `counters` transitions
/// and, last, the lane's error if it stopped at one.
#[derive(Debug, Default)]
pub struct LaneBatch {
    /// Transitions in the thread's order.
    pub items: Vec<Transition>,
    /// The values of the `counters` transitions, in order ([`Transition::arg`] each).
    pub values: Vec<(CounterId, u64)>,
    /// The number of `counters` transitions among the items.
    pub counters: usize,
    /// The error after the items, with the time it sorts at in the merge: the time of the
    /// offending event (the last event read before a stream error); `None` when the
    /// thread had no event at all (the reference pipeline reports such an error before
    /// any event).
    pub error: Option<(Option<u64>, LaneError)>,
}

impl LaneBatch {
    /// Empties the batch (keeps its memory).
    pub fn clear(&mut self) {
        self.items.clear();
        self.values.clear();
        self.counters = 0;
        self.error = None;
    }
}

/// What a lane leaves for the end of the sweep.
#[derive(Debug, Default)]
pub struct LaneSummary {
    /// Events read (inert ones included).
    pub events: u64,
    /// Time of the last event read.
    pub last_time: Option<u64>,
    /// What is still open.
    pub stack: ThreadStack,
    /// Events dropped because the stack could not take them (see
    /// [`Lane::drop_unmatched_ends`]): their numbers and the first few.
    pub dropped: Dropped,
}

/// The per-thread pass over one thread's stream (see the module docs).
#[derive(Debug)]
pub struct Lane<S> {
    source: S,
    slot: usize,
    thread: ThreadId,
    /// The open constructs, outermost first, as their begin events.
    open: Vec<CompactEvent>,
    state: ThreadState,
    present: bool,
    selected: Arc<[bool]>,
    names: Arc<[String]>,
    /// Room for sources that decode into a batch first (see [`BatchSource::next_into`]).
    batch: EventBatch,
    events: u64,
    last_time: Option<u64>,
    done: bool,
    /// Drop unmatched end events instead of stopping at them.
    drop_unmatched: bool,
    dropped: Dropped,
}

impl<S: BatchSource> Lane<S> {
    /// Transitions a lane batch is filled up to (fewer, larger hand-offs between threads;
    /// a few of them per thread bound the memory; see [`crate::pipeline::RUNS_AHEAD`] for
    /// why not more).
    pub const BATCH: usize = 2048;

    /// A lane over `source`, the stream of thread `thread` in slot `slot`; `names` is the
    /// log's string table and `selected[id]` says whether fragment `id` has a window.
    pub fn new(
        source: S,
        slot: usize,
        thread: ThreadId,
        names: Arc<[String]>,
        selected: Arc<[bool]>,
    ) -> Lane<S> {
        assert!(slot < Transition::MAX_SLOTS, "too many threads for a lane");
        Lane {
            source,
            slot,
            thread,
            open: Vec::new(),
            state: ThreadState::Idle,
            present: false,
            selected,
            names,
            // Used only by sources that decode into a batch first: grows when used.
            batch: EventBatch::default(),
            events: 0,
            last_time: None,
            done: false,
            drop_unmatched: false,
            dropped: Dropped::default(),
        }
    }

    /// The lane drops an end event that does not match its thread's innermost open
    /// construct, and a begin event past [`MAX_DEPTH`] (the stack and state stay as they
    /// were; the event is counted in the summary's `dropped`) instead of stopping with
    /// [`LaneError::Mismatch`], as [`Sweep::drop_unmatched_ends`] does.
    pub fn drop_unmatched_ends(mut self) -> Lane<S> {
        self.drop_unmatched = true;
        self
    }

    /// The end-of-log summary (call after the lane's last batch).
    pub fn summary(self) -> LaneSummary {
        LaneSummary {
            events: self.events,
            last_time: self.last_time,
            stack: {
                let mut stack = ThreadStack::new();
                for e in &self.open {
                    stack.push(frame_of(e));
                }
                stack
            },
            dropped: self.dropped,
        }
    }

    /// Replaces `out`'s contents with the lane's next transitions (at least
    /// [`Lane::BATCH`] unless the stream ends or fails first); `out` comes back without
    /// items and without error only at the end of the stream.
    pub fn next_batch(&mut self, out: &mut LaneBatch) {
        out.clear();
        self.append_batch(out);
    }

    /// [`Lane::next_batch`] that appends to `out` (which must have no error) instead of
    /// replacing its contents. At the end of the stream it appends nothing.
    pub fn append_batch(&mut self, out: &mut LaneBatch) {
        debug_assert!(out.error.is_none());
        let limit = out.items.len() + Lane::<S>::BATCH;
        out.items.reserve(Lane::<S>::BATCH + EventBatch::CAPACITY);
        while !self.done && out.items.len() < limit {
            // The stream decodes straight into the scan (no event batch in between).
            let mut scan = Scan {
                out: &mut *out,
                open: &mut self.open,
                selected: &self.selected,
                slot: self.slot,
                state: self.state,
                present: self.present,
                events: 0,
                last_time: self.last_time,
                mismatch: None,
                drop_unmatched: self.drop_unmatched,
                dropped: Vec::new(),
            };
            let result = self.source.next_into(&mut scan, &mut self.batch);
            let (state, present, events, last_time, mismatch, dropped) = (
                scan.state,
                scan.present,
                scan.events,
                scan.last_time,
                scan.mismatch.take(),
                std::mem::take(&mut scan.dropped),
            );
            for (e, m) in dropped {
                let kind = match m {
                    Mismatch::TooDeep => SweepErrorKind::TooDeep,
                    _ => SweepErrorKind::Unmatched,
                };
                let (names, thread) = (&self.names, self.thread);
                self.dropped.add(kind, || {
                    mismatch_error(names, thread, e.code, e.arg, e.pos(), m)
                });
            }
            self.state = state;
            self.present = present;
            self.events += events;
            self.last_time = last_time;
            if let Some((e, m)) = mismatch {
                self.done = true;
                let err = mismatch_error(&self.names, self.thread, e.code, e.arg, e.pos(), m);
                out.error = Some((Some(e.time.0), LaneError::Mismatch(err)));
                break;
            }
            match result {
                Ok(0) => self.done = true,
                Ok(_) => {}
                Err(e) => {
                    self.done = true;
                    out.error = Some((self.last_time, LaneError::Log(e)));
                }
            }
        }
    }
}

/// A lane's pass over its thread's events as the stream decodes them ([`EventSink`]):
/// the stack, the thread's state, the transitions.
struct Scan<'a> {
    out: &'a mut LaneBatch,
    /// The open constructs, outermost first, as their begin events.
    open: &'a mut Vec<CompactEvent>,
    selected: &'a [bool],
    slot: usize,
    state: ThreadState,
    present: bool,
    /// Events taken (inert ones and the offending one included).
    events: u64,
    last_time: Option<u64>,
    /// An end event that matches no begin (the scan stops at it), and what is innermost.
    mismatch: Option<(CompactEvent, Mismatch)>,
    /// Drop such an event and go on instead of stopping.
    drop_unmatched: bool,
    /// The events dropped, with what was innermost.
    dropped: Vec<(CompactEvent, Mismatch)>,
}

impl EventSink for Scan<'_> {
    #[inline(always)]
    fn event(&mut self, e: CompactEvent, values: &[(CounterId, u64)]) -> bool {
        let t = e.time.0;
        let code = e.code;
        self.events += 1;
        self.last_time = Some(t);
        let old = self.state;
        let new = match OPEN_STATE[code as usize] {
            Some(state) => {
                if self.open.len() >= MAX_DEPTH {
                    return self.refuse(e, Mismatch::TooDeep);
                }
                // A begin event: the event itself is the open construct.
                self.open.push(e);
                state
            }
            None if code == EventCode::Counters => {
                self.out.values.extend_from_slice(values);
                self.out.counters += 1;
                old
            }
            None => {
                // An end event: it must close the innermost open construct.
                let closes = match self.open.last() {
                    Some(top) => {
                        top.code == BEGIN_OF[code as usize]
                            && (code != EventCode::FragEnd || top.arg == e.arg)
                    }
                    None => false,
                };
                if !closes {
                    let m = match self.open.last() {
                        Some(top) => Mismatch::Innermost(frame_of(top)),
                        None => Mismatch::NothingOpen,
                    };
                    return self.refuse(e, m);
                }
                self.open.pop();
                self.open.last().map_or(ThreadState::Idle, |top| {
                    OPEN_STATE[top.code as usize].unwrap_or(ThreadState::Idle)
                })
            }
        };
        self.state = new;
        // `Sweep::is_inert`, with the fragment's selection looked up only for fragment
        // events.
        let frag = matches!(code, EventCode::FragBegin | EventCode::FragEnd);
        if frag
            && Sweep::is_inert(
                code,
                self.present,
                self.selected.get(e.arg as usize).copied().unwrap_or(false),
                old,
                new,
            )
        {
            return true;
        }
        self.present = true;
        self.out
            .items
            .push(Transition::new(t, self.slot, code, e.arg, new));
        true
    }
}

impl Scan<'_> {
    /// An event the stack cannot take: dropped (the scan goes on) or the scan stops at it.
    #[cold]
    fn refuse(&mut self, e: CompactEvent, m: Mismatch) -> bool {
        if self.drop_unmatched {
            self.dropped.push((e, m));
            return true;
        }
        self.mismatch = Some((e, m));
        false
    }
}

/// Per event code: the state a thread is in with that begin event's construct innermost
/// (`None` for end events and counters).
const OPEN_STATE: [Option<ThreadState>; 12] = [
    Some(ThreadState::Busy),     // session_begin
    None,                        // session_end
    Some(ThreadState::Busy),     // frag_begin
    None,                        // frag_end
    Some(ThreadState::Idle),     // par_begin
    None,                        // par_end
    Some(ThreadState::Busy),     // task_begin
    None,                        // task_end
    None,                        // task_end wasted
    Some(ThreadState::Spinning), // wait_begin
    None,                        // wait_end
    None,                        // counters
];

/// Per end event code: the begin event it closes (`Counters`, which no begin is, for the
/// others).
const BEGIN_OF: [EventCode; 12] = [
    EventCode::Counters,
    EventCode::SessionBegin,
    EventCode::Counters,
    EventCode::FragBegin,
    EventCode::Counters,
    EventCode::ParBegin,
    EventCode::Counters,
    EventCode::TaskBegin,
    EventCode::TaskBegin,
    EventCode::Counters,
    EventCode::WaitBegin,
    EventCode::Counters,
];

/// The open construct a begin event stands for (as [`ThreadStack`] keeps it).
fn frame_of(begin: &CompactEvent) -> Frame {
    let n = NameId(begin.arg);
    let construct = match begin.code {
        EventCode::SessionBegin => Construct::Session,
        EventCode::FragBegin => Construct::Frag(n),
        EventCode::ParBegin => Construct::Par,
        EventCode::TaskBegin => Construct::Task,
        _ => Construct::Wait(n),
    };
    Frame {
        construct,
        begin: begin.time,
        pos: begin.pos(),
    }
}

/// Where the merge gets a lane's transitions from: a [`Lane`], or a lane running on a
/// thread of its own ([`spawn_lanes`]).
pub trait LaneSource {
    /// Replaces `out`'s contents with the lane's next transitions; `out` comes back
    /// without items and without error only at the end.
    fn next_batch(&mut self, out: &mut LaneBatch);
    /// Appends the lane's next transitions to `out` (which must have no error): what
    /// [`LaneSource::next_batch`] would give, added after what `out` holds (items,
    /// values, the count of `counters` transitions). Appends nothing at the end.
    fn append_batch(&mut self, out: &mut LaneBatch);
    /// The end-of-log summary (after the last batch).
    fn summary(self) -> LaneSummary;
}

impl<S: BatchSource> LaneSource for Lane<S> {
    #[inline]
    fn next_batch(&mut self, out: &mut LaneBatch) {
        Lane::next_batch(self, out);
    }

    #[inline]
    fn append_batch(&mut self, out: &mut LaneBatch) {
        Lane::append_batch(self, out);
    }

    fn summary(self) -> LaneSummary {
        Lane::summary(self)
    }
}

/// A lane running on a scoped thread of its own (see [`spawn_lanes`]).
#[derive(Debug)]
pub struct ThreadedLane<'scope> {
    rx: Receiver<LaneBatch>,
    free: Sender<LaneBatch>,
    handle: std::thread::ScopedJoinHandle<'scope, LaneSummary>,
}

impl LaneSource for ThreadedLane<'_> {
    fn next_batch(&mut self, out: &mut LaneBatch) {
        match self.rx.recv() {
            Ok(mut batch) => {
                std::mem::swap(out, &mut batch);
                batch.clear();
                // The lane may be gone already (after its last batch).
                let _ = self.free.send(batch);
            }
            Err(_) => out.clear(),
        }
    }

    fn append_batch(&mut self, out: &mut LaneBatch) {
        if out.items.is_empty() && out.values.is_empty() && out.counters == 0 {
            return self.next_batch(out);
        }
        if let Ok(mut batch) = self.rx.recv() {
            out.items.extend_from_slice(&batch.items);
            out.values.extend_from_slice(&batch.values);
            out.counters += batch.counters;
            out.error = batch.error.take();
            batch.clear();
            let _ = self.free.send(batch);
        }
    }

    fn summary(self) -> LaneSummary {
        drop(self.rx);
        drop(self.free);
        self.handle.join().expect("a lane thread does not panic")
    }
}

/// Runs every lane on a scoped thread of its own, at most [`QUEUE`] batches ahead of the
/// merge: the per-thread work (decoding, stacks) of all threads runs in parallel with the
/// merge and the sweep, and the operating system spreads it over the cores. A lane stops
/// after its end or error, or when its [`ThreadedLane`] is dropped.
pub fn spawn_lanes<'scope, S>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    lanes: Vec<Lane<S>>,
) -> Vec<ThreadedLane<'scope>>
where
    S: BatchSource + Send + 'scope,
{
    lanes
        .into_iter()
        .map(|mut lane| {
            let (tx, rx) = sync_channel::<LaneBatch>(QUEUE);
            let (free, free_rx) = channel::<LaneBatch>();
            let handle = scope.spawn(move || {
                loop {
                    let mut batch = free_rx.try_recv().unwrap_or_default();
                    lane.next_batch(&mut batch);
                    let error = batch.error.is_some();
                    if batch.items.is_empty() && !error {
                        break;
                    }
                    if tx.send(batch).is_err() || error {
                        break;
                    }
                }
                lane.summary()
            });
            ThreadedLane { rx, free, handle }
        })
        .collect()
}
