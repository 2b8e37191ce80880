//! The fitting policy: how `lca model` (and every program that calls [`fit_fragment`]) turns
//! one fragment's records into one model per lost-cycles category, chosen by how well it
//! predicts measurements it was not fitted to.
//!
//! # Data: one observation per configuration
//!
//! - **Repetitions** of a configuration (records with the same values of every variable)
//!   count once, as their **median**. Extra-P fits the mean or the median of a
//!   configuration's repetitions (the mean by default, the median on request); `lca` takes
//!   the median because timing noise on a shared machine is one-sided (other processes and
//!   the OS only ever slow a run down), so a single disturbed repetition moves the mean but
//!   not the median.
//! - **Copies**: pure computation `pc` is by definition the busy time of the p = 1 run of
//!   the same size, which `pp` copies into every p > 1 record. It is fitted on the p = 1
//!   records only, as a function of the other variables: one observation per size, not one
//!   per record (identical points would make leave-one-out errors read 0 and intervals read
//!   nothing). Any other category whose value does not change along p is treated the same.
//!
//! # Which model each category gets
//!
//! - **Work** (`pc`; `rt` when the records have no `pc`): the normal-form search
//!   ([`crate::search`]), the power law `C·n^a` (a straight line in log-log space, written
//!   without an `exp(…)` wrapper), every single growth term `k·x^i·log2(x)^j` (one
//!   variable), and Crovella's typical forms of the category ([`crate::forms`]). When `pc`
//!   is fitted, `rt` is not (it is `pc + ml`). Where the measurements change regime between
//!   measured values and no smooth form follows them (the best misses them by more than
//!   twice their noise), the **piecewise power law** through the medians,
//!   `pw(n, n1, y1, …)`, competes too, and replaces the smooth form when what it loses
//!   between and beyond the measured points (its held-out score) is less than what the
//!   smooth form loses at them plus between them ([`piecewise`]; work of one variable, four
//!   or more values).
//! - **Overheads of running in parallel** (`ml li sl ip wc`, see [`VANISHING`]): fitted on
//!   the p > 1 observations, as forms that vanish at p = 1. `pp` does not make them 0
//!   there: `ml` is (the p = 1 run is its own baseline), but with one thread the processor
//!   is idle (`li`) while a parallel region is open and it runs no task (the runtime
//!   walking items between task bodies), and that time is not in `pc`. Where such a p = 1
//!   value is material (above [`MATERIAL_SHARE`] of the time, and above the records'
//!   noise, at some p = 1 configuration), the category is weighed on every observation
//!   and each candidate below competes also with a p = 1 part, `g(size) + (p − 1)·f`, `g`
//!   fitted on the p = 1 observations ([`at_one`]); the held-out error chooses as for
//!   any candidate, and where it keeps a vanishing form the p = 1 value is left
//!   unmodelled. Candidates: the search
//!   constrained to vanish at p = 1 ([`crate::search::ZeroAt`]); `(p − 1)·f` with `f` the
//!   search or the power law of `y / (p − 1)` (over p too when there are three or more
//!   p > 1), or a constant; `(p − 1)·(c + k·work)` and `(p − 1)·k·work` (a fixed cost per
//!   extra processor plus a share of the fragment's work); Crovella's typical forms in p
//!   and the saturating `1 − 1/p` ([`candidates::P_FORMS`]), times the work or a usual
//!   complexity of the size ([`candidates::separable`]); and
//!   **0**: a category that holds less than 2 % of the fragment's processor-time (its
//!   mean share over the records, each configuration counting alike; [`MATERIAL_SHARE`])
//!   and whose every model predicts held-out observations worse than
//!   leaving it out is left out (noise at this precision, typically `ml`, a difference of
//!   two noisy times), and the notes say so. A larger category keeps its best model.
//! - Other categories (`cl rc os`): the search and the power law.
//!
//! Every candidate's coefficients are fitted by least squares of the errors relative to the
//! fragment's time at each configuration (its `tt`): each category is fitted, and judged,
//! by the error it puts into the fragment's time `T = Σ C / p`.
//!
//! # Choosing: held-out error, including extrapolation
//!
//! Every candidate's form is refitted without some observations and predicts them
//! ([`heldout`]): each configuration left out in turn, and, per variable with three or more
//! values, the configurations at its largest value and those above half of it (the largest
//! size, the largest p, twice the range), so the choice sees extrapolation error. The
//! candidate with the lowest `(score + 10⁻⁷)·penalty^coefficients` is chosen, `penalty` the
//! search's [`crate::search::term_penalty`] for the number of observations and of the
//! variables that vary among them (a coefficient must lower the held-out error by that
//! factor; an overhead observed at one p > 1 only, as on 2-core records, is a function of
//! the size alone and pays the penalty of one variable), times
//! [`crate::search::NEGATIVE_PENALTY`] for cancelling terms (a growth term with a negative
//! coefficient beside others). Two more rules:
//!
//! - **Evidence bounds complexity** ([`candidates::coefficient_budget`]): along each
//!   variable with d distinct values a model spends at most `max(d − 2, 1)` coefficients
//!   (its terms in that variable, plus one for all terms without it), so 5 sizes allow
//!   `k1·n^a + k2·n^b + c` at most, 3 sizes one growth term and nothing else.
//! - **Plausible where trusted**: a model must be finite at every measured value of each
//!   variable and at twice the largest, and there work must be positive, idle and spinning
//!   time (`li ip sl wc`) not negative, and `ml` not below minus the work (`rt = pc + ml`
//!   cannot be negative).
//! - **No transcendental wrappers**: a fit in log space is offered only as a power law,
//!   which is a product of powers, not an `exp(…)` of a polynomial (those interpolate a
//!   few sizes and explode beyond them).
//!
//! # Overheads whose sum follows the time
//!
//! Each category is fitted and chosen on its own, and the run time is their sum; where the
//! overheads' forms miss their measurements in ways that do not cancel, the sum misses the
//! fragment's time by more than it must. Once every form is chosen, the overheads'
//! coefficients are re-estimated together against the measured time, forms and work
//! fixed, each category held near its own fit relative to its own size ([`joint`]). The
//! step is kept only where the held-out folds above (configurations left out, the largest
//! size and p, everything above half of each), refitting separately and jointly, predict
//! the overheads' time at least 10 % better jointly ([`joint::MIN_GAIN`]), and no
//! re-estimated category turns implausible. Each category keeps its own terms, so
//! restructuring rules can still use it alone; the notes (and `lca model --json`'s `joint`)
//! say when the step was applied and how far each category moved.
//!
//! # Where a model stops holding
//!
//! The work's chosen form is refitted without the largest value of each variable with four
//! or more values; when it then misses the observations there by more than
//! [`category::REGIME_CHANGE`] (10 %) of the fragment's time, the measurements change
//! regime at the largest value (typically the working set leaving a cache at the largest
//! size) and the notes say so, with the local growth exponents: the model describes the
//! measured range, and a prediction beyond it is not to be trusted.
//!
//! When the piecewise power law was chosen, the note says so instead: how far the best
//! smooth form missed, the local exponents, the piece between whose measured points the
//! regime changes (the model is uncertain inside it), and that beyond the first and last
//! point the end pieces extrapolate (predictions there are warned about,
//! [`crate::range`]).
//!
//! An overhead of running in parallel whose chosen form grows faster in a size variable
//! than the work (its share of the work, `|overhead| / work`, rises by more than
//! [`growth::GROWTH_TOLERANCE`] (1 %) somewhere between the largest measured value and
//! 1024 times it, at a measured configuration there) is judged on the held-out folds that
//! leave the largest values of that variable out ([`growth`]): its extrapolation error
//! beside that of the best candidate whose share of the work does not grow. The notes give
//! both, and whether the largest measured sizes support the faster growth. An overhead per
//! unit of work that keeps growing beyond the measured sizes soon dominates the predicted
//! time, and few sizes rarely justify it (a small fast-growing term can follow a bump at
//! the largest size); where they do not, the note says that the growth beyond them is not
//! to be trusted. The choice itself stays with the held-out score, which already weighs
//! those folds beside the others: the note is a statement of trust, not a second choice.
//!
//! A chosen form with terms of opposite signs balances them over the measured range; when
//! the term that grows fastest is the negative one, the model falls through zero somewhere
//! beyond the data. Every category but the memory loss (which can be negative) is scanned
//! up to 1000 times the largest measured value of each size variable, and where it turns
//! negative the notes say at which value ([`sign`]); `lca eval` flags a negative value of
//! such a category, or a negative time, where it is evaluated.
//!
//! # One category: `lca -c CATEGORY --auto`
//!
//! [`fit_category`] applies the same rules to one category of the selected records (the
//! work fitted first when the category is an overhead), weighs the user's formulae beside
//! the policy's candidates and returns them all, best first.
//!
//! # Example
//!
//! ```
//! use lca::{extraction::Extraction, policy::fit_fragment, record::parse_records};
//! let mut text = String::new();
//! for n in [64.0f64, 128.0, 256.0, 512.0, 1024.0] {
//!     let pc = 3e-9 * n * n;
//!     for p in [1.0f64, 2.0, 4.0, 8.0] {
//!         let li = 2e-7 * n * (p - 1.0);
//!         let ml = 0.01 * pc * (p - 1.0);
//!         let rt = pc + ml;
//!         text += &format!("n={n} tag=cols p={p} li={li} ml={ml} pc={pc} rt={rt} tt={}\n", rt + li);
//!     }
//! }
//! let records = parse_records(&text).unwrap();
//! let vars = ["n".to_string(), "p".to_string()];
//! let f = fit_fragment(&records, "t.pp", Some("cols"), &vars, &Extraction::default()).unwrap();
//! let pc = f.category("pc").unwrap();
//! assert_eq!(pc.observations, 5); // one per size, not one per record
//! assert_eq!(pc.model.expr.to_string(), "3e-9*n^2");
//! assert_eq!(f.category("li").unwrap().model.expr.to_string(), "2e-7*n*(p - 1)");
//! assert!(f.category("rt").is_none()); // rt = pc + ml
//! ```

