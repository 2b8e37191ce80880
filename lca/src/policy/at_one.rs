//! Overheads of running in parallel that do not vanish at p = 1.
//!
//! `pp` counts a processor as idle (`li`) whenever a parallel region is open and the
//! processor runs no task, also with one thread: while the runtime walks the items between
//! task bodies, the only processor waits. So an overhead's p = 1 value is measured, not 0 by
//! definition, and the p = 1 records' `pc` does not hold it (`tt = pc + li + …`). Where it
//! is **material at p = 1** ([`material_at_one`]: at some measured p = 1 configuration
//! its share of the time is above [`MATERIAL_SHARE`] and above the noise of the records
//! there), the policy weighs the category on every observation, p = 1 included, and adds
//! candidates that keep a p = 1 part ([`keeping_p1_part`]): `g(size) + v(size, p)`, with
//! `g` the best model of the p = 1 observations (the search, the power law, every single
//! growth term, a constant; chosen by its held-out error there) and `v` each vanishing
//! candidate, fitted on the p > 1 observations less `g` (so `g(n) + (p − 1)·f(n)` where
//! `v` is `(p − 1)·f`). The vanishing candidates compete beside them, refitted on the
//! p > 1 observations as before; at p = 1 they predict 0, and the held-out error says
//! whether keeping the p = 1 part pays. A user's forms (`lca -c CATEGORY --auto` with
//! formulae) are then fitted to every observation too. Where the category is not material
//! at p = 1, nothing of this applies: it is fitted on the p > 1 observations only.

use super::candidates::{self, Candidate};
use super::choose::{rank, Floor};
use super::heldout::Refit;
use super::observations::Observations;
use super::piecewise;
use super::MATERIAL_SHARE;
use crate::dataset::Dataset;
use crate::expr::{BinOp, Expr};
use crate::linear::Quality;
use crate::record::Record;
use std::rc::Rc;

/// The largest share of the fragment's time (`|y| / tt`) that `obs` (one overhead, with
/// the processor count at index `pi`) holds at a p = 1 configuration, when it is above
/// both [`MATERIAL_SHARE`] and the noise of the category's p = 1 records
/// ([`piecewise::noise`]: half the spread of repetitions relative to the time, at least 2 %;
/// 5 % when no configuration was repeated); None otherwise (no p = 1 observation, or all
/// of them below that).
pub fn material_at_one(
    obs: &Observations,
    records: &[&Record],
    category: &str,
    pi: usize,
) -> Option<f64> {
    let at1 = obs.filter(|pt| pt.x[pi] == 1.0);
    let largest = at1
        .data
        .points
        .iter()
        .zip(&at1.scale)
        .filter(|(_, s)| s.abs() > 0.0)
        .map(|(pt, s)| (pt.y / s).abs())
        .fold(0.0, f64::max);
    let noise = piecewise::noise(&at1, records, category, Some(1.0));
    (largest > MATERIAL_SHARE.max(noise)).then_some(largest)
}

/// The p = 1 points of `data` (processor count at `pi`) without the processor count, and
/// their scales.
fn at_one(data: &Dataset, scale: &[f64], pi: usize) -> (Dataset, Vec<f64>) {
    let mut out = data.clone();
    out.variables.remove(pi);
    out.points.clear();
    let mut s = Vec::new();
    for (pt, sc) in data.points.iter().zip(scale) {
        if pt.x[pi] == 1.0 {
            let mut pt = pt.clone();
            pt.x.remove(pi);
            out.points.push(pt);
            s.push(*sc);
        }
    }
    (out, s)
}

/// The p > 1 points of `data` (processor count at `pi`), with their scales.
fn above_one(data: &Dataset, scale: &[f64], pi: usize) -> (Dataset, Vec<f64>) {
    let mut out = data.clone();
    out.points.clear();
    let mut s = Vec::new();
    for (pt, sc) in data.points.iter().zip(scale) {
        if pt.x[pi] > 1.0 {
            out.points.push(pt.clone());
            s.push(*sc);
        }
    }
    (out, s)
}

/// `g + v` fitted on `d` (all processor counts): `g` on the p = 1 points, `v` on the p > 1
/// points less `g`.
fn fit_split(d: &Dataset, s: &[f64], pi: usize, g: &Refit, v: &Refit) -> Option<Expr> {
    let (one, s1) = at_one(d, s, pi);
    let (mut rest, sr) = above_one(d, s, pi);
    if one.points.is_empty() || rest.points.is_empty() {
        return None;
    }
    let g = g(&one, &s1)?;
    let less: Option<Vec<f64>> = rest
        .points
        .iter()
        .map(|pt| g.eval(&rest.bindings(pt)).ok())
        .collect();
    for (pt, g_there) in rest.points.iter_mut().zip(less?) {
        pt.y -= g_there;
    }
    let v = v(&rest, &sr)?;
    if v == Expr::Num(0.0) {
        return Some(g);
    }
    Some(Expr::bin(BinOp::Add, g, v))
}

/// The best model of the p = 1 observations of `obs` (processor count at `pi`), as its
/// refit, its coefficients and its label; None when no form is plausible there (`floor`:
/// the least value the category may take).
fn best_p1_part(
    obs: &Observations,
    pi: usize,
    floor: &Floor,
) -> Option<(Rc<Refit<'static>>, usize, String)> {
    let (data, scale) = at_one(&obs.data, &obs.scale, pi);
    let mut cands = candidates::searched(&data, &scale, None);
    cands.extend(candidates::power_law(&data, &scale));
    cands.extend(candidates::single_terms(&data, &scale));
    cands.extend(candidates::constant(&data, &scale));
    let p1 = Observations {
        data,
        scale,
        records: obs.records,
    };
    let best = rank(&p1, cands, false, floor).weighed.into_iter().next()?;
    let c = best.candidate;
    Some((
        Rc::from(c.refit),
        c.model.quality.coefficients,
        c.model.label,
    ))
}

