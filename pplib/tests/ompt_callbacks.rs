//! The OpenMP tool's callbacks, driven directly in the order an OpenMP runtime calls them
//! (including events LLVM 14's libomp never reports, such as chunk dispatch), and the events
//! they record, read back from the log. `tests/openmp_tool.rs` in the workspace's `tests`
//! crate runs real OpenMP programs under the tool.

mod common;

use std::ffi::c_void;

use common::{assert_nested, read, serial};
use pplib::ompt::abi::{mutex, scope, sync, task_flag, task_status, work, Data};
use pplib::ompt::callbacks as cb;

/// A code address inside this test binary, standing for the call of a construct.
#[inline(never)]
fn region_code() -> *const c_void {
    (region_code as *const ()).cast::<c_void>().wrapping_add(4)
}

#[test]
fn one_team_member_through_every_construct() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("callbacks.pplog");
    let session = pplib::Session::builder()
        .path(&log)
        .processors(2)
        .start()
        .unwrap();
    let null = std::ptr::null_mut::<Data>();
    let mut parallel = Data { value: 0 };
    let mut implicit = Data { value: 0 };
    let mut explicit = Data { value: 0 };
    let mut other = Data { value: 0 };
    let (p, t, e, o): (*mut Data, *mut Data, *mut Data, *mut Data) =
        (&mut parallel, &mut implicit, &mut explicit, &mut other);
    let code = region_code();
    // SAFETY: every data pointer is valid (or null) for each call, as the runtime's are.
    unsafe {
        cb::parallel_begin(null, std::ptr::null(), p, 2, 0, code);
        cb::implicit_task(scope::BEGIN, p, t, 2, 0, task_flag::IMPLICIT);
        // A loop with three dispatched chunks, then its implicit barrier.
        cb::work(work::LOOP, scope::BEGIN, p, t, 30, code);
        for chunk in 0..3 {
            cb::dispatch(p, t, 1, Data { value: chunk });
        }
        cb::work(work::LOOP, scope::END, p, t, 0, code);
        cb::sync_region(sync::BARRIER_IMPLICIT, scope::BEGIN, p, t, code);
        cb::sync_region(sync::BARRIER_IMPLICIT, scope::END, p, t, code);
        // A critical section; a test lock (never a wait); a nest lock taken again.
        cb::mutex_acquire(mutex::CRITICAL, 0, 0, 7, code);
        cb::mutex_acquired(mutex::CRITICAL, 7, code);
        cb::mutex_acquire(mutex::TEST_LOCK, 0, 0, 8, code);
        cb::mutex_acquired(mutex::TEST_LOCK, 8, code);
        cb::mutex_acquire(mutex::NEST_LOCK, 0, 0, 9, code);
        cb::nest_lock(scope::BEGIN, 9, code);
        // A single whose end is not reported (closed at the barrier), with two tasks: one
        // run in a taskwait, cancelled; one run by this thread at the barrier.
        cb::work(work::SINGLE_EXECUTOR, scope::BEGIN, p, t, 1, code);
        cb::task_create(t, std::ptr::null(), e, task_flag::EXPLICIT, 0, code);
        cb::task_create(t, std::ptr::null(), o, task_flag::EXPLICIT, 0, code);
        cb::sync_region(sync::TASKWAIT, scope::BEGIN, p, t, code);
        cb::task_schedule(t, task_status::SWITCH, e);
        cb::task_schedule(e, task_status::CANCEL, t);
        cb::sync_region(sync::TASKWAIT, scope::END, p, t, code);
        cb::sync_region(sync::BARRIER_IMPLICIT, scope::BEGIN, p, t, std::ptr::null());
        cb::task_schedule(t, task_status::SWITCH, o);
        cb::task_schedule(o, task_status::COMPLETE, t);
        cb::sync_region(sync::BARRIER_IMPLICIT, scope::END, p, t, std::ptr::null());
        cb::implicit_task(scope::END, p, t, 2, 0, task_flag::IMPLICIT);
        cb::parallel_end(p, null, 0, code);
    }
    session.finish().unwrap();

    let (_, threads) = read(&log);
    assert_eq!(threads.len(), 1);
    let text: Vec<String> = threads[0]
        .text
        .iter()
        .map(|e| match e.split_once(' ') {
            // Region names: FUNCTION/CONSTRUCT... (the function is this file's).
            Some((what, name)) if what.starts_with("frag") => {
                assert!(name.contains("region_code"), "{name}");
                let construct = name.split('/').nth(1).unwrap();
                format!("{what} {}", construct.split(':').next().unwrap())
            }
            _ => e.clone(),
        })
        .collect();
    assert_nested(&threads[0].text);
    let expected = [
        "session_begin",
        "frag_begin parallel",
        "par_begin",
        "task_begin", // implicit task
        "frag_begin loop",
        "task_begin", // chunk 0
        "task_end",
        "task_begin", // chunk 1
        "task_end",
        "task_begin", // chunk 2
        "task_end",
        "frag_end loop",
        "task_end", // implicit barrier: Idle until the join
        "task_begin",
        "wait_begin lock",
        "wait_end",
        "wait_begin lock", // the nest lock (the test lock recorded nothing)
        "wait_end",
        "frag_begin single",
        "wait_begin barrier", // taskwait
        "task_begin",
        "task_end wasted",
        "wait_end",
        "frag_end single", // closed at the barrier
        "task_end",
        "task_begin", // the other task, run while waiting at the barrier
        "task_end",
        "task_begin",
        "task_end", // implicit task
        "par_end",
        "frag_end parallel",
        "session_end",
    ];
    assert_eq!(text, expected);
}

#[test]
fn without_a_session_callbacks_record_nothing_and_leave_the_data_words() {
    let _serial = serial();
    let mut implicit = Data { value: 0 };
    let t: *mut Data = &mut implicit;
    // SAFETY: valid data pointers, as above.
    unsafe {
        cb::implicit_task(
            scope::BEGIN,
            std::ptr::null_mut(),
            t,
            2,
            1,
            task_flag::IMPLICIT,
        );
        cb::sync_region(
            sync::BARRIER_IMPLICIT,
            scope::BEGIN,
            std::ptr::null_mut(),
            t,
            region_code(),
        );
        cb::mutex_acquire(mutex::LOCK, 0, 0, 1, region_code());
    }
    // SAFETY: the word was written (if at all) as an integer.
    assert_eq!(unsafe { implicit.value }, 0);
    assert_eq!(pplib::ffi::pp_is_recording(), 0);
}
