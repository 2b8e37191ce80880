//! The numeric breakdown behind a prediction: each fragment's time and processor-seconds,
//! the structural load imbalance LI+ of each parallel node, pipeline fill and bottleneck, and
//! processors left idle by `p` overrides — evaluated at one point with the same variable
//! rules as the composition, so that
//! `p * T_critical = sum(fragment work) + LI+ + pipeline waiting + idle + communication`.
//!
//! Files: `totals` (the sums a grid point needs), `shape` (equal subtrees found once per
//! program), `walker` (the walk that evaluates a tree, fragment by fragment, with its
//! memo), `parallel` (a parallel node's LI+ and idle processors), `pipeline` (a pipeline's
//! stages, hand-offs and waiting), `shares` (what an accounting holds).

use super::env::Env;
use super::error::PredictError;
use super::tree::Node;
use lca::expr::{Bindings, EvalError, Expr};

mod parallel;
mod pipeline;
mod shape;
mod shares;
mod totals;
mod walker;
pub use shape::Shape;
pub use shares::{Accounting, CallSite, FragmentShare, ParallelShare, PipelineShare, StageShare};
pub use totals::Totals;
use walker::Walker;

/// `e` at `b`; an unbound variable or a failed evaluation names `what` needed it.
pub(crate) fn ev(e: &Expr, b: &Bindings, what: &str) -> Result<f64, PredictError> {
    e.eval(b).map_err(|err| match err {
        EvalError::UnknownVariable(name) => PredictError::Unbound {
            name,
            needed_by: what.to_string(),
        },
        other => PredictError::Eval {
            what: what.to_string(),
            message: other.to_string(),
        },
    })
}

/// Evaluates the breakdown of `root` at `bindings` (must bind `p`); `comm[k]` as in
/// [`super::compose::Composer::new`]. Its work is proportional to the fragment instances.
pub fn account(
    root: &Node,
    file: &str,
    comm: &[Option<Expr>],
    bindings: &Bindings,
) -> Result<Accounting, PredictError> {
    let mut w = Walker::new(file, comm, bindings, true)?;
    let env = Env::root();
    let (t, _) = w.visit(root, None, &env, &env, 1.0)?;
    w.acc.critical_path_s = t;
    Ok(w.acc)
}

/// The totals of the breakdown of `root` (with `shape`, [`Shape::of`] the same tree and
/// `comm`) at `bindings`, and the critical-path seconds: the same numbers as [`account`]
/// (up to rounding), the same errors, in work proportional to the distinct subtrees and
/// environments instead of the instances.
pub fn totals(
    root: &Node,
    shape: &Shape,
    file: &str,
    comm: &[Option<Expr>],
    bindings: &Bindings,
) -> Result<(Totals, f64), PredictError> {
    let mut w = Walker::new(file, comm, bindings, false)?;
    let env = Env::root();
    let (t, _) = w.node(root, Some(shape), &env, &env, 1.0)?;
    Ok((w.totals, t))
}
