//! Linear least squares with the statistics a modeler needs to trust the fit.
//!
//! Columns are scaled to unit Euclidean norm before the SVD (`nalgebra`), so `n^3` beside a
//! constant stays well conditioned; singular values below `1e-10 × σ_max` mean the design
//! is singular (the terms are linearly dependent on these points) and the fit is refused.
//!
//! **Relative errors.** `lca` fits every linear form by weighted least squares
//! ([`fit_columns_weighted`]) with row `i` divided by `d_i = max(|y_i|, 10⁻³ · max |y|)`
//! ([`relative_scale`]): it minimizes the squared *relative* residuals, the measure its
//! cross-validation reports. Timing data has multiplicative noise and spans decades; an
//! unweighted fit lets the largest values decide everything (the constant of
//! `200 + 10·p^2` at p = 32 is lost in the noise of y ≈ 10⁴ and gets dropped, and the
//! small-p points that tell `p^2·log2(p)^2` from `p^(8/3)` stop counting).
//!
//! Statistics (m points, k coefficients, dof = m − k, all of the weighted problem):
//! - 90% confidence half-width of coefficient j: `t_{0.95, dof} · s · sqrt((V Σ⁻² Vᵀ)_jj) / scale_j`
//!   with `s² = WRSS / dof` (noise proportional to `d_i`);
//! - `R² = 1 − WRSS / Σ w_i (y_i − ȳ_w)²` with `w_i = 1 / d_i²` and the weighted mean
//!   `ȳ_w` (so a constant model has R² = 0; may be negative for a form without constant),
//!   adjusted `R² = 1 − (1 − R²)(m − 1)/(m − k)` ([`Quality::weighted`]);
//! - leave-one-out residuals by the hat-matrix shortcut `e_i / (1 − h_ii)`, `h_ii = Σ_j U_ij²`
//!   (exact for the weighted fit), summarized by [`cv_error`].

use crate::stats::t_quantile;
use nalgebra::{DMatrix, DVector};

/// Result of a linear least-squares fit.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearFit {
    /// Coefficients, one per column.
    pub coefficients: Vec<f64>,
    /// 90% confidence half-widths (Student t); infinite when dof = 0.
    pub half_widths: Vec<f64>,
    /// Fitted values at the data points.
    pub fitted: Vec<f64>,
    /// Leave-one-out predictions at the data points (NaN where a point determines the fit).
    pub loo_predictions: Vec<f64>,
    /// Residual sum of squares (unweighted, in the data's unit squared).
    pub rss: f64,
}

/// Why a linear fit was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinearError {
    /// Fewer points than coefficients + 1.
    #[error("expected at least {needed} data points for {coefficients} coefficients, found {got}")]
    TooFewPoints {
        /// Points needed.
        needed: usize,
        /// Coefficients of the form.
        coefficients: usize,
        /// Points available.
        got: usize,
    },
    /// Linearly dependent columns.
    #[error("singular design: the terms are linearly dependent on these points (rank {rank} of {coefficients})")]
    Singular {
        /// Numerical rank.
        rank: usize,
        /// Coefficients of the form.
        coefficients: usize,
    },
}

/// Per-point scale of relative errors: `d_i = max(|y_i|, 10⁻³ · max_j |y_j|)` (1 when all
/// values are 0). The floor keeps zeros in the data (ip at p = 1) from blowing relative
/// measures up while staying relative for every value that matters.
pub fn relative_scale(y: &[f64]) -> Vec<f64> {
    let ymax = y.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let floor = if ymax > 0.0 { 1e-3 * ymax } else { 1.0 };
    y.iter().map(|v| v.abs().max(floor)).collect()
}

/// Fits `y ≈ Σ_j c_j · columns[j]` (each column has one value per point).
pub fn fit_columns(columns: &[Vec<f64>], y: &[f64]) -> Result<LinearFit, LinearError> {
    fit_columns_weighted(columns, y, &vec![1.0; y.len()])
}

