//! The `pp` command line: outputs, exit statuses (0 ok, 1 bad input, 2 usage) and the
//! one-line error messages for bad input, text and binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pplib::log::binary::{ChunkEncoder, LogWriter};
use pplib::log::{EventKind, Header, Nanos, ThreadId};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn pp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pp"))
        .args(args)
        .env_remove("PPLIB_LOG")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The docs/predicates.md example as a binary log (2 threads), bytes.
fn binary_example() -> Vec<u8> {
    let header = Header {
        version: pplib::log::binary::VERSION,
        processors: 2,
        clock: "test".to_owned(),
        ..Header::default()
    };
    let mut w = LogWriter::new(Vec::new(), &header).unwrap();
    let mut c0 = ChunkEncoder::new(ThreadId(0));
    for (t, k) in [
        (0, EventKind::SessionBegin),
        (1_000_000, EventKind::ParBegin),
        (1_000_000, EventKind::TaskBegin),
        (2_000_000, EventKind::TaskEnd { wasted: false }),
        (3_000_000, EventKind::ParEnd),
        (3_000_000, EventKind::SessionEnd),
    ] {
        c0.event(Nanos(t), &k);
    }
    let mut c1 = ChunkEncoder::new(ThreadId(1));
    c1.event(Nanos(1_000_000), &EventKind::TaskBegin);
    c1.event(Nanos(3_000_000), &EventKind::TaskEnd { wasted: false });
    w.chunk(&c0).unwrap();
    w.chunk(&c1).unwrap();
    w.finish().unwrap()
}

fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Runs pp --strict on `bytes` and checks: exit status 1, one line on stderr naming the
/// file and containing `needle`, nothing on stdout, no panic.
fn assert_bad_input(bytes: &[u8], name: &str, needle: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write_temp(dir.path(), name, bytes);
    let o = pp(&["--strict", path.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{name}: stderr {err}");
    assert_eq!(err.lines().count(), 1, "{name}: not one line: {err}");
    assert!(err.contains(name), "{name}: file not named: {err}");
    assert!(err.contains(needle), "{name}: {needle:?} not in {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(stdout(&o).is_empty());
    err
}

#[test]
fn default_table_and_diagnosis() {
    let o = pp(&[fixture("design_example.pptrace").to_str().unwrap()]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("Load Imbalance"), "{out}");
    assert!(
        out.contains("primary loss: insufficient parallelism, 17% of processor time (serial code)")
    );
}

#[test]
fn line_records_with_note() {
    let f = fixture("fragments.pptrace");
    let o = pp(&["-l", "n=1024 impl=dp", "--all-tags", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(
        lines[0],
        "n=1024 impl=dp p=2 li=0.003 fj=0 ip=0.007 sl=0 wc=0 rt=0.014 tt=0.024"
    );
    assert_eq!(
        lines[3],
        "n=1024 impl=dp tag=x p=2 li=0.002 fj=0 ip=0.001 sl=0 wc=0 rt=0.005 tt=0.008"
    );
}

#[test]
fn line_without_note_takes_the_next_argument_as_log() {
    let f = fixture("design_example.pptrace");
    let o = pp(&["-l", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "p=2 li=0.001 fj=0 ip=0.001 sl=0 wc=0 rt=0.004 tt=0.006\n"
    );
}

#[test]
fn one_tag_and_unknown_tag() {
    let f = fixture("fragments.pptrace");
    let o = pp(&["-l", "-t", "inner", f.to_str().unwrap()]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l == "tag=inner p=2 li=0 fj=0 ip=0.002 sl=0 wc=0 rt=0.002 tt=0.004"),
        "{out}"
    );
    // Only that fragment: no session record, no session table.
    assert_eq!(out.lines().count(), 1, "{out}");
    let o = pp(&["-t", "inner", f.to_str().unwrap()]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(
        out.starts_with("pp: ") && out.lines().next().unwrap().ends_with(": inner"),
        "{out}"
    );
    assert!(!out.contains(": session"), "{out}");
    let o = pp(&["-t", "nope", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no fragment named \"nope\""),
        "{}",
        stderr(&o)
    );
    // Wait kinds share the log's name table with fragments; they are listed apart.
    let f = fixture("locks_in_tasks.pptrace");
    let o = pp(&["-t", "lock", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("(fragments: update; wait kinds, which are not fragments: lock)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn negative_memory_loss_is_explained() {
    // The p = 2 run as the "baseline" of the p = 1 run: rt 0.012 s against 0.015 s, so
    // ml = -0.003 s; the table says what that means (and pp warns that the baseline's p is 2).
    let o = pp(&[
        "--baseline",
        fixture("baseline_p2.pptrace").to_str().unwrap(),
        fixture("baseline_p1.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("memory loss < 0"), "{}", stdout(&o));
    assert!(stderr(&o).contains("baseline has p = 2"), "{}", stderr(&o));
}

#[test]
fn baseline_adds_pc_and_ml() {
    let o = pp(&[
        "-l",
        "--baseline",
        fixture("baseline_p1.pptrace").to_str().unwrap(),
        "--miss-latency",
        "100",
        fixture("baseline_p2.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "p=2 li=0.001 fj=0 ip=0 sl=0 wc=0 cl=0.0015 rc=0.0015 ml=0.003 pc=0.012 rt=0.015 tt=0.016\n"
    );
}

#[test]
fn json_has_the_documented_fields() {
    let o = pp(&[
        "--json",
        "--histograms",
        "--all-tags",
        fixture("wasted_tasks.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let log = &v["logs"][0];
    assert_eq!(log["processors"], 2);
    let session = &log["profiles"][0];
    assert!(session["tag"].is_null());
    assert_eq!(session["wc"], 0.007);
    assert_eq!(session["tt"], 0.016);
    assert!(
        session.get("pc").is_none(),
        "unmeasured categories are absent"
    );
    assert_eq!(session["durations"]["tasks"]["count"], 3);
    assert_eq!(
        session["record"],
        "p=2 li=0.001 fj=0 ip=0.002 sl=0 wc=0.007 rt=0.006 tt=0.016"
    );
    assert!(session["diagnosis"]
        .as_str()
        .unwrap()
        .starts_with("primary loss: wasted computation"));
    assert_eq!(log["profiles"][1]["tag"], "probe");
    assert_eq!(session["threads"].as_array().unwrap().len(), 2);
    assert_eq!(session["fj"], 0.0);
    assert_eq!(log["thread_counts"]["appeared"], 2);
    assert_eq!(log["thread_counts"]["ran_tasks"], 2);
    assert_eq!(log["disturbed"], false);
}

#[test]
fn fork_join_latency_in_json_records_and_table() {
    let path = fixture("join_delay.pptrace");
    let o = pp(&["--json", path.to_str().unwrap()]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let session = &v["logs"][0]["profiles"][0];
    assert_eq!(session["li"], 0.008);
    assert_eq!(session["fj"], 0.006);
    assert_eq!(
        session["record"],
        "p=2 li=0.008 fj=0.006 ip=0.001 sl=0 wc=0 rt=0.011 tt=0.02"
    );
    let diagnosis = session["diagnosis"].as_str().unwrap();
    assert!(
        diagnosis.starts_with(
            "primary loss: load imbalance, 40% of processor time: fork/join latency 30%"
        ),
        "{diagnosis}"
    );
    let o = pp(&[path.to_str().unwrap()]);
    let table = stdout(&o);
    let li = table
        .lines()
        .position(|l| l.starts_with("Load Imbalance"))
        .unwrap();
    assert!(
        table
            .lines()
            .nth(li + 1)
            .unwrap()
            .starts_with("  Fork/Join Latency"),
        "{table}"
    );
}

#[test]
fn set_up_and_disturbance_warnings_on_stderr_and_in_json() {
    let o = pp(&[fixture("serial_only.pptrace").to_str().unwrap()]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("only 1 thread(s) appeared but p = 2"),
        "{}",
        stderr(&o)
    );
    let o = pp(&["--json", fixture("disturbed.pptrace").to_str().unwrap()]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("the run was disturbed"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let log = &v["logs"][0];
    assert_eq!(log["disturbed"], true);
    assert_eq!(log["warnings"].as_array().unwrap().len(), 2);
    assert_eq!(log["profiles"][0]["os"], 0.001);
    assert_eq!(log["profiles"][0]["nivcsw"], 4.0);
}

#[test]
fn per_thread_and_histograms_views() {
    let o = pp(&[
        "--per-thread",
        "--histograms",
        fixture("barrier.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("thread"), "{out}");
    assert!(out.contains("p50 ms"), "{out}");
}

#[test]
fn timeline_is_chrome_trace_json() {
    let dir = tempfile::tempdir().unwrap();
    let tl = dir.path().join("t.json");
    let o = pp(&[
        "--timeline",
        tl.to_str().unwrap(),
        "--all-tags",
        fixture("wasted_tasks.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tl).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let names: Vec<&str> = events.iter().filter_map(|e| e["name"].as_str()).collect();
    for want in [
        "Busy",
        "Wasted",
        "Idle",
        "probe",
        "task (wasted)",
        "processors",
        "thread_name",
    ] {
        assert!(names.contains(&want), "{want} missing in {names:?}");
    }
    // Wasted state time on thread 1 (tid 3) sums to its 6 ms task.
    let wasted_us: f64 = events
        .iter()
        .filter(|e| e["name"] == "Wasted" && e["tid"] == 3)
        .map(|e| e["dur"].as_f64().unwrap())
        .sum();
    assert!((wasted_us - 6000.0).abs() < 1e-6, "{wasted_us}");
}

#[test]
fn plot_writes_an_svg() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("p.svg");
    let o = pp(&[
        "--plot",
        svg.to_str().unwrap(),
        fixture("baseline_p1.pptrace").to_str().unwrap(),
        fixture("baseline_p2.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert!(text.matches("<rect").count() >= 6, "bars missing");
    // The text is there whatever fonts the machine has (the font is compiled in).
    assert!(
        text.contains("baseline_p1 p=1") && text.contains("baseline_p2 p=2"),
        "bar labels"
    );
    assert!(text.contains("li: load imbalance"), "legend");
    assert!(text.contains("lost cycles"), "title");
    assert!(text.contains("processor-"), "axis label");
}

#[test]
fn default_log_is_pplib_log_then_pp_log() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("serial_only.pptrace"), dir.path().join("pp.log")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_pp"))
        .arg("-l")
        .current_dir(dir.path())
        .env_remove("PPLIB_LOG")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "p=2 li=0 fj=0 ip=0.01 sl=0 wc=0 rt=0.01 tt=0.02\n"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_pp"))
        .arg("-l")
        .current_dir(dir.path())
        .env("PPLIB_LOG", fixture("design_example.pptrace"))
        .output()
        .unwrap();
    assert_eq!(
        stdout(&o),
        "p=2 li=0.001 fj=0 ip=0.001 sl=0 wc=0 rt=0.004 tt=0.006\n"
    );
}

#[test]
fn binary_and_text_logs_give_the_same_profile() {
    let dir = tempfile::tempdir().unwrap();
    let bin = write_temp(dir.path(), "example.pplog", &binary_example());
    let o = pp(&["-l", bin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "p=2 li=0.001 fj=0 ip=0.001 sl=0 wc=0 rt=0.004 tt=0.006\n"
    );
}

#[test]
fn help_has_examples_and_usage_errors_exit_2() {
    let o = pp(&["--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("Examples:"));
    assert!(stdout(&o).contains("pp --all-tags run.pplog"));
    // clap turns `{n}` in help text into a line break: no line may end where one was eaten
    for flag in ["--help", "-h"] {
        let help = stdout(&pp(&[flag]));
        assert!(help.contains("Examples:"), "{flag}: {help}");
        for line in help.lines() {
            assert!(!line.ends_with(' '), "{flag}: broken line '{line}'");
        }
    }
    assert_eq!(pp(&["--no-such-flag"]).status.code(), Some(2));
    assert_eq!(pp(&["-t", "a", "--all-tags", "x"]).status.code(), Some(2));
    let f = fixture("serial_only.pptrace");
    let f = f.to_str().unwrap();
    assert_eq!(pp(&["-l", "n=1 oops", f]).status.code(), Some(2));
    assert_eq!(pp(&["--miss-latency", "-3", f]).status.code(), Some(2));
    assert_eq!(pp(&["--timeline", "t.json", f, f]).status.code(), Some(2));
    assert_eq!(pp(&["-l", "--json", f]).status.code(), Some(2));
}

#[test]
fn missing_file_is_bad_input() {
    let o = pp(&["/nonexistent/run.pplog"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("/nonexistent/run.pplog"));
}

// ---- bad input: text traces (line numbers) ----

const HEAD: &str = "pptrace 1\nprocessors 2\n";

#[test]
fn text_end_that_matches_no_begin() {
    let t = format!("{HEAD}0 0 session_begin\n5 0 task_end\n");
    let e = assert_bad_input(t.as_bytes(), "unmatched.pptrace", "line 4");
    assert!(e.contains("task_end"), "{e}");
    let t = format!("{HEAD}0 0 session_begin\n1 0 frag_begin a\n2 0 frag_end b\n");
    let e = assert_bad_input(t.as_bytes(), "wrongfrag.pptrace", "line 5");
    assert!(e.contains("frag_end b") && e.contains("frag_end a"), "{e}");
    let t = format!("{HEAD}3 1 par_end\n");
    assert_bad_input(t.as_bytes(), "nothing.pptrace", "line 3");
}

#[test]
fn text_end_that_matches_no_begin_is_dropped_without_strict() {
    // Without --strict the end event is reported with its line and the rest profiled
    // (the numbers are checked in tests/fixtures/unmatched_ends.pptrace).
    let dir = tempfile::tempdir().unwrap();
    let t = format!("{HEAD}0 0 session_begin\n1 0 frag_begin a\n2 0 frag_end b\n4 0 frag_end a\n5 0 session_end\n");
    let path = write_temp(dir.path(), "wrongfrag.pptrace", t.as_bytes());
    let o = pp(&["-l", "--all-tags", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("line 5: frag_end b on thread 0 does not match")
            && stderr(&o).contains("dropped"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("tag=a p=2"), "{}", stdout(&o));
}

#[test]
fn text_time_going_backwards() {
    let t = format!("{HEAD}10 0 session_begin\n5 0 session_end\n");
    let e = assert_bad_input(t.as_bytes(), "back.pptrace", "line 4");
    assert!(e.contains("backwards"), "{e}");
}

#[test]
fn text_unknown_event() {
    let t = format!("{HEAD}0 0 session_begin\n1 0 teleport\n");
    let e = assert_bad_input(t.as_bytes(), "unknown.pptrace", "line 4");
    assert!(e.contains("teleport"), "{e}");
}

#[test]
fn text_unknown_version_and_garbage() {
    assert_bad_input(b"pptrace 9\nprocessors 2\n", "v9.pptrace", "version");
    assert_bad_input(
        b"\x00\xff\xfe garbage \x01\x02",
        "garbage.pptrace",
        "expected a pplib log",
    );
    assert_bad_input(b"", "empty.pptrace", "empty");
    let t = format!("{HEAD}0 0 session_begin\nx7 0 session_end\n");
    assert_bad_input(t.as_bytes(), "badtime.pptrace", "line 4");
}

// ---- bad input: binary logs (byte offsets) ----

#[test]
fn binary_bad_magic() {
    let mut b = binary_example();
    b[5] = b'X';
    assert_bad_input(&b, "magic.pplog", "offset 0");
}

#[test]
fn binary_unknown_version() {
    let mut b = binary_example();
    b[8] = 99;
    assert_bad_input(&b, "version.pplog", "version 99");
}

#[test]
fn binary_truncated() {
    let b = binary_example();
    for cut in [b.len() - 1, b.len() - 8, b.len() / 2, 20] {
        assert_bad_input(&b[..cut], "cut.pplog", "truncated");
    }
}

#[test]
fn binary_truncated_with_allow_truncated_profiles_what_came_before() {
    let b = binary_example();
    let dir = tempfile::tempdir().unwrap();
    // Cut off END only: every event is there.
    let p = write_temp(dir.path(), "noend.pplog", &b[..b.len() - 5]);
    let o = pp(&["-l", "--allow-truncated", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "p=2 li=0.001 fj=0 ip=0.001 sl=0 wc=0 rt=0.004 tt=0.006\n"
    );
    assert!(stderr(&o).contains("truncated"));
}

#[test]
fn binary_garbage_after_the_header() {
    let b = binary_example();
    let header_end = 14 + u32::from_le_bytes(b[10..14].try_into().unwrap()) as usize;
    let mut g = b[..header_end].to_vec();
    g.extend_from_slice(&[0xEE; 40]);
    let e = assert_bad_input(&g, "garbage.pplog", "offset");
    assert!(e.contains(&format!("{header_end}")), "{e}");
}

#[test]
fn binary_end_that_matches_no_begin_names_the_offset() {
    let header = Header {
        version: pplib::log::binary::VERSION,
        processors: 1,
        clock: "test".to_owned(),
        ..Header::default()
    };
    let mut w = LogWriter::new(Vec::new(), &header).unwrap();
    let mut c = ChunkEncoder::new(ThreadId(0));
    c.event(Nanos(0), &EventKind::SessionBegin);
    c.event(Nanos(5), &EventKind::ParEnd);
    w.chunk(&c).unwrap();
    let b = w.finish().unwrap();
    let e = assert_bad_input(&b, "unmatched.pplog", "byte offset");
    assert!(e.contains("par_end"), "{e}");
}

#[test]
fn binary_time_going_backwards_across_chunks() {
    let header = Header {
        version: pplib::log::binary::VERSION,
        processors: 1,
        clock: "test".to_owned(),
        ..Header::default()
    };
    let mut w = LogWriter::new(Vec::new(), &header).unwrap();
    let mut c = ChunkEncoder::new(ThreadId(0));
    c.event(Nanos(100), &EventKind::SessionBegin);
    w.chunk(&c).unwrap();
    c.reset(ThreadId(0));
    c.event(Nanos(50), &EventKind::SessionEnd);
    w.chunk(&c).unwrap();
    let b = w.finish().unwrap();
    let e = assert_bad_input(&b, "back.pplog", "byte offset");
    assert!(e.contains("backwards"), "{e}");
}

#[test]
fn binary_unknown_event_code_names_its_offset() {
    let mut b = binary_example();
    let header_end = 14 + u32::from_le_bytes(b[10..14].try_into().unwrap()) as usize;
    // First record: CHUNK of thread 0 (type, u32 length, uvarint thread 0, uvarint base 0),
    // then the first event's code.
    assert_eq!(b[header_end], 3, "a CHUNK record comes first");
    let code_at = header_end + 5 + 2;
    b[code_at] = 0x77;
    let e = assert_bad_input(&b, "code.pplog", "unknown event");
    assert!(e.contains(&format!("byte offset {code_at}")), "{e}");
}

#[test]
fn miss_latency_without_counters_says_so() {
    // fragments.pptrace has no counters: the latency has nothing to multiply.
    let o = pp(&[
        "--miss-latency",
        "100",
        fixture("fragments.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--miss-latency has nothing to multiply"),
        "{}",
        stderr(&o)
    );
    // counters.pptrace has llc_misses: without a latency pp says how to get cl ...
    let counters = fixture("counters.pptrace");
    let o = pp(&[counters.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("give --miss-latency NS"),
        "{}",
        stderr(&o)
    );
    // ... and with one it computes cl and says nothing about it.
    let o = pp(&["--miss-latency", "100", counters.to_str().unwrap()]);
    assert!(!stderr(&o).contains("miss-latency"), "{}", stderr(&o));
    assert!(stdout(&o).contains("Communication Loss"), "{}", stdout(&o));
}

#[test]
fn histograms_with_records_is_a_usage_error() {
    // Records have no place for percentiles: refused instead of silently dropped.
    let o = pp(&[
        "-l",
        "--histograms",
        fixture("fragments.pptrace").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `-` is not taken as a file name for the timeline or the plot: the profile goes to the
/// standard output, so the command is refused (usage, exit 2) and no file named `-` is made.
#[test]
fn dash_is_refused_as_timeline_or_plot_file() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--timeline", "--plot"] {
        let o = Command::new(env!("CARGO_BIN_EXE_pp"))
            .current_dir(dir.path())
            .args([flag, "-", fixture("barrier.pptrace").to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("expected a file name"),
            "{}",
            stderr(&o)
        );
        assert!(
            !dir.path().join("-").exists(),
            "{flag} wrote a file named '-'"
        );
    }
}
