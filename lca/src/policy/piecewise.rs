//! Measurements that change regime between measured points: the piecewise power law
//! through the configurations' medians, `pw(x, x1, y1, …)` (docs/models.md), and the rule
//! that lets it replace the smooth forms.
//!
//! A smooth form (the search's, a power law, a single term) describes a quantity that
//! follows one law over the measured range. Some do not: the search of a program that stops
//! after k solutions does a different amount of work per solution at every k (where the
//! solutions lie, what the branch predictor has learnt), and no form of k passes through
//! the measurements; the best one misses some by 40 %. The measured medians are then a
//! better model at the measured points than any form, and the piecewise power law keeps
//! them: exact at every measured value, a power law between neighbours (a straight line in
//! log-log space), the end pieces' power laws beyond the range.
//!
//! It is a candidate only for a quantity of one variable with positive values at four or
//! more measured values, and it is chosen only on evidence ([`choose`]):
//!
//! 1. **Lack of fit**: the best smooth form misses the observations by more than
//!    [`LACK_OF_FIT`] times their noise in the mean (errors relative to the fragment's
//!    time, as every held-out error of the policy). The noise is the median over the
//!    repeated configurations of the repetitions' half-range relative to the time, at
//!    least [`NOISE_FLOOR`]; without repetitions, [`UNREPEATED_NOISE`] (the run-to-run
//!    spread of a run time on a quiet machine).
//! 2. **Error at and between the measured points**: the piecewise law is exact at the
//!    measured points, where the smooth form misses by its in-sample error; rebuilt without
//!    each configuration in turn and without the largest values (the policy's folds,
//!    [`super::heldout`]), it predicts them with its held-out score. It is chosen when
//!    that score is below the smooth form's held-out score plus its in-sample error: what
//!    it loses between and beyond the measured points is less than what the smooth form
//!    loses at them. Where no form follows the measurements, interpolation cannot predict
//!    a left-out point much better than a form does (it knows no more between the
//!    points), so the piecewise law is not charged the penalty per coefficient: it is an
//!    interpolation, not a fitted law, and it carries its own warning instead (beyond its
//!    first and last point, `lca eval` and `lcm` warn, [`crate::range::check`]).
//!
//! A smooth form that fits within the noise keeps the choice, whatever the held-out errors.
//! The notes say where the regime changes: between the two measured points of the piece
//! whose local exponent departs most from the median exponent of the pieces.

use super::candidates::Candidate;
use super::category::PiecewiseChoice;
use super::choose::{Ranked, Weighed};
use super::heldout::{held_out, in_sample};
use super::observations::{median, Observations};
use crate::dataset::Dataset;
use crate::expr::{format_number, BinOp, Expr, Func};
use crate::fit::{round_sig, FittedModel};
use crate::linear::Quality;
use crate::record::Record;

/// How many times its noise the best smooth form must miss the observations by (mean
/// relative error) before the piecewise law may replace it.
pub const LACK_OF_FIT: f64 = 2.0;

/// The least noise assumed, whatever the repetitions show (relative to the time).
pub const NOISE_FLOOR: f64 = 0.02;

/// The noise assumed when no configuration was repeated: the run-to-run spread of a run
/// time on a quiet machine (the default uncertainty of `lcm compare`).
pub const UNREPEATED_NOISE: f64 = 0.05;

/// Fewest measured values the piecewise law is offered for.
pub const MIN_POINTS: usize = 4;

/// Significant digits of the table's values (medians of timings: their noise is percents).
const DIGITS: i32 = 4;

/// The piecewise power law through `data`'s points as an expression of its one variable;
/// None unless `data` has one variable, two or more points, and every value and measured
/// value is positive and finite (distinct values: one point per configuration).
pub fn table_expr(data: &Dataset) -> Option<Expr> {
    let [v] = &data.variables[..] else {
        return None;
    };
    let mut points: Vec<(f64, f64)> = data.points.iter().map(|p| (p.x[0], p.y)).collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let ok = points.len() >= 2
        && points
            .iter()
            .all(|&(x, y)| x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite())
        && points.windows(2).all(|w| w[0].0 < w[1].0);
    if !ok {
        return None;
    }
    let mut args = vec![Expr::var(v)];
    for (x, y) in points {
        args.push(Expr::Num(x));
        args.push(Expr::Num(round_sig(y, DIGITS)));
    }
    Some(Expr::call(Func::Pw, args))
}

/// The piecewise power law as a candidate (see the module docs for when it is offered).
pub fn candidate(data: &Dataset) -> Option<Candidate> {
    if data.variables.len() != 1 || data.distinct(0).len() < MIN_POINTS {
        return None;
    }
    let expr = table_expr(data)?;
    let label = format!("piecewise power law ({} points)", data.points.len());
    Some(table_candidate(
        expr,
        data,
        label,
        Box::new(|d, _| table_expr(d)),
    ))
}

