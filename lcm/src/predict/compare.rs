//! Comparing two versions' predictions: which one is faster at a point, whether the
//! difference is within the predictions' uncertainty (a tie), and where the faster
//! version changes (crossovers), reported only between points outside the uncertainty.
//!
//! # Where a prediction's uncertainty comes from
//! A prediction composes models fitted to measurements; it is as uncertain as those
//! measurements and those fits are. The models carry no interval (lca writes the fitted
//! expression, not its confidence band), so lcm uses a **relative uncertainty**:
//! - by default [`DEFAULT_RELATIVE_UNCERTAINTY`] (5 %): the run-to-run spread of a run
//!   time on a quiet machine, below which no measurement can rank two versions;
//! - set by the user (`lcm compare --uncertainty 0.1`), for example from how far the
//!   measured version's own prediction was from its measurements;
//! - per point, when the measured version's time there is known: how far its own
//!   prediction is from that measurement ([`self_prediction_uncertainty`], never below the
//!   default). Both versions' predictions rest on the same models and the same
//!   composition, so that error is the best estimate, known before the restructured
//!   version ever ran, of how far the other prediction may be off too;
//! - per point, from the measured times of a version (`lcm compare --times-a FILE`, the
//!   profile records `pp -l` or `pp-campaign` wrote, [`measured_points`], records per
//!   execution multiplied back to whole runs): the version is predicted at each
//!   measured point, and a compared point's uncertainty is the largest |relative error| of
//!   those predictions at its nearest measured point(s) ([`residual_uncertainty`], in
//!   log-distance over the shared variables), never below the run-to-run spread of the
//!   measurements there (the default where a point was measured once) nor below
//!   `--uncertainty` when given. Where the model missed its own measurements by 12 %, a
//!   10 % difference between the versions is a tie; where it hit repeated measurements
//!   within 1 % and they spread by 2 %, a 3 % difference is a finding.
//!
//! # Ties and crossovers
//! At a point with relative uncertainty u, the two predictions T_a, T_b are a **tie** when
//! |T_a − T_b| / min(T_a, T_b) < u ([`verdict`]): the ranking is then a toss-up, not a
//! finding. A **crossover** along a variable is reported between two points where
//! different versions win outside the uncertainty; tie points between them are skipped
//! (the crossover lies somewhere in the tie region and is interpolated where T_a − T_b
//! changes sign), and a sign change between ties is no crossover at all.
//!
//! # Points that are not compared
//! Where a version has no prediction (the grid point is one it cannot run at: its time is
//! NaN) or a time that is not a positive number (a negative model made it zero or
//! negative), there is nothing to rank: the verdict is [`Verdict::NotCompared`], never a
//! tie. Such points are counted apart ([`Comparison::not_compared`]), `lcm compare --json`
//! writes `"better": "not_compared"` and `"compared": false` for them, and crossovers pass
//! over them as over ties: they are never a crossover's end, and the interpolation of
//! where T_a − T_b changes sign uses the compared points only.
//!
//! ```
//! use lcm::predict::compare::{verdict, Verdict, DEFAULT_RELATIVE_UNCERTAINTY};
//! // 0.02 % apart: a tie at the default 5 %.
//! assert_eq!(verdict(1.0002, 1.0, DEFAULT_RELATIVE_UNCERTAINTY), Verdict::Tie);
//! // 20 % apart: b is faster.
//! assert_eq!(verdict(1.2, 1.0, DEFAULT_RELATIVE_UNCERTAINTY), Verdict::B);
//! // a has no prediction here: nothing is compared, and it is no tie.
//! assert_eq!(verdict(f64::NAN, 1.0, DEFAULT_RELATIVE_UNCERTAINTY), Verdict::NotCompared);
//! ```

use super::error::PredictError;
use super::grid::{crossover_between, runs_along, Crossing, Crossover};
pub use super::measured::{measured_points, MeasuredPoint};
use lca::expr::Bindings;
use serde::Serialize;

