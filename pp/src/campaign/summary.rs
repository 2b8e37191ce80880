//! What a campaign tells its user: per point, its repetitions and times; for the campaign,
//! how quiet the machine was. Text for people ([`Summary::text`]) and JSON
//! ([`Summary::to_json`]).
//!
//! JSON fields: `points` (array, grid order) of `{label, values` (object: variable →
//! value text)`, p, reps` (recorded repetitions)`, quiet` (quiet ones)`, counted`
//! (repetitions written as records)`, kept_s` (fastest counted seconds)`, median_s`
//! (median counted seconds)`, spread` ((median − fastest) / fastest; null with fewer than
//! two counted repetitions: not measured)`}`; `records` (record lines written); `load`:
//! `{load_before, load_after` ([1, 5, 15]-minute load averages or null)`, waited_s`
//! (seconds the gate slept waiting for quiet, at most the wait budget)`, busy_windows`
//! (windows of 100 ms, the last of a wait cut shorter, found busy)`, probed` (whether other
//! load could be measured)`}`; `warnings` (strings: the text's `warning:` lines, among
//! them points short of quiet repetitions, points whose spread passes [`SPREAD_LIMIT`],
//! and pp's checks of every profiled run one line per kind); `run_warnings` (array: those
//! checks' findings run by run, `{check` (`"os"`, `"switches"` or `"recording"`)`, point`
//! (label)`, p, round, value` (`os`/`tt`, switches per Busy second, or the recording's
//! share of `tt`)`, limit` (the limit it passed)`, disturbed` (whether pp counts the run
//! disturbed)`, os_share` (`os`/`tt` or null)`, quiet` (the gate's verdict, null where not
//! measured)`, message` (pp's warning about the run)`}`).

use serde::Serialize;
use std::collections::BTreeMap;

use super::grid::Point;
use super::rounds::PointTimes;
use super::run_warnings::RunWarning;

/// How busy the machine was during a campaign.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadConditions {
    /// Load averages (1, 5, 15 minutes) before the first repetition.
    pub load_before: Option<(f64, f64, f64)>,
    /// Load averages after the last one.
    pub load_after: Option<(f64, f64, f64)>,
    /// Seconds the gate slept waiting for quiet (at most the wait budget).
    #[serde(rename = "waited_s")]
    pub waited: f64,
    /// Windows (100 ms, the last of a wait cut shorter) found busy while waiting.
    pub busy_windows: usize,
    /// Whether other load could be measured (Linux `/proc`).
    pub probed: bool,
}

/// One point's line of the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PointSummary {
    /// `n=64 p=2`.
    pub label: String,
    /// Variable values.
    pub values: BTreeMap<String, String>,
    /// Processors.
    pub p: usize,
    /// Recorded repetitions.
    pub reps: usize,
    /// Quiet repetitions.
    pub quiet: usize,
    /// Repetitions that count (written as records).
    pub counted: usize,
    /// Fastest counted seconds.
    pub kept_s: f64,
    /// Median counted seconds.
    pub median_s: f64,
    /// (median − fastest) / fastest; `None` (JSON null) with fewer than
    /// [`SPREAD_RUNS`](super::rounds::SPREAD_RUNS) counted repetitions: not
    /// measured.
    pub spread: Option<f64>,
}

/// A point's time is **uncertain** when its counted repetitions' median is more than this
/// share above their fastest: 10 %, twice the 5 % run-to-run spread of a run time on a
/// quiet machine that `lcm compare` assumes (its default uncertainty). `lca` fits the
/// median of a point's records, so a model there is off by up to the spread, more than
/// lcm's comparisons allow for (docs/campaigns.md, "Output").
pub const SPREAD_LIMIT: f64 = 0.10;

/// The summary of a campaign.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Per point.
    pub points: Vec<PointSummary>,
    /// Record lines written.
    pub records: usize,
    /// Machine load.
    pub load: LoadConditions,
    /// Warnings (pp's checks of every run one line per kind).
    pub warnings: Vec<String>,
    /// pp's checks of every run, run by run (what the warnings count).
    pub run_warnings: Vec<RunWarning>,
}

