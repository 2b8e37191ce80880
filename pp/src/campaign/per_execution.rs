//! Records per execution (docs/campaigns.md, "Records per execution"): a repetition's
//! amounts divided by the number of times each profile ran in it, so that the models `lca`
//! fits from them are per execution, as `lcm` counts the fragments of a loop.
//!
//! - A **fragment**'s record is divided by its executions (pp's `executions`: the intervals
//!   of the union of its runs on all threads), whatever runs it: a fragment run once per
//!   iteration of the program's loop is divided by the iterations, one run twice before the
//!   loop by 2, one run once per group of a loop of groups inside every iteration by
//!   iterations × groups.
//! - A fragment named **per iteration** ([`PerExecution::per_iteration`]) is divided by the
//!   run's iterations instead: one whose number of executions per iteration depends on the
//!   input (a loop over a varying number of groups), whose mean execution would be a
//!   ratio of two functions of the input that fits poorly. Its record is its total per
//!   iteration; its source says so with `// lcm: iterations = EXPR` in the fragment's
//!   annotation block (its models are totals over that many executions).
//! - The **session** runs once per run. Its record is divided by the run's
//!   [`Iterations`]: the trip count of the program's outermost loop, which a log does not
//!   show and pp is told (a grid variable or a fixed count). It is then the run's amounts
//!   per iteration, everything outside the loop (setup, teardown) spread over the
//!   iterations, on the same scale as the fragments run once per iteration. With 1
//!   iteration it stays whole.

use super::grid::{Grid, Point};
use super::CampaignError;
use crate::analysis::Analysis;
use crate::profile::Profile;
use crate::ProfileRecord;

/// How a campaign's records are divided per execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerExecution {
    /// The runs' iterations (the session's divisor).
    pub iterations: Iterations,
    /// Fragments divided by the iterations instead of their executions.
    pub per_iteration: Vec<String>,
}

impl PerExecution {
    /// Every fragment per execution, the session per `iterations`.
    pub fn new(iterations: Iterations) -> PerExecution {
        PerExecution {
            iterations,
            per_iteration: Vec::new(),
        }
    }

    /// How the runs at `point` are divided.
    pub fn at(&self, point: &Point) -> Result<RunDivision, CampaignError> {
        Ok(RunDivision {
            iterations: self.iterations.at(point)?,
            per_iteration: self.per_iteration.clone(),
        })
    }
}

/// How one run's records are divided per execution ([`executions_per_run`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDivision {
    /// The run's iterations: the session's divisor, and that of the `per_iteration`
    /// fragments.
    pub iterations: u64,
    /// Fragments divided by the iterations instead of their executions.
    pub per_iteration: Vec<String>,
}

impl RunDivision {
    /// A run of `iterations` iterations, every fragment per execution.
    pub fn iterations(iterations: u64) -> RunDivision {
        RunDivision {
            iterations,
            per_iteration: Vec::new(),
        }
    }
}

/// The iterations of a run: what the session record is divided by per execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Iterations {
    /// The same count at every point (1: the session record stays whole).
    Count(u64),
    /// The value of this grid variable at each point (a whole number, at least 1).
    Variable(String),
}

impl Iterations {
    /// `text` as `pp-campaign --iterations` reads it: a whole number of at least 1, or the
    /// name of a grid variable.
    pub fn parse(text: &str) -> Result<Iterations, CampaignError> {
        let text = text.trim();
        if text.bytes().all(|b| b.is_ascii_digit()) && !text.is_empty() {
            return match text.parse::<u64>() {
                Ok(k) if k >= 1 => Ok(Iterations::Count(k)),
                _ => Err(CampaignError::Usage(format!(
                    "--iterations: expected a whole number of at least 1 or a grid variable, found {text}"
                ))),
            };
        }
        let is_name =
            !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !is_name {
            return Err(CampaignError::Usage(format!(
                "--iterations: expected a whole number of at least 1 or a grid variable \
                 (ASCII letters, digits, _), found '{text}'"
            )));
        }
        Ok(Iterations::Variable(text.to_string()))
    }