/// The relative uncertainty of a prediction when nothing better is known: 5 %, the
/// run-to-run spread of a run time on a quiet machine.
pub const DEFAULT_RELATIVE_UNCERTAINTY: f64 = 0.05;

/// Which version a comparison finds faster at one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Version a is faster by more than the uncertainty.
    A,
    /// Version b is faster by more than the uncertainty.
    B,
    /// Both times are positive and differ by less than the uncertainty.
    Tie,
    /// Nothing was compared: a version has no prediction at the point, or a time that is
    /// not a positive finite number.
    NotCompared,
}

impl Verdict {
    /// `a`, `b`, `tie` or `not_compared` (as in JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::A => "a",
            Verdict::B => "b",
            Verdict::Tie => "tie",
            Verdict::NotCompared => "not_compared",
        }
    }

    /// Whether one version wins outside the uncertainty ([`Verdict::A`] or [`Verdict::B`]).
    pub fn is_decisive(self) -> bool {
        matches!(self, Verdict::A | Verdict::B)
    }
}

/// The relative difference of two times: |ta − tb| / min(ta, tb) (NaN unless both are
/// positive and finite).
pub fn relative_difference(ta: f64, tb: f64) -> f64 {
    let lo = ta.min(tb);
    if !(ta.is_finite() && tb.is_finite() && lo > 0.0) {
        return f64::NAN;
    }
    (ta - tb).abs() / lo
}

/// Whether predictions `ta` and `tb` with relative uncertainty `u` are a tie:
/// their relative difference is below `u`. False when a time is not positive and finite
/// (nothing to call).
pub fn is_tie(ta: f64, tb: f64, u: f64) -> bool {
    relative_difference(ta, tb) < u
}

/// The verdict at one point: [`Verdict::NotCompared`] when a time is not a positive finite
/// number (NaN: no prediction), [`Verdict::Tie`] when [`is_tie`], else the faster version.
pub fn verdict(ta: f64, tb: f64, u: f64) -> Verdict {
    let d = relative_difference(ta, tb);
    if d.is_nan() {
        Verdict::NotCompared
    } else if d < u {
        Verdict::Tie
    } else if ta < tb {
        Verdict::A
    } else {
        Verdict::B
    }
}

/// The relative uncertainty of predictions at a point where the measured version was
/// predicted `predicted` and measured `measured` seconds: |predicted − measured| / measured,
/// never below `floor` (use [`DEFAULT_RELATIVE_UNCERTAINTY`]); `floor` when either is not
/// a positive finite number.
pub fn self_prediction_uncertainty(predicted: f64, measured: f64, floor: f64) -> f64 {
    if !(predicted.is_finite() && measured.is_finite() && measured > 0.0) {
        return floor;
    }
    ((predicted - measured).abs() / measured).max(floor)
}

/// Reads a relative uncertainty as a fraction (`0.05`) or a percentage (`5%`); it must be
/// finite and at least 0.
pub fn parse_uncertainty(s: &str) -> Result<f64, PredictError> {
    let t = s.trim();
    let (num, scale) = match t.strip_suffix('%') {
        Some(p) => (p.trim(), 0.01),
        None => (t, 1.0),
    };
    num.parse::<f64>()
        .ok()
        .map(|v| v * scale)
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| {
            PredictError::Usage(format!(
                "--uncertainty: expected a fraction (0.05) or a percentage (5%) of at least 0, found `{t}`"
            ))
        })
}

/// A comparison of two versions over a set of points.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The points (variable values).
    pub points: Vec<Bindings>,
    /// Version a's predicted times (seconds), indexed like `points`.
    pub ta: Vec<f64>,
    /// Version b's predicted times (seconds).
    pub tb: Vec<f64>,
    /// The relative uncertainty at each point.
    pub uncertainty: Vec<f64>,
    /// The verdict at each point.
    pub verdicts: Vec<Verdict>,
    /// The crossovers outside the uncertainty along the varying variables.
    pub crossovers: Vec<Crossover>,
}

