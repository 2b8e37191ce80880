//! The log path under sharing and faults: two processes given the same log get a log each
//! (the second records next to the first, and says so); a FIFO as the log is refused at
//! once instead of hanging the program; a process that aborts right after the
//! session starts leaves a log that reads as truncated, with its header. Children are this
//! test binary, re-run with `PPLIB_LOG_PATH_CHILD` set, executing only `child_entry`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pplib::log::{EventKind, LogReader};
use pplib::Session;

const SCENARIO: &str = "PPLIB_LOG_PATH_CHILD";
const LOG: &str = "PPLIB_LOG_PATH_LOG";

/// The child side: runs the scenario named in the environment (does nothing in a normal
/// test run).
#[test]
fn child_entry() {
    let Ok(scenario) = std::env::var(SCENARIO) else {
        return;
    };
    let path = PathBuf::from(std::env::var_os(LOG).unwrap());
    let session = Session::builder()
        .path(&path)
        .processors(2)
        .start()
        .unwrap();
    match scenario.as_str() {
        "hold" => {
            // 1000 tasks, then keep the log open until the parent closes our stdin.
            for _ in 0..1000 {
                pplib::task_scope(|| ());
            }
            println!("ready");
            let mut line = String::new();
            let _ = std::io::stdin().read_line(&mut line);
            session.finish().unwrap();
        }
        "abort" => std::process::abort(),
        other => panic!("unknown scenario {other}"),
    }
}

fn child(scenario: &str, path: &Path) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env(SCENARIO, scenario)
        .env(LOG, path)
        .env_remove("PPLIB_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Waits (at most 30 s) for the child to print `ready`; returns its stdout, to be kept
/// open until the child ends (it prints more).
fn wait_ready(proc: &mut std::process::Child) -> BufReader<std::process::ChildStdout> {
    let mut stdout = BufReader::new(proc.stdout.take().unwrap());
    let start = Instant::now();
    loop {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "child ended");
        if line.contains("ready") {
            return stdout;
        }
        assert!(start.elapsed() < Duration::from_secs(30));
    }
}

/// The number of tasks in a complete log.
fn tasks_in(path: &Path) -> usize {
    let reader = LogReader::open(path).unwrap();
    assert!(reader.truncated().is_none(), "{} truncated", path.display());
    let mut tasks = 0;
    for stream in reader.streams() {
        for e in stream {
            if matches!(e.unwrap().kind, EventKind::TaskBegin) {
                tasks += 1;
            }
        }
    }
    tasks
}

#[test]
fn two_processes_on_one_log_get_a_log_each() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.pplog");
    let mut first = child("hold", &path).spawn().unwrap();
    let _first_stdout = wait_ready(&mut first);
    let mut second = child("hold", &path).spawn().unwrap();
    let _second_stdout = wait_ready(&mut second);
    drop(second.stdin.take());
    let second_out = second.wait_with_output().unwrap();
    drop(first.stdin.take());
    let first_out = first.wait_with_output().unwrap();
    assert!(first_out.status.success(), "{first_out:?}");
    assert!(second_out.status.success(), "{second_out:?}");
    let said = String::from_utf8_lossy(&second_out.stderr);
    let pid = second_pid(&said);
    let other = dir.path().join(format!("shared.{pid}.pplog"));
    assert!(
        said.contains("is being recorded into by another process")
            && said.contains(other.to_str().unwrap()),
        "{said}"
    );
    assert_eq!(tasks_in(&path), 1000);
    assert_eq!(tasks_in(&other), 1000);
}

/// The pid in the `shared.PID.pplog` the second child says it records into.
fn second_pid(said: &str) -> String {
    let at = said.find("records into ").expect("the new name") + "records into ".len();
    let name = said[at..].lines().next().unwrap();
    let name = name.rsplit('/').next().unwrap();
    name.trim_start_matches("shared.")
        .trim_end_matches(".pplog")
        .to_owned()
}

#[test]
fn a_fifo_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("log.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // Without a reader (used to hang at session start), and with one.
    let reader = || {
        std::os::unix::fs::OpenOptionsExt::custom_flags(
            std::fs::OpenOptions::new().read(true),
            libc::O_NONBLOCK,
        )
        .open(&fifo)
        .unwrap()
    };
    for (path, keep) in [(fifo.clone(), None), (fifo.clone(), Some(reader()))] {
        let (tx, rx) = std::sync::mpsc::channel();
        let p = path.clone();
        std::thread::spawn(move || {
            let r = Session::builder().path(&p).start().map(|s| s.finish());
            let _ = tx.send(r.map(|_| ()).map_err(|e| e.to_string()));
        });
        let r = rx
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("session start on {} hangs", path.display()));
        let e = r.expect_err("a session into a non-regular file");
        assert!(e.contains("regular files only"), "{e}");
        drop(keep);
    }
    // A character device is written as it is (here: the log is discarded).
    Session::builder()
        .path("/dev/null")
        .start()
        .unwrap()
        .finish()
        .unwrap();
}

#[test]
fn an_abort_right_after_start_leaves_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("abort.pplog");
    let out = child("abort", &path).output().unwrap();
    assert!(!out.status.success());
    assert!(std::fs::metadata(&path).unwrap().len() > 14);
    let reader = LogReader::open(&path).unwrap();
    assert_eq!(reader.header().processors, 2);
    assert!(reader.truncated().is_some());
}
