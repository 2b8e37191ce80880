//! Fitting one hypothesis to one data set: coefficients with 90% confidence half-widths,
//! R², adjusted R² and leave-one-out cross-validation error ([`FittedModel`]).

use crate::dataset::Dataset;
use crate::expr::{Bindings, EvalError, Expr};
use crate::hypothesis::{Hypothesis, HypothesisKind};
use crate::linear::{fit_columns_weighted, relative_scale, LinearError, Quality};
use serde::Serialize;

/// One fitted coefficient.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coefficient {
    /// Parameter name (`k1`, …) in the order of the form.
    pub name: String,
    /// For linear forms the term it multiplies (printed), `None` for nonlinear parameters.
    pub term: Option<String>,
    /// Value.
    pub value: f64,
    /// Half-width of the 90% confidence interval (Student t).
    pub half_width: f64,
    /// True when the interval contains 0: the term cannot be told apart from zero.
    pub contains_zero: bool,
}

/// A hypothesis fitted to data.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedModel {
    /// The hypothesis as written (`k1*p*sqrt(p) + k2`, `n*log2(p) + p + 1`, …).
    pub label: String,
    /// Coefficients in form order.
    pub coefficients: Vec<Coefficient>,
    /// The model with all constants explicit (docs/models.md), in the data's unit.
    pub expr: Expr,
    /// Goodness of fit.
    pub quality: Quality,
    /// Fitted values at the data points.
    pub fitted: Vec<f64>,
    /// True when the form was fitted by the nonlinear solver.
    pub nonlinear: bool,
}

/// Why a hypothesis could not be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// Too few points or a singular design.
    #[error("{source_name}: `{label}`: {error}")]
    Linear {
        /// Data file.
        source_name: String,
        /// The form.
        label: String,
        /// What went wrong.
        error: LinearError,
    },
    /// A term is NaN or infinite at a data point (`log2(0)`, `1/p` at p = 0, …).
    #[error(
        "{source_name}: line {line}: `{label}`: term `{term}` is not finite ({value}) at {at}"
    )]
    NotFinite {
        /// Data file.
        source_name: String,
        /// 1-based line of the point.
        line: usize,
        /// The form.
        label: String,
        /// The term.
        term: String,
        /// The value.
        value: f64,
        /// The point, printed.
        at: String,
    },
    /// A term uses a name that has no value.
    #[error("{source_name}: `{label}`: {error}")]
    Eval {
        /// Data file.
        source_name: String,
        /// The form.
        label: String,
        /// What went wrong.
        error: EvalError,
    },
    /// A search constraint that does not fit the data set.
    #[error("{source_name}: {message}")]
    Constraint {
        /// Data file.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// The nonlinear solver found no finite optimum.
    #[error("{source_name}: `{label}`: the nonlinear fit did not converge to a finite optimum")]
    NoConvergence {
        /// Data file.
        source_name: String,
        /// The form.
        label: String,
    },
}

/// Variable bindings of point `i`.
pub(crate) fn bindings(data: &Dataset, i: usize) -> Bindings {
    data.variables
        .iter()
        .cloned()
        .zip(data.points[i].x.iter().copied())
        .collect()
}

