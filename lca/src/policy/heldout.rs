//! Held-out error: how well a form, refitted without some observations, predicts them.
//!
//! Two kinds of folds, both on whole configurations (repetitions were merged into one
//! observation before, [`super::observations`]):
//! - **leave one configuration out**, for every configuration;
//! - **extrapolation**: for every variable with at least three distinct values, the form is
//!   refitted without the configurations at that variable's largest value and predicts
//!   them (the largest size, the largest p). The models exist to extrapolate; a form that
//!   interpolates the measured range and bends away beyond it loses here.
//!
//! Errors are relative to each observation's scale (the fragment's time there, see
//! [`super::observations`]). Both parts are mean absolute relative errors (the measure the
//! models are judged by; a root mean square would let the noisiest configurations, often
//! the smallest size, decide alone) and the score is their mean,
//! `(loo + extrapolation) / 2`; without an extrapolation fold it is the leave-one-out error
//! alone.

use super::observations::Observations;
use crate::dataset::Dataset;
use crate::expr::Expr;

/// Refits a form on training observations (variables and units of the observations) with
/// their scales (the fit minimizes errors relative to them) and returns the fitted
/// expression; None when the form cannot be fitted there.
pub type Refit<'a> = dyn Fn(&Dataset, &[f64]) -> Option<Expr> + 'a;

/// Held-out errors of one form (fractions of the fragment's time: 0.05 = 5 %).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeldOut {
    /// Mean absolute relative error of leave-one-configuration-out predictions.
    pub loo: f64,
    /// Mean absolute relative error of the extrapolation folds' predictions (NaN without a
    /// fold).
    pub extrapolation: f64,
    /// `(loo + extrapolation) / 2`, or `loo` without an extrapolation fold;
    /// infinite when the form cannot be refitted in some fold.
    pub score: f64,
}

/// The held-out errors of the form `refit` on `obs`.
pub fn held_out(obs: &Observations, refit: &Refit) -> HeldOut {
    let n = obs.len();
    let mut loo_sum = 0.0;
    let mut loo_count = 0usize;
    let mut failed = false;
    if n >= 2 {
        for i in 0..n {
            let train = obs.filter_index(|j| j != i);
            match predict(&train, refit, obs, &[i]) {
                Some(s) => {
                    loo_sum += s;
                    loo_count += 1;
                }
                None => failed = true,
            }
        }
    }
    let mut ext_sum = 0.0;
    let mut ext_count = 0usize;
    for v in 0..obs.data.variables.len() {
        match extrapolation_folds(obs, refit, v) {
            Some(Some((sum, count))) => {
                ext_sum += sum;
                ext_count += count;
            }
            Some(None) => {}
            None => failed = true,
        }
    }
    let loo = if loo_count > 0 {
        loo_sum / loo_count as f64
    } else {
        f64::INFINITY
    };
    let extrapolation = if ext_count > 0 {
        ext_sum / ext_count as f64
    } else {
        f64::NAN
    };
    let score = if failed || !loo.is_finite() {
        f64::INFINITY
    } else if extrapolation.is_nan() {
        loo
    } else {
        (loo + extrapolation) / 2.0
    };
    HeldOut {
        loo,
        extrapolation,
        score,
    }
}

/// The mean absolute relative error of the extrapolation folds along variable `v` alone
/// (see the module docs): the form refitted without the largest value of `v` (and, where
/// three values lie at or below half of it, without everything above half) predicting
/// what was left out. None when `v` has fewer than three values or the form cannot be
/// refitted in a fold.
pub fn extrapolation_along(obs: &Observations, refit: &Refit, v: usize) -> Option<f64> {
    let (sum, count) = extrapolation_folds(obs, refit, v)??;
    (count > 0).then(|| sum / count as f64)
}

