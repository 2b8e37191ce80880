//! What the recording itself cost (`pp::recording`): from the cost pplib measures at a
//! session's end, from the gaps of a log written before that measure existed, the warning
//! above 2 % of tt, and how the command shows it (default line, `--json`, stderr). The
//! text-trace fixtures `dense_recording.pptrace` and `recording_under_limit.pptrace` are
//! checked by `fixtures.rs`.

mod common;

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use common::{fixture, pp, stderr, stdout};
use pp::recording::CostSource;
use pp::{analyze, Analysis, Options};
use pplib::log::binary::{ChunkEncoder, LogWriter};
use pplib::log::{CounterId, EventKind, Header, Nanos, ThreadId};

/// pplib records one session per process at a time: the tests take turns.
static ONE_SESSION: Mutex<()> = Mutex::new(());

/// Records `body` in a session of p = 1 into `log` and profiles it.
fn record(log: &Path, body: impl FnOnce()) -> Analysis {
    let _turn = ONE_SESSION.lock().unwrap_or_else(|e| e.into_inner());
    let session = pplib::Session::builder()
        .path(log)
        .processors(1)
        .start()
        .unwrap();
    body();
    session.finish().unwrap();
    analyze(log, &Options::default()).unwrap()
}

fn recording_warnings(a: &Analysis) -> Vec<&String> {
    a.warnings
        .iter()
        .filter(|w| w.starts_with("the recording itself took"))
        .collect()
}

/// A loop that does nothing but record fragments: its recording is most of its time, far
/// above the 2 % limit however loaded the machine (load slows the loop, not the cost pplib
/// measures, which is the fastest of its bursts).
#[test]
fn a_recording_of_back_to_back_events_warns() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("dense.pplog");
    let a = record(&log, || {
        for _ in 0..200_000 {
            pplib::frag_scope("leaf", || ());
        }
    });
    let r = &a.recording;
    assert_eq!(r.source, CostSource::Measured);
    assert!(r.events >= 400_000, "{} events", r.events);
    let share = r.share_of_tt.unwrap();
    assert!(share > 0.10, "the recording took {share} of tt");
    let w = recording_warnings(&a);
    assert_eq!(w.len(), 1, "{:?}", a.warnings);
    assert!(
        w[0].contains("measured by pplib at the session's end"),
        "{}",
        w[0]
    );
    assert!(w[0].contains("most events on thread 0 ("), "{}", w[0]);
    assert!(w[0].contains("pp_for_each_run"), "{}", w[0]);
}

/// A few events around 30 ms of sleep: their cost is far below the limit.
#[test]
fn a_sparse_recording_does_not_warn_and_says_what_it_cost() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("sparse.pplog");
    let a = record(&log, || {
        pplib::frag_scope("sleep", || std::thread::sleep(Duration::from_millis(30)));
    });
    let r = &a.recording;
    assert_eq!(r.source, CostSource::Measured);
    assert!(r.share_of_tt.unwrap() < 0.001, "{r:?}");
    assert!(recording_warnings(&a).is_empty(), "{:?}", a.warnings);
    let out = stdout(&pp(&[log.to_str().unwrap()]));
    let line = out
        .lines()
        .find(|l| l.starts_with("recording: "))
        .unwrap_or_else(|| panic!("no recording line in\n{out}"));
    assert!(
        line.contains("(measured by pplib at the session's end)"),
        "{line}"
    );
}

/// `fft_dp_n512_p16_before_event_cost.binlog` is a log pplib wrote before it measured the
/// cost of an event: the 2D FFT (`examples`, `fft2d --impl dp`, n = 512) at p = 16 on a
/// 16-core host, copied unchanged. Its header ends after the time scale; pp estimates the
/// cost from its closest events instead: 21 126 events, 1st percentile of the gaps 57 ns,
/// 1.204 ms in all, 0.29 % of its tt (0.414 s): no warning.
#[test]
fn a_log_from_before_the_measure_falls_back_to_its_closest_events() {
    let path = fixture("fft_dp_n512_p16_before_event_cost.binlog");
    let a = analyze(&path, &Options::default()).unwrap();
    assert_eq!(a.processors, 16);
    let r = &a.recording;
    assert_eq!(r.source, CostSource::LogGaps);
    assert_eq!((r.events, r.event_cost_ns), (21_126, Some(57.0)));
    assert_eq!(r.threads.len(), 16);
    assert!((r.share_of_tt.unwrap() - 0.00291).abs() < 1e-5, "{r:?}");
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    let out = stdout(&pp(&[path.to_str().unwrap()]));
    assert!(
        out.contains(
            "recording: 21126 events, ~57.00 ns each (an upper bound from the log's closest \
             events; the log predates pplib's own measure): 1.204 ms, 0.29% of tt"
        ),
        "{out}"
    );
}

