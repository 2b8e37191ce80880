//! Prediction of Rust programs from their annotated fragment models: Crovella's lost cycles
//! modeling (thesis chapter 6), composed in PAMELA terms and evaluated by [`crate::pamela`].
//!
//! Given the source of a parallel program whose fragments carry fitted models
//! (`// lcm: rt = 2.09e-9*n^2*log2(n)`, docs/models.md), `lcm` recognizes the program's
//! parallel structure from the code, composes the fragment models into a PAMELA model and
//! predicts T(n, p) in seconds without running the program — above all for a restructured
//! version that has never run.
//!
//! # Usage
//! ```
//! use lcm::predict::{PredictOptions, Program};
//! use std::collections::BTreeMap;
//! let src = r#"
//! fn main() {
//!     rayon::join(
//!         || {
//!             // lcm: fragment left
//!             // lcm: rt = 2e-9*n^2
//!             left();
//!         },
//!         || {
//!             // lcm: fragment right
//!             // lcm: rt = 1e-9*n^2
//!             right();
//!         },
//!     );
//! }
//! "#;
//! let prog = Program::from_source("join.rs", src, &PredictOptions::default())?;
//! let at = BTreeMap::from([("n".to_string(), 1000.0), ("p".to_string(), 4.0)]);
//! let pred = prog.predict(&at)?;
//! // each task gets p/2 = 2 processors: T = max(2e-3, 1e-3) / 2 seconds
//! assert!((pred.seconds - 1e-3).abs() < 1e-12);
//! // structural load imbalance LI+ = (1e-3 - 0.5e-3) * 2 processor-seconds, i.e. LI+/p of T
//! assert!((pred.contributions.load_imbalance_s - 2.5e-4).abs() < 1e-12);
//! # Ok::<(), lcm::predict::PredictError>(())
//! ```
//! From a file: [`predict_file`]`(path, &bindings, &opts) -> seconds`, or
//! [`Program::load`] once and [`Program::predict`] at many points (the model is composed and
//! compiled once; [`Program::predict_brief`] gives the time, contributions and warnings
//! without the per-instance breakdown, each repeated subtree evaluated once per point). [`PredictOptions`] names a models file (`lca --emit annotation` output,
//! replacing the source's models fragment by fragment), a machine file (`lcm calibrate`), the
//! measured version's source (its data movement is not counted twice) and the entry function.
//! [`Prediction`] holds the time (`seconds`), the seconds each part adds
//! ([`Contributions`]: per fragment, LI+, pipeline waits, idle processors, communication,
//! synchronization, contention; they sum to the time) and the detailed breakdown.
//!
//! # Input rules
//! - **Annotations** are whole-line `// lcm:` comments (parsed by [`lca::annotation`]). The
//!   comment lines directly above a statement (no blank line between) are its annotation
//!   block.
//! - **The fragment rule**: a fragment starts at the first statement below a block holding
//!   `// lcm: fragment NAME` and extends over the following statements of the same `{ }`
//!   block up to, not including, the first statement preceded by a blank line or carrying an
//!   annotation block of its own, or to the end of the enclosing block. The fragment's model
//!   covers everything in it (loops, calls, even parallel iterators); `lcm` only looks inside
//!   for channel `send` / `recv` (a `recv` is placed before the fragment's work, a `send`
//!   after).
//! - In a fragment's block: `CATEGORY = EXPR` for `li fj ip sl wc cl rc ml os pc rt tt over`
//!   (processor-seconds of **one execution** of the fragment); `iterations = K` says the
//!   models are totals over K executions, as `pp` measures a fragment over a whole run
//!   (one execution then costs model / K); `input X` / `output X` (data traces);
//!   `bytes = EXPR` (bytes of each item it inputs); `p = EXPR` and `NAME = EXPR` for any other
//!   name (overrides of p, n or a user variable, read in the variables of the node above);
//!   `range n = 64..1024, p = 1..16` (the measured range of the models' variables, as
//!   `lca model --emit annotation` writes it; see [`lca::range`]): a prediction whose point,
//!   seen at the fragment's own variables (p_f after the composition rules and overrides),
//!   lies beyond 2x that range of a variable a model uses is warned about on stderr and in
//!   `--json` (`warnings`), naming the fragment and the categories that carry the risk.
//! - **Derived models** ([`mod@derive`]): in a restructured version's source, `like NAME`
//!   starts a fragment from measured fragment NAME's models (the --models file), category
//!   lines may refer to measured models as `FRAGMENT.CATEGORY` (`sl = fill.sl / shards`),
//!   and `contention = EXPR` adds `EXPR * pc` to `ml` for a fragment that runs beside other
//!   busy tasks; unknown references are errors naming file, line and what exists.
//! - On a non-fragment statement: `p = EXPR` / `NAME = EXPR` overrides for what it creates
//!   (a task, a loop, a call), `iterations = EXPR` for the trip count of a loop, the number
//!   of spawns of a spawn loop, or the items of a parallel iterator.
//! - A model line outside a fragment block, a second `fragment` in one block, a category
//!   given twice or a malformed line is an error naming file and line (exit status 1).
//! - **pplib's names**: a statement headed by `pplib::frag_scope("NAME", ..)` (the fragment
//!   is that statement) or `let g = pplib::frag("NAME");` (to `drop(g)` or the block's
//!   end) is a fragment without a `// lcm: fragment` line; its annotation block holds the
//!   models. An annotation naming another fragment than the call is an error naming both
//!   lines. pplib's `par`/`task` guards and scopes, `pp_for_each*` and pool sizes are
//!   structure too ([`recognize`], docs/models.md).
//!
//! # Recognized structure (see [`recognize`])
//! `rayon::join` / `pplib::join` (2 tasks); `rayon::scope`, `std::thread::scope`,
//! `pplib::scope`, `pplib::thread::scope`, `crossbeam::scope` with their spawns (spawns in a
//! loop with a literal range or annotated trip count become that many copies); parallel
//! iterator chains (`par_iter*`, `into_par_iter`, `par_chunks*`, …) — inside a fragment they
//! are covered by its model (data-parallel fragment), with fragments in their closures they
//! are a data-parallel node of items on one processor each; sequential `for` / `while` /
//! `loop` with a literal range or `// lcm: iterations = EXPR`; loops over a channel receiver;
//! calls of functions and methods of the same file (followed, so a fragment may sit in a
//! helper); channel `send` / `recv` (std `mpsc`, crossbeam), `Barrier::wait`,
//! `let guard = m.lock()` (the rest of the block holds the mutex). Parallel constructs without
//! fragments, parallel iterators outside fragments and loops with unknown trip counts are
//! warnings naming file and line.
//!
//! # Composition (see [`mod@env`], [`compose`], [`datatrace`])
//! - Variables top-down: T parallel tasks get p/T processors each; items of a data-parallel
//!   node one; n and user variables pass unchanged; overrides replace them.
//! - A fragment takes T_f = (sum of its categories) / p_f at its own (n, p_f) (the sum rule
//!   is in [`env::work_expr`]).
//! - A parallel node takes the longest task; its structural load imbalance
//!   LI+ = Σ_t (max T − T_t)·p_t is reported on its own line.
//! - Cross-task `send` / `recv` become PAMELA condition synchronization (`signal` / `wait`);
//!   barrier waits split the tasks into phases; a chain of task loops linked by channels
//!   becomes the material-oriented pipeline of van Gemund's Example 3.5 beside its Eq. 3.16
//!   critical path (fill plus bottleneck stage), so the compiled and the simulated model
//!   both give the flow-shop time.
//! - Processors are a PAMELA resource of multiplicity p; memory loss (`ml`, or `cl + rc`) uses
//!   a memory-system resource; a locked region uses a lock resource; so concurrent fragments
//!   contend (omega) instead of being assumed independent.
//! - Data moving between fragments whose least common ancestor is parallel costs
//!   `latency + bytes / bandwidth` from the machine file, added before the reader.
//! - With a machine file holding run-time costs (`lcm calibrate`), [`overheads`] adds named
//!   `machine …` fragments before composition: fork/join per parallel construct and
//!   data-parallel loop, a task cost per task, items × per-item cost / p per data-parallel
//!   loop; every numeric machine key is a variable of the annotations (docs/machine.md).
//!   Each pipeline hand-off is priced by [`handoff`]'s rule in the composition: caught
//!   spinning or woken from sleep, chosen by how long the waiting stage waits per item.
//!
//! # Comparing versions (see [`compare`])
//! `lcm compare` calls a **tie** where two predictions differ by less than their relative
//! uncertainty (5 % by default, `--uncertainty`; the measured version's own prediction
//! error where it is known, [`measured`] reads those measurements from `pp -l` or
//! `pp-campaign` records) and reports crossovers only between points outside it; a point
//! where a version has no prediction is not compared (never a tie,
//! [`compare::Verdict::NotCompared`]). Points where a model is used beyond 2x its measured range, or evaluates negative
//! ([`negative`]), are marked in its table and JSON ([`compare_report`]), and so are the
//! crossovers among them.
//!
//! The composed model text (`lcm predict --pamela`) is compiled once by
//! [`crate::pamela`]; predictions evaluate it.

pub mod account;
pub mod columns;
pub mod compare;
pub mod compare_report;
pub mod compose;
pub mod datatrace;
pub mod derive;
pub mod env;
pub mod error;
pub mod few_items;
pub mod grid;
pub mod handoff;
pub mod machine;
pub mod measured;
pub mod negative;
pub mod nesting;
pub mod overheads;
pub mod pipeline;
pub mod pipeline_report;
pub mod program;
pub mod recognize;
pub mod report;
pub mod source;
pub mod tree;

pub use error::{PredictError, Warning};
pub use program::{predict_file, Contributions, PredictOptions, Prediction, Program};
