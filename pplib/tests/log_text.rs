//! Reading `.pptrace` text traces: the fixtures in `tests/fixtures/` and bad input.

use std::path::PathBuf;

use pplib::log::{EventKind, LogError, LogReader, NameId, Nanos, Position, ThreadId};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn read_all(reader: &LogReader) -> Vec<(ThreadId, Vec<Result<pplib::log::Event, LogError>>)> {
    reader
        .streams()
        .into_iter()
        .map(|s| (s.thread(), s.collect()))
        .collect()
}

#[test]
fn design_example_reads_as_written() {
    let reader = LogReader::open(&fixture("design_example.pptrace")).unwrap();
    let h = reader.header();
    assert_eq!((h.version, h.processors), (1, 2));
    assert!(h.counters.is_empty());
    let all = read_all(&reader);
    assert_eq!(all.len(), 2);
    let t0: Vec<_> = all[0]
        .1
        .iter()
        .map(|e| e.as_ref().unwrap().clone())
        .collect();
    let kinds: Vec<_> = t0.iter().map(|e| e.kind.clone()).collect();
    assert_eq!(
        kinds,
        vec![
            EventKind::SessionBegin,
            EventKind::ParBegin,
            EventKind::TaskBegin,
            EventKind::TaskEnd { wasted: false },
            EventKind::ParEnd,
            EventKind::SessionEnd
        ]
    );
    assert_eq!(t0[3].time, Nanos(2_000_000));
    assert_eq!(t0[0].pos, Position::Line(6));
    assert!(t0.iter().all(|e| e.thread == ThreadId(0)));
    assert_eq!(all[1].0, ThreadId(1));
    assert_eq!(all[1].1.len(), 2);
}

#[test]
fn all_events_and_names() {
    let reader = LogReader::open(&fixture("all_events.pptrace")).unwrap();
    assert_eq!(reader.header().processors, 3);
    assert_eq!(reader.names(), ["solve", "lock", "barrier"]);
    assert_eq!(reader.header().counters, ["llc_misses", "cpu_ns"]);
    let all = read_all(&reader);
    assert_eq!(all.len(), 2);
    let t0: Vec<_> = all[0]
        .1
        .iter()
        .map(|e| e.as_ref().unwrap().kind.clone())
        .collect();
    assert_eq!(t0.len(), 14);
    assert_eq!(t0[1], EventKind::FragBegin(NameId(0)));
    assert_eq!(
        t0[4],
        EventKind::Counters(vec![
            (pplib::log::CounterId(0), 12),
            (pplib::log::CounterId(1), 900)
        ])
    );
    assert_eq!(
        t0[11],
        EventKind::Counters(vec![(pplib::log::CounterId(1), 1000)])
    );
    let t7: Vec<_> = all[1]
        .1
        .iter()
        .map(|e| e.as_ref().unwrap().kind.clone())
        .collect();
    assert_eq!(all[1].0, ThreadId(7));
    assert_eq!(
        t7,
        vec![
            EventKind::TaskBegin,
            EventKind::WaitBegin(NameId(1)),
            EventKind::WaitEnd,
            EventKind::TaskEnd { wasted: true }
        ]
    );
    assert_eq!(reader.name(NameId(2)), "barrier");
}

#[test]
fn time_backwards_is_reported_on_its_thread() {
    let reader = LogReader::open(&fixture("time_backwards.pptrace")).unwrap();
    let all = read_all(&reader);
    assert!(all[0].1.iter().all(|e| e.is_ok()));
    assert_eq!(all[1].1.len(), 2);
    let err = all[1].1[1].as_ref().unwrap_err();
    assert!(
        matches!(
            err,
            LogError::TimeBackwards {
                pos: Position::Line(9),
                ..
            }
        ),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.ends_with(
            "time_backwards.pptrace: line 9: time goes backwards on thread 1: 4 ns after 5 ns"
        ),
        "{msg}"
    );
}

