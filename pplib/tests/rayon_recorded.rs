//! `.recorded()` under every kind of rayon consumer: the log of each pipeline is parsed and
//! checked for the structure docs/predicates.md describes.
//!
//! Every pipeline runs 16 items in a 2-worker pool; each item sleeps 2 ms inside fragment
//! `item`, so the other worker steals work within microseconds (both threads run items
//! unless the machine stalls one for ~30 ms) and items are long enough (>= 10 µs) to be
//! recorded one task each. What each log must give:
//! - one `par` on the thread that ran the consumer (the session's), none elsewhere, and
//!   every `task` event of every thread inside its time span;
//! - every item's fragment inside a `task` on the thread that ran it, and both threads
//!   running items;
//! - with `.recorded()` right before the consumer, one task per item.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{assert_nested, read, serial, ThreadLog};
use pplib::log::Nanos;
use pplib::prelude::*;
use pplib::Session;

const ITEMS: u64 = 16;

/// The work of one item: 2 ms inside fragment `item`; returns `x`.
fn item(x: u64) -> u64 {
    let _f = pplib::frag("item");
    std::thread::sleep(Duration::from_millis(2));
    x
}

/// Runs `body` inside a 2-worker pool with a session started on worker 0; returns its
/// result and the log's threads (nesting checked).
fn record<R: Send>(path: &Path, body: impl FnOnce() -> R + Send) -> (R, Vec<ThreadLog>) {
    let pool = pplib::pool(2).unwrap();
    let result = pool.install(|| {
        let session = Session::builder().path(path).start().unwrap();
        let r = body();
        session.finish().unwrap();
        r
    });
    let (_, threads) = read(path);
    for t in &threads {
        assert_nested(&t.text);
    }
    (result, threads)
}

/// What a thread's log says about items and tasks.
#[derive(Debug, Default)]
struct Shape {
    /// Item fragments (each checked to lie inside a task).
    items: usize,
    /// Tasks that contain exactly one item fragment.
    single_item_tasks: usize,
    pars: usize,
}

/// Walks a thread's events: every `frag_begin item` must have a `task` as its innermost
/// open construct (items run inside tasks of their own thread).
fn shape(t: &ThreadLog) -> Shape {
    let mut stack: Vec<(&str, usize)> = Vec::new();
    let mut s = Shape::default();
    for e in &t.text {
        match e.as_str() {
            "task_begin" => stack.push(("task", 0)),
            "par_begin" => {
                s.pars += 1;
                stack.push(("par", 0));
            }
            "frag_begin item" => {
                let top = stack.last_mut().expect("an item outside any construct");
                assert_eq!(
                    top.0, "task",
                    "an item whose innermost construct is {top:?}"
                );
                top.1 += 1;
                s.items += 1;
                stack.push(("frag", 0));
            }
            "task_end" | "par_end" | "frag_end item" => {
                let (what, items) = stack.pop().unwrap();
                if what == "task" && items == 1 {
                    s.single_item_tasks += 1;
                }
            }
            other if other.starts_with("frag_begin") => stack.push(("frag", 0)),
            other if other.starts_with("frag_end") => {
                stack.pop();
            }
            _ => {}
        }
    }
    s
}

/// The structure every pipeline's log must have; `per_item`: one task per item expected;
/// `all`: every item ran (no short-circuit).
fn check(name: &str, threads: &[ThreadLog], per_item: bool, all: bool) {
    let session = threads
        .iter()
        .find(|t| t.text.first().map(String::as_str) == Some("session_begin"))
        .unwrap();
    let shapes: Vec<Shape> = threads.iter().map(shape).collect();
    let items: usize = shapes.iter().map(|s| s.items).sum();
    if all {
        assert_eq!(items as u64, ITEMS, "{name}: items recorded");
    } else {
        assert!(
            (1..=ITEMS as usize).contains(&items),
            "{name}: {items} items"
        );
    }
    let workers_with_items = shapes.iter().filter(|s| s.items > 0).count();
    assert_eq!(
        workers_with_items, 2,
        "{name}: both threads ran items: {shapes:?}"
    );
    if per_item {
        let singles: usize = shapes.iter().map(|s| s.single_item_tasks).sum();
        assert_eq!(singles, items, "{name}: one task per item: {shapes:?}");
    }
    // One par, on the thread that ran the consumer; every task inside its span.
    for (t, s) in threads.iter().zip(&shapes) {
        let own = std::ptr::eq(t, session);
        assert_eq!(s.pars, usize::from(own), "{name}: pars of {:?}", t.name);
    }
    let at = |text: &str| {
        let i = session.text.iter().position(|e| e == text).unwrap();
        session.events[i].time
    };
    let (begin, end): (Nanos, Nanos) = (at("par_begin"), at("par_end"));
    for t in threads {
        for (e, text) in t.events.iter().zip(&t.text) {
            if text.starts_with("task_") {
                assert!(
                    begin <= e.time && e.time <= end,
                    "{name}: {text} at {:?} outside the par [{begin:?}, {end:?}]",
                    e.time
                );
            }
        }
    }
}

fn xs() -> Vec<u64> {
    (0..ITEMS).collect()
}