pub mod at_one;
pub mod candidates;
pub mod category;
pub mod choose;
mod combination;
pub mod growth;
pub mod heldout;
pub mod joint;
pub mod observations;
pub mod piecewise;
pub mod sign;

use crate::annotation::FragmentModel;
use crate::expr::{BinOp, Expr};
use crate::extraction::Extraction;
use crate::fit::FittedModel;
use crate::range::VarRange;
use crate::record::{Record, RecordError, CATEGORY_KEYS};
pub use category::{fit_category, CategoryFit};
use heldout::HeldOut;
pub use joint::JointStep;
use observations::Observations;

/// Overheads of running in parallel, fitted as forms that vanish at p = 1 unless they are
/// material there ([`at_one`]).
pub const VANISHING: [&str; 5] = ["ml", "li", "sl", "ip", "wc"];

/// Categories that add up to the processor-time: `tt = li + ip + sl + wc + rt`, and
/// `rt = pc + ml` where the records carry the baseline split ([`::category::time`]).
pub const PARTITION: [&str; 5] = ::category::keys(::category::time::TT_PARTITION);

/// The processor-count variable.
pub const PROCESSORS: &str = "p";

/// Why a fragment could not be modelled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolicyError {
    /// A value that is not a number.
    #[error("{source_name}: {error}")]
    Record {
        /// Data file.
        source_name: String,
        /// Line and key.
        error: RecordError,
    },
    /// No record of the fragment carries a category.
    #[error("{source_name}: fragment {fragment}: expected records with categories ({}) and the variables {variables}, found none", CATEGORY_KEYS.join(" "))]
    NoCategories {
        /// Data file.
        source_name: String,
        /// Fragment (`(session)` for untagged records).
        fragment: String,
        /// The variables, printed.
        variables: String,
    },
    /// The fragment's work could not be fitted.
    #[error("{source_name}: fragment {fragment}, category {category}: no model could be fitted to {observations} observations")]
    NoModel {
        /// Data file.
        source_name: String,
        /// Fragment.
        fragment: String,
        /// Category.
        category: String,
        /// Observations it had.
        observations: usize,
    },
}

