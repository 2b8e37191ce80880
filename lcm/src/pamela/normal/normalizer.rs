//! The expansion itself: equations substituted, arguments bound, resources resolved.
use std::collections::{BTreeSet, HashMap};

use super::{NCond, NProc, NRes};
use crate::pamela::ast::{Decl, DeclKind, NameRef, Proc, ResourceDef, ServerKind, Time};
use crate::pamela::error::{PamelaError, Span};
use crate::pamela::expr::{fresh_name, Expr};

mod numeric;

/// Expands the equations of a model.
pub(crate) struct Normalizer<'a> {
    decls: HashMap<&'a str, &'a Decl>,
    parameters: BTreeSet<String>,
    /// Process / numeric equations being expanded (recursion check).
    stack: Vec<String>,
    /// Nodes of the normal form built so far (bounded by [`MAX_NODES`]).
    nodes: usize,
    /// Depth of the node being built (bounded by [`MAX_NORMAL_DEPTH`]).
    depth: usize,
    /// Numeric equations already checked to have a finite value.
    finite: BTreeSet<String>,
}

/// The largest normal form (in expression and process nodes) the normalizer builds. An
/// equation that uses another twice doubles its size at each level of such chains, so
/// without a bound forty lines of text could ask for terabytes.
pub(crate) const MAX_NODES: usize = 1_000_000;

/// The deepest normal form the normalizer builds (nesting of the substituted equations
/// added up); the compiler and simulator walk it recursively.
pub(crate) const MAX_NORMAL_DEPTH: usize = 1_000;

/// Names in scope: formal parameters bound to expressions, loop indices bound to
/// (possibly renamed) variables.
#[derive(Clone, Default)]
struct Scope {
    binds: Vec<(String, Expr)>,
}

impl Scope {
    fn get(&self, n: &str) -> Option<&Expr> {
        self.binds
            .iter()
            .rev()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v)
    }
    fn with(&self, n: &str, e: Expr) -> Scope {
        let mut s = self.clone();
        s.binds.push((n.to_string(), e));
        s
    }
    /// Variables that the bound values mention (a new index must not capture them).
    fn mentions(&self, n: &str) -> bool {
        self.binds.iter().any(|(_, v)| v.mentions(n))
    }
}

type R<T> = Result<T, PamelaError>;

const MAX_DEPTH: usize = 200;

impl<'a> Normalizer<'a> {
    pub(crate) fn new(decls: &'a [Decl]) -> R<Self> {
        let mut map: HashMap<&str, &Decl> = HashMap::new();
        let mut parameters = BTreeSet::new();
        for d in decls {
            if matches!(d.name.as_str(), "fcfs" | "ps" | "rho")
                && d.kind != DeclKind::ResourceParameter
            {
                return Err(PamelaError::semantic(
                    d.span,
                    format!(
                        "`{}` is a predefined resource and cannot be redefined",
                        d.name
                    ),
                ));
            }
            if d.kind == DeclKind::ResourceParameter {
                continue;
            }
            if let Some(prev) = map.insert(d.name.as_str(), d) {
                return Err(PamelaError::semantic(
                    d.span,
                    format!("`{}` is defined twice (first at {})", d.name, prev.span),
                ));
            }
            if let DeclKind::Numeric {
                parameter: true, ..
            } = d.kind
            {
                parameters.insert(d.name.clone());
            }
        }
        Ok(Normalizer {
            decls: map,
            parameters,
            stack: Vec::new(),
            nodes: 0,
            depth: 0,
            finite: BTreeSet::new(),
        })
    }

    /// Normal form of the process equation `name` (without arguments).
    pub(crate) fn process(&mut self, name: &str, span: Span) -> R<NProc> {
        let r = NameRef {
            name: name.to_string(),
            args: Vec::new(),
            span,
        };
        self.call(&r, &Scope::default())
    }

    fn fresh_index(&self, index: &str, scope: &Scope) -> String {
        let taken = |n: &str| {
            scope.get(n).is_some()
                || self.parameters.contains(n)
                || scope.mentions(n)
                || self.decls.contains_key(n)
        };
        if taken(index) {
            fresh_name(index, taken)
        } else {
            index.to_string()
        }
    }

