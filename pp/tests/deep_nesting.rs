//! `pp` on logs whose threads nest without end or drop events without end: a thread's stack
//! is capped at `pp::stack::MAX_DEPTH` (10 000) open constructs, and non-strict mode keeps
//! a count and the first few of the events it drops, so time and memory stay bounded
//! whatever the log holds (docs/event-logs.md).
//!
//! Fixtures are written here:
//! - `zeros.pplog`: a binary log (p = 1, complete, with its END record) whose one chunk,
//!   for thread 0, is 64 MiB (the most a record may hold) of zero bytes after its thread and
//!   base time: every two zero bytes decode as a `session_begin` at time 0 (code 0, delta
//!   0), 33 554 431 of them. The file is sparse (the payload is a hole). The first 10 000
//!   open; strict mode fails at the 10 001st (2 bytes per event after the chunk's first
//!   event: its byte offset is that plus 20 000), non-strict mode drops the rest with a
//!   warning and profiles a session of 0 ns with 10 000 constructs open at its end.
//! - `ends.pplog`: the same with 16 MiB of `[1, 0]` pairs: 8 388 608 `session_end`s that
//!   match nothing, all dropped (listed: the first 20, then their number).
//! - `deep.pptrace`: a text trace of one thread that opens `session_begin` 10 001 times at
//!   t = 0..10 000 ns and closes them all; the 10 001st (line 10 003) is refused.

mod limits;

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use pplib::log::binary::LogWriter;
use pplib::log::Header;

use limits::run_pp;

/// Writes a complete binary log (p = 1) whose only chunk (thread 0, base time 0) holds
/// `payload` event bytes: `pattern` repeated, or a hole (zero bytes) if `pattern` is empty.
fn raw_chunk_log(path: &Path, payload: u64, pattern: &[u8]) -> u64 {
    let header = Header {
        version: pplib::log::binary::VERSION,
        processors: 1,
        clock: "test".to_owned(),
        ..Header::default()
    };
    let start = LogWriter::new(Vec::new(), &header)
        .unwrap()
        .finish()
        .unwrap();
    // `finish` appended the END record (5 bytes): the chunk goes before it.
    let head = &start[..start.len() - 5];
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(head).unwrap();
    f.write_all(&[3]).unwrap();
    f.write_all(&u32::try_from(payload + 2).unwrap().to_le_bytes())
        .unwrap();
    f.write_all(&[0, 0]).unwrap();
    let events_at = head.len() as u64 + 7;
    if pattern.is_empty() {
        f.seek(SeekFrom::Start(events_at + payload)).unwrap();
    } else {
        let block: Vec<u8> = pattern.iter().copied().cycle().take(1 << 20).collect();
        let mut left = payload;
        while left > 0 {
            let n = left.min(block.len() as u64) as usize;
            f.write_all(&block[..n]).unwrap();
            left -= n as u64;
        }
    }
    f.write_all(&[4, 0, 0, 0, 0]).unwrap();
    events_at
}

fn every_path(dir: &Path) -> Vec<Vec<String>> {
    let tl = dir.join("tl.json").to_str().unwrap().to_owned();
    vec![
        vec![],
        vec!["--json".into()],
        vec!["--per-thread".into()],
        vec!["--histograms".into()],
        vec!["--timeline".into(), tl],
        vec!["-l".into(), "n=1".into()],
    ]
}

fn with_log(args: &[String], extra: &[&str], log: &Path) -> Vec<String> {
    let mut all = args.to_vec();
    all.extend(extra.iter().map(|s| s.to_string()));
    all.push(log.to_str().unwrap().to_owned());
    all
}

fn run(dir: &Path, args: &[String], seconds: f64, mib: f64) -> limits::Outcome {
    let all: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run_pp(&all, &[], dir, Duration::from_secs(120));
    o.within(&format!("pp {all:?}"), seconds, mib);
    o
}

