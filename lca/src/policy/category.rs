//! One category of one fragment: which observations it is fitted to, which candidates
//! compete (work, overheads of running in parallel, others; see the [module docs](super)),
//! and the chosen model.

use super::at_one;
use super::candidates::{self, Candidate};
use super::choose::{rank, Ranked};
use super::growth::{self, Outgrowth};
use super::heldout::{in_sample, HeldOut};
use super::observations::Observations;
use super::piecewise;
use super::{CategoryModel, PolicyError, MATERIAL_SHARE, PROCESSORS, VANISHING};
use crate::expr::{Bindings, Expr};
use crate::fit::FittedModel;
use crate::hypothesis::Hypothesis;
use crate::record::Record;
use crate::search::ZeroAt;

/// What one category's records hold, and its candidates weighed.
pub struct Weighing {
    /// The observations the candidates were weighed on (pure computation: the p = 1 ones,
    /// without p; overheads: those with p > 1, and those at p = 1 too where the overhead
    /// is material there, [`at_one`]).
    pub observations: Observations,
    /// The candidates, best first.
    pub ranked: Ranked,
    /// Set when the piecewise power law was chosen ([`super::piecewise`]): how far the
    /// best smooth form missed the observations and the noise it was held to (fractions
    /// of the fragment's time).
    pub piecewise: Option<PiecewiseChoice>,
    /// Set when the best form of an overhead outgrew the work ([`super::growth`]): what
    /// the rule decided.
    pub outgrowth: Option<Outgrowth>,
}

/// Why the piecewise power law replaced the smooth forms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PiecewiseChoice {
    /// The best smooth form's mean in-sample error (relative to the fragment's time).
    pub smooth_miss: f64,
    /// The observations' noise ([`super::piecewise::noise`]).
    pub noise: f64,
}

/// How the policy treats a category.
fn is_work(category: &str) -> bool {
    category == "pc" || category == "rt"
}

/// Weighs the candidates of `category` on its observations `obs` (one fragment's records
/// `records`, variables with p when `has_p`); `work` is the fragment's fitted work model,
/// which overhead candidates scale with; `formulae` are user forms weighed beside the
/// policy's. None when there is nothing to fit (an overhead with no p > 1 value that is
/// not 0).
pub fn weigh(
    category: &str,
    obs: Observations,
    records: &[&Record],
    has_p: bool,
    work: Option<&Expr>,
    formulae: &[Hypothesis],
) -> Option<Weighing> {
    let user = |o: &Observations| -> Vec<Candidate> {
        formulae
            .iter()
            .filter_map(|h| candidates::hypothesis(h, &o.data, &o.scale))
            .collect()
    };
    if is_work(category) {
        let obs = if category == "pc" && has_p {
            obs.at(PROCESSORS, 1.0)
                .or_else(|| obs.collapse_copies(PROCESSORS, 1.0))
                .unwrap_or(obs)
        } else {
            obs
        };
        // Work is positive wherever the model is trusted.
        let mut cands = work_candidates(category, &obs);
        cands.extend(user(&obs));
        let mut ranked = rank(&obs, cands, false, &|_| Some(f64::MIN_POSITIVE));
        let at_p1 = (category == "pc" && has_p).then_some(1.0);
        let noise = piecewise::noise(&obs, records, category, at_p1);
        let smooth_miss = ranked
            .weighed
            .first()
            .map_or(f64::NAN, |b| in_sample(&obs, &b.candidate.model.expr));
        let piecewise = piecewise::choose(&obs, &mut ranked, noise)
            .then_some(PiecewiseChoice { smooth_miss, noise });
        return Some(Weighing {
            observations: obs,
            ranked,
            piecewise,
            outgrowth: None,
        });
    }
    // 0 ("noise") competes only for a category too small to matter.
    let allow_zero = share_of_time(records, category) < MATERIAL_SHARE;
    if has_p && VANISHING.contains(&category) {
        return weigh_overhead(category, obs, records, allow_zero, work, &user);
    }
    let obs = if has_p {
        obs.collapse_copies(PROCESSORS, 1.0).unwrap_or(obs)
    } else {
        obs
    };
    let cands = || {
        let mut c = candidates::searched(&obs.data, &obs.scale, None);
        c.extend(candidates::power_law(&obs.data, &obs.scale));
        c.extend(user(&obs));
        c
    };
    let mut ranked = rank(&obs, cands(), allow_zero, &|_| None);
    if ranked.weighed.is_empty() {
        ranked = rank(&obs, cands(), true, &|_| None);
    }
    Some(Weighing {
        observations: obs,
        ranked,
        piecewise: None,
        outgrowth: None,
    })
}

