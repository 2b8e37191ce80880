//! The process tree of a model translated for simulation: numeric expressions compiled to
//! slot code, resources and conditions interned, loops and branches as node indices.
use super::engine::Engine;
use super::Arbitration;
use crate::pamela::ast::{ServerKind, Time};
use crate::pamela::error::PamelaError;
use crate::pamela::eval::{as_int, Bindings, Code, SlotMap};
use crate::pamela::normal::NProc;

/// A time argument: deterministic, or drawn at each execution.
#[derive(Clone, Debug)]
pub(super) enum TimeCode {
    Det(Code),
    Exp(Code),
    Uniform(Code, Code),
}

/// One resource of a `use` multiset.
#[derive(Clone, Debug)]
pub(super) struct ResCode {
    pub(super) family: usize,
    pub(super) kind: ServerKind,
    /// Resolved at compile time when the index and multiplicity are constants.
    pub(super) fixed: Option<(i64, f64)>,
    pub(super) index: Code,
    pub(super) multiplicity: Code,
}

/// A condition of `wait` / `signal`: interned name and index arguments.
#[derive(Clone, Debug)]
pub(super) struct CondCode {
    pub(super) name: u32,
    pub(super) args: Vec<Code>,
}

/// A statement; children are indices into [`SimProgram`]'s node list.
#[derive(Clone, Debug)]
pub(super) enum Node {
    Delay(TimeCode),
    Use(Vec<ResCode>, TimeCode),
    Wait(Vec<CondCode>),
    Signal(Vec<CondCode>),
    Seq(Vec<usize>),
    Par(Vec<usize>),
    Loop {
        par: bool,
        slot: usize,
        lo: Code,
        hi: Code,
        body: usize,
    },
    If(Code, usize, usize),
    Nil,
}

/// A process tree translated for simulation.
#[derive(Debug)]
pub(crate) struct SimProgram {
    pub(super) nodes: Vec<Node>,
    root: usize,
    nslots: usize,
    params: Vec<String>,
    /// Resource family names (for messages and resource lookup).
    pub(super) families: Vec<String>,
    /// Condition names.
    pub(super) conds: Vec<String>,
}

struct Builder {
    slots: SlotMap,
    nodes: Vec<Node>,
    families: Vec<String>,
    conds: Vec<String>,
}

fn intern(v: &mut Vec<String>, s: &str) -> usize {
    match v.iter().position(|x| x == s) {
        Some(i) => i,
        None => {
            v.push(s.to_string());
            v.len() - 1
        }
    }
}

impl Builder {
    fn time(&mut self, t: &Time) -> Result<TimeCode, PamelaError> {
        Ok(match t {
            Time::Det(e) => TimeCode::Det(self.slots.compile(e)?),
            Time::Exp(e) => TimeCode::Exp(self.slots.compile(e)?),
            Time::Uniform(a, b) => {
                TimeCode::Uniform(self.slots.compile(a)?, self.slots.compile(b)?)
            }
        })
    }
    fn node(&mut self, p: &NProc) -> Result<usize, PamelaError> {
        let n = match p {
            NProc::Nil => Node::Nil,
            NProc::Delay(t) => Node::Delay(self.time(t)?),
            NProc::Use(rs, t) => {
                let mut out = Vec::new();
                for r in rs {
                    let index = self.slots.compile(&r.index)?;
                    let multiplicity = self.slots.compile(&r.multiplicity)?;
                    let fixed = match (&index, &multiplicity) {
                        (Code::Const(i), Code::Const(m)) => {
                            Some((as_int(*i, "a resource index")?, *m))
                        }
                        _ => None,
                    };
                    out.push(ResCode {
                        family: intern(&mut self.families, &r.family),
                        kind: r.kind,
                        fixed,
                        index,
                        multiplicity,
                    });
                }
                Node::Use(out, self.time(t)?)
            }
            NProc::Wait(cs) | NProc::Signal(cs) => {
                let mut out = Vec::new();
                for c in cs {
                    out.push(CondCode {
                        name: intern(&mut self.conds, &c.name) as u32,
                        args: c
                            .args
                            .iter()
                            .map(|a| self.slots.compile(a))
                            .collect::<Result<_, _>>()?,
                    });
                }
                if matches!(p, NProc::Wait(_)) {
                    Node::Wait(out)
                } else {
                    Node::Signal(out)
                }
            }
            NProc::Seq(v) => Node::Seq(v.iter().map(|x| self.node(x)).collect::<Result<_, _>>()?),
            NProc::Par(v) => Node::Par(v.iter().map(|x| self.node(x)).collect::<Result<_, _>>()?),
            NProc::Loop {
                par,
                index,
                lo,
                hi,
                body,
            } => {
                let lo = self.slots.compile(lo)?;
                let hi = self.slots.compile(hi)?;
                let slot = self.slots.bind(index);
                let body = self.node(body);
                self.slots.unbind();
                Node::Loop {
                    par: *par,
                    slot,
                    lo,
                    hi,
                    body: body?,
                }
            }
            NProc::If(c, a, b) => {
                let c = self.slots.compile(c)?;
                let a = self.node(a)?;
                let b = self.node(b)?;
                Node::If(c, a, b)
            }
        };
        self.nodes.push(n);
        Ok(self.nodes.len() - 1)
    }
}

impl SimProgram {
    /// Translates `p`; `params` are the names whose values the bindings give.
    pub(crate) fn new(p: &NProc, params: &[String]) -> Result<SimProgram, PamelaError> {
        let mut b = Builder {
            slots: SlotMap::with_names(params),
            nodes: Vec::new(),
            families: Vec::new(),
            conds: Vec::new(),
        };
        let root = b.node(p)?;
        Ok(SimProgram {
            nodes: b.nodes,
            root,
            nslots: b.slots.len(),
            params: params.to_vec(),
            families: b.families,
            conds: b.conds,
        })
    }

    /// Runs the model once. `contention = false` treats every resource as an infinite
    /// server and every time as its mean (the time equations of thesis Eq. 3.1-3.3).
    pub(crate) fn run(
        &self,
        bindings: &Bindings,
        seed: u64,
        contention: bool,
        arbitration: Arbitration,
        max_events: u64,
    ) -> Result<(f64, u64), PamelaError> {
        let mut env = vec![0.0; self.nslots];
        for (k, n) in self.params.iter().enumerate() {
            env[k] = *bindings
                .get(n)
                .ok_or_else(|| PamelaError::Unbound { name: n.clone() })?;
        }
        let mut e = Engine::new(self, contention, arbitration, seed, max_events);
        let root = e.spawn(env, self.root, None);
        e.start(root);
        e.main_loop()?;
        Ok((e.now, e.events))
    }
}
