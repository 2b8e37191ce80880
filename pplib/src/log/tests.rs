//! Reader tests: batches and sinks against the event iterator, and truncation at the very
//! start of a log.

use super::binary::{ChunkEncoder, LogWriter, TimeScale, MAGIC};
use super::*;

/// What a stream gives, in a comparable form: events, then the final error's message.
type Items = Vec<Result<(Nanos, EventKind, Position), String>>;

fn by_events(reader: &LogReader) -> Vec<(ThreadId, Items)> {
    reader
        .streams()
        .into_iter()
        .map(|s| {
            let thread = s.thread();
            let items = s
                .map(|r| {
                    r.map(|e| (e.time, e.kind, e.pos))
                        .map_err(|e| e.to_string())
                })
                .collect();
            (thread, items)
        })
        .collect()
}

fn by_batches(reader: &LogReader) -> Vec<(ThreadId, Items)> {
    let mut batch = EventBatch::new();
    reader
        .streams()
        .into_iter()
        .map(|mut s| {
            let thread = s.thread();
            let mut items = Vec::new();
            loop {
                let result = s.next_batch(&mut batch);
                assert!(batch.len() <= EventBatch::CAPACITY);
                for (e, values) in batch.iter() {
                    items.push(Ok((e.time, e.kind(values), e.pos())));
                }
                match result {
                    Err(e) => {
                        items.push(Err(e.to_string()));
                        // After the error the stream is over.
                        assert!(s.next_batch(&mut batch).is_ok() && batch.is_empty());
                        break;
                    }
                    Ok(()) if batch.is_empty() => break,
                    Ok(()) => {}
                }
            }
            (thread, items)
        })
        .collect()
}

/// A sink that keeps what it is given and stops after every `stop_every`-th event.
struct Recorder {
    items: Items,
    seen: usize,
    stop_every: usize,
}

impl EventSink for Recorder {
    fn event(&mut self, e: CompactEvent, values: &[(CounterId, u64)]) -> bool {
        assert_eq!(
            values.len(),
            if e.code == EventCode::Counters {
                e.arg as usize
            } else {
                0
            }
        );
        self.items.push(Ok((e.time, e.kind(values), e.pos())));
        self.seen += 1;
        !self.seen.is_multiple_of(self.stop_every)
    }
}

/// The streams read with [`ThreadStream::next_into`], with limits cycling through 1..=7
/// and a sink that stops every `stop_every` events.
fn by_sink(reader: &LogReader, stop_every: usize) -> Vec<(ThreadId, Items)> {
    reader
        .streams()
        .into_iter()
        .map(|mut s| {
            let thread = s.thread();
            let mut sink = Recorder {
                items: Vec::new(),
                seen: 0,
                stop_every,
            };
            // A call that gave fewer than its limit without a stop: the stream has ended.
            let mut ended = false;
            for call in 0.. {
                let limit = call % 7 + 1;
                let before = sink.items.len();
                match s.next_into(&mut sink, limit) {
                    Ok(0) => {
                        assert_eq!(sink.items.len(), before);
                        // The end, for good.
                        assert!(matches!(s.next_into(&mut sink, 3), Ok(0)));
                        break;
                    }
                    Ok(n) => {
                        assert!(!ended, "events after a short call");
                        assert_eq!(sink.items.len() - before, n);
                        assert!(n <= limit);
                        ended = n < limit && !sink.seen.is_multiple_of(stop_every);
                    }
                    Err(e) => {
                        sink.items.push(Err(e.to_string()));
                        assert!(matches!(s.next_into(&mut sink, 3), Ok(0)));
                        break;
                    }
                }
            }
            (thread, sink.items)
        })
        .collect()
}

fn header(counters: usize) -> Header {
    Header {
        version: binary::VERSION,
        processors: 2,
        clock: "test".to_owned(),
        counters: (0..counters).map(|i| format!("c{i}")).collect(),
        process: ProcessInfo::default(),
        event_cost_ps: None,
    }
}

