//! One test per composition rule of `lcm predict`, each on a small inline source (the
//! fixture) with the expected time computed by hand in the comment above the assertion.
//! Models are constants or simple formulas in processor-seconds, so the arithmetic is short.

use lcm::predict::{PredictError, PredictOptions, Prediction, Program};
use std::collections::BTreeMap;

fn at(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn program(src: &str) -> Program {
    match Program::from_source("t.rs", src, &PredictOptions::default()) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn predict(src: &str, pairs: &[(&str, f64)]) -> Prediction {
    match program(src).predict(&at(pairs)) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn close(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1e-12),
        "got {got}, want {want}"
    );
}

const JOIN: &str = r#"
fn main() {
    rayon::join(
        || {
            // lcm: fragment big
            // lcm: rt = 8
            big();
        },
        || {
            // lcm: fragment small
            // lcm: rt = 4
            small();
        },
    );
}
"#;

#[test]
fn join_splits_processors_and_adds_structural_load_imbalance() {
    // p = 4: each task p/2 = 2 processors. T_big = 8/2 = 4, T_small = 4/2 = 2, T = 4.
    // LI+ = (4 - 4)*2 + (4 - 2)*2 = 4 processor-seconds, i.e. 4/p = 1 s of T.
    let pred = predict(JOIN, &[("p", 4.0)]);
    close(pred.seconds, 4.0);
    close(pred.accounting.parallels[0].li_plus, 4.0);
    close(pred.contributions.load_imbalance_s, 1.0);
    let procs: Vec<f64> = pred.accounting.fragments.iter().map(|f| f.procs).collect();
    assert_eq!(procs, vec![2.0, 2.0]);
    // Contributions add up to T: 8/4 + 4/4 + 1 = 4.
    let c = &pred.contributions;
    let sum: f64 = c.fragments.iter().map(|(_, v)| v).sum::<f64>() + c.load_imbalance_s;
    close(sum, 4.0);
}

#[test]
fn processor_override_replaces_the_default_split() {
    let src = JOIN.replace(
        "        || {\n            // lcm: fragment small",
        "        // lcm: p = 1\n        || {\n            // lcm: fragment small",
    );
    let src = src.replacen(
        "        || {\n            // lcm: fragment big",
        "        // lcm: p = p - 1\n        || {\n            // lcm: fragment big",
        1,
    );
    // p = 5: big gets p - 1 = 4 (T = 2), small gets 1 (T = 4): T = 4.
    // LI+ = (4 - 2)*4 = 8 processor-seconds.
    let pred = predict(&src, &[("p", 5.0)]);
    close(pred.seconds, 4.0);
    close(pred.accounting.parallels[0].li_plus, 8.0);
    close(pred.accounting.idle, 0.0);
}

#[test]
fn variable_override_on_a_fragment() {
    let src = r#"
fn main() {
    // lcm: fragment half
    // lcm: rt = 2*n
    // lcm: n = n/2
    half();
}
"#;
    // rt at n/2 = 2*(100/2) = 100 processor-seconds on p = 4: T = 25.
    close(predict(src, &[("n", 100.0), ("p", 4.0)]).seconds, 25.0);
}

#[test]
fn spawns_in_a_loop_are_copies_sharing_the_processors() {
    let src = r#"
fn main() {
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                // lcm: fragment work
                // lcm: rt = 8
                work();
            });
        }
    });
}
"#;
    // 4 copies on p = 8: 2 processors each, T = 8/2 = 4.
    let pred = predict(src, &[("p", 8.0)]);
    close(pred.seconds, 4.0);
    assert_eq!(pred.accounting.fragments[0].executions, 4.0);
    // Annotated trip count: p copies of one processor each, T = 8/1 = 8.
    let annotated = src.replace(
        "        for _ in 0..4 {",
        "        // lcm: iterations = p\n        for _ in 0..threads {",
    );
    close(predict(&annotated, &[("p", 8.0)]).seconds, 8.0);
}

#[test]
fn sequential_loops_multiply_by_literal_or_annotated_trip_counts() {
    let src = r#"
fn main() {
    for i in 0..10 {
        // lcm: fragment step
        // lcm: rt = 2
        step(i);
    }
    // lcm: iterations = m
    while running() {
        // lcm: fragment poll
        // lcm: rt = 1
        poll();
    }
}
"#;
    // p = 2: 10 * 2/2 + m * 1/2 with m = 6: 10 + 3 = 13.
    let pred = predict(src, &[("p", 2.0), ("m", 6.0)]);
    close(pred.seconds, 13.0);
    assert_eq!(pred.accounting.fragments[0].executions, 10.0);
    assert_eq!(pred.accounting.fragments[1].executions, 6.0);
}

