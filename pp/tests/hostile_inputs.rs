//! `pp` on inputs that used to give wrong numbers or exhaust memory: each run must end
//! within a time and memory limit with exit status 1 (bad input) or 2 (usage) and a one-line
//! message that names the place and echoes at most a line of the input.
//!
//! Fixtures are written here; each says how it is made and what it must give.

mod limits;

use std::path::{Path, PathBuf};
use std::time::Duration;

use pplib::log::binary::{ChunkEncoder, LogWriter};
use pplib::log::{CounterId, EventKind, Header, Nanos, ThreadId};

use limits::{run_pp, Outcome};

/// Every way `pp` computes a profile: fast totals (table), fast with per-thread rows
/// (`--json`), the reference (`--histograms`), the reference with an observer
/// (`--timeline`), and record lines.
fn every_path(dir: &Path) -> Vec<Vec<String>> {
    let tl = dir.join("tl.json").to_str().unwrap().to_owned();
    vec![
        vec![],
        vec!["--json".into()],
        vec!["--histograms".into()],
        vec!["--timeline".into(), tl],
        vec![
            "-l".into(),
            "n=1".into(),
            "--miss-latency".into(),
            "100".into(),
        ],
    ]
}

/// Runs `pp ARGS LOG` with small limits (a few seconds, 100 MiB) and checks exit status
/// `code` and a single short stderr line containing each of `needles`.
fn rejects(dir: &Path, args: &[String], log: &Path, code: i32, needles: &[&str]) -> Outcome {
    let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
    all.push(log.to_str().unwrap());
    let o = run_pp(&all, &[], dir, Duration::from_secs(60));
    o.within(&format!("pp {all:?}"), 10.0, 100.0);
    assert_eq!(o.status.code(), Some(code), "{all:?}: {}", o.stderr);
    assert_eq!(o.stderr.lines().count(), 1, "{all:?}: {}", o.stderr);
    assert!(
        o.stderr.len() < 600,
        "{all:?}: a long message: {}",
        o.stderr
    );
    for n in needles {
        assert!(o.stderr.contains(n), "{all:?}: {n:?} not in {}", o.stderr);
    }
    o
}

/// A text trace and the same log in binary form, p = 1, one thread: the session from 0 to
/// 2000 ns with `counters NAME=V` at 0 and 1000 ns for each `(NAME, V0, V1)`.
fn counter_logs(dir: &Path, name: &str, v0: u64, v1: u64) -> (PathBuf, PathBuf) {
    let text = format!(
        "pptrace 1\nprocessors 1\n0 0 session_begin\n0 0 counters {name}={v0}\n1000 0 counters {name}={v1}\n2000 0 session_end\n"
    );
    let txt = dir.join(format!("{name}_{v1}.pptrace"));
    std::fs::write(&txt, text).unwrap();
    let header = Header {
        version: pplib::log::binary::VERSION,
        processors: 1,
        clock: "test".to_owned(),
        counters: vec![name.to_owned()],
        ..Header::default()
    };
    let mut w = LogWriter::new(Vec::new(), &header).unwrap();
    let mut c = ChunkEncoder::new(ThreadId(0));
    c.event(Nanos(0), &EventKind::SessionBegin);
    c.event(Nanos(0), &EventKind::Counters(vec![(CounterId(0), v0)]));
    c.event(Nanos(1000), &EventKind::Counters(vec![(CounterId(0), v1)]));
    c.event(Nanos(2000), &EventKind::SessionEnd);
    w.chunk(&c).unwrap();
    let bin = dir.join(format!("{name}_{v1}.pplog"));
    std::fs::write(&bin, w.finish().unwrap()).unwrap();
    (txt, bin)
}

