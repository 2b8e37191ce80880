use std::sync::{LockResult, RwLockReadGuard, RwLockWriteGuard, TryLockError, TryLockResult};

use crate::constructs::{wait, WaitKind};

/// `std::sync::RwLock`, recording a blocking `read` or `write` as `wait lock`.
#[derive(Debug, Default)]
pub struct RwLock<T: ?Sized> {
    inner: std::sync::RwLock<T>,
}

impl<T> RwLock<T> {
    /// A new unlocked lock.
    pub const fn new(value: T) -> RwLock<T> {
        RwLock {
            inner: std::sync::RwLock::new(value),
        }
    }

    /// The value (`Err` if poisoned).
    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Shared access; a blocking wait is recorded as `wait lock`.
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        match self.inner.try_read() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::Poisoned(p)) => Err(p),
            Err(TryLockError::WouldBlock) => wait(WaitKind::Lock, || self.inner.read()),
        }
    }

    /// Exclusive access; a blocking wait is recorded as `wait lock`.
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        match self.inner.try_write() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::Poisoned(p)) => Err(p),
            Err(TryLockError::WouldBlock) => wait(WaitKind::Lock, || self.inner.write()),
        }
    }

    /// Shared access if available now.
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        self.inner.try_read()
    }

    /// Exclusive access if available now.
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        self.inner.try_write()
    }

    /// Mutable access without locking.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }

    /// True if a writer panicked.
    pub fn is_poisoned(&self) -> bool {
        self.inner.is_poisoned()
    }
}