/// An overhead of running in parallel: fitted on the p > 1 observations, never negative
/// (`ml` never below minus the work); where it is material at p = 1, weighed on every
/// observation with candidates that keep a p = 1 part beside the vanishing ones
/// ([`at_one`]). None when it is 0 at every p > 1.
fn weigh_overhead(
    category: &str,
    obs: Observations,
    records: &[&Record],
    allow_zero: bool,
    work: Option<&Expr>,
    user: &dyn Fn(&Observations) -> Vec<Candidate>,
) -> Option<Weighing> {
    let pi = obs
        .data
        .variables
        .iter()
        .position(|v| v == PROCESSORS)
        .unwrap_or(0);
    let above = obs.filter(|pt| pt.x[pi] > 1.0);
    if above.is_empty() || above.data.points.iter().all(|pt| pt.y == 0.0) {
        return None;
    }
    // Idle and spinning time is never negative; memory loss can be (the run was faster
    // than the baseline), but not below minus the work itself.
    let floor = |b: &Bindings| -> Option<f64> {
        if category != "ml" {
            return Some(0.0);
        }
        Some(-work?.eval(b).ok()?)
    };
    let keep_p1 = at_one::material_at_one(&obs, records, category, pi).is_some();
    let weighed_on = if keep_p1 { obs } else { above.clone() };
    let cands = || {
        let mut c = overhead_candidates(&above, work);
        if keep_p1 {
            c = at_one::keeping_p1_part(c, &weighed_on, pi, &floor);
        }
        c.extend(user(&weighed_on));
        c
    };
    let mut ranked = rank(&weighed_on, cands(), allow_zero, &floor);
    if ranked.weighed.is_empty() {
        ranked = rank(&weighed_on, cands(), true, &floor);
    }
    // The piecewise law applies where the overhead was measured at one p > 1 only.
    let ps = above.data.distinct(pi);
    let piecewise = match ps[..] {
        [at_p] if !keep_p1 => {
            let noise = piecewise::noise(&above, records, category, Some(at_p));
            piecewise::choose_overhead(&above, pi, at_p, &mut ranked, noise)
        }
        _ => None,
    };
    let outgrowth = match piecewise {
        Some(_) => None,
        None => work.and_then(|w| growth::judge(&ranked, &weighed_on, w, PROCESSORS)),
    };
    Some(Weighing {
        observations: weighed_on,
        ranked,
        piecewise,
        outgrowth,
    })
}

fn work_candidates(category: &str, obs: &Observations) -> Vec<Candidate> {
    let (data, scale) = (&obs.data, &obs.scale[..]);
    let mut c = candidates::searched(data, scale, None);
    c.extend(candidates::power_law(data, scale));
    c.extend(candidates::single_terms(data, scale));
    c.extend(candidates::typical_forms(category, data, scale));
    c
}