impl Summary {
    /// The summary of `times[i]` of `points[i]`, `wanted` quiet repetitions asked for per
    /// point; `warnings` first, then the quiet gate's (points with no or too few quiet
    /// repetitions) and the spread's (points whose spread passes [`SPREAD_LIMIT`]).
    pub fn of(
        points: &[Point],
        times: &[PointTimes],
        wanted: usize,
        records: usize,
        load: LoadConditions,
        mut warnings: Vec<String>,
    ) -> Summary {
        let points: Vec<PointSummary> = points
            .iter()
            .zip(times)
            .map(|(pt, t)| PointSummary {
                label: pt.label(),
                values: pt.values.iter().cloned().collect(),
                p: pt.p,
                reps: t.reps.len(),
                quiet: t.quiet(),
                counted: t.counted().len(),
                kept_s: t.kept().seconds,
                median_s: t.median(),
                spread: t.spread(),
            })
            .collect();
        if load.probed {
            warnings.extend(quiet_warnings(&points, wanted));
        }
        warnings.extend(spread_warning(&points));
        Summary {
            points,
            records,
            load,
            warnings,
            run_warnings: Vec::new(),
        }
    }

    /// The summary as a table, load line and warnings (one `warning:` line each).
    pub fn text(&self) -> String {
        let width = self
            .points
            .iter()
            .map(|p| p.label.len())
            .max()
            .unwrap_or(5)
            .max(5);
        let mut s = format!(
            "{:<width$} {:>5} {:>5} {:>12} {:>12} {:>8}\n",
            "point", "quiet", "reps", "fastest s", "median s", "spread"
        );
        for p in &self.points {
            // A spread from one run is not measured: `-`, never a precise-looking 0.0%.
            let spread = p
                .spread
                .map_or("-".to_string(), |x| format!("{:.1}%", 100.0 * x));
            s.push_str(&format!(
                "{:<width$} {:>5} {:>5} {:>12.6} {:>12.6} {:>8}\n",
                p.label, p.quiet, p.reps, p.kept_s, p.median_s, spread
            ));
        }
        let la =
            |l: Option<(f64, f64, f64)>| l.map_or("?".to_string(), |(a, _, _)| format!("{a:.2}"));
        let quiet: usize = self.points.iter().map(|p| p.quiet).sum();
        let reps: usize = self.points.iter().map(|p| p.reps).sum();
        s.push_str(&format!(
            "load: average {} before, {} after; {quiet}/{reps} repetitions quiet{}; waited {:.1} s for other load\n",
            la(self.load.load_before),
            la(self.load.load_after),
            if self.load.probed { "" } else { " (other load not measurable here: all counted)" },
            self.load.waited
        ));
        for w in &self.warnings {
            s.push_str(&format!("warning: {w}\n"));
        }
        s
    }

