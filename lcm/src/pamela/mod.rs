//! The PAMELA language, its compile-time calculus and a discrete-event simulator
//! (van Gemund's thesis, chapter 3; the PAMELA compiler paper, section 2).
//!
//! A model is a set of equations (docs/models.md):
//!
//! ```text
//! numeric parameter P          % symbolic: stays in the compiled model
//! numeric parameter N
//! numeric t_l = 10
//! numeric t_s = 0.1
//! resource s = fcfs(0,1)       % FCFS resource index 0, multiplicity 1
//! process main = par (p = 1, P)
//!                  seq (i = 1, N) {
//!                    delay(t_l) ;
//!                    use(s, t_s)
//!                  }
//! ```
//!
//! * [`parse`] reads the text (errors name line and column);
//! * [`Program::compile`] substitutes every equation (normal form), applies the calculus
//!   (`phi`, `delta`, `omega`, and `T` by the recursive rule, Eq. 3.15) and simplifies the
//!   result symbolically, so that regular models become closed forms: the model above
//!   compiles to `max(N*10.1, P*N*0.1)`;
//! * [`CompiledModel::eval`] evaluates the time model for parameter values;
//! * [`simulate`] runs the model as a discrete-event simulation (replications, random
//!   arbitration, stochastic delays) and reports the mean next to the bound.
//!
//! Semantics worth knowing:
//! * A resource is identified by its family (the resource equation's name, or
//!   `fcfs`/`ps` for servers written inline) and its index; two equations never alias.
//! * `delay(exp(m))` and `use(r, uniform(a, b))` are stochastic in the simulator (only
//!   when the whole time argument is the distribution); the calculus uses their means.
//! * `if (c) a else b` with a probability c compiles to `c*X_a + (1-c)*X_b`.
//! * `wait(c)` / `signal(c)` (single-assignment conditions, optionally indexed `c(i)`)
//!   make a model non-series-parallel: its `phi` is then computed numerically by the time
//!   equations (Eq. 3.1-3.3) and `T = max(phi, omega)`.
//! * Symbolic loop ranges are assumed non-empty and parameters non-negative during
//!   simplification; numeric ranges are exact. Regular models (sums of constants and of
//!   index-linear terms, maxima of identical or monotone terms, resources indexed by a
//!   loop index) compile to closed forms; where resource indices cannot be told apart
//!   symbolically (e.g. `l((p + k) mod P)`), `omega` is an [`Expr::Contention`] node that
//!   groups the demands numerically at evaluation time.
//! * Events at equal virtual times are arbitrated randomly from the seed
//!   ([`Arbitration::Random`]); [`Arbitration::Fifo`] is the PAMELA run-time library's
//!   deterministic order (thesis appendix E), which reproduces the thesis's simulations.
//!   Simulations stop with [`PamelaError::TooManyEvents`] beyond an event budget and report
//!   [`PamelaError::Deadlock`] when blocked processes can never resume.
//! * Bounds (errors, not crashes): text nests at most 256 levels; a normal form has at most
//!   10^6 nodes and 1000 levels (equations that use another several times, chained,
//!   multiply its size); numerics, parameters and evaluated results must be finite; a
//!   simulation holds at most [`MAX_LIVE_PROCESSES`] processes at once.
//!
//! ```
//! use lcm::pamela::{self, Bindings};
//! let src = "numeric parameter P\nnumeric parameter N\nresource s = fcfs(0,1)\n\
//!            process main = par (p = 1, P) seq (i = 1, N) { delay(10) ; use(s, 0.1) }";
//! let model = pamela::parse(src)?.compile()?;
//! let b = Bindings::from([("P".to_string(), 1000.0), ("N".to_string(), 1e6)]);
//! assert!((model.eval(&b)? - 1e8).abs() < 1e-3);
//! # Ok::<(), pamela::PamelaError>(())
//! ```
mod ast;
mod compile;
mod error;
mod eval;
mod expr;
mod lexer;
mod model;
mod normal;
mod parser;
pub mod partition;
mod sim;
mod simplify;
mod timeeq;