pub(crate) fn point_text(data: &Dataset, i: usize) -> String {
    data.variables
        .iter()
        .zip(&data.points[i].x)
        .map(|(v, x)| format!("{v}={x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Evaluates `term` at every point, reporting the line of a non-finite value.
pub(crate) fn column(data: &Dataset, label: &str, term: &Expr) -> Result<Vec<f64>, FitError> {
    let mut col = Vec::with_capacity(data.len());
    for i in 0..data.len() {
        let b = bindings(data, i);
        let v = term
            .eval_with(&|n| b.get(n).copied())
            .map_err(|error| FitError::Eval {
                source_name: data.source.clone(),
                label: label.into(),
                error,
            })?;
        if !v.is_finite() {
            return Err(FitError::NotFinite {
                source_name: data.source.clone(),
                line: data.points[i].line,
                label: label.into(),
                term: term.to_string(),
                value: v,
                at: point_text(data, i),
            });
        }
        col.push(v);
    }
    Ok(col)
}

/// Fits a hypothesis to the data.
pub fn fit(h: &Hypothesis, data: &Dataset) -> Result<FittedModel, FitError> {
    match &h.kind {
        HypothesisKind::Linear { terms } => {
            let cols = terms
                .iter()
                .map(|t| column(data, &h.label, t))
                .collect::<Result<Vec<_>, _>>()?;
            fit_linear_columns(&h.label, terms, &cols, data)
        }
        HypothesisKind::Nonlinear { form, params } => {
            crate::nonlinear::fit_nonlinear(&h.label, form, params, data)
        }
    }
}

/// Fits precomputed columns of `terms` (used by the search, which caches columns).
pub(crate) fn fit_linear_columns(
    label: &str,
    terms: &[Expr],
    cols: &[Vec<f64>],
    data: &Dataset,
) -> Result<FittedModel, FitError> {
    let scale = relative_scale(&data.ys());
    fit_linear_columns_scaled(label, terms, cols, data, &scale)
}

/// Fits the linear form of `terms` to `data` minimizing `Σ ((ŷ_i − y_i) / scale_i)²`
/// (errors relative to a given per-point scale instead of the values themselves).
pub fn fit_linear_scaled(
    terms: &[Expr],
    data: &Dataset,
    scale: &[f64],
) -> Result<FittedModel, FitError> {
    let label =
        Expr::linear_combination(&terms.iter().map(|t| (1.0, t.clone())).collect::<Vec<_>>())
            .to_string();
    let cols = terms
        .iter()
        .map(|t| column(data, &label, t))
        .collect::<Result<Vec<_>, _>>()?;
    fit_linear_columns_scaled(&label, terms, &cols, data, scale)
}

fn fit_linear_columns_scaled(
    label: &str,
    terms: &[Expr],
    cols: &[Vec<f64>],
    data: &Dataset,
    scale: &[f64],
) -> Result<FittedModel, FitError> {
    let y = data.ys();
    let lf = fit_columns_weighted(cols, &y, scale).map_err(|error| FitError::Linear {
        source_name: data.source.clone(),
        label: label.into(),
        error,
    })?;
    let quality = Quality::weighted(&y, &lf.fitted, &lf.loo_predictions, terms.len(), scale);
    let coefficients = terms
        .iter()
        .enumerate()
        .map(|(j, t)| Coefficient {
            name: format!("k{}", j + 1),
            term: Some(t.to_string()),
            value: lf.coefficients[j],
            half_width: lf.half_widths[j],
            contains_zero: lf.coefficients[j].abs().partial_cmp(&lf.half_widths[j])
                != Some(std::cmp::Ordering::Greater),
        })
        .collect();
    let expr = Expr::linear_combination(
        &terms
            .iter()
            .zip(&lf.coefficients)
            .map(|(t, c)| (round_sig(*c, 6), t.clone()))
            .collect::<Vec<_>>(),
    );
    Ok(FittedModel {
        label: label.into(),
        coefficients,
        expr,
        quality,
        fitted: lf.fitted,
        nonlinear: false,
    })
}

/// Rounds to `digits` significant digits (so emitted models read `2.09e-9*n^2`, not
/// `2.0900000000000003e-9*n^2`).
pub fn round_sig(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let mag = v.abs().log10().floor() as i32;
    let scale = 10f64.powi(digits - 1 - mag);
    if !scale.is_finite() || scale == 0.0 {
        return v;
    }
    let r = (v * scale).round() / scale;
    // Round-trip through text to land on the shortest representation.
    format!("{:.*e}", (digits - 1).max(0) as usize, r)
        .parse()
        .unwrap_or(r)
}

impl FittedModel {
    /// Evaluates the fitted model at the given variable values.
    pub fn predict(&self, vars: &Bindings) -> Result<f64, EvalError> {
        self.expr.eval(vars)
    }

    /// True when some coefficient's interval contains 0.
    pub fn has_needless_term(&self) -> bool {
        self.coefficients.iter().any(|c| c.contains_zero)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::DataPoint;

    fn data(f: impl Fn(f64) -> f64, xs: &[f64]) -> Dataset {
        Dataset::new(
            "li",
            &["p"],
            xs.iter()
                .enumerate()
                .map(|(i, &x)| DataPoint {
                    x: vec![x],
                    y: f(x),
                    line: i + 1,
                })
                .collect(),
        )
    }

    #[test]
    fn fits_a_formula() {
        let d = data(|p| 3.0 * p * p.sqrt() + 0.5, &[1.0, 2.0, 4.0, 8.0, 16.0]);
        let h = Hypothesis::formula("p*sqrt(p) + 1", &["p".into()]).unwrap();
        let m = fit(&h, &d).unwrap();
        assert!((m.coefficients[0].value - 3.0).abs() < 1e-10);
        assert!((m.coefficients[1].value - 0.5).abs() < 1e-9);
        assert_eq!(m.expr.to_string(), "3*p*sqrt(p) + 0.5");
        assert!(m.quality.r2 > 0.999_999);
    }

    #[test]
    fn non_finite_term_names_the_line() {
        let d = data(|p| p, &[0.0, 1.0, 2.0]);
        let h = Hypothesis::formula("log2(p) + 1", &["p".into()]).unwrap();
        let e = fit(&h, &d).unwrap_err();
        assert!(e.to_string().starts_with("-: line 1: `log2(p) + 1`"), "{e}");
    }

    #[test]
    fn rounding() {
        assert_eq!(round_sig(2.090_000_000_000_000_3e-9, 6), 2.09e-9);
        assert_eq!(round_sig(-123.456_789, 4), -123.5);
        assert_eq!(round_sig(0.0, 6), 0.0);
    }
}
