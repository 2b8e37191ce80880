//! Choosing among one category's candidates: plausible where the model is trusted, then
//! ordered by the penalized held-out score (see the [module docs](super)).

use super::candidates::Candidate;
use super::heldout::{self, held_out, HeldOut};
use super::observations::Observations;
use crate::dataset::Dataset;
use crate::expr::{Bindings, Expr};
use crate::search::{term_penalty, CV_FLOOR, NEGATIVE_PENALTY};

/// The lower bound a model must respect at a binding (None: no bound there).
pub type Floor<'a> = dyn Fn(&Bindings) -> Option<f64> + 'a;

/// One candidate with its held-out errors and its penalized score.
pub struct Weighed {
    /// The candidate.
    pub candidate: Candidate,
    /// Its form's held-out errors.
    pub held_out: HeldOut,
    /// `(score + 10⁻⁷)·penalty^coefficients` (×3 for cancelling terms); infinite when the
    /// form could not be tested on held-out observations.
    pub score: f64,
}

/// One category's plausible candidates, best first.
pub struct Ranked {
    /// Best first: lowest penalized score; without any tested form, fewest coefficients
    /// and then lowest in-sample error.
    pub weighed: Vec<Weighed>,
    /// The factor a coefficient must lower the held-out error by
    /// ([`crate::search::term_penalty`] of the observations and the variables that vary
    /// among them).
    pub penalty: f64,
    /// True when no form could be refitted without one of the observations (too few).
    pub untested: bool,
}

fn is_zero(c: &Candidate) -> bool {
    c.model.expr == Expr::Num(0.0)
}

/// Orders the candidates that are plausible on `obs` (see `plausible` below); `allow_zero`
/// lets the model 0 compete.
pub fn rank(obs: &Observations, cands: Vec<Candidate>, allow_zero: bool, floor: &Floor) -> Ranked {
    let grid = grid_of(&obs.data);
    let penalty = term_penalty(obs.len(), obs.data.varying_variables());
    let (scored, untested): (Vec<_>, Vec<_>) = cands
        .into_iter()
        .filter(|c| allow_zero || !is_zero(c))
        .filter(|c| plausible(&c.model.expr, &grid, floor))
        .map(|c| {
            let h = held_out(obs, &*c.refit);
            (c, h)
        })
        .partition(|(_, h)| h.score.is_finite());
    if scored.iter().all(|(c, _)| is_zero(c)) {
        return Ranked {
            weighed: untested_order(obs, untested),
            penalty,
            untested: true,
        };
    }
    let mut weighed: Vec<Weighed> = scored
        .into_iter()
        .map(|(c, h)| {
            let score = penalized(&c, &h, penalty);
            Weighed {
                candidate: c,
                held_out: h,
                score,
            }
        })
        .collect();
    weighed.sort_by(|a, b| a.score.total_cmp(&b.score));
    Ranked {
        weighed,
        penalty,
        untested: false,
    }
}

/// Too few observations to refit any form without one of them: the forms with the fewest
/// coefficients that miss them least first (their held-out score stays infinite, and the
/// caller says so); 0 only when nothing else is plausible, as nothing shows that the
/// measured values are noise.
fn untested_order(obs: &Observations, untested: Vec<(Candidate, HeldOut)>) -> Vec<Weighed> {
    let some = untested.iter().any(|(c, _)| !is_zero(c));
    let mut keyed: Vec<((usize, f64), Candidate, HeldOut)> = untested
        .into_iter()
        .filter(|(c, _)| !some || !is_zero(c))
        .map(|(c, h)| {
            let key = (
                c.model.quality.coefficients,
                heldout::in_sample(obs, &c.model.expr),
            );
            (key, c, h)
        })
        .collect();
    keyed.sort_by(|a, b| a.0 .0.cmp(&b.0 .0).then(a.0 .1.total_cmp(&b.0 .1)));
    keyed
        .into_iter()
        .map(|(_, candidate, held_out)| Weighed {
            candidate,
            held_out,
            score: f64::INFINITY,
        })
        .collect()
}

/// The penalized held-out score of a candidate.
fn penalized(c: &Candidate, h: &HeldOut, per_coefficient: f64) -> f64 {
    let m = &c.model;
    let cancel = m.coefficients.len() > 1
        && m.coefficients
            .iter()
            .any(|k| k.term.as_deref().is_some_and(|t| t != "1") && k.value < 0.0);
    let factor = if cancel { NEGATIVE_PENALTY } else { 1.0 };
    factor * (h.score + CV_FLOOR) * per_coefficient.powi(m.quality.coefficients as i32)
}

/// The bindings where a model must be plausible: every measured value of each variable
/// and twice the largest (the range a model is trusted to extrapolate to).
pub fn grid_of(data: &Dataset) -> Vec<Bindings> {
    let mut out = vec![Bindings::new()];
    for (i, v) in data.variables.iter().enumerate() {
        let mut values = data.distinct(i);
        if let Some(top) = values.last().copied() {
            values.push(2.0 * top);
        }
        out = out
            .into_iter()
            .flat_map(|b| {
                values.iter().map(move |x| {
                    let mut b = b.clone();
                    b.insert(v.clone(), *x);
                    b
                })
            })
            .collect();
    }
    out
}

/// Whether `expr` is finite and not below `floor` (when it gives one) at every binding.
fn plausible(expr: &Expr, grid: &[Bindings], floor: &Floor) -> bool {
    grid.iter().all(|b| match expr.eval(b) {
        Ok(v) => v.is_finite() && floor(b).is_none_or(|f| v >= f),
        Err(_) => false,
    })
}
