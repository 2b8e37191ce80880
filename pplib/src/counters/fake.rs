//! A deterministic counter backend for tests.

use std::collections::HashSet;

use super::{Counter, CounterBackend, CounterError, CounterReader};

/// A fake backend: every counter not marked missing opens; each read of counter `c` returns
/// the previous value plus `step × (index of c in Counter::ALL + 1)`, starting from 0.
/// Counters marked unreadable open but fail every read.
#[derive(Debug, Clone, Default)]
pub struct FakeCounters {
    step: u64,
    missing: HashSet<Counter>,
    unreadable: HashSet<Counter>,
}

impl FakeCounters {
    /// All four counters present, growing by `step`, `2×step`, ... per read.
    pub fn new(step: u64) -> FakeCounters {
        FakeCounters {
            step,
            ..FakeCounters::default()
        }
    }

    /// Makes `counter` fail to open (as `cycles` does on a machine without a PMU).
    pub fn missing(mut self, counter: Counter) -> FakeCounters {
        self.missing.insert(counter);
        self
    }

    /// Makes `counter` open but fail every read.
    pub fn unreadable(mut self, counter: Counter) -> FakeCounters {
        self.unreadable.insert(counter);
        self
    }
}

struct FakeReader {
    value: u64,
    increment: u64,
    fail: Option<&'static str>,
}

impl CounterReader for FakeReader {
    fn read(&mut self) -> Result<u64, CounterError> {
        if let Some(counter) = self.fail {
            return Err(CounterError::Read {
                counter,
                reason: "fake failure".to_owned(),
            });
        }
        self.value += self.increment;
        Ok(self.value)
    }
}

impl CounterBackend for FakeCounters {
    fn open(&self, counter: Counter) -> Result<Box<dyn CounterReader>, CounterError> {
        if self.missing.contains(&counter) {
            return Err(CounterError::Unavailable {
                counter: counter.name(),
                reason: "missing in the fake backend".to_owned(),
            });
        }
        let index = Counter::ALL.iter().position(|c| *c == counter).unwrap_or(0) as u64;
        Ok(Box::new(FakeReader {
            value: 0,
            increment: self.step * (index + 1),
            fail: self.unreadable.contains(&counter).then_some(counter.name()),
        }))
    }
}
