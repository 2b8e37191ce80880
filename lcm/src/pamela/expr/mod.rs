//! PAMELA's numeric expressions: the section-5 grammar plus `sum`/`max`/`min` reductions,
//! `mod`, `div`, comparisons (Iverson brackets, value 0 or 1) and conditionals.
//!
//! The same type carries compiled time models (`T_main`, `phi`, `omega`), so it also has two
//! nodes that only the compiler creates: [`Expr::Contention`] (a demand vector whose maximum is
//! taken numerically because its resource indices could not be separated symbolically) and
//! [`Expr::TimeEquations`] (the numeric critical path of a model with `wait`/`signal`).
use std::collections::BTreeSet;
use std::sync::Arc;

use super::normal::NProc;

mod display;
mod from_lca;
mod piecewise;

/// Functions of the expression grammar: the same as `lca`'s (names, arities, values).
pub use lca::expr::Func;

/// Comparison operators (value 1 when true, 0 when false).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>=`
    Ge,
    /// `>`
    Gt,
}

impl CmpOp {
    /// The operator's text.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Ge => ">=",
            CmpOp::Gt => ">",
        }
    }
    /// Evaluates the comparison to 0 or 1.
    pub fn apply(self, a: f64, b: f64) -> f64 {
        let t = match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Ge => a >= b,
            CmpOp::Gt => a > b,
        };
        if t {
            1.0
        } else {
            0.0
        }
    }
}

/// Reductions over an integer index range `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// `sum (i = lo, hi) body` (0 over an empty range).
    Sum,
    /// `max (i = lo, hi) body` (0 over an empty range: times are non-negative).
    Max,
    /// `min (i = lo, hi) body` (0 over an empty range).
    Min,
}

impl Reduction {
    /// The reduction's keyword.
    pub fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Max => "max",
            Reduction::Min => "min",
        }
    }
}

/// One `use` inside a parallel section, as seen by the contention analysis: within the
/// enclosing loops `loops` (outermost first), resource `family(index)` with multiplicity
/// `multiplicity` receives `amount` time units of demand per iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct Demand {
    /// Resource family (the resource equation's name).
    pub family: String,
    /// Resource index within the family.
    pub index: Expr,
    /// Number of servers of the resource.
    pub multiplicity: Expr,
    /// Service demand per visit, already weighted by branch probabilities.
    pub amount: Expr,
    /// Enclosing `seq`/`par` loops inside the section: (index, lower bound, upper bound).
    pub loops: Vec<(String, Expr, Expr)>,
}

/// A numeric expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A constant.
    Num(f64),
    /// A parameter or bound index.
    Var(String),
    /// n-ary sum.
    Add(Vec<Expr>),
    /// n-ary product.
    Mul(Vec<Expr>),
    /// Quotient.
    Div(Box<Expr>, Box<Expr>),
    /// Power (right-associative in the grammar).
    Pow(Box<Expr>, Box<Expr>),
    /// `a mod b` (result has the sign of b, like the mathematical modulus).
    Mod(Box<Expr>, Box<Expr>),
    /// `a div b`: floor of the quotient.
    IDiv(Box<Expr>, Box<Expr>),
    /// Comparison, 0 or 1.
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// Function call.
    Call(Func, Vec<Expr>),
    /// A numeric equation applied to arguments (`f(i, 2)`); only in parsed models, the
    /// substitution to normal form expands it.
    Apply(String, Vec<Expr>),
    /// Reduction over an index range.
    Reduce {
        /// Which reduction.
        op: Reduction,
        /// Index name, bound in `body`.
        index: String,
        /// Lower bound (inclusive).
        lo: Box<Expr>,
        /// Upper bound (inclusive).
        hi: Box<Expr>,
        /// Reduced expression.
        body: Box<Expr>,
    },
    /// `if (c) a else b`: `a` when c != 0.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// max over resources of (total demand / multiplicity), computed numerically by
    /// grouping the demands on equal resources.
    Contention(Arc<Vec<Demand>>),
    /// Completion time of a model with `wait`/`signal` by the time equations (thesis
    /// Eq. 3.1-3.3), every `use` counted as its service time.
    TimeEquations(Arc<NProc>),
}

