//! The host's speed drift between a study's phases, taken out of the replay's errors: a
//! diagnostic, not a prediction.
//!
//! A study fits its models to the measured version's calibration-phase runs, then times
//! both versions side by side in the validation phase. When the host ran at another speed
//! in the second phase (a virtual machine's neighbours, its clock), every measured time
//! moved and no model can carry that. The measured version is timed in both phases, so
//! its ratio (measured beside the other version / measured when calibrated) shows the
//! drift at each point. Scaling every prediction by the median ratio and scoring again
//! separates the drift from the model's own error. The scaled numbers use the validation
//! phase's measurements to correct the predictions, so they are no prediction.

use super::super::points::Point;
use super::super::score::Score;
use examples::study::compare::{scaled_mean_err_pct, upper_median};

/// The predictions' errors with the phase's median drift taken out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DriftScaled {
    /// Median over the points of the measured version's validation time over its
    /// calibration time (`base_measured_s / base_calibrated_s`), as the study takes a
    /// median (the upper middle value for an even count).
    pub median_ratio: f64,
    /// The points that have both times.
    pub points: usize,
    /// Mean |error| of the predicted version with every prediction times `median_ratio`,
    /// percent.
    pub other_mean_err_pct: f64,
    /// The same for the measured version, percent.
    pub base_mean_err_pct: f64,
}

/// The median drift ratio of `points` and the errors of the predictions `other` and `base`
/// (seconds, one per point) scaled by it. None when no point has a finite calibration time
/// (`points.json` without `base_calibrated_s`).
pub fn drift_scaled(points: &[Point], other: &[f64], base: &[f64]) -> Option<DriftScaled> {
    let ratios = points
        .iter()
        .filter_map(|pt| pt.base_calibrated_s.map(|c| pt.base_s / c));
    let median_ratio = upper_median(ratios)?;
    let with_calibration = points
        .iter()
        .filter(|pt| {
            pt.base_calibrated_s
                .is_some_and(|c| (pt.base_s / c).is_finite())
        })
        .count();
    let mean_err = |pred: &[f64], meas: &dyn Fn(&Point) -> f64| {
        let pairs = points.iter().zip(pred).map(|(pt, &s)| (s, meas(pt)));
        scaled_mean_err_pct(pairs, median_ratio).unwrap_or(f64::NAN)
    };
    Some(DriftScaled {
        median_ratio,
        points: with_calibration,
        other_mean_err_pct: mean_err(other, &|pt| pt.other_s),
        base_mean_err_pct: mean_err(base, &|pt| pt.base_s),
    })
}

/// The report's diagnostic line: the median drift and both versions' mean |error| scaled
/// by it, beside the replay's own (`unscaled`); `names`: (predicted version, measured
/// version). Says the line is unavailable when `scaled` is None.
pub fn drift_line(scaled: Option<&DriftScaled>, names: (&str, &str), unscaled: &Score) -> String {
    let (o, b) = names;
    match scaled {
        None => format!(
            "diagnostic, not a prediction: drift-scaled errors unavailable (the points have no \
             calibration-phase time of {b})"
        ),
        Some(d) => format!(
            "diagnostic, not a prediction: {b}'s speed drift between the study's phases, median \
             {:+.1} % over {} points ({b} measured beside {o} / {b} when calibrated); with every \
             prediction scaled by it, {o}'s mean |error| {:.1} % (unscaled {:.1} %), {b}'s {:.1} % \
             ({:.1} %)",
            (d.median_ratio - 1.0) * 100.0,
            d.points,
            d.other_mean_err_pct,
            unscaled.mean_err_pct,
            d.base_mean_err_pct,
            unscaled.base_mean_err_pct
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(other_s: f64, base_s: f64, base_calibrated_s: Option<f64>) -> Point {
        Point {
            size: 64,
            p: 2,
            iters: 1,
            other_s,
            base_s,
            base_calibrated_s,
            tie: false,
            study_err_pct: 0.0,
            study_other_s: other_s,
            study_base_s: base_s,
        }
    }

    #[test]
    fn scales_by_the_upper_median_of_the_base_ratios() {
        // Ratios 1.0, 1.1, 1.2, 1.5: the study's median (upper middle) is 1.2. Predictions
        // 1.0 of a measured 1.2 are exact once scaled; 2.4 of 1.2 is 140 % high.
        let pts = [
            point(1.2, 1.0, Some(1.0)),
            point(1.2, 1.1, Some(1.0)),
            point(1.2, 1.2, Some(1.0)),
            point(1.2, 1.5, Some(1.0)),
        ];
        let d = drift_scaled(&pts, &[1.0, 1.0, 1.0, 2.4], &[1.0, 1.0, 1.0, 1.0]).unwrap();
        assert_eq!((d.median_ratio, d.points), (1.2, 4));
        assert!((d.other_mean_err_pct - 35.0).abs() < 1e-9, "{d:?}");
        // Base predictions 1.2 against 1.0, 1.1, 1.2, 1.5: 20, 9.09, 0, 20 %.
        let want = (20.0 + 100.0 / 11.0 + 0.0 + 20.0) / 4.0;
        assert!((d.base_mean_err_pct - want).abs() < 1e-9, "{d:?}");
    }

    #[test]
    fn is_unavailable_without_calibration_times() {
        let pts = [point(1.0, 1.0, None)];
        assert_eq!(drift_scaled(&pts, &[1.0], &[1.0]), None);
        let s = crate::replay::score::score(&pts, &[1.0], &[1.0]);
        assert!(drift_line(None, ("tp", "dp"), &s).contains("unavailable"));
    }
}