/// A log of two threads with every kind of event, `rounds` times over, in chunks of
/// `per_chunk` events.
fn log_bytes(rounds: usize, per_chunk: usize, scale: TimeScale) -> Vec<u8> {
    let mut w = LogWriter::with_time_scale(Vec::new(), &header(2), scale).unwrap();
    let work = w.name("work").unwrap();
    let lock = w.name("lock").unwrap();
    let mut events: Vec<Vec<(u64, EventKind)>> = vec![Vec::new(), Vec::new()];
    let mut t = [10u64, 15u64];
    for r in 0..rounds as u64 {
        for (th, list) in events.iter_mut().enumerate() {
            let kinds = [
                EventKind::TaskBegin,
                EventKind::FragBegin(work),
                EventKind::WaitBegin(lock),
                EventKind::WaitEnd,
                // Cumulative (never decreasing) values, the second of 10-byte varints.
                EventKind::Counters(vec![
                    (CounterId(0), r * 1000),
                    (CounterId(1), u64::MAX - 1000 + r),
                ]),
                EventKind::FragEnd(work),
                EventKind::TaskEnd { wasted: r % 3 == 0 },
                EventKind::ParBegin,
                EventKind::ParEnd,
                EventKind::SessionBegin,
                EventKind::SessionEnd,
            ];
            for k in kinds {
                // Steps of every varint length, including zero.
                t[th] += (r * 7919 + th as u64) % 300_000 * u64::from(r % 5 != 1);
                list.push((t[th], k));
            }
        }
    }
    let mut c = ChunkEncoder::new(ThreadId(0));
    let mut at = [0usize; 2];
    while at.iter().zip(&events).any(|(a, e)| *a < e.len()) {
        for th in 0..2 {
            c.reset(ThreadId(th as u32));
            for (time, kind) in events[th].iter().skip(at[th]).take(per_chunk) {
                c.event(Nanos(*time), kind);
            }
            at[th] = (at[th] + per_chunk).min(events[th].len());
            w.chunk(&c).unwrap();
        }
    }
    w.finish().unwrap()
}

#[test]
fn batches_give_what_the_iterator_gives() {
    let scales = [
        TimeScale::IDENTITY,
        TimeScale {
            ref_raw: 1000,
            ref_ns: 5,
            ns_per_raw_q32: 3 << 31,
        },
    ];
    for scale in scales {
        for (rounds, per_chunk) in [(1, 3), (40, 7), (900, 5000)] {
            let bytes = log_bytes(rounds, per_chunk, scale);
            let reader = LogReader::from_bytes(bytes, "b.pplog").unwrap();
            let want = by_events(&reader);
            assert!(want
                .iter()
                .all(|(_, items)| items.iter().all(|i| i.is_ok())));
            assert_eq!(
                by_batches(&reader),
                want,
                "{rounds} rounds, {per_chunk} per chunk"
            );
            for stop_every in [1, 5, usize::MAX] {
                assert_eq!(
                    by_sink(&reader, stop_every),
                    want,
                    "{rounds} rounds, {per_chunk} per chunk, sink stops every {stop_every}"
                );
            }
        }
    }
}

#[test]
fn batches_give_the_same_errors_on_cut_and_corrupt_logs() {
    let bytes = log_bytes(6, 9, TimeScale::IDENTITY);
    let check = |b: Vec<u8>, what: &str| {
        if let Ok(reader) = LogReader::from_bytes(b, "x.pplog") {
            let want = by_events(&reader);
            assert_eq!(by_batches(&reader), want, "{what}");
            assert_eq!(by_sink(&reader, 4), want, "{what}, sink");
        }
    };
    for cut in 0..bytes.len() {
        check(bytes[..cut].to_vec(), &format!("cut at {cut}"));
    }
    for i in 14..bytes.len() {
        for flip in [0x01, 0x80, 0xFF] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            check(b, &format!("byte {i} ^ {flip:#x}"));
        }
    }
}

/// Windows (bytes each stream holds) down to a byte: events straddle the window's end,
/// chunk heads too, and the 10-byte counter varints need a window of their own.
const WINDOWS: [usize; 6] = [1, 2, 5, 13, 64, 4096];

/// `bytes` read with every window of [`WINDOWS`] gives what the default window gives, by
/// events, batches and sinks.
fn same_with_small_windows(bytes: &[u8], what: &str) {
    let Ok(reader) = LogReader::from_bytes(bytes.to_vec(), "w.pplog") else {
        return;
    };
    let want = by_events(&reader);
    for window in WINDOWS {
        let mut small = LogReader::from_bytes(bytes.to_vec(), "w.pplog").unwrap();
        small.set_stream_window(window);
        assert_eq!(by_events(&small), want, "{what}, window {window}");
        assert_eq!(by_batches(&small), want, "{what}, window {window}, batches");
        assert_eq!(by_sink(&small, 3), want, "{what}, window {window}, sink");
    }
}