impl Expr {
    /// A constant.
    pub fn num(v: f64) -> Expr {
        Expr::Num(v)
    }
    /// A variable.
    pub fn var(s: &str) -> Expr {
        Expr::Var(s.to_string())
    }
    /// The constant value, if this is a constant.
    pub fn as_num(&self) -> Option<f64> {
        match self {
            Expr::Num(v) => Some(*v),
            _ => None,
        }
    }

    /// Names of the free variables (parameters and unbound indices).
    pub fn variables(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_vars(&mut Vec::new(), &mut out);
        out
    }

    fn collect_vars(&self, bound: &mut Vec<String>, out: &mut BTreeSet<String>) {
        match self {
            Expr::Num(_) => {}
            Expr::Var(v) => {
                if !bound.contains(v) {
                    out.insert(v.clone());
                }
            }
            Expr::Reduce {
                index,
                lo,
                hi,
                body,
                ..
            } => {
                lo.collect_vars(bound, out);
                hi.collect_vars(bound, out);
                bound.push(index.clone());
                body.collect_vars(bound, out);
                bound.pop();
            }
            Expr::Contention(ds) => {
                for d in ds.iter() {
                    let n = bound.len();
                    for (i, lo, hi) in &d.loops {
                        lo.collect_vars(bound, out);
                        hi.collect_vars(bound, out);
                        bound.push(i.clone());
                    }
                    d.index.collect_vars(bound, out);
                    d.multiplicity.collect_vars(bound, out);
                    d.amount.collect_vars(bound, out);
                    bound.truncate(n);
                }
            }
            Expr::TimeEquations(p) => {
                for v in p.free_vars() {
                    if !bound.contains(&v) {
                        out.insert(v);
                    }
                }
            }
            _ => self.for_each_child(|c| c.collect_vars(bound, out)),
        }
    }

    /// Calls `f` on every direct child expression (not for binder-aware walks).
    pub(crate) fn for_each_child<'s>(&'s self, mut f: impl FnMut(&'s Expr)) {
        match self {
            Expr::Num(_) | Expr::Var(_) | Expr::Contention(_) | Expr::TimeEquations(_) => {}
            Expr::Add(v) | Expr::Mul(v) | Expr::Call(_, v) | Expr::Apply(_, v) => {
                v.iter().for_each(f)
            }
            Expr::Div(a, b)
            | Expr::Pow(a, b)
            | Expr::Mod(a, b)
            | Expr::IDiv(a, b)
            | Expr::Cmp(_, a, b) => {
                f(a);
                f(b)
            }
            Expr::Reduce { lo, hi, body, .. } => {
                f(lo);
                f(hi);
                f(body)
            }
            Expr::If(c, a, b) => {
                f(c);
                f(a);
                f(b)
            }
        }
    }

    /// True when `name` occurs free.
    pub fn mentions(&self, name: &str) -> bool {
        match self {
            Expr::Var(v) => v == name,
            Expr::Reduce {
                index,
                lo,
                hi,
                body,
                ..
            } => lo.mentions(name) || hi.mentions(name) || (index != name && body.mentions(name)),
            Expr::Contention(_) | Expr::TimeEquations(_) => self.variables().contains(name),
            _ => {
                let mut found = false;
                self.for_each_child(|c| found = found || c.mentions(name));
                found
            }
        }
    }

    /// True when the expression contains a reduction or a numeric node whose cost grows
    /// with loop bounds.
    pub fn has_reductions(&self) -> bool {
        match self {
            Expr::Reduce { .. } | Expr::TimeEquations(_) => true,
            Expr::Contention(ds) => ds.iter().any(|d| !d.loops.is_empty()),
            _ => {
                let mut found = false;
                self.for_each_child(|c| found = found || c.has_reductions());
                found
            }
        }
    }

