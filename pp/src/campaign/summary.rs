//! What a campaign tells its user: per point, its repetitions and times; for the campaign,
//! how quiet the machine was. Text for people ([`Summary::text`]) and JSON
//! ([`Summary::to_json`]).
//!
//! JSON fields: `points` (array, grid order) of `{label, values` (object: variable →
//! value text)`, p, reps` (recorded repetitions)`, quiet` (quiet ones)`, counted`
//! (repetitions written as records)`, kept_s` (fastest counted seconds)`, median_s`
//! (median counted seconds)`, spread` ((median − fastest) / fastest)`}`; `records` (record
//! lines written); `load`: `{load_before, load_after` ([1, 5, 15]-minute load averages or
//! null)`, waited_s` (seconds the gate slept waiting for quiet, at most the wait budget)`,
//! busy_windows` (windows of 100 ms, the last of a wait cut shorter, found busy)`, probed` (whether other load could be measured)`}`; `warnings` (strings: pp's checks of
//! every profiled run one line per kind); `run_warnings` (array: those checks' findings run
//! by run, `{check` (`"os"`, `"switches"` or `"recording"`)`, point` (label)`, p, round,
//! value` (`os`/`tt`, switches per Busy second, or the recording's share of `tt`)`, limit`
//! (the limit it passed)`, disturbed` (whether pp counts the run disturbed)`, os_share`
//! (`os`/`tt` or null)`, quiet` (the gate's verdict, null where not measured)`, message`
//! (pp's warning about the run)`}`).

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
    /// (median − fastest) / fastest.
    pub spread: f64,
}

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
    /// The summary of `times[i]` of `points[i]`.
    pub fn of(
        points: &[Point],
        times: &[PointTimes],
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
        let loud: Vec<&str> = points
            .iter()
            .filter(|p| p.quiet == 0)
            .map(|p| p.label.as_str())
            .collect();
        if load.probed && !loud.is_empty() {
            warnings.push(format!(
                "no quiet repetition at {}: all of their repetitions were kept",
                loud.join(", ")
            ));
        }
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
            s.push_str(&format!(
                "{:<width$} {:>5} {:>5} {:>12.6} {:>12.6} {:>7.1}%\n",
                p.label,
                p.quiet,
                p.reps,
                p.kept_s,
                p.median_s,
                100.0 * p.spread
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
