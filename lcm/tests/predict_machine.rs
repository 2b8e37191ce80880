//! Machine costs in predictions (`lcm predict --machine`): each overhead rule on a small
//! inline source with a machine file of round numbers (tests/support/round_machine.rs; the
//! expected time is computed by hand above each assertion), machine keys as annotation variables, and the
//! n-body target: `lcm compare` on `examples/src/nbody/{outer,reduce}.rs` with the measured
//! machine file `tests/nbody/machine.txt` and with `tests/nbody/machine-par-call.txt`, which
//! prices a parallel-iterator call (`par_call_s_pQ`; each file's header says how it was
//! made).

#[path = "support/run.rs"]
mod support;
use lcm::predict::{PredictOptions, Prediction, Program};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::lcm;

#[path = "support/round_machine.rs"]
mod round;
use round::{close, round_machine};

fn predict(src: &str, machine: Option<&Path>, at: &[(&str, f64)]) -> Prediction {
    let opts = PredictOptions {
        machine: machine.map(Path::to_path_buf),
        ..PredictOptions::default()
    };
    let prog = Program::from_source("t.rs", src, &opts).unwrap_or_else(|e| panic!("{e}"));
    let at: BTreeMap<String, f64> = at.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    prog.predict(&at).unwrap_or_else(|e| panic!("{e}"))
}

const PAR_ITER: &str = r#"
fn main() {
    (0..n).into_par_iter().for_each(|i| {
        // lcm: fragment work
        // lcm: rt = 1e-8
        work(i);
    });
}
"#;

#[test]
fn a_parallel_iterator_pays_one_fork_join_and_its_items() {
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine(dir.path());
    let at = [("n", 1e6), ("p", 4.0)];
    // Items from `(0..n)`: 1e6 items of 1e-8 s over 4 processors: 2.5e-3 s.
    let plain = predict(PAR_ITER, None, &at);
    close(plain.seconds, 2.5e-3);
    // Plus a fork/join of min(n, p) = 4 threads (1e-6 + 1e-6*log2 4 = 3e-6 s) and
    // 1e6 items * 1e-9 processor-s / 4 processors = 2.5e-4 s.
    let with = predict(PAR_ITER, Some(&m), &at);
    close(with.seconds - plain.seconds, 3e-6 + 2.5e-4);
    let named: Vec<&str> = with
        .contributions
        .fragments
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert!(named.contains(&"machine par items"), "{named:?}");
}

