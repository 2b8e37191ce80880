//! Snapshot tests of the human-facing text: the profile table (Crovella's Figure 4.3), the
//! per-thread table (his Table 4.2), the duration percentiles and the diagnosis line.
//! Inputs are the hand-computed fixtures, so the numbers in the snapshots are checked
//! independently by `fixtures.rs`.

use std::path::Path;

use pp::table::{analysis_text, diagnosis, duration_table, profile_table, thread_table};
use pp::{analyze, Analysis, Options, TagSelection};

fn fixture(name: &str, options: &Options) -> Analysis {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut a = analyze(&dir.join(name), options).unwrap();
    // Snapshots must not depend on where the repository is checked out.
    a.log = Path::new(name).to_owned();
    a
}

#[test]
fn table_of_an_imbalanced_loop() {
    let a = fixture("imbalanced_loop.pptrace", &Options::default());
    insta::assert_snapshot!(profile_table("imbalanced_loop.pptrace", a.session()));
}

#[test]
fn table_with_baseline_and_counters() {
    let options = Options {
        tags: TagSelection::All,
        miss_latency_ns: Some(100.0),
        ..Options::default()
    };
    let mut a = fixture("baseline_p2.pptrace", &options);
    let b = fixture("baseline_p1.pptrace", &options);
    a.apply_baseline(&b);
    insta::assert_snapshot!(analysis_text(&a, false));
}

#[test]
fn table_of_an_oversubscribed_run() {
    let a = fixture("oversubscribed.pptrace", &Options::default());
    insta::assert_snapshot!(profile_table("oversubscribed.pptrace", a.session()));
}

#[test]
fn per_thread_table() {
    let a = fixture("late_early_threads.pptrace", &Options::default());
    insta::assert_snapshot!(thread_table(a.session()));
}

#[test]
fn durations_table() {
    let options = Options {
        histograms: true,
        ..Options::default()
    };
    let a = fixture("barrier.pptrace", &options);
    insta::assert_snapshot!(duration_table(a.session()));
}

#[test]
fn all_tags_with_per_thread_rows() {
    let a = fixture("fragments.pptrace", &Options::all_tags());
    insta::assert_snapshot!(analysis_text(&a, true));
}

#[test]
fn diagnoses_name_the_largest_loss() {
    let lines: Vec<String> = [
        "serial_only.pptrace",
        "imbalanced_loop.pptrace",
        "locks_in_tasks.pptrace",
        "wasted_tasks.pptrace",
        "counters.pptrace",
    ]
    .iter()
    .map(|f| {
        format!(
            "{f}: {}",
            diagnosis(fixture(f, &Options::default()).session())
        )
    })
    .collect();
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn table_with_fork_join_latency_under_li() {
    // fj is indented under li and not added into tt; the diagnosis splits li into fj and
    // the rest.
    let a = fixture("nested_par_fj.pptrace", &Options::default());
    insta::assert_snapshot!(profile_table("nested_par_fj.pptrace", a.session()));
}

#[test]
fn table_of_a_disturbed_run_with_switch_counts() {
    let a = fixture("disturbed.pptrace", &Options::default());
    insta::assert_snapshot!(profile_table("disturbed.pptrace", a.session()));
}

#[test]
fn table_with_the_cost_of_a_dense_recording() {
    // The line after the session's table: 34 events at the 20 ns the trace states.
    let a = fixture("dense_recording.pptrace", &Options::default());
    insta::assert_snapshot!(analysis_text(&a, false));
}
