//! Per-thread event buffers: written by their thread without locks, handed whole to the
//! writer thread when full, and drained (copied) by the session's end, the process exit
//! hook, or their thread's exit.
//!
//! A buffer holds raw records of two 64-bit words: a raw clock reading and
//! `code | arg << 32`. Its owner stores the words with relaxed stores and publishes the new
//! length with a release store. When a thread's current buffer is full, the thread marks it
//! *in flight*, sends it to the writer (which encodes straight from it, no copy) and
//! continues in another of its buffers: one the writer has released, else a new one, up to
//! `BUFFERS_PER_THREAD` (8); with all of them in flight it waits for the oldest. So memory
//! is bounded by 8 buffers (512 KiB) per thread recording at the same time (2 when the
//! writer keeps up), and a writer that falls far behind slows the recording threads down
//! rather than letting memory grow.
//!
//! A drainer (session end, exit hook, thread exit) takes the buffer's (rarely contended)
//! lock, skips a buffer in flight (the writer has it), reads the length with acquire and
//! copies the records. Buffers are never freed: a thread that exits returns its buffers to a
//! free list.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Records per buffer (16 bytes each: 64 KiB per buffer).
pub(crate) const RECORDS: usize = 4096;

/// One buffer.
pub(crate) struct ThreadBuffer {
    /// The recorder state (session generation) the contents belong to; 0: free.
    state: AtomicU64,
    /// The log thread id during that session.
    thread: AtomicU32,
    /// Words written and published.
    len: AtomicUsize,
    /// Sent to the writer, not yet released by it.
    in_flight: AtomicBool,
    /// Held while draining or handing off.
    drain: Mutex<()>,
    words: Box<[AtomicU64]>,
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
            let words = (0..RECORDS * 2).map(|_| AtomicU64::new(0)).collect();
            let b: &'static ThreadBuffer = Box::leak(Box::new(ThreadBuffer {
                state: AtomicU64::new(0),
                thread: AtomicU32::new(0),
                len: AtomicUsize::new(0),
                in_flight: AtomicBool::new(false),
                drain: Mutex::new(()),
                words,
            }));
            lock(&ALL).push(b);
            b
        });
        buffer.assign(state, thread);
        buffer
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

    /// Appends one record if there is room; false if the buffer is full.
    #[inline(always)]
    pub(crate) fn try_push(&self, time: u64, word: u64) -> bool {
        let i = self.len.load(Ordering::Relaxed);
        if let Some([a, b]) = self.words.get(i..i + 2) {
            a.store(time, Ordering::Relaxed);
            b.store(word, Ordering::Relaxed);
            self.len.store(i + 2, Ordering::Release);
            true
        } else {
            false
        }
    }

    /// Appends several records at once (they stay in one chunk); false if they do not fit.
    pub(crate) fn try_push_all(&self, records: &[(u64, u64)]) -> bool {
        let i = self.len.load(Ordering::Relaxed);
        let Some(slots) = self.words.get(i..i + 2 * records.len()) else {
            return false;
        };
        for (pair, (time, word)) in slots.chunks_exact(2).zip(records) {
            pair[0].store(*time, Ordering::Relaxed);
            pair[1].store(*word, Ordering::Relaxed);
        }
        self.len.store(i + 2 * records.len(), Ordering::Release);
        true
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

    /// For the writer: calls `f` with the buffer's records, then empties and releases it.
    pub(crate) fn consume(&self, f: impl FnOnce(u32, &[AtomicU64])) {
        let n = self.len.load(Ordering::Acquire);
        f(self.thread(), &self.words[..n]);
        self.len.store(0, Ordering::Relaxed);
        self.in_flight.store(false, Ordering::Release);
    }

    /// Copies out the buffer's records if they belong to `state` and it is not in flight:
    /// calls `send(thread, words)` while holding the drain lock (so chunks of one thread are
    /// sent in order), then empties the buffer.
    pub(crate) fn drain(&self, state: u64, send: impl FnOnce(u32, Vec<u64>)) {
        let _g = lock(&self.drain);
        if self.state.load(Ordering::Acquire) != state || self.in_flight.load(Ordering::Acquire) {
            return;
        }
        let n = self.len.load(Ordering::Acquire);
        if n == 0 {
            return;
        }
        let words: Vec<u64> = self.words[..n]
            .iter()
            .map(|w| w.load(Ordering::Relaxed))
            .collect();
        self.len.store(0, Ordering::Release);
        send(self.thread(), words);
    }

    /// Every buffer ever allocated (for draining at the end of a session).
    pub(crate) fn all() -> Vec<&'static ThreadBuffer> {
        lock(&ALL).clone()
    }
}
