//! The per-point table a study prints with `--json`: one object per point of the predicted
//! version, as the study's JSON array holds it.

/// One point of a study's "Predicted vs measured" table.
#[derive(Debug, Clone)]
pub struct Point {
    /// Value of the size variable (the JSON's `n`: `n` of the FFT and the histogram, `k` of
    /// n-queens).
    pub size: u64,
    /// Processors.
    pub p: u64,
    /// Iterations of the run (`iters`).
    pub iters: u64,
    /// The predicted version's measured seconds (`measured_s`).
    pub other_s: f64,
    /// The measured version's seconds, timed round robin with the other (`base_measured_s`).
    pub base_s: f64,
    /// The measured version's seconds in the calibration phase, the run its models were
    /// fitted to (`base_calibrated_s`); None where the study's output has no such field.
    pub base_calibrated_s: Option<f64>,
    /// The two measured closer than their run-to-run spread (`measured_tie`).
    pub tie: bool,
    /// The predicted version's |error| of the study's own prediction, percent (`err_pct`).
    pub study_err_pct: f64,
    /// The study's own prediction of the predicted version, seconds (`predicted_s`).
    pub study_other_s: f64,
    /// The study's own prediction of the measured version, seconds (`base_predicted_s`).
    pub study_base_s: f64,
}

/// The points of the JSON array in `text`: from the line that is exactly `[` to the line
/// that is exactly `]` (a study's output has progress lines before it and summary lines
/// after it; a file holding only the array works too). Panics, naming the field, when the
/// array or a field is missing (`base_calibrated_s` may be missing).
pub fn study_points(text: &str) -> Vec<Point> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| *l == "[")
        .expect("a line that is exactly `[` (the per-point JSON array)");
    let end = lines[start..]
        .iter()
        .position(|l| *l == "]")
        .expect("a line that is exactly `]` (the array's end)")
        + start;
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&lines[start..=end].join("\n")).expect("the per-point JSON");
    let num = |r: &serde_json::Value, k: &str| {
        r[k].as_f64()
            .unwrap_or_else(|| panic!("a number `{k}` in every point"))
    };
    rows.iter()
        .map(|r| Point {
            size: num(r, "n") as u64,
            p: num(r, "p") as u64,
            iters: num(r, "iters") as u64,
            other_s: num(r, "measured_s"),
            base_s: num(r, "base_measured_s"),
            base_calibrated_s: r["base_calibrated_s"].as_f64(),
            tie: r["measured_tie"]
                .as_bool()
                .expect("a boolean `measured_tie` in every point"),
            study_err_pct: num(r, "err_pct"),
            study_other_s: num(r, "predicted_s"),
            study_base_s: num(r, "base_predicted_s"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_array_between_progress_and_summary_lines() {
        let text = "[   1.0s] loop round 1 done\n[\n  {\"n\": 64, \"p\": 2, \"iters\": 5, \
            \"measured_s\": 0.1, \"base_measured_s\": 0.2, \"measured_tie\": false, \
            \"err_pct\": 3.0, \"predicted_s\": 0.103, \"base_predicted_s\": 0.21},\n  \
            {\"n\": 64, \"p\": 3, \"iters\": 5, \"measured_s\": 0.1, \"base_measured_s\": 0.2, \
            \"base_calibrated_s\": 0.19, \"measured_tie\": true, \"err_pct\": 3.0, \
            \"predicted_s\": 0.103, \"base_predicted_s\": 0.21}\n]\n\
            study: points=2 mean_err_pct=3.0 max_err_pct=3.0 ranking_correct=2/2\n";
        let pts = study_points(text);
        assert_eq!(pts.len(), 2);
        assert_eq!(
            (pts[1].p, pts[1].tie, pts[1].base_calibrated_s),
            (3, true, Some(0.19))
        );
        let pt = &pts[0];
        assert_eq!((pt.size, pt.p, pt.iters, pt.tie), (64, 2, 5, false));
        assert_eq!((pt.other_s, pt.base_s), (0.1, 0.2));
        assert_eq!((pt.study_other_s, pt.study_base_s), (0.103, 0.21));
        assert_eq!(pt.base_calibrated_s, None);
    }
}
