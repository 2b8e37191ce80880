//! What recording one event costs on this machine, measured when a session ends and stored
//! in its log's header (`event_cost_ps`, [`crate::log::binary`]), so that `pp` can say how
//! much of the profiled time the recording itself took (docs/event-logs.md, "The cost of
//! recording").
//!
//! The measure is a few short bursts of events recorded into a scratch buffer that belongs
//! to no thread and no session (nothing of it reaches a log), through the steps of the
//! recording hot path (`local::emit_timed`): a relaxed load of the session state, the
//! thread's buffer from a thread-local, the check that the buffer is the session's, the
//! room for the event, one clock reading, and the event encoded in place. Each burst is
//! timed with CLOCK_MONOTONIC; the fastest burst per event is the cost (other processes or
//! an interrupt only ever make a burst slower). It runs on the thread that ends the
//! session, after its last event and before the log is finished: about
//! [`ROUNDS`] × [`EVENTS_PER_ROUND`] events (~0.1 ms at 10 ns an event).
//!
//! It leaves out what recording costs beyond those steps (see the docs): a buffer's hand-off
//! to the writer thread (once per ~13 000 events) and the writer's own work, the cache lines
//! the program loses to the buffers, the overlap of work across a clock reading (which
//! waits for the instructions before it to finish), and, with many threads, contention for
//! memory and the writer.

use std::cell::Cell;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use super::buffer::ThreadBuffer;
use crate::clock;
use crate::log::binary::code;
use crate::padded::Padded;
use crate::sys;

/// Bursts timed; the fastest counts.
pub(crate) const ROUNDS: u32 = 16;

/// Events per burst (a few microseconds: most bursts run without an interruption).
pub(crate) const EVENTS_PER_ROUND: u32 = 512;

/// The scratch buffer's size: room for a burst of events of the longest kind measured.
const SCRATCH_BYTES: usize = 16 << 10;

/// The state the scratch buffer is assigned to (no session reaches it: a session's state
/// is its generation, counted from 1, shifted left by one). The buffer is not in the list
/// of buffers a session's end drains, either.
const SCRATCH_STATE: u64 = u64::MAX;

/// Stands in for the recorder's session state in the bursts (a padded static like it).
static SCRATCH_SESSION: Padded<AtomicU64> = Padded(AtomicU64::new(SCRATCH_STATE));

/// The scratch buffer, shared by every session of the process (bursts run one at a time:
/// only a session's end runs one).
static SCRATCH: OnceLock<ThreadBuffer> = OnceLock::new();

thread_local! {
    /// Stands in for the recorder's thread-local current buffer in the bursts.
    static SCRATCH_CURRENT: Cell<Option<&'static ThreadBuffer>> = const { Cell::new(None) };
}

/// Measures the cost of recording one event now, in picoseconds (0, not measured, if the
/// clock did not advance over a burst or the thread's thread-locals are gone).
pub(crate) fn measure_ps() -> u64 {
    let buffer = SCRATCH.get_or_init(|| ThreadBuffer::new(SCRATCH_BYTES));
    if SCRATCH_CURRENT.try_with(|c| c.set(Some(buffer))).is_err() {
        return 0;
    }
    fastest_round_ps(ROUNDS, EVENTS_PER_ROUND, sys::monotonic_ns, |events| {
        buffer.assign(SCRATCH_STATE, 0);
        burst(events, clock::raw_now);
    })
}

/// The cost per event, in picoseconds, of the fastest of `rounds` calls of `round(events)`,
/// each timed by two readings of `now_ns` (nanoseconds); 0 when no round took any time.
pub(crate) fn fastest_round_ps(
    rounds: u32,
    events: u32,
    mut now_ns: impl FnMut() -> u64,
    mut round: impl FnMut(u32),
) -> u64 {
    let mut fastest_ns = u64::MAX;
    for _ in 0..rounds {
        let start = now_ns();
        round(events);
        let end = now_ns();
        fastest_ns = fastest_ns.min(end.saturating_sub(start));
    }
    if fastest_ns == u64::MAX || events == 0 {
        return 0;
    }
    (u128::from(fastest_ns) * 1000 / u128::from(events)) as u64
}

