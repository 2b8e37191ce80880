//! The event list: events ordered by virtual time, then by the arbitration key, and the
//! rule by which a process that advances its clock keeps running without the list.
use std::cmp::Ordering;

use rand::RngCore;

use super::engine::Engine;
use crate::pamela::error::PamelaError;

/// Something that happens to a process or a resource at a virtual time.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ev {
    /// Continue a thread (start, end of delay, join, wake-up).
    Resume(u32),
    /// A waiter was handed the units of its FCFS request: it starts its service now
    /// (the run-time library's `V` makes it runnable; used by [`super::Arbitration::Fifo`]).
    Granted(u32),
    /// End of an FCFS service: release the thread's units, then continue it.
    Release(u32),
    /// Next completion on a PS resource (stale when the version moved on).
    PsDone(u32, u64),
}

/// A scheduled event. `prio` packs the time (non-negative, so its bits order like the
/// value) above the tie-break key: one integer comparison orders the heap.
pub(super) struct Entry {
    prio: u128,
    pub(super) ev: Ev,
}
impl Entry {
    pub(super) fn time(&self) -> f64 {
        f64::from_bits((self.prio >> 64) as u64)
    }
}
impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.prio == o.prio
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        // reversed: BinaryHeap is a max-heap
        o.prio.cmp(&self.prio)
    }
}

impl Engine<'_> {
    /// Enqueues `ev` at `time`: behind everything at the same time (Fifo), or at a
    /// random place among them (Random).
    pub(super) fn schedule(&mut self, time: f64, ev: Ev) {
        let key = if self.fifo {
            self.seq += 1;
            self.seq
        } else {
            self.rng.next_u64()
        };
        // times are >= 0 (+0.0 normalizes -0.0), so the bit pattern is monotone
        let bits = (time + 0.0).to_bits() as u128;
        self.heap.push(Entry {
            prio: (bits << 64) | key as u128,
            ev,
        });
    }

    /// Whether the running process, about to wake up at `at`, keeps running instead of
    /// going through the list. Fifo: when nothing is scheduled earlier than `at` (the
    /// run-time library's `pam_delay`, thesis appendix E.3), so it goes ahead of those
    /// scheduled at `at` itself. Random: when nothing is scheduled at or before `at`, where
    /// going through the list would pop it straight back (same order, one push less).
    pub(super) fn keeps_control(&mut self, at: f64) -> bool {
        while let Some(top) = self.heap.peek() {
            if let Ev::PsDone(r, v) = top.ev {
                if self.resources[r as usize].version != v {
                    self.heap.pop();
                    continue;
                }
            }
            let t = top.time();
            return if self.fifo { t >= at } else { t > at };
        }
        true
    }

    /// Moves the running process's clock to `at` without the list (counts as an event).
    pub(super) fn advance(&mut self, at: f64) -> Result<(), PamelaError> {
        self.events += 1;
        if self.events > self.max_events {
            return Err(PamelaError::TooManyEvents {
                events: self.events - 1,
            });
        }
        self.now = at;
        Ok(())
    }
}
