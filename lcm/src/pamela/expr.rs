//! PAMELA's numeric expressions: the section-5 grammar plus `sum`/`max`/`min` reductions,
//! `mod`, `div`, comparisons (Iverson brackets, value 0 or 1) and conditionals.
//!
//! The same type carries compiled time models (`T_main`, `phi`, `omega`), so it also has two
//! nodes that only the compiler creates: [`Expr::Contention`] (a demand vector whose maximum is
//! taken numerically because its resource indices could not be separated symbolically) and
//! [`Expr::TimeEquations`] (the numeric critical path of a model with `wait`/`signal`).
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use super::normal::NProc;

/// Functions of the expression grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    /// Base-2 logarithm.
    Log2,
    /// Natural logarithm.
    Ln,
    /// Base-10 logarithm.
    Log10,
    /// Square root.
    Sqrt,
    /// e^x.
    Exp,
    /// Absolute value.
    Abs,
    /// Round up.
    Ceil,
    /// Round down.
    Floor,
    /// Minimum of 2+ arguments.
    Min,
    /// Maximum of 2+ arguments.
    Max,
}

impl Func {
    /// The function's name in the grammar.
    pub fn name(self) -> &'static str {
        match self {
            Func::Log2 => "log2",
            Func::Ln => "ln",
            Func::Log10 => "log10",
            Func::Sqrt => "sqrt",
            Func::Exp => "exp",
            Func::Abs => "abs",
            Func::Ceil => "ceil",
            Func::Floor => "floor",
            Func::Min => "min",
            Func::Max => "max",
        }
    }
    /// Looks a function up by name.
    pub fn from_name(s: &str) -> Option<Func> {
        Some(match s {
            "log2" => Func::Log2,
            "ln" => Func::Ln,
            "log10" => Func::Log10,
            "sqrt" => Func::Sqrt,
            "exp" => Func::Exp,
            "abs" => Func::Abs,
            "ceil" => Func::Ceil,
            "floor" => Func::Floor,
            "min" => Func::Min,
            "max" => Func::Max,
            _ => return None,
        })
    }
    /// Applies a one-argument function.
    pub fn apply1(self, x: f64) -> f64 {
        match self {
            Func::Log2 => x.log2(),
            Func::Ln => x.ln(),
            Func::Log10 => x.log10(),
            Func::Sqrt => x.sqrt(),
            Func::Exp => x.exp(),
            Func::Abs => x.abs(),
            Func::Ceil => x.ceil(),
            Func::Floor => x.floor(),
            Func::Min | Func::Max => x,
        }
    }
}

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
    pub(crate) fn for_each_child(&self, mut f: impl FnMut(&Expr)) {
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

// Precedence levels for printing: higher binds tighter.
const P_CMP: u8 = 1;
const P_ADD: u8 = 2;
const P_MUL: u8 = 3;
const P_UNARY: u8 = 4;
const P_POW: u8 = 5;
const P_ATOM: u8 = 6;

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Num(v) if *v < 0.0 => P_UNARY,
        Expr::Num(_)
        | Expr::Var(_)
        | Expr::Call(..)
        | Expr::Apply(..)
        | Expr::Contention(_)
        | Expr::TimeEquations(_) => P_ATOM,
        Expr::Add(v) if v.len() > 1 => P_ADD,
        Expr::Add(_) => P_ATOM,
        Expr::Mul(v) => {
            if v.len() == 2 && v[0].as_num() == Some(-1.0) {
                P_UNARY
            } else if v.len() > 1 {
                P_MUL
            } else {
                P_ATOM
            }
        }
        Expr::Div(..) | Expr::Mod(..) | Expr::IDiv(..) => P_MUL,
        Expr::Pow(..) => P_POW,
        Expr::Cmp(..) => P_CMP,
        Expr::Reduce { .. } | Expr::If(..) => P_ATOM,
    }
}

