//! Real runs: small programs instrumented with pplib, recorded, and profiled with pp. Each
//! program measures with its own clock (`Instant`) what the profile should contain; pp's
//! value must be within 10%. Task bodies sleep rather than compute, so the expected values
//! hold on a loaded machine (a sleeping task is still Busy in the predicate semantics: it is
//! the innermost construct on its thread). Pools have 2 threads at most; one session at a
//! time (pplib records one session per process).

use std::path::Path;
use std::sync::Mutex as StdMutex;
use std::time::{Duration, Instant};

use pp::{analyze, Analysis, Options};
use pplib::prelude::*;

fn within_10_percent(what: &str, actual: f64, expected: f64) {
    eprintln!("{what}: pp {actual:.6} program {expected:.6}");
    assert!(
        (actual - expected).abs() <= 0.10 * expected,
        "{what}: pp says {actual:.6} s, the program measured {expected:.6} s"
    );
}

/// pplib records one session per process at a time: the tests take turns.
static ONE_SESSION: StdMutex<()> = StdMutex::new(());

fn record(log: &Path, body: impl FnOnce() + Send) -> Analysis {
    let _turn = ONE_SESSION.lock().unwrap_or_else(|e| e.into_inner());
    let pool = pplib::pool(2).unwrap();
    pool.install(|| {
        let session = pplib::Session::builder()
            .path(log)
            .processors(2)
            .start()
            .unwrap();
        body();
        session.finish().unwrap();
    });
    let a = analyze(log, &Options::all_tags()).unwrap();
    for p in &a.profiles {
        assert!(p.invariant_error() < 1e-9, "{}: invariant", p.window_name());
    }
    a
}

#[test]
fn rayon_loop_with_one_task_four_times_longer_gives_its_load_imbalance() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("imbalance.pplog");
    let durations = StdMutex::new(Vec::new());
    let window = StdMutex::new(Duration::ZERO);
    let a = record(&log, || {
        let _tag = pplib::frag("loop");
        let start = Instant::now();
        vec![20u64, 20, 20, 80].into_par_iter().pp_for_each(|ms| {
            let t = Instant::now();
            std::thread::sleep(Duration::from_millis(ms));
            durations.lock().unwrap().push(t.elapsed());
        });
        *window.lock().unwrap() = start.elapsed();
    });
    let busy: f64 = durations
        .lock()
        .unwrap()
        .iter()
        .map(Duration::as_secs_f64)
        .sum();
    let w = window.lock().unwrap().as_secs_f64();
    // While the loop runs, the 2 processors are either in a task or idle with work pending.
    let li_expected = 2.0 * w - busy;
    assert!(
        li_expected > 0.015,
        "the 80 ms task leaves a processor idle: {li_expected}"
    );
    let tag = a.tag("loop").expect("fragment loop");
    within_10_percent("li of fragment loop", tag.li, li_expected);
    within_10_percent("rt of fragment loop", tag.rt, busy);
    assert!(
        tag.ip < 0.1 * li_expected,
        "no serial time inside the loop: ip {}",
        tag.ip
    );
}

#[test]
fn serial_phase_gives_insufficient_parallelism() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("serial.pplog");
    let serial = StdMutex::new(Duration::ZERO);
    let a = record(&log, || {
        {
            let _tag = pplib::frag("serial");
            let t = Instant::now();
            std::thread::sleep(Duration::from_millis(40));
            *serial.lock().unwrap() = t.elapsed();
        }
        // Then some parallel work, so the session is not serial only.
        vec![20u64, 20]
            .into_par_iter()
            .pp_for_each(|ms| std::thread::sleep(Duration::from_millis(ms)));
    });
    let s = serial.lock().unwrap().as_secs_f64();
    // One thread Busy in serial code, the other processor idle with no work: ip = (p-1) s.
    let tag = a.tag("serial").expect("fragment serial");
    within_10_percent("ip of the serial phase", tag.ip, s);
    within_10_percent("rt of the serial phase", tag.rt, s);
    assert!(a.session().ip >= tag.ip * 0.999);
    assert_eq!(tag.li, 0.0);
}

#[test]
fn contended_mutex_gives_its_synchronization_loss() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("mutex.pplog");
    let lock = pplib::sync::Mutex::new(0u32);
    let waits = StdMutex::new(Vec::new());
    let a = record(&log, || {
        let _tag = pplib::frag("critical");
        vec![0u32, 1].into_par_iter().pp_for_each(|i| {
            let t = Instant::now();
            let mut g = lock.lock().unwrap();
            waits.lock().unwrap().push(t.elapsed());
            *g += i;
            std::thread::sleep(Duration::from_millis(50));
        });
    });
    let waited: f64 = waits
        .lock()
        .unwrap()
        .iter()
        .map(Duration::as_secs_f64)
        .sum();
    assert!(
        waited > 0.005,
        "the second task waits for the first: {waited}"
    );
    within_10_percent("sl of the session", a.session().sl, waited);
    within_10_percent(
        "sl of fragment critical",
        a.tag("critical").unwrap().sl,
        waited,
    );
}
