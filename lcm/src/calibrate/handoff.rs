//! Hand-off latency between two spinning threads: one-way time for a value written by one
//! thread to be seen by another that is spinning on it ([`spin_once`]). A hand-off to a
//! thread parked in the kernel is priced by [`super::wake_prices`].

use super::clock::Clock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Round trips per timed batch of [`spin_once`]: some microseconds between two
/// processors, so the clock readings around it cost under 1 %.
pub const SPIN_BATCH: u64 = 64;

/// How long [`spin_once`] bounces the flag before it times: long enough for the scheduler
/// to move a new thread off its parent's processor.
pub const SPIN_WARM_UP_S: f64 = 0.005;

/// The flag's value that tells the partner to stop.
const DONE: u64 = u64::MAX;

/// One-way latency of a hand-off caught spinning: two threads ping-pong an atomic,
/// `round_trips` round trips timed in batches of [`SPIN_BATCH`] after a warm-up of
/// [`SPIN_WARM_UP_S`] (a new thread often starts on its parent's processor, and until the
/// scheduler moves it every trip costs a yield). The repetition's number is its median
/// batch over two: one preemption (milliseconds) spoils one batch, not the mean.
pub fn spin_once<C: Clock + ?Sized>(clock: &C, round_trips: u64) -> f64 {
    let flag = Arc::new(AtomicU64::new(0));
    let f2 = Arc::clone(&flag);
    let partner = std::thread::spawn(move || {
        // Answers every odd value with the next even one until told to stop.
        let mut last = 0;
        loop {
            let v = spin_while(&f2, last);
            if v == DONE {
                break;
            }
            last = v + 1;
            f2.store(last, Ordering::Release);
        }
    });
    let mut value = 0;
    let mut trip = || {
        flag.store(value + 1, Ordering::Release);
        value += 2;
        spin_while(&flag, value - 1);
    };
    let warm = clock.now_s();
    while clock.now_s() - warm < SPIN_WARM_UP_S {
        (0..64).for_each(|_| trip());
    }
    let mut batches = Vec::new();
    let mut left = round_trips.max(1);
    while left > 0 {
        let trips = left.min(SPIN_BATCH);
        let start = clock.now_s();
        (0..trips).for_each(|_| trip());
        batches.push((clock.now_s() - start) / (2.0 * trips as f64));
        left -= trips;
    }
    flag.store(DONE, Ordering::Release);
    let _ = partner.join();
    super::quiet::median(&batches)
}

/// Spins while `flag` holds `value` and returns the value it changed to, yielding now and
/// then so a loaded machine that runs both threads on one core still makes progress.
fn spin_while(flag: &AtomicU64, value: u64) -> u64 {
    spin_until(flag, |v| v != value, 4096)
}

/// Spins until `flag` holds a value that satisfies `done` and returns it, yielding the
/// processor every `yield_every` spins (a loaded machine that runs both threads of a
/// kernel on one core still makes progress).
pub(super) fn spin_until(flag: &AtomicU64, done: impl Fn(u64) -> bool, yield_every: u32) -> u64 {
    let mut spins = 0u32;
    loop {
        let v = flag.load(Ordering::Acquire);
        if done(v) {
            return v;
        }
        spins += 1;
        if spins.is_multiple_of(yield_every) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::clock::fake::StepClock;
    use super::*;

    #[test]
    fn spin_hand_off_halves_each_batch_and_stops_its_partner() {
        // Each clock reading advances 1 ms: the warm-up ends after some readings, then each
        // batch of 64 trips spans one step: 1 ms / 128 one way.
        let clock = StepClock::new(1e-3);
        let t = spin_once(&clock, 128);
        assert!((t - 1e-3 / 128.0).abs() < 1e-15, "{t}");
    }

    #[test]
    fn a_real_hand_off_takes_a_positive_finite_time() {
        let clock = super::super::clock::MonotonicClock::new();
        let spin = spin_once(&clock, 200);
        assert!(spin > 0.0 && spin.is_finite(), "{spin}");
    }
}