/// The weighted design matrix of `m` rows with every column scaled to unit norm
/// (`a[(i, j)] = columns[j][i] / scale_i / norm_j`) and the norms; a zero or non-finite
/// column is an error. Unit columns keep the SVD's rank test independent of the columns'
/// units.
fn normalized_design(
    columns: &[Vec<f64>],
    scale: &[f64],
    m: usize,
) -> Result<(DMatrix<f64>, Vec<f64>), LinearError> {
    let k = columns.len();
    let mut scales = Vec::with_capacity(k);
    let mut a = DMatrix::<f64>::zeros(m, k);
    for (j, col) in columns.iter().enumerate() {
        let norm = col
            .iter()
            .zip(scale)
            .map(|(v, s)| (v / s).powi(2))
            .sum::<f64>()
            .sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return Err(LinearError::Singular {
                rank: k - 1,
                coefficients: k,
            });
        }
        scales.push(norm);
        for i in 0..m {
            a[(i, j)] = col[i] / scale[i] / norm;
        }
    }
    Ok((a, scales))
}

/// Weighted least squares: minimizes `Σ_i ((y_i − Σ_j c_j · columns[j][i]) / scale_i)²`.
/// Half-widths assume noise proportional to `scale`; LOO predictions are exact for the
/// weighted fit.
pub fn fit_columns_weighted(
    columns: &[Vec<f64>],
    y: &[f64],
    scale: &[f64],
) -> Result<LinearFit, LinearError> {
    let m = y.len();
    let k = columns.len();
    if m < k + 1 || k == 0 {
        return Err(LinearError::TooFewPoints {
            needed: k + 1,
            coefficients: k,
            got: m,
        });
    }
    let (a, scales) = normalized_design(columns, scale, m)?;
    let svd = a.clone().svd(true, true);
    let (Some(u), Some(v_t)) = (svd.u.as_ref(), svd.v_t.as_ref()) else {
        return Err(LinearError::Singular {
            rank: 0,
            coefficients: k,
        });
    };
    let s = &svd.singular_values;
    let smax = s.iter().cloned().fold(0.0, f64::max);
    let rank = s.iter().filter(|&&v| v > 1e-10 * smax).count();
    if rank < k {
        return Err(LinearError::Singular {
            rank,
            coefficients: k,
        });
    }
    let yw: Vec<f64> = y.iter().zip(scale).map(|(v, s)| v / s).collect();
    let yv = DVector::from_column_slice(&yw);
    let uty = u.transpose() * &yv;
    let mut scaled = DVector::<f64>::zeros(k);
    for j in 0..k {
        let w = uty[j] / s[j];
        for r in 0..k {
            scaled[r] += v_t[(j, r)] * w;
        }
    }
    let coefficients: Vec<f64> = (0..k).map(|j| scaled[j] / scales[j]).collect();
    let fitted_v = &a * &scaled;
    let fitted: Vec<f64> = fitted_v.iter().zip(scale).map(|(f, s)| f * s).collect();
    let rss: f64 = y.iter().zip(&fitted).map(|(a, b)| (a - b).powi(2)).sum();
    let wrss: f64 = y
        .iter()
        .zip(&fitted)
        .zip(scale)
        .map(|((a, b), s)| ((a - b) / s).powi(2))
        .sum();
    let dof = m - k;
    let t = t_quantile(0.95, dof as f64);
    let sigma2 = wrss / dof as f64;
    let half_widths = (0..k)
        .map(|j| {
            let var: f64 = (0..k).map(|i| (v_t[(i, j)] / s[i]).powi(2)).sum();
            t * (sigma2 * var).sqrt() / scales[j]
        })
        .collect();
    // LOO residual of the weighted problem: (weighted residual) / (1 − h_ii); scaled back.
    let loo_predictions = (0..m)
        .map(|i| {
            let h: f64 = (0..k).map(|j| u[(i, j)].powi(2)).sum();
            if 1.0 - h < 1e-9 {
                f64::NAN
            } else {
                y[i] - (y[i] - fitted[i]) / (1.0 - h)
            }
        })
        .collect();
    Ok(LinearFit {
        coefficients,
        half_widths,
        fitted,
        loo_predictions,
        rss,
    })
}