impl Comparison {
    /// Compares `ta` with `tb` at `points` (equal lengths), with relative uncertainty
    /// `uncertainty[i]` at point i, and finds crossovers along `variables`.
    pub fn new(
        variables: &[String],
        points: Vec<Bindings>,
        ta: Vec<f64>,
        tb: Vec<f64>,
        uncertainty: Vec<f64>,
    ) -> Comparison {
        let verdicts: Vec<Verdict> = (0..points.len())
            .map(|i| verdict(ta[i], tb[i], uncertainty[i]))
            .collect();
        let diff: Vec<f64> = ta.iter().zip(&tb).map(|(a, b)| a - b).collect();
        let crossovers = crossovers_beyond(variables, &points, &diff, &verdicts);
        Comparison {
            points,
            ta,
            tb,
            uncertainty,
            verdicts,
            crossovers,
        }
    }

    /// The same relative uncertainty `u` at every point.
    pub fn uniform(
        variables: &[String],
        points: Vec<Bindings>,
        ta: Vec<f64>,
        tb: Vec<f64>,
        u: f64,
    ) -> Comparison {
        let n = points.len();
        Comparison::new(variables, points, ta, tb, vec![u; n])
    }

    /// Points where a, b win and where they tie (points not compared are in none of the
    /// three: [`Comparison::not_compared`]).
    pub fn counts(&self) -> (usize, usize, usize) {
        (
            self.count(Verdict::A),
            self.count(Verdict::B),
            self.count(Verdict::Tie),
        )
    }

    /// Points where nothing was compared ([`Verdict::NotCompared`]).
    pub fn not_compared(&self) -> usize {
        self.count(Verdict::NotCompared)
    }

    fn count(&self, v: Verdict) -> usize {
        self.verdicts.iter().filter(|&&x| x == v).count()
    }
}

/// The crossovers along each of `variables` of versions a and b whose difference
/// T_a − T_b at `points[i]` is `diff[i]`, counted only between points whose verdicts are
/// decisive ([`Verdict::is_decisive`]) and different; tie and not-compared points between
/// them are skipped and `at` interpolates the sign change of `diff` between the decisive
/// ends over the compared points only (linearly in the first adjacent pair of them where it
/// changes sign, else the midpoint of the ends). An entry `n:steps` is a paired axis, every
/// variable of it interpolated alike. Points are grouped by their other variables and
/// scanned along the axis ([`runs_along`]: a variable's values in order, a paired axis's
/// points in the order given).
pub fn crossovers_beyond(
    variables: &[String],
    points: &[Bindings],
    diff: &[f64],
    verdicts: &[Verdict],
) -> Vec<Crossover> {
    let compared = |run: &[usize]| -> Vec<usize> {
        run.iter()
            .copied()
            .filter(|&i| verdicts[i] != Verdict::NotCompared && diff[i].is_finite())
            .collect()
    };
    let mut out = Vec::new();
    for var in variables {
        for (key, idx) in runs_along(points, var) {
            let mut last: Option<usize> = None;
            for (k, &j) in idx.iter().enumerate() {
                if !verdicts[j].is_decisive() {
                    continue;
                }
                if let Some(pos) = last {
                    let i = idx[pos];
                    if verdicts[i] != verdicts[j] {
                        out.push(crossover_between(
                            var,
                            variables,
                            points,
                            (i, j),
                            sign_change(&compared(&idx[pos..=k]), diff),
                            &key,
                            verdicts[j].as_str(),
                        ));
                    }
                }
                last = Some(k);
            }
        }
    }
    out
}

