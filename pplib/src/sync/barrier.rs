use std::sync::BarrierWaitResult;

use crate::constructs::{wait, WaitKind};

/// `std::sync::Barrier`, recording every `wait` as `wait barrier`.
#[derive(Debug)]
pub struct Barrier {
    inner: std::sync::Barrier,
}

impl Barrier {
    /// A barrier for `n` threads.
    pub fn new(n: usize) -> Barrier {
        Barrier {
            inner: std::sync::Barrier::new(n),
        }
    }

    /// Blocks until `n` threads wait; the whole wait is recorded as `wait barrier`.
    pub fn wait(&self) -> BarrierWaitResult {
        wait(WaitKind::Barrier, || self.inner.wait())
    }
}