/// The chosen model of one category.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryModel {
    /// Category key.
    pub category: String,
    /// The model: `expr` in the category's unit (processor-seconds) over the fragment's
    /// variables, `label` its form, `quality.r2` on the observations it was fitted to,
    /// `quality.cv` the held-out score.
    pub model: FittedModel,
    /// The model as `Σ coefficient · basis`, one entry per coefficient (a nonlinear form:
    /// the whole expression times 1), what the joint step ([`joint`]) re-estimates.
    pub terms: Vec<(f64, Expr)>,
    /// Held-out errors of its form (fitted on its own).
    pub held_out: HeldOut,
    /// The variables it was fitted over (`pc`: without p).
    pub variables: Vec<String>,
    /// Observations fitted (configurations; for overheads, those with p > 1, and those at
    /// p = 1 too where the overhead is material there, [`at_one`]).
    pub observations: usize,
    /// The factor a coefficient had to lower the held-out error by
    /// ([`crate::search::term_penalty`] of the observations and the variables that vary
    /// among them).
    pub penalty: f64,
    /// Records they came from.
    pub records: usize,
}

/// Every category model of one fragment.
#[derive(Debug, Clone, PartialEq)]
pub struct FragmentModels {
    /// Fragment tag, None for whole-session records.
    pub tag: Option<String>,
    /// Variables.
    pub variables: Vec<String>,
    /// Models, work first, then the overheads, then the others.
    pub categories: Vec<CategoryModel>,
    /// What the policy decided that a user should know (categories left out, …).
    pub notes: Vec<String>,
    /// The measured range of each variable over the fragment's records (written into the
    /// models file, so that predictions far outside it warn).
    pub ranges: Vec<VarRange>,
    /// Set when the overheads' coefficients were re-estimated jointly so that their sum
    /// follows the measured time ([`joint`]).
    pub joint: Option<JointStep>,
}