/// Records `events` task begin and end events, alternately, into the calling thread's
/// scratch buffer (as the hot path records into its current buffer), each at the time
/// `read_clock` gives. Never inlined: the bursts run the same code each time.
#[inline(never)]
fn burst(events: u32, read_clock: impl Fn() -> u64) {
    for i in 0..events {
        let state = SCRATCH_SESSION.load(Ordering::Relaxed);
        let code = if i & 1 == 0 {
            code::TASK_BEGIN
        } else {
            code::TASK_END
        };
        let slot = SCRATCH_CURRENT
            .try_with(Cell::get)
            .ok()
            .flatten()
            .filter(|b| b.state() == state)
            .and_then(ThreadBuffer::reserve);
        if let Some(slot) = slot {
            let time = read_clock();
            slot.push(time, code, 0);
        }
        black_box(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock that gives the readings of `script` in turn.
    fn scripted(script: &[u64]) -> impl FnMut() -> u64 + '_ {
        let mut at = 0;
        move || {
            at += 1;
            script[at - 1]
        }
    }

    #[test]
    fn the_fastest_round_per_event_is_the_cost() {
        // Three rounds of 1000 events took 12, 10 and 50 µs: 10 ns (10 000 ps) an event.
        let clock = scripted(&[0, 12_000, 20_000, 30_000, 40_000, 90_000]);
        let mut rounds = Vec::new();
        let ps = fastest_round_ps(3, 1000, clock, |n| rounds.push(n));
        assert_eq!(ps, 10_000);
        assert_eq!(rounds, [1000, 1000, 1000]);
        // Sub-nanosecond costs keep their picoseconds: 512 events in 4 µs.
        assert_eq!(fastest_round_ps(1, 512, scripted(&[7, 4007]), |_| ()), 7812);
    }

    #[test]
    fn a_clock_that_does_not_advance_measures_nothing() {
        assert_eq!(fastest_round_ps(2, 100, scripted(&[5, 5, 6, 6]), |_| ()), 0);
        // A reading that goes backwards counts as no time, not as a huge one.
        assert_eq!(fastest_round_ps(1, 100, scripted(&[9, 3]), |_| ()), 0);
        assert_eq!(fastest_round_ps(0, 100, scripted(&[]), |_| ()), 0);
    }

    #[test]
    fn a_burst_records_into_the_scratch_buffer_at_the_clock_readings() {
        let buffer: &'static ThreadBuffer = Box::leak(Box::new(ThreadBuffer::new(4096)));
        SCRATCH_CURRENT.with(|c| c.set(Some(buffer)));
        buffer.assign(SCRATCH_STATE, 0);
        // A fake clock that advances 3 units a reading: 4 events at 100, 103, 106, 109.
        let time = Cell::new(97u64);
        burst(4, || {
            time.set(time.get() + 3);
            time.get()
        });
        let mut chunk = None;
        buffer.drain(SCRATCH_STATE, |thread, base, bytes| {
            chunk = Some((thread, base, bytes))
        });
        let (thread, base, bytes) = chunk.expect("the burst recorded events");
        assert_eq!((thread, base), (0, 100));
        // Code, delta (one byte each): begin +0, end +3, begin +3, end +3.
        let (b, e) = (code::TASK_BEGIN, code::TASK_END);
        assert_eq!(bytes, [b, 0, e, 3, b, 3, e, 3]);
        SCRATCH_CURRENT.with(|c| c.set(None));
    }

    #[test]
    fn measuring_gives_a_positive_cost_below_a_microsecond() {
        let ps = measure_ps();
        assert!(ps > 0, "a burst of 512 events took no time");
        // Generous: a recorded event costs tens of nanoseconds, and even on a loaded
        // machine the fastest of 16 bursts stays far below a microsecond an event.
        assert!(ps < 1_000_000, "{ps} ps an event");
    }
}
