//! Profile records of a campaign (docs/records.md): every counted repetition of every point
//! profiled by pp (the session and every fragment), with `pc` and `ml` from the p = 1
//! point of the same variables as baseline ([`crate::Analysis::apply_baseline`], what
//! `pp --baseline` does), one record per profile and repetition.
//!
//! A record's note is the point's variables, `rep=K` (the repetition's round) and
//! `run_s=S` (its timed seconds), then pp's own tokens: `n=64 rep=0 run_s=0.0132 tag=cols
//! p=2 li=...`. Repetitions stay separate records: `lca` takes the median of the records of
//! one configuration. The baseline of a point is the median repetition of its p = 1 point
//! (by timed seconds, the upper middle one of an even count); a p = 1 repetition is its
//! own baseline (`pc` = `rt`, `ml` = 0). Per execution ([`super::per_execution`]), every
//! profile's record is divided by the times it ran (the session's by the run's iterations),
//! and a fragment whose executions at p > 1 differ from its p = 1 point's is warned about
//! ([`super::execution_counts`]).

use std::collections::BTreeMap;
use std::path::Path;

use super::execution_counts::execution_count_warnings;
use super::grid::Point;
use super::per_execution::{per_execution_records, PerExecution, RunDivision};
use super::rounds::{PointTimes, Repetition};
use super::run_warnings::{RunAt, RunWarning, RunWarnings};
use super::CampaignError;
use crate::analysis::{analyze, Analysis, Options};
use crate::record::format_seconds;

/// The records of a campaign and what pp warned about on the way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Records {
    /// Record lines, points in grid order, repetitions in round order.
    pub lines: Vec<String>,
    /// pp's warnings, each prefixed by its point, then one line per kind of the checks
    /// every run gets ([`RunWarnings::lines`]).
    pub warnings: Vec<String>,
    /// Those checks' findings, run by run.
    pub run_warnings: Vec<RunWarning>,
}