/// A table model `expr` of `data` as a candidate: its values at the points, no fitted
/// coefficients, `refit` to rebuild it from training points.
fn table_candidate(
    expr: Expr,
    data: &Dataset,
    label: String,
    refit: Box<super::heldout::Refit<'static>>,
) -> Candidate {
    let y = data.ys();
    let fitted: Vec<f64> = data
        .points
        .iter()
        .map(|pt| expr.eval(&data.bindings(pt)).unwrap_or(f64::NAN))
        .collect();
    Candidate {
        terms: super::candidates::whole(&expr),
        model: FittedModel {
            label,
            coefficients: Vec::new(),
            quality: Quality::new(&y, &fitted, &fitted, y.len()),
            expr,
            fitted,
            nonlinear: true,
        },
        refit,
    }
}

/// The noise of `obs` relative to the fragment's time: the median over its repeated
/// configurations of `(max − min) / 2 / scale` of `category` among `records` (those at
/// `p = P` when `at_p` is `Some(P)`: `pc` measured at p = 1, an overhead at its one p > 1),
/// at least [`NOISE_FLOOR`]; [`UNREPEATED_NOISE`] when no configuration was repeated.
pub fn noise(obs: &Observations, records: &[&Record], category: &str, at_p: Option<f64>) -> f64 {
    let vars = &obs.data.variables;
    let mut spreads = Vec::new();
    for (pt, s) in obs.data.points.iter().zip(&obs.scale) {
        let values: Vec<f64> = records
            .iter()
            .filter(|r| at_p.is_none_or(|at| r.number(super::PROCESSORS).is_ok_and(|p| p == at)))
            .filter(|r| {
                vars.iter()
                    .zip(&pt.x)
                    .all(|(v, x)| r.number(v).is_ok_and(|y| y == *x))
            })
            .filter_map(|r| r.category(category).ok().flatten())
            .collect();
        if values.len() >= 2 && s.abs() > 0.0 {
            let (lo, hi) = values
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                    (a.min(v), b.max(v))
                });
            spreads.push((hi - lo) / 2.0 / s.abs());
        }
    }
    if spreads.is_empty() {
        UNREPEATED_NOISE
    } else {
        median(spreads).max(NOISE_FLOOR)
    }
}

/// Puts the piecewise law first in `ranked` when the evidence asks for it (see the module
/// docs): the best smooth form misses `obs` by more than [`LACK_OF_FIT`] times `noise`, and
/// the piecewise law's held-out score is below that form's held-out score plus that miss.
/// Returns true when it did. Its `score` is its held-out score (no penalty per
/// coefficient).
pub fn choose(obs: &Observations, ranked: &mut Ranked, noise: f64) -> bool {
    if ranked.untested {
        return false;
    }
    let Some(best) = ranked.weighed.first() else {
        return false;
    };
    let lack = in_sample(obs, &best.candidate.model.expr);
    if lack.is_nan() || lack <= LACK_OF_FIT * noise {
        return false;
    }
    let Some(c) = candidate(&obs.data) else {
        return false;
    };
    let h = held_out(obs, &*c.refit);
    if h.score.is_nan() || h.score > best.held_out.score + lack {
        return false;
    }
    ranked.weighed.insert(
        0,
        Weighed {
            candidate: c,
            held_out: h,
            score: h.score,
        },
    );
    true
}

/// The piecewise law of an overhead measured at one p > 1, `at_p`: `(p − 1)/(at_p − 1) ·
/// pw(x, …)` through the observations at `p = at_p` (variable `pi` is p), which vanishes at
/// p = 1 and grows with p as the smooth overhead forms measured at one p do (docs/models.md,
/// "Overheads measured at one p > 1"). None unless `data` has two variables, one of them
/// p, and the points at `at_p` make a table ([`table_expr`]).
fn overhead_expr(data: &Dataset, pi: usize, at_p: f64) -> Option<Expr> {
    if data.variables.len() != 2 || at_p <= 1.0 {
        return None;
    }
    let mut one = data.clone();
    one.variables.remove(pi);
    one.points.retain(|pt| pt.x[pi] == at_p);
    for pt in &mut one.points {
        pt.x.remove(pi);
    }
    let table = table_expr(&one)?;
    let p = Expr::var(&data.variables[pi]);
    let grows = Expr::bin(BinOp::Sub, p, Expr::Num(1.0));
    let grows = if at_p == 2.0 {
        grows
    } else {
        Expr::bin(BinOp::Div, grows, Expr::Num(at_p - 1.0))
    };
    Some(Expr::bin(BinOp::Mul, grows, table))
}

