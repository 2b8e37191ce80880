//! std threads, instrumented: every spawned thread's body is a `task`; waiting for threads
//! (a scope's end, [`JoinHandle::join`]) is a `par` on the waiting thread.

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