/// The extrapolation folds along variable `v`: `Some(Some((sum of absolute relative
/// errors, predictions)))`, `Some(None)` when `v` has fewer than three values, None when
/// the form cannot be refitted in a fold.
fn extrapolation_folds(
    obs: &Observations,
    refit: &Refit,
    v: usize,
) -> Option<Option<(f64, usize)>> {
    let values = obs.data.distinct(v);
    if values.len() < 3 {
        return Some(None);
    }
    let n = obs.len();
    let top = values[values.len() - 1];
    // The largest value; and, where three or more values lie at or below half of it,
    // everything above half (a prediction at twice the measured range).
    let mut cuts = vec![values[values.len() - 2]];
    if values.iter().filter(|&&x| x <= top / 2.0).count() >= 3 {
        let half = top / 2.0;
        if !cuts.contains(&half) {
            cuts.push(
                values
                    .iter()
                    .copied()
                    .filter(|&x| x <= half)
                    .fold(0.0, f64::max),
            );
        }
    }
    cuts.dedup();
    let (mut sum, mut count) = (0.0, 0usize);
    for cut in cuts {
        let test: Vec<usize> = (0..n).filter(|&i| obs.data.points[i].x[v] > cut).collect();
        let train = obs.filter(|pt| pt.x[v] <= cut);
        sum += predict(&train, refit, obs, &test)?;
        count += test.len();
    }
    Some(Some((sum, count)))
}

/// Sum of absolute relative errors at `test` of the form refitted on `train`.
fn predict(train: &Observations, refit: &Refit, obs: &Observations, test: &[usize]) -> Option<f64> {
    let e = refit(&train.data, &train.scale)?;
    let mut sum = 0.0;
    for &i in test {
        let pt = &obs.data.points[i];
        let v = e.eval(&obs.data.bindings(pt)).ok()?;
        if !v.is_finite() {
            return None;
        }
        let s = obs.scale[i];
        let d = if s.is_finite() && s != 0.0 {
            s.abs()
        } else {
            pt.y.abs().max(f64::MIN_POSITIVE)
        };
        sum += ((v - pt.y) / d).abs();
    }
    Some(sum)
}

/// Relative errors of `expr` at the observations (in-sample), as fractions of the scale.
pub fn in_sample(obs: &Observations, expr: &Expr) -> f64 {
    let mut sum = 0.0;
    for (pt, s) in obs.data.points.iter().zip(&obs.scale) {
        let v = expr.eval(&obs.data.bindings(pt)).unwrap_or(f64::NAN);
        sum += ((v - pt.y) / s.abs().max(f64::MIN_POSITIVE)).abs();
    }
    sum / obs.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::DataPoint;
    use crate::fit::fit;
    use crate::hypothesis::Hypothesis;

    fn obs(f: impl Fn(f64) -> f64) -> Observations {
        let pts: Vec<DataPoint> = [1.0, 2.0, 4.0, 8.0, 16.0]
            .iter()
            .map(|&n| DataPoint {
                x: vec![n],
                y: f(n),
                line: 0,
            })
            .collect();
        let scale = pts.iter().map(|p| p.y).collect();
        Observations {
            data: Dataset::new("pc", &["n"], pts),
            scale,
            records: 5,
        }
    }

    #[test]
    fn an_exact_form_has_no_held_out_error_and_a_wrong_one_extrapolates_badly() {
        let o = obs(|n| 3.0 * n * n);
        let vars = o.data.variables.clone();
        let form = |text: &str| {
            let h = Hypothesis::formula(text, &vars).unwrap();
            move |d: &Dataset, _: &[f64]| fit(&h, d).ok().map(|m| m.expr)
        };
        let right = held_out(&o, &form("n^2"));
        assert!(right.score < 1e-9, "{right:?}");
        let wrong = held_out(&o, &form("n + 1"));
        assert!(wrong.extrapolation > 0.3, "{wrong:?}");
        assert!(wrong.score > wrong.loo / 2.0);
        // A form that needs more points than a fold leaves is infinite.
        let never = held_out(&o, &|_: &Dataset, _: &[f64]| None);
        assert!(never.score.is_infinite());
    }
}
