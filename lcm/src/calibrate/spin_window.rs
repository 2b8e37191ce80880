//! The spin window of a channel: the longest wait that a receiver blocked on an empty
//! channel still spends spinning, so that a send finds it awake.
//!
//! A `crossbeam_channel` receiver (and `std::sync::mpsc`, the same design) that finds the
//! channel empty first spins and yields for a while (exponential backoff), then parks in
//! the kernel until a sender wakes it. A send that comes within the window is a cache-line
//! hand-off (`handoff_spin_s`); one that comes later must wake a sleeping thread: the
//! sender pays the wake-up call (`handoff_notify_s`) and the receiver runs only once the
//! scheduler has woken it (`handoff_wake_s`).
//!
//! [`sweep_once`] measures the hand-off after delays `d` swept geometrically
//! ([`delays`]): the receiver announces that it waits and calls `recv` on an empty
//! `crossbeam_channel::bounded(1)`; the sender sees the announcement, spins `d` seconds on
//! the clock, sends, and spins until the receiver acknowledges (an atomic store after its
//! `recv` returned). The sender's clock readings around the send and the acknowledgement
//! give the round trip of one hand-off (send, wake-up if any, acknowledgement). The
//! delays are interleaved (each trip visits every delay) so that other load on the machine
//! spoils all delays alike, and each delay keeps its median trip.
//!
//! [`window_of`] reads the window from the sweep. Two signals jump where the receiver has
//! gone to sleep: the round trip (a wake-up through the scheduler instead of a cache-line
//! hand-off) and the sender's cost of the send (the wake-up call, which a send to a thread
//! still spinning does not make). For each, the shortest delay gives the spinning level
//! and the longest the sleeping level; a delay finds the receiver asleep when both signals
//! are nearer their sleeping level. The window lies between the last delay before the
//! first such one and that one (their geometric mean). Requiring both keeps out what a
//! loaded machine does to one of them (a sender preempted during a long delay lengthens
//! the round trip, not the send). When either signal's levels do not differ by
//! [`JUMP_RATIO`] the sweep shows no window: the receiver never went to sleep, or it never
//! ran while the sender waited (both threads on one processor, the others busy; then every
//! round trip is a scheduler's time slice and no send wakes anyone). Such a repetition
//! gives NaN, which the median of the repetitions leaves out ([`super::quiet::median`]);
//! when every repetition gives NaN the calibration writes no `handoff_spin_window_s`, and
//! lcm takes every wait as caught spinning (its documented fallback).
//!
//! All clock readings are on the sending thread, so a fake clock drives the arithmetic
//! deterministically.

use super::clock::Clock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Shortest delay of the default sweep, seconds.
pub const SHORTEST_DELAY_S: f64 = 0.5e-6;

/// Longest delay of the default sweep, seconds (4096 times the shortest, about 2 ms): far
/// beyond any spin-then-park backoff.
pub const LONGEST_DELAY_S: f64 = 2.048e-3;

/// Delays per doubling of the default sweep.
pub const DELAYS_PER_DOUBLING: u32 = 2;

/// How many times each signal's sleeping level must exceed its spinning level for the sweep
/// to show a jump at all (a quiet machine shows some 20 times for the round trip and more
/// for the send).
pub const JUMP_RATIO: f64 = 4.0;

/// The value that tells the receiver to stop.
const DONE: u64 = u64::MAX;

/// Delays from `shortest_s` up to `longest_s` (inclusive when reached),
/// `per_doubling` of them per doubling.
pub fn delays(shortest_s: f64, longest_s: f64, per_doubling: u32) -> Vec<f64> {
    let factor = 2f64.powf(1.0 / f64::from(per_doubling.max(1)));
    let mut out = Vec::new();
    let mut d = shortest_s.max(0.0);
    if d == 0.0 {
        return vec![0.0];
    }
    while d <= longest_s * (1.0 + 1e-9) {
        out.push(d);
        d *= factor;
    }
    out
}

/// The default sweep: [`SHORTEST_DELAY_S`] to [`LONGEST_DELAY_S`],
/// [`DELAYS_PER_DOUBLING`] per doubling.
pub fn default_delays() -> Vec<f64> {
    delays(SHORTEST_DELAY_S, LONGEST_DELAY_S, DELAYS_PER_DOUBLING)
}