fn overhead_candidates(obs: &Observations, work: Option<&Expr>) -> Vec<Candidate> {
    let (data, scale) = (&obs.data, &obs.scale[..]);
    let mut c = vec![candidates::zero(data)];
    let pi = data
        .variables
        .iter()
        .position(|v| v == PROCESSORS)
        .unwrap_or(0);
    // Fewer than three p > 1 cannot show how an overhead grows with p: then only Amdahl's
    // `p − 1` (a cost per extra processor), the typical form with no growth of its own.
    let keep_p = data.distinct(pi).len() >= 3;
    if keep_p {
        c.extend(candidates::searched(
            data,
            scale,
            Some(ZeroAt::new(PROCESSORS, 1.0)),
        ));
    }
    if let Some((scaled, s)) = candidates::per_extra_processor(data, scale, PROCESSORS, keep_p) {
        let mut inner = Vec::new();
        if !scaled.variables.is_empty() {
            inner.extend(candidates::searched(&scaled, &s, None));
            inner.extend(candidates::power_law(&scaled, &s));
            inner.extend(candidates::single_terms(&scaled, &s));
        }
        inner.extend(candidates::constant(&scaled, &s));
        c.extend(candidates::times_p_minus_1(inner, PROCESSORS, keep_p));
    }
    if let Some(w) = work {
        c.extend(candidates::shares_of_work(data, scale, PROCESSORS, w));
    }
    if keep_p {
        c.extend(candidates::separable(data, scale, PROCESSORS, work));
    }
    c
}

/// `cat`'s mean share of the processor-time `tt` over `records`, each record's
/// `|cat| / tt` counting alike (absolute values, so a negative `ml` counts by its size);
/// 0 when there is no `tt`. Each configuration counts alike, as in the errors the models
/// are judged by: a category that is a fifth of the time at the smallest size is material
/// there, however little it adds to the processor-time summed over all sizes (which the
/// largest size dominates).
pub fn share_of_time(records: &[&Record], cat: &str) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    for r in records {
        if let (Ok(Some(v)), Ok(Some(tt))) = (r.category(cat), r.category("tt")) {
            if tt > 0.0 {
                sum += v.abs() / tt;
                count += 1;
            }
        }
    }
    if count > 0 {
        sum / count as f64
    } else {
        0.0
    }
}

/// A model as the policy reports it: R² on the observations, `quality.cv` = the held-out
/// score, `fitted` at the observations.
fn reported(model: &FittedModel, h: &HeldOut, obs: &Observations) -> FittedModel {
    let mut model = model.clone();
    let y = obs.data.ys();
    let fitted: Vec<f64> = obs
        .data
        .points
        .iter()
        .map(|pt| model.expr.eval(&obs.data.bindings(pt)).unwrap_or(f64::NAN))
        .collect();
    let mean = y.iter().sum::<f64>() / y.len().max(1) as f64;
    let ss_tot: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    let ss_res: f64 = y.iter().zip(&fitted).map(|(a, b)| (a - b).powi(2)).sum();
    model.quality.r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        f64::NAN
    };
    model.quality.cv = h.score;
    model.fitted = fitted;
    model
}

/// The best candidate of `w` as a category model (None when there is none).
pub fn chosen(category: &str, w: &Weighing) -> Option<CategoryModel> {
    let best = w.ranked.weighed.first()?;
    let obs = &w.observations;
    Some(CategoryModel {
        category: category.into(),
        model: reported(&best.candidate.model, &best.held_out, obs),
        terms: best.candidate.terms.clone(),
        held_out: best.held_out,
        variables: obs.data.variables.clone(),
        observations: obs.len(),
        penalty: w.ranked.penalty,
        records: obs.records,
    })
}

/// The fragment's work model (`pc`, else `rt`) as the policy chooses it; None when the
/// records carry neither or it cannot be fitted.
fn work_model(
    records: &[&Record],
    source: &str,
    variables: &[String],
) -> Result<Option<Expr>, crate::record::RecordError> {
    let Some(k) = ["pc", "rt"]
        .into_iter()
        .find(|k| records.iter().any(|r| r.has(k)))
    else {
        return Ok(None);
    };
    let obs = Observations::from_records(records, source, k, variables)?;
    let has_p = variables.iter().any(|v| v == PROCESSORS);
    Ok(weigh(k, obs, records, has_p, None, &[])
        .and_then(|w| chosen(k, &w))
        .map(|c| c.model.expr))
}

