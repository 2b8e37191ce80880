//! `pp` on a large binary log holds a bounded window of it, not its chunks whole: a
//! 200 MB log of four threads, each with one chunk of 50 MB, is profiled in under
//! 100 MiB (read whole, its chunks alone took 200 MB).
//!
//! Fixture (generated here, `large_log`): p = 4. Thread 0 opens the session at 0 ns and a
//! `par` at 1 ns; every thread t runs one task from 2 ns to E = 2 + 2·N + 1 ns, inside which
//! it opens and closes fragment `work` N times, one event per nanosecond (fragments inside
//! a task change no state); thread 0 closes the `par` at E + 1 and the session at E + 2.
//! By docs/predicates.md, Busy time is thread 0's 1 ns + (E − 2) + 1 ns and the other
//! threads' E − 2 each: rt = (4·E − 6) ns, tt = 4·(E + 2) ns.

mod limits;

use std::path::Path;
use std::time::Duration;

use pplib::log::binary::{ChunkEncoder, LogWriter};
use pplib::log::{EventKind, Header, Nanos, ThreadId};

use limits::{field, run_pp};

/// Fragment pairs per thread: 3 bytes per event, 2 events a pair, 50 MB per thread.
const PAIRS: u64 = 8_500_000;
const END: u64 = 2 + 2 * PAIRS + 1;

fn large_log(path: &Path) {
    let header = Header {
        version: pplib::log::binary::VERSION,
        processors: 4,
        clock: "test".to_owned(),
        ..Header::default()
    };
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut w = LogWriter::new(file, &header).unwrap();
    let work = w.name("work").unwrap();
    for t in 0..4u32 {
        let mut c = ChunkEncoder::new(ThreadId(t));
        if t == 0 {
            c.event(Nanos(0), &EventKind::SessionBegin);
            c.event(Nanos(1), &EventKind::ParBegin);
        }
        c.event(Nanos(2), &EventKind::TaskBegin);
        for i in 0..PAIRS {
            c.event(Nanos(3 + 2 * i), &EventKind::FragBegin(work));
            c.event(Nanos(4 + 2 * i), &EventKind::FragEnd(work));
        }
        c.event(Nanos(END), &EventKind::TaskEnd { wasted: false });
        if t == 0 {
            c.event(Nanos(END + 1), &EventKind::ParEnd);
            c.event(Nanos(END + 2), &EventKind::SessionEnd);
        }
        w.chunk(&c).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn a_log_of_four_fifty_megabyte_chunks_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("large.pplog");
    large_log(&log);
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(size > 200_000_000, "{size} bytes");
    let log = log.to_str().unwrap();
    let rt = (4 * END - 6) as f64 * 1e-9;
    let tt = (4 * (END + 2)) as f64 * 1e-9;
    // Record lines (fast totals), per-thread rows (fast), the reference (histograms).
    let runs: [&[&str]; 3] = [&["-l", "", log], &["--json", log], &["--histograms", log]];
    for args in runs {
        let o = run_pp(args, &[], dir.path(), Duration::from_secs(300));
        o.within(&format!("pp {args:?}"), 120.0, 100.0);
        assert!(o.status.success(), "{}", o.stderr);
        if args[0] == "-l" {
            let record = o.stdout.trim();
            assert!((field(record, "rt") - rt).abs() <= 1e-9 * rt, "{record}");
            assert!((field(record, "tt") - tt).abs() <= 1e-9 * tt, "{record}");
        }
    }
}