/// One delay of a sweep with its median measurements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepPoint {
    /// Seconds the receiver had been waiting when the value was sent.
    pub delay_s: f64,
    /// Seconds from the start of the send to the sender seeing the acknowledgement.
    pub round_trip_s: f64,
    /// Seconds the send itself took the sender.
    pub sender_s: f64,
}

/// One sweep: for each of `trips` trips, one hand-off after every delay of `delays`; per
/// delay the medians (see the module docs).
pub fn sweep_once<C: Clock + ?Sized>(clock: &C, delays: &[f64], trips: u64) -> Vec<SweepPoint> {
    let (tx, rx) = crossbeam_channel::bounded::<u64>(1);
    let ready = Arc::new(AtomicU64::new(0));
    let ack = Arc::new(AtomicU64::new(0));
    let (ready2, ack2) = (Arc::clone(&ready), Arc::clone(&ack));
    let receiver = std::thread::spawn(move || {
        let mut next = 1;
        loop {
            ready2.store(next, Ordering::Release);
            match rx.recv() {
                Ok(v) if v != DONE => {
                    ack2.store(v, Ordering::Release);
                    next = v + 1;
                }
                _ => break,
            }
        }
    });
    let mut round_trips = vec![Vec::new(); delays.len()];
    let mut sends = vec![Vec::new(); delays.len()];
    let mut seq = 0u64;
    for _ in 0..trips.max(1) {
        for (i, &d) in delays.iter().enumerate() {
            seq += 1;
            wait_for(&ready, seq);
            let waiting = clock.now_s();
            while clock.now_s() - waiting < d {
                std::hint::spin_loop();
            }
            let t0 = clock.now_s();
            if tx.send(seq).is_err() {
                break;
            }
            let t1 = clock.now_s();
            wait_for(&ack, seq);
            let t2 = clock.now_s();
            round_trips[i].push(t2 - t0);
            sends[i].push(t1 - t0);
        }
    }
    let _ = tx.send(DONE);
    let _ = receiver.join();
    delays
        .iter()
        .enumerate()
        .map(|(i, &d)| SweepPoint {
            delay_s: d,
            round_trip_s: super::quiet::median(&round_trips[i]),
            sender_s: super::quiet::median(&sends[i]),
        })
        .collect()
}

