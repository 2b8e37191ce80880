//! std threads, instrumented: every spawned thread's body is a `task`; waiting for threads
//! (a scope's end, [`JoinHandle::join`]) is a `par` on the waiting thread. Also what the
//! kernel says about the calling thread's blocking ([`voluntary_switches`]).

use crate::constructs::{par, par_scope, task_scope};

/// `std::thread::spawn` with the thread's body recorded as a `task`.
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    JoinHandle(std::thread::spawn(move || task_scope(f)))
}

/// A handle to a thread started by [`spawn`].
#[derive(Debug)]
pub struct JoinHandle<T>(std::thread::JoinHandle<T>);

impl<T> JoinHandle<T> {
    /// Waits for the thread (recorded as a `par` on the calling thread) and returns its
    /// result (`Err` if it panicked).
    pub fn join(self) -> std::thread::Result<T> {
        par_scope(|| self.0.join())
    }

    /// The thread.
    pub fn thread(&self) -> &std::thread::Thread {
        self.0.thread()
    }

    /// True if the thread's body returned.
    pub fn is_finished(&self) -> bool {
        self.0.is_finished()
    }

    /// The std handle.
    pub fn into_inner(self) -> std::thread::JoinHandle<T> {
        self.0
    }
}

/// A scope for spawning threads ([`scope`]); copy it into spawned closures freely.
#[derive(Clone, Copy, Debug)]
pub struct Scope<'scope, 'env: 'scope> {
    inner: &'scope std::thread::Scope<'scope, 'env>,
}

impl<'scope> Scope<'scope, '_> {
    /// `std::thread::Scope::spawn` with the thread's body recorded as a `task`.
    pub fn spawn<F, T>(&self, f: F) -> std::thread::ScopedJoinHandle<'scope, T>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        self.inner.spawn(move || task_scope(f))
    }
}

/// `std::thread::scope`, recorded as a `par` on the calling thread around the whole scope
/// (the body itself is a `task`; waiting for the threads at its end is Idle).
///
/// ```
/// let mut sums = [0u64; 2];
/// let (a, b) = sums.split_at_mut(1);
/// pplib::thread::scope(|s| {
///     s.spawn(|| a[0] = (1..=10).sum());
///     s.spawn(|| b[0] = (11..=20).sum());
/// });
/// assert_eq!(sums, [55, 155]);
/// ```
pub fn scope<'env, F, T>(f: F) -> T
where
    F: for<'scope> FnOnce(Scope<'scope, 'env>) -> T,
{
    let _par = par();
    std::thread::scope(|s| task_scope(|| f(Scope { inner: s })))
}

/// How many times the calling thread has blocked since it started: its voluntary context
/// switches (Linux `getrusage(RUSAGE_THREAD)`'s `ru_nvcsw`), or None where the system does
/// not count them (every system but Linux).
///
/// A thread is switched out voluntarily when it waits in the kernel for something: a
/// futex wait (a parked thread, a mutex or condition variable that sleeps), a sleep, a read
/// that waits for data. Spinning, and `std::thread::yield_now` (whether or not another
/// thread takes the processor), never count; the kernel taking the processor away from a
/// thread that could run counts as an involuntary switch. Two readings around a wait tell
/// whether the thread slept in it. The call is a system call (well under a microsecond).
///
/// ```
/// let before = pplib::thread::voluntary_switches();
/// std::thread::sleep(std::time::Duration::from_millis(2)); // blocks: one switch at least
/// let after = pplib::thread::voluntary_switches();
/// match (before, after) {
///     (Some(b), Some(a)) => assert!(a > b),
///     _ => assert!(!cfg!(target_os = "linux")),
/// }
/// ```
pub fn voluntary_switches() -> Option<u64> {
    crate::sys::thread_voluntary_switches()
}

/// The processors the calling thread may run on (Linux: its affinity mask), in increasing
/// order; None where the system cannot say. A thread spawned later inherits its spawner's
/// mask.
pub fn allowed_cpus() -> Option<Vec<usize>> {
    crate::sys::allowed_cpus()
}

/// Confines the calling thread to processor `cpu` (one of [`allowed_cpus`]); false where the
/// system does not allow it (not Linux, or a processor outside the process's mask), and
/// then the thread runs where the scheduler puts it. For measurement kernels that must run
/// threads on distinct processors at once; pinning a thread that later spawns a pool
/// confines the pool too.
pub fn pin_current_thread(cpu: usize) -> bool {
    crate::sys::pin_current_thread(cpu)
}

/// Seconds the calling thread has run on a processor (user and system:
/// CLOCK_THREAD_CPUTIME_ID), or None where the system has no per-thread clock.
pub fn cpu_time_s() -> Option<f64> {
    crate::sys::thread_cpu_ns().map(|ns| ns as f64 * 1e-9)
}

#[cfg(test)]
mod tests {
    use super::voluntary_switches;

    #[test]
    fn a_thread_that_sleeps_switches_voluntarily_and_the_count_is_its_own() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        if !cfg!(target_os = "linux") {
            assert_eq!(voluntary_switches(), None);
            return;
        }
        const SLEEPS: u64 = 5;
        let done = Arc::new(AtomicBool::new(false));
        let done2 = Arc::clone(&done);
        // One thread sleeps SLEEPS times (each sleep blocks in the kernel: at least one
        // voluntary switch each) while another spins until it is done (it never blocks).
        let sleeper = std::thread::spawn(move || {
            let start = voluntary_switches().unwrap();
            for _ in 0..SLEEPS {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let end = voluntary_switches().unwrap();
            done2.store(true, Ordering::Release);
            (start, end)
        });
        let spinner = std::thread::spawn(move || {
            let start = voluntary_switches().unwrap();
            while !done.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            (start, voluntary_switches().unwrap())
        });
        let (s0, s1) = sleeper.join().unwrap();
        let (p0, p1) = spinner.join().unwrap();
        assert!(s1 >= s0 + SLEEPS, "sleeper {s0} -> {s1}");
        // The count is per thread: the spinner's did not take the sleeper's switches.
        assert!(p1 >= p0 && p1 - p0 < SLEEPS, "spinner {p0} -> {p1}");
    }
}
