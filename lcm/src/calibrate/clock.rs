//! The clock the calibration kernels read, behind a trait so that tests can drive the
//! kernels' arithmetic with a fake clock.

use std::time::Instant;

/// A monotonic clock in seconds.
pub trait Clock: Sync {
    /// Seconds since an arbitrary fixed origin; never decreases.
    fn now_s(&self) -> f64;
}

/// The real clock: [`std::time::Instant`] since the clock was made.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    /// A clock whose origin is now.
    pub fn new() -> MonotonicClock {
        MonotonicClock {
            origin: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        MonotonicClock::new()
    }
}

impl Clock for MonotonicClock {
    fn now_s(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }
}

/// Seconds `work` takes on `clock`.
pub fn time_it<C: Clock + ?Sized>(clock: &C, work: impl FnOnce()) -> f64 {
    let start = clock.now_s();
    work();
    clock.now_s() - start
}

#[cfg(test)]
pub(crate) mod fake {
    //! A fake clock and a fake switch counter for the kernels' unit tests.
    use super::Clock;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Every reading advances the clock by `step_s` (the first reading returns `step_s`).
    pub struct StepClock {
        /// Seconds per reading.
        pub step_s: f64,
        readings: AtomicU64,
    }

    impl StepClock {
        /// A clock advancing `step_s` per reading.
        pub fn new(step_s: f64) -> StepClock {
            StepClock {
                step_s,
                readings: AtomicU64::new(0),
            }
        }

        /// Readings so far.
        pub fn readings(&self) -> u64 {
            self.readings.load(Ordering::SeqCst)
        }
    }

    impl Clock for StepClock {
        fn now_s(&self) -> f64 {
            let k = self.readings.fetch_add(1, Ordering::SeqCst) + 1;
            k as f64 * self.step_s
        }
    }

    /// A switch counter (per thread) that grows at every other reading: a receiver that
    /// reads it before and after each value "parks" while it waits for values 1, 3, 5, ...
    /// (the reading after value v is the (v+1)-th).
    pub fn grows_every_other_reading() -> Option<u64> {
        thread_local! {
            static READINGS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        }
        READINGS.with(|r| {
            r.set(r.get() + 1);
            Some(r.get() / 2)
        })
    }
}