/// Spins (yielding now and then) until `flag` holds `value`.
fn wait_for(flag: &AtomicU64, value: u64) {
    let mut spins = 0u32;
    while flag.load(Ordering::Acquire) != value {
        spins += 1;
        if spins.is_multiple_of(1024) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// The spin window of a sweep (see the module docs); NaN for an empty sweep or one without
/// a jump.
pub fn window_of(sweep: &[SweepPoint]) -> f64 {
    let points: Vec<&SweepPoint> = sweep
        .iter()
        .filter(|s| s.round_trip_s.is_finite() && s.delay_s > 0.0)
        .collect();
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return f64::NAN;
    };
    let trip = |s: &SweepPoint| s.round_trip_s;
    let send = |s: &SweepPoint| s.sender_s;
    let jumps = |f: &dyn Fn(&SweepPoint) -> f64| f(last) >= f(first) * JUMP_RATIO;
    if !(jumps(&trip) && jumps(&send)) {
        return f64::NAN;
    }
    let middle = |f: &dyn Fn(&SweepPoint) -> f64| 0.5 * (f(first) + f(last));
    let (trip_middle, send_middle) = (middle(&trip), middle(&send));
    let asleep = |s: &&SweepPoint| s.round_trip_s > trip_middle && s.sender_s > send_middle;
    match points.iter().position(asleep) {
        Some(0) | None => f64::NAN,
        Some(k) => (points[k - 1].delay_s * points[k].delay_s).sqrt(),
    }
}

/// One repetition: [`sweep_once`] then [`window_of`], seconds.
pub fn spin_window_once<C: Clock + ?Sized>(clock: &C, delays: &[f64], trips: u64) -> f64 {
    window_of(&sweep_once(clock, delays, trips))
}

#[cfg(test)]
mod tests {
    use super::super::clock::fake::StepClock;
    use super::*;

    fn point(delay_s: f64, round_trip_s: f64, sender_s: f64) -> SweepPoint {
        SweepPoint {
            delay_s,
            round_trip_s,
            sender_s,
        }
    }

    #[test]
    fn the_default_sweep_goes_from_half_a_microsecond_to_two_milliseconds() {
        let d = default_delays();
        assert_eq!(d[0], 0.5e-6);
        assert!((d[2] - 1e-6).abs() < 1e-18, "{d:?}");
        assert!((d.last().unwrap() - 2.048e-3).abs() < 1e-12, "{d:?}");
        assert_eq!(d.len(), 25);
    }

    #[test]
    fn the_window_lies_between_the_last_spinning_and_the_first_sleeping_delay() {
        // Round trip 0.4 µs spinning, 20 µs asleep; the send 0.1 µs, 7 µs when it wakes the
        // receiver; both jump between 4 and 8 µs.
        let sweep = [
            point(1e-6, 0.4e-6, 0.1e-6),
            point(2e-6, 0.5e-6, 0.1e-6),
            point(4e-6, 0.6e-6, 0.1e-6),
            point(8e-6, 19e-6, 7e-6),
            point(16e-6, 20e-6, 7e-6),
            point(1e-3, 20e-6, 7e-6),
        ];
        let w = window_of(&sweep);
        assert!((w - (4e-6f64 * 8e-6).sqrt()).abs() < 1e-15, "{w}");
    }

    #[test]
    fn a_sweep_without_a_jump_gives_no_window() {
        // The receiver never slept, or shared the sender's processor: every round trip a
        // time slice, no send wakes anyone.
        let never_slept = [point(1e-6, 0.4e-6, 0.1e-6), point(1e-3, 0.7e-6, 0.1e-6)];
        assert!(window_of(&never_slept).is_nan());
        let one_processor = [
            point(1e-6, 31e-6, 0.04e-6),
            point(1e-4, 31e-6, 0.04e-6),
            point(1e-3, 33e-6, 0.3e-6),
        ];
        assert!(window_of(&one_processor).is_nan());
        assert!(window_of(&[]).is_nan());
    }

    #[test]
    fn a_round_trip_that_grows_without_a_wake_up_call_is_not_sleep() {
        // A sender preempted during its long delays lengthens the round trips there, but
        // its sends stay cheap until the receiver really sleeps (from 64 µs on).
        let sweep = [
            point(1e-6, 1e-6, 0.1e-6),
            point(8e-6, 1e-6, 0.1e-6),
            point(16e-6, 30e-6, 0.1e-6),
            point(64e-6, 30e-6, 7e-6),
            point(1e-3, 30e-6, 7e-6),
        ];
        let w = window_of(&sweep);
        assert!((w - (16e-6f64 * 64e-6).sqrt()).abs() < 1e-15, "{w}");
    }

    #[test]
    fn the_sweep_waits_each_delay_and_times_the_send_and_the_round_trip() {
        // Every reading advances one step (a power of two, so the differences are exact):
        // the send spans one step, the round trip two, at every delay.
        let step = 1.0 / f64::from(1u32 << 20);
        let clock = StepClock::new(step);
        let delays = [2.0 * step, 5.0 * step, 10.0 * step];
        let sweep = sweep_once(&clock, &delays, 3);
        assert_eq!(sweep.len(), 3);
        for (s, d) in sweep.iter().zip(delays) {
            assert_eq!(s.delay_s, d);
            assert_eq!(s.sender_s, step, "{s:?}");
            assert_eq!(s.round_trip_s, 2.0 * step, "{s:?}");
        }
        // Per hand-off: the start of the wait, d / step readings while waiting, and the
        // three readings around the send.
        assert_eq!(clock.readings(), 3 * ((2 + 5 + 10) + 3 * 4));
        // Equal round trips: no jump, no window.
        assert!(spin_window_once(&StepClock::new(step), &delays, 2).is_nan());
    }

    #[test]
    fn a_real_sweep_gives_a_window_within_its_delays_or_none() {
        let clock = super::super::clock::MonotonicClock::new();
        let sweep = sweep_once(&clock, &[0.5e-6, 2e-3], 5);
        assert!(
            sweep
                .iter()
                .all(|s| s.round_trip_s > 0.0 && s.sender_s >= 0.0),
            "{sweep:?}"
        );
        let w = window_of(&sweep);
        assert!(w.is_nan() || (w > 0.0 && w <= 2e-3), "{w}");
    }
}
