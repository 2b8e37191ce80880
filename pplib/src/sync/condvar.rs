use std::sync::{LockResult, MutexGuard, WaitTimeoutResult};
use std::time::Duration;

use crate::constructs::{wait, WaitKind};

/// `std::sync::Condvar`, recording every wait as `wait condvar`. Use it with
/// [`crate::sync::Mutex`] (whose guards are std's).
#[derive(Debug, Default)]
pub struct Condvar {
    inner: std::sync::Condvar,
}

impl Condvar {
    /// A new condition variable.
    pub const fn new() -> Condvar {
        Condvar {
            inner: std::sync::Condvar::new(),
        }
    }

    /// `std::sync::Condvar::wait`, recorded.
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        wait(WaitKind::Condvar, || self.inner.wait(guard))
    }

    /// `std::sync::Condvar::wait_while`, recorded.
    pub fn wait_while<'a, T, F>(
        &self,
        guard: MutexGuard<'a, T>,
        condition: F,
    ) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        wait(WaitKind::Condvar, || {
            self.inner.wait_while(guard, condition)
        })
    }

    /// `std::sync::Condvar::wait_timeout`, recorded.
    pub fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        wait(WaitKind::Condvar, || {
            self.inner.wait_timeout(guard, timeout)
        })
    }

    /// `std::sync::Condvar::wait_timeout_while`, recorded.
    pub fn wait_timeout_while<'a, T, F>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
        condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        wait(WaitKind::Condvar, || {
            self.inner.wait_timeout_while(guard, timeout, condition)
        })
    }

    /// Wakes one waiter.
    pub fn notify_one(&self) {
        self.inner.notify_one();
    }

    /// Wakes every waiter.
    pub fn notify_all(&self) {
        self.inner.notify_all();
    }
}
