//! The `pp-campaign` command line over a tiny program with known profiles, outputs and exit
//! statuses (0 ok, 1 bad input, 2 usage).
//!
//! The program (`SCRIPT`, run by `sh`) writes a hand-made text trace to `$PPLIB_LOG`: a
//! fragment `work` holding one parallel loop of p tasks on p threads, each task taking
//! n µs / p at p = 1 and 1.1 · n µs / p at p > 1 (10% memory loss). So at n = 64, p = 2
//! the session and `work` have rt = tt = 70.4 µs, and with the p = 1 run as baseline
//! pc = 64 µs and ml = 6.4 µs; at p = 1, pc = rt and ml = 0.

use std::process::{Command, Output};

const SCRIPT: &str = r#"p=$PPLIB_PROCESSORS; n=$1
if [ "$p" = 1 ]; then d=$((n*1000)); else d=$((n*1100/p)); fi
echo "done time_s=0.5"
[ -n "$PPLIB_LOG" ] || exit 0
{{ printf 'pptrace 1\nprocessors %s\n0 0 session_begin\n0 0 frag_begin work\n0 0 par_begin\n' $p
  t=0; while [ $t -lt $p ]; do printf '0 %s task_begin\n' $t; t=$((t+1)); done
  t=0; while [ $t -lt $p ]; do printf '%s %s task_end\n' $d $t; t=$((t+1)); done
  printf '%s 0 par_end\n%s 0 frag_end work\n%s 0 session_end\n' $d $d $d; }} > "$PPLIB_LOG""#;

fn campaign(args: &[&str], command: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pp-campaign"))
        .args(args)
        .arg("--")
        .args(command)
        .env_remove("PPLIB_LOG")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn value(line: &str, key: &str) -> Option<f64> {
    line.split(' ')
        .find_map(|t| t.strip_prefix(key)?.strip_prefix('='))
        .map(|v| v.parse().unwrap())
}

/// Every round's progress line on stderr counts the rounds against the most that can run
/// and the points with their quiet repetitions against all points (never a round count
/// over a point count).
#[test]
fn progress_lines_count_rounds_and_points_with_their_quiet_repetitions() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("toy.pp");
    let o = campaign(
        &[
            "--grid",
            "n=64,128",
            "--p",
            "1",
            "--reps",
            "2",
            "--wait",
            "0.1",
            "--wait-budget",
            "1",
            "--time-key",
            "time_s",
            "-o",
            out.to_str().unwrap(),
        ],
        &["sh", "-c", SCRIPT, "toy", "{n}"],
    );
    let stderr = text(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains(" round ")).collect();
    assert!((2..=6).contains(&lines.len()), "{stderr}");
    for (k, line) in lines.iter().enumerate() {
        let said = line.split_once("] ").unwrap().1;
        let (head, tail) = said.split_once(": ").unwrap();
        assert_eq!(head, format!("round {} of at most 6", k + 1), "{stderr}");
        let satisfied: usize = tail.split(' ').next().unwrap().parse().unwrap();
        assert!(satisfied <= 2, "{stderr}");
        let verb = if satisfied == 1 { "has" } else { "have" };
        assert_eq!(
            tail,
            format!("{satisfied} of 2 points {verb} the 2 quiet repetitions asked for"),
            "{stderr}"
        );
    }
}

