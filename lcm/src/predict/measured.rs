//! The measured run times that `lcm compare --times-a/--times-b` compares a version's
//! prediction with: the session records of a profile-records file (docs/records.md), as
//! `pp -l` or `pp-campaign` wrote them, grouped into measured points.
//!
//! # What a measured point is
//! A session record (no `tag=`) with `tt` gives one run's wall-clock seconds, `tt / p`.
//! Its numeric keys are the point's variables, except the categories and parts and the
//! keys pp-campaign writes for its own bookkeeping ([`CAMPAIGN_KEYS`]: the repetition's
//! round `rep` and its timed seconds `run_s`). Records with the same variables are one
//! point: its time is their median, its spread the interquartile range over the median
//! from four runs on ((max − min) / median for two or three runs).
//!
//! # Records per execution
//! `pp-campaign --per-execution --iterations VAR|N` divides each run's session record by
//! the run's iterations and says so in the file's `#` header (a line
//! `# per execution (docs/campaigns.md): … the session's … over the point's VAR`, or
//! `over N`; `pp::campaign::header` writes and reads it). `lcm` predicts the whole run (the fragments composed from `--entry`, the
//! loop of `// lcm: iterations = VAR` included), so such a record is multiplied back by
//! its iterations before it is compared: the point's time is the whole run's. The
//! iteration variable stays a variable of the prediction (the prediction at `iters = 8`
//! runs 8 iterations) but is no distance between points ([`MeasuredPoint::distance_to`]):
//! a trip count is not a size. A file of several campaigns concatenated keeps each
//! section's header: a header line `# pp-campaign records …` starts a section (whole runs
//! until a `# per execution` line says otherwise).
//!
//! ```
//! use lcm::predict::measured::measured_points;
//! let text = concat!(
//!     "# pp-campaign records (docs/records.md): ./sort -n {n} --iters {iters}\n",
//!     "# per execution (docs/campaigns.md): each fragment's amounts over its executions, ",
//!     "the session's over the point's iters\n",
//!     "n=64 iters=4 rep=0 run_s=0.9 p=1 tt=0.25\n",
//!     "n=64 iters=4 rep=1 run_s=1.1 p=1 tt=0.27\n",
//! );
//! let m = measured_points("s.pp", text, &[]).unwrap();
//! assert_eq!(m.len(), 1); // rep and run_s are no variables: one point
//! assert!((m[0].measured_s - 1.04).abs() < 1e-12); // median 0.26 per iteration, x 4
//! assert_eq!(m[0].iterations_variable.as_deref(), Some("iters"));
//! ```

use super::error::PredictError;
use lca::expr::Bindings;
use serde::Serialize;

pub use pp::campaign::header::SessionDivision;
pub use pp::campaign::records::BOOKKEEPING_KEYS as CAMPAIGN_KEYS;

/// A point where a version was measured: its variables, the median of its measured run
/// times there and how many records gave them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredPoint {
    /// The record's numeric keys (`p` and the user's notes such as `n`), without the
    /// categories and [`CAMPAIGN_KEYS`].
    pub bindings: Bindings,
    /// Median wall-clock seconds of one whole run at these bindings: `tt / p`, times the
    /// iterations for records per execution.
    pub measured_s: f64,
    /// Records at these bindings.
    pub runs: usize,
    /// The run-to-run spread of their times over their median: the interquartile range from
    /// four runs on, max − min for two or three; `None` for one run.
    pub spread: Option<f64>,
    /// 1-based lines of those records.
    pub lines: Vec<usize>,
    /// What each record's `tt / p` was multiplied by: the iterations its session was
    /// divided by (records per execution), 1 for whole runs.
    pub iterations: f64,
    /// The variable that counts the iterations (the header's `the point's NAME`): no
    /// distance between points. Left out of JSON when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations_variable: Option<String>,
}

impl MeasuredPoint {
    /// The distance from compared point `x` ([`super::compare::distance`]) over the
    /// variables both have, the iteration variable left out.
    pub fn distance_to(&self, x: &Bindings) -> Option<f64> {
        match &self.iterations_variable {
            None => super::compare::distance(x, &self.bindings),
            Some(v) => {
                let mut b = self.bindings.clone();
                b.remove(v);
                super::compare::distance(x, &b)
            }
        }
    }
}

