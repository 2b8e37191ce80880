//! rayon integration: the exact per-thread event sequences of nested joins (docs/predicates.md:
//! a thread waiting inside a join is Idle — `par` innermost — and Busy again while it
//! runs stolen work, which pushes a new `task`), scopes and `pp_for_each`.
//!
//! Stealing is forced with sleeps of tens of milliseconds in a 2-thread pool, so the
//! schedule is the only one possible unless the machine stalls a thread for that long.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{assert_nested, read, serial, ThreadLog};
use pplib::prelude::*;
use pplib::Session;

fn ms(n: u64) {
    std::thread::sleep(Duration::from_millis(n));
}

/// Runs `body` inside a 2-worker pool with a session started on worker 0.
fn record(path: &Path, body: impl FnOnce() + Send) -> Vec<ThreadLog> {
    let pool = pplib::pool(2).unwrap();
    pool.install(|| {
        let session = Session::builder().path(path).start().unwrap();
        body();
        session.finish().unwrap();
    });
    let (reader, threads) = read(path);
    assert_eq!(reader.header().processors, 2);
    for t in &threads {
        assert_nested(&t.text);
    }
    threads
}

/// The thread that started the session (the one `install` ran the body on).
fn session_thread(threads: &[ThreadLog]) -> &ThreadLog {
    threads
        .iter()
        .find(|t| t.text.first().map(String::as_str) == Some("session_begin"))
        .unwrap()
}

/// The other worker of the 2-thread pool.
fn other_thread(threads: &[ThreadLog]) -> &ThreadLog {
    let other: Vec<_> = threads
        .iter()
        .filter(|t| t.text.first().map(String::as_str) != Some("session_begin"))
        .collect();
    assert_eq!(other.len(), 1);
    assert!(other[0]
        .name
        .as_deref()
        .unwrap()
        .starts_with("pplib-worker-"));
    other[0]
}

#[test]
fn nested_join_on_the_forking_thread() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested.pplog");
    // W0 runs A = join(A1, A2); W1 steals B (100 ms) at once, so it cannot steal A2,
    // which W0 runs after A1 (50 ms); W0 then waits for B inside the outer par.
    let threads = record(&path, || {
        pplib::join(
            || {
                pplib::frag_scope("A", || {
                    pplib::join(
                        || pplib::frag_scope("A1", || ms(50)),
                        || pplib::frag_scope("A2", || ()),
                    )
                })
            },
            || pplib::frag_scope("B", || ms(100)),
        );
    });
    assert_eq!(threads.len(), 2);
    let w0 = session_thread(&threads);
    let w1 = other_thread(&threads);
    assert_eq!(
        w0.text,
        [
            "session_begin",
            "par_begin",
            "task_begin",
            "frag_begin A",
            "par_begin",
            "task_begin",
            "frag_begin A1",
            "frag_end A1",
            "task_end",
            "task_begin",
            "frag_begin A2",
            "frag_end A2",
            "task_end",
            "par_end",
            "frag_end A",
            "task_end",
            "par_end",
            "session_end"
        ]
    );
    assert_eq!(
        w1.text,
        ["task_begin", "frag_begin B", "frag_end B", "task_end"]
    );
    // W0 is Idle (outer par innermost) from the end of task A until B ends: about 50 ms.
    let idle = w0.events[16].time.0 - w0.events[15].time.0;
    assert!(idle >= 25_000_000, "idle wait of {idle} ns");
}

