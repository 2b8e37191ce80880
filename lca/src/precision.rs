//! Printing a fitted model with the digits its confidence intervals justify.
//!
//! A coefficient is written down to the decimal place of the leading digit of its 90%
//! half-width: `2.0934e-9 ± 6.3e-11` (± 3%) prints as `2.09e-9`, `(5.1 ± 1.7)` as `5`. The
//! rounding moves the value by at most half a unit of that place, so by at most half the
//! half-width: the printed model stays inside the fit's own confidence region term by term.
//! Bounds: at least [`MIN_DIGITS`] significant digit, at most [`MAX_DIGITS`] (an exact fit,
//! half-width 0, prints 6 digits as before); a half-width that is unknown (too few points
//! for an interval: NaN or infinite) gives [`UNKNOWN_DIGITS`].
//!
//! The selected model's expression ([`FittedModel::expr`]) keeps 6 significant digits for
//! computation; [`justified_expr`] is what `lca` prints (the `Selected:` line, `lca model`'s
//! table and `T(n, p)` line, and `--emit annotation`).
//!
//! ```
//! use lca::precision::justified_digits;
//! assert_eq!(justified_digits(2.0934e-9, 0.03 * 2.0934e-9), 3);
//! assert_eq!(justified_digits(5.1, 1.7), 1);
//! assert_eq!(justified_digits(3.3e-5, 0.0), 6);
//! ```

use crate::expr::{self, Expr};
use crate::fit::{round_sig, FittedModel};
use std::collections::BTreeMap;

/// Fewest significant digits printed (a coefficient whose interval contains 0 still shows
/// its sign and magnitude).
pub const MIN_DIGITS: i32 = 1;
/// Most significant digits printed (the precision of [`FittedModel::expr`]).
pub const MAX_DIGITS: i32 = 6;
/// Digits printed when the interval is unknown.
pub const UNKNOWN_DIGITS: i32 = 3;

/// Significant digits of `value` that a 90% half-width `half_width` justifies: the digits
/// down to the decimal place of the half-width's leading digit.
pub fn justified_digits(value: f64, half_width: f64) -> i32 {
    if value == 0.0 || !value.is_finite() {
        return MAX_DIGITS;
    }
    if !half_width.is_finite() {
        return UNKNOWN_DIGITS;
    }
    if half_width <= 0.0 {
        return MAX_DIGITS;
    }
    let place_value = value.abs().log10().floor() as i32;
    let place_width = half_width.log10().floor() as i32;
    (place_value - place_width + 1).clamp(MIN_DIGITS, MAX_DIGITS)
}

/// `value` rounded to the digits its half-width justifies.
pub fn justified_value(value: f64, half_width: f64) -> f64 {
    round_sig(value, justified_digits(value, half_width))
}

/// The model with every coefficient rounded to the digits its interval justifies.
///
/// Linear models are rebuilt as `Σ coefficient · term`, nonlinear ones by substituting the
/// coefficients into the form. When the rebuilt model at full precision does not print
/// exactly as [`FittedModel::expr`] (a model built some other way), `expr` is returned
/// unchanged: rounding never changes a model's shape.
pub fn justified_expr(m: &FittedModel) -> Expr {
    let rebuild = |round: &dyn Fn(f64, f64) -> f64| -> Option<Expr> {
        if m.nonlinear {
            let form = expr::parse(&m.label).ok()?;
            let subst: BTreeMap<String, Expr> = m
                .coefficients
                .iter()
                .map(|c| (c.name.clone(), Expr::Num(round(c.value, c.half_width))))
                .collect();
            return Some(form.substitute(&subst));
        }
        let mut terms = Vec::with_capacity(m.coefficients.len());
        for c in &m.coefficients {
            let term = expr::parse(c.term.as_deref()?).ok()?;
            terms.push((round(c.value, c.half_width), term));
        }
        Some(Expr::linear_combination(&terms))
    };
    let full = rebuild(&|v, _| round_sig(v, MAX_DIGITS));
    if full.map(|e| e.to_string()) != Some(m.expr.to_string()) {
        return m.expr.clone();
    }
    rebuild(&justified_value).unwrap_or_else(|| m.expr.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{DataPoint, Dataset};
    use crate::fit::fit;
    use crate::hypothesis::Hypothesis;

    #[test]
    fn digits_follow_the_interval() {
        assert_eq!(justified_digits(2.0934e-9, 6.3e-11), 3);
        assert_eq!(justified_value(2.0934e-9, 6.3e-11), 2.09e-9);
        assert_eq!(justified_digits(123.456, 5.0), 3);
        assert_eq!(justified_value(-123.456, 0.05), -123.46);
        assert_eq!(justified_digits(0.5, 2.0), MIN_DIGITS);
        assert_eq!(justified_digits(1.0, f64::NAN), UNKNOWN_DIGITS);
        assert_eq!(justified_digits(1.0, 1e-20), MAX_DIGITS);
        // The rounding moves the value by at most half the half-width.
        for (v, h) in [
            (2.0934e-9, 6.3e-11),
            (7.77, 0.9),
            (0.031, 0.0049),
            (-5.5, 1.1),
        ] {
            assert!(
                (justified_value(v, h) - v).abs() <= h / 2.0 + 1e-15,
                "{v} {h}"
            );
        }
    }

    /// A noisy linear fit prints fewer digits; an exact one keeps its 6.
    #[test]
    fn noisy_fit_prints_fewer_digits() {
        let pts = (1..=10)
            .map(|p| {
                let p = p as f64;
                let wiggle = if p as i64 % 2 == 0 { 1.03 } else { 0.97 };
                DataPoint {
                    x: vec![p],
                    y: 2.0934e-3 * p * wiggle,
                    line: 0,
                }
            })
            .collect();
        let d = Dataset::new("rt", &["p"], pts);
        let m = fit(&Hypothesis::formula("p", &d.variables).unwrap(), &d).unwrap();
        let c = &m.coefficients[0];
        let digits = justified_digits(c.value, c.half_width);
        assert!(digits < 5, "{c:?}");
        let printed = justified_expr(&m).to_string();
        assert!(
            printed.len() < m.expr.to_string().len(),
            "{printed} {}",
            m.expr
        );
        assert!(printed.ends_with("*p"), "{printed}");
        let exact = Dataset::new(
            "rt",
            &["p"],
            (1..=5)
                .map(|p| DataPoint {
                    x: vec![p as f64],
                    y: 1.234567e-3 * p as f64,
                    line: 0,
                })
                .collect(),
        );
        let m = fit(&Hypothesis::formula("p", &exact.variables).unwrap(), &exact).unwrap();
        assert_eq!(justified_expr(&m).to_string(), "0.00123457*p");
    }
}
