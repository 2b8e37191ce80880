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
//!   Measured at one p > 1 only, an overhead's dependence on the size is a quantity of one
//!   variable, and where no smooth form follows it (the same evidence as for the work) the
//!   piecewise power law through its values there, scaled by `(p − 1)`, replaces the
//!   smooth forms (lock waits that step from nothing to half the time between two sizes;
//!   [`piecewise::choose_overhead`]).
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
//! Where the records hold one processor count above 1 (p = 1, 2 on a 2-core machine), the
//! overheads' candidates grow in p by assumption only (`(p − 1)·f`, a share of the work):
//! one p > 1 cannot show how they grow, and the notes say so once per fragment, naming the
//! overheads whose chosen model depends on p (at any other p they extrapolate).
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
//! the largest size); where they do not, or where fewer than
//! [`growth::MIN_VALUES_TO_SUPPORT`] (4) values of the variable were measured (the fold then
//! fits on two sizes and one decides), the note says that the growth beyond them is not
//! to be trusted. The choice itself stays with the held-out score, which already weighs
//! those folds beside the others: the note is a statement of trust, not a second choice.
//! The note quotes the model as emitted, after the joint step (and says so where that
//! step re-estimated it).
//!
//! A fragment whose modelled time misses a measured configuration by more than
//! [`misfit::MISFIT`] (10 %) of its time and by more than the spread of that
//! configuration's repetitions is noted, naming the worst configuration and the category
//! whose model misses most of it there ([`misfit`]): a held-out score is a mean, and a
//! model can miss one size by a third and still be the best on offer.
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
mod error;
mod fragment;
pub mod growth;
pub mod heldout;
pub mod joint;
pub mod misfit;
mod models;
pub mod observations;
pub mod piecewise;
pub mod sign;

pub use category::{fit_category, CategoryFit};
pub use error::PolicyError;
pub use fragment::{fit_fragment, fit_fragments, fragment_tags};
pub use joint::JointStep;
pub use models::{CategoryModel, FragmentModels};

/// Overheads of running in parallel, fitted as forms that vanish at p = 1 unless they are
/// material there ([`at_one`]).
pub const VANISHING: [&str; 5] = ["ml", "li", "sl", "ip", "wc"];

/// Categories that add up to the processor-time: `tt = li + ip + sl + wc + rt`, and
/// `rt = pc + ml` where the records carry the baseline split ([`::category::time`]).
pub const PARTITION: [&str; 5] = ::category::keys(::category::time::TT_PARTITION);

/// The processor-count variable.
pub const PROCESSORS: &str = "p";

/// A category that holds at least this share of a fragment's processor-time (its mean
/// share over the records, [`category::share_of_time`]) is never left out as noise: leaving it out would drop a real part of the
/// fragment's time (a serial fragment's `ip` at p > 1 is half of it at p = 2), whatever
/// the held-out error of its models.
pub const MATERIAL_SHARE: f64 = 0.02;
