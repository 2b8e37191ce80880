//! The binary log: writer → reader round trip, truncation at every byte, corrupt input.

use pplib::log::binary::{ChunkEncoder, LogWriter, TimeScale, MAGIC};
use pplib::log::{
    CounterId, EventKind, Header, LogError, LogReader, NameId, Nanos, Position, ProcessInfo,
    ThreadId,
};

fn header() -> Header {
    Header {
        version: 1,
        processors: 4,
        clock: "CLOCK_MONOTONIC".into(),
        counters: vec!["cpu_ns".into(), "llc_misses".into()],
        process: ProcessInfo {
            pid: 42,
            command_line: vec!["prog".into(), "--n=8".into()],
            start_unix_ns: 1_700_000_000_000_000_000,
            start_clock_ns: 1000,
        },
        event_cost_ps: None,
    }
}

/// Two threads, three chunks, every event kind; returns the bytes and the events per thread.
fn sample() -> (Vec<u8>, Vec<Vec<(Nanos, EventKind)>>) {
    let mut w = LogWriter::new(Vec::new(), &header()).unwrap();
    let solve = w.name("solve").unwrap();
    let lock = w.name("lock").unwrap();
    w.thread(ThreadId(0), 100, "main").unwrap();
    let t0 = vec![
        (Nanos(1000), EventKind::SessionBegin),
        (Nanos(1100), EventKind::FragBegin(solve)),
        (Nanos(1200), EventKind::ParBegin),
        (Nanos(1200), EventKind::TaskBegin),
        (
            Nanos(1300),
            EventKind::Counters(vec![(CounterId(0), 5), (CounterId(1), u64::MAX)]),
        ),
        (Nanos(1400), EventKind::TaskEnd { wasted: true }),
        (Nanos(1500), EventKind::ParEnd),
        (Nanos(1600), EventKind::FragEnd(solve)),
        (Nanos(u64::MAX / 2), EventKind::SessionEnd),
    ];
    let t1 = vec![
        (Nanos(1250), EventKind::TaskBegin),
        (Nanos(1260), EventKind::WaitBegin(lock)),
        (Nanos(1270), EventKind::WaitEnd),
        (Nanos(1280), EventKind::TaskEnd { wasted: false }),
    ];
    let mut c = ChunkEncoder::new(ThreadId(0));
    for (t, k) in &t0[..4] {
        c.event(*t, k);
    }
    w.chunk(&c).unwrap();
    let mut c1 = ChunkEncoder::new(ThreadId(1));
    for (t, k) in &t1 {
        c1.event(*t, k);
    }
    w.chunk(&c1).unwrap();
    c.reset(ThreadId(0));
    for (t, k) in &t0[4..] {
        c.event(*t, k);
    }
    w.chunk(&c).unwrap();
    (w.finish().unwrap(), vec![t0, t1])
}

#[test]
fn round_trip() {
    let (bytes, expected) = sample();
    assert_eq!(bytes[..8], MAGIC);
    let reader = LogReader::from_bytes(bytes, "rt.pplog").unwrap();
    assert_eq!(*reader.header(), header());
    assert_eq!(reader.names(), ["solve", "lock"]);
    assert_eq!(reader.threads(), vec![ThreadId(0), ThreadId(1)]);
    assert_eq!(reader.thread_name(ThreadId(0)), Some("main"));
    assert_eq!(reader.thread_name(ThreadId(1)), None);
    assert!(reader.truncated().is_none());
    for (stream, want) in reader.streams().into_iter().zip(expected) {
        let thread = stream.thread();
        let got: Vec<_> = stream.map(|e| e.unwrap()).collect();
        assert!(got.iter().all(|e| e.thread == thread));
        assert!(got.windows(2).all(
            |w| matches!((w[0].pos, w[1].pos), (Position::Offset(a), Position::Offset(b)) if a < b)
        ));
        let got: Vec<_> = got.into_iter().map(|e| (e.time, e.kind)).collect();
        assert_eq!(got, want);
    }
}

#[test]
fn round_trip_through_a_file() {
    let (bytes, expected) = sample();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.pplog");
    std::fs::write(&path, &bytes).unwrap();
    let reader = LogReader::open(&path).unwrap();
    assert_eq!(reader.header().clock, "CLOCK_MONOTONIC");
    let n: usize = reader
        .streams()
        .into_iter()
        .map(|s| s.inspect(|e| assert!(e.is_ok())).count())
        .sum();
    assert_eq!(n, expected.iter().map(Vec::len).sum::<usize>());
}

