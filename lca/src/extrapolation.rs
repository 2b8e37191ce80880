//! How fast a fragment's models lose accuracy beyond their measured range.
//!
//! The models exist to extrapolate, and their error at the edge of the data says little
//! about their error at twice or ten times the largest measured size. lca measures it the
//! only way the data allows: for each variable, the fragment's models are fitted again
//! **without the configurations above half the variable's largest value**, and
//! - the refit predicts them: its mean relative error of the time there, less its mean
//!   error on the configurations it was fitted on (what the models miss inside the data,
//!   which the edge of the data already shows), per doubling the held-out configurations
//!   lie beyond the refit's largest value;
//! - the refit and the models written into the file (fitted on everything) are compared
//!   one doubling beyond the range, at the held-out configurations' other values: two
//!   models the data allows that part there by 30 % say that at least one of them is that
//!   far off, although each fits the data (a smooth law and a piecewise one through the
//!   same points); their mean |refit / written − 1|, per doubling from the refit's largest
//!   value to that point.
//!
//! The larger of the two is the **growth**: the relative error added per doubling of the
//! variable beyond the range. It measures the fitting as much as the fit: the written
//! models are never tested beyond their data (nothing is), so the growth is how far a fit
//! from less data went wrong one step out, and how far it parts from the written one.
//!
//! A variable needs at least three distinct values at or below half its largest value for
//! the refit to choose a form of it (`n = 64..1024` in powers of two: the refit sees
//! 64..512; `p = 1..2` has no growth: its growth in p was never tested). The growth is
//! written into the models file's range line (`// lcm: range n = 64..1024 (beyond: +4.2%
//! per 2x)`), and `lcm compare` widens a point's uncertainty by it: `growth · doublings`
//! for each variable the point lies beyond, the fragments weighed by their share of the
//! predicted time ([`widening`]).
//!
//! Growing linearly in the doublings is the first-order behaviour of an exponent that the
//! fit got slightly wrong (a time `x^(a+e)` modeled as `x^a` misses by `2^e − 1 ≈ e·ln 2`
//! more per doubling); a form that is wrong in kind grows faster, so the widening is a
//! floor on the risk, not a bound.
//!
//! ```
//! use lca::range::VarRange;
//! use lca::extrapolation::widening;
//! let n = VarRange::new("n", 64.0, 1024.0).with_growth(Some(0.04));
//! let value = |v: &str| (v == "n").then_some(4096.0);
//! // Two doublings beyond n = 1024, 4 % each.
//! assert!((widening(&[n.clone()], &value) - 0.08).abs() < 1e-12);
//! // Inside the range: nothing.
//! assert_eq!(widening(&[n], &|_: &str| Some(512.0)), 0.0);
//! ```

use crate::expr::Expr;
use crate::extraction::Extraction;
use crate::range::VarRange;
use crate::record::Record;
use crate::runtime::{fit_runtime, prediction_rows, RuntimeModel};
use crate::search::SearchOptions;

/// Distinct values of a variable the refit needs at or below half its largest value.
pub const MIN_REFIT_VALUES: usize = 3;

/// The relative error beyond the ranges at one point: Σ over the variables with a known
/// growth of `growth · doublings beyond` ([`VarRange::doublings_beyond`]); 0 inside every
/// range. `value_of` gives a variable's value at the point (None: not bound, skipped).
pub fn widening(ranges: &[VarRange], value_of: &dyn Fn(&str) -> Option<f64>) -> f64 {
    ranges
        .iter()
        .filter_map(|r| {
            let g = r.growth?;
            let v = value_of(&r.var)?;
            Some(g * r.doublings_beyond(v))
        })
        .filter(|x| x.is_finite())
        .sum()
}

/// `ranges` (of the fragment `tag` over `variables`) with the growth of each variable that
/// allows a refit ([`growth`]) of the models whose time is `emitted` (seconds, as written
/// into the models file); the others are returned as they came.
pub fn with_growths(
    records: &[Record],
    tag: Option<&str>,
    variables: &[String],
    extraction: &Extraction,
    ranges: Vec<VarRange>,
    emitted: &Expr,
) -> Vec<VarRange> {
    ranges
        .into_iter()
        .map(|r| {
            let g = growth(records, tag, variables, extraction, &r.var, emitted);
            r.with_growth(g)
        })
        .collect()
}

