//! `lca`: lost-cycles analysis — fit models of overhead categories to profile records.
//!
//! `pp` writes one record per run and fragment (docs/records.md). `lca` reads them
//! ([`record`]), selects the ones of interest ([`extraction`]), turns one category over
//! one or more variables into a [`dataset::Dataset`], and fits candidate forms:
//! hypotheses ([`hypothesis`]: formulae, the shipped [`forms`] of Crovella's Table 5.1, or
//! the automatic normal-form [`search`]) are fitted ([`fit`], [`linear`], [`nonlinear`])
//! with 90% confidence half-widths, R², adjusted R² and leave-one-out cross-validation
//! error, then ranked. The chosen models are written as expression text ([`expr`]) in
//! `// lcm:` annotations ([`annotation`]) that `lcm` composes; [`runtime`] sums every
//! category into T(n, p) = Σ C(n, p) / p (Crovella's Figure 5.4).
//!
//! Whole data files: [`models_file`] fits every fragment at once (`lca model --all-tags`)
//! and writes the complete models file `lcm predict --models` reads, each fragment with its
//! measured [`range`] (predictions beyond 2x it are warned about, here by [`evaluate`] /
//! `lca eval` and in `lcm`) and its coefficients printed with the digits their intervals
//! justify ([`precision`]). [`extrap`] reads Extra-P's text and JSON Lines input formats
//! and writes JSON Lines (`lca model --emit extrap`).
//!
//! Units: category values are seconds summed over processors, as `pp` writes them;
//! `time` = tt / p is wall-clock seconds. Fitted models keep the unit of their data.
//!
//! # The end-to-end study in five lines
//!
//! ```
//! use lca::{extraction::Extraction, record::parse_records, runtime::fit_runtime, search::SearchOptions};
//! // Records as `pp -l "n=..." run.pplog >> fft.pp` accumulates them (here generated).
//! let mut text = String::new();
//! for n in [256.0, 512.0, 1024.0, 2048.0, 4096.0] {
//!     for p in [1.0f64, 2.0, 4.0, 8.0, 16.0] {
//!         let (rt, li) = (2e-6 * n, 1e-7 * n * p.log2());
//!         text += &format!("n={n} tag=cols p={p} li={li} rt={rt} tt={}\n", rt + li);
//!     }
//! }
//! let records = parse_records(&text).unwrap();
//! let vars = ["n".to_string(), "p".to_string()];
//! let model = fit_runtime(&records, "fft.pp", Some("cols"), &vars,
//!                         &Extraction::default(), &SearchOptions::default()).unwrap();
//! // The annotation lines for the fragment, ready for `lcm --models`:
//! let lines = model.fragment_model().to_string();
//! assert_eq!(lines, "// lcm: fragment cols\n// lcm: rt = 2e-6*n\n// lcm: li = 1e-7*n*log2(p)\n");
//! assert!(model.mean_relative_error < 1e-6);
//! ```
//!
//! One category, one variable, with the forms of Crovella's table and a user formula:
//!
//! ```
//! use lca::{dataset::{Dataset, DataPoint}, forms::FormsFile, fit::fit, hypothesis::Hypothesis, report};
//! let pts = (1..=16).map(|p| { let p = p as f64; DataPoint { x: vec![p], y: 0.01 * p * p.sqrt(), line: 0 } }).collect();
//! let data = Dataset::new("li", &["p"], pts);
//! let mut hyps = FormsFile::shipped().hypotheses("li", &data.variables).unwrap();
//! hyps.push(Hypothesis::formula("p^2 + 1", &data.variables).unwrap());
//! let ranked = report::rank(hyps.iter().filter_map(|h| fit(h, &data).ok()).collect());
//! assert_eq!(ranked[0].expr.to_string(), "0.01*p*sqrt(p)");
//! ```
//!
//! # Selection, and what the table's order means
//!
//! Every linear form is fitted by weighted least squares on relative errors (timing data
//! has multiplicative noise; see [`linear`]). Models are *listed* best first by
//! leave-one-out cross-validation error ([`report::rank`]); the model *selected* (used by
//! `--emit annotation`, `lca model`, [`search::AutoFit::best`]) has the lowest penalized
//! score `LOO-CV · penalty^terms` ([`report::score`], [`search::term_penalty`]): a term
//! must lower the CV error by `penalty` to be kept. [`report::Ranking`] holds both.
//!
//! # The fitting policy of `lca model`
//!
//! `lca model` ([`runtime::fit_runtime`]), `lca -c CATEGORY --auto`
//! ([`policy::fit_category`]) and programs that model every fragment
//! ([`policy::fit_fragments`], used by the end-to-end study) choose each category's model
//! by one policy, [`policy`]: one observation per configuration (the median of its
//! repetitions; pure computation `pc`, which `pp` copies from the p = 1 baseline into every
//! record, from the p = 1 records only); overheads (`ml li sl ip wc`) fitted on p > 1 as
//! forms that vanish at p = 1, including Crovella's typical forms in p, and, where an
//! overhead is material at p = 1 (idle time with one thread), also with a p = 1 part
//! fitted on the p = 1 records ([`policy::at_one`]); candidates chosen
//! by their error on held-out configurations *and* on the largest size and p left out
//! (extrapolation), relative to the fragment's time; at most `distinct values − 2`
//! coefficients along each variable; no `exp(…)` wrappers (a log-space fit is a power law
//! `C·n^a·p^b`); models that turn negative (or, for `ml`, below minus the work) within
//! twice the measured range are not candidates; work that no smooth form follows within
//! its noise (a regime change between measured sizes) may get the piecewise power law
//! through the measured medians, `pw(…)` ([`policy::piecewise`]), which warns beyond its
//! first and last point. Once every form is chosen, the overheads' coefficients are
//! re-estimated together so that their sum follows the measured time, each held near its
//! own fit, where the held-out folds show that this predicts better
//! ([`policy::joint`]; `lca model` notes it). An overhead whose share of the work keeps
//! growing beyond the largest measured size is noted, with the held-out evidence for and
//! against that growth ([`policy::growth`]); a fragment whose models miss a measured
//! configuration by more than 10 % of its time and more than its repetitions' spread is
//! noted, at the worst one ([`policy::misfit`]).
//!
//! # Known zeros: `zero_at`
//!
//! Categories such as `ip`, `sl` and `ml` are 0 at p = 1 (one processor has nobody to wait
//! for; `li` mostly is, but counts the one processor's idle time inside a parallel region,
//! see [`policy::at_one`]). [`search::SearchOptions::zero_at`] constrains the automatic search to
//! models that vanish there, with no free constant ([`search::ZeroAt`]); on the command
//! line `lca --auto --zero-at p=1`.
//!
//! ```
//! use lca::dataset::{Dataset, DataPoint};
//! use lca::search::{auto_fit, SearchOptions, ZeroAt};
//! let mut pts = Vec::new();
//! for n in [1000.0, 2000.0, 4000.0, 8000.0, 16000.0] {
//!     for p in [1.0f64, 2.0, 4.0, 8.0, 16.0] {
//!         pts.push(DataPoint { x: vec![n, p], y: 2e-6 * n * (p - 1.0), line: 0 });
//!     }
//! }
//! let data = Dataset::new("ip", &["n", "p"], pts);
//! let opts = SearchOptions { zero_at: Some(ZeroAt::new("p", 1.0)), ..SearchOptions::default() };
//! let fit = auto_fit(&data, &opts).unwrap();
//! assert_eq!(fit.best().expr.to_string(), "2e-6*n*(p - 1)");
//! ```
#![deny(missing_docs)]

pub mod annotation;
pub mod dataset;
pub mod evaluate;
pub mod expr;
pub mod extraction;
pub mod extrap;
pub mod extrapolation;
pub mod fit;
pub mod forms;
pub mod hypothesis;
pub mod linear;
pub mod models_file;
pub mod nonlinear;
pub mod plot;
pub mod policy;
pub mod precision;
pub mod range;
pub mod record;
pub mod report;
pub mod runtime;
pub mod search;
pub mod stats;
