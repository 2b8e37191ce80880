//! Per-thread event buffers: written by their thread without locks, handed whole to the
//! writer thread when full, and drained (copied) by the session's end, the process exit
//! hook, or their thread's exit.
//!
//! A buffer holds its thread's events already encoded as the body of a `CHUNK` record of
//! the binary log ([`crate::log::binary`]): per event a code, the time since the previous
//! event (an unsigned LEB128 varint, usually one or two bytes) and, for the codes that carry
//! one, a name id; the raw time of the first event is the chunk's base time. Encoding here,
//! on the recording thread, costs it a few instructions per event, and saves the writer
//! thread (which shares the processors with the recorded program) from reading 16-byte raw
//! records back from another core's cache and encoding them: it only copies bytes (about
//! 2.5 per event). The owner stores the bytes with relaxed stores and publishes the new
//! length with a release store. When a thread's current buffer is full, the thread marks it
//! *in flight*, sends it to the writer (which writes straight from it) and continues in
//! another of its buffers: one the writer has released, else a new one, up to
//! `BUFFERS_PER_THREAD` (8); with all of them in flight it waits for the oldest at most
//! 0.5 ms, then takes a new one, up to `MAX_BUFFERS_PER_THREAD` (32), and only with all of
//! those in flight it waits for the writer. So memory is bounded by 32 buffers (1 MiB) per
//! thread recording at the same time (2 when the writer keeps up), and a writer that falls
//! far behind slows the recording threads down rather than letting memory grow.
//!
//! A drainer (session end, exit hook, thread exit) takes the buffer's (rarely contended)
//! lock, skips a buffer in flight (the writer has it), reads the length with acquire and
//! copies the bytes. Buffers are never freed: a thread that exits returns its buffers to a
//! free list.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::log::binary::code;
use crate::log::CounterId;

/// Bytes per buffer (about 13 000 events of two or three bytes).
pub(crate) const BYTES: usize = 32 << 10;

/// The most bytes an event without counters takes: code, delta, name id (1 + 10 + 5).
const MAX_EVENT_BYTES: usize = 16;

/// One buffer (aligned so that no two buffers' headers, written by different threads,
/// share a cache line).
#[repr(align(128))]
pub(crate) struct ThreadBuffer {
    /// The recorder state (session generation) the contents belong to; 0: free.
    state: AtomicU64,
    /// The log thread id during that session.
    thread: AtomicU32,
    /// Bytes written and published.
    len: AtomicUsize,
    /// The raw time of the first event (the chunk's base time; set with it).
    base: AtomicU64,
    /// The raw time of the last event (only the owner uses it).
    last: AtomicU64,
    /// Sent to the writer, not yet released by it.
    in_flight: AtomicBool,
    /// Held while draining or handing off.
    drain: Mutex<()>,
    bytes: Box<[AtomicU8]>,
}

