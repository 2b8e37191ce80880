// Fixture of lcm/tests/predict_report.rs: a two-stage pipeline of 4 items whose stage times
// are set per test (`--set ta=… --set tb=…`), with fragment names of different lengths (the
// report's columns must take their widths from them). Hand-written; it is parsed, never
// compiled. With the round machine file (tests/support/round_machine.rs) plus
// handoff_notify_s = 3e-6 and handoff_spin_window_s = 5e-6, ta = 10 us and tb = 4 us give
// a wait the report must spell out: the consumer waits 6 us per item for the producer
// (beyond the 5 us window), parks on 6/13 of the items (46 %) and pays its wake-up (10 us)
// on those, the producer the call (3 us); the producer stays the bottleneck. Expected
// output: tests/predict/snapshots.
use std::sync::mpsc::sync_channel;

fn main() {
    let (tx, rx) = sync_channel(2);
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 0..4 {
                // lcm: fragment produce_an_item_with_a_long_name
                // lcm: rt = ta
                let item = produce(k);
                tx.send(item).unwrap();
            }
        });
        s.spawn(move || {
            for item in rx {
                // lcm: fragment eat
                // lcm: rt = tb
                consume(item);
            }
        });
    });
}
