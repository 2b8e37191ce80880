//! Models that turn negative beyond their data.
//!
//! A category of processor time other than the memory loss (which is negative where the
//! parallel run's work shrinks, e.g. when the data fit the caches of more processors) is
//! never negative. A form with terms of opposite signs can still be chosen: within the
//! measured range its terms balance, but the term that grows fastest carries a negative
//! coefficient and, some way beyond the data, the model falls through zero. The fit is
//! right where it was measured; the form says nothing true beyond that point. The policy
//! keeps such a form when it wins on the data (it does not know how far a user will
//! extrapolate) and says where it turns negative, so that the user knows the distance at
//! which the model stops meaning anything, and `lca eval` flags a negative value where it is
//! evaluated ([`crate::evaluate`]).

use crate::expr::{Bindings, Expr};
use crate::range::VarRange;

/// How far beyond the largest measured value a variable is scanned, as a multiple of it.
pub const SCAN_FACTOR: f64 = 1000.0;

/// Scan steps per doubling of the variable.
const STEPS_PER_DOUBLING: f64 = 4.0;

/// Whether `category` measures a time that cannot be negative (every category but the
/// memory loss `ml`, which a parallel run's smaller work makes negative).
pub fn never_negative(category: &str) -> bool {
    category != "ml"
}

/// The first value of a variable, scanning each size variable (every variable of `ranges`
/// but `p`) upward from its largest measured value to [`SCAN_FACTOR`] times it, at which
/// `model` of `category` evaluates negative, the other variables at their largest measured
/// values: the variable, that value and its largest measured value. None when the model
/// stays non-negative over every scan (or the category is ml).
pub fn turns_negative(
    category: &str,
    model: &Expr,
    ranges: &[VarRange],
) -> Option<(String, f64, f64)> {
    if !never_negative(category) {
        return None;
    }
    let at_max: Bindings = ranges.iter().map(|r| (r.var.clone(), r.max)).collect();
    let steps = (SCAN_FACTOR.log2() * STEPS_PER_DOUBLING).ceil() as i32;
    for r in ranges
        .iter()
        .filter(|r| r.var != super::PROCESSORS && r.max > 0.0)
    {
        let mut b = at_max.clone();
        for i in 0..=steps {
            let x = r.max * 2f64.powf(f64::from(i) / STEPS_PER_DOUBLING);
            b.insert(r.var.clone(), x);
            if model.eval(&b).is_ok_and(|v| v < 0.0) {
                return Some((r.var.clone(), x, r.max));
            }
        }
    }
    None
}

/// The note for a model that [`turns_negative`]: where, and why it matters.
pub fn note(var: &str, at: f64, max: f64) -> String {
    format!(
        "turns negative at {var} ≈ {} ({:.1}x the largest measured {var} = {}): terms of opposite signs cross there, and its predictions stop meaning anything some way before that",
        crate::expr::format_number(crate::fit::round_sig(at, 2)),
        at / max,
        crate::expr::format_number(max)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::fit_fragment;
    use crate::record::parse_records;

    /// Work measured at n = 1..16 that a form with a negative leading term fits: the
    /// policy may choose any form, but if the chosen one falls through zero beyond the data
    /// the note must say where; a plain linear work gets no such note.
    fn notes_for(work: impl Fn(f64) -> f64) -> Vec<String> {
        let mut text = String::new();
        for n in [1.0, 2.0, 4.0, 8.0, 16.0] {
            text.push_str(&format!("n={n} p=1 pc={} tt={}\n", work(n), work(n)));
        }
        let records = parse_records(&text).unwrap();
        let m = fit_fragment(
            &records,
            "t",
            None,
            &["n".to_string()],
            &crate::extraction::Extraction::default(),
        )
        .unwrap();
        m.notes
    }

    #[test]
    fn linear_work_gets_no_sign_note() {
        let notes = notes_for(|n| 2e-3 * n + 1e-4);
        assert!(
            !notes.iter().any(|n| n.contains("turns negative")),
            "{notes:?}"
        );
    }

    #[test]
    fn a_model_with_a_negative_leading_term_is_scanned() {
        let model: Expr = "3e-3*n - 1e-5*n^2".parse().unwrap();
        let ranges = [VarRange::new("n", 1.0, 16.0)];
        let (var, at, max) = turns_negative("pc", &model, &ranges).expect("turns negative");
        assert_eq!((var.as_str(), max), ("n", 16.0));
        // 3e-3 n = 1e-5 n² at n = 300: the first scanned value beyond it.
        assert!(at > 300.0 && at < 300.0 * 2f64.powf(0.25) + 1e-9, "{at}");
        assert!(turns_negative("ml", &model, &ranges).is_none());
        let far: Expr = "3e-3*n - 1e-9*n^2".parse().unwrap();
        assert!(
            turns_negative("pc", &far, &ranges).is_none(),
            "beyond 1000x"
        );
    }
}
