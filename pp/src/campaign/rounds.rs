//! Times every point of a campaign round robin ([`super::schedule`]) behind the
//! quiet-machine gate ([`super::gate`]): during every repetition the other load on the
//! machine is measured; a repetition is quiet when it stayed below
//! [`super::load::QUIET_SHARE`]; after a disturbed one the gate waits for quiet before
//! going on. Each point keeps its quiet repetitions (all of them when none was quiet: on a
//! machine that is never quiet, or where the load cannot be read).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::gate::Gate;
use super::load::{is_quiet, LoadSource};
use super::runner::{PointRunner, RunError};
use super::schedule::{round_order, Repeats};

/// One recorded repetition of a point.
#[derive(Clone, Debug, PartialEq)]
pub struct Repetition {
    /// Round it ran in (0-based, warm-up not counted).
    pub round: usize,
    /// Timed seconds.
    pub seconds: f64,
    /// Other load's share of the machine while it ran (None: not measurable).
    pub foreign: Option<f64>,
    /// Whether it counts as quiet.
    pub quiet: bool,
    /// Its pplib log, while it is kept (see [`KeepLogs`]).
    pub log: Option<PathBuf>,
}

/// Which repetitions' logs stay on disk after the campaign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepLogs {
    /// Those of the counted repetitions (quiet ones; all when none was quiet).
    Counted,
    /// Only the kept repetition's ([`PointTimes::kept`]).
    Kept,
}

/// The repetitions of one point.
#[derive(Clone, Debug, PartialEq)]
pub struct PointTimes {
    /// Every recorded repetition, in the order run.
    pub reps: Vec<Repetition>,
}

impl PointTimes {
    /// The repetitions that count: the quiet ones, or all when none was quiet.
    pub fn counted(&self) -> Vec<&Repetition> {
        let quiet: Vec<&Repetition> = self.reps.iter().filter(|r| r.quiet).collect();
        if quiet.is_empty() {
            self.reps.iter().collect()
        } else {
            quiet
        }
    }

    /// Quiet repetitions.
    pub fn quiet(&self) -> usize {
        self.reps.iter().filter(|r| r.quiet).count()
    }

    /// Index (in `reps`) of the kept repetition: the fastest counted one.
    pub fn kept_index(&self) -> usize {
        kept_of(&self.reps).unwrap_or(0)
    }

    /// The kept repetition: the fastest counted one (other load only ever makes a run
    /// slower).
    pub fn kept(&self) -> &Repetition {
        &self.reps[self.kept_index()]
    }

    /// Counted seconds, sorted.
    pub fn sorted_seconds(&self) -> Vec<f64> {
        let mut s: Vec<f64> = self.counted().iter().map(|r| r.seconds).collect();
        s.sort_by(f64::total_cmp);
        s
    }

    /// Median of the counted seconds (the upper middle one for an even count).
    pub fn median(&self) -> f64 {
        let s = self.sorted_seconds();
        s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
    }

    /// Third-fastest counted seconds (the slowest when fewer than three).
    pub fn third(&self) -> f64 {
        let s = self.sorted_seconds();
        s.get(s.len().min(3).saturating_sub(1))
            .copied()
            .unwrap_or(f64::NAN)
    }

    /// (median − fastest) / fastest of the counted repetitions: how much they spread.
    /// `None` with fewer than [`SPREAD_RUNS`] counted: one run measures no spread (its
    /// median is its fastest), and 0 would look like a precise time.
    pub fn spread(&self) -> Option<f64> {
        if self.counted().len() < SPREAD_RUNS {
            return None;
        }
        let kept = self.kept().seconds;
        Some((self.median() - kept) / kept)
    }
}

/// Fewest counted repetitions whose spread ([`PointTimes::spread`]) is measured.
pub const SPREAD_RUNS: usize = 2;

/// Where a campaign stands after a round: what its progress line says
/// ([`RoundDone::line`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundDone {
    /// Rounds done (1 after the first recorded round).
    pub round: usize,
    /// The most rounds that can run ([`Repeats::most_rounds`]); fewer run once every
    /// point has its quiet repetitions.
    pub most: usize,
    /// Points in the campaign.
    pub points: usize,
    /// Points with at least `wanted` quiet repetitions so far.
    pub satisfied: usize,
    /// Quiet repetitions wanted per point.
    pub wanted: usize,
}

