//! The `pp` command line's help (with examples) and its usage errors (exit status 2).

mod common;

use common::{fixture, pp, stderr, stdout};

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
fn histograms_with_records_is_a_usage_error() {
    // Records have no place for percentiles: refused instead of silently dropped.
    let o = pp(&[
        "-l",
        "--histograms",
        fixture("fragments.pptrace").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
