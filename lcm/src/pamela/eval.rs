//! Fast numeric evaluation: an [`Expr`] is translated once into a tree whose variables
//! are slots of a value array, so that evaluating a compiled model costs no name lookups.
use std::collections::HashMap;
use std::sync::Arc;

use super::error::PamelaError;
use super::expr::{CmpOp, Demand, Expr, Func, Reduction};
use super::normal::NProc;
use super::simplify::fmod;

/// Values of named parameters (time units and counts, as the model defines them).
pub type Bindings = std::collections::BTreeMap<String, f64>;

/// An expression translated for evaluation.
#[derive(Clone, Debug)]
pub(crate) enum Code {
    Const(f64),
    Slot(usize),
    Add(Vec<Code>),
    Mul(Vec<Code>),
    Div(Box<Code>, Box<Code>),
    Pow(Box<Code>, Box<Code>),
    Mod(Box<Code>, Box<Code>),
    IDiv(Box<Code>, Box<Code>),
    Cmp(CmpOp, Box<Code>, Box<Code>),
    Call1(Func, Box<Code>),
    /// A function of several arguments other than min and max (`pw`).
    CallN(Func, Vec<Code>),
    Max(Vec<Code>),
    Min(Vec<Code>),
    Reduce {
        op: Reduction,
        slot: usize,
        lo: Box<Code>,
        hi: Box<Code>,
        body: Box<Code>,
    },
    If(Box<Code>, Box<Code>, Box<Code>),
    Contention(Box<[DemandCode]>),
    TimeEquations(Arc<NProc>, Vec<(String, usize)>),
}

#[derive(Clone, Debug)]
pub(crate) struct DemandCode {
    family: usize,
    index: Code,
    multiplicity: Code,
    amount: Code,
    loops: Vec<(usize, Code, Code)>,
}

/// Maps names to slots while translating.
#[derive(Default, Debug, Clone)]
pub(crate) struct SlotMap {
    names: Vec<String>,
    scope: Vec<(String, usize)>,
    families: Vec<String>,
}