/// Whether record key `k` is no variable of a measured point.
fn not_binding(k: &str) -> bool {
    k == "tag"
        || CAMPAIGN_KEYS.contains(&k)
        || lca::record::CATEGORY_KEYS.contains(&k)
        || lca::record::PART_KEYS.iter().any(|(part, _)| *part == k)
}

/// The divisions of `text`'s sections: (first line, division), in order of lines.
fn sections(
    text: &str,
    bad: &dyn Fn(usize, String) -> PredictError,
) -> Result<Vec<(usize, SessionDivision)>, PredictError> {
    let mut out = vec![(1, SessionDivision::Whole)];
    for (i, line) in text.lines().enumerate() {
        if !line.trim_start().starts_with('#') {
            continue;
        }
        match pp::campaign::header::division_of(line) {
            Some(Ok(d)) => out.push((i + 1, d)),
            Some(Err(m)) => return Err(bad(i + 1, m)),
            None => {}
        }
    }
    Ok(out)
}

/// A record's iterations under `division` (declared on line `header`).
fn iterations_of(
    r: &lca::record::Record,
    division: &SessionDivision,
    header: usize,
) -> Result<f64, String> {
    match division {
        SessionDivision::Whole => Ok(1.0),
        SessionDivision::Count(k) => Ok(*k as f64),
        SessionDivision::Variable(v) => match r.get(v).map(|x| x.parse::<f64>()) {
            Some(Ok(k)) if k >= 1.0 && k.fract() == 0.0 => Ok(k),
            found => Err(format!(
                "the header on line {header} says the session records are divided by the point's {v}: expected `{v}=COUNT` (a whole number of at least 1) in this record, found {}",
                match found {
                    None => "none".to_string(),
                    Some(_) => format!("`{v}={}`", r.get(v).unwrap_or_default()),
                }
            )),
        },
    }
}