    /// Replaces free occurrences of `name` by `value` (capture-avoiding: a reduction index
    /// that would capture a variable of `value` is renamed).
    pub fn substitute(&self, name: &str, value: &Expr) -> Expr {
        match self {
            Expr::Var(v) if v == name => value.clone(),
            Expr::Num(_) | Expr::Var(_) => self.clone(),
            Expr::Add(v) => Expr::Add(v.iter().map(|e| e.substitute(name, value)).collect()),
            Expr::Mul(v) => Expr::Mul(v.iter().map(|e| e.substitute(name, value)).collect()),
            Expr::Call(g, v) => {
                Expr::Call(*g, v.iter().map(|e| e.substitute(name, value)).collect())
            }
            Expr::Apply(g, v) => Expr::Apply(
                g.clone(),
                v.iter().map(|e| e.substitute(name, value)).collect(),
            ),
            Expr::Div(a, b) => {
                Expr::Div(bx(a.substitute(name, value)), bx(b.substitute(name, value)))
            }
            Expr::Pow(a, b) => {
                Expr::Pow(bx(a.substitute(name, value)), bx(b.substitute(name, value)))
            }
            Expr::Mod(a, b) => {
                Expr::Mod(bx(a.substitute(name, value)), bx(b.substitute(name, value)))
            }
            Expr::IDiv(a, b) => {
                Expr::IDiv(bx(a.substitute(name, value)), bx(b.substitute(name, value)))
            }
            Expr::Cmp(o, a, b) => Expr::Cmp(
                *o,
                bx(a.substitute(name, value)),
                bx(b.substitute(name, value)),
            ),
            Expr::If(c, a, b) => Expr::If(
                bx(c.substitute(name, value)),
                bx(a.substitute(name, value)),
                bx(b.substitute(name, value)),
            ),
            Expr::Reduce {
                op,
                index,
                lo,
                hi,
                body,
            } => {
                let lo = bx(lo.substitute(name, value));
                let hi = bx(hi.substitute(name, value));
                if index == name {
                    return Expr::Reduce {
                        op: *op,
                        index: index.clone(),
                        lo,
                        hi,
                        body: body.clone(),
                    };
                }
                if value.mentions(index) {
                    let fresh = fresh_name(index, |n| value.mentions(n) || body.mentions(n));
                    let body2 = body.substitute(index, &Expr::Var(fresh.clone()));
                    return Expr::Reduce {
                        op: *op,
                        index: fresh,
                        lo,
                        hi,
                        body: bx(body2.substitute(name, value)),
                    };
                }
                Expr::Reduce {
                    op: *op,
                    index: index.clone(),
                    lo,
                    hi,
                    body: bx(body.substitute(name, value)),
                }
            }
            Expr::Contention(_) | Expr::TimeEquations(_) => self.clone(),
        }
    }

    /// Number of nodes (a size measure for tests and reports).
    pub fn size(&self) -> usize {
        let mut n = 1;
        self.for_each_child(|c| n += c.size());
        n
    }

    /// Depth of the tree (a leaf has depth 1), computed without recursion so that it can
    /// check trees before recursive code walks them.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut todo = vec![(self, 1)];
        while let Some((e, d)) = todo.pop() {
            deepest = deepest.max(d);
            e.for_each_child(|c| todo.push((c, d + 1)));
        }
        deepest
    }
}

pub(crate) fn bx(e: Expr) -> Box<Expr> {
    Box::new(e)
}

/// A name based on `base` for which `taken` is false.
pub(crate) fn fresh_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut k = 2;
    loop {
        let n = format!("{base}_{k}");
        if !taken(&n) {
            return n;
        }
        k += 1;
    }
}

/// Formats a number the way the models print: integers without a fraction, others in the
/// shortest form that reads back to the same value.
pub fn fmt_num(v: f64) -> String {
    if v.is_finite() && v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