/// Goodness-of-fit numbers shared by linear and nonlinear fits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quality {
    /// Coefficient of determination (centered).
    pub r2: f64,
    /// Adjusted R².
    pub adj_r2: f64,
    /// Leave-one-out cross-validation error, see [`cv_error`] (a fraction: 0.02 = 2%).
    pub cv: f64,
    /// Residual sum of squares.
    pub rss: f64,
    /// Points.
    pub points: usize,
    /// Fitted coefficients.
    pub coefficients: usize,
}

impl Quality {
    /// Computes the numbers from data, fitted values and LOO predictions of an unweighted
    /// fit.
    pub fn new(y: &[f64], fitted: &[f64], loo: &[f64], coefficients: usize) -> Quality {
        Quality::weighted(y, fitted, loo, coefficients, &vec![1.0; y.len()])
    }

    /// The numbers for a fit weighted by `1 / scale` (R² of the weighted problem: the
    /// fraction of the weighted variance about the weighted mean that the model explains,
    /// so a constant model has R² = 0).
    pub fn weighted(
        y: &[f64],
        fitted: &[f64],
        loo: &[f64],
        coefficients: usize,
        scale: &[f64],
    ) -> Quality {
        let m = y.len();
        let w: Vec<f64> = scale.iter().map(|s| 1.0 / (s * s)).collect();
        let wsum: f64 = w.iter().sum();
        let mean = y.iter().zip(&w).map(|(v, w)| v * w).sum::<f64>() / wsum;
        let sst: f64 = y.iter().zip(&w).map(|(v, w)| w * (v - mean).powi(2)).sum();
        let wrss: f64 = y
            .iter()
            .zip(fitted)
            .zip(&w)
            .map(|((a, b), w)| w * (a - b).powi(2))
            .sum();
        let rss: f64 = y.iter().zip(fitted).map(|(a, b)| (a - b).powi(2)).sum();
        let yy: f64 = y.iter().zip(&w).map(|(v, w)| w * v * v).sum();
        let r2 = if sst > 0.0 {
            1.0 - wrss / sst
        } else if wrss <= 1e-24 * yy.max(1e-300) {
            1.0
        } else {
            0.0
        };
        let adj_r2 = if m > coefficients {
            1.0 - (1.0 - r2) * (m as f64 - 1.0) / (m - coefficients) as f64
        } else {
            f64::NAN
        };
        Quality {
            r2,
            adj_r2,
            cv: cv_error(y, loo),
            rss,
            points: m,
            coefficients,
        }
    }
}

