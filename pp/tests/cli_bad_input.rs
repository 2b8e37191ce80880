//! The `pp` command line on bad input, text and binary: exit status 1 and a one-line error
//! message that names the file and the line or byte offset.

mod common;

use pplib::log::binary::{ChunkEncoder, LogWriter};
use pplib::log::{EventKind, Header, Nanos, ThreadId};

use common::{binary_example, pp, stderr, stdout, write_temp};

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