/// For an overhead measured at one p > 1 (`above`: its observations at `at_p`, over one
/// size variable and p, variable `pi`), puts the piecewise law `(p − 1)/(P − 1) · pw(x, …)`
/// first in `ranked` on the same evidence as [`choose`]: the best smooth form misses
/// `above` by more than [`LACK_OF_FIT`] times `noise`, and the piecewise law's held-out
/// score over the size variable is below that form's held-out score plus its miss. With
/// one p > 1 the overhead's dependence on the size is a quantity of one variable, which no
/// smooth form may follow (a search's speculative work that rises and falls with where
/// the answer lies). Returns the choice when it made it.
pub fn choose_overhead(
    above: &Observations,
    pi: usize,
    at_p: f64,
    ranked: &mut Ranked,
    noise: f64,
) -> Option<PiecewiseChoice> {
    if ranked.untested {
        return None;
    }
    let best = ranked.weighed.first()?;
    let lack = in_sample(above, &best.candidate.model.expr);
    if lack.is_nan() || lack <= LACK_OF_FIT * noise {
        return None;
    }
    let one = above.at(&above.data.variables[pi], at_p)?;
    if one.data.distinct(0).len() < MIN_POINTS {
        return None;
    }
    let expr = overhead_expr(&above.data, pi, at_p)?;
    let refit = move |d: &Dataset, _: &[f64]| overhead_expr(d, pi, at_p);
    let h = held_out(above, &refit);
    if h.score.is_nan() || h.score > best.held_out.score + lack {
        return None;
    }
    let label = format!("(p-1)*piecewise power law ({} points)", above.len());
    let candidate = table_candidate(expr, &above.data, label, Box::new(refit));
    ranked.weighed.insert(
        0,
        Weighed {
            candidate,
            held_out: h,
            score: h.score,
        },
    );
    Some(PiecewiseChoice {
        smooth_miss: lack,
        noise,
    })
}

/// What a user must know of a chosen piecewise law of `obs` (variable `name`): that it
/// passes through the measured points, the piece whose local exponent departs most from
/// the median of the pieces' exponents (a regime changes between its two measured points,
/// and where exactly is not known), and that beyond the measured range the end pieces
/// extrapolate.
pub fn note(obs: &Observations, smooth_miss: f64, noise: f64) -> String {
    let name = &obs.data.variables[0];
    let pts = &obs.data.points;
    let exps: Vec<f64> = pts
        .windows(2)
        .map(|w| (w[1].y / w[0].y).ln() / (w[1].x[0] / w[0].x[0]).ln())
        .collect();
    let shown: Vec<String> = exps.iter().map(|e| format!("{e:.2}")).collect();
    let typical = median(exps.clone());
    let mut change = String::new();
    let odd = exps
        .iter()
        .enumerate()
        .map(|(i, e)| (i, (e - typical).abs()))
        .reduce(|a, b| if b.1 > a.1 { b } else { a });
    if let Some((i, _)) = odd.filter(|_| exps.len() >= 2) {
        change = format!(
            "; the piece from {name} = {} to {} departs most from the median exponent {typical:.2} ({:.2}): a regime changes between these measured points, where the model is uncertain",
            format_number(pts[i].x[0]),
            format_number(pts[i + 1].x[0]),
            exps[i],
        );
    }
    format!(
        "no smooth form fits: the best misses the measurements by {:.0} % of the time (noise {:.0} %), so the model is the piecewise power law through the {} measured points (exact there; local exponents along {name}: {}){change}; beyond {name} = {}..{} the end pieces extrapolate",
        100.0 * smooth_miss,
        100.0 * noise,
        pts.len(),
        shown.join(", "),
        format_number(pts[0].x[0]),
        format_number(pts[pts.len() - 1].x[0]),
    )
}

#[cfg(test)]
mod tests {
    use crate::extraction::Extraction;
    use crate::policy::fit_fragment;
    use crate::record::parse_records;

    /// Records of `pc = work(k)` at p = 1 and 2 (pc copied), each configuration twice with
    /// the relative noise `±noise`.
    fn records(work: impl Fn(f64) -> f64, noise: f64) -> String {
        let mut text = String::new();
        for k in [1.0f64, 10.0, 100.0, 1000.0, 10000.0, 100000.0] {
            for (i, f) in [1.0 + noise, 1.0 - noise].iter().enumerate() {
                let pc = work(k) * f;
                for p in [1.0, 2.0] {
                    let li = 1e-6 * (p - 1.0);
                    text += &format!(
                        "k={k} rep={i} p={p} li={li} pc={pc} rt={pc} tt={}\n",
                        pc + li
                    );
                }
            }
        }
        text
    }

    fn pc_model(text: &str) -> (String, Vec<String>) {
        let r = parse_records(text).unwrap();
        let vars = ["k".to_string(), "p".to_string()];
        let f = fit_fragment(&r, "t", None, &vars, &Extraction::default()).unwrap();
        (f.category("pc").unwrap().model.expr.to_string(), f.notes)
    }

