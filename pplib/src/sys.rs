//! Thin safe wrappers over the few operating-system calls pplib makes through `libc`
//! (FFI): the monotonic clock, the OS thread id, the process exit hook, the allocator's
//! mmap threshold and per-thread scheduling statistics.

use std::sync::OnceLock;

/// CLOCK_MONOTONIC in nanoseconds.
#[inline]
pub(crate) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC exists on every Linux
    // kernel, so the call cannot fail (it would leave `ts` zeroed if it did).
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
    }
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// The operating-system id of the calling thread (what `top -H` and `perf` show).
pub(crate) fn os_thread_id() -> u64 {
    // SAFETY: gettid takes no arguments, has no preconditions and cannot fail.
    let tid = unsafe { libc::gettid() };
    tid as u64
}

/// Registers `hook` to run when the process exits through `exit` (a return from `main`
/// or `std::process::exit`), at most once per process. Returns false if registration failed.
pub(crate) fn on_process_exit(hook: extern "C" fn()) -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED.get_or_init(|| {
        // SAFETY: `hook` is a plain `extern "C" fn()` that lives for the whole program; atexit
        // only stores the pointer. The hook catches every panic (it never unwinds into libc).
        unsafe { libc::atexit(hook) == 0 }
    })
}

/// Sets glibc's `M_MMAP_THRESHOLD` to `bytes`: allocations of at least that size are mapped
/// from the kernel and unmapped when freed, and glibc no longer raises the threshold when
/// such a block is freed. False where the C library refused or is not glibc.
pub(crate) fn set_mmap_threshold(bytes: usize) -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let Ok(value) = libc::c_int::try_from(bytes) else {
            return false;
        };
        // SAFETY: mallopt only changes allocator parameters; M_MMAP_THRESHOLD accepts any
        // value up to HEAP_MAX (32 MiB on 64-bit) and returns 0 for one it rejects. Blocks
        // already allocated keep how they were allocated, so nothing in use is affected.
        unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, value) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = bytes;
        false
    }
}
