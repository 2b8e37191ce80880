//! Per-thread event buffers: written by their thread without locks, drained by it when
//! full, and by the session's end (or the process exit hook) for threads still running.
//!
//! A buffer holds raw records of two 64-bit words: a raw clock reading and
//! `code | arg << 32`. Its owner stores the words with relaxed stores and publishes the
//! new length with a release store; a drainer takes the buffer's (rarely contended) lock,
//! reads the length with acquire, copies the records and resets the length. Buffers are
//! never freed: a thread that exits returns its buffer to a free list, so memory is
//! bounded by the largest number of threads recording at the same time.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Records per buffer (16 bytes each: 64 KiB per buffer).
pub(crate) const RECORDS: usize = 4096;

/// One thread's buffer.
pub(crate) struct ThreadBuffer {
    /// The recorder state (session generation) the contents belong to; 0: free.
    state: AtomicU64,
    /// The log thread id during that session.
    thread: AtomicU32,
    /// Words written and published.
    len: AtomicUsize,
    /// Held while draining.
    drain: Mutex<()>,
    words: Box<[AtomicU64]>,
}

/// Every buffer ever allocated.
static ALL: Mutex<Vec<&'static ThreadBuffer>> = Mutex::new(Vec::new());
/// Buffers whose thread exited.
static FREE: Mutex<Vec<&'static ThreadBuffer>> = Mutex::new(Vec::new());

impl ThreadBuffer {
    /// A free buffer, reused or newly allocated, now owned by `state` and `thread`.
    pub(crate) fn acquire(state: u64, thread: u32) -> &'static ThreadBuffer {
        let reused = FREE.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let buffer = reused.unwrap_or_else(|| {
            let words = (0..RECORDS * 2).map(|_| AtomicU64::new(0)).collect();
            let b: &'static ThreadBuffer = Box::leak(Box::new(ThreadBuffer {
                state: AtomicU64::new(0),
                thread: AtomicU32::new(0),
                len: AtomicUsize::new(0),
                drain: Mutex::new(()),
                words,
            }));
            ALL.lock().unwrap_or_else(PoisonError::into_inner).push(b);
            b
        });
        buffer.assign(state, thread);
        buffer
    }

    /// Makes the buffer `state`'s, empty.
    pub(crate) fn assign(&self, state: u64, thread: u32) {
        let _g = self.drain.lock().unwrap_or_else(PoisonError::into_inner);
        self.len.store(0, Ordering::Relaxed);
        self.thread.store(thread, Ordering::Relaxed);
        self.state.store(state, Ordering::Release);
    }

    /// Returns the buffer to the free list (its owner thread is exiting; drain it first).
    pub(crate) fn release(&'static self) {
        self.assign(0, 0);
        FREE.lock().unwrap_or_else(PoisonError::into_inner).push(self);
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

    /// Takes the buffer's records if they belong to `state`: calls `send(thread, words)` with
    /// them while holding the drain lock (so chunks of one thread are sent in order), then
    /// empties the buffer.
    pub(crate) fn drain(&self, state: u64, send: impl FnOnce(u32, Vec<u64>)) {
        let _g = self.drain.lock().unwrap_or_else(PoisonError::into_inner);
        if self.state.load(Ordering::Acquire) != state {
            return;
        }
        let n = self.len.load(Ordering::Acquire);
        if n == 0 {
            return;
        }
        let mut words = spare_words();
        words.extend(self.words[..n].iter().map(|w| w.load(Ordering::Relaxed)));
        self.len.store(0, Ordering::Release);
        send(self.thread(), words);
    }

    /// Every buffer ever allocated (for draining at the end of a session).
    pub(crate) fn all() -> Vec<&'static ThreadBuffer> {
        ALL.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// Chunk vectors the writer has finished with, for reuse by drains.
static SPARE: Mutex<Vec<Vec<u64>>> = Mutex::new(Vec::new());
/// At most this many spare vectors are kept.
const MAX_SPARE: usize = 32;

/// An empty vector with room for a full buffer.
fn spare_words() -> Vec<u64> {
    SPARE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .pop()
        .unwrap_or_else(|| Vec::with_capacity(RECORDS * 2))
}

/// Gives a chunk vector back for reuse.
pub(crate) fn recycle_words(mut words: Vec<u64>) {
    if words.capacity() != RECORDS * 2 {
        return;
    }
    words.clear();
    let mut spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner);
    if spare.len() < MAX_SPARE {
        spare.push(words);
    }
}