    /// The summary as JSON (fields in the module docs).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

/// The quiet gate's warnings, where other load was measured: points without a quiet
/// repetition (all of theirs counted), and points with some but fewer than `wanted` (the
/// rounds ran out first), each with how many were quiet of how many wanted.
fn quiet_warnings(points: &[PointSummary], wanted: usize) -> Vec<String> {
    let mut out = Vec::new();
    let loud: Vec<&str> = points
        .iter()
        .filter(|p| p.quiet == 0)
        .map(|p| p.label.as_str())
        .collect();
    if !loud.is_empty() {
        out.push(format!(
            "no quiet repetition at {}: all of their repetitions were kept",
            loud.join(", ")
        ));
    }
    let short: Vec<String> = points
        .iter()
        .filter(|p| p.quiet > 0 && p.quiet < wanted)
        .map(|p| format!("{} ({} of {wanted})", p.label, p.quiet))
        .collect();
    if !short.is_empty() {
        let rounds = points.iter().map(|p| p.reps).max().unwrap_or(0);
        out.push(format!(
            "fewer quiet repetitions than the {wanted} asked for at {}: the campaign stopped \
             after {rounds} rounds, and other load disturbed the rest, so their times rest \
             on fewer runs; measure on a quieter machine or raise --most",
            short.join(", ")
        ));
    }
    out
}

/// One warning for the points whose time is uncertain: their counted repetitions spread
/// more than [`SPREAD_LIMIT`], each with its spread and how many runs it comes from.
fn spread_warning(points: &[PointSummary]) -> Option<String> {
    let wide: Vec<String> = points
        .iter()
        .filter_map(|p| {
            let spread = p.spread.filter(|&x| x > SPREAD_LIMIT)?;
            Some(format!(
                "{} by {:.1}% ({} runs)",
                p.label,
                100.0 * spread,
                p.counted
            ))
        })
        .collect();
    (!wide.is_empty()).then(|| {
        format!(
            "times uncertain at {}: the median of their counted repetitions is more than \
             {:.0}% above the fastest, and lca fits the median; measure on a quieter machine",
            wide.join(", "),
            100.0 * SPREAD_LIMIT
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::rounds::Repetition;

    fn point(n: &str, p: usize) -> Point {
        Point {
            values: vec![("n".to_string(), n.to_string())],
            p,
        }
    }

    /// A point's repetitions: (seconds, quiet) in round order.
    fn times(reps: &[(f64, bool)]) -> PointTimes {
        PointTimes {
            reps: reps
                .iter()
                .enumerate()
                .map(|(round, &(seconds, quiet))| Repetition {
                    round,
                    seconds,
                    foreign: Some(if quiet { 0.0 } else { 0.5 }),
                    quiet,
                    log: None,
                })
                .collect(),
        }
    }

    fn load(probed: bool) -> LoadConditions {
        LoadConditions {
            load_before: Some((1.5, 1.0, 0.5)),
            load_after: Some((1.25, 1.0, 0.5)),
            waited: 12.5,
            busy_windows: 40,
            probed,
        }
    }

    /// Five quiet repetitions asked for; 6 rounds ran. n=256 p=1 has them all, close
    /// together; n=256 p=2 one quiet only; n=512 p=1 none; n=512 p=2 all five, spread 50%.
    fn campaign(probed: bool) -> Summary {
        let points = [
            point("256", 1),
            point("256", 2),
            point("512", 1),
            point("512", 2),
        ];
        let all_quiet = |s: [f64; 6]| times(&s.map(|x| (x, true)));
        let times = [
            all_quiet([0.100, 0.101, 0.102, 0.103, 0.104, 0.105]),
            times(&[
                (0.2, false),
                (0.06, true),
                (0.3, false),
                (0.2, false),
                (0.2, false),
                (0.2, false),
            ]),
            times(&[(0.4, false), (0.5, false), (0.6, false)].repeat(2)),
            times(&[
                (0.1, true),
                (0.15, true),
                (0.16, true),
                (0.17, true),
                (0.9, false),
                (0.18, true),
            ]),
        ];
        Summary::of(&points, &times, 5, 48, load(probed), vec!["first".into()])
    }

    #[test]
    fn points_short_of_quiet_repetitions_are_warned_about_with_their_counts() {
        let s = campaign(true);
        let short: Vec<&String> = s
            .warnings
            .iter()
            .filter(|w| w.starts_with("fewer quiet"))
            .collect();
        assert_eq!(short.len(), 1, "{:?}", s.warnings);
        assert!(
            short[0].starts_with(
                "fewer quiet repetitions than the 5 asked for at n=256 p=2 (1 of 5): \
                 the campaign stopped after 6 rounds"
            ),
            "{}",
            short[0]
        );
        // The point without a quiet repetition has its own warning, not this one.
        assert!(!short[0].contains("n=512 p=1"));
        assert!(s
            .warnings
            .iter()
            .any(|w| w == "no quiet repetition at n=512 p=1: all of their repetitions were kept"));
        assert_eq!(s.warnings[0], "first", "the caller's warnings come first");
    }

    #[test]
    fn where_other_load_is_not_measured_nothing_is_short_of_quiet() {
        let s = campaign(false);
        assert!(
            !s.warnings.iter().any(|w| w.contains("quiet repetition")),
            "{:?}",
            s.warnings
        );
    }

    #[test]
    fn a_spread_from_one_run_is_not_measured() {
        let s = campaign(true);
        let one = &s.points[1];
        assert_eq!((one.quiet, one.counted, one.spread), (1, 1, None));
        let row = s.text().lines().nth(2).unwrap().to_string();
        assert!(row.starts_with("n=256 p=2") && row.ends_with(" -"), "{row}");
        assert!(!row.contains('%'), "{row}");
        let json: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
        assert!(json["points"][1]["spread"].is_null(), "{json}");
        assert!(json["points"][0]["spread"].is_number(), "{json}");
    }

    #[test]
    fn points_that_spread_past_the_limit_are_uncertain_by_their_spread() {
        let s = campaign(true);
        let wide: Vec<&String> = s
            .warnings
            .iter()
            .filter(|w| w.starts_with("times uncertain"))
            .collect();
        // n=512 p=2: median 0.16 over fastest 0.1; n=512 p=1 (no quiet one: all six
        // count) median 0.5 over 0.4. n=256 p=1 spreads 3%, under the limit.
        assert_eq!(
            wide,
            [
                "times uncertain at n=512 p=1 by 25.0% (6 runs), n=512 p=2 by 60.0% (5 runs): \
                 the median of their counted repetitions is more than 10% above the fastest, \
                 and lca fits the median; measure on a quieter machine"
            ]
        );
        assert!(s.warnings.iter().all(|w| !w.contains("n=256 p=1")));
    }

    #[test]
    fn summary_text() {
        insta::assert_snapshot!(campaign(true).text());
    }
}
