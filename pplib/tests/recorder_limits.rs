//! The recorder under sharing, faults and outside load, each run as its own process
//! configured the way users do it (`PPLIB_LOG`, `Session::from_env`) and held to a time and
//! a memory limit (peak resident memory, `VmHWM`, read every millisecond):
//! - two processes on one `PPLIB_LOG` both finish, each with a complete log of its own;
//! - a FIFO as `PPLIB_LOG` is refused at once (the program runs on unrecorded);
//! - a process that aborts right after the session starts leaves the log's header;
//! - recording beside more busy threads than processors neither waits on a starved writer
//!   nor piles up buffers.
//!
//! Children are this test binary, re-run with `PPLIB_LIMITS_CHILD` set (the scenario),
//! executing only `child_entry`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pplib::log::{EventKind, LogReader};
use pplib::Session;

const SCENARIO: &str = "PPLIB_LIMITS_CHILD";

/// The child side: records `tasks` tasks on the main thread into `PPLIB_LOG` (does nothing
/// in a normal test run).
#[test]
fn child_entry() {
    let Ok(scenario) = std::env::var(SCENARIO) else {
        return;
    };
    let session = Session::from_env();
    let tasks: usize = match scenario.as_str() {
        "abort" => std::process::abort(),
        "tasks" => std::env::var("PPLIB_LIMITS_TASKS")
            .unwrap()
            .parse()
            .unwrap(),
        other => panic!("unknown scenario {other}"),
    };
    for _ in 0..tasks {
        let _t = pplib::task();
    }
    if std::env::var_os("PPLIB_LIMITS_HOLD").is_some() {
        // Keep the log open until the parent closes our stdin.
        println!("ready");
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
    }
    session.finish().unwrap();
    println!("done");
}

/// What a child run gave.
struct Outcome {
    ok: bool,
    wall: Duration,
    peak_mib: f64,
    stderr: String,
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Starts the child `scenario` recording `tasks` tasks into `log`.
fn spawn(scenario: &str, log: &Path, tasks: usize) -> std::process::Child {
    command(scenario, log, tasks).spawn().unwrap()
}

/// Starts the child `scenario` recording `tasks` tasks into `log`, then keeping the log
/// open: returns once it says so, with its stdin (close it to let the child finish) and
/// its stdout (keep it until the child has ended).
// The child is handed to the caller, which waits for it (`limited`).
#[allow(clippy::zombie_processes)]
fn spawn_holding(log: &Path, tasks: usize) -> (std::process::Child, Holding) {
    use std::io::BufRead;
    let mut child = command("tasks", log, tasks)
        .env("PPLIB_LIMITS_HOLD", "1")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    loop {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            let status = child.wait().unwrap();
            panic!("the child ended ({status}) before it was ready");
        }
        if line.contains("ready") {
            return (child, (stdin, out));
        }
    }
}

/// A holding child's stdin and stdout.
type Holding = (
    std::process::ChildStdin,
    std::io::BufReader<std::process::ChildStdout>,
);

fn command(scenario: &str, log: &Path, tasks: usize) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env(SCENARIO, scenario)
        .env("PPLIB_LOG", log)
        .env("PPLIB_LIMITS_TASKS", tasks.to_string())
        .env("PPLIB_PROCESSORS", "2")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Waits for `children`, failing if any runs past `seconds` or above `mib` at its peak.
