//! The runtime API, recorded and read back: guards and closures, sessions, threads, locks.

mod common;

use std::time::Duration;

use common::{assert_nested, read, serial};
use pplib::log::{EventKind, Nanos};
use pplib::{PplibError, Session, WaitKind};

#[test]
fn guards_and_closures_round_trip() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api.pplog");
    let session = Session::builder()
        .path(&path)
        .processors(3)
        .start()
        .unwrap();
    assert!(session.is_enabled());
    assert_eq!(session.path(), Some(path.as_path()));
    {
        let _outer = pplib::frag("outer");
        let n = pplib::frag_scope("inner", || 41 + 1);
        assert_eq!(n, 42);
        let _par = pplib::par();
        pplib::task_scope(|| pplib::wait(WaitKind::Channel, || ()));
        pplib::task().wasted();
        {
            let _t = pplib::task();
            let _w = pplib::wait_guard(WaitKind::Other("io"));
        }
        pplib::par_scope(|| pplib::wait(WaitKind::Spin, || ()));
    }
    let dynamic = String::from("dyn") + "amic";
    pplib::frag_scope(&dynamic, || ());
    session.finish().unwrap();

    let (reader, threads) = read(&path);
    assert_eq!(reader.header().processors, 3);
    assert_eq!(reader.header().process.pid, std::process::id());
    // Only the scheduling samples' counters (no counter backend).
    assert_eq!(reader.header().counters, ["cpu_ns", "nivcsw"]);
    assert_eq!(threads.len(), 1);
    let t = &threads[0];
    assert_eq!(
        t.text,
        [
            "session_begin",
            "frag_begin outer",
            "frag_begin inner",
            "frag_end inner",
            "par_begin",
            "task_begin",
            "wait_begin channel",
            "wait_end",
            "task_end",
            "task_begin",
            "task_end wasted",
            "task_begin",
            "wait_begin io",
            "wait_end",
            "task_end",
            "par_begin",
            "wait_begin spin",
            "wait_end",
            "par_end",
            "par_end",
            "frag_end outer",
            "frag_begin dynamic",
            "frag_end dynamic",
            "session_end",
        ]
    );
    assert!(t.events.windows(2).all(|w| w[0].time <= w[1].time));
    assert_eq!(
        &reader.names()[..5],
        ["lock", "barrier", "condvar", "channel", "spin"]
    );
}

/// A session's log says what recording one event cost, measured when the session ended:
/// a few nanoseconds to a few hundred (a generous range: the machine may be loaded).
#[test]
fn the_log_holds_the_measured_cost_of_an_event() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cost.pplog");
    let session = Session::builder().path(&path).start().unwrap();
    pplib::frag_scope("work", || ());
    session.finish().unwrap();
    let reader = pplib::log::LogReader::open(&path).unwrap();
    let ps = reader
        .header()
        .event_cost_ps
        .expect("the log holds the event cost");
    assert!((100..1_000_000).contains(&ps), "{ps} ps an event");
}

#[test]
fn durations_are_measured() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.pplog");
    let session = Session::builder().path(&path).start().unwrap();
    pplib::frag_scope("sleep", || std::thread::sleep(Duration::from_millis(50)));
    session.finish().unwrap();
    let (_, threads) = read(&path);
    let e = &threads[0].events;
    let Nanos(d) = Nanos(e[2].time.0 - e[1].time.0);
    assert!(
        (45_000_000..2_000_000_000).contains(&d),
        "50 ms sleep measured as {d} ns"
    );
}

#[test]
fn disabled_session_records_nothing() {
    let _serial = serial();
    let session = Session::disabled();
    assert!(!session.is_enabled());
    assert_eq!(session.path(), None);
    let _f = pplib::frag("x");
    pplib::task().wasted();
    session.finish().unwrap();
    std::env::remove_var("PPLIB_LOG");
    assert!(!Session::from_env().is_enabled());
}

#[test]
fn from_env_records_into_pplib_log() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("env.pplog");
    std::env::set_var("PPLIB_LOG", &path);
    std::env::set_var("PPLIB_PROCESSORS", "7");
    let session = Session::from_env();
    std::env::remove_var("PPLIB_LOG");
    std::env::remove_var("PPLIB_PROCESSORS");
    assert!(session.is_enabled());
    drop(session);
    let (reader, threads) = read(&path);
    assert_eq!(reader.header().processors, 7);
    assert_eq!(threads[0].text, ["session_begin", "session_end"]);
}