/// Leave-one-out cross-validation error: the root mean square of relative LOO errors
/// `(y_i − ŷ_{−i}) / d_i` with `d_i = max(|y_i|, 10⁻³ · max_j |y_j|)`. The floor keeps
/// zeros in the data (ip at p = 1) from blowing the measure up while staying relative for
/// every value that matters. Infinite when some LOO prediction is undefined.
pub fn cv_error(y: &[f64], loo: &[f64]) -> f64 {
    let d = relative_scale(y);
    let mut s = 0.0;
    for ((a, b), d) in y.iter().zip(loo).zip(&d) {
        if !b.is_finite() {
            return f64::INFINITY;
        }
        s += ((a - b) / d).powi(2);
    }
    (s / y.len() as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_fit_and_intervals() {
        let x: Vec<f64> = (1..=8).map(|v| v as f64).collect();
        let y: Vec<f64> = x.iter().map(|v| 3.0 + 2.0 * v * v * v).collect();
        let cols = vec![vec![1.0; 8], x.iter().map(|v| v * v * v).collect()];
        let f = fit_columns(&cols, &y).unwrap();
        assert!((f.coefficients[0] - 3.0).abs() < 1e-9);
        assert!((f.coefficients[1] - 2.0).abs() < 1e-12);
        assert!(f.half_widths[1] < 1e-9);
        let q = Quality::new(&y, &f.fitted, &f.loo_predictions, 2);
        assert!(q.r2 > 0.999_999_999 && q.cv < 1e-9);
    }

    #[test]
    fn loo_shortcut_matches_refitting() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let y = [1.1, 1.9, 3.2, 3.9, 5.3, 5.8];
        let cols = vec![vec![1.0; 6], x.to_vec()];
        let f = fit_columns(&cols, &y).unwrap();
        for i in 0..6 {
            let keep: Vec<usize> = (0..6).filter(|&j| j != i).collect();
            let c2 = vec![vec![1.0; 5], keep.iter().map(|&j| x[j]).collect()];
            let y2: Vec<f64> = keep.iter().map(|&j| y[j]).collect();
            let g = fit_columns(&c2, &y2).unwrap();
            let pred = g.coefficients[0] + g.coefficients[1] * x[i];
            assert!((pred - f.loo_predictions[i]).abs() < 1e-10);
        }
    }

    /// Weighted fit: the LOO shortcut equals refitting with the same weights, and a constant
    /// of a weighted fit is the weighted mean (R² = 0).
    #[test]
    fn weighted_loo_matches_refitting() {
        let x = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
        let y = [12.0, 21.0, 43.5, 79.0, 166.0, 318.0];
        let d = relative_scale(&y);
        let cols = vec![vec![1.0; 6], x.to_vec()];
        let f = fit_columns_weighted(&cols, &y, &d).unwrap();
        for i in 0..6 {
            let keep: Vec<usize> = (0..6).filter(|&j| j != i).collect();
            let c2 = vec![vec![1.0; 5], keep.iter().map(|&j| x[j]).collect()];
            let y2: Vec<f64> = keep.iter().map(|&j| y[j]).collect();
            let d2: Vec<f64> = keep.iter().map(|&j| d[j]).collect();
            let g = fit_columns_weighted(&c2, &y2, &d2).unwrap();
            let pred = g.coefficients[0] + g.coefficients[1] * x[i];
            assert!((pred - f.loo_predictions[i]).abs() < 1e-9, "{i}");
        }
        // Relative weighting: the small values are fitted to the same relative accuracy
        // as the large ones, unlike an unweighted fit.
        let u = fit_columns(&cols, &y).unwrap();
        let rel = |fit: &LinearFit| (fit.fitted[0] - y[0]).abs() / y[0];
        assert!(rel(&f) < rel(&u), "{} vs {}", rel(&f), rel(&u));
        let c = fit_columns_weighted(&[vec![1.0; 6]], &y, &d).unwrap();
        let q = Quality::weighted(&y, &c.fitted, &c.loo_predictions, 1, &d);
        assert!(q.r2.abs() < 1e-12, "{}", q.r2);
    }

    #[test]
    fn refuses_singular_and_short() {
        let cols = vec![vec![1.0, 2.0, 3.0], vec![2.0, 4.0, 6.0]];
        assert!(matches!(
            fit_columns(&cols, &[1.0, 2.0, 3.0]),
            Err(LinearError::Singular { .. })
        ));
        assert!(matches!(
            fit_columns(&cols, &[1.0, 2.0]),
            Err(LinearError::TooFewPoints { .. })
        ));
        // Known half-width: y = c with y = {1, 2, 3}: s = 1, se = 1/sqrt(3), t(0.95, 2) = 2.92.
        let f = fit_columns(&[vec![1.0; 3]], &[1.0, 2.0, 3.0]).unwrap();
        assert!((f.half_widths[0] - 2.919_986 / 3f64.sqrt()).abs() < 1e-5);
    }

    #[test]
    fn cv_survives_zeros() {
        let y = [0.0, 1.0, 2.0];
        let loo = [0.01, 1.0, 2.0];
        let e = cv_error(&y, &loo);
        assert!(e.is_finite() && e > 0.0 && e < 5.0);
    }
}
