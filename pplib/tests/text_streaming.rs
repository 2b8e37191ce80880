//! The text trace reader reads a trace a line at a time (docs/event-logs.md): streams give
//! the same events and errors whether the trace is a file larger than the first look at
//! it (64 KiB) or bytes in memory, whatever order their consumer reads them in; two sets
//! of streams of one reader are independent; a file that changes after it was opened is
//! reported, not misread.
//!
//! Fixture (generated here, `trace`): p = 3, three threads whose lines interleave; thread
//! t runs `ROUNDS` rounds of `frag_begin f{i mod 5}`, `counters cpu_ns=…`, `frag_end`
//! at times `100·i + t`, and thread 2's line `BAD_ROUND` is `task_end wasted extra`
//! (a syntax error its stream reports after the events before it).

use std::fmt::Write as _;

use pplib::log::{Event, LogError, LogReader, Position};

const ROUNDS: u64 = 3000;
const BAD_ROUND: u64 = 2500;

fn trace() -> String {
    let mut text = String::from("pptrace 1 # a comment\nprocessors 3\n\n");
    for i in 0..ROUNDS {
        for t in 0..3 {
            let at = 100 * i + t;
            if t == 2 && i == BAD_ROUND {
                writeln!(text, "{at} {t} task_end wasted extra").unwrap();
                continue;
            }
            writeln!(text, "{at} {t} frag_begin f{}", i % 5).unwrap();
            writeln!(text, "{} {t} counters cpu_ns={}", at + 1, 10 * i).unwrap();
            writeln!(text, "{} {t} frag_end f{}\r", at + 2, i % 5).unwrap();
        }
    }
    text
}

type Read = Vec<Result<Event, String>>;

/// Every stream read whole, one after the other (`forward`) or in reverse thread order.
fn read(reader: &LogReader, forward: bool) -> Vec<Read> {
    let mut streams = reader.streams();
    if !forward {
        streams.reverse();
    }
    let mut out: Vec<Read> = streams
        .into_iter()
        .map(|s| s.map(|r| r.map_err(|e: LogError| e.to_string())).collect())
        .collect();
    if !forward {
        out.reverse();
    }
    out
}

#[test]
fn a_file_and_bytes_give_the_same_streams_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.pptrace");
    let text = trace();
    assert!(text.len() > 200 << 10);
    std::fs::write(&path, &text).unwrap();
    let file = LogReader::open(&path).unwrap();
    let bytes = LogReader::from_bytes(text.into_bytes(), path.to_str().unwrap()).unwrap();
    assert_eq!(file.names(), bytes.names());
    assert_eq!(file.names().len(), 5);
    assert_eq!(file.header().counters, ["cpu_ns"]);
    let expected = read(&bytes, true);
    assert_eq!(expected[0].len() as u64, 3 * ROUNDS);
    assert!(expected[0].iter().all(Result::is_ok));
    let last = expected[2].last().unwrap().as_ref().unwrap_err();
    let bad_line = 3 + 9 * BAD_ROUND + 7;
    assert!(last.contains(&format!("line {bad_line}")), "{last}");
    assert_eq!(expected[2].len() as u64, 3 * BAD_ROUND + 1);
    assert_eq!(
        expected[1][4].as_ref().unwrap().pos,
        Position::Line(3 + 9 + 3 + 2)
    );
    assert_eq!(read(&file, true), expected);
    assert_eq!(read(&file, false), expected);
    assert_eq!(read(&bytes, false), expected);
    // Two sets of streams at once, read alternately.
    let (mut a, mut b) = (file.streams(), file.streams());
    let first: Vec<_> = a[0].by_ref().take(10).collect();
    let again: Vec<_> = b[0].by_ref().take(10).collect();
    assert_eq!(format!("{first:?}"), format!("{again:?}"));
    drop(a);
    assert_eq!(b[1].by_ref().count() as u64, 3 * ROUNDS);
}

#[test]
fn a_file_that_changed_after_opening_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.pptrace");
    std::fs::write(&path, trace()).unwrap();
    let reader = LogReader::open(&path).unwrap();
    // Thread 7 was not in the trace when it was opened.
    std::fs::write(&path, "pptrace 1\nprocessors 3\n0 7 session_begin\n").unwrap();
    for stream in reader.streams() {
        let items: Vec<_> = stream.collect();
        assert_eq!(items.len(), 1);
        let e = items[0].as_ref().unwrap_err().to_string();
        assert!(
            e.contains("line 3") && e.contains("the file changed"),
            "{e}"
        );
    }
}
