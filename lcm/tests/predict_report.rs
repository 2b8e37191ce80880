//! `lcm predict`'s readable report as a user reads it: its tables keep their columns in
//! line whatever the cells (a fragment name longer than the header, grid values written
//! as exponents), and a pipeline's hand-offs say which stage waits for which, for what, on
//! what share of the items it parks and who pays; a fragment reached through calls from
//! several places has one row per place, each saying where it is called from.
//!
//! Fixtures: tests/predict/report_pipeline.rs (its header says what it must give) with the
//! round-number machine file (tests/support/round_machine.rs) plus `handoff_notify_s =
//! 3e-6` and `handoff_spin_window_s = 5e-6`; tests/predict/report_calls.rs (likewise).
//! Snapshots: tests/predict/snapshots (review changes with `cargo insta review`).

#[path = "support/run.rs"]
mod support;

#[path = "support/round_machine.rs"]
mod round;
use round::{close, round_machine};

use std::path::{Path, PathBuf};

/// A directory with the fixture as `t.rs` and the machine file as `machine.txt`.
fn setup() -> tempfile::TempDir {
    setup_with("handoff_notify_s = 3e-6\n")
}

/// The same, the machine file's `handoff_notify_s` line being `notify` (empty: none).
fn setup_with(notify: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/predict/report_pipeline.rs");
    std::fs::copy(src, dir.path().join("t.rs")).unwrap();
    let round = std::fs::read_to_string(round_machine(dir.path())).unwrap();
    let text = format!("{round}{notify}handoff_spin_window_s = 5e-6\n");
    std::fs::write(dir.path().join("machine.txt"), text).unwrap();
    dir
}

/// `lcm predict t.rs --machine machine.txt ARGS` in `dir`: its stdout (exit 0 asserted).
fn predict(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["predict", "t.rs", "--machine", "machine.txt"];
    all.extend_from_slice(args);
    let (code, out, err) = support::lcm(&all, dir);
    assert_eq!(code, 0, "{err}");
    out
}

/// The lines of the table that starts with the line starting with `header` and ends before
/// the first line that starts with `end` (or at the end of the text): the fragment table
/// ends before the line of the categories inside the fragments.
fn table_lines<'a>(text: &'a str, header: &str, end: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| !l.starts_with(header))
        .take_while(|l| !l.starts_with(end))
        .collect()
}

/// Asserts that every line of a table whose last column is right-aligned has the same
/// length, so that every right-aligned column ends at the same place on every line.
fn assert_aligned(lines: &[&str]) {
    assert!(lines.len() > 1, "no table: {lines:?}");
    let width = lines[0].chars().count();
    for l in lines {
        assert_eq!(
            l.chars().count(),
            width,
            "out of line:\n{}",
            lines.join("\n")
        );
    }
}

#[test]
fn the_fragment_table_takes_its_widths_from_the_names() {
    let dir = setup();
    let out = predict(
        dir.path(),
        &["--set", "p=2", "--set", "ta=3e-5", "--set", "tb=1e-5"],
    );
    let table = table_lines(&out, "fragment", "inside the fragments");
    // A header, the producer, the consumer, the scope's fork/join and two hand-offs.
    assert_eq!(table.len(), 6, "{out}");
    assert_aligned(&table);
    assert!(table
        .iter()
        .any(|l| l.starts_with("produce_an_item_with_a_long_name ")));
}

#[test]
fn a_stage_that_waits_past_the_window_parks_on_a_share_of_its_items() {
    let dir = setup();
    // Producer 10 us, consumer 4 us per item: the consumer waits D = 6 us, beyond the 5 us
    // window. With handoff_wake_s 10 us and handoff_notify_s 3 us it parks on D / (D + 7)
    // = 6/13 of the items (46 %): the producer takes 10 + 3 * 6/13 us per item, the
    // consumer 4 + 10 * 6/13 + 0.1 * 7/13 us, so the producer stays the bottleneck.
    let out = predict(
        dir.path(),
        &["--set", "p=2", "--set", "ta=1e-5", "--set", "tb=4e-6"],
    );
    assert!(out.contains("bottleneck stage 1"), "{out}");
    assert!(
        out.contains("so stage 2 waits that long for each item from it; asleep (longer than the spin window, 5.0000e-6 s) on 46 % of the items, caught spinning on the others (stage 2 pays handoff_spin_s); on each it sleeps on, stage 1 pays handoff_notify_s to wake it and stage 2 pays handoff_wake_s"),
        "{out}"
    );
    assert_aligned(&table_lines(&out, "fragment", "inside the fragments"));
    // The flow shop: fill (both stages) + 3 items of the producer, and the scope's
    // fork/join (2 us).
    let producer = 10e-6 + 3e-6 * 6.0 / 13.0;
    let consumer = 4e-6 + 10e-6 * 6.0 / 13.0 + 0.1e-6 * 7.0 / 13.0;
    let t: f64 = out
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("predicted: T="))
        .and_then(|v| v.parse().ok())
        .expect(&out);
    close(t, 2e-6 + producer + consumer + 3.0 * producer);
    insta::with_settings!({snapshot_path => "predict/snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("report_parked_share", out);
    });
}