#[test]
fn calls_of_same_file_functions_are_followed() {
    let src = r#"
fn main() {
    helper();
    // lcm: p = 1
    helper();
    std::process::exit(0);
}

fn helper() {
    // lcm: fragment inner
    // lcm: rt = 6
    compute();
}
"#;
    // p = 3: first call 6/3 = 2; second call overridden to one processor: 6/1 = 6.
    // The second call leaves 2 processors idle for 6 s: idle = 12 processor-seconds.
    let pred = predict(src, &[("p", 3.0)]);
    close(pred.seconds, 8.0);
    close(pred.accounting.idle, 12.0);
    close(pred.contributions.idle_s, 4.0);
}

#[test]
fn executions_annotation_divides_totals() {
    let src = r#"
fn main() {
    for k in 0..4 {
        // lcm: fragment f
        // lcm: iterations = 4
        // lcm: rt = 8*n
        f(k);
    }
}
"#;
    // rt is a total over 4 executions: one execution = 8*n/4 = 2n; 4 of them on p = 2: 4n.
    close(predict(src, &[("p", 2.0), ("n", 3.0)]).seconds, 12.0);
}

#[test]
fn sum_rule_uses_rt_or_pc_plus_memory_or_tt() {
    let src = r#"
fn main() {
    // lcm: fragment a
    // lcm: rt = 4
    // lcm: li = 1
    // lcm: ip = 1
    // lcm: ml = 3
    // lcm: os = 100
    // lcm: tt = 1000
    a();
    // lcm: fragment b
    // lcm: pc = 2
    // lcm: cl = 1
    // lcm: rc = 1
    b();
    // lcm: fragment c
    // lcm: tt = 2
    c();
}
"#;
    // a: li + ip + rt = 6 (ml inside rt, os inside rt, tt is the total); b: pc + cl + rc = 4;
    // c: tt = 2. On p = 1 with one fragment at a time the memory resource adds nothing.
    let pred = predict(src, &[("p", 1.0)]);
    let work: Vec<f64> = pred.accounting.fragments.iter().map(|f| f.work).collect();
    assert_eq!(work, vec![6.0, 4.0, 2.0]);
    close(pred.seconds, 12.0);
}

const PIPE: &str = r#"
use std::sync::mpsc::channel;
fn main() {
    let (tx, rx) = channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 0..4 {
                // lcm: fragment produce
                // lcm: rt = A
                let item = produce(k);
                tx.send(item).unwrap();
            }
        });
        s.spawn(move || {
            for item in rx {
                // lcm: fragment consume
                // lcm: rt = B
                consume(item);
            }
        });
    });
}
"#;

#[test]
fn producer_consumer_chain_is_a_pipeline_with_fill_and_bottleneck() {
    // p = 2: each stage one processor. tau_1 = 1, tau_2 = 3, N = 4.
    // Eq. 3.16: T = phi + omega - tau* = (1 + 3) + 4*3 - 3 = 13; the bound is max(4, 12) = 12.
    let pred = predict(PIPE, &[("p", 2.0), ("A", 1.0), ("B", 3.0)]);
    close(pred.seconds, 13.0);
    let pl = &pred.accounting.pipelines[0];
    close(pl.fill_s, 4.0);
    assert_eq!(pl.bottleneck, 1);
    close(pl.bound_s, 12.0);
    assert_eq!(pl.stages[1].items, 4.0);
    // Stages wait (13 - 4)*1 + (13 - 12)*1 = 10 processor-seconds: 5 s of T.
    close(pred.contributions.pipeline_s, 5.0);
    // Bottleneck first: 4*3 + 1 = 13 again, now stage 1 limits.
    let pred = predict(PIPE, &[("p", 2.0), ("A", 3.0), ("B", 1.0)]);
    close(pred.seconds, 13.0);
    assert_eq!(pred.accounting.pipelines[0].bottleneck, 0);
    // Balanced, the worst case of the phi/omega bound: (M + N - 1)*tau = 5*2 = 10 (bound 8).
    close(
        predict(PIPE, &[("p", 2.0), ("A", 2.0), ("B", 2.0)]).seconds,
        10.0,
    );
}