/// Profiles the counted repetitions of every point (`times[i]` of `points[i]`, logs still
/// on disk) and writes their records, `note` tokens first; with `per_execution`, per
/// execution ([`lines_of`]).
pub fn records(
    points: &[Point],
    times: &[PointTimes],
    note: &[String],
    per_execution: Option<&PerExecution>,
) -> Result<Records, CampaignError> {
    let mut out = Records::default();
    let mut baselines: BTreeMap<Vec<(String, String)>, Analysis> = BTreeMap::new();
    // p = 1 points first: they are the baselines of the others.
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| points[i].p != 1);
    let mut per_point: Vec<Vec<String>> = vec![Vec::new(); points.len()];
    let mut seen: std::collections::BTreeSet<String> = Default::default();
    let cores = std::thread::available_parallelism().ok().map(|n| n.get());
    let mut checks = RunWarnings::on_cores(cores);
    for i in order {
        let (point, t) = (&points[i], &times[i]);
        let division = per_execution.map(|d| d.at(point)).transpose()?;
        let baseline = baselines.get(&point.values).cloned();
        if point.p != 1 && baseline.is_none() {
            out.warnings.push(format!(
                "{}: no p = 1 point of the same variables: its records have no pc and ml",
                point.label()
            ));
        }
        let mut analyses = Vec::new();
        let mut pp_warnings = Vec::new();
        for rep in t.counted() {
            let Some(log) = &rep.log else { continue };
            let mut a = analyze(log, &Options::all_tags())?;
            let base = if point.p == 1 {
                Some(a.clone())
            } else {
                baseline.clone()
            };
            if let Some(b) = &base {
                a.apply_baseline(b);
            }
            // Disturbance and the recording's cost are told once for the campaign (below).
            let label = point.label();
            let at = RunAt {
                point: &label,
                p: point.p,
                round: Some(rep.round),
                quiet: rep.foreign.map(|_| rep.quiet),
            };
            for w in checks.add(&a, at) {
                pp_warnings.push(format!("{label}: round {}: {w}", rep.round));
            }
            per_point[i].extend(lines_of(&a, &note_of(note, point, rep), division.as_ref()));
            seen.extend(a.profiles.iter().filter_map(|pr| pr.tag.clone()));
            analyses.push((rep.seconds, a));
        }
        out.warnings.extend(first_warnings(pp_warnings, point));
        if let (Some(d), Some(b), true) = (per_execution, &baseline, point.p != 1) {
            let reps: Vec<&Analysis> = analyses.iter().map(|(_, a)| a).collect();
            out.warnings.extend(execution_count_warnings(
                point,
                &reps,
                &point.at_one(),
                b,
                &d.per_iteration,
            ));
        }
        if point.p == 1 {
            if let Some(median) = median_analysis(analyses) {
                baselines.insert(point.values.clone(), median);
            }
        }
    }
    out.warnings.extend(checks.lines());
    out.run_warnings = checks.warnings;
    out.lines = per_point.into_iter().flatten().collect();
    for tag in per_execution.map_or(&[][..], |d| &d.per_iteration[..]) {
        if !seen.contains(tag) {
            out.warnings.push(format!(
                "--per-iteration {tag}: no run has a fragment of that tag (the logs' tags: {})",
                seen.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    Ok(out)
}

/// The record lines of one repetition's analysis: as `pp -l` writes them, or per execution
/// in a run divided as `per_execution` ([`per_execution_records`]: every fragment's amounts
/// divided by the times it ran, the session's by the iterations).
pub fn lines_of(a: &Analysis, note: &[String], per_execution: Option<&RunDivision>) -> Vec<String> {
    match per_execution {
        None => a.record_lines(note),
        Some(run) => per_execution_records(a, note, run)
            .iter()
            .map(|r| r.to_string())
            .collect(),
    }
}

/// Most of pp's other warnings shown per point (one that every repetition gets would
/// otherwise repeat as often).
pub const WARNINGS_PER_POINT: usize = 2;

/// The first [`WARNINGS_PER_POINT`] of `warnings`, and how many more there were.
fn first_warnings(mut warnings: Vec<String>, point: &Point) -> Vec<String> {
    let more = warnings.len().saturating_sub(WARNINGS_PER_POINT);
    warnings.truncate(WARNINGS_PER_POINT);
    if more > 0 {
        warnings.push(format!(
            "{}: {more} more pp warning(s) about its repetitions (run pp on a kept log to see them: --keep-logs)",
            point.label()
        ));
    }
    warnings
}

/// The keys a campaign writes into every record for its own bookkeeping: the repetition's
/// round (`rep`) and its timed seconds (`run_s`). They are no variables of the program:
/// records that differ only in them are repetitions of one point.
pub const BOOKKEEPING_KEYS: [&str; 2] = ["rep", "run_s"];

/// The note of a repetition's records: `note`, the point's variables, `rep=`, `run_s=`.
pub fn note_of(note: &[String], point: &Point, rep: &Repetition) -> Vec<String> {
    let mut n: Vec<String> = note.to_vec();
    n.extend(point.values.iter().map(|(k, v)| format!("{k}={v}")));
    n.push(format!("rep={}", rep.round));
    n.push(format!("run_s={}", format_seconds(rep.seconds)));
    n
}

/// The analysis of the median repetition by seconds (upper middle of an even count).
fn median_analysis(mut reps: Vec<(f64, Analysis)>) -> Option<Analysis> {
    reps.sort_by(|a, b| a.0.total_cmp(&b.0));
    let k = reps.len() / 2;
    reps.into_iter().nth(k).map(|(_, a)| a)
}

/// Writes `records` to `path` under a comment header that says how they were made.
pub fn write_records(path: &Path, header: &str, records: &Records) -> std::io::Result<()> {
    let mut text = String::new();
    for line in header.lines() {
        text.push_str("# ");
        text.push_str(line);
        text.push('\n');
    }
    for line in &records.lines {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point() -> Point {
        Point {
            values: vec![("n".into(), "64".into())],
            p: 2,
        }
    }

    #[test]
    fn lines_are_whole_or_per_execution() {
        // One thread: `alloc` twice (1 ms each), then 2 iterations of `work` twice (2 ms
        // each): 10 ms in all.
        let text = "pptrace 1\nprocessors 1\n0 0 session_begin\n\
            0 0 frag_begin alloc\n1000000 0 frag_end alloc\n\
            1000000 0 frag_begin alloc\n2000000 0 frag_end alloc\n\
            2000000 0 frag_begin work\n4000000 0 frag_end work\n\
            4000000 0 frag_begin work\n6000000 0 frag_end work\n\
            6000000 0 frag_begin work\n8000000 0 frag_end work\n\
            8000000 0 frag_begin work\n10000000 0 frag_end work\n\
            10000000 0 session_end\n";
        let a = crate::analyze_bytes(text.as_bytes().to_vec(), "t.pptrace", &Options::all_tags())
            .expect("a valid trace");
        let note = vec!["n=1".to_string()];
        let rt = |lines: &[String], tag: Option<&str>| -> f64 {
            let line = lines
                .iter()
                .find(|l| match tag {
                    Some(t) => l.contains(&format!("tag={t} ")),
                    None => !l.contains("tag="),
                })
                .expect("a record of the profile");
            let v = line.split(' ').find_map(|t| t.strip_prefix("rt=")).unwrap();
            v.parse().unwrap()
        };
        let per = lines_of(&a, &note, Some(&RunDivision::iterations(2)));
        assert!((rt(&per, Some("alloc")) - 0.001).abs() < 1e-12, "{per:?}");
        assert!((rt(&per, Some("work")) - 0.002).abs() < 1e-12, "{per:?}");
        assert!((rt(&per, None) - 0.005).abs() < 1e-12, "{per:?}");
        // Whole runs otherwise, as `pp -l` writes them.
        let whole = lines_of(&a, &note, None);
        assert_eq!(whole, a.record_lines(&note));
        assert!(
            (rt(&whole, Some("work")) - 0.008).abs() < 1e-12,
            "{whole:?}"
        );
        assert!((rt(&whole, None) - 0.010).abs() < 1e-12, "{whole:?}");
    }

    #[test]
    fn at_most_two_pp_warnings_per_point_and_a_count_of_the_rest() {
        let ws: Vec<String> = (0..5).map(|i| format!("w{i}")).collect();
        let shown = first_warnings(ws, &point());
        assert_eq!(shown.len(), 3);
        assert_eq!(shown[..2], ["w0", "w1"]);
        assert!(shown[2].starts_with("n=64 p=2: 3 more"), "{shown:?}");
        assert_eq!(first_warnings(vec!["w".into()], &point()), ["w"]);
    }

    /// Two repetitions of a point whose recordings took 3.4 % and 6.8 % of tt (the
    /// `dense_recording.pptrace` fixture at its stated 20 ns an event, then at 40): pp
    /// warns about each, the campaign once, naming the worst; its records are unchanged.
    #[test]
    fn a_costly_recording_is_warned_about_once_per_campaign_with_the_worst_run() {
        let dense = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dense_recording.pptrace"),
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut reps = Vec::new();
        for (round, ns) in [(0, "20"), (1, "40")] {
            let log = dir.path().join(format!("r{round}.pptrace"));
            let text = dense.replace("event_cost_ns 20", &format!("event_cost_ns {ns}"));
            std::fs::write(&log, text).unwrap();
            reps.push(Repetition {
                round,
                seconds: 1e-5,
                foreign: None,
                quiet: true,
                log: Some(log),
            });
        }
        let point = Point {
            values: vec![("n".into(), "64".into())],
            p: 2,
        };
        let recs = records(&[point], &[PointTimes { reps }], &[], None).unwrap();
        // The other warning: this point has no p = 1 point, so no baseline.
        let costly: Vec<&String> = recs
            .warnings
            .iter()
            .filter(|w| w.contains("recording"))
            .collect();
        assert_eq!(costly.len(), 1, "{:?}", recs.warnings);
        assert_eq!(recs.warnings.len(), 2, "{:?}", recs.warnings);
        let w = costly[0];
        assert!(
            w.starts_with(
                "2 of 2 profiled runs spent more than 2% of tt recording; the worst, n=64 p=2 \
                 round 1: the recording itself took 6.80% of tt (34 events at ~40.00 ns each"
            ),
            "{w}"
        );
        assert_eq!(recs.lines.len(), 2);
        assert!(
            recs.lines.iter().all(|l| l.ends_with(" tt=2e-5")),
            "{:?}",
            recs.lines
        );
    }

    #[test]
    fn notes_carry_variables_round_and_seconds() {
        let rep = Repetition {
            round: 3,
            seconds: 0.0125,
            foreign: None,
            quiet: true,
            log: None,
        };
        assert_eq!(
            note_of(&["impl=dp".into()], &point(), &rep),
            ["impl=dp", "n=64", "rep=3", "run_s=0.0125"]
        );
    }
}