/// The round machine with a parallel-iterator call priced at 0.1 µs on one thread and 5 µs
/// on two (`par_call_s_pQ`).
fn round_machine_with_par_call(dir: &Path) -> PathBuf {
    let path = dir.join("round-par-call.txt");
    let text = format!(
        "{}par_call_s_p1 = 1e-7\npar_call_s_p2 = 5e-6\n",
        round::ROUND
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_parallel_iterator_pays_the_call_price_in_place_of_the_fork_join() {
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine_with_par_call(dir.path());
    let at = [("n", 1000.0), ("p", 2.0)];
    // Work: 1000 items of 1e-8 s over 2 processors, 5e-6 s.
    close(predict(PAR_ITER, None, &at).seconds, 5e-6);
    // One call on min(1000, 2) = 2 threads (5e-6 s, not the fork/join's 2e-6 s) and
    // 1000 items * 1e-9 processor-s / 2 processors.
    let with = predict(PAR_ITER, Some(&m), &at);
    close(with.seconds, 5e-6 + 5e-6 + 5e-7);
    // At p = 1 the call on one thread: 1e-7 s; 1000 items of work and scheduling on it.
    close(
        predict(PAR_ITER, Some(&m), &[("n", 1000.0), ("p", 1.0)]).seconds,
        1e-5 + 1e-7 + 1e-6,
    );
    // At p = 4 (twice the 2 calibrated threads) one doubling beyond the last measured
    // growth: 5e-6 + (5e-6 - 1e-7) s. The file measured one thread count above 1, so
    // that growth is assumed: warned about at any p above 2 (lca::range,
    // `holds_one_parallel_count`), not only beyond 4; within 2, not.
    let p4 = predict(PAR_ITER, Some(&m), &[("n", 1000.0), ("p", 4.0)]);
    close(p4.seconds, 2.5e-6 + 9.9e-6 + 2.5e-7);
    let w = &p4.accounting.range_warnings;
    assert!(
        w.iter()
            .any(|w| w.fragment == "machine par items" && w.variable == "p" && w.max == 2.0),
        "{w:?}"
    );
    let p2 = predict(PAR_ITER, Some(&m), &[("n", 1000.0), ("p", 2.0)]);
    assert!(p2.accounting.range_warnings.is_empty());
    // At p = 16 the price is extrapolated far beyond the calibrated threads: warned about.
    let p16 = predict(PAR_ITER, Some(&m), &[("n", 1000.0), ("p", 16.0)]);
    let w = &p16.accounting.range_warnings;
    assert!(
        w.iter()
            .any(|w| w.fragment == "machine par items" && w.variable == "p"),
        "{w:?}"
    );
}

/// Two fragments of 1 ms under one `rayon::join`.
const JOIN: &str = r#"
fn main() {
    rayon::join(
        || {
            // lcm: fragment left
            // lcm: rt = 1e-3
            left();
        },
        || {
            // lcm: fragment right
            // lcm: rt = 1e-3
            right();
        },
    );
}
"#;

#[test]
fn a_join_keeps_the_fork_join_price_with_a_par_call_file() {
    let src = JOIN;
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine_with_par_call(dir.path());
    // Fork/join of 2 threads (2e-6 s) and a task (1e-7 s): the call price is not charged.
    close(
        predict(src, Some(&m), &[("p", 2.0)]).seconds,
        1e-3 + 2e-6 + 1e-7,
    );
}

#[test]
fn a_parallel_iterator_inside_a_fragment_pays_the_call_unless_measured_with_it() {
    // `rule`: an extra line of the fragment's block (none when empty).
    let src = |rule: &str| {
        let rule = if rule.is_empty() {
            String::new()
        } else {
            format!("        {rule}\n")
        };
        format!(
            r#"
fn main() {{
    // lcm: iterations = 10
    for k in 0..10 {{
        // lcm: fragment force
        // lcm: rt = 1e-6
{rule}        let a = (0..n).into_par_iter().map(|j| pair(k, j)).sum::<f64>();
        use_it(a);
    }}
}}
"#
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine_with_par_call(dir.path());
    let at = [("n", 1000.0), ("p", 2.0)];
    // 10 executions of 1e-6 processor-s over 2 processors.
    close(predict(&src(""), None, &at).seconds, 5e-6);
    // Written in the source: each execution pays a call on 2 threads (5e-6 s) and 1000
    // items * 1e-9 / 2, 10 times.
    close(
        predict(&src(""), Some(&m), &at).seconds,
        5e-6 + 10.0 * (5e-6 + 5e-7),
    );
    // Measured with the loop inside: nothing added, as models from a models file.
    close(
        predict(&src("// lcm: overheads = measured"), Some(&m), &at).seconds,
        5e-6,
    );
}

#[test]
fn an_items_annotation_gives_the_count_where_the_source_does_not() {
    let src = r#"
fn main() {
    let v = load();
    // lcm: items = m
    v.par_iter().for_each(|x| {
        // lcm: fragment work
        // lcm: rt = 1e-8
        work(x);
    });
}
"#;
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine(dir.path());
    // 1000 items: 1000*1e-8/2 work, 2e-6 fork/join of 2 threads, 1000*1e-9/2 items.
    let pred = predict(src, Some(&m), &[("m", 1000.0), ("p", 2.0)]);
    close(pred.seconds, 5e-6 + 2e-6 + 5e-7);
}

#[test]
fn a_join_pays_a_fork_join_and_a_task_each() {
    let src = JOIN;
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine(dir.path());
    let at = [("p", 2.0)];
    let plain = predict(src, None, &at);
    close(plain.seconds, 1e-3);
    // Fork/join of 2 threads (2e-6 s) and a task (1e-7 s on its processor) on each side.
    let with = predict(src, Some(&m), &at);
    close(with.seconds - plain.seconds, 2e-6 + 1e-7);
}

#[test]
fn a_pipeline_stage_pays_a_hand_off_per_item() {
    let src = r#"
use std::sync::mpsc::channel;
fn main() {
    let (tx, rx) = channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 0..4 {
                // lcm: fragment produce
                // lcm: rt = 1
                let item = produce(k);
                tx.send(item).unwrap();
            }
        });
        s.spawn(move || {
            for item in rx {
                // lcm: fragment consume
                // lcm: rt = 3
                consume(item);
            }
        });
    });
}
"#;
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine(dir.path());
    let at = [("p", 2.0)];
    // Without: flow shop of 4 items, tau = 1, 3: 13 s. The consumer's tau becomes 3 + h
    // (h = 1e-7): (1 + 3 + h) + 4*(3 + h) - (3 + h) = 13 + 4h; the scope around the two
    // stage tasks is one fork/join of 2 threads (2e-6 s); the stage tasks pay no task cost
    // (one each over the whole run).
    close(predict(src, None, &at).seconds, 13.0);
    let with = predict(src, Some(&m), &at);
    close(with.seconds, 13.0 + 4e-7 + 2e-6);
}