impl FragmentModels {
    /// The model of `category`.
    pub fn category(&self, category: &str) -> Option<&CategoryModel> {
        self.categories.iter().find(|c| c.category == category)
    }

    /// The fragment's time `T = Σ C / p` (seconds) over the categories that
    /// [`::category::time::time_terms`] sums (those of [`PARTITION`], with `pc + ml` in the
    /// place of `rt`, which is not fitted when `pc` is).
    pub fn time(&self) -> Expr {
        let terms = ::category::time::time_terms_of_keys(
            self.categories.iter().map(|c| c.category.as_str()),
        );
        let sum = self
            .categories
            .iter()
            .filter(|c| ::category::time::counts(&terms, &c.category))
            .map(|c| c.model.expr.clone())
            .reduce(|a, b| Expr::bin(BinOp::Add, a, b))
            .unwrap_or(Expr::Num(0.0));
        Expr::bin(BinOp::Div, sum, Expr::var(PROCESSORS))
    }

    /// The models as a models-file fragment (`// lcm:` lines), named by the tag or
    /// `session`.
    pub fn fragment_model(&self) -> FragmentModel {
        FragmentModel {
            name: self.tag.clone().unwrap_or_else(|| "session".into()),
            categories: self
                .categories
                .iter()
                .map(|c| (c.category.clone(), c.model.expr.clone()))
                .collect(),
            ranges: self.ranges.clone(),
        }
    }
}

/// The tags of `records` in order of first appearance.
pub fn fragment_tags(records: &[Record]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in records {
        if let Some(t) = r.tag() {
            if !names.iter().any(|x| x == t) {
                names.push(t.to_string());
            }
        }
    }
    names
}

/// Fits every category of fragment `tag` (None: the untagged, whole-session records)
/// among the records that match `extraction`, over `variables` (see the module docs).
pub fn fit_fragment(
    records: &[Record],
    source: &str,
    tag: Option<&str>,
    variables: &[String],
    extraction: &Extraction,
) -> Result<FragmentModels, PolicyError> {
    let mine: Vec<&Record> = records
        .iter()
        .filter(|r| r.tag() == tag && extraction.matches(r))
        .collect();
    let fragment = tag.unwrap_or("(session)").to_string();
    let rec_err = |error| PolicyError::Record {
        source_name: source.into(),
        error,
    };
    let mut out = FragmentModels {
        tag: tag.map(str::to_string),
        variables: variables.to_vec(),
        categories: Vec::new(),
        notes: Vec::new(),
        ranges: crate::range::of_records(records, tag, variables, extraction).map_err(rec_err)?,
        joint: None,
    };
    let has_p = variables.iter().any(|v| v == PROCESSORS);
    let present: Vec<&str> = order()
        .into_iter()
        .filter(|c| mine.iter().any(|r| r.has(c)))
        .collect();
    let split = present.contains(&"pc");
    let mut any = false;
    for cat in present {
        if split && cat == "rt" {
            continue;
        }
        let obs = Observations::from_records(&mine, source, cat, variables).map_err(rec_err)?;
        if obs.is_empty() {
            continue;
        }
        any = true;
        if obs.data.points.iter().all(|pt| pt.y == 0.0) {
            continue;
        }
        let work = out
            .categories
            .iter()
            .find(|c| c.category == "pc" || c.category == "rt")
            .map(|c| c.model.expr.clone());
        let n = obs.len();
        if let Some(w) = category::weigh(cat, obs, &mine, has_p, work.as_ref(), &[]) {
            keep_choice(&mut out, cat, &w, n, &fragment, source)?;
        }
    }
    if !any {
        return Err(PolicyError::NoCategories {
            source_name: source.into(),
            fragment,
            variables: variables.join(", "),
        });
    }
    if has_p {
        if let Some(step) = joint::rebalance(&mut out, &mine, source, variables).map_err(rec_err)? {
            out.notes.push(joint::note(&fragment, &step));
            out.joint = Some(step);
        }
    }
    for c in &out.categories {
        if let Some((var, at, max)) = sign::turns_negative(&c.category, &c.model.expr, &out.ranges)
        {
            out.notes.push(format!(
                "fragment {fragment}, category {}: {}",
                c.category,
                sign::note(&var, at, max)
            ));
        }
    }
    Ok(out)
}

