//! Scoring a replay against the measured times: relative errors and the ranking of the two
//! versions, counted as the study counts them.

use super::points::Point;

/// What a replay gave over all points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// Mean |error| of the predicted version, percent.
    pub mean_err_pct: f64,
    /// Largest |error| of the predicted version, percent.
    pub max_err_pct: f64,
    /// Points whose faster version the replay names as measured.
    pub ranking: usize,
    /// The same among the decisive points.
    pub decisive_right: usize,
    /// Points that were not measured ties ([`Point::tie`]).
    pub decisive: usize,
    /// Mean |error| of the measured version's prediction at the same points, percent.
    pub base_mean_err_pct: f64,
}

/// Signed relative error of `predicted` against `measured`, percent.
pub fn err_pct(predicted: f64, measured: f64) -> f64 {
    (predicted - measured) / measured * 100.0
}

/// Whether the predictions `other` and `base` (seconds) name the faster version as the
/// point's measurements do.
pub fn ranking_right(pt: &Point, other: f64, base: f64) -> bool {
    (other < base) == (pt.other_s < pt.base_s)
}

/// The score of the predictions `other` (the predicted version) and `base` (the measured
/// version), seconds, one per point.
pub fn score(points: &[Point], other: &[f64], base: &[f64]) -> Score {
    let mut s = Score {
        mean_err_pct: 0.0,
        max_err_pct: 0.0,
        ranking: 0,
        decisive_right: 0,
        decisive: 0,
        base_mean_err_pct: 0.0,
    };
    let count = points.len() as f64;
    for ((pt, &o), &b) in points.iter().zip(other).zip(base) {
        let e = err_pct(o, pt.other_s).abs();
        s.mean_err_pct += e / count;
        s.max_err_pct = s.max_err_pct.max(e);
        s.base_mean_err_pct += err_pct(b, pt.base_s).abs() / count;
        let right = ranking_right(pt, o, b);
        s.ranking += right as usize;
        if !pt.tie {
            s.decisive += 1;
            s.decisive_right += right as usize;
        }
    }
    s
}

/// `LABEL: points=N mean_err_pct=X max_err_pct=Y ranking_correct=K/N decisive=A/B`.
pub fn summary_line(label: &str, s: &Score, points: usize) -> String {
    format!(
        "{label}: points={points} mean_err_pct={:.1} max_err_pct={:.1} ranking_correct={}/{points} decisive={}/{}",
        s.mean_err_pct, s.max_err_pct, s.ranking, s.decisive_right, s.decisive
    )
}

/// The largest relative difference, percent, between the replay's predictions and the
/// study's own ([`Point::study_other_s`], [`Point::study_base_s`]): (predicted version,
/// measured version). Zero up to rounding when the replay runs the study's tools on the
/// study's inputs.
pub fn largest_difference_from_study_pct(
    points: &[Point],
    other: &[f64],
    base: &[f64],
) -> (f64, f64) {
    let mut d = (0.0f64, 0.0f64);
    for ((pt, &o), &b) in points.iter().zip(other).zip(base) {
        d.0 = d.0.max(err_pct(o, pt.study_other_s).abs());
        d.1 = d.1.max(err_pct(b, pt.study_base_s).abs());
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(other_s: f64, base_s: f64, tie: bool) -> Point {
        Point {
            size: 64,
            p: 2,
            iters: 1,
            other_s,
            base_s,
            base_calibrated_s: None,
            tie,
            study_err_pct: 0.0,
            study_other_s: other_s,
            study_base_s: base_s,
        }
    }

    #[test]
    fn counts_errors_and_rankings_as_the_study_does() {
        // A: 10 % high, ranked right; B: 50 % low, ranked wrong, a measured tie.
        let pts = [point(1.0, 2.0, false), point(2.0, 1.9, true)];
        let s = score(&pts, &[1.1, 1.0], &[2.0, 1.9]);
        assert!((s.mean_err_pct - 30.0).abs() < 1e-9, "{s:?}");
        assert!((s.max_err_pct - 50.0).abs() < 1e-9, "{s:?}");
        assert_eq!((s.ranking, s.decisive_right, s.decisive), (1, 1, 1));
        assert_eq!(s.base_mean_err_pct, 0.0);
        assert_eq!(
            summary_line("x", &s, 2),
            "x: points=2 mean_err_pct=30.0 max_err_pct=50.0 ranking_correct=1/2 decisive=1/1"
        );
        let (o, b) = largest_difference_from_study_pct(&pts, &[1.1, 2.0], &[2.0, 1.9]);
        assert!((o - 10.0).abs() < 1e-9 && b == 0.0, "{o} {b}");
    }
}