#[test]
fn machine_keys_are_variables_of_the_annotations_and_set_values_win() {
    let src = r#"
fn main() {
    // lcm: fragment stream
    // lcm: rt = 1e-3 * mem_slowdown_k2
    stream();
}
"#;
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine(dir.path());
    close(predict(src, Some(&m), &[("p", 1.0)]).seconds, 1.5e-3);
    close(
        predict(src, Some(&m), &[("p", 1.0), ("mem_slowdown_k2", 2.0)]).seconds,
        2e-3,
    );
}

#[test]
fn the_line_price_named_at_p_is_line_bounce_s_at_two_and_the_k_keys_beyond() {
    // One update per key of a line another processor wrote last, priced among the
    // fragment's p processors (docs/machine.md, "Keys indexed by a variable").
    let src = r#"
fn main() {
    // lcm: fragment fill
    // lcm: pc = 1e-3
    // lcm: ml = 1e6 * line_bounce_s_kp
    fill();
}
"#;
    let dir = tempfile::tempdir().unwrap();
    // A 2-processor machine's file: line_bounce_s is the family's only member (K = 2),
    // held at every p.
    let two = dir.path().join("two.txt");
    std::fs::write(&two, format!("{}line_bounce_s = 2e-8\n", round::ROUND)).unwrap();
    for p in [2.0, 4.0] {
        close(
            predict(src, Some(&two), &[("p", p)]).seconds,
            (1e-3 + 1e6 * 2e-8) / p,
        );
    }
    // A larger machine's: K = 2 from line_bounce_s, K = 4 its own key, linear between.
    let four = dir.path().join("four.txt");
    std::fs::write(
        &four,
        format!(
            "{}line_bounce_s = 2e-8\nline_bounce_s_k3 = 3e-8\nline_bounce_s_k4 = 6e-8\n",
            round::ROUND.replace("calibrated_p = 2", "calibrated_p = 4")
        ),
    )
    .unwrap();
    for (p, bounce) in [(2.0, 2e-8), (3.0, 3e-8), (4.0, 6e-8), (8.0, 6e-8)] {
        close(
            predict(src, Some(&four), &[("p", p)]).seconds,
            (1e-3 + 1e6 * bounce) / p,
        );
    }
    // Beyond twice the numbers a file measured, the held price is warned about, naming
    // the keys that stand in: p = 8 with the 2-processor file, p = 16 with the other.
    let held = |file: &Path, p: f64| -> Vec<Vec<String>> {
        predict(src, Some(file), &[("p", p)])
            .accounting
            .range_warnings
            .into_iter()
            .map(|w| w.held)
            .collect()
    };
    assert_eq!(held(&two, 4.0), Vec::<Vec<String>>::new());
    assert_eq!(held(&two, 8.0), [["line_bounce_s_k2"]]);
    assert_eq!(held(&four, 8.0), Vec::<Vec<String>>::new());
    assert_eq!(
        held(&four, 16.0),
        [["line_bounce_s_k2", "line_bounce_s_k3", "line_bounce_s_k4"]]
    );
    std::fs::write(dir.path().join("t.rs"), src).unwrap();
    let (code, _, err) = lcm(
        &["predict", "t.rs", "--machine", "two.txt", "--set", "p=8"],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "warning: fragment `fill` (ml): p = 8 lies beyond 2x where line_bounce_s_k2 was measured (p = 2): the value at p = 2 stands in"
        ),
        "{err}"
    );
}

