//! The `perf_event_open` backend (Linux), through the `perf-event` crate.

use perf_event::events::{Cache, CacheOp, CacheResult, Hardware, Software, WhichCache};
use perf_event::Builder;

use super::{Counter, CounterBackend, CounterError, CounterReader};

/// Per-thread counters from Linux `perf_event_open`: user-space cycles, instructions,
/// last-level-cache read misses, and the software task clock.
///
/// Each counter observes only the thread that opened it (no inheritance). Whether the
/// hardware ones exist depends on the processor's PMU and `/proc/sys/kernel/perf_event_paranoid`.
#[derive(Debug, Default, Clone, Copy)]
pub struct PerfEvents;

struct PerfReader {
    counter: perf_event::Counter,
    name: &'static str,
}

impl CounterReader for PerfReader {
    fn read(&mut self) -> Result<u64, CounterError> {
        self.counter.read().map_err(|e| CounterError::Read {
            counter: self.name,
            reason: e.to_string(),
        })
    }
}

impl CounterBackend for PerfEvents {
    fn open(&self, counter: Counter) -> Result<Box<dyn CounterReader>, CounterError> {
        let builder = Builder::new().observe_self();
        let builder = match counter {
            Counter::Cycles => builder.kind(Hardware::CPU_CYCLES),
            Counter::Instructions => builder.kind(Hardware::INSTRUCTIONS),
            Counter::LlcMisses => builder.kind(Cache {
                which: WhichCache::LL,
                operation: CacheOp::READ,
                result: CacheResult::MISS,
            }),
            Counter::TaskClock => builder.kind(Software::TASK_CLOCK),
        };
        let unavailable = |e: std::io::Error| CounterError::Unavailable {
            counter: counter.name(),
            reason: e.to_string(),
        };
        let mut c = builder.build().map_err(unavailable)?;
        c.enable().map_err(unavailable)?;
        Ok(Box::new(PerfReader {
            counter: c,
            name: counter.name(),
        }))
    }
}
