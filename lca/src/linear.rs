//! Linear least squares with the statistics a modeler needs to trust the fit.
//!
//! Columns are scaled to unit Euclidean norm before the SVD (`nalgebra`), so `n^3` beside a
//! constant stays well conditioned; singular values below `1e-10 × σ_max` mean the design
//! is singular (the terms are linearly dependent on these points) and the fit is refused.
//!
//! Statistics (m points, k coefficients, dof = m − k):
//! - 90% confidence half-width of coefficient j: `t_{0.95, dof} · s · sqrt((V Σ⁻² Vᵀ)_jj) / scale_j`
//!   with `s² = RSS / dof`;
//! - `R² = 1 − RSS / Σ(y − ȳ)²` (centered; may be negative for a form without constant),
//!   adjusted `R² = 1 − (1 − R²)(m − 1)/(m − k)`;
//! - leave-one-out residuals by the hat-matrix shortcut `e_i / (1 − h_ii)`, `h_ii = Σ_j U_ij²`,
//!   summarized by [`cv_error`].

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
    /// Residual sum of squares.
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

/// Fits `y ≈ Σ_j c_j · columns[j]` (each column has one value per point).
pub fn fit_columns(columns: &[Vec<f64>], y: &[f64]) -> Result<LinearFit, LinearError> {
    let m = y.len();
    let k = columns.len();
    if m < k + 1 || k == 0 {
        return Err(LinearError::TooFewPoints {
            needed: k + 1,
            coefficients: k,
            got: m,
        });
    }
    let mut scales = Vec::with_capacity(k);
    let mut a = DMatrix::<f64>::zeros(m, k);
    for (j, col) in columns.iter().enumerate() {
        let norm = col.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return Err(LinearError::Singular {
                rank: k - 1,
                coefficients: k,
            });
        }
        scales.push(norm);
        for i in 0..m {
            a[(i, j)] = col[i] / norm;
        }
    }
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
    let yv = DVector::from_column_slice(y);
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
    let fitted: Vec<f64> = fitted_v.iter().copied().collect();
    let rss: f64 = y.iter().zip(&fitted).map(|(a, b)| (a - b).powi(2)).sum();
    let dof = m - k;
    let t = t_quantile(0.95, dof as f64);
    let sigma2 = rss / dof as f64;
    let half_widths = (0..k)
        .map(|j| {
            let var: f64 = (0..k).map(|i| (v_t[(i, j)] / s[i]).powi(2)).sum();
            t * (sigma2 * var).sqrt() / scales[j]
        })
        .collect();
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
    /// Computes the numbers from data, fitted values and LOO predictions.
    pub fn new(y: &[f64], fitted: &[f64], loo: &[f64], coefficients: usize) -> Quality {
        let m = y.len();
        let mean = y.iter().sum::<f64>() / m as f64;
        let sst: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
        let rss: f64 = y.iter().zip(fitted).map(|(a, b)| (a - b).powi(2)).sum();
        let r2 = if sst > 0.0 {
            1.0 - rss / sst
        } else if rss <= 1e-24 * y.iter().map(|v| v * v).sum::<f64>().max(1e-300) {
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
    let ymax = y.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let floor = if ymax > 0.0 { 1e-3 * ymax } else { 1.0 };
    let mut s = 0.0;
    for (a, b) in y.iter().zip(loo) {
        if !b.is_finite() {
            return f64::INFINITY;
        }
        let d = a.abs().max(floor);
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