/// A header written with a provisional time scale whose fields are padded to a fixed width,
/// replaced in place after events were written: the reader converts every event with the
/// replacement, whatever the lengths of the two scales' minimal encodings; the padded
/// header reads like a minimal one; and a writer whose scale was not written replaceable
/// refuses to replace it.
#[test]
fn a_replaceable_time_scale_is_rewritten_in_place() {
    // Raw ticks at 3 GHz: 1 ns = 3 ticks. The provisional rate is 1 % off.
    let exact = TimeScale {
        ref_raw: 3_000_000,
        ref_ns: 7_000_000_000,
        ns_per_raw_q32: (1u64 << 32) / 3,
    };
    let provisional = TimeScale {
        ns_per_raw_q32: exact.ns_per_raw_q32 / 100 * 101,
        ..exact
    };
    let raw = [3_000_000u64, 3_000_300, 6_000_000, 303_000_000];
    let write = |replace: Option<TimeScale>| {
        let out = std::io::Cursor::new(Vec::new());
        let mut w = LogWriter::with_replaceable_time_scale(out, &header(), provisional).unwrap();
        let mut c = ChunkEncoder::new(ThreadId(0));
        for (k, t) in raw.iter().enumerate() {
            let kind = if k % 2 == 0 {
                EventKind::ParBegin
            } else {
                EventKind::ParEnd
            };
            c.event(Nanos(*t), &kind);
        }
        w.chunk(&c).unwrap();
        if let Some(scale) = replace {
            w.replace_time_scale(scale).unwrap();
        }
        // Writing goes on at the end of the log, not over the header.
        let mut more = ChunkEncoder::new(ThreadId(1));
        more.event(Nanos(raw[3]), &EventKind::SessionBegin);
        w.chunk(&more).unwrap();
        w.finish().unwrap().into_inner()
    };
    let times = |bytes: Vec<u8>| -> Vec<u64> {
        let reader = LogReader::from_bytes(bytes, "scale.pplog").unwrap();
        assert_eq!(*reader.header(), header());
        assert!(reader.truncated().is_none());
        assert_eq!(reader.threads(), [ThreadId(0), ThreadId(1)]);
        let stream = reader.streams().remove(0);
        stream.map(|e| e.unwrap().time.0).collect()
    };
    // 100 ns after the reference, 1 ms, 100 ms.
    let want = [7_000_000_000, 7_000_000_100, 7_001_000_000, 7_100_000_000];
    let replaced = times(write(Some(exact)));
    for (got, want) in replaced.iter().zip(want) {
        assert!(got.abs_diff(want) <= 1, "{got} ns, want {want}");
    }
    let kept = times(write(None));
    assert!(kept[3].abs_diff(want[3]) > 900_000, "{kept:?}"); // 1 % of 100 ms
    assert_eq!(write(Some(exact)).len(), write(None).len());

    let mut plain =
        LogWriter::with_time_scale(std::io::Cursor::new(Vec::new()), &header(), exact).unwrap();
    let refused = plain.replace_time_scale(provisional).unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
}

/// The header's optional event cost: a header without it (as every log written before the
/// field existed) reads `None`; one written 0 (pplib's, until its session ends) reads `None`
/// too; rewritten in place after events were written, it reads back, and the events with it.
#[test]
fn the_event_cost_is_optional_and_rewritten_in_place() {
    let (old_layout, _) = sample();
    let reader = LogReader::from_bytes(old_layout.clone(), "old.pplog").unwrap();
    assert_eq!(reader.header().event_cost_ps, None);
    let write = |replace: Option<u64>| {
        let header = Header {
            event_cost_ps: Some(0),
            ..header()
        };
        let mut w = LogWriter::new(std::io::Cursor::new(Vec::new()), &header).unwrap();
        let mut c = ChunkEncoder::new(ThreadId(0));
        c.event(Nanos(5), &EventKind::SessionBegin);
        c.event(Nanos(9), &EventKind::SessionEnd);
        w.chunk(&c).unwrap();
        if let Some(ps) = replace {
            w.replace_event_cost(ps).unwrap();
        }
        w.finish().unwrap().into_inner()
    };
    let read = |bytes: Vec<u8>| {
        let reader = LogReader::from_bytes(bytes, "cost.pplog").unwrap();
        let times: Vec<u64> = reader
            .streams()
            .remove(0)
            .map(|e| e.unwrap().time.0)
            .collect();
        assert_eq!(times, [5, 9]);
        reader.header().event_cost_ps
    };
    assert_eq!(read(write(None)), None);
    assert_eq!(read(write(Some(9_480))), Some(9_480));
    assert_eq!(read(write(Some(u64::MAX))), Some(u64::MAX));
    // The field is 10 bytes, whatever its value.
    assert_eq!(write(Some(1)).len(), write(None).len());
    // A header written without the field refuses to have it replaced.
    let mut plain = LogWriter::new(std::io::Cursor::new(Vec::new()), &header()).unwrap();
    let refused = plain.replace_event_cost(1).unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
}

