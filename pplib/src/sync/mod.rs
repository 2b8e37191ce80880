//! Drop-in synchronization primitives with std's API that record blocking waits as `wait`
//! (kind `lock`, `barrier` or `condvar`).
//!
//! An uncontended `lock` costs what std's does plus one failed-free `try_lock`: only a call
//! that actually blocks is recorded. Guards are std's own types, so
//! [`Condvar`] works with [`Mutex`] exactly as std's do.

mod barrier;
mod condvar;
mod mutex;
mod rwlock;

pub use barrier::Barrier;
pub use condvar::Condvar;
pub use mutex::Mutex;
pub use rwlock::RwLock;
pub use std::sync::{
    BarrierWaitResult, LockResult, MutexGuard, RwLockReadGuard, RwLockWriteGuard, TryLockError,
    TryLockResult, WaitTimeoutResult,
};