impl SlotMap {
    /// A map whose first slots hold the given names.
    pub(crate) fn with_names(names: &[String]) -> SlotMap {
        let mut m = SlotMap::default();
        for n in names {
            m.bind(n);
        }
        m
    }
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }
    pub(crate) fn bind(&mut self, n: &str) -> usize {
        let s = self.names.len();
        self.names.push(n.to_string());
        self.scope.push((n.to_string(), s));
        s
    }
    pub(crate) fn unbind(&mut self) {
        self.scope.pop();
    }
    pub(crate) fn lookup(&self, n: &str) -> Option<usize> {
        self.scope
            .iter()
            .rev()
            .find(|(k, _)| k == n)
            .map(|(_, s)| *s)
    }
    fn family(&mut self, f: &str) -> usize {
        match self.families.iter().position(|x| x == f) {
            Some(i) => i,
            None => {
                self.families.push(f.to_string());
                self.families.len() - 1
            }
        }
    }

    /// Translates `e`; free names must be bound.
    pub(crate) fn compile(&mut self, e: &Expr) -> Result<Code, PamelaError> {
        Ok(match e {
            Expr::Num(v) => Code::Const(*v),
            Expr::Var(n) => Code::Slot(
                self.lookup(n)
                    .ok_or_else(|| PamelaError::Unbound { name: n.clone() })?,
            ),
            Expr::Add(v) => Code::Add(
                v.iter()
                    .map(|x| self.compile(x))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Mul(v) => Code::Mul(
                v.iter()
                    .map(|x| self.compile(x))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Div(a, b) => Code::Div(Box::new(self.compile(a)?), Box::new(self.compile(b)?)),
            Expr::Pow(a, b) => Code::Pow(Box::new(self.compile(a)?), Box::new(self.compile(b)?)),
            Expr::Mod(a, b) => Code::Mod(Box::new(self.compile(a)?), Box::new(self.compile(b)?)),
            Expr::IDiv(a, b) => Code::IDiv(Box::new(self.compile(a)?), Box::new(self.compile(b)?)),
            Expr::Cmp(o, a, b) => {
                Code::Cmp(*o, Box::new(self.compile(a)?), Box::new(self.compile(b)?))
            }
            Expr::Call(Func::Max, v) => Code::Max(
                v.iter()
                    .map(|x| self.compile(x))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Call(Func::Min, v) => Code::Min(
                v.iter()
                    .map(|x| self.compile(x))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Call(f @ (Func::Pw | Func::Lin), v) => Code::CallN(
                *f,
                v.iter()
                    .map(|x| self.compile(x))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Call(f, v) => Code::Call1(*f, Box::new(self.compile(&v[0])?)),
            Expr::Apply(n, _) => {
                return Err(PamelaError::Eval(format!(
                    "unexpanded numeric equation `{n}`"
                )));
            }
            Expr::Reduce {
                op,
                index,
                lo,
                hi,
                body,
            } => {
                let lo = Box::new(self.compile(lo)?);
                let hi = Box::new(self.compile(hi)?);
                let slot = self.bind(index);
                let body = self.compile(body);
                self.unbind();
                Code::Reduce {
                    op: *op,
                    slot,
                    lo,
                    hi,
                    body: Box::new(body?),
                }
            }
            Expr::If(c, a, b) => Code::If(
                Box::new(self.compile(c)?),
                Box::new(self.compile(a)?),
                Box::new(self.compile(b)?),
            ),
            Expr::Contention(ds) => {
                let mut out = Vec::new();
                for d in ds.iter() {
                    out.push(self.demand(d)?);
                }
                Code::Contention(out.into_boxed_slice())
            }
            Expr::TimeEquations(p) => {
                let mut vars = Vec::new();
                for v in p.free_vars() {
                    let s = self
                        .lookup(&v)
                        .ok_or_else(|| PamelaError::Unbound { name: v.clone() })?;
                    vars.push((v, s));
                }
                Code::TimeEquations(p.clone(), vars)
            }
        })
    }

    fn demand(&mut self, d: &Demand) -> Result<DemandCode, PamelaError> {
        let family = self.family(&d.family);
        let mut loops = Vec::new();
        let mut bound = 0;
        let mut result = Ok(());
        for (i, lo, hi) in &d.loops {
            let lo = self.compile(lo);
            let hi = self.compile(hi);
            match (lo, hi) {
                (Ok(lo), Ok(hi)) => {
                    let s = self.bind(i);
                    bound += 1;
                    loops.push((s, lo, hi));
                }
                (Err(e), _) | (_, Err(e)) => {
                    result = Err(e);
                    break;
                }
            }
        }
        let r = result.and_then(|_| {
            Ok(DemandCode {
                family,
                index: self.compile(&d.index)?,
                multiplicity: self.compile(&d.multiplicity)?,
                amount: self.compile(&d.amount)?,
                loops,
            })
        });
        for _ in 0..bound {
            self.unbind();
        }
        r
    }
}

/// Rounds a value that must be an integer (loop bound, resource index).
pub(crate) fn as_int(v: f64, what: &str) -> Result<i64, PamelaError> {
    let r = v.round();
    if !v.is_finite() || (v - r).abs() > 1e-6 * r.abs().max(1.0) {
        return Err(PamelaError::Eval(format!(
            "{what} must be an integer, got {v}"
        )));
    }
    Ok(r as i64)
}

impl Code {
    /// Evaluates with the given slot values (reduction slots are scratch).
    pub(crate) fn eval(&self, s: &mut [f64]) -> Result<f64, PamelaError> {
        Ok(match self {
            Code::Const(v) => *v,
            Code::Slot(i) => s[*i],
            Code::Add(v) => {
                let mut acc = 0.0;
                for x in v.iter() {
                    acc += x.eval(s)?;
                }
                acc
            }
            Code::Mul(v) => {
                let mut acc = 1.0;
                for x in v.iter() {
                    acc *= x.eval(s)?;
                }
                acc
            }
            Code::Div(a, b) => a.eval(s)? / b.eval(s)?,
            Code::Pow(a, b) => a.eval(s)?.powf(b.eval(s)?),
            Code::Mod(a, b) => fmod(a.eval(s)?, b.eval(s)?),
            Code::IDiv(a, b) => (a.eval(s)? / b.eval(s)?).floor(),
            Code::Cmp(o, a, b) => o.apply(a.eval(s)?, b.eval(s)?),
            Code::Call1(f, a) => f.apply1(a.eval(s)?),
            Code::CallN(f, v) => {
                let mut args = Vec::with_capacity(v.len());
                for x in v.iter() {
                    args.push(x.eval(s)?);
                }
                f.apply(&args)
            }
            Code::Max(v) => {
                let mut acc = f64::NEG_INFINITY;
                for x in v.iter() {
                    acc = acc.max(x.eval(s)?);
                }
                acc
            }
            Code::Min(v) => {
                let mut acc = f64::INFINITY;
                for x in v.iter() {
                    acc = acc.min(x.eval(s)?);
                }
                acc
            }
            Code::Reduce {
                op,
                slot,
                lo,
                hi,
                body,
            } => {
                let lo = as_int(lo.eval(s)?, "a reduction bound")?;
                let hi = as_int(hi.eval(s)?, "a reduction bound")?;
                if hi < lo {
                    return Ok(0.0);
                }
                let mut acc = match op {
                    Reduction::Sum => 0.0,
                    Reduction::Max => f64::NEG_INFINITY,
                    Reduction::Min => f64::INFINITY,
                };
                for i in lo..=hi {
                    s[*slot] = i as f64;
                    let v = body.eval(s)?;
                    acc = match op {
                        Reduction::Sum => acc + v,
                        Reduction::Max => acc.max(v),
                        Reduction::Min => acc.min(v),
                    };
                }
                acc
            }
            Code::If(c, a, b) => {
                if c.eval(s)? != 0.0 {
                    a.eval(s)?
                } else {
                    b.eval(s)?
                }
            }
            Code::Contention(ds) => {
                let mut acc: HashMap<(usize, i64), (f64, f64)> = HashMap::new();
                for d in ds.iter() {
                    d.accumulate(0, s, &mut acc)?;
                }
                let mut best = 0.0f64;
                for (_, (sum, m)) in acc {
                    best = best.max(sum / m);
                }
                best
            }
            Code::TimeEquations(p, vars) => {
                let mut b = Bindings::new();
                for (n, slot) in vars {
                    b.insert(n.clone(), s[*slot]);
                }
                super::timeeq::critical_path(p, &b)?
            }
        })
    }
}

impl DemandCode {
    fn accumulate(
        &self,
        depth: usize,
        s: &mut [f64],
        acc: &mut HashMap<(usize, i64), (f64, f64)>,
    ) -> Result<(), PamelaError> {
        if depth == self.loops.len() {
            let amount = self.amount.eval(s)?;
            if amount == 0.0 {
                return Ok(());
            }
            let idx = as_int(self.index.eval(s)?, "a resource index")?;
            let m = self.multiplicity.eval(s)?;
            if m.is_nan() || m <= 0.0 {
                return Err(PamelaError::Eval(format!(
                    "resource multiplicity must be positive, got {m}"
                )));
            }
            let e = acc.entry((self.family, idx)).or_insert((0.0, m));
            e.0 += amount;
            return Ok(());
        }
        let (slot, lo, hi) = &self.loops[depth];
        let lo = as_int(lo.eval(s)?, "a loop bound")?;
        let hi = as_int(hi.eval(s)?, "a loop bound")?;
        for i in lo..=hi {
            s[*slot] = i as f64;
            self.accumulate(depth + 1, s, acc)?;
        }
        Ok(())
    }
}
