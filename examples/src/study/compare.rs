//! Comparing predictions with measurements: relative errors, DP-vs-TP ranking, crossovers.
//! Whether two predictions (or two measurements) are a tie, and a prediction's uncertainty,
//! are lcm's rules (`lcm::predict::compare`), the same `lcm compare` applies.

use lcm::predict::compare::{self as lcm_compare, Comparison};
use lcm::predict::grid::{crossovers_along, Crossover};

/// One design point of the predicted version: its variables, the predicted and measured
/// run times of both versions (seconds).
#[derive(Clone, Debug, PartialEq)]
pub struct PointResult {
    /// Size variable (n).
    pub n: u64,
    /// Processors.
    pub p: usize,
    /// Iterations (or the program's second variable) at this point.
    pub iters: u64,
    /// Measured time of the measured version (e.g. DP), seconds, timed again round robin
    /// with the predicted version (the ranking compares these two).
    pub measured_base: f64,
    /// The measured version's time here in the calibration phase (the data its models were
    /// fitted to), seconds; NaN where it was not measured.
    pub calibrated_base: f64,
    /// Predicted time of the measured version (from its own models), seconds; NaN if lcm
    /// failed there.
    pub predicted_base: f64,
    /// Measured time of the predicted version (e.g. TP), seconds.
    pub measured: f64,
    /// Predicted time of the predicted version, seconds; NaN if lcm failed there.
    pub predicted: f64,
    /// Relative uncertainty of the predictions at this point (a fraction), known before the
    /// predicted version ran: how far the measured version's own prediction is from its
    /// measurement here, at least [`MIN_UNCERTAINTY`].
    pub uncertainty: f64,
    /// Run-to-run spread of the two measured times at this point (a fraction): the larger
    /// of the two versions' (third-fastest − kept) / kept over their counted repetitions in
    /// the validation phase ([`super::measure::Timing::kept_spread`]: how much each kept
    /// time would move without its two fastest repetitions). NaN when unknown.
    pub noise: f64,
}

impl PointResult {
    /// How much the measured version's time changed between the calibration phase and the
    /// validation phase (measured_base / calibrated_base − 1): the machine's speed drifting
    /// between the phases, which no model carries.
    pub fn drift(&self) -> f64 {
        self.measured_base / self.calibrated_base - 1.0
    }
}

/// Smallest relative uncertainty a prediction is given: lcm's default
/// ([`lcm_compare::DEFAULT_RELATIVE_UNCERTAINTY`], run-to-run spread on a quiet machine).
pub const MIN_UNCERTAINTY: f64 = lcm_compare::DEFAULT_RELATIVE_UNCERTAINTY;

/// The relative uncertainty of predictions at a point whose measured version was predicted
/// `predicted_base` and measured `measured_base` seconds
/// ([`lcm_compare::self_prediction_uncertainty`]).
pub fn uncertainty(predicted_base: f64, measured_base: f64) -> f64 {
    lcm_compare::self_prediction_uncertainty(predicted_base, measured_base, MIN_UNCERTAINTY)
}

impl PointResult {
    /// |predicted − measured| / measured of the predicted version, in percent.
    pub fn err_pct(&self) -> f64 {
        rel_err_pct(self.predicted, self.measured)
    }

    /// Same for the measured version's self-prediction.
    pub fn base_err_pct(&self) -> f64 {
        rel_err_pct(self.predicted_base, self.measured_base)
    }

    /// Whether the predicted version is faster than the measured one, as measured.
    pub fn measured_better(&self) -> bool {
        self.measured < self.measured_base
    }

    /// Whether the predicted version is faster than the measured one, as predicted.
    pub fn predicted_better(&self) -> bool {
        self.predicted < self.predicted_base
    }

    /// Whether the two predictions differ by less than their uncertainty: the predicted
    /// ranking is then a toss-up, not a finding.
    pub fn too_close_to_call(&self) -> bool {
        lcm_compare::is_tie(self.predicted, self.predicted_base, self.uncertainty)
    }

    /// Whether the two measured times differ by less than their run-to-run spread
    /// ([`PointResult::noise`]): the measured ranking is then a tie within the noise,
    /// which another run of the study may turn either way.
    pub fn measured_tie(&self) -> bool {
        lcm_compare::is_tie(self.measured, self.measured_base, self.noise)
    }

    /// The measured difference between the two versions relative to the faster one
    /// (a fraction; positive when the predicted version was faster).
    pub fn measured_margin(&self) -> f64 {
        (self.measured_base - self.measured) / self.measured.min(self.measured_base)
    }