#[test]
fn a_chunk_of_zero_bytes_nests_at_most_max_depth() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log: PathBuf = d.join("zeros.pplog");
    // The largest payload a record may have: 64 MiB, thread and base time included.
    let events_at = raw_chunk_log(&log, (64 << 20) - 2, &[]);
    let refused_at = events_at + 2 * pp::stack::MAX_DEPTH as u64;
    for args in every_path(d) {
        let all = with_log(&args, &["--strict"], &log);
        let o = run(d, &all, 20.0, 100.0);
        assert_eq!(o.status.code(), Some(1), "{all:?}: {}", o.stderr);
        assert_eq!(o.stderr.lines().count(), 1, "{all:?}: {}", o.stderr);
        for needle in [
            "zeros.pplog",
            &format!("byte offset {refused_at}"),
            "session_begin on thread 0",
            "more than 10000 nested constructs",
        ] {
            assert!(
                o.stderr.contains(needle),
                "{all:?}: {needle:?} not in {}",
                o.stderr
            );
        }

        let all = with_log(&args, &[], &log);
        let o = run(d, &all, 30.0, 100.0);
        assert!(o.status.success(), "{all:?}: {}", o.stderr);
        // The profile (table, JSON or record) of a session of 0 ns.
        assert!(!o.stdout.is_empty(), "{all:?}");
        let dropped = (64 << 20) / 2 - 1 - pp::stack::MAX_DEPTH;
        assert!(
            o.stderr.contains(&format!(
                "{} more begin events dropped past 10000 open constructs",
                dropped - 20
            )),
            "{all:?}: {}",
            o.stderr
        );
        assert!(o.stderr.lines().count() < 40, "{all:?}: {}", o.stderr);
        assert!(o.stderr.len() < 20_000, "{all:?}: {}", o.stderr);
        assert!(
            o.stderr.contains("10000 construct(s) still open"),
            "{all:?}: {}",
            o.stderr
        );
    }
}

#[test]
fn millions_of_unmatched_ends_keep_a_count() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = d.join("ends.pplog");
    raw_chunk_log(&log, 16 << 20, &[1, 0]);
    let ends = (16u64 << 20) / 2;
    for args in every_path(d) {
        let all = with_log(&args, &[], &log);
        let o = run(d, &all, 30.0, 100.0);
        assert!(o.status.success(), "{all:?}: {}", o.stderr);
        let listed = o
            .stderr
            .lines()
            .filter(|l| l.contains("session_end on thread 0 does not match"))
            .count();
        assert_eq!(listed, 20, "{all:?}: {}", o.stderr);
        assert!(
            o.stderr
                .contains(&format!("{} more unmatched end events dropped", ends - 20)),
            "{all:?}: {}",
            o.stderr
        );
    }
}

#[test]
fn a_text_trace_nests_at_most_max_depth() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let depth = pp::stack::MAX_DEPTH + 1;
    let mut text = String::from("pptrace 1\nprocessors 1\n");
    for t in 0..depth {
        text.push_str(&format!("{t} 0 session_begin\n"));
    }
    for t in 0..depth {
        text.push_str(&format!("{} 0 session_end\n", depth + t));
    }
    let log = d.join("deep.pptrace");
    std::fs::write(&log, &text).unwrap();
    for args in every_path(d) {
        let all = with_log(&args, &["--strict"], &log);
        let o = run(d, &all, 20.0, 100.0);
        assert_eq!(o.status.code(), Some(1), "{all:?}: {}", o.stderr);
        for needle in ["deep.pptrace", "line 10003", "session_begin on thread 0"] {
            assert!(
                o.stderr.contains(needle),
                "{all:?}: {needle:?} not in {}",
                o.stderr
            );
        }
        // Not strict: the 10 001st begin is dropped, so its session_end (the last one)
        // matches nothing and is dropped too; the rest is a well-nested session.
        let all = with_log(&args, &[], &log);
        let o = run(d, &all, 20.0, 100.0);
        assert!(o.status.success(), "{all:?}: {}", o.stderr);
        assert!(o.stderr.contains("line 10003"), "{all:?}: {}", o.stderr);
        assert!(o.stderr.contains("line 20004"), "{all:?}: {}", o.stderr);
    }
    // 10 000 levels are accepted as they are.
    let ok: String = text
        .lines()
        .filter(|l| {
            !l.starts_with(&format!("{} ", depth - 1))
                && !l.starts_with(&format!("{} ", 2 * depth - 1))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let log = d.join("ok.pptrace");
    std::fs::write(&log, ok).unwrap();
    let all = with_log(&[], &["--strict"], &log);
    let o = run(d, &all, 20.0, 100.0);
    assert!(o.status.success(), "{}", o.stderr);
    assert!(o.stderr.is_empty(), "{}", o.stderr);
}