/// The scheduling policy and nice value of the calling process's thread named `name`
/// (fields 41 and 19 of `/proc/self/task/TID/stat`; policy 0 = SCHED_OTHER, 3 =
/// SCHED_BATCH, 5 = SCHED_IDLE), if there is one.
#[cfg(target_os = "linux")]
fn policy_of_thread(name: &str) -> Option<(u32, i32)> {
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim_end() == name {
            let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
            // Fields after the command name (which ends with the last ')'): state is 3.
            let rest: Vec<&str> = stat[stat.rfind(')')? + 2..].split(' ').collect();
            return Some((
                rest.get(41 - 3)?.parse().ok()?,
                rest.get(19 - 3)?.parse().ok()?,
            ));
        }
    }
    None
}

/// The writer runs at SCHED_BATCH with nice 10 (a small share nothing can take away, no
/// wake-up preemption): at SCHED_IDLE it got no processor while the program (or other
/// processes) kept every processor busy, and recording threads waited for it; at nice 0,
/// sharing a processor with a recording thread, its work showed in every event's cost.
#[test]
#[cfg(target_os = "linux")]
fn writer_thread_runs_as_a_batch_thread() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let session = Session::builder()
        .path(dir.path().join("policy.pplog"))
        .start()
        .unwrap();
    let mut policy = None;
    for _ in 0..200 {
        policy = policy_of_thread("pplib-writer");
        if policy == Some((3, 10)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    session.finish().unwrap();
    assert_eq!(
        policy,
        Some((3, 10)),
        "the writer thread's policy is SCHED_BATCH (3) at nice 10"
    );
}

/// Recording beside threads that keep every processor busy: the recording thread fills far
/// more buffers than it may hold (4 M events, ~10 MB, ~300 buffers of 32 KiB) and must not
/// wait on a writer starved of processors. Measured on a shared 2-core machine: 7.7-8.5 s
/// with the writer at SCHED_IDLE, 0.12 s at SCHED_OTHER and 0.11-0.15 s at SCHED_BATCH.
#[test]
fn recording_beside_busy_processors_does_not_wait_on_a_starved_writer() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hogs.pplog");
    let hogs = std::thread::available_parallelism().map_or(2, |n| n.get()) + 1;
    let stop = AtomicBool::new(false);
    const PAIRS: usize = 2_000_000;
    let took = std::thread::scope(|s| {
        for _ in 0..hogs {
            s.spawn(|| {
                let start = std::time::Instant::now();
                let mut x = 1u64;
                while !stop.load(Ordering::Relaxed) && start.elapsed() < Duration::from_secs(60) {
                    for _ in 0..1000 {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005) + 1);
                    }
                }
            });
        }
        std::thread::sleep(Duration::from_millis(50));
        let session = Session::builder().path(&path).start().unwrap();
        let start = std::time::Instant::now();
        for _ in 0..PAIRS {
            let _t = pplib::task();
        }
        let took = start.elapsed();
        stop.store(true, Ordering::Relaxed);
        session.finish().unwrap();
        took
    });
    eprintln!("4 M events beside {hogs} busy threads: {took:?}");
    let (_, threads) = read(&path);
    let tasks = threads[0]
        .text
        .iter()
        .filter(|e| *e == "task_begin")
        .count();
    assert_eq!(tasks, PAIRS);
    assert!(
        took < Duration::from_secs(3),
        "recording 4 M events beside {hogs} busy threads took {took:?}"
    );
}

#[test]
fn builder_errors() {
    let _serial = serial();
    assert!(matches!(
        Session::builder().start(),
        Err(PplibError::NoPath)
    ));
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        Session::builder()
            .path(dir.path().join("a"))
            .processors(0)
            .start(),
        Err(PplibError::NoProcessors)
    ));
    let bad = dir.path().join("no/such/dir/x.pplog");
    let err = Session::builder().path(&bad).start().unwrap_err();
    assert!(matches!(err, PplibError::Create { .. }));
    assert!(
        err.to_string().starts_with("cannot create the event log "),
        "{err}"
    );
    let first = Session::builder()
        .path(dir.path().join("1.pplog"))
        .start()
        .unwrap();
    let second = Session::builder().path(dir.path().join("2.pplog")).start();
    assert!(matches!(second, Err(PplibError::AlreadyRecording { .. })));
    first.finish().unwrap();
    // Once finished, a new session may start; a guard from the old one records nothing.
    let path = dir.path().join("3.pplog");
    let stale = pplib::frag("stale");
    let third = Session::builder().path(&path).start().unwrap();
    drop(stale);
    third.finish().unwrap();
    assert_eq!(read(&path).1[0].text, ["session_begin", "session_end"]);
}

#[test]
fn io_errors_stop_recording_without_panicking() {
    let _serial = serial();
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let session = Session::builder().path("/dev/full").start().unwrap();
    for _ in 0..200_000 {
        let _t = pplib::task();
    }
    let err = session.finish().unwrap_err();
    assert!(matches!(err, PplibError::Write { .. }), "{err}");
    // Recording is off again and a new session works.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("after.pplog");
    Session::builder()
        .path(&path)
        .start()
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(read(&path).1.len(), 1);
}