/// A binary log with pplib's clock and no event cost: the estimate is the 1st percentile
/// of the positive gaps between consecutive events of a thread, none of them `counters`.
/// Thread 0's gaps are 0 (not counted), 300, 40, 11 660 and 0; thread 1's 25 and 5000,
/// then a counters event whose gaps (2 ns on each side) do not count: 25 ns an event (of 5
/// gaps, the 1st percentile is the smallest). 11 events × 25 ns = 275 ns of tt = 2 × 12 µs:
/// 1.15 % of tt, no warning.
#[test]
fn the_gap_estimate_takes_the_smallest_gaps_between_plain_events() {
    let header = Header {
        version: pplib::log::binary::VERSION,
        processors: 2,
        clock: pplib::clock::ClockSource::Monotonic
            .header_name()
            .to_owned(),
        counters: vec!["cpu_ns".to_owned()],
        ..Header::default()
    };
    let mut w = LogWriter::new(Vec::new(), &header).unwrap();
    let mut c0 = ChunkEncoder::new(ThreadId(0));
    for (t, k) in [
        (0, EventKind::SessionBegin),
        (0, EventKind::ParBegin),
        (300, EventKind::TaskBegin),
        (340, EventKind::TaskEnd { wasted: false }),
        (12_000, EventKind::ParEnd),
        (12_000, EventKind::SessionEnd),
    ] {
        c0.event(Nanos(t), &k);
    }
    let mut c1 = ChunkEncoder::new(ThreadId(1));
    c1.event(Nanos(100), &EventKind::TaskBegin);
    c1.event(Nanos(125), &EventKind::TaskEnd { wasted: false });
    c1.event(Nanos(5125), &EventKind::TaskBegin);
    c1.event(Nanos(5127), &EventKind::Counters(vec![(CounterId(0), 10)]));
    c1.event(Nanos(5129), &EventKind::TaskEnd { wasted: false });
    w.chunk(&c0).unwrap();
    w.chunk(&c1).unwrap();
    let a = pp::analyze_bytes(w.finish().unwrap(), "gaps.pplog", &Options::default()).unwrap();
    let r = &a.recording;
    assert_eq!(r.source, CostSource::LogGaps);
    assert_eq!((r.events, r.event_cost_ns), (11, Some(25.0)));
    assert!((r.cost_s.unwrap() - 275e-9).abs() < 1e-15, "{r:?}");
    assert!(
        (r.share_of_tt.unwrap() - 275.0 / 24_000.0).abs() < 1e-12,
        "{r:?}"
    );
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
}

/// A synthetic binary log (a clock pplib does not record with) says nothing of its
/// recording: unknown, no line, no warning.
#[test]
fn a_synthetic_log_has_no_estimate() {
    let a = pp::analyze_bytes(common::binary_example(), "x.pplog", &Options::default()).unwrap();
    assert_eq!(a.recording.source, CostSource::Unknown);
    assert_eq!(a.recording.events, 8);
    assert_eq!(a.recording.line(true), None);
}

/// The command: the warning on stderr and in `warnings`, the `recording` object of
/// `--json` with its documented fields.
#[test]
fn the_command_warns_on_stderr_and_reports_the_cost_in_json() {
    let dense = fixture("dense_recording.pptrace");
    let out = pp(&[dense.to_str().unwrap()]);
    assert!(out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains(": warning: ") && err.contains("the recording itself took 3.40% of tt"),
        "{err}"
    );
    assert!(stdout(&out).contains("recording: 34 events, ~20.00 ns each"));
    let json = pp(&["--json", dense.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let log = &doc["logs"][0];
    let r = &log["recording"];
    assert_eq!(r["events"], 34);
    assert_eq!(r["event_cost_ns"], 20.0);
    assert_eq!(r["source"], "stated");
    assert!((r["cost_s"].as_f64().unwrap() - 6.8e-7).abs() < 1e-15);
    assert!((r["share_of_tt"].as_f64().unwrap() - 0.034).abs() < 1e-12);
    assert_eq!(r["threads"][0]["thread"], 0);
    assert_eq!(r["threads"][0]["events"], 24);
    assert!((r["threads"][0]["share_of_elapsed"].as_f64().unwrap() - 0.048).abs() < 1e-12);
    let warnings = log["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w
        .as_str()
        .unwrap()
        .starts_with("the recording itself took 3.40%")));
    // A trace that states nothing: the counts, and nulls.
    let plain = pp(&[
        "--json",
        fixture("imbalanced_loop.pptrace").to_str().unwrap(),
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    let r = &doc["logs"][0]["recording"];
    assert_eq!(r["source"], "unknown");
    assert_eq!(r["events"], 12);
    assert!(r["event_cost_ns"].is_null() && r["share_of_tt"].is_null());
}