/// The candidates of an overhead that is material at p = 1, to be weighed on `obs` (every
/// processor count, the processor count at `pi`):
/// - each of `vanishing` (fitted on the p > 1 observations, the model 0 included), which
///   the held-out folds refit on their p > 1 training observations only, as it was fitted;
/// - each of them as `v` in `g + v`, `g` the best model of the p = 1 observations (fitted
///   on them), `v` fitted on the p > 1 observations less `g`; none when no model of the
///   p = 1 observations is plausible (`floor`: the least value the category may take).
pub fn keeping_p1_part(
    vanishing: Vec<Candidate>,
    obs: &Observations,
    pi: usize,
    floor: &Floor,
) -> Vec<Candidate> {
    let p1_part = best_p1_part(obs, pi, floor);
    let y = obs.data.ys();
    let mut out = Vec::new();
    let mut kept = Vec::new();
    for c in vanishing {
        let v: Rc<Refit<'static>> = Rc::from(c.refit);
        let own = Rc::clone(&v);
        if let Some((g, g_coefficients, g_label)) = &p1_part {
            let (g, v) = (Rc::clone(g), Rc::clone(&v));
            let refit = move |d: &Dataset, s: &[f64]| fit_split(d, s, pi, &*g, &*v);
            if let Some(expr) = refit(&obs.data, &obs.scale) {
                let fitted: Vec<f64> = obs
                    .data
                    .points
                    .iter()
                    .map(|pt| expr.eval(&obs.data.bindings(pt)).unwrap_or(f64::NAN))
                    .collect();
                let coefficients = g_coefficients + c.model.quality.coefficients;
                kept.push(Candidate {
                    terms: candidates::whole(&expr),
                    model: crate::fit::FittedModel {
                        label: format!("{g_label} at p = 1 + {}", c.model.label),
                        coefficients: Vec::new(),
                        quality: Quality::new(&y, &fitted, &fitted, coefficients),
                        expr,
                        fitted,
                        nonlinear: true,
                    },
                    refit: Box::new(refit),
                });
            }
        }
        out.push(Candidate {
            refit: Box::new(move |d: &Dataset, s: &[f64]| {
                let (d, s) = above_one(d, s, pi);
                own(&d, &s)
            }),
            ..c
        });
    }
    out.extend(kept);
    out
}

#[cfg(test)]
mod tests {
    use super::super::fit_fragment;
    use crate::expr::Bindings;
    use crate::extraction::Extraction;
    use crate::record::parse_records;

    /// Records of five sizes at p = 1, 2, 4, 8 (one record each) with the work `1e-6·n`
    /// and an idle time of `share·work` at every p plus `2e-7·n` per extra processor
    /// (±2 % noise).
    fn records(share: f64) -> String {
        let noise = [1.02, 0.98, 1.01, 0.99, 1.015, 0.985, 1.0];
        let mut text = String::new();
        let mut i = 0;
        for n in [100.0f64, 200.0, 400.0, 800.0, 1600.0] {
            let pc = 1e-6 * n;
            for p in [1.0f64, 2.0, 4.0, 8.0] {
                let li = (share * pc + 2e-7 * n * (p - 1.0)) * noise[i % noise.len()];
                i += 1;
                text += &format!("n={n} p={p} li={li} pc={pc} rt={pc} tt={}\n", pc + li);
            }
        }
        text
    }

    fn at(n: f64, p: f64) -> Bindings {
        [("n".to_string(), n), ("p".to_string(), p)]
            .into_iter()
            .collect()
    }

    /// Idle time that is 10 % of the time at p = 1 (above the 5 % noise assumed for
    /// unrepeated records): the model keeps a p = 1 part, and the fragment's predicted time
    /// at p = 1 includes it (within the noise), where a vanishing form would miss it by
    /// 9 %.
    #[test]
    fn a_material_overhead_at_p1_is_kept() {
        let records = parse_records(&records(0.1)).unwrap();
        let vars = ["n".to_string(), "p".to_string()];
        let f = fit_fragment(&records, "t", None, &vars, &Extraction::default()).unwrap();
        let li = f.category("li").unwrap();
        assert_eq!(
            li.observations, 20,
            "weighed on every p: {}",
            li.model.label
        );
        for n in [100.0, 400.0, 1600.0] {
            let t = f.time().eval(&at(n, 1.0)).unwrap();
            let measured = 1.1e-6 * n;
            assert!(
                (t / measured - 1.0).abs() < 0.03,
                "{}: {t} vs {measured}",
                li.model.expr
            );
        }
        let t8 = f.time().eval(&at(800.0, 8.0)).unwrap() * 8.0;
        let measured = 800e-6 * 1.1 + 800.0 * 2e-7 * 7.0;
        assert!((t8 / measured - 1.0).abs() < 0.03, "{t8} vs {measured}");
    }

    /// Idle time that is 1 % of the time at p = 1 (below the policy's materiality
    /// threshold): fitted on the p > 1 observations as before, 0 at p = 1.
    #[test]
    fn an_immaterial_overhead_at_p1_vanishes_there() {
        let records = parse_records(&records(0.01)).unwrap();
        let vars = ["n".to_string(), "p".to_string()];
        let f = fit_fragment(&records, "t", None, &vars, &Extraction::default()).unwrap();
        let li = f.category("li").unwrap();
        assert_eq!(li.observations, 15, "p > 1 only: {}", li.model.label);
        for n in [100.0, 400.0, 1600.0] {
            assert_eq!(li.model.expr.eval(&at(n, 1.0)).unwrap(), 0.0);
        }
    }
}
