//! Counters: the fake backend (deterministic values, missing and unreadable counters) and
//! the real perf backend degrading cleanly where the machine lacks a PMU.

mod common;

use std::sync::Arc;

use common::{assert_nested, read, serial};
use pplib::counters::{Counter, CounterBackend, FakeCounters, PerfEvents};
use pplib::log::EventKind;
use pplib::Session;

#[test]
fn fake_counters_follow_every_construct_boundary() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.pplog");
    let backend = FakeCounters::new(10)
        .missing(Counter::Cycles)
        .unreadable(Counter::Instructions);
    let session = Session::builder()
        .path(&path)
        .counter_backend(Arc::new(backend))
        .start()
        .unwrap();
    pplib::frag_scope("f", || pplib::task_scope(|| ()));
    std::thread::spawn(|| pplib::task_scope(|| ()))
        .join()
        .unwrap();
    session.finish().unwrap();

    let (reader, threads) = read(&path);
    // Cycles failed to open: absent. Instructions opened (present) but never reads.
    assert_eq!(
        reader.header().counters,
        ["instructions", "llc_misses", "cpu_ns", "nivcsw"]
    );
    let main = &threads[0].text;
    // llc_misses grows by 3 × 10 per read, cpu_ns by 4 × 10 (index in Counter::ALL + 1).
    assert_eq!(
        main[..],
        [
            "session_begin",
            "counters llc_misses=30 cpu_ns=40",
            "frag_begin f",
            "counters llc_misses=60 cpu_ns=80",
            "task_begin",
            "counters llc_misses=90 cpu_ns=120",
            "task_end",
            "counters llc_misses=120 cpu_ns=160",
            "frag_end f",
            "counters llc_misses=150 cpu_ns=200",
            "session_end",
            "counters llc_misses=180 cpu_ns=240",
        ]
    );
    // The other thread's counters are its own (they start from its first read).
    assert_eq!(
        threads[1].text,
        [
            "task_begin",
            "counters llc_misses=30 cpu_ns=40",
            "task_end",
            "counters llc_misses=60 cpu_ns=80"
        ]
    );
    for t in &threads {
        assert_nested(&t.text);
        // A counters event has the time of the event it follows.
        for pair in t.events.windows(2) {
            if matches!(pair[1].kind, EventKind::Counters(_)) {
                assert_eq!(pair[0].time, pair[1].time);
            }
        }
    }
}

#[test]
fn no_counter_at_all_still_records() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("none.pplog");
    let mut backend = FakeCounters::new(1);
    for c in Counter::ALL {
        backend = backend.missing(c);
    }
    let session = Session::builder()
        .path(&path)
        .counter_backend(Arc::new(backend))
        .start()
        .unwrap();
    pplib::task_scope(|| ());
    session.finish().unwrap();
    let (reader, threads) = read(&path);
    assert_eq!(reader.header().counters, ["cpu_ns", "nivcsw"]);
    assert_eq!(
        threads[0].text,
        ["session_begin", "task_begin", "task_end", "session_end"]
    );
}

