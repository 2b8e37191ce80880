//! Evaluating a models file at a point (`lca eval`): each fragment's category models, its
//! run time `T = (li + ip + sl + wc + rt) / p` (the categories that
//! [`category::time::time_terms`] sums, of those present: `pc + ml` where there is no `rt`),
//! and the warnings of [`crate::range`] when the
//! point lies beyond 2x the fragment's measured range, and of a negative time
//! ([`Evaluation::negative`]).
//!
//! ```
//! use lca::annotation::parse_models;
//! use lca::evaluate::evaluate;
//! let m = parse_models("// lcm: fragment cols\n// lcm: range n = 64..1024, p = 1..16\n// lcm: rt = 2e-6*n\n// lcm: ip = 1e-3*(p - 1)\n").unwrap();
//! let at = [("n".to_string(), 4096.0), ("p".to_string(), 4.0)].into_iter().collect();
//! let e = evaluate(&m[0], &at).unwrap();
//! assert_eq!(e.categories[0], ("rt".to_string(), 2e-6 * 4096.0));
//! assert!((e.seconds.unwrap() - (2e-6 * 4096.0 + 3e-3) / 4.0).abs() < 1e-15);
//! assert_eq!(e.warnings.len(), 1);
//! assert_eq!(e.warnings[0].categories, ["rt"]);
//! assert!(e.negative.is_empty());
//! ```

use crate::annotation::FragmentModel;
use crate::expr::{Bindings, EvalError};
use crate::range::{check, RangeWarning};
use serde::Serialize;

/// One fragment's models evaluated at one point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    /// The fragment.
    pub fragment: String,
    /// The point.
    pub at: Bindings,
    /// `(category, processor-seconds)` in file order.
    pub categories: Vec<(String, f64)>,
    /// `T = (Σ summed categories) / p` in seconds ([`category::time`]); `None` when `p` has
    /// no value or no category that sums into the time is present.
    pub seconds: Option<f64>,
    /// The variables beyond 2x the measured range, with the models that use them.
    pub warnings: Vec<RangeWarning>,
    /// The categories that came out negative although they measure a time that cannot be
    /// ([`crate::policy::sign::never_negative`]: every category but `ml`), and `T` when
    /// the time itself is negative: a model used where its terms of opposite signs cross.
    pub negative: Vec<String>,
    /// The relative error the models may add here beyond their measured range
    /// ([`crate::extrapolation::widening`]: the range line's growth times the doublings
    /// beyond it; 0 inside the range or where no growth is known), a fraction.
    pub extrapolation_error: f64,
}

impl Evaluation {
    /// The warning for [`Evaluation::negative`], if any.
    pub fn negative_warning(&self) -> Option<String> {
        if self.negative.is_empty() {
            return None;
        }
        let at: Vec<String> = self
            .at
            .iter()
            .map(|(k, v)| format!("{k}={}", crate::expr::format_number(*v)))
            .collect();
        Some(format!(
            "fragment `{}` at {}: {} negative, a time that cannot be: the model is used where its terms of opposite signs cross (see `lca model`'s notes), and its prediction here means nothing",
            self.fragment,
            at.join(" "),
            self.negative.join(", ")
        ))
    }
}

/// Evaluates every category of `fm` at `at` (which must bind each variable the models use).
pub fn evaluate(fm: &FragmentModel, at: &Bindings) -> Result<Evaluation, EvalError> {
    let categories = fm
        .categories
        .iter()
        .map(|(c, e)| Ok((c.clone(), e.eval(at)?)))
        .collect::<Result<Vec<_>, EvalError>>()?;
    let terms = category::time::time_terms_of_keys(categories.iter().map(|(c, _)| c.as_str()));
    let parts: Vec<f64> = categories
        .iter()
        .filter(|(c, _)| category::time::counts(&terms, c))
        .map(|(_, v)| *v)
        .collect();
    let seconds = match at.get("p") {
        Some(p) if !parts.is_empty() => Some(parts.iter().sum::<f64>() / p),
        _ => None,
    };
    let warnings = check(&fm.name, &fm.ranges, &fm.categories, &|v| {
        at.get(v).copied()
    });
    let mut negative: Vec<String> = categories
        .iter()
        .filter(|(c, v)| *v < 0.0 && crate::policy::sign::never_negative(c))
        .map(|(c, _)| c.clone())
        .collect();
    if seconds.is_some_and(|t| t < 0.0) {
        negative.push("T".to_string());
    }
    let extrapolation_error =
        crate::extrapolation::widening(&fm.ranges, &|v: &str| at.get(v).copied());
    Ok(Evaluation {
        fragment: fm.name.clone(),
        at: at.clone(),
        categories,
        seconds,
        warnings,
        negative,
        extrapolation_error,
    })
}
