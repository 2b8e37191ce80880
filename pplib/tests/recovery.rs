//! Recovery: a program that calls `std::process::exit`, panics, or is killed still leaves a
//! readable log. Each scenario runs in a child process (this test binary, re-run with
//! `PPLIB_RECOVERY_CHILD` set, executing only `child_entry`).

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{describe, read};
use pplib::log::{LogError, LogReader};
use pplib::Session;

const SCENARIO: &str = "PPLIB_RECOVERY_CHILD";
const LOG: &str = "PPLIB_RECOVERY_LOG";

/// The child side: runs the scenario named in the environment (does nothing in a normal
/// test run).
#[test]
fn child_entry() {
    let Ok(scenario) = std::env::var(SCENARIO) else {
        return;
    };
    let path = PathBuf::from(std::env::var_os(LOG).unwrap());
    match scenario.as_str() {
        "exit" => {
            let _session = Session::builder()
                .path(&path)
                .processors(2)
                .start()
                .unwrap();
            let _work = pplib::frag("work");
            let (started_tx, started_rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _t = pplib::task();
                started_tx.send(()).unwrap();
                std::thread::sleep(Duration::from_secs(3600)); // still running at exit
            });
            started_rx.recv().unwrap();
            for _ in 0..10 {
                pplib::task_scope(|| ());
            }
            std::process::exit(3);
        }
        "panic" => {
            let _session = Session::builder().path(&path).start().unwrap();
            let worker =
                std::thread::spawn(|| pplib::task_scope(|| panic!("worker panics in a task")));
            assert!(worker.join().is_err());
            let _work = pplib::frag("work");
            panic!("main panics inside a fragment");
        }
        "kill" => {
            let _session = Session::builder().path(&path).start().unwrap();
            for _ in 0..10_000 {
                pplib::task_scope(|| ());
            }
            std::thread::sleep(Duration::from_millis(200)); // the writer flushes when idle
            println!("ready");
            std::thread::sleep(Duration::from_secs(3600));
        }
        other => panic!("unknown scenario {other}"),
    }
}

fn child(scenario: &str, path: &Path) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env(SCENARIO, scenario)
        .env(LOG, path)
        .env_remove("PPLIB_LOG");
    cmd
}

#[test]
fn exit_from_main_completes_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exit.pplog");
    let out = child("exit", &path).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (reader, threads) = read(&path);
    assert_eq!(reader.header().processors, 2);
    assert_eq!(threads.len(), 2);
    let main = &threads[0].text;
    assert_eq!(main[..2], ["session_begin", "frag_begin work"]);
    assert_eq!(main.len(), 2 + 20, "{main:?}");
    // The other thread was still running: its open task was collected by the exit hook.
    assert_eq!(threads[1].text, ["task_begin"]);
}

#[test]
fn panic_unwinds_through_guards_and_session() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("panic.pplog");
    let out = child("panic", &path).output().unwrap();
    assert_eq!(out.status.code(), Some(101));
    assert!(String::from_utf8_lossy(&out.stderr).contains("main panics inside a fragment"));
    let (_, threads) = read(&path);
    assert_eq!(
        threads[0].text,
        [
            "session_begin",
            "frag_begin work",
            "frag_end work",
            "session_end"
        ]
    );
    assert_eq!(threads[1].text, ["task_begin", "task_end"]);
}

#[test]
fn killed_process_leaves_a_truncated_but_readable_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kill.pplog");
    let mut proc = child("kill", &path).stdout(Stdio::piped()).spawn().unwrap();
    // The test harness prints its own lines first; wait for ours.
    let mut stdout = BufReader::new(proc.stdout.take().unwrap());
    let mut said = String::new();
    loop {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 || line.contains("ready") {
            said += &line;
            break;
        }
        said += &line;
    }
    assert!(said.contains("ready"), "child said {said:?}");
    proc.kill().unwrap();
    proc.wait().unwrap();

    let reader = LogReader::open(&path).unwrap();
    assert!(reader.truncated().is_some());
    let mut stream = reader.streams().remove(0);
    let mut events = Vec::new();
    let err = loop {
        match stream
            .next()
            .expect("a truncated log ends its streams with an error")
        {
            Ok(e) if common::is_sched_sample(&reader, &e.kind) => {}
            Ok(e) => events.push(describe(&reader, &e.kind)),
            Err(e) => break e,
        }
    };
    assert!(matches!(err, LogError::Truncated { .. }), "{err}");
    assert!(err.to_string().contains("log truncated"), "{err}");
    assert!(stream.next().is_none());
    // A full buffer reached the file before the kill: 20 001 events of at least 2 bytes
    // fill one 32 KiB buffer, which holds at least 8 192 of these events (4 bytes at most).
    assert!(events.len() >= 8192, "{} events", events.len());
    assert_eq!(events[0], "session_begin");
    for pair in events[1..].chunks(2) {
        if pair.len() == 2 {
            assert_eq!(pair, ["task_begin", "task_end"]);
        }
    }
}

/// A log the runtime wrote (TSC time scale, several chunks per thread, names, thread
/// records) cut at many points: each thread's stream reads a prefix of its events and ends
/// with `Truncated`, never with another error, and never panics.
#[test]
fn runtime_log_cut_anywhere_reads_a_prefix() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("full.pplog");
    let session = Session::builder()
        .path(&path)
        .processors(2)
        .start()
        .unwrap();
    std::thread::scope(|s| {
        for t in 0..2 {
            s.spawn(move || {
                for i in 0..6000 {
                    let _f = pplib::frag(if (i + t) % 2 == 0 { "even" } else { "odd" });
                    let _w = pplib::wait_guard(pplib::WaitKind::Spin);
                }
            });
        }
    });
    session.finish().unwrap();
    let full = std::fs::read(&path).unwrap();
    let complete = LogReader::from_bytes(full.clone(), "full").unwrap();
    let expected: Vec<Vec<String>> = complete
        .streams()
        .into_iter()
        .map(|s| s.map(|e| describe(&complete, &e.unwrap().kind)).collect())
        .collect();
    assert_eq!(expected.len(), 3);
    assert!(expected.iter().map(Vec::len).sum::<usize>() > 48_000);
    let mut cuts: Vec<usize> = (0..40).map(|k| k * full.len() / 40).collect();
    cuts.extend([full.len() - 1, full.len() - 5, 13, 14, 15]);
    for cut in cuts {
        let reader = match LogReader::from_bytes(full[..cut].to_vec(), "cut") {
            Ok(r) => r,
            Err(e) => {
                assert!(cut < 100, "cut at {cut} of {}: {e}", full.len());
                continue;
            }
        };
        assert!(reader.truncated().is_some());
        for stream in reader.streams() {
            let thread = stream.thread().0 as usize;
            let mut got = Vec::new();
            let mut ended = None;
            for e in stream {
                match e {
                    Ok(e) => got.push(describe(&reader, &e.kind)),
                    Err(e) => ended = Some(e),
                }
            }
            let err = ended.expect("a truncated stream ends with an error");
            assert!(err.is_truncated(), "cut at {cut}: {err}");
            assert_eq!(got[..], expected[thread][..got.len()], "cut at {cut}");
        }
    }
}