#[test]
fn waiting_thread_runs_stolen_work_as_a_task() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("steal.pplog");
    // W1 steals B while W0 runs A (30 ms). B forks B1 (60 ms) and B2; W0, done with A and
    // waiting for B, steals B2: Busy again inside its par.
    let threads = record(&path, || {
        pplib::join(
            || pplib::frag_scope("A", || ms(30)),
            || {
                pplib::frag_scope("B", || {
                    pplib::join(
                        || pplib::frag_scope("B1", || ms(60)),
                        || pplib::frag_scope("B2", || ms(5)),
                    )
                })
            },
        );
    });
    let w0 = session_thread(&threads);
    let w1 = other_thread(&threads);
    assert_eq!(
        w0.text,
        [
            "session_begin",
            "par_begin",
            "task_begin",
            "frag_begin A",
            "frag_end A",
            "task_end",
            "task_begin",
            "frag_begin B2",
            "frag_end B2",
            "task_end",
            "par_end",
            "session_end"
        ]
    );
    assert_eq!(
        w1.text,
        [
            "task_begin",
            "frag_begin B",
            "par_begin",
            "task_begin",
            "frag_begin B1",
            "frag_end B1",
            "task_end",
            "par_end",
            "frag_end B",
            "task_end"
        ]
    );
}

#[test]
fn scope_spawns_are_tasks() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scope.pplog");
    let threads = record(&path, || {
        pplib::scope(|s| {
            s.spawn(|s| {
                pplib::frag_scope("outer", || ms(40));
                s.spawn(|_| pplib::frag_scope("nested", || ()));
            });
            pplib::frag_scope("body", || ms(20));
        });
    });
    let all: Vec<&String> = threads.iter().flat_map(|t| &t.text).collect();
    let count = |s: &str| all.iter().filter(|t| t.as_str() == s).count();
    assert_eq!(count("task_begin"), 3, "{all:?}");
    assert_eq!(count("par_begin"), 1);
    let w0 = session_thread(&threads);
    assert_eq!(
        w0.text[..4],
        [
            "session_begin",
            "par_begin",
            "task_begin",
            "frag_begin body"
        ]
    );
    assert_eq!(w0.text[w0.text.len() - 2..], ["par_end", "session_end"]);
}

#[test]
fn pp_for_each_item_records_one_par_and_one_task_per_item() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("iter.pplog");
    let mut v = vec![1u64; 1000];
    let threads = record(&path, || {
        (0..100u32).into_par_iter().pp_for_each_item(|_| ());
        v.par_chunks_mut(10)
            .pp_for_each_item(|c| c.iter_mut().for_each(|x| *x *= 2));
        v.par_iter_mut().pp_for_each_item(|x| *x += 1);
        v.par_iter().pp_for_each_item(|x| assert_eq!(*x, 3));
    });
    assert!(v.iter().all(|x| *x == 3));
    let all: Vec<&String> = threads.iter().flat_map(|t| &t.text).collect();
    let count = |s: &str| all.iter().filter(|t| t.as_str() == s).count();
    assert_eq!(count("task_begin"), 100 + 100 + 1000 + 1000);
    assert_eq!(count("par_begin"), 4);
    let w0 = session_thread(&threads);
    assert_eq!(w0.text.iter().filter(|t| *t == "par_begin").count(), 4);
}

/// `pp_for_each` times long items one by one and covers short ones with one task per
/// stretch of a run: 40 items sleeping 1 ms give 40 tasks; 100 000 empty items give a few
/// per rayon run (rayon splits them into at most a few hundred runs on 2 threads).
#[test]
fn pp_for_each_records_long_items_one_by_one_and_short_ones_per_run() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("adaptive.pplog");
    let threads = record(&path, || {
        (0..40u32).into_par_iter().pp_for_each(|_| ms(1));
    });
    let tasks = |threads: &[ThreadLog]| {
        threads
            .iter()
            .flat_map(|t| &t.text)
            .filter(|e| *e == "task_begin")
            .count()
    };
    assert_eq!(tasks(&threads), 40);
    let sum = std::sync::atomic::AtomicU64::new(0);
    let threads = record(&path, || {
        (0..100_000u64).into_par_iter().pp_for_each_init(
            || 0u64,
            |_, x| {
                sum.fetch_add(x, std::sync::atomic::Ordering::Relaxed);
            },
        );
    });
    assert_eq!(sum.into_inner(), 100_000 * 99_999 / 2);
    let n = tasks(&threads);
    assert!((2..=2000).contains(&n), "{n} tasks for 100 000 short items");
}

