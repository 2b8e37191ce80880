//! The thread-local side of the recorder: each thread's buffer, name cache and counters.

use std::cell::{Cell, RefCell};

use super::buffer::ThreadBuffer;
use super::{current_for, sched, COUNTERS_BIT, STATE};
use crate::clock;
use crate::counters::ThreadCounters;

/// The buffers (32 KiB each) one thread uses while the writer keeps up: with all of them in
/// flight, a thread waits at most [`BOUNDED_WAIT`] for the writer to release the oldest.
pub(crate) const BUFFERS_PER_THREAD: usize = 8;

/// The most buffers one thread uses (1 MiB): beyond [`BUFFERS_PER_THREAD`], one more each
/// time the writer has not released the oldest within [`BOUNDED_WAIT`] (a burst of events,
/// or a writer that got no processor for a while); with all of these in flight, the thread
/// waits for the writer (memory stays bounded).
pub(crate) const MAX_BUFFERS_PER_THREAD: usize = 32;

/// How long a thread with [`BUFFERS_PER_THREAD`] buffers in flight waits for the writer
/// before it takes another.
const BOUNDED_WAIT: std::time::Duration = std::time::Duration::from_micros(500);

/// Waits until the writer releases `buffer` (true), for at most `limit` (false after it),
/// or until the session ends (false: the writer may never release it).
fn released(
    buffer: &ThreadBuffer,
    recorder: &super::Recorder,
    limit: Option<std::time::Duration>,
) -> bool {
    let start = std::time::Instant::now();
    let mut spins = 0u32;
    while buffer.in_flight() {
        if recorder.is_closed() || limit.is_some_and(|l| start.elapsed() >= l) {
            return false;
        }
        spins += 1;
        if spins < 64 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    }
    true
}

/// Per-thread recorder state.
struct Local {
    buffer: Cell<Option<&'static ThreadBuffer>>,
    /// The thread's other buffers, oldest hand-off first (in flight or free).
    spares: RefCell<Vec<&'static ThreadBuffer>>,
    names: RefCell<NameCache>,
    counters: RefCell<Option<(u64, ThreadCounters)>>,
    /// The session state and raw time of the thread's last scheduling sample.
    sampled: Cell<(u64, u64)>,
    /// The session state and where its scheduling samples go (asked once per session).
    sched: Cell<Option<(u64, sched::SchedIds)>>,
}

thread_local! {
    static LOCAL: Local = const {
        Local {
            buffer: Cell::new(None),
            spares: RefCell::new(Vec::new()),
            names: RefCell::new(NameCache { entries: Vec::new() }),
            counters: RefCell::new(None),
            sampled: Cell::new((0, 0)),
            sched: Cell::new(None),
        }
    };
}

thread_local! {
    /// The calling thread's current buffer, for the hot path: a thread-local without a
    /// destructor, so that reading it is a single load (no lazy-registration check, unlike
    /// [`LOCAL`]). It always equals `Local::buffer`, and is cleared when `LOCAL` is
    /// destroyed (events of the thread after that are dropped).
    static CURRENT: Cell<Option<&'static ThreadBuffer>> = const { Cell::new(None) };
}

/// Makes `buffer` the calling thread's current buffer (`Local::buffer` and [`CURRENT`]).
fn set_current(local: &Local, buffer: Option<&'static ThreadBuffer>) {
    local.buffer.set(buffer);
    let _ = CURRENT.try_with(|c| c.set(buffer));
}

/// The calling thread's current buffer.
#[inline(always)]
fn current_buffer() -> Option<&'static ThreadBuffer> {
    CURRENT.try_with(Cell::get).ok().flatten()
}