/// One category fitted by the policy, with every candidate it weighed
/// ([`fit_category`]).
#[derive(Debug, Clone)]
pub struct CategoryFit {
    /// The observations the candidates were fitted to.
    pub observations: Observations,
    /// The plausible candidates best first, each reported with R² on the observations and
    /// `quality.cv` = its held-out score, with its penalized score (infinite when no form
    /// could be tested on held-out observations).
    pub ranked: Vec<(FittedModel, f64)>,
    /// The factor a coefficient must lower the held-out error by.
    pub penalty: f64,
    /// The chosen model (the first of `ranked`); its expression is 0 when the category is
    /// left out as noise.
    pub chosen: CategoryModel,
    /// What the policy decided that a user should know.
    pub notes: Vec<String>,
}

/// Fits one category of one fragment by the policy. `records` are the fragment's records
/// (already selected). For an overhead of running in parallel, the fragment's work (`pc`,
/// else `rt`) is fitted first, as its candidates scale with it. `formulae` (user forms)
/// are fitted to the same observations and weighed beside the policy's candidates (one
/// that cannot be fitted there is named in the notes).
pub fn fit_category(
    records: &[&Record],
    source: &str,
    category: &str,
    variables: &[String],
    formulae: &[Hypothesis],
) -> Result<CategoryFit, PolicyError> {
    let rec_err = |error| PolicyError::Record {
        source_name: source.into(),
        error,
    };
    let has_p = variables.iter().any(|v| v == PROCESSORS);
    let no_model = |observations| PolicyError::NoModel {
        source_name: source.into(),
        fragment: records
            .first()
            .and_then(|r| r.tag())
            .unwrap_or("(session)")
            .into(),
        category: category.into(),
        observations,
    };
    let work = if has_p && VANISHING.contains(&category) {
        work_model(records, source, variables).map_err(rec_err)?
    } else {
        None
    };
    let obs = Observations::from_records(records, source, category, variables).map_err(rec_err)?;
    let n = obs.len();
    let Some(w) = weigh(category, obs, records, has_p, work.as_ref(), formulae) else {
        return Err(no_model(n));
    };
    let Some(chosen) = chosen(category, &w) else {
        return Err(no_model(w.observations.len()));
    };
    let mut notes = Vec::new();
    for h in formulae {
        if candidates::hypothesis(h, &w.observations.data, &w.observations.scale).is_none() {
            notes.push(format!(
                "formula `{}` could not be fitted to the {} observations of {category} over {}",
                h.label,
                w.observations.len(),
                w.observations.data.variables.join(", ")
            ));
        }
    }
    if w.ranked.untested {
        notes.push(format!(
            "only {} observations: no form could be tested on held-out ones",
            w.observations.len()
        ));
    }
    notes.extend(regime_notes(category, &w));
    notes.extend(w.outgrowth.as_ref().map(growth::note));
    if chosen.model.expr == Expr::Num(0.0) {
        notes.push(format!(
            "left out: no model predicts its {} held-out observations better than 0 (noise at this precision)",
            w.observations.len()
        ));
    }
    let ranked = w
        .ranked
        .weighed
        .iter()
        .map(|x| {
            let m = reported(&x.candidate.model, &x.held_out, &w.observations);
            (m, x.score)
        })
        .collect();
    Ok(CategoryFit {
        ranked,
        penalty: w.ranked.penalty,
        chosen,
        notes,
        observations: w.observations,
    })
}

/// The share of the fragment's time by which a work model, refitted without the largest
/// value of a variable, may miss the observations there before the policy warns that the
/// measurements change regime: the bound on extrapolation error (10 %).
pub const REGIME_CHANGE: f64 = 0.10;