    /// Checks that every point of `grid` has iterations: a variable must be one of the
    /// grid's, every value of it a whole number of at least 1.
    pub fn check(&self, grid: &Grid) -> Result<(), CampaignError> {
        match self {
            Iterations::Count(0) => Err(CampaignError::Usage(
                "--iterations: expected at least 1, found 0".into(),
            )),
            Iterations::Count(_) => Ok(()),
            Iterations::Variable(name) => {
                let Some(values) = grid.values_of(name) else {
                    let known: Vec<&str> = grid.variables().collect();
                    let known = if known.is_empty() {
                        "the grid has none".to_string()
                    } else {
                        known.join(", ")
                    };
                    return Err(CampaignError::Usage(format!(
                        "--iterations: expected a grid variable ({known}) or a whole number, found {name}"
                    )));
                };
                values
                    .iter()
                    .try_for_each(|v| count_of(name, v).map(|_| ()))
            }
        }
    }

    /// What the session's record is divided by, in words (`the point's iters`, `4`).
    pub fn describe(&self) -> String {
        match self {
            Iterations::Count(k) => k.to_string(),
            Iterations::Variable(name) => format!("the point's {name}"),
        }
    }

    /// The iterations at `point`.
    pub fn at(&self, point: &Point) -> Result<u64, CampaignError> {
        match self {
            Iterations::Count(k) => Ok(*k),
            Iterations::Variable(name) => {
                let value = point.get(name).ok_or_else(|| {
                    CampaignError::Usage(format!(
                        "--iterations: point {} has no variable {name}",
                        point.label()
                    ))
                })?;
                count_of(name, &value)
            }
        }
    }
}

/// A variable's value as a count of iterations.
fn count_of(name: &str, value: &str) -> Result<u64, CampaignError> {
    match value.parse::<u64>() {
        Ok(k) if k >= 1 => Ok(k),
        _ => Err(CampaignError::Usage(format!(
            "--iterations {name}: expected every value of {name} to be a whole number of at \
             least 1, found {value}"
        ))),
    }
}

/// What `profile`'s amounts are divided by per execution in a run divided as `run`: a
/// fragment's executions (a fragment that never opened stays whole), a per-iteration
/// fragment's and the session's iterations (at least 1).
pub fn executions_per_run(profile: &Profile, run: &RunDivision) -> u64 {
    match (&profile.tag, profile.executions) {
        (Some(tag), _) if run.per_iteration.contains(tag) => run.iterations.max(1),
        (Some(_), Some(k)) => k.max(1),
        (Some(_), None) => 1,
        (None, _) => run.iterations.max(1),
    }
}