/// Adds the choice of `w` for category `cat` to `out`: its model, or a note that says why
/// the category is left out (and what else the user should know). Work without any model
/// is an error: nothing else can be modelled without it.
fn keep_choice(
    out: &mut FragmentModels,
    cat: &str,
    w: &category::Weighing,
    observations: usize,
    fragment: &str,
    source: &str,
) -> Result<(), PolicyError> {
    let note_for = |what: String| format!("fragment {fragment}, category {cat}: {what}");
    match category::chosen(cat, w) {
        Some(c) if c.model.expr != Expr::Num(0.0) => {
            if w.ranked.untested {
                out.notes.push(note_for(format!(
                    "only {} observations: no form could be tested on held-out ones; `{}` kept (fewest coefficients)",
                    c.observations, c.model.label
                )));
            }
            for note in category::regime_notes(cat, w) {
                out.notes.push(note_for(note));
            }
            if let Some(o) = &w.outgrowth {
                out.notes.push(note_for(growth::note(o)));
            }
            out.categories.push(c);
        }
        Some(c) => out.notes.push(note_for(format!(
            "left out: no model predicts its {} held-out observations better than 0 (noise at this precision)",
            c.observations
        ))),
        None if cat == "pc" || cat == "rt" => {
            return Err(PolicyError::NoModel {
                source_name: source.into(),
                fragment: fragment.into(),
                category: cat.into(),
                observations,
            })
        }
        None => out
            .notes
            .push(note_for("left out: no model could be fitted".into())),
    }
    Ok(())
}

/// Fits every tagged fragment of `records` ([`fit_fragment`] for each tag, in order of
/// first appearance).
pub fn fit_fragments(
    records: &[Record],
    source: &str,
    variables: &[String],
    extraction: &Extraction,
) -> Result<Vec<FragmentModels>, PolicyError> {
    fragment_tags(records)
        .iter()
        .map(|t| fit_fragment(records, source, Some(t), variables, extraction))
        .collect()
}

/// Categories in fitting order: work first (the overheads' candidates use its model).
fn order() -> Vec<&'static str> {
    let mut v = vec!["pc", "rt", "ml", "li", "ip", "sl", "wc"];
    for c in CATEGORY_KEYS.iter().copied() {
        if !v.contains(&c) && c != "tt" && c != "over" {
            v.push(c);
        }
    }
    v
}