impl Drop for Local {
    fn drop(&mut self) {
        // The thread's last scheduling sample, then it leaves the session's thread list.
        if let Some(state) = self.buffer.get().map(|b| b.state()) {
            if let Some(recorder) = current_for(state) {
                self.sample_scheduling(state, clock::raw_now());
                recorder.thread_exited(self.buffer.get().map_or(0, |b| b.thread()));
            }
        }
        let _ = CURRENT.try_with(|c| c.set(None));
        // Spares first (they hold no undrained records unless a drainer skipped one while it
        // was in flight; those are older than the current buffer's), then the current one.
        let spares = std::mem::take(self.spares.get_mut());
        for buffer in spares.into_iter().chain(self.buffer.take()) {
            let state = buffer.state();
            if let Some(recorder) = current_for(state) {
                buffer.drain(state, |thread, base, bytes| {
                    recorder.send_chunk(thread, base, bytes)
                });
            }
            buffer.release();
        }
    }
}

/// Records one event of the calling thread in session `state` (non-zero), taking its time
/// now.
#[inline(always)]
pub(crate) fn emit(state: u64, code: u8, arg: u32) {
    emit_timed(state, code, arg, clock::raw_now);
}

/// Records one event of the calling thread in session `state` (non-zero) at raw time `time`.
#[inline(always)]
pub(crate) fn emit_at(state: u64, code: u8, arg: u32, time: u64) {
    emit_timed(state, code, arg, || time);
}

/// Records one event at the raw time `time()` returns, called once.
///
/// The fast path reads the current buffer from [`CURRENT`] and reserves the event's room
/// *before* calling `time` (see [`ThreadBuffer::reserve`]): when `time` reads the clock, the
/// loads are done by the time the reading returns, and only the delta's arithmetic and the
/// stores depend on it. Everything rare (no buffer yet, a full one, counters) goes through
/// [`emit_slow`].
#[inline(always)]
fn emit_timed(state: u64, code: u8, arg: u32, time: impl FnOnce() -> u64) {
    let slot = current_buffer()
        .filter(|b| b.state() == state)
        .and_then(ThreadBuffer::reserve);
    match slot {
        Some(slot) => {
            let time = time();
            slot.push(time, code, arg);
            if state & COUNTERS_BIT != 0 {
                counters_slow(state, time);
            }
        }
        None => emit_slow(state, code, arg, time()),
    }
}

/// Records two events without arguments at raw time `time` (a task's end and the next
/// task's begin), as [`emit_at`] would one after the other.
#[inline(always)]
pub(crate) fn emit_pair_at(state: u64, first: u8, second: u8, time: u64) {
    match current_buffer() {
        Some(b) if b.state() == state && b.try_push_pair(time, first, second) => {
            if state & COUNTERS_BIT != 0 {
                counters_slow(state, time);
            }
        }
        _ => {
            emit_slow(state, first, 0, time);
            emit_slow(state, second, 0, time);
        }
    }
}

/// [`emit_at`] when the current buffer cannot take the event (none yet, another session's,
/// or full): gets or switches buffers, then records counters if they are on.
#[cold]
#[inline(never)]
fn emit_slow(state: u64, code: u8, arg: u32, time: u64) {
    let _ = LOCAL.try_with(|local| {
        local.push_slow(state, time, code, arg);
        if state & COUNTERS_BIT != 0 {
            local.sample_counters(state, time);
        }
    });
}

/// Records a `counters` event after an event at `time` (counters are on).
#[cold]
#[inline(never)]
fn counters_slow(state: u64, time: u64) {
    let _ = LOCAL.try_with(|local| local.sample_counters(state, time));
}

/// Records the end event of a construct begun in session `state`, if that session is
/// still recording.
#[inline(always)]
pub(crate) fn emit_if_current(state: u64, code: u8, arg: u32) {
    if state != 0 && STATE.load(std::sync::atomic::Ordering::Relaxed) == state {
        emit(state, code, arg);
    }
}

/// Makes the calling thread part of the current session now (it gets a log thread id and
/// its name is recorded), even before it records an event.
pub(crate) fn register_thread() {
    let state = STATE.load(std::sync::atomic::Ordering::Relaxed);
    if state == 0 {
        return;
    }
    let _ = LOCAL.try_with(|local| {
        if local.buffer_for(state).is_some() {
            local.sample_scheduling(state, clock::raw_now());
        }
    });
}