/// The perf backend on this machine: whatever opens is in the header, recording works, and
/// the task clock (a software event, present without a PMU) measures CPU time.
#[test]
fn perf_backend_degrades_cleanly() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("perf.pplog");
    let available: Vec<Counter> = Counter::ALL
        .into_iter()
        .filter(|c| PerfEvents.open(*c).is_ok())
        .collect();
    let session = Session::builder()
        .path(&path)
        .counters(true)
        .start()
        .unwrap();
    let wall = std::time::Instant::now();
    pplib::task_scope(|| {
        // A fixed amount of computation: at least ~30 ms of CPU time on any current
        // processor, however loaded the machine is (CPU time does not grow with waiting).
        let mut x = 0u64;
        for _ in 0..100_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(1));
        }
    });
    let wall = wall.elapsed().as_nanos() as u64;
    session.finish().unwrap();
    let (reader, threads) = read(&path);
    let mut names: Vec<&str> = available.iter().map(|c| c.name()).collect();
    if !names.contains(&"cpu_ns") {
        names.push("cpu_ns");
    }
    names.push("nivcsw");
    assert_eq!(reader.header().counters, names);
    let plain: Vec<_> = threads[0]
        .text
        .iter()
        .filter(|t| !t.starts_with("counters"))
        .collect();
    assert_eq!(
        plain,
        ["session_begin", "task_begin", "task_end", "session_end"]
    );
    if available.contains(&Counter::TaskClock) {
        let cpu = reader
            .header()
            .counters
            .iter()
            .position(|c| c == "cpu_ns")
            .unwrap();
        let values: Vec<u64> = threads[0]
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Counters(v) => v
                    .iter()
                    .find(|(id, _)| id.0 as usize == cpu)
                    .map(|(_, v)| *v),
                _ => None,
            })
            .collect();
        assert_eq!(values.len(), 4);
        let busy = values[2] - values[1];
        assert!(
            busy >= 10_000_000,
            "10^8 multiply-adds measured as {busy} ns of CPU time"
        );
        assert!(
            busy <= wall + 5_000_000,
            "CPU time {busy} ns exceeds wall time {wall} ns"
        );
    }
}

/// Scheduling samples without any counter backend: `cpu_ns` (CPU time of the thread) and
/// `nivcsw` (its involuntary context switches), cumulative per thread, at a thread's first
/// event, at `par` boundaries a millisecond apart or more, and at its end.
///
/// More busy threads than processors, each computing between two `par`s (10^8 dependent
/// multiply-adds: at least ~30 ms of CPU time on any current processor, however loaded the
/// machine is): each thread's `cpu_ns` grows by at least 10 ms, never by more than the wall
/// time, and the values never decrease; with more threads than processors for that long,
/// the kernel preempts at least one of them (its `nivcsw` grows).
#[test]
fn scheduling_samples_measure_cpu_time_and_preemption() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sched.pplog");
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) + 1;
    let session = Session::builder().path(&path).start().unwrap();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let _t = pplib::task();
                let _p = pplib::par();
                let mut x = 0u64;
                for _ in 0..100_000_000u64 {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(1));
                }
            });
        }
    });
    session.finish().unwrap();
    let (reader, logs) = read(&path);
    assert_eq!(reader.header().counters, ["cpu_ns", "nivcsw"]);
    let mut preempted = 0;
    for t in logs
        .iter()
        .filter(|t| t.text.first().map(String::as_str) == Some("task_begin"))
    {
        let series = |name: &str| -> Vec<(u64, u64)> {
            let id = reader
                .header()
                .counters
                .iter()
                .position(|c| c == name)
                .unwrap();
            t.sched
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::Counters(v) => v
                        .iter()
                        .find(|(i, _)| i.0 as usize == id)
                        .map(|(_, v)| (e.time.0, *v)),
                    _ => None,
                })
                .collect()
        };
        let cpu = series("cpu_ns");
        let nivcsw = series("nivcsw");
        // First event, par begin (within a millisecond of it: maybe skipped), par end
        // (tens of ms later), thread exit.
        assert!(cpu.len() >= 3, "{cpu:?}");
        assert_eq!(cpu.len(), nivcsw.len());
        assert!(cpu.windows(2).all(|w| w[0].1 <= w[1].1), "{cpu:?}");
        assert!(nivcsw.windows(2).all(|w| w[0].1 <= w[1].1), "{nivcsw:?}");
        let (first, last) = (cpu[0], cpu[cpu.len() - 1]);
        let used = last.1 - first.1;
        let wall = last.0 - first.0;
        assert!(used >= 10_000_000, "{used} ns of CPU time in {wall} ns");
        assert!(
            used <= wall + 2_000_000,
            "{used} ns of CPU time in {wall} ns"
        );
        preempted += usize::from(nivcsw[nivcsw.len() - 1].1 > nivcsw[0].1);
    }
    assert!(
        preempted >= 1,
        "no thread of {threads} on fewer processors was preempted"
    );
}
