//! Recording cost of pplib's OpenMP tool per OMPT event (a benchmark, not a test).
//!
//! The OMPT callbacks are called here as the OpenMP runtime calls them (through function
//! pointers, with the runtime's data words), with a session recording to a file, in
//! rounds of 8192 calls; each call records one event. Measured per call, median over
//! rounds, interleaved with rounds of bare clock readings:
//! - `clock_ns`: one reading of the recorder's clock;
//! - `mutex_ns`: `mutex_acquire` + `mutex_acquired` of a critical section (`wait lock`);
//! - `barrier_ns`: `sync_region` begin + end of an explicit barrier (`wait barrier`);
//! - `join_ns`: `sync_region` begin + end of an implicit barrier (the implicit task's end
//!   and reopening);
//! - `task_ns`: `task_schedule` into and out of an explicit task (`task` begin, end), with
//!   the `task_create` before them (which records nothing) counted in.
//!
//! The last line is
//! `ompt_cost: clock_ns=C mutex_ns=M barrier_ns=B join_ns=J task_ns=T event_ns=E ratio=R`,
//! with `event_ns` the largest of the four and `ratio` = event_ns / clock_ns (target
//! <= 1.3: a callback costs no more than a C ABI event). The runtime's own cost of
//! dispatching a callback is not included. On a loaded machine the medians move by a few
//! tenths of a nanosecond between runs.

use std::ffi::c_void;
use std::hint::black_box;
use std::time::Instant;

use pplib::ompt::abi::{self, mutex, scope, sync, task_status, Data};
use pplib::ompt::callbacks as cb;
use pplib::Session;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// ns per call in one round of `n` calls of `f` (each call here makes two callbacks).
fn round(n: u64, f: &mut impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_nanos() as f64 / n as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const ROUNDS: usize = 600;
    const CALLS: u64 = 4096;
    let dir = std::env::temp_dir().join(format!("pplib-ompt-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let log = dir.join("ompt.pplog");

    // The callbacks as the runtime holds them: function pointers it calls indirectly.
    let acquire: abi::MutexAcquireFn = black_box(cb::mutex_acquire);
    let acquired: abi::MutexFn = black_box(cb::mutex_acquired);
    let sync_region: abi::SyncRegionFn = black_box(cb::sync_region);
    let schedule: abi::TaskScheduleFn = black_box(cb::task_schedule);
    let implicit: abi::ImplicitTaskFn = black_box(cb::implicit_task);
    let create: abi::TaskCreateFn = black_box(cb::task_create);
    let null = std::ptr::null_mut::<Data>();
    let codeptr = main as *const c_void;

    let session = Session::builder().path(&log).processors(1).start()?;
    // The thread runs an implicit task, as a team member would.
    let mut implicit_data = Data { value: 0 };
    let task_data: *mut Data = &mut implicit_data;
    // SAFETY: the data pointers are valid for the calls; null ones are allowed.
    unsafe {
        implicit(
            scope::BEGIN,
            null,
            task_data,
            1,
            0,
            abi::task_flag::IMPLICIT,
        )
    };

    let mut clock = || {
        black_box(pplib::clock::raw_now());
    };
    let mut critical = || {
        // SAFETY: as the runtime calls them: a wait id and a code address, no pointers.
        unsafe {
            acquire(mutex::CRITICAL, 0, 0, 1, codeptr);
            acquired(mutex::CRITICAL, 1, codeptr);
        }
    };
    let mut barrier = || {
        // SAFETY: the implicit task's data word is valid; the parallel data may be null.
        unsafe {
            sync_region(
                sync::BARRIER_EXPLICIT,
                scope::BEGIN,
                null,
                task_data,
                codeptr,
            );
            sync_region(sync::BARRIER_EXPLICIT, scope::END, null, task_data, codeptr);
        }
    };
    let mut join = || {
        // SAFETY: as above.
        unsafe {
            sync_region(
                sync::BARRIER_IMPLICIT,
                scope::BEGIN,
                null,
                task_data,
                codeptr,
            );
            sync_region(sync::BARRIER_IMPLICIT, scope::END, null, task_data, codeptr);
        }
    };
    let mut explicit_data = Data { value: 0 };
    let explicit: *mut Data = &mut explicit_data;
    let mut tasks = || {
        // SAFETY: both tasks' data words are valid; the frame may be null.
        unsafe {
            create(
                task_data,
                std::ptr::null(),
                explicit,
                abi::task_flag::EXPLICIT,
                0,
                codeptr,
            );
            schedule(task_data, task_status::SWITCH, explicit);
            schedule(explicit, task_status::COMPLETE, task_data);
        }
    };
    let (mut c, mut m, mut b, mut j, mut t) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..ROUNDS {
        c.push(round(CALLS, &mut clock));
        m.push(round(CALLS, &mut critical) / 2.0);
        b.push(round(CALLS, &mut barrier) / 2.0);
        j.push(round(CALLS, &mut join) / 2.0);
        t.push(round(CALLS, &mut tasks) / 2.0);
    }
    // SAFETY: as above.
    unsafe { implicit(scope::END, null, task_data, 1, 0, abi::task_flag::IMPLICIT) };
    session.finish()?;

    let reader = pplib::log::LogReader::open(&log)?;
    // The construct events, without the scheduling samples (`counters`) pplib adds on its own.
    let events: usize = reader
        .streams()
        .into_iter()
        .map(|s| {
            s.filter(
                |e| !matches!(e, Ok(e) if matches!(e.kind, pplib::log::EventKind::Counters(_))),
            )
            .count()
        })
        .sum();
    let expected = ROUNDS as u64 * CALLS * 8 + 4;
    println!(
        "clock: {}; log: {events} construct events ({expected} expected), {} bytes",
        reader.header().clock,
        std::fs::metadata(&log)?.len()
    );
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(events as u64, expected, "every callback records one event");

    let (clock_ns, mutex_ns, barrier_ns, join_ns, task_ns) =
        (median(c), median(m), median(b), median(j), median(t));
    let event_ns = mutex_ns.max(barrier_ns).max(join_ns).max(task_ns);
    println!(
        "ompt_cost: clock_ns={clock_ns:.2} mutex_ns={mutex_ns:.2} barrier_ns={barrier_ns:.2} \
         join_ns={join_ns:.2} task_ns={task_ns:.2} event_ns={event_ns:.2} ratio={:.2}",
        event_ns / clock_ns
    );
    Ok(())
}
