//! A session with 10 000 short-lived threads and 50 million events completes with bounded
//! memory (buffers are per live thread and recycled; the writer thread streams them to the
//! file), and its log reads back exactly. Alone in its test binary so that the process's
//! peak resident memory (`VmHWM`) is this test's.

use std::collections::HashMap;

use pplib::log::{EventKind, LogReader};
use pplib::Session;

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

const SHORT_THREADS: usize = 10_000;
const SHORT_PAIRS: usize = 500;
const LONG_THREADS: usize = 2;
const LONG_PAIRS: usize = 10_000_000;

#[test]
fn ten_thousand_threads_fifty_million_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pplog");
    let before = peak_rss_kib();
    let session = Session::builder()
        .path(&path)
        .processors(4)
        .start()
        .unwrap();
    std::thread::scope(|s| {
        for _ in 0..LONG_THREADS {
            s.spawn(|| {
                for _ in 0..LONG_PAIRS {
                    let _t = pplib::task();
                }
            });
        }
        // Short-lived threads, 8 at a time.
        for _ in 0..SHORT_THREADS / 8 {
            let wave: Vec<_> = (0..8)
                .map(|_| {
                    std::thread::spawn(|| {
                        for _ in 0..SHORT_PAIRS {
                            pplib::frag_scope("short", || ());
                        }
                    })
                })
                .collect();
            for t in wave {
                t.join().unwrap();
            }
        }
    });
    session.finish().unwrap();
    let recorded_peak = peak_rss_kib();
    let events = (LONG_THREADS * LONG_PAIRS + SHORT_THREADS * SHORT_PAIRS) * 2;
    assert!(events >= 50_000_000);
    // 16 bytes per raw event would be 800 MB; buffers are 128 KiB per live thread.
    let grown = recorded_peak.saturating_sub(before);
    let size = std::fs::metadata(&path).unwrap().len();
    eprintln!("recorded {events} events, log {size} bytes, peak RSS grew by {grown} KiB");
    assert!(
        grown < 128 * 1024,
        "peak resident memory grew by {grown} KiB while recording"
    );

    let reader = LogReader::open(&path).unwrap();
    assert!(reader.truncated().is_none());
    let streams = reader.streams();
    assert_eq!(streams.len(), 1 + LONG_THREADS + SHORT_THREADS);
    let mut per_thread: HashMap<usize, usize> = HashMap::new();
    let mut total = 0;
    let mut samples = 0;
    for stream in streams {
        let mut n = 0;
        for e in stream {
            let e = e.unwrap();
            match e.kind {
                EventKind::SessionBegin | EventKind::SessionEnd => {}
                // Scheduling samples (cpu_ns, nivcsw): at least at a thread's first event
                // and at its exit.
                EventKind::Counters(_) => samples += 1,
                _ => n += 1,
            }
        }
        *per_thread.entry(n).or_default() += 1;
        total += n;
    }
    assert_eq!(total, events);
    assert!(
        samples >= 2 * (SHORT_THREADS + LONG_THREADS),
        "{samples} samples"
    );
    assert_eq!(per_thread[&(SHORT_PAIRS * 2)], SHORT_THREADS);
    assert_eq!(per_thread[&(LONG_PAIRS * 2)], LONG_THREADS);
    let read_peak = peak_rss_kib();
    assert!(
        read_peak.saturating_sub(before) < 192 * 1024,
        "reading grew memory to {read_peak} KiB"
    );
}