#[test]
fn a_two_by_two_grid_gives_records_with_the_p1_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("toy.pp");
    let o = campaign(
        &[
            "--grid",
            "n=64,128",
            "--p",
            "1..2",
            "--reps",
            "2",
            "--wait",
            "0.3",
            "--wait-budget",
            "3",
            "--note",
            "impl=toy",
            "--time-key",
            "time_s",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ],
        &["sh", "-c", SCRIPT, "toy", "{n}"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    for label in ["n=64 p=1", "n=64 p=2", "n=128 p=1", "n=128 p=2"] {
        assert!(stdout.contains(label), "{stdout}");
    }
    assert!(stdout.contains("records: "), "{stdout}");
    let records = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = records.lines().filter(|l| !l.starts_with('#')).collect();
    // 4 points x (at least 1 counted repetition: 2 when quiet, fewer where the others
    // were disturbed) x (session + work).
    assert!(
        lines.len() >= 8 && lines.len().is_multiple_of(2),
        "{records}"
    );
    for l in &lines {
        assert!(l.starts_with("impl=toy n="), "{l}");
        assert_eq!(
            value(l, "run_s"),
            Some(0.5),
            "the program's own time_s: {l}"
        );
    }
    let at = |n: &str, p: &str, work: bool| -> Vec<&str> {
        lines
            .iter()
            .copied()
            .filter(|l| {
                l.contains(&format!(" n={n} "))
                    && l.contains(&format!(" p={p} "))
                    && l.contains("tag=work") == work
            })
            .collect()
    };
    for l in at("64", "2", true).into_iter().chain(at("64", "2", false)) {
        assert!((value(l, "rt").unwrap() - 70.4e-6).abs() < 1e-12, "{l}");
        assert!((value(l, "pc").unwrap() - 64e-6).abs() < 1e-12, "{l}");
        assert!((value(l, "ml").unwrap() - 6.4e-6).abs() < 1e-12, "{l}");
    }
    for l in at("128", "1", true) {
        assert_eq!(value(l, "pc"), value(l, "rt"), "{l}");
        assert_eq!(value(l, "ml"), Some(0.0), "{l}");
    }
    // Repetitions are separate records, numbered by their rounds (which rounds were quiet,
    // and so how many count, depends on the machine's other load).
    let sessions = at("128", "2", false);
    let mut rounds: Vec<f64> = sessions.iter().map(|l| value(l, "rep").unwrap()).collect();
    rounds.dedup();
    assert!(
        !sessions.is_empty() && rounds.len() == sessions.len(),
        "{sessions:?}"
    );
    // The logs are gone unless asked for.
    assert!(!dir.path().join("toy.pp.logs").exists());
}

/// A program of `$1` iterations on one thread: `alloc` once (1 µs), then per iteration
/// `step` twice (3 µs each), then 1 µs of teardown: the session takes 2 + 6·it µs.
const LOOP_SCRIPT: &str = r#"it=$1
echo "done time_s=0.5"
[ -n "$PPLIB_LOG" ] || exit 0
exec > "$PPLIB_LOG"
printf 'pptrace 1\nprocessors 1\n0 0 session_begin\n0 0 frag_begin alloc\n1000 0 frag_end alloc\n'
t=1000; i=0
while [ $i -lt $it ]; do
  for s in 1 2; do printf '%s 0 frag_begin step\n%s 0 frag_end step\n' $t $((t+3000)); t=$((t+3000)); done
  i=$((i+1))
done
printf '%s 0 session_end\n' $((t+1000))"#;

/// A record of `LOOP_SCRIPT`'s campaign: it, tag, rt.
type LoopRecord = (u64, Option<String>, f64);

/// The records of a campaign over `LOOP_SCRIPT` at it = 2 and 4 with `extra` options, and
/// its standard output.
fn loop_records(extra: &[&str]) -> (Vec<LoopRecord>, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("loop.pp");
    let mut args = vec![
        "--grid",
        "it=2,4",
        "--p",
        "1",
        "--reps",
        "1",
        "--wait",
        "0.1",
        "--wait-budget",
        "2",
        "--time-key",
        "time_s",
        "-q",
        "-o",
    ];
    let out_s = out.to_str().unwrap().to_string();
    args.push(&out_s);
    args.extend_from_slice(extra);
    let o = campaign(&args, &["sh", "-c", LOOP_SCRIPT, "loop", "{it}"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let file = std::fs::read_to_string(&out).unwrap();
    // The header says how the records were divided.
    assert_eq!(
        file.contains("# per execution (docs/campaigns.md)"),
        extra.contains(&"--per-execution"),
        "{file}"
    );
    let records = file
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let tag = l
                .split(' ')
                .find_map(|t| t.strip_prefix("tag="))
                .map(String::from);
            (value(l, "it").unwrap() as u64, tag, value(l, "rt").unwrap())
        })
        .collect();
    (records, text(&o.stdout))
}

#[test]
fn per_execution_divides_fragments_by_their_runs_and_the_session_by_the_iterations() {
    let near = |a: f64, b: f64| (a - b).abs() < 1e-12;
    let rt_of = |records: &[LoopRecord], it: u64, tag: Option<&str>| {
        let rts: Vec<f64> = records
            .iter()
            .filter(|(i, t, _)| *i == it && t.as_deref() == tag)
            .map(|r| r.2)
            .collect();
        assert!(
            !rts.is_empty(),
            "no record it={it} tag={tag:?}: {records:?}"
        );
        rts
    };
    let (per, _) = loop_records(&["--per-execution", "--iterations", "it"]);
    for it in [2, 4] {
        // alloc ran once, step twice per iteration: one execution each, whatever `it`.
        for rt in rt_of(&per, it, Some("alloc")) {
            assert!(near(rt, 1e-6), "alloc at it={it}: {rt}");
        }
        for rt in rt_of(&per, it, Some("step")) {
            assert!(near(rt, 3e-6), "step at it={it}: {rt}");
        }
        // The session per iteration: (2 + 6 it) µs over it.
        let want = (2.0 + 6.0 * it as f64) * 1e-6 / it as f64;
        for rt in rt_of(&per, it, None) {
            assert!(near(rt, want), "session at it={it}: {rt}, want {want}");
        }
    }
    // Without --iterations the session stays whole; the fragments are per execution.
    let (whole_session, _) = loop_records(&["--per-execution"]);
    for rt in rt_of(&whole_session, 4, None) {
        assert!(near(rt, 26e-6), "{rt}");
    }
    for rt in rt_of(&whole_session, 4, Some("step")) {
        assert!(near(rt, 3e-6), "{rt}");
    }
    // A fixed count divides every point's session alike.
    let (fixed, _) = loop_records(&["--per-execution", "--iterations", "2"]);
    for rt in rt_of(&fixed, 4, None) {
        assert!(near(rt, 13e-6), "{rt}");
    }
    // Per iteration, `step` is its total per iteration (twice 3 µs); a tag no run has is
    // warned about.
    let (per_iteration, stdout) = loop_records(&[
        "--per-execution",
        "--iterations",
        "it",
        "--per-iteration",
        "step,stpe",
    ]);
    for it in [2, 4] {
        for rt in rt_of(&per_iteration, it, Some("step")) {
            assert!(near(rt, 6e-6), "step at it={it}: {rt}");
        }
        for rt in rt_of(&per_iteration, it, Some("alloc")) {
            assert!(near(rt, 1e-6), "alloc at it={it}: {rt}");
        }
    }
    assert!(
        stdout.contains(
            "--per-iteration stpe: no run has a fragment of that tag (the logs' tags: alloc, step)"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("--per-iteration step:"), "{stdout}");
    let (whole, _) = loop_records(&[]);
    for rt in rt_of(&whole, 4, Some("step")) {
        assert!(near(rt, 24e-6), "whole runs: {rt}");
    }
}

#[test]
fn paired_variables_run_their_pairs_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("paired.pp");
    let o = campaign(
        &[
            "--grid",
            "n:it=64:4,128:2",
            "--p",
            "1",
            "--reps",
            "1",
            "--wait",
            "0.1",
            "--wait-budget",
            "2",
            "--time-key",
            "time_s",
            "--per-execution",
            "--iterations",
            "it",
            "-o",
            out.to_str().unwrap(),
        ],
        &["sh", "-c", LOOP_SCRIPT, "loop", "{it}", "{n}"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(!stdout.contains("n=64 it=2"), "{stdout}");
    assert!(!stdout.contains("not in the command"), "{stdout}");
    let file = std::fs::read_to_string(&out).unwrap();
    let sessions: Vec<(f64, f64, f64)> = file
        .lines()
        .filter(|l| !l.starts_with('#') && !l.contains("tag="))
        .map(|l| {
            let v = |k| value(l, k).unwrap();
            (v("n"), v("it"), v("rt"))
        })
        .collect();
    // Two points, each its own pair; the session per iteration: (2 + 6 it) µs over it.
    let mut pairs: Vec<(f64, f64)> = sessions.iter().map(|s| (s.0, s.1)).collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    pairs.dedup();
    assert_eq!(pairs, [(64.0, 4.0), (128.0, 2.0)], "{file}");
    for (_, it, rt) in sessions {
        assert!((rt - (2.0 + 6.0 * it) * 1e-6 / it).abs() < 1e-12, "{file}");
    }
}

/// A parallel loop of 4 tasks, each running fragment `leaf` for 1 µs, task k on thread
/// k mod p starting at (k div p) · 2 µs: at p = 1 the 4 runs of `leaf` follow each other
/// (4 executions), at p = 2 they run in overlapping pairs (2 executions).
const TASKS_SCRIPT: &str = r#"p=$PPLIB_PROCESSORS
echo "done time_s=0.5"
[ -n "$PPLIB_LOG" ] || exit 0
exec > "$PPLIB_LOG"
printf 'pptrace 1\nprocessors %s\n0 0 session_begin\n0 0 par_begin\n' $p
k=0; last=0
while [ $k -lt 4 ]; do
  th=$((k % p)); t=$(( (k / p) * 2000 )); last=$((t+1000))
  printf '%s %s task_begin\n%s %s frag_begin leaf\n' $t $th $t $th
  printf '%s %s frag_end leaf\n%s %s task_end\n' $last $th $last $th
  k=$((k+1))
done
printf '%s 0 par_end\n%s 0 session_end\n' $last $last"#;

#[test]
fn per_execution_warns_about_a_fragment_with_fewer_executions_at_p_above_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tasks.pp");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--grid",
            "n=8",
            "--p",
            "1,2",
            "--reps",
            "1",
            "--wait",
            "0.1",
            "--wait-budget",
            "2",
            "--time-key",
            "time_s",
            "-q",
            "-o",
            out.to_str().unwrap(),
            "--per-execution",
        ];
        args.extend_from_slice(extra);
        let o = campaign(&args, &["sh", "-c", TASKS_SCRIPT, "tasks", "{n}"]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let warned = run(&[]);
    assert!(
        warned.contains(
            "n=8 p=2: fragment leaf has 2 executions against 4 at n=8 p=1: runs that overlap"
        ),
        "{warned}"
    );
    assert!(warned.contains("--per-iteration leaf"), "{warned}");
    // Divided by the iterations at every p, it is not warned about.
    let named = run(&["--per-iteration", "leaf"]);
    assert!(!named.contains("fragment leaf has"), "{named}");
}

#[test]
fn json_summary_has_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("toy.pp");
    let logs = dir.path().join("logs");
    let o = campaign(
        &[
            "--grid",
            "n=8",
            "--p",
            "1,2",
            "--reps",
            "1",
            "--wait",
            "0.1",
            "--json",
            "-q",
            "--keep-logs",
            "--logs",
            logs.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        &["sh", "-c", SCRIPT, "toy", "{n}"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let pts = v["points"].as_array().unwrap();
    assert_eq!(pts.len(), 2);
    for key in [
        "label", "values", "p", "reps", "quiet", "counted", "kept_s", "median_s", "spread",
    ] {
        assert!(pts[0].get(key).is_some(), "{key}: {v}");
    }
    assert_eq!(pts[1]["values"]["n"], "8");
    assert_eq!(pts[1]["p"], 2);
    assert!(v["records"].as_u64().unwrap() >= 4);
    for key in [
        "load_before",
        "load_after",
        "waited_s",
        "busy_windows",
        "probed",
    ] {
        assert!(v["load"].get(key).is_some(), "{key}: {v}");
    }
    assert!(v["warnings"].is_array());
    assert!(
        std::fs::read_dir(&logs).unwrap().count() >= 2,
        "--keep-logs keeps them"
    );
}

#[test]
fn usage_errors_exit_2_and_bad_runs_exit_1() {
    let usage = [
        (vec!["--grid", "n=4..1"], vec!["prog", "{n}"], "n=4..1"),
        (vec!["--grid", "n=1"], vec!["prog", "{m}"], "{m}"),
        (vec!["--p", "0"], vec!["prog"], "processor count"),
        (vec!["--grid", "p=1"], vec!["prog"], "p has its own list"),
        (vec!["--note", "rep=1"], vec!["prog"], "--note"),
        (vec!["--reps", "0"], vec!["prog"], "--reps"),
        (vec!["--iterations", "4"], vec!["prog"], "--per-execution"),
        (
            vec!["--per-iteration", "a"],
            vec!["prog"],
            "--per-execution",
        ),
        (
            vec!["--grid", "n=1", "--per-execution", "--iterations", "k"],
            vec!["prog", "{n}"],
            "--iterations: expected a grid variable (n) or a whole number, found k",
        ),
        (
            vec!["--grid", "it=2,x", "--per-execution", "--iterations", "it"],
            vec!["prog", "{it}"],
            "whole number of at least 1, found x",
        ),
        (
            vec!["--per-execution", "--iterations", "0"],
            vec!["prog"],
            "--iterations",
        ),
    ];
    for (args, cmd, says) in usage {
        let o = campaign(&args, &cmd);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(says),
            "{args:?}: {}",
            text(&o.stderr)
        );
    }
    let o = Command::new(env!("CARGO_BIN_EXE_pp-campaign"))
        .args(["--grid", "n=1"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "no command");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.pp");
    let o = campaign(
        &[
            "--p",
            "1",
            "--reps",
            "1",
            "--wait",
            "0",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ],
        &["sh", "-c", "echo 'no such input' >&2; exit 4"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("no such input"),
        "{}",
        text(&o.stderr)
    );
    // A program that writes no log: pp cannot profile it.
    let o = campaign(
        &[
            "--p",
            "1",
            "--reps",
            "1",
            "--wait",
            "0",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ],
        &["true"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
}

/// Clap turns `{n}` in help text into a line break; the examples must show it as written
/// (and the line continued with `\\` must end with it), in the short and the long help.
#[test]
fn help_shows_examples_with_their_placeholders_as_written() {
    for flag in ["--help", "-h"] {
        let o = Command::new(env!("CARGO_BIN_EXE_pp-campaign"))
            .arg(flag)
            .output()
            .unwrap();
        assert!(o.status.success());
        let help = text(&o.stdout);
        assert!(
            help.contains("Examples:") && help.contains("-- ./fft2d -n {size} -p {p}"),
            "{help}"
        );
        assert!(
            help.contains("-- ./fft2d -n {n} --iters {iters} -p {p}\n"),
            "{flag}: {help}"
        );
        assert!(help.contains("--per-execution \\\n"), "{flag}: {help}");
        assert!(
            help.contains("--grid n:iters=256:40,512:10"),
            "{flag}: {help}"
        );
        assert!(!help.contains('\x1b'), "{flag}: escape codes in piped help");
        // a placeholder turned into a line break leaves the words before it ending in a space
        for line in help.lines() {
            assert!(!line.ends_with(' '), "{flag}: broken line '{line}'");
        }
    }
}

/// Every run copies `fixtures/preempted.pptrace` (one thread, 1 involuntary context switch
/// in 20 ms of Busy time: 50 per Busy second, os 0.33% of tt): pp warns about each run on
/// its own, the campaign once for all of them, and `--json` keeps each run's finding.
#[test]
fn preempted_runs_are_one_warning_line_and_each_a_json_entry() {
    let trace =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/preempted.pptrace");
    let script = format!("cat '{}' > \"$PPLIB_LOG\"; echo done", trace.display());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("toy.pp");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--grid", "n=1,2", "--p", "1", "--reps", "3", "--wait", "0.1", "-q", "-o",
        ];
        args.push(out.to_str().unwrap());
        args.extend(extra);
        let o = campaign(&args, &["sh", "-c", &script, "toy", "{n}"]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        o
    };
    let shown = text(&run(&[]).stdout);
    let switch_lines: Vec<&str> = shown
        .lines()
        .filter(|l| l.contains("involuntary") || l.contains("preempted"))
        .collect();
    assert_eq!(switch_lines.len(), 1, "{shown}");
    let line = switch_lines[0];
    assert!(line.starts_with("warning: "), "{line}");
    let runs: usize = line["warning: ".len()..]
        .split(' ')
        .next()
        .and_then(|k| k.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(
        line.contains(&format!(
            "{runs} of {runs} profiled runs had their Busy threads preempted"
        )),
        "{line}"
    );
    assert!(line.contains("0 of them count as disturbed"), "{line}");
    let v: serde_json::Value = serde_json::from_slice(&run(&["--json"]).stdout).unwrap();
    let per_run = v["run_warnings"].as_array().unwrap();
    assert!(per_run.len() >= 2, "{v}");
    for w in per_run {
        assert_eq!(w["check"], "switches", "{w}");
        assert_eq!(w["value"], 50.0, "{w}");
        assert_eq!(w["disturbed"], false, "{w}");
        for key in [
            "point", "p", "round", "limit", "os_share", "quiet", "message",
        ] {
            assert!(w.get(key).is_some(), "{key}: {w}");
        }
    }
    let aggregated = v["warnings"].as_array().unwrap();
    let switch_warnings = aggregated
        .iter()
        .filter(|w| w.as_str().is_some_and(|s| s.contains("preempted")))
        .count();
    assert_eq!(switch_warnings, 1, "{v}");
}