    /// Whether the prediction ranked the two versions as the measurements did.
    pub fn ranking_correct(&self) -> bool {
        self.predicted.is_finite()
            && self.predicted_base.is_finite()
            && self.measured_better() == self.predicted_better()
    }
}

/// |predicted − measured| / measured in percent (infinite if either is not finite or the
/// measurement is not positive).
pub fn rel_err_pct(predicted: f64, measured: f64) -> f64 {
    if !predicted.is_finite() || !measured.is_finite() || measured <= 0.0 {
        return f64::INFINITY;
    }
    100.0 * (predicted - measured).abs() / measured
}

/// The summary numbers of a study.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Number of points of the predicted version.
    pub points: usize,
    /// Mean relative error (percent).
    pub mean_err_pct: f64,
    /// Largest relative error (percent).
    pub max_err_pct: f64,
    /// Points where the ranking was predicted right.
    pub ranking_correct: usize,
    /// Points whose measured times are a tie within the noise
    /// ([`PointResult::measured_tie`]).
    pub measured_ties: usize,
    /// Points that are not measured ties where the ranking was predicted right.
    pub decisive_correct: usize,
}

impl Summary {
    /// Summarizes `points`.
    pub fn of(points: &[PointResult]) -> Summary {
        let errs: Vec<f64> = points.iter().map(PointResult::err_pct).collect();
        let mean = if errs.is_empty() {
            f64::NAN
        } else {
            errs.iter().sum::<f64>() / errs.len() as f64
        };
        Summary {
            points: points.len(),
            mean_err_pct: mean,
            max_err_pct: errs.iter().copied().fold(f64::NAN, f64::max),
            ranking_correct: points.iter().filter(|p| p.ranking_correct()).count(),
            measured_ties: points.iter().filter(|p| p.measured_tie()).count(),
            decisive_correct: points
                .iter()
                .filter(|p| !p.measured_tie() && p.ranking_correct())
                .count(),
        }
    }

    /// The tie-aware count, printed before [`Summary::line`]: `ranking correct at K of N
    /// points; M points are measured ties within the noise (...); correct at K' of the
    /// N − M decisive points`.
    pub fn ties_line(&self) -> String {
        format!(
            "ranking correct at {} of {} points; {} points are measured ties within the noise (the two versions' kept times differ by less than the spread of their fastest repetitions); correct at {} of the {} decisive points",
            self.ranking_correct,
            self.points,
            self.measured_ties,
            self.decisive_correct,
            self.points - self.measured_ties
        )
    }

    /// The study's last line:
    /// `study: points=N mean_err_pct=X max_err_pct=Y ranking_correct=K/N`.
    pub fn line(&self) -> String {
        format!(
            "study: points={} mean_err_pct={:.1} max_err_pct={:.1} ranking_correct={}/{}",
            self.points, self.mean_err_pct, self.max_err_pct, self.ranking_correct, self.points
        )
    }
}

/// The drift of the machine's speed between the calibration and the validation phase, as
/// the measured version's times show it (it is measured in both): the median and range of
/// [`PointResult::drift`] over the points, and the median over the p = 1 points (no
/// contention there: host speed alone). None when no point has both times.
pub fn drift_line(points: &[PointResult], base: &str) -> Option<String> {
    let all: Vec<f64> = points
        .iter()
        .map(PointResult::drift)
        .filter(|d| d.is_finite())
        .collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mid = upper_median(all)?;
    let one = points.iter().filter(|p| p.p == 1).map(PointResult::drift);
    let at_one = upper_median(one).map_or(String::new(), |d| {
        format!(", median {:+.1}% at p = 1 (host speed alone)", 100.0 * d)
    });
    let scaled = drift_scaled_mean_err_pct(points, mid).map_or(String::new(), |e| {
        format!(
            " (diagnostic, not a prediction: with every prediction scaled by that median the predicted version's mean |error| would be {e:.1}%, against {:.1}% unscaled; the rest is the models')",
            Summary::of(points).mean_err_pct
        )
    });
    Some(format!(
        "drift: {base} re-measured in the validation phase against its calibration: median {:+.1}% (range {:+.1}% to {:+.1}%){at_one}; the models carry the calibration phase's speed{scaled}",
        100.0 * mid,
        100.0 * lo,
        100.0 * hi
    ))
}