/// The records per execution of one repetition's analysis `a` in a run divided as `run`,
/// `note` tokens first: every profile's record divided by [`executions_per_run`]; the
/// proportions between categories, `p` and the note stay.
pub fn per_execution_records(
    a: &Analysis,
    note: &[String],
    run: &RunDivision,
) -> Vec<ProfileRecord> {
    a.profiles
        .iter()
        .zip(a.records(note))
        .map(|(profile, r)| r.divided(executions_per_run(profile, run)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Options;

    /// One thread, p = 1, a program of 3 iterations: `alloc` twice before the loop (1 ms
    /// each), then per iteration `init` once (2 ms) and `step` twice (0.5 ms each), then
    /// 1 ms of teardown. Session: 2 + 6 + 3 + 1 = 12 ms.
    const TRACE: &str = "pptrace 1\nprocessors 1\n0 0 session_begin\n\
        0 0 frag_begin alloc\n1000000 0 frag_end alloc\n\
        1000000 0 frag_begin alloc\n2000000 0 frag_end alloc\n\
        2000000 0 frag_begin init\n4000000 0 frag_end init\n\
        4000000 0 frag_begin step\n4500000 0 frag_end step\n\
        4500000 0 frag_begin step\n5000000 0 frag_end step\n\
        5000000 0 frag_begin init\n7000000 0 frag_end init\n\
        7000000 0 frag_begin step\n7500000 0 frag_end step\n\
        7500000 0 frag_begin step\n8000000 0 frag_end step\n\
        8000000 0 frag_begin init\n10000000 0 frag_end init\n\
        10000000 0 frag_begin step\n10500000 0 frag_end step\n\
        10500000 0 frag_begin step\n11000000 0 frag_end step\n\
        12000000 0 session_end\n";

    fn analysis() -> Analysis {
        crate::analyze_bytes(TRACE.as_bytes().to_vec(), "t.pptrace", &Options::all_tags())
            .expect("a valid trace")
    }

    fn rt(records: &[ProfileRecord], tag: Option<&str>) -> f64 {
        let r = records
            .iter()
            .find(|r| r.tag.as_deref() == tag)
            .expect("a record of the profile");
        r.categories
            .iter()
            .find(|(c, _)| *c == crate::Category::Rt)
            .expect("rt")
            .1
    }

    #[test]
    fn fragments_by_their_executions_the_session_by_the_iterations() {
        let a = analysis();
        let note = vec!["n=1".to_string()];
        let per = per_execution_records(&a, &note, &RunDivision::iterations(3));
        let near = |x: f64, want: f64| (x - want).abs() < 1e-12;
        assert!(near(rt(&per, Some("alloc")), 0.001), "{per:?}");
        assert!(near(rt(&per, Some("init")), 0.002), "{per:?}");
        // Twice per iteration: per execution, not per iteration (1 ms).
        assert!(near(rt(&per, Some("step")), 0.0005), "{per:?}");
        // The session per iteration: the whole run (12 ms) over 3 iterations.
        assert!(near(rt(&per, None), 0.004), "{per:?}");
        // Told 1 iteration, the session stays whole; the fragments do not change.
        let one = per_execution_records(&a, &note, &RunDivision::iterations(1));
        assert!(near(rt(&one, None), 0.012), "{one:?}");
        assert!(near(rt(&one, Some("step")), 0.0005), "{one:?}");
        // Note and p stay as they were.
        assert!(per
            .iter()
            .all(|r| r.processors == 1 && r.note == one[0].note));
        // Named per iteration, `step` is its total per iteration (twice 0.5 ms).
        let run = RunDivision {
            iterations: 3,
            per_iteration: vec!["step".into()],
        };
        let per_iteration = per_execution_records(&a, &note, &run);
        assert!(
            near(rt(&per_iteration, Some("step")), 0.001),
            "{per_iteration:?}"
        );
        assert!(
            near(rt(&per_iteration, Some("alloc")), 0.001),
            "{per_iteration:?}"
        );
        assert!(near(rt(&per_iteration, None), 0.004), "{per_iteration:?}");
    }

    #[test]
    fn divisors_are_the_executions_and_the_iterations() {
        let a = analysis();
        let div = |tag: Option<&str>| {
            let pr = a.profiles.iter().find(|p| p.tag.as_deref() == tag).unwrap();
            executions_per_run(pr, &RunDivision::iterations(3))
        };
        assert_eq!(div(Some("alloc")), 2);
        assert_eq!(div(Some("init")), 3);
        assert_eq!(div(Some("step")), 6);
        assert_eq!(div(None), 3);
        let none = RunDivision::iterations(0);
        assert_eq!(executions_per_run(a.session(), &none), 1, "never by 0");
    }

    fn grid(axes: &[&str]) -> Grid {
        let axes: Vec<String> = axes.iter().map(|s| s.to_string()).collect();
        Grid::parse(&axes, "1,2").unwrap()
    }

    #[test]
    fn iterations_are_a_count_or_a_grid_variable_of_whole_numbers() {
        assert_eq!(Iterations::parse("10").unwrap(), Iterations::Count(10));
        assert_eq!(
            Iterations::parse("iters").unwrap(),
            Iterations::Variable("iters".into())
        );
        for bad in ["0", "", "a b", "n=3", "-1"] {
            let e = Iterations::parse(bad).unwrap_err().to_string();
            assert!(e.starts_with("--iterations: expected"), "{bad}: {e}");
        }
        let g = grid(&["n=64,128", "iters=10,20"]);
        let it = Iterations::Variable("iters".into());
        it.check(&g).unwrap();
        let points = g.points();
        let counts: Vec<u64> = points.iter().map(|p| it.at(p).unwrap()).collect();
        assert!(counts.contains(&10) && counts.contains(&20), "{counts:?}");
        assert_eq!(Iterations::Count(7).at(&points[0]).unwrap(), 7);
        assert_eq!(it.describe(), "the point's iters");
        assert_eq!(Iterations::Count(7).describe(), "7");
        let e = Iterations::Variable("k".into()).check(&g).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--iterations: expected a grid variable (n, iters) or a whole number, found k"
        );
        let e = it.check(&grid(&["iters=10,many"])).unwrap_err();
        assert!(e.to_string().ends_with("found many"), "{e}");
        let e = it.check(&grid(&["iters=0..2"])).unwrap_err();
        assert!(e.to_string().ends_with("found 0"), "{e}");
    }
}