    /// Accounts for `nodes` more nodes at `depth` levels below the current one; an error
    /// naming the equation being expanded past [`MAX_NODES`] or [`MAX_NORMAL_DEPTH`].
    fn grow(&mut self, nodes: usize, depth: usize, span: Span) -> R<()> {
        self.nodes += nodes;
        let what = match self.stack.last() {
            Some(name) => format!("while substituting `{name}`"),
            None => "in the main process".to_string(),
        };
        if self.nodes > MAX_NODES {
            return Err(PamelaError::semantic(
                span,
                format!(
                    "the model's normal form exceeds {MAX_NODES} nodes {what} (an equation \
                     used several times by each of a chain of others multiplies its size)"
                ),
            ));
        }
        if self.depth + depth > MAX_NORMAL_DEPTH {
            return Err(PamelaError::semantic(
                span,
                format!(
                    "the model's normal form nests deeper than {MAX_NORMAL_DEPTH} levels {what}"
                ),
            ));
        }
        Ok(())
    }

    fn enter(&mut self, name: &str, span: Span) -> R<()> {
        if self.stack.iter().any(|s| s == name) || self.stack.len() > MAX_DEPTH {
            return Err(PamelaError::semantic(
                span,
                format!(
                    "recursive equation `{name}` ({} -> {name}); PAMELA models must terminate by substitution",
                    self.stack.join(" -> ")
                ),
            ));
        }
        self.stack.push(name.to_string());
        Ok(())
    }

    fn time(&mut self, t: &Time, scope: &Scope, span: Span) -> R<Time> {
        Ok(match t {
            Time::Det(e) => Time::Det(self.expr(e, scope, span)?),
            Time::Exp(e) => Time::Exp(self.expr(e, scope, span)?),
            Time::Uniform(a, b) => {
                Time::Uniform(self.expr(a, scope, span)?, self.expr(b, scope, span)?)
            }
        })
    }

    fn resource(&mut self, r: &NameRef, scope: &Scope) -> R<NRes> {
        let args: Vec<Expr> = r
            .args
            .iter()
            .map(|a| self.expr(a, scope, r.span))
            .collect::<R<_>>()?;
        let builtin = match r.name.as_str() {
            "fcfs" => Some(ServerKind::Fcfs),
            "ps" => Some(ServerKind::Ps),
            "rho" => Some(ServerKind::Infinite),
            _ => None,
        };
        if let Some(kind) = builtin {
            if kind == ServerKind::Infinite {
                return Ok(NRes {
                    family: "rho".into(),
                    kind,
                    index: Expr::Num(0.0),
                    multiplicity: Expr::Num(1.0),
                });
            }
            if args.is_empty() || args.len() > 2 {
                return Err(PamelaError::semantic(
                    r.span,
                    format!(
                        "`{}(index, multiplicity)` takes 1 or 2 arguments, {} given",
                        r.name,
                        args.len()
                    ),
                ));
            }
            let mut it = args.into_iter();
            let (Some(index), multiplicity) = (it.next(), it.next()) else {
                unreachable!("one or two arguments, checked above")
            };
            return Ok(NRes {
                family: r.name.clone(),
                kind,
                index,
                multiplicity: multiplicity.unwrap_or(Expr::Num(1.0)),
            });
        }
        let (d, inner) = self.bind(r, args, "resource", "index argument(s)", |k| {
            matches!(k, DeclKind::Resource(_))
        })?;
        let DeclKind::Resource(def) = &d.kind else {
            unreachable!("bind accepts resource equations only here")
        };
        self.enter(&r.name, d.span)?;
        let out = match def {
            ResourceDef::Server {
                kind,
                index,
                multiplicity,
            } => Ok(NRes {
                family: r.name.clone(),
                kind: *kind,
                index: self.expr(index, &inner, d.span)?,
                multiplicity: self.expr(multiplicity, &inner, d.span)?,
            }),
            ResourceDef::Alias(target) => self.resource(target, &inner),
        };
        self.stack.pop();
        out
    }

    /// The equation `r` names, checked to be a `what` (`is_kind`) taking as many `arguments`
    /// as `args` has, with its formal parameters bound to `args`.
    fn bind(
        &self,
        r: &NameRef,
        args: Vec<Expr>,
        what: &str,
        arguments: &str,
        is_kind: fn(&DeclKind) -> bool,
    ) -> R<(&'a Decl, Scope)> {
        let d = match self.decls.get(r.name.as_str()).copied() {
            Some(d) if is_kind(&d.kind) => d,
            Some(d) => {
                return Err(PamelaError::semantic(
                    r.span,
                    format!("`{}` is a {}, not a {what}", r.name, kind_name(&d.kind)),
                ))
            }
            None => {
                return Err(PamelaError::semantic(
                    r.span,
                    format!("undefined {what} `{}`", r.name),
                ))
            }
        };
        if d.params.len() != args.len() {
            return Err(PamelaError::semantic(
                r.span,
                format!(
                    "{what} `{}` takes {} {arguments}, {} given",
                    r.name,
                    d.params.len(),
                    args.len()
                ),
            ));
        }
        let mut inner = Scope::default();
        for (p, a) in d.params.iter().zip(args) {
            inner = inner.with(p, a);
        }
        Ok((d, inner))
    }

