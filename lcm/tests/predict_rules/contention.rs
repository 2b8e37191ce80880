//! Resources: processors, the memory system, locks and data-parallel items contend.

use super::*;

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
