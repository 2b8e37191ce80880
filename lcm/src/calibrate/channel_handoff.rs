//! The channel hand-off kernel: hand-offs over a `crossbeam_channel` after a receiver has
//! waited a given delay, timed on the sender, each with whether the receiver parked.
//!
//! The receiver announces that it waits and calls `recv` on an empty
//! `crossbeam_channel::bounded(1)`; the sender sees the announcement, spins `d` seconds on
//! the clock, sends, and spins until the receiver acknowledges (an atomic store after its
//! `recv` returned). The sender's clock readings around the send and the acknowledgement
//! give the round trip of one hand-off (send, wake-up if any, acknowledgement) and the
//! sender's cost of the send. The receiver reads its own count of voluntary context
//! switches ([`pplib::thread::voluntary_switches`]) before it announces that it waits and
//! after it has acknowledged, outside the timed path: a thread that parks blocks in the
//! kernel and is switched out voluntarily, while spinning and yielding never count (a park
//! that finds the wake-up already given returns without blocking, and nothing else in the
//! receiver's loop blocks), so the count grows across a hand-off when the receiver slept
//! in it.
//!
//! The delays are interleaved (each trip visits every delay once) so that other load on the
//! machine spoils all delays alike. The channel is the one pipelines use, so a hand-off
//! after a long delay is what a program's send to a parked stage costs: the receiver parks
//! with `thread::park` (a futex wait) and the send wakes it with a futex wake.
//!
//! Two readers use the same hand-offs: [`super::spin_window`] (where the receiver starts to
//! park) and [`super::wake_prices`] (what a hand-off to a receiver that has long been
//! parked costs). All clock readings are on the sending thread and the switch counter is a
//! parameter of [`handoffs_with`], so fakes drive the arithmetic deterministically.

use super::clock::Clock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The value that tells the receiver to stop.
const DONE: u64 = u64::MAX;

/// Reads the calling thread's count of voluntary context switches (the times it blocked in
/// the kernel), None where the system does not count them.
pub type SwitchCounter = fn() -> Option<u64>;

/// One hand-off of the kernel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChannelHandoff {
    /// Seconds the receiver had been waiting when the value was sent.
    pub delay_s: f64,
    /// Seconds the send itself took the sender.
    pub send_s: f64,
    /// Seconds from the start of the send to the sender seeing the acknowledgement.
    pub round_trip_s: f64,
    /// Whether the receiver parked while it waited (its voluntary context switches grew);
    /// None where the system does not count them.
    pub parked: Option<bool>,
}

impl ChannelHandoff {
    /// Seconds from the end of the send to the sender seeing the acknowledgement: how long
    /// the receiver took to run once the send had returned, plus the acknowledgement's trip.
    pub fn after_send_s(&self) -> f64 {
        self.round_trip_s - self.send_s
    }
}

/// `trips` trips of one hand-off after every delay of `delays` (see the module docs), in
/// the order they ran; the receiver counts its parks with
/// [`pplib::thread::voluntary_switches`].
pub fn handoffs_once<C: Clock + ?Sized>(
    clock: &C,
    delays: &[f64],
    trips: u64,
) -> Vec<ChannelHandoff> {
    handoffs_with(clock, pplib::thread::voluntary_switches, delays, trips)
}

/// [`handoffs_once`] with the receiver's switch counter given: `switches` runs on the
/// receiving thread, once before its first announcement and once after each
/// acknowledgement.
pub fn handoffs_with<C: Clock + ?Sized>(
    clock: &C,
    switches: SwitchCounter,
    delays: &[f64],
    trips: u64,
) -> Vec<ChannelHandoff> {
    let (tx, rx) = crossbeam_channel::bounded::<u64>(1);
    let ready = Arc::new(AtomicU64::new(0));
    let ack = Arc::new(AtomicU64::new(0));
    let (ready2, ack2) = (Arc::clone(&ready), Arc::clone(&ack));
    // Per value received: whether the receiver parked while it waited for it (None: the
    // system does not say). The reading after one acknowledgement is the reading before the
    // next announcement.
    let receiver = std::thread::spawn(move || {
        let mut parked: Vec<(u64, Option<bool>)> = Vec::new();
        let mut before = switches();
        let mut next = 1;
        loop {
            ready2.store(next, Ordering::Release);
            match rx.recv() {
                Ok(v) if v != DONE => {
                    ack2.store(v, Ordering::Release);
                    let after = switches();
                    parked.push((v, before.zip(after).map(|(b, a)| a > b)));
                    before = after;
                    next = v + 1;
                }
                _ => break,
            }
        }
        parked
    });
    // Value k (from 1) is the hand-off at index k - 1.
    let mut handoffs = Vec::new();
    let mut seq = 0u64;
    'trips: for _ in 0..trips.max(1) {
        for &d in delays {
            seq += 1;
            wait_for(&ready, seq);
            let waiting = clock.now_s();
            while clock.now_s() - waiting < d {
                std::hint::spin_loop();
            }
            let t0 = clock.now_s();
            if tx.send(seq).is_err() {
                break 'trips;
            }
            let t1 = clock.now_s();
            wait_for(&ack, seq);
            let t2 = clock.now_s();
            handoffs.push(ChannelHandoff {
                delay_s: d,
                send_s: t1 - t0,
                round_trip_s: t2 - t0,
                parked: None,
            });
        }
    }
    let _ = tx.send(DONE);
    for (value, p) in receiver.join().unwrap_or_default() {
        let index = usize::try_from(value)
            .ok()
            .and_then(|v| v.checked_sub(1))
            .and_then(|i| handoffs.get_mut(i));
        if let Some(h) = index {
            h.parked = p;
        }
    }
    handoffs
}

/// Spins (yielding now and then) until `flag` holds `value`.
fn wait_for(flag: &AtomicU64, value: u64) {
    super::handoff::spin_until(flag, |v| v == value, 1024);
}

#[cfg(test)]
mod tests {
    use super::super::clock::fake::{grows_every_other_reading, StepClock};
    use super::*;

    #[test]
    fn each_hand_off_is_timed_around_its_send_and_its_acknowledgement() {
        // Every reading advances one step (a power of two, so the differences are exact):
        // the send spans one step, the round trip two, so one step after the send.
        let step = 1.0 / f64::from(1u32 << 20);
        let clock = StepClock::new(step);
        let delays = [2.0 * step, 5.0 * step];
        let h = handoffs_with(&clock, || None, &delays, 3);
        assert_eq!(h.len(), 6);
        for (k, x) in h.iter().enumerate() {
            assert_eq!(x.delay_s, delays[k % 2], "{x:?}");
            assert_eq!((x.send_s, x.round_trip_s), (step, 2.0 * step), "{x:?}");
            assert_eq!(x.after_send_s(), step, "{x:?}");
            assert_eq!(x.parked, None, "{x:?}");
        }
    }

    #[test]
    fn each_hand_off_says_whether_the_receivers_switches_grew_in_it() {
        let step = 1.0 / f64::from(1u32 << 20);
        let h = handoffs_with(
            &StepClock::new(step),
            grows_every_other_reading,
            &[2.0 * step],
            4,
        );
        let parked: Vec<Option<bool>> = h.iter().map(|x| x.parked).collect();
        assert_eq!(parked, [Some(true), Some(false), Some(true), Some(false)]);
    }
}