    fn call(&mut self, r: &NameRef, scope: &Scope) -> R<NProc> {
        let args: Vec<Expr> = r
            .args
            .iter()
            .map(|a| self.expr(a, scope, r.span))
            .collect::<R<_>>()?;
        let (d, inner) = self.bind(r, args, "process", "argument(s)", |k| {
            matches!(k, DeclKind::Process(_))
        })?;
        let DeclKind::Process(body) = &d.kind else {
            unreachable!("bind accepts process equations only here")
        };
        self.enter(&r.name, d.span)?;
        let out = self.proc(body, &inner, d.span);
        self.stack.pop();
        out
    }

    fn proc(&mut self, p: &Proc, scope: &Scope, span: Span) -> R<NProc> {
        self.grow(1, 1, span)?;
        self.depth += 1;
        let r = self.proc_node(p, scope, span);
        self.depth -= 1;
        r
    }

    fn proc_node(&mut self, p: &Proc, scope: &Scope, span: Span) -> R<NProc> {
        Ok(match p {
            Proc::Nil => NProc::Nil,
            Proc::Delay(t) => NProc::Delay(self.time(t, scope, span)?),
            Proc::Use(rs, t) => {
                let mut out = Vec::new();
                for r in rs {
                    out.push(self.resource(r, scope)?);
                }
                let t = self.time(t, scope, span)?;
                if out.iter().all(|r| r.kind == ServerKind::Infinite) {
                    NProc::Delay(t)
                } else {
                    out.retain(|r| r.kind != ServerKind::Infinite);
                    NProc::Use(out, t)
                }
            }
            Proc::Wait(cs) | Proc::Signal(cs) => {
                let mut out = Vec::new();
                for c in cs {
                    if let Some(d) = self.decls.get(c.name.as_str()) {
                        return Err(PamelaError::semantic(
                            c.span,
                            format!("`{}` is a {}, not a condition", c.name, kind_name(&d.kind)),
                        ));
                    }
                    out.push(NCond {
                        name: c.name.clone(),
                        args: c
                            .args
                            .iter()
                            .map(|a| self.expr(a, scope, c.span))
                            .collect::<R<_>>()?,
                    });
                }
                if matches!(p, Proc::Wait(_)) {
                    NProc::Wait(out)
                } else {
                    NProc::Signal(out)
                }
            }
            Proc::Seq(v) => NProc::Seq(
                v.iter()
                    .map(|x| self.proc(x, scope, span))
                    .collect::<R<_>>()?,
            ),
            Proc::Par(v) => NProc::Par(
                v.iter()
                    .map(|x| self.proc(x, scope, span))
                    .collect::<R<_>>()?,
            ),
            Proc::Loop {
                par,
                index,
                lo,
                hi,
                body,
            } => {
                let lo = self.expr(lo, scope, span)?;
                let hi = self.expr(hi, scope, span)?;
                let fresh = self.fresh_index(index, scope);
                let inner = scope.with(index, Expr::Var(fresh.clone()));
                let body = self.proc(body, &inner, span)?;
                NProc::Loop {
                    par: *par,
                    index: fresh,
                    lo,
                    hi,
                    body: Box::new(body),
                }
            }
            Proc::If(c, a, b) => {
                let c = self.expr(c, scope, span)?;
                let a = self.proc(a, scope, span)?;
                let b = match b {
                    Some(b) => self.proc(b, scope, span)?,
                    None => NProc::Nil,
                };
                NProc::If(c, Box::new(a), Box::new(b))
            }
            Proc::Call(r) => self.call(r, scope)?,
        })
    }
}

fn kind_name(k: &DeclKind) -> &'static str {
    match k {
        DeclKind::Numeric { .. } => "numeric",
        DeclKind::Resource(_) | DeclKind::ResourceParameter => "resource",
        DeclKind::Process(_) => "process",
    }
}
