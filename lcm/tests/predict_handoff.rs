//! The hand-off rule of pipelines (`lcm::predict::handoff`): on a two-stage pipeline of 4
//! items written inline below, whose stage times are set per test (`--set ta=… tb=…`),
//! with the round-number machine file (tests/support/round_machine.rs) plus a wake-up
//! price for the waker of 3 us and a spin window of 5 us. Each expected time is worked out
//! by hand above its assertion; the prediction without a machine file is the flow shop
//! alone, 4 * max(ta, tb) + min(ta, tb).

#[path = "support/run.rs"]
mod support;
use lcm::predict::{PredictOptions, Prediction, Program};
use std::collections::BTreeMap;
use std::path::Path;

#[path = "support/round_machine.rs"]
mod round;
use round::{close, round_machine};

const PIPELINE: &str = r#"
use std::sync::mpsc::sync_channel;
fn main() {
    let (tx, rx) = sync_channel(2);
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 0..4 {
                // lcm: fragment produce
                // lcm: rt = ta
                let item = produce(k);
                tx.send(item).unwrap();
            }
        });
        s.spawn(move || {
            for item in rx {
                // lcm: fragment consume
                // lcm: rt = tb
                consume(item);
            }
        });
    });
}
"#;

/// The round machine with `handoff_notify_s = 3e-6` and, when `window`,
/// `handoff_spin_window_s = 5e-6`; written into `dir`.
fn machine(dir: &Path, window: bool) -> std::path::PathBuf {
    let round = std::fs::read_to_string(round_machine(dir)).unwrap();
    let mut text = format!("{round}handoff_notify_s = 3e-6\n");
    if window {
        text.push_str("handoff_spin_window_s = 5e-6\n");
    }
    let path = dir.join(if window { "window.txt" } else { "old.txt" });
    std::fs::write(&path, text).unwrap();
    path
}

fn predict(machine: Option<&Path>, ta: f64, tb: f64) -> Prediction {
    let opts = PredictOptions {
        machine: machine.map(Path::to_path_buf),
        ..PredictOptions::default()
    };
    let prog = Program::from_source("t.rs", PIPELINE, &opts).unwrap_or_else(|e| panic!("{e}"));
    let at = BTreeMap::from([
        ("p".to_string(), 2.0),
        ("ta".to_string(), ta),
        ("tb".to_string(), tb),
    ]);
    prog.predict(&at).unwrap_or_else(|e| panic!("{e}"))
}

/// The fork/join of the scope around the two stage tasks: 1 us + 1 us * log2(2).
const FORK_JOIN_S: f64 = 2e-6;

#[test]
fn a_consumer_that_waits_within_the_spin_window_is_caught_spinning() {
    let dir = tempfile::tempdir().unwrap();
    let m = machine(dir.path(), true);
    // The consumer waits 7.5 - 4 = 3.5 us per item (< 5 us): it pays the spinning hand-off,
    // 0.1 us: 4 * 7.5 + (4 + 0.1) us.
    let (ta, tb) = (7.5e-6, 4e-6);
    close(predict(None, ta, tb).seconds, 34e-6);
    let with = predict(Some(&m), ta, tb);
    close(with.seconds, 34.1e-6 + FORK_JOIN_S);
    let pl = &with.accounting.pipelines[0];
    assert_eq!(pl.handoffs.len(), 1);
    let h = &pl.handoffs[0];
    assert_eq!((h.waiting_stage, h.regime.as_str()), (2, "spinning"));
    close(h.wait_s, 3.5e-6);
    assert_eq!(
        (pl.stages[0].handoff_s, pl.stages[1].handoff_s),
        (0.0, 1e-7)
    );
}

#[test]
fn a_consumer_that_waits_beyond_the_spin_window_sleeps_and_the_producer_wakes_it() {
    let dir = tempfile::tempdir().unwrap();
    let m = machine(dir.path(), true);
    // The consumer waits 30 - 10 = 20 us per item (> 5 us): the producer pays the wake-up
    // call (3 us per item), the consumer's item starts 10 us later: stage times 33 and
    // 20 us, 4 * 33 + 20 = 152 us.
    let (ta, tb) = (30e-6, 10e-6);
    close(predict(None, ta, tb).seconds, 130e-6);
    let with = predict(Some(&m), ta, tb);
    close(with.seconds, 152e-6 + FORK_JOIN_S);
    let h = &with.accounting.pipelines[0].handoffs[0];
    assert_eq!((h.waiting_stage, h.regime.as_str()), (2, "asleep"));
    // The breakdown names the cost like the other machine costs.
    let work: f64 = with
        .accounting
        .fragments
        .iter()
        .filter(|f| f.name == "machine hand-off")
        .map(|f| f.executions * f.work)
        .sum();
    close(work, 4.0 * (3e-6 + 10e-6));
}

