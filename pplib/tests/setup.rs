//! The one-call set-up (`pplib::run`, `SessionBuilder::run`): p is the pool's size, the
//! log holds the pool's threads and no other, the session encloses the profiled code.

mod common;

use common::{read, serial};
use pplib::prelude::*;
use pplib::Session;

/// Names of the threads in the log, sorted.
fn thread_names(threads: &[common::ThreadLog]) -> Vec<String> {
    let mut names: Vec<String> = threads
        .iter()
        .map(|t| t.name.clone().unwrap_or_default())
        .collect();
    names.sort();
    names
}

#[test]
fn run_from_the_environment_records_the_pool_and_nothing_else() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.pplog");
    std::env::set_var("PPLIB_LOG", &path);
    std::env::remove_var("PPLIB_PROCESSORS");
    // 3 workers, one of which never gets work: it must still be in the log, and the
    // calling (test) thread, blocked outside the pool, must not.
    let result = pplib::run(3, || {
        let _f = pplib::frag("body");
        pplib::join(|| 1, || 2)
    });
    std::env::remove_var("PPLIB_LOG");
    assert_eq!(result.unwrap(), (1, 2));
    let (reader, threads) = read(&path);
    assert_eq!(reader.header().processors, 3);
    assert_eq!(
        thread_names(&threads),
        ["pplib-worker-0", "pplib-worker-1", "pplib-worker-2"]
    );
    let session = threads
        .iter()
        .find(|t| t.text.first().map(String::as_str) == Some("session_begin"))
        .unwrap();
    assert_eq!(session.text.last().map(String::as_str), Some("session_end"));
    assert_eq!(session.text[1], "frag_begin body");
}

#[test]
fn run_without_a_log_runs_unrecorded() {
    let _serial = serial();
    std::env::remove_var("PPLIB_LOG");
    let n = pplib::run(2, rayon::current_num_threads).unwrap();
    assert_eq!(n, 2);
}

#[test]
fn builder_run_takes_p_from_the_pool_unless_set() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.pplog");
    let sum = Session::builder()
        .path(&path)
        .run(2, || (0..1000u64).into_par_iter().recorded().sum::<u64>())
        .unwrap();
    assert_eq!(sum, 999 * 1000 / 2);
    let (reader, threads) = read(&path);
    assert_eq!(reader.header().processors, 2);
    assert_eq!(threads.len(), 2);
    // Set explicitly: kept.
    Session::builder()
        .path(&path)
        .processors(5)
        .run(2, || ())
        .unwrap();
    assert_eq!(read(&path).0.header().processors, 5);
    // A log that cannot be created is an error before the code runs.
    let ran = std::sync::atomic::AtomicBool::new(false);
    let err = Session::builder()
        .path(dir.path().join("missing/dir/x.pplog"))
        .run(2, || ran.store(true, std::sync::atomic::Ordering::Relaxed))
        .unwrap_err();
    assert!(matches!(err, pplib::PplibError::Create { .. }), "{err}");
    assert!(!ran.into_inner());
}