/// Takes a scheduling sample of the calling thread if its last one is at least
/// [`sched::MIN_INTERVAL_US`] old (at `par` and run boundaries).
#[inline(never)]
pub(crate) fn sample_scheduling(state: u64) {
    let _ = LOCAL.try_with(|local| local.maybe_sample_scheduling(state, clock::raw_now()));
}

/// Takes a scheduling sample of the calling thread now if it records in session `state`
/// (the session's end, on the thread that ends it).
pub(crate) fn sample_scheduling_now(state: u64) {
    let _ = LOCAL.try_with(|local| {
        if local.buffer.get().is_some_and(|b| b.state() == state) {
            local.sample_scheduling(state, clock::raw_now());
        }
    });
}

impl Local {
    /// The thread's buffer for `state`, acquiring or reassigning one (None: `state` is over).
    fn buffer_for(&self, state: u64) -> Option<&'static ThreadBuffer> {
        match self.buffer.get() {
            Some(b) if b.state() == state => Some(b),
            old => {
                let recorder = current_for(state)?;
                let thread = recorder.new_thread();
                Some(match old {
                    Some(b) => {
                        b.assign(state, thread);
                        b
                    }
                    None => {
                        let b = ThreadBuffer::acquire(state, thread);
                        set_current(self, Some(b));
                        b
                    }
                })
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn push_slow(&self, state: u64, time: u64, code: u8, arg: u32) {
        let Some(b) = self.buffer_for(state) else {
            return;
        };
        if b.try_push(time, code, arg) {
            if self.sampled.get().0 != state {
                // The thread's first event in this session.
                self.sample_scheduling(state, time);
            }
        } else if let Some(next) = self.switch(state, b) {
            let _ = next.try_push(time, code, arg);
            self.maybe_sample_scheduling(state, time);
        }
    }

    /// [`Local::sample_scheduling`] if the thread's last sample in `state` is at least
    /// [`sched::MIN_INTERVAL_US`] older than `time`.
    fn maybe_sample_scheduling(&self, state: u64, time: u64) {
        let (s, last) = self.sampled.get();
        if s != state || time.saturating_sub(last) >= clock::raw_micros(sched::MIN_INTERVAL_US) {
            self.sample_scheduling(state, time);
        }
    }

    /// Records a `counters` event with the thread's CPU time and involuntary context
    /// switches at `time`.
    #[cold]
    #[inline(never)]
    fn sample_scheduling(&self, state: u64, time: u64) {
        self.sampled.set((state, time));
        let ids = match self.sched.get() {
            Some((s, ids)) if s == state => ids,
            _ => {
                let Some(recorder) = current_for(state) else {
                    return;
                };
                let ids = recorder.sched();
                self.sched.set(Some((state, ids)));
                ids
            }
        };
        let values = ids.own();
        if values.is_empty() {
            return;
        }
        let Some(b) = self.buffer_for(state) else {
            return;
        };
        if !b.try_push_counters(time, &values) {
            if let Some(next) = self.switch(state, b) {
                let _ = next.try_push_counters(time, &values);
            }
        }
    }

    /// Hands the full buffer `full` to the writer and continues in a free one of the
    /// thread's buffers: one the writer has released, else a new one (up to
    /// [`BUFFERS_PER_THREAD`]), else the oldest once the writer releases it (or a new one,
    /// up to [`MAX_BUFFERS_PER_THREAD`], when that takes longer than [`BOUNDED_WAIT`]). None if the
    /// session is over (its end collected what it could; later records are dropped).
    fn switch(&self, state: u64, full: &'static ThreadBuffer) -> Option<&'static ThreadBuffer> {
        let Some(recorder) = current_for(state) else {
            full.assign(0, 0);
            return None;
        };
        full.hand_off(state, |b| recorder.send_buffer(b));
        let thread = full.thread();
        let mut spares = self.spares.try_borrow_mut().ok()?;
        // A buffer of an earlier session still in flight will never be released (its writer
        // is gone): let it go.
        spares.retain(|b| b.state() == state || !b.in_flight());
        let next = if let Some(i) = spares.iter().position(|b| !b.in_flight()) {
            spares.remove(i)
        } else if spares.len() + 1 < BUFFERS_PER_THREAD
            || (spares.len() + 1 < MAX_BUFFERS_PER_THREAD
                && !released(spares[0], &recorder, Some(BOUNDED_WAIT)))
        {
            // Within the usual bound, or the writer is slow to release the oldest: a new
            // buffer (up to the hard bound) rather than a program that waits on the writer.
            ThreadBuffer::acquire(state, thread)
        } else if released(spares[0], &recorder, None) {
            spares.remove(0)
        } else {
            // The session ended meanwhile: the writer may never release it.
            spares.remove(0);
            ThreadBuffer::acquire(state, thread)
        };
        next.assign(state, thread);
        spares.push(full);
        set_current(self, Some(next));
        Some(next)
    }

    #[cold]
    #[inline(never)]
    fn sample_counters(&self, state: u64, time: u64) {
        let Ok(mut slot) = self.counters.try_borrow_mut() else {
            return;
        };
        if slot.as_ref().map(|(s, _)| *s) != Some(state) {
            let Some(recorder) = current_for(state) else {
                return;
            };
            let Some((backend, present)) = recorder.counters() else {
                return;
            };
            *slot = Some((state, ThreadCounters::open(backend, present)));
        }
        let Some((_, counters)) = slot.as_mut() else {
            return;
        };
        let values = counters.read();
        let Some(b) = self.buffer_for(state) else {
            return;
        };
        if !b.try_push_counters(time, values) {
            if let Some(next) = self.switch(state, b) {
                let _ = next.try_push_counters(time, values);
            }
        }
    }
}

/// A small direct-mapped cache from `&str` (by address, checked by content) to name ids.
struct NameCache {
    entries: Vec<Option<CacheEntry>>,
}

struct CacheEntry {
    addr: usize,
    state: u64,
    id: u32,
    text: Box<str>,
}

const CACHE_SLOTS: usize = 64;

impl Local {
    /// The string-table id of `name` in session `state` (None: that session is over).
    #[inline]
    fn name_id(&self, state: u64, name: &str) -> Option<u32> {
        let addr = name.as_ptr() as usize;
        let slot = (addr.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) % CACHE_SLOTS;
        {
            let cache = self.names.try_borrow().ok()?;
            if let Some(Some(e)) = cache.entries.get(slot) {
                if e.addr == addr && e.state == state && *e.text == *name {
                    return Some(e.id);
                }
            }
        }
        self.name_id_slow(state, name, addr, slot)
    }

    #[cold]
    #[inline(never)]
    fn name_id_slow(&self, state: u64, name: &str, addr: usize, slot: usize) -> Option<u32> {
        let mut cache = self.names.try_borrow_mut().ok()?;
        if cache.entries.is_empty() {
            cache.entries.resize_with(CACHE_SLOTS, || None);
        }
        let id = current_for(state)?.intern(name);
        cache.entries[slot] = Some(CacheEntry {
            addr,
            state,
            id,
            text: name.into(),
        });
        Some(id)
    }
}

/// The string-table id of `name` in session `state` (None: that session is over).
pub(crate) fn name_id(state: u64, name: &str) -> Option<u32> {
    LOCAL
        .try_with(|local| local.name_id(state, name))
        .ok()
        .flatten()
}

/// Records a begin event carrying name `name` (interned) on the calling thread in session
/// `state`; returns the name's id, or None if nothing was recorded.
#[inline]
pub(crate) fn emit_named(state: u64, code: u8, name: &str) -> Option<u32> {
    LOCAL
        .try_with(|local| {
            let id = local.name_id(state, name)?;
            // As in `emit`: the room is reserved before the clock is read.
            let slot = local
                .buffer
                .get()
                .filter(|b| b.state() == state)
                .and_then(|b| b.reserve());
            let time = clock::raw_now();
            match slot {
                Some(slot) => slot.push(time, code, id),
                None => local.push_slow(state, time, code, id),
            }
            if state & COUNTERS_BIT != 0 {
                local.sample_counters(state, time);
            }
            Some(id)
        })
        .ok()
        .flatten()
}
