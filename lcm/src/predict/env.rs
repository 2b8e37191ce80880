//! External variables top-down (Crovella section 6.2.2, first step): each node sees n, p and
//! the user's variables as expressions in the program's own variables.
//!
//! Rules: a serial node, a loop or a followed call passes its variables unchanged; T parallel
//! tasks get `p/T` processors each; a data-parallel item gets one processor; a node annotated
//! `// lcm: p = EXPR` (or `// lcm: n = EXPR`, any variable) gets that value instead, EXPR read in
//! the variables of the node above it.

use super::error::PredictError;
use super::tree::{div, Fragment, Node};
use lca::expr::{BinOp, Expr, Func};
use std::collections::BTreeMap;

/// Variable values of one node, as expressions in the program's variables (absent: unchanged).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Env {
    vars: BTreeMap<String, Expr>,
}

/// Whether `s` can name a variable where a number could also stand (`F.ml_pNAME`,
/// `mem_slowdown_kNAME`): a letter, then letters, digits and `_`.
pub(crate) fn is_variable_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Replaces variables by expressions.
pub fn substitute(e: &Expr, vars: &BTreeMap<String, Expr>) -> Expr {
    match e {
        Expr::Num(v) => Expr::Num(*v),
        Expr::Var(n) => vars.get(n).cloned().unwrap_or_else(|| Expr::Var(n.clone())),
        Expr::Neg(x) => Expr::Neg(Box::new(substitute(x, vars))),
        Expr::Bin(op, a, b) => Expr::bin(*op, substitute(a, vars), substitute(b, vars)),
        Expr::Call(f, args) => Expr::Call(*f, args.iter().map(|a| substitute(a, vars)).collect()),
    }
}

impl Env {
    /// The program's own variables (nothing overridden).
    pub fn root() -> Env {
        Env::default()
    }

    /// `e` with this node's variable values substituted.
    pub fn subst(&self, e: &Expr) -> Expr {
        substitute(e, &self.vars)
    }

    /// This node's processors.
    pub fn p(&self) -> Expr {
        self.subst(&Expr::Var("p".into()))
    }

    /// A copy with `name` set to `value` (already in the program's variables).
    pub fn with(&self, name: &str, value: Expr) -> Env {
        let mut e = self.clone();
        e.vars.insert(name.to_string(), value);
        e
    }

    /// The environment of `node` itself: `self` with the node's overrides applied, the
    /// overrides read in `outer` (the environment of the node above).
    pub fn enter(&self, node: &Node, outer: &Env) -> Env {
        let mut e = self.clone();
        if let Some(p) = &node.p_override {
            e.vars.insert("p".into(), outer.subst(p));
        }
        for (v, x) in &node.var_overrides {
            e.vars.insert(v.clone(), outer.subst(x));
        }
        e
    }

    /// The variables set here (for display).
    pub fn settings(&self) -> &BTreeMap<String, Expr> {
        &self.vars
    }
}

/// A fragment's composed terms at one node: processor-seconds per execution, the memory part
/// of them, and the processors.
#[derive(Debug, Clone, PartialEq)]
pub struct FragmentTerms {
    /// Processor-seconds of one execution: the sum of the categories (see [`work_expr`]).
    pub work: Expr,
    /// The memory-loss part of `work` (`ml`, else `cl` + `rc`), if the models carry it.
    pub memory: Option<Expr>,
    /// Processors p_f.
    pub procs: Expr,
}

impl FragmentTerms {
    /// T_f = work / p_f, seconds per execution.
    pub fn time(&self) -> Expr {
        div(self.work.clone(), self.procs.clone())
    }
}

fn sum(terms: Vec<Expr>) -> Option<Expr> {
    terms.into_iter().reduce(|a, b| Expr::bin(BinOp::Add, a, b))
}

/// The sum rule of [`category::time`]: `li + ip + sl + wc` plus the busy part — `rt` if
/// present, else `pc` plus the memory part (`ml`, else `cl + rc`), else the memory part
/// alone — and `tt` only when none of the others is there. `os` (inside `rt`) and `over`
/// (outside `tt`) are never added.
pub fn work_expr(f: &Fragment) -> Option<Expr> {
    let terms = category::time::time_terms(|c| model(f, c).is_some());
    sum(terms.iter().filter_map(|c| model(f, *c)).collect())
}

/// The memory-system part of a fragment's processor-seconds: `ml`, else `cl + rc`
/// ([`category::time::memory_terms`]).
pub fn memory_expr(f: &Fragment) -> Option<Expr> {
    let terms = category::time::memory_terms(|c| model(f, c).is_some());
    sum(terms.iter().filter_map(|c| model(f, *c)).collect())
}

/// The fragment's model of category `c`.
fn model(f: &Fragment, c: category::Category) -> Option<Expr> {
    f.categories
        .iter()
        .find(|(k, _)| k == c.key())
        .map(|(_, e)| e.clone())
}

/// The fragment's terms in environment `env` (model variables replaced by the node's values;
/// totals over K executions divided by K).
pub fn fragment_terms(
    f: &Fragment,
    env: &Env,
    file: &str,
    line: usize,
) -> Result<FragmentTerms, PredictError> {
    let work = work_expr(f).ok_or_else(|| PredictError::Structure {
        file: file.to_string(),
        line,
        message: format!(
            "fragment `{}` has no model: expected `// lcm: CATEGORY = EXPR` lines above it or a --models file with it",
            f.name
        ),
    })?;
    let per = |e: Expr| per_execution(f, env, &e);
    Ok(FragmentTerms {
        work: per(work),
        memory: memory_expr(f).map(per),
        procs: env.p(),
    })
}

/// The categories a fragment's work sums ([`work_expr`]), each per execution in `env`:
/// (record key, model), for the breakdown of one point.
pub fn fragment_categories(f: &Fragment, env: &Env) -> Vec<(String, Expr)> {
    category::time::time_terms(|c| model(f, c).is_some())
        .into_iter()
        .filter_map(|c| Some((c.key().to_string(), per_execution(f, env, &model(f, c)?))))
        .collect()
}

/// Model `e` of fragment `f` in `env`, per execution (a total over K executions, `//
/// lcm: iterations = K` in the fragment's block, divided by K).
fn per_execution(f: &Fragment, env: &Env, e: &Expr) -> Expr {
    match &f.executions {
        Some(k) => div(env.subst(e), env.subst(k)),
        None => env.subst(e),
    }
}

/// `max(a, b, …)` (a single argument is returned as is).
pub fn max_of(mut items: Vec<Expr>) -> Expr {
    match items.len() {
        0 => Expr::Num(0.0),
        1 => items.remove(0),
        _ => Expr::Call(Func::Max, items),
    }
}

/// `a + b + …` (empty: 0).
pub fn sum_of(items: Vec<Expr>) -> Expr {
    sum(items).unwrap_or(Expr::Num(0.0))
}