/// Whether the work's measurements change regime at the largest value of a variable: the
/// model the policy chooses from the smaller values (four or more values in all) misses
/// the largest by more than [`REGIME_CHANGE`] of the fragment's time. Then the largest
/// value cannot be predicted from the others (typically the working set leaving a cache),
/// so a prediction beyond the measured range cannot be trusted either, and the note says
/// so with the local growth exponents along the variable. Only the work is checked:
/// overheads are small differences of noisy times, and their extrapolation error already
/// weighs in their choice.
pub fn regime_notes(category: &str, w: &Weighing) -> Vec<String> {
    let obs = &w.observations;
    if let Some(c) = w.piecewise {
        return piecewise_note(obs, c).into_iter().collect();
    }
    if !is_work(category) || w.ranked.weighed.is_empty() {
        return Vec::new();
    }
    let mut notes = Vec::new();
    for (v, name) in obs.data.variables.iter().enumerate() {
        let values = obs.data.distinct(v);
        let Some(&top) = values.last() else {
            continue;
        };
        if values.len() < 4 {
            continue;
        }
        let train = obs.filter(|pt| pt.x[v] < top);
        let cands = work_candidates(category, &train);
        let ranked = rank(&train, cands, false, &|_| Some(f64::MIN_POSITIVE));
        let Some(best) = ranked.weighed.first() else {
            continue;
        };
        let e = &best.candidate.model.expr;
        let (mut sum, mut count) = (0.0, 0);
        for (pt, s) in obs.data.points.iter().zip(&obs.scale) {
            if pt.x[v] == top {
                let predicted = e.eval(&obs.data.bindings(pt)).unwrap_or(f64::NAN);
                sum += ((predicted - pt.y) / s.abs().max(f64::MIN_POSITIVE)).abs();
                count += 1;
            }
        }
        let miss = sum / count.max(1) as f64;
        if miss.is_finite() && miss <= REGIME_CHANGE {
            continue;
        }
        let exponents = local_exponents(obs, v)
            .map(|x| format!("; local growth exponents along {name}: {x}"))
            .unwrap_or_default();
        notes.push(format!(
            "regime change at the largest {name}: the model chosen without {name} = {top}, `{e}`, misses it by {:.0} % of the time{exponents}; the measurements do not follow one smooth form across it (e.g. the working set leaving a cache): the model holds within the measured range of {name}, not beyond it",
            100.0 * miss,
            top = crate::expr::format_number(top),
        ));
    }
    notes
}

/// The note of a chosen piecewise law ([`piecewise::note`]); for an overhead measured at
/// one p > 1, the note of its values there and how it reaches other p.
fn piecewise_note(obs: &Observations, c: PiecewiseChoice) -> Option<String> {
    let Some(pi) = obs.data.variables.iter().position(|v| v == PROCESSORS) else {
        return Some(piecewise::note(obs, c.smooth_miss, c.noise));
    };
    let at = *obs.data.distinct(pi).first()?;
    let one = obs.at(PROCESSORS, at)?;
    Some(format!(
        "at p = {}: {}; at other p it is scaled by (p - 1) as the overheads measured at one p are",
        crate::expr::format_number(at),
        piecewise::note(&one, c.smooth_miss, c.noise)
    ))
}

/// `ln(y2/y1) / ln(x2/x1)` between neighbouring values of variable `v`, printed, for
/// observations of that one variable with positive values.
fn local_exponents(obs: &Observations, v: usize) -> Option<String> {
    if obs.data.variables.len() != 1 {
        return None;
    }
    let pts = &obs.data.points;
    let steps: Vec<String> = pts
        .windows(2)
        .map(|w| (w[1].y / w[0].y).ln() / (w[1].x[v] / w[0].x[v]).ln())
        .map(|e| format!("{e:.2}"))
        .collect();
    (!steps.is_empty() && pts.iter().all(|p| p.y > 0.0 && p.x[v] > 0.0)).then(|| steps.join(", "))
}