fn limited(what: &str, children: Vec<std::process::Child>, seconds: f64, mib: f64) -> Vec<Outcome> {
    let start = Instant::now();
    let mut peaks = vec![0u64; children.len()];
    let mut ends: Vec<Option<Duration>> = vec![None; children.len()];
    let mut children = children;
    while ends.iter().any(Option::is_none) {
        for (i, c) in children.iter_mut().enumerate() {
            if ends[i].is_some() {
                continue;
            }
            if let Some(kib) = vm_hwm_kib(c.id()) {
                peaks[i] = peaks[i].max(kib);
            }
            if c.try_wait().unwrap().is_some() {
                ends[i] = Some(start.elapsed());
            }
        }
        if start.elapsed() > Duration::from_secs_f64(seconds.max(60.0)) {
            for c in &mut children {
                let _ = c.kill();
            }
            panic!("{what}: still running after {:?}", start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    children
        .into_iter()
        .zip(peaks)
        .zip(ends)
        .map(|((c, peak), end)| {
            let out = c.wait_with_output().unwrap();
            let o = Outcome {
                ok: out.status.success(),
                wall: end.unwrap(),
                peak_mib: peak as f64 / 1024.0,
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            };
            eprintln!(
                "{what}: {:.2} s, peak {:.0} MiB (limits {seconds} s, {mib} MiB)",
                o.wall.as_secs_f64(),
                o.peak_mib
            );
            assert!(
                o.wall.as_secs_f64() <= seconds && o.peak_mib <= mib,
                "{what}: took {:?} and {:.0} MiB; limits {seconds} s, {mib} MiB; stderr: {}",
                o.wall,
                o.peak_mib,
                o.stderr
            );
            o
        })
        .collect()
}

/// The number of tasks in a complete log.
fn tasks_in(path: &Path) -> usize {
    let reader = LogReader::open(path).unwrap();
    assert!(
        reader.truncated().is_none(),
        "{} is truncated",
        path.display()
    );
    reader
        .streams()
        .into_iter()
        .flat_map(|s| s.map(Result::unwrap))
        .filter(|e| e.kind == EventKind::TaskBegin)
        .count()
}

#[test]
fn two_processes_on_one_pplib_log_each_get_a_complete_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("shared.pplog");
    let tasks = 300_000;
    // Both hold the log open at once.
    let (first, (first_in, _first_out)) = spawn_holding(&log, tasks);
    let (second, (second_in, _second_out)) = spawn_holding(&log, tasks);
    drop((first_in, second_in));
    let runs = limited(
        "two processes on one PPLIB_LOG",
        vec![first, second],
        20.0,
        64.0,
    );
    assert!(runs.iter().all(|o| o.ok), "{}", runs[1].stderr);
    let mut logs: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    logs.sort();
    assert_eq!(logs.len(), 2, "{logs:?}");
    for l in &logs {
        assert_eq!(tasks_in(l), tasks, "{}", l.display());
    }
    let said: String = runs.iter().map(|o| o.stderr.as_str()).collect();
    assert!(
        said.contains("is being recorded into by another process"),
        "{said}"
    );
}

#[test]
fn a_fifo_as_pplib_log_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("log.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let runs = limited(
        "a FIFO as PPLIB_LOG",
        vec![spawn("tasks", &fifo, 1000)],
        10.0,
        32.0,
    );
    assert!(runs[0].ok, "{}", runs[0].stderr);
    assert!(
        runs[0].stderr.contains("regular files only")
            && runs[0].stderr.contains("recording is off"),
        "{}",
        runs[0].stderr
    );
}

#[test]
fn an_abort_right_after_start_leaves_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("abort.pplog");
    let runs = limited(
        "abort after start",
        vec![spawn("abort", &log, 0)],
        10.0,
        32.0,
    );
    assert!(!runs[0].ok);
    let reader = LogReader::open(&log).unwrap();
    assert_eq!(reader.header().processors, 2);
    assert!(reader.truncated().is_some());
}

#[test]
fn recording_beside_busy_processors_stays_fast_and_small() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("load.pplog");
    // Outside load: more busy threads (in this process) than processors.
    let hogs = std::thread::available_parallelism().map_or(2, |n| n.get()) + 1;
    let stop = AtomicBool::new(false);
    let tasks = 2_000_000;
    let runs = std::thread::scope(|s| {
        for _ in 0..hogs {
            s.spawn(|| {
                let mut x = 1u64;
                while !stop.load(Ordering::Relaxed) {
                    for _ in 0..1000 {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005) + 1);
                    }
                }
            });
        }
        let runs = limited(
            "4 M events beside busy threads",
            vec![spawn("tasks", &log, tasks)],
            20.0,
            64.0,
        );
        stop.store(true, Ordering::Relaxed);
        runs
    });
    assert!(runs[0].ok, "{}", runs[0].stderr);
    assert_eq!(tasks_in(&log), tasks);
}
