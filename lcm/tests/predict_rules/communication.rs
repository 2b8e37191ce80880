//! Data traces: communication across parallel nodes, movement already measured, models
//! files.

use super::*;

const TRACE: &str = r#"
fn main() {
    rayon::join(
        || {
            // lcm: fragment writer
            // lcm: rt = 2
            // lcm: output a
            w();
        },
        || {
            // lcm: fragment reader
            // lcm: rt = 2
            // lcm: input a
            // lcm: bytes = 1000
            r();
        },
    );
}
"#;

#[test]
fn data_moving_across_a_parallel_node_costs_communication() {
    let dir = tempfile::tempdir().unwrap();
    let machine = write(
        dir.path(),
        "m.txt",
        "latency_s = 0.5\nbandwidth_bytes_per_s = 1000\n",
    );
    let opts = PredictOptions {
        machine: Some(machine),
        ..PredictOptions::default()
    };
    let prog = Program::from_source("trace.rs", TRACE, &opts).unwrap();
    assert_eq!(prog.moves_added.len(), 1);
    assert_eq!(prog.moves_added[0].item, "a");
    // p = 2: writer 2/1 = 2; reader 2/1 + (0.5 + 1000/1000) = 3.5: T = 3.5.
    // Communication: 1.5 s on one processor = 1.5 processor-seconds, /p = 0.75 s of T.
    let pred = prog.predict(&at(&[("p", 2.0)])).unwrap();
    close(pred.seconds, 3.5);
    close(pred.contributions.communication_s, 0.75);
}

#[test]
fn movement_the_measured_version_had_is_not_counted_twice() {
    let dir = tempfile::tempdir().unwrap();
    let machine = write(
        dir.path(),
        "m.txt",
        "latency_s = 0.5\nbandwidth_bytes_per_s = 1000\n",
    );
    let measured = write(dir.path(), "measured.rs", TRACE);
    // The same version measured: the move is inside the models already.
    let opts = PredictOptions {
        machine: Some(machine.clone()),
        measured: Some(measured.clone()),
        ..PredictOptions::default()
    };
    let same = Program::from_source("trace.rs", TRACE, &opts).unwrap();
    assert!(same.moves_added.is_empty());
    close(same.predict(&at(&[("p", 2.0)])).unwrap().seconds, 2.0);
    // A serial version no longer moves `a`: the reader's model paid 1.5 s per execution for
    // a transfer that does not happen; subtracted. p = 1: 2 + (2 - 1.5) = 2.5.
    let serial = r#"
fn main() {
    // lcm: fragment writer
    // lcm: rt = 2
    // lcm: output a
    w();
    // lcm: fragment reader
    // lcm: rt = 2
    // lcm: input a
    // lcm: bytes = 1000
    r();
}
"#;
    let prog = Program::from_source("serial.rs", serial, &opts).unwrap();
    assert_eq!(prog.moves_removed.len(), 1);
    let pred = prog.predict(&at(&[("p", 1.0)])).unwrap();
    close(pred.seconds, 2.5);
    close(pred.contributions.communication_s, -1.5);
}

#[test]
fn models_file_replaces_source_models() {
    let dir = tempfile::tempdir().unwrap();
    let models = write(
        dir.path(),
        "fft.models",
        "// lcm: fragment big\n// lcm: rt = 2\n// lcm: fragment unused\n// lcm: rt = 1\n",
    );
    let opts = PredictOptions {
        models: Some(models),
        ..PredictOptions::default()
    };
    let prog = Program::from_source("join.rs", JOIN, &opts).unwrap();
    // big: 2/2 = 1, small: 4/2 = 2 → T = 2.
    close(prog.predict(&at(&[("p", 4.0)])).unwrap().seconds, 2.0);
    assert!(prog
        .warnings
        .iter()
        .any(|w| w.message.contains("replace the ones in the source")));
}

/// A moved item read by a fragment on p_f threads: the threads share the read, so the move
/// adds its seconds / p_f to the fragment's time and its seconds once to the processor
/// time. Machine file: latency 0.5 s, 1000 bytes/s, no measured costs, so the 1000-byte
/// move costs 0.5 + 1000/1000 = 1.5 s and nothing else is charged.
#[test]
fn a_move_is_shared_by_the_reader_fragments_threads() {
    let dir = tempfile::tempdir().unwrap();
    let machine = write(
        dir.path(),
        "m.txt",
        "latency_s = 0.5\nbandwidth_bytes_per_s = 1000\n",
    );
    let opts = PredictOptions {
        machine: Some(machine),
        ..PredictOptions::default()
    };
    let prog = Program::from_source("trace.rs", TRACE, &opts).unwrap();
    let close = |a: f64, b: f64| assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} vs {b}");
    // p = 2: each task on one thread; the reader takes 2/1 + 1.5/1 = 3.5 s, the writer 2 s.
    let one = prog.predict(&at(&[("p", 2.0)])).unwrap();
    close(one.seconds, 3.5);
    // p = 8: each task on 4 threads; the reader takes 2/4 + 1.5/4 = 0.875 s, the writer 0.5 s.
    let four = prog.predict(&at(&[("p", 8.0)])).unwrap();
    close(four.seconds, 0.875);
    // The processor time of the move is 1.5 s at both: communication is 1.5 / p seconds.
    close(one.contributions.communication_s, 1.5 / 2.0);
    close(four.contributions.communication_s, 1.5 / 8.0);
}