/// The predicted version's mean |error|, percent, with every prediction multiplied by
/// `1 + drift` (the phases' median drift): how much of the error the host's change of speed
/// between the phases explains. A diagnostic for the report, never the study's score, which
/// compares the predictions as they were made. None when no point has a finite error.
pub fn drift_scaled_mean_err_pct(points: &[PointResult], drift: f64) -> Option<f64> {
    scaled_mean_err_pct(
        points.iter().map(|p| (p.predicted, p.measured)),
        1.0 + drift,
    )
}

/// The upper middle value of the finite ones among `values` (the middle one for an odd
/// count), as the study takes the median of its drift; None without any.
pub fn upper_median(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| v[v.len() / 2])
}

/// The mean |error|, percent, of predictions multiplied by `factor` against their
/// measurements, over the `(predicted, measured)` pairs whose error is finite
/// ([`rel_err_pct`]); None without any.
pub fn scaled_mean_err_pct(
    pairs: impl IntoIterator<Item = (f64, f64)>,
    factor: f64,
) -> Option<f64> {
    let errs: Vec<f64> = pairs
        .into_iter()
        .map(|(predicted, measured)| rel_err_pct(predicted * factor, measured))
        .filter(|e| e.is_finite())
        .collect();
    (!errs.is_empty()).then(|| errs.iter().sum::<f64>() / errs.len() as f64)
}

/// The crossovers along n (at fixed p) and along p (at fixed n) of the better version, as
/// given by `better` (true where the predicted version is faster): lcm's crossovers with the
/// measured version as `a` and the predicted one as `b` (`better_after == "b"`: the
/// predicted version is better after the change).
pub fn crossovers(points: &[PointResult], better: impl Fn(&PointResult) -> bool) -> Vec<Crossover> {
    let bindings: Vec<lca::expr::Bindings> = points
        .iter()
        .map(|pt| {
            [
                ("n".to_string(), pt.n as f64),
                ("p".to_string(), pt.p as f64),
            ]
            .into()
        })
        .collect();
    // T_a − T_b has the sign of "b is better".
    let diff: Vec<f64> = points
        .iter()
        .map(|pt| if better(pt) { 1.0 } else { -1.0 })
        .collect();
    crossovers_along(&["n".to_string(), "p".to_string()], &bindings, &diff)
}

/// The predicted crossovers outside the predictions' uncertainty: lcm's comparison of the
/// measured version (`a`) with the predicted one (`b`) at every point, each point with its
/// own uncertainty ([`PointResult::uncertainty`]); too-close-to-call points are ties and
/// no crossover is reported inside them.
pub fn predicted_crossovers(points: &[PointResult]) -> Vec<Crossover> {
    let bindings: Vec<lca::expr::Bindings> = points
        .iter()
        .map(|pt| {
            [
                ("n".to_string(), pt.n as f64),
                ("p".to_string(), pt.p as f64),
            ]
            .into()
        })
        .collect();
    Comparison::new(
        &["n".to_string(), "p".to_string()],
        bindings,
        points.iter().map(|pt| pt.predicted_base).collect(),
        points.iter().map(|pt| pt.predicted).collect(),
        points.iter().map(|pt| pt.uncertainty).collect(),
    )
    .crossovers
}

/// A fragment of the predicted version at one point: predicted vs measured time per
/// execution.
#[derive(Clone, Debug, PartialEq)]
pub struct FragmentCheck {
    /// Size.
    pub n: u64,
    /// Processors of the run.
    pub p: usize,
    /// Fragment.
    pub fragment: String,
    /// Processors the fragment runs on (its task's share).
    pub p_fragment: f64,
    /// Predicted seconds per execution.
    pub predicted: f64,
    /// Measured seconds per execution (window length / the fragment's executions in the
    /// run, pp's `executions`; / the iterations for the version's per-iteration fragments).
    pub measured: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(n: u64, p: usize, mb: f64, pb: f64, m: f64, pr: f64) -> PointResult {
        PointResult {
            n,
            p,
            iters: 1,
            measured_base: mb,
            calibrated_base: mb,
            predicted_base: pb,
            measured: m,
            predicted: pr,
            uncertainty: uncertainty(pb, mb),
            noise: 0.02,
        }
    }

    #[test]
    fn errors_and_ranking() {
        let pts = [
            pt(64, 2, 1.0, 1.0, 2.0, 2.2),
            pt(128, 2, 4.0, 4.0, 3.0, 4.5),
        ];
        let s = Summary::of(&pts);
        assert_eq!(s.points, 2);
        assert!((s.mean_err_pct - 30.0).abs() < 1e-9);
        assert!((s.max_err_pct - 50.0).abs() < 1e-9);
        assert_eq!(s.ranking_correct, 1);
        assert_eq!(s.measured_ties, 0);
        assert_eq!(s.decisive_correct, 1);
        assert_eq!(
            s.line(),
            "study: points=2 mean_err_pct=30.0 max_err_pct=50.0 ranking_correct=1/2"
        );
    }

