//! Shared by the fuzz targets of what `pp` users run: the default fast engine with its
//! threaded pipeline, against the reference engine, and the file-backed log reader.

use std::path::PathBuf;

use pp::report::Report;
use pp::table::analysis_text;
use pp::{analyze_reader_with, Analysis, Engine, Options, TagSelection};
use pplib::log::LogReader;

/// What a user sees of one analysis (or its error message).
#[derive(Debug, PartialEq)]
struct Seen {
    lines: Vec<String>,
    table: String,
    per_thread: Option<String>,
    json: Option<String>,
    warnings: Vec<String>,
    events: u64,
}

fn seen(result: Result<Analysis, pp::PpError>, full: bool) -> Result<Seen, String> {
    let mut a = result.map_err(|e| {
        let msg = e.to_string();
        assert!(!msg.contains('\n'), "multi-line error: {msg}");
        assert!(msg.len() < 4096, "a message that echoes the input: {msg}");
        msg
    })?;
    a.log = PathBuf::from("log");
    for p in &a.profiles {
        assert!(
            p.invariant_error() <= 1e-6,
            "invariant: li+ip+sl+wc+rt = {} tt = {}",
            p.li + p.ip + p.sl + p.wc + p.rt,
            p.tt
        );
    }
    Ok(Seen {
        lines: a.record_lines(&["n=1".to_owned()]),
        table: analysis_text(&a, false),
        per_thread: full.then(|| analysis_text(&a, true)),
        json: full.then(|| Report::new(std::slice::from_ref(&a), &[]).to_json()),
        warnings: a.warnings.clone(),
        events: a.events,
    })
}

/// The options of a run, varied by the input's length so that every choice is reached.
fn options(bytes: &[u8]) -> Options {
    Options {
        tags: match bytes.len() % 3 {
            0 => TagSelection::All,
            1 => TagSelection::None,
            _ => TagSelection::One("work".to_owned()),
        },
        miss_latency_ns: Some(100.0),
        histograms: false,
        allow_truncated: bytes.len() % 2 == 0,
        strict: bytes.len() % 5 == 0,
        sequential: false,
    }
}

/// The default engine as `pp` runs it (fast, threaded pipeline; with and without
/// per-thread rows) gives exactly what the reference gives: profiles, tables, JSON,
/// warnings, or the same error.
pub fn engines_agree(reader: &LogReader, bytes: &[u8]) {
    let options = options(bytes);
    let reference = seen(
        analyze_reader_with(
            reader,
            &Options {
                sequential: true,
                ..options.clone()
            },
            None,
            Engine::Reference,
        ),
        true,
    );
    let fast = seen(analyze_reader_with(reader, &options, None, Engine::Fast), true);
    assert_eq!(fast, reference, "fast (threaded) differs from the reference");
    let totals = seen(
        analyze_reader_with(reader, &options, None, Engine::FastTotals),
        false,
    );
    match (&totals, &reference) {
        (Ok(t), Ok(r)) => {
            assert_eq!(t.lines, r.lines, "record lines (totals only)");
            assert_eq!(t.table, r.table, "table (totals only)");
            assert_eq!(t.warnings, r.warnings, "warnings (totals only)");
        }
        _ => assert_eq!(totals.err(), reference.err(), "error (totals only)"),
    }
}

/// Writes `bytes` to a file of its own and opens it with [`LogReader::open`] (the
/// file-backed reader: the content sniffing, binary chunks and text lines read from the
/// file), checking that it reads as the same bytes in memory do (errors too, for files the
/// sniffing reads whole, below 64 KiB).
pub fn file_reader_agrees(bytes: &[u8]) {
    let path = std::env::temp_dir().join(format!("pp-fuzz-{}.log", std::process::id()));
    std::fs::write(&path, bytes).expect("the fuzz temp file is writable");
    let name = path.to_str().expect("a UTF-8 temp path").to_owned();
    let from_file = LogReader::open(&path);
    let from_bytes = LogReader::from_bytes(bytes.to_vec(), &name);
    match (&from_file, &from_bytes) {
        (Ok(file), Ok(mem)) => {
            assert_eq!(file.header(), mem.header());
            assert_eq!(file.names(), mem.names());
            assert_eq!(file.threads(), mem.threads());
            let events = |r: &LogReader| -> Vec<Vec<Result<String, String>>> {
                r.streams()
                    .into_iter()
                    .map(|s| {
                        s.map(|e| {
                            e.map(|e| format!("{:?}", (e.time, e.kind, e.pos)))
                                .map_err(|e| e.to_string())
                        })
                        .collect()
                    })
                    .collect()
            };
            assert_eq!(events(file), events(mem), "file and memory streams differ");
            engines_agree(file, bytes);
        }
        (Err(f), Err(m)) if bytes.len() < 64 << 10 => {
            assert_eq!(f.to_string(), m.to_string(), "file and memory errors differ");
        }
        (Err(_), Err(_)) => {}
        _ => assert!(
            bytes.len() >= 64 << 10,
            "file {:?} vs memory {:?}",
            from_file.as_ref().err().map(ToString::to_string),
            from_bytes.as_ref().err().map(ToString::to_string)
        ),
    }
    let _ = std::fs::remove_file(&path);
}
