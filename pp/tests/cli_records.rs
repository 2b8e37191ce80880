//! The `pp` command line's records (`-l`): the note, the fragments selected, the baseline's
//! categories, where the log is found, and the same record from a text and a binary log.

mod common;

use std::process::Command;

use common::{binary_example, fixture, pp, stderr, stdout, write_temp};

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