#[test]
fn counters_that_imply_more_time_than_the_window_are_rejected() {
    // llc_misses from 0 to near 2^64 in 1000 ns gave cl = 1.8e12 s beside tt = 2e-6 s; a
    // cpu_ns that falls, or rises by 2 s in 1 us, is as impossible.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        ("llc_misses", 0, u64::MAX - 615, "rises by"),
        ("cpu_ns", 0, 2_000_000_000, "rises by"),
        ("cpu_ns", 500, 100, "goes backwards"),
        ("instructions", 9, 3, "goes backwards"),
    ];
    for (name, v0, v1, what) in cases {
        let (txt, bin) = counter_logs(d, name, v0, v1);
        for args in every_path(d) {
            rejects(d, &args, &txt, 1, &["line 5", name, what]);
            rejects(d, &args, &bin, 1, &["byte offset", name, what]);
        }
    }
    // Plausible values pass: 1000 misses and 900 ns of CPU time in 1000 ns.
    let (txt, bin) = counter_logs(d, "llc_misses", 5, 1005);
    for log in [txt, bin] {
        let args = ["-l", "", "--miss-latency", "1", log.to_str().unwrap()];
        let o = run_pp(&args, &[], d, Duration::from_secs(60));
        assert!(o.status.success(), "{}", o.stderr);
        assert!(o.stdout.contains(" cl=1e-6 "), "{}", o.stdout);
    }
}

#[test]
fn notes_with_keys_pp_writes_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/design_example.pptrace");
    for note in [
        "p=7 n=1",
        "n=1 tag=x",
        "n=1 li=0",
        "n=1 tt=3",
        "n=1 impl=a n=2",
    ] {
        let args = vec!["-l".to_owned(), note.to_owned()];
        let o = rejects(dir.path(), &args, &log, 2, &["note token"]);
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn a_two_gigabyte_sparse_file_fails_at_once() {
    // Sparse files (no disk used): 2 GiB of zero bytes, and a text trace header followed
    // by 2 GiB of zero bytes. Both used to be read whole (4.2 GB resident) and the first
    // echoed in full; now pp looks at their first 64 KiB, and text traces are capped at
    // 1 GiB.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let zeros = d.join("zeros.bin");
    std::fs::File::create(&zeros)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let text = d.join("zeros.pptrace");
    std::fs::write(&text, "pptrace 1\nprocessors 2\n").unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&text)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    for args in every_path(d) {
        rejects(
            d,
            &args,
            &zeros,
            1,
            &["zeros.bin", "line 1", "expected a pplib log"],
        );
        rejects(d, &args, &text, 1, &["zeros.pptrace", "at most 1024 MiB"]);
    }
}

#[test]
fn long_names_are_shortened_in_messages() {
    // A fragment name of 1 MB closed by the wrong end event, and 50 000 names none of
    // which is the tag asked for: the messages show a line, not the names.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long = "x".repeat(1 << 20);
    let log = d.join("long.pptrace");
    std::fs::write(
        &log,
        format!(
            "pptrace 1\nprocessors 1\n0 0 session_begin\n1 0 frag_begin {long}\n2 0 session_end\n"
        ),
    )
    .unwrap();
    // --strict: an end event that matches nothing is an error instead of a dropped event.
    for mut args in every_path(d) {
        args.insert(0, "--strict".into());
        rejects(d, &args, &log, 1, &["line 5", "xxx..."]);
    }
    let mut many = String::from("pptrace 1\nprocessors 1\n0 0 session_begin\n");
    for i in 0..50_000 {
        many.push_str(&format!(
            "{} 0 frag_begin fragment_{i}_{long_i}\n{} 0 frag_end fragment_{i}_{long_i}\n",
            2 * i + 1,
            2 * i + 2,
            long_i = "y".repeat(50)
        ));
    }
    many.push_str("200000 0 session_end\n");
    let log = d.join("many.pptrace");
    std::fs::write(&log, many).unwrap();
    let args = vec!["-t".to_owned(), "nosuch".to_owned()];
    rejects(d, &args, &log, 1, &["nosuch", "(49992 more)"]);
}
