//! The recorder's clock: raw readings on the hot path, stored raw in the log with the time
//! scale that converts them to CLOCK_MONOTONIC nanoseconds (readers convert).
//!
//! Two sources: the processor's time-stamp counter (default where the kernel itself uses it
//! as clocksource; one `rdtsc`, calibrated once per process against CLOCK_MONOTONIC over
//! 20 ms) and CLOCK_MONOTONIC through the vDSO (elsewhere, or with `PPLIB_CLOCK=monotonic`).
//! Either way, log times are CLOCK_MONOTONIC nanoseconds, so logs of both kinds compare.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::counters::tsc;
use crate::log::binary::TimeScale;
use crate::padded::Padded;
use crate::sys;

/// Which source raw readings come from (fixed per session, stored in the log header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockSource {
    /// The time-stamp counter, converted with a calibrated rate.
    Tsc,
    /// CLOCK_MONOTONIC.
    Monotonic,
}

impl ClockSource {
    /// The name written in the log header.
    pub fn header_name(self) -> &'static str {
        match self {
            ClockSource::Tsc => "tsc (calibrated to CLOCK_MONOTONIC ns)",
            ClockSource::Monotonic => "CLOCK_MONOTONIC",
        }
    }

    /// The source to use: `PPLIB_CLOCK=monotonic|tsc` if set (tsc only where usable),
    /// otherwise the TSC where the kernel trusts it.
    pub fn from_env() -> ClockSource {
        match std::env::var("PPLIB_CLOCK").as_deref() {
            Ok("monotonic") => ClockSource::Monotonic,
            _ if tsc::usable() => ClockSource::Tsc,
            _ => ClockSource::Monotonic,
        }
    }
}

/// True while raw readings come from the TSC.
static USE_TSC: Padded<AtomicBool> = Padded(AtomicBool::new(false));

/// Raw clock units per microsecond of the selected source (set by [`select`]).
static RAW_PER_MICROSECOND: AtomicU64 = AtomicU64::new(1000);

/// Selects the source of [`raw_now`] (called at session start, before recording).
pub(crate) fn select(source: ClockSource) {
    let scale = time_scale(source);
    let per_us = (1000u128 << 32) / u128::from(scale.ns_per_raw_q32.max(1));
    RAW_PER_MICROSECOND.store(
        per_us.clamp(1, u128::from(u64::MAX)) as u64,
        Ordering::Relaxed,
    );
    USE_TSC.store(source == ClockSource::Tsc, Ordering::Relaxed);
}

/// `us` microseconds in raw units of the selected source (for comparisons with differences
/// of [`raw_now`] readings).
#[inline]
pub(crate) fn raw_micros(us: u64) -> u64 {
    RAW_PER_MICROSECOND
        .load(Ordering::Relaxed)
        .saturating_mul(us)
}

/// A raw reading of the clock the recorder uses for the current (or last) session: TSC
/// ticks or CLOCK_MONOTONIC ns. Exposed to measure the clock's cost (the `overhead` example).
#[inline(always)]
pub fn raw_now() -> u64 {
    if USE_TSC.load(Ordering::Relaxed) {
        tsc::read()
    } else {
        monotonic_now()
    }
}

/// [`raw_now`] when the source is CLOCK_MONOTONIC: out of line, so that the code inlined
/// at every instrumentation point is the TSC's (one instruction) and stays small.
#[inline(never)]
fn monotonic_now() -> u64 {
    sys::monotonic_ns()
}

/// How raw readings of `source` convert to CLOCK_MONOTONIC nanoseconds (calibrates the
/// TSC on first use, 20 ms once per process).
pub(crate) fn time_scale(source: ClockSource) -> TimeScale {
    match source {
        ClockSource::Monotonic => TimeScale::IDENTITY,
        ClockSource::Tsc => *calibration(),
    }
}

/// One bracketed reading: (tsc, monotonic ns), retried until the bracket is tight.
fn pair() -> (u64, u64) {
    let mut best = (0, 0, u64::MAX);
    for _ in 0..50 {
        let a = sys::monotonic_ns();
        let t = tsc::read();
        let b = sys::monotonic_ns();
        let width = b.saturating_sub(a);
        if width < best.2 {
            best = (t, a + width / 2, width);
        }
        if width < 200 {
            break;
        }
    }
    (best.0, best.1)
}

/// The TSC's time scale, measured once per process over 20 ms.
fn calibration() -> &'static TimeScale {
    static CAL: OnceLock<TimeScale> = OnceLock::new();
    CAL.get_or_init(|| {
        let (t0, ns0) = pair();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let (t1, ns1) = pair();
        let ticks = t1.saturating_sub(t0).max(1);
        let mult = ((u128::from(ns1.saturating_sub(ns0)) << 32) / u128::from(ticks)) as u64;
        TimeScale {
            ref_raw: t1,
            ref_ns: ns1,
            ns_per_raw_q32: mult,
        }
    })
}