#[test]
fn std_threads_and_locks_record_tasks_and_waits() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sync.pplog");
    let session = Session::builder()
        .path(&path)
        .processors(2)
        .start()
        .unwrap();
    let lock = pplib::sync::Mutex::new(0u32);
    let ready = pplib::sync::Barrier::new(2);
    pplib::thread::scope(|s| {
        s.spawn(|| {
            let mut g = lock.lock().unwrap();
            ready.wait();
            std::thread::sleep(Duration::from_millis(60));
            *g += 1;
        });
        ready.wait();
        *lock.lock().unwrap() += 1; // blocks ~60 ms: recorded as a lock wait
    });
    assert_eq!(*lock.lock().unwrap(), 2);
    let handle = pplib::thread::spawn(|| 5);
    assert_eq!(handle.join().unwrap(), 5);
    session.finish().unwrap();

    let (reader, threads) = read(&path);
    assert_eq!(threads.len(), 3);
    let main = &threads[0].text;
    assert_eq!(
        main[..],
        [
            "session_begin",
            "par_begin",
            "task_begin",
            "wait_begin barrier",
            "wait_end",
            "wait_begin lock",
            "wait_end",
            "task_end",
            "par_end",
            "par_begin",
            "par_end",
            "session_end"
        ]
    );
    let lock_wait = threads[0].events[6].time.0 - threads[0].events[5].time.0;
    assert!(lock_wait >= 30_000_000, "lock wait of {lock_wait} ns");
    assert_eq!(
        threads[1].text,
        ["task_begin", "wait_begin barrier", "wait_end", "task_end"]
    );
    assert_eq!(threads[2].text, ["task_begin", "task_end"]);
    assert!(threads.iter().all(|t| t
        .events
        .iter()
        .all(|e| !matches!(e.kind, EventKind::Counters(_)))));
    let _ = reader;
}

#[test]
fn condvar_and_rwlock_waits() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cv.pplog");
    let session = Session::builder().path(&path).start().unwrap();
    let state = pplib::sync::Mutex::new(false);
    let cv = pplib::sync::Condvar::new();
    let rw = pplib::sync::RwLock::new(1);
    std::thread::scope(|s| {
        let w = rw.write().unwrap();
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(40));
            *state.lock().unwrap() = true;
            cv.notify_all();
        });
        let g = cv
            .wait_while(state.lock().unwrap(), |ready| !*ready)
            .unwrap();
        assert!(*g);
        drop(w);
    });
    assert_eq!(*rw.read().unwrap(), 1);
    session.finish().unwrap();
    let (_, threads) = read(&path);
    assert_eq!(
        threads[0].text,
        [
            "session_begin",
            "wait_begin condvar",
            "wait_end",
            "session_end"
        ]
    );
    for t in &threads {
        assert_nested(&t.text);
    }
}

/// Ending a session while other threads record at full speed: no hang, no lost ordering;
/// every thread's events read back in order and nest (a stack may be left open at the end,
/// where the session cut it). Then a new session starts cleanly on the same threads' state.
#[test]
fn session_ends_while_threads_record() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    for round in 0..3 {
        let path = dir.path().join(format!("race{round}.pplog"));
        let stop = AtomicBool::new(false);
        let session = Session::builder().path(&path).start().unwrap();
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        let _t = pplib::task();
                        pplib::frag_scope("x", || ());
                    }
                });
            }
            std::thread::sleep(Duration::from_millis(40));
            session.finish().unwrap();
            std::thread::sleep(Duration::from_millis(10));
            stop.store(true, Ordering::Relaxed);
        });
        let reader = pplib::log::LogReader::open(&path).unwrap();
        assert!(reader.truncated().is_none());
        let mut recorded = 0;
        for stream in reader.streams() {
            let mut depth: Vec<&str> = Vec::new();
            for e in stream {
                let e = e.unwrap();
                recorded += 1;
                match e.kind {
                    EventKind::TaskBegin => depth.push("task"),
                    EventKind::FragBegin(_) => depth.push("frag"),
                    EventKind::SessionBegin => depth.push("session"),
                    EventKind::TaskEnd { .. } => assert_eq!(depth.pop(), Some("task")),
                    EventKind::FragEnd(_) => assert_eq!(depth.pop(), Some("frag")),
                    EventKind::SessionEnd => assert_eq!(depth.pop(), Some("session")),
                    EventKind::Counters(_) => recorded -= 1, // scheduling samples
                    ref other => panic!("unexpected {other:?}"),
                }
            }
        }
        assert!(recorded > 1000, "only {recorded} events in 40 ms");
    }
}