/// Where `diff` changes sign along `run` (the compared point indices in their order along
/// the axis, from one decisive point to the next): linearly in the first adjacent pair with
/// opposite signs, else the run's midpoint.
fn sign_change(run: &[usize], diff: &[f64]) -> Crossing {
    for w in run.windows(2) {
        let (d0, d1) = (diff[w[0]], diff[w[1]]);
        if d0 == 0.0 {
            return Crossing::At(w[0]);
        }
        if (d0 > 0.0) != (d1 > 0.0) && d1 != 0.0 {
            return Crossing::Linear {
                i: w[0],
                j: w[1],
                d0,
                d1,
            };
        }
    }
    Crossing::Mid(run[0], run[run.len() - 1])
}

/// How far a version's prediction is from its measurement at one measured point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Residual {
    /// The version: `a` or `b`.
    pub version: String,
    /// The measured point.
    #[serde(flatten)]
    pub point: MeasuredPoint,
    /// The version's prediction there, seconds.
    pub predicted_s: f64,
    /// (predicted − measured) / measured.
    pub relative_error: f64,
}

impl Residual {
    /// The residual of `version` predicted `predicted_s` at `point`.
    pub fn new(version: &str, point: MeasuredPoint, predicted_s: f64) -> Residual {
        let relative_error = (predicted_s - point.measured_s) / point.measured_s;
        Residual {
            version: version.to_string(),
            point,
            predicted_s,
            relative_error,
        }
    }
}

/// The distance between a compared point and a measured one over the variables both have:
/// the sum of squared differences of their logarithms (of the values themselves where one
/// is not positive), so that n = 512 is as far from 256 as from 1024 and p = 2 as far from
/// 1 as from 4. `None` when they share no variable.
pub fn distance(x: &Bindings, m: &Bindings) -> Option<f64> {
    let mut shared = false;
    let mut d = 0.0;
    for (k, xv) in x {
        let Some(mv) = m.get(k) else { continue };
        shared = true;
        let delta = if *xv > 0.0 && *mv > 0.0 {
            xv.ln() - mv.ln()
        } else {
            xv - mv
        };
        d += delta * delta;
    }
    shared.then_some(d)
}

/// The relative uncertainty at compared point `x` from measured residuals. For each version
/// with residuals, its nearest measured point(s) ([`MeasuredPoint::distance_to`]: over
/// the shared variables, a records file's iteration variable left out; every point at the least
/// distance counts) each give the larger of their |relative error| and their run-to-run
/// spread (`default` for a point of one run: nothing measured its spread); u is the
/// largest of these, and at least `floor` when one is given (`--uncertainty`). Without
/// residuals near `x`: `floor`, else `default`. Returns u with the residuals that gave it
/// (empty when none did).
pub fn residual_uncertainty<'r>(
    x: &Bindings,
    residuals: &'r [Residual],
    default: f64,
    floor: Option<f64>,
) -> (f64, Vec<&'r Residual>) {
    let mut nearest: Vec<&Residual> = Vec::new();
    for version in ["a", "b"] {
        let mine: Vec<(&Residual, f64)> = residuals
            .iter()
            .filter(|r| r.version == version)
            .filter_map(|r| r.point.distance_to(x).map(|d| (r, d)))
            .collect();
        let Some(least) = mine.iter().map(|(_, d)| *d).min_by(f64::total_cmp) else {
            continue;
        };
        let tol = 1e-9 * least.max(1e-12);
        nearest.extend(
            mine.iter()
                .filter(|(_, d)| *d <= least + tol)
                .map(|(r, _)| *r),
        );
    }
    let at = |r: &Residual| {
        let e = r.relative_error.abs();
        let noise = r.point.spread.unwrap_or(default);
        if e.is_finite() {
            e.max(noise)
        } else {
            noise
        }
    };
    let Some(worst) = nearest.iter().map(|r| at(r)).reduce(f64::max) else {
        return (floor.unwrap_or(default), Vec::new());
    };
    match floor {
        Some(f) if f >= worst => (f, Vec::new()),
        _ => (
            worst,
            nearest.into_iter().filter(|r| at(r) == worst).collect(),
        ),
    }
}
