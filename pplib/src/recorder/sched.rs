//! Scheduling samples: each thread's CPU time and involuntary context switches, recorded as
//! `counters` events (`cpu_ns`, `nivcsw`) at cheap points, so that a profile can tell the
//! time other processes took from the program's own, with or without hardware counters.
//!
//! A sample costs two system calls (~0.5-1 µs), so it is taken where that is negligible:
//! when a thread joins the session (its first event), at `par` boundaries and at the start
//! of a rayon run when the thread's last sample is at least [`MIN_INTERVAL_US`] old, when a
//! thread hands a full buffer to the writer (at most as often), when a thread exits, and at
//! the session's end (for the other threads, from `/proc/self/task/TID`). Values are
//! cumulative per thread since the thread started: profiles use differences between a
//! thread's samples.

use crate::log::CounterId;
use crate::sys;

/// The shortest interval between two samples of a thread at `par` and run boundaries and
/// buffer hand-offs (µs): at most ~0.1 % of its time.
pub(crate) const MIN_INTERVAL_US: u64 = 1000;

/// Where the two values go in a `counters` event: their ids in the header's counter list.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SchedIds {
    /// `cpu_ns`, unless the session's counter backend records it already (its task clock).
    pub(crate) cpu_ns: Option<CounterId>,
    /// `nivcsw`.
    pub(crate) nivcsw: CounterId,
}

impl SchedIds {
    /// The ids after the backend's counters (`names`), and the names to add to the header.
    pub(crate) fn after(names: &[String]) -> (SchedIds, Vec<String>) {
        let id = |at: usize| CounterId(u16::try_from(at).unwrap_or(u16::MAX));
        if names.iter().any(|n| n == "cpu_ns") {
            let ids = SchedIds {
                cpu_ns: None,
                nivcsw: id(names.len()),
            };
            (ids, vec!["nivcsw".to_owned()])
        } else {
            let ids = SchedIds {
                cpu_ns: Some(id(names.len())),
                nivcsw: id(names.len() + 1),
            };
            (ids, vec!["cpu_ns".to_owned(), "nivcsw".to_owned()])
        }
    }

    /// The values of a sample, as a `counters` event carries them.
    fn values(self, cpu_ns: Option<u64>, nivcsw: Option<u64>) -> Vec<(CounterId, u64)> {
        let cpu = self.cpu_ns.zip(cpu_ns);
        cpu.into_iter()
            .chain(nivcsw.map(|v| (self.nivcsw, v)))
            .collect()
    }

    /// A sample of the calling thread.
    pub(crate) fn own(self) -> Vec<(CounterId, u64)> {
        let cpu = self.cpu_ns.and_then(|_| sys::thread_cpu_ns());
        self.values(cpu, sys::thread_involuntary_switches())
    }

    /// A sample of thread `os_tid` of this process, read from `/proc/self/task/TID`
    /// (empty if it has exited).
    pub(crate) fn of_thread(self, os_tid: u64) -> Vec<(CounterId, u64)> {
        let dir = format!("/proc/self/task/{os_tid}");
        // schedstat: time on a processor (ns), time waiting for one, time slices.
        let cpu = self.cpu_ns.and_then(|_| {
            let s = std::fs::read_to_string(format!("{dir}/schedstat")).ok()?;
            s.split_whitespace().next()?.parse().ok()
        });
        let nivcsw = std::fs::read_to_string(format!("{dir}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("nonvoluntary_ctxt_switches:"))
                    .and_then(|v| v.trim().parse().ok())
            });
        self.values(cpu, nivcsw)
    }
}

/// The body of a one-event chunk: a `counters` event with `values` at the chunk's base
/// time (the binary format's event encoding: code, time delta 0, count, then id and value
/// per counter, as unsigned LEB128).
pub(crate) fn counters_chunk(values: &[(CounterId, u64)]) -> Vec<u8> {
    let mut out = vec![crate::log::binary::code::COUNTERS, 0];
    uvarint(&mut out, values.len() as u64);
    for (id, value) in values {
        uvarint(&mut out, u64::from(id.0));
        uvarint(&mut out, *value);
    }
    out
}

fn uvarint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}