/// Cutting the log at every byte: the reader never panics, reads a prefix of each thread's
/// events, and (once the header is complete) ends every stream with `Truncated`.
#[test]
fn truncation_at_every_byte_reads_a_prefix() {
    let (bytes, expected) = sample();
    let mut saw_partial = false;
    for cut in 0..bytes.len() {
        let result = LogReader::from_bytes(bytes[..cut].to_vec(), "cut.pplog");
        let reader = match result {
            Err(e) => {
                assert!(
                    matches!(e, LogError::Truncated { .. } | LogError::NotALog { .. }),
                    "cut {cut}: {e}"
                );
                continue;
            }
            Ok(r) => r,
        };
        assert!(reader.truncated().is_some(), "cut {cut}");
        for stream in reader.streams() {
            let want = &expected[stream.thread().0 as usize];
            let items: Vec<_> = stream.collect();
            let (last, events) = items.split_last().unwrap();
            let err = last.as_ref().unwrap_err();
            assert!(err.is_truncated(), "cut {cut}: {err}");
            assert!(
                err.to_string().starts_with("cut.pplog: byte offset "),
                "{err}"
            );
            let got: Vec<_> = events
                .iter()
                .map(|e| {
                    let e = e.as_ref().unwrap();
                    (e.time, e.kind.clone())
                })
                .collect();
            assert_eq!(got[..], want[..got.len()], "cut {cut}");
            if !got.is_empty() && got.len() < want.len() {
                saw_partial = true;
            }
        }
    }
    assert!(saw_partial);
}

#[test]
fn corrupt_records_are_errors_not_panics() {
    let (bytes, _) = sample();
    // Flip every byte after the header in turn: reading must not panic.
    for i in 8..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0xA5;
        if let Ok(reader) = LogReader::from_bytes(b, "x") {
            for s in reader.streams() {
                for e in s {
                    let _ = e;
                }
            }
        }
    }
    let mut v = bytes.clone();
    v[8] = 9;
    let e = LogReader::from_bytes(v, "v.pplog").unwrap_err();
    assert_eq!(
        e.to_string(),
        "v.pplog: byte offset 8: unsupported log format version 9 (this reader reads version 1)"
    );
    let mut extra = bytes.clone();
    extra.push(0);
    let e = LogReader::from_bytes(extra, "x.pplog").unwrap_err();
    assert!(
        e.to_string()
            .contains("expected the end of the file after the end record"),
        "{e}"
    );
}

#[test]
fn undefined_names_and_unknown_codes_are_reported() {
    let mut w = LogWriter::new(Vec::new(), &header()).unwrap();
    let mut c = ChunkEncoder::new(ThreadId(3));
    c.event(Nanos(5), &EventKind::FragBegin(NameId(7)));
    w.chunk(&c).unwrap();
    let reader = LogReader::from_bytes(w.finish().unwrap(), "n.pplog").unwrap();
    let err = reader.streams().remove(0).next().unwrap().unwrap_err();
    assert!(
        err.to_string()
            .contains("expected a name id defined in the string table (< 0), found 7"),
        "{err}"
    );

    let (mut bytes, _) = sample();
    // The first chunk's first event code sits after: header, 2 names, 1 thread, chunk head.
    let reader = LogReader::from_bytes(bytes.clone(), "s").unwrap();
    let first = reader.streams().remove(0).next().unwrap().unwrap();
    let Position::Offset(at) = first.pos else {
        panic!()
    };
    bytes[at as usize] = 200;
    let reader = LogReader::from_bytes(bytes, "u.pplog").unwrap();
    let err = reader.streams().remove(0).next().unwrap().unwrap_err();
    assert_eq!(err.to_string(), format!("u.pplog: byte offset {at}: unknown event code 200 (expected one of session_begin session_end frag_begin frag_end par_begin par_end task_begin task_end wait_begin wait_end counters)"));
}

#[test]
fn time_backwards_across_chunks() {
    let mut w = LogWriter::new(Vec::new(), &header()).unwrap();
    let mut c = ChunkEncoder::new(ThreadId(0));
    c.event(Nanos(100), &EventKind::TaskBegin);
    w.chunk(&c).unwrap();
    c.reset(ThreadId(0));
    c.event(Nanos(50), &EventKind::TaskEnd { wasted: false });
    w.chunk(&c).unwrap();
    let reader = LogReader::from_bytes(w.finish().unwrap(), "b.pplog").unwrap();
    let items: Vec<_> = reader.streams().remove(0).collect();
    assert!(items[0].is_ok());
    assert!(matches!(
        items[1],
        Err(LogError::TimeBackwards {
            time: Nanos(50),
            previous: Nanos(100),
            ..
        })
    ));
}