    /// A smooth work with 3 % noise keeps its smooth form: the piecewise law is never the
    /// default.
    #[test]
    fn smooth_work_within_noise_keeps_a_smooth_form() {
        let (pc, notes) = pc_model(&records(|k| 2e-7 * k * (2.0 * k).log2(), 0.03));
        assert!(!pc.contains("pw("), "{pc}");
        assert!(!notes.iter().any(|n| n.contains("piecewise")), "{notes:?}");
    }

    /// Work per item that steps up 2.5-fold between k = 100 and 1000 (the working set
    /// leaving a cache; repetitions ±1 %): no form of k follows it, the piecewise law is
    /// chosen, is exact at the measured points, and the note places the change between
    /// k = 100 and 1000 (the piece of exponent 1.40; the others have 1).
    #[test]
    fn work_that_steps_between_measured_points_gets_the_piecewise_law() {
        let step = |k: f64| if k >= 1000.0 { 2.5e-7 * k } else { 1e-7 * k };
        let (pc, notes) = pc_model(&records(step, 0.01));
        assert!(
            pc.starts_with("pw(k, 1, 1e-7, 10, 1e-6, 100, 1e-5, 1000, 0.00025"),
            "{pc}"
        );
        let e = crate::expr::parse(&pc).unwrap();
        let at = |k: f64| {
            e.eval(&[("k".to_string(), k)].into_iter().collect())
                .unwrap()
        };
        assert!((at(10000.0) / 2.5e-3 - 1.0).abs() < 1e-3);
        let note = notes.iter().find(|n| n.contains("piecewise power law"));
        assert!(
            note.is_some_and(|n| n.contains("the piece from k = 100 to 1000 departs most")),
            "{notes:?}"
        );
    }

    /// Records of pc = 1e-7·k at p = 1 and 2 with the overhead `sl = wait(k)` at p = 2,
    /// each configuration twice with ±1 % noise.
    fn overhead_records(wait: impl Fn(f64) -> f64) -> String {
        let mut text = String::new();
        for k in [1.0f64, 10.0, 100.0, 1000.0, 10000.0, 100000.0] {
            for (i, f) in [1.01, 0.99].iter().enumerate() {
                let pc = 1e-7 * k * f;
                text += &format!("k={k} rep={i} p=1 pc={pc} rt={pc} tt={pc}\n");
                let sl = wait(k) * f;
                text += &format!("k={k} rep={i} p=2 sl={sl} pc={pc} rt={pc} tt={}\n", pc + sl);
            }
        }
        text
    }

    fn sl_model(text: &str) -> (String, Vec<String>) {
        let r = parse_records(text).unwrap();
        let vars = ["k".to_string(), "p".to_string()];
        let f = fit_fragment(&r, "t", None, &vars, &Extraction::default()).unwrap();
        (f.category("sl").unwrap().model.expr.to_string(), f.notes)
    }

    /// Lock waits at p = 2 that step from 0.1 % to half the work between k = 100 and 1000
    /// (measured at one p > 1): no form of k follows them, and the overhead becomes the
    /// piecewise law at p = 2 scaled by p − 1, exact at the measured points, with a note.
    #[test]
    fn an_overhead_that_steps_at_one_p_gets_the_piecewise_law() {
        let step = |k: f64| if k >= 1000.0 { 5e-8 * k } else { 1e-10 * k };
        let (sl, notes) = sl_model(&overhead_records(step));
        assert!(sl.starts_with("(p - 1)*pw(k, 1, 1e-10, "), "{sl}");
        let e = crate::expr::parse(&sl).unwrap();
        let at = |k: f64, p: f64| {
            e.eval(
                &[("k".to_string(), k), ("p".to_string(), p)]
                    .into_iter()
                    .collect(),
            )
            .unwrap()
        };
        assert!((at(10000.0, 2.0) / 5e-4 - 1.0).abs() < 1e-3);
        assert!((at(10000.0, 3.0) / 1e-3 - 1.0).abs() < 1e-3);
        assert_eq!(at(10000.0, 1.0), 0.0);
        assert!(
            notes
                .iter()
                .any(|n| n.contains("category sl: at p = 2: no smooth form fits")),
            "{notes:?}"
        );
    }

    /// Waits that follow a smooth form within their noise keep it.
    #[test]
    fn a_smooth_overhead_at_one_p_keeps_a_smooth_form() {
        let (sl, notes) = sl_model(&overhead_records(|k| 2e-8 * k));
        assert!(!sl.contains("pw("), "{sl}");
        assert!(!notes.iter().any(|n| n.contains("piecewise")), "{notes:?}");
    }
}