/// The growth beyond the range of `var` of fragment `tag`'s models, whose time is
/// `emitted` (see the module docs): the larger of the refit's held-out growth and its
/// disagreement with `emitted` one doubling beyond the range. None when `var` has fewer
/// than [`MIN_REFIT_VALUES`] distinct values at or below half its largest, or the refit
/// fails.
pub fn growth(
    records: &[Record],
    tag: Option<&str>,
    variables: &[String],
    extraction: &Extraction,
    var: &str,
    emitted: &Expr,
) -> Option<f64> {
    let mine: Vec<&Record> = records
        .iter()
        .filter(|r| r.tag() == tag && extraction.matches(r))
        .filter(|r| variables.iter().all(|v| r.has(v)) && r.has("tt"))
        .collect();
    let value = |r: &Record| r.number(var).ok();
    let largest = mine
        .iter()
        .filter_map(|r| value(r))
        .fold(f64::NAN, f64::max);
    if largest.is_nan() || largest <= 0.0 {
        return None;
    }
    let cut = largest / 2.0;
    let mut below: Vec<f64> = mine
        .iter()
        .filter_map(|r| value(r))
        .filter(|v| *v <= cut)
        .collect();
    below.sort_by(f64::total_cmp);
    below.dedup();
    if below.len() < MIN_REFIT_VALUES {
        return None;
    }
    let edge = below[below.len() - 1];
    let (train, test): (Vec<&Record>, Vec<&Record>) = mine
        .iter()
        .partition(|r| value(r).is_some_and(|v| v <= cut));
    let owned: Vec<Record> = train.iter().map(|r| (*r).clone()).collect();
    let m = fit_runtime(
        &owned,
        "extrapolation fold",
        tag,
        variables,
        &Extraction::default(),
        &SearchOptions::default(),
    )
    .ok()?;
    let inside = mean_error(&m, variables, &train)?;
    let beyond = mean_error(&m, variables, &test)?;
    let doublings = test
        .iter()
        .filter_map(|r| value(r))
        .map(|v| (v / edge).log2())
        .sum::<f64>()
        / test.len() as f64;
    if doublings <= 0.0 {
        return None;
    }
    let held_out = ((beyond - inside) / doublings).max(0.0);
    let apart = disagreement(&m.total, emitted, variables, &test, var, 2.0 * largest)
        .map_or(0.0, |d| d / (2.0 * largest / edge).log2());
    Some(held_out.max(apart))
}

/// The mean |refit / emitted − 1| of two time models at the configurations of `records`
/// with `var` moved to `at` (one doubling beyond the range): where two models the data
/// allows part, at least one of them is that far off. None when neither evaluates.
fn disagreement(
    refit: &Expr,
    emitted: &Expr,
    variables: &[String],
    records: &[&Record],
    var: &str,
    at: f64,
) -> Option<f64> {
    let gaps: Vec<f64> = records
        .iter()
        .filter_map(|r| {
            let mut b = bindings_of(variables, r)?;
            b.insert(var.to_string(), at);
            let (x, y) = (refit.eval(&b).ok()?, emitted.eval(&b).ok()?);
            let gap = (x / y - 1.0).abs();
            (gap.is_finite() && y > 0.0).then_some(gap)
        })
        .collect();
    (!gaps.is_empty()).then(|| gaps.iter().sum::<f64>() / gaps.len() as f64)
}

/// The mean |relative error| of `m`'s time at `records` ([`crate::runtime`]'s prediction
/// rows: `tt / p` measured); None when none can be evaluated.
fn mean_error(m: &RuntimeModel, variables: &[String], records: &[&Record]) -> Option<f64> {
    let owned: Vec<Record> = records.iter().map(|r| (*r).clone()).collect();
    let rows = prediction_rows(&owned, "extrapolation fold", variables, &m.total).ok()?;
    let errors: Vec<f64> = rows
        .iter()
        .map(|r| r.relative_error)
        .filter(|e| e.is_finite())
        .collect();
    (!errors.is_empty()).then(|| errors.iter().sum::<f64>() / errors.len() as f64)
}