#[test]
fn unknown_event_is_reported_with_its_line() {
    let reader = LogReader::open(&fixture("unknown_event.pptrace")).unwrap();
    let all = read_all(&reader);
    assert_eq!(all[0].1.len(), 2, "the stream ends after its error");
    let err = all[0].1[1].as_ref().unwrap_err();
    assert!(matches!(
        err,
        LogError::UnknownEvent {
            pos: Position::Line(6),
            ..
        }
    ));
    assert!(
        err.to_string()
            .contains("line 6: unknown event \"task_start\""),
        "{err}"
    );
}

fn open_err(text: &str) -> String {
    LogReader::from_bytes(text.as_bytes().to_vec(), "t.pptrace")
        .unwrap_err()
        .to_string()
}

/// The optional `event_cost_ns` header line: nanoseconds per recorded event, kept in the
/// header in picoseconds; absent, `None`; at most one, before the events, a positive number.
#[test]
fn event_cost_line() {
    let cost = |text: &str| {
        LogReader::from_bytes(text.as_bytes().to_vec(), "t.pptrace")
            .unwrap()
            .header()
            .event_cost_ps
    };
    let events = "0 0 session_begin\n9 0 session_end\n";
    assert_eq!(cost(&format!("pptrace 1\nprocessors 2\n{events}")), None);
    assert_eq!(
        cost(&format!(
            "pptrace 1\nevent_cost_ns 9.5 # measured\nprocessors 2\n{events}"
        )),
        Some(9500)
    );
    assert_eq!(
        cost(&format!(
            "pptrace 1\nprocessors 2\nevent_cost_ns 0.0004\n{events}"
        )),
        Some(1)
    );
    for (value, found) in [
        ("0", "\"0\""),
        ("-3", "\"-3\""),
        ("x", "\"x\""),
        ("", "end of line"),
    ] {
        assert_eq!(
            open_err(&format!("pptrace 1\nprocessors 1\nevent_cost_ns {value}\n")),
            format!("t.pptrace: line 3: expected nanoseconds per event, above 0 and at most 1e9, found {found}")
        );
    }
    assert_eq!(
        open_err("pptrace 1\nprocessors 1\nevent_cost_ns 2\nevent_cost_ns 3\n"),
        "t.pptrace: line 4: expected one `event_cost_ns` line, found a second one"
    );
    assert_eq!(
        open_err("pptrace 1\nprocessors 1\nevent_cost_ns 2 ns\n"),
        "t.pptrace: line 3: expected end of line after `event_cost_ns NS`, found \"ns\""
    );
    assert_eq!(
        open_err("pptrace 1\nprocessors 1\n0 0 session_begin\nevent_cost_ns 2\n"),
        "t.pptrace: line 4: expected `<t_ns> <thread> <event>`, found \"event_cost_ns\""
    );
}

fn first_err(text: &str) -> String {
    let reader = LogReader::from_bytes(text.as_bytes().to_vec(), "t.pptrace").unwrap();
    for s in reader.streams() {
        for e in s {
            if let Err(e) = e {
                return e.to_string();
            }
        }
    }
    panic!("no error in {text:?}");
}

#[test]
fn bad_headers_fail_to_open() {
    assert_eq!(
        open_err("hello\n"),
        "t.pptrace: line 1: expected a pplib log (binary magic \"PPLOG\" or a first line `pptrace 1`), found \"hello\""
    );
    assert_eq!(
        open_err("# c\npptrace 2\n"),
        "t.pptrace: line 2: unsupported log format version 2 (this reader reads version 1)"
    );
    assert_eq!(
        open_err("pptrace 1\n0 0 session_begin\n"),
        "t.pptrace: line 2: expected `processors P` before the first event, found \"0 0 session_begin\""
    );
    assert_eq!(
        open_err("pptrace 1\nprocessors 0\n"),
        "t.pptrace: line 2: expected a processor count >= 1, found \"0\""
    );
    assert_eq!(
        open_err("pptrace 1\nprocessors 2\n5 x task_begin\n"),
        "t.pptrace: line 3: expected a thread id (unsigned integer) after the time, found \"x\""
    );
    assert_eq!(
        open_err("pptrace 1\nprocessors 2\n5 0 task_begin\nprocessors 3\n"),
        "t.pptrace: line 4: expected `<t_ns> <thread> <event>`, found \"processors\""
    );
    assert!(open_err("").contains("found an empty file"));
    let mut bad = b"pptrace 1\nprocessors 1\n".to_vec();
    bad.push(0xff);
    assert_eq!(
        LogReader::from_bytes(bad, "t.pptrace")
            .unwrap_err()
            .to_string(),
        "t.pptrace: line 3: expected UTF-8 text, found a byte sequence that is not UTF-8"
    );
    assert!(LogReader::from_bytes(vec![0, 1, 0xff], "b")
        .unwrap_err()
        .to_string()
        .starts_with("b: byte offset 0: expected a pplib log"));
}

