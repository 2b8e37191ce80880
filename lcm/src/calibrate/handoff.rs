//! Hand-off latency between two threads: one-way time for a value written by one thread to
//! be seen by another that is spinning on it ([`spin_once`]), or that sleeps in the kernel
//! until woken ([`wake_once`]); and what waking a sleeping thread costs the thread that
//! wakes it ([`notify_once`]: in a pipeline whose next stage sleeps while it waits, the
//! stage that hands an item over pays it).

use super::clock::Clock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

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
    let mut spins = 0u32;
    loop {
        let v = flag.load(Ordering::Acquire);
        if v != value {
            return v;
        }
        spins += 1;
        if spins.is_multiple_of(4096) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// One-way latency of a hand-off to a sleeping thread: two threads ping-pong a counter
/// under a mutex, each blocking on a condition variable (no spinning) until the other
/// advances it, so every hand-off wakes a thread the kernel put to sleep; `round_trips`
/// round trips timed together, halved.
pub fn wake_once<C: Clock + ?Sized>(clock: &C, round_trips: u64) -> f64 {
    let shared = Arc::new((Mutex::new(0u64), Condvar::new()));
    let s2 = Arc::clone(&shared);
    let trips = round_trips.max(1);
    let partner = std::thread::spawn(move || {
        let (m, cv) = &*s2;
        let mut v = m.lock().unwrap_or_else(|e| e.into_inner());
        for k in 0..trips {
            while *v != 2 * k + 1 {
                v = cv.wait(v).unwrap_or_else(|e| e.into_inner());
            }
            *v += 1;
            cv.notify_one();
        }
    });
    let (m, cv) = &*shared;
    let start = clock.now_s();
    {
        let mut v = m.lock().unwrap_or_else(|e| e.into_inner());
        for k in 0..trips {
            *v = 2 * k + 1;
            cv.notify_one();
            while *v != 2 * k + 2 {
                v = cv.wait(v).unwrap_or_else(|e| e.into_inner());
            }
        }
    }
    let elapsed = clock.now_s() - start;
    let _ = partner.join();
    elapsed / (2.0 * trips as f64)
}

/// How long [`notify_once`] lets its partner fall asleep before each timed wake-up.
pub const NOTIFY_SETTLE_S: f64 = 50e-6;

/// Seconds the waking thread spends handing a value to a thread asleep on a condition
/// variable: the partner announces that it waits and blocks; this thread lets it fall
/// asleep ([`NOTIFY_SETTLE_S`], spinning), then times setting the value under the mutex and
/// `notify_one` (the kernel's wake-up call). `trips` wake-ups, the median.
pub fn notify_once<C: Clock + ?Sized>(clock: &C, trips: u64) -> f64 {
    let trips = trips.max(1);
    // (value handed over, partner asleep-or-about-to-be for that value)
    let shared = Arc::new((Mutex::new((0u64, 0u64)), Condvar::new()));
    let s2 = Arc::clone(&shared);
    let partner = std::thread::spawn(move || {
        let (m, cv) = &*s2;
        let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
        for k in 1..=trips {
            g.1 = k;
            while g.0 < k {
                g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
            }
        }
    });
    let (m, cv) = &*shared;
    let mut times = Vec::with_capacity(trips as usize);
    for k in 1..=trips {
        while m.lock().map_or(k, |g| g.1) < k {
            std::hint::spin_loop();
        }
        let settle = clock.now_s();
        while clock.now_s() - settle < NOTIFY_SETTLE_S {
            std::hint::spin_loop();
        }
        let start = clock.now_s();
        {
            let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
            g.0 = k;
        }
        cv.notify_one();
        times.push(clock.now_s() - start);
    }
    let _ = partner.join();
    super::quiet::median(&times)
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
    fn wake_hand_off_halves_the_round_trips() {
        let clock = StepClock::new(1e-3);
        let t = wake_once(&clock, 50);
        assert!((t - 1e-5).abs() < 1e-15, "{t}");
    }

    #[test]
    fn real_hand_offs_take_a_positive_finite_time() {
        let clock = super::super::clock::MonotonicClock::new();
        let spin = spin_once(&clock, 200);
        let wake = wake_once(&clock, 200);
        let notify = notify_once(&clock, 50);
        assert!(
            spin > 0.0 && spin.is_finite() && wake > 0.0 && notify > 0.0 && notify.is_finite(),
            "{spin} {wake} {notify}"
        );
    }

    #[test]
    fn a_wake_up_is_timed_from_the_store_to_the_notify() {
        // Readings around the settling spin and the timed section: the timed section spans
        // exactly one step of the fake clock.
        let clock = StepClock::new(1e-4);
        let t = notify_once(&clock, 5);
        assert!((t - 1e-4).abs() < 1e-15, "{t}");
    }
}
