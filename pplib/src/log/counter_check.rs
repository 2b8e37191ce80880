//! Plausibility of counter samples, checked by every stream as it reads them.
//!
//! Counter values are cumulative per thread (docs/event-logs.md), so:
//! - a value below the same thread's previous value of that counter is an error (a
//!   counter never goes backwards; a wrapped or garbled one would give absurd amounts);
//! - `cpu_ns` (thread CPU time) and `llc_misses` may rise by at most the nanoseconds
//!   elapsed since the thread's previous sample of that counter, plus [`SLACK_NS`]: a
//!   thread cannot run for longer than the time that passes, and no machine completes
//!   more than one last-level-cache miss per nanosecond per thread. A larger rise implies
//!   more time than the log's window (`os`, `cl` beyond `tt`). The slack absorbs the skew
//!   between the moment a counter is read and the moment its event is time-stamped, and
//!   the kernel's accounting of a running thread's CPU time, which another thread reads
//!   (`/proc/.../schedstat`, at session end) up to a scheduler tick late (10 ms at
//!   HZ = 100): the next sample then rises by up to that much more than the time between.

use std::sync::Arc;

use super::event::{CounterId, Nanos, Position, ThreadId};
use super::LogError;

/// The rise beyond the elapsed nanoseconds a rate-limited counter may show (20 ms: two
/// scheduler ticks at HZ = 100).
pub const SLACK_NS: u64 = 20_000_000;

/// The counters whose rise is limited by the elapsed time.
const RATE_LIMITED: [&str; 2] = ["cpu_ns", "llc_misses"];

/// What a log's streams share: the counter names and which are rate-limited.
#[derive(Debug)]
pub(crate) struct CounterRules {
    names: Vec<String>,
    limited: Vec<bool>,
}

impl CounterRules {
    pub(crate) fn new(names: &[String]) -> Arc<CounterRules> {
        Arc::new(CounterRules {
            names: names.to_vec(),
            limited: names
                .iter()
                .map(|n| RATE_LIMITED.contains(&n.as_str()))
                .collect(),
        })
    }
}

/// A thread's previous sample of each counter (value, time in ns).
#[derive(Debug)]
pub(crate) struct CounterTrack {
    rules: Arc<CounterRules>,
    last: Vec<Option<(u64, u64)>>,
}

impl CounterTrack {
    pub(crate) fn new(rules: Arc<CounterRules>) -> CounterTrack {
        CounterTrack {
            rules,
            last: Vec::new(),
        }
    }

    /// Checks the values of a `counters` event at `time` against the thread's previous
    /// samples and, if they are plausible, records them; `Err` describes the first
    /// implausible one (nothing is recorded then).
    #[inline]
    pub(crate) fn sample(&mut self, values: &[(CounterId, u64)], time: u64) -> Result<(), String> {
        for &(id, value) in values {
            let i = usize::from(id.0);
            let Some(&Some((previous, at))) = self.last.get(i) else {
                continue;
            };
            let name = self.rules.names.get(i).map_or("?", String::as_str);
            if value < previous {
                return Err(format!(
                    "counter {name} goes backwards: {value} after {previous} (counter values are cumulative per thread)"
                ));
            }
            let elapsed = time.saturating_sub(at);
            let rise = value - previous;
            if self.rules.limited.get(i) == Some(&true) && rise > elapsed.saturating_add(SLACK_NS) {
                return Err(format!(
                    "counter {name} rises by {rise} in {elapsed} ns (at most the elapsed nanoseconds plus {SLACK_NS} are possible)"
                ));
            }
        }
        for &(id, value) in values {
            let i = usize::from(id.0);
            if self.last.len() <= i {
                self.last.resize(i + 1, None);
            }
            self.last[i] = Some((value, time));
        }
        Ok(())
    }
}

/// The error for an implausible counter sample of `thread` at `pos`.
pub(crate) fn counter_error(
    path: &std::path::Path,
    pos: Position,
    thread: ThreadId,
    time: Nanos,
    detail: String,
) -> LogError {
    LogError::Counter {
        path: path.to_owned(),
        pos,
        thread,
        time,
        detail,
    }
}