#[test]
fn bad_event_lines_are_reported_by_their_stream() {
    let h = "pptrace 1\nprocessors 1\n";
    assert_eq!(
        first_err(&format!("{h}1 0 frag_begin\n")),
        "t.pptrace: line 3: expected a fragment name after `frag_begin`, found end of line"
    );
    assert_eq!(
        first_err(&format!("{h}1 0 task_end lost\n")),
        "t.pptrace: line 3: expected `wasted` or end of line after `task_end`, found \"lost\""
    );
    assert_eq!(
        first_err(&format!("{h}1 0 par_begin now\n")),
        "t.pptrace: line 3: expected end of line after `par_begin`, found \"now\""
    );
    assert_eq!(
        first_err(&format!("{h}1 0 counters cpu_ns=-3\n")),
        "t.pptrace: line 3: expected an unsigned integer counter value, found \"cpu_ns=-3\""
    );
    assert_eq!(
        first_err(&format!("{h}1 0 counters\n")),
        "t.pptrace: line 3: expected at least one `name=value` after `counters`, found end of line"
    );
    assert_eq!(
        first_err(&format!("{h}1.5 0 task_begin\n")),
        "t.pptrace: line 3: expected a time in nanoseconds (unsigned integer), found \"1.5\""
    );
    assert_eq!(
        first_err(&format!("{h}1 0\n")),
        "t.pptrace: line 3: expected an event after the thread, found end of line"
    );
    assert_eq!(
        first_err(&format!("{h}1 0 frag_end a b\n")),
        "t.pptrace: line 3: expected end of line after `frag_end`, found \"b\""
    );
}

#[test]
fn streams_are_independent_and_crlf_is_accepted() {
    let text = "pptrace 1\r\nprocessors 2\r\n1 1 task_begin\r\n2 0 task_begin\r\n3 1 task_end\r\n";
    let reader = LogReader::from_bytes(text.as_bytes().to_vec(), "crlf").unwrap();
    let mut streams = reader.streams();
    let t1 = streams.pop().unwrap();
    let t0 = streams.pop().unwrap();
    let e1: Vec<_> = t1.map(|e| e.unwrap().time.0).collect();
    let e0: Vec<_> = t0.map(|e| e.unwrap().time.0).collect();
    assert_eq!((e0, e1), (vec![2], vec![1, 3]));
    assert!(reader.truncated().is_none());
}

/// Arbitrary bytes and mangled traces never make the reader panic (pseudo-random, fixed seed).
#[test]
fn garbage_never_panics() {
    let base = std::fs::read(fixture("all_events.pptrace")).unwrap();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..2000 {
        let mut bytes = base.clone();
        for _ in 0..(next() % 8) {
            let at = (next() as usize) % bytes.len();
            match next() % 3 {
                0 => bytes[at] = next() as u8,
                1 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, b" \n0#x"[next() as usize % 5]),
            }
        }
        if let Ok(reader) = LogReader::from_bytes(bytes, "fuzz.pptrace") {
            for s in reader.streams() {
                for e in s {
                    if let Err(e) = e {
                        assert!(e.position().is_some());
                    }
                }
            }
        }
    }
}