/// Every buffer ever allocated.
static ALL: Mutex<Vec<&'static ThreadBuffer>> = Mutex::new(Vec::new());
/// Buffers whose thread exited.
static FREE: Mutex<Vec<&'static ThreadBuffer>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ThreadBuffer {
    /// A free buffer (not in flight), reused or newly allocated, now owned by `state` and
    /// `thread`.
    pub(crate) fn acquire(state: u64, thread: u32) -> &'static ThreadBuffer {
        let reused = {
            let mut free = lock(&FREE);
            let at = free
                .iter()
                .position(|b| !b.in_flight.load(Ordering::Acquire));
            at.map(|i| free.swap_remove(i))
        };
        let buffer = reused.unwrap_or_else(|| {
            let b: &'static ThreadBuffer = Box::leak(Box::new(ThreadBuffer::new(BYTES)));
            lock(&ALL).push(b);
            b
        });
        buffer.assign(state, thread);
        buffer
    }

    /// A free buffer of `bytes` bytes, not listed (for tests; [`ThreadBuffer::acquire`]
    /// lists its buffers).
    pub(crate) fn new(bytes: usize) -> ThreadBuffer {
        ThreadBuffer {
            state: AtomicU64::new(0),
            thread: AtomicU32::new(0),
            len: AtomicUsize::new(0),
            base: AtomicU64::new(0),
            last: AtomicU64::new(0),
            in_flight: AtomicBool::new(false),
            drain: Mutex::new(()),
            bytes: (0..bytes).map(|_| AtomicU8::new(0)).collect(),
        }
    }

    /// Makes the buffer `state`'s, empty (it must not be in flight).
    pub(crate) fn assign(&self, state: u64, thread: u32) {
        let _g = lock(&self.drain);
        self.len.store(0, Ordering::Relaxed);
        self.thread.store(thread, Ordering::Relaxed);
        self.state.store(state, Ordering::Release);
    }

    /// Returns the buffer to the free list (its owner thread is exiting; drain it first).
    pub(crate) fn release(&'static self) {
        {
            let _g = lock(&self.drain);
            self.state.store(0, Ordering::Release);
        }
        lock(&FREE).push(self);
    }

    /// The state the contents belong to.
    #[inline(always)]
    pub(crate) fn state(&self) -> u64 {
        self.state.load(Ordering::Relaxed)
    }

    /// The log thread id.
    pub(crate) fn thread(&self) -> u32 {
        self.thread.load(Ordering::Relaxed)
    }

    /// True while the writer has the buffer.
    pub(crate) fn in_flight(&self) -> bool {
        self.in_flight.load(Ordering::Acquire)
    }

    /// Appends one event without counters (`arg`: the name id of the codes that carry one,
    /// ignored for the others) if there is room; false if the buffer is full. A time before
    /// the previous event's is recorded as that time (times never decrease along a thread).
    #[inline(always)]
    pub(crate) fn try_push(&self, time: u64, code: u8, arg: u32) -> bool {
        match self.reserve() {
            Some(slot) => {
                slot.push(time, code, arg);
                true
            }
            None => false,
        }
    }

    /// Appends two events without arguments at the same time (a task's end and the next
    /// task's begin) if there is room; false if the buffer is full.
    #[inline(always)]
    pub(crate) fn try_push_pair(&self, time: u64, first: u8, second: u8) -> bool {
        match self.reserve() {
            Some(slot) => {
                slot.push_pair(time, first, second);
                true
            }
            None => false,
        }
    }

    /// The room for one more event without counters, if it fits (the length, checked
    /// against the end of the buffer), found before the event's time is taken:
    /// [`Slot::push`] then computes the delta and stores. The recorder reads the clock
    /// between the two. A clock reading waits for the instructions before it to finish
    /// (as `lfence` does, on the processors measured), so what comes before it should not
    /// wait on the previous reading, and what comes after it should be short: the length
    /// (stored by the previous event with a value that does not depend on its time) and
    /// the thread's buffer are found before, the previous event's time (stored right
    /// after the previous reading) is loaded after.
    #[inline(always)]
    pub(crate) fn reserve(&self) -> Option<Slot<'_>> {
        let at = self.len.load(Ordering::Relaxed);
        let room = self.bytes.get(at..at + MAX_EVENT_BYTES)?.try_into().ok()?;
        Some(Slot {
            buffer: self,
            at,
            room,
        })
    }

    /// Appends a `counters` event with `values` (cumulative per-thread counter values) if
    /// there is room; false if the buffer is full.
    pub(crate) fn try_push_counters(&self, time: u64, values: &[(CounterId, u64)]) -> bool {
        let at = self.len.load(Ordering::Relaxed);
        // Code, delta, count (1 + 10 + 10), then per value an id and the value (3 + 10).
        let Some(room) = self.bytes.get(at..at + 21 + 13 * values.len()) else {
            return false;
        };
        let mut out = Out { room, at: 0 };
        let delta = self.stamp(at, time);
        out.byte(code::COUNTERS);
        out.uvarint(delta);
        out.uvarint(values.len() as u64);
        for (id, value) in values {
            out.uvarint(u64::from(id.0));
            out.uvarint(*value);
        }
        self.len.store(at + out.at, Ordering::Release);
        true
    }

    /// The delta of an event at `time` appended at byte `at`, and that event's time made the
    /// last one (the first event of the buffer, at 0, also sets the base time). A time
    /// before the last one counts as the last one.
    ///
    /// The usual case (a time not before the last one) is one subtraction after the clock
    /// reading.
    #[inline(always)]
    fn stamp(&self, at: usize, time: u64) -> u64 {
        if at == 0 {
            self.base.store(time, Ordering::Relaxed);
            self.last.store(time, Ordering::Relaxed);
            return 0;
        }
        let last = self.last.load(Ordering::Relaxed);
        let (delta, before) = time.overflowing_sub(last);
        if before {
            // Recorded at the last time (delta 0), which stays the last.
            return 0;
        }
        self.last.store(time, Ordering::Relaxed);
        delta
    }

    /// Hands the buffer to the writer if it holds records of `state`: marks it in flight and
    /// calls `send` (under the drain lock, so a drainer never copies it meanwhile). `send`
    /// returns false if the writer is gone, which releases the buffer at once.
    pub(crate) fn hand_off(
        &'static self,
        state: u64,
        send: impl FnOnce(&'static ThreadBuffer) -> bool,
    ) {
        let _g = lock(&self.drain);
        if self.state.load(Ordering::Acquire) != state || self.len.load(Ordering::Acquire) == 0 {
            return;
        }
        self.in_flight.store(true, Ordering::Release);
        if !send(self) {
            self.len.store(0, Ordering::Relaxed);
            self.in_flight.store(false, Ordering::Release);
        }
    }

    /// For the writer: calls `f(thread, base time, encoded events)`, then empties and
    /// releases the buffer.
    pub(crate) fn consume(&self, f: impl FnOnce(u32, u64, &[AtomicU8])) {
        let n = self.len.load(Ordering::Acquire);
        f(
            self.thread(),
            self.base.load(Ordering::Relaxed),
            &self.bytes[..n],
        );
        self.len.store(0, Ordering::Relaxed);
        self.in_flight.store(false, Ordering::Release);
    }

    /// Copies out the buffer's events if they belong to `state` and it is not in flight:
    /// calls `send(thread, base time, encoded events)` while holding the drain lock (so
    /// chunks of one thread are sent in order), then empties the buffer.
    pub(crate) fn drain(&self, state: u64, send: impl FnOnce(u32, u64, Vec<u8>)) {
        let _g = lock(&self.drain);
        if self.state.load(Ordering::Acquire) != state || self.in_flight.load(Ordering::Acquire) {
            return;
        }
        let n = self.len.load(Ordering::Acquire);
        if n == 0 {
            return;
        }
        let bytes: Vec<u8> = self.bytes[..n]
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        let base = self.base.load(Ordering::Relaxed);
        self.len.store(0, Ordering::Release);
        send(self.thread(), base, bytes);
    }

    /// Every buffer ever allocated (for draining at the end of a session).
    pub(crate) fn all() -> Vec<&'static ThreadBuffer> {
        lock(&ALL).clone()
    }
}