pub use ast::{Decl, DeclKind, NameRef, Proc, ResourceDef, ServerKind, Time};
pub use error::{PamelaError, Span};
pub use eval::Bindings;
pub use expr::{fmt_num, CmpOp, Demand, Expr, Func, Reduction};
pub use model::{CompiledModel, Program};
pub use normal::{NCond, NProc, NRes};
pub use sim::{Arbitration, SimOptions, SimReport};

/// Default bound on the number of simulated events (all runs together).
pub const DEFAULT_MAX_EVENTS: u64 = 2_000_000_000;

/// The most processes a simulation holds live at once (each holds its variables, a
/// stack and a pending event: a few hundred bytes). `--max-events` bounds time; this
/// bounds memory, whatever the event budget.
pub const MAX_LIVE_PROCESSES: usize = 1 << 20;

/// Parses a PAMELA model.
pub fn parse(source: &str) -> Result<Program, PamelaError> {
    let mut decls = parser::parse_decls(source)?;
    // `L = worker(1)` without a type keyword reads as a numeric; it is a process (or a
    // resource) when the right-hand side names one
    let kinds: Vec<(String, bool)> = decls
        .iter()
        .filter_map(|d| match d.kind {
            DeclKind::Process(_) => Some((d.name.clone(), true)),
            DeclKind::Resource(_) => Some((d.name.clone(), false)),
            _ => None,
        })
        .collect();
    for d in &mut decls {
        let DeclKind::Numeric { value: Some(v), .. } = &d.kind else {
            continue;
        };
        let (name, args) = match v {
            Expr::Var(n) => (n.clone(), Vec::new()),
            Expr::Apply(n, a) => (n.clone(), a.clone()),
            _ => continue,
        };
        if let Some((_, is_process)) = kinds.iter().find(|(k, _)| *k == name) {
            let r = NameRef {
                name,
                args,
                span: d.span,
            };
            d.kind = if *is_process {
                DeclKind::Process(Proc::Call(r))
            } else {
                DeclKind::Resource(ResourceDef::Alias(r))
            };
        }
    }
    Ok(Program::from_decls(decls))
}

/// Parses one numeric expression of the PAMELA grammar (no equations are expanded).
pub fn parse_expr(text: &str) -> Result<Expr, PamelaError> {
    parser::parse_expr_text(text)
}

/// Simulates `program` with the given parameter values; `t_lower` in the report is the
/// compiled bound at the same values.
pub fn simulate(
    program: &Program,
    bindings: &Bindings,
    options: &SimOptions,
) -> Result<SimReport, PamelaError> {
    simulate_limited(program, bindings, options, DEFAULT_MAX_EVENTS)
}

/// [`simulate`] that stops with [`PamelaError::TooManyEvents`] after `max_events` events.
pub fn simulate_limited(
    program: &Program,
    bindings: &Bindings,
    options: &SimOptions,
    max_events: u64,
) -> Result<SimReport, PamelaError> {
    simulate_with(program, bindings, options, Arbitration::Random, max_events)
}

/// [`simulate`] with a choice of arbitration among equal times and an event limit.
pub fn simulate_with(
    program: &Program,
    bindings: &Bindings,
    options: &SimOptions,
    arbitration: Arbitration,
    max_events: u64,
) -> Result<SimReport, PamelaError> {
    let p = program.normal_form()?;
    let params: Vec<String> = p.free_vars().into_iter().collect();
    for n in &params {
        if !bindings.contains_key(n) {
            return Err(PamelaError::Unbound { name: n.clone() });
        }
    }
    let model = program.compile()?;
    let t_lower = model.eval(bindings)?;
    let prog = sim::SimProgram::new(&p, &params)?;
    let mut report = sim::replicate(&prog, bindings, options, arbitration, max_events)?;
    report.t_lower = t_lower;
    Ok(report)
}
