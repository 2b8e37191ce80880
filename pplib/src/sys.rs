//! Thin safe wrappers over the few operating-system calls pplib makes through `libc`
//! (FFI): the monotonic clock, the OS thread id, the process exit hook, the allocator's
//! mmap threshold, per-thread scheduling statistics and the writer thread's policy.

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

/// The CPU time of the calling thread in nanoseconds (CLOCK_THREAD_CPUTIME_ID: the time the
/// kernel ran it, user and system), or None where the clock is not available.
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; on failure the call returns -1 and `ts`
    // is not used.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64)
}

/// The processors the calling thread may run on (Linux: its affinity mask), in increasing
/// order; None where the system cannot say.
pub(crate) fn allowed_cpus() -> Option<Vec<usize>> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: an all-zero cpu_set_t is a valid empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` is valid and writable and its size is passed; pid 0 names the calling
        // thread; on failure the call returns -1 and `set` is not read.
        let rc =
            unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
        if rc != 0 {
            return None;
        }
        // SAFETY: CPU_ISSET reads the valid set at an index below CPU_SETSIZE.
        let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .collect();
        (!cpus.is_empty()).then_some(cpus)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Confines the calling thread to processor `cpu` (Linux: its affinity mask); false where
/// the system does not allow it.
pub(crate) fn pin_current_thread(cpu: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        if cpu >= libc::CPU_SETSIZE as usize {
            return false;
        }
        // SAFETY: an all-zero cpu_set_t is a valid empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: CPU_SET writes the valid set at an index below CPU_SETSIZE (checked above).
        unsafe { libc::CPU_SET(cpu, &mut set) };
        // SAFETY: `set` is valid and its size is passed; pid 0 names the calling thread.
        let rc =
            unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
        rc == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpu;
        false
    }
}

/// The calling thread's resource usage (`getrusage(RUSAGE_THREAD)`), or None where the
/// system cannot say.
fn thread_rusage() -> Option<libc::rusage> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: an all-zero rusage is a valid value of this plain C struct.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `usage` is valid and writable; RUSAGE_THREAD names the calling thread; on
        // failure the call returns -1 and `usage` is not used.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
        (rc == 0).then_some(usage)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The involuntary context switches of the calling thread since it started (the kernel
/// took its processor away while it could run: a higher-priority thread, the end of its
/// time slice), or None where the system cannot say.
pub(crate) fn thread_involuntary_switches() -> Option<u64> {
    thread_rusage().map(|u| u.ru_nivcsw as u64)
}

/// The voluntary context switches of the calling thread since it started (it gave up its
/// processor because it blocked: a futex wait, a sleep, a read that waited), or None where
/// the system cannot say. A `sched_yield` that hands the processor over counts as
/// involuntary, and one on an otherwise idle processor does not switch at all.
pub(crate) fn thread_voluntary_switches() -> Option<u64> {
    thread_rusage().map(|u| u.ru_nvcsw as u64)
}

/// `omp_get_max_threads()` of the OpenMP runtime loaded in the process (the team size of
/// the next parallel region: `OMP_NUM_THREADS`, or the runtime's default), or None when no
/// OpenMP runtime is loaded.
pub(crate) fn openmp_max_threads() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: dlsym with RTLD_DEFAULT only searches the symbols already loaded and
        // returns null when there is none; the name is a NUL-terminated C string.
        let symbol = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"omp_get_max_threads".as_ptr()) };
        if symbol.is_null() {
            return None;
        }
        // SAFETY: `omp_get_max_threads` is declared by the OpenMP standard as
        // `int omp_get_max_threads(void)`, callable from any thread at any time.
        let get: extern "C" fn() -> libc::c_int = unsafe { std::mem::transmute(symbol) };
        usize::try_from(get()).ok().filter(|&n| n > 0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Makes the calling thread a batch thread (Linux `SCHED_BATCH`) at nice 10: it gets a
/// share of the processors however busy the machine is (a tenth of a nice-0 thread's
/// weight, so a recording thread it shares a processor with keeps most of it), and its
/// wake-ups never preempt the thread running on a processor. False where the system
/// refused the policy (then nothing changed; the nice value is set either way).
pub(crate) fn run_as_batch() -> bool {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: `param` is a valid sched_param that outlives the call; pid 0 names the
        // calling thread; SCHED_BATCH requires priority 0 and no privilege when leaving
        // SCHED_OTHER. On failure the call changes nothing and returns -1.
        let batch = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) == 0 };
        // SAFETY: setpriority with who 0 names the calling thread (Linux: a thread's nice
        // value is its own); lowering one's own priority needs no privilege; on failure
        // nothing changes.
        unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 10) };
        batch
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Takes an exclusive advisory lock (`flock`) on `file` without waiting: `Ok(false)` when
/// another open file holds one (another process recording into the same log). The lock
/// goes with the file: it is released when the file is closed, or the process ends.
pub(crate) fn try_lock_exclusive(file: &std::fs::File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor belongs to `file`, which is open for the whole call; flock
    // only changes the lock state of that open file and reports failure through -1/errno.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}
