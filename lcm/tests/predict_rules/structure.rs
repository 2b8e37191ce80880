//! Structure recognition and the basic rules: joins, spawns, loops, calls, overrides,
//! fragment boundaries and the sum rule.

use super::*;

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