#[test]
fn pplib_closure_wrappers_are_read_as_inline_code() {
    // The same pipeline as PIPE, with the send and the fragments inside pplib's closure
    // wrappers (`pplib::wait(kind, || ..)`, `pplib::task_scope(|| ..)`): their bodies run on
    // the calling thread, so the composition must be the one of PIPE (13 s, as above).
    let src = r#"
use std::sync::mpsc::channel;
fn main() {
    let (tx, rx) = channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 0..4 {
                pplib::task_scope(|| {
                    // lcm: fragment produce
                    // lcm: rt = A
                    let item = produce(k);
                    pplib::wait(pplib::WaitKind::Channel, || tx.send(item).unwrap());
                });
            }
        });
        s.spawn(move || {
            for item in rx {
                // lcm: fragment consume
                // lcm: rt = B
                consume(item);
            }
        });
    });
}
"#;
    let pred = predict(src, &[("p", 2.0), ("A", 1.0), ("B", 3.0)]);
    close(pred.seconds, 13.0);
    assert_eq!(pred.accounting.pipelines.len(), 1);
}

#[test]
fn pipeline_appears_in_the_composed_model_as_stage_resources() {
    let prog = program(PIPE);
    let text = &prog.model.text;
    assert!(text.contains("resource st_1_1 = fcfs("), "{text}");
    assert!(
        text.contains("use(st_1_1, tau_1_1) ; use(st_1_2, tau_1_2)"),
        "{text}"
    );
    assert!(text.contains("numeric skew_1 ="), "{text}");
}

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

#[test]
fn oversubscribed_tasks_contend_for_the_processors() {
    let src = r#"
fn main() {
    rayon::join(
        // lcm: p = p
        || {
            // lcm: fragment a
            // lcm: rt = 8
            a();
        },
        // lcm: p = p
        || {
            // lcm: fragment b
            // lcm: rt = 8
            b();
        },
    );
}
"#;
    // Each task claims all p = 4 processors: T_f = 2 each, but the processors' demand is
    // 16 processor-seconds on 4: omega = 4. Contention adds 2.
    let pred = predict(src, &[("p", 4.0)]);
    close(pred.seconds, 4.0);
    close(pred.contributions.contention_s, 2.0);
}

#[test]
fn memory_loss_contends_for_the_memory_system() {
    let src = r#"
fn main() {
    rayon::join(
        || {
            // lcm: fragment a
            // lcm: rt = 8
            // lcm: ml = ML
            a();
        },
        || {
            // lcm: fragment b
            // lcm: rt = 8
            // lcm: ml = ML
            b();
        },
    );
}
"#;
    // p = 4, p_f = 2: T_f = 4 each, of which ML/2 in the memory system. Two at once need
    // ML/2 + ML/2 = ML seconds of the memory system.
    // ML = 2: memory busy 2 < 4, no contention, T = 4.
    let pred = predict(src, &[("p", 4.0), ("ML", 2.0)]);
    close(pred.seconds, 4.0);
    close(pred.contributions.contention_s, 0.0);
    // ML = 6: memory busy 6 > 4: T = 6, contention 2.
    let pred = predict(src, &[("p", 4.0), ("ML", 6.0)]);
    close(pred.seconds, 6.0);
    close(pred.contributions.contention_s, 2.0);
}

#[test]
fn locked_regions_serialize() {
    let src = r#"
fn main() {
    let m = std::sync::Mutex::new(0);
    rayon::join(
        || {
            let g = m.lock().unwrap();
            // lcm: fragment a
            // lcm: rt = 2
            a(g);
        },
        || {
            let g = m.lock().unwrap();
            // lcm: fragment b
            // lcm: rt = 2
            b(g);
        },
    );
}
"#;
    // p = 2: each 2/1 = 2 s holding mutex m: serialized, T = 4.
    let prog = program(src);
    assert!(prog.model.text.contains("resource lock_m = fcfs("));
    let pred = prog.predict(&at(&[("p", 2.0)])).unwrap();
    close(pred.seconds, 4.0);
    close(pred.contributions.contention_s, 2.0);
}