#[test]
fn a_stage_that_waits_for_room_says_so() {
    let dir = setup();
    // Consumer 30 us, producer 10 us: the producer waits 20 us per item for room, beyond
    // the window by more than the wake-up's lag (10 - 3 us), so it parks on every item: it
    // adds the wake-up (10 us: 20 us), the consumer the call (3 us: 33 us).
    let out = predict(
        dir.path(),
        &["--set", "p=2", "--set", "ta=1e-5", "--set", "tb=3e-5"],
    );
    assert!(out.contains("bottleneck stage 2"), "{out}");
    assert!(
        out.contains("stage 2 is slower by 2.0000e-5 s per item before hand-offs, so stage 1 waits that long for room to hand each item to it; asleep"),
        "{out}"
    );
    assert!(
        out.contains("on every item: on each, stage 2 pays handoff_notify_s to wake it and stage 1 pays handoff_wake_s"),
        "{out}"
    );
}

#[test]
fn without_handoff_notify_s_the_waker_pays_nothing_and_the_text_says_so() {
    let dir = setup_with("");
    let out = predict(
        dir.path(),
        &["--set", "p=2", "--set", "ta=3e-5", "--set", "tb=1e-5"],
    );
    assert!(
        out.contains("asleep (longer than the spin window, 5.0000e-6 s) on every item: on each, stage 1 pays nothing to wake it (no handoff_notify_s in the machine file) and stage 2 pays handoff_wake_s"),
        "{out}"
    );
}

#[test]
fn the_grid_table_keeps_exponent_values_in_line() {
    let dir = setup();
    let out = predict(
        dir.path(),
        &[
            "--set",
            "tb=4e-6",
            "--grid",
            "ta=1e-6,2.5e-5,1e-3",
            "--grid",
            "p=1,2",
        ],
    );
    let table = table_lines(&out, "", "\u{0}");
    // The title, then the table.
    assert_aligned(&table[1..]);
    // A grid value is written as given, not rounded to 0.000.
    assert!(out.contains("2.5e-5"), "{out}");
    insta::with_settings!({snapshot_path => "predict/snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("report_grid_table", out);
    });
}

#[test]
fn a_fragment_called_from_several_places_says_where_each_row_is_called_from() {
    let dir = tempfile::tempdir().unwrap();
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/predict/report_calls.rs");
    std::fs::copy(src, dir.path().join("calls.rs")).unwrap();
    let (code, out, err) = support::lcm(&["predict", "calls.rs", "--set", "p=1"], dir.path());
    assert_eq!(code, 0, "{err}");
    let table = table_lines(&out, "fragment", "inside the fragments");
    assert_aligned(&table);
    let words: Vec<Vec<&str>> = table
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        words[0],
        ["fragment", "line", "called", "at", "runs", "p_f", "T_f", "(s)", "adds", "T", "(s)"],
        "{out}"
    );
    // fragment, line, called at (its words), runs: the fixture's header gives them.
    let head = |w: &Vec<&str>| w[..w.len() - 3].join(" ");
    assert_eq!(
        words[1..].iter().map(head).collect::<Vec<_>>(),
        [
            "fill 29 9 x2 2",
            "fill 29 11 1",
            "fill 29 13 x3 > 22 x4 12",
            "work 17 1"
        ],
        "{out}"
    );
    close(
        out.lines()
            .last()
            .and_then(|l| l.strip_prefix("predicted: T="))
            .and_then(|v| v.parse().ok())
            .expect(&out),
        1.015,
    );
    let (code, out, err) = support::lcm(
        &["predict", "calls.rs", "--set", "p=1", "--json"],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v[0]["accounting"]["fragments"].as_array().unwrap();
    let calls: Vec<serde_json::Value> = rows.iter().map(|r| r["called_from"].clone()).collect();
    assert_eq!(
        calls,
        [
            serde_json::json!([{"function": "fill", "line": 9, "repeat": 2.0}]),
            serde_json::json!([{"function": "fill", "line": 11, "repeat": 1.0}]),
            serde_json::json!([
                {"function": "batch", "line": 13, "repeat": 3.0},
                {"function": "fill", "line": 22, "repeat": 4.0}
            ]),
            serde_json::json!([]),
        ],
        "{out}"
    );
    // The fields that were there before stay as they were: the fragment's own line.
    assert!(rows[..3].iter().all(|r| r["line"] == 29), "{out}");
    assert_eq!(rows[2]["executions"], 12.0, "{out}");
}

#[test]
fn without_calls_the_fragment_table_has_no_called_at_column() {
    let dir = setup();
    let out = predict(
        dir.path(),
        &["--set", "p=2", "--set", "ta=3e-5", "--set", "tb=1e-5"],
    );
    let table = table_lines(&out, "fragment", "inside the fragments");
    assert!(
        table[0].starts_with("fragment") && !table[0].contains("called at"),
        "{out}"
    );
}
