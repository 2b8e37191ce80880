//! The recorder's clock: raw readings on the hot path, stored raw in the log with the time
//! scale that converts them to CLOCK_MONOTONIC nanoseconds (readers convert).
//!
//! Two sources: the processor's time-stamp counter (default where the kernel itself uses it
//! as clocksource; one `rdtsc`) and CLOCK_MONOTONIC through the vDSO (elsewhere, or with
//! `PPLIB_CLOCK=monotonic`). Either way, log times are CLOCK_MONOTONIC nanoseconds, so logs
//! of both kinds compare.
//!
//! The TSC's rate is measured against CLOCK_MONOTONIC across each session, without
//! sleeping at its start: a session starts in well under a millisecond (the first one of a
//! process busy-waits 100 µs for a provisional rate), and the rate that converts the log is
//! measured from the start to after the session's last event. A first session shorter
//! than 20 ms sleeps the rest of those 20 ms at its end, after the program's work, for a
//! precise rate. While the session records, the header's scale is rewritten from time to
//! time, so the log of a killed process converts well too.
//!
//! Precision: the rate is measured between readings of the TSC bracketed by two readings of
//! CLOCK_MONOTONIC (each bracket a few hundred ns at most), so over the 20 ms or more of a
//! finished session it is good to about 1e-5, and a log time lies within a few hundred ns
//! of the CLOCK_MONOTONIC reading it stands for. A later session of the same process is
//! converted with the rate from the first session's start to its own end (a longer
//! baseline still). A log cut short (a killed process) keeps the last scale written while
//! recording, measured at most 100 ms before the last chunk written, or, in the process's
//! first milliseconds, when the baseline was half as long.

mod calibration;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::counters::tsc;
use crate::log::binary::TimeScale;
use crate::padded::Padded;
use crate::sys;
pub(crate) use calibration::Remeasure;
use calibration::TscCalibration;

/// Which source raw readings come from (fixed per session, stored in the log header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockSource {
    /// The time-stamp counter, converted with a rate measured across the session.
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

    /// True where the TSC is a usable clock: x86-64, with the kernel's own clocksource
    /// `tsc` (the kernel checked that it is invariant and synchronized across processors).
    /// There [`ClockSource::from_env`] picks it unless `PPLIB_CLOCK=monotonic`.
    pub fn tsc_usable() -> bool {
        tsc::usable()
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

/// Raw clock units per microsecond of the selected source: exact for CLOCK_MONOTONIC, the
/// latest measured rate for the TSC (approximate while a process's first session records).
static RAW_PER_MICROSECOND: AtomicU64 = AtomicU64::new(1000);

/// The clock of one session: its source and, for the TSC, the calibration of its readings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionClock {
    tsc: Option<TscCalibration>,
}

impl SessionClock {
    /// Selects the source of [`raw_now`] for a session about to record (no sleep).
    pub(crate) fn start(source: ClockSource) -> SessionClock {
        let tsc = match source {
            ClockSource::Tsc => Some(TscCalibration::begin()),
            ClockSource::Monotonic => {
                RAW_PER_MICROSECOND.store(1000, Ordering::Relaxed);
                None
            }
        };
        USE_TSC.store(tsc.is_some(), Ordering::Relaxed);
        SessionClock { tsc }
    }

    /// The scale to write in the log's header at the start: exact for CLOCK_MONOTONIC,
    /// provisional for the TSC (to be replaced as the session goes on and at its end).
    pub(crate) fn initial_scale(&self) -> TimeScale {
        self.tsc
            .as_ref()
            .map_or(TimeScale::IDENTITY, TscCalibration::provisional_scale)
    }

    /// For the TSC: what measures the scale anew while the session records and at its end.
    pub(crate) fn remeasure(&self) -> Option<Remeasure> {
        self.tsc.map(Remeasure::new)
    }
}

/// Sets [`raw_micros`]'s unit from a TSC rate (ns per tick × 2^32).
fn set_raw_per_microsecond(ns_per_raw_q32: u64) {
    let per_us = (1000u128 << 32) / u128::from(ns_per_raw_q32.max(1));
    RAW_PER_MICROSECOND.store(
        per_us.clamp(1, u128::from(u64::MAX)) as u64,
        Ordering::Relaxed,
    );
}

/// `us` microseconds in raw units of the selected source (for comparisons with differences
/// of [`raw_now`] readings). With the TSC, approximate (to about 1e-3) until the first
/// session of the process has recorded for a while: for thresholds, not for log times.
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
