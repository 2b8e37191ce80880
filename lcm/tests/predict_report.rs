//! `lcm predict`'s readable report as a user reads it: its tables keep their columns in
//! line whatever the cells (a fragment name longer than the header, grid values written
//! as exponents), and a pipeline's hand-offs say which stage waits for which, for what and
//! who pays, also where the stage that waits comes out as the bottleneck.
//!
//! Fixture: tests/predict/report_pipeline.rs (its header says what it must give) with the
//! round-number machine file (tests/support/round_machine.rs) plus `handoff_notify_s =
//! 3e-6` and `handoff_spin_window_s = 5e-6`. Snapshots: tests/predict/snapshots (review
//! changes with `cargo insta review`).

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
/// the first line that starts with `end` (or at the end of the text).
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
    let table = table_lines(&out, "fragment", "overheads");
    // A header, the producer, the consumer, the scope's fork/join and two hand-offs.
    assert_eq!(table.len(), 6, "{out}");
    assert_aligned(&table);
    assert!(table
        .iter()
        .any(|l| l.starts_with("produce_an_item_with_a_long_name ")));
}

#[test]
fn a_waiting_stage_that_comes_out_slowest_is_explained() {
    let dir = setup();
    // Producer 10 us, consumer 4 us per item: the consumer waits 6 us (beyond the 5 us
    // window, asleep); with the wake-up (10 us) it takes 14 us, the producer 13 us.
    let out = predict(
        dir.path(),
        &["--set", "p=2", "--set", "ta=1e-5", "--set", "tb=4e-6"],
    );
    assert!(out.contains("bottleneck stage 2"), "{out}");
    assert!(
        out.contains("so stage 2 waits that long for each item from it; asleep"),
        "{out}"
    );
    // 4 items x (14 - 13) us.
    assert!(
        out.contains("stage 2 waits for stage 1, yet with their hand-offs it is the slower of the two (by 4.0000e-6 s"),
        "{out}"
    );
    assert_aligned(&table_lines(&out, "fragment", "overheads"));
    // The flow shop on 13 and 14 us per item: 27 + 3 * 14 us, and the scope's fork/join
    // (2 us).
    let t: f64 = out
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("predicted: T="))
        .and_then(|v| v.parse().ok())
        .expect(&out);
    close(t, 71e-6);
    insta::with_settings!({snapshot_path => "predict/snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("report_waiting_stage_slowest", out);
    });
}

#[test]
fn a_stage_that_waits_for_room_says_so_and_no_note_when_the_slower_stage_stays_slowest() {
    let dir = setup();
    // Consumer 30 us, producer 10 us: the producer waits 20 us per item for room, asleep;
    // it adds the wake-up (10 us: 20 us), the consumer the call (3 us: 33 us).
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
        out.contains("stage 2 pays handoff_notify_s per item to wake it, stage 1 handoff_wake_s"),
        "{out}"
    );
    assert!(!out.contains("yet with their hand-offs"), "{out}");
}

#[test]
fn without_handoff_notify_s_the_waker_pays_nothing_and_the_text_says_so() {
    let dir = setup_with("");
    let out = predict(
        dir.path(),
        &["--set", "p=2", "--set", "ta=3e-5", "--set", "tb=1e-5"],
    );
    assert!(
        out.contains("asleep (longer than the spin window, 5.0000e-6 s): stage 1 pays nothing to wake it (no handoff_notify_s in the machine file), stage 2 handoff_wake_s"),
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
