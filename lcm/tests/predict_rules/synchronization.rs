//! Condition synchronization between tasks: channel send/recv and barrier phases.

use super::*;

#[test]
fn send_and_recv_between_tasks_are_condition_synchronization() {
    let src = r#"
use std::sync::mpsc::channel;
fn main() {
    let (tx, rx) = channel();
    rayon::join(
        || {
            // lcm: fragment a
            // lcm: rt = 2
            a();

            tx.send(1).unwrap();

            // lcm: fragment b
            // lcm: rt = 1
            b();
        },
        || {
            rx.recv().unwrap();

            // lcm: fragment c
            // lcm: rt = 3
            c();
        },
    );
}
"#;
    // p = 2, one processor per task. Task 2 waits for a (2) then runs c (3): T = 5.
    // Without the wait both tasks take 3: synchronization adds 2.
    let prog = program(src);
    assert!(
        prog.model.text.contains("signal(c_tx_rx_1)"),
        "{}",
        prog.model.text
    );
    assert!(prog.model.text.contains("wait(c_tx_rx_1)"));
    let pred = prog.predict(&at(&[("p", 2.0)])).unwrap();
    close(pred.seconds, 5.0);
    close(pred.contributions.synchronization_s, 2.0);
}

#[test]
fn barrier_waits_split_tasks_into_phases() {
    let src = r#"
fn main() {
    let barrier = std::sync::Barrier::new(2);
    rayon::join(
        || {
            // lcm: fragment a
            // lcm: rt = 1
            a();
            barrier.wait();
            // lcm: fragment b
            // lcm: rt = 3
            b();
        },
        || {
            // lcm: fragment c
            // lcm: rt = 3
            c();
            barrier.wait();
            // lcm: fragment d
            // lcm: rt = 1
            d();
        },
    );
}
"#;
    // The fragment rule puts `barrier.wait();` into fragments a and c (no blank line):
    // a wait in a fragment's code happens after its work.
    // p = 2: phases max(1, 3) + max(3, 1) = 6; without the barrier max(4, 4) = 4.
    let pred = predict(src, &[("p", 2.0)]);
    close(pred.seconds, 6.0);
    close(pred.contributions.synchronization_s, 2.0);
}
