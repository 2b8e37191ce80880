//! The syntax tree of a PAMELA model, as written (before substitution to normal form).
use super::error::Span;
use super::expr::Expr;

/// A time argument of `delay` or `use`: deterministic, or a distribution the simulator
/// draws from (the calculus uses its mean). Only a whole argument of the form `exp(m)` or
/// `uniform(a, b)` is a distribution; `exp` inside a larger expression is e^x.
#[derive(Clone, Debug, PartialEq)]
pub enum Time {
    /// Exactly this many time units.
    Det(Expr),
    /// Exponentially distributed with this mean.
    Exp(Expr),
    /// Uniformly distributed on [a, b].
    Uniform(Expr, Expr),
}

impl Time {
    /// The mean, which the calculus uses.
    pub fn mean(&self) -> Expr {
        match self {
            Time::Det(e) | Time::Exp(e) => e.clone(),
            Time::Uniform(a, b) => {
                Expr::Mul(vec![Expr::Add(vec![a.clone(), b.clone()]), Expr::Num(0.5)])
            }
        }
    }
    /// Applies `f` to every expression inside.
    pub fn map(&self, mut f: impl FnMut(&Expr) -> Expr) -> Time {
        match self {
            Time::Det(e) => Time::Det(f(e)),
            Time::Exp(e) => Time::Exp(f(e)),
            Time::Uniform(a, b) => Time::Uniform(f(a), f(b)),
        }
    }
}

/// A reference to a resource (`s`, `cpu(p)`, `fcfs(0, 1)`, `rho`) or a condition (`c(i)`).
#[derive(Clone, Debug, PartialEq)]
pub struct NameRef {
    /// The name.
    pub name: String,
    /// Index arguments.
    pub args: Vec<Expr>,
    /// Where it is written.
    pub span: Span,
}

/// A process expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Proc {
    /// `delay(t)`: t time units on the infinite server.
    Delay(Time),
    /// `use(r, t)` or `use({r1, r2, ...}, t)`: exclusive possession of the multiset for t.
    Use(Vec<NameRef>, Time),
    /// `wait(c)` / `wait({c1, c2})`: until all conditions are signalled.
    Wait(Vec<NameRef>),
    /// `signal(c)` / `signal({c1, c2})`.
    Signal(Vec<NameRef>),
    /// `a ; b ; ...`
    Seq(Vec<Proc>),
    /// `a || b || ...`
    Par(Vec<Proc>),
    /// `seq (i = lo, hi) body` (par = false) or `par (i = lo, hi) body` (par = true).
    Loop {
        /// Parallel replication?
        par: bool,
        /// Index name.
        index: String,
        /// Lower bound.
        lo: Expr,
        /// Upper bound.
        hi: Expr,
        /// Replicated process.
        body: Box<Proc>,
    },
    /// `if (c) a [else b]`; c is 0/1 or a branch probability.
    If(Expr, Box<Proc>, Option<Box<Proc>>),
    /// A process equation applied to arguments.
    Call(NameRef),
    /// `{ }`: takes no time.
    Nil,
}

/// What kind of server a resource is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServerKind {
    /// First-come-first-served, non-preemptive.
    Fcfs,
    /// Processor sharing.
    Ps,
    /// Infinite server (`rho`): never queues.
    Infinite,
}

/// Right-hand side of a resource equation.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceDef {
    /// `fcfs(index, multiplicity)`, `ps(index, multiplicity)`, `rho`.
    Server {
        /// Discipline.
        kind: ServerKind,
        /// Index (identity within the family).
        index: Expr,
        /// Number of servers.
        multiplicity: Expr,
    },
    /// Another resource (`resource link = l(0)`).
    Alias(NameRef),
}

/// What an equation defines.
#[derive(Clone, Debug, PartialEq)]
pub enum DeclKind {
    /// `numeric [parameter] x [= e]`.
    Numeric {
        /// `parameter` modifier: stays symbolic.
        parameter: bool,
        /// Right-hand side (None for parameters).
        value: Option<Expr>,
    },
    /// `resource r(i) = fcfs(i, 1)`.
    Resource(ResourceDef),
    /// `resource parameter fcfs(i)`: declares a predefined array; has no effect.
    ResourceParameter,
    /// `process L(p) = ...`.
    Process(Proc),
}

/// One equation.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// Left-hand side name.
    pub name: String,
    /// Formal parameters.
    pub params: Vec<String>,
    /// Right-hand side.
    pub kind: DeclKind,
    /// Where the equation starts.
    pub span: Span,
}