fn wrap(f: &mut fmt::Formatter<'_>, e: &Expr, min: u8) -> fmt::Result {
    if prec(e) < min {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

/// If `e` is `-1 * x` or `c * x` with c < 0, returns the positive counterpart.
fn negated(e: &Expr) -> Option<Expr> {
    match e {
        Expr::Num(v) if *v < 0.0 => Some(Expr::Num(-v)),
        Expr::Mul(v) => {
            let c = v.iter().find_map(|x| x.as_num())?;
            if c >= 0.0 {
                return None;
            }
            let mut out: Vec<Expr> = Vec::new();
            for x in v {
                match x.as_num() {
                    Some(c2) if c2 == c => {
                        if c != -1.0 {
                            out.push(Expr::Num(-c))
                        }
                    }
                    _ => out.push(x.clone()),
                }
            }
            Some(match out.len() {
                0 => Expr::Num(1.0),
                1 => out.pop().unwrap(),
                _ => Expr::Mul(out),
            })
        }
        _ => None,
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num(v) => write!(f, "{}", fmt_num(*v)),
            Expr::Var(v) => write!(f, "{v}"),
            Expr::Add(v) => {
                if v.is_empty() {
                    return write!(f, "0");
                }
                for (k, t) in v.iter().enumerate() {
                    if k == 0 {
                        wrap(f, t, P_ADD)?;
                    } else if let Some(pos) = negated(t) {
                        write!(f, " - ")?;
                        wrap(f, &pos, P_MUL)?;
                    } else {
                        write!(f, " + ")?;
                        wrap(f, t, P_MUL.min(P_ADD + 1))?;
                    }
                }
                Ok(())
            }
            Expr::Mul(v) => {
                if v.is_empty() {
                    return write!(f, "1");
                }
                if v.len() == 2 && v[0].as_num() == Some(-1.0) {
                    write!(f, "-")?;
                    return wrap(f, &v[1], P_POW);
                }
                for (k, t) in v.iter().enumerate() {
                    if k > 0 {
                        write!(f, "*")?;
                    }
                    // a negative constant inside a product needs parentheses
                    if k > 0 && t.as_num().is_some_and(|c| c < 0.0) {
                        write!(f, "({t})")?;
                    } else {
                        wrap(f, t, if k == 0 { P_MUL } else { P_UNARY })?;
                    }
                }
                Ok(())
            }
            Expr::Div(a, b) => {
                wrap(f, a, P_MUL)?;
                write!(f, "/")?;
                wrap(f, b, P_UNARY)
            }
            Expr::Mod(a, b) => {
                wrap(f, a, P_MUL)?;
                write!(f, " mod ")?;
                wrap(f, b, P_UNARY)
            }
            Expr::IDiv(a, b) => {
                wrap(f, a, P_MUL)?;
                write!(f, " div ")?;
                wrap(f, b, P_UNARY)
            }
            Expr::Pow(a, b) => {
                wrap(f, a, P_ATOM)?;
                write!(f, "^")?;
                wrap(f, b, P_UNARY)
            }
            Expr::Cmp(o, a, b) => {
                wrap(f, a, P_ADD)?;
                write!(f, " {} ", o.symbol())?;
                wrap(f, b, P_ADD)
            }
            Expr::Call(g, args) => {
                write!(f, "{}(", g.name())?;
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
            Expr::Apply(g, args) => {
                write!(f, "{g}(")?;
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
            Expr::Reduce {
                op,
                index,
                lo,
                hi,
                body,
            } => write!(f, "{} ({index} = {lo}, {hi}) {{ {body} }}", op.name()),
            Expr::If(c, a, b) => write!(f, "(if ({c}) {a} else {b})"),
            Expr::Contention(ds) => {
                write!(f, "max(")?;
                for (k, d) in ds.iter().enumerate() {
                    if k > 0 {
                        write!(f, " + ")?;
                    }
                    for (i, lo, hi) in &d.loops {
                        write!(f, "sum ({i} = {lo}, {hi}) ")?;
                    }
                    write!(f, "unitvec({}({})) * ", d.family, d.index)?;
                    wrap(f, &d.amount, P_UNARY)?;
                    if d.multiplicity.as_num() != Some(1.0) {
                        write!(f, "/")?;
                        wrap(f, &d.multiplicity, P_UNARY)?;
                    }
                }
                write!(f, ")")
            }
            Expr::TimeEquations(_) => write!(f, "critical_path(main)"),
        }
    }
}