#[test]
fn data_parallel_items_with_fragments_share_the_processors() {
    let src = r#"
use rayon::prelude::*;
fn main() {
    (0..16).into_par_iter().for_each(|i| {
        // lcm: fragment item
        // lcm: rt = 1
        item(i);
    });
}
"#;
    // 16 items of 1 s on one processor each, p = 4: T = max(1, 16/4) = 4.
    let pred = predict(src, &[("p", 4.0)]);
    close(pred.seconds, 4.0);
    // p = 32: only 16 items, T = 1 and 16 processors idle for 1 s.
    let pred = predict(src, &[("p", 32.0)]);
    close(pred.seconds, 1.0);
    close(pred.accounting.idle, 16.0);
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

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

#[test]
fn fragment_ends_at_blank_line_or_next_annotation_block() {
    let src = r#"
fn main() {
    // lcm: fragment a
    // lcm: rt = 1
    one();
    two();

    three();
    // lcm: fragment b
    // lcm: rt = 1
    four();
    // ordinary comment
    five();
}
"#;
    let prog = program(src);
    let frags = prog.root.fragments();
    assert_eq!(frags.len(), 2);
    assert_eq!(frags[0].end_line, 6, "a covers one(); two(); (lines 5-6)");
    assert_eq!(frags[1].end_line, 13, "b covers four(); // comment five();");
}

#[test]
fn malformed_annotation_is_an_error_naming_the_line() {
    let src = "fn main() {\n    // lcm: fragment a\n    // lcm: rt = 2*(n\n    a();\n}\n";
    match Program::from_source("bad.rs", src, &PredictOptions::default()) {
        Err(e @ PredictError::Annotation { line: 3, .. }) => {
            assert!(e.to_string().starts_with("bad.rs:3:"), "{e}")
        }
        other => panic!("expected an annotation error at line 3, got {other:?}"),
    }
    let orphan = "fn main() {\n    // lcm: rt = 2\n    a();\n}\n";
    match Program::from_source("orphan.rs", orphan, &PredictOptions::default()) {
        Err(PredictError::Annotation {
            line: 2, message, ..
        }) => {
            assert!(message.contains("fragment"), "{message}")
        }
        other => panic!("expected an error at line 2, got {other:?}"),
    }
}

#[test]
fn fragment_without_model_is_an_error() {
    let src = "fn main() {\n    // lcm: fragment a\n    a();\n}\n";
    match Program::from_source("nomodel.rs", src, &PredictOptions::default()) {
        Err(PredictError::Structure {
            line: 3, message, ..
        }) => {
            assert!(message.contains("no model"), "{message}")
        }
        other => panic!("expected a structure error, got {other:?}"),
    }
}

#[test]
fn unrecognized_parallelism_between_fragments_is_a_warning() {
    let src = r#"
use rayon::prelude::*;
fn main() {
    // lcm: fragment a
    // lcm: rt = 1
    a();

    v.par_iter().for_each(|x| touch(x));
    rayon::join(|| left(), || right());
    while busy() {
        // lcm: fragment b
        // lcm: rt = 1
        b();
    }
}
"#;
    let prog = program(src);
    let lines: Vec<usize> = prog.warnings.iter().map(|w| w.line).collect();
    assert!(
        lines.contains(&8),
        "par_iter at line 8: {:?}",
        prog.warnings
    );
    assert!(
        lines.contains(&9),
        "join without fragments at line 9: {:?}",
        prog.warnings
    );
    assert!(
        lines.contains(&10),
        "loop with unknown trip count at line 10: {:?}",
        prog.warnings
    );
    assert!(prog.warnings.iter().all(|w| w.file == "t.rs"));
}

#[test]
fn missing_variable_is_reported() {
    let prog = program(PIPE);
    match prog.predict(&at(&[("p", 2.0), ("A", 1.0)])) {
        Err(PredictError::Unbound { name, .. }) => assert_eq!(name, "B"),
        other => panic!("expected unbound B, got {other:?}"),
    }
}

#[test]
fn zero_processors_is_an_error_naming_the_fragment() {
    let src = JOIN.replacen(
        "        || {\n            // lcm: fragment big",
        "        // lcm: p = floor(p/2)\n        || {\n            // lcm: fragment big",
        1,
    );
    match program(&src).predict(&at(&[("p", 1.0)])) {
        Err(e @ PredictError::Eval { .. }) => {
            assert!(e.to_string().contains("fragment `big`"), "{e}")
        }
        other => panic!("expected an error for p_f = 0, got {other:?}"),
    }
}
