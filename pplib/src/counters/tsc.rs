//! The time-stamp counter (TSC) of x86-64 processors: the cheapest clock there is, used by
//! the recorder when the kernel itself trusts it (`clocksource` is `tsc`), calibrated
//! against CLOCK_MONOTONIC.

/// Reads the time-stamp counter (ticks; not serializing).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn read() -> u64 {
    // SAFETY: RDTSC is available on every x86-64 processor and has no memory effects; the
    // kernel does not disable it for user space on Linux (we only use it where the
    // kernel's own clocksource is the TSC).
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// No TSC on this architecture: never called (the clock falls back to CLOCK_MONOTONIC).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn read() -> u64 {
    crate::sys::monotonic_ns()
}

/// True if the TSC is a usable clock here: x86-64 and the kernel's clocksource is `tsc`
/// (the kernel checked it is invariant and synchronized across processors).
pub(crate) fn usable() -> bool {
    cfg!(target_arch = "x86_64")
        && std::fs::read_to_string(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )
        .map(|s| s.trim() == "tsc")
        .unwrap_or(false)
}