#[test]
fn pp_for_each_run_records_one_task_per_sequential_run() {
    // Runs are rayon's splits: at least one, at most one per item, and every item ran inside
    // one (its fragment nests in a task on the thread that ran it; record() checks nesting).
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.pplog");
    let v: Vec<u64> = (0..100_000).collect();
    let sum = std::sync::atomic::AtomicU64::new(0);
    let threads = record(&path, || {
        v.par_iter().pp_for_each_run(|x| {
            sum.fetch_add(*x, std::sync::atomic::Ordering::Relaxed);
        });
        (0..1000u32).into_par_iter().pp_for_each_run(|i| {
            if i % 100 == 0 {
                let _f = pplib::frag("hundredth");
            }
        });
    });
    assert_eq!(sum.into_inner(), 100_000 * 99_999 / 2);
    let all: Vec<&String> = threads.iter().flat_map(|t| &t.text).collect();
    let count = |s: &str| all.iter().filter(|t| t.as_str() == s).count();
    assert_eq!(count("par_begin"), 2);
    assert_eq!(count("frag_begin hundredth"), 10);
    let tasks = count("task_begin");
    assert_eq!(tasks, count("task_end"));
    // rayon splits 100 000 items into a few pieces per thread (more when work is stolen),
    // never into anything near one per item.
    assert!((2..=2000).contains(&tasks), "{tasks} runs");
}

#[test]
fn pp_for_each_items_with_fragments_and_a_panic_still_nest() {
    // An item's end is recorded together with the next item's begin, and the last one when
    // the run ends: also when the run ends by unwinding from a panicking item.
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("panic.pplog");
    let threads = record(&path, || {
        let caught = std::panic::catch_unwind(|| {
            (0..1000u32).into_par_iter().pp_for_each_item(|i| {
                let _f = pplib::frag("item");
                assert!(i != 500, "item 500 fails");
            })
        });
        assert!(caught.is_err());
        (0..1000u32).into_par_iter().pp_for_each_item(|_| {
            let _f = pplib::frag("item");
        });
    });
    let all: Vec<&String> = threads.iter().flat_map(|t| &t.text).collect();
    let count = |s: &str| all.iter().filter(|t| t.as_str() == s).count();
    // Every item that began ended (record() checked the nesting on every thread).
    assert_eq!(count("task_begin"), count("task_end"));
    assert!(count("task_begin") > 1000, "{}", count("task_begin"));
    assert_eq!(count("frag_begin item"), count("task_begin"));

    // The same with `pp_for_each`, whose short items share tasks: the stretch's open task
    // ends when the run unwinds.
    let threads = record(&path, || {
        let caught = std::panic::catch_unwind(|| {
            (0..1000u32).into_par_iter().pp_for_each(|i| {
                let _f = pplib::frag("item");
                assert!(i != 500, "item 500 fails");
            })
        });
        assert!(caught.is_err());
    });
    let all: Vec<&String> = threads.iter().flat_map(|t| &t.text).collect();
    let count = |s: &str| all.iter().filter(|t| t.as_str() == s).count();
    assert_eq!(count("task_begin"), count("task_end"));
    assert!(count("task_begin") >= 1);
}

#[test]
fn idle_pool_workers_are_registered() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idle.pplog");
    let session = Session::builder()
        .path(&path)
        .processors(3)
        .start()
        .unwrap();
    // `pool` returns once its workers have registered: no sleep needed.
    let pool = pplib::pool(3).unwrap();
    session.finish().unwrap();
    drop(pool);
    let reader = pplib::log::LogReader::open(&path).unwrap();
    let mut names: Vec<_> = reader
        .threads()
        .into_iter()
        .filter_map(|t| reader.thread_name(t).map(str::to_owned))
        .collect();
    names.sort();
    assert_eq!(
        names
            .iter()
            .filter(|n| n.starts_with("pplib-worker-"))
            .count(),
        3,
        "{names:?}"
    );
}