/// `lcm compare outer.rs reduce.rs` at n = 1000, p = 2: (t_outer, t_reduce, stderr).
fn compare_nbody(machine: Option<&Path>) -> (f64, f64, String) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("../examples/src/nbody");
    let mut args = vec![
        "compare",
        "outer.rs",
        "reduce.rs",
        "--entry",
        "step",
        "--set",
        "n=1000",
        "--set",
        "p=2",
        "--json",
    ];
    let m = machine.map(|m| root.join(m).display().to_string());
    if let Some(m) = &m {
        args.extend(["--machine", m.as_str()]);
    }
    let (code, out, err) = lcm(&args, &src);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pt = &v["points"][0];
    (
        pt["t_a"].as_f64().unwrap(),
        pt["t_b"].as_f64().unwrap(),
        err,
    )
}

#[test]
fn nbody_fold_reduce_is_ranked_at_least_3x_slower_with_machine_costs() {
    // The pair models alone (1.3e-9 s a pair, n^2 pairs over 2 processors) give both
    // 0.65 ms: the ratio 1.000 the issue reported, and a note that machine costs were not
    // applied.
    let (a, b, err) = compare_nbody(None);
    close(a, 6.5e-4);
    close(b, 6.5e-4);
    assert!(err.contains("machine costs"), "{err}");
    // With the measured machine: reduce pays n fork/joins of 2 threads and n^2 items.
    let (a, b, err) = compare_nbody(Some(Path::new("tests/nbody/machine.txt")));
    assert!(!err.contains("machine costs"), "{err}");
    assert!(b / a >= 3.0, "outer {a} s, reduce {b} s: ratio {}", b / a);
}

#[test]
fn nbody_fold_reduce_is_ranked_at_least_3x_slower_with_the_call_price() {
    // The quiet machine's prices (tests/nbody/machine-par-call.txt): with a fork/join per
    // fold (0.67 us at 2 threads) the reduce version would predict only about 2.2x the outer
    // one; with the call price (3.3 us at 2 threads, charged in place of the fork/join on
    // each of the n folds) n = 1000 calls add 3.3 ms to its 0.65 ms of pairs.
    let file = Path::new("tests/nbody/machine-par-call.txt");
    let (a, b, err) = compare_nbody(Some(file));
    assert!(!err.contains("machine costs"), "{err}");
    assert!(b / a >= 3.0, "outer {a} s, reduce {b} s: ratio {}", b / a);
    // The outer version pays one call: within 1 % of its pairs alone.
    assert!(a < 6.5e-4 * 1.01, "outer {a} s");
    // The same file without its par_call_s_pQ keys charges the fork/join: under 3x.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.txt");
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("par_call_s_p"))
        .collect();
    std::fs::write(&old, kept.join("\n")).unwrap();
    let (a, b, _) = compare_nbody(Some(&old));
    assert!(b / a < 3.0, "outer {a} s, reduce {b} s: ratio {}", b / a);
}