/// The reserved room for one event at the end of a [`ThreadBuffer`] (see
/// [`ThreadBuffer::reserve`]); pushing publishes it.
pub(crate) struct Slot<'a> {
    buffer: &'a ThreadBuffer,
    /// The buffer's length: where the event goes.
    at: usize,
    room: &'a [AtomicU8; MAX_EVENT_BYTES],
}

impl Slot<'_> {
    /// Writes one event without counters (as [`ThreadBuffer::try_push`]) and publishes it.
    #[inline(always)]
    pub(crate) fn push(self, time: u64, code: u8, arg: u32) {
        let room = self.room;
        let delta = self.buffer.stamp(self.at, time);
        room[0].store(code, Ordering::Relaxed);
        let mut end = short_uvarint(room, 1, delta);
        if matches!(code, code::FRAG_BEGIN | code::FRAG_END | code::WAIT_BEGIN) {
            end = long_uvarint(room, end, u64::from(arg));
        }
        self.buffer.len.store(self.at + end, Ordering::Release);
    }

    /// Writes two events without arguments at the same time (as
    /// [`ThreadBuffer::try_push_pair`]) and publishes them.
    #[inline(always)]
    pub(crate) fn push_pair(self, time: u64, first: u8, second: u8) {
        let room = self.room;
        let delta = self.buffer.stamp(self.at, time);
        room[0].store(first, Ordering::Relaxed);
        let i = short_uvarint(room, 1, delta);
        room[i].store(second, Ordering::Relaxed);
        room[i + 1].store(0, Ordering::Relaxed);
        self.buffer.len.store(self.at + i + 2, Ordering::Release);
    }
}

/// Writes `value` as a varint at `room[at..]` and returns the index after it; the usual
/// time deltas (below 2^14: one or two bytes) take no loop. (Branches, not a branch-free
/// length: the buffer's new length must not depend on the clock reading, since the next
/// event loads it before its own reading, which waits for that load.)
#[inline(always)]
fn short_uvarint(room: &[AtomicU8; MAX_EVENT_BYTES], at: usize, value: u64) -> usize {
    if value < 0x80 {
        room[at].store(value as u8, Ordering::Relaxed);
        at + 1
    } else if value < 0x4000 {
        room[at].store(value as u8 | 0x80, Ordering::Relaxed);
        room[at + 1].store((value >> 7) as u8, Ordering::Relaxed);
        at + 2
    } else {
        long_uvarint(room, at, value)
    }
}

/// Writes `value` as a varint at `room[at..]` and returns the index after it (out of line:
/// long time deltas and name ids are rare on the hot path).
#[inline(never)]
fn long_uvarint(room: &[AtomicU8; MAX_EVENT_BYTES], at: usize, value: u64) -> usize {
    let mut out = Out { room, at };
    out.uvarint(value);
    out.at
}

/// Where an event's bytes go: the free room at the end of a buffer.
struct Out<'a> {
    room: &'a [AtomicU8],
    at: usize,
}

impl Out<'_> {
    #[inline(always)]
    fn byte(&mut self, b: u8) {
        self.room[self.at].store(b, Ordering::Relaxed);
        self.at += 1;
    }

    /// An unsigned LEB128 varint.
    #[inline(always)]
    fn uvarint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.byte(value as u8 | 0x80);
            value >>= 7;
        }
        self.byte(value as u8);
    }
}
