//! Shared by the fuzz targets: run the reader and the whole pp engine on a log in memory
//! and check what must hold for any input.

use pp::{analyze_bytes, Options, TagSelection};

/// Reading a log in batches gives exactly what reading it event by event gives: the same
/// events, positions and final errors; and so does reading it with a window of a few bytes
/// per stream (events and chunk heads cut by the window's end).
fn batches_match_events(bytes: &[u8]) {
    use pplib::log::{EventBatch, LogReader, ThreadStream};
    let Ok(reader) = LogReader::from_bytes(bytes.to_vec(), "fuzz.pplog") else {
        return;
    };
    let mut small =
        LogReader::from_bytes(bytes.to_vec(), "fuzz.pplog").expect("the same bytes read twice");
    small.set_stream_window(1 + bytes.len() % 13);
    let mut batch = EventBatch::new();
    let mut by_batches = |mut stream: ThreadStream| {
        let mut items = Vec::new();
        loop {
            let result = stream.next_batch(&mut batch);
            for (e, values) in batch.iter() {
                items.push(Ok((e.time, e.kind(values), e.pos())));
            }
            match result {
                Err(e) => {
                    items.push(Err(e.to_string()));
                    break;
                }
                Ok(()) if batch.is_empty() => break,
                Ok(()) => {}
            }
        }
        items
    };
    let streams = reader.streams().into_iter().zip(reader.streams());
    for ((by_batch, by_event), windowed) in streams.zip(small.streams()) {
        let from_events: Vec<_> = by_event
            .map(|r| {
                r.map(|e| (e.time, e.kind, e.pos))
                    .map_err(|e| e.to_string())
            })
            .collect();
        assert_eq!(by_batches(by_batch), from_events);
        assert_eq!(by_batches(windowed), from_events, "small window");
    }
}

/// Any bytes: an `Err` (never a panic), or profiles that satisfy the invariant.
pub fn check(bytes: &[u8]) {
    batches_match_events(bytes);
    let options = Options {
        tags: TagSelection::All,
        miss_latency_ns: Some(100.0),
        histograms: true,
        allow_truncated: bytes.len() % 2 == 0,
        strict: bytes.len() % 3 == 0,
        sequential: true,
    };
    match analyze_bytes(bytes.to_vec(), "fuzz.pplog", &options) {
        Err(e) => {
            // Errors are one line.
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "multi-line error: {msg}");
        }
        Ok(a) => {
            for p in &a.profiles {
                assert!(p.tt >= 0.0 && p.tt.is_finite(), "tt = {}", p.tt);
                for (c, v) in p.categories() {
                    assert!(v.is_finite(), "{c} = {v}");
                }
                assert!(
                    p.invariant_error() <= 1e-6,
                    "invariant: li+ip+sl+wc+rt = {} tt = {}",
                    p.li + p.ip + p.sl + p.wc + p.rt,
                    p.tt
                );
                for line in a.record_lines(&[]) {
                    assert!(!line.contains('\n'));
                }
            }
            let _ = pp::table::analysis_text(&a, true);
        }
    }
}