/// The measured points of a file of profile records (docs/records.md) as `pp -l` or
/// `pp-campaign` write them, or the file `lca` fitted: the session records (no `tag=`)
/// with `tt` that match every extraction of `selects` (`lca -x` expressions such as
/// `impl=dp`), grouped by their numeric keys (categories and [`CAMPAIGN_KEYS`] aside)
/// with the median time of each group, records per execution multiplied back by their
/// iterations (see the module docs). Text keys must agree among the selected records (a
/// file of several versions needs a selection); errors name `file` and the line.
pub fn measured_points(
    file: &str,
    text: &str,
    selects: &[&str],
) -> Result<Vec<MeasuredPoint>, PredictError> {
    let bad = |line: usize, message: String| PredictError::Structure {
        file: file.to_string(),
        line,
        message,
    };
    let records = lca::record::parse_records(text).map_err(|e| bad(e.line(), e.to_string()))?;
    let selects = selects
        .iter()
        .map(|s| {
            lca::extraction::Extraction::parse(s)
                .map_err(|e| PredictError::Usage(format!("--times-where `{s}`: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sections = sections(text, &bad)?;
    let mut groups: Vec<Group> = Vec::new();
    let mut texts: Vec<(String, String, usize)> = Vec::new();
    for r in records.iter().filter(|r| r.tag().is_none()) {
        if selects.iter().any(|x| !x.matches(r)) {
            continue;
        }
        let Some(t) = r
            .category("time")
            .map_err(|e| bad(r.line(), e.to_string()))?
        else {
            continue;
        };
        let (header, division) = sections
            .iter()
            .rev()
            .find(|(l, _)| *l <= r.line())
            .cloned()
            .unwrap_or((1, SessionDivision::Whole));
        let k = iterations_of(r, &division, header).map_err(|m| bad(r.line(), m))?;
        let b = record_bindings(r, &mut texts, &bad)?;
        let variable = match &division {
            SessionDivision::Variable(v) => Some(v.clone()),
            _ => None,
        };
        match groups.iter_mut().find(|g| g.bindings == b) {
            Some(g) => {
                g.times.push(t * k);
                g.lines.push(r.line());
                g.iterations.push(k);
            }
            None => groups.push(Group {
                bindings: b,
                times: vec![t * k],
                lines: vec![r.line()],
                iterations: vec![k],
                variable,
            }),
        }
    }
    if groups.is_empty() {
        return Err(bad(
            1,
            "expected session records (no `tag=`) with `tt`, selected by --times-where if given; found none".into(),
        ));
    }
    Ok(groups.into_iter().map(Group::point).collect())
}

/// A selected session record's numeric keys as bindings (categories and
/// [`CAMPAIGN_KEYS`] aside). Its text keys must agree with those of the records before it
/// (`texts`: key, value and the line that first gave it); the first of each is added.
fn record_bindings(
    r: &lca::record::Record,
    texts: &mut Vec<(String, String, usize)>,
    bad: &dyn Fn(usize, String) -> PredictError,
) -> Result<Bindings, PredictError> {
    let mut b = Bindings::new();
    for (key, v) in r.fields() {
        if not_binding(key) {
            continue;
        }
        match v.parse::<f64>() {
            Ok(x) if x.is_finite() => {
                b.insert(key.clone(), x);
            }
            _ => match texts.iter().find(|(tk, _, _)| tk == key) {
                Some((_, tv, l)) if tv != v => {
                    return Err(bad(
                        r.line(),
                        format!(
                            "expected the records of one version, found `{key}={v}` here and `{key}={tv}` on line {l}: select one with --times-where {key}={v} (or --times-where-a / --times-where-b per file)"
                        ),
                    ))
                }
                Some(_) => {}
                None => texts.push((key.clone(), v.clone(), r.line())),
            },
        }
    }
    Ok(b)
}

/// The records of one measured point as they are read.
struct Group {
    bindings: Bindings,
    times: Vec<f64>,
    lines: Vec<usize>,
    iterations: Vec<f64>,
    variable: Option<String>,
}

impl Group {
    fn point(self) -> MeasuredPoint {
        let mut ts = self.times;
        ts.sort_by(f64::total_cmp);
        let k = ts.len();
        let median = if k % 2 == 1 {
            ts[k / 2]
        } else {
            (ts[k / 2 - 1] + ts[k / 2]) / 2.0
        };
        let spread =
            (k > 1 && median > 0.0).then(|| lca::policy::misfit::spread_width(&ts) / median);
        // Records of one point share their variables, the iteration variable included;
        // a count from the header may differ between sections: the largest is shown.
        let iterations = self.iterations.iter().cloned().fold(1.0, f64::max);
        MeasuredPoint {
            bindings: self.bindings,
            measured_s: median,
            runs: k,
            spread,
            lines: self.lines,
            iterations,
            iterations_variable: self.variable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point_of(times: &[f64]) -> MeasuredPoint {
        let text: String = times.iter().map(|t| format!("n=64 p=1 tt={t}\n")).collect();
        let mut points = measured_points("runs.pp", &text, &[]).expect("the records parse");
        assert_eq!(points.len(), 1);
        points.remove(0)
    }

    #[test]
    fn spread_is_the_range_below_four_runs() {
        let p = point_of(&[1.0, 1.2, 1.1]);
        assert!((p.spread.unwrap() - 0.2 / 1.1).abs() < 1e-12);
        assert_eq!(point_of(&[1.0]).spread, None);
    }

    #[test]
    fn two_slowed_runs_of_nine_do_not_set_the_spread() {
        // Seven runs within 4 % and two a disturbance slowed 1.9x: the range would read
        // 90 %, the interquartile range reads the middle half.
        let p = point_of(&[1.00, 1.01, 1.02, 1.02, 1.03, 1.03, 1.04, 1.9, 1.9]);
        let s = p.spread.unwrap();
        assert!(s < 0.05, "{s}");
        assert!((p.measured_s - 1.03).abs() < 1e-12);
        // Quartiles interpolated between order statistics: 1.02 and 1.04 here.
        assert!((s - 0.02 / 1.03).abs() < 1e-12, "{s}");
    }
}
