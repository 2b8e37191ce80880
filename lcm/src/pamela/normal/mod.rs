//! Substitution to normal form (compiler paper, section 2.1): every global name is
//! replaced by its right-hand side, process and numeric equations with arguments are
//! expanded, resources are resolved to (family, index, multiplicity, discipline). Only
//! `numeric parameter`s stay symbolic. Loop indices that would capture a name are renamed.
use std::collections::BTreeSet;

use super::ast::{ServerKind, Time};
use super::expr::Expr;

mod display;
mod normalizer;

pub(crate) use normalizer::Normalizer;

/// A resolved resource: the family (resource equation name, or `fcfs`/`ps` for inline
/// servers) and the index identify it; two equations never alias each other.
#[derive(Clone, Debug, PartialEq)]
pub struct NRes {
    /// Resource equation name (or `fcfs`, `ps`, `rho` for inline servers).
    pub family: String,
    /// Discipline.
    pub kind: ServerKind,
    /// Index within the family.
    pub index: Expr,
    /// Number of servers.
    pub multiplicity: Expr,
}

/// A resolved condition variable (`c` or `c(i, j)`).
#[derive(Clone, Debug, PartialEq)]
pub struct NCond {
    /// Condition name.
    pub name: String,
    /// Index expressions.
    pub args: Vec<Expr>,
}

/// A process in normal form: no equations left, only parameters and loop indices free.
#[derive(Clone, Debug, PartialEq)]
pub enum NProc {
    /// Infinite-server delay.
    Delay(Time),
    /// Possession of a resource multiset (one entry per unit) for a time.
    Use(Vec<NRes>, Time),
    /// Wait for all conditions.
    Wait(Vec<NCond>),
    /// Signal all conditions.
    Signal(Vec<NCond>),
    /// Sequence.
    Seq(Vec<NProc>),
    /// Parallel composition with join.
    Par(Vec<NProc>),
    /// Replication.
    Loop {
        /// Parallel?
        par: bool,
        /// Index.
        index: String,
        /// Lower bound.
        lo: Expr,
        /// Upper bound.
        hi: Expr,
        /// Body.
        body: Box<NProc>,
    },
    /// Conditional composition (c is 0/1 or a probability).
    If(Expr, Box<NProc>, Box<NProc>),
    /// Takes no time.
    Nil,
}

impl NProc {
    /// Free variables (parameters) of the process.
    pub fn free_vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, bound: &mut Vec<String>, out: &mut BTreeSet<String>) {
        let mut add = |e: &Expr, bound: &Vec<String>| {
            for v in e.variables() {
                if !bound.contains(&v) {
                    out.insert(v);
                }
            }
        };
        match self {
            NProc::Delay(t) => {
                t.map(|e| {
                    add(e, bound);
                    Expr::Num(0.0)
                });
            }
            NProc::Use(rs, t) => {
                for r in rs {
                    add(&r.index, bound);
                    add(&r.multiplicity, bound);
                }
                t.map(|e| {
                    add(e, bound);
                    Expr::Num(0.0)
                });
            }
            NProc::Wait(cs) | NProc::Signal(cs) => {
                for c in cs {
                    for a in &c.args {
                        add(a, bound);
                    }
                }
            }
            NProc::Seq(v) | NProc::Par(v) => {
                for p in v {
                    p.collect(bound, out);
                }
            }
            NProc::Loop {
                index,
                lo,
                hi,
                body,
                ..
            } => {
                add(lo, bound);
                add(hi, bound);
                bound.push(index.clone());
                body.collect(bound, out);
                bound.pop();
            }
            NProc::If(c, a, b) => {
                add(c, bound);
                a.collect(bound, out);
                b.collect(bound, out);
            }
            NProc::Nil => {}
        }
    }

    /// True when the process contains `wait` or `signal`.
    pub fn has_conditions(&self) -> bool {
        match self {
            NProc::Wait(_) | NProc::Signal(_) => true,
            NProc::Seq(v) | NProc::Par(v) => v.iter().any(|p| p.has_conditions()),
            NProc::Loop { body, .. } => body.has_conditions(),
            NProc::If(_, a, b) => a.has_conditions() || b.has_conditions(),
            _ => false,
        }
    }
}