#[test]
fn for_each() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let sum = std::sync::atomic::AtomicU64::new(0);
    let ((), threads) = record(&dir.path().join("l.pplog"), || {
        xs().into_par_iter().recorded().for_each(|x| {
            sum.fetch_add(item(x), std::sync::atomic::Ordering::Relaxed);
        })
    });
    assert_eq!(sum.into_inner(), ITEMS * (ITEMS - 1) / 2);
    check("for_each", &threads, true, true);
}

#[test]
fn map_and_sum() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (sum, threads) = record(&dir.path().join("l.pplog"), || {
        xs().par_iter().recorded().map(|x| item(*x)).sum::<u64>()
    });
    assert_eq!(sum, ITEMS * (ITEMS - 1) / 2);
    check("map+sum", &threads, true, true);
}

#[test]
fn map_before_the_adaptor_is_covered_too() {
    // The map runs upstream of `.recorded()`: the tasks of the runs still cover it (an
    // item's upstream work runs before its task is cut from the previous one, so tasks do
    // not match items one to one there).
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (sum, threads) = record(&dir.path().join("l.pplog"), || {
        xs().par_iter().map(|x| item(*x)).recorded().sum::<u64>()
    });
    assert_eq!(sum, ITEMS * (ITEMS - 1) / 2);
    check("map before recorded + sum", &threads, false, true);
}

#[test]
fn filter_and_collect() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (evens, threads) = record(&dir.path().join("l.pplog"), || {
        xs().into_par_iter()
            .recorded()
            .filter(|x| item(*x).is_multiple_of(2))
            .collect::<Vec<u64>>()
    });
    assert_eq!(evens, (0..ITEMS).step_by(2).collect::<Vec<_>>());
    check("filter+collect", &threads, true, true);
}

#[test]
fn indexed_map_and_collect() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (v, threads) = record(&dir.path().join("l.pplog"), || {
        xs().par_iter()
            .recorded()
            .map(|x| item(*x) * 10)
            .collect::<Vec<u64>>()
    });
    assert_eq!(v, (0..ITEMS).map(|x| x * 10).collect::<Vec<_>>());
    check("map+collect", &threads, true, true);
}

#[test]
fn collect_into_vec() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (v, threads) = record(&dir.path().join("l.pplog"), || {
        let mut v = Vec::new();
        xs().par_iter()
            .recorded()
            .map(|x| item(*x) + 1)
            .collect_into_vec(&mut v);
        v
    });
    assert_eq!(v, (1..=ITEMS).collect::<Vec<_>>());
    check("collect_into_vec", &threads, true, true);
}

#[test]
fn fold_and_reduce() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (sum, threads) = record(&dir.path().join("l.pplog"), || {
        xs().par_iter()
            .recorded()
            .fold(|| 0u64, |acc, x| acc + item(*x))
            .reduce(|| 0, |a, b| a + b)
    });
    assert_eq!(sum, ITEMS * (ITEMS - 1) / 2);
    check("fold+reduce", &threads, true, true);
}

#[test]
fn reduce_with() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (max, threads) = record(&dir.path().join("l.pplog"), || {
        xs().par_iter()
            .recorded()
            .map(|x| item(*x))
            .reduce_with(u64::max)
    });
    assert_eq!(max, Some(ITEMS - 1));
    check("reduce_with", &threads, true, true);
}

#[test]
fn count_min_max() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (n, threads) = record(&dir.path().join("l.pplog"), || {
        xs().par_iter()
            .recorded()
            .filter(|x| item(**x) >= 4)
            .count()
    });
    assert_eq!(n as u64, ITEMS - 4);
    check("count", &threads, true, true);
    let (m, threads) = record(&dir.path().join("l.pplog"), || {
        xs().par_iter().recorded().map(|x| item(*x)).min()
    });
    assert_eq!(m, Some(0));
    check("min", &threads, true, true);
}

#[test]
fn any_short_circuits() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (found, threads) = record(&dir.path().join("l.pplog"), || {
        xs().par_iter().recorded().any(|x| item(*x) == 1)
    });
    assert!(found);
    check("any", &threads, true, false);
}

#[test]
fn zip_and_enumerate_take_the_producer_apart() {
    // Adaptors after `.recorded()` that need its producer: each piece is one task.
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let ys = xs();
    let (dot, threads) = record(&dir.path().join("l.pplog"), || {
        xs().par_iter()
            .recorded()
            .zip(ys.par_iter())
            .map(|(x, y)| item(*x) * y)
            .sum::<u64>()
    });
    assert_eq!(dot, (0..ITEMS).map(|x| x * x).sum::<u64>());
    check("zip", &threads, false, true);
    let (weighted, threads) = record(&dir.path().join("l.pplog"), || {
        xs().par_iter()
            .recorded()
            .enumerate()
            .map(|(i, x)| item(*x) * i as u64)
            .sum::<u64>()
    });
    assert_eq!(weighted, (0..ITEMS).map(|x| x * x).sum::<u64>());
    check("enumerate", &threads, false, true);
}

#[test]
fn nothing_is_recorded_without_a_session() {
    // Sessions are process-wide: without the lock this pipeline, run while another test's
    // session records, would be recorded into that session's log.
    let _serial = serial();
    let v: Vec<u64> = xs().par_iter().recorded().map(|x| x + 1).collect();
    assert_eq!(v, (1..=ITEMS).collect::<Vec<_>>());
}
