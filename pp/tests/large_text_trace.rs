//! `pp` on large text traces: a trace is read a line at a time and parsed once, so memory
//! stays far below the file's size, and errors still name the file and line.
//!
//! `a_sparse_text_trace_fails_at_its_long_line`: a 1000 MiB sparse file (under the 1 GiB
//! cap on text traces) holding a text trace header, then zero bytes with no line end: its
//! third line is longer than the 16 MiB a line may have.
//!
//! Fixture (generated here, `trace`): 16 threads, p = 16. Thread 0 opens the session at
//! 0 ns and a `par` at 1 ns; then K rounds, round i at `t = 10 + 60·i`: every thread runs a
//! task from t to t + 50; thread 0 closes the `par` at `T = 10 + 60·K` and the session at
//! T + 1. By docs/predicates.md, Busy time is thread 0's serial 1 ns before the `par` and
//! 1 ns after it, plus every task: rt = (2 + 16·50·K) ns, tt = 16·(T + 1) ns. Lines in time
//! order (what converters write), or grouped by thread (the worst order for a one-pass
//! reader: the same profile, with more held in memory).

mod limits;

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use limits::{field, run_pp};

const THREADS: u64 = 16;

/// The fixture's lines, `(time, thread, event)`, in time order.
fn events(rounds: u64) -> Vec<(u64, u64, &'static str)> {
    let mut out = vec![(0, 0, "session_begin"), (1, 0, "par_begin")];
    for i in 0..rounds {
        let t = 10 + 60 * i;
        out.extend((0..THREADS).map(|th| (t, th, "task_begin")));
        out.extend((0..THREADS).map(|th| (t + 50, th, "task_end")));
    }
    let end = 10 + 60 * rounds;
    out.push((end, 0, "par_end"));
    out.push((end + 1, 0, "session_end"));
    out
}

fn write_trace(path: &Path, lines: &[(u64, u64, &str)], tail: &str) {
    let mut text = String::with_capacity(lines.len() * 24);
    text.push_str("pptrace 1\nprocessors 16\n");
    for (t, th, e) in lines {
        writeln!(text, "{t} {th} {e}").unwrap();
    }
    text.push_str(tail);
    std::fs::write(path, text).unwrap();
}

fn check_record(record: &str, rounds: u64) {
    let rt = (2 + THREADS * 50 * rounds) as f64 * 1e-9;
    let tt = (THREADS * (10 + 60 * rounds + 1)) as f64 * 1e-9;
    assert!(
        (field(record, "rt") - rt).abs() <= 1e-9 * rt,
        "{record}: rt {rt}"
    );
    assert!(
        (field(record, "tt") - tt).abs() <= 1e-9 * tt,
        "{record}: tt {tt}"
    );
}

#[test]
fn a_large_text_trace_is_read_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 3.8 M lines, about 70 MiB: holding the trace would take more than the limit.
    let rounds = 120_000;
    let lines = events(rounds);
    let log = d.join("large.pptrace");
    write_trace(&log, &lines, "");
    let size_mib = std::fs::metadata(&log).unwrap().len() as f64 / (1 << 20) as f64;
    assert!(size_mib > 60.0, "{size_mib} MiB");
    let path = log.to_str().unwrap();
    let runs: [&[&str]; 3] = [
        &["-l", "", path],
        &["--per-thread", path],
        &["--histograms", path],
    ];
    for args in runs {
        let o = run_pp(args, &[], d, Duration::from_secs(120));
        o.within(&format!("pp {args:?} ({size_mib:.0} MiB)"), 30.0, 40.0);
        assert!(o.status.success(), "{args:?}: {}", o.stderr);
        if args[0] == "-l" {
            check_record(o.stdout.trim(), rounds);
        }
    }

    // Grouped by thread: the same record.
    let mut grouped = lines.clone();
    grouped.sort_by_key(|(t, th, _)| (*th, *t));
    write_trace(&log, &grouped, "");
    let o = run_pp(&["-l", "", path], &[], d, Duration::from_secs(120));
    o.within("pp -l (grouped by thread)", 30.0, 400.0);
    assert!(o.status.success(), "{}", o.stderr);
    check_record(o.stdout.trim(), rounds);

    // A bad line at the end is reported with its line number, after every event before it.
    let bad_line = lines.len() + 3;
    write_trace(&log, &lines, "99999999 3 task_begun\n");
    let o = run_pp(&["-l", "", path], &[], d, Duration::from_secs(120));
    o.within("pp -l (a bad last line)", 30.0, 40.0);
    assert_eq!(o.status.code(), Some(1), "{}", o.stderr);
    let needle = format!("large.pptrace: line {bad_line}");
    assert!(o.stderr.contains(&needle), "{needle:?} not in {}", o.stderr);
    assert!(o.stderr.contains("task_begun"), "{}", o.stderr);
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
}

#[test]
fn a_sparse_text_trace_fails_at_its_long_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = d.join("sparse.pptrace");
    std::fs::write(&log, "pptrace 1\nprocessors 2\n").unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(1000 << 20)
        .unwrap();
    let path = log.to_str().unwrap();
    let tl = d.join("tl.json");
    let runs: [&[&str]; 4] = [
        &["-l", "", path],
        &["--json", path],
        &["--histograms", path],
        &["--timeline", tl.to_str().unwrap(), path],
    ];
    for args in runs {
        let o = run_pp(args, &[], d, Duration::from_secs(60));
        o.within(&format!("pp {args:?} (1000 MiB sparse)"), 10.0, 100.0);
        assert_eq!(o.status.code(), Some(1), "{}", o.stderr);
        assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
        assert!(o.stderr.len() < 300, "{}", o.stderr);
        for needle in ["sparse.pptrace: line 3", "a line of at most 16 MiB"] {
            assert!(o.stderr.contains(needle), "{needle:?} not in {}", o.stderr);
        }
    }
}