/// A category that holds at least this share of a fragment's processor-time (its mean
/// share over the records, [`category::share_of_time`]) is never left out as noise: leaving it out would drop a real part of the
/// fragment's time (a serial fragment's `ip` at p > 1 is half of it at p = 2), whatever
/// the held-out error of its models.
pub const MATERIAL_SHARE: f64 = 0.02;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    /// The issue's case: p in {1, 2} only, a serial phase of 2e-5 s per extra processor
    /// (with ±3 % noise) and pc copied into every record. The model must not invent a
    /// growth in p that two processor counts cannot show (`p^(8/3)*log2(p)` predicted
    /// 35 times the time at p = 16), and pc counts once per size.
    #[test]
    fn two_processor_counts_give_no_invented_growth_in_p() {
        let mut text = String::new();
        let noise = [1.03, 0.97, 1.01, 0.99, 1.02];
        for (i, n) in [100.0f64, 200.0, 400.0, 800.0, 1600.0].iter().enumerate() {
            let pc = 1e-6 * n;
            for p in [1.0f64, 2.0] {
                let ip = 2e-5 * (p - 1.0) * noise[i];
                text += &format!("n={n} p={p} ip={ip} pc={pc} rt={pc} tt={}\n", pc + ip);
                text += &format!("n={n} p={p} ip={ip} pc={pc} rt={pc} tt={}\n", pc + ip);
            }
        }
        let records = parse_records(&text).unwrap();
        let vars = ["n".to_string(), "p".to_string()];
        let f = fit_fragment(&records, "t", None, &vars, &Extraction::default()).unwrap();
        let pc = f.category("pc").unwrap();
        assert_eq!((pc.observations, pc.records), (5, 20));
        let ip = f.category("ip").unwrap();
        let at16: crate::expr::Bindings = [("n".to_string(), 400.0), ("p".to_string(), 16.0)]
            .into_iter()
            .collect();
        let v = ip.model.expr.eval(&at16).unwrap();
        assert!(
            (v / (15.0 * 2e-5) - 1.0).abs() < 0.1,
            "{} gives {v}",
            ip.model.expr
        );
    }

    /// Records of p in {1, 2} only (a 2-core machine): the overheads are observed at p = 2
    /// alone, so p offers no form to choose from and the penalty per coefficient is that of
    /// one variable (n), not two. Here `li = (p − 1)·1e-5·sqrt(n)` with ±20 % noise is 27 %
    /// of the time at the smallest size, 5 % at the next and under 1 % beyond: 3 % of the
    /// time as a mean over the records, under 0.1 % of the processor-time summed over them
    /// (the work grows as n³). Counting p as a second variable made a coefficient cost
    /// 5.1-fold instead of 2.3-fold, and judging li's share by the summed processor-time let
    /// it be left out as noise: the model then missed the smallest size at p = 2 by 27 %.
    #[test]
    fn an_overhead_seen_at_one_p_is_not_left_out_for_a_variable_that_does_not_vary() {
        let mut text = String::new();
        let noise = [1.2, 0.8, 1.15, 0.85, 1.1];
        for (i, n) in [64.0f64, 128.0, 256.0, 512.0, 1024.0].iter().enumerate() {
            let pc = 1e-9 * n.powi(3);
            for p in [1.0f64, 2.0] {
                let li = 1e-5 * n.sqrt() * (p - 1.0) * noise[i];
                text += &format!("n={n} p={p} li={li} pc={pc} rt={pc} tt={}\n", pc + li);
            }
        }
        let records = parse_records(&text).unwrap();
        let vars = ["n".to_string(), "p".to_string()];
        let f = fit_fragment(&records, "t", None, &vars, &Extraction::default()).unwrap();
        let li = f.category("li");
        assert!(li.is_some(), "{:?}", f.notes);
        let li = li.unwrap();
        assert!(li.penalty < 2.5, "{}", li.penalty);
        let refs: Vec<&Record> = records.iter().collect();
        let share = category::share_of_time(&refs, "li");
        assert!(share > MATERIAL_SHARE && share < 0.04, "{share}");
        let at = |n: f64| -> crate::expr::Bindings {
            [("n".to_string(), n), ("p".to_string(), 2.0)]
                .into_iter()
                .collect()
        };
        // At n = 64, p = 2 the time is pc + li = 2.62e-4 + 8e-5 · 1.2 = 3.58e-4 (li is
        // 27 %): the model's T misses it by the noise of li, not by leaving li out.
        let t = f.time().eval(&at(64.0)).unwrap() * 2.0;
        let measured = 1e-9 * 64f64.powi(3) + 1e-5 * 8.0 * 1.2;
        assert!((t / measured - 1.0).abs() < 0.08, "{t} vs {measured}");
    }

    /// A memory gain that saturates: `ml = −0.2·pc·(1 − 1/p)` (±2 % noise), the work sped
    /// up once it is split (the caches of a second processor), by a share that stops
    /// growing. Negative values rule out the power law (a line in log-log space), which
    /// can otherwise bend `(p − 1)·p^−1` into the same curve. The policy must find the
    /// saturating form and predict twice the largest p within 5 %; a form that keeps growing
    /// (`log2(p)·work`, the closest of Crovella's) is some 20 % off there.
    #[test]
    fn a_saturating_overhead_is_found_and_extrapolates_in_p() {
        let mut text = String::new();
        let noise = [1.02, 0.98, 1.01, 0.99, 1.015, 0.985];
        let mut k = 0;
        for n in [100.0f64, 200.0, 400.0, 800.0, 1600.0] {
            let pc = 1e-6 * n;
            for p in [1.0f64, 2.0, 4.0, 8.0, 16.0] {
                let ml = -0.2 * pc * (1.0 - 1.0 / p) * noise[k % noise.len()];
                k += 1;
                let rt = pc + ml;
                text += &format!("n={n} p={p} ml={ml} pc={pc} rt={rt} tt={rt}\n");
            }
        }
        let records = parse_records(&text).unwrap();
        let vars = ["n".to_string(), "p".to_string()];
        let f = fit_fragment(&records, "t", None, &vars, &Extraction::default()).unwrap();
        let ml = &f.category("ml").unwrap().model.expr;
        assert!(ml.to_string().contains("1/p"), "{ml}");
        let at: crate::expr::Bindings = [("n".to_string(), 800.0), ("p".to_string(), 32.0)]
            .into_iter()
            .collect();
        let truth = -0.2 * 800e-6 * (1.0 - 1.0 / 32.0);
        let v = ml.eval(&at).unwrap();
        assert!(
            (v / truth - 1.0).abs() < 0.05,
            "{ml} gives {v}, not {truth}"
        );
    }

    /// An overhead whose share of the work grows with the size (`li = 1e-13·(p − 1)·n³`,
    /// ±2 % noise, beside the work `1e-9·n²`): the policy keeps the faster growth the data
    /// show and notes it, with the held-out evidence for it (see [`growth`]).
    #[test]
    fn an_overhead_that_outgrows_the_work_is_noted_with_its_evidence() {
        let mut text = String::new();
        let noise = [1.02, 0.98, 1.01, 0.99, 1.015, 0.985, 1.0];
        let mut k = 0;
        for n in [64.0f64, 128.0, 256.0, 512.0, 1024.0] {
            let pc = 1e-9 * n * n;
            for p in [1.0f64, 2.0, 4.0, 8.0, 16.0] {
                let li = 1e-13 * n.powi(3) * (p - 1.0) * noise[k % noise.len()];
                k += 1;
                text += &format!("n={n} p={p} li={li} pc={pc} rt={pc} tt={}\n", pc + li);
            }
        }
        let records = parse_records(&text).unwrap();
        let vars = ["n".to_string(), "p".to_string()];
        let f = fit_fragment(&records, "t", None, &vars, &Extraction::default()).unwrap();
        let li = f.category("li").unwrap().model.expr.to_string();
        assert!(li.contains("n^3"), "{li}");
        assert!(
            f.notes.iter().any(|n| n.contains("category li: `")
                && n.contains(
                    "grows faster in n than the work; the largest measured n support it"
                )),
            "{:?}",
            f.notes
        );
    }

    #[test]
    fn noise_categories_are_left_out_with_a_note() {
        // ml alternates in sign around 0 with no pattern: leaving it out predicts better.
        let mut text = String::new();
        let ml = [3e-7, -4e-7, 2e-7, -1e-7, 5e-7, -3e-7, 1e-7, -2e-7];
        let mut k = 0;
        for n in [100.0f64, 200.0, 400.0, 800.0] {
            for p in [1.0f64, 2.0, 3.0] {
                let pc = 1e-6 * n;
                let m = if p > 1.0 { ml[k % ml.len()] } else { 0.0 };
                k += 1;
                let rt = pc + m;
                text += &format!("n={n} p={p} ml={m} pc={pc} rt={rt} tt={}\n", rt * p);
            }
        }
        let records = parse_records(&text).unwrap();
        let vars = ["n".to_string(), "p".to_string()];
        let f = fit_fragment(&records, "t", None, &vars, &Extraction::default()).unwrap();
        assert!(f.category("ml").is_none(), "{:?}", f.category("ml"));
        assert!(
            f.notes.iter().any(|n| n.contains("category ml: left out")),
            "{:?}",
            f.notes
        );
        assert_eq!(f.category("pc").unwrap().model.expr.to_string(), "1e-6*n");
    }
}