/// The bindings of `variables` at record `r` (None when one is not a number).
fn bindings_of(variables: &[String], r: &Record) -> Option<crate::expr::Bindings> {
    variables
        .iter()
        .map(|v| r.number(v).ok().map(|x| (v.clone(), x)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    /// Records of a time `c·n^e` at n = 64..4096 (p = 1, 2, 4 with the work split
    /// perfectly), two repetitions each.
    fn records(e: f64) -> Vec<Record> {
        let mut text = String::new();
        for n in [64.0f64, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0] {
            for p in [1.0, 2.0, 4.0] {
                let pc = 1e-9 * n.powf(e);
                text += &format!("n={n} p={p} pc={pc} rt={pc} tt={pc}\n");
            }
        }
        parse_records(&text).unwrap()
    }

    /// The time model `lca model` fits to all of `recs` (over n, p).
    fn emitted(recs: &[Record]) -> Expr {
        let vars = ["n".to_string(), "p".to_string()];
        fit_runtime(
            recs,
            "t",
            None,
            &vars,
            &Extraction::default(),
            &SearchOptions::default(),
        )
        .unwrap()
        .total
    }

    /// Two models that fit the data alike but part beyond it: their disagreement one
    /// doubling beyond the range is growth, although the refit predicts its held-out
    /// values exactly (here the emitted model is a stand-in that doubles the time per
    /// doubling of n above the data).
    #[test]
    fn models_that_part_beyond_the_range_grow() {
        let recs = records(1.0);
        let vars = ["n".to_string(), "p".to_string()];
        let bent = crate::expr::parse("1e-9*n*max(1, n/4096)/p").unwrap();
        let g = growth(&recs, None, &vars, &Extraction::default(), "n", &bent).unwrap();
        // At n = 8192 the stand-in is 2x the refit's 1e-9*n: a gap of 1/2 (refit/emitted
        // - 1 = -0.5) over log2(8192 / 2048) = 2 doublings from the refit's edge.
        assert!((g - 0.25).abs() < 0.02, "growth {g}");
    }

    /// Time that follows one law on the whole range: the refit predicts the largest n as
    /// well as it fits the rest, so nothing grows.
    #[test]
    fn one_law_throughout_does_not_grow() {
        let vars = ["n".to_string(), "p".to_string()];
        let recs = records(2.0);
        let g = growth(
            &recs,
            None,
            &vars,
            &Extraction::default(),
            "n",
            &emitted(&recs),
        )
        .unwrap();
        assert!(g < 0.01, "growth {g}");
    }

    /// Work that turns from n^1 to n^2 above n = 1024 (a cache leaving): the refit on
    /// n <= 2048 misses n = 4096; the growth says by how much per doubling.
    #[test]
    fn a_regime_change_beyond_the_refit_grows() {
        let mut text = String::new();
        for n in [64.0f64, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0] {
            let pc = if n <= 1024.0 { 1e-6 * n } else { 1e-9 * n * n };
            text += &format!("n={n} p=1 pc={pc} rt={pc} tt={pc}\n");
        }
        let recs = parse_records(&text).unwrap();
        let vars = ["n".to_string(), "p".to_string()];
        let g = growth(
            &recs,
            None,
            &vars,
            &Extraction::default(),
            "n",
            &emitted(&recs),
        )
        .unwrap();
        assert!(g > 0.3, "growth {g}");
    }

    /// Too few values at or below half the largest: no growth (p = 1, 2, 4 has only
    /// 1 and 2 there).
    #[test]
    fn too_few_values_give_none() {
        let vars = ["n".to_string(), "p".to_string()];
        let recs = records(1.0);
        let e = emitted(&recs);
        assert_eq!(
            growth(&recs, None, &vars, &Extraction::default(), "p", &e),
            None
        );
    }

    #[test]
    fn widening_below_the_range_and_without_growth() {
        let n = VarRange::new("n", 64.0, 1024.0).with_growth(Some(0.05));
        let p = VarRange::new("p", 1.0, 2.0);
        let at = |v: &str| match v {
            "n" => Some(16.0),
            _ => Some(16.0),
        };
        let w = widening(&[n, p], &at);
        assert!((w - 0.10).abs() < 1e-12, "{w}");
    }
}
