//! Exact accumulation of thread-time.
//!
//! Time stamps are `u64` nanoseconds of any origin (epoch-scale values are common), so the
//! sweep never converts a time stamp to floating point: it takes differences of integers and
//! sums them in `u128` thread-nanoseconds. The only inexact part is time during which the run
//! was oversubscribed (more Busy + Spinning threads than processors), where each thread
//! counts `p / N` of a processor; that part is kept separately as `f64` thread-nanoseconds.
//! Conversion to seconds happens once, at output.

use std::ops::{AddAssign, Sub};

/// Thread-nanoseconds: an exact integer part plus the (rare) scaled part of oversubscribed
/// intervals.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ThreadNanos {
    /// Exactly counted thread-nanoseconds.
    pub exact: u128,
    /// Thread-nanoseconds from oversubscribed intervals, already scaled by `p / N`.
    pub scaled: f64,
}

impl ThreadNanos {
    /// Zero.
    pub const ZERO: ThreadNanos = ThreadNanos {
        exact: 0,
        scaled: 0.0,
    };

    /// An exact amount.
    pub fn exact(ns: u128) -> ThreadNanos {
        ThreadNanos {
            exact: ns,
            scaled: 0.0,
        }
    }

    /// The amount in seconds.
    pub fn seconds(self) -> f64 {
        if self.scaled == 0.0 {
            ns_to_seconds(self.exact)
        } else {
            ns_to_seconds(self.exact) + self.scaled / 1e9
        }
    }

    /// The amount in nanoseconds (as `f64`).
    pub fn nanos_f64(self) -> f64 {
        self.exact as f64 + self.scaled
    }

    /// True when nothing was accumulated.
    pub fn is_zero(self) -> bool {
        self.exact == 0 && self.scaled == 0.0
    }
}

impl AddAssign for ThreadNanos {
    #[inline]
    fn add_assign(&mut self, rhs: ThreadNanos) {
        self.exact += rhs.exact;
        self.scaled += rhs.scaled;
    }
}

impl Sub for ThreadNanos {
    type Output = ThreadNanos;

    /// Difference of two readings of a cumulative amount (`self` is the later reading).
    #[inline]
    fn sub(self, rhs: ThreadNanos) -> ThreadNanos {
        ThreadNanos {
            exact: self.exact.saturating_sub(rhs.exact),
            scaled: self.scaled - rhs.scaled,
        }
    }
}

/// Converts integer nanoseconds to seconds with one rounding.
pub fn ns_to_seconds(ns: u128) -> f64 {
    if ns < 1 << 53 {
        // Exact in f64; one correctly rounded division gives the f64 nearest to the
        // decimal value (so 1638104983 ns prints as 1.638104983).
        return ns as f64 / 1e9;
    }
    // Split so that values beyond 2^53 ns (~104 days of thread time) keep full precision.
    let whole = (ns / 1_000_000_000) as f64;
    let frac = (ns % 1_000_000_000) as f64 / 1e9;
    whole + frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_of_exact_and_scaled_parts() {
        let t = ThreadNanos {
            exact: 1_500_000_000,
            scaled: 250_000_000.0,
        };
        assert_eq!(t.seconds(), 1.75);
    }

    #[test]
    fn difference_of_readings() {
        let a = ThreadNanos {
            exact: 10,
            scaled: 1.5,
        };
        let b = ThreadNanos {
            exact: 25,
            scaled: 4.0,
        };
        assert_eq!(
            b - a,
            ThreadNanos {
                exact: 15,
                scaled: 2.5
            }
        );
    }

    #[test]
    fn large_values_keep_precision() {
        let ns: u128 = 1_700_000_000_123_456_789;
        let s = ns_to_seconds(ns);
        assert!((s - 1_700_000_000.123_456_7).abs() < 1e-6);
    }
}