#[test]
fn a_consumer_that_waits_less_than_a_wake_up_beyond_the_window_parks_on_a_share_of_the_items() {
    let dir = tempfile::tempdir().unwrap();
    let m = machine(dir.path(), true);
    // The consumer waits 27 - 20 = 7 us per item: beyond the 5 us window, but within the
    // part of the wake-up (10 us) that the producer's wake-up call (3 us) does not cover,
    // 7 us, beyond it. Woken late it finds the next item waiting and catches up before it
    // parks again: it parks on 7 / (7 + 7) = half of the items. The producer pays half a
    // wake-up call (1.5 us per item, stage time 28.5 us), the consumer half the latency and
    // half a spinning hand-off (5.05 us, stage time 25.05 us), which leaves the producer
    // the bottleneck: 4 * 28.5 + 25.05 = 139.05 us. (Charging the whole wake-up on every
    // item made both stages 30 us per item: 4 * 30 + 30 = 150 us.)
    let with = predict(Some(&m), 27e-6, 20e-6);
    close(with.seconds, 139.05e-6 + FORK_JOIN_S);
    let pl = &with.accounting.pipelines[0];
    let h = &pl.handoffs[0];
    assert_eq!((h.waiting_stage, h.regime.as_str()), (2, "asleep"));
    close(h.parked_share, 0.5);
    assert_eq!(pl.bottleneck, 0);
    close(pl.stages[0].handoff_s, 1.5e-6);
    close(pl.stages[1].handoff_s, 5.05e-6);
}

#[test]
fn a_producer_that_waits_for_room_beyond_the_window_is_woken_by_the_consumer() {
    let dir = tempfile::tempdir().unwrap();
    let m = machine(dir.path(), true);
    // The producer waits 30 - 10 = 20 us per item for room: it adds the wake-up latency
    // (10 us, stage time 20 us), the consumer pays the call (3 us, stage time 33 us):
    // 20 + 4 * 33 = 152 us.
    let with = predict(Some(&m), 10e-6, 30e-6);
    close(with.seconds, 152e-6 + FORK_JOIN_S);
    let h = &with.accounting.pipelines[0].handoffs[0];
    assert_eq!((h.waiting_stage, h.regime.as_str()), (1, "asleep"));
}

#[test]
fn a_machine_file_without_the_window_takes_every_wait_as_spinning() {
    let dir = tempfile::tempdir().unwrap();
    let m = machine(dir.path(), false);
    // The long wait of the sleeping test, priced as before the key existed: 0.1 us on the
    // consumer, 4 * 30 + 10.1 us.
    let with = predict(Some(&m), 30e-6, 10e-6);
    close(with.seconds, 130.1e-6 + FORK_JOIN_S);
    assert_eq!(with.accounting.pipelines[0].handoffs[0].regime, "spinning");
}

#[test]
fn lcm_tree_and_predict_show_the_rule_and_the_regime() {
    let dir = tempfile::tempdir().unwrap();
    let m = machine(dir.path(), true);
    std::fs::write(dir.path().join("t.rs"), PIPELINE).unwrap();
    let m = m.display().to_string();
    let (code, out, err) = support::lcm(&["tree", "t.rs", "--machine", &m], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("handoff_spin_window_s"), "{out}");
    let (code, out, err) = support::lcm(
        &[
            "predict",
            "t.rs",
            "--machine",
            &m,
            "--set",
            "p=2",
            "--set",
            "ta=3e-5",
            "--set",
            "tb=1e-5",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("hand-off stage 1 -> 2: stage 1 is slower by 2.0000e-5 s per item before hand-offs, so stage 2 waits that long for each item from it; asleep"),
        "{out}"
    );
    assert!(out.contains("machine hand-off"), "{out}");
}