impl RoundDone {
    /// `round 7 of at most 15: 4 of 6 points have the 5 quiet repetitions asked for`.
    /// Rounds go on past `wanted` while some point lacks quiet repetitions, so the
    /// round is counted against the most rounds, and the points against all points.
    pub fn line(&self) -> String {
        let RoundDone {
            round,
            most,
            points,
            satisfied,
            wanted,
        } = *self;
        let have = if satisfied == 1 { "has" } else { "have" };
        let reps = if wanted == 1 {
            "repetition"
        } else {
            "repetitions"
        };
        format!(
            "round {round} of at most {most}: {satisfied} of {points} points {have} the \
             {wanted} quiet {reps} asked for"
        )
    }
}

/// The fastest quiet repetition's index, else the fastest's.
fn kept_of(reps: &[Repetition]) -> Option<usize> {
    let any_quiet = reps.iter().any(|r| r.quiet);
    reps.iter()
        .enumerate()
        .filter(|(_, r)| r.quiet || !any_quiet)
        .min_by(|a, b| a.1.seconds.total_cmp(&b.1.seconds))
        .map(|(i, _)| i)
}

/// Times every point of `points` with `runner`, as the module docs say. Every recorded
/// repetition logs into `dir` (`LABEL-rROUND.pplog`); `keep` says which logs remain.
/// `progress` is told after every round (rounds done); [`time_round_robin_reporting`]
/// tells it how many points have their quiet repetitions as well.
pub fn time_round_robin<R: PointRunner, S: LoadSource>(
    points: &[R::Point],
    runner: &mut R,
    repeats: &Repeats,
    gate: &mut Gate<S>,
    dir: &Path,
    keep: KeepLogs,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<PointTimes>, RunError> {
    let mut rounds = |done: &RoundDone| progress(done.round);
    time_round_robin_reporting(points, runner, repeats, gate, dir, keep, &mut rounds)
}

/// [`time_round_robin`], telling `progress` after every round where the campaign stands
/// ([`RoundDone`]).
pub fn time_round_robin_reporting<R: PointRunner, S: LoadSource>(
    points: &[R::Point],
    runner: &mut R,
    repeats: &Repeats,
    gate: &mut Gate<S>,
    dir: &Path,
    keep: KeepLogs,
    progress: &mut dyn FnMut(&RoundDone),
) -> Result<Vec<PointTimes>, RunError> {
    let mut times: Vec<PointTimes> = points
        .iter()
        .map(|_| PointTimes { reps: Vec::new() })
        .collect();
    gate.wait_quiet(repeats.wait);
    for _ in 0..repeats.warmup {
        for pt in points {
            runner.run(pt, None)?;
        }
    }
    let started = Instant::now();
    let mut round = 0;
    loop {
        let quiet: Vec<usize> = times.iter().map(PointTimes::quiet).collect();
        if !repeats.another_round(round, started.elapsed(), &quiet) {
            break;
        }
        for i in round_order(points.len(), round) {
            let log = dir.join(format!("{}-r{round}.pplog", runner.label(&points[i])));
            let probe = gate.probe();
            let seconds = runner.run(&points[i], Some(&log))?;
            let foreign = gate.share_since(&probe);
            let rep = Repetition {
                round,
                seconds,
                foreign,
                quiet: is_quiet(foreign),
                log: Some(log),
            };
            let disturbed = !rep.quiet;
            times[i].reps.push(rep);
            if keep == KeepLogs::Kept {
                drop_all_logs_but_kept(&mut times[i]);
            }
            if disturbed {
                gate.wait_quiet(repeats.wait / 3);
            }
        }
        round += 1;
        progress(&RoundDone {
            round,
            most: repeats.most_rounds(),
            points: points.len(),
            satisfied: times.iter().filter(|t| t.quiet() >= repeats.quiet).count(),
            wanted: repeats.quiet,
        });
        gate.wait_quiet(repeats.wait / 3);
    }
    if keep == KeepLogs::Counted {
        for t in &mut times {
            drop_uncounted_logs(t);
        }
    }
    Ok(times)
}

fn remove_log(rep: &mut Repetition) {
    if let Some(log) = rep.log.take() {
        let _ = std::fs::remove_file(log);
    }
}

fn drop_all_logs_but_kept(t: &mut PointTimes) {
    let kept = t.kept_index();
    for (i, r) in t.reps.iter_mut().enumerate() {
        if i != kept {
            remove_log(r);
        }
    }
}

fn drop_uncounted_logs(t: &mut PointTimes) {
    let any_quiet = t.reps.iter().any(|r| r.quiet);
    for r in &mut t.reps {
        if any_quiet && !r.quiet {
            remove_log(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::gate::tests::Scripted;
    use std::time::Duration;

    /// Runs nothing: records the order, writes an empty log, and advances the scripted
    /// machine by one step (whose other load the script says).
    struct Recorder<'a> {
        order: Vec<(usize, bool)>,
        gate_steps: &'a std::cell::Cell<usize>,
    }

    impl PointRunner for Recorder<'_> {
        type Point = usize;
        fn label(&self, p: &usize) -> String {
            format!("pt{p}")
        }
        fn run(&mut self, p: &usize, log: Option<&Path>) -> Result<f64, RunError> {
            self.order.push((*p, log.is_some()));
            if let Some(l) = log {
                std::fs::write(l, b"").unwrap();
            }
            self.gate_steps.set(self.gate_steps.get() + 1);
            Ok(1.0 + *p as f64 + 0.01 * self.order.len() as f64)
        }
    }

    #[test]
    fn warm_up_then_round_robin_alternating() {
        let dir = tempfile::tempdir().unwrap();
        let steps = std::cell::Cell::new(0);
        let mut r = Recorder {
            order: Vec::new(),
            gate_steps: &steps,
        };
        let mut gate = Gate::with_source(Scripted::new(&[0.0]), Duration::from_secs(1));
        let mut rounds = Vec::new();
        let t = time_round_robin(
            &[0, 1, 2],
            &mut r,
            &Repeats::new(2),
            &mut gate,
            dir.path(),
            KeepLogs::Counted,
            &mut |k| rounds.push(k),
        )
        .unwrap();
        let order: Vec<usize> = r.order.iter().map(|x| x.0).collect();
        assert_eq!(order, [0, 1, 2, 0, 1, 2, 2, 1, 0]);
        assert!(r.order[..3].iter().all(|x| !x.1), "warm-up unrecorded");
        assert!(r.order[3..].iter().all(|x| x.1));
        assert_eq!(rounds, [1, 2]);
        assert!(t.iter().all(|p| p.reps.len() == 2 && p.quiet() == 2));
        // Every counted log stays.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 6);
    }

    /// A runner whose repetitions run while the scripted machine is busy or not: the
    /// machine's counters advance during the run by the script's next share.
    struct Loaded {
        machine: std::rc::Rc<std::cell::RefCell<Scripted>>,
    }

    struct Shared(std::rc::Rc<std::cell::RefCell<Scripted>>);

    impl LoadSource for Shared {
        fn sample(&mut self) -> Option<crate::campaign::load::Sample> {
            self.0.borrow_mut().sample()
        }
        fn pause(&mut self, d: Duration) -> Duration {
            // Waiting for quiet lets one quiet step pass.
            let mut m = self.0.borrow_mut();
            m.now.total += 100;
            d
        }
    }

    impl PointRunner for Loaded {
        type Point = usize;
        fn label(&self, p: &usize) -> String {
            format!("pt{p}")
        }
        fn run(&mut self, _: &usize, log: Option<&Path>) -> Result<f64, RunError> {
            let mut m = self.machine.borrow_mut();
            let at = m.at;
            m.pause(Duration::ZERO);
            if let Some(l) = log {
                std::fs::write(l, b"").unwrap();
            }
            // Disturbed repetitions are slower.
            Ok(if m.shares[at.min(m.shares.len() - 1)] > 0.1 {
                2.0
            } else {
                1.0 + 0.1 * at as f64
            })
        }
    }

    #[test]
    fn disturbed_repetitions_are_repeated_and_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        // Warm-up (1 run), then the recorded runs: busy, quiet, busy, quiet, quiet.
        let machine = std::rc::Rc::new(std::cell::RefCell::new(Scripted::new(&[
            0.0, 0.5, 0.0, 0.5, 0.0, 0.0,
        ])));
        let mut gate = Gate::with_source(Shared(machine.clone()), Duration::from_secs(10));
        let mut runner = Loaded { machine };
        let mut rounds = Vec::new();
        let t = time_round_robin_reporting(
            &[0],
            &mut runner,
            &Repeats::new(3),
            &mut gate,
            dir.path(),
            KeepLogs::Counted,
            &mut |done| rounds.push(*done),
        )
        .unwrap();
        // Five rounds for three quiet repetitions: the point has them after the last.
        let satisfied: Vec<usize> = rounds.iter().map(|d| d.satisfied).collect();
        assert_eq!(satisfied, [0, 0, 0, 0, 1]);
        assert_eq!(
            rounds[4],
            RoundDone {
                round: 5,
                most: 9,
                points: 1,
                satisfied: 1,
                wanted: 3
            }
        );
        let p = &t[0];
        assert_eq!(p.reps.len(), 5, "three quiet ones took five rounds");
        assert_eq!(p.quiet(), 3);
        assert_eq!(
            p.reps.iter().map(|r| r.quiet).collect::<Vec<_>>(),
            [false, true, false, true, true]
        );
        assert!(p.kept().quiet);
        assert_eq!(p.counted().len(), 3);
        assert!(p.counted().iter().all(|r| r.seconds < 2.0));
        // Disturbed repetitions' logs are gone, quiet ones stay.
        assert!(p.reps.iter().all(|r| r.log.is_some() == r.quiet));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
        assert!(gate.busy_windows == 0 && gate.waited > Duration::ZERO);
    }

    /// The gate's view of a machine that is always busy: waiting lets a busy step pass.
    struct Busy(std::rc::Rc<std::cell::RefCell<Scripted>>);

    impl LoadSource for Busy {
        fn sample(&mut self) -> Option<crate::campaign::load::Sample> {
            self.0.borrow_mut().sample()
        }
        fn pause(&mut self, d: Duration) -> Duration {
            self.0.borrow_mut().pause(d)
        }
    }

    #[test]
    fn all_waits_together_stop_at_the_budget() {
        // Every repetition disturbed: 9 rounds (3 x --reps) of 2 points, a wait of a third
        // of 2 s after each repetition and each round, far more than the 1 s budget.
        let dir = tempfile::tempdir().unwrap();
        let machine = std::rc::Rc::new(std::cell::RefCell::new(Scripted::new(&[0.9])));
        let budget = Duration::from_secs(1);
        let mut gate = Gate::with_source(Busy(machine.clone()), budget);
        let mut runner = Loaded { machine };
        let t = time_round_robin(
            &[0, 1],
            &mut runner,
            &Repeats::new(3),
            &mut gate,
            dir.path(),
            KeepLogs::Counted,
            &mut |_| {},
        )
        .unwrap();
        assert!(t.iter().all(|p| p.quiet() == 0 && p.reps.len() == 9));
        assert_eq!(gate.waited, budget);
        assert_eq!(
            gate.busy_windows, 10,
            "100 ms windows, none after the budget"
        );
    }

    #[test]
    fn keeping_only_the_kept_log_and_statistics() {
        let reps = |secs: &[(f64, bool)]| PointTimes {
            reps: secs
                .iter()
                .enumerate()
                .map(|(i, &(seconds, quiet))| Repetition {
                    round: i,
                    seconds,
                    foreign: Some(if quiet { 0.0 } else { 0.5 }),
                    quiet,
                    log: None,
                })
                .collect(),
        };
        let t = reps(&[(3.0, true), (1.0, false), (2.0, true), (4.0, true)]);
        assert_eq!(t.kept().seconds, 2.0, "the fastest quiet, not the fastest");
        assert_eq!(t.median(), 3.0);
        assert_eq!(t.third(), 4.0);
        assert!((t.spread().unwrap() - 0.5).abs() < 1e-12);
        let none_quiet = reps(&[(3.0, false), (1.0, false)]);
        assert_eq!(none_quiet.kept().seconds, 1.0);
        assert_eq!(none_quiet.counted().len(), 2);
        assert!((none_quiet.spread().unwrap() - 2.0).abs() < 1e-12);
    }

    #[test]
    fn one_counted_repetition_measures_no_spread() {
        // One quiet repetition of three: it alone counts, and its spread is not 0.
        let t = PointTimes {
            reps: [(2.0, false), (1.5, true), (3.0, false)]
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
        };
        assert_eq!(t.counted().len(), 1);
        assert_eq!(t.kept().seconds, 1.5);
        assert_eq!(t.spread(), None);
    }

    #[test]
    fn the_progress_line_counts_rounds_against_the_most_and_points_against_all() {
        let mut done = RoundDone {
            round: 7,
            most: 15,
            points: 6,
            satisfied: 4,
            wanted: 5,
        };
        assert_eq!(
            done.line(),
            "round 7 of at most 15: 4 of 6 points have the 5 quiet repetitions asked for"
        );
        done.satisfied = 1;
        done.wanted = 1;
        assert_eq!(
            done.line(),
            "round 7 of at most 15: 1 of 6 points has the 1 quiet repetition asked for"
        );
    }
}