#[test]
fn small_windows_give_what_whole_chunks_give() {
    for (rounds, per_chunk) in [(1, 3), (40, 7), (300, 5000)] {
        let bytes = log_bytes(rounds, per_chunk, TimeScale::IDENTITY);
        same_with_small_windows(&bytes, &format!("{rounds} rounds, {per_chunk} per chunk"));
    }
}

#[test]
fn small_windows_give_the_same_errors_on_cut_and_corrupt_logs() {
    let bytes = log_bytes(3, 9, TimeScale::IDENTITY);
    for cut in (0..bytes.len()).step_by(3) {
        same_with_small_windows(&bytes[..cut], &format!("cut at {cut}"));
    }
    for i in 14..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x80;
        same_with_small_windows(&b, &format!("byte {i} ^ 0x80"));
    }
}

#[test]
fn a_stream_holds_at_most_its_window_of_a_large_chunk() {
    // One chunk of 200 000 events (about 600 KB): a stream holds a window of it.
    let mut w = LogWriter::new(Vec::new(), &header(0)).unwrap();
    let work = w.name("work").unwrap();
    let mut c = ChunkEncoder::new(ThreadId(0));
    for i in 0..100_000u64 {
        c.event(Nanos(2 * i), &EventKind::FragBegin(work));
        c.event(Nanos(2 * i + 1), &EventKind::FragEnd(work));
    }
    w.chunk(&c).unwrap();
    let bytes = w.finish().unwrap();
    assert!(bytes.len() > 500_000);
    let mut reader = LogReader::from_bytes(bytes, "large.pplog").unwrap();
    reader.set_stream_window(8192);
    let mut stream = reader.streams().pop().unwrap();
    let mut batch = EventBatch::new();
    let mut events = 0;
    loop {
        stream.next_batch(&mut batch).unwrap();
        if batch.is_empty() {
            break;
        }
        events += batch.len();
        let StreamInner::Binary(b) = &stream.inner else {
            panic!("a binary stream")
        };
        assert!(b.held() <= 8192, "{} bytes held", b.held());
    }
    assert_eq!(events, 200_000);
}

#[test]
fn batches_of_a_text_trace() {
    let text = "pptrace 1\nprocessors 2\n0 0 session_begin\n3 1 task_begin\n5 0 counters a=1 b=2\n\
                6 0 counters b=3\n9 1 task_end wasted\n10 0 session_end\n11 1 bogus\n";
    let reader = LogReader::from_bytes(text.as_bytes().to_vec(), "t.pptrace").unwrap();
    let events = by_events(&reader);
    assert_eq!(by_batches(&reader), events);
    assert_eq!(by_sink(&reader, 2), events);
    assert!(events[1].1.last().unwrap().is_err());
}

#[test]
fn a_log_cut_right_after_its_header_is_reported_truncated_by_the_streams() {
    let bytes = LogWriter::new(Vec::new(), &header(0))
        .unwrap()
        .finish()
        .unwrap();
    // Drop the END record: header only.
    let cut = bytes[..bytes.len() - 5].to_vec();
    let end = cut.len() as u64;
    let reader = LogReader::from_bytes(cut, "h.pplog").unwrap();
    assert_eq!(reader.truncated(), Some(Position::Offset(end)));
    let streams = reader.streams();
    assert_eq!(streams.len(), 1);
    let items: Vec<_> = streams.into_iter().next().unwrap().collect();
    assert_eq!(items.len(), 1);
    let err = items[0].as_ref().unwrap_err();
    assert!(err.is_truncated(), "{err}");
    assert_eq!(err.position(), Some(Position::Offset(end)));
    // The complete log has no thread and no stream.
    let reader = LogReader::from_bytes(bytes, "h.pplog").unwrap();
    assert!(reader.streams().is_empty());
}

#[test]
fn a_file_cut_inside_the_magic_is_truncated() {
    for n in 1..MAGIC.len() {
        let e = LogReader::from_bytes(MAGIC[..n].to_vec(), "m.pplog").unwrap_err();
        assert!(e.is_truncated(), "{n} bytes: {e}");
        assert_eq!(e.position(), Some(Position::Offset(n as u64)));
        assert!(e.to_string().contains("magic"), "{e}");
    }
    let dir = std::env::temp_dir().join(format!("pplib-magic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cut.pplog");
    std::fs::write(&path, &MAGIC[..5]).unwrap();
    let e = LogReader::open(&path).unwrap_err();
    assert!(e.is_truncated(), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
    // Other short files are still "not a log".
    let e = LogReader::from_bytes(b"PPX".to_vec(), "x").unwrap_err();
    assert!(matches!(e, LogError::NotALog { .. }), "{e}");
}