    #[test]
    fn close_predictions_are_too_close_to_call() {
        // dp self-prediction 10% off: a 5% difference is within it, a 30% one is not.
        let close = pt(64, 2, 1.1, 1.0, 1.0, 1.05);
        assert!((close.uncertainty - 0.1 / 1.1).abs() < 1e-9);
        assert!(close.too_close_to_call());
        let clear = pt(64, 2, 1.1, 1.0, 1.0, 1.3);
        assert!(!clear.too_close_to_call());
        // Never below the floor.
        assert_eq!(uncertainty(1.0, 1.0), MIN_UNCERTAINTY);
        assert_eq!(uncertainty(f64::NAN, 1.0), MIN_UNCERTAINTY);
    }

    #[test]
    fn measured_ties_are_counted_apart() {
        // 1% apart with 2% spread: a tie, ranked wrong; 50% apart: decisive, ranked right.
        let tie = pt(64, 2, 1.0, 1.0, 0.99, 1.2);
        assert!(tie.measured_tie() && !tie.ranking_correct());
        let clear = pt(128, 2, 1.0, 1.0, 0.5, 0.6);
        assert!(!clear.measured_tie() && clear.ranking_correct());
        let mut unknown = tie.clone();
        unknown.noise = f64::NAN;
        assert!(!unknown.measured_tie());
        let s = Summary::of(&[tie, clear]);
        assert_eq!(
            (s.ranking_correct, s.measured_ties, s.decisive_correct),
            (1, 1, 1)
        );
        assert_eq!(
            s.ties_line(),
            "ranking correct at 1 of 2 points; 1 points are measured ties within the noise (the two versions' kept times differ by less than the spread of their fastest repetitions); correct at 1 of the 1 decisive points"
        );
        assert!(s.line().ends_with("ranking_correct=1/2"));
        let d = drift_line(&[pt(64, 1, 1.1, 1.0, 1.0, 1.0)], "dp").unwrap();
        assert!(d.contains("median +0.0%") && d.contains("at p = 1"), "{d}");
        assert!(drift_line(&[], "dp").is_none());
        // Measured 10 % above a prediction that was right at the calibration's speed,
        // with the base version 10 % slower too: the scaled error vanishes.
        let slow = pt(64, 2, 1.1, 1.0, 1.1, 1.0);
        assert!(
            (drift_scaled_mean_err_pct(std::slice::from_ref(&slow), 0.1).unwrap()).abs() < 1e-9
        );
        assert!(
            (slow.err_pct() - 100.0 / 11.0).abs() < 1e-9,
            "{}",
            slow.err_pct()
        );
        assert!(drift_scaled_mean_err_pct(&[], 0.1).is_none());
    }

    #[test]
    fn failed_prediction_is_infinite_error_and_wrong_ranking() {
        let p = pt(64, 2, 1.0, 1.0, 2.0, f64::NAN);
        assert!(p.err_pct().is_infinite());
        assert!(!p.ranking_correct());
    }

    #[test]
    fn crossovers_along_n_and_p() {
        let pts = [
            pt(64, 2, 1.0, 1.0, 0.5, 0.5),
            pt(128, 2, 1.0, 1.0, 2.0, 2.0),
            pt(64, 4, 1.0, 1.0, 2.0, 2.0),
        ];
        let c = crossovers(&pts, PointResult::measured_better);
        assert_eq!(c.len(), 2);
        // Predicted: b (the predicted version) is 50 % faster at the first point, 50 %
        // slower at the others: two crossovers outside the 5 % uncertainty; 2 % apart at
        // the first point instead is a tie there, and no crossover.
        assert_eq!(predicted_crossovers(&pts).len(), 2);
        let mut close = pts.clone();
        close[0].predicted = 0.98;
        assert!(close[0].too_close_to_call());
        assert!(predicted_crossovers(&close).is_empty());
        assert_eq!(c[0].variable, "n");
        assert_eq!(c[0].between, (64.0, 128.0));
        assert_eq!(c[0].others, [("p".to_string(), 2.0)]);
        assert_eq!(c[0].better_after, "a");
        assert_eq!(c[1].variable, "p");
        assert_eq!(c[1].others, [("n".to_string(), 64.0)]);
    }
}
